"""Engines compiled once at conversion: the target check at load and the Mega-Cache round trip (CPU)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mlkit.engine.runtime import load_engine
from steps.convert_trt.fixtures import write_tiny_engine_bundle

REPO = Path(__file__).resolve().parents[1]


def _set_runtime(bundle: Path, **values: object) -> None:
    path = bundle / "engine.json"
    manifest = json.loads(path.read_text())
    manifest["runtime"] = {**manifest.get("runtime", {}), **values}
    path.write_text(json.dumps(manifest))


def test_engine_compiled_for_another_target_serves_uncompiled(tmp_path: Path, capfd: pytest.CaptureFixture[str]):
    bundle = write_tiny_engine_bundle(tmp_path / "engine", backend="pytorch", precision="fp32", max_batch=4)
    batch = np.random.default_rng(0).random((3, 3, 32, 32)).astype(np.float32)
    plain = load_engine(bundle, device="cpu")
    expected = plain.infer(batch)
    plain.close()
    _set_runtime(bundle, compile_mode="default", compile_cache="compile_cache.bin",
                 built_for={"device": "cuda", "device_name": "NVIDIA H200", "arch": "sm_90",
                            "torch": "0.0.0", "cuda": "13.0", "triton": "3.6.0"})
    runner = load_engine(bundle, device="cpu")
    err = capfd.readouterr().err
    assert "compiled for another target" in err and "torch '0.0.0'" in err and "serving it uncompiled" in err
    assert err.count("aipipe:") == 1  # said once
    assert runner.compiled is False and "device 'cuda'" in runner.compile_plan.note  # type: ignore[attr-defined]
    np.testing.assert_allclose(runner.infer(batch), expected, rtol=0, atol=0)
    runner.close()


def test_compile_cache_round_trip_on_cpu(tmp_path: Path):
    """Compiled at conversion (CPU inductor), cache in the bundle; a fresh process with an empty inductor
    cache loads the bundle's artifacts and compiles from them (FX graph cache hits, no misses)."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "convert-inductor"),
           "TRITON_CACHE_DIR": str(tmp_path / "convert-triton")}
    convert = ("import sys\nfrom steps.convert_trt.fixtures import write_tiny_engine_bundle\n"
               "write_tiny_engine_bundle(sys.argv[1], backend='pytorch', precision='fp32', max_batch=2,"
               " compile_mode='default')\n")
    # the conversion runs in a process of its own, as the convert step does (a process that compiled the same
    # graph before would take it from memory and record nothing in the cache it writes)
    subprocess.run([sys.executable, "-c", convert, str(tmp_path / "engine")], env=env, cwd=REPO, timeout=600,
                   check=True, capture_output=True)
    bundle = tmp_path / "engine"
    runtime = json.loads((bundle / "engine.json").read_text())["runtime"]
    assert runtime["compile_mode"] == "default", runtime.get("compile_note")
    assert runtime["built_for"]["device"] == "cpu" and runtime["compile_cache"] == "compile_cache.bin"
    assert (bundle / "compile_cache.bin").stat().st_size > 0 and runtime["compile_cache_entries"]
    script = (
        "import json, sys, numpy as np, torch\n"
        "from torch._dynamo.utils import counters\n"
        "from mlkit.engine.runtime import load_engine\n"
        "r = load_engine(sys.argv[1], device='cpu')\n"
        "r.warm()  # batch 1, then the larger buckets: the order the conversion compiled them in\n"
        "x = np.random.default_rng(0).random((2, 3, 32, 32)).astype(np.float32)\n"
        "out = r.infer(x)\n"
        "print(json.dumps({'compiled': r.compiled, 'finite': bool(np.isfinite(out).all()),\n"
        "                  'hits': counters['inductor']['fxgraph_cache_hit'],\n"
        "                  'misses': counters['inductor']['fxgraph_cache_miss']}))\n")
    env = {**env, "TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "empty-inductor"),
           "TRITON_CACHE_DIR": str(tmp_path / "empty-triton")}
    proc = subprocess.run([sys.executable, "-c", script, str(bundle)], capture_output=True, text=True, env=env,
                          cwd=REPO, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result == {"compiled": True, "finite": True, "hits": result["hits"], "misses": 0}
    assert result["hits"] >= 1
