"""The simulator against the GPU (issue 3's differential test, on the H200): random arithmetic kernels
(arith_kernels.py: mixed dtypes, signed/unsigned, `//`, `%`, shifts, comparisons, `min`/`max`,
conversions, and a transcendental `math` function on top of some) run on both through the same
runtime API with the same inputs, and must agree bit for bit — NaN matches NaN whatever its payload;
after a transcendental function the two may differ by `MATH_ULPS` units in the last place
(libdevice is not correctly rounded). Prints how many kernels and elements it checked.

    pytest -m gpu tests/test_simulator_vs_gpu.py -s      # WARPFORGE_DIFF_EXAMPLES=N to change the count
"""

from __future__ import annotations

import os
import re
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import warpforge as wf

from arith_kernels import MATH_ULPS, case_kernel, draw_case, same_bits, ulp_distance
from kernel_runner import Backend, poisoned

pytestmark = pytest.mark.gpu

EXAMPLES = int(os.environ.get("WARPFORGE_DIFF_EXAMPLES", "400"))
N = 200  # elements: 4 blocks of 64, the last one partly outside the arrays


@pytest.fixture(scope="module")
def expr_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("diff_kernels")


def test_simulator_agrees_with_gpu_bit_for_bit(expr_dir, capsys, record_property) -> None:
    gpu, sim = Backend("gpu"), Backend("simulator")
    counts: Counter[str] = Counter()

    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def check(data) -> None:
        case = draw_case(data, N, math_functions=True)
        if case is None:
            return
        try:
            kernel, source = case_kernel(expr_dir, case)
            on_gpu = gpu.run(kernel, 4, 64, *case.arrays, poisoned(N, case.ref.dtype))[-1]
        except wf.CompileError as e:
            if re.search(r"u64|uint64|no exact common type", str(e)):
                return  # u64 mixed with a signed integer: refused by design
            raise AssertionError(f"{e}\n{case.expr}") from e
        on_sim = sim.run(kernel, 4, 64, *case.arrays, poisoned(N, case.ref.dtype))[-1]
        if case.math_function is None:
            ok = same_bits(on_sim, on_gpu)
            allowed = 0
        else:
            allowed = MATH_ULPS[case.math_function]
            ok = same_bits(on_sim, on_gpu) | (ulp_distance(on_sim, on_gpu) <= allowed).astype(bool)
        if not ok.all():
            bad = np.flatnonzero(~ok)[:5]
            rows = "\n".join(
                f"  inputs {[a[k] for a in case.arrays]} -> simulator {on_sim[k]!r}, GPU {on_gpu[k]!r}" for k in bad
            )
            raise AssertionError(
                f"{case.expr} ({case.ref.dtype}) differs in {int((~ok).sum())} of {N} elements"
                f"{f' (more than {allowed} ulp)' if allowed else ''}:\n{rows}\n{source}"
            )
        counts["kernels"] += 1
        counts["elements"] += N
        counts["transcendental"] += case.math_function is not None
        counts["ulp-different"] += int((~same_bits(on_sim, on_gpu)).sum())

    check()
    summary = (
        f"simulator vs GPU: {counts['kernels']} random kernels, {counts['elements']} elements agreed "
        f"({counts['transcendental']} kernels end in a transcendental function; "
        f"{counts['ulp-different']} of their elements differ by at most a few ulp, the rest bit for bit)"
    )
    record_property("differential", summary)
    with capsys.disabled():
        print(f"\n{summary}")
    assert counts["kernels"] >= EXAMPLES // 2, summary
