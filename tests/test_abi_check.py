"""The launch-time ABI check reads the PTX entry the compiler generated (`ptx_entry_param_sizes`)
instead of probing the loaded kernel with `cuKernelGetParamInfo` — which fails by design past the
last parameter, so compute-sanitizer reported every launch. It must accept what the compiler emits
for every parameter kind and dtype, and refuse a PTX entry that disagrees in count or width."""

from __future__ import annotations

import dataclasses

import pytest

import warpforge as wf
from warpforge import bf16, f16, f32, f64, i8, i16, i32, i64, simt, tile, u8, u16, u32, u64
from warpforge.errors import LaunchError
from warpforge.runtime.launch import _check_abi, abi_param_sizes, ptx_entry_param_sizes


@simt.kernel
def every_scalar(
    a: simt.Slice[f32], m: simt.Slice[f64], out: simt.DisjointSlice[f32],
    b: wf.bool_, x8: i8, x16: i16, x32: i32, x64: i64, y8: u8, y16: u16, y32: u32, y64: u64,
    h: f16, g: bf16, s: f32, d: f64,
):  # fmt: skip
    idx = simt.index_1d()
    i = idx.get()
    if b and i < len(a):
        out[idx] = a[i] + f32(m[i]) + x8 + x16 + x32 + x64 + y8 + y16 + y32 + y64 + h + g + s + d


@simt.kernel(checks=False)
def unchecked_scale(a: simt.Slice[f32], out: simt.DisjointSlice[f32], k: f32):
    idx = simt.index_1d()
    out[idx] = k * a[idx.get()]


@tile.kernel
def tile_scale2d(z: tile.Tensor[f32, ("R", "C")], x: tile.Tensor[f32, (-1, -1)], k: f32):
    z.store(tile.load_tile_like(x, z) * k)


@tile.kernel
def tile_add(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)], y: tile.Tensor[f32, (-1,)]):
    z.store(tile.load_tile_like(x, z) + tile.load_tile_like(y, z))


def test_every_parameter_kind_the_compiler_emits_passes():
    k = every_scalar.compile("sm_90")
    sizes = ptx_entry_param_sizes(k.ptx, k.entry)
    # slices: pointer + length; scalars at their width (bool a byte, f16/bf16 as .b8 [2]); the record
    assert sizes == abi_param_sizes(k) == [8, 8, 8, 8, 8, 8, 1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 2, 4, 8, 8]
    _check_abi(k)
    u = unchecked_scale.compile("sm_90")
    assert ptx_entry_param_sizes(u.ptx, u.entry) == abi_param_sizes(u) == [8, 8, 8, 8, 4]  # no record
    _check_abi(u)
    t = tile_add.compile(wf.zeros((4096,), f32).partition((1024,)), wf.zeros((4096,), f32), wf.zeros((4096,), f32)).kernel
    assert ptx_entry_param_sizes(t.ptx, t.entry) == abi_param_sizes(t)
    _check_abi(t)
    t2 = tile_scale2d.compile(wf.zeros((64, 96), f32).partition((16, 32)), wf.zeros((64, 96), f32), 2.0).kernel
    assert [p.ndim for p in t2.params if p.is_slice] == [2, 2]  # 2-D: pointer, rows, cols
    assert ptx_entry_param_sizes(t2.ptx, t2.entry) == abi_param_sizes(t2)
    _check_abi(t2)
    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    if find_ptxas() is not None:
        for c in (k, u, t, t2):
            run_ptxas(c.ptx, "sm_90", verbose=False)


def test_a_disagreeing_entry_is_refused():
    k = every_scalar.compile("sm_90")
    # a parameter too narrow: the driver would read the later arguments at the wrong offsets
    narrow = dataclasses.replace(k, ptx=k.ptx.replace(f".param .u8 {k.entry}_param_6,", f".param .u32 {k.entry}_param_6,"))
    assert narrow.ptx != k.ptx
    with pytest.raises(LaunchError, match=rf"the PTX entry {k.entry} of every_scalar takes parameters of \[8, 8, 8, 8, 8, 8, 4, "):
        _check_abi(narrow)
    # one parameter fewer in the signature than in the PTX
    fewer = dataclasses.replace(k, params=k.params[:-1])
    with pytest.raises(LaunchError, match=r"takes 20 parameters, but its signature describes 19 \(a: 2, m: 2, out: 2, b: 1, .*, s: 1, error record: 1\)"):
        _check_abi(fewer)
    elsewhere = dataclasses.replace(k, entry="not_there")
    with pytest.raises(LaunchError, match="declares no .entry not_there"):
        _check_abi(elsewhere)


def test_parameter_spellings():
    ptx = """
.visible .entry k(
	.param .u64 .ptr .global .align 16 k_param_0,
	.param .u64 .ptr .align 8 k_param_1,
	.param .align 16 .b8 k_param_2[16],
	.param .s32 k_param_3, .param .f16 k_param_4,
	.param .b64 k_param_5
)
.reqntid 256, 1, 1
{
	ret;
}
.visible .entry k2()
{
	ret;
}
"""
    assert ptx_entry_param_sizes(ptx, "k") == [8, 8, 16, 4, 2, 8]
    assert ptx_entry_param_sizes(ptx, "k2") == []
    assert ptx_entry_param_sizes(ptx, "k3") is None
    with pytest.raises(LaunchError, match=r"cannot read the parameter declaration '\.param \.pred p' of \.entry bad"):
        ptx_entry_param_sizes(".entry bad(\n\t.param .pred p\n)", "bad")

