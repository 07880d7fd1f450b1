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


def call_position() -> tuple[str, int, int]:
    """(file, line, column) of the user's code that called into warpforge: `call_site`'s frame, with
    the column (1-based) of the expression running there from the code's positions (Python 3.11+;
    0 when unknown)."""
    here = _PACKAGE
    frame = inspect.currentframe()
    while frame is not None:
        fname = os.path.abspath(frame.f_code.co_filename)
        if not fname.startswith(here + os.sep) and "importlib" not in fname:
            col = 0
            positions = list(frame.f_code.co_positions())
            if 0 <= frame.f_lasti // 2 < len(positions):
                start_line, _, start_col, _ = positions[frame.f_lasti // 2]
                if start_line == frame.f_lineno and start_col is not None:
                    col = start_col + 1
            return frame.f_code.co_filename, frame.f_lineno or 0, col
        frame = frame.f_back
    return "<unknown>", 0, 0


def check_tile_shape(shape: tuple[int, ...], what: str, site: str | None = None, position: tuple[str, int, int] | None = None) -> None:
    """A `CompileError` unless every dimension is a power of two and the tile has at most
    `MAX_TILE_ELEMENTS` elements (shown at `position`, else `site` (`file:line`), else the user's
    call site with its column)."""
    import linecache

    from warpforge.limits import MAX_TILE_ELEMENTS

    def refuse(why: str) -> None:
        if position is not None or site is None:
            filename, line, col = position or call_position()
        else:
            filename, _, text = site.rpartition(":")
            line, col = (int(text) if text.isdigit() else 0), 0
        source = linecache.getline(filename, line) or None if line else None
        raise CompileError(f"{what} {tuple(shape)} is not a valid tile shape: {why}", filename=filename or "<unknown>", line=line, col=col, source_line=source)

    for d in shape:
        if isinstance(d, bool) or not isinstance(d, int) or d < 1 or d & (d - 1):
            refuse(f"tile dimensions must be powers of two (1, 2, 4, …), got {d!r}")
    if math.prod(shape) > MAX_TILE_ELEMENTS:
        refuse(f"{math.prod(shape)} elements; a tile has at most {MAX_TILE_ELEMENTS} (MAX_TILE_ELEMENTS)")


def grid_of(shape: tuple[int, ...], tile_shape: tuple[int, ...]) -> tuple[int, ...]:
    """Tiles per axis: ceil(extent / tile)."""
    return tuple(-(-n // t) for n, t in zip(shape, tile_shape))
