"""The lazy host chain of the Tile model: tensors, partitions, launches and copies recorded, not run,
until `.sync_on(stream)` (cutile-rs's host API, in Python).

```python
x = wf.ones((1024,), wf.f32)                    # lazy: nothing touches the GPU
z = wf.zeros((1024,), wf.f32).partition((128,)) # consumes the zeros tensor; 8 tile blocks
out = add(z, x, x).first().unpartition().to_host().sync_on(stream)   # allocates, fills, launches, copies, syncs once
```

Ownership, as in Rust:

- `.partition(tile_shape)` *consumes* the tensor: the partitioned tensor is the exclusive output of
  the next launch; using the old handle again raises `MovedValueError` naming where the tensor was
  created and where it was consumed — so `add(z.partition((128,)), z, y)` is refused before
  anything runs (the output would alias an input).
- A kernel call *borrows* its plain tensor arguments (the same input may be passed twice) and *takes*
  its partitioned ones; it returns all of them (`LaunchResult`: `.first()`, `[i]`, unpacking), the
  partitions as new handles. `.unpartition()` gives the tensor back (consuming the partition handle).
- `.to_host()` records a copy back (a `HostArray`); `.sync_on(stream)` / `.sync()` on any handle runs
  everything it depends on, in the order it was recorded, on that one stream, then synchronizes once
  (and raises `KernelError` if a checked kernel recorded an error). Memory is allocated at that point
  on the stream's device. Work already run is not run again. Arrays the chain did not make
  (`wf.tensor(existing)`) are waited for first: a `DeviceBuffer` on the stream it was last used on,
  a torch tensor on torch's current stream, a CUDA-array-interface array on its `stream`
  (`warpforge.runtime.stream_order`); the chain's own tensors need nothing, as every chain ends
  with a synchronization.

Constructors: `zeros`, `ones`, `full`, `arange`, `empty`, `from_host(array)` (the array is copied
when the call is made, so later changes to it do not leak in), `tensor(existing)` (a NumPy array is
copied like `from_host`; a torch / cupy / `DeviceBuffer` device array is used in place, without a copy).
"""

from __future__ import annotations

import itertools
import math
import threading
from dataclasses import dataclass, field
from math import prod
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy
else:  # NumPy loads at first use, not at `import warpforge`
    from warpforge.lazy_import import numpy

from warpforge import dtypes
from warpforge.dtypes import DType
from warpforge.errors import AliasError, ChainNotRunError, LaunchError, LaunchUsageError, MovedValueError
from warpforge.runtime.tiling import call_position, call_site, check_tile_shape, grid_of

_seq = itertools.count()
_lock = threading.Lock()

# --------------------------------------------------------------------------- storage and recorded work


@dataclass(eq=False)
class _Storage:
    """Device memory a chain allocates (or wraps), and how it starts: `zeros`, `fill`, `host` (copy
    of `payload`), `external` (a device array used in place), `empty`."""

    shape: tuple[int, ...]
    dtype: DType
    init: str
    payload: Any
    created_at: str
    what: str
    view: Any = None
    device: Any = None
    buffer: Any = None
    host: Any = None
    """On the CPU simulator: the NumPy array that is the tensor's memory."""
    touchers: list[_Op] = field(default_factory=list)
    writers: list[_Op] = field(default_factory=list)
    home: int | None = None
    """`external` only: the stream the array belonged to when it was wrapped (torch's current stream
    then, or its `__cuda_array_interface__` `stream`), which the chain waits for."""
    strides: tuple[int, ...] | None = None
    """`external` only: the element strides of a non-contiguous array whose last axis is contiguous
    (used in place; kernels get the strides at launch), None: C-contiguous."""

    @property
    def nbytes(self) -> int:
        if self.strides is not None:
            from warpforge.runtime.memory import strided_span

            return strided_span(self.shape, self.strides) * self.dtype.np.itemsize
        return prod(self.shape) * self.dtype.np.itemsize

    def known_ptr(self) -> int | None:
        """The device address when it is known without touching the GPU (external arrays, or after sync)."""
        if self.view is not None:
            return int(self.view.ptr)
        if self.init == "external":
            cai = getattr(self.payload, "__cuda_array_interface__", None)
            if isinstance(cai, dict) and cai.get("data"):
                return int(cai["data"][0])
            ptr = getattr(self.payload, "data_ptr", None)
            if callable(ptr):
                return int(ptr())
        return None


class _Op:
    """One recorded piece of work; `deps` must run first."""

    def __init__(self, deps: set[_Op]):
        self.seq = next(_seq)
        self.deps = {d for d in deps if not d.done}
        self.done = False

    def run(self, stream: Any) -> None:
        raise NotImplementedError


def _record(op: _Op, reads: list[_Storage], writes: list[_Storage]) -> _Op:
    """Give `op` its dependencies: for what it reads, the earlier writers; for what it writes, every
    earlier access (so a later write never overtakes an earlier read)."""
    deps: set[_Op] = set()
    for s in reads:
        deps.update(s.writers)
    for s in writes:
        deps.update(s.touchers)
    op.deps = {d for d in deps if not d.done}
    for s in {*reads, *writes}:
        s.touchers.append(op)
    for s in writes:
        s.writers.append(op)
    return op


class _Materialize(_Op):
    """Allocate a storage on the stream's device and initialize it."""

    def __init__(self, storage: _Storage):
        super().__init__(set())
        self.storage = storage

    def run(self, stream: Any) -> None:
        materialize(self.storage, stream)


