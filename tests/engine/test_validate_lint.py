"""Submit-time refusals that Argo's lint makes: unsupplied inputs, step names reused across groups, and plain
tags that cannot resolve. Each is refused before anything runs, naming the field."""

from __future__ import annotations

from typing import Any

import pytest

from aipipe.engine.context import dict_templates
from aipipe.engine.validate import validate_workflow
from aipipe.engine.wfref import resolve_workflow_spec
from aipipe.errors import UserError

SAY = {"name": "say", "inputs": {"parameters": [{"name": "message"}]},
       "container": {"image": "alpine", "command": ["echo", "{{inputs.parameters.message}}"]}}


def workflow(*templates: dict[str, Any], entry: str = "main", **spec: Any) -> dict[str, Any]:
    return {"kind": "Workflow", "metadata": {"name": "lint"},
            "spec": {"entrypoint": entry, "templates": list(templates), **spec}}


def no_templates(kind: str, name: str) -> dict[str, Any] | None:
    return None


def refused(wf: dict[str, Any]) -> UserError:
    with pytest.raises(UserError) as info:
        validate_workflow(wf, no_templates)
    return info.value


def test_step_without_required_input_is_refused() -> None:
    wf = workflow({"name": "main", "steps": [[{"name": "a", "template": "say"}]]}, SAY)
    err = refused(wf)
    assert err.field == "templates.main.steps[0].a.arguments.parameters"
    assert "inputs.parameters.message was not supplied" in str(err)


def test_dag_task_with_empty_arguments_is_refused() -> None:
    wf = workflow({"name": "main", "dag": {"tasks": [{"name": "a", "template": "say",
                                                      "arguments": {"parameters": None}}]}}, SAY)
    assert "inputs.parameters.message was not supplied" in str(refused(wf))


def test_entrypoint_inputs_come_from_workflow_arguments() -> None:
    assert refused(workflow(SAY, entry="say")).field == "spec.entrypoint.arguments.parameters"
    validate_workflow(workflow(SAY, entry="say", arguments={"parameters": [{"name": "message", "value": "hi"}]}),
                      no_templates)


@pytest.mark.parametrize("param", [{"name": "message", "default": "d"}, {"name": "message", "value": "v"},
                                   {"name": "message", "valueFrom": {"supplied": {}}}])
def test_default_value_or_value_from_needs_no_argument(param: dict[str, Any]) -> None:
    own = {**SAY, "inputs": {"parameters": [param]}}
    validate_workflow(workflow({"name": "main", "steps": [[{"name": "a", "template": "say"}]]}, own), no_templates)


def test_step_names_are_unique_across_groups() -> None:
    echo = {"name": "echo", "container": {"image": "alpine", "command": ["echo"]}}
    wf = workflow({"name": "main", "steps": [[{"name": "twin", "template": "echo"}],
                                             [{"name": "twin", "template": "echo"}]]}, echo)
    err = refused(wf)
    assert err.field == "templates.main.steps[1].twin" and "'twin' is not unique" in str(err)


def test_reference_to_unknown_step_or_input_is_refused() -> None:
    echo = {"name": "echo", "inputs": {"parameters": [{"name": "v"}]},
            "container": {"image": "alpine", "command": ["echo", "{{inputs.parameters.v}}"]}}
    wf = workflow({"name": "main", "steps": [[{"name": "first", "template": "echo",
                                               "arguments": {"parameters": [{"name": "v", "value": "x"}]}}],
                                             [{"name": "second", "template": "echo", "arguments": {"parameters": [
                                                 {"name": "v", "value": "{{steps.frist.outputs.result}}"}]}}]]},
                  echo)
    assert "failed to resolve {{steps.frist.outputs.result}}" in str(refused(wf))
    bad_input = {**echo, "container": {"image": "alpine", "command": ["echo", "{{inputs.parameters.w}}"]}}
    wf = workflow(bad_input, entry="echo", arguments={"parameters": [{"name": "v", "value": "x"}]})
    assert "failed to resolve {{inputs.parameters.w}}" in str(refused(wf))


