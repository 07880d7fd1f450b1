"""`python -m tests.fuzz [--full] [--seed N] [--ir N] [--kernels N] [--api N] [--workers N] [--show CLASSES]`

Without `--full`: the bounded slice CI runs (tests/test_fuzz.py). Prints a table of counts per
generator and class, then examples of each finding class named by `--show` (default: every
finding class). Exit status 1 when a finding class has a count."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from . import FINDINGS
from .session import SLICE, FULL, run


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--full", action="store_true", help=f"the full run: {FULL.ir} IR mutants, {FULL.kernels} kernels, every API case")
    p.add_argument("--seed", type=int, default=16)
    p.add_argument("--ir", type=int, help="number of IR mutants")
    p.add_argument("--kernels", type=int, help="number of generated kernels")
    p.add_argument("--api", type=int, help="number of API cases (at most all of them)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--timeout", type=float, default=30.0, help="seconds per case before it counts as a hang")
    p.add_argument("--no-examples", action="store_true", help="mutate only the lit inputs (not the examples' IR)")
    p.add_argument("--show", default=",".join(FINDINGS), help="finding classes to print examples of")
    p.add_argument("--examples", type=int, default=5, help="examples printed per class")
    p.add_argument("--save", type=Path, help="write the IR mutants of findings to this folder (to reduce them)")
    args = p.parse_args(argv)
    budget = FULL if args.full else SLICE
    budget = budget.with_counts(args.ir, args.kernels, args.api)
    start = time.monotonic()
    _import_all()
    report = run(budget, seed=args.seed, workers=args.workers, timeout=args.timeout, examples=not args.no_examples, nice=10 if args.full else 0, save_to=args.save)
    print(report.table())
    shown = [c for c in args.show.split(",") if c]
    print(report.findings(shown, args.examples))
    print(f"{time.monotonic() - start:.0f} s")
    return 1 if any(report.count(c) for c in FINDINGS) else 0


def _import_all() -> None:
    """Import every warpforge module before the workers fork, so that each worker runs the code as
    it was when the run started (a long run would otherwise import files edited meanwhile)."""
    import importlib
    import pkgutil

    import warpforge

    for info in pkgutil.walk_packages(warpforge.__path__, "warpforge."):
        try:
            importlib.import_module(info.name)
        except Exception:  # noqa: BLE001 - an optional module (the GPU runtime without a driver): imported on use
            pass


if __name__ == "__main__":
    sys.exit(main())
