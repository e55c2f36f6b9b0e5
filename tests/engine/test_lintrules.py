"""Argo's submit-time rules (aipipe.engine.lintrules through validate_workflow): each refusal names its field and
reason; the same workflow without the fault is accepted."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from aipipe.engine.context import no_templates
from aipipe.engine.validate import validate_workflow
from aipipe.errors import UserError

SAY = {"name": "say", "inputs": {"parameters": [{"name": "m", "value": "x"}]},
       "container": {"image": "busybox", "command": ["echo", "{{inputs.parameters.m}}"]}}


def wf(*templates: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"name": "lint"},
            "spec": {"entrypoint": templates[0]["name"], "templates": [*templates, SAY], **spec}}


def steps(*groups: list[dict[str, Any]]) -> dict[str, Any]:
    return {"name": "main", "steps": [list(g) for g in groups]}


def dag(*tasks: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"name": "main", "dag": {"tasks": list(tasks), **extra}}


def say(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "template": "say", **extra}


def reads(value: str) -> dict[str, Any]:
    """Arguments passing ``value`` to say's parameter."""
    return {"parameters": [{"name": "m", "value": value}]}


def leaf(**extra: Any) -> dict[str, Any]:
    return {"name": "main", "container": {"image": "busybox", "command": ["true"]}, **extra}


