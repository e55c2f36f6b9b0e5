"""Argo semantics the typed core closes: live global outputs, hook display names, DAG branch phases, the
workflow-level retry strategy, retry messages and variables, node times and workflow metadata variables."""

from __future__ import annotations

from typing import Any

from aipipe.engine.dag import branch_phases
from aipipe.engine.template import Scope, render
from tests.engine.conftest import EngineRun, nodes_by_display


def _wf(name: str, entry: str, templates: list[dict[str, Any]], **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"name": name},
            "spec": {"entrypoint": entry, "templates": templates, **spec}}


def _sh(name: str, script: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "container": {"image": "alpine", "command": ["sh", "-c", script]}, **extra}


def _phases(wf: dict[str, Any]) -> dict[str, list[str]]:
    return {d: [n["phase"] for n in ns] for d, ns in nodes_by_display(wf).items()}


def test_later_steps_see_global_outputs_in_their_arguments(engine: EngineRun) -> None:
    publish = _sh("publish", "echo -n 42 > /tmp/v", outputs={"parameters": [
        {"name": "v", "globalName": "answer", "valueFrom": {"path": "/tmp/v"}}]})
    show = _sh("show", "test '{{inputs.parameters.got}}' = 42", inputs={"parameters": [{"name": "got"}]})
    main = {"name": "main", "steps": [
        [{"name": "pub", "template": "publish"}],
        [{"name": "use", "template": "show",
          "arguments": {"parameters": [{"name": "got", "value": "{{workflow.outputs.parameters.answer}}"}]}}]]}
    out = engine.run(_wf("glob", "main", [main, publish, show]))
    assert out["status"]["phase"] == "Succeeded", _phases(out)
    assert _phases(out)["use"] == ["Succeeded"]


def test_step_and_task_hooks_show_argo_display_names(engine: EngineRun) -> None:
    ok = _sh("ok", "true")
    hook = {"running": {"expression": "true", "template": "ok"}}
    steps = {"name": "steps", "steps": [[{"name": "s1", "template": "ok", "hooks": hook}]]}
    dag = {"name": "dag", "dag": {"tasks": [{"name": "t1", "template": "ok", "hooks": hook}]}}
    main = {"name": "main", "steps": [[{"name": "a", "template": "steps"}, {"name": "b", "template": "dag"}]]}
    out = engine.run(_wf("hk", "main", [main, steps, dag, ok]))
    names = {n["displayName"]: n["name"] for n in out["status"]["nodes"].values()}
    assert names.get("s1.hooks.running") == "hk[0].a[0].s1.hooks.running"
    assert names.get("t1.hooks.running") == "hk[0].b.t1.hooks.running"


def test_skipped_target_below_a_failed_task_fails_the_dag(engine: EngineRun) -> None:
    dag = {"name": "g", "dag": {"tasks": [
        {"name": "bad", "template": "fail", "continueOn": {"failed": True}},
        {"name": "after", "dependencies": ["bad"], "template": "ok", "when": "{{tasks.bad.status}} == Succeeded"}]}}
    out = engine.run(_wf("br", "g", [dag, _sh("fail", "exit 1"), _sh("ok", "true")]))
    assert out["status"]["phase"] == "Failed"
    assert _phases(out)["after"] == ["Skipped"]


def test_branch_phase_rule() -> None:
    nodes = {
        "dag": {"children": ["a", "x"]},
        "a": {"phase": "Failed", "children": ["b"]},
        "b": {"phase": "Omitted", "children": ["c"]},
        "c": {"phase": "Skipped", "children": []},
        "x": {"phase": "Succeeded", "children": ["c", "y"]},
        "y": {"phase": "Skipped", "children": []},
        "r": {"phase": "Succeeded", "type": "Retry", "children": ["r0", "r1"]},
    }
    # c is reached by a failed and by a succeeded branch: the failure wins; y inherits x's success
    assert branch_phases(nodes, "dag", {"c", "y", "a"}) == {"a": "Failed", "c": "Failed", "y": "Succeeded"}
    # past a Retry node the walk goes on through its hooks and its attempts' children (getRetryNodeChildrenIds): a
    # hook, the last child of the retry, does not hide the dependant hanging under the last attempt
    nodes["dag"]["children"] = ["r"]
    nodes["r"] = {"name": "r", "phase": "Failed", "type": "Retry", "children": ["r0", "r1", "rh"]}
    nodes["r0"] = {"name": "r(0)", "phase": "Failed", "children": []}
    nodes["r1"] = {"name": "r(1)", "phase": "Failed", "children": ["c"]}
    nodes["rh"] = {"name": "r.hooks.failed", "phase": "Succeeded", "children": []}
    assert branch_phases(nodes, "dag", {"c"}) == {"c": "Failed"}
    nodes["r1"]["phase"] = nodes["r"]["phase"] = "Succeeded"
    assert branch_phases(nodes, "dag", {"c", "rh"}) == {"c": "Succeeded", "rh": "Succeeded"}