def test_known_references_and_expressions_pass() -> None:
    """Tags of known steps, tasks and inputs, expression tags and unknown prefixes are all left alone."""
    echo = {"name": "echo", "inputs": {"parameters": [{"name": "v"}]},
            "container": {"image": "alpine", "command": ["echo", "{{inputs.parameters.v}} {{custom.thing}}"]}}
    dag = {"name": "main", "dag": {"tasks": [
        {"name": "a", "template": "echo", "arguments": {"parameters": [{"name": "v", "value": "{{= 1 + 1 }}"}]}},
        {"name": "b", "depends": "a", "template": "echo",
         "arguments": {"parameters": [{"name": "v", "value": "{{tasks.a.outputs.result}}"}]}}]}}
    validate_workflow(workflow(dag, echo), no_templates)


def test_workflow_argument_outside_its_enum_is_refused() -> None:
    echo = {"name": "main", "container": {"image": "alpine", "command": ["echo"]}}
    wf = workflow(echo, arguments={"parameters": [{"name": "size", "value": "huge", "enum": ["small", "large"]}]})
    err = refused(wf)
    assert err.field == "spec.arguments.size.value" and "should be present in spec.arguments.size.enum list" in str(err)
    wf["spec"]["arguments"]["parameters"][0]["value"] = "large"
    validate_workflow(wf, no_templates)


@pytest.mark.parametrize("param", [{"name": "size", "default": "small", "enum": ["small", "large"]},
                                   {"name": "size", "value": None}])
def test_workflow_argument_without_value_is_refused_in_argos_words(param: dict[str, Any]) -> None:
    """Argo's validateArgumentsValues reads neither default nor enum: no value and no valueFrom is refused first."""
    echo = {"name": "main", "container": {"image": "alpine", "command": ["echo"]}}
    err = refused(workflow(echo, arguments={"parameters": [param]}))
    assert err.field == "spec.arguments.size"
    assert "spec.arguments.size.value or spec.arguments.size.valueFrom is required" in str(err)


def test_a_field_below_a_whole_workflow_variable_is_refused() -> None:
    """workflow.status is one value (Argo's global scope has no workflow.status.startedAt)."""
    show = {"name": "main", "container": {"image": "alpine", "command": ["echo", "{{workflow.status.startedAt}}"]}}
    assert "failed to resolve {{workflow.status.startedAt}}" in str(refused(workflow(show)))
    show["container"]["command"] = ["echo", "{{workflow.status}} {{workflow.creationTimestamp.Y}}"]
    validate_workflow(workflow(show), no_templates)


def test_a_dag_tasks_argument_without_value_is_refused_before_its_inputs_are_matched() -> None:
    """Argo's validateDAG checks a task's argument values before it validates the callee with them: a parameter
    named without a value is refused in those words, not as an input that was not supplied."""
    main = {"name": "main", "dag": {"tasks": [{"name": "t", "template": "say",
                                               "arguments": {"parameters": [{"name": "message"}]}}]}}
    err = refused(workflow(main, SAY))
    assert "templates.main.tasks.t.arguments.message.valueFrom is required" in str(err)


def test_unknown_workflow_parameter_is_refused_and_known_ones_pass() -> None:
    main = {"name": "main", "container": {"image": "alpine", "command": [
        "echo", "{{workflow.parameters.known}} {{workflow.parameters.json}} {{workflow.parameters.other}}"]}}
    wf = workflow(main, arguments={"parameters": [{"name": "known", "value": "x"}]})
    err = refused(wf)
    assert err.field == "templates.main" and "failed to resolve {{workflow.parameters.other}}" in str(err)
    wf["spec"]["arguments"]["parameters"].append({"name": "other", "value": "y"})
    validate_workflow(wf, no_templates)


