"""Device memory: `DeviceBuffer`, and `as_device_view` for kernel arguments.

A `DeviceBuffer` is a C-contiguous array in device memory (a `cuda.core.Buffer` from the device's
stream-ordered pool) with a shape and a dtype. It remembers the last stream it was used on (created,
copied, or passed to a launch): `to_host()` without a stream copies on that stream, so it sees the
kernel's writes; a copy or launch on another stream first waits for that one (`stream_order.py`).

`as_device_view` turns a kernel argument — a `DeviceBuffer`, or any object with `__dlpack__` or
`__cuda_array_interface__` (torch, cupy) — into a `DeviceView` (pointer, shape, dtype) without
copying. The checks that need only the object's metadata (host memory, strides, dtype, ndim) run
before anything touches the driver, so they also work without a GPU.
"""

from __future__ import annotations

from dataclasses import dataclass
import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy
else:  # NumPy loads at first use, not at `import warpforge`
    from warpforge.lazy_import import numpy

from warpforge.errors import LaunchError, UsageError
from warpforge.runtime import _driver, stream_order
from warpforge.runtime.compiled import ParamSpec, as_numpy_dtype
from warpforge.runtime.device import Device, Stream, as_stream

_DLPACK_DEVICE_NAMES = {1: "host memory (CPU)", 3: "pinned host memory", 4: "OpenCL", 7: "Vulkan", 8: "Metal", 10: "ROCm", 14: "oneAPI"}
_DL_CUDA, _DL_CUDA_MANAGED = 2, 13


def device_dtype(dtype: Any) -> numpy.dtype:
    """`dtype` (a numpy dtype, anything `numpy.dtype()` accepts, or a warpforge dtype with `.np`) if
    kernels support it: bool, int8…int64, uint8…uint64, float16, bfloat16, float32, float64.
    Raises `LaunchError` otherwise."""
    try:
        if dtype is None:  # numpy.dtype(None) is float64: never what was meant
            raise TypeError
        dt = as_numpy_dtype(dtype)
    except Exception:
        raise LaunchError(f"{dtype!r} is not a dtype: pass a numpy dtype (numpy.float32) or a warpforge dtype (wf.f32)") from None
    if (dt.kind in "biuf" and dt.itemsize <= 8) or dt.name == "bfloat16":
        return dt
    raise LaunchError(
        f"dtype {dt} is not supported on the device: use bool, int8…int64, uint8…uint64, float16, bfloat16, float32 or float64"
    )


def _normalize_shape(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, (int, numpy.integer)) and not isinstance(shape, bool):
        shape = (int(shape),)
    try:
        ok = all(isinstance(d, (int, numpy.integer)) and not isinstance(d, bool) for d in shape)
        dims = tuple(int(d) for d in shape) if ok else ()
    except (TypeError, ValueError):
        ok, dims = False, ()
    if not ok or any(d < 0 for d in dims):
        raise LaunchError(f"a buffer shape is an int or a tuple of non-negative ints, got {shape!r}")
    if math.prod(dims) >= 2**62:  # the kernel ABI passes lengths as i64; no device holds 2**62 elements
        raise LaunchError(f"a buffer of shape {dims} has {math.prod(dims)} elements: more than any device holds")
    return dims