def test_workflow_retry_strategy_applies_to_templates_without_their_own(engine: EngineRun) -> None:
    main = _sh("main", "[ {{retries}} -eq 1 ]")
    out = engine.run(_wf("wfr", "main", [main], retryStrategy={"limit": 2}))
    assert out["status"]["phase"] == "Succeeded"
    root = next(n for n in out["status"]["nodes"].values() if n["name"] == "wfr")
    assert root["type"] == "Retry"
    assert _phases(out) == {"wfr": ["Succeeded"], "wfr(0)": ["Failed"], "wfr(1)": ["Succeeded"]}


def test_exhausted_retries_say_no_more_retries_left(engine: EngineRun) -> None:
    main = _sh("main", "exit 1", retryStrategy={"limit": 1})
    out = engine.run(_wf("lim", "main", [main]))
    assert out["status"]["phase"] == "Failed"
    assert out["status"]["message"] == "No more retries left"
    assert _phases(out) == {"lim": ["Failed"], "lim(0)": ["Failed"], "lim(1)": ["Failed"]}


def test_an_empty_retry_strategy_retries_without_limit(engine: EngineRun) -> None:
    out = engine.run(_wf("open", "main", [_sh("main", "[ {{retries}} -ge 3 ]", retryStrategy={})]))
    assert out["status"]["phase"] == "Succeeded"
    assert _phases(out) == {"open": ["Succeeded"], "open(0)": ["Failed"], "open(1)": ["Failed"],
                            "open(2)": ["Failed"], "open(3)": ["Succeeded"]}


def test_a_pod_expression_that_fails_stays_as_written(engine: EngineRun) -> None:
    script = "echo '{{=nosuch(1)}}|{{=inputs.parameters.a + 1}}|{{=int(inputs.parameters.a) + 1}}'"
    main = {**_sh("main", script), "inputs": {"parameters": [{"name": "a", "value": "1"}]}}
    out = engine.run(_wf("lenient", "main", [main]))
    assert out["status"]["phase"] == "Succeeded", out["status"].get("message")
    [node] = nodes_by_display(out)["lenient"]
    assert node["outputs"]["result"] == "{{=nosuch(1)}}|{{=inputs.parameters.a + 1}}|2"  # string + int: an error


def test_a_missing_exit_handler_volume_is_the_controllers_error(engine: EngineRun) -> None:
    notify = {**_sh("notify", "true"), "container": {
        "image": "alpine", "command": ["sh", "-c", "true"], "volumeMounts": [{"name": "nowhere", "mountPath": "/x"}]}}
    out = engine.run(_wf("exitvol", "main", [_sh("main", "true"), notify], onExit="notify"))
    assert out["status"]["phase"] == "Error"
    message = out["status"]["message"]
    assert message.startswith("error in exit template execution : ") and "volume 'nowhere' not found" in message


def test_a_steps_child_the_controller_errors_errors_its_group(engine: EngineRun) -> None:
    bad = {"name": "bad", "container": {"image": "alpine", "command": ["sh", "-c", "true"],
                                        "volumeMounts": [{"name": "nowhere", "mountPath": "/x"}]}}
    main = {"name": "main", "steps": [[{"name": "ok", "template": "ok"}, {"name": "mount", "template": "bad"}]]}
    out = engine.run(_wf("sgerr", "main", [main, _sh("ok", "true"), bad]))
    assert out["status"]["phase"] == "Failed"
    assert out["status"]["message"].startswith("step group deemed errored due to child sgerr[0].mount error: ")
    assert _phases(out)["[0]"] == ["Error"] and _phases(out)["mount"] == ["Error"] and _phases(out)["ok"] == [
        "Succeeded"]


