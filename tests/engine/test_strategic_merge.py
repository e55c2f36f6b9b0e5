"""A WorkflowTemplate's spec under the workflow's, and templateDefaults under a template, join as Argo's strategic
merge patches join them: objects field by field, lists of named items by name, anything else replaced."""

from __future__ import annotations

from typing import Any

from aipipe.engine.calls import strategic_merge
from aipipe.engine.context import dict_templates
from aipipe.engine.wfref import resolve_workflow_spec


def test_objects_join_and_named_lists_join_by_name() -> None:
    base = {"hooks": {"lib": {"template": "a"}}, "container": {"env": [{"name": "A", "value": "1"},
                                                                         {"name": "B", "value": "2"}],
                                                                 "args": ["x"]}}
    over = {"hooks": {"run": {"template": "b"}}, "container": {"env": [{"name": "A", "value": "9"},
                                                                         {"name": "C", "value": "3"}],
                                                                 "args": ["y"]}}
    joined = strategic_merge(base, over)
    assert joined["hooks"] == {"lib": {"template": "a"}, "run": {"template": "b"}}
    assert joined["container"]["env"] == [{"name": "A", "value": "9"}, {"name": "B", "value": "2"},
                                          {"name": "C", "value": "3"}]
    assert joined["container"]["args"] == ["y"]  # a list of plain values is replaced
    assert base["container"]["env"][0]["value"] == "1"  # the inputs are left as they were


def test_workflow_template_ref_joins_hooks_and_drops_the_enum_of_an_overridden_argument() -> None:
    stored: dict[str, Any] = {"kind": "WorkflowTemplate", "metadata": {"name": "lib"}, "spec": {
        "entrypoint": "main", "hooks": {"lib-done": {"template": "t", "expression": "true"}},
        "arguments": {"parameters": [{"name": "tier", "value": "gold", "enum": ["bronze", "gold"]},
                                     {"name": "keep", "value": "k", "enum": ["k"]}]},
        "templates": [{"name": "main", "container": {"image": "alpine"}}]}}
    run = {"kind": "Workflow", "metadata": {"name": "r"}, "spec": {
        "workflowTemplateRef": {"name": "lib"}, "hooks": {"run-done": {"template": "t", "expression": "true"}},
        "arguments": {"parameters": [{"name": "tier", "value": "platinum"}]}}}
    spec = resolve_workflow_spec(run, dict_templates([stored]))
    assert set(spec["hooks"]) == {"lib-done", "run-done"}
    tier, keep = spec["arguments"]["parameters"]
    assert tier == {"name": "tier", "value": "platinum"}
    assert keep["enum"] == ["k"]  # one the workflow does not give keeps the template's enum


def test_volume_mounts_join_by_mount_path_and_a_list_with_repeated_keys_is_replaced() -> None:
    defaults = {"volumeMounts": [{"name": "data", "mountPath": "/a"}], "env": [{"name": "A", "value": "1"}]}
    own = {"volumeMounts": [{"name": "data", "mountPath": "/b", "subPath": "x"}],
           "env": [{"name": "B", "value": "2"}, {"name": "B", "value": "3"}]}
    joined = strategic_merge(defaults, own)
    assert [m["mountPath"] for m in joined["volumeMounts"]] == ["/a", "/b"]  # one volume at two paths
    assert joined["env"] == own["env"]  # repeated names: nothing to merge by, the template's list stands