class DeviceBuffer:
    """A C-contiguous array in device memory.

    Make one with `from_host(stream, array)`, `zeroed(stream, shape, dtype)` or
    `empty(stream, shape, dtype)`; read it back with `to_host()`. `reshape(...)` is a view,
    `astype(dtype)` a converted copy (through the host). `shape`, `dtype`, `size`
    (elements), `nbytes`, `ptr` (device address, int), `device`; `__cuda_array_interface__` (v3)
    lets torch/cupy use it without a copy (`torch.as_tensor(buf, device="cuda")`).
    """

    __slots__ = ("_buffer", "_shape", "_dtype", "_device", "_stream_cell", "_ptr", "__weakref__")

    @property
    def _stream(self) -> Stream:
        """The stream of the buffer's last use. Held in a cell shared with every `reshape` view of the
        same memory, so stream order (see `runtime.stream_order`) follows the memory, not the object."""
        return self._stream_cell[0]

    @_stream.setter
    def _stream(self, stream: Stream) -> None:
        try:
            self._stream_cell[0] = stream
        except AttributeError:
            self._stream_cell = [stream]

    def __init__(self, *args: Any, **kwargs: Any):
        raise UsageError("create a DeviceBuffer with DeviceBuffer.from_host / zeroed / empty")

    @classmethod
    def _allocate(cls, stream: Stream, shape: tuple[int, ...], dtype: numpy.dtype) -> DeviceBuffer:
        self = object.__new__(cls)
        self._shape, self._dtype, self._stream, self._device = shape, dtype, stream, stream.device
        nbytes = int(numpy.prod(shape, dtype=numpy.int64)) * dtype.itemsize
        stream.device.make_current()
        try:
            # at least one byte, so an empty buffer still has a valid, unique address
            self._buffer = stream.device.raw.allocate(max(nbytes, 1), stream=stream.raw)
        except Exception as e:
            raise _driver.wrap_driver_failure(e, f"allocating {nbytes} bytes on GPU {stream.device.ordinal}") from None
        self._ptr = int(self._buffer.handle)
        return self

    @classmethod
    def empty(cls, stream: Any, shape: int | tuple[int, ...], dtype: Any) -> DeviceBuffer:
        """An uninitialized buffer of `shape` (an int or tuple) and `dtype`, allocated in `stream`
        order (None: GPU 0's default stream)."""
        s = as_stream(stream)
        if s.simulated:  # the CPU simulator: host memory
            return _simulated_buffer()._create(s, _normalize_shape(shape), device_dtype(dtype), zero=False)
        return cls._allocate(s, _normalize_shape(shape), device_dtype(dtype))

    @classmethod
    def zeroed(cls, stream: Any, shape: int | tuple[int, ...], dtype: Any) -> DeviceBuffer:
        """A buffer of zeros (all bytes 0), zeroed asynchronously in `stream`."""
        s = as_stream(stream)
        if s.simulated:
            return _simulated_buffer()._create(s, _normalize_shape(shape), device_dtype(dtype), zero=True)
        buf = cls.empty(s, shape, dtype)
        _driver.memset_zero_async(buf._ptr, buf.nbytes, buf._stream.handle)
        return buf

    @classmethod
    def from_host(cls, stream: Any, array: Any) -> DeviceBuffer:
        """A device copy of a host array (anything `numpy.asarray` accepts), copied in `stream`.

        The host array may be reused as soon as this returns. Raises `LaunchError` for device arrays
        (they are already on the GPU) and unsupported dtypes.
        """
        if hasattr(array, "__cuda_array_interface__") or isinstance(array, DeviceBuffer):
            raise LaunchError(
                "from_host copies a host array, but this one is already in device memory: pass it to the kernel directly"
            )
        try:
            host = numpy.asarray(array)
        except (TypeError, ValueError) as e:  # a ragged list, …
            raise LaunchError(f"from_host: {type(array).__name__} is not an array NumPy can read: {e}") from None
        device_dtype(host.dtype)
        host = numpy.require(host, requirements="C")
        s = as_stream(stream)
        if s.simulated:
            return _simulated_buffer()._copy_of(s, host)
        buf = cls._allocate(s, host.shape, host.dtype)
        _driver.copy_htod_async(buf._ptr, host.ctypes.data, buf.nbytes, buf._stream.handle)
        return buf

    def copy_from_host(self, array: Any, stream: Any = None) -> None:
        """Overwrite the buffer with a host array of the same shape and dtype, in `stream` (default:
        the buffer's last stream; another stream first waits for that one, so the copy never
        overtakes a kernel still reading the buffer)."""
        host = numpy.asarray(array)
        if host.dtype != self._dtype:
            raise LaunchError(f"copy_from_host: the buffer holds {self._dtype}, the array {host.dtype}: pass array.astype(numpy.{self._dtype.name})")
        if host.shape != self._shape:
            raise LaunchError(f"copy_from_host: the buffer has shape {self._shape}, the array {host.shape}")
        host = numpy.require(host, requirements="C")
        s = self._use_stream(stream)
        _driver.copy_htod_async(self._ptr, host.ctypes.data, self.nbytes, s.handle)

    def to_host(self, stream: Any = None) -> numpy.ndarray:
        """A new NumPy array with the buffer's contents.

        Copies in `stream` (default: the stream the buffer was last used on; another stream first
        waits for that one, so the copy sees every earlier write), synchronizes it, then raises
        `KernelError` if a completed checked launch recorded an error.
        """
        s = self._use_stream(stream)
        out = numpy.empty(self._shape, dtype=self._dtype)
        _driver.copy_dtoh_async(out.ctypes.data, self._ptr, self.nbytes, s.handle)
        s.sync()
        return out

    def reshape(self, *shape: Any) -> DeviceBuffer:
        """A view of the same memory with another shape of the same element count (one extent may
        be -1), as NumPy's `reshape` of a C-contiguous array: no copy, writes through either are
        seen by both (and the aliasing check treats them as overlapping). Raises `LaunchError` when
        the counts differ."""
        dims = _reshape_dims(shape, self.size, self._shape)
        view = object.__new__(type(self))
        for slot in DeviceBuffer.__slots__:
            if slot != "__weakref__":
                setattr(view, slot, getattr(self, slot))
        view._shape = dims
        return view

    def astype(self, dtype: Any, stream: Any = None) -> DeviceBuffer:
        """A new buffer with the elements converted to `dtype` by NumPy's rules (`numpy.astype`:
        integers wrap, floats → ints truncate; bf16 through ml_dtypes). The conversion runs on the
        host: the buffer is copied back (synchronizing `stream`, default the buffer's last stream),
        converted, and copied to a new buffer in the same stream — fine for setup, slow for hot loops
        (convert in a kernel there: `wf.f16(x)`). Raises `LaunchError` for unsupported dtypes."""
        target = device_dtype(dtype)
        s = self._use_stream(stream)
        return type(self).from_host(s, self.to_host(s).astype(target))

    def _use_stream(self, stream: Any) -> Stream:
        """The stream for the next use (`stream`, or the last one), ordered after the last use."""
        s = self._stream if stream is None else as_stream(stream)
        if s.device is not self._device:
            raise LaunchError(f"this buffer lives on {self._device.label}, the stream on {s.device.label}")
        self._device.make_current()
        stream_order.follow(self, s)
        return s

    @property
    def shape(self) -> tuple[int, ...]:
        return self._shape

    @property
    def dtype(self) -> numpy.dtype:
        return self._dtype

    @property
    def ndim(self) -> int:
        return len(self._shape)

    @property
    def size(self) -> int:
        """Number of elements."""
        return math.prod(self._shape)

    @property
    def nbytes(self) -> int:
        return self.size * self._dtype.itemsize

    @property
    def ptr(self) -> int:
        """Device address of the first element."""
        return self._ptr

    @property
    def device(self) -> Device:
        return self._device

    @property
    def stream(self) -> Stream:
        """The stream the buffer was last used on: work on another stream waits for it first."""
        return self._stream

    def __len__(self) -> int:
        if not self._shape:
            raise UsageError("len() of a 0-d buffer")
        return self._shape[0]

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        return {
            "version": 3,
            "shape": self._shape,
            "typestr": self._dtype.str,
            "descr": [("", self._dtype.str)],
            "data": (self._ptr if self.nbytes else 0, False),
            "strides": None,
            "stream": self._stream.handle or 1,  # 0 (the NULL stream) is spelled 1 in CAI v3
        }

    def __repr__(self) -> str:
        return f"<wf.DeviceBuffer shape={self._shape} dtype={self._dtype} on GPU {self._device.ordinal}>"


