"""Argo's submit-time rules for one template's own fields (workflow/validate in Argo v4.1): names, leaf-only and
non-leaf-only fields, loops, output parameters, retry policies, and the references a step group or a DAG task may
make. Each check yields ``(field, message)``; :mod:`aipipe.engine.validate` raises the first."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from aipipe.engine import graph
from aipipe.engine.artfields import artifact_fields, param_name_problem
from aipipe.engine.containerset import SetRetry
from aipipe.engine.manifest import kind_of
from aipipe.engine.retry import POLICIES
from aipipe.engine.template import Scope, TemplateError, render
from aipipe.errors import UserError

Problem = tuple[str, str]

_FIELD_NAME = re.compile(r"[a-zA-Z0-9][-a-zA-Z0-9]*")  # steps, tasks, templates, containers
_FIELD_NAME_RULE = ("name must consist of alpha-numeric characters or '-', and must start with an alpha-numeric "
                    "character")
_MAX_FIELD_NAME = 128
_LOOPS = ("withItems", "withParam", "withSequence")
# what an output parameter's valueFrom can be (Argo's validateOutputParameter counts only these)
_VALUE_FROM_KINDS = ("path", "jqFilter", "jsonPath", "parameter", "expression", "supplied")
_ARG_TAG = re.compile(r"^\{\{\s*tasks\.([^.}\s]+)")
_STEP_TAG = re.compile(r"\{\{\s*steps\.([^.}\s\[\]]+)\.([^}\s]+?)\s*\}\}")
_VARIABLE = re.compile(r"^\{\{[^}]+\}\}$")
ITEM_TAG = re.compile(r"\{\{\s*(item(?:\.[^}\s]+)?)\s*\}\}")
_TASK_RESULT = re.compile(r"([A-Za-z0-9_-]+)\.([A-Za-z]+)")
_TASK_STATUS_TAG = re.compile(r"\{\{\s*tasks\.([^.}\s\[\]]+)\.status\s*\}\}")
_INPUT_FORM = re.compile(r"inputs\.(parameters(\.[A-Za-z0-9_-]+)?|artifacts\.[A-Za-z0-9_-]+(\.path)?)")
_GLOBAL_TAG = re.compile(r"\{\{\s*(workflow\.parameters\.[^}\s]+)\s*\}\}")
_METRIC_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")  # Prometheus metric names and label keys, as Argo checks them
# where an argument artifact can come from (Argo: from, fromExpression, a location or a repository key)
ARTIFACT_SOURCES = ("from", "fromExpression", "key", "raw", "s3", "git", "http", "artifactory", "hdfs", "oss", "gcs",
                     "azure", "plugin")


def field_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a step, task, template or container (None when it can)."""
    if len(name) > _MAX_FIELD_NAME:
        return f"must be no more than {_MAX_FIELD_NAME} characters"
    return None if _FIELD_NAME.fullmatch(name) else f"{_FIELD_NAME_RULE} (e.g. My-name1-2, 123-NAME)"


def named_list(items: Any, where: str, params: bool) -> Iterator[Problem]:
    """Names of a list of parameters/artifacts (``params``) or of steps/tasks/templates: given, valid, unique."""
    seen: set[str] = set()
    for i, item in enumerate(items if isinstance(items, list) else []):
        name = str((item or {}).get("name") or "") if isinstance(item, Mapping) else ""
        if not name:
            yield f"{where}[{i}]", "name is required"
            return
        problem = param_name_problem(name) if params else field_name_problem(name)
        if problem:
            yield f"{where}[{i}].name", f"'{name}' is invalid: {problem}"
            return
        if name in seen:
            yield f"{where}[{i}].name", f"'{name}' is not unique"
            return
        seen.add(name)


