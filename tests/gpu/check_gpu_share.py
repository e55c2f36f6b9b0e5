"""GPU check of a node's memory cap (issue 19): ``aipipe.stepkit`` keeps PyTorch within ``AIPIPE_GPU_MEMORY_MB``.

Each case runs in a child process (the fraction is per process): with a cap of C MiB (the allocator gets C less
the CUDA context's allowance, ``stepkit.allocator_mb``) an allocation of 0.75·C succeeds and one of 1.5·C
fails with CUDA's out-of-memory error; without a cap the 1.5·C allocation succeeds;
four processes capped at a quarter of the GPU each hold 0.8 of their share at the same time. Exits non-zero when
a check fails; prints one JSON line per case and a summary (written to ``$OUT/gpu-share-check.json`` if set).

    python3 tests/gpu/check_gpu_share.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
CHILD = """
import json, os, sys, time, torch
from aipipe.stepkit import allocator_mb, apply_gpu_memory_cap
fractions = apply_gpu_memory_cap()
cap = int(os.environ.get("AIPIPE_GPU_MEMORY_MB") or 0)
size_mb, hold_s = int(sys.argv[1]), float(sys.argv[2])
out = {"fractions": fractions, "allocator_mb": allocator_mb(cap) if cap else None,
       "total_mb": torch.cuda.get_device_properties(0).total_memory // 2**20}
try:
    block = torch.empty(size_mb * 2**20, dtype=torch.uint8, device="cuda")
    block.fill_(1)
    torch.cuda.synchronize()
    out["allocated"] = True
    out["started"] = time.time()
    time.sleep(hold_s)
    out["ended"] = time.time()
except torch.cuda.OutOfMemoryError as exc:
    out["allocated"] = False
    out["error"] = str(exc).splitlines()[0][:160]
out["peak_mb"] = torch.cuda.max_memory_allocated() // 2**20
print(json.dumps(out))
"""


def child(cap_mb: int | None, size_mb: int, hold_s: float = 0.0) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k != "AIPIPE_GPU_MEMORY_MB"}
    env["PYTHONPATH"] = str(REPO_ROOT)
    if cap_mb is not None:
        env["AIPIPE_GPU_MEMORY_MB"] = str(cap_mb)
    return subprocess.Popen([sys.executable, "-c", CHILD, str(size_mb), str(hold_s)], env=env, cwd=REPO_ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def result(proc: subprocess.Popen[str]) -> dict[str, Any]:
    stdout, stderr = proc.communicate(timeout=300)
    if proc.returncode != 0:
        raise SystemExit(f"child failed ({proc.returncode}): {stderr[-2000:]}")
    found: dict[str, Any] = json.loads(stdout.strip().splitlines()[-1])
    return found


def main() -> int:
    rows: list[dict[str, Any]] = []
    cap = 8192
    under = result(child(cap, cap * 3 // 4))
    over = result(child(cap, cap * 3 // 2))
    free = result(child(None, cap * 3 // 2))
    total = int(under["total_mb"])
    rows.append({"check": "under_cap_allocates", "ok": under["allocated"], **under})
    rows.append({"check": "over_cap_refused", "ok": not over["allocated"] and abs(
        over["fractions"][0] - over["allocator_mb"] / total) < 1e-6, **over})
    rows.append({"check": "no_cap_allocates", "ok": free["allocated"] and free["fractions"] == [], **free})
    quarter = total // 4 - 1024  # CUDA contexts take some memory of their own
    four = [result(p) for p in [child(quarter, quarter * 4 // 5, 3.0) for _ in range(4)]]
    overlap = min(r.get("ended", 0) for r in four) > max(r.get("started", 1e18) for r in four)
    rows.append({"check": "four_quarters_at_once", "ok": all(r["allocated"] for r in four) and overlap,
                 "cap_mb": quarter, "peaks_mb": [r["peak_mb"] for r in four], "overlap": overlap})
    for row in rows:
        print(json.dumps(row))
    summary = {"ok": all(r["ok"] for r in rows), "total_mb": total, "cap_mb": cap,
               "max_over_cap_mb": max(max(r["peak_mb"] for r in four) - quarter, under["peak_mb"] - cap)}
    print("summary:", json.dumps(summary))
    if os.environ.get("OUT"):
        Path(os.environ["OUT"], "gpu-share-check.json").write_text(json.dumps({"rows": rows, "summary": summary},
                                                                            indent=2))
    return 0 if summary["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