def _reshape_dims(shape: tuple[Any, ...], size: int, current: tuple[int, ...]) -> tuple[int, ...]:
    if len(shape) == 1 and isinstance(shape[0], tuple | list):
        shape = tuple(shape[0])
    if not all(isinstance(d, int | numpy.integer) and not isinstance(d, bool) for d in shape):
        raise LaunchError(f"reshape takes integer extents, got {shape!r}")
    dims = [int(d) for d in shape]
    if dims.count(-1) > 1 or any(d < -1 for d in dims):
        raise LaunchError(f"reshape{tuple(dims)}: at most one extent may be -1, the others must be >= 0")
    if -1 in dims:
        known = int(numpy.prod([d for d in dims if d != -1], dtype=numpy.int64))
        if known == 0 or size % known:
            raise LaunchError(f"cannot reshape a buffer of {size} elements (shape {current}) into {tuple(dims)}")
        dims[dims.index(-1)] = size // known
    if int(numpy.prod(dims, dtype=numpy.int64)) != size:
        raise LaunchError(f"cannot reshape a buffer of {size} elements (shape {current}) into {tuple(dims)}")
    return tuple(dims)


def _simulated_buffer() -> Any:
    from warpforge.runtime.simulated import SimulatedBuffer

    return SimulatedBuffer