def test_a_workflow_template_reached_by_template_ref_sees_the_callers_parameters() -> None:
    """Its own arguments do not bound what its templates may read: the caller's parameters apply at run time."""
    library = {"kind": "WorkflowTemplate", "metadata": {"name": "lib"}, "spec": {"templates": [
        {"name": "echo", "container": {"image": "alpine", "command": ["echo", "{{workflow.parameters.who}}"]}}]}}
    wf = workflow({"name": "main", "steps": [[{"name": "a", "templateRef": {"name": "lib", "template": "echo"}}]]},
                  arguments={"parameters": [{"name": "who", "value": "me"}]})
    validate_workflow(wf, lambda kind, name: library if (kind, name) == ("WorkflowTemplate", "lib") else None)


def test_a_workflow_template_leaves_its_entrypoint_inputs_and_argument_values_to_submit() -> None:
    """Argo validates a WorkflowTemplate's entrypoint with placeholder arguments and lets its parameters have no
    value yet; a Workflow submitted from the same spec must supply both."""
    main = {"name": "main", "inputs": {"parameters": [{"name": "x"}]},
            "container": {"image": "busybox", "command": ["echo", "{{inputs.parameters.x}}"]}}
    wf = workflow(main, arguments={"parameters": [{"name": "p", "value": "v"}]})
    validate_workflow(wf, no_templates, as_template=True)
    assert "inputs.parameters.x was not supplied" in str(refused(wf))
    wf["spec"]["arguments"]["parameters"] = [{"name": "x"}]  # supplied, but with no value yet
    validate_workflow(wf, no_templates, as_template=True)
    assert refused(wf).field == "spec.arguments.x"  # Argo checks the arguments before the entrypoint


@pytest.mark.parametrize("cluster", [False, True])
def test_a_malformed_referenced_template_is_refused_by_name(cluster: bool) -> None:
    kind = "ClusterWorkflowTemplate" if cluster else "WorkflowTemplate"
    broken = {"kind": kind, "metadata": {"name": "broken"}, "spec": {"arguments": {"parameters": {"a": "b"}}}}
    run = {"metadata": {"name": "r"}, "spec": {"workflowTemplateRef": {"name": "broken", "clusterScope": cluster}}}
    with pytest.raises(UserError) as refused:
        resolve_workflow_spec(run, dict_templates([broken]))
    words = "cluster workflow template" if cluster else "workflow template"
    assert f"malformed {words} 'broken': its spec.arguments.parameters must be a list" in str(refused.value)


def test_a_workflows_argument_replaces_the_templates_value_or_value_from() -> None:
    """Argo's fix for issue 14426: the workflow's ``value`` drops the template's ``valueFrom``, its ``valueFrom``
    the template's ``value``; the template's other fields stay."""
    cm = {"configMapKeyRef": {"name": "c", "key": "k"}}
    stored = {"kind": "WorkflowTemplate", "metadata": {"name": "base"}, "spec": {"arguments": {"parameters": [
        {"name": "a", "value": "from-template", "description": "kept"}, {"name": "b", "valueFrom": cm}]}}}
    run = {"metadata": {"name": "r"}, "spec": {"workflowTemplateRef": {"name": "base"}, "arguments": {"parameters": [
        {"name": "a", "valueFrom": cm}, {"name": "b", "value": "from-workflow"}]}}}
    params = resolve_workflow_spec(run, dict_templates([stored]))["arguments"]["parameters"]
    assert params == [{"name": "a", "description": "kept", "valueFrom": cm}, {"name": "b", "value": "from-workflow"}]


LEAF = {"name": "main", "container": {"image": "alpine", "command": ["true"]}}


