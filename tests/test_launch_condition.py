"""The checks' launch-time specialization: `hoist-checks` records an entry condition the host can
decide, the launch evaluates it, and runs the kernel's proven specialization (no per-thread entry
test, no checked copy) only when it holds; otherwise the kernel as compiled, which reports exactly as
before. Runs on the simulator in CI and on the GPU with `-m gpu`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import warpforge as wf
from warpforge.runtime.launch_condition import holds

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
import histogram  # noqa: E402
import stencil  # noqa: E402
import transpose  # noqa: E402
import vecadd  # noqa: E402

sys.path.remove(str(ROOT / "examples"))


class _Buf:
    def __init__(self, n: int):
        self.shape = (n,)


STENCIL_P = json.dumps(
    ["and", ["and", ["cmp", "ule", ["arg", 2], ["const", 2**31 - 1]], ["cmp", "ule", ["arg", 3], ["const", 2**31 - 1]]],
     ["cmp", "slt", ["add", ["const", -1], ["mul", ["arg", 2], ["arg", 3]]], ["len", 0]]]
)  # fmt: skip


def test_evaluator_decides_as_the_kernel_would():
    """i64 arithmetic, signed and unsigned compares, lengths from `.shape`; anything unreadable: False."""
    assert holds(STENCIL_P, (_Buf(64 * 32), _Buf(0), 64, 32))
    assert not holds(STENCIL_P, (_Buf(64 * 32 - 1), _Buf(0), 64, 32))
    assert not holds(STENCIL_P, (_Buf(2**40), _Buf(0), 2**31, 1))  # past the assumed range
    assert not holds(STENCIL_P, (_Buf(10), _Buf(0), -1, 5))  # -1 is 2^64 - 1 unsigned: not <= 2^31 - 1
    assert not holds(STENCIL_P, (object(), _Buf(0), 4, 4))  # no length
    assert not holds(STENCIL_P, (_Buf(16), _Buf(0), "4", 4))
    wraps = json.dumps(["cmp", "slt", ["mul", ["arg", 0], ["arg", 0]], ["const", 0]])
    assert holds(wraps, (2**32,)) is False and holds(wraps, (3037000500,))  # 3037000500^2 wraps negative in i64
    assert not holds("", (1,)) and not holds("[\"nonsense\"]", (1,))


@pytest.mark.parametrize("kern", [stencil.jacobi_step, transpose.transpose], ids=["stencil", "transpose"])
def test_recorded_and_specialized(kern):
    """Both kernels' entry conditions read only arguments and lengths; the proven specialization has
    no entry branch and no checked copy, and a distinct cache key."""
    compiled = kern.compile("sm_90")
    cond = json.loads(compiled.launch_condition)
    assert cond[0] == "and" and "len" in compiled.launch_condition
    proven = kern.proven_specialization()
    assert proven.checks_hold and proven is kern.proven_specialization()
    ir = proven.ir("gpu")
    assert "branch_weights" not in ir and "func.call @__wf_report_error" not in ir and ir.count("gpu.return") == 1, ir
    assert proven.compile("sm_90").cache_key != compiled.cache_key
    assert "branch_weights" in kern.ir("gpu")


def _devices():
    yield pytest.param("simulator", id="simulator")
    yield pytest.param("gpu", id="gpu", marks=pytest.mark.gpu)


def _device(kind: str):
    return wf.Device.simulator() if kind == "simulator" else wf.Device(0)


@pytest.mark.parametrize("kind", list(_devices()))
def test_stencil_results_with_the_proven_kernel(kind):
    """len(u) = rows * cols: the condition holds, the proven kernel runs; NumPy's Jacobi step."""
    rows, cols = 21, 35
    dev = _device(kind)
    stream = dev.create_stream()
    rng = np.random.default_rng(1505)
    u_host = rng.random((rows, cols), dtype=np.float32)
    u = wf.DeviceBuffer.from_host(stream, u_host.ravel())
    out = wf.DeviceBuffer.from_host(stream, np.full(rows * cols, np.nan, np.float32))
    k = stencil.jacobi_step
    assert holds(k.compile(dev.chip).launch_condition, (u, out, rows, cols))
    k.launch(stream, k.prepare(wf.LaunchConfig(grid=((cols + 31) // 32, (rows + 7) // 8, 1), block=(32, 8, 1)), device=dev), u, out, rows, cols)
    want = u_host.copy()
    want[1:-1, 1:-1] = np.float32(0.25) * (u_host[1:-1, :-2] + u_host[1:-1, 2:] + u_host[:-2, 1:-1] + u_host[2:, 1:-1])
    np.testing.assert_allclose(out.to_host(stream).reshape(rows, cols), want, rtol=1e-6)


@pytest.mark.parametrize("kind", list(_devices()))
def test_stencil_short_input_reports_as_before(kind):
    """len(u) one short of rows * cols: the condition fails, the kernel as compiled runs, and the
    first out-of-range read is reported: the last row's `u[i]` at index rows * cols - 1 (the last
    element, on the border), by the thread of that element."""
    rows, cols = 16, 32
    dev = _device(kind)
    stream = dev.create_stream()
    rng = np.random.default_rng(1506)
    u = wf.DeviceBuffer.from_host(stream, rng.random(rows * cols - 1, dtype=np.float32))
    out = wf.DeviceBuffer.from_host(stream, np.full(rows * cols, np.nan, np.float32))
    k = stencil.jacobi_step
    assert not holds(k.compile(dev.chip).launch_condition, (u, out, rows, cols))
    k.launch(stream, k.prepare(wf.LaunchConfig(grid=(1, 2, 1), block=(32, 8, 1)), device=dev), u, out, rows, cols)
    with pytest.raises(wf.KernelError) as info:
        out.to_host(stream)
    text = str(info.value)
    n = rows * cols - 1
    assert f"index {n} not in [0, {n})" in text, text
    assert "block (0, 1), thread (31, 7)" in text, text


def _assemble_both(kern) -> None:
    """The kernel as compiled and its proven specialization through ptxas (when installed)."""
    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    for k in (kern, kern.proven_specialization()):
        ptx = k.compile("sm_90").ptx
        if find_ptxas() is not None:
            run_ptxas(ptx, "sm_90", verbose=False)


GRID_P = json.dumps(["cmp", "slt", ["add", ["mul", ["grid", 0], ["block", 0]], ["const", -1]], ["len", 0]])


def test_evaluator_reads_the_launch_extents():
    """`["grid", d]` / `["block", d]` are the launch config's extents; without a config: False."""
    assert holds(GRID_P, (_Buf(1024),), wf.LaunchConfig(grid=4, block=256))
    assert not holds(GRID_P, (_Buf(1023),), wf.LaunchConfig(grid=4, block=256))
    assert not holds(GRID_P, (_Buf(1024),), wf.LaunchConfig(grid=5, block=256))
    assert not holds(GRID_P, (_Buf(1024),))
    assert not holds(json.dumps(["cmp", "slt", ["grid", 3], ["const", 1]]), (), wf.LaunchConfig(grid=1, block=1))


def test_vecadd_condition_reads_the_grid():
    """vecadd's unguarded a[i], b[i]: (gridDim.x - 1) * blockDim.x + 255 < len(a), len(b), decided at launch."""
    cond = vecadd.vecadd.compile("sm_90").launch_condition
    assert '["grid", 0]' in cond and '["block", 0]' in cond and '["len", 0]' in cond and '["len", 1]' in cond
    a, b, c = _Buf(1024), _Buf(1024), _Buf(1024)
    assert holds(cond, (a, b, c), wf.LaunchConfig(grid=4, block=256))
    assert not holds(cond, (a, _Buf(1000), c), wf.LaunchConfig(grid=4, block=256))
    assert not holds(cond, (a, b, c), wf.LaunchConfig(grid=5, block=256))
    _assemble_both(vecadd.vecadd)


@pytest.mark.parametrize("kind", list(_devices()))
def test_vecadd_proven_and_overhanging_grid(kind):
    """A grid that covers len(b) exactly runs the proven kernel (NumPy's sum); one block more reports
    b's first out-of-range read as before (block 4, index 1024 + its thread)."""
    n = 1024
    dev = _device(kind)
    stream = dev.create_stream()
    rng = np.random.default_rng(1507)
    a_h, b_h = rng.standard_normal(n + 256).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    a, b = wf.DeviceBuffer.from_host(stream, a_h), wf.DeviceBuffer.from_host(stream, b_h)
    c = wf.DeviceBuffer.from_host(stream, np.full(n, np.nan, np.float32))
    k = vecadd.vecadd
    k.launch(stream, k.prepare(wf.LaunchConfig(grid=4, block=256), device=dev), a, b, c)
    np.testing.assert_array_equal(c.to_host(stream), a_h[:n] + b_h)
    k.launch(stream, k.prepare(wf.LaunchConfig(grid=5, block=256), device=dev), a, b, c)
    with pytest.raises(wf.KernelError) as info:
        c.to_host(stream)
    text = str(info.value)
    d = info.value.details
    assert "b[i]" in text and f"not in [0, {n})" in text and d["count"] == 256 and d["block"] == (4, 0), text
    assert n <= d["index"] < n + 256 and d["thread"] == (d["index"] - n, 0)
    if kind == "simulator":  # threads run in order there: the first is thread 0
        assert f"index {n} not in [0, {n})" in text and "thread (0, 0)" in text, text


def test_histogram_proves_its_atomics():
    """The bin index `counts[data[k]]` of a u8 is below 256 (int-range-optimizations) and the checked
    `atomic_add(hist, t, c)` is hoisted (`255 < len(hist)`): the proven kernel has no check left."""
    k = histogram.histogram
    cond = k.compile("sm_90").launch_condition
    assert '["const", 255], ["len", 1]' in cond, cond
    ir = k.proven_specialization().ir("gpu")
    body = ir[ir.index("gpu.func @histogram"):]
    assert "func.call @__wf_report_error" not in body and body.count("memref.atomic_rmw") == 2, body
    _assemble_both(k)


@pytest.mark.parametrize("kind", list(_devices()))
def test_histogram_proven_and_short_hist_reported(kind):
    """256 bins: the proven kernel counts as NumPy's bincount. 200 bins: the condition fails, and the
    kernel as compiled reports the first atomic past the end (a thread t >= 200 with a count > 0)."""
    dev = _device(kind)
    stream = dev.create_stream()
    rng = np.random.default_rng(1508)
    data_h = rng.integers(0, 256, 3000, dtype=np.uint8)
    data = wf.DeviceBuffer.from_host(stream, data_h)
    k = histogram.histogram
    config = wf.LaunchConfig(grid=3, block=histogram.BINS)
    hist = wf.DeviceBuffer.zeroed(stream, 256, wf.u32)
    assert holds(k.compile(dev.chip).launch_condition, (data, hist), config)
    k.launch(stream, k.prepare(config, device=dev), data, hist)
    np.testing.assert_array_equal(hist.to_host(stream), np.bincount(data_h, minlength=256).astype(np.uint32))
    short = wf.DeviceBuffer.zeroed(stream, 200, wf.u32)
    assert not holds(k.compile(dev.chip).launch_condition, (data, short), config)
    k.launch(stream, k.prepare(config, device=dev), data, short)
    with pytest.raises(wf.KernelError) as info:
        short.to_host(stream)
    d = info.value.details
    assert "atomic_add(hist, t, c)" in str(info.value) and d["length"] == 200 and 200 <= d["index"] < 256
    # each block adds its nonzero bins: those >= 200 are the errors (block b reads k with (k % 768) // 256 == b)
    k_all = np.arange(data_h.size)
    errors = sum(int((np.unique(data_h[(k_all % 768) // 256 == b]) >= 200).sum()) for b in range(3))
    assert d["thread"] == (d["index"], 0) and d["count"] == errors, (d, errors)
    np.testing.assert_array_equal(short.to_host(stream), np.bincount(data_h, minlength=256)[:200].astype(np.uint32))
