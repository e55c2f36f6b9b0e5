#!/bin/sh
# Issue 19's GPU pool on the GPU machine: the watchdog check, bench/pool_bench.py, then bench/colocate_bench.py
# (about 12 minutes in all). Results: $OUT/gpu-watchdog-check.json, $OUT/pool_bench_*.json and
# $OUT/colocate_bench_*.json (bench/results/ without $OUT).
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
python3 bench/colocate_bench.py "$@"
colocate=$?
echo "check_gpu_watchdog exit $check, pool_bench exit $bench, colocate_bench exit $colocate"
[ "$check" -eq 0 ] && [ "$bench" -eq 0 ] && [ "$colocate" -eq 0 ]
