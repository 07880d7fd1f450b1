#!/usr/bin/env bash
# The one GPU check: install (offline wheels), run the GPU tests, every example and the benchmarks,
# and print a short table last. Usage on the GPU machine, from the repository root:
#   bash scripts/gpu-check.sh [pytest args...]
# WF_PARTS=tests,examples,sanitize,bench (the default) picks the parts (tests,examples: a short check); WF_BENCH="vecadd sgemm" picks benches.
# sanitize: every example under compute-sanitizer (`warpforge sanitize`), WF_SANITIZE_TOOLS="memcheck racecheck"
# (the default) per example, each run cut off after WF_SANITIZE_TIMEOUT seconds (default 600; the examples
# run at their own sizes); WF_SANITIZE_EXAMPLES="vecadd saxpy" picks examples.
# Results also go to $OUT (if set) for collection.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/wf-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1

# --- install: warpforge's pure-Python dependencies from .whl/ (copied from ../shared/wheels), then warpforge
if [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >"$OUT/install.log" 2>&1 || { echo "wheel install failed"; cat "$OUT/install.log"; exit 1; }
  export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
python3 -m pip install -q --no-deps --no-build-isolation -e . >>"$OUT/install.log" 2>&1 || { echo "warpforge install failed"; tail -20 "$OUT/install.log"; exit 1; }
export PATH=/tmp/site/bin:$PATH

declare -a rows
row() { rows+=("$(printf '%-34s %-6s %s' "$1" "$2" "$3")"); }

PARTS=${WF_PARTS:-tests,examples,sanitize,bench}

# --- examples: one after another, in the background while the GPU tests run (both mostly compile on the CPU)
run_examples() {
  for ex in examples/*.py; do
    log="$OUT/$(basename "$ex" .py).log"
    if timeout 600 python3 "$ex" >"$log" 2>&1 && grep -q PASSED "$log"; then
      printf '%-34s %-6s %s\n' "$ex" ok "$(grep PASSED "$log" | head -1)"
    else
      printf '%-34s %-6s %s\n' "$ex" FAIL "$(tail -3 "$log" | tr '\n' ' ')"
    fi
  done >"$OUT/example-rows.txt"
}
examples_pid=""
if [[ $PARTS == *examples* ]]; then run_examples & examples_pid=$!; fi

# --- GPU tests (the examples run above, once)
if [[ $PARTS == *tests* ]]; then
# WF_SHARDS (default 8) pytest processes over the test files at once (the machine has 16 cores; compiling
# is most of a GPU test's time), each cut off after WF_TEST_TIMEOUT seconds (default 900)
shards=${WF_SHARDS:-8}
rm -f "$OUT"/shard*.txt
i=0; for f in tests/test_*.py; do echo "$f" >>"$OUT/shard$((i % shards)).txt"; i=$((i + 1)); done
test_pids=()
for ((s = 0; s < shards; s++)); do
  [ -f "$OUT/shard$s.txt" ] || continue
  timeout "${WF_TEST_TIMEOUT:-900}" python3 -m pytest -m gpu -k "not test_example_passes_on_gpu" -q -rfEs -p no:cacheprovider $(cat "$OUT/shard$s.txt") "$@" >"$OUT/pytest-gpu$s.log" 2>&1 &
  test_pids+=($!)
done
wait "${test_pids[@]}"
cat "$OUT"/pytest-gpu[0-9]*.log >"$OUT/pytest-gpu.log"
grep -hE "^(FAILED|ERROR) " "$OUT/pytest-gpu.log" | head -40
passed=0; failed=0; cut=""
for log in "$OUT"/pytest-gpu[0-9]*.log; do
  last=$(tail -1 "$log")
  p=$(grep -oE "[0-9]+ passed" <<<"$last" | grep -oE "^[0-9]+" | head -1)
  f=$(grep -oE "[0-9]+ (failed|errors?)" <<<"$last" | grep -oE "^[0-9]+" | awk '{n += $1} END {print n + 0}')
  if ! grep -qE "passed|failed|error" <<<"$last"; then  # a shard cut off (WF_TEST_TIMEOUT) or crashed: its passes are not counted
    f=$((${f:-0} + 1)); cut="$cut $(basename "$log" .log)"
  fi
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
done
summary="$passed passed, $failed failed or errors ($shards shards${cut:+; cut off or crashed:$cut})"
if [ "$failed" -gt 0 ]; then row "pytest -m gpu" FAIL "$summary"; else row "pytest -m gpu" ok "$summary"; fi
while read -r line; do [ -n "$line" ] && row "  ${line%% - *}" FAIL ""; done < <(grep -hE "^(FAILED|ERROR) " "$OUT/pytest-gpu.log" | head -20)
differential=$(grep -m1 "^simulator vs GPU:" "$OUT/pytest-gpu.log")
[ -n "$differential" ] && row "simulator vs GPU (differential)" ok "${differential#simulator vs GPU: }"
fi


if [ -n "$examples_pid" ]; then
  wait "$examples_pid"
  while IFS= read -r line; do rows+=("$line"); done <"$OUT/example-rows.txt"
fi

# --- every example under compute-sanitizer: one row per example, the error count of each tool
if command -v warpforge >/dev/null; then WF=(warpforge); else WF=(python3 -c 'from warpforge.driver.cli import main; main()'); fi
if [[ $PARTS == *sanitize* ]]; then
  [ -x /tmp/site/nvidia/cu13/bin/compute-sanitizer ] && export PATH=$PATH:/tmp/site/nvidia/cu13/bin  # from a .whl/ wheel
  if ! sanitizer=$(python3 -c 'from warpforge.driver.sanitize import find_compute_sanitizer as f; p = f(); print(p or ""); raise SystemExit(p is None)'); then
    row "compute-sanitizer" skip "not installed: sanitize part not run (pip install 'nvidia-cuda-sanitizer-api==13.0.*')"
  else
    echo "compute-sanitizer: $sanitizer"
    for ex in examples/*.py; do
      name=$(basename "$ex" .py)
      if [ -n "${WF_SANITIZE_EXAMPLES:-}" ] && [[ " $WF_SANITIZE_EXAMPLES " != *" $name "* ]]; then continue; fi
      status=ok; detail=""
      for tool in ${WF_SANITIZE_TOOLS:-memcheck racecheck}; do
        log="$OUT/sanitize-$tool-$name.log"
        timeout -k 30 "${WF_SANITIZE_TIMEOUT:-600}" "${WF[@]}" sanitize --tool "$tool" "$ex" >"$log" 2>&1
        rc=$?
        said=$(grep -a "^warpforge sanitize: " "$log" | tail -1)
        errors=$(sed -nE "s/^warpforge sanitize: $tool: ([0-9]+) errors?.*/\1/p" <<<"$said")
        if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
          status=FAIL; detail="$detail $tool: timed out after ${WF_SANITIZE_TIMEOUT:-600} s${errors:+ ($errors errors so far)};"
        elif [ -z "$errors" ]; then
          status=FAIL; detail="$detail $tool: no summary (exit $rc): $(tail -2 "$log" | tr '\n' ' ');"
        else
          hazards=$(sed -nE 's/.*\(race hazards: ([0-9]+ errors, [0-9]+ warnings)\).*/\1/p' <<<"$said")
          [ "$errors" -eq 0 ] && [ "$rc" -eq 0 ] || status=FAIL
          detail="$detail $tool: $errors errors${hazards:+ (hazards: $hazards)}$([ "$rc" -ne 0 ] && echo ", exit $rc");"
        fi
      done
      detail=${detail# }; row "sanitize $ex" "$status" "${detail%;}"
    done
  fi
fi

# --- benchmarks
[[ $PARTS == *bench* ]] && for b in bench/*.py; do
  [ "$(basename "$b")" = "simulator_speed.py" ] && continue
  name=$(basename "$b" .py)
  if [ -n "${WF_BENCH:-}" ] && [[ " $WF_BENCH " != *" $name "* ]]; then continue; fi
  if timeout 900 python3 "$b" --json "$OUT/bench-$name.json" >"$OUT/bench-$name.log" 2>&1; then
    row "$b" ok "see below"
  else
    row "$b" FAIL "$(tail -3 "$OUT/bench-$name.log" | tr '\n' ' ')"
  fi
done
for b in "$OUT"/bench-*.log; do [ -e "$b" ] && { echo "== $(basename "$b")"; tail -15 "$b"; }; done

echo
echo "==================== warpforge GPU check ===================="
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>/dev/null
for r in "${rows[@]}"; do echo "$r"; done