@pytest.mark.parametrize(("change", "words"), [
    ({"metrics": {"prometheus": [{"name": "m", "help": "h", "gauge": {"realtime": False}}]}}, "missing gauge.value"),
    ({"metrics": {"prometheus": [{"name": "m", "help": "h", "gauge": {"realtime": True,
                                                                     "value": "{{resourcesDuration.cpu}}"}}]}},
     "'resourcesDuration.*' metrics cannot be used in real-time"),
    ({"container": {"image": "alpine", "command": ["echo", "{{workflow.name"]}}, 'Cannot find end tag="}}"'),
])
def test_what_argos_template_checks_refuse(change: dict[str, Any], words: str) -> None:
    assert words in str(refused(workflow({**LEAF, **change})))


def test_a_pod_gc_label_selector_with_an_unknown_operator_is_refused() -> None:
    gc = {"strategy": "OnPodSuccess", "labelSelector": {"matchExpressions": [{"key": "a", "operator": "Sometimes"}]}}
    err = refused(workflow(LEAF, podGC=gc))
    assert err.field == "spec.podGC.labelSelector" and "'Sometimes' is not a valid label selector operator" in str(err)


def test_a_global_artifact_no_template_publishes_is_refused() -> None:
    publish = {**LEAF, "outputs": {"artifacts": [{"name": "r", "path": "/tmp/r",
                                                  "globalName": "res-{{workflow.parameters.v}}"}]}}
    bye = {"name": "bye", "container": {"image": "alpine"}}
    args = {"parameters": [{"name": "v", "value": "bus"}]}
    for name, refusal in (("res-bus", False), ("res-car", True)):
        wf = workflow(publish, {**bye, "container": {**bye["container"], "command": [
            "echo", f"{{{{workflow.outputs.artifacts.{name}}}}}"]}}, onExit="bye", arguments=args)
        if refusal:
            assert "no output artifact has globalName 'res-car'" in str(refused(wf))
        else:
            validate_workflow(wf, no_templates)


def test_a_label_or_annotation_the_run_does_not_have_is_refused() -> None:
    shows = {**LEAF, "container": {"image": "alpine", "command": ["echo", "{{workflow.labels.team}}"]}}
    err = refused(workflow(shows))
    assert "failed to resolve {{workflow.labels.team}}: the run has no label 'team'" in str(err)
    for spec in ({"workflowMetadata": {"labels": {"team": "ml"}}},
                 {"workflowMetadata": {"labelsFrom": {"team": {"expression": "'ml'"}}}}):
        validate_workflow(workflow(shows, **spec), no_templates)
    labelled = workflow(shows)
    labelled["metadata"]["labels"] = {"team": "ml"}
    validate_workflow(labelled, no_templates)
    origin = "{{workflow.labels.workflows.argoproj.io/workflow-template}}"  # a label the run was not given
    err = refused(workflow({**LEAF, "container": {"image": "alpine", "command": ["echo", origin]}}))
    assert f"failed to resolve {origin}" in str(err)


def test_digit_task_names_need_no_depends_and_a_step_needs_a_name() -> None:
    """Argo's validateDAG refuses a task name starting with a digit only when the DAG uses depends or the task
    dependencies; validateSteps words a nameless step "name is required"."""
    tasks = [{"name": "1st", "template": "say", "arguments": {"parameters": [{"name": "message", "value": "x"}]}},
             {"name": "2nd", "template": "say", "arguments": {"parameters": [{"name": "message", "value": "y"}]}}]
    validate_workflow(workflow({"name": "main", "dag": {"tasks": tasks}}, SAY), no_templates)
    err = refused(workflow({"name": "main", "dag": {"tasks": [tasks[0], {**tasks[1], "depends": "1st"}]}}, SAY))
    assert "name cannot begin with a digit when using either 'depends' or 'dependencies'" in str(err)
    nameless = {"template": "say", "arguments": {"parameters": [{"name": "message", "value": "x"}]}}
    err = refused(workflow({"name": "main", "steps": [[nameless]]}, SAY))
    assert str(err).endswith("name is required") and err.field == "templates.main.steps[0]"


