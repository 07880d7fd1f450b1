"""The rows layout as IR: `tile-assign-layouts` writes the layout of a row reduction of an MMA
accumulator (passes/lowerings/tile_dot_rows.py) as `#tile.slice<dim = 1, extent = N, parent =
#tile.mma<…> | #tile.wgmma<…>>` on the reductions, the running maxima/sums carried through loops and
the values sharing their registers; `tile-to-gpu` reads it (and chooses the same itself for IR
without it). The attribute prints and parses, reads back as the layout tile-to-gpu chooses, and the
gpu-stage IR of the row-reduction kernels and of the attention example is the same with and without
the encodings."""

from __future__ import annotations

import re

import pytest
from xdsl.dialects.builtin import f32 as F32

from warpforge import bf16, f16, f32, tile
from warpforge.context import parse_module
from warpforge.dialects.tile import TileType
from warpforge.dialects.tile_layout import MmaEncodingAttr, SliceEncodingAttr, WgmmaEncodingAttr
from warpforge.passes import tile_assign_layouts
from warpforge.passes.lowerings.tile_dot import MmaLayout
from warpforge.passes.lowerings.tile_dot_rows import MmaRowsLayout, rows_of
from warpforge.passes.lowerings.tile_dot_wgmma import WgmmaLayout
from warpforge.passes.tile_to_gpu.layouts import layout_of

import test_tile_dot_rows as rows_kernels
from test_tile_mma_layouts import _example_kernels, _stages

ROWS = re.compile(r"#tile\.slice<dim = 1, extent = \d+, parent = #tile\.(mma|wgmma)<")


@pytest.mark.parametrize(
    "parent, acc, warps",
    [
        (MmaEncodingAttr((4, 1)), MmaLayout((64, 64), 4, 1, 4), 4),
        (MmaEncodingAttr((2, 1)), MmaLayout((64, 32), 2, 1, 4), 4),  # 2 warps along M, 2 replicas
        (WgmmaEncodingAttr((8, 1), (64, 128)), WgmmaLayout((128, 128), 8, 1, 8), 8),
    ],
)
def test_rows_slice_prints_parses_and_reads_back_as_the_rows_layout(parent: object, acc: MmaLayout, warps: int) -> None:
    m, n = acc.shape
    enc = SliceEncodingAttr(1, n, parent)  # pyright: ignore[reportArgumentType]
    for shape in ((m,), (m, 1)):
        t = TileType(shape, F32, enc)
        text = str(t)
        assert text == f"!tile.tile<{'x'.join(map(str, shape))}xf32, #tile.slice<dim = 1, extent = {n}, parent = {parent}>>"
        module = parse_module(f'builtin.module {{ "test.op"() : () -> {text} }}')
        (op,) = module.body.block.ops
        assert op.results[0].type == t  # the round trip
        got = layout_of(t, 32 * warps)
        want = rows_of(acc)
        assert isinstance(got, MmaRowsLayout) and want is not None and got.same_placement(want)
        assert got == MmaRowsLayout(shape, m, acc.wm, warps)


def _row_kernel_specs() -> dict[str, tuple[object, tuple[object, ...]]]:
    k = rows_kernels
    return {
        "softmax_f16": (k.SOFTMAX["f16"], (tile.spec(f32, (64, 32), partition=(64, 32)), tile.spec(f32, (64, 1), partition=(64, 1)), tile.spec(f16, (64, 32)), tile.spec(f16, (32, 64)), tile.spec(f16, (64, 32)))),
        "softmax_bf16": (k.SOFTMAX["bf16"], (tile.spec(f32, (64, 32), partition=(64, 32)), tile.spec(f32, (64, 1), partition=(64, 1)), tile.spec(bf16, (64, 32)), tile.spec(bf16, (32, 64)), tile.spec(bf16, (64, 32)))),
        "tall": (k.tall, (tile.spec(f32, (128, 16), partition=(128, 16)), tile.spec(f32, (128, 1), partition=(128, 1)), tile.spec(f16, (128, 16)), tile.spec(f16, (16, 16)))),
        "reduced_again": (k.reduced_again, (tile.spec(f32, (32, 16), partition=(32, 16)), tile.spec(f32, (1, 1), partition=(1, 1)), tile.spec(f16, (32, 16)), tile.spec(f16, (16, 16)))),
        "gemm_rowmax": (k.gemm_rowmax, k.GEMM_SPECS),
    }