def template_fields(tmpl: Mapping[str, Any], where: str) -> Iterator[Problem]:
    """Inputs' and outputs' names, fields a leaf (or a non-leaf) cannot have, the retry policy, the timeout."""
    inputs, outputs = tmpl.get("inputs") or {}, tmpl.get("outputs") or {}
    for section, source in (("inputs", inputs), ("outputs", outputs)):
        for kind in ("parameters", "artifacts"):
            yield from named_list(source.get(kind), f"{where}.{section}.{kind}", params=True)
    kind = kind_of(tmpl)
    leaf = kind not in ("steps", "dag")  # Argo's IsLeaf
    if leaf and tmpl.get("parallelism") is not None:
        yield f"{where}.parallelism", "parallelism is only valid for steps and dag templates"
    deadline = tmpl.get("activeDeadlineSeconds")
    if deadline is not None:
        if not leaf:
            yield f"{where}.activeDeadlineSeconds", "activeDeadlineSeconds is only valid for leaf templates"
        elif not _positive_or_variable(deadline):
            yield (f"{where}.activeDeadlineSeconds",
                   "activeDeadlineSeconds must be a positive integer > 0 or an argo variable")
    timeout = tmpl.get("timeout")
    if timeout not in (None, ""):
        if not leaf:
            yield f"{where}.timeout", f"{kind} template doesn't support timeout field"
        elif problem := whole_number_timeout(tmpl.get("name"), timeout):
            yield f"{where}.timeout", problem
    policy = (tmpl.get("retryStrategy") or {}).get("retryPolicy")
    if policy not in (None, "") and policy not in POLICIES:
        yield f"{where}.retryStrategy.retryPolicy", f"{policy} is not a valid RetryPolicy"
    for param in outputs.get("parameters") or []:
        yield from _output_parameter(param, kind, f"{where}.outputs.parameters.{param.get('name')}")
    yield from artifact_fields(tmpl, leaf, where)


def depends_results(task: Mapping[str, Any], where: str) -> Iterator[Problem]:
    """Argo's ValidateTaskResults: each ``task.Result`` a DAG task's ``depends`` reads names a known result."""
    for name, result in _TASK_RESULT.findall(str(task.get("depends") or "")):
        if result not in graph.RESULTS:
            yield where, f"task result '{result}' for task '{name}' is invalid"


def item_references(step: Mapping[str, Any], where: str) -> Iterator[Problem]:
    """``{{item}}`` needs a loop; over literal ``withItems`` a key is read only from map items, and a
    ``withSequence`` item has no keys (Argo's addItemsToScope; a ``withParam`` item can be anything)."""
    tags = [t.strip() for t in ITEM_TAG.findall(text_without(step, ("inline",)))]
    if not tags:
        return
    items, sequence = step.get("withItems"), step.get("withSequence")
    if not items and step.get("withParam") in (None, "") and sequence is None:
        # Argo checks only tags with a known prefix ("item." is one, a bare "item" is not): outside a loop a bare
        # {{item}} is a custom variable, left in the text as written
        keyed = [t for t in tags if t.startswith("item.")]
        if keyed:
            yield where, f"failed to resolve {{{{{keyed[0]}}}}}: the step has no withItems, withParam or withSequence"
        return
    if isinstance(items, list) and items:
        keys = {f"item.{k}" for i in items if isinstance(i, Mapping) for k in i}
        keys |= {f"item.[{n}]" for i in items if isinstance(i, list) for n in range(len(i))}
    elif sequence is not None:
        keys = set()
    else:
        return
    for tag in tags:
        if tag != "item" and tag not in keys:  # as Argo's resolveAllVariables: the whole tag, not its first key
            yield where, f"failed to resolve {{{{{tag}}}}}: no loop item has '{tag[len('item.'):]}'"


def init_container_names(tmpl: Mapping[str, Any], where: str) -> Iterator[Problem]:
    """Every init container is named (Argo's validateInitContainers)."""
    inits = tmpl.get("initContainers")
    if isinstance(inits, list) and any(not (isinstance(c, Mapping) and c.get("name")) for c in inits):
        yield f"{where}.initContainers", "initContainers must all have container name"


def template_metrics(tmpl: Mapping[str, Any], where: str) -> Iterator[Problem]:
    """A template's Prometheus metrics: a valid name, valid label keys, a help string (Argo's validateLeaf; the
    metrics themselves are a controller's to emit, see :mod:`aipipe.engine.pod`)."""
    metrics = tmpl.get("metrics")
    prometheus = metrics.get("prometheus") if isinstance(metrics, Mapping) else None
    for metric in prometheus if isinstance(prometheus, list) else []:
        name = str((metric or {}).get("name") or "") if isinstance(metric, Mapping) else ""
        if not _METRIC_NAME.fullmatch(name):
            yield f"{where}.metrics", (f"metric name '{name}' is invalid. Metric names must contain alphanumeric "
                                       "characters or '_'")
            return
        for label in metric.get("labels") or []:
            key = str((label or {}).get("key") or "") if isinstance(label, Mapping) else ""
            if not _METRIC_NAME.fullmatch(key):
                yield f"{where}.metrics", (f"metric label '{key}' is invalid: keys may only contain alphanumeric "
                                           "characters or '_'")
                return
        if not metric.get("help"):
            yield f"{where}.metrics", f"metric '{name}' must contain a help string under 'help: ' field"
            return
        problem = _metric_value_problem(metric)
        if problem:
            yield f"{where}.metrics", f"metric '{name}' error: {problem}"
            return


