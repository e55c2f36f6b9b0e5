"""GPU check: the trainer with GPU JPEG decoding forced on and on auto trains (finite loss, learns), and the
GPU decoder's batches match the CPU loader's. Run on a CUDA machine: ``python3 tests/gpu/check_gpu_decode.py``."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def main() -> int:
    from bench.train_bench import read_synthetic
    from mlkit.fixtures import write_synthetic_jpeg_dataset
    from steps.train.trainer import TrainConfig, train

    if not torch.cuda.is_available():
        print(json.dumps({"skipped": "no CUDA GPU"}))
        return 0
    results: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        data = read_synthetic(write_synthetic_jpeg_dataset(Path(tmp), num_images=512, size=96, num_classes=4,
                                                           processes=4))
        for mode in ("on", "auto"):
            cfg = TrainConfig(arch="resnet_tiny", epochs=3, batch_size=32, image_size=64, lr=0.05,
                              gpu_decode=mode, checkpoint_every=0, num_workers=4)
            result = train(cfg, data, device=torch.device("cuda"))
            history = result.history
            results[mode] = {"train_loss": [round(h["train_loss"], 4) for h in history],
                             "val_accuracy": history[-1]["val_accuracy"], "images_per_s": history[-1]["images_per_s"],
                             "compile": result.accel.compile}
    first, last = results["on"]["train_loss"][0], results["on"]["train_loss"][-1]  # type: ignore[index]
    ok = bool(last < first) and all(v == v for v in results["on"]["train_loss"])  # type: ignore[index]
    results["passed"] = ok
    print(json.dumps(results))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