def test_a_steps_hooks_read_its_own_outputs_but_not_a_later_steps() -> None:
    """Argo's validateSteps puts a step's own outputs in scope when it has hooks (upstream's e2e test
    TestHooksWithArtifactsInSteps); a later step's outputs stay out of reach, in a hook as in the step."""
    own = "{{steps.p.outputs.result}}"
    hook = {"expression": "true", "template": "say", "arguments": {"parameters": [{"name": "message", "value": own}]}}
    step = {"name": "p", "template": "say", "arguments": {"parameters": [{"name": "message", "value": "x"}]},
            "hooks": {"told": hook}}
    validate_workflow(workflow({"name": "main", "steps": [[step]]}, SAY), no_templates)
    later = {"expression": "true", "template": "say",
             "arguments": {"parameters": [{"name": "message", "value": "{{steps.q.outputs.result}}"}]}}
    q = {"name": "q", "template": "say", "arguments": {"parameters": [{"name": "message", "value": "y"}]}}
    err = refused(workflow({"name": "main", "steps": [[{**step, "hooks": {"told": later}}], [q]]}, SAY))
    assert "failed to resolve {{steps.q.outputs.result}}" in str(err)


@pytest.mark.parametrize(("template", "tag"), [
    ({"name": "main", "dag": {"tasks": [
        {"name": "p", "template": "say", "arguments": {"parameters": [{"name": "message", "value": "x"}]}},
        {"name": "q", "template": "say", "depends": "p",
         "arguments": {"parameters": [{"name": "message", "value": "{{steps.p.outputs.result}}"}]}}]}},
     "{{steps.p.outputs.result}}"),
    ({"name": "main", "steps": [
        [{"name": "p", "template": "say", "arguments": {"parameters": [{"name": "message", "value": "x"}]}}],
        [{"name": "q", "template": "say",
          "arguments": {"parameters": [{"name": "message", "value": "{{tasks.p.startedAt}}"}]}}]]},
     "{{tasks.p.startedAt}}"),
])
def test_a_dag_cannot_name_steps_nor_a_steps_template_tasks(template: dict[str, Any], tag: str) -> None:
    """Argo's validateDAG / validateSteps resolve every tag in their own kind's scope only (Couler's artifact-passing
    golden file and a user's steps template naming tasks, both refused by upstream at submit)."""
    err = refused(workflow(template, SAY))
    assert f"failed to resolve {tag}" in str(err) and err.field == "templates.main"


@pytest.mark.parametrize("tag", ["{{tasks.train.outputs.parameters.run-id}}", "{{steps.fetch.outputs.result}}"])
def test_a_leaf_cannot_name_steps_or_tasks_but_its_callers_name(tag: str) -> None:
    """Argo's validateLeaf resolves a container's tags in the leaf's own scope (its inputs and the globals), where
    only ``steps.name`` and ``tasks.name`` of the prefixes a DAG or steps template reads are let through."""
    main = {"name": "main", "dag": {"tasks": [{"name": "train", "template": "leaf"}]}}
    leaf = {"name": "leaf", "container": {"image": "alpine", "command": ["echo", tag]}}
    err = refused(workflow(main, leaf))
    assert f"failed to resolve {tag}: a container template has no {tag[2:7]}" in str(err)
    assert err.field == "templates.leaf"
    named = {"name": "leaf", "container": {"image": "alpine", "command": ["echo", "{{tasks.name}} {{steps.name}}"]}}
    validate_workflow(workflow(main, named), no_templates)


@pytest.mark.parametrize("source", [{"expression": "'a'"}, {"path": "/tmp/x"}, {"parameter": "{{x}}"},
                                    {"configMapKeyRef": {"name": "c", "key": "k"}, "jsonPath": "$.a"}])
def test_a_step_argument_value_from_reads_only_a_config_map_an_event_or_supplied(source: dict[str, Any]) -> None:
    """Argo's validateArgumentsValues, for a step's or a task's arguments as for the workflow's."""
    step = {"name": "s", "template": "say", "arguments": {"parameters": [{"name": "message", "valueFrom": source}]}}
    err = refused(workflow({"name": "main", "steps": [[step]]}, SAY))
    assert "valueFrom only allows: default, configMapKeyRef and supplied" in str(err)
    assert err.field == "templates.main.steps[0].s.arguments.message.valueFrom"


