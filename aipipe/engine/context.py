"""aipipe's entry into the engine: the engine's settings and execution context, built from aipipe's Config.

This module is the platform side: it alone (with the run service) knows aipipe's configuration table and
this repository's layout; the engine core receives them as :class:`~aipipe.engine.settings.EngineSettings`.
The run store, CLI and server call :func:`default_context`; so do tests.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from aipipe.config import KEYS, KEYS_BY_NAME, Config, load_config
from aipipe.engine.execution import ExecutionContext, TemplateLookup, dict_templates, no_templates
from aipipe.engine.gpupolicy import BINPACK, SPREAD
from aipipe.engine.images import ImageMap
from aipipe.engine.secrets import SecretStore
from aipipe.engine.settings import HOST_LOCALE_ENV, EngineSettings, NodeEnvironment, NodeFolders
from aipipe.errors import UserError
from aipipe.storage import Storage, parse_uri

__all__ = ["ExecutionContext", "TemplateLookup", "default_artifact_root", "default_context", "dict_templates",
           "engine_settings", "no_templates"]

REPO_ROOT = Path(__file__).resolve().parents[2]  # the steps image runs from this checkout


def default_artifact_root(cfg: Config) -> Path:
    """The embedded engine's default artifact repository: ``<home>/artifacts``."""
    return cfg.home / "artifacts"


AGING_KEY, PLACEMENT_KEY = "engine.gpu_aging_s", "engine.gpu_placement"
AGING_ENV, PLACEMENT_ENV = "AIPIPE_GPU_AGING_S", "AIPIPE_GPU_PLACEMENT"


def pool_policy(env: Mapping[str, str] | None = None) -> tuple[float, str]:
    """(aging seconds per priority level, placement): config keys ``engine.gpu_aging_s`` and
    ``engine.gpu_placement``, overridden by ``AIPIPE_GPU_AGING_S`` / ``AIPIPE_GPU_PLACEMENT``; a bad value is
    refused naming where it came from."""
    env = os.environ if env is None else env
    cfg = load_config(env=env)

    def field(key: str, variable: str) -> str:
        return variable if env.get(variable) else key

    raw = str(cfg.get(AGING_KEY))
    try:
        aging = float(raw)
    except ValueError:
        aging = -1.0
    if aging < 0:
        raise UserError(f"must be a number of seconds >= 0 (0: no aging), got {raw!r}",
                        field=field(AGING_KEY, AGING_ENV))
    placement = str(cfg.get(PLACEMENT_KEY))
    if placement not in (BINPACK, SPREAD):
        raise UserError(f"must be {BINPACK} or {SPREAD}, got {placement!r}", field=field(PLACEMENT_KEY, PLACEMENT_ENV))
    return aging, placement


def engine_settings(cfg: Config) -> EngineSettings:
    """The engine's settings from aipipe's configuration: its state in ``AIPIPE_HOME``, every non-secret
    config variable passed to nodes, the steps image run from this repository with its interpreter."""
    steps_image = str(cfg.get("kubernetes.steps_image"))
    steps_entry = {"path": ["{python_bin}"], "env": {"PYTHONPATH": "{repo}"}}
    images = ImageMap([dict(cfg.get("engine.image_map") or {}),
                       {steps_image: steps_entry, steps_image.rsplit(":", 1)[0]: steps_entry}],
                      {"repo": str(REPO_ROOT)}, source="engine.image_map")
    return EngineSettings(
        state_dir=cfg.home,
        namespace=str(cfg.get("argo.namespace")),
        max_nodes=int(cfg.get("engine.max_nodes")),
        gpu_fallback=str(cfg.get("engine.gpu_fallback")),
        gpu_resource=str(cfg.get("kubernetes.gpu_resource")),
        gpu_policy=pool_policy(),
        images=images,
        node_env=NodeEnvironment(passthrough=(*(k.env for k in KEYS if not k.secret), *HOST_LOCALE_ENV),
                                 fixed={"AIPIPE_HOME": str(cfg.home)}),
        folders=NodeFolders(shared=_shared_paths(cfg), read_only=(str(REPO_ROOT),), hidden=(str(cfg.home),)),
    )


def _shared_paths(cfg: Config) -> tuple[str, ...]:
    """Host paths a node may write besides its own folders: the file storage root and, from ``AIPIPE_HOME``
    (hidden from nodes), what the steps need: the dataset cache, the local deployments and MLflow's sqlite
    file (its folder when it lives outside the home). Created here, so a node finds them."""
    home = cfg.home
    paths = {str(home / "cache"), str(home / "deployments")}
    loc = parse_uri(cfg.storage_root)
    if loc.scheme == "file":
        paths.add(loc.key)
    for path in list(paths):
        Path(path).mkdir(parents=True, exist_ok=True)
    tracking = str(cfg.mlflow_tracking_uri)
    if tracking.startswith("sqlite:///"):
        db = Path(tracking.removeprefix("sqlite:///").split("?", 1)[0])
        if db.is_absolute():
            db.parent.mkdir(parents=True, exist_ok=True)
            if db.is_relative_to(home):
                db.touch(exist_ok=True)  # an empty file is an empty sqlite database
                paths.add(str(db))
            else:
                paths.add(str(db.parent))
    return tuple(sorted(paths))


def _ignore_change(workflow: dict[str, Any]) -> None:
    return None


def _ignore_log(node_id: str, text: str) -> None:
    return None


def secret_store(cfg: Config) -> SecretStore:
    """The local Secrets under ``<home>/secrets``; the pipelines' Secret falls back to aipipe's secret config keys."""
    def configured(key: str) -> str | None:
        known = KEYS_BY_NAME.get(key)
        value = cfg.get(key) if known is not None and known.secret else None
        return str(value) if value else None

    return SecretStore(root=cfg.home / "secrets", env_secret_name=str(cfg.get("kubernetes.secret_name")),
                       fallback=configured)


def default_context(
    cfg: Config,
    run_dir: Path,
    templates: TemplateLookup = no_templates,
    on_change: Callable[[dict[str, Any]], None] = _ignore_change,
    on_log: Callable[[str, str], None] = _ignore_log,
    artifact_root: str | None = None,
    **extra: Any,
) -> ExecutionContext:
    """Sensible defaults: scratch in ``run_dir``, artifacts under ``<home>/artifacts`` (or ``artifact_root``,
    e.g. ``s3://bucket/artifacts``), secrets from the home."""
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    return ExecutionContext(
        work_dir=run_dir,
        storage=Storage.from_config(cfg),
        artifact_root=artifact_root or default_artifact_root(cfg).as_uri(),
        templates=templates,
        secrets=secret_store(cfg),
        settings=engine_settings(cfg),
        on_change=on_change,
        on_log=on_log,
        **extra,
    )


