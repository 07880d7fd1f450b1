#!/usr/bin/env bash
# A short GPU check for a session with little device time left: the GPU tests in 4 parallel shards,
# every example, then the matmul benchmark; logs in $OUT. Usage: bash scripts/gpu-quick.sh
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/wf-out}; mkdir -p "$OUT"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >"$OUT/install.log" 2>&1
export PYTHONPATH=/tmp/site PATH=/tmp/site/bin:$PATH WARPFORGE_CACHE_DIR=/tmp/wfc PYTHONUNBUFFERED=1
python3 -m pip install -q --no-deps --no-build-isolation -e . >>"$OUT/install.log" 2>&1
files=$(ls tests/test_*.py | grep -v test_examples.py)
i=0; for f in $files; do echo "$f" >> "$OUT/shard$((i % 4)).txt"; i=$((i + 1)); done
for s in 0 1 2 3; do
  timeout "${WF_TEST_TIMEOUT:-270}" python3 -m pytest -m gpu -q -p no:cacheprovider -rf $(cat "$OUT/shard$s.txt") >"$OUT/pytest$s.log" 2>&1 &
done
wait
for s in 0 1 2 3; do echo "shard $s: $(tail -1 "$OUT/pytest$s.log")"; grep -E "^FAILED|^ERROR" "$OUT/pytest$s.log" | head -20; done
for ex in examples/*.py; do
  n=$(basename "$ex" .py)
  timeout 120 python3 "$ex" >"$OUT/ex-$n.log" 2>&1; echo "$n: $(grep -m1 PASSED "$OUT/ex-$n.log" || tail -2 "$OUT/ex-$n.log" | tr '\n' ' ')"
done
