"""The retrain pipeline: export-annotations -> train -> evaluate (the gate) -> convert-trt -> deploy.

Each task calls a step's reusable WorkflowTemplate (``aipipe-<step>-v1``) through ``templateRef``;
data passes between steps as storage URIs in output parameters. A ``changed=false`` export skips
train (``when``) and the later tasks are omitted (each depends on its predecessor *Succeeded*), so
the run still ends Succeeded; convert-trt and deploy run only when evaluate says ``promote=true`` (the
candidate reached ``min_accuracy`` and is not worse than the champion). The MLflow alias ``champion``
moves in deploy, once the new version serves; evaluate only marks the version ``candidate``.

``aipipe compile|submit|run pipelines/retrain.py`` load this file and call :func:`build`;
``python pipelines/retrain.py [-p k=v]… [--wait]`` does the same as ``aipipe submit``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from hera.workflows import DAG, Task, Workflow
from hera.workflows.models import TemplateRef

from aipipe.argo.labels import DESCRIPTION_ANNOTATION, TITLE_ANNOTATION
from aipipe.compile.links import MODEL_NAME_ANNOTATION, mlflow_ui_url, model_page
from aipipe.compile.params import PipelineParam, from_input
from aipipe.config import Config
from aipipe.contract import StepSpec
from aipipe.discovery import step
from pipelines.templates import build_all
from pipelines.templates.builder import MODEL_LABEL, PART_OF_LABEL, PROJECT_LABEL, TRIGGER_LABEL
from pipelines.templates.metrics import run_metrics

NAME = "retrain"
GENERATE_NAME = "aipipe-retrain-"
WORKFLOW_DEADLINE_SECONDS = 12 * 3600

EXPORT, TRAIN, EVALUATE = step("export-annotations"), step("train"), step("evaluate")
CONVERT, DEPLOY = step("convert-trt"), step("deploy")
STEPS: tuple[StepSpec, ...] = (EXPORT, TRAIN, EVALUATE, CONVERT, DEPLOY)

# Each parameter feeding a step input takes its default, type, enum and range from that step's contract.
PARAMETERS: tuple[PipelineParam, ...] = (
    PipelineParam("project", "1", "Label Studio project id or title"),
    from_input(EXPORT.input("val-fraction"), "val_fraction", description="share of tasks in the validation split",
               maximum=0.9),
    from_input(TRAIN.input("epochs"), "epochs"),
    from_input(TRAIN.input("batch-size"), "batch_size"),
    from_input(TRAIN.input("lr"), "lr"),
    from_input(TRAIN.input("precision"), "precision", description="training AMP precision"),
    from_input(TRAIN.input("image-size"), "image_size", description="model input size in pixels"),
    from_input(TRAIN.input("hflip"), "hflip",
               description="random horizontal flips in training (false for digits and text)"),
    from_input(TRAIN.input("seed"), "seed"),
    from_input(TRAIN.input("model-name"), "model_name", config_key="mlflow.model_name"),
    from_input(EVALUATE.input("margin"), "margin"),
    from_input(EVALUATE.input("min-accuracy"), "min_accuracy",
               description="top-1 accuracy below which nothing is promoted"),
    from_input(CONVERT.input("backend"), "backend", description="inference engine backend"),
    from_input(CONVERT.input("precision"), "engine_precision", description="inference engine precision"),
    from_input(CONVERT.input("max-accuracy-delta"), "max_accuracy_delta",
               description="largest allowed top-1 drop of the engine vs the model", minimum=0.0, maximum=1.0),
    from_input(DEPLOY.input("gpu-memory-mib"), "gpu_memory_mib",
               description="GPU memory budget of the inference service (MiB)"),
    from_input(DEPLOY.input("gpu-compute-percent"), "gpu_compute_percent",
               description="GPU compute share of the inference service (%)"),
    from_input(DEPLOY.input("target"), "target"),
    from_input(DEPLOY.input("provider"), "provider", config_key="deploy.provider"),
    from_input(DEPLOY.input("namespace"), "serving_namespace",
               description="Kubernetes namespace of the inference service"),
)


def _wf(name: str) -> str:
    return f"{{{{workflow.parameters.{name}}}}}"


def _out(task: str, name: str) -> str:
    return f"{{{{tasks.{task}.outputs.parameters.{name}}}}}"


def _is_true(task: str, name: str) -> str:
    return f'"{_out(task, name)}" == "true"'


def _step_task(spec: StepSpec, arguments: dict[str, str], depends: str | None = None,
               when: str | None = None) -> Task:
    return Task(
        name=spec.name,
        template_ref=TemplateRef(name=spec.template_name, template=spec.name),
        arguments=arguments,
        depends=depends,
        when=when,
    )


def add_dag() -> DAG:
    """The retrain DAG; call inside a ``Workflow``/``CronWorkflow`` context (cron reuses it)."""
    export, train, evaluate, convert = EXPORT.name, TRAIN.name, EVALUATE.name, CONVERT.name
    with DAG(name=NAME) as dag:
        _step_task(EXPORT, {"project": _wf("project"), "val-fraction": _wf("val_fraction")})
        _step_task(TRAIN, {
            "dataset-uri": _out(export, "dataset_uri"),
            "dataset-version": _out(export, "dataset_version"),
            "run-id": "{{workflow.uid}}",
            "epochs": _wf("epochs"),
            "batch-size": _wf("batch_size"),
            "lr": _wf("lr"),
            "precision": _wf("precision"),
            "image-size": _wf("image_size"),
            "hflip": _wf("hflip"),
            "model-name": _wf("model_name"),
            "seed": _wf("seed"),
        }, depends=export, when=_is_true(export, "changed"))
        _step_task(EVALUATE, {
            "dataset-uri": _out(export, "dataset_uri"),
            "model-name": _wf("model_name"),
            "model-version": _out(train, "model_version"),
            "margin": _wf("margin"),
            "min-accuracy": _wf("min_accuracy"),
        }, depends=f"{train}.Succeeded")
        _step_task(CONVERT, {
            "onnx-uri": _out(train, "onnx_uri"),
            "dataset-uri": _out(export, "dataset_uri"),
            "model-name": _wf("model_name"),
            "model-version": _out(train, "model_version"),
            "backend": _wf("backend"),
            "precision": _wf("engine_precision"),
            "max-accuracy-delta": _wf("max_accuracy_delta"),
        }, depends=f"{evaluate}.Succeeded", when=_is_true(evaluate, "promote"))
        _step_task(DEPLOY, {
            "engine-uri": _out(convert, "engine_uri"),
            "model-version": _out(train, "model_version"),
            "memory-mb": _out(convert, "memory_mb"),
            "gpu-memory-mib": _wf("gpu_memory_mib"),
            "gpu-compute-percent": _wf("gpu_compute_percent"),
            "target": _wf("target"),
            "provider": _wf("provider"),
            "namespace": _wf("serving_namespace"),
            "model-name": _wf("model_name"),
        }, depends=f"{convert}.Succeeded")
    return dag


def label_value(raw: str) -> str:
    """A Kubernetes label value (<= 63 chars of [A-Za-z0-9._-], alphanumeric at both ends)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", raw)[:63].strip("._-") or "none"


