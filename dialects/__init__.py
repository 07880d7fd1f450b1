"""warpforge's dialects and the registry of every dialect a warpforge context knows.

`DIALECTS` maps a dialect name to a lazy factory, as xDSL's `Universe` does; `get_all_dialects()` is
xDSL's upstream set with `arith`, `gpu` and `llvm` replaced by ours and `kernel`, `nvvm`, `tile` added.
"""

from collections.abc import Callable

from xdsl.ir import Dialect

from warpforge.printing import install as _install_printer_fix

_install_printer_fix()  # SSA names that never collide when printed (see warpforge.printing)


def _llvm() -> Dialect:
    from warpforge.dialects.llvm import LLVM

    return LLVM


def _gpu() -> Dialect:
    from warpforge.dialects.gpu import GPU

    return GPU


def _nvvm() -> Dialect:
    from warpforge.dialects.nvvm import NVVM

    return NVVM


def _arith() -> Dialect:
    from warpforge.dialects.arith import Arith

    return Arith


def _kernel() -> Dialect:
    from warpforge.dialects.kernel import Kernel  # the whole dialect, its tile-kernel and tensor-core ops too

    return Kernel


def _nvgpu() -> Dialect:
    from warpforge.dialects.nvgpu import NVGPU
    from warpforge.dialects.nvgpu_hopper import extend_nvgpu  # mbarriers, TMA

    return extend_nvgpu(NVGPU)


def _tile() -> Dialect:
    from warpforge.dialects.tile import Tile  # with tile.dot, tile.map, the scans and the TMA ring (tile._dialect)

    return Tile


OUR_DIALECTS: dict[str, Callable[[], Dialect]] = {
    "arith": _arith,
    "gpu": _gpu,
    "kernel": _kernel,
    "llvm": _llvm,
    "nvgpu": _nvgpu,
    "nvvm": _nvvm,
    "tile": _tile,
}
"""warpforge's own dialects (and the two that replace xDSL's registrations)."""


def get_all_dialects() -> dict[str, Callable[[], Dialect]]:
    """Every dialect of a warpforge context: xDSL's upstream set, with ours replacing/adding entries."""
    from xdsl.dialects import get_all_dialects as upstream

    dialects = dict(upstream())
    dialects.update(OUR_DIALECTS)
    return dialects
