"""Checked-mode error records: the per-device pool, the pending list, and decoding into `KernelError`.

Each checked launch gets one 64-byte slot (8 × int64) of device memory, zero when the kernel starts.
After the launch the runtime records an event on the launch's stream and appends the launch to its
device's pending list; nothing else is enqueued on the user's stream. `check_pending` finds the
pending launches whose events have completed, copies their slots to pinned host memory in one batch
(one `cuMemcpyDtoHAsync` per pool chunk, spanning the completed slots, on the pool's own non-blocking
stream, which it then synchronizes: the user's streams keep running) and decodes them: record[0] > 0
means the kernel recorded an error (layout in `compiled.py`). The copy is issued after the host saw
the event complete, so it reads what the kernel wrote.

Per-launch cost on the GPU: one event record (an earlier protocol copied the slot to the host after
every launch, in the launch's stream: about 10 us on an H200, measured by bench/checks_cost.py). A
kernel writes its slot only when it records an error, so a slot whose host copy is all zero is still
zero on the device and is reused as is; a slot that was written is zeroed with `cuMemsetD8Async` in
the stream of its next launch (as is every new slot on first use). Slots are recycled only after
their completed record has been copied and decoded. The pending entry also keeps the launch's
arguments alive until then.

Sync points that check: `Stream.sync()`, `Device.synchronize()`, `DeviceBuffer.to_host`,
`warpforge.runtime.synchronize()`, and, without blocking, the start of every `launch` (an event query;
the batch copy only when a pending launch has completed).
"""

from __future__ import annotations

import ctypes
import threading
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    import numpy
else:  # NumPy loads at first use, not at `import warpforge`
    from warpforge.lazy_import import numpy

from warpforge.errors import KernelError
from warpforge.runtime import _driver
from warpforge.runtime.compiled import RECORD_BYTES, RECORD_WORDS, CompiledKernel

if TYPE_CHECKING:
    from warpforge.runtime.device import Device, Stream

SLOTS_PER_CHUNK = 256

_OPERAND_FORMATS = {
    ("index", "length"): "index {a} not in [0, {b})",
    ("row", "rows"): "row {a} not in [0, {b})",
    ("col", "cols"): "column {a} not in [0, {b})",
}


def format_record(kernel: CompiledKernel, record: Sequence[int]) -> tuple[str, dict[str, Any]]:
    """The message and `KernelError` keyword arguments for one nonzero error record (8 ints).

    Message: `"{kernel}: {site.message} at {file}:{line}:{col}: index 1024 not in [0, 1024)
    (block (3, 0), thread (255, 0)); 7 more errors"`.
    """
    count, site_id, a, b, bx, by, tx, ty = (int(v) for v in record[:RECORD_WORDS])
    where = f"(block ({bx}, {by}), thread ({tx}, {ty}))"
    site = kernel.error_site(site_id)
    if site is None:
        text = f"{kernel.name}: the kernel recorded an error at an unknown site id {site_id} (operands {a}, {b}) {where}"
        kw: dict[str, Any] = {"kind": "unknown"}
        details: dict[str, Any] = {"operands": (a, b)}
    else:
        fmt = _OPERAND_FORMATS.get(tuple(site.operands))
        operands = fmt.format(a=a, b=b) if fmt else f"{site.operands[0]} {a}, {site.operands[1]} {b}"
        text = f"{kernel.name}: {site.message} at {site.filename}:{site.line}:{site.col}: {operands} {where}"
        kw = {"kind": site.kind, "filename": site.filename, "line": site.line, "col": site.col}
        details = {site.operands[0]: a, site.operands[1]: b}
    if count > 1:
        text += f"; {count - 1} more error{'s' if count > 2 else ''}"
    details.update(site=site_id, count=count, block=(bx, by), thread=(tx, ty))
    return text, dict(kw, kernel=kernel.name, details=details)


def decode_record(kernel: CompiledKernel, record: Sequence[int]) -> KernelError | None:
    """`KernelError` for a host copy of an error record, or None when record[0] == 0."""
    if int(record[0]) <= 0:
        return None
    text, kw = format_record(kernel, record)
    return KernelError(text, **kw)


def raise_first(errors: list[tuple[CompiledKernel, numpy.ndarray]]) -> None:
    """Raise `KernelError` for the first (kernel, record) pair, noting how many launches follow."""
    if not errors:
        return
    kernel, record = errors[0]
    text, kw = format_record(kernel, record)
    if len(errors) > 1:
        text += f" ({len(errors) - 1} later launch{'es' if len(errors) > 2 else ''} also recorded errors)"
    raise KernelError(text, **kw)


