"""The `Dialect(...)` tables are each dialect's table of contents: sorted and complete."""

from __future__ import annotations

import importlib

import pytest
from xdsl.ir import ParametrizedAttribute
from xdsl.irdl import IRDLOperation

from warpforge.dialects import get_all_dialects


def _defined(modules: list[str], prefix: str) -> tuple[set[type], set[type]]:
    ops: set[type] = set()
    attrs: set[type] = set()
    for name in modules:
        module = importlib.import_module(name)
        for value in vars(module).values():
            if not isinstance(value, type) or value.__module__ != module.__name__:
                continue
            if issubclass(value, IRDLOperation) and getattr(value, "name", "").startswith(prefix):
                ops.add(value)
            elif issubclass(value, ParametrizedAttribute) and getattr(value, "name", "").startswith(prefix):
                attrs.add(value)
    return ops, attrs


KERNEL_MODULES = [
    "warpforge.dialects.kernel", "warpforge.dialects.kernel_tile", "warpforge.dialects.kernel_mma", "warpforge.dialects.kernel_hopper",
    "warpforge.dialects.math_catalog",
]


def test_the_kernel_table_is_complete() -> None:
    from warpforge.dialects.kernel import Kernel

    ops, attrs = _defined(KERNEL_MODULES, "kernel.")
    assert set(Kernel.operations) == ops
    assert set(Kernel.attributes) == attrs
    assert get_all_dialects()["kernel"]() is Kernel  # the registry registers the table as it is


TILE_MODULES = ["warpforge.dialects.tile", "warpforge.dialects.tile_dot", "warpforge.dialects.tile_map", "warpforge.dialects.tile_scan", "warpforge.dialects.tile_tma", "warpforge.dialects.tile_layout"]


def test_the_tile_table_is_complete() -> None:
    # the ops of tile.dot, tile.map, the scans and the TMA ring are in the one table, not patched in
    from warpforge.dialects.tile import Tile

    ops, attrs = _defined(TILE_MODULES, "tile.")
    assert set(Tile.operations) == ops
    assert set(Tile.attributes) == attrs
    assert get_all_dialects()["tile"]() is Tile


def test_the_nvgpu_table_is_complete() -> None:
    from warpforge.dialects.nvgpu import NVGPU

    ops, attrs = _defined(["warpforge.dialects.nvgpu", "warpforge.dialects.nvgpu_hopper"], "nvgpu.")
    assert set(NVGPU.operations) == ops
    assert set(NVGPU.attributes) == attrs
    assert get_all_dialects()["nvgpu"]() is NVGPU


@pytest.mark.parametrize("name", ["kernel", "tile", "nvgpu"])
def test_the_table_is_sorted_by_class_name(name: str) -> None:
    dialect = get_all_dialects()[name]()
    for entries in (list(dialect.operations), list(dialect.attributes)):
        names = [c.__name__ for c in entries]
        assert names == sorted(names)


def test_the_kernel_dialect_loads_in_any_import_order() -> None:
    # kernel_tile imports tile, which imports kernel: the table is built on first use, so importing
    # any of them first works (a fresh interpreter, so nothing is cached)
    import subprocess
    import sys

    for first in ("tile", "kernel_tile", "kernel_mma", "kernel"):
        code = f"import warpforge.dialects.{first}\nfrom warpforge.dialects.kernel import Kernel\nprint(len(list(Kernel.operations)))"
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert int(proc.stdout) == len(_defined(KERNEL_MODULES, "kernel.")[0])


def test_result_only_ops_share_one_base_and_round_trip() -> None:
    from xdsl.dialects.builtin import f32

    from warpforge.context import make_context
    from warpforge.diagnostics import parse_mlir
    from warpforge.dialects import gpu, kernel
    from warpforge.dialects._common import ResultOnlyOp

    inferred = [kernel.Index1DOp, kernel.BlockIndex1DOp, kernel.ActiveMaskOp, kernel.LaneIdOp, gpu.ActiveMaskOp, gpu.LaneIdOp]
    built = [op() for op in inferred] + [
        kernel.SharedArrayOp(kernel.SharedArrayType([4, 4], f32)),
        kernel.LocalArrayOp(kernel.LocalArrayType([8], f32)),
        kernel.DynamicSharedOp(f32),
        gpu.DynamicSharedMemoryOp(),
    ]
    for op in built:
        assert isinstance(op, ResultOnlyOp) and not op.operands and len(op.results) == 1
        op.verify()
        text = str(op)
        (parsed,) = parse_mlir(make_context(), text, "t.mlir").ops
        assert type(parsed) is type(op) and parsed.results[0].type == op.results[0].type, text
    for op in (kernel.SharedArrayOp, kernel.LocalArrayOp):  # a parametrized result type must be given
        with pytest.raises(TypeError, match="needs its result type"):
            op()
