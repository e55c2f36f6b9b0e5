"""The engine knows nothing of aipipe: no module of its core imports aipipe's config, CLI, server, steps or
pipelines (checked on the source, every import statement, nested and relative ones too)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import aipipe.engine

ENGINE = Path(aipipe.engine.__file__).parent
FORBIDDEN = ("aipipe.config", "aipipe.cli", "aipipe.server", "steps", "pipelines")
# the platform side that lives in the package, and what the core must not import because it is that side
PLATFORM = {
    "context.py": "aipipe's entry point: builds EngineSettings and the ExecutionContext from aipipe's Config",
    "service.py": "the CLI's and the server's run service: holds aipipe's Config and calls the entry point",
}
PLATFORM_MODULES = ("aipipe.engine.context", "aipipe.engine.service")


def _package(path: Path) -> list[str]:
    return ["aipipe", *path.relative_to(ENGINE.parent).parent.parts]


def _imports(path: Path, package: list[str]) -> list[str]:
    """Every module ``path`` imports (relative imports resolved against ``package``)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[:len(package) - node.level + 1]) if node.level else ""
            module = ".".join(p for p in (base, node.module or "") if p)
            out += [module] + [f"{module}.{alias.name}" for alias in node.names]
    return out


def _matches(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def test_engine_core_imports_nothing_of_aipipe() -> None:
    files = sorted(ENGINE.rglob("*.py"))
    assert len(files) > 30
    core = [p for p in files if p.name not in PLATFORM or p.parent != ENGINE]
    bad = [f"{path.relative_to(ENGINE)}: {module}" for path in core for module in _imports(path, _package(path))
           if _matches(module, FORBIDDEN + PLATFORM_MODULES)]
    assert bad == []


def test_the_walk_sees_what_it_must_refuse(tmp_path: Path) -> None:
    """The checker itself: it finds plain, nested and relative imports of the forbidden modules."""
    sample = tmp_path / "sample.py"
    sample.write_text("import aipipe.config as c\n\n\ndef f():\n    from ...cli import main\n"
                      "    from steps.train import x\n")
    found = [m for m in _imports(sample, ["aipipe", "engine", "grammar"]) if _matches(m, FORBIDDEN)]
    assert found == ["aipipe.config", "aipipe.cli", "aipipe.cli.main", "steps.train", "steps.train.x"]
    assert not _matches("aipipe.configmaps", FORBIDDEN) and not _matches("stepsx", FORBIDDEN)
    assert _package(ENGINE / "grammar" / "parse.py") == ["aipipe", "engine", "grammar"]
    assert "aipipe.config" in _imports(ENGINE / "context.py", _package(ENGINE / "context.py"))


def test_node_environment_and_images_are_what_the_entry_point_hands_in(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """An engine run from settings built by hand (no aipipe Config): only the named host variables and the
    fixed ones reach a node, and an image runs the entrypoint its table gives."""
    from aipipe.engine.execution import ExecutionContext
    from aipipe.engine.executor import WorkflowExecutor
    from aipipe.engine.images import ImageMap
    from aipipe.engine.secrets import SecretStore
    from aipipe.engine.settings import EngineSettings, NodeEnvironment
    from aipipe.storage import Storage

    monkeypatch.setenv("PASSED_ON", "from-host")
    monkeypatch.setenv("AIPIPE_STEPS_IMAGE", "not-for-nodes:1")  # an aipipe variable the settings don't name
    images = ImageMap([{"tools/printer": {"entrypoint": ["sh", "-c"], "env": {"WHERE": "{place}"}}}],
                      {"place": "table"}, source="the test's table")
    settings = EngineSettings(state_dir=tmp_path / "state", namespace="elsewhere", images=images,
                              node_env=NodeEnvironment(passthrough=("PASSED_ON", "AIPIPE_UNSET_X"),
                                                       fixed={"FIXED": "given"}))
    ctx = ExecutionContext(work_dir=tmp_path / "run", storage=Storage(),
                           artifact_root=(tmp_path / "artifacts").as_uri(), templates=lambda kind, name: None,
                           secrets=SecretStore(root=tmp_path / "secrets", env={}), settings=settings)
    script = 'echo "$PASSED_ON|${AIPIPE_STEPS_IMAGE:-unset}|$FIXED|$WHERE"'
    wf = {"metadata": {"name": "handed-in"},
          "spec": {"entrypoint": "main", "templates": [
              {"name": "main", "container": {"image": "tools/printer:v3", "args": [script]}}]}}
    out = WorkflowExecutor(wf, ctx).run()
    node = out["status"]["nodes"]["handed-in"]
    assert (out["status"]["phase"], node["phase"]) == ("Succeeded", "Succeeded"), node.get("message")
    assert node["outputs"]["result"] == "from-host|unset|given|table"
    assert out["metadata"]["namespace"] == "elsewhere"


def test_the_platform_hands_the_secret_store_its_config_fallback(tmp_path: Path) -> None:
    """The pipelines' Secret: a file wins, then the environment, then aipipe's secret config keys (the entry point's
    fallback); other Secrets and non-secret keys never fall back."""
    from aipipe.config import load_config
    from aipipe.engine.context import secret_store

    cfg = load_config(cli={"home": str(tmp_path), "label_studio.api_key": "from-config",
                           "kubernetes.secret_name": "aipipe-secrets"}, env={})
    store = secret_store(cfg)
    store.env = {}
    assert store.get("aipipe-secrets", "label_studio.api_key") == "from-config"
    assert store.get("aipipe-secrets", "label_studio.url", optional=True) is None  # not a secret key
    assert store.get("other", "label_studio.api_key", optional=True) is None
    (tmp_path / "secrets" / "aipipe-secrets").mkdir(parents=True)
    (tmp_path / "secrets" / "aipipe-secrets" / "label_studio.api_key").write_text("from-file\n")
    assert store.get("aipipe-secrets", "label_studio.api_key") == "from-file"


def test_a_command_naming_the_images_own_program_runs_its_local_stand_in() -> None:
    """``command: [/argosay]`` with argosay:v2 (as Argo's quick-start and e2e tests write it) runs the shim; other
    commands and other images are left as written."""
    from aipipe.engine.images import SHIMS, ImageMap

    images = ImageMap()
    argosay = images.resolve("argoproj/argosay:v2")
    assert argosay.argv(["/argosay"], ["echo", "hi"]) == [f"{SHIMS}/argosay", "echo", "hi"]
    assert argosay.argv(["sh", "-c"], ["/argosay"]) == ["sh", "-c", "/argosay"]
    assert images.resolve("alpine:3").argv(["/argosay"], []) == ["/argosay"]
