"""warpforge's own fuzzer: IR mutants, generated kernels and host-API misuse, each run in a worker
process with a timeout and classified.

    python -m tests.fuzz                 # the bounded, seeded slice CI runs (tests/test_fuzz.py)
    python -m tests.fuzz --full          # the full run: 16,000 IR mutants, 2,500 kernels, every API case
    python -m tests.fuzz --ir 500 --kernels 0 --api 0 --seed 7 --show internal,traceback

Three generators (`ir.py`, `kernels.py`, `api.py`), one runner (`runner.py`):

- **IR mutants**: every `.mlir` input of the lit suite (split at `// -----`) and the `kernel`/`gpu`
  IR of the examples, mutated (integers → boundary values, SSA uses swapped, types swapped, lines
  deleted/duplicated/swapped, op names swapped, punctuation inserted, strings replaced, truncation)
  and run through `warpforge-opt` in-process with the pipeline of the input's RUN line (and `-t ptx`
  for a share of them; PTX that comes out goes through ptxas).
- **Kernels**: random SIMT kernels (mixed-dtype arithmetic, shifts, comparisons, conversions,
  `min`/`max`, branches, a transcendental function, `math.hypot`, warp shuffles) run on the CPU
  simulator and compared with a NumPy reference (bit for bit; a few ulp after a libdevice function).
- **API misuse**: each public entry point called with arguments it must refuse.

Classes: `ok`, `located` (a diagnostic with line:col), `unlocated` (a diagnostic without one),
`refused` (an API case raised a `WarpforgeError`), `internal` (`internal error: …`), `traceback`
(a non-warpforge exception escaped), `abort` (the worker process died: LLVM ERROR, a signal),
`hang` (past the timeout), `wrong` (a kernel disagreed with NumPy), `accepted` (an invalid API call
raised nothing), `ptxas` (PTX emitted with exit 0 that ptxas rejects), `verifier-crash` (a verifier
raised something other than a VerifyException — upstream xDSL's memref.load/store and llvm casts —
reported as a located diagnostic that says so; counted, not a failure). Everything but `ok`,
`located`, `refused` and `verifier-crash` is a finding; `--show CLASS,…` prints examples of them. Each finding that
was fixed is kept, reduced, in `regressions/` (run by tests/test_fuzz.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
REPO = TESTS.parent
if str(TESTS) not in sys.path:  # arith_kernels, kernel_runner: importable both from pytest and `python -m tests.fuzz`
    sys.path.insert(0, str(TESTS))

FINDINGS = ("unlocated", "internal", "traceback", "abort", "hang", "wrong", "accepted", "ptxas")
"""The classes that are bugs (issue 16: each must be zero)."""