def test_a_dag_task_the_controller_errors_says_so(engine: EngineRun) -> None:
    bad = {"name": "bad", "container": {"image": "alpine", "command": ["sh", "-c", "true"],
                                        "volumeMounts": [{"name": "nowhere", "mountPath": "/x"}]}}
    main = {"name": "main", "dag": {"tasks": [{"name": "ok", "template": "ok"}, {"name": "mount", "template": "bad"}]}}
    out = engine.run(_wf("dagerr", "main", [main, _sh("ok", "true"), bad]))
    [mount] = nodes_by_display(out)["mount"]
    assert mount["phase"] == "Error"
    assert mount["message"].startswith("task 'dagerr.mount' errored: ") and "volume 'nowhere'" in mount["message"]


def test_a_when_that_cannot_be_evaluated_errors_the_step_group_with_its_words(engine: EngineRun) -> None:
    """Argo's shouldExecute words, through resolveReferences: the group errs, the steps node and the run fail with
    them, and the next group never starts."""
    main = {"name": "main", "steps": [[{"name": "first", "template": "ok", "when": "{{w}}"}],
                                      [{"name": "second", "template": "ok"}]]}
    out = engine.run(_wf("badwhen", "main", [main, _sh("ok", "true")]))
    assert out["status"]["phase"] == "Failed"
    assert out["status"]["message"].startswith("Failed to resolve references: Invalid 'when' expression '{{w}}': ")
    assert "first" not in nodes_by_display(out) and "second" not in nodes_by_display(out)
    assert _phases(out)["[0]"] == ["Error"] and "second" not in _phases(out)
    [group] = nodes_by_display(out)["[0]"]
    assert group["message"] == out["status"]["message"]


def test_a_with_param_that_is_no_json_list_errs_the_group_with_argos_words(engine: EngineRun) -> None:
    """Argo's expandStep: a Skipped-type node ended Error; the group errs and the run fails with the same words. An
    artifact's tag cannot be a list: it stays as written (resolveReferences allows unresolved tags)."""
    make = _sh("make", "echo 1 > /tmp/ids", outputs={"artifacts": [{"name": "ids", "path": "/tmp/ids"}]})
    each = {"name": "each", "inputs": {"parameters": [{"name": "id"}]},
            "container": {"image": "alpine", "command": ["echo", "{{inputs.parameters.id}}"]}}
    loop = {"name": "per", "template": "each", "withParam": "{{steps.make.outputs.artifacts.ids}}",
            "arguments": {"parameters": [{"name": "id", "value": "{{item}}"}]}}
    main = {"name": "main", "steps": [[{"name": "make", "template": "make"}], [loop]]}
    out = engine.run(_wf("badparam", "main", [main, make, each]))
    want = "withParam value could not be parsed as a JSON list: {{steps.make.outputs.artifacts.ids}}: "
    assert out["status"]["phase"] == "Failed" and out["status"]["message"].startswith(want)
    [per] = nodes_by_display(out)["per"]
    assert (per["type"], per["phase"]) == ("Skipped", "Error") and _phases(out)["[1]"] == ["Error"]


def test_parameters_written_as_numbers_or_booleans_reach_nodes_as_argos_text(engine: EngineRun) -> None:
    """Argo's AnyString: `true`, `30`, `2.5` and `1e21` written bare are the text true, 30, 2.5 and
    1000000000000000000000 (an enum of booleans matches too); a `{{retries}}` outside a retry stays as written."""
    main = {"name": "main", "inputs": {"parameters": [{"name": "flag", "enum": [True, False]}, {"name": "n"},
                                                      {"name": "ratio", "default": 2.5}, {"name": "big"}]},
            "container": {"image": "alpine", "command": ["echo", "{{inputs.parameters.flag}} {{inputs.parameters.n}} "
                                                         "{{inputs.parameters.ratio}} {{inputs.parameters.big}} "
                                                         "{{retries}}"]}}
    args = {"parameters": [{"name": "flag", "value": True}, {"name": "n", "value": 30}, {"name": "big", "value": 1e21}]}
    out = engine.run(_wf("anystr", "main", [main], arguments=args))
    assert out["status"]["phase"] == "Succeeded", out["status"].get("message")
    [node] = nodes_by_display(out)["anystr"]
    assert node["outputs"]["result"] == "true 30 2.5 1000000000000000000000 {{retries}}"


