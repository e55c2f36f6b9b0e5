"""One configuration for every command, step and the engine.

Precedence: CLI flag > environment variable > config file (``aipipe.yaml`` in the working
directory, or the file named by ``AIPIPE_CONFIG``) > defaults. The config is read once at an
entry point and passed down as a frozen :class:`Config`.

Secrets (tokens, keys) are read only from the environment (which Kubernetes fills from
Secrets); a config file that names one is refused, so they never land in a repo or manifest.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from aipipe.errors import UserError

DEFAULT_STEPS_IMAGE = "ghcr.io/aipipe/steps:0.1.0"


@dataclass(frozen=True)
class Key:
    """One configuration key: dotted name, environment variable, default, whether it is secret."""

    name: str
    env: str
    default: Any
    secret: bool = False
    help: str = ""


KEYS: tuple[Key, ...] = (
    Key("home", "AIPIPE_HOME", "~/.aipipe", help="engine state, local store, secrets, deployments"),
    Key("storage.root", "AIPIPE_STORAGE_ROOT", "", help="s3://bucket/prefix or file:///abs/path; "
        "default file://<home>/store"),
    Key("storage.s3_endpoint", "AIPIPE_S3_ENDPOINT", "", help="S3 endpoint URL, e.g. http://127.0.0.1:9000"),
    Key("storage.s3_region", "AIPIPE_S3_REGION", "us-east-1"),
    Key("storage.s3_access_key", "AWS_ACCESS_KEY_ID", "", secret=True),
    Key("storage.s3_secret_key", "AWS_SECRET_ACCESS_KEY", "", secret=True),
    Key("label_studio.url", "LABEL_STUDIO_URL", "http://127.0.0.1:8080"),
    Key("label_studio.wait_seconds", "LABEL_STUDIO_WAIT_SECONDS", "30",
        help="longest total wait for an unreachable Label Studio before the export fails"),
    Key("label_studio.api_key", "LABEL_STUDIO_API_KEY", "", secret=True,
        help="legacy token or personal access token"),
    Key("mlflow.tracking_uri", "MLFLOW_TRACKING_URI", "", help="default sqlite:///<home>/mlflow.db"),
    Key("mlflow.model_name", "AIPIPE_MODEL_NAME", "aipipe-classifier"),
    Key("argo.server", "ARGO_SERVER", "http://127.0.0.1:2746"),
    Key("argo.namespace", "ARGO_NAMESPACE", "argo"),
    Key("argo.token", "ARGO_TOKEN", "", secret=True),
    Key("argo.verify_ssl", "ARGO_VERIFY_SSL", True),
    Key("kubernetes.steps_image", "AIPIPE_STEPS_IMAGE", DEFAULT_STEPS_IMAGE),
    Key("kubernetes.secret_name", "AIPIPE_SECRET_NAME", "aipipe-secrets",
        help="Kubernetes Secret (or local secret store entry) holding the tokens"),
    Key("kubernetes.service_account", "AIPIPE_SERVICE_ACCOUNT", "aipipe-steps"),
    Key("kubernetes.gpu_resource", "AIPIPE_GPU_RESOURCE", "nvidia.com/gpu"),
    Key("kubernetes.gpu_node_selector", "AIPIPE_GPU_NODE_SELECTOR", {"nvidia.com/gpu.present": "true"}),
    Key("kubernetes.gpu_tolerations", "AIPIPE_GPU_TOLERATIONS",
        [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]),
    Key("engine.gpu_fallback", "AIPIPE_GPU_FALLBACK", "cpu", help="cpu | fail when no GPU exists"),
    Key("engine.gpu_aging_s", "AIPIPE_GPU_AGING_S", "300",
        help="seconds a node waits in the GPU queue per priority level it gains (0: no aging)"),
    Key("engine.gpu_placement", "AIPIPE_GPU_PLACEMENT", "binpack",
        help="binpack | spread: GPU shares packed onto the fullest GPU that fits, or the emptiest"),
    Key("engine.image_map", "AIPIPE_IMAGE_MAP", {}, help="image -> local entrypoint/environment"),
    Key("engine.max_nodes", "AIPIPE_MAX_NODES", 10000, help="most nodes one run may create; more fails the run"),
    Key("engine.max_log_bytes", "AIPIPE_MAX_LOG_BYTES", 10 * 1024 * 1024,
        help="bytes of log kept per node (the tail; the cut is said in the log; 0 keeps all)"),
    Key("engine.log_retention_days", "AIPIPE_LOG_RETENTION_DAYS", 30,
        help="finished runs' node logs older than this are deleted (0 keeps them)"),
    Key("triggers.timezone", "AIPIPE_CRON_TIMEZONE", "UTC", help="IANA time zone of the nightly schedule"),
    Key("triggers.skip_within_hours", "AIPIPE_CRON_SKIP_WITHIN_HOURS", 0,
        help="the nightly run is skipped when the last one ran less than this many hours ago (0: never)"),
    Key("triggers.min_new_annotations", "AIPIPE_MIN_NEW_ANNOTATIONS", 20,
        help="new annotations of a Label Studio project that start a retrain"),
    Key("triggers.data_prefix", "AIPIPE_TRIGGER_DATA_PREFIX", "incoming/",
        help="prefix under the storage root where a new object (a data drop) starts a retrain"),
    Key("triggers.event_url", "AIPIPE_EVENT_URL", "",
        help="URL Label Studio posts webhooks to (default: <argo.server>/api/v1/events/<namespace>/label-studio)"),
    Key("deploy.provider", "AIPIPE_DEPLOY_PROVIDER", "hami",
        help="hami | mig | time-slicing | kai | orionx | gpushare"),
)
KEYS_BY_NAME = {k.name: k for k in KEYS}


def _coerce(key: Key, raw: Any) -> Any:
    """Convert an environment/CLI string to the type of the key's default."""
    if not isinstance(raw, str):
        return raw
    default = key.default
    if isinstance(default, bool):
        low = raw.strip().lower()
        if low in {"1", "true", "yes", "on"}:
            return True
        if low in {"0", "false", "no", "off"}:
            return False
        raise UserError(f"expected true/false, got {raw!r}", field=key.name)
    if isinstance(default, int):
        try:
            number = int(raw.strip())
        except ValueError as exc:
            raise UserError(f"expected a whole number, got {raw!r}", field=key.name) from exc
        if number < 0:
            raise UserError(f"must not be negative, got {number}", field=key.name)
        return number
    if isinstance(default, (dict, list)):
        try:
            value = yaml.safe_load(raw) if raw.strip() else type(default)()
        except yaml.YAMLError as exc:
            raise UserError(f"not valid YAML/JSON: {exc}", field=key.name) from exc
        if not isinstance(value, type(default)):
            raise UserError(f"expected a {type(default).__name__}", field=key.name)
        return value
    return raw


