"""One fuzzing session: build the cases of each generator for a budget and a seed, run them in the
worker pool, and count the outcomes."""

from __future__ import annotations

import random
from pathlib import Path
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace

from . import FINDINGS, api, ir, kernels
from .runner import Outcome, run_cases


@dataclass(frozen=True)
class Budget:
    ir: int
    kernels: int
    api: int
    ptxas_every: int = 0
    """Assemble every n-th generated kernel's PTX with ptxas (0: none)."""

    def with_counts(self, ir_count: int | None, kernel_count: int | None, api_count: int | None) -> Budget:
        return replace(
            self,
            ir=self.ir if ir_count is None else ir_count,
            kernels=self.kernels if kernel_count is None else kernel_count,
            api=self.api if api_count is None else api_count,
        )


SLICE = Budget(ir=400, kernels=40, api=len(api.CASES), ptxas_every=10)
"""What CI runs: about a minute on two cores."""
FULL = Budget(ir=16_000, kernels=2_500, api=len(api.CASES), ptxas_every=5)


@dataclass
class Report:
    counts: Counter[tuple[str, str]] = field(default_factory=Counter)
    samples: dict[str, list[Outcome]] = field(default_factory=lambda: defaultdict(list))

    def add(self, o: Outcome) -> None:
        self.counts[(o.kind, o.klass)] += 1
        if o.klass in FINDINGS:
            self.samples[o.klass].append(o)

    def count(self, klass: str, kind: str | None = None) -> int:
        return sum(n for (k, c), n in self.counts.items() if c == klass and (kind is None or k == kind))

    def table(self) -> str:
        kinds = sorted({k for k, _ in self.counts})
        classes = sorted({c for _, c in self.counts}, key=lambda c: (c in FINDINGS, c))
        width = {c: max(10, len(c)) + 2 for c in classes}
        rows = [f"{'':8}" + "".join(f"{c:>{width[c]}}" for c in classes) + f"{'total':>9}"]
        for k in kinds:
            rows.append(f"{k:8}" + "".join(f"{self.counts[(k, c)]:>{width[c]}}" for c in classes) + f"{sum(self.counts[(k, c)] for c in classes):>9}")
        return "\n".join(rows)

    def findings(self, classes: list[str], per_class: int) -> str:
        out = []
        for c in classes:
            for o in self.samples.get(c, [])[:per_class]:
                case = o.case
                where = getattr(case, "origin", None) or getattr(case, "seed", None) or (api.CASES[case] if isinstance(case, int) else case)
                extra = f" {' '.join(case.args)} [{'; '.join(case.mutations)}]" if isinstance(case, ir.Mutant) else ""
                out.append(f"--- {c} ({o.kind}) {where}{extra}\n{o.detail}")
        return "\n".join(out)


def save(outcome: Outcome, directory: Path, n: int) -> None:
    """Write a finding's IR mutant to `directory` (first line: the `warpforge-opt` arguments), to reduce it."""
    case = outcome.case
    if isinstance(case, ir.Mutant):
        directory.mkdir(parents=True, exist_ok=True)
        (directory / f"{outcome.klass}-{n:04}.mlir").write_text(f"// ARGS: {' '.join(case.args)}\n// FROM: {case.origin} [{'; '.join(case.mutations)}]\n{case.text}")


def run(budget: Budget, *, seed: int, workers: int = 2, timeout: float = 30.0, examples: bool = True, nice: int = 0, save_to: Path | None = None) -> Report:
    seeds = ir.lit_seeds() + (ir.example_seeds() if examples else [])
    mutants = ir.mutants(seeds, budget.ir, seed)
    rng = random.Random(seed)
    kernel_cases = [kernels.KernelCase(rng.getrandbits(32), bool(budget.ptxas_every) and k % budget.ptxas_every == 0) for k in range(budget.kernels)]
    api_cases = list(range(min(budget.api, len(api.CASES))))
    cases = [("ir", m) for m in mutants] + [("kernel", c) for c in kernel_cases] + [("api", i) for i in api_cases]
    random.Random(seed + 1).shuffle(cases)  # mix the slow and the fast
    report = Report()
    handlers = {"ir": ir.handle, "kernel": kernels.handle, "api": api.handle}
    for outcome in run_cases(cases, handlers, workers=workers, timeout=timeout, nice=nice):  # pyright: ignore[reportArgumentType]
        report.add(outcome)
        if save_to is not None and outcome.klass in FINDINGS:
            save(outcome, save_to, sum(report.counts.values()))
    return report