def test_attempts_read_the_previous_attempt_as_last_retry(engine: EngineRun) -> None:
    check = ("if [ {{retries}} -eq 0 ]; then [ '{{lastRetry.exitCode}}' = 0 ] && exit 3; exit 9; fi; "
             "[ '{{lastRetry.exitCode}}' = 3 ] && [ '{{lastRetry.status}}' = Failed ]")
    out = engine.run(_wf("lr", "main", [_sh("main", check, retryStrategy={"limit": 1})]))
    assert _phases(out) == {"lr": ["Succeeded"], "lr(0)": ["Failed"], "lr(1)": ["Succeeded"]}
    assert "exit code 3" in (nodes_by_display(out)["lr(0)"][0].get("message") or "")


def test_steps_and_tasks_expose_their_times(engine: EngineRun) -> None:
    show = _sh("show", "[ '{{inputs.parameters.s}}' \\< '{{inputs.parameters.f}}' ] || "
               "[ '{{inputs.parameters.s}}' = '{{inputs.parameters.f}}' ]; echo '{{inputs.parameters.h}}' | grep -q .",
               inputs={"parameters": [{"name": "s"}, {"name": "f"}, {"name": "h"}]})
    args = {"parameters": [{"name": "s", "value": "{{tasks.a.startedAt}}"},
                           {"name": "f", "value": "{{tasks.a.finishedAt}}"},
                           {"name": "h", "value": "{{tasks.a.hostNodeName}}"}]}
    dag = {"name": "g", "dag": {"tasks": [{"name": "a", "template": "ok"},
                                          {"name": "b", "depends": "a", "template": "show", "arguments": args}]}}
    out = engine.run(_wf("tm", "g", [dag, _sh("ok", "true"), show]))
    assert _phases(out)["b"] == ["Succeeded"], out["status"]["nodes"]
    b = nodes_by_display(out)["b"][0]
    a = nodes_by_display(out)["a"][0]
    assert {p["name"]: p["value"] for p in b["inputs"]["parameters"]}["s"] == a["startedAt"]


def test_workflow_scope_has_creation_time_forms_labels_json_and_priority(engine: EngineRun) -> None:
    script = ("[ '{{workflow.creationTimestamp.Y}}' = "
              "\"$(echo '{{workflow.creationTimestamp.RFC3339}}' | cut -c1-4)\" ] "
              "&& [ '{{workflow.labels.json}}' = '{\"team\":\"vision\"}' ] && [ '{{workflow.priority}}' = 7 ] "
              "&& [ '{{=sprig.date(\"2006\", workflow.creationTimestamp)}}' = '{{workflow.creationTimestamp.Y}}' ]")
    wf = _wf("ts", "main", [_sh("main", script)], priority=7)
    wf["metadata"]["labels"] = {"team": "vision"}
    out = engine.run(wf)
    assert out["status"]["phase"] == "Succeeded", out["status"]["nodes"]


def test_workflow_artifact_arguments_see_the_workflow_parameters(engine: EngineRun) -> None:
    main = _sh("main", "grep -qx 'hello from-params' /tmp/a && grep -qxF \"$(printf '{{%s' "
                       "'workflow.outputs.parameters.none}}')\" /tmp/b",  # (a tag that does not resolve stays)
               inputs={"artifacts": [{"name": "a", "path": "/tmp/a"}, {"name": "b", "path": "/tmp/b"}]})
    arguments = {"parameters": [{"name": "who", "value": "from-params"}],
                 "artifacts": [{"name": "a", "raw": {"data": "hello {{workflow.parameters.who}}\n"}},
                               {"name": "b", "raw": {"data": "{{workflow.outputs.parameters.none}}\n"}}]}
    out = engine.run(_wf("wa", "main", [main], arguments=arguments))
    assert out["status"]["phase"] == "Succeeded", out["status"]["nodes"]


def _config_map(engine: EngineRun, name: str, **keys: str) -> None:
    folder = engine.home / "configmaps" / name
    folder.mkdir(parents=True, exist_ok=True)
    for key, value in keys.items():
        (folder / key).write_text(value)


def test_parameters_come_from_config_map_keys(engine: EngineRun) -> None:
    _config_map(engine, "settings", color="blue\n", size="3")
    ref = {"configMapKeyRef": {"name": "settings", "key": "color"}}
    show = _sh("show", "[ '{{inputs.parameters.c}}|{{inputs.parameters.d}}|{{workflow.parameters.s}}' = 'blue|red|3' ]",
               inputs={"parameters": [{"name": "c", "valueFrom": ref},
                                      {"name": "d", "valueFrom": {"configMapKeyRef": {"name": "settings", "key": "no"},
                                                                  "default": "red"}}]})
    arguments = {"parameters": [{"name": "s", "valueFrom": {"configMapKeyRef": {"name": "settings", "key": "size"}}}]}
    out = engine.run(_wf("cm", "show", [show], arguments=arguments))
    assert out["status"]["phase"] == "Succeeded", out["status"]["nodes"]
    assert out["status"]["nodes"]["cm"]["inputs"]["parameters"][:2] == [{"name": "c", "value": "blue"},
                                                                       {"name": "d", "value": "red"}]


