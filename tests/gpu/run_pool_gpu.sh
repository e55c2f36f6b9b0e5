#!/bin/sh
# Issue 19's GPU pool on the GPU machine: the watchdog check, then bench/pool_bench.py (about 3 minutes in all).
# Results: $OUT/gpu-watchdog-check.json and $OUT/pool_bench_*.json (bench/results/ without $OUT).
#   sh tests/gpu/run_pool_gpu.sh            # GPU machine
#   sh tests/gpu/run_pool_gpu.sh --quick    # CPU smoke run of both
cd "$(dirname "$0")/../.." || exit 1
if [ "$1" != "--quick" ] && ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps .whl/*.whl || exit 1
fi
export PYTHONPATH="$PWD"
[ -n "$OUT" ] && export AIPIPE_BENCH_OUT="$OUT"
python3 tests/gpu/check_gpu_watchdog.py "$@"
check=$?
python3 bench/pool_bench.py "$@"
bench=$?
echo "check_gpu_watchdog exit $check, pool_bench exit $bench"
[ "$check" -eq 0 ] && [ "$bench" -eq 0 ]
