"""Stream order across streams: work on one stream waits for earlier work on another that touched
the same memory, so no program needs to order streams by hand to get right results.

The rule (the README's "Stream order"), as CuPy's and torch's users know it:

- A `DeviceBuffer` remembers the stream it was last used on (`buf.stream`: where it was created,
  copied, or passed to a launch). Work on another stream that uses it — a launch, `to_host(s)`,
  `copy_from_host(a, s)`, a tile chain that wraps it with `wf.tensor(buf)` — first waits for that
  stream: an event is recorded on the old stream and the new one waits on it (`cuEventRecord`,
  `cuStreamWaitEvent`; CUDA Driver API §6.20 Stream Management, §6.21 Event Management). The
  buffer then belongs to the new stream, which also becomes the stream its memory is freed on
  (`cuda.core.Buffer.set_deallocation_stream`), so freeing it never overtakes a kernel still using it.
- A foreign device array (torch, cupy, any `__cuda_array_interface__` object) belongs to its own
  stream: the `stream` of its `__cuda_array_interface__` (CAI v3), or torch's current stream for a
  torch tensor. A launch on another stream waits for that stream first (cuda.core's
  `StridedMemoryView` does it, through DLPack's `__dlpack__(stream=...)` or the CAI `stream`), and
  afterwards that stream waits for the launch (here), so the owner's next operation sees the
  kernel's writes. A DLPack-only array of another library has no stream warpforge can name: its
  producer is ordered before the launch (DLPack), but its next user must synchronize itself.
  `wf.tensor(x)` also remembers x's stream when it is called, and the tile chain waits for that
  one too (torch's current stream may have changed by the time the chain runs). A bound launch
  (`runtime.launch.bind_arguments`) made its views once, without a stream: at each launch
  `order_bound_launch` does what the view did (the launch waits for each array's home stream; a
  DLPack-only array is exported for the launch stream) and `join_after` follows as above.
- Nothing is recorded when the streams are the same (the common case), nothing synchronizes the
  host, and each device reuses one event: `cuStreamWaitEvent` waits for the event's state at the
  time of the call, so recording the event again later does not change a wait already enqueued
  (CUDA Driver API, `cuEventRecord`). A lock keeps the record and the wait of one thread together.
  The event of a buffer's last use is recorded when the buffer is next used elsewhere, not at every
  use: it then covers everything enqueued on the old stream by that time, the last use included.
- What another library does with a `DeviceBuffer` it took through `__cuda_array_interface__` (whose
  `stream` is the buffer's last stream, so the library's work starts after warpforge's) is that
  library's to order: warpforge cannot see it, so synchronize, or hand warpforge the library's
  own array (torch, cupy) instead, which is ordered as above.

On the CPU simulator every launch and copy completes before it returns, so there is nothing to
order: the functions here only track the last stream there.
"""

from __future__ import annotations

import sys
import threading
from typing import TYPE_CHECKING, Any

from warpforge.errors import LaunchError
from warpforge.runtime import _driver

if TYPE_CHECKING:
    from warpforge.runtime.device import Device, Stream
    from warpforge.runtime.memory import DeviceBuffer

CAI_LEGACY_STREAM = 1
"""`__cuda_array_interface__` v3 spells the legacy default stream 1 and the per-thread default
stream 2 (0 is disallowed); as `CUstream` handles, 1 and 2 are `CU_STREAM_LEGACY` and
`CU_STREAM_PER_THREAD`, so they are passed to the driver as they are."""


class StreamOrder:
    """A device's ordering event and the lock around its use (one per `Device`, see `for_device`)."""

    def __init__(self, device: Device):
        self.device = device
        self._lock = threading.Lock()
        self._event: Any = None

    def wait(self, consumer: int, producer: int) -> None:
        """Make stream `consumer` wait for all work enqueued so far on stream `producer` (both
        `CUstream` handles as ints), without blocking the host. Nothing happens when they are the
        same stream. Raises `DeviceError` when the driver refuses."""
        if consumer == producer:
            return
        drv = _driver.driver()
        with self._lock:
            if self._event is None:
                self.device.make_current()
                flags = int(drv.CUevent_flags.CU_EVENT_DISABLE_TIMING)
                self._event = _driver.check(drv.cuEventCreate(flags), "cuEventCreate (stream order)")
            _driver.check(drv.cuEventRecord(self._event, producer), "cuEventRecord (stream order)")
            _driver.check(drv.cuStreamWaitEvent(consumer, self._event, 0), "cuStreamWaitEvent (stream order)")


_orders_lock = threading.Lock()