@dataclass(frozen=True)
class DeviceView:
    """A kernel argument resolved to device memory: `ptr` (int address), `shape`, element `dtype`,
    `nbytes` (the byte range `[ptr, ptr + nbytes)`), and `owner` (kept alive for the launch).
    `strides`: element strides of a strided view (accepted where the parameter allows one), else None."""

    ptr: int
    shape: tuple[int, ...]
    dtype: numpy.dtype
    nbytes: int
    owner: Any = None
    device_id: int | None = None
    readonly: bool = False
    strides: tuple[int, ...] | None = None

    @property
    def span(self) -> int:
        """Elements from the first to one past the last element: what a strided view passes as its
        memory's extent (the contiguous element count otherwise)."""
        return self.nbytes // self.dtype.itemsize if self.dtype.itemsize else 0


def strided_span(shape: tuple[int, ...], strides: tuple[int, ...]) -> int:
    """Elements from the first element of a strided array to one past its last (0 when empty)."""
    if any(d == 0 for d in shape):
        return 0
    return 1 + sum((d - 1) * st for d, st in zip(shape, strides))


def last_axis_contiguous(shape: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    """The strided views a tile kernel reads and writes in place: the last axis has stride 1 (or one
    element), every other stride is non-negative, and distinct elements never share memory."""
    if not shape or any(d == 0 for d in shape):
        return True
    if shape[-1] != 1 and strides[-1] != 1:
        return False
    if any(st < 0 for st in strides):
        return False
    # no overlap: sorted by stride, each axis steps past everything the faster axes cover
    axes = sorted((st, d) for st, d in zip(strides, shape) if d > 1)
    covered = 1
    for st, d in axes:
        if st < covered:
            return False
        covered = st * (d - 1) + covered
    return True


def _is_c_contiguous(shape: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    """`strides` in elements."""
    if any(d == 0 for d in shape):
        return True
    expected = 1
    for dim, stride in zip(reversed(shape), reversed(strides)):
        if dim != 1 and stride != expected:
            return False
        expected *= dim
    return True


class _Checker:
    """Argument checks against a parameter, with messages naming it."""

    __slots__ = ("param", "allow_strided", "strides", "name", "kernel_name")

    def __init__(self, param: ParamSpec | None, kernel_name: str | None, allow_strided: bool = False):
        self.param = param
        self.allow_strided = allow_strided or (param is not None and param.strided)
        self.strides: tuple[int, ...] | None = None
        self.name = param.name if param is not None else "x"
        self.kernel_name = kernel_name

    @property
    def what(self) -> str:
        """The argument as messages name it (made only for a message)."""
        if self.param is None:
            return "the argument"
        return f"argument {self.name!r}" + (f" of {self.kernel_name}" if self.kernel_name else "")

    def host(self, detail: str) -> LaunchError:
        return LaunchError(f"{self.what}: {detail}")

    def layout(self, shape: tuple[int, ...], strides: tuple[int, ...] | None, dtype: numpy.dtype, strides_unit: str) -> None:
        p = self.param
        if p is not None and dtype != p.dtype:
            raise LaunchError(
                f"{self.what} expects {p.dtype} elements, got {dtype}: convert it (x.astype(numpy.{p.dtype.name}), or x.to(...) in torch)"
            )
        if p is not None and len(shape) != p.ndim:
            hint = " (pass x.reshape(-1) for a flat view)" if p.ndim == 1 else ""
            raise LaunchError(f"{self.what} is {p.ndim}-D, got a {len(shape)}-D array of shape {shape}{hint}")
        self.strides = None
        if strides is not None:
            elems = strides if strides_unit == "elements" else tuple(s // dtype.itemsize if s % dtype.itemsize == 0 else -1 for s in strides)
            if not _is_c_contiguous(shape, elems) and self.allow_strided and -1 not in elems and last_axis_contiguous(shape, elems):
                self.strides = tuple(int(e) for e in elems)
            elif not _is_c_contiguous(shape, elems):
                if self.allow_strided:
                    raise LaunchError(
                        f"{self.what} is a strided view (strides {tuple(strides)} in {strides_unit} for shape {shape}) whose last axis is "
                        "not contiguous (stride 1) or whose elements overlap: tile kernels read strided views in place only with a "
                        "contiguous last axis; pass x.contiguous() (torch) or cupy.ascontiguousarray(x)"
                    )
                raise LaunchError(
                    f"{self.what} is not C-contiguous (strides {tuple(strides)} in {strides_unit} for shape {shape}); "
                    "pass x.contiguous() (torch) or cupy.ascontiguousarray(x)"
                )

    def writable(self, readonly: bool) -> None:
        if readonly and self.param is not None and self.param.writable:
            raise LaunchError(f"{self.what} is an output, but the array is read-only")

    def device(self, device_id: int | None, device: Device | None) -> None:
        if device is not None and device_id is not None and device_id >= 0 and device_id != device.ordinal:
            raise LaunchError(f"{self.what} lives on GPU {device_id}, but the launch is on GPU {device.ordinal}: copy it to GPU {device.ordinal} first")


def _numpy_refusal(name: str) -> str:
    return f"a NumPy array lives in host memory: copy it with wf.DeviceBuffer.from_host(stream, {name})"


def as_device_view(
    obj: Any,
    stream: Any = None,
    *,
    param: ParamSpec | None = None,
    device: Device | None = None,
    kernel_name: str | None = None,
    strided: bool = False,
) -> DeviceView:
    """Resolve a kernel argument to device memory without copying.

    `obj`: a `DeviceBuffer`, or any object with `__dlpack__` / `__cuda_array_interface__` (v3) in
    device memory. `stream`: the consumer stream (a `Stream`, cuda.core stream, or None for no
    stream ordering); a producer stream named by a foreign object is made to finish first (cuda.core's
    `StridedMemoryView`), while a `DeviceBuffer` is viewed as it is (`launch` orders it after its
    last stream, `stream_order.follow`). With `param`, the dtype and ndim must match it (and an output must not be
    read-only); with `device`, the memory must be on that GPU.

    With `strided` (or a `param` that is `strided`), a non-contiguous array whose last axis has
    stride 1 (torch's `q.transpose(1, 2)`) is accepted: the view's `strides` are its element
    strides and `nbytes` covers its span.

    Raises `LaunchError`: host memory (NumPy arrays), not C-contiguous (with `strided`: a last axis
    that is not contiguous, or overlapping elements), wrong dtype / ndim / device, or not an array
    at all.
    """
    check = _Checker(param, kernel_name, strided)
    if isinstance(obj, DeviceBuffer):
        if obj._device.simulated:
            raise check.host(
                f"the buffer lives in the CPU simulator's (host) memory, not on a GPU: copy it with "
                f"wf.DeviceBuffer.from_host(stream, {check.name}.to_host())"
            )
        check.layout(obj.shape, None, obj.dtype, "elements")
        check.device(obj.device.ordinal, device)
        return DeviceView(obj.ptr, obj.shape, obj.dtype, obj.nbytes, obj, obj.device.ordinal, False)
    if isinstance(obj, (numpy.ndarray, numpy.generic)):
        raise check.host(_numpy_refusal(check.name))
    cai = None
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        try:
            dev_type = int(obj.__dlpack_device__()[0])
        except Exception as e:
            raise check.host(f"__dlpack_device__() failed: {e}") from None
        if dev_type not in (_DL_CUDA, _DL_CUDA_MANAGED):
            where = _DLPACK_DEVICE_NAMES.get(dev_type, f"DLPack device type {dev_type}")
            raise check.host(
                f"the array lives in {where}, not on the GPU: move it first (x.cuda() in torch) "
                f"or copy it with wf.DeviceBuffer.from_host(stream, {check.name})"
            )
    elif hasattr(obj, "__cuda_array_interface__"):
        cai = _read_cai(obj, check)
    else:
        raise check.host(
            f"expected device memory (a wf.DeviceBuffer, or an object with __cuda_array_interface__ or "
            f"__dlpack__ such as a torch/cupy array), got {type(obj).__name__}"
        )
    view = _strided_view(obj, stream, cai is not None, check)
    shape = tuple(view.shape)
    dtype = numpy.dtype(view.dtype)
    view_strides = view.strides
    check.layout(shape, tuple(view_strides) if view_strides is not None else None, dtype, "elements")
    if not view.is_device_accessible:
        raise check.host(f"the array is not accessible from the GPU: copy it with wf.DeviceBuffer.from_host(stream, {check.name})")
    device_id = view.device_id
    check.device(device_id, device)
    readonly = bool(view.readonly)
    check.writable(readonly)
    if check.strides is not None:
        nbytes = strided_span(shape, check.strides) * dtype.itemsize
        return DeviceView(int(view.ptr), shape, dtype, nbytes, (obj, view), device_id, readonly, check.strides)
    nbytes = math.prod(shape) * dtype.itemsize  # below 2**62 elements: the shape came from device memory
    return DeviceView(int(view.ptr), shape, dtype, nbytes, (obj, view), device_id, readonly)


def _read_cai(obj: Any, check: _Checker) -> dict[str, Any]:
    """Check a `__cuda_array_interface__` from its dict alone (no driver needed)."""
    try:
        cai = obj.__cuda_array_interface__
        shape = tuple(int(d) for d in cai["shape"])
        dtype = numpy.dtype(cai["typestr"])
        data = cai.get("data")
    except Exception as e:
        raise check.host(f"could not read its __cuda_array_interface__: {type(e).__name__}: {e}") from None
    if cai.get("mask") is not None:
        raise check.host("masked arrays (__cuda_array_interface__ 'mask') are not supported")
    strides = cai.get("strides")
    check.layout(shape, tuple(int(s) for s in strides) if strides is not None else None, dtype, "bytes")
    if data is not None:
        check.writable(bool(data[1]))
    return cai


_utils_module: Any = None


def _core_utils() -> Any:
    """`cuda.core.utils`, imported once (its `StridedMemoryView` is read at each use)."""
    global _utils_module
    if _utils_module is None:
        import cuda.core.utils

        _utils_module = cuda.core.utils
    return _utils_module


def _strided_view(obj: Any, stream: Any, via_cai: bool, check: _Checker) -> Any:
    # -1: no stream ordering; a NULL-stream handle (torch's default stream) is passed as 1, the legacy
    # default stream, since the DLPack and CAI protocols reserve 0
    stream_ptr = -1 if stream is None else ((stream if isinstance(stream, Stream) else as_stream(stream)).handle or 1)
    try:
        StridedMemoryView = _core_utils().StridedMemoryView
        if via_cai:
            return StridedMemoryView.from_cuda_array_interface(obj, stream_ptr)
        # DLPack first, then CAI (torch takes a fast path); the constructor does the same
        make = getattr(StridedMemoryView, "from_any_interface", StridedMemoryView)
        return make(obj, stream_ptr)
    except Exception as e:
        if type(e).__name__ == "DynamicLibNotFoundError":
            raise _driver.wrap_driver_failure(e, f"reading {check.what}") from None
        raise check.host(f"cannot be viewed as device memory: {type(e).__name__}: {e}") from None