def _metric_value_problem(metric: Mapping[str, Any]) -> str | None:
    """What Argo's ValidateMetricValues refuses: a gauge, counter or histogram without its ``value``, and a
    real-time gauge of ``resourcesDuration.*`` (known only once the node ends)."""
    for kind in ("gauge", "counter", "histogram"):
        body = metric.get(kind)
        if isinstance(body, Mapping) and not body.get("value"):
            return f"missing {kind}.value"
    gauge = metric.get("gauge")
    if isinstance(gauge, Mapping) and gauge.get("realtime") in (True, "true") and \
            "resourcesDuration." in str(gauge.get("value")):
        return "'resourcesDuration.*' metrics cannot be used in real-time"
    return None


def pod_gc(pod_gc: Any) -> Iterator[Problem]:
    """``podGC``: a known strategy, and a ``labelSelector`` as Kubernetes parses a LabelSelector (a known operator,
    with values for In and NotIn and none for Exists and DoesNotExist)."""
    strategy = pod_gc.get("strategy") if isinstance(pod_gc, Mapping) else None
    if strategy not in (None, "", "OnPodCompletion", "OnPodSuccess", "OnWorkflowCompletion", "OnWorkflowSuccess"):
        yield "spec.podGC.strategy", f"podGC.strategy unknown strategy '{strategy}'"
    selector = pod_gc.get("labelSelector") if isinstance(pod_gc, Mapping) else None
    expressions = selector.get("matchExpressions") if isinstance(selector, Mapping) else None
    for expression in expressions if isinstance(expressions, list) else []:
        expression = expression if isinstance(expression, Mapping) else {}
        operator, values = str(expression.get("operator") or ""), expression.get("values")
        if operator in ("In", "NotIn") and not values:
            yield "spec.podGC.labelSelector", "podGC.labelSelector invalid: for 'in', 'notin' operators, values set " \
                "can't be empty"
        elif operator in ("Exists", "DoesNotExist") and values:
            yield "spec.podGC.labelSelector", "podGC.labelSelector invalid: values set must be empty for exists and " \
                "does not exist"
        elif operator not in ("In", "NotIn", "Exists", "DoesNotExist"):
            yield "spec.podGC.labelSelector", f"podGC.labelSelector invalid: {operator!r} is not a valid label " \
                "selector operator"


def unclosed_tag(tmpl: Any, where: str) -> Iterator[Problem]:
    """A ``{{`` with no ``}}`` after it in any of the template's strings: Argo's template parser refuses the
    template ("Cannot find end tag")."""
    if isinstance(tmpl, str):
        start = tmpl.rfind("{{")
        if start >= 0 and tmpl.find("}}", start + 2) < 0:
            yield where, f'Cannot find end tag="}}}}" in the template starting from {tmpl[start:start + 40]!r}'
    elif isinstance(tmpl, Mapping):
        for key, value in tmpl.items():
            yield from unclosed_tag(value, f"{where}.{key}")
    elif isinstance(tmpl, list):
        for i, value in enumerate(tmpl):
            yield from unclosed_tag(value, f"{where}[{i}]")


def global_artifact_names(spec: Mapping[str, Any]) -> set[str] | None:
    """The ``globalName`` of every output artifact the workflow's own templates declare, the workflow's parameters
    substituted in them (Argo's validation resolves ``{{workflow.outputs.artifacts.X}}`` against these); None when
    they cannot all be known before the run (a templateRef, or another tag in a name)."""
    if _has_key(spec.get("templates"), ("templateRef", "inline")):
        return None
    values = {f"workflow.parameters.{p.get('name')}": str(p.get("value"))
              for p in (spec.get("arguments") or {}).get("parameters") or [] if isinstance(p, Mapping)
              and p.get("value") is not None}
    names: set[str] = set()
    for tmpl in spec.get("templates") or []:
        for art in ((tmpl.get("outputs") or {}).get("artifacts") or []) if isinstance(tmpl, Mapping) else []:
            try:
                name = render(str(art.get("globalName") or "") if isinstance(art, Mapping) else "", Scope(values))
            except TemplateError:
                return None
            if "{{" in name:
                return None
            if name:
                names.add(name)
    return names