def test_a_workflow_hooks_template_is_not_resolved_at_submit() -> None:
    """Argo's validateHooks checks a workflow hook's expression only; its template resolves when it fires."""
    hooks = {"running": {"expression": 'workflow.status == "Running"', "template": "nowhere"}}
    validate_workflow(workflow(SAY, entry="say", hooks=hooks,
                               arguments={"parameters": [{"name": "message", "value": "hi"}]}), no_templates)
    assert "Expression required" in str(refused(workflow(SAY, entry="say", hooks={"running": {"template": "say"}},
                                                 arguments={"parameters": [{"name": "message", "value": "hi"}]})))


def test_a_steps_argument_outside_its_own_enum_is_refused() -> None:
    """Argo checks an argument's enum (the workflow's or a step's/task's), never the enum of a template's input."""
    step = {"name": "a", "template": "say", "arguments": {"parameters": [
        {"name": "message", "value": "huge", "enum": ["small", "large"]}]}}
    wf = workflow({"name": "main", "steps": [[step]]}, SAY)
    err = refused(wf)
    assert "templates.main.steps[0].a.arguments.message.value should be present in" in str(err)
    step["arguments"]["parameters"][0]["value"] = "large"
    validate_workflow(wf, no_templates)


def test_a_step_output_is_named_as_argo_names_it() -> None:
    """A step's exit code is steps.X.exitCode; steps.X.outputs.exitCode (or steps.X.result) resolves to nothing."""
    run = {"name": "run", "container": {"image": "alpine", "command": ["true"]}}
    for tag, ok in (("steps.a.exitCode", True), ("steps.a.outputs.result", True), ("steps.a.status", True),
                    ("steps.a.outputs.exitCode", False), ("steps.a.result", False)):
        main = {"name": "main", "steps": [[{"name": "a", "template": "run"}],
                                          [{"name": "b", "template": "run", "when": f"{{{{{tag}}}}} == 0"}]]}
        if ok:
            validate_workflow(workflow(main, run), no_templates)
        else:
            assert f"failed to resolve {{{{{tag}}}}}" in str(refused(workflow(main, run)))


def test_a_template_reached_through_two_template_refs_reads_only_the_workflows_parameters() -> None:
    """Argo's validation follows every templateRef with the workflow's own global parameters."""
    printer = {"kind": "WorkflowTemplate", "metadata": {"name": "printer"}, "spec": {"templates": [
        {"name": "print", "steps": [[{"name": "p", "template": "echo"}]]},
        {"name": "echo", "container": {"image": "alpine", "command": ["echo", "{{workflow.parameters.who}}"]}}]}}
    relay = {"kind": "WorkflowTemplate", "metadata": {"name": "relay"}, "spec": {"templates": [
        {"name": "hop", "steps": [[{"name": "h", "templateRef": {"name": "printer", "template": "print"}}]]}]}}
    stored = {("WorkflowTemplate", "printer"): printer, ("WorkflowTemplate", "relay"): relay}
    wf = workflow({"name": "main", "steps": [[{"name": "a", "templateRef": {"name": "relay", "template": "hop"}}]]},
                  arguments={"parameters": [{"name": "other", "value": "x"}]})
    with pytest.raises(UserError) as info:
        validate_workflow(wf, lambda kind, name: stored.get((kind, name)))
    assert "failed to resolve {{workflow.parameters.who}}" in str(info.value)
    assert info.value.field == "WorkflowTemplate.printer.templates.echo"
    wf["spec"]["arguments"]["parameters"].append({"name": "who", "value": "me"})
    validate_workflow(wf, lambda kind, name: stored.get((kind, name)))