def materialize(s: _Storage, stream: Any) -> None:
    from warpforge.runtime import _driver
    from warpforge.runtime.memory import DeviceBuffer, as_device_view

    device = stream.device
    if getattr(device, "simulated", False):
        _materialize_simulated(s, device)
        return
    if s.view is not None:
        if s.device is not None and s.device is not device:
            raise LaunchError(f"the tensor created at {s.created_at} lives on GPU {s.device.ordinal}, but the stream is on GPU {device.ordinal}")
        return
    if s.init == "external":
        _order_external(s, stream, view=False)
        # for a foreign array, the view orders `stream` after the array's own stream now (DLPack / CAI)
        s.view = as_device_view(s.payload, stream, device=device, strided=s.strides is not None)
        s.device = device
        return
    buf = DeviceBuffer.empty(stream, s.shape, s.dtype.np)
    s.view = as_device_view(buf, stream, device=device)
    s.device = device
    handle = stream.handle
    if s.init == "zeros":
        _driver.memset_zero_async(buf.ptr, buf.nbytes, handle)
    elif s.init == "fill":
        value = numpy.array(s.payload, dtype=s.dtype.np)
        size = value.itemsize
        n = prod(s.shape)
        bits = int(value.view({1: numpy.uint8, 2: numpy.uint16, 4: numpy.uint32, 8: numpy.uint64}[size]))
        drv = _driver.driver()
        if n and size == 4:
            _driver.check(drv.cuMemsetD32Async(buf.ptr, bits, n, handle), "cuMemsetD32Async")
        elif n and size == 2:
            _driver.check(drv.cuMemsetD16Async(buf.ptr, bits, n, handle), "cuMemsetD16Async")
        elif n and size == 1:
            _driver.check(drv.cuMemsetD8Async(buf.ptr, bits, n, handle), "cuMemsetD8Async")
        elif n:
            host = numpy.full(s.shape, s.payload, dtype=s.dtype.np)
            s.payload = host  # kept alive until the copy is done (the sync at the end of the chain)
            _driver.copy_htod_async(buf.ptr, host.ctypes.data, buf.nbytes, handle)
    elif s.init == "host":
        host = numpy.ascontiguousarray(s.payload)
        _driver.copy_htod_async(buf.ptr, host.ctypes.data, buf.nbytes, handle)
    s.buffer = buf  # pyright: ignore[reportAttributeAccessIssue]


def _order_external(s: _Storage, stream: Any, view: bool = True) -> None:
    """The chain is about to use an array it did not make, on `stream`: wait for the stream it was
    last used on — a `DeviceBuffer`'s last stream; for a foreign array the stream it belonged to
    when it was wrapped (`s.home`) and, through `as_device_view` (unless `view` is False: the
    caller views it), its own stream now. See `warpforge.runtime.stream_order`."""
    from warpforge.runtime import stream_order
    from warpforge.runtime.memory import DeviceBuffer, as_device_view

    payload = s.payload
    if isinstance(payload, DeviceBuffer):
        if payload.device is stream.device:
            stream_order.follow(payload, stream)
        return
    if s.home is not None and s.home != stream.handle:
        stream_order.for_device(stream.device).wait(stream.handle, s.home)
    if view:
        as_device_view(payload, stream, device=stream.device, strided=s.strides is not None)


def _materialize_simulated(s: _Storage, device: Any) -> None:
    """On the CPU simulator a tensor's memory is a NumPy array."""
    if s.host is not None:
        if s.device is not device:
            raise LaunchError(f"the tensor created at {s.created_at} lives on {s.device!r}, not on the simulator")
        return
    if s.view is not None or s.init == "external":
        raise LaunchError(f"the tensor created at {s.created_at} is device memory; the CPU simulator runs on host arrays only")
    if s.init == "zeros":
        s.host = numpy.zeros(s.shape, dtype=s.dtype.np)
    elif s.init == "fill":
        s.host = numpy.full(s.shape, s.payload, dtype=s.dtype.np)
    elif s.init == "host":
        s.host = numpy.array(s.payload, dtype=s.dtype.np, copy=True, order="C").reshape(s.shape)
    else:
        s.host = numpy.empty(s.shape, dtype=s.dtype.np)
    s.device = device


