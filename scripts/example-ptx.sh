#!/usr/bin/env bash
# The PTX of every example for sm_80, sm_90 and sm_90a (`warpforge compile --emit ptx`), one file per
# example and chip, to compare a change's effect on generated code:
#   bash scripts/example-ptx.sh /tmp/before      # on the commit before
#   bash scripts/example-ptx.sh /tmp/after       # with the change
#   diff -r /tmp/before /tmp/after               # nothing: byte-identical PTX (and the same exit codes)
# Runs with an empty disk cache (WARPFORGE_CACHE_DIR), so nothing compiled earlier is reused.
set -u
out=${1:?usage: scripts/example-ptx.sh OUTDIR}
command -v warpforge >/dev/null || { echo "example-ptx.sh: warpforge is not on PATH (activate the venv)" >&2; exit 1; }
cd "$(dirname "$0")/../examples"
mkdir -p "$out"
WARPFORGE_CACHE_DIR=$(mktemp -d)
export WARPFORGE_CACHE_DIR
for f in *.py; do
  for chip in sm_80 sm_90 sm_90a; do
    warpforge compile "$f" --emit ptx --chip "$chip" -o "$out/${f%.py}.$chip.ptx" >/dev/null 2>&1
    echo "$f $chip exit $?" >>"$out/status"
  done
done
rm -rf "$WARPFORGE_CACHE_DIR"
