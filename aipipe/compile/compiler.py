"""Compile a pipeline (a Hera Python file or a Workflow YAML) into Argo manifests.

A pipeline file defines ``build(cfg, params) -> Workflow`` with a ``PARAMETERS`` table
(:class:`~aipipe.compile.params.PipelineParam`), or ``build(cfg) -> Workflow``, or simply a
module-level Hera ``Workflow``. It may define ``templates(cfg)`` for the WorkflowTemplates it
references. CronWorkflows come from ``cron/*.py`` next to the pipeline's package (each module
names its pipeline with ``PIPELINE = "<module stem>"`` and defines ``build(cfg)``; argo-events
EventSources/Sensors come from ``build_events(cfg)`` in the same modules).
Loading never submits anything.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import yaml
from hera.workflows import CronWorkflow, Workflow, WorkflowTemplate

from aipipe.compile import goyaml
from aipipe.compile.links import links_configmap
from aipipe.compile.loader import describe, import_root, load_module, where
from aipipe.compile.params import check_declared, resolve_params
from aipipe.config import Config
from aipipe.errors import AipipeError, UserError

YAML_SUFFIXES = (".yaml", ".yml", ".json")
KINDS = ("Workflow", "WorkflowTemplate", "CronWorkflow")
RESOURCE_KINDS = ("WorkflowTemplate", "ClusterWorkflowTemplate", "CronWorkflow")


@dataclass
class CompiledPipeline:
    """The manifests of one pipeline, as plain dicts ready for YAML or the Argo API."""

    source: Path
    workflow: dict[str, Any]
    templates: list[dict[str, Any]] = field(default_factory=list)
    cron_workflows: list[dict[str, Any]] = field(default_factory=list)
    parameters: dict[str, str | None] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)  # argo-events EventSource/Sensor
    links: dict[str, Any] | None = None  # the Argo UI's links to MLflow (workflow-controller ConfigMap)

    def documents(self) -> list[dict[str, Any]]:
        """The Argo Workflows manifests: the Workflow first, then templates and cron workflows."""
        return [self.workflow, *self.templates, *self.cron_workflows]


def compile_pipeline(path: Path, cfg: Config, params: Mapping[str, str] | None = None) -> CompiledPipeline:
    """Compile ``path`` (``.py`` pipeline or Workflow ``.yaml``) with ``params`` merged over the defaults."""
    path = Path(path)
    if not path.is_file():
        raise UserError("no such file", field=str(path))
    if path.suffix == ".py":
        return _compile_python(path, load_module(path), cfg, params)
    if path.suffix in YAML_SUFFIXES:
        return _compile_yaml(path, params)
    raise UserError("expected a pipeline .py file or a Workflow .yaml file", field=str(path))


def _to_dict(obj: Any, what: str, path: Path) -> dict[str, Any]:
    if isinstance(obj, (Workflow, WorkflowTemplate, CronWorkflow)):
        return obj.to_dict()
    if isinstance(obj, Mapping):
        return dict(obj)
    raise UserError(f"{what} returned {type(obj).__name__}, expected a Hera object", field=str(path))


def call_user(fn: Any, what: str, path: Path, *args: Any) -> Any:
    """Call a function of a pipeline file; whatever it raises (or a sys.exit) becomes one UserError line."""
    try:
        return fn(*args)
    except AipipeError:
        raise
    except (Exception, SystemExit) as exc:
        raise UserError(f"{what} raised {describe(exc)}{where(exc, path.resolve())}", field=str(path)) from exc


def _compile_python(path: Path, module: ModuleType, cfg: Config,
                    params: Mapping[str, str] | None) -> CompiledPipeline:
    table = getattr(module, "PARAMETERS", None)
    build = getattr(module, "build", None)
    if table is not None:
        if build is None:
            raise UserError("defines PARAMETERS but no build(cfg, params)", field=str(path))
        values: dict[str, str | None] = dict(resolve_params(table, params, cfg))
        workflow = _to_dict(call_user(build, "build()", path, cfg, values), "build()", path)
    else:
        workflow = _to_dict(_untabled_workflow(module, build, cfg, path), "build()", path)
        values = check_declared(_declared(workflow), params)
        _set_arguments(workflow, values)
    if workflow.get("kind") != "Workflow":
        raise UserError(f"build() must return a Workflow, got {workflow.get('kind')}", field=str(path))
    templates_fn = getattr(module, "templates", None)
    found = call_user(templates_fn, "templates()", path, cfg) if callable(templates_fn) \
        else _instances(module, WorkflowTemplate)
    templates = [_to_dict(t, "templates()", path) for t in found]
    return CompiledPipeline(source=path, workflow=workflow, templates=templates,
                            cron_workflows=cron_workflows_for(path, cfg), parameters=values,
                            events=events_for(path, cfg), links=links_configmap(cfg))


def _untabled_workflow(module: ModuleType, build: Any, cfg: Config, path: Path) -> Any:
    if callable(build):
        args = (cfg,) if len(inspect.signature(build).parameters) else ()
        return call_user(build, "build()", path, *args)
    workflows = [w for w in _instances(module, Workflow) if not isinstance(w, (WorkflowTemplate, CronWorkflow))]
    if len(workflows) != 1:
        raise UserError(f"expected build(cfg) or exactly one module-level Workflow, found {len(workflows)}",
                        field=str(path))
    return workflows[0]


def _instances(module: ModuleType, cls: type) -> list[Any]:
    return [v for v in vars(module).values() if isinstance(v, cls)]


def _trigger_modules(pipeline: Path) -> list[ModuleType]:
    """Modules in ``<package root>/cron/`` whose ``PIPELINE`` names this pipeline."""
    root, _ = import_root(pipeline.resolve())
    cron_dir = root / "cron"
    if not cron_dir.is_dir():
        return []
    modules = [load_module(f) for f in sorted(cron_dir.glob("*.py")) if not f.name.startswith("_")]
    return [m for m in modules if getattr(m, "PIPELINE", None) == pipeline.stem]


def _built(module: ModuleType, fn_name: str, cfg: Config) -> list[dict[str, Any]]:
    fn = getattr(module, fn_name, None)
    if not callable(fn):
        return []
    path = Path(str(module.__file__))
    built = call_user(fn, f"{fn_name}()", path, cfg)
    items = built if isinstance(built, list) else [built]
    return [_to_dict(item, f"{module.__name__}.{fn_name}()", path) for item in items]


def _is_pipeline(module: ModuleType) -> bool:
    """A pipeline has a PARAMETERS table, a module-level Workflow, or a build() without templates/cron."""
    plain = [w for w in _instances(module, Workflow) if not isinstance(w, (WorkflowTemplate, CronWorkflow))]
    return hasattr(module, "PARAMETERS") or bool(plain)


def python_documents(path: Path, cfg: Config) -> list[dict[str, Any]]:
    """The manifests a ``.py`` file defines: a pipeline's (compiled with its defaults), or the
    WorkflowTemplates/CronWorkflows of a module with ``build(cfg)`` (``cron/*.py``, ``pipelines/templates/*.py``)
    or module-level Hera objects. [] when it defines none."""
    module = load_module(path)
    if _is_pipeline(module):
        return _compile_python(path, module, cfg, None).documents()
    built = _built(module, "build", cfg)
    if any(d.get("kind") == "Workflow" for d in built):
        return _compile_python(path, module, cfg, None).documents()
    resources = [d for d in built if d.get("kind") in RESOURCE_KINDS]
    if not built:
        resources = [t.to_dict() for t in _instances(module, WorkflowTemplate) + _instances(module, CronWorkflow)]
    return resources


def cron_workflows_for(pipeline: Path, cfg: Config) -> list[dict[str, Any]]:
    """CronWorkflows from ``build(cfg)`` of the pipeline's ``cron/`` modules."""
    return [doc for m in _trigger_modules(pipeline) for doc in _built(m, "build", cfg)]


def events_for(pipeline: Path, cfg: Config) -> list[dict[str, Any]]:
    """argo-events EventSources and Sensors from ``build_events(cfg)`` of the pipeline's ``cron/`` modules."""
    return [doc for m in _trigger_modules(pipeline) for doc in _built(m, "build_events", cfg)]


def _compile_yaml(path: Path, params: Mapping[str, str] | None) -> CompiledPipeline:
    docs = load_documents(path)
    by_kind: dict[str, list[dict[str, Any]]] = {k: [] for k in KINDS}
    for doc in docs:
        kind = doc.get("kind")
        if kind not in by_kind:
            raise UserError(f"unsupported kind {kind!r} (expected one of {', '.join(KINDS)})", field=str(path))
        by_kind[kind].append(doc)
    if len(by_kind["Workflow"]) != 1:
        raise UserError(f"expected exactly one Workflow, found {len(by_kind['Workflow'])}", field=str(path))
    workflow = copy.deepcopy(by_kind["Workflow"][0])
    values = check_declared(_declared(workflow), params)
    _set_arguments(workflow, values)
    return CompiledPipeline(source=path, workflow=workflow, templates=by_kind["WorkflowTemplate"],
                            cron_workflows=by_kind["CronWorkflow"], parameters=values)


def load_documents(path: Path) -> list[dict[str, Any]]:
    """Every non-empty YAML document in ``path``, read strictly as the Argo CLI reads a file (a key set twice is
    refused); a parse error or a non-mapping is a UserError."""
    try:
        docs = [d for d in goyaml.load_all(path.read_text(), strict=True) if d is not None]
    except OSError as exc:
        raise UserError(f"cannot read: {exc.strerror}", field=str(path)) from exc
    except yaml.YAMLError as exc:
        raise UserError(f"not valid YAML: {exc}", field=str(path)) from exc
    except ValueError as exc:  # a map key JSON cannot hold
        raise UserError(f"not valid as JSON: {exc}", field=str(path)) from exc
    for doc in docs:
        if not isinstance(doc, dict):
            raise UserError("every YAML document must be a mapping (an Argo manifest)", field=str(path))
    return docs


def _declared(workflow: Mapping[str, Any]) -> dict[str, str | None]:
    params = ((workflow.get("spec") or {}).get("arguments") or {}).get("parameters") or []
    return {p["name"]: p.get("value") for p in params if isinstance(p, Mapping) and "name" in p}


def _set_arguments(workflow: dict[str, Any], values: Mapping[str, str | None]) -> None:
    for param in ((workflow.get("spec") or {}).get("arguments") or {}).get("parameters") or []:
        if param.get("name") in values and values[param["name"]] is not None:
            param["value"] = values[param["name"]]