class _ToHost(_Op):
    """Copy a storage back into a new NumPy array (complete at the chain's synchronization)."""

    def __init__(self, storage: _Storage):
        super().__init__(set())
        self.storage = storage
        self._result: numpy.ndarray | None = None
        self._gather: tuple[numpy.ndarray, tuple[int, ...], tuple[int, ...]] | None = None

    @property
    def result(self) -> numpy.ndarray | None:
        """The host array (after the chain's synchronization)."""
        if self._gather is not None:
            span, shape, strides = self._gather
            item = span.dtype.itemsize
            self._result = numpy.lib.stride_tricks.as_strided(span, shape, tuple(st * item for st in strides)).copy()
            self._gather = None
        return self._result

    @result.setter
    def result(self, value: numpy.ndarray | None) -> None:
        self._result = value

    def run(self, stream: Any) -> None:
        from warpforge.runtime import _driver

        s = self.storage
        if s.host is not None:
            self.result = s.host.copy()
            return
        if s.init == "external":  # its owner may have written it since it was wrapped (or last copied)
            _order_external(s, stream)
        if s.strides is not None:  # a strided view: copy its span, then read the elements at their strides
            span = numpy.empty(s.nbytes // s.dtype.np.itemsize, dtype=s.dtype.np)
            _driver.copy_dtoh_async(span.ctypes.data, s.view.ptr, span.nbytes, stream.handle)
            self._gather = (span, s.shape, s.strides)  # read at the strides once the copy is complete
            return
        out = numpy.empty(s.shape, dtype=s.dtype.np)
        _driver.copy_dtoh_async(out.ctypes.data, s.view.ptr, out.nbytes, stream.handle)
        self.result = out


class _Launch(_Op):
    """A recorded tile-kernel launch."""

    def __init__(self, kernel: Any, spec: Any, args: tuple[Any, ...], storages: list[_Storage | None], site: str):
        super().__init__(set())
        self.kernel, self.spec, self.args, self.storages, self.site = kernel, spec, args, storages, site

    def run(self, stream: Any) -> None:
        """One path for both devices, as SIMT launches: compile the specialization for the device's
        chip, `prepare` once per (device, kernel, grid) — `check_launch` against the device's limits,
        on the simulator `prepare_lowered` with the kernel at the `gpu` level — then the runtime's
        `launch`, which checks the arguments (dtypes, ranks, aliasing) and, on the simulator, runs the
        kernel and keeps a recorded error for the chain's synchronization."""
        from dataclasses import replace

        from warpforge.runtime import LaunchConfig, launch, prepare
        from warpforge.tile_compile import Specialization, pointer_alignment

        device = stream.device
        simulated = getattr(device, "simulated", False)
        spec = self.spec
        if not simulated:  # the specialization of the call, with the alignment of the pointers actually allocated
            spec = Specialization(
                tuple(replace(p, align=pointer_alignment(s.view.ptr)) if s is not None else p for p, s in zip(self.spec.params, self.storages))
            )
        compiled = self.kernel.compile_specialization(spec, tile_chip(device))
        launch_args = []
        for p, a, s in zip(spec.params, self.args, self.storages):
            if p.kind == "constant":
                continue
            if s is None:
                launch_args.append(a)
            elif simulated:  # the tensor's memory itself, a NumPy array, as a simulator buffer
                from warpforge.runtime.simulated import SimulatedBuffer

                assert s.host is not None
                launch_args.append(SimulatedBuffer._wrap(stream, s.host))  # pyright: ignore[reportPrivateUsage]
            else:  # the runtime resolves (and checks) the memory itself: our buffer, or the external array
                launch_args.append(s.buffer if s.buffer is not None else s.payload)
        grid_p = [p for p in spec.params if p.kind != "constant"][compiled.grid_param]
        grid_s = [s for p, s in zip(spec.params, self.storages) if p.kind != "constant"][compiled.grid_param]
        assert grid_s is not None and grid_p.tile is not None
        blocks = prod(grid_of(grid_s.shape, grid_p.tile))
        if blocks == 0:
            return
        # keyed by the compiled kernel itself (kept in the entry, so its id cannot be reused): kernels
        # from one factory share source text and even cache keys, but not code
        key = (id(device), id(compiled.kernel), blocks)
        entry = _prepared.get(key)
        if entry is None or entry[0] is not compiled.kernel:
            config = LaunchConfig(grid=(blocks, 1, 1), block=(compiled.block, 1, 1), shmem_size=compiled.dynamic_shared)
            if simulated:
                from warpforge.runtime.simulated import prepare_lowered
                from warpforge.tile_compile import simulation_program

                # the program takes the error record exactly when the compiled kernel does (none without error sites)
                program = replace(simulation_program(self.kernel, spec, tile_chip(device)), checked=compiled.kernel.checked)
                prepared = prepare_lowered(compiled.kernel, program, config, device)
            else:
                prepared = prepare(compiled.kernel, config, device)
            entry = (compiled.kernel, prepared)
            _prepared[key] = entry
        launch(stream, entry[1], launch_args, kernel=compiled.kernel)


_prepared: dict[tuple[Any, ...], Any] = {}


def _closure(targets: list[_Op]) -> list[_Op]:
    todo, seen = list(targets), set()
    while todo:
        op = todo.pop()
        if op in seen or op.done:
            continue
        seen.add(op)
        todo.extend(op.deps)
    return sorted(seen, key=lambda o: o.seq)


def run_chain(targets: list[_Op], stream: Any) -> None:
    """Run `targets` and everything they depend on, in record order on `stream`; synchronize once."""
    from warpforge.runtime.device import as_stream

    s = as_stream(stream)
    s.device.make_current()
    with _lock:
        ops = _closure(targets)
        try:
            for op in ops:
                op.run(s)
                op.done = True
        finally:
            s.sync()


def _stream_or_default(stream: Any) -> Any:
    if stream is not None:
        return stream
    from warpforge.runtime import Device

    return Device(0).default_stream


# --------------------------------------------------------------------------- handles


class _Handle:
    """Common to lazy tensors and partitions: ownership state and the chain."""

    _storage: _Storage
    _created_at: str
    _consumed_at: str | None
    _consumed_by: str | None

    def _check_live(self, use: str) -> None:
        if self._consumed_at is not None:
            raise MovedValueError(
                f"use of a moved value: the {self._kind()} created at {self._created_at} ({self._storage.what}) was consumed "
                f"by {self._consumed_by} at {self._consumed_at}; it cannot be {use} at {call_site()}. "
                + self._moved_hint()
            )

    def _moved_hint(self) -> str:
        return "Use the value that call returned instead."

    def _consume(self, by: str) -> None:
        self._check_live(f"consumed by {by}")
        self._consumed_at, self._consumed_by = call_site(), by

    def _kind(self) -> str:
        return "tensor"

    def _align(self) -> int:
        from warpforge.tile_compile import pointer_alignment

        ptr = self._storage.known_ptr()
        return 16 if ptr is None else pointer_alignment(ptr)  # warpforge's allocations are 256-byte aligned

    @property
    def shape(self) -> tuple[int, ...]:
        return self._storage.shape

    @property
    def dtype(self) -> DType:
        return self._storage.dtype

    @property
    def ndim(self) -> int:
        return len(self._storage.shape)

    @property
    def size(self) -> int:
        return prod(self._storage.shape)

    def _targets(self) -> list[_Op]:
        return list(self._storage.touchers)

    def sync_on(self, stream: Any) -> Any:
        """Run everything this value depends on, on `stream`, and synchronize once. Returns the value."""
        run_chain(self._targets(), stream)
        return self

    def sync(self) -> Any:
        """`sync_on` the default stream of GPU 0."""
        return self.sync_on(_stream_or_default(None))


class LazyTensor(_Handle):
    """A tensor of the lazy chain (made by `wf.zeros`, `ones`, `full`, `arange`, `from_host`, `tensor`)."""

    def __init__(self, storage: _Storage, created_at: str | None = None):
        self._storage = storage
        self._created_at = created_at or storage.created_at
        self._consumed_at = None
        self._consumed_by = None

    def partition(self, tile_shape: int | tuple[int, ...]) -> PartitionedTensor:
        """Cut the tensor into tiles of `tile_shape` (powers of two; the last tile of an axis may be
        partial): the exclusive output of the next launch, with one tile block per tile. Consumes
        this tensor handle."""
        site = call_site()
        def integral(d: Any) -> bool:
            return isinstance(d, int | numpy.integer) and not isinstance(d, bool)

        if integral(tile_shape):
            shape: tuple[Any, ...] = (int(tile_shape),)  # pyright: ignore[reportArgumentType]
        elif isinstance(tile_shape, tuple | list):
            shape = tuple(int(d) if integral(d) else d for d in tile_shape)  # NumPy ints as Python ints
        else:
            raise LaunchUsageError(f"partition() takes a tile shape (an int or a tuple of ints), got {tile_shape!r} (at {site})")
        if len(shape) != len(self.shape) or not all(isinstance(d, int) and not isinstance(d, bool) for d in shape):
            raise LaunchError(
                f"the partition {tuple(shape)} does not fit the {len(self.shape)}-D tensor of shape {self.shape} "
                f"(created at {self._created_at}): give one tile extent per dimension (at {site})"
            )
        check_tile_shape(shape, "the partition", position=call_position())
        self._consume(".partition()")
        return PartitionedTensor(self._storage, shape, site)

    def to_host(self) -> HostArray:
        """Record a copy back to the host; `.sync_on(stream)` on the result gives the NumPy array."""
        self._check_live("copied to the host")
        op = _record(_ToHost(self._storage), [self._storage], [])
        return HostArray(op)

    def _moved_hint(self) -> str:
        return "A partitioned tensor is the launch's exclusive output: pass the partition, and use the tensor the call gives back (.first().unpartition())."

    def __repr__(self) -> str:
        state = "moved" if self._consumed_at else "lazy"
        return f"<wf tensor {self.shape} {self.dtype.name}, {state}, created at {self._created_at}>"


class PartitionedTensor(_Handle):
    """A tensor cut into tiles: a kernel's exclusive output; the grid is its number of tiles."""

    def __init__(self, storage: _Storage, tile_shape: tuple[int, ...], created_at: str):
        self._storage = storage
        self.tile_shape = tuple(tile_shape)
        self._created_at = created_at
        self._consumed_at = None
        self._consumed_by = None

    def _kind(self) -> str:
        return "partitioned tensor"

    @property
    def grid(self) -> tuple[int, ...]:
        """Tiles per axis (the last tile of an axis may be partial)."""
        return grid_of(self.shape, self.tile_shape)

    def unpartition(self) -> LazyTensor:
        """The whole tensor again (no data moves). Consumes this partition handle."""
        self._consume(".unpartition()")
        return LazyTensor(self._storage, self._storage.created_at)

    def to_host(self) -> HostArray:
        self._check_live("copied to the host")
        return HostArray(_record(_ToHost(self._storage), [self._storage], []))

    def __repr__(self) -> str:
        return f"<wf partitioned tensor {self.shape} {self.dtype.name} into tiles {self.tile_shape} ({prod(self.grid)} tile blocks)>"


class HostArray:
    """A recorded copy to the host; `.sync_on(stream)` runs the chain and returns the NumPy array.

    Until then it holds no data: indexing it, `len()`, iteration, arithmetic, comparisons,
    `numpy.asarray(...)` and NumPy attributes (`.shape`, `.sum()`) raise `ChainNotRunError` saying so."""

    def __init__(self, op: _ToHost):
        self._op = op

    def _not_run(self, what: str) -> ChainNotRunError:
        return ChainNotRunError(
            f"{what}: this is the recorded copy to the host of a lazy chain, which has not run yet; run it with "
            ".sync_on(stream) (or .sync()), which returns the NumPy array — e.g. "
            "out = kernel(z, x).first().unpartition().to_host().sync_on(stream)"
        )

    def __getitem__(self, key: Any) -> Any:
        raise self._not_run("indexing the result of .to_host()")

    def __setitem__(self, key: Any, value: Any) -> None:
        raise self._not_run("assigning into the result of .to_host()")

    def __len__(self) -> int:
        raise self._not_run("len() of the result of .to_host()")

    def __iter__(self) -> Any:
        raise self._not_run("iterating over the result of .to_host()")

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise self._not_run("converting the result of .to_host() to a NumPy array")

    def __bool__(self) -> bool:
        raise self._not_run("the truth value of the result of .to_host()")

    def __float__(self) -> float:
        raise self._not_run("float() of the result of .to_host()")

    def __int__(self) -> int:
        raise self._not_run("int() of the result of .to_host()")

    def __getattr__(self, name: str) -> Any:
        if not name.startswith("__") and hasattr(numpy.ndarray, name):
            raise self._not_run(f"'.{name}' of the result of .to_host()")
        raise AttributeError(f"'HostArray' object has no attribute '{name}' (run the chain with .sync_on(stream) for the NumPy array)")

    def _binary(self, other: Any) -> Any:
        raise self._not_run("arithmetic or a comparison on the result of .to_host()")

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _binary
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __pow__ = __rpow__ = __matmul__ = __rmatmul__ = _binary
    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = _binary  # pyright: ignore[reportAssignmentType]
    __hash__ = object.__hash__

    def sync_on(self, stream: Any) -> numpy.ndarray:
        run_chain([self._op], stream)
        assert self._op.result is not None
        return self._op.result

    def sync(self) -> numpy.ndarray:
        return self.sync_on(_stream_or_default(None))


class LaunchResult:
    """What a tile-kernel call gives back: its arguments, in order (partitions as new handles)."""

    def __init__(self, values: tuple[Any, ...], op: _Launch):
        self._values = values
        self._op = op

    def first(self) -> Any:
        """The first argument (by convention the output partition)."""
        return self._values[0]

    def __getitem__(self, i: int) -> Any:
        return self._values[i]

    def __len__(self) -> int:
        return len(self._values)

    def __iter__(self):
        return iter(self._values)

    def sync_on(self, stream: Any) -> LaunchResult:
        run_chain([self._op], stream)
        return self

    def sync(self) -> LaunchResult:
        return self.sync_on(_stream_or_default(None))


def record_launch(kernel: Any, args: tuple[Any, ...]) -> LaunchResult:
    """`kernel(*args)`: check and specialize now (compile errors and bad arguments are raised here,
    before anything runs), record the launch, take the partitions, return the arguments."""
    site = call_site()
    spec = kernel.specialize(args)
    compiled = kernel.compile(*args)  # compile errors surface at the call, before anything runs
    by_name = {p.name: (p, a) for p, a in zip(spec.params, args)}
    for x_name, z_name in compiled.like_pairs:
        (_, x), (_, z) = by_name[x_name], by_name[z_name]
        if tuple(x.shape) != tuple(z.shape):
            raise LaunchError(
                f"{kernel.__qualname__}: the shapes do not line up: tile.load_tile_like({x_name}, {z_name}) needs {x_name} to have "
                f"{z_name}'s shape {tuple(z.shape)}, got {tuple(x.shape)} (at {site})"
            )
    storages: list[_Storage | None] = [a._storage if isinstance(a, _Handle) else None for a in args]
    _check_external_aliasing(kernel, spec, args, storages, site)
    reads = [s for p, s in zip(spec.params, storages) if s is not None and p.kind == "input"]
    writes = [s for p, s in zip(spec.params, storages) if s is not None and p.kind in ("partition", "atomic")]
    op = _Launch(kernel, spec, args, storages, site)
    _record(op, reads, writes)
    out = []
    for p, a in zip(spec.params, args):
        if p.kind == "partition":
            a._consume(f"the call to {kernel.__qualname__}")
            out.append(PartitionedTensor(a._storage, a.tile_shape, site))
        else:
            out.append(a)
    return LaunchResult(tuple(out), op)


def _check_external_aliasing(kernel: Any, spec: Any, args: tuple[Any, ...], storages: list[_Storage | None], site: str) -> None:
    """Outputs must not share memory with any other argument: the same storage twice (which the
    ownership rules already prevent for warpforge's tensors) or overlapping external arrays."""
    spans = []
    for p, s in zip(spec.params, storages):
        if s is None:
            continue
        ptr = s.known_ptr()
        spans.append((p, s, ptr))
    for i, (p, s, ptr) in enumerate(spans):
        if p.kind not in ("partition", "atomic"):
            continue
        for j, (q, t, qptr) in enumerate(spans):
            if i == j:
                continue
            same = s is t
            overlap = ptr is not None and qptr is not None and s.nbytes and t.nbytes and ptr < qptr + t.nbytes and qptr < ptr + s.nbytes
            if same or overlap:
                raise AliasError(
                    f"{kernel.__qualname__}: output '{p.name}' shares memory with argument '{q.name}' (at {site}): an output must not "
                    "alias any other argument; pass a separate tensor"
                )


# --------------------------------------------------------------------------- constructors


def _shape(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, int | numpy.integer) and not isinstance(shape, bool):
        dims: tuple[Any, ...] = (shape,)
    elif isinstance(shape, tuple | list):
        dims = tuple(shape)
    else:
        raise LaunchUsageError(f"a tensor shape is an int or a tuple of non-negative ints, got {shape!r}")
    if not all(isinstance(d, int | numpy.integer) and not isinstance(d, bool) and d >= 0 for d in dims):
        raise LaunchUsageError(f"a tensor shape is an int or a tuple of non-negative ints, got {shape!r}")
    if math.prod(int(d) for d in dims) >= 2**62:
        raise LaunchUsageError(f"a tensor of shape {tuple(dims)} has more elements than any device holds")
    if not 1 <= len(dims) <= 4:
        raise LaunchUsageError(f"tile tensors have 1 to 4 dimensions, got shape {tuple(dims)}")
    return tuple(int(d) for d in dims)


def _new(shape: Any, dtype: Any, init: str, payload: Any, what: str) -> LazyTensor:
    dt = dtypes.from_numpy(dtype)
    storage = _Storage(_shape(shape), dt, init, payload, call_site(), what)
    _record(_Materialize(storage), [], [storage])
    return LazyTensor(storage)


def zeros(shape: int | tuple[int, ...], dtype: Any = dtypes.f32) -> LazyTensor:
    """A lazy tensor of zeros."""
    return _new(shape, dtype, "zeros", None, f"wf.zeros({shape!r})")


def ones(shape: int | tuple[int, ...], dtype: Any = dtypes.f32) -> LazyTensor:
    """A lazy tensor of ones."""
    return _new(shape, dtype, "fill", 1, f"wf.ones({shape!r})")


def full(shape: int | tuple[int, ...], value: Any, dtype: Any = None) -> LazyTensor:
    """A lazy tensor with every element `value` (dtype: `dtype`, or NumPy's for `value`; a Python
    float is f32). `value` must fit the dtype as a scalar kernel argument must
    (`warpforge.runtime.launch.pack_scalar`: an int in an integer dtype's range, a number staying
    finite in a float dtype (NaN and ±inf as such), True/False for bool); anything else raises
    `LaunchUsageError` here, at the call."""
    if isinstance(value, str | bytes) or not numpy.isscalar(value) and not (isinstance(value, numpy.ndarray) and value.ndim == 0):
        raise LaunchUsageError(f"wf.full({shape!r}, {value!r}): the fill value is a number (or True/False), got {type(value).__name__} {value!r}")
    dt = dtypes.from_numpy(dtype) if dtype is not None else dtypes.from_numpy(numpy.asarray(value).dtype if not isinstance(value, float) else numpy.float32)
    from types import SimpleNamespace

    from warpforge.runtime.launch import pack_scalar

    if isinstance(value, numpy.ndarray):
        value = value[()]
    try:
        pack_scalar(SimpleNamespace(name="value", dtype=dt.np), value)  # pyright: ignore[reportArgumentType]
    except LaunchError as e:
        raise LaunchUsageError(f"wf.full({shape!r}, {value!r}, {dt.name}): {str(e).replace('scalar value=', 'the fill value ', 1).replace('scalar value', 'the fill value', 1)}") from None
    return _new(shape, dt, "fill", value, f"wf.full({shape!r}, {value!r})")


def empty(shape: int | tuple[int, ...], dtype: Any = dtypes.f32) -> LazyTensor:
    """A lazy tensor with unspecified contents (for outputs every element of which a kernel writes)."""
    return _new(shape, dtype, "empty", None, f"wf.empty({shape!r})")


def arange(n: int, dtype: Any = dtypes.i32) -> LazyTensor:
    """0, 1, …, n − 1 (lazy). `n` is an int >= 0 (else `LaunchError`)."""
    if not isinstance(n, int | numpy.integer) or isinstance(n, bool) or n < 0:
        raise LaunchUsageError(f"wf.arange(n) takes an int n >= 0, got {n!r}")
    _shape((n,))
    dt = dtypes.from_numpy(dtype)
    return _new((n,), dt, "host", numpy.arange(n, dtype=dt.np), f"wf.arange({n!r})")


def from_host(array: Any) -> LazyTensor:
    """A lazy device copy of a host array (copied now on the host, to the device at sync)."""
    if hasattr(array, "__cuda_array_interface__") or hasattr(array, "__dlpack_device__") and not isinstance(array, numpy.ndarray):
        raise LaunchError("wf.from_host copies a host array, but this one is in device memory: use wf.tensor(x) to use it in place")
    try:
        host = numpy.array(array, copy=True, order="C")
    except (TypeError, ValueError) as e:  # a ragged list, …
        raise LaunchUsageError(f"wf.from_host: {type(array).__name__} is not an array NumPy can read: {e}") from None
    if not host.dtype.isnative:  # a big-endian array: its values in the device's (little-endian) order, as DeviceBuffer.from_host
        host = host.astype(host.dtype.newbyteorder("="))
    return _new(host.shape, host.dtype, "host", host, f"wf.from_host(<{host.dtype} array {host.shape}>)")


def tensor(existing: Any) -> LazyTensor:
    """A lazy tensor for existing data: a NumPy array is copied (as `from_host`); a device array (torch,
    cupy, `wf.DeviceBuffer`: `__cuda_array_interface__` or DLPack) is used in place, without a copy;
    so is a `wf.DeviceBuffer` of the CPU simulator (its host array), so the same code runs on both.
    Anything else raises `LaunchUsageError`.

    Stream order: the chain that uses a device array waits for the stream it belongs to — a
    `DeviceBuffer`'s last stream at that time; for a torch tensor, torch's current stream both when
    `wf.tensor` is called and when the chain runs (so a tensor wrapped inside `with
    torch.cuda.stream(ts)` is waited for on `ts` even if the chain runs outside it); for a CUDA
    array interface, its `stream`."""
    if isinstance(existing, numpy.ndarray) or isinstance(existing, list | tuple):
        return from_host(existing)
    from warpforge.runtime.simulated import SimulatedBuffer

    if isinstance(existing, SimulatedBuffer):  # the simulator's wf.DeviceBuffer: its host array, in place
        t = _new(existing.shape, existing.dtype, "external", existing, f"wf.tensor(<DeviceBuffer {existing.shape}>)")
        t._storage.host = existing._host  # pyright: ignore[reportPrivateUsage]
        t._storage.device = existing.device
        return t
    from warpforge.runtime.memory import DeviceBuffer

    cai = None if isinstance(existing, DeviceBuffer) else getattr(existing, "__cuda_array_interface__", None)
    strides: tuple[int, ...] | None = None
    if isinstance(existing, DeviceBuffer):  # its own dtype: CAI spells bfloat16 '<V2', a void type
        shape, dt = existing.shape, existing.dtype
    elif isinstance(cai, dict):
        shape = tuple(int(d) for d in cai["shape"])
        dt = numpy.dtype(cai["typestr"])
        if cai.get("strides") is not None:
            b = tuple(int(st) for st in cai["strides"])
            strides = tuple(st // dt.itemsize for st in b) if all(st % dt.itemsize == 0 for st in b) else b
    elif hasattr(existing, "shape") and hasattr(existing, "dtype") and hasattr(existing, "__dlpack__"):
        shape = tuple(int(d) for d in existing.shape)
        dt = _dtype_of(existing.dtype)
        stride = getattr(existing, "stride", None)  # torch: element strides
        if callable(stride):
            strides = tuple(int(st) for st in stride())
    else:
        raise LaunchUsageError(f"wf.tensor() takes a NumPy array or a device array (torch, cupy, wf.DeviceBuffer), got {type(existing).__name__}")
    from warpforge.runtime import stream_order
    from warpforge.runtime.memory import _is_c_contiguous, last_axis_contiguous  # pyright: ignore[reportPrivateUsage]

    t = _new(shape, dt, "external", existing, f"wf.tensor(<{type(existing).__name__} {shape}>)")
    if strides is not None and not _is_c_contiguous(shape, strides):
        # a strided view (torch's q.transpose(1, 2)): used in place when its last axis is contiguous
        if not last_axis_contiguous(shape, strides):
            raise LaunchError(
                f"wf.tensor(): the array of shape {shape} has strides {strides} (elements): tile kernels use strided views in place "
                "only when the last axis is contiguous (stride 1) and no two elements share memory; pass x.contiguous() (torch) "
                "or cupy.ascontiguousarray(x)"
            )
        t._storage.strides = strides
    if not isinstance(existing, DeviceBuffer):  # a DeviceBuffer carries its own last stream
        t._storage.home = stream_order.home_stream(existing)  # e.g. torch's current stream now
    return t


def _dtype_of(dt: Any) -> numpy.dtype:
    try:
        return numpy.dtype(dt)
    except TypeError:
        name = str(dt).rsplit(".", 1)[-1]  # torch.float32 → float32
        return numpy.dtype(name)


__all__ = [
    "HostArray",
    "LaunchResult",
    "LazyTensor",
    "PartitionedTensor",
    "arange",
    "empty",
    "from_host",
    "full",
    "ones",
    "tensor",
    "zeros",
]


# --------------------------------------------------------------------------- SIMT launches in the chain


class _SimtLaunch(_Op):
    """A recorded `@simt.kernel` launch (`kernel[grid, block](tensors...)`), run through the kernel's
    own launch path (`SimtKernel.__getitem__`: prepare once per config, `check_launch`, argument
    checks) on the chain's stream."""

    def __init__(self, kernel: Any, config: tuple[Any, Any, int], args: tuple[Any, ...], storages: list[_Storage | None], site: str):
        super().__init__(set())
        self.kernel, self.config, self.args, self.storages, self.site = kernel, config, args, storages, site

    def run(self, stream: Any) -> None:
        from warpforge.runtime.simulated import SimulatedBuffer

        simulated = getattr(stream.device, "simulated", False)
        args: list[Any] = []
        for a, s in zip(self.args, self.storages):
            if s is None:
                args.append(a)
            elif simulated:
                assert s.host is not None
                args.append(SimulatedBuffer._wrap(stream, s.host))  # pyright: ignore[reportPrivateUsage]  (the tensor's memory itself)
            else:
                args.append(s.buffer if s.buffer is not None else s.payload)
        grid, block, shmem = self.config
        self.kernel[grid, block, stream, shmem](*args)


_SIMT_PARAMS: dict[int, tuple[Any, tuple[Any, ...]]] = {}
"""Each SIMT specialization's run-time parameters (`simt_param_specs`), keyed by the kernel's id and
kept with the kernel itself in the entry (so an id is not taken for a later kernel's)."""


def _simt_params(kernel: Any) -> tuple[Any, ...]:
    """`kernel`'s run-time parameters from the frontend alone (no code generation, no target): the
    frontend's compile errors surface here; the launch compiles for the stream's device when it runs."""
    from warpforge.compile import simt_param_specs

    entry = _SIMT_PARAMS.get(id(kernel))
    if entry is None or entry[0] is not kernel:
        entry = (kernel, simt_param_specs(kernel.kernel_ir()))
        _SIMT_PARAMS[id(kernel)] = entry
    return entry[1]


def record_simt_launch(kernel: Any, grid: Any, block: Any, shmem: int, args: tuple[Any, ...]) -> LaunchResult:
    """`simt_kernel[grid, block](...)` with chain tensors among the arguments: check now (the
    frontend's compile errors and bad arguments are raised here, before anything runs), record the
    launch in the chain — after the work that writes what it reads, before later readers of what it
    writes — and return the arguments (`.first()`, `[i]`, `.sync_on(stream)`). Tensors are borrowed,
    not consumed: a SIMT kernel writes the whole tensor it gets (a `DisjointSlice`), not a partition.
    The specialization is chosen from the tensors' dtypes and shapes (`ArraySignature`s; nothing is
    allocated) and compiled for the device of the stream the chain runs on, when it runs.

    Raises `LaunchError` for a partitioned tensor (SIMT kernels take whole tensors), a tensor
    that is not 1-D or 2-D, and a tensor passed twice when the kernel writes it; `MovedValueError` for a
    consumed handle; `CompileError` for the kernel itself (a target's own refusals: when the chain runs)."""
    from warpforge.specialize import ArraySignature

    site = call_site()
    name = kernel.__qualname__
    storages: list[_Storage | None] = []
    probes: list[Any] = []
    for i, a in enumerate(args):
        if isinstance(a, PartitionedTensor):
            raise LaunchError(f"{name}: argument {i} is a partitioned tensor; SIMT kernels take whole tensors (call .unpartition() first) (at {site})")
        if isinstance(a, LazyTensor):
            a._check_live(f"the launch of {name}")  # pyright: ignore[reportPrivateUsage]
            if len(a.shape) not in (1, 2):
                raise LaunchError(f"{name}: argument {i} has shape {a.shape}; SIMT slices are 1-D or 2-D (at {site})")
            storages.append(a._storage)  # pyright: ignore[reportPrivateUsage]
            probes.append(ArraySignature(a.dtype.np, tuple(a.shape)))  # what specialization sees: dtype and rank
        else:
            storages.append(None)
            probes.append(a)
    child = kernel.specialize(*probes)
    params = _simt_params(child)
    # the runtime parameters (a generic kernel's constants are compiled in, not passed), in order
    runtime = kernel._runtime_args(tuple(probes)) if kernel.is_generic else tuple(probes)  # pyright: ignore[reportPrivateUsage]
    if len(runtime) != len(params):
        raise LaunchError(f"{name} takes {len(params)} arguments, got {len(runtime)} (at {site})")
    for i, a in enumerate(args):
        param = next((p for r, p in zip(runtime, params) if r is probes[i]), None)
        if not isinstance(a, LazyTensor) or param is None:
            continue
        if param.kind == "scalar":
            raise LaunchError(f"{name}: argument {i} is a tensor; the parameter '{param.name}' is a {param.dtype} scalar (at {site})")
        if param.dtype != a.dtype.np or param.ndim != len(a.shape):
            want = f"{param.ndim}-D {param.dtype}" if param.ndim != len(a.shape) else str(param.dtype)
            raise LaunchError(f"{name}: argument {i} holds {a.dtype.np} (shape {a.shape}); the parameter '{param.name}' is {_slice_text(child, param)} ({want}) (at {site})")
    writable = {id(r): p.writable for r, p in zip(runtime, params)}
    kinds = ["out" if writable.get(id(p)) else "in" for p in probes]
    reads = [s for s, k in zip(storages, kinds) if s is not None and k == "in"]
    writes = [s for s, k in zip(storages, kinds) if s is not None and k == "out"]
    for s in writes:
        if sum(x is s for x in storages) > 1:
            raise AliasError(f"{name} writes the tensor created at {s.created_at}, which is passed to it more than once (at {site})")
    op = _SimtLaunch(kernel, (grid, block, shmem), args, storages, site)
    _record(op, reads, writes)
    return LaunchResult(tuple(args), op)  # pyright: ignore[reportArgumentType]


def _slice_text(kernel: Any, param: Any) -> str:
    """How the parameter was declared (`simt.Slice[f32]`), from the kernel's annotations."""
    for name, ann in kernel.annotations():
        if name == param.name:
            return repr(ann)
    return param.kind


def tile_chip(device: Any) -> str:
    """The chip tile kernels compile for on `device`: its own, except `sm_90a` on a compute capability
    9.0 GPU (H100/H200), so `tile.dot` can use wgmma (as Triton compiles sm_90a for 9.x); the
    simulator keeps its chip: `sm_90` (the portable `mma.sync` form) unless it was made with
    `chip="sm_90a"` (`Device.simulator`, `WARPFORGE_SIM_CHIP`), where it runs wgmma and the TMA ring."""
    if not getattr(device, "simulated", False) and tuple(device.compute_capability) == (9, 0):
        return "sm_90a"
    return device.chip