CASES: list[tuple[str, dict[str, Any], str, str]] = [
    ("step name with a dot", wf(steps([say("a.b")])), "templates.main.steps[0].name", "is invalid"),
    ("template name with '_'", wf(leaf(name="my_leaf")), "spec.templates[0].name", "is invalid"),
    ("input names repeated", wf(leaf(inputs={"parameters": [{"name": "p", "value": "1"}] * 2})),
     "templates.main.inputs.parameters[1].name", "not unique"),
    ("parallelism on a leaf", wf(leaf(parallelism=2)), "templates.main.parallelism", "only valid for steps and dag"),
    ("deadline on steps", wf({**steps([say("a")]), "activeDeadlineSeconds": 5}),
     "templates.main.activeDeadlineSeconds", "only valid for leaf templates"),
    ("negative deadline", wf(leaf(activeDeadlineSeconds=-1)), "templates.main.activeDeadlineSeconds", "positive"),
    ("timeout on a dag", wf({**dag(say("a")), "timeout": "10s"}), "templates.main.timeout", "doesn't support timeout"),
    ("timeout without a unit", wf(leaf(timeout="10")), "templates.main.timeout", "invalid duration format"),
    ("an output artifact path climbing out of its folder", wf(leaf(outputs={"artifacts": [
        {"name": "o", "path": "/tmp/build/../o.txt"}]})), "templates.main.outputs.artifacts.o.path",
     "Directory traversal is not permitted"),
    ("a leaf's input artifact without a path", wf(leaf(inputs={"artifacts": [{"name": "i", "raw": {"data": "x"}}]})),
     "templates.main.inputs.artifacts.i.path", "Artifact 'i' did not specify a path"),
    ("a git input without repo", wf(leaf(inputs={"artifacts": [
        {"name": "g", "path": "/src", "git": {"revision": "v1"}}]})),
     "templates.main.inputs.artifacts.g.git.repo", "inputs.artifacts.g.git.repo is required"),
    ("a containerSet container named with '_'", wf(leaf(container=None, containerSet={"containers": [
        {"name": "main", "image": "busybox"}, {"name": "pre_check", "image": "busybox"}]})),
     "templates.main.containerSet.containers[1].name", "containers[1].name: 'pre_check' is invalid"),
    ("unknown retry policy", wf(leaf(retryStrategy={"retryPolicy": "Sometimes"})),
     "templates.main.retryStrategy.retryPolicy", "not a valid RetryPolicy"),
    ("output without a value", wf(leaf(outputs={"parameters": [{"name": "o"}]})),
     "templates.main.outputs.parameters.o", "does not have valueFrom or value"),
    ("two valueFrom sources", wf(leaf(outputs={"parameters": [{"name": "o", "valueFrom": {
        "path": "/tmp/o", "expression": "1"}}]})), "templates.main.outputs.parameters.o.valueFrom",
     "multiple valueFrom"),
    ("a steps output read from a path", wf({**steps([say("a")]), "outputs": {"parameters": [
        {"name": "o", "valueFrom": {"path": "/tmp/o"}}]}}), "templates.main.outputs.parameters.o.valueFrom",
     "parameter or expression must be specified"),
    ("two loop sources", wf(steps([say("a", withItems=[1], withParam="[1]")])), "templates.main.steps[0].a",
     "only one of withItems, withParam, withSequence"),
    ("sequence with count and end", wf(steps([say("a", withSequence={"count": "2", "end": "3"})])),
     "templates.main.steps[0].a.withSequence", "only one of count or end"),
    ("a later step's status", wf(steps([say("a", arguments=reads("{{steps.b.status}}"))], [say("b")])),
     "templates.main.steps[0].a", "failed to resolve {{steps.b.status}}"),
    ("a same-group step's output", wf(steps([say("a"), say("b", arguments=reads("{{steps.a.outputs.result}}"))])),
     "templates.main.steps[0].b", "failed to resolve"),
    ("task name starting with a digit, with depends", wf(dag(say("1st"), say("b", depends="1st"))),
     "templates.main.dag.tasks.1st", "cannot begin with a digit"),
    ("continueOn with depends", wf(dag(say("a"), say("b", depends="a", continueOn={"failed": True}))),
     "templates.main.dag.tasks.b", "cannot use 'continueOn' when using 'depends'"),
    ("items condition on a task without items", wf(dag(say("a"), say("b", depends="a.AnySucceeded"))),
     "templates.main.dag.tasks.b", "items-based condition"),
    ("unknown target", wf(dag(say("a"), target="a ghost")), "templates.main.dag.target",
     "target 'ghost' is not defined"),
    ("argument from a task that is not an ancestor", wf(dag(say("a"), say("b", arguments=reads(
        "{{tasks.a.outputs.result}}")))), "templates.main.dag.tasks.b.arguments",
     "missing dependency 'a' for parameter 'm'"),
    ("an empty enum", wf(leaf(), arguments={"parameters": [{"name": "c", "value": "red", "enum": []}]}),
     "spec.arguments.c.enum", "at least one value"),
    ("workflow.failures without an exit handler", wf(leaf(container={
        "image": "busybox", "command": ["echo", "{{workflow.failures}}"]})), "templates.main",
     "failed to resolve {{workflow.failures}}"),
    ("an output the template does not declare", wf(steps([say("a")], [say("b", arguments=reads(
        "{{steps.a.outputs.parameters.nope}}"))])), "templates.main", "declares no output parameter 'nope'"),
    ("the result of a steps template", wf(steps([{"name": "a", "template": "inner"}], [say("b", arguments=reads(
        "{{steps.a.outputs.result}}"))]), {"name": "inner", "steps": [[say("x")]]}), "templates.main",
     "a steps template has no outputs.result"),
    ("from on an input artifact", wf(leaf(inputs={"artifacts": [{"name": "a", "path": "/tmp/a", "from": "x"}]})),
     "templates.main.inputs.artifacts.a.from", "from not valid in inputs"),
    ("an argument artifact without a source", wf(steps([say("a", arguments={"artifacts": [{"name": "f"}]})])),
     "templates.main.steps[0].a.arguments.artifacts.f", "from, artifact location, or key is required"),
    ("a path on a steps output artifact", wf({**steps([{"name": "a", "template": "make"}]), "outputs": {"artifacts": [
        {"name": "o", "path": "/tmp/o", "from": "{{steps.a.outputs.artifacts.x}}"}]}}, {
        "name": "make", "outputs": {"artifacts": [{"name": "x", "path": "/tmp/x"}]},
        "container": {"image": "busybox", "command": ["touch", "/tmp/x"]}}),
     "templates.main.outputs.artifacts.o.path", "path only valid in container/script templates"),
    ("an invalid globalName", wf(leaf(outputs={"parameters": [{"name": "o", "value": "1", "globalName": "a.b"}]})),
     "templates.main.outputs.parameters.o.globalName", "is invalid"),
    ("an input artifact over a volume mount", wf(leaf(
        inputs={"artifacts": [{"name": "a", "path": "/work", "raw": {"data": "x"}}]},
        container={"image": "busybox", "command": ["true"], "volumeMounts": [{"name": "w", "mountPath": "/work"}]}),
        volumes=[{"name": "w", "emptyDir": {}}]), "templates.main.inputs.artifacts.a.path", "already mounted"),
    ("a workflow argument read from a file", wf(leaf(), arguments={"parameters": [
        {"name": "p", "valueFrom": {"path": "/tmp/p"}}]}), "spec.arguments.p.valueFrom",
     "valueFrom only allows: default, configMapKeyRef and supplied"),
    ("a workflow argument named with '#'", wf(leaf(), arguments={"parameters": [{"name": "p#1", "value": "x"}]}),
     "spec.arguments.parameters[0].name", "is invalid"),
    ("an init container without a name", wf(leaf(initContainers=[{"image": "busybox", "command": ["true"]}])),
     "templates.main.initContainers", "initContainers must all have container name"),
    ("a metric without help", wf(leaf(metrics={"prometheus": [{"name": "runs", "counter": {"value": "1"}}]})),
     "templates.main.metrics", "must contain a help string"),
    ("a metric label key with a dot", wf(leaf(metrics={"prometheus": [{"name": "runs", "help": "h", "labels": [
        {"key": "a.b", "value": "x"}], "counter": {"value": "1"}}]})), "templates.main.metrics", "is invalid"),
    ("a name over 63 characters", {**wf(leaf()), "metadata": {"name": "n" * 64}}, "metadata.name",
     "must not be more than 63 characters"),
    ("an unknown podGC strategy", wf(leaf(), podGC={"strategy": "Sometimes"}), "spec.podGC.strategy",
     "unknown strategy 'Sometimes'"),
    ("a template of no type", wf({"name": "main"}), "templates.main", "template type unspecified"),
    ("the status of a task that is not a dependency", wf(dag(say("a"), say("b", when="{{tasks.a.status}} == x"))),
     "templates.main.dag.tasks.b", "failed to resolve {{tasks.a.status}}"),
    ("the aggregate outputs of a withSequence step", wf(steps(
        [say("a", withSequence={"count": "2"})], [say("b", arguments=reads("{{steps.a.outputs.parameters}}"))])),
     "templates.main", "failed to resolve {{steps.a.outputs.parameters}}"),
    ("item.key outside a loop", wf(steps([say("a", arguments=reads("{{item.k}}"))])), "templates.main.steps[0].a",
     "failed to resolve {{item.k}}"),
    ("a script without an image", wf(leaf(container=None, script={"source": "print(1)"})), "templates.main.script",
     "script.image may not be empty"),
    ("an image that is an empty workflow parameter", wf(leaf(container={
        "image": "{{workflow.parameters.image}}", "command": ["true"]}),
        arguments={"parameters": [{"name": "image", "value": ""}]}), "templates.main.container",
     "container.image may not be empty"),
    ("an argument without a value", wf(steps([say("a", arguments={"parameters": [{"name": "m"}]})])),
     "templates.main.steps[0].a.arguments.m", "valueFrom is required"),
    ("depends and dependencies in one DAG", wf(dag(say("a"), say("b", depends="a"), say("c", dependencies=["a"]))),
     "templates.main.dag", "cannot use both 'depends' and 'dependencies'"),
    ("the ip of a step that is no daemon", wf(steps([say("a")], [say("b", arguments=reads("{{steps.a.ip}}"))])),
     "templates.main", "failed to resolve {{steps.a.ip}}"),
    ("pod.name in a steps template", wf(steps([say("a", arguments=reads("{{pod.name}}"))])), "templates.main",
     "failed to resolve {{pod.name}}"),
    ("an unknown workflow variable", wf(leaf(container={"image": "busybox", "command": [
        "echo", "{{ workflow.nosuch }}"]})), "templates.main", "failed to resolve {{workflow.nosuch}}"),
    ("an artifact from two sources", wf(steps([say("a", arguments={"artifacts": [
        {"name": "x", "from": "{{workflow.outputs.artifacts.y}}", "fromExpression": "'a'"}]})])),
     "templates.main.steps[0].a.arguments.artifacts.x", "shouldn't have both"),
]


