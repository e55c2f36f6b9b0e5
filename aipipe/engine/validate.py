"""Reject invalid Workflow specs before anything runs, with the field and the reason (like ``argo lint``)."""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator, Mapping
from typing import Any, NoReturn

from aipipe.engine import argrules, graph, lintrules
from aipipe.engine.anystring import text_parameter_lookup, text_parameters
from aipipe.engine.execution import TemplateLookup
from aipipe.engine.manifest import TEMPLATE_KINDS, is_dynamic_ref, kind_of
from aipipe.engine.refwalk import called_template, reached_from, referenced_templates
from aipipe.engine.semaphores import sync_problems
from aipipe.engine.unsupported import refuse_unsupported
from aipipe.engine.wfref import refuse_unresolved_parts, resolve_workflow_spec
from aipipe.errors import UserError
from aipipe.validation import check_name

LOCAL_KINDS = ("container", "script", "containerSet", "steps", "dag", "suspend", "http", "data")
_PLAIN_TAG = re.compile(r"\{\{\s*([^=}\s][^}]*?)\s*\}\}")  # {{...}} but not an {{= expression}}
_INPUT_TAG = re.compile(r"inputs\.(parameters|artifacts)\.([A-Za-z0-9_-]+)")
_SIBLING_TAG = re.compile(r"(steps|tasks)\.([^.\s\[\]]+)\.")
_GLOBAL_PARAM_TAG = re.compile(r"workflow\.parameters\.(.+)")
_AGGREGATE_TAG = re.compile(r"(?:steps|tasks)\.[^.\s\[\]]+\.outputs\.parameters")
MAX_OBJECT_NAME = 63  # Argo's maxCharsInObjectName
# what can follow ``workflow.`` in a variable (Argo's global scope; which ones exist in a given run is checked on)
WORKFLOW_FIELDS = frozenset({"name", "namespace", "uid", "serviceAccountName", "mainEntrypoint", "parameters",
                             "priority", "labels", "annotations", "creationTimestamp", "duration", "status",
                             "failures", "outputs", "scheduledTime"})
WHOLE_WORKFLOW_FIELDS = frozenset({"name", "namespace", "uid", "serviceAccountName", "mainEntrypoint", "priority",
                                   "duration", "status", "failures", "scheduledTime"})  # no `.x` below them
SIBLING_FIELDS = frozenset({"id", "startedAt", "finishedAt", "hostNodeName", "status", "ip", "exitCode"})
_OUTPUT_TAG = re.compile(r"(?:steps|tasks)\.[^.\s\[\]]+\.(?:outputs\.)?"
                         r"(result|exitCode|parameters\.|artifacts\.)([A-Za-z0-9_-]*)$")
# Accepted and not acted on, because on one machine they only govern cluster resources:
# - ttlStrategy, podGC: when Argo deletes a finished Workflow object or its pods. Local runs and their logs stay
#   in the run store until deleted (``aipipe delete``, the server's archive rules).
# - resources requests/limits (cpu, memory, ephemeral-storage): scheduling and cgroup caps on a cluster node; a
#   local node shares the machine (GPU requests are honoured: aipipe.engine.gpu).
# - emptyDir medium/sizeLimit, nodeSelector, affinity, tolerations, priorityClassName, podPriority, schedulerName.


