"""The evaluate step's contract: its typed flags, outputs, report and resources."""

from __future__ import annotations

from pydantic import BaseModel, Field

from aipipe.contract import OUTPUTS_DIR, Artifact, Output, StepResources, step_contract


class EvaluateFlags(BaseModel):
    """``python -m steps.evaluate`` flags (the contract's inputs)."""

    dataset_uri: str = Field(description="dataset URI from export-annotations")
    model_name: str = Field("aipipe-classifier", description="MLflow registered model name")
    model_version: str = Field(description="candidate model version")
    margin: float = Field(0.01, ge=0.0, le=1.0, description="largest allowed accuracy drop vs the champion")
    min_accuracy: float = Field(0.5, ge=0.0, le=1.0,
                                description="top-1 accuracy below which nothing is promoted, champion or not")


CONTRACT = step_contract(
    __package__,
    description="Score candidate vs the champion alias on the held-out split; mark it `candidate` if it reaches "
                "min-accuracy and is not worse.",
    flags=EvaluateFlags,
    outputs=(
        Output("promote", "true when the candidate passed the gate (alias candidate; deploy makes it champion)"),
        Output("candidate_metric", "candidate accuracy"),
        Output("champion_metric", "champion accuracy (empty when there was none)"),
    ),
    artifacts=(Artifact("evaluate-report", f"{OUTPUTS_DIR}/evaluate-report.json", "metrics of both models"),),
    resources=StepResources(cpu="2", memory="4Gi", deadline_seconds=1800),
)
