"""The aliasing check (DESIGN.md, Semantics → Aliasing): an output must not share memory with any
other argument.

Outputs are the writable parameters (`disjoint_slice`, `atomic_slice`, `raw_slice`). Their byte
ranges `[ptr, ptr + nbytes)` are compared with every other argument's — identity, partial overlap
and two views of one buffer all count. Read-only inputs may alias each other. Empty ranges overlap
nothing.
"""

from __future__ import annotations

from typing import Any, Sequence

from warpforge.errors import AliasError
from warpforge.runtime.compiled import ParamSpec


def ranges_overlap(a_ptr: int, a_nbytes: int, b_ptr: int, b_nbytes: int) -> bool:
    """True when `[a_ptr, a_ptr + a_nbytes)` and `[b_ptr, b_ptr + b_nbytes)` share a byte."""
    return a_nbytes > 0 and b_nbytes > 0 and a_ptr < b_ptr + b_nbytes and b_ptr < a_ptr + a_nbytes


def _describe(ptr: int, nbytes: int) -> str:
    return f"bytes [0x{ptr:x}, 0x{ptr + nbytes:x})"


def check_aliasing(params: Sequence[ParamSpec], views: Sequence[Any], kernel_name: str = "") -> None:
    """Raise `AliasError` when an output's memory overlaps any other argument's.

    `views[i]` is the resolved argument of `params[i]` — anything with `ptr` and `nbytes` (a
    `DeviceView`) — or None for scalars. The message names both parameters.
    """
    slices = [(p, v) for p, v in zip(params, views) if v is not None]
    for i, (out, out_view) in enumerate(slices):
        if not out.writable:
            continue
        for j, (other, other_view) in enumerate(slices):
            if i == j or (other.writable and j < i):  # a pair of outputs is reported once
                continue
            if ranges_overlap(out_view.ptr, out_view.nbytes, other_view.ptr, other_view.nbytes):
                role = "output" if other.writable else "input"
                same = out_view.ptr == other_view.ptr and out_view.nbytes == other_view.nbytes
                how = "is the same memory as" if same else "overlaps"
                of = f" of {kernel_name}" if kernel_name else ""
                raise AliasError(
                    f"output {out.name!r}{of} {how} {role} {other.name!r} "
                    f"({_describe(out_view.ptr, out_view.nbytes)} and {_describe(other_view.ptr, other_view.nbytes)}): "
                    "an output must not share memory with any other argument; pass a separate buffer "
                    "(e.g. a copy of the input)"
                )
