"""Regression tests for issue 16's findings (robustness under fuzzing): each test is a reduced case
that once aborted the process, hung, raised a non-warpforge exception, or gave a silently wrong
result. Semantics tests run on both backends (`backend` fixture: GPU marked `gpu`, and the CPU
simulator); every PTX they produce goes through ptxas when it is installed."""

from __future__ import annotations

import io
import math
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pytest

import warpforge as wf
from warpforge import simt

from kernel_runner import Backend, backend, poisoned  # noqa: F401 (backend is the fixture)


def assemble(kernel: object, chip: str = "sm_90") -> str:
    """The kernel's PTX, assembled by ptxas when it is installed."""
    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    ptx = kernel.compile(chip).ptx  # pyright: ignore[reportAttributeAccessIssue]
    if find_ptxas() is not None:
        run_ptxas(ptx, chip, verbose=False)
    return ptx


def opt(args: list[str], text: str, tmp_path) -> tuple[int, str]:  # noqa: ANN001
    """Run `warpforge-opt` in-process on `text`; (exit status, stderr)."""
    from warpforge.driver.opt import main

    path = tmp_path / "input.mlir"
    path.write_text(text)
    err, out = io.StringIO(), io.StringIO()
    code = 0
    with redirect_stderr(err), redirect_stdout(out):
        try:
            main([str(path), *args])
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
    return code, err.getvalue()


# --------------------------------------------------------------------------- math.hypot


@simt.kernel
def hypot_kernel(x: simt.Slice[wf.f32], y: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32], out64: simt.DisjointSlice[wf.f64]):
    idx = simt.index_1d()
    i = idx.get()
    out[idx] = math.hypot(x[i], y[i])
    out64[idx] = math.hypot(wf.f64(x[i]) * 1e200, wf.f64(y[i]) * 1e200)


def test_hypot_does_not_overflow_or_underflow(backend: Backend) -> None:
    """`hypot(3e30, 4e30)` in f32 is 5e30, not inf (it was lowered as sqrt(x*x + y*y)); f64 past 1e154 too."""
    rng = np.random.default_rng(16)
    n = 512
    mant = rng.uniform(-4, 4, n).astype(np.float32)
    expo = rng.integers(-30, 37, n)
    x = (mant * np.float32(10.0) ** expo.astype(np.float32)).astype(np.float32)
    y = (rng.uniform(-4, 4, n) * 10.0 ** rng.integers(-30, 37, n)).astype(np.float32)
    x[:4] = [3e30, np.inf, np.nan, 1e-30]
    y[:4] = [4e30, np.nan, 1.0, 1e-30]
    out, out64 = backend.run(hypot_kernel, n // 256, 256, x, y, poisoned(n, np.float32), poisoned(n, np.float64))[2:]
    np.testing.assert_allclose(out, np.hypot(x, y), rtol=4e-7, atol=0)  # libdevice hypotf: 3 ulp
    wide = np.hypot(x.astype(np.float64) * 1e200, y.astype(np.float64) * 1e200)
    np.testing.assert_allclose(out64, wide, rtol=1e-15, atol=0)  # libdevice hypot: 2 ulp
    assert out[0] == np.float32(5e30) and out[1] == np.inf  # C99 Annex F: hypot(inf, NaN) = inf
    assemble(hypot_kernel)


def test_hypot_calls_libdevice() -> None:
    ptx = assemble(hypot_kernel)
    assert ".extern .func" not in ptx
    assert "__nv_hypot" in hypot_kernel.ir("gpu")
