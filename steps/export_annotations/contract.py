"""The export-annotations step's contract: its typed flags, outputs, report, secret and resources."""

from __future__ import annotations

from pydantic import BaseModel, Field

from aipipe.contract import OUTPUTS_DIR, Artifact, Output, StepResources, step_contract


class ExportFlags(BaseModel):
    """``python -m steps.export_annotations`` flags (the contract's inputs)."""

    project: str = Field(description="Label Studio project id or title")
    dataset_root: str = Field("", description="storage URI under which datasets/<project>/<version>/ is written; "
                              "empty = <storage.root>/datasets")
    val_fraction: float = Field(0.2, ge=0.0, lt=1.0,
                                description="share of tasks in the validation split (by task-id hash)")
    view: str = Field("", description="Label Studio view id to restrict the export to; empty = all annotated tasks")


CONTRACT = step_contract(
    __package__,
    description="Snapshot-export a Label Studio project into a content-addressed dataset.",
    flags=ExportFlags,
    outputs=(
        Output("dataset_uri", "storage URI of the dataset version"),
        Output("dataset_version", "content hash of the manifest"),
        Output("num_items", "usable items in the dataset"),
        Output("num_new", "annotations since the previous exported version"),
        Output("classes", "JSON list of class names, in label-map order"),
        Output("changed", "true when the version differs from the previous export"),
    ),
    artifacts=(Artifact("export-report", f"{OUTPUTS_DIR}/export-report.json", "counts of skipped/bad items"),),
    secrets=("label_studio.api_key",),
    # Label Studio unreachable: the step retries within LABEL_STUDIO_WAIT_SECONDS and exits 3; Argo does not repeat that
    resources=StepResources(cpu="1", memory="2Gi", deadline_seconds=3600, retries_unavailable=False),
)