def test_a_missing_config_map_key_fails_naming_the_parameter(engine: EngineRun) -> None:
    _config_map(engine, "settings", color="blue")
    missing = {"configMapKeyRef": {"name": "settings", "key": "nope"}}
    show = _sh("show", "true", inputs={"parameters": [{"name": "c", "valueFrom": missing}]})
    out = engine.run(_wf("cmx", "show", [show]))
    assert out["status"]["phase"] == "Error"
    assert "inputs.parameters.c" in out["status"]["message"] and "'nope'" in out["status"]["message"]
    # a workflow argument: as Argo's setGlobalParameters, the run fails before any node, naming the parameter
    out = engine.run(_wf("cmy", "show", [_sh("show", "true")],
                         arguments={"parameters": [{"name": "p", "valueFrom": missing}]}))
    assert out["status"]["phase"] == "Failed" and not out["status"].get("nodes")
    assert out["status"]["message"].startswith("failed to set global parameters: ")
    assert "spec.arguments.parameters[0]" in out["status"]["message"] and "'nope'" in out["status"]["message"]


def test_the_display_name_annotation_renames_each_invocations_node(engine: EngineRun) -> None:
    show = {**_sh("show", "echo {{inputs.parameters.tag}}"), "inputs": {"parameters": [{"name": "tag"}]},
            "annotations": {"workflows.argoproj.io/display-name": "show-{{inputs.parameters.tag}}"}}
    main = {"name": "main", "steps": [[{"name": "each", "template": "show", "withItems": ["a", "b"],
                                        "arguments": {"parameters": [{"name": "tag", "value": "{{item}}"}]}}]]}
    out = engine.run(_wf("renamed", "main", [main, show]))
    assert out["status"]["phase"] == "Succeeded"
    phases = _phases(out)
    assert phases["show-a"] == phases["show-b"] == ["Succeeded"] and "each(0:a)" not in phases


def test_a_display_name_that_is_not_one_printable_line_errors_its_node(engine: EngineRun) -> None:
    main = {**_sh("main", "true"), "annotations": {"workflows.argoproj.io/display-name": "two\nlines"}}
    out = engine.run(_wf("badname", "main", [main]))
    assert out["status"]["phase"] == "Error"
    assert "display name must be one line of printable characters" in out["status"]["message"]


def test_a_non_root_node_cannot_make_top_level_folders(engine: EngineRun) -> None:
    """As in an image, ``/`` is root's: under runAsUser only the node's own folders are writable."""
    main = _sh("main", "if mkdir /mine; then exit 1; fi; mkdir /tmp/mine")
    out = engine.run(_wf("nonroot", "main", [main], securityContext={"runAsNonRoot": True, "runAsUser": 8737}))
    assert out["status"]["phase"] == "Succeeded", out["status"].get("message")


def test_the_runs_hooks_read_workflow_failures(engine: EngineRun) -> None:
    notify = {**_sh("notify", "echo '{{inputs.parameters.m}}'"), "inputs": {"parameters": [{"name": "m"}]}}
    hooks = {"failure": {"expression": 'workflow.status == "Failed"', "template": "notify",
                         "arguments": {"parameters": [{"name": "m", "value": "{{workflow.failures}}"}]}}}
    out = engine.run(_wf("failhook", "main", [_sh("main", "exit 1"), notify], hooks=hooks))
    [hook] = nodes_by_display(out)["failhook.hooks.failure"]
    assert hook["phase"] == "Succeeded" and '\\"displayName\\":\\"failhook\\"' in hook["outputs"]["result"]


