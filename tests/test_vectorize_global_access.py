"""`vectorize-global-access` and the launch-time alignment specialization of SIMT kernels.

A thread reading 4 consecutive f32 of a slice in a `simt.static_range(4)` loop gets one
`ld.global.nc.v4` in its PTX when the slice's pointer is 16-byte aligned (the default specialization);
a launch with a pointer that is not runs the scalar specialization, and a direct launch of the
vectorized compiled kernel refuses it. The results and the error reports are those of the scalar
code. Runs on the simulator in CI and on the GPU with `-m gpu`.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import warpforge as wf
from warpforge import f32, simt

from test_runtime_fake_driver import sim  # noqa: F401, E402  (the fake driver's fixture)

V4 = re.compile(r"ld\.global\.nc\.v4\.[bf]32")
ST4 = re.compile(r"st\.global\.v4\.[bf]32")


@simt.kernel(contract=simt.Contract(domain=1, block=(128, 1, 1)))
def vecadd4(a: simt.Slice[f32], b: simt.Slice[f32], c: simt.DisjointSlice[f32]):
    idx = simt.index_1d()
    i = idx.get() * 4
    mine = c.row(idx, 4)
    for q in simt.static_range(4):
        mine[q] = a[i + q] + b[i + q]


vecadd4_unchecked = simt.kernel(vecadd4.fn, contract=vecadd4.contract, checks=False)


def _ptxas(ptx: str, tmp_path: Path) -> None:
    ptxas = shutil.which("ptxas")
    if ptxas is None:
        pytest.skip("ptxas not installed")
    src = tmp_path / "k.ptx"
    src.write_text(ptx)
    proc = subprocess.run([ptxas, "-arch=sm_90", str(src), "-o", str(tmp_path / "k.cubin")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("kern", [vecadd4, vecadd4_unchecked], ids=["checked", "unchecked"])
def test_ptx_reads_128_bits_at_once(kern, tmp_path: Path):
    """Both reads of the fast path are one `ld.global.nc.v4` each, the row's four stores one
    `st.global.v4`; the compiled kernel records that it relies on all three pointers being 16-byte
    aligned."""
    compiled = kern.compile("sm_90")
    assert len(V4.findall(compiled.ptx)) == 2, compiled.ptx
    assert ST4.findall(compiled.ptx), compiled.ptx
    assert [p.align for p in compiled.params] == [16, 16, 16]
    _ptxas(compiled.ptx, tmp_path)


@pytest.mark.parametrize("kern", [vecadd4, vecadd4_unchecked], ids=["checked", "unchecked"])
def test_scalar_specialization_has_no_vector_loads(kern, tmp_path: Path):
    """`assume_aligned=False` (what a misaligned launch runs): scalar loads, nothing assumed."""
    scalar = kern.scalar_specialization()
    assert scalar is kern.scalar_specialization() and not scalar.assume_aligned
    compiled = scalar.compile("sm_90")
    assert not V4.findall(compiled.ptx) and "ld.global.nc" in compiled.ptx
    assert all(p.align == 0 for p in compiled.params)
    assert compiled.cache_key != kern.compile("sm_90").cache_key
    _ptxas(compiled.ptx, tmp_path)


def test_gpu_ir_shows_the_vector_load():
    gpu_ir = vecadd4.ir("gpu")
    assert gpu_ir.count("vector.load") == 2 and "{alignment = 16 : i64}" in gpu_ir, gpu_ir
    assert "llvm.align = 16" in gpu_ir
    # the checked copy still reads element by element through its checks
    assert gpu_ir.count("func.call @__wf_report_error") == 2, gpu_ir


def _devices():
    yield pytest.param("simulator", id="simulator")
    yield pytest.param("gpu", id="gpu", marks=pytest.mark.gpu)


def _device(kind: str):
    return wf.Device.simulator() if kind == "simulator" else wf.Device(0)


@pytest.mark.parametrize("kind", list(_devices()))
@pytest.mark.parametrize("kern", [vecadd4, vecadd4_unchecked], ids=["checked", "unchecked"])
@pytest.mark.parametrize("n", [4096, 4094])
def test_results_are_numpys(kind, kern, n):
    """Random inputs, poisoned output; `n = 4094` leaves the last thread a partial row (its checked
    reads take the slow path; unchecked, the inputs are padded so nothing reads past them)."""
    dev = _device(kind)
    stream = dev.create_stream()
    rng = np.random.default_rng(1502 + n)
    pad = 0 if kern.checks else (-n) % 4
    a_host = rng.standard_normal(n + pad).astype(np.float32)
    b_host = rng.standard_normal(n + pad).astype(np.float32)
    a = wf.DeviceBuffer.from_host(stream, a_host)
    b = wf.DeviceBuffer.from_host(stream, b_host)
    c = wf.DeviceBuffer.from_host(stream, np.full(n, np.nan, np.float32))
    kern.launch(stream, kern.prepare(wf.LaunchConfig(grid=((n + 3) // 4 + 127) // 128, block=128), device=dev), a, b, c)
    if kern.checks and n % 4:
        with pytest.raises(wf.KernelError):  # the last row reads a[4094], past the end
            c.to_host(stream)
        return
    np.testing.assert_array_equal(c.to_host(stream), (a_host + b_host)[:n])


def _report(kern, a_len: int) -> str:
    dev = wf.Device.simulator()
    stream = dev.create_stream()
    rng = np.random.default_rng(1503)
    a = wf.DeviceBuffer.from_host(stream, rng.standard_normal(a_len).astype(np.float32))
    b = wf.DeviceBuffer.from_host(stream, rng.standard_normal(1024).astype(np.float32))
    c = wf.DeviceBuffer.from_host(stream, np.full(1024, np.nan, np.float32))
    from warpforge.simt import _pointers_aligned  # pyright: ignore[reportPrivateUsage]

    if kern.assume_aligned:  # the vectorized code is what runs (the simulator's buffers are 16-byte aligned)
        assert _pointers_aligned(kern.compile("sm_90").params, (a, b, c))
    kern.launch(stream, kern.prepare(wf.LaunchConfig(grid=2, block=128), device=dev), a, b, c)
    with pytest.raises(wf.KernelError) as info:
        c.to_host(stream)
    return str(info.value)


@pytest.mark.parametrize("a_len", [1023, 1021, 600])
def test_error_report_unchanged(a_len):
    """`a` shorter than `b`: the vectorized kernel reports the first bad index, its length, block and
    thread and the count exactly as the scalar specialization (the code without the pass) does."""
    vectorized = _report(vecadd4, a_len)
    scalar = _report(vecadd4.scalar_specialization(), a_len)
    assert vectorized == scalar
    assert f"a[i + q]" in vectorized and f"index {a_len} not in [0, {a_len})" in vectorized, vectorized
    thread = a_len // 4
    assert f"block ({thread // 128}, 0), thread ({thread % 128}, 0)" in vectorized, vectorized


class _Buf:
    def __init__(self, ptr: int):
        self.ptr = ptr


def test_alignment_decides_the_specialization():
    """The launch's choice, without a GPU: every pointer the code needs aligned must be so."""
    from warpforge.simt import _pointers_aligned  # pyright: ignore[reportPrivateUsage]

    params = vecadd4.compile("sm_90").params
    assert _pointers_aligned(params, (_Buf(0x1000), _Buf(0x2010), _Buf(0x3020)))
    assert not _pointers_aligned(params, (_Buf(0x1000), _Buf(0x2010), _Buf(0x3004)))  # c: written by st.global.v4
    assert not _pointers_aligned(params, (_Buf(0x1004), _Buf(0x2000), _Buf(0x3000)))
    assert not _pointers_aligned(params, (_Buf(0x1000), object(), _Buf(0x3000)))  # unknown address: scalar code


