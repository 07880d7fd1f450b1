"""TMA descriptors on the host (`warpforge.runtime.tma`): the `cuTensorMapEncodeTiled` rules checked
before the driver call (CPU), the per-(buffer, box, swizzle) cache, and on the GPU a TMA load +
store round trip through a kernel built from `nvvm` ops (tests/hopper_tma_kernel.mlir)."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from warpforge.errors import LaunchError
from warpforge.runtime import tma
from warpforge.runtime.tma import TensorMapRequest, check_tma_rules, tma_supported

from hopper_setup import nvvm_file_ptx, sm90a_device  # noqa: F401 (sm90a_device is a fixture)


def _req(shape=(128, 256), dtype=np.float16, box=(32, 64), swizzle="128B", address=0x7F0000000000, strides=None):
    dt = np.dtype(dtype)
    if strides is None:
        strides = tma._contiguous_strides(tuple(shape), dt.itemsize)  # pyright: ignore[reportPrivateUsage]
    return TensorMapRequest(address, tuple(shape), tuple(strides), dt, tuple(box), swizzle)


def test_valid_request_passes_and_counts_box_bytes() -> None:
    req = _req()
    check_tma_rules(req)
    assert tma_supported(req)
    assert req.box_bytes == 32 * 64 * 2


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"address": 0x7F0000000008}, "global address 0x7f0000000008 is not 16-byte aligned"),
        ({"shape": (128, 100), "box": (32, 32), "swizzle": "64B"}, "stride of dimension 0 is 200 bytes; TMA needs strides that are multiples of 16 bytes"),
        ({"box": (32, 512), "swizzle": "none", "shape": (128, 1024)}, "box extent 512 of dimension 1 is outside 1 .. 256"),
        ({"box": (32, 128)}, "inner row is 256 bytes, more than the 128B swizzle span (128 bytes): use a box of at most 64 elements"),
        ({"box": (32, 4), "swizzle": "none"}, "inner row is 8 bytes (4 x 2); TMA needs a multiple of 16 bytes"),
        ({"shape": (2,) * 6, "box": (1,) * 6}, "rank 1 to 5, this one has rank 6"),
        ({"dtype": np.complex64, "box": (32, 8), "swizzle": "none"}, "no element type for complex64"),
        ({"strides": (512, 4)}, "innermost dimension must be contiguous (stride 2 bytes), got stride 4 bytes"),
        ({"swizzle": "256B"}, "unknown swizzle '256B'"),
        ({"box": (32,)}, "must have one extent per dimension (2)"),
    ],
)
def test_rule_violations_are_launch_errors(kwargs: dict, message: str) -> None:
    req = _req(**kwargs)
    with pytest.raises(LaunchError, match=None) as info:
        check_tma_rules(req)
    assert message in str(info.value)
    assert not tma_supported(req)


def test_encode_checks_rules_before_the_driver(monkeypatch: pytest.MonkeyPatch) -> None:
    import cuda.bindings.driver as driver

    def boom(*args, **kwargs):  # the driver must not be reached for a request breaking a rule
        raise AssertionError("cuTensorMapEncodeTiled called")

    monkeypatch.setattr(driver, "cuTensorMapEncodeTiled", boom)
    with pytest.raises(LaunchError, match="not 16-byte aligned"):
        tma.encode_tiled(_req(address=0x1008))


class _FakeCAI:
    def __init__(self, shape, dtype, address=0x7F0000001000):
        dt = np.dtype(dtype)
        self.__cuda_array_interface__ = {"shape": shape, "typestr": dt.str, "data": (address, False), "strides": None, "version": 3}


def test_cache_per_buffer_box_and_swizzle(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[TensorMapRequest] = []

    def fake_encode(req: TensorMapRequest) -> bytes:
        check_tma_rules(req)
        calls.append(req)
        return bytes([len(calls)]) * 128

    monkeypatch.setattr(tma, "encode_tiled", fake_encode)
    monkeypatch.setattr(tma, "_CACHE", {})
    buf = _FakeCAI((64, 128), np.float16)
    a = tma.tensor_map(buf, (32, 64), "128B")
    b = tma.tensor_map(buf, (32, 64), "128B")
    c = tma.tensor_map(buf, (32, 64), "none")
    d = tma.tensor_map(buf, (16, 64), "128B")
    assert a is b and len(calls) == 3
    assert {a.descriptor[0], c.descriptor[0], d.descriptor[0]} == {1, 2, 3}
    assert a.request.shape == (64, 128) and a.request.strides == (256, 2) and a.box_bytes == 32 * 64 * 2
    arg = a.as_kernel_arg()
    assert ctypes.sizeof(arg) == 128
    assert bytes(arg) == a.descriptor


def test_non_buffer_is_refused() -> None:
    with pytest.raises(LaunchError, match="needs a device buffer"):
        tma.tensor_map(np.zeros((16, 16), np.float16), (16, 16))


# --------------------------------------------------------------------------- GPU

ROWS, COLS, BOX = 96, 192, (32, 64)


def swizzled_128b(a: np.ndarray, box: tuple[int, int]) -> np.ndarray:
    """The image of each box of `a` in shared memory under CU_TENSOR_MAP_SWIZZLE_128B (a 1024-byte
    aligned buffer, 128-byte box rows): 16-byte chunk j of box row r is stored at chunk j ^ (r % 8)
    (the XOR of address bits 4-6 with bits 7-9), read back linearly."""
    rows, cols = box
    chunk = 16 // a.itemsize
    assert cols * a.itemsize == 128
    out = np.empty_like(a)
    for r in range(a.shape[0]):
        for p in range(a.shape[1] // chunk):
            box_col, j = divmod(p, cols // chunk)
            src = box_col * (cols // chunk) + (j ^ (r % rows % 8))
            out[r, p * chunk : (p + 1) * chunk] = a[r, src * chunk : (src + 1) * chunk]
    return out


def test_swizzle_model_is_a_permutation_of_each_row() -> None:
    a = np.arange(8 * 64, dtype=np.float16).reshape(8, 64)
    s = swizzled_128b(a, (8, 64))
    np.testing.assert_array_equal(s[0], a[0])  # row 0: identity
    np.testing.assert_array_equal(s[1, :8], a[1, 8:16])  # row 1: chunks 0 and 1 swapped
    assert all(sorted(s[r]) == sorted(a[r]) for r in range(8))


def _tma_kernel_ptx() -> str:
    return nvvm_file_ptx("hopper_tma_kernel.mlir")


def test_tma_kernel_ptx_assembles() -> None:
    ptx = _tma_kernel_ptx()
    assert ".param .align 64 .b8 tma_roundtrip_param_0[128]" in ptx
    assert "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes" in ptx
    assert "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group" in ptx


@pytest.mark.gpu
def test_tma_load_store_roundtrip_on_gpu(sm90a_device) -> None:
    import warpforge as wf
    from cuda.bindings import driver

    stream = sm90a_device.create_stream()
    rng = np.random.default_rng(11)
    host = rng.standard_normal((ROWS, COLS)).astype(np.float16)
    src = wf.DeviceBuffer.from_host(stream, host)
    back = wf.DeviceBuffer.from_host(stream, np.full((ROWS, COLS), np.nan, np.float16))  # poisoned
    out = wf.DeviceBuffer.from_host(stream, np.full((ROWS, COLS), np.nan, np.float16))
    t_src = tma.tensor_map(src, BOX, "128B")
    t_dst = tma.tensor_map(back, BOX, "128B")
    assert tma.tensor_map(src, BOX, "128B") is t_src
    assert len(t_src.descriptor) == 128
    stream.sync()

    import cuda.core as core

    code = core.ObjectCode.from_ptx(_tma_kernel_ptx().encode())
    kernel = code.get_kernel("tma_roundtrip")
    # kernel parameters by address: the two 128-byte descriptors (copied into .param space), the
    # output pointer and the column count
    a0, a1 = t_src.as_kernel_arg(), t_dst.as_kernel_arg()
    a2 = ctypes.c_uint64(out.ptr)
    a3 = ctypes.c_int32(COLS)
    params = (ctypes.c_void_p * 4)(*(ctypes.addressof(a) for a in (a0, a1, a2, a3)))
    grid = (COLS // BOX[1], ROWS // BOX[0], 1)
    # cuda.core's launch takes no struct arguments: launch through the driver API (it takes the
    # CUkernel handle cuda.core loads, CUDA 12+)
    (err,) = driver.cuLaunchKernel(
        kernel.handle,
        *grid, 128, 1, 1, 0, driver.CUstream(int(stream.raw.handle)), ctypes.addressof(params), 0,
    )  # fmt: skip
    assert err == driver.CUresult.CUDA_SUCCESS, err
    stream.sync()
    # TMA load with the 128-byte swizzle, then plain (unswizzled) stores of the shared image
    np.testing.assert_array_equal(out.to_host(stream), swizzled_128b(host, BOX))
    np.testing.assert_array_equal(back.to_host(stream), host)  # TMA store
