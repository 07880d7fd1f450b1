"""The fuzzer's CI slice and its regression cases (tests/fuzz; `python -m tests.fuzz --full` by hand).

- Every reduced finding in tests/fuzz/regressions/ (first line: the `warpforge-opt` arguments,
  second: a regex its diagnostic must match) gives a diagnostic, not an internal error, a traceback,
  an abort or a hang.
- The seeded slice (`tests.fuzz.session.SLICE`: IR mutants, generated kernels against NumPy on the
  simulator, every host-API misuse case) has no findings, unlocated diagnostics included.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fuzz import FINDINGS, api, ir
from fuzz.runner import run_cases
from fuzz.session import SLICE, run

REGRESSIONS = sorted((Path(__file__).parent / "fuzz" / "regressions").glob("*.mlir"))


def _regression(path: Path) -> ir.Mutant:
    text = path.read_text()
    args = tuple(text.splitlines()[0].split("ARGS:", 1)[1].split())
    return ir.Mutant(path.name, (), text, args)


@pytest.fixture(scope="module")
def regression_outcomes() -> dict[str, tuple[str, str]]:
    cases = [("ir", _regression(p)) for p in REGRESSIONS]
    return {o.case.origin: (o.klass, o.detail) for o in run_cases(cases, {"ir": ir.handle}, workers=2, timeout=60)}


@pytest.mark.parametrize("path", REGRESSIONS, ids=lambda p: p.stem)
def test_fuzz_regression_is_a_diagnostic(path: Path, regression_outcomes: dict[str, tuple[str, str]]) -> None:
    klass, detail = regression_outcomes[path.name]
    expect = path.read_text().splitlines()[1].split("EXPECT:", 1)[1].strip()
    assert klass in ("located", "verifier-crash"), f"{path.name}: {klass}: {detail}"
    assert re.search(expect, detail), f"{path.name}: expected /{expect}/ in:\n{detail}"


def test_fuzz_slice_has_no_findings(capsys: pytest.CaptureFixture[str]) -> None:
    report = run(SLICE, seed=16, workers=2, timeout=60)
    with capsys.disabled():
        print("\n" + report.table())
    bad = [c for c in FINDINGS if report.count(c)]
    assert not bad, report.findings(bad, 5)
    assert report.count("ok", "kernel") >= SLICE.kernels * 3 // 4, report.table()


def test_sm_100f_ptx70_is_refused_in_a_fuzz_worker() -> None:
    # this API case aborted the fuzz worker (LLVM ERROR: PTX version does not support the target) on a
    # branch without the chip table; in a forked worker, as the fuzzer runs it, it is a TargetError
    case = api.CASES.index("k.ir('ptx', chip='sm_100f', features='+ptx70')")
    (outcome,) = run_cases([("api", case)], {"api": api.handle}, workers=1, timeout=120)
    assert outcome.klass == "refused", outcome.detail
    assert "TargetError: PTX 7.0 (features '+ptx70') cannot target sm_100f" in outcome.detail


def _spin(case: int) -> tuple[str, str]:
    while True:
        pass


def _wait(case: int) -> tuple[str, str]:
    import time

    time.sleep(case)  # waiting, as a niced worker waits for a CPU on a busy machine: no CPU used
    return "ok", ""


def test_the_runner_counts_cpu_time_for_hangs() -> None:
    # a case that computes past the timeout is a hang; one that only waits past it is not (the full
    # run on a shared 2-core machine reported 8 false hangs when the timeout was wall time)
    (spin,) = run_cases([("k", 0)], {"k": _spin}, workers=1, timeout=1.0)
    assert spin.klass == "hang" and "of CPU time" in spin.detail
    (wait,) = run_cases([("k", 2)], {"k": _wait}, workers=1, timeout=1.0)
    assert wait.klass == "ok", wait.detail
