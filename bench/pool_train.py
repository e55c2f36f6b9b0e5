"""One small training of ``bench/pool_bench.py``: a classifier on synthetic data made on the device, that
checkpoints on SIGTERM and resumes from its checkpoint.

Each optimizer step's batch is drawn from a generator seeded by the step's number, so a resumed run sees the same
data as an uninterrupted one. The checkpoint (model, optimizer, next step) is written atomically into ``--ckpt``
every ``--ckpt-every`` steps, at SIGTERM (at the end of the step under way; then the process exits 143) and at the
end. ``--ckpt``/``attempts`` gets one line per attempt, ``<first step> <steps done>`` (the steps run twice are
those an attempt did beyond the checkpoint the next one resumed from). Prints one JSON line: steps, seconds of
training, images/s, the device and PyTorch's peak reserved memory.

    python -m bench.pool_train --steps 300 --arch resnet18 --size 128 --batch 64 --ckpt /ckpt
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from aipipe.stepkit import apply_gpu_memory_cap
from mlkit.model import build_model

CLASSES = 10


def model_for(arch: str) -> nn.Module:
    """ResNet-18 from torchvision (on the GPU machine), else a model of mlkit's zoo."""
    if arch == "resnet18":
        from torchvision.models import resnet18

        return resnet18(num_classes=CLASSES)
    return build_model(arch, CLASSES)


def batch(step: int, size: int, count: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    gen = torch.Generator(device=device).manual_seed(step)
    images = torch.randn(count, 3, size, size, generator=gen, device=device)
    return images, torch.randint(0, CLASSES, (count,), generator=gen, device=device)


def save(path: Path, model: nn.Module, opt: torch.optim.Optimizer, step: int) -> None:
    staging = path.with_suffix(".tmp")
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step}, staging)
    os.replace(staging, path)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--arch", default="resnet18")
    parser.add_argument("--size", type=int, default=128)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--ckpt", type=Path, default=None)
    parser.add_argument("--ckpt-every", type=int, default=100)
    parser.add_argument("--threads", type=int, default=0, help="CPU threads of PyTorch (0: its default)")
    parser.add_argument("--deterministic", action="store_true",
                        help="deterministic algorithms: a resumed run ends with an uninterrupted one's weights")
    args = parser.parse_args(argv)
    if args.deterministic:
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")  # before CUDA starts
        torch.use_deterministic_algorithms(True, warn_only=True)  # CUDA pooling backward has no such kernel
        torch.backends.cudnn.benchmark = False
    if args.threads:
        torch.set_num_threads(args.threads)
    stop: list[int] = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    apply_gpu_memory_cap()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(0)
    model = model_for(args.arch).to(device).to(memory_format=torch.channels_last)  # type: ignore[call-overload]
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    step = 0
    ckpt = args.ckpt / "ckpt.pt" if args.ckpt else None
    if ckpt is not None and ckpt.exists():
        state = torch.load(ckpt, map_location=device)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        step = int(state["step"])
    first, start = step, time.time()
    loss = torch.zeros(())
    while step < args.steps and not stop:
        images, labels = batch(step, args.size, args.batch, device)
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=device.type == "cuda"):
            loss = F.cross_entropy(model(images.contiguous(memory_format=torch.channels_last)), labels)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        step += 1
        if ckpt is not None and (step % args.ckpt_every == 0 or stop or step == args.steps):
            save(ckpt, model, opt, step)
    if device.type == "cuda":
        torch.cuda.synchronize()
    took = time.time() - start
    if args.ckpt is not None:
        with open(args.ckpt / "attempts", "a") as fh:
            fh.write(f"{first} {step - first}\n")
    out = {"first": first, "step": step, "start": start, "train_s": took, "device": str(device),
           "images_per_s": (step - first) * args.batch / took if took > 0 else 0.0, "loss": float(loss.item()),
           "reserved_mb": torch.cuda.max_memory_reserved() // 2**20 if device.type == "cuda" else 0}
    print(json.dumps(out), flush=True)
    if stop:
        raise SystemExit(143)
    return out


if __name__ == "__main__":
    main()