def test_workflow_failures_needs_on_exit_not_an_exit_hook() -> None:
    """Argo adds workflow.failures to the globals only for spec.onExit (argo-workflows#12330)."""
    main = {"name": "main", "container": {"image": "alpine", "command": ["true"]}}
    report = {"name": "report", "container": {"image": "alpine", "command": ["echo", "{{workflow.failures}}"]}}
    assert "failed to resolve {{workflow.failures}}" in str(
        refused(workflow(main, report, hooks={"exit": {"template": "report"}})))
    validate_workflow(workflow(main, report, onExit="report"), no_templates)


def test_an_entrypoint_a_referenced_workflow_template_lacks_is_named_as_argo_does() -> None:
    library = {"kind": "WorkflowTemplate", "metadata": {"name": "lib"}, "spec": {"templates": [
        {"name": "run", "container": {"image": "alpine", "command": ["true"]}}]}}
    wf = {"kind": "Workflow", "metadata": {"name": "w"},
          "spec": {"entrypoint": "lib", "workflowTemplateRef": {"name": "lib"}}}
    with pytest.raises(UserError, match=r"template reference lib\.lib not found"):
        validate_workflow(wf, lambda kind, name: library if name == "lib" else None)
    wf["spec"]["entrypoint"] = "run"
    validate_workflow(wf, lambda kind, name: library if name == "lib" else None)


def test_a_task_naming_no_template_says_so_in_argos_words() -> None:
    wf = workflow({"name": "main", "dag": {"tasks": [{"name": "t", "container": {"image": "alpine"}}]}})
    assert "failed to get a template" in str(refused(wf))


def test_output_of_a_template_ref_must_be_declared_by_the_stored_template() -> None:
    stored = {"kind": "WorkflowTemplate", "metadata": {"name": "lib"},
              "spec": {"templates": [{"name": "train", "outputs": {"parameters": [{"name": "score",
                                                                                    "value": "1"}]},
                                      "container": {"image": "alpine", "command": ["true"]}}]}}
    main = {"name": "main", "steps": [
        [{"name": "train", "templateRef": {"name": "lib", "template": "train"}}],
        [{"name": "gate", "template": "say", "arguments": {"parameters": [
            {"name": "message", "value": "{{steps.train.outputs.parameters.verdict}}"}]}}]]}
    with pytest.raises(UserError) as info:
        validate_workflow(workflow(main, SAY), dict_templates([stored]))
    assert "failed to resolve {{steps.train.outputs.parameters.verdict}}" in str(info.value)
    main["steps"][1][0]["arguments"]["parameters"][0]["value"] = "{{steps.train.outputs.parameters.score}}"
    validate_workflow(workflow(main, SAY), dict_templates([stored]))  # a declared one passes


def test_a_run_of_a_workflow_template_is_checked_as_argo_checks_it_before_joining() -> None:
    """validate.Workflow: the exit handler is a template of the referenced template, and the run's own hooks need an
    expression even where the template's hook of the same name has one (they are judged before the join)."""
    library = {"kind": "WorkflowTemplate", "metadata": {"name": "lib"}, "spec": {
        "entrypoint": "run", "hooks": {"report": {"expression": "true", "template": "run"}},
        "templates": [{"name": "run", "container": {"image": "alpine", "command": ["true"]}}]}}
    lookup = lambda kind, name: library if name == "lib" else None  # noqa: E731
    wf = {"kind": "Workflow", "metadata": {"name": "w"},
          "spec": {"workflowTemplateRef": {"name": "lib"}, "onExit": "tidy"}}
    with pytest.raises(UserError, match=r"template reference lib\.tidy not found"):
        validate_workflow(wf, lookup)
    wf["spec"] = {"workflowTemplateRef": {"name": "lib"}, "hooks": {"report": {"template": "run"}}}
    with pytest.raises(UserError, match=r"hooks\.report Expression required"):
        validate_workflow(wf, lookup)
    wf["spec"]["hooks"]["report"]["expression"] = "false"
    validate_workflow(wf, lookup)