def description(cfg: Config, params: Mapping[str, str]) -> str:
    """The run's description in the Argo UI (Markdown): project, dataset version, model, where it deploys."""
    lines = [
        f"Label Studio project **{params['project']}** → MLflow model **{params['model_name']}**.",
        "",
        "Dataset version: the snapshot `export-annotations` takes when the run starts (its `dataset_version` "
        "output, also the `dataset_version` tag of the MLflow run and model version).",
        "",
        f"export-annotations → train → evaluate → convert-trt → deploy (target {params['target']}, "
        f"{params['gpu_memory_mib']} MiB, {params['gpu_compute_percent']}% GPU).",
    ]
    ui = mlflow_ui_url(cfg)
    if ui is not None:
        lines += ["", f"[Model in MLflow]({model_page(ui, params['model_name'])})"]
    return "\n".join(lines)


def workflow_kwargs(cfg: Config, params: Mapping[str, str], trigger: str) -> dict:
    """Metadata and spec fields shared by the Workflow and the CronWorkflow of this pipeline."""
    return {
        "labels": {
            PART_OF_LABEL: "aipipe",
            PROJECT_LABEL: label_value(params["project"]),
            MODEL_LABEL: label_value(params["model_name"]),
            TRIGGER_LABEL: trigger,
        },
        "annotations": {
            TITLE_ANNOTATION: f"Retrain {params['model_name']} from Label Studio project {params['project']}",
            DESCRIPTION_ANNOTATION: description(cfg, params),
            MODEL_NAME_ANNOTATION: params["model_name"],
        },
        "entrypoint": NAME,
        "service_account_name": cfg.get("kubernetes.service_account"),
        "active_deadline_seconds": WORKFLOW_DEADLINE_SECONDS,
        "metrics": run_metrics(trigger),
        "arguments": [p.hera(params[p.name]) for p in PARAMETERS],
    }


def build(cfg: Config, params: Mapping[str, str], trigger: str = "manual") -> Workflow:
    """The retrain Workflow; ``params`` are validated values for every entry of :data:`PARAMETERS`."""
    with Workflow(generate_name=GENERATE_NAME, **workflow_kwargs(cfg, params, trigger)) as workflow:
        add_dag()
    return workflow


def templates(cfg: Config) -> list:
    """The WorkflowTemplates this pipeline references, in DAG order."""
    return build_all(cfg, STEPS)


if __name__ == "__main__":
    import subprocess
    import sys

    # the same as `aipipe submit pipelines/retrain.py …`, through the installed command (no import of the CLI)
    sys.exit(subprocess.call([sys.executable, "-m", "aipipe.cli.main", "submit", __file__, *sys.argv[1:]]))