def test_a_templateref_named_by_tags_resolves_when_each_step_runs(engine: EngineRun) -> None:
    library = {"kind": "WorkflowTemplate", "metadata": {"name": "lib"}, "spec": {"templates": [_sh("greet", "true")]}}
    step = {"name": "call", "templateRef": {"name": "{{item.wft}}", "template": "{{item.tmpl}}"},
            "withItems": [{"wft": "lib", "tmpl": "greet"}, {"wft": "lib", "tmpl": "absent"}]}
    out = engine.run(_wf("dynref", "main", [{"name": "main", "steps": [[step]]}]), [library])
    phases = _phases(out)
    assert phases["call(0:tmpl:greet,wft:lib)"] == ["Succeeded"]
    assert phases["call(1:tmpl:absent,wft:lib)"] == ["Error"] and out["status"]["phase"] == "Failed"


def test_a_tag_inside_an_unknown_tag_is_substituted_and_the_rest_kept() -> None:
    """Argo's simpleReplace: an unknown tag that holds a known one (a Vault template, say) has the known one
    substituted and stays otherwise as written."""
    scope = Scope({"inputs.parameters.path": "kv/db"})
    text = '{{- with secret "{{inputs.parameters.path}}" -}}{{ .Data.user }}{{- end }}'
    assert render(text, scope) == '{{- with secret "kv/db" -}}{{ .Data.user }}{{- end }}'
    assert render("{{- with {{nosuch.x}} -}}", scope) == "{{- with {{nosuch.x}} -}}"


def test_an_exit_hook_whose_expression_does_not_parse_errors_the_group_and_the_run(engine: EngineRun) -> None:
    """Argo's executeStepGroup returns runOnExitNode's error: no hook node, the group and the run end Error."""
    step = {"name": "work", "template": "leaf", "hooks": {"exit": {"expression": "steps.work.status !",
                                                                  "template": "leaf"}}}
    out = engine.run(_wf("badhook", "main", [{"name": "main", "steps": [[step]]}, _sh("leaf", "true")]))
    assert out["status"]["phase"] == "Error" and "unexpected token" in out["status"]["message"]
    phases = _phases(out)
    assert phases["[0]"] == ["Error"] and phases["work"] == ["Succeeded"] and "work.onExit" not in phases


def test_an_artifact_tag_in_a_pods_text_stays_as_written(engine: EngineRun) -> None:
    """An artifact is no string: Argo's pod substitution, which allows unresolved tags, leaves it."""
    publish = {**_sh("main", "echo data > /tmp/r"), "outputs": {"artifacts": [
        {"name": "r", "path": "/tmp/r", "globalName": "res", "archive": {"none": {}}}]}}
    out = engine.run(_wf("arttag", "main", [publish, _sh("bye", "echo '{{workflow.outputs.artifacts.res}}'")],
                         onExit="bye"))
    assert out["status"]["phase"] == "Succeeded", out["status"].get("message")
    [bye] = nodes_by_display(out)["arttag.onExit"]
    assert bye["outputs"]["result"] == "{{workflow.outputs.artifacts.res}}"


def test_inputs_parameters_of_a_template_without_any_is_null(engine: EngineRun) -> None:
    """Go marshals the nil list as ``null``; Hera's runner templates pass ``{{inputs.parameters}}`` regardless."""
    out = engine.run(_wf("noparams", "main", [_sh("main", 'echo "{{inputs.parameters}}"')]))
    assert out["status"]["phase"] == "Succeeded", out["status"].get("message")
    [main] = nodes_by_display(out)["noparams"]
    assert main["outputs"]["result"] == "null"


def test_a_workflow_hook_whose_template_is_missing_errors_the_run(engine: EngineRun) -> None:
    """Argo's operate marks the entry node Error with executeWfLifeCycleHook's error; the hook node is Error."""
    hooks = {"running": {"expression": 'workflow.status == "Running"', "template": "nowhere"}}
    out = engine.run(_wf("losthook", "main", [_sh("main", "sleep 0.5")], hooks=hooks))
    assert out["status"]["phase"] == "Error" and "nowhere" in out["status"]["message"]
    assert _phases(out)["losthook.hooks.running"] == ["Error"]


def test_the_sh_of_alpine_and_busybox_takes_what_busybox_ash_takes(engine: EngineRun) -> None:
    """``[[ … ]]``, substrings, ``source`` and an ``echo`` that leaves backslashes alone, as busybox's ash does
    (Debian's dash refuses the first three and expands the last), under ``sh``, ``/bin/sh`` and a script."""
    check = ('x=abcdef; [[ "${x:1:2}" == bc ]] && echo ". /dev/null" > /tmp/s && source /tmp/s '
             '&& test "$(echo "a\\nb")" = "a\\nb"')
    script = {"name": "script", "script": {"image": "busybox:1.36", "command": ["sh"], "source": check}}
    absolute = {"name": "absolute", "container": {"image": "alpine:3.19", "command": ["/bin/sh", "-c", check]}}
    main = {"name": "main", "steps": [[{"name": n, "template": n} for n in ("plain", "absolute", "script")]]}
    out = engine.run(_wf("ash", "main", [main, _sh("plain", check), absolute, script]))
    assert out["status"]["phase"] == "Succeeded", _phases(out)


