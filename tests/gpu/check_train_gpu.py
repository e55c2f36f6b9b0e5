"""GPU check of the training acceleration layer; exits non-zero when any check fails.

Checks (each printed, and written via bench/results_io as ``train-gpu-check_<gpu>_<date>.json``):

- ``amp_dtype``: under the layer's autocast the convolutions and the classifier run in the AMP dtype
  (bf16 where supported, else fp16).
- ``prefetcher_overlap``: with the CUDA-stream prefetcher, host→device copies of the next batch run
  while the current step computes (CUDA event timelines intersect), and every batch the step sees
  holds exactly the bytes that were sent (stream synchronisation is correct).
- ``gpu_data_wait``: :class:`StepTimer` on a GPU reports the device's idle time waiting for batches: ~0
  when the host is ahead of the GPU, most of the step when each batch comes 50 ms late.
- ``train_loop``: the real training loop (workers, pinned memory, prefetcher, AMP, channels_last,
  checkpoints) on generated JPEGs: loss finite and falling, the expected precision used.
- ``ddp_nccl`` (2+ GPUs): the training loop under torchrun with 2 NCCL ranks keeps identical weights
  on both ranks, loss finite and falling (``--quick`` without a GPU: the same with gloo on CPU).

    python3 tests/gpu/check_train_gpu.py           # on the GPU machine
    python3 tests/gpu/check_train_gpu.py --quick   # CPU smoke run (GPU-only checks are skipped)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from aipipe.storage import Storage
from bench.results_io import write_result
from mlkit.accel import (
    CudaPrefetcher,
    DevicePlacer,
    StepTimer,
    autocast,
    make_grad_scaler,
    resolve_precision,
)
from mlkit.data import open_dataset
from mlkit.fixtures import write_synthetic_jpeg_dataset
from mlkit.model import build_model
from steps.train.checkpoint import CheckpointStore
from steps.train.trainer import TrainConfig, train

REPO_ROOT = Path(__file__).resolve().parents[2]
Row = dict[str, Any]
NUMBERS = ("precision", "overlap_fraction", "copy_ms", "step_ms", "images_per_s", "data_wait_fraction")


def _row(check: str, ok: bool | None, detail: str, **numbers: Any) -> Row:
    status = "skipped" if ok is None else ("pass" if ok else "FAIL")
    print(f"[{status}] {check}: {detail}", flush=True)
    return {"check": check, "status": status, **{key: numbers.get(key) for key in NUMBERS}, "detail": detail}


def check_amp_dtype(device: torch.device) -> Row:
    precision = resolve_precision("auto" if device.type == "cuda" else "bf16", device)
    model = build_model("resnet_tiny", 4).to(device).to(memory_format=torch.channels_last)  # type: ignore[call-overload]
    seen: dict[str, torch.dtype] = {}

    def recorder(name: str) -> Any:
        def hook(_module: torch.nn.Module, _inputs: Any, output: torch.Tensor) -> None:
            seen[name] = output.dtype
        return hook

    model.stem[0].register_forward_hook(recorder("conv"))
    model.fc.register_forward_hook(recorder("fc"))
    x = torch.randn(8, 3, 64, 64, device=device).contiguous(memory_format=torch.channels_last)
    with autocast(precision, device):
        loss = F.cross_entropy(model(x).float(), torch.zeros(8, dtype=torch.long, device=device))
    loss.backward()
    ok = seen.get("conv") == precision.dtype and seen.get("fc") == precision.dtype and bool(torch.isfinite(loss))
    return _row("amp_dtype", ok, f"precision {precision.name}: conv {seen.get('conv')}, fc {seen.get('fc')}",
                precision=precision.name)


def check_prefetcher_overlap(device: torch.device, steps: int = 40) -> Row:
    if device.type != "cuda":
        return _row("prefetcher_overlap", None, "no CUDA device")
    precision = resolve_precision("auto", device)
    model = build_model("resnet50", 10).to(device).to(memory_format=torch.channels_last)  # type: ignore[call-overload]
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    scaler = make_grad_scaler(precision, device)
    generator = torch.Generator().manual_seed(0)
    host = [(torch.randint(0, 256, (64, 3, 224, 224), dtype=torch.uint8, generator=generator).pin_memory(),
             torch.randint(0, 10, (64,), generator=generator).pin_memory()) for _ in range(6)]
    expected_sums = [float(images.double().sum()) for images, _ in host]
    placer = DevicePlacer(device, (0.0, 0.0, 0.0), (1 / 255, 1 / 255, 1 / 255), channels_last=True)  # identity
    source = [host[i % len(host)] for i in range(steps)]
    prefetcher = CudaPrefetcher(source, placer, record_events=True)
    origin = torch.cuda.Event(enable_timing=True)
    origin.record()
    compute: list[tuple[torch.cuda.Event, torch.cuda.Event]] = []
    sums = []
    for images, labels in prefetcher:
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        sums.append(images.double().sum())
        optimizer.zero_grad(set_to_none=True)
        with autocast(precision, device):
            loss = F.cross_entropy(model(images).float(), labels)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        end.record()
        compute.append((start, end))
    torch.cuda.synchronize(device)

    def span(pair: tuple[torch.cuda.Event, torch.cuda.Event]) -> tuple[float, float]:
        return origin.elapsed_time(pair[0]), origin.elapsed_time(pair[1])

    copies = [span(p) for p in prefetcher.copy_events]
    steps_ms = [span(p) for p in compute]
    # copy i+1 was issued while step i was queued: did it run during some other step's compute?
    overlapped = sum(any(c0 < s1 and s0 < c1 for j, (s0, s1) in enumerate(steps_ms) if j != i)
                     for i, (c0, c1) in enumerate(copies[1:], start=1))
    fraction = overlapped / max(len(copies) - 1, 1)
    exact = all(abs(float(s) - expected_sums[i % len(host)]) < 1e-3 for i, s in enumerate(sums))
    copy_ms = sum(c1 - c0 for c0, c1 in copies) / len(copies)
    step_ms = sum(s1 - s0 for s0, s1 in steps_ms) / len(steps_ms)
    ok = fraction >= 0.5 and exact
    return _row("prefetcher_overlap", ok, f"{overlapped}/{len(copies) - 1} copies overlapped compute "
                f"({fraction:.0%}); batches intact: {exact}; copy {copy_ms:.2f} ms, step {step_ms:.1f} ms",
                overlap_fraction=round(fraction, 3), copy_ms=round(copy_ms, 3), step_ms=round(step_ms, 2))


def check_gpu_data_wait(device: torch.device, steps: int = 20) -> Row:
    """Late batches (a 50 ms host delay before each ~3 ms GPU step) read as data wait; ready ones do not."""
    if device.type != "cuda":
        return _row("gpu_data_wait", None, "needs a CUDA GPU")
    x = torch.randn(4096, 4096, device=device)

    def fraction(delay_s: float) -> float:
        timer = StepTimer(device=device)
        for _ in range(steps):
            with timer.data():
                time.sleep(delay_s)
            x.copy_(torch.tanh(x @ x))
            timer.step_done(1)
        return timer.data_wait_fraction

    fraction(0.0)  # warm-up (cuBLAS handles, allocator)
    ready, late = fraction(0.0), fraction(0.05)
    ok = ready < 0.05 and late > 0.8  # late: the GPU idles ~47 of every ~50 ms
    return _row("gpu_data_wait", ok, f"data wait {ready:.1%} with batches ready, {late:.1%} with 50 ms late ones",
                data_wait_fraction=round(late, 4))


def check_train_loop(device: torch.device, quick: bool) -> Row:
    on_gpu = device.type == "cuda"
    with tempfile.TemporaryDirectory(prefix="aipipe-gpu-check-") as tmp:
        folder = write_synthetic_jpeg_dataset(Path(tmp) / "data", num_images=96 if quick else 2048,
                                              size=64 if quick else 128, num_classes=4)
        data = open_dataset(Storage(), folder.as_uri(), Path(tmp) / "cache")
        cfg = TrainConfig(arch="resnet_tiny", epochs=3 if quick else 5, batch_size=16 if quick else 128,
                          lr=0.1, image_size=32 if quick else 64, checkpoint_every=5, log_every=5,
                          num_workers=None if on_gpu else 0, crop_scale=(0.5, 1.0))
        store = CheckpointStore(Storage(), (Path(tmp) / "ckpt").as_uri())
        result = train(cfg, data, device=device, checkpoints=store)
        saved = store.steps()
    losses = [h["train_loss"] for h in result.history]
    finite = all(torch.isfinite(torch.tensor(losses)).tolist())
    falling = losses[-1] < losses[0]
    expected = resolve_precision("auto", device).name
    accel = result.accel
    graphs = accel.compile_mode == ("reduce-overhead" if on_gpu else None)  # CUDA graphs by default on one GPU
    ok = (finite and falling and accel.precision == expected and accel.cuda_prefetcher == on_gpu and bool(saved)
          and graphs)
    best = max(result.history, key=lambda h: h["images_per_s"])
    return _row("train_loop", ok, f"train_loss {losses[0]:.3f} -> {losses[-1]:.3f}, val_acc "
                f"{result.val_accuracy:.3f}, precision {accel.precision}, prefetcher {accel.cuda_prefetcher}, "
                f"workers {accel.num_workers}, channels_last {accel.channels_last}, compile {accel.compile} "
                f"({accel.compile_mode or 'default'}), checkpoints {saved}",
                images_per_s=round(best["images_per_s"], 1),
                data_wait_fraction=round(best["data_wait_fraction"], 4))


def check_ddp(device: torch.device, quick: bool) -> Row:
    """2 ranks under torchrun: NCCL on 2 GPUs; with --quick and no GPU, gloo on CPU as a smoke run."""
    if (device.type == "cuda" and torch.cuda.device_count() < 2) or (device.type != "cuda" and not quick):
        return _row("ddp_nccl", None, "needs 2 GPUs")
    with tempfile.TemporaryDirectory(prefix="aipipe-ddp-") as tmp:
        folder = write_synthetic_jpeg_dataset(Path(tmp) / "data", num_images=64 if quick else 2048,
                                              size=48 if quick else 128, num_classes=4)
        out = Path(tmp) / "result.json"
        proc = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=2",
                               str(Path(__file__).resolve()), "--ddp-child", str(out), "--ddp-data", str(folder),
                               *(["--quick"] if quick else [])],
                              env={**os.environ, "PYTHONPATH": str(REPO_ROOT)}, capture_output=True, text=True,
                              timeout=600, check=False)
        if proc.returncode != 0 or not out.is_file():
            return _row("ddp_nccl", False, f"torchrun exited {proc.returncode}: {proc.stderr[-1500:]}")
        result = json.loads(out.read_text())
    losses = result["train_loss"]
    finite = all(torch.isfinite(torch.tensor(losses)).tolist())
    ok = result["identical_weights"] and finite and losses[-1] < losses[0] and result["world_size"] == 2
    backend = "NCCL" if device.type == "cuda" else "gloo (CPU smoke run)"
    return _row("ddp_nccl", ok, f"trainer under torchrun, 2 ranks {backend}: ranks identical "
                f"{result['identical_weights']}, train_loss {losses[0]:.3f} -> {losses[-1]:.3f}, "
                f"val_acc {result['val_accuracy']:.3f}",
                images_per_s=round(result["images_per_s"], 1), data_wait_fraction=result["data_wait_fraction"])


def ddp_child(out: Path, folder: Path, quick: bool) -> None:
    """One rank of the DDP check: the real training loop, DDP over 2 GPUs (or 2 CPU processes)."""
    import torch.distributed as dist

    from mlkit.accel import init_distributed, shutdown_distributed
    from mlkit.accel.distributed import device_for

    info = init_distributed("cuda" if torch.cuda.is_available() else "cpu")
    device = device_for(info)
    data = open_dataset(Storage(), folder.as_uri(), folder.parent / f"cache-{info.rank}")
    cfg = TrainConfig(arch="resnet_tiny", epochs=3 if quick else 4, batch_size=8 if quick else 64, lr=0.1,
                      image_size=32 if quick else 64, checkpoint_every=0, log_every=5, crop_scale=(0.5, 1.0),
                      num_workers=0 if quick else None)
    result = train(cfg, data, device=device, info=info)
    checksum = torch.stack([p.detach().double().sum() for p in result.model.parameters()]).sum().view(1)
    gathered = [torch.zeros_like(checksum) for _ in range(info.world_size)]
    dist.all_gather(gathered, checksum)
    if info.is_main:
        best = max(result.history, key=lambda h: h["images_per_s"])
        out.write_text(json.dumps({
            "identical_weights": all(torch.equal(g, gathered[0]) for g in gathered),
            "train_loss": [h["train_loss"] for h in result.history], "val_accuracy": result.val_accuracy,
            "world_size": result.accel.world_size, "images_per_s": best["images_per_s"],
            "data_wait_fraction": round(best["data_wait_fraction"], 4)}))
    dist.barrier()  # leave together: a rank tearing down gloo while its peer still talks can abort
    shutdown_distributed()
    # gloo's C++ threads can abort the interpreter's own teardown ("terminate called without an active
    # exception", ~1 run in 30 on CPU) after the group is destroyed and the result written: leave at once.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="GPU check of the training acceleration layer")
    parser.add_argument("--quick", action="store_true", help="CPU smoke run; GPU-only checks are skipped")
    parser.add_argument("--ddp-child", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--ddp-data", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.ddp_child is not None:
        ddp_child(args.ddp_child, args.ddp_data, args.quick)
        return 0
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device.type != "cuda" and not args.quick:
        print("check_train_gpu: no CUDA GPU (use --quick for the CPU smoke run)", file=sys.stderr)
        return 2
    rows = [check_amp_dtype(device), check_prefetcher_overlap(device), check_gpu_data_wait(device),
            check_train_loop(device, args.quick),
            check_ddp(device, args.quick)]
    failed = [r["check"] for r in rows if r["status"] == "FAIL"]
    summary = {"all_passed": not failed, "failed": failed, "torch": torch.__version__,
               "gpus": torch.cuda.device_count(), "quick": args.quick}
    write_result("train-gpu-check", rows, summary)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