def run_metadata_keys(workflow: Mapping[str, Any], spec: Mapping[str, Any]) -> dict[str, set[str]]:
    """The label and annotation keys a run has from the start: its own metadata's and its (resolved)
    ``workflowMetadata``'s, ``labelsFrom`` included; Argo's validation resolves ``workflow.labels.X`` against these
    (a referenced WorkflowTemplate's own metadata is not the run's)."""
    meta, extra = workflow.get("metadata"), spec.get("workflowMetadata")
    meta = meta if isinstance(meta, Mapping) else {}
    extra = extra if isinstance(extra, Mapping) else {}
    sources = {"labels": (meta.get("labels"), extra.get("labels"), extra.get("labelsFrom")),
               "annotations": (meta.get("annotations"), extra.get("annotations"))}
    return {kind: {str(k) for source in found if isinstance(source, Mapping) for k in source}
            for kind, found in sources.items()}


def metadata_reference(tag: str, keys: Mapping[str, set[str]], where: str) -> Iterator[Problem]:
    """A ``workflow.labels.X`` or ``workflow.annotations.X`` whose key the run does not have (``json`` is the whole
    map). The labels a server or a CronWorkflow puts on a run, ``workflows.argoproj.io/…`` ones included, are on it
    when it is judged."""
    parts = tag.split(".", 2)
    if len(parts) == 3 and parts[0] == "workflow" and parts[1] in keys:
        key = parts[2]
        if key != "json" and key not in keys[parts[1]]:
            yield where, f"failed to resolve {{{{{tag}}}}}: the run has no {parts[1][:-1]} '{key}'"


def leaf_image(tmpl: Mapping[str, Any], defaults: Mapping[str, Any], where: str,
               globals_: Mapping[str, str] | None = None) -> Iterator[Problem]:
    """A container or script names its image, or ``templateDefaults`` gives one for that kind (Argo's
    validateLeaf). As Argo judges the template with the workflow's parameters substituted, an image that is only
    ``{{workflow.parameters.X}}`` tags whose values are empty is empty too."""
    for kind in ("container", "script"):
        body, default = tmpl.get(kind), defaults.get(kind)
        if isinstance(body, Mapping) and not _substituted(str(body.get("image") or ""), globals_ or {}) and not (
                isinstance(default, Mapping) and default.get("image")):
            yield f"{where}.{kind}", f"{where}.{kind}.image may not be empty"


def parameter_values(spec: Mapping[str, Any]) -> dict[str, str]:
    """``workflow.parameters.X`` of each workflow parameter that has a value, as Argo's validation substitutes them
    into every template before it judges it."""
    params = (spec.get("arguments") or {}).get("parameters") or []
    return {f"workflow.parameters.{p.get('name')}": str(p["value"]) for p in params
            if isinstance(p, Mapping) and p.get("value") is not None}


def input_form(tag: str, where: str) -> Iterator[Problem]:
    """An ``inputs.`` tag of a form no template's scope has (``inputs.  parameters.x``, ``inputs.foo``)."""
    if tag.startswith("inputs.") and not _INPUT_FORM.fullmatch(tag):
        yield where, f"failed to resolve {{{{{tag}}}}}"


def _substituted(text: str, globals_: Mapping[str, str]) -> str:
    """``text`` with each plain tag that names one of ``globals_`` replaced by its value."""
    return _GLOBAL_TAG.sub(lambda m: globals_.get(m.group(1), m.group(0)), text)


def http_url(tmpl: Mapping[str, Any], where: str) -> Iterator[Problem]:
    """An http template names the URL it requests (the CRD requires ``url``)."""
    body = tmpl.get("http")
    if isinstance(body, Mapping) and not str(body.get("url") or "").strip():
        yield f"{where}.http.url", "is required: the URL the HTTP node requests"


