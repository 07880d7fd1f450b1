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
