"""Host-side tile-shape helpers the lazy chain and the tile compiler share: where the user's call is,
whether a tile shape is valid, how many tiles cover a shape. In the runtime, so that `runtime/lazy.py`
needs nothing from the compiler at import."""

from __future__ import annotations

import inspect
import math
import os

from warpforge.errors import CompileError

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
"""warpforge's own folder: frames inside it are not the user's."""


def call_site() -> str:
    """`file:line` of the user's code that called into warpforge (for host-side messages)."""
    here = _PACKAGE
    frame = inspect.currentframe()
    while frame is not None:
        fname = os.path.abspath(frame.f_code.co_filename)
        if not fname.startswith(here + os.sep) and "importlib" not in fname:
            return f"{frame.f_code.co_filename}:{frame.f_lineno}"
        frame = frame.f_back
    return "<unknown>"


def check_tile_shape(shape: tuple[int, ...], what: str, site: str | None = None) -> None:
    """A `CompileError` unless every dimension is a power of two and the tile has at most
    `MAX_TILE_ELEMENTS` elements (shown at the user's call site)."""
    from warpforge.limits import MAX_TILE_ELEMENTS

    def refuse(why: str) -> None:
        filename, _, line = (site or call_site()).rpartition(":")
        raise CompileError(f"{what} {tuple(shape)} is not a valid tile shape: {why}", filename=filename or "<unknown>", line=int(line) if line.isdigit() else 0)

    for d in shape:
        if isinstance(d, bool) or not isinstance(d, int) or d < 1 or d & (d - 1):
            refuse(f"tile dimensions must be powers of two (1, 2, 4, …), got {d!r}")
    if math.prod(shape) > MAX_TILE_ELEMENTS:
        refuse(f"{math.prod(shape)} elements; a tile has at most {MAX_TILE_ELEMENTS} (MAX_TILE_ELEMENTS)")


def grid_of(shape: tuple[int, ...], tile_shape: tuple[int, ...]) -> tuple[int, ...]:
    """Tiles per axis: ceil(extent / tile)."""
    return tuple(-(-n // t) for n, t in zip(shape, tile_shape))
