"""Crash-resume sweep over the upstream corpus: ``python -m tests.engine.crash_sweep [CASE ...]``.

Each case runs in a driver process that kills itself (SIGKILL) right after its k-th stored state change while the
run is still Running (k drawn per case from ``--seed``, between 2 and ``--k-max``); a fresh driver then resumes
the run from that stored state, and the final workflow is judged as the corpus judges it (tests/engine/
test_upstream_corpus.py). Prints one line per case (PASS, MISS with what differs, or not-interrupted when the run
ended before its k-th change) and the totals. Slow (two drivers per case); the test suite keeps a few crash points
of its own in test_crash_resume.py.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.engine import test_upstream_corpus as corpus

REPO = Path(__file__).resolve().parents[2]
CASE_TIMEOUT_S = 150
DRIVER = """
import json, os, signal, sys, threading
from pathlib import Path
from aipipe.config import load_config
from aipipe.engine.context import default_context, dict_templates
from aipipe.engine.executor import WorkflowExecutor
from aipipe.engine.wfmeta import with_workflow_metadata
from aipipe.engine.wfref import resolve_workflow_spec
from tests.engine import test_upstream_corpus as corpus

home, state, case, crash_after = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
changes = 0

def save(wf):
    global changes
    tmp = state.with_suffix(".tmp")
    tmp.write_text(json.dumps(wf))
    os.replace(tmp, state)
    changes += 1
    if changes == crash_after and wf["status"].get("phase") == "Running":
        os.kill(os.getpid(), signal.SIGKILL)

workflow, templates = corpus.load(case)
if state.exists():
    wf = json.loads(state.read_text())
else:
    corpus.provide(corpus.EXPECTED[case].get("setup") or {}, home)
    wf = with_workflow_metadata(workflow, resolve_workflow_spec(workflow, dict_templates(templates)))
ctx = default_context(load_config(env={"AIPIPE_HOME": str(home)}), home / "runs" / "r", on_change=save,
                      templates=dict_templates(templates))
stop = threading.Event()
threading.Timer(corpus.CASE_TIMEOUT_S, stop.set).start()
save(WorkflowExecutor(wf, ctx).run(stop))
os._exit(0)
"""


def _drive(home: Path, state: Path, case: str, crash_after: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", DRIVER, str(home), str(state), case, str(crash_after)],
                          env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True,
                          timeout=CASE_TIMEOUT_S, check=False)


def sweep_one(case: str, crash_after: int, scratch: Path) -> str:
    """PASS, ``MISS …``, ``not-interrupted`` or ``crashed …`` for one case killed after ``crash_after`` changes."""
    home = Path(tempfile.mkdtemp(prefix="crash-", dir=scratch))
    state = home / "state.json"
    first = _drive(home, state, case, crash_after)
    if first.returncode != -9:
        return "not-interrupted" if first.returncode == 0 else f"crashed on its first run: {first.stderr[-400:]}"
    resumed = _drive(home, state, case, 0)
    if resumed.returncode != 0:
        return f"k={crash_after} crashed on resume: {resumed.stderr[-400:]}"
    miss = corpus._compare(corpus.EXPECTED[case], json.loads(state.read_text()))
    return "PASS" if miss is None else f"k={crash_after} MISS {miss}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", help="case files (default: every case that is not rejected or a known gap)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--k-max", type=int, default=14)
    parser.add_argument("--workers", type=int, default=5)
    args = parser.parse_args()
    cases = args.cases or sorted(name for name, want in corpus.EXPECTED.items()
                                 if want["phase"] != "rejected" and name not in corpus.KNOWN_GAPS)
    with tempfile.TemporaryDirectory(prefix="crash-sweep-") as scratch, ThreadPoolExecutor(args.workers) as pool:
        ks = [random.Random(f"{args.seed}/{case}").randint(2, args.k_max) for case in cases]
        outcomes = []
        runs = pool.map(lambda case, k: sweep_one(case, k, Path(scratch)), cases, ks)
        for case, outcome in zip(cases, runs, strict=True):
            print(case, outcome, flush=True)
            outcomes.append((case, outcome))
    interrupted = [o for _, o in outcomes if o != "not-interrupted"]
    print(f"interrupted {len(interrupted)} of {len(outcomes)}; right after resume "
          f"{sum(o == 'PASS' for o in interrupted)} of {len(interrupted)}")


if __name__ == "__main__":
    main()
