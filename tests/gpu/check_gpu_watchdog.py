"""GPU check of the pool's over-cap watchdog (issue 19) in a real embedded-engine run.

Two nodes each hold a share of CAP MiB of one GPU. ``hog`` allocates CAP + 2 GiB with PyTorch's cap left off (it
does not call ``stepkit``); ``fine`` keeps to its cap through ``stepkit`` and multiplies matrices for a few
seconds. The watchdog must stop ``hog`` with its message ("used N MiB of GPU memory, over its CAP MiB share;
stopped by the GPU pool watchdog", N > CAP) long before its 60 s sleep ends, while ``fine`` succeeds; a meter
reading the same source over each node's process tree reports ``fine``'s peak (``fine_over_cap_mb`` = peak - CAP,
<= 0 expected). Exits non-zero when a check fails; the summary goes to ``$OUT/gpu-watchdog-check.json`` if set.

    python3 tests/gpu/check_gpu_watchdog.py           # the GPU machine: NVML readings, real allocations
    python3 tests/gpu/check_gpu_watchdog.py --quick   # CPU: the same run, readings through AIPIPE_GPU_USAGE_FILE
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from aipipe.config import load_config
from aipipe.engine.context import default_context
from aipipe.engine.executor import WorkflowExecutor
from aipipe.engine.gpuwatch import USAGE_FILE_ENV, usage_source
from bench.gpu_meter import NodeMeter

CAP = 4096
STOPPED = re.compile(rf"used (\d+) MiB of GPU memory, over its {CAP} MiB share; stopped by the GPU pool watchdog")
SAY = ("import os\ndef say(mib):\n    with open('/gpu/usage', 'a') as fh:\n"
       "        fh.write(f'{os.getpid()} {mib}\\n')\n")
HOG = {
    "gpu": f"""
import time, torch
block = torch.empty({CAP + 2048} * 2**20, dtype=torch.uint8, device="cuda")
block.fill_(1)
torch.cuda.synchronize()
time.sleep(60)
print("not stopped")
""",
    "quick": SAY + f"import time\nsay({CAP + 2048})\ntime.sleep(60)\nprint('not stopped')\n"}
FINE = {
    "gpu": f"""
import json, time, torch
from aipipe.stepkit import apply_gpu_memory_cap
apply_gpu_memory_cap()
block = torch.empty({CAP // 2} * 2**20, dtype=torch.uint8, device="cuda")
a = torch.randn(2048, 2048, device="cuda")
end = time.time() + 8
while time.time() < end:
    a = (a @ a).clamp_(-1, 1)
torch.cuda.synchronize()
print(json.dumps({{"reserved_mb": torch.cuda.max_memory_reserved() // 2**20}}))
""",
    "quick": SAY + f"import json, time\nsay({CAP // 2})\ntime.sleep(8)\nprint(json.dumps({{'reserved_mb': 0}}))\n"}


def workflow(image: str, mode: str) -> dict[str, Any]:
    def node(name: str, source: str) -> dict[str, Any]:
        # this interpreter (the one with torch), not whatever python3 the node's PATH finds first
        return {"name": name, "script": {"image": image, "command": [sys.executable], "source": source,
                                         "resources": {"limits": {"nvidia.com/gpu": 1, "nvidia.com/gpumem": CAP}},
                                         "volumeMounts": [{"name": "gpu", "mountPath": "/gpu"}]}}
    return {"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "metadata": {"name": "watchdog"},
            "spec": {"entrypoint": "main",
                     "volumeClaimTemplates": [{"metadata": {"name": "gpu"}, "spec": {
                         "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Mi"}}}}],
                     "templates": [{"name": "main", "steps": [[{"name": "hog", "template": "hog"},
                                                               {"name": "fine", "template": "fine"}]]},
                                   node("hog", HOG[mode]), node("fine", FINE[mode])]}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="CPU run: readings through the test seam")
    quick = parser.parse_args().quick
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        if quick:
            (home / "gpus.json").write_text(json.dumps([{"index": 0, "memory_mb": 81920}]))
            os.environ[USAGE_FILE_ENV] = str(home / "runs" / "watchdog" / "volumes" / "gpu" / "usage")
        usage, source = usage_source()
        if usage is None:
            print("no source of GPU memory readings (NVML, nvidia-smi): install nvidia-ml-py", file=sys.stderr)
            return 1
        cfg = load_config(env={"AIPIPE_HOME": str(home)})
        meter = NodeMeter(usage)
        ctx = default_context(cfg, home / "runs" / "watchdog", on_change=meter.on_change,
                              on_log=lambda node, line: print(f"[{node}] {line}", file=sys.stderr))
        start = time.monotonic()
        with meter:
            status = WorkflowExecutor(workflow(str(cfg.get("kubernetes.steps_image")), "quick" if quick else "gpu"),
                                      ctx).run()["status"]
        took = time.monotonic() - start
    pods = {n["displayName"]: n for n in status["nodes"].values() if n["type"] == "Pod"}
    hog, fine = pods["hog"], pods["fine"]
    stopped = STOPPED.fullmatch(str(hog.get("message") or ""))
    used = int(stopped.group(1)) if stopped else 0
    fine_peak = max((v for k, v in meter.peaks.items() if k.endswith(".fine")), default=0)
    rows = [{"check": "over_cap_node_stopped", "ok": hog["phase"] == "Failed" and used > CAP and took < 45,
             "message": hog.get("message"), "seconds": round(took, 1)},
            {"check": "neighbour_within_cap_finishes", "ok": fine["phase"] == "Succeeded",
             "message": fine.get("message"), "result": (fine.get("outputs") or {}).get("result")},
            {"check": "neighbour_peak_within_cap", "ok": 0 < fine_peak <= CAP, "peak_mb": fine_peak, "cap_mb": CAP}]
    for row in rows:
        print(json.dumps(row))
    if not any(meter.peaks.values()):
        print("the readings named none of the nodes' processes: is the engine in a container without the host's "
              "PID namespace (NVML names host pids)?", file=sys.stderr)
    summary = {"ok": all(r["ok"] for r in rows), "source": source, "quick": quick,
               "fine_over_cap_mb": fine_peak - CAP, "peaks_mb": meter.peaks}
    print("summary:", json.dumps(summary))
    if os.environ.get("OUT"):
        Path(os.environ["OUT"]).mkdir(parents=True, exist_ok=True)
        Path(os.environ["OUT"], "gpu-watchdog-check.json").write_text(json.dumps({"rows": rows, "summary": summary},
                                                                                indent=2))
    return 0 if summary["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
