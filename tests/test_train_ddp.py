"""A 2-process CPU DDP run (torchrun, gloo) matches the single-process run step for step."""

from __future__ import annotations

import torch
from mlflow import MlflowClient
from safetensors.torch import load_file

from tests.fixtures_train import StepRun, TrainSetup, assert_ok

torch.set_num_threads(1)


def _is_bn_buffer(name: str) -> bool:
    return name.endswith(("running_mean", "running_var", "num_batches_tracked"))


def test_ddp_two_processes_match_one_process_accumulating_two_micro_batches(
        learnable_run: StepRun, train_setup: TrainSetup) -> None:
    # 2 ranks x batch 4 == 1 process x batch 4 x 2 accumulated micro-batches, sample for sample
    ddp = assert_ok(train_setup.train(train_setup.learnable, "wf-ddp", "digits-ddp", "--batch-size", "4",
                                      "--nproc-per-node", "2"))
    single_history = learnable_run.report("train-metrics.json")["history"]
    ddp_history = ddp.report("train-metrics.json")["history"]
    for one, two in zip(single_history, ddp_history, strict=True):
        assert abs(one["train_loss"] - two["train_loss"]) < 1e-5
        assert one["train_accuracy"] == two["train_accuracy"]

    single = load_file(train_setup.bundle("digits", learnable_run.outputs["model_version"]) / "model.safetensors")
    parallel = load_file(train_setup.bundle("digits-ddp", ddp.outputs["model_version"]) / "model.safetensors")
    assert single.keys() == parallel.keys()
    weights = [k for k in single if not _is_bn_buffer(k)]
    assert max((single[k] - parallel[k]).abs().max().item() for k in weights) < 1e-5
    # BatchNorm running statistics are rank 0's own in DDP on CPU (SyncBatchNorm needs CUDA), so the
    # validation numbers may differ slightly while the learned weights are the same
    assert abs(float(learnable_run.outputs["val_accuracy"]) - float(ddp.outputs["val_accuracy"])) <= 0.15

    run = MlflowClient(train_setup.tracking_uri).get_run(ddp.outputs["mlflow_run_id"])
    assert run.data.params["accel.world_size"] == "2"
    assert "resum" not in ddp.stderr  # checkpoints are scoped to the run id: nothing to resume
