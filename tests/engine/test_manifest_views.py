"""The typed views of manifest parts (aipipe.engine.manifest) read fields as Argo's controller does."""

from __future__ import annotations

from aipipe.engine.manifest import ContinueOn, DagBody, RunSpec, StepsBody, StepSpec, TemplateHead, kind_of
from aipipe.engine.phases import NodePhase, NodeType


def test_a_step_reads_its_loop_when_arguments_and_hooks() -> None:
    step = StepSpec.of({"name": "a", "template": "t", "withParam": "{{steps.g.outputs.result}}", "when": "",
                        "arguments": {"parameters": [{"name": "x", "value": "{{item}}"}]},
                        "hooks": {"running": {"expression": "true", "template": "h"}, "exit": {"template": "old"}},
                        "onExit": "cleanup"})
    assert step.name == "a" and step.source["template"] == "t"
    assert step.loop is not None and (step.loop.kind, step.loop.value) == ("withParam", "{{steps.g.outputs.result}}")
    assert step.when is None  # an empty when is no condition
    assert step.arguments["parameters"][0]["name"] == "x"
    assert step.hooks["exit"] == {"template": "cleanup"}  # onExit wins over an exit hook, as in Argo
    assert set(step.expression_hooks) == {"running"}


def test_a_plain_step_has_no_loop_no_hooks_and_fails_its_parent() -> None:
    step = StepSpec.of({"name": "b", "template": "t", "withItems": []})
    assert step.loop is not None and step.loop.value == []  # an empty loop is still a loop (a Skipped node)
    plain = StepSpec.of({"name": "c", "template": "t"})
    assert plain.loop is None and plain.hooks == {} and plain.expression_hooks == {}
    assert plain.continue_on.fails_parent(NodePhase.FAILED) and plain.continue_on.fails_parent(NodePhase.ERROR)
    assert not plain.continue_on.fails_parent(NodePhase.SUCCEEDED) and not plain.continue_on.fails_parent(None)


def test_continue_on_lets_through_only_its_phases() -> None:
    only_failed = StepSpec.of({"name": "d", "template": "t", "continueOn": {"failed": True}}).continue_on
    assert only_failed == ContinueOn(failed=True, error=False)
    assert not only_failed.fails_parent(NodePhase.FAILED) and only_failed.fails_parent(NodePhase.ERROR)


def test_steps_and_dag_bodies() -> None:
    steps = StepsBody.of({"name": "s", "steps": [[{"name": "a", "template": "t"}], None,
                                                 [{"name": "b", "template": "t"}, {"name": "c", "template": "t"}]]})
    assert [[s.name for s in group] for group in steps.groups] == [["a"], [], ["b", "c"]]
    dag = DagBody.of({"name": "d", "dag": {"tasks": [{"name": "x", "template": "t"},
                                                     {"name": "y", "template": "t", "depends": "x"}]}})
    assert list(dag.tasks) == ["x", "y"] and dag.tasks["y"].source["depends"] == "x"
    assert dag.target == "" and DagBody.of({"dag": {"tasks": [], "target": "y"}}).target == "y"


def test_run_spec_reads_the_exit_handler_hooks_and_limits() -> None:
    spec = RunSpec.of({"entrypoint": "main", "hooks": {"exit": {"template": "bye", "arguments": {"parameters": []}},
                                                       "started": {"expression": "true", "template": "hi"}},
                       "parallelism": 0, "activeDeadlineSeconds": "", "volumes": [{"name": "v", "emptyDir": {}}],
                       "volumeClaimTemplates": [{"metadata": {"name": "work"}}]})
    assert spec.entrypoint == "main" and spec.exit_handler == {"template": "bye"}
    assert spec.exit_arguments == {"parameters": []}
    assert set(spec.hooks) == {"started"}
    assert spec.parallelism is None and spec.priority == 0 and spec.active_deadline is None
    assert spec.synchronization is None and spec.security_context is None
    assert [v["name"] for v in spec.volumes] == ["v", "work"]
    with_on_exit = RunSpec.of({"entrypoint": "main", "onExit": "cleanup", "parallelism": "3", "priority": "5",
                               "activeDeadlineSeconds": 30})
    assert with_on_exit.exit_handler == {"template": "cleanup"} and with_on_exit.exit_arguments == {}
    assert (with_on_exit.parallelism, with_on_exit.priority, with_on_exit.active_deadline) == (3, 5, 30)
    by_ref = RunSpec.of({"entrypoint": "main", "hooks": {"exit": {"templateRef": {"name": "lib", "template": "bye"}}}})
    assert by_ref.exit_handler == {"templateRef": {"name": "lib", "template": "bye"}}


def test_template_head_reads_kind_retries_locks_and_fan_out() -> None:
    head = TemplateHead.of({"name": "s", "steps": [], "parallelism": "{{inputs.parameters.n}}", "failFast": True,
                            "retryStrategy": {"limit": 2}, "synchronization": {"mutex": {"name": "m"}}})
    assert (head.kind, head.node_type, head.parallelism, head.fail_fast) == ("steps", NodeType.STEPS,
                                                                            "{{inputs.parameters.n}}", True)
    assert head.retry_strategy == {"limit": 2} and head.synchronization == {"mutex": {"name": "m"}}
    assert not head.daemon
    leaf = TemplateHead.of({"name": "c", "container": {"image": "alpine"}, "daemon": "true"})
    assert (leaf.kind, leaf.node_type, leaf.daemon, leaf.parallelism, leaf.fail_fast) == (
        "container", NodeType.POD, True, "", False)
    assert leaf.retry_strategy is None and leaf.synchronization is None
    assert TemplateHead.of({"name": "w", "suspend": {}}).node_type == NodeType.SUSPEND
    assert kind_of({"name": "x", "container": None, "script": {"image": "python"}}) == "script"
    assert kind_of({"name": "nothing"}) == "unknown"