def test_a_container_with_tty_has_a_terminal_on_stdin_and_one_without_has_none(engine: EngineRun) -> None:
    """``tty: true`` gives the container a terminal on stdin (TestTTY); without it, stdin is empty."""
    with_tty = {"name": "with-tty", "script": {"image": "alpine:3.20", "command": ["sh"], "tty": True, "stdin": True,
                                               "source": "[ -t 0 ] && echo terminal"}}
    without = _sh("without-tty", "[ ! -t 0 ] && [ -z \"$(cat)\" ]")
    main = {"name": "main", "steps": [[{"name": "with-tty", "template": "with-tty"},
                                       {"name": "without-tty", "template": "without-tty"}]]}
    out = engine.run(_wf("tty", "main", [main, with_tty, without]))
    assert out["status"]["phase"] == "Succeeded", _phases(out)
    assert nodes_by_display(out)["with-tty"][0]["outputs"]["result"] == "terminal"


def test_steps_outputs_resolve_as_argos_resolve_var(engine: EngineRun) -> None:
    """valueFrom.parameter of a steps template: a bare `inputs.parameters.x` is looked up whole; a braced input
    was substituted first, so its value is looked up and not found; a `value` without valueFrom errs; an
    expression that does not compile takes its default."""
    say = _sh("say", "echo hi")
    check = _sh("check", "test '{{inputs.parameters.a}} {{inputs.parameters.b}}' = 'rc3 fallback'",
                inputs={"parameters": [{"name": "a"}, {"name": "b"}]})

    def inner(outputs: list[dict[str, Any]]) -> dict[str, Any]:
        return {"name": "inner", "inputs": {"parameters": [{"name": "release"}]},
                "steps": [[{"name": "s", "template": "say"}]], "outputs": {"parameters": outputs}}

    def run(outputs: list[dict[str, Any]]) -> dict[str, Any]:
        main = {"name": "main", "steps": [
            [{"name": "in", "template": "inner",
              "arguments": {"parameters": [{"name": "release", "value": "rc3"}]}}],
            [{"name": "c", "template": "check", "arguments": {"parameters": [
                {"name": "a", "value": "{{steps.in.outputs.parameters.a}}"},
                {"name": "b", "value": "{{steps.in.outputs.parameters.b}}"}]}}]]}
        return engine.run(_wf("outs", "main", [main, inner(outputs), say, check]))

    good = run([{"name": "a", "valueFrom": {"parameter": "inputs.parameters.release"}},
                {"name": "b", "valueFrom": {"expression": "{{steps.s.outputs.result}}", "default": "fallback"}}])
    assert good["status"]["phase"] == "Succeeded", _phases(good)
    braced = run([{"name": "a", "valueFrom": {"parameter": "{{inputs.parameters.release}}"}},
                  {"name": "b", "valueFrom": {"parameter": "{{steps.s.outputs.result}}"}}])
    assert _phases(braced)["in"] == ["Error"] and 'Unable to resolve: "rc3"' in _message(braced, "in")
    literal = run([{"name": "a", "value": "rc3"}, {"name": "b", "value": "fallback"}])
    assert _phases(literal)["in"] == ["Error"]
    assert "output parameters must have a valueFrom specified" in _message(literal, "in")


def _message(wf: dict[str, Any], display: str) -> str:
    return next(str(n.get("message")) for n in wf["status"]["nodes"].values() if n["displayName"] == display)


def test_a_templates_input_enum_is_not_checked_when_it_runs(engine: EngineRun) -> None:
    """Argo checks enums on arguments at submit; a template input's enum only shapes the UI's form."""
    show = _sh("show", "test '{{inputs.parameters.size}}' = huge",
               inputs={"parameters": [{"name": "size", "enum": ["small", "large"]}]})
    main = {"name": "main", "steps": [[{"name": "s", "template": "show", "arguments": {
        "parameters": [{"name": "size", "value": "{{workflow.parameters.size}}"}]}}]]}
    out = engine.run(_wf("enums", "main", [main, show], arguments={"parameters": [{"name": "size", "value": "huge"}]}))
    assert out["status"]["phase"] == "Succeeded", _phases(out)