def _positive_or_variable(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return value >= 0
    text = str(value).strip()
    return bool(_VARIABLE.match(text)) or (text.isdigit())


def _output_parameter(param: Mapping[str, Any], kind: str, where: str) -> Iterator[Problem]:
    value_from = param.get("valueFrom")
    if value_from is not None and param.get("value") is not None:
        yield where, "has both valueFrom and value specified. Choose one."
        return
    if param.get("value") is not None:
        return
    if value_from is None:
        yield where, "does not have valueFrom or value specified"
        return
    given = [k for k in _VALUE_FROM_KINDS if value_from.get(k) not in (None, "")]
    if not given:
        yield f"{where}.valueFrom", "valueFrom type unspecified. choose one of: path, jqFilter, jsonPath, parameter, " \
                                    "expression, supplied"
    elif len(given) > 1:
        yield f"{where}.valueFrom", f"multiple valueFrom types specified ({', '.join(given)}); choose one"
    elif kind in ("container", "script", "containerSet") and not value_from.get("path"):
        yield f"{where}.valueFrom", f"path must be specified for {kind} templates"
    elif kind in ("steps", "dag") and not (value_from.get("parameter") or value_from.get("expression")):
        yield f"{where}.valueFrom", f"parameter or expression must be specified for {kind} templates"


def loop_fields(step: Mapping[str, Any], where: str) -> Iterator[Problem]:
    """One loop source per step or task; a withSequence with count or end, not both."""
    given = [k for k in _LOOPS if step.get(k) not in (None, "", [])]
    if len(given) > 1:
        yield where, "only one of withItems, withParam, withSequence can be specified"
    sequence = step.get("withSequence") or {}
    if isinstance(sequence, Mapping) and sequence.get("count") is not None and sequence.get("end") is not None:
        yield f"{where}.withSequence", "only one of count or end can be defined in withSequence"


def step_references(groups: list[Any], where: str) -> Iterator[Problem]:
    """A step (its hooks included) reads the steps of earlier groups, and only the ``status`` of the steps of its own
    group; a later step cannot resolve yet (Argo: "failed to resolve {{steps.X...}}"). A step with hooks also reads
    its own outputs (Argo's validateSteps adds them to the scope then, for the hooks to read; upstream's e2e test
    TestHooksWithArtifactsInSteps passes a step's own artifact to its success hook)."""
    earlier: set[str] = set()
    for gi, group in enumerate(groups):
        steps = [s for s in group if isinstance(s, Mapping)] if isinstance(group, list) else []
        same = {str(s.get("name")) for s in steps}
        for step in steps:
            hooks = step.get("hooks")
            own = str(step.get("name")) if isinstance(hooks, Mapping) and hooks else None
            for name, rest in _STEP_TAG.findall(text_without(step, ("inline",))):
                if name in earlier or (name in same and rest == "status") or name == own:
                    continue
                yield f"{where}.steps[{gi}].{step.get('name')}", f"failed to resolve {{{{steps.{name}.{rest}}}}}"
        earlier |= same


def dag_tasks(dag: Mapping[str, Any], trees: Mapping[str, Any], where: str) -> Iterator[Problem]:
    """Task names, depends with continueOn, items-based conditions, targets, and arguments that read a task
    that is not an ancestor (``trees``: each task's parsed dependencies, :func:`graph.task_tree`)."""
    tasks = [t for t in dag.get("tasks") or [] if isinstance(t, Mapping)]
    if not tasks:
        yield f"{where}.tasks", "must have at least one task"
        return
    yield from named_list(tasks, f"{where}.tasks", params=False)
    by_name = {str(t.get("name")): t for t in tasks}
    using_depends = any(t.get("depends") for t in tasks)
    if using_depends and any(t.get("dependencies") for t in tasks):
        yield where, "cannot use both 'depends' and 'dependencies' in the same DAG template"
        return
    for name, task in by_name.items():
        at = f"{where}.tasks.{name}"
        if name[:1].isdigit() and (using_depends or task.get("dependencies")):
            yield at, "name cannot begin with a digit when using either 'depends' or 'dependencies'"
        if using_depends and task.get("continueOn") is not None:
            yield at, "cannot use 'continueOn' when using 'depends'. Instead use 'dep-task.Failed'/'dep-task.Errored'"
        yield from loop_fields(task, at)
        for dep in sorted(graph.items_conditions(trees.get(name))):
            if dep in by_name and not any(by_name[dep].get(k) not in (None, "", []) for k in _LOOPS):
                yield at, (f"dependency '{dep}' uses an items-based condition such as .AnySucceeded or .AllFailed "
                           "but does not contain any items")
    for target in str(dag.get("target") or "").split(" ") if dag.get("target") else []:  # Argo splits on " "
        if not _VARIABLE.match(target) and target not in by_name:
            yield f"{where}.target", f"target '{target}' is not defined"
    for name, task in by_name.items():
        tree = trees.get(name)
        ancestors = graph.ancestors(sorted(graph.deps_of(tree)), trees) if tree is not None else set()
        known = ancestors | ({name} if task.get("hooks") else set())  # a task's hooks read its own status
        for other in _TASK_STATUS_TAG.findall(text_without(task, ("inline",))):
            if other not in known:  # Argo adds tasks.X.status to a task's scope for its ancestors only
                yield (f"{where}.tasks.{name}",
                       f"failed to resolve {{{{tasks.{other}.status}}}}: '{other}' is not a dependency of this task")
                break
        arguments = task.get("arguments") or {}
        for kind, source in (("parameter", "value"), ("artifact", "from")):
            for item in arguments.get(f"{kind}s") or []:
                found = _ARG_TAG.match(str(item.get(source) or ""))
                if found and found.group(1) not in ancestors:
                    yield (f"{where}.tasks.{name}.arguments",
                           f"missing dependency '{found.group(1)}' for {kind} '{item.get('name')}'")


def whole_number_timeout(template: Any, timeout: Any) -> str | None:
    """Argo's words for a ``timeout`` that is a whole number (it takes a duration with a unit)."""
    text = str(timeout or "").strip()
    if not text.lstrip("-").isdigit():
        return None
    return f"{template} has invalid duration format in timeout ('{text}' is a whole number: use e.g. {text}s)"


def container_set(tmpl: Mapping[str, Any], where: str) -> Iterator[Problem]:
    """As Argo's ContainerSetTemplate.Validate: containers, unique names, known dependencies, no cycle, no mount
    path twice; a container named ``main`` when the template has artifacts or output parameters (validateLeaf);
    and a retryStrategy that parses."""
    cset = tmpl["containerSet"]
    where = f"{where}.containerSet"
    containers = cset.get("containers") or []
    if not containers:
        yield f"{where}.containers", "containers must have at least one container"
        return
    names = [str(c.get("name") or "") for c in containers]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if "" in names or dupes:
        yield f"{where}.containers", f"every container needs a unique name (repeated: {dupes or ['']})"
        return
    for i, problem in ((i, field_name_problem(n)) for i, n in enumerate(names)):
        if problem:
            yield f"{where}.containers[{i}].name", f"{where}.containers[{i}].name: '{names[i]}' is invalid: {problem}"
            return
    inputs, outputs = tmpl.get("inputs") or {}, tmpl.get("outputs") or {}
    if "main" not in names and (inputs.get("artifacts") or outputs.get("parameters") or outputs.get("artifacts")):
        yield f"{where}.containers", 'containers must have a container named "main" for input or output'
    mounted: dict[str, str] = {}
    for i, mount in enumerate(cset.get("volumeMounts") or []):
        path, name = str(mount.get("mountPath")), str(mount.get("name"))
        if path in mounted:
            yield (f"{where}.volumeMounts[{i}].mountPath",
                   f"volumeMounts[{i}].mountPath '{path}' already mounted in volumeMounts.{mounted[path]}")
        mounted.setdefault(path, name)
    for container in containers:
        for dep in container.get("dependencies") or []:
            if dep not in names:
                yield (f"{where}.containers.{container['name']}",
                       f"containers.{container['name']} dependency '{dep}' not defined")
    cycle = graph.find_cycle({str(c["name"]): graph.task_tree({"dependencies": c.get("dependencies") or []})
                              for c in containers})
    if cycle:
        yield f"{where}.containers", f"containers dependency cycle {' -> '.join(cycle)}"
    if cset.get("retryStrategy") is not None:
        try:
            SetRetry.of({"containerSet": cset})
        except UserError as exc:
            yield f"{where}.retryStrategy", str(exc)


def text_without(value: Any, skip: tuple[str, ...]) -> str:
    """Every string in ``value`` (joined), leaving out the keys in ``skip``."""
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        return "\n".join(text_without(v, skip) for k, v in value.items() if k not in skip)
    if isinstance(value, list):
        return "\n".join(text_without(v, skip) for v in value)
    return ""


def _has_key(value: Any, keys: tuple[str, ...]) -> bool:
    """Whether any mapping inside ``value`` has one of ``keys`` (set)."""
    if isinstance(value, Mapping):
        return any(value.get(k) for k in keys) or any(_has_key(v, keys) for v in value.values())
    if isinstance(value, list):
        return any(_has_key(v, keys) for v in value)
    return False
