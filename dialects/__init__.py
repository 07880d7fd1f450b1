"""warpforge's dialects and the registry of every dialect a warpforge context knows.

`DIALECTS` maps a dialect name to a lazy factory, as xDSL's `Universe` does; `get_all_dialects()` is
xDSL's upstream set with `arith`, `gpu` and `llvm` replaced by ours and `kernel`, `nvvm`, `tile` added.
"""

import importlib
from collections.abc import Callable

from xdsl.ir import Dialect

from warpforge.printing import install as _install_printer_fix

_install_printer_fix()  # SSA names that never collide when printed (see warpforge.printing)


def _table(module: str, name: str) -> Callable[[], Dialect]:
    """The factory of the dialect table `name` of `warpforge.dialects.<module>`, imported on first use
    (the `kernel`, `nvgpu` and `tile` tables list the ops kept in their family files too: each
    module's `_dialect()`)."""

    def load() -> Dialect:
        return getattr(importlib.import_module(f"warpforge.dialects.{module}"), name)

    load.__name__ = load.__qualname__ = f"_{module}"
    return load


OUR_DIALECTS: dict[str, Callable[[], Dialect]] = {
    "arith": _table("arith", "Arith"),
    "gpu": _table("gpu", "GPU"),
    "kernel": _table("kernel", "Kernel"),
    "llvm": _table("llvm", "LLVM"),
    "nvgpu": _table("nvgpu", "NVGPU"),
    "nvvm": _table("nvvm", "NVVM"),
    "tile": _table("tile", "Tile"),
}
"""warpforge's own dialects (and the two that replace xDSL's registrations)."""


def get_all_dialects() -> dict[str, Callable[[], Dialect]]:
    """Every dialect of a warpforge context: xDSL's upstream set, with ours replacing/adding entries."""
    from xdsl.dialects import get_all_dialects as upstream

    dialects = dict(upstream())
    dialects.update(OUR_DIALECTS)
    return dialects