def test_a_steps_hook_does_not_see_workflow_status(engine: EngineRun) -> None:
    """Argo judges a step's hooks before it sets workflow.status (argo-workflows#11269): such a hook never fires."""
    ok = _sh("ok", "sleep 1")
    hooks = {"wf": {"expression": 'workflow.status == "Running"', "template": "ok"},
             "own": {"expression": 'steps.s.status == "Succeeded"', "template": "ok"}}
    main = {"name": "main", "steps": [[{"name": "s", "template": "ok", "hooks": hooks}]]}
    out = engine.run(_wf("hookst", "main", [main, ok]))
    names = {n["displayName"] for n in out["status"]["nodes"].values()}
    assert "s.hooks.own" in names and "s.hooks.wf" not in names, names


def test_workflow_status_is_unresolved_in_the_body_and_set_for_the_exit_handler(engine: EngineRun) -> None:
    """Argo's operate() sets workflow.status only after the entry template has run: a body step reads the tag as
    written, the exit handler reads the body's phase."""
    body = _sh("body", "case '{{workflow.status}}' in *workflow.status*) exit 0;; *) exit 1;; esac")
    cleanup = _sh("cleanup", "test '{{workflow.status}}' = Succeeded")
    main = {"name": "main", "steps": [[{"name": "peek", "template": "body"}]]}
    out = engine.run(_wf("wfstatus", "main", [main, body, cleanup], onExit="cleanup"))
    assert out["status"]["phase"] == "Succeeded", _phases(out)
    assert _phases(out)["wfstatus.onExit"] == ["Succeeded"]


def test_a_steps_when_that_cannot_be_evaluated_errs_its_group_before_any_step(engine: EngineRun) -> None:
    """Argo's resolveReferences judges every unlooped step's `when` of a group first: one it cannot evaluate errs
    the group, and no step of the group gets a node; a loop item's bad `when` gets a Skipped-type Error node."""
    ok = _sh("ok", "true")
    main = {"name": "main", "steps": [
        [{"name": "fine", "template": "ok", "when": "a == a"}, {"name": "bad", "template": "ok", "when": "5e0a == b"}],
        [{"name": "after", "template": "ok"}]]}
    out = engine.run(_wf("whenerr", "main", [main, ok]))
    phases = _phases(out)
    assert out["status"]["phase"] == "Failed" and "fine" not in phases and "bad" not in phases, phases
    assert "Failed to resolve references: Invalid 'when' expression '5e0a == b'" in out["status"]["message"]
    looped = {"name": "main", "steps": [[{"name": "each", "template": "ok", "when": "{{item}} != skip",
                                          "withItems": ["a", "rc-2"]}]]}
    out = engine.run(_wf("whenloop", "main", [looped, ok]))
    phases = _phases(out)
    assert phases["each(0:a)"] == ["Succeeded"] and phases["each(1:rc-2)"] == ["Error"], phases


def test_workflow_failures_reach_a_template_quoted_once_more(engine: EngineRun) -> None:
    """Argo's operate() hands templates strconv.Quote of the failures' JSON, so a template decodes it twice."""
    check = {"name": "check", "container": {"image": "python:3.11", "command": ["python3", "-c",
             "import json, sys; f = json.loads(json.loads(sys.argv[1])); "
             "assert sys.argv[1].startswith('\"[{') and f[-1]['templateName'] == 'breaks', sys.argv[1]",
             "{{workflow.failures}}"]}}
    out = engine.run(_wf("failq", "breaks", [_sh("breaks", "exit 3"), check], onExit="check"))
    assert _phases(out)["failq.onExit"] == ["Succeeded"], _phases(out)


def test_a_sequence_with_neither_end_nor_count_errs_its_step(engine: EngineRun) -> None:
    """Argo's expandSequence refuses a start alone ("neither end nor count was specified in withSequence")."""
    main = {"name": "main", "steps": [[{"name": "tally", "template": "ok", "withSequence": {"start": "3"}}]]}
    out = engine.run(_wf("seqstart", "main", [main, _sh("ok", "true")]))
    assert out["status"]["phase"] == "Failed", _phases(out)
    assert "neither end nor count was specified in withSequence" in out["status"]["message"]
    assert not [name for name in _phases(out) if name.startswith("tally(")]