@pytest.mark.gpu
def test_misaligned_pointer_runs_the_scalar_code():
    """torch views one element into their storage (4-byte aligned): the kernel's launch runs the scalar
    specialization (NumPy's results); the runtime refuses them for the vectorized compiled kernel."""
    torch = pytest.importorskip("torch")
    n = 4096
    gen = torch.Generator(device="cpu").manual_seed(1504)
    a_full = torch.randn(n + 1, generator=gen).cuda()
    b_full = torch.randn(n + 1, generator=gen).cuda()
    a, b = a_full[1:], b_full[1:]
    assert a.data_ptr() % 16 and b.data_ptr() % 16
    c = torch.full((n,), float("nan"), device="cuda")
    dev = wf.Device(0)
    stream = dev.create_stream()
    cfg = wf.LaunchConfig(grid=n // 4 // 128, block=128)
    prepared = vecadd4.prepare(cfg, device=dev)
    vecadd4.launch(stream, prepared, a, b, c)
    stream.sync()
    np.testing.assert_array_equal(c.cpu().numpy(), (a + b).cpu().numpy())
    from warpforge.runtime import launch

    with pytest.raises(wf.LaunchError, match="not 16-byte aligned"):
        launch(stream, prepared, (a, b, c))


def test_runtime_refuses_what_the_vector_loads_cannot_take(sim, monkeypatch):
    """Without a GPU (the fake driver of test_runtime_fake_driver): a compiled kernel whose `a` needs a
    16-byte-aligned pointer and whose `n` a multiple of 16 refuses a pointer 4 bytes off and n = 20
    before launching, and launches with aligned ones."""
    import test_runtime_fake_driver as fake
    from warpforge.runtime import DeviceBuffer, LaunchConfig, launch, prepare
    from warpforge.runtime.compiled import ParamSpec

    f32 = np.dtype(np.float32)
    kern, impl = fake.make(
        "vec4", [ParamSpec("a", "slice", f32, align=16), ParamSpec("c", "disjoint_slice", f32), ParamSpec("n", "scalar", np.dtype(np.int64), 0, align=16)],
        lambda config, *args: None, checked=False,
    )
    sim.kernels["vec4"] = impl
    dev = wf.Device(0)
    s = dev.create_stream()
    a = DeviceBuffer.from_host(s, np.arange(64, dtype=np.float32))
    c = DeviceBuffer.zeroed(s, 64, wf.f32)
    prepared = prepare(kern, LaunchConfig(1, 32), dev)
    launch(s, prepared, (a, c, 32))
    assert len(sim.launches) == 1

    class Offset:  # the same memory, one element in
        def __init__(self, buf):
            cai = dict(buf.__cuda_array_interface__)
            cai["data"] = (cai["data"][0] + 4, cai["data"][1])
            cai["shape"] = (cai["shape"][0] - 1,)
            self.__cuda_array_interface__ = cai

    class SMV:
        @staticmethod
        def from_cuda_array_interface(obj, stream_ptr):
            cai = obj.__cuda_array_interface__
            view = type("V", (), {})()
            view.ptr, view.shape, view.strides, view.dtype = cai["data"][0], tuple(cai["shape"]), None, np.dtype(cai["typestr"])
            view.device_id, view.is_device_accessible, view.readonly = 0, True, cai["data"][1]
            return view

    import cuda.core.utils

    monkeypatch.setattr(cuda.core.utils, "StridedMemoryView", SMV)
    with pytest.raises(wf.LaunchError, match="argument 'a' at 0x[0-9a-f]+ is not 16-byte aligned"):
        launch(s, prepared, (Offset(a), c, 32))
    with pytest.raises(wf.LaunchError, match="argument 'n' = 20 is not a multiple of 16"):
        launch(s, prepared, (a, c, 20))
    assert len(sim.launches) == 1


# --------------------------------------------------------------------------- vector stores

STV = re.compile(r"st\.global\.v[24]\.[bf](32|64)")
TM, TN = 2, 8  # tile_scale's piece of C per thread: 2 rows of 8 consecutive f32 (two st.global.v4 each)


@simt.kernel(contract=simt.Contract(domain=2, block=(8, 8, 1)))
def tile_scale(a: simt.Slice[f32], c: simt.DisjointSlice[f32], m: wf.i64, n: wf.i64):
    """c = 3 a for an m x n row-major matrix; each thread computes a TM x TN piece into registers and
    writes it through a tile view (rows TM * row + r, columns TN * col + j), as sgemm's epilogue does
    (a loop whose body branches, like the `if` here, keeps its scalar stores)."""
    idx = simt.index_2d((n + TN - 1) // TN)
    piece = simt.local_array((TM, TN), f32)
    for r in simt.static_range(TM):
        for j in simt.static_range(TN):
            row = idx.row * TM + r
            col = idx.col * TN + j
            piece[r, j] = a[row * n + col] * wf.f32(3.0) if row < m and col < n else wf.f32(-1.0)
    mine = c.tile(idx, (TM, TN), n)
    for r in simt.static_range(TM):
        for j in simt.static_range(TN):
            mine[r, j] = piece[r, j]


tile_scale_unchecked = simt.kernel(tile_scale.fn, contract=tile_scale.contract, checks=False)


@simt.kernel(contract=simt.Contract(domain=1, block=(128, 1, 1)))
def raw_pairs(a: simt.Slice[f32], out: simt.unsafe.RawSlice[f32]):
    """out[4t + q] = a[4t + q] + 1 through a RawSlice: checked writes (an out-of-range one is reported)."""
    i = simt.index_1d().get() * 4
    for q in simt.static_range(4):
        out[i + q] = a[i + q] + wf.f32(1.0)


@pytest.mark.parametrize("kern", [tile_scale, tile_scale_unchecked, raw_pairs], ids=["tile", "tile-unchecked", "raw"])
def test_ptx_writes_128_bits_at_once(kern, tmp_path: Path):
    """The consecutive stores of a thread become `st.global.v4` (in the code a launch runs: the kernel as
    compiled, or its proven specialization when the entry condition is decided at launch); the scalar
    specialization has none and relies on no alignment; every PTX goes through ptxas."""
    compiled = kern.compile("sm_90")
    runs = kern.proven_specialization().compile("sm_90") if compiled.launch_condition else compiled
    assert STV.findall(runs.ptx), runs.ptx
    assert [p.align for p in compiled.params if p.writable] == [16]
    _ptxas(compiled.ptx, tmp_path)
    _ptxas(runs.ptx, tmp_path)
    scalar = kern.scalar_specialization().compile("sm_90")
    assert not STV.findall(scalar.ptx) and all(p.align == 0 for p in scalar.params)
    _ptxas(scalar.ptx, tmp_path)


def test_gpu_ir_shows_the_vector_store_and_the_simulator_runs_it():
    """The gpu IR (what the simulator runs) holds the vector store, the vector the loop carries and the
    element-by-element path; the simulator implements every op the pass emits."""
    from warpforge import simulator

    gpu_ir = tile_scale.ir("gpu")
    assert "vector.store" in gpu_ir and "vector.insert" in gpu_ir and "{alignment = 16 : i64}" in gpu_ir, gpu_ir
    assert re.search(r"vector\.store %\S+, %c\[", gpu_ir), gpu_ir
    emitted = {"vector.load", "vector.store", "vector.insert", "vector.extract", "vector.broadcast"}
    assert emitted <= set(simulator.supported_ops())


@pytest.mark.parametrize("kind", list(_devices()))
@pytest.mark.parametrize("kern", [tile_scale, tile_scale_unchecked], ids=["checked", "unchecked"])
@pytest.mark.parametrize(("m", "n", "short"), [(64, 128, 0), (37, 96, 0), (40, 64, 3), (48, 112, 13)])
def test_tile_stores_are_numpys(kind, kern, m, n, short):
    """Random inputs, poisoned output: full pieces (one vector store per row of 8), rows past m (whose
    guards fail: the element-by-element path stores nothing), an overhanging grid, and a `c` shorter
    than m * n by `short` elements (the last pieces partly inside: only the elements inside are
    written). n stays a multiple of 16 (the specialization); other n run the scalar code."""
    dev = _device(kind)
    stream = dev.create_stream()
    rng = np.random.default_rng(1505 + m * n + short)
    a_host = rng.standard_normal(m * n).astype(np.float32)
    poison = np.float32(np.nan)
    c = wf.DeviceBuffer.from_host(stream, np.full(m * n - short, poison, np.float32))
    a = wf.DeviceBuffer.from_host(stream, a_host)
    grid = (-(-n // (8 * TN)) + 1, -(-m // (8 * TM)) + 1, 1)  # one block column and row too many
    kern.launch(stream, kern.prepare(wf.LaunchConfig(grid=grid, block=(8, 8, 1)), device=dev), a, c, m, n)
    got = c.to_host(stream)
    np.testing.assert_array_equal(got, (3 * a_host)[: m * n - short])


@pytest.mark.parametrize("kind", list(_devices()))
def test_raw_stores_are_numpys(kind):
    """The RawSlice kernel's proven launch (every write provably in range) stores with st.global.v4."""
    dev = _device(kind)
    stream = dev.create_stream()
    rng = np.random.default_rng(1506)
    n = 4096
    a_host = rng.standard_normal(n).astype(np.float32)
    a = wf.DeviceBuffer.from_host(stream, a_host)
    out = wf.DeviceBuffer.from_host(stream, np.full(n, np.nan, np.float32))
    raw_pairs.launch(stream, raw_pairs.prepare(wf.LaunchConfig(grid=n // 4 // 128, block=128), device=dev), a, out)
    np.testing.assert_array_equal(out.to_host(stream), a_host + np.float32(1.0))


def _raw_report(kern, kind: str, out_len: int) -> tuple[str, np.ndarray]:
    dev = _device(kind)
    stream = dev.create_stream()
    rng = np.random.default_rng(1507)
    a_host = rng.standard_normal(1024).astype(np.float32)
    a = wf.DeviceBuffer.from_host(stream, a_host)
    out = wf.DeviceBuffer.from_host(stream, np.full(out_len, np.nan, np.float32))
    kern.launch(stream, kern.prepare(wf.LaunchConfig(grid=2, block=128), device=dev), a, out)
    with pytest.raises(wf.KernelError) as info:
        out.to_host(stream)
    return str(info.value), out.to_host(stream)


@pytest.mark.parametrize(
    ("kind", "out_len"),
    [("simulator", 1022), ("simulator", 1021), ("simulator", 600),
     pytest.param("gpu", 1022, marks=pytest.mark.gpu), pytest.param("gpu", 1021, marks=pytest.mark.gpu)],
)  # fmt: skip
def test_raw_write_error_report_unchanged(kind, out_len):
    """`out` too short: the first out-of-range write is reported with its index, length, block and
    thread exactly as the scalar specialization reports it, and the elements in range are written. (On
    the GPU only one thread may fail: which of several failing threads records first is a race.)"""
    vectorized, got = _raw_report(raw_pairs, kind, out_len)
    scalar, got_scalar = _raw_report(raw_pairs.scalar_specialization(), kind, out_len)
    assert vectorized == scalar
    assert "out[i + q]" in vectorized and f"not in [0, {out_len})" in vectorized, vectorized
    rng = np.random.default_rng(1507)
    expected = rng.standard_normal(1024).astype(np.float32)[:out_len] + np.float32(1.0)
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(got_scalar, expected)


@pytest.mark.gpu
def test_error_report_unchanged_on_the_gpu():
    """vecadd4 (vector loads and stores) with `a` too short: the GPU's report is the scalar code's."""
    dev = wf.Device(0)

    def report(kern) -> str:
        stream = dev.create_stream()
        rng = np.random.default_rng(1508)
        a = wf.DeviceBuffer.from_host(stream, rng.standard_normal(1021).astype(np.float32))
        b = wf.DeviceBuffer.from_host(stream, rng.standard_normal(1024).astype(np.float32))
        c = wf.DeviceBuffer.from_host(stream, np.full(1024, np.nan, np.float32))
        kern.launch(stream, kern.prepare(wf.LaunchConfig(grid=2, block=128), device=dev), a, b, c)
        with pytest.raises(wf.KernelError) as info:
            c.to_host(stream)
        return str(info.value)

    vectorized, scalar = report(vecadd4), report(vecadd4.scalar_specialization())
    assert vectorized == scalar and "index 1021 not in [0, 1021)" in vectorized, vectorized


class _OffsetView:
    """`buf`'s memory `offset` elements in (a CUDA array interface view): 4-byte aligned, not 16."""

    def __init__(self, buf, offset: int):
        cai = dict(buf.__cuda_array_interface__)
        cai["data"] = (cai["data"][0] + 4 * offset, cai["data"][1])
        cai["shape"] = (cai["shape"][0] - offset,)
        self.__cuda_array_interface__ = cai


@pytest.mark.gpu
def test_unaligned_output_runs_the_scalar_code():
    """An output view one element into its buffer: the kernel's launch runs the scalar specialization
    (NumPy's results, the element before the view untouched); the vectorized compiled kernel refuses it."""
    dev = wf.Device(0)
    stream = dev.create_stream()
    m, n = 40, 64
    rng = np.random.default_rng(1509)
    a_host = rng.standard_normal(m * n).astype(np.float32)
    a = wf.DeviceBuffer.from_host(stream, a_host)
    backing = wf.DeviceBuffer.from_host(stream, np.full(m * n + 1, np.nan, np.float32))
    c = _OffsetView(backing, 1)
    assert c.__cuda_array_interface__["data"][0] % 16
    prepared = tile_scale.prepare(wf.LaunchConfig(grid=(-(-n // (8 * TN)), -(-m // (8 * TM)), 1), block=(8, 8, 1)), device=dev)
    tile_scale.launch(stream, prepared, a, c, m, n)
    got = backing.to_host(stream)
    assert np.isnan(got[0])
    np.testing.assert_array_equal(got[1:], 3 * a_host)
    from warpforge.runtime import launch

    with pytest.raises(wf.LaunchError, match="not 16-byte aligned, and this compiled kernel writes it with 16-byte vector stores"):
        launch(stream, prepared, (a, c, m, n))


def test_sgemm_epilogue_writes_128_bits_at_once(tmp_path: Path):
    """examples/sgemm.py: each of the 8 rows of a thread's 8 x 8 piece of C is two st.global.v4 (16 in
    the proven specialization a 4096^3 launch runs, 32 in the kernel as compiled: its fast and checked
    copies), C's pointer is in the alignment specialization, and ptxas spills nothing in either."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
    try:
        import sgemm
    finally:
        sys.path.pop(0)
    ptxas = shutil.which("ptxas")
    compiled = sgemm.sgemm.compile("sm_90")
    proven = sgemm.sgemm.proven_specialization().compile("sm_90")
    assert [p.align for p in compiled.params if p.writable] == [16]
    for ptx, vectors in ((compiled.ptx, 32), (proven.ptx, 16)):
        assert len(re.findall(r"st\.global\.v4\.b32", ptx)) == vectors
        if ptxas is None:
            continue
        src = tmp_path / "k.ptx"
        src.write_text(ptx)
        proc = subprocess.run([ptxas, "-v", "-arch=sm_90", str(src), "-o", str(tmp_path / "k.cubin")], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        assert "0 bytes spill stores, 0 bytes spill loads" in proc.stderr.split("Function properties for sgemm")[1].splitlines()[1], proc.stderr


@simt.kernel(contract=simt.Contract(domain=1, block=(64, 1, 1)))
def row8(a: simt.Slice[f32], c: simt.DisjointSlice[f32]):
    """c[8t + q] = 2 a[8t + q]: 32 bytes read and written per thread."""
    idx = simt.index_1d()
    i = idx.get() * 8
    mine = c.row(idx, 8)
    for q in simt.static_range(8):
        mine[q] = a[i + q] * wf.f32(2.0)


row8_unchecked = simt.kernel(row8.fn, contract=row8.contract, checks=False)


@pytest.mark.parametrize("kern", [row8, row8_unchecked], ids=["checked", "unchecked"])
def test_ptx_moves_32_bytes_in_two_vectors(kern, tmp_path: Path):
    """Eight consecutive f32 are a vector<8xf32> (16-byte aligned): two ld.global.nc.v4 and two
    st.global.v4 in the code the launch runs; ptxas assembles it."""
    compiled = kern.compile("sm_90")
    runs = kern.proven_specialization().compile("sm_90") if compiled.launch_condition else compiled
    assert len(V4.findall(runs.ptx)) == 2 and len(ST4.findall(runs.ptx)) == 2, runs.ptx
    assert "vector<8xf32>" in kern.ir("gpu")
    _ptxas(runs.ptx, tmp_path)
    _ptxas(compiled.ptx, tmp_path)


@pytest.mark.parametrize("kind", list(_devices()))
@pytest.mark.parametrize("kern", [row8, row8_unchecked], ids=["checked", "unchecked"])
@pytest.mark.parametrize("n", [4096, 4091])
def test_row8_is_numpys(kind, kern, n):
    """Random inputs, poisoned output; n = 4091 leaves the last thread 3 elements (the output's guards
    hold for them only; unchecked, the input is padded so nothing reads past it)."""
    dev = _device(kind)
    stream = dev.create_stream()
    rng = np.random.default_rng(1510 + n)
    pad = 0 if kern.checks else (-n) % 8
    a_host = rng.standard_normal(n + pad).astype(np.float32)
    a = wf.DeviceBuffer.from_host(stream, a_host)
    c = wf.DeviceBuffer.from_host(stream, np.full(n, np.nan, np.float32))
    kern.launch(stream, kern.prepare(wf.LaunchConfig(grid=-(-n // 8 // 64), block=64), device=dev), a, c)
    if kern.checks and n % 8:
        with pytest.raises(wf.KernelError, match=r"index 4091 not in \[0, 4091\)"):
            c.to_host(stream)
        return
    np.testing.assert_array_equal(c.to_host(stream), (2 * a_host)[:n])
