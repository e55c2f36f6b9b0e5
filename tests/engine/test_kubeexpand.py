"""The kubelet's $(VAR_NAME) expansion in a container's command, args and env values."""

from __future__ import annotations

import pytest

from aipipe.engine.kubeexpand import expand
from tests.engine.conftest import EngineRun, nodes_by_display

DEFINED = {"A": "x", "B": "y z"}


@pytest.mark.parametrize(("text", "want"), [
    ("$(A)", "x"), ("a$(A)b$(B)", "axby z"), ("$$(A)", "$(A)"), ("$(C)", "$(C)"), ("$(A", "$(A"), ("$x", "$x"),
    ("end$", "end$"), ("$$", "$"), ("$($(A))", "$($(A))"), ("${A}", "${A}"),
])
def test_expand_as_the_kubelet(text: str, want: str) -> None:
    assert expand(text, DEFINED) == want


def test_command_args_and_env_name_the_pod_specs_variables(engine: EngineRun) -> None:
    """An env value names those declared before it; command and args name every declared one (not the image's, not
    PATH); a script's /bin/sh in alpine is its ash, as for a container's command."""
    templates = [
        {"name": "main", "steps": [[{"name": "vars", "template": "vars"}, {"name": "ash", "template": "ash"}]]},
        {"name": "vars", "container": {
            "image": "alpine",
            "command": ["sh", "-c", "echo '$(GREETING) $(WHO) $$(WHO) $(PATH) $(NOPE)' \"$GREETING\""],
            "env": [{"name": "WHO", "value": "world"}, {"name": "GREETING", "value": "hello-$(WHO)"},
                    {"name": "LATER", "value": "$(AFTER)"}, {"name": "AFTER", "value": "after"}]}},
        {"name": "ash", "script": {"image": "alpine", "command": ["/bin/sh", "-c"],
                                    "source": "X=abcdefghij\necho ${X:0:7}\n"}}]
    out = engine.run({"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"name": "kx"},
                      "spec": {"entrypoint": "main", "templates": templates}})
    assert out["status"]["phase"] == "Succeeded", engine.log_text()
    nodes = nodes_by_display(out)
    assert nodes["vars"][0]["outputs"]["result"] == "hello-world world $(WHO) $(PATH) $(NOPE) hello-world"
    assert nodes["ash"][0]["outputs"]["result"] == "abcdefg"