@pytest.mark.parametrize("chip", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("name", ["softmax_f16", "softmax_bf16", "tall", "reduced_again", "gemm_rowmax"])
def test_encoded_rows_lower_as_tile_to_gpu_chooses(name: str, chip: str, monkeypatch: pytest.MonkeyPatch) -> None:
    kernel, specs = _row_kernel_specs()[name]
    tile_ir = kernel.ir("tile", *specs, chip=chip)  # pyright: ignore[reportAttributeAccessIssue]
    assigned, gpu_ir = _stages(tile_ir, chip)
    with monkeypatch.context() as m:
        m.setattr(tile_assign_layouts, "assign_row_encodings", lambda *a: None)
        plain, chosen_ir = _stages(tile_ir, chip)
    assert not ROWS.search(plain)
    encoded = ROWS.findall(assigned)
    if name == "gemm_rowmax":  # 64x128 over 4 warps: wgmma (4x1) on sm_90a, mma.sync 1x4 (warps split N) on sm_80
        assert set(encoded) == ({"wgmma"} if chip == "sm_90a" else set())
    else:
        assert set(encoded) == {"mma"}
    assert gpu_ir == chosen_ir, f"{name} on {chip}: tile-to-gpu lowers the encoded rows layout differently"


@pytest.mark.parametrize("chip", ["sm_80", "sm_90a"])
def test_attention_ir_shows_the_rows_layout(chip: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The online softmax of examples/attention.py as `warpforge-opt` shows it: the row maxima and sums,
    the running m and l carried through both loops (block arguments) and alpha hold the rows of the
    S accumulator (#tile.mma, 4 warps along M; on sm_90a #tile.wgmma, both products on wgmma with A from
    registers); the broadcasts back are in the accumulator's layout; the only layout conversion is the
    causal mask's (computed blocked, converted to the MMA layout at tile.where)."""
    ((name, k),) = _example_kernels("attention")
    tile_ir = k.ir("tile", chip=chip)  # pyright: ignore[reportAttributeAccessIssue]
    assigned, gpu_ir = _stages(tile_ir, chip)
    mma = "#tile.wgmma<warps_per_cta = [4, 1], instr_shape = [64, 64]>" if chip == "sm_90a" else "#tile.mma<warps_per_cta = [4, 1], instr_shape = [16, 8]>"
    rows = f"!tile.tile<64xf32, #tile.slice<dim = 1, extent = 64, parent = {mma}>>"
    for kind in ("max", "sum"):
        found = re.findall(rf"tile\.reduce {kind} %\S+ \[1\] : !tile\.tile<64x64xf32, {re.escape(mma)}> -> (.*)", assigned)
        assert found == [rows, rows], (kind, found)  # one per loop (unmasked, masked tail)
    assert re.search(rf"%m_new\S* = tile\.maximum %\S+, %\S+ : {re.escape(rows)}", assigned)
    assert re.search(rf"%alpha\S* = tile\.exp2 %\S+ : {re.escape(rows)}", assigned)
    block_args = re.findall(r"^\s*\^bb\d+\((.*)\):$", assigned, re.M)
    assert block_args and all(a.count(rows) == 2 for a in block_args), block_args  # l and m in every loop block
    assert re.findall(rf"tile\.broadcast %\S+ : !tile\.tile<64x1xf32, #tile\.slice<[^>]*{re.escape(mma)}>> -> !tile\.tile<64x64xf32, {re.escape(mma)}>", assigned)
    conversions = re.findall(r"tile\.convert_layout .*", assigned)
    assert len(conversions) == 1 and "xi1" in conversions[0], conversions  # the causal mask only
    with monkeypatch.context() as m:
        m.setattr(tile_assign_layouts, "assign_row_encodings", lambda *a: None)
        _, chosen_ir = _stages(tile_ir, chip)
    assert gpu_ir == chosen_ir, f"{name} on {chip}"
