"""`simt.static_range` loops stay loops through the frontend and every pass (a `kernel.for` marked
`llvm.loop_unroll_full`, unrolled by LLVM), so compile work does not grow with the trip count; where
the body needs the variable as a constant (a shuffle offset, a Python-level comparison, its value
after the loop, a fresh array per iteration) the frontend unrolls it as before. Both give the same
results: each kernel runs on both backends (the simulator in CI, the GPU under `-m gpu`) against
NumPy on fresh seeded inputs."""

from __future__ import annotations

import importlib.util
import re

import numpy as np
import pytest

import warpforge as wf
from warpforge import simt

from kernel_runner import Backend, backend, poisoned  # noqa: F401 (backend is the fixture)

rng = np.random.default_rng(1313)


def _ptxas(ptx: str) -> None:
    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    assert ".extern .func" not in ptx
    if find_ptxas() is not None:
        run_ptxas(ptx, "sm_90", verbose=False)


def _kept(kernel) -> int:
    """How many static_range loops of `kernel` the frontend kept as loops."""
    return kernel.ir("kernel").count("llvm.loop_unroll_full")


# --------------------------------------------------------------------------- kept as loops


@simt.kernel(contract=simt.Contract(domain=1, block=(128, 1, 1)))
def register_blocked(x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32]):
    """out[8t + j] = sum_k x[8t + k] * (k + 1) * w(j, k), with 8 x 8 register arrays indexed only by
    static_range variables (registers after LLVM's unrolling and SROA)."""
    idx = simt.index_1d()
    t = idx.get()
    vals = simt.local_array(8, wf.f32)
    acc = simt.local_array((8, 8), wf.f32)
    for k in simt.static_range(8):
        vals[k] = x[t * 8 + k] if t * 8 + k < len(x) else wf.f32(0)
    for j in simt.static_range(8):
        for k in simt.static_range(8):
            acc[j, k] = vals[k] * (k + 1) * ((j * 8 + k) % 5 - 2)  # weak ints: stays f32
    for j in simt.static_range(7, -1, -1):  # a negative step
        s = wf.f32(0)
        for k in simt.static_range(8):
            s += acc[j, k]
        acc[j, 0] = s
    total = wf.f32(0)
    for j in simt.static_range(8):
        total += acc[j, 0] * (j // 2 + 1)
    out[idx] = total


def _register_blocked_expected(x: np.ndarray) -> np.ndarray:
    n = len(x) // 8
    out = np.zeros(n, np.float32)
    for t in range(n):
        total = np.float32(0)
        for j in range(8):
            s = np.float32(0)
            for k in range(8):
                s = np.float32(s + np.float32(np.float32(x[8 * t + k] * np.float32(k + 1)) * np.float32((j * 8 + k) % 5 - 2)))
            total = np.float32(total + np.float32(s * np.float32(j // 2 + 1)))
        out[t] = total
    return out


def test_register_arrays_indexed_by_loop_variables_stay_loops_and_registers() -> None:
    ir = register_blocked.ir("kernel")
    assert _kept(register_blocked) == 6, ir  # every static_range loop
    assert "f64" not in ir  # `(k + 1)`, `% 5 - 2`: weak ints, as the unrolled constants were
    ll = register_blocked.ir("ll")
    assert re.search(r'!\d+ = distinct !\{ !\d+, !\d+, !\d+ \}', ll) and '!"llvm.loop.unroll.full"' in ll and "!llvm.loop" in ll
    ptx = register_blocked.ir("ptx")
    assert "ld.local" not in ptx and "st.local" not in ptx  # LLVM unrolled the loops; SROA kept the arrays in registers
    assert not re.search(r"bra(\.uni)?\s+\$L__BB0_\d+;\s*\n\s*\$L__func_end", ptx)
    _ptxas(ptx)


def test_register_blocked_matches_numpy(backend: Backend) -> None:
    n = 128 * 2
    x = rng.standard_normal(8 * n).astype(np.float32)
    (out,) = backend.run(register_blocked, 2, 128, x, poisoned(n, np.float32))[1:]
    np.testing.assert_allclose(out, _register_blocked_expected(x), rtol=1e-5, atol=1e-5)


def _kernel_from(tmp_path, name: str, source: str):
    path = tmp_path / f"{name}.py"
    path.write_text("import warpforge as wf\nfrom warpforge import simt\n\n" + source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


LINEAR = """
@simt.kernel(contract=simt.Contract(domain=1, block=(64, 1, 1)))
def linear(x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32]):
    idx = simt.index_1d()
    i = idx.get()
    acc = wf.f32(0)
    for q in simt.static_range({n}):
        acc += x[(i * {n} + q) % len(x)] * (q % 3)
    out[idx] = acc
"""


def test_compile_work_does_not_grow_with_the_trip_count(tmp_path) -> None:
    """Issue 13's "compile time grows at most linearly with the frontend's IR": a static_range body
    is compiled once whatever its trip count, so every stage has the same op count for 4 and 1024
    iterations (the frontend unrolled 1024 copies before)."""
    from warpforge.compile import lower_simt

    counts = {}
    for n in (4, 64, 1024):
        k = _kernel_from(tmp_path, "linear", LINEAR.format(n=n))
        assert _kept(k) == 1
        counts[n] = tuple(len(re.findall(r"^\s*(?:%\S+ = )?[a-z_]+\.[a-z_.]+", lower_simt(k, stage), re.M)) for stage in ("kernel", "gpu", "llvm"))
    assert counts[4] == counts[64] == counts[1024], counts


# --------------------------------------------------------------------------- unrolled where a constant is needed


@simt.kernel(contract=simt.Contract(domain=1, block=(64, 1, 1)))
def needs_constants(x: simt.Slice[wf.i32], out: simt.DisjointSlice[wf.i32]):
    idx = simt.index_1d()
    i = idx.get()
    v = x[i]
    for s in simt.static_range(5):  # a shuffle offset: unrolled
        v += simt.shfl_xor(v, 1 << s)
    w = wf.i32(0)
    for q in simt.static_range(4):  # a Python-level comparison: unrolled
        if q == 2:
            w += x[i] * 10
        else:
            w += q
    for last in simt.static_range(3):  # its value after the loop: unrolled
        w += last
    out[idx] = v + w + last


def test_uses_that_need_a_constant_unroll_and_match_numpy(backend: Backend) -> None:
    assert _kept(needs_constants) == 0
    n = 128
    x = rng.integers(-1000, 1000, n).astype(np.int32)
    (out,) = backend.run(needs_constants, 2, 64, x, poisoned(n, np.int32))[1:]
    warp_sums = x.reshape(-1, 32).sum(axis=1, dtype=np.int64).astype(np.int32)  # xor butterfly: every lane the warp's sum
    expected = np.repeat(warp_sums, 32) + (x * 10 + 0 + 1 + 3) + (0 + 1 + 2) + 2
    np.testing.assert_array_equal(out, expected.astype(np.int32))


MIXED = """
@simt.kernel(contract=simt.Contract(domain=1, block=(64, 1, 1)))
def mixed(x: simt.Slice[wf.u8], out: simt.DisjointSlice[wf.u8]):
    idx = simt.index_1d()
    i = idx.get()
    v = x[i]
    for q in simt.static_range({start}, {stop}):
        v = v + q  # a u8 plus a weak int: u8 (wraps), if every q fits u8
    out[idx] = v
"""


@pytest.mark.parametrize(("start", "stop", "kept"), [(250, 254, 1), (254, 258, 0)])
def test_a_value_that_does_not_fit_is_refused_as_when_unrolled(tmp_path, start: int, stop: int, kept: int) -> None:
    k = _kernel_from(tmp_path, "mixed", MIXED.format(start=start, stop=stop))
    if kept:
        assert _kept(k) == 1 and "ui8" in k.ir("kernel")
        return
    with pytest.raises(wf.CompileError, match="the constant 256 does not fit u8"):
        k.ir("kernel")


@simt.kernel(contract=simt.Contract(domain=1, block=(64, 1, 1)))
def advancing(x: simt.Slice[wf.i32], out: simt.DisjointSlice[wf.i32], n: wf.i64):
    idx = simt.index_1d()
    i = idx.get()
    total = wf.i32(0)
    for q in simt.static_range(3):
        r = q  # a static_range variable that an inner run-time loop carries and advances
        for _ in range(n):
            total += x[(i + r) % len(x)]
            r = r + 1
    out[idx] = total


def test_a_loop_variable_carried_by_an_inner_loop_advances(backend: Backend) -> None:
    """Regression: a `LoopIndex` value assigned in an inner run-time loop was not carried by it (each
    iteration read the value from before the loop); such a loop is unrolled instead."""
    m, steps = 128, 5
    x = rng.integers(-100, 100, m).astype(np.int32)
    (out,) = backend.run(advancing, 2, 64, x, poisoned(m, np.int32), np.int64(steps))[1:2]
    i = np.arange(m)
    expected = sum(x[(i + q + k) % m].astype(np.int64) for q in range(3) for k in range(steps))
    np.testing.assert_array_equal(out, expected.astype(np.int32))


# --------------------------------------------------------------------------- when LLVM does not unroll

UNKNOWN_TRIP_COUNT = """
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @k(ptr addrspace(1) %p, i64 %n) {
entry:
  br label %h
h:
  %i = phi i64 [0, %entry], [%i2, %b]
  %c = icmp slt i64 %i, %n
  br i1 %c, label %b, label %e
b:
  %g = getelementptr float, ptr addrspace(1) %p, i64 %i
  store volatile float 1.0, ptr addrspace(1) %g
  %i2 = add i64 %i, 1
  br label %h, !llvm.loop !0
e:
  ret void
}

!0 = distinct !{!0, !1, !2}
!1 = !{!"llvm.loop.unroll.full"}
!2 = !{!"warpforge.static_range"}
"""


def test_a_marked_loop_llvm_keeps_is_reported_when_asked() -> None:
    """LLVM cannot fully unroll a loop whose trip count it does not know: its loop ID (with our
    `warpforge.static_range` property) survives O3, and the SIMT driver (which asks) hears of it;
    other callers get the PTX."""
    from warpforge.backend.nvptx import LoopNotUnrolled, NVPTXOptions, compile_ptx

    with pytest.raises(LoopNotUnrolled):
        compile_ptx(UNKNOWN_TRIP_COUNT, NVPTXOptions(require_unrolled=True))
    _ptxas(compile_ptx(UNKNOWN_TRIP_COUNT, NVPTXOptions()))


def test_the_driver_unrolls_in_the_frontend_when_llvm_keeps_a_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    """When LLVM keeps a static_range loop (too big for its unroller), its local arrays would stay in
    local memory: the kernel is compiled again with the frontend unrolling every static_range."""
    import warpforge.backend.nvptx as nvptx
    from warpforge import compile as wf_compile

    monkeypatch.setenv("WARPFORGE_CACHE", "0")
    real = nvptx.optimize_and_link
    attempts: list[bool] = []

    def declining(llvm_ir, options=nvptx.NVPTXOptions()):
        attempts.append(options.require_unrolled)
        if options.require_unrolled:
            raise nvptx.LoopNotUnrolled()
        return real(llvm_ir, options)

    monkeypatch.setattr(nvptx, "optimize_and_link", declining)
    seen: list[str] = []
    real_once = wf_compile._compile_simt_once

    def spy(kernel, chip, features, key, *, unroll_static):
        seen.append(kernel.kernel_ir(unroll_static=unroll_static).module.__str__())
        return real_once(kernel, chip, features, key, unroll_static=unroll_static)

    monkeypatch.setattr(wf_compile, "_compile_simt_once", spy)
    compiled = wf_compile._compile_simt(register_blocked, "sm_90", "", "")
    assert attempts == [True, False]
    assert "llvm.loop_unroll_full" in seen[0] and "llvm.loop_unroll_full" not in seen[1]
    assert "kernel.for" not in seen[1]  # every static_range unrolled by the frontend
    assert "ld.local" not in compiled.ptx
    _ptxas(compiled.ptx)