def for_device(device: Device) -> StreamOrder:
    """The `StreamOrder` of `device`, made on first use (kept on the `Device` object itself)."""
    order = getattr(device, "_stream_order", None)
    if order is None:
        with _orders_lock:
            order = getattr(device, "_stream_order", None)
            if order is None:
                order = StreamOrder(device)
                device._stream_order = order  # pyright: ignore[reportAttributeAccessIssue]
    return order


def follow(buf: DeviceBuffer, stream: Stream) -> None:
    """`buf` is about to be used on `stream`: if it was last used on another stream, make `stream`
    wait for that one; then `stream` is its last stream (see `_move`).

    Both must be on the buffer's device (the callers check it)."""
    last = buf._stream  # pyright: ignore[reportPrivateUsage]
    if not stream.simulated and last.handle != stream.handle:
        for_device(buf._device).wait(stream.handle, last.handle)  # pyright: ignore[reportPrivateUsage]
    _move(buf, stream)


def _move(buf: DeviceBuffer, stream: Stream) -> None:
    """Make `stream` the last stream of `buf` — and the stream cuda.core frees it on, so freeing it
    is ordered after its last use — once `stream` is ordered after the previous last stream."""
    if buf._stream.handle != stream.handle and not stream.simulated:  # pyright: ignore[reportPrivateUsage]
        raw = buf._buffer  # pyright: ignore[reportPrivateUsage]
        if raw is not None:
            try:
                raw.set_deallocation_stream(stream.raw)
            except Exception as e:
                raise _driver.wrap_driver_failure(e, "moving a buffer's deallocation to its new stream") from None
    buf._stream = stream  # pyright: ignore[reportPrivateUsage]


def _torch_current_stream(torch: Any, device: Any) -> int:
    """torch's current stream on `device` (a `torch.device`) as a `CUstream` handle: the raw query
    torch's own launchers use (`torch._C._cuda_getCurrentRawStream(index)`, no `torch.cuda.Stream`
    object made) where this torch has it, else `torch.cuda.current_stream(device).cuda_stream`."""
    raw = getattr(getattr(torch, "_C", None), "_cuda_getCurrentRawStream", None)
    index = getattr(device, "index", None)
    if raw is not None and isinstance(index, int):
        return int(raw(index))
    return int(torch.cuda.current_stream(device).cuda_stream)