def _leaf(name: str, *args: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "container": {"image": "alpine", "command": ["echo", *args]}, **extra}


def test_a_dag_is_checked_in_dependency_order_and_sorted_first() -> None:
    """Argo's sortDAGTasks orders the tasks before anything else is checked: the first problem in that order is the
    one reported, and a dependency on no task is a sorting failure."""
    main = {"name": "main", "dag": {"tasks": [{"name": "last", "template": "ghost-z", "depends": "mid"},
                                              {"name": "mid", "template": "echo", "depends": "first"},
                                              {"name": "first", "template": "ghost-a"}]}}
    assert "template name 'ghost-a' undefined" in str(refused(workflow(main, _leaf("echo"))))
    main["dag"]["tasks"][2]["depends"] = "nobody"
    assert "sorting failed: invalid dependency nobody" in str(refused(workflow(main, _leaf("echo"))))


def test_a_timeout_a_call_makes_a_whole_number_is_refused() -> None:
    """Argo checks timeout after ProcessArgs fills it with the call's arguments: "20" has no unit."""
    nap = _leaf("nap", "hi", inputs={"parameters": [{"name": "t"}]}, timeout="{{inputs.parameters.t}}")
    main = {"name": "main", "steps": [[{"name": "s", "template": "nap",
                                        "arguments": {"parameters": [{"name": "t", "value": "20"}]}}]]}
    assert "nap has invalid duration format in timeout" in str(refused(workflow(main, nap)))
    main["steps"][0][0]["arguments"]["parameters"][0]["value"] = "20s"
    validate_workflow(workflow(main, nap), no_templates)


def test_a_steps_hook_template_is_not_resolved_at_submit() -> None:
    """validateHooks reads a hook's expression only; its template resolves when it fires."""
    hooks = {"failed": {"expression": 'steps["s"].status == "Failed"', "template": "nowhere"}}
    main = {"name": "main", "steps": [[{"name": "s", "template": "echo", "hooks": hooks}]]}
    validate_workflow(workflow(main, _leaf("echo")), no_templates)


def test_workflow_failures_only_in_templates_the_entrypoint_does_not_run() -> None:
    """Argo adds workflow.failures to the scope after it has checked what the entrypoint runs."""
    tally = _leaf("tally", "{{workflow.failures}}")
    exit_only = workflow({"name": "main", "steps": [[{"name": "s", "template": "echo"}]]}, _leaf("echo"),
                         {"name": "wrap", "steps": [[{"name": "t", "template": "tally"}]]}, tally, onExit="wrap")
    validate_workflow(exit_only, no_templates)
    exit_only["spec"]["templates"][0]["steps"][0][0]["template"] = "tally"
    assert "failed to resolve {{workflow.failures}}" in str(refused(exit_only))


def test_an_inline_templates_input_artifact_tag_is_refused_as_argo_does() -> None:
    """Argo resolves an inline template's tags in its caller's scope, which lacks its input artifacts (#7432)."""
    inline = {"inputs": {"artifacts": [{"name": "blob", "path": "/tmp/b", "raw": {"data": "x"}}]},
              "container": {"image": "alpine", "command": ["cat", "{{inputs.artifacts.blob.path}}"]}}
    main = {"name": "main", "dag": {"tasks": [{"name": "show", "inline": inline}]}}
    assert "failed to resolve {{inputs.artifacts.blob.path}}" in str(refused(workflow(main)))


def test_what_the_exit_handler_runs_is_checked_before_the_runs_hooks() -> None:
    """validate.Workflow: the entrypoint's templates, then onExit's, then the workflow's hooks, then the rest."""
    wf = workflow(_leaf("main"), _leaf("bye", "{{inputs.parameters.code}}"), onExit="bye",
                  hooks={"notify": {"template": "main"}})
    assert "failed to resolve {{inputs.parameters.code}}" in str(refused(wf))