@pytest.mark.parametrize(("case", "workflow", "field", "reason"), CASES, ids=[c[0] for c in CASES])
def test_argo_refuses_it_and_so_do_we(case: str, workflow: dict[str, Any], field: str, reason: str) -> None:
    with pytest.raises(UserError) as caught:
        validate_workflow(copy.deepcopy(workflow), no_templates)
    assert caught.value.field == field and reason in str(caught.value), str(caught.value)


@pytest.mark.parametrize("workflow", [
    wf(steps([say("a"), say("b", arguments=reads("{{steps.a.status}}"))],
             [say("c", arguments=reads("{{steps.a.outputs.result}}"))])),
    wf(dag(say("a", withItems=[1, 2]), say("b", depends="a.AnySucceeded", arguments=reads(
        "{{tasks.a.outputs.result}}")), target="b")),
    wf(dag(say("a"), say("b", dependencies=["a"], continueOn={"failed": True}))),
    wf(leaf(), {"name": "bye", "container": {"image": "busybox", "command": ["echo", "{{workflow.failures}}"]}},
       onExit="bye"),
    wf(leaf(activeDeadlineSeconds="{{workflow.parameters.d}}", timeout="1m", retryStrategy={
        "retryPolicy": "OnTransientError"}, outputs={"parameters": [{"name": "o", "valueFrom": {"path": "/tmp/o"}}]}),
       arguments={"parameters": [{"name": "d", "value": "5"}]}),
    wf(dag(say("a"), say("b", depends="a", when="{{tasks.a.status}} == Succeeded"),
           say("c", hooks={"exit": {"template": "say", "arguments": reads("{{tasks.c.status}}")}}))),
    wf(steps([say("a", withItems=[1, 2])], [say("b", arguments=reads("{{steps.a.outputs.parameters}}"))]),
       podGC={"strategy": "OnPodSuccess"}),
    wf(steps([say("a", arguments=reads("{{item}}"))])),
    wf(leaf(container=None, script={"source": "print(1)"}), templateDefaults={"script": {"image": "python:3.12"}}),
    wf(leaf(container={"image": "{{workflow.parameters.image}}", "command": ["true"]}),
       arguments={"parameters": [{"name": "image", "value": "busybox"}]}),
], ids=["steps", "dag", "dependencies-continueOn", "failures-in-exit-workflow", "leaf", "dag-status-of-dependency",
        "aggregate-after-withItems", "bare-item-left-as-written", "image-from-templateDefaults",
        "image-from-a-workflow-parameter"])
def test_the_same_workflows_without_the_fault_pass(workflow: dict[str, Any]) -> None:
    validate_workflow(workflow, no_templates)