class _Linter:
    def __init__(self, spec: Mapping[str, Any], templates: TemplateLookup, own: bool = True,
                 as_template: bool = False, metadata: Mapping[str, set[str]] | None = None,
                 exit_arguments: Mapping[str, Any] | None = None) -> None:
        """``own``: ``spec`` is the submitted workflow's (so its arguments are the workflow's parameters), not a
        WorkflowTemplate reached through a templateRef (whose templates see the caller's parameters).
        ``as_template``: ``spec`` is a WorkflowTemplate's being registered: as Argo's template validation does,
        its parameters may have no value yet and its entrypoint's inputs need not be supplied (both come at
        submit). ``metadata``: the run's label and annotation keys (``{"labels": …, "annotations": …}``), which
        ``{{workflow.labels.X}}`` and ``{{workflow.annotations.X}}`` must name. ``exit_arguments``: what onExit is
        checked with when not ``spec``'s arguments (a workflowTemplateRef run's own, as Argo's validate.Workflow)."""
        self.spec = spec
        self.metadata = metadata
        self.as_template = as_template
        self.lookup = templates
        self.local = {t.get("name"): t for t in spec.get("templates") or []}
        self.parameters = {str(p.get("name")) for p in (spec.get("arguments") or {}).get("parameters") or []} \
            | {"json"} if own else None
        self.global_artifacts = lintrules.global_artifact_names(spec) if own else None
        self.global_values = lintrules.parameter_values(spec) if own else {}
        self.unpublished: dict[str, str] = {}  # where -> a workflow.outputs.artifacts.X no template publishes
        self.exit_arguments = spec.get("arguments") if exit_arguments is None else exit_arguments
        # what the entrypoint runs, in the order Argo checks it (before onExit's: see check_global)
        self.main_reached = dict.fromkeys(reached_from(spec, str(spec.get("entrypoint") or "")))

    def fail(self, field: str, message: str) -> NoReturn:
        raise UserError(message, field=field)

    def fail_first(self, problems: Iterator[tuple[str, str]]) -> None:
        for field, message in problems:
            self.fail(field, message)

    def run(self) -> None:
        names = [t.get("name") for t in self.spec.get("templates") or []]
        for i, name in enumerate(names):
            if not name:
                self.fail(f"templates[{i}]", "name is required")
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            self.fail("spec.templates", f"duplicate template name(s) {dupes}")
        self.fail_first(lintrules.named_list(self.spec.get("templates"), "spec.templates", params=False))
        for kind in ("parameters", "artifacts"):  # Argo's validateArgumentsFieldNames
            self.fail_first(lintrules.named_list((self.spec.get("arguments") or {}).get(kind),
                                                 f"spec.arguments.{kind}", params=True))
        entry = self.spec.get("entrypoint")
        if not entry:
            self.fail("spec.entrypoint", "is required")
        if entry not in self.local:
            self.fail("spec.entrypoint", f"template name '{entry}' undefined")
        for hook_field in ("onExit",):
            if self.spec.get(hook_field) and self.spec[hook_field] not in self.local:
                self.fail(f"spec.{hook_field}", f"template name '{self.spec[hook_field]}' undefined")
        for param in (self.spec.get("arguments") or {}).get("parameters") or []:  # Argo checks these first
            if param.get("value") is None and not param.get("valueFrom") and not self.as_template:
                name = f"spec.arguments.{param.get('name')}"
                self.fail(name, f"{name}.value or {name}.valueFrom is required (give it with -p {param.get('name')}=…)")
            self.fail_first(argrules.argument_sources(param, f"spec.arguments.{param.get('name')}"))
            self.fail_first(argrules.argument_enum(param, f"spec.arguments.{param.get('name')}"))
        for field in ("entrypoint", "onExit"):  # both take the workflow's arguments; as Argo's validate.Workflow, an
            if self.spec.get(field) and not self.as_template:  # onExit with the submitted Workflow's own, unjoined
                arguments = self.exit_arguments if field == "onExit" else self.spec.get("arguments")
                self.check_supplied(self.local[self.spec[field]], arguments, f"spec.{field}")
        for field, message in sync_problems(self.spec.get("synchronization"), "spec.synchronization"):
            self.fail(field, message)
        # as Argo's validate.Workflow: what the entrypoint runs, then what onExit runs, the run's hooks, podGC, and
        # last the templates nothing reached
        walked = {**self.main_reached, **dict.fromkeys(reached_from(self.spec, str(self.spec.get("onExit") or "")))}
        for name in walked:
            self.check_template(self.local[name], self.local, f"templates.{name}")
        for hook_name, hook in (self.spec.get("hooks") or {}).items():  # as Argo, their templates resolve at run time
            self.check_hook(hook_name, hook, "hooks")
        self.fail_first(lintrules.pod_gc(self.spec.get("podGC")))
        for tmpl in self.spec.get("templates") or []:
            if tmpl.get("name") not in walked:
                self.check_template(tmpl, self.local, f"templates.{tmpl.get('name')}")
        for where, message in self.unpublished.items():
            self.fail(where, message)

    def check_template(self, tmpl: Mapping[str, Any], local: Mapping[str, Any], where: str) -> None:
        kinds = [k for k in TEMPLATE_KINDS if tmpl.get(k) is not None]
        if not kinds:  # Argo's validateTemplateType words
            self.fail(where, f"template type unspecified. choose one of: {', '.join(sorted(TEMPLATE_KINDS))}")
        if len(kinds) > 1:
            self.fail(where, f"multiple template types specified ({', '.join(kinds)})")
        kind = kinds[0]
        if kind not in LOCAL_KINDS:
            self.fail(where, f"{kind} templates are not supported by the embedded engine (it runs container, "
                      "script, containerSet, steps, dag, suspend, http and data templates); submit this workflow to "
                      "Argo instead")
        for i, p in enumerate((tmpl.get("inputs") or {}).get("parameters") or []):
            if not p.get("name"):
                self.fail(f"{where}.inputs.parameters[{i}]", "name is required")
        self.fail_first(lintrules.template_fields(tmpl, where))  # names first, as Argo's validateInputs
        self.fail_first(lintrules.leaf_image(tmpl, self.spec.get("templateDefaults") or {}, where,
                                             self.global_values))
        self.fail_first(lintrules.http_url(tmpl, where))
        if kind not in ("steps", "dag"):
            self.check_tags(tmpl, local, where)
        self.fail_first(lintrules.init_container_names(tmpl, where))
        self.fail_first(lintrules.template_metrics(tmpl, where))
        self.fail_first(lintrules.unclosed_tag(tmpl, where))
        if kind == "steps":
            seen: set[str] = set()  # as Argo, step names are unique across all groups of the template
            for gi, group in enumerate(tmpl["steps"] or []):
                if not isinstance(group, list):
                    self.fail(f"{where}.steps[{gi}]", "must be a list of parallel steps")
                for step in group:
                    sname = step.get("name")
                    if not sname:
                        self.fail(f"{where}.steps[{gi}]", "name is required")
                    if sname in seen:
                        self.fail(f"{where}.steps[{gi}].{sname}", f"step name '{sname}' is not unique")
                    problem = lintrules.field_name_problem(str(sname))
                    if problem:
                        self.fail(f"{where}.steps[{gi}].name", f"name '{sname}' is invalid: {problem}")
                    seen.add(sname)
                    self.fail_first(lintrules.loop_fields(step, f"{where}.steps[{gi}].{sname}"))
                    self.fail_first(argrules.argument_artifacts(step, f"{where}.steps[{gi}].{sname}"))
                    self.fail_first(argrules.argument_values(step, f"{where}.steps[{gi}].{sname}"))
                    self.fail_first(lintrules.item_references(step, f"{where}.steps[{gi}].{sname}"))
                    self.check_ref(step, local, f"{where}.steps[{gi}].{sname}")
            self.fail_first(lintrules.step_references(tmpl["steps"], where))
        if kind == "dag":
            tasks = tmpl["dag"].get("tasks") or []
            trees: dict[str, Any] = {}
            for task in self.sorted_tasks(tasks, where):  # as Argo's validateDAG: its tasks in dependency order
                tname = task.get("name")
                if not tname:
                    self.fail(f"{where}.dag.tasks", "a task needs a name")
                if task.get("depends") and task.get("dependencies"):
                    self.fail(f"{where}.tasks.{tname}",
                              "cannot use both 'depends' and 'dependencies' in the same DAG template")
                callee = self.check_ref(task, local, f"{where}.tasks.{tname}", supplied=False)  # FakeArguments first
                self.fail_first(lintrules.depends_results(task, f"{where}.tasks.{tname}"))
                self.fail_first(argrules.argument_artifacts(task, f"{where}.tasks.{tname}"))
                self.fail_first(argrules.argument_values(task, f"{where}.tasks.{tname}"))
                self.check_supplied(callee, task.get("arguments"), f"{where}.tasks.{tname}")  # then its arguments
                self.fail_first(lintrules.item_references(task, f"{where}.tasks.{tname}"))
                trees[tname] = graph.task_tree(task)
            self.fail_first(lintrules.dag_tasks(tmpl["dag"], trees, f"{where}.dag"))
        if kind in ("steps", "dag"):  # as Argo, a step's or task's callee and hooks are checked before its tags
            self.check_tags(tmpl, local, where)
        if kind == "containerSet":
            self.fail_first(lintrules.container_set(tmpl, where))
        for field, message in sync_problems(tmpl.get("synchronization"), f"{where}.synchronization"):
            self.fail(field, message)

    def sorted_tasks(self, tasks: list[Any], where: str) -> list[Mapping[str, Any]]:
        """A DAG's tasks in the order Argo's sortDAGTasks gives them (Kahn's order, roots as listed), refusing a
        repeated name, a dependency on no task, or a cycle in its words ("sorting failed: ...")."""
        names = [t.get("name") for t in tasks]
        repeated = next((n for i, n in enumerate(names) if n in names[:i]), None)
        if repeated is not None:
            self.fail(f"{where}.dag.tasks", f"{where} sorting failed: duplicated nodeName {repeated}")
        def task_of(dep: str) -> str:  # `prep.Finished` names task prep (its result is judged later)
            return dep.rsplit(".", 1)[0] if dep not in names and dep.rsplit(".", 1)[0] in names else dep

        deps = {t.get("name"): {task_of(d) for d in graph.deps_of(tree)} if (tree := graph.task_tree(t)) is not None
                else set() for t in tasks}
        for tname, needs in deps.items():
            for dep in sorted(needs - set(names)):
                self.fail(f"{where}.tasks.{tname}", f"{where} sorting failed: invalid dependency {dep} (dependency "
                          f"'{dep}' not defined)")
        order = [n for n in names if not deps[n]]
        for done, name in enumerate(order, 1):  # a task comes once the last task it needs has come
            order += [n for n in names if name in deps[n] and n not in order and deps[n] <= set(order[:done])]
        if len(order) < len(names):
            cycle = graph.find_cycle({t.get("name"): graph.task_tree(t) for t in tasks}) or []
            self.fail(f"{where}.dag", f"{where} sorting failed: graph with cycle ({' -> '.join(cycle)})")
        return [tasks[names.index(n)] for n in order]

    def check_tags(self, tmpl: Mapping[str, Any], local: Mapping[str, Any], where: str) -> None:
        """Plain tags naming an input the template does not declare, or a step / task it does not have, cannot
        resolve: Argo's lint refuses them ("failed to resolve {{...}}") instead of failing the node later."""
        inputs = tmpl.get("inputs") or {}
        declared = {kind: {p.get("name") for p in inputs.get(kind) or []} for kind in ("parameters", "artifacts")}
        calls = {"steps": {s.get("name"): s for g in tmpl.get("steps") or [] if isinstance(g, list) for s in g},
                 "tasks": {t.get("name"): t for t in ((tmpl.get("dag") or {}).get("tasks") or [])}}
        siblings = {own: set(called) for own, called in calls.items()}
        own = "steps" if tmpl.get("steps") is not None else "tasks" if tmpl.get("dag") is not None else None
        for tag in _plain_tags(tmpl):
            if tag == "pod.name" and own is not None:  # a steps or dag template runs no pod of its own
                self.fail(where, f"failed to resolve {{{{pod.name}}}}: a {kind_of(tmpl)} template has no pod")
            self.fail_first(lintrules.input_form(tag, where))
            found = _INPUT_TAG.match(tag)
            if found and found.group(2) not in declared[found.group(1)]:
                self.fail(where, f"failed to resolve {{{{{tag}}}}}: the template has no input "
                          f"{found.group(1)[:-1]} '{found.group(2)}'")
            found = _GLOBAL_PARAM_TAG.fullmatch(tag)
            if found and self.parameters is not None and found.group(1) not in self.parameters:
                self.fail(where, f"failed to resolve {{{{{tag}}}}}: the workflow has no parameter "
                          f"'{found.group(1)}'")
            if self.parameters is not None and not self.as_template:
                self.check_global(tag.strip(), where)
            if self.metadata is not None and not self.as_template:
                self.fail_first(lintrules.metadata_reference(tag.strip(), self.metadata, where))
            if own is None and tag.strip().startswith(("steps.", "tasks.")) and not tag.strip().startswith(
                    ("steps.name", "tasks.name")):  # a leaf's scope: its inputs, the globals and its caller's name
                self.fail(where, f"failed to resolve {{{{{tag}}}}}: a {kind_of(tmpl)} template has no "
                          f"{tag.strip().split('.')[0]}")
            found = _SIBLING_TAG.match(tag)
            if found and own is not None and found.group(1) != own:  # Argo's scope holds only its own kind
                self.fail(where, f"failed to resolve {{{{{tag}}}}}: a {kind_of(tmpl)} template has no {found.group(1)}")
            if found and own is not None and found.group(1) == own and found.group(2) not in siblings[own]:
                self.fail(where, f"failed to resolve {{{{{tag}}}}}: no {own[:-1]} named '{found.group(2)}'")
            if found and own is not None and found.group(1) == own:
                rest = tag.strip()[found.end():]
                if not _sibling_field(rest):
                    self.fail(where, f"failed to resolve {{{{{tag}}}}}: a {own[:-1]} has no '{rest}' (its exit code is "
                              f"{found.group(0)}exitCode, its outputs {found.group(0)}outputs.result, "
                              f".outputs.parameters.NAME and .outputs.artifacts.NAME)")
                callee = called_template(calls[own][found.group(2)], local, self.lookup)
                self.check_output_tag(tag, callee, where)
                if tag.strip().endswith(".ip") and isinstance(callee, Mapping) and not callee.get("daemon"):
                    self.fail(where, f"failed to resolve {{{{{tag}}}}}: only a daemon step or task has an ip")
                if _AGGREGATE_TAG.fullmatch(tag.strip()) and not any(
                        calls[own][found.group(2)].get(k) not in (None, "", []) for k in ("withItems", "withParam")):
                    self.fail(where, f"failed to resolve {{{{{tag}}}}}: only a step or task with withItems or "
                              "withParam aggregates its outputs.parameters")

    def check_output_tag(self, tag: str, callee: Mapping[str, Any] | None, where: str) -> None:
        """A step's or task's outputs exist only as its template declares them; ``result`` and ``exitCode`` only
        for a template that runs a pod (Argo's addOutputsToScope, at submit)."""
        found = _OUTPUT_TAG.match(tag.strip())
        if found is None or not isinstance(callee, Mapping):
            return
        kind, name = found.groups()
        if kind in ("result", "exitCode"):  # an HTTP or data node's result is what it made; it has no exit code
            if kind_of(callee) not in ("container", "script", "containerSet",
                                       *(("http", "data") if kind == "result" else ())):
                self.fail(where, f"failed to resolve {{{{{tag}}}}}: a {kind_of(callee)} template has no "
                          f"outputs.{kind}")
        elif name and name not in {o.get("name") for o in (callee.get("outputs") or {}).get(kind[:-1]) or []}:
            self.fail(where, f"failed to resolve {{{{{tag}}}}}: template '{callee.get('name')}' declares no output "
                      f"{kind[:-2]} '{name}'")

    def check_global(self, tag: str, where: str) -> None:
        """``workflow.priority`` exists only with ``spec.priority``, ``workflow.parameters`` (whole) only with
        parameters, ``workflow.failures`` only for a workflow with an exit handler (Argo adds each to the global
        scope only then)."""
        parts = tag.split(".")
        if parts[0] == "workflow" and len(parts) > 1 and parts[1] not in WORKFLOW_FIELDS:
            self.fail(where, f"failed to resolve {{{{{tag}}}}}: a workflow has no variable '{parts[1]}'")
        if parts[0] == "workflow" and len(parts) > 2 and parts[1] in WHOLE_WORKFLOW_FIELDS:
            self.fail(where, f"failed to resolve {{{{{tag}}}}}: workflow.{parts[1]} is one value, with no fields")
        if tag == "workflow.priority" and self.spec.get("priority") is None:
            self.fail(where, "failed to resolve {{workflow.priority}}: the workflow sets no spec.priority")
        if tag in ("workflow.parameters", "workflow.parameters.json") and self.parameters == {"json"}:
            self.fail(where, f"failed to resolve {{{{{tag}}}}}: the workflow has no parameters")
        published = tag.removeprefix("workflow.outputs.artifacts.")
        if published != tag and self.global_artifacts is not None and published not in self.global_artifacts:
            # refused once every template's own checks have passed, as Argo resolves the tags last
            self.unpublished.setdefault(where, f"failed to resolve {{{{{tag}}}}}: no output artifact has globalName "
                                               f"'{published}'")
        if tag == "workflow.failures" and not self.spec.get("onExit"):  # not hooks.exit (argo-workflows#12330)
            self.fail(where, "failed to resolve {{workflow.failures}}: it is set only in a workflow's exit handler "
                      "(spec.onExit)")
        if tag == "workflow.failures" and where.split(".")[:2][-1] in self.main_reached:
            self.fail(where, "failed to resolve {{workflow.failures}}: it is set only in the exit handler, and the "
                      "entrypoint runs this template too (Argo checks it from the entrypoint first)")

    def check_supplied(self, callee: Mapping[str, Any] | None, arguments: Any, where: str) -> None:
        """Every input parameter of ``callee`` without a value, default or valueFrom, and every input artifact that
        is not optional and has no source of its own, must be given by the call (Argo's ProcessArgs at submit:
        "inputs.parameters.X was not supplied", "inputs.artifacts.X was not supplied")."""
        given = {p.get("name") for p in ((arguments or {}).get("parameters") or []) if isinstance(p, Mapping)
                 and (p.get("value") is not None or p.get("valueFrom"))}
        for param in ((callee or {}).get("inputs") or {}).get("parameters") or []:
            if any(param.get(k) is not None for k in ("value", "default")) or param.get("valueFrom"):
                continue
            if param.get("name") not in given:
                self.fail(f"{where}.arguments.parameters", f"inputs.parameters.{param.get('name')} was not "
                          "supplied")
        passed = {a.get("name") for a in ((arguments or {}).get("artifacts") or []) if isinstance(a, Mapping)}
        for art in ((callee or {}).get("inputs") or {}).get("artifacts") or []:
            if art.get("optional") or any(art.get(k) not in (None, "", {}) for k in lintrules.ARTIFACT_SOURCES):
                continue
            if art.get("name") not in passed:
                self.fail(f"{where}.arguments.artifacts", f"inputs.artifacts.{art.get('name')} was not supplied")
        timeout = argrules.timeout_with_arguments(callee, arguments)  # Argo checks it after ProcessArgs too
        problem = lintrules.whole_number_timeout((callee or {}).get("name"), timeout)
        if problem:
            self.fail(f"{where}.timeout", problem)

    def check_hook(self, name: str, hook: Any, where: str) -> None:
        """Every lifecycle hook but ``exit`` fires on its ``expression`` (Argo's validateHooks)."""
        if name != "exit" and not (isinstance(hook, Mapping) and str(hook.get("expression") or "").strip()):
            self.fail(f"{where}.hooks.{name}", f"{where}.{name} Expression required")

    def check_ref(self, ref: Mapping[str, Any], local: Mapping[str, Any], where: str, supplied: bool = True) -> Any:
        given = [k for k in ("template", "templateRef", "inline") if ref.get(k)]
        if ref.get("template") and ref.get("templateRef"):  # Argo's validateTemplateHolder words these two
            self.fail(where, "template name cannot be specified with templateRef")
        if ref.get("templateRef") and not (ref["templateRef"].get("name") and ref["templateRef"].get("template")):
            self.fail(f"{where}.templateRef", "resource name is required" if not ref["templateRef"].get("name")
                      else "template name is required")
        if not given:  # Argo's template resolution has nothing to go on
            self.fail(where, "failed to get a template: a step or task needs one of template, templateRef, inline")
        if len(given) != 1:
            self.fail(where, "needs exactly one of template, templateRef, inline")
        if ref.get("template") and ref["template"] not in local:
            self.fail(where, f"template name '{ref['template']}' undefined")
        callee = local.get(ref["template"]) if ref.get("template") else ref.get("inline")
        if ref.get("inline"):
            self.check_template(ref["inline"], local, f"{where}.inline")
            for tag in _plain_tags(ref["inline"]):  # Argo resolves them in the caller's scope, which gets the inline
                if tag.strip().startswith("inputs.artifacts."):  # template's input parameters, not its artifacts
                    self.fail(where, f"failed to resolve {{{{{tag}}}}}: an inline template's input artifacts are not "
                              "in scope where Argo checks it (argo-workflows#7432): use a named template")
        if ref.get("templateRef") and not is_dynamic_ref(ref["templateRef"]):  # a dynamic one resolves as the step runs
            tref = ref["templateRef"]
            kind = "ClusterWorkflowTemplate" if tref.get("clusterScope") else "WorkflowTemplate"
            manifest = self.lookup(kind, str(tref.get("name")))
            if manifest is None:  # Argo's words (templateresolution), for either kind
                self.fail(f"{where}.templateRef", f"workflow template {tref.get('name')} not found")
            by_name = {t.get("name"): t for t in (manifest.get("spec") or {}).get("templates") or []}
            if tref.get("template") not in by_name:
                self.fail(f"{where}.templateRef",
                          f"template {tref.get('template')} not found in workflow template {tref.get('name')}")
            callee = by_name[tref.get("template")]
        if supplied:
            self.check_supplied(callee, ref.get("arguments"), where)
        for hook_name, hook in (ref.get("hooks") or {}).items():  # as Argo's validateHooks: the expression only;
            self.check_hook(hook_name, hook, where)  # a hook's template resolves when it fires
        if ref.get("onExit") and ref["onExit"] not in local:
            self.fail(f"{where}.onExit", f"template name '{ref['onExit']}' undefined")
        return callee