def home_stream(obj: Any) -> int | None:
    """The stream a foreign device array belongs to, as a `CUstream` handle: torch's current stream
    on the tensor's device for a torch tensor, the `stream` of its `__cuda_array_interface__` (v3)
    otherwise; None when it names none (a DLPack-only array, or a CAI without `stream`)."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(obj, torch.Tensor):
        if obj.device.type != "cuda":
            return None
        return _torch_current_stream(torch, obj.device)
    try:
        cai = getattr(obj, "__cuda_array_interface__", None)
    except Exception:  # a property that refuses (the argument checks report it)
        return None
    return _cai_stream(cai)


def _cai_stream(cai: Any) -> int | None:
    if isinstance(cai, dict):
        stream = cai.get("stream")
        if isinstance(stream, int) and not isinstance(stream, bool) and stream > 0:
            return stream
    return None


class BoundForeign:
    """A foreign device array bound to a launch (`runtime.launch.bind_arguments`), resolved once; each
    launch asks it for its home stream (as `home_stream`, per launch: torch's current stream and a
    CAI's `stream` may change between launches) and checks that its memory has not moved since.

    `kind`: "torch" (a torch CUDA tensor: torch's current stream, `data_ptr()` and `shape` checked),
    "cai" (a `__cuda_array_interface__` object: its `stream`; `data` and `shape` checked), "dlpack"
    (DLPack only: no stream to name and no pointer to read without a DLPack export, so each launch
    exports it once with `__dlpack__(stream=launch stream)`, which orders the launch after the
    producer's work, as cuda.core's view does for the general launch). `what` names the argument in
    errors."""

    __slots__ = ("obj", "kind", "what", "_stamp", "_torch")

    def __init__(self, obj: Any, what: str):
        self.obj, self.what = obj, what
        torch = sys.modules.get("torch")
        if torch is not None and isinstance(obj, torch.Tensor):
            self.kind, self._torch = "torch", torch
        else:
            try:
                cai = getattr(obj, "__cuda_array_interface__", None)
            except Exception:  # a property that refuses: the array was viewed through DLPack
                cai = None
            self.kind, self._torch = ("cai" if isinstance(cai, dict) else "dlpack"), None
        self._stamp = self._read_stamp()

    def _read_stamp(self) -> Any:
        obj = self.obj
        if self.kind == "torch":
            data_ptr = getattr(obj, "data_ptr", None)
            return (data_ptr() if data_ptr is not None else None, tuple(obj.shape))
        if self.kind == "cai":
            cai = obj.__cuda_array_interface__
            data = cai.get("data")
            return (data[0] if data else None, tuple(cai["shape"]))
        return None

    def _moved(self, now: Any) -> LaunchError:
        (p0, s0), (p1, s1) = self._stamp, now
        p0s, p1s = (f"{p:#x}" if isinstance(p, int) else str(p) for p in (p0, p1))
        return LaunchError(
            f"{self.what} is not the memory it was bound to any more (data pointer {p0s}, shape {s0} at bind; now {p1s}, {s1}): "
            "a bound launch reuses the pointers, extents and descriptors computed at bind; bind the kernel again"
        )

    def home(self, torch_streams: dict[Any, int]) -> int | None:
        """This launch's home stream of the array (None: it names none), after checking that its
        memory has not moved (`LaunchError` otherwise). `torch_streams` caches torch's current stream
        per device within one launch."""
        obj = self.obj
        if self.kind == "torch":
            data_ptr = getattr(obj, "data_ptr", None)
            if (data_ptr is not None and data_ptr() != self._stamp[0]) or tuple(obj.shape) != self._stamp[1]:
                raise self._moved((data_ptr() if data_ptr is not None else None, tuple(obj.shape)))
            device = obj.device
            key = getattr(device, "index", None)
            h = torch_streams.get(key)
            if h is None:
                h = torch_streams[key] = _torch_current_stream(self._torch, device)
            return h
        if self.kind == "cai":
            cai = obj.__cuda_array_interface__
            data = cai.get("data")
            now = (data[0] if data else None, tuple(cai["shape"]))
            if now != self._stamp:
                raise self._moved(now)
            return _cai_stream(cai)
        return None

    def order_producer(self, stream_ptr: int) -> None:
        """A DLPack-only array: export it for the consumer `stream_ptr` (the producer orders its work
        before it; DLPack's `__dlpack__(stream=...)`), then drop the capsule unconsumed."""
        try:
            self.obj.__dlpack__(stream=stream_ptr)
        except Exception as e:
            raise LaunchError(f"{self.what}: __dlpack__(stream={stream_ptr:#x}) failed: {type(e).__name__}: {e}") from None


def order_launch(stream: Stream, buffers: list[DeviceBuffer], foreign: list[Any]) -> list[int]:
    """Before a launch on `stream`: wait for the last streams of `buffers` (each stream once) and
    make `stream` their last stream. Returns the home streams of the `foreign` arrays that differ from
    `stream`, for `join_after`. No-op on the simulator."""
    if not _order_buffers(stream, buffers):
        return []
    homes: list[int] = []
    for obj in foreign:
        h = home_stream(obj)
        if h is not None and h != stream.handle and h not in homes:
            homes.append(h)
    return homes


def _order_buffers(stream: Stream, buffers: Any) -> bool:
    """The `DeviceBuffer` part of `order_launch`; False on the simulator (nothing to order)."""
    if stream.simulated:
        for b in buffers:
            b._stream = stream  # pyright: ignore[reportPrivateUsage]
        return False
    handle = stream.handle
    waited: set[int] | None = None
    for b in buffers:
        last = b._stream.handle  # pyright: ignore[reportPrivateUsage]
        if last != handle:
            if waited is None:
                waited = set()
            if last not in waited:  # one wait per stream, however many buffers were last used there
                for_device(stream.device).wait(handle, last)
                waited.add(last)
            _move(b, stream)
        elif b._stream is not stream:  # pyright: ignore[reportPrivateUsage]
            b._stream = stream  # pyright: ignore[reportPrivateUsage]  (the same CUstream, another wrapper)
    return True


def order_bound_launch(stream: Stream, buffers: Any, foreign: Any) -> list[int]:
    """`order_launch` for a bound launch (`BoundForeign` arrays, whose views were made at bind without
    a stream): besides the buffers' waits, `stream` also waits for each foreign array's home stream —
    what cuda.core's view does in the general launch — or, for a DLPack-only array, exports it for
    `stream` (`BoundForeign.order_producer`). Returns the home streams for `join_after`. Raises
    `LaunchError` when a foreign array's memory moved since the bind."""
    if not _order_buffers(stream, buffers):
        return []
    homes: list[int] = []
    if not foreign:
        return homes
    handle = stream.handle
    torch_streams: dict[Any, int] = {}
    for f in foreign:
        h = f.home(torch_streams)
        if h is None:
            if f.kind == "dlpack":
                f.order_producer(handle or CAI_LEGACY_STREAM)
        elif h != handle and h not in homes:
            homes.append(h)
    if homes:
        order = for_device(stream.device)
        for h in homes:
            order.wait(handle, h)
    return homes


def join_after(stream: Stream, homes: list[int]) -> None:
    """After a launch on `stream`: each foreign array's home stream waits for it."""
    if homes:
        order = for_device(stream.device)
        for h in homes:
            order.wait(h, stream.handle)
