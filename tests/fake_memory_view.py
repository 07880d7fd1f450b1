"""A stand-in for cuda.core's `StridedMemoryView` in tests without a GPU: what the runtime reads of an
object's `__cuda_array_interface__` (pointer, shape, strides in elements, dtype, device, read-only).

    monkeypatch.setattr(cuda.core.utils, "StridedMemoryView", FakeStridedMemoryView)
"""

from __future__ import annotations

from typing import Any

import numpy as np


class FakeView:
    """The view of one `__cuda_array_interface__` dict (strides None: C-contiguous)."""

    def __init__(self, cai: dict[str, Any]):
        self.ptr, self.shape = cai["data"][0], tuple(cai["shape"])
        self.dtype = np.dtype(cai["typestr"])
        strides = cai.get("strides")
        self.strides = None if strides is None else tuple(s // self.dtype.itemsize for s in strides)
        self.device_id, self.is_device_accessible, self.readonly = 0, True, cai["data"][1]


class FakeStridedMemoryView:
    """`StridedMemoryView.from_cuda_array_interface`, reduced to `FakeView`."""

    @staticmethod
    def from_cuda_array_interface(obj: Any, stream_ptr: int) -> FakeView:
        return FakeView(obj.__cuda_array_interface__)