_COPY_AFTER_LAUNCH = False
"""Private switch (bench/checks_cost.py): the earlier protocol, one slot copy enqueued on the launch's
stream after every checked launch (and no batch copy at the sync points), to measure what it costs.
Change it only with nothing pending (after a sync that checks)."""


@dataclass(frozen=True)
class _Chunk:
    """SLOTS_PER_CHUNK consecutive slots: device memory and its pinned host mirror."""

    device_ptr: int
    host_ptr: int
    pinned: Any  # keeps the pinned allocation alive


class _Slot:
    __slots__ = ("device_ptr", "host", "host_ptr", "event", "dirty", "chunk", "index")

    def __init__(self, device_ptr: int, host: numpy.ndarray, host_ptr: int, chunk: _Chunk | None = None, index: int = 0):
        self.device_ptr = device_ptr
        self.host = host
        self.host_ptr = host_ptr
        self.event: Any = None
        self.dirty = True  # new device memory: zero it on first use
        self.chunk = chunk  # None: `host` is not mirrored from device memory (unit tests fill it)
        self.index = index  # position in its chunk


@dataclass
class _Pending:
    slot: _Slot
    kernel: CompiledKernel
    keep_alive: Any


class ErrorRecordPool:
    """A device's error-record slots and its pending checked launches (thread-safe)."""

    def __init__(self, device: Device):
        self.device = device
        self._free: list[_Slot] = []
        self._pending: deque[_Pending] = deque()
        self._found: list[tuple[CompiledKernel, numpy.ndarray]] = []
        """Errors decoded while recycling slots (`acquire`), reported by the next `collect`."""
        self._lock = threading.Lock()
        self._chunks: list[_Chunk] = []  # device memory and pinned mirrors, alive as long as the pool
        self._copy_stream: Any = None  # the pool's non-blocking stream for the batch copies

    def _grow(self) -> None:
        drv = _driver.driver()
        nbytes = SLOTS_PER_CHUNK * RECORD_BYTES
        try:
            import cuda.core as core

            self.device.make_current()
            # cuMemAlloc is synchronous: the memory is valid in every stream at once (a pool
            # allocation would be ordered on one stream only).
            dev_ptr = int(_driver.check(drv.cuMemAlloc(nbytes), "cuMemAlloc (error records)"))
            pinned = core.LegacyPinnedMemoryResource().allocate(nbytes)
        except Exception as e:
            raise _driver.wrap_driver_failure(e, "allocating checked-mode error records") from None
        host_ptr = int(pinned.handle)
        host = numpy.ctypeslib.as_array((ctypes.c_int64 * (SLOTS_PER_CHUNK * RECORD_WORDS)).from_address(host_ptr))
        host[:] = 0
        chunk = _Chunk(dev_ptr, host_ptr, pinned)
        self._chunks.append(chunk)
        for i in range(SLOTS_PER_CHUNK):
            words = host[i * RECORD_WORDS : (i + 1) * RECORD_WORDS]
            self._free.append(_Slot(dev_ptr + i * RECORD_BYTES, words, host_ptr + i * RECORD_BYTES, chunk, i))

    def acquire(self, stream: Stream) -> _Slot:
        """A slot that will be zero when work enqueued next on `stream` runs."""
        with self._lock:
            if not self._free:  # recycle completed slots; their errors wait for the next check
                self._found.extend(self._collect_locked(block=False, front_only=False))
            if not self._free:
                self._grow()
            slot = self._free.pop()
        if slot.dirty:
            _driver.memset_zero_async(slot.device_ptr, RECORD_BYTES, stream.handle)
            slot.dirty = False
        return slot

    def release(self, slot: _Slot) -> None:
        """Return a slot whose launch was not enqueued. Its zeroing may still be queued in the
        launch's stream, so it is zeroed again in the stream of its next use."""
        slot.dirty = True
        with self._lock:
            self._free.append(slot)

    def commit(self, slot: _Slot, stream: Stream, kernel: CompiledKernel, keep_alive: Any = None) -> None:
        """After the launch: record the slot's event on the launch's stream; mark pending."""
        if _COPY_AFTER_LAUNCH:
            _driver.copy_dtoh_async(slot.host_ptr, slot.device_ptr, RECORD_BYTES, stream.handle)
        try:
            slot.event = stream.raw.record(slot.event)
        except Exception as e:
            raise _driver.wrap_driver_failure(e, "recording the error-record event") from None
        with self._lock:
            self._pending.append(_Pending(slot, kernel, keep_alive))

    def collect(self, block: bool = False, front_only: bool = False) -> list[tuple[CompiledKernel, numpy.ndarray]]:
        """Finish completed pending launches (all of them when `block`); return the (kernel, record)
        pairs that recorded errors, in launch order. `front_only` stops at the first launch not yet
        complete (cheap, for the start of every launch)."""
        with self._lock:
            found = self._collect_locked(block, front_only)
            if self._found:  # decoded earlier by `acquire`: they come first (launch order)
                found, self._found = self._found + found, []
            return found

    def _collect_locked(self, block: bool, front_only: bool) -> list[tuple[CompiledKernel, numpy.ndarray]]:
        found: list[tuple[CompiledKernel, numpy.ndarray]] = []
        if front_only:
            n = 0
            while n < len(self._pending) and self._done(self._pending[n], block):
                n += 1
            if n:
                done = [self._pending[i] for i in range(n)]
                self._refresh(done)
                for _ in range(n):
                    self._finish(self._pending.popleft(), found)
            return found
        flags = [self._done(entry, block) for entry in self._pending]
        if not any(flags):
            return found
        self._refresh([entry for entry, ok in zip(self._pending, flags) if ok])
        still: deque[_Pending] = deque()
        for entry, ok in zip(self._pending, flags):
            if ok:
                self._finish(entry, found)
            else:
                still.append(entry)
        self._pending = still
        return found

    def _refresh(self, done: list[_Pending]) -> None:
        """Copy the completed launches' slots to their pinned mirrors: per chunk one copy of the span
        from the lowest to the highest completed slot, on the pool's own non-blocking stream, then wait
        for it. Called only after the host saw each entry's event complete."""
        if _COPY_AFTER_LAUNCH:
            return
        spans: dict[int, tuple[_Chunk, int, int]] = {}
        for entry in done:
            slot = entry.slot
            if slot.chunk is None:
                continue
            chunk, lo, hi = spans.get(id(slot.chunk), (slot.chunk, slot.index, slot.index))
            spans[id(chunk)] = (chunk, min(lo, slot.index), max(hi, slot.index))
        if not spans:
            return
        try:
            self.device.make_current()
            if self._copy_stream is None:
                self._copy_stream = self.device.create_stream()
            for chunk, lo, hi in spans.values():
                offset = lo * RECORD_BYTES
                _driver.copy_dtoh_async(chunk.host_ptr + offset, chunk.device_ptr + offset, (hi - lo + 1) * RECORD_BYTES,
                                        self._copy_stream.handle)
            self._copy_stream.raw.sync()
        except Exception as e:
            raise _driver.wrap_driver_failure(e, "copying checked-mode error records to the host") from None

    @staticmethod
    def _done(entry: _Pending, block: bool) -> bool:
        try:
            if block:
                entry.slot.event.sync()
                return True
            return bool(entry.slot.event.is_done)
        except Exception as e:
            raise _driver.wrap_driver_failure(e, "waiting for a checked launch") from None

    def _finish(self, entry: _Pending, found: list[tuple[CompiledKernel, numpy.ndarray]]) -> None:
        slot = entry.slot
        record = slot.host.copy()
        if record.any():
            slot.dirty = True
            if record[0] > 0:
                found.append((entry.kernel, record))
        self._free.append(slot)

    @property
    def pending_count(self) -> int:
        return len(self._pending)


_pools: dict[int, ErrorRecordPool] = {}
_pools_lock = threading.Lock()


def pool_for(device: Device) -> ErrorRecordPool:
    """The error-record pool of `device` (created on first use)."""
    pool = _pools.get(device.ordinal)
    if pool is None:
        with _pools_lock:
            pool = _pools.setdefault(device.ordinal, ErrorRecordPool(device))
    return pool


def check_pending(block: bool = False, device: Device | None = None, *, front_only: bool = False) -> None:
    """Decode the completed checked launches of `device` (of every device when None) and raise
    `KernelError` for the first that recorded an error (in launch order; the message counts the
    others). `block` first waits for every pending launch; `front_only` stops at the first launch
    still running (the cheap check at the start of every `launch`)."""
    if device is not None:
        pool = _pools.get(device.ordinal)
        if pool is None or (not pool._pending and not pool._found):  # nothing to decode (the launch's common case)
            return
        pools = [pool]
    else:
        pools = list(_pools.values())
    found: list[tuple[CompiledKernel, numpy.ndarray]] = []
    for pool in pools:
        found.extend(pool.collect(block=block, front_only=front_only))
    raise_first(found)