def _sibling_field(rest: str) -> bool:
    """What may follow ``steps.NAME.`` or ``tasks.NAME.`` (Argo's addOutputsToScope and the status it adds)."""
    return rest in SIBLING_FIELDS or rest in ("outputs.result", "outputs.parameters") or rest.startswith(
        ("outputs.parameters.", "outputs.artifacts."))


def _plain_tags(value: Any) -> Iterator[str]:
    """The plain ``{{...}}`` tags in a template's strings, leaving out inline templates (checked on their own)."""
    if isinstance(value, str):
        yield from _PLAIN_TAG.findall(value)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if key != "inline":
                yield from _plain_tags(item)
    elif isinstance(value, list):
        for item in value:
            yield from _plain_tags(item)


def validate_workflow(workflow: Mapping[str, Any], templates: TemplateLookup, *, as_template: bool = False) -> None:
    """Raise UserError naming the field and the reason when the workflow cannot run (``as_template``: the spec
    of a WorkflowTemplate being registered, whose arguments come at submit)."""
    if not isinstance(workflow, Mapping):
        raise UserError("a workflow must be a mapping", field="workflow")
    workflow = copy.deepcopy(dict(workflow))  # judged with its parameters as Argo decodes them (AnyString)
    text_parameters(workflow)
    templates = text_parameter_lookup(templates)
    kind = workflow.get("kind", "Workflow")
    if kind != "Workflow":
        raise UserError(f"expected kind Workflow, got {kind!r}", field="kind")
    name = str((workflow.get("metadata") or {}).get("name") or "")
    if name:  # a name the API server refuses (a path, say) is refused in its words before Argo's own length limit
        check_name(name)
    if len(name) > MAX_OBJECT_NAME:  # Argo's first check (a generateName gets its suffix later)
        raise UserError(f"workflow name {name!r} must not be more than {MAX_OBJECT_NAME} characters long "
                        f"(currently {len(name)})", field="metadata.name")
    spec = resolve_workflow_spec(workflow, templates)
    if not isinstance(spec.get("templates") or [], list):
        raise UserError("must be a list", field="spec.templates")
    refuse_unresolved_parts(workflow, spec)
    refuse_unsupported(spec, "spec")
    metadata = lintrules.run_metadata_keys(workflow, spec)
    own = workflow.get("spec") or {}  # a workflowTemplateRef run's exit handler takes its own arguments, unjoined
    _Linter(spec, templates, as_template=as_template, metadata=metadata,
            exit_arguments=own.get("arguments") or {} if own.get("workflowTemplateRef") else None).run()
    for manifest_ref in _template_refs(spec):
        kind, name = manifest_ref
        manifest = templates(kind, name)
        if manifest is not None:
            inner = manifest.get("spec") or {}
            refuse_unsupported(inner, f"{kind} {name}: spec")
            local = {t.get("name"): t for t in inner.get("templates") or []}
            linter = _Linter({**inner, "entrypoint": inner.get("entrypoint") or next(iter(local), "")}, templates,
                             own=False, as_template=as_template, metadata=metadata)
            for tmpl in inner.get("templates") or []:
                linter.check_template(tmpl, local, f"{kind}.{name}.templates.{tmpl.get('name')}")
    if not as_template:  # what a referenced template reads of the workflow's parameters, the workflow must have
        given = {str(p.get("name")) for p in (spec.get("arguments") or {}).get("parameters") or []} | {"json"}
        for where, tmpl in referenced_templates(spec, templates):
            for tag in _plain_tags(tmpl):
                found = _GLOBAL_PARAM_TAG.fullmatch(tag.strip())
                if found and found.group(1) not in given:
                    raise UserError(f"failed to resolve {{{{{tag}}}}}: the workflow has no parameter "
                                    f"'{found.group(1)}'", field=where)


def _template_refs(spec: Mapping[str, Any]) -> set[tuple[str, str]]:
    refs: set[tuple[str, str]] = set()

    def walk(value: Any) -> None:
        if isinstance(value, Mapping):
            tref = value.get("templateRef")
            if isinstance(tref, Mapping) and tref.get("name"):
                refs.add(("ClusterWorkflowTemplate" if tref.get("clusterScope") else "WorkflowTemplate",
                          str(tref["name"])))
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(spec.get("templates") or [])
    return refs
