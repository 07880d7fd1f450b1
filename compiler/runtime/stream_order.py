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
  one too (torch's current stream may have changed by the time the chain runs).
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


def home_stream(obj: Any) -> int | None:
    """The stream a foreign device array belongs to, as a `CUstream` handle: torch's current stream
    on the tensor's device for a torch tensor, the `stream` of its `__cuda_array_interface__` (v3)
    otherwise; None when it names none (a DLPack-only array, or a CAI without `stream`)."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(obj, torch.Tensor):
        if obj.device.type != "cuda":
            return None
        return int(torch.cuda.current_stream(obj.device).cuda_stream)
    try:
        cai = getattr(obj, "__cuda_array_interface__", None)
    except Exception:  # a property that refuses (the argument checks report it)
        return None
    if isinstance(cai, dict):
        stream = cai.get("stream")
        if isinstance(stream, int) and not isinstance(stream, bool) and stream > 0:
            return stream
    return None


def order_launch(stream: Stream, buffers: list[DeviceBuffer], foreign: list[Any]) -> list[int]:
    """Before a launch on `stream`: wait for the last streams of `buffers` (each stream once) and
    make `stream` their last stream. Returns the home streams of the `foreign` arrays that differ from
    `stream`, for `join_after`. No-op on the simulator."""
    if stream.simulated:
        for b in buffers:
            b._stream = stream  # pyright: ignore[reportPrivateUsage]
        return []
    waited: set[int] = {stream.handle}
    for b in buffers:
        last = b._stream.handle  # pyright: ignore[reportPrivateUsage]
        if last not in waited:  # one wait per stream, however many buffers were last used there
            for_device(stream.device).wait(stream.handle, last)
            waited.add(last)
        _move(b, stream)
    homes: list[int] = []
    for obj in foreign:
        h = home_stream(obj)
        if h is not None and h != stream.handle and h not in homes:
            homes.append(h)
    return homes


def join_after(stream: Stream, homes: list[int]) -> None:
    """After a launch on `stream`: each foreign array's home stream waits for it."""
    if homes:
        order = for_device(stream.device)
        for h in homes:
            order.wait(h, stream.handle)
