"""SIMT tensor cores (`simt.mma_sync`, `simt.ldmatrix`, `simt.cp_async`): each kernel runs on the GPU
(marked `gpu`) and on the CPU simulator, against NumPy on fresh random inputs with poisoned outputs.
The GPU run is what checks the fragment layouts (`warpforge.mma`, PTX ISA §9.7.14.5.8-.10): the
frontend's `simt.mma_coords` and the simulator both read the one table, the hardware does not.
Also: misuse is a `CompileError` at its line, and every kernel's PTX goes through ptxas with no
`.extern .func` call.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import warpforge as wf
from warpforge import mma, simt
from warpforge.backend.toolkit import find_ptxas, run_ptxas

from kernel_runner import backend, poisoned  # noqa: F401  (backend is a fixture)

SEED = 20261201


def _rng(salt: int) -> np.random.Generator:
    return np.random.default_rng(SEED + salt)


def _ptx_ok(kernel) -> str:
    ptx = kernel.ir("ptx")
    assert ".extern .func" not in ptx
    if find_ptxas() is not None:
        run_ptxas(ptx, "sm_90", verbose=False)
    return ptx


# --------------------------------------------------------------------------- fragment layouts (host side)


def test_fragment_layouts_cover_each_matrix_entry_once() -> None:
    for operand, dt in (("a", wf.f16), ("b", wf.f16), ("c", wf.f32), ("a", wf.f32), ("b", wf.f32), ("a", wf.i8), ("b", wf.u8)):
        frag = mma.Fragment(operand, dt)
        rows, cols = frag.layout()
        r, c = frag.matrix
        assert rows.shape == (32, frag.elements)
        assert sorted(zip(rows.ravel().tolist(), cols.ravel().tolist())) == [(i, j) for i in range(r) for j in range(c)]


def test_fragment_layout_matches_ptx_isa_examples() -> None:
    # PTX ISA 9.0 §9.7.14.5.9 (m16n8k16, .f16): lane 5 (groupID 1, threadID_in_group 1)
    a = mma.Fragment("a", wf.f16)
    assert [a.coords(5, i) for i in range(8)] == [(1, 2), (1, 3), (9, 2), (9, 3), (1, 10), (1, 11), (9, 10), (9, 11)]
    b = mma.Fragment("b", wf.f16)
    assert [b.coords(5, i) for i in range(4)] == [(2, 1), (3, 1), (10, 1), (11, 1)]
    c = mma.Fragment("c", wf.f32)
    assert [c.coords(5, i) for i in range(4)] == [(1, 2), (1, 3), (9, 2), (9, 3)]


def test_fragment_rejects_dtypes_without_mma() -> None:
    with pytest.raises(ValueError, match="holds f16, bf16, f32, i8, u8, not f64"):
        mma.Fragment("a", wf.f64)


# --------------------------------------------------------------------------- mma.sync through mma_coords


def _mma_kernel(in_dt, acc_dt, tf32: bool = False):
    na = A_ELEMS[in_dt.name]
    nb = na // 2

    @simt.kernel(contract=simt.Contract(domain=1, block=(32, 1, 1)))
    def mma_one(x: simt.Slice[in_dt], y: simt.Slice[in_dt], z: simt.Slice[acc_dt], out: simt.unsafe.RawSlice[acc_dt], k: wf.i64):
        a = simt.mma_fragment("a", in_dt)
        b = simt.mma_fragment("b", in_dt)
        c = simt.mma_fragment("c", acc_dt)
        for i in simt.static_range(na):
            r, q = simt.mma_coords(a, i)
            a[i] = x[r * k + q]
        for i in simt.static_range(nb):
            r, q = simt.mma_coords(b, i)
            b[i] = y[r * 8 + q]
        for i in simt.static_range(4):
            r, q = simt.mma_coords(c, i)
            c[i] = z[r * 8 + q]
        d = simt.mma_sync(a, b, c, allow_tf32=tf32)
        for i in simt.static_range(4):
            r, q = simt.mma_coords(d, i)
            out[r * 8 + q] = d[i]

    return mma_one


A_ELEMS = {"f16": 8, "bf16": 8, "f32": 4, "i8": 16, "u8": 16}

CASES = [
    ("f16", "f32"), ("f16", "f16"), ("bf16", "f32"), ("f32", "f32"), ("i8", "i32"), ("u8", "i32"),
]  # fmt: skip


def _inputs(in_name: str, acc_name: str, k: int, salt: int):
    rng = _rng(salt)
    if in_name in ("i8", "u8"):
        lo, hi = (-128, 128) if in_name == "i8" else (0, 256)
        dt = np.int8 if in_name == "i8" else np.uint8
        x = rng.integers(lo, hi, (16, k)).astype(dt)
        y = rng.integers(lo, hi, (k, 8)).astype(dt)
        z = rng.integers(-(2**20), 2**20, (16, 8)).astype(np.int32)
        return x, y, z, x.astype(np.int64) @ y.astype(np.int64) + z
    np_in = {"f16": np.float16, "bf16": wf.bf16.np, "f32": np.float32}[in_name]
    x = rng.standard_normal((16, k)).astype(np_in)
    y = rng.standard_normal((k, 8)).astype(np_in)
    np_acc = np.float32 if acc_name == "f32" else np.float16
    z = rng.standard_normal((16, 8)).astype(np_acc)
    xf, yf = x.astype(np.float64), y.astype(np.float64)
    if in_name == "f32":  # tf32: the top 10 mantissa bits
        xf = (x.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float64)
        yf = (y.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float64)
    return x, y, z, xf @ yf + z.astype(np.float64)


@pytest.mark.parametrize("in_name,acc_name", CASES, ids=[f"{a}-{c}" for a, c in CASES])
def test_mma_sync_one_warp(backend, in_name: str, acc_name: str) -> None:
    in_dt, acc_dt = getattr(wf, in_name), getattr(wf, acc_name)
    kernel = _mma_kernel(in_dt, acc_dt, tf32=in_name == "f32")
    k = int(mma.INPUT_SHAPES[in_name].split("k")[1])
    x, y, z, want = _inputs(in_name, acc_name, k, CASES.index((in_name, acc_name)))
    np_acc = z.dtype
    out = poisoned(128, np_acc) if np_acc.kind == "f" else np.full(128, -7, np_acc)
    (got,) = backend.run(kernel, 1, 32, x.ravel(), y.ravel(), z.ravel(), out, k)[3:4]
    got = got.reshape(16, 8).astype(np.float64)
    if np_acc.kind == "i":
        np.testing.assert_array_equal(got, want)
    else:
        scale = np.abs(x.astype(np.float64)) @ np.abs(y.astype(np.float64)) + np.abs(z.astype(np.float64))
        eps = {"f32": 2.0**-22, "f16": 2.0**-9}[acc_name] * (4 if in_name != "f32" else 2.0**10)
        assert np.all(np.abs(got - want) <= eps * scale + 1e-30), (got - want)
    if backend.name == "simulator":
        ptx = _ptx_ok(kernel)
        assert "mma.sync.aligned" in ptx


# --------------------------------------------------------------------------- ldmatrix


@simt.kernel(contract=simt.Contract(domain=1, block=(32, 1, 1)))
def ldmatrix_all(x: simt.Slice[wf.f16], out: simt.unsafe.RawSlice[wf.f16]):
    lane = simt.lane_id()
    s = simt.shared_array((16, 24), wf.f16)  # padded rows: 48 bytes, each row start 16-byte aligned
    for q in simt.static_range(8):
        s[lane // 2, (lane % 2) * 8 + q] = x[lane * 8 + q]
    simt.sync_threads()
    a = simt.ldmatrix(s, (lane % 16, 8 * (lane // 16)))  # x4: the A fragment of the 16x16 tile
    for i in simt.static_range(8):
        r, c = simt.mma_coords(a, i)
        out[r * 16 + c] = a[i]
    b = simt.ldmatrix(s, (lane % 16, 8), num=2, trans=True)  # x2.trans: the B fragment of s[:, 8:16]
    for i in simt.static_range(4):
        r, c = simt.mma_coords(b, i)
        out[256 + r * 8 + c] = b[i]
    one = simt.ldmatrix(s, (lane % 8, 0), num=1)  # x1: row lane // 4, columns 2 (lane % 4) + 0, 1
    out[384 + lane * 2] = one[0]
    out[384 + lane * 2 + 1] = one[1]


def test_ldmatrix_x4_x2_trans_x1(backend) -> None:
    x = _rng(50).standard_normal(256).astype(np.float16)
    out = poisoned(448, np.float16)
    (got,) = backend.run(ldmatrix_all, 1, 32, x, out)[1:]
    tile = x.reshape(16, 16)
    np.testing.assert_array_equal(got[:256].reshape(16, 16), tile)
    np.testing.assert_array_equal(got[256:384].reshape(16, 8), tile[:, 8:16])
    lanes = np.arange(32)
    x1 = np.stack([tile[lanes // 4, 2 * (lanes % 4)], tile[lanes // 4, 2 * (lanes % 4) + 1]], axis=1).ravel()
    np.testing.assert_array_equal(got[384:], x1)
    if backend.name == "simulator":
        ptx = _ptx_ok(ldmatrix_all)
        assert "ldmatrix.sync.aligned.m8n8.x4.shared.b16" in ptx and "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16" in ptx


# --------------------------------------------------------------------------- cp.async


@simt.kernel(contract=simt.Contract(domain=1, block=(32, 1, 1)))
def cp_async_tail(x: simt.Slice[wf.f32], out: simt.unsafe.RawSlice[wf.f32]):
    lane = simt.lane_id()
    s = simt.shared_array((32, 4), wf.f32)
    for q in simt.static_range(4):
        s[lane, q] = -1.0
    simt.sync_threads()
    simt.cp_async(s, (lane, 0), x, lane * 4)  # 16 bytes; past the end of x: zero-filled
    simt.cp_async_commit()
    simt.cp_async_wait(0)
    simt.sync_threads()
    for q in simt.static_range(4):
        out[lane * 4 + q] = s[31 - lane, q]


def test_cp_async_zero_fills_the_tail(backend) -> None:
    n = 4 * 20 + 3  # lanes 0-19 copy whole chunks, lane 20 three elements, lanes 21-31 nothing
    x = _rng(60).standard_normal(n).astype(np.float32)
    out = poisoned(128, np.float32)
    (got,) = backend.run(cp_async_tail, 1, 32, x, out)[1:]
    want = np.zeros(128, np.float32)
    want[:n] = x
    np.testing.assert_array_equal(got.reshape(32, 4), want.reshape(32, 4)[::-1])
    if backend.name == "simulator":
        assert "cp.async.cg.shared.global" in _ptx_ok(cp_async_tail)


@simt.kernel(contract=simt.Contract(domain=1, block=(32, 1, 1)))
def cp_async_groups(x: simt.Slice[wf.f32], out: simt.unsafe.RawSlice[wf.f32]):
    lane = simt.lane_id()
    s = simt.shared_array((2, 32, 2), wf.f32)
    simt.cp_async(s, (0, lane, 0), x, lane * 2, nbytes=8)  # .ca, 8 bytes
    simt.cp_async_commit()
    simt.cp_async(s, (1, lane, 0), x, 64 + lane * 2, nbytes=8)
    simt.cp_async_commit()
    simt.cp_async_wait(1)  # the first group is complete; the second may not be
    out[lane * 2] = s[0, lane, 0]
    out[lane * 2 + 1] = s[0, lane, 1]
    simt.cp_async_wait(0)
    out[64 + lane * 2] = s[1, lane, 0]
    out[64 + lane * 2 + 1] = s[1, lane, 1]


def test_cp_async_wait_group_counts_groups(backend) -> None:
    x = _rng(61).standard_normal(128).astype(np.float32)
    out = poisoned(128, np.float32)
    (got,) = backend.run(cp_async_groups, 1, 32, x, out)[1:]
    np.testing.assert_array_equal(got, x)
    if backend.name == "simulator":
        assert "cp.async.ca.shared.global" in _ptx_ok(cp_async_groups)


@simt.kernel(contract=simt.Contract(domain=1, block=(32, 1, 1)))
def cp_async_no_wait(x: simt.Slice[wf.f32], out: simt.unsafe.RawSlice[wf.f32]):
    lane = simt.lane_id()
    s = simt.shared_array((32, 4), wf.f32)
    for q in simt.static_range(4):
        s[lane, q] = -1.0
    simt.cp_async(s, (lane, 0), x, lane * 4)
    simt.cp_async_commit()
    out[lane] = s[lane, 0]  # before any wait: the simulator shows the old contents
    simt.cp_async_wait(0)


def test_simulator_completes_copies_only_at_a_wait() -> None:
    from warpforge import simulator

    x = _rng(62).standard_normal(128).astype(np.float32)
    out = poisoned(32, np.float32)
    simulator.run(cp_async_no_wait, 1, 32, x, out)
    np.testing.assert_array_equal(out, np.full(32, -1, np.float32))


# --------------------------------------------------------------------------- misuse: CompileError at the line


def _compile_error(fn, message: str) -> None:
    with pytest.raises(wf.CompileError, match=re.escape(message)) as info:
        fn.ir("gpu")
    assert "test_mma.py:" in str(info.value)


def test_mixed_input_dtypes_are_refused() -> None:
    @simt.kernel
    def k(out: simt.unsafe.RawSlice[wf.f32]):
        a = simt.mma_fragment("a", wf.f16)
        b = simt.mma_fragment("b", wf.bf16)
        c = simt.mma_fragment("c", wf.f32)
        d = simt.mma_sync(a, b, c)
        out[0] = d[0]

    _compile_error(k, "simt.mma_sync: A and B must have one dtype, got A f16 and B bf16 (m16n8k16)")


def test_f32_inputs_need_allow_tf32() -> None:
    @simt.kernel
    def k(out: simt.unsafe.RawSlice[wf.f32]):
        a = simt.mma_fragment("a", wf.f32)
        b = simt.mma_fragment("b", wf.f32)
        c = simt.mma_fragment("c", wf.f32)
        d = simt.mma_sync(a, b, c)
        out[0] = d[0]

    _compile_error(k, "pass allow_tf32=True to accept that precision")


def test_operands_in_the_wrong_place_are_refused() -> None:
    @simt.kernel
    def k(out: simt.unsafe.RawSlice[wf.f32]):
        a = simt.mma_fragment("a", wf.f16)
        c = simt.mma_fragment("c", wf.f32)
        d = simt.mma_sync(a, a, c)
        out[0] = d[0]

    _compile_error(k, "its b argument must be an B fragment, got an mma A fragment of 8 f16")


def test_no_mma_for_this_accumulator() -> None:
    @simt.kernel
    def k(out: simt.unsafe.RawSlice[wf.f32]):
        a = simt.mma_fragment("a", wf.bf16)
        b = simt.mma_fragment("b", wf.bf16)
        c = simt.mma_fragment("c", wf.f16)
        d = simt.mma_sync(a, b, c)
        out[0] = d[0]

    _compile_error(k, "no m16n8k16 mma with bf16 inputs and a f16 accumulator")


def test_f64_fragment_is_refused() -> None:
    @simt.kernel
    def k(out: simt.unsafe.RawSlice[wf.f64]):
        a = simt.mma_fragment("a", wf.f64)
        out[0] = a[0]

    _compile_error(k, "simt.mma_fragment: an mma A fragment holds f16, bf16, f32, i8, u8, not f64")


def test_ldmatrix_needs_16_bit_shared_data() -> None:
    @simt.kernel
    def k(out: simt.unsafe.RawSlice[wf.f32]):
        s = simt.shared_array((16, 16), wf.f32)
        a = simt.ldmatrix(s, (0, 0))
        out[0] = a[0]

    _compile_error(k, "simt.ldmatrix loads 8x8 matrices of 16-bit floats from a shared array of f16 or bf16")


def test_cp_async_sizes() -> None:
    @simt.kernel
    def k(x: simt.Slice[wf.f32]):
        s = simt.shared_array((16,), wf.f32)
        simt.cp_async(s, 0, x, 0, nbytes=12)

    _compile_error(k, "simt.cp_async copies 4, 8 or 16 bytes (a multiple of f32's 4), not 12")


def test_mma_needs_sm_80() -> None:
    kernel = _mma_kernel(wf.f16, wf.f32)
    with pytest.raises(wf.CompileError, match=r"'nvvm.mma.sync.m16n8k16.row.col.f32.f16.f16.f32' op needs sm_80 and PTX 7.0, but .* targets sm_75"):
        kernel.ir("ptx", chip="sm_75", features="+ptx70")


# --------------------------------------------------------------------------- fragment arrays carried by a loop


@simt.kernel(contract=simt.Contract(domain=1, block=(32, 1, 1)))
def mma_fragment_array_loop(x: simt.Slice[wf.f16], y: simt.Slice[wf.f16], out: simt.unsafe.RawSlice[wf.f32], steps: wf.i64):
    acc = simt.mma_fragment("c", wf.f32, count=(1, 2))  # C = x (16 x 16·steps) @ y (16·steps x 16), two n8 halves
    b = simt.mma_fragment("b", wf.f16, count=2)
    for s in range(steps):  # a run-time loop carries every element of acc (and b)
        a = simt.mma_fragment("a", wf.f16)
        for i in simt.static_range(8):
            r, q = simt.mma_coords(a, i)
            a[i] = x[r * 16 * steps + 16 * s + q]
        for j in simt.static_range(2):
            for i in simt.static_range(4):
                r, q = simt.mma_coords(b[j], i)
                b[j][i] = y[(16 * s + r) * 16 + 8 * j + q]
        for j in simt.static_range(2):
            acc[0, j] = simt.mma_sync(a, b[j], acc[0, j])
    for j in simt.static_range(2):
        for i in simt.static_range(4):
            r, q = simt.mma_coords(acc[0, j], i)
            out[r * 16 + 8 * j + q] = acc[0, j][i]


def test_fragment_array_carried_by_a_loop(backend) -> None:
    steps = 3
    rng = _rng(70)
    x = rng.standard_normal((16, 16 * steps)).astype(np.float16)
    y = rng.standard_normal((16 * steps, 16)).astype(np.float16)
    out = poisoned(256, np.float32)
    (got,) = backend.run(mma_fragment_array_loop, 1, 32, x.ravel(), y.ravel(), out, steps)[2:3]
    want = x.astype(np.float64) @ y.astype(np.float64)
    bound = np.abs(x.astype(np.float64)) @ np.abs(y.astype(np.float64))
    assert np.all(np.abs(got.reshape(16, 16) - want) <= 2.0**-20 * 16 * steps * bound + 1e-30)


def test_fragment_array_needs_constant_indices() -> None:
    @simt.kernel
    def k(out: simt.unsafe.RawSlice[wf.f32], n: wf.i64):
        acc = simt.mma_fragment("c", wf.f32, count=2)
        out[0] = acc[n][0]

    _compile_error(k, "an array 2 of mma C fragments of f32 is indexed by compile-time ints (simt.static_range)")


def test_mma_kernels_need_whole_warps() -> None:
    """mma.sync and ldmatrix are `.aligned` warp instructions: a launch with a partial warp is refused
    (the bug this catches: they were missing from the runtime's list of warp collectives)."""
    from warpforge.runtime import DeviceLimits, LaunchConfig, check_launch

    @simt.kernel
    def uses_mma(out: simt.unsafe.RawSlice[wf.f32]):
        a = simt.mma_fragment("a", wf.f16, fill=1.0)
        b = simt.mma_fragment("b", wf.f16, fill=1.0)
        c = simt.mma_fragment("c", wf.f32)
        d = simt.mma_sync(a, b, c)
        out[simt.lane_id()] = d[0]

    @simt.kernel
    def uses_ldmatrix(out: simt.unsafe.RawSlice[wf.f16]):
        s = simt.shared_array((16, 16), wf.f16)
        one = simt.ldmatrix(s, (simt.lane_id() % 8, 0), num=1)
        out[simt.lane_id()] = one[0]

    for kernel in (uses_mma, uses_ldmatrix):
        compiled = kernel.compile()
        assert compiled.full_warps
        check_launch(compiled, LaunchConfig(grid=1, block=64), DeviceLimits.H200)
        with pytest.raises(wf.LaunchError, match="not a multiple of 32"):
            check_launch(compiled, LaunchConfig(grid=1, block=48), DeviceLimits.H200)