def _flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in data.items():
        name = f"{prefix}{k}"
        if isinstance(v, Mapping) and name not in KEYS_BY_NAME:
            out.update(_flatten(v, f"{name}."))
        else:
            out[name] = v
    return out


def read_config_file(path: Path) -> dict[str, Any]:
    """Read a config file into flat dotted keys; unknown keys and secrets are refused."""
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except OSError as exc:
        raise UserError(f"cannot read config file: {exc.strerror}", field=str(path)) from exc
    except yaml.YAMLError as exc:
        raise UserError(f"config file is not valid YAML: {exc}", field=str(path)) from exc
    if not isinstance(data, Mapping):
        raise UserError("config file must be a mapping", field=str(path))
    flat = _flatten(data)
    for name in flat:
        key = KEYS_BY_NAME.get(name)
        if key is None:
            raise UserError(f"unknown key (known: {', '.join(sorted(KEYS_BY_NAME))})", field=f"{path}:{name}")
        if key.secret:
            raise UserError(f"secrets are read only from the environment ({key.env}) or a Kubernetes "
                            "Secret, never from a file", field=f"{path}:{name}")
    return flat


@dataclass(frozen=True)
class Config:
    """Resolved configuration. Access values with ``cfg.get('storage.root')``."""

    values: Mapping[str, Any] = field(default_factory=dict)

    def get(self, name: str) -> Any:
        if name not in KEYS_BY_NAME:
            raise KeyError(name)
        return self.values[name]

    @property
    def home(self) -> Path:
        return Path(os.path.expanduser(str(self.values["home"]))).resolve()

    @property
    def storage_root(self) -> str:
        """Root URI of the object store (datasets, checkpoints, models, engines)."""
        root = str(self.values["storage.root"]).rstrip("/")
        return root or (self.home / "store").as_uri()

    @property
    def mlflow_tracking_uri(self) -> str:
        return str(self.values["mlflow.tracking_uri"]) or f"sqlite:///{self.home / 'mlflow.db'}"

    def with_overrides(self, **overrides: Any) -> Config:
        """A copy with some keys replaced (dotted names given with ``__`` for ``.``)."""
        vals = dict(self.values)
        for name, value in overrides.items():
            dotted = name.replace("__", ".")
            vals[dotted] = _coerce(KEYS_BY_NAME[dotted], value)
        return replace(self, values=vals)


def load_config(
    cli: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    path: str | Path | None = None,
) -> Config:
    """Resolve every key: ``cli`` (dotted names, None = not given) > ``env`` > file > default."""
    env = os.environ if env is None else env
    file_path = Path(path) if path else Path(env["AIPIPE_CONFIG"]) if env.get("AIPIPE_CONFIG") else None
    if file_path is None and Path("aipipe.yaml").is_file():
        file_path = Path("aipipe.yaml")
    from_file = read_config_file(file_path) if file_path else {}
    cli = {k: v for k, v in (cli or {}).items() if v is not None}
    for name in cli:
        if name not in KEYS_BY_NAME:
            raise UserError("unknown configuration key", field=name)
    values: dict[str, Any] = {}
    for key in KEYS:
        if key.name in cli:
            values[key.name] = _coerce(key, cli[key.name])
        elif env.get(key.env, "") != "":
            values[key.name] = _coerce(key, env[key.env])
        elif key.name in from_file:
            values[key.name] = _coerce(key, from_file[key.name])
        else:
            values[key.name] = key.default
    return Config(values=values)


def describe_keys() -> list[tuple[str, str, str, str]]:
    """(name, env var, default, help) rows for the README and ``aipipe config``."""
    return [(k.name, k.env, "(secret: env only)" if k.secret else repr(k.default), k.help) for k in KEYS]


__all__ = ["KEYS", "Config", "Key", "describe_keys", "load_config", "read_config_file"]
