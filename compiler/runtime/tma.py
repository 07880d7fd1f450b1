"""TMA descriptors (CUDA tensor maps) on the host: `tensor_map(buffer, box, swizzle)`.

A Hopper TMA copy (`cp.async.bulk.tensor`, PTX ISA §9.7.9.25.5) reads a 128-byte *tensor map* that
describes a tensor in global memory — its address, dtype, extents and strides — and the box (tile)
one copy moves into shared memory, with an optional shared-memory swizzle. The driver builds it
(`cuTensorMapEncodeTiled`, CUDA driver API §6.30 "Tensor Map Object Management", through
cuda.bindings); a kernel takes it as a `__grid_constant__` parameter (in LLVM a
`ptr byval([128 x i8]) align 64` argument with `"nvvm.grid_constant"`).

    tmap = tensor_map(buf, box=(64, 64), swizzle="128B")   # buf: a DeviceBuffer (or CAI/DLPack tensor)
    tmap.descriptor                                         # 128 bytes, as the kernel parameter holds them

Shapes, boxes and coordinates are given outermost first, as NumPy's (`box=(rows, cols)`); the driver
and the PTX take them innermost first, and this module reverses them. Descriptors are cached per
(address, shape, strides, dtype, box, swizzle): the same buffer and box give the same `TensorMap`.

The driver's rules are checked first, so a bad request is a `LaunchError` that says which rule and
how to fix it, never a bare `CUDA_ERROR_INVALID_VALUE`:

| rule | source |
|---|---|
| rank 1–5 | `tensorRank` |
| global address 16-byte aligned | `globalAddress` |
| extents 1 … 2^32 | `globalDim` |
| innermost dimension contiguous; other strides multiples of 16 bytes, < 2^40 | `globalStrides` |
| box extents 1 … 256 | `boxDim` |
| inner box row (box[-1] · element size) a multiple of 16 bytes | `boxDim[0]` |
| with a swizzle, inner box row ≤ the swizzle span (32, 64, 128 bytes) | `swizzle` |

Where these fail the kernel has to use another path (`cp.async`, plain loads); `tma_supported`
answers without raising.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import numpy

from warpforge.errors import LaunchError

TENSOR_MAP_BYTES = 128
"""Size of a `CUtensorMap` (CUDA: `CU_TENSOR_MAP_NUM_QWORDS` = 16 × 8 bytes), 64-byte aligned."""

MAX_RANK = 5
MAX_BOX = 256

SWIZZLE_BYTES: dict[str, int] = {"none": 0, "32B": 32, "64B": 64, "128B": 128}
"""Swizzle modes (`CUtensorMapSwizzle`) → the span in bytes a swizzled box row may have."""

_DTYPES: dict[str, str] = {
    "uint8": "UINT8", "int8": "UINT8", "uint16": "UINT16", "int16": "UINT16", "uint32": "UINT32",
    "int32": "INT32", "uint64": "UINT64", "int64": "INT64", "float16": "FLOAT16", "float32": "FLOAT32",
    "float64": "FLOAT64", "bfloat16": "BFLOAT16",
}  # fmt: skip
"""NumPy dtype names → `CU_TENSOR_MAP_DATA_TYPE_*` (signed 8/16-bit integers are copied as their
unsigned kind: TMA moves bits, it does not convert)."""


@dataclass(frozen=True)
class TensorMapRequest:
    """What a descriptor describes. `shape`/`strides` (bytes)/`box` are outermost first, as NumPy's;
    `address` is the device address of element 0; `dtype` a NumPy dtype."""

    address: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    dtype: numpy.dtype
    box: tuple[int, ...]
    swizzle: str = "none"

    @property
    def box_bytes(self) -> int:
        """Bytes one copy of the box moves (what `mbarrier.arrive.expect_tx` announces)."""
        return int(numpy.prod(self.box)) * self.dtype.itemsize


def check_tma_rules(req: TensorMapRequest) -> None:
    """Raise `LaunchError` naming the first rule of `cuTensorMapEncodeTiled` that `req` breaks."""
    rank = len(req.shape)
    what = f"a TMA descriptor for a {'x'.join(map(str, req.shape)) or 'scalar'} {req.dtype.name} tensor"
    if not 1 <= rank <= MAX_RANK:
        raise LaunchError(f"{what}: TMA handles tensors of rank 1 to {MAX_RANK}, this one has rank {rank}")
    if req.dtype.name not in _DTYPES:
        raise LaunchError(f"{what}: TMA has no element type for {req.dtype.name} (supported: {', '.join(sorted(set(_DTYPES)))})")
    if len(req.box) != rank or len(req.strides) != rank:
        raise LaunchError(f"{what}: the box {req.box} must have one extent per dimension ({rank})")
    if req.swizzle not in SWIZZLE_BYTES:
        raise LaunchError(f"{what}: unknown swizzle {req.swizzle!r} (expected one of {', '.join(SWIZZLE_BYTES)})")
    if req.address % 16:
        raise LaunchError(f"{what}: its global address {req.address:#x} is not 16-byte aligned (TMA requires 16 bytes)")
    for axis, n in enumerate(req.shape):
        if not 1 <= n <= 1 << 32:
            raise LaunchError(f"{what}: extent {n} of dimension {axis} is outside 1 .. 2^32")
    item = req.dtype.itemsize
    if req.strides[-1] != item:
        raise LaunchError(
            f"{what}: the innermost dimension must be contiguous (stride {item} bytes), got stride {req.strides[-1]} bytes"
        )
    for axis, stride in enumerate(req.strides[:-1]):
        if stride % 16 or not 0 < stride < 1 << 40:
            raise LaunchError(
                f"{what}: the stride of dimension {axis} is {stride} bytes; TMA needs strides that are multiples of "
                f"16 bytes (below 2^40): pad the rows to a multiple of {16 // item if item < 16 else 1} elements"
            )
    for axis, b in enumerate(req.box):
        if not 1 <= b <= MAX_BOX:
            raise LaunchError(f"{what}: box extent {b} of dimension {axis} is outside 1 .. {MAX_BOX}")
    inner = req.box[-1] * item
    if inner % 16:
        raise LaunchError(f"{what}: the box's inner row is {inner} bytes ({req.box[-1]} x {item}); TMA needs a multiple of 16 bytes")
    span = SWIZZLE_BYTES[req.swizzle]
    if span and inner > span:
        raise LaunchError(
            f"{what}: the box's inner row is {inner} bytes, more than the {req.swizzle} swizzle span ({span} bytes): "
            f"use a box of at most {span // item} elements in the last dimension"
        )


def tma_supported(req: TensorMapRequest) -> bool:
    """True when `req` meets every TMA rule (else a kernel should take the `cp.async` path)."""
    try:
        check_tma_rules(req)
    except LaunchError:
        return False
    return True


def describe(buffer: Any) -> tuple[int, tuple[int, ...], tuple[int, ...], numpy.dtype]:
    """(address, shape, strides in bytes, dtype) of a `DeviceBuffer` or an object with
    `__cuda_array_interface__` (torch, cupy). Raises `LaunchError` for anything else."""
    from warpforge.runtime.memory import DeviceBuffer

    if isinstance(buffer, DeviceBuffer):
        dtype = numpy.dtype(buffer.dtype)
        shape = tuple(int(n) for n in buffer.shape)
        return buffer.ptr, shape, _contiguous_strides(shape, dtype.itemsize), dtype
    cai = getattr(buffer, "__cuda_array_interface__", None)
    if isinstance(cai, dict):
        dtype = numpy.dtype(cai["typestr"])
        shape = tuple(int(n) for n in cai["shape"])
        strides = cai.get("strides")
        strides = tuple(int(s) for s in strides) if strides else _contiguous_strides(shape, dtype.itemsize)
        return int(cai["data"][0]), shape, strides, dtype
    raise LaunchError(f"a TMA descriptor needs a device buffer (wf.DeviceBuffer, or a CUDA array), got {type(buffer).__name__}")


def _contiguous_strides(shape: tuple[int, ...], item: int) -> tuple[int, ...]:
    strides, acc = [], item
    for n in reversed(shape):
        strides.append(acc)
        acc *= n
    return tuple(reversed(strides))


@dataclass(frozen=True)
class TensorMap:
    """An encoded TMA descriptor: `descriptor` holds its 128 bytes, `request` what it describes,
    `box_bytes` the bytes one box copy moves. Pass it to a `simt.TensorMap[dtype, box, swizzle]`
    parameter of a kernel (`kernel[grid, block](tmap, ...)` or `launch`). `host`: on the CPU
    simulator, the simulated buffer's host array the TMA copies read and write (no driver descriptor
    is made there: `descriptor` is 128 zero bytes)."""

    request: TensorMapRequest
    descriptor: bytes
    host: Any = field(default=None, compare=False, repr=False)
    _launch: dict[int, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def box_bytes(self) -> int:
        return self.request.box_bytes

    def launch_argument(self, device: Any) -> Any:
        """The kernel argument `cuda.core.launch` passes by value for this descriptor: a
        `cuda.core` `TensorMapDescriptor` of the same request (made once per device with
        `StridedMemoryView.as_tensor_map`; the driver copies its 128 bytes into the kernel's
        `.param .align 64 .b8 [128]`). Raises `LaunchError` when cuda.core refuses it."""
        key = int(getattr(device, "ordinal", 0))
        made = self._launch.get(key)
        if made is None:
            made = _core_descriptor(self.request)
            self._launch[key] = made
        return made

    def as_kernel_arg(self) -> Any:
        """The parameter value for a launch by address (`cuLaunchKernel`'s `kernelParams`): a 128-byte
        ctypes structure; the driver copies it into the kernel's `.param .align 64 .b8 [128]` space,
        so the host copy itself needs no particular alignment."""
        import ctypes

        class _CUtensorMap(ctypes.Structure):
            _fields_ = [("opaque", ctypes.c_uint64 * 16)]

        value = _CUtensorMap()
        ctypes.memmove(ctypes.addressof(value), self.descriptor, TENSOR_MAP_BYTES)
        return value


def encode_tiled(req: TensorMapRequest) -> bytes:
    """Check `req`, then build its 128-byte descriptor with `cuTensorMapEncodeTiled` (needs a CUDA
    driver; the current context's device must be sm_90+). Raises `LaunchError`."""
    check_tma_rules(req)
    try:
        from cuda.bindings import driver
    except ImportError as e:  # pragma: no cover - cuda-python is a dependency
        raise LaunchError(f"TMA descriptors need cuda.bindings: {e}") from None
    dt = getattr(driver.CUtensorMapDataType, f"CU_TENSOR_MAP_DATA_TYPE_{_DTYPES[req.dtype.name]}")
    swizzle = {
        "none": driver.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_NONE,
        "32B": driver.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_32B,
        "64B": driver.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_64B,
        "128B": driver.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_128B,
    }[req.swizzle]
    rank = len(req.shape)
    dims = [driver.cuuint64_t(n) for n in reversed(req.shape)]
    strides = [driver.cuuint64_t(s) for s in reversed(req.strides[:-1])]  # innermost omitted
    box = [driver.cuuint32_t(b) for b in reversed(req.box)]
    element_strides = [driver.cuuint32_t(1)] * rank
    try:
        err, tmap = driver.cuTensorMapEncodeTiled(
            dt, rank, req.address, dims, strides, box, element_strides,
            driver.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
            driver.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
            driver.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        )  # fmt: skip
    except Exception as e:
        raise LaunchError(f"cuTensorMapEncodeTiled failed: {e}") from None
    if err != driver.CUresult.CUDA_SUCCESS:
        raise LaunchError(f"cuTensorMapEncodeTiled refused the descriptor ({err.name}) for {req}")
    import ctypes

    return ctypes.string_at(tmap.getPtr(), TENSOR_MAP_BYTES)


class _ArrayInterface:
    """The `__cuda_array_interface__` of a request's tensor, for `StridedMemoryView`."""

    def __init__(self, req: TensorMapRequest):
        typestr = "<u2" if req.dtype.name == "bfloat16" else req.dtype.str
        self.__cuda_array_interface__ = {
            "shape": req.shape, "typestr": typestr, "data": (req.address, False), "strides": req.strides,
            "version": 3, "stream": None,
        }  # fmt: skip


def _core_descriptor(req: TensorMapRequest) -> Any:
    """`req` as a `cuda.core` `TensorMapDescriptor` (tiled; L2 128-byte promotion, zero fill, no
    interleave — as `encode_tiled`). Raises `LaunchError`."""
    check_tma_rules(req)
    try:
        from cuda.core._tensor_map import TensorMapDataType, TensorMapL2Promotion, TensorMapSwizzle
        from cuda.core.utils import StridedMemoryView

        swizzle = {
            "none": TensorMapSwizzle.NONE, "32B": TensorMapSwizzle.SWIZZLE_32B, "64B": TensorMapSwizzle.SWIZZLE_64B,
            "128B": TensorMapSwizzle.SWIZZLE_128B,
        }[req.swizzle]  # fmt: skip
        view = StridedMemoryView.from_cuda_array_interface(_ArrayInterface(req), -1)  # -1: no stream order (only the descriptor is made)
        data_type = getattr(TensorMapDataType, _DTYPES[req.dtype.name])
        return view.as_tensor_map(box_dim=req.box, data_type=data_type, swizzle=swizzle, l2_promotion=TensorMapL2Promotion.L2_128B)
    except LaunchError:
        raise
    except Exception as e:
        raise LaunchError(f"cuda.core could not make the TMA descriptor for {req}: {type(e).__name__}: {e}") from None


def tensor_map_argument(param: Any, value: Any, kernel_name: str) -> TensorMap:
    """`value` checked as the argument of the `tensor_map` parameter `param` (a `ParamSpec`): a
    `TensorMap` with the parameter's dtype, box and swizzle. Raises `LaunchError` otherwise."""
    want = f"simt.TensorMap[{param.dtype.name}, {tuple(param.box)}, {param.swizzle!r}]"
    if not isinstance(value, TensorMap):
        from warpforge.runtime.memory import DeviceBuffer

        what = "a wf.DeviceBuffer (make its descriptor first)" if isinstance(value, DeviceBuffer) else type(value).__name__
        raise LaunchError(
            f"{kernel_name}: parameter {param.name} is a {want}: pass wf.tensor_map(buffer, box={tuple(param.box)}, "
            f"swizzle={param.swizzle!r}), got {what}"
        )
    req = value.request
    got = f"a descriptor of {req.dtype.name} boxes {req.box} with swizzle {req.swizzle!r}"
    if req.dtype != param.dtype or tuple(req.box) != tuple(param.box) or req.swizzle != param.swizzle:
        raise LaunchError(f"{kernel_name}: parameter {param.name} is a {want}, got {got}: make the descriptor with the kernel's box and swizzle")
    return value


_CACHE: dict[TensorMapRequest, TensorMap] = {}
_LOCK = threading.Lock()


def tensor_map(buffer: Any, box: tuple[int, ...] | int, swizzle: str = "none") -> TensorMap:
    """The TMA descriptor of `buffer` for boxes of shape `box` (outermost first, like `buffer.shape`)
    and a shared-memory `swizzle` ("none", "32B", "64B", "128B"), cached per (buffer address, shape,
    strides, dtype, box, swizzle). Raises `LaunchError` when a TMA rule fails (see the module doc)."""
    address, shape, strides, dtype = describe(buffer)
    req = TensorMapRequest(address, shape, strides, dtype, (box,) if isinstance(box, int) else tuple(box), swizzle)
    host = getattr(buffer, "_host", None)
    if getattr(buffer, "device", None) is not None and getattr(buffer.device, "simulated", False) and host is not None:
        check_tma_rules(req)  # the CPU simulator: the same rules, no driver; the copies use the host array
        return TensorMap(req, bytes(TENSOR_MAP_BYTES), host)
    with _LOCK:
        hit = _CACHE.get(req)
    if hit is not None:
        return hit
    made = TensorMap(req, encode_tiled(req))
    with _LOCK:
        return _CACHE.setdefault(req, made)


def simulated_descriptor(address: int, host: Any, box: tuple[int, ...], swizzle: str, kernel_name: str = "", param: str = "") -> TensorMap:
    """On the CPU simulator, the descriptor of a TMA ring (`ParamSpec.tma`) over the contiguous host
    array `host` (a simulated buffer at `address`): the GPU path's rules (`LaunchError` naming the
    kernel and parameter), no driver descriptor; the simulator's TMA copies read `host`."""
    dt = numpy.dtype(host.dtype)
    shape = tuple(int(n) for n in host.shape)
    req = TensorMapRequest(address, shape, _contiguous_strides(shape, dt.itemsize), dt, tuple(box), swizzle)
    try:
        check_tma_rules(req)
    except LaunchError as e:
        raise LaunchError(f"{kernel_name}: argument '{param}' feeds a TMA ring: {e}") from None
    return TensorMap(req, bytes(TENSOR_MAP_BYTES), host)


_LAUNCH_CACHE: dict[tuple[Any, ...], Any] = {}
"""(address, shape, dtype, box, swizzle, device ordinal) -> the kernel argument (`launch_descriptor`)."""
_LAUNCH_CACHE_SIZE = 512


def launch_descriptor(address: int, shape: tuple[int, ...], dtype: Any, box: tuple[int, ...], swizzle: str, device: Any, kernel_name: str = "", param: str = "") -> Any:
    """The kernel argument of a TMA descriptor a tile kernel's TMA ring takes (`ParamSpec.tma`): the
    contiguous tensor at `address` of `shape` and `dtype`, boxes `box` (outermost first), `swizzle`.
    Cached per (request, device) (up to 512, oldest dropped first), so a kernel launched again on the
    same memory makes none. Raises `LaunchError` naming the kernel and parameter when a TMA rule fails."""
    dt = numpy.dtype(dtype)
    box = tuple(box)
    key = (address, shape, dt, box, swizzle, int(getattr(device, "ordinal", 0)))  # what the request is made of
    hit = _LAUNCH_CACHE.get(key)  # a dict read is atomic; inserts and drops hold the lock
    if hit is not None:
        return hit
    req = TensorMapRequest(address, shape, _contiguous_strides(shape, dt.itemsize), dt, box, swizzle)
    try:
        made = TensorMap(req, bytes(TENSOR_MAP_BYTES)).launch_argument(device)
    except LaunchError as e:
        raise LaunchError(f"{kernel_name}: argument '{param}' feeds a TMA ring: {e}") from None
    with _LOCK:
        if len(_LAUNCH_CACHE) >= _LAUNCH_CACHE_SIZE:
            _LAUNCH_CACHE.pop(next(iter(_LAUNCH_CACHE)))
        return _LAUNCH_CACHE.setdefault(key, made)
