"""Layouts of `tile-to-gpu`: how a tile's elements lie in the registers of a CTA's threads, and the plans
reductions follow (`passes/tile_to_gpu/__init__.py` describes the scheme). `Layout` is the meaning of
`#tile.blocked`, `SliceLayout` of `#tile.slice` (`warpforge.dialects.tile_layout`); `layout_of` reads a
tile type's encoding."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from math import prod

import numpy as np
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Attribute, Operation

from warpforge.dialects.tile_layout import BlockedEncodingAttr, MmaEncodingAttr, SliceEncodingAttr, WgmmaEncodingAttr

MAX_VEC = 4
"""Elements per chunk at most: 4 (16 bytes of f32)."""
VECTOR_BYTES = 16
"""The widest global access: 128 bits."""


# --------------------------------------------------------------------------- layouts


@dataclass(frozen=True)
class Layout:
    """How a tile of `shape` lies in the registers of the CTA's threads: thread t holds, for r < reps
    and v < vec, the row-major element `((r * owners) + t // replicas) * vec + v` (register r*vec+v)."""

    shape: tuple[int, ...]
    vec: int
    owners: int
    replicas: int
    reps: int

    @property
    def numel(self) -> int:
        return prod(self.shape)

    @property
    def slots(self) -> int:
        return self.reps * self.vec

    @property
    def uniform(self) -> bool:
        """One element, held by every thread."""
        return self.numel == 1

    def same_placement(self, other: Layout | SliceLayout) -> bool:
        """Whether register k of every thread holds the same row-major element in both layouts."""
        if isinstance(other, SliceLayout):
            return other.same_placement(self)
        if not isinstance(other, Layout):
            return False  # an MMA layout (lowerings/tile_dot.py): converted through shared memory
        return (self.vec, self.owners, self.replicas, self.reps) == (other.vec, other.owners, other.replicas, other.reps)

    def element(self, t: int, k: int) -> int:
        """The row-major element thread `t` holds in register `k`."""
        r, v = divmod(k, self.vec)
        return ((r * self.owners) + t // self.replicas) * self.vec + v

    @property
    def threads(self) -> int:
        return self.owners * self.replicas

    @cached_property
    def placement(self) -> np.ndarray:
        """[thread, register] → row-major element (for comparing layouts of different kinds)."""
        t = np.arange(self.threads)[:, None]
        r, v = np.divmod(np.arange(self.slots)[None, :], self.vec)
        return ((r * self.owners) + t // self.replicas) * self.vec + v

    def encoding(self) -> BlockedEncodingAttr:
        return BlockedEncodingAttr(self.vec, self.owners, self.replicas)


@dataclass(frozen=True)
class SliceLayout:
    """`#tile.slice<dim, extent, parent>`: the layout of a reduction's result. The parent tile, seen
    row-major as `(high, extent, low)` (`low`: the elements after the reduced dimension), has the
    blocked layout `parent`; thread t holds, in register order, each parent register (r, v) whose
    own contribution to the reduced coordinate is 0 — one register per row it held — and that
    register is the result element of the row (the parent element with the reduced coordinate
    dropped). Broadcasting back to the parent is therefore a register copy."""

    shape: tuple[int, ...]
    parent: Layout
    extent: int
    low: int

    @property
    def numel(self) -> int:
        return prod(self.shape)

    @cached_property
    def registers(self) -> tuple[tuple[int, int], ...]:
        """The parent registers (r, v) this layout keeps, in register order."""
        p = self.parent
        out = []
        for r in range(p.reps):
            for v in range(p.vec):
                g = r * p.owners * p.vec + v
                if (g // self.low) % self.extent == 0:
                    out.append((r, v))
        return tuple(out)

    @property
    def slots(self) -> int:
        return len(self.registers)

    @property
    def uniform(self) -> bool:
        return self.numel == 1

    def index_of(self, r: int, v: int) -> int:
        """The register holding the row of parent register (r, v) (a broadcast back along the dimension)."""
        p = self.parent
        g = r * p.owners * p.vec + v
        g -= ((g // self.low) % self.extent) * self.low
        return self.registers.index(divmod(g, p.owners * p.vec))

    def project(self, f: int) -> int:
        """The result element of parent element `f` (its reduced coordinate dropped)."""
        return (f // (self.extent * self.low)) * self.low + f % self.low

    def element(self, t: int, k: int) -> int:
        r, v = self.registers[k]
        return self.project(self.parent.element(t, r * self.parent.vec + v))

    @property
    def threads(self) -> int:
        return self.parent.threads

    @cached_property
    def placement(self) -> np.ndarray:
        p = self.parent
        t = np.arange(self.threads)[:, None]
        rv = np.array(self.registers, dtype=np.int64).reshape(-1, 2)
        f = ((rv[None, :, 0] * p.owners) + t // p.replicas) * p.vec + rv[None, :, 1]
        return (f // (self.extent * self.low)) * self.low + f % self.low

    def same_placement(self, other: Layout | SliceLayout) -> bool:
        if self == other:
            return True
        return self.threads == other.threads and self.slots == other.slots and bool(np.array_equal(self.placement, other.placement))


def slice_layout(parent: Layout, axis: int, result_shape: tuple[int, ...]) -> SliceLayout:
    """The slice layout of reducing `axis` of a tile in the blocked layout `parent`."""
    extent, low = parent.shape[axis], prod(parent.shape[axis + 1 :])
    high = parent.numel // (extent * low)
    flat = Layout((high, extent, low), parent.vec, parent.owners, parent.replicas, parent.reps)
    return SliceLayout(tuple(result_shape), flat, extent, low)


def layout_of(t: Attribute, threads: int) -> Layout | SliceLayout:
    """The register layout of tile type `t` (a `!tile.tile`) in a CTA of `threads` threads: its
    encoding's, or the canonical layout of its shape when it has none. Raises `ValueError` (with the
    reason) for an encoding that is not a register layout `tile-to-gpu` lowers, or one meant for
    another number of threads."""
    from warpforge.dialects.tile import TileType

    assert isinstance(t, TileType)
    enc = t.encoding
    shape = tuple(t.dims)
    if not t.has_encoding:
        return canonical_layout(shape, threads)
    if isinstance(enc, MmaEncodingAttr):  # tile.dot's accumulator layout (passes/lowerings/tile_dot.py)
        from warpforge.passes.lowerings.tile_dot import MmaLayout

        wm, wn = enc.warps
        if (threads // 32) % (wm * wn):
            raise ValueError(f"{t} spreads over {wm * wn} warps, which do not divide the CTA's {threads // 32}")
        return MmaLayout((shape[0], shape[1]), wm, wn, threads // 32)  # pyright: ignore[reportReturnType]
    if isinstance(enc, WgmmaEncodingAttr):  # tile.dot's wgmma accumulator (passes/lowerings/tile_dot_wgmma.py)
        from warpforge.passes.lowerings.tile_dot_wgmma import WgmmaLayout

        wm = enc.warps[0]
        if wm != threads // 32 or enc.instr != (64, shape[1]):
            raise ValueError(f"{t} is the wgmma accumulator of {wm} warps (m64n{enc.instr[1]}), the CTA has {threads // 32} warps and the tile {shape[1]} columns")
        return WgmmaLayout((shape[0], shape[1]), wm, 1, wm)  # pyright: ignore[reportReturnType]
    if isinstance(enc, BlockedEncodingAttr):
        if enc.threads != threads:
            raise ValueError(f"{t} is laid out for {enc.threads} threads, the CTA has {threads}")
        vec, owners = enc.vec.data, enc.owners.data
        return Layout(shape, vec, owners, enc.replicas.data, prod(shape) // (vec * owners))
    if isinstance(enc, SliceEncodingAttr) and enc.rows_of_mma:  # the rows of an MMA accumulator (passes/lowerings/tile_dot_rows.py)
        from warpforge.passes.lowerings.tile_dot_rows import MmaRowsLayout

        parent = enc.parent
        assert isinstance(parent, MmaEncodingAttr | WgmmaEncodingAttr)
        wm, warps = parent.warps[0], threads // 32
        if warps % wm or (isinstance(parent, WgmmaEncodingAttr) and wm != warps):
            raise ValueError(f"{t} holds the rows of an accumulator over {wm} warps along M, the CTA has {warps} warps")
        return MmaRowsLayout(shape, shape[0], wm, warps)  # pyright: ignore[reportReturnType]
    if isinstance(enc, SliceEncodingAttr):
        parent = enc.parent
        assert isinstance(parent, BlockedEncodingAttr)
        if parent.threads != threads:
            raise ValueError(f"{t} is laid out for {parent.threads} threads, the CTA has {threads}")
        dim, extent = enc.dim.data, enc.extent.data
        low = prod(shape[dim:])
        high = prod(shape) // low
        vec, owners = parent.vec.data, parent.owners.data
        numel = high * extent * low
        if numel % (vec * owners):
            raise ValueError(f"{t}: the parent tile of {numel} elements does not fit {parent}")
        playout = Layout((high, extent, low), vec, owners, parent.replicas.data, numel // (vec * owners))
        return SliceLayout(shape, playout, extent, low)
    raise ValueError(f"tile-to-gpu keeps tiles in registers in #tile.blocked or #tile.slice layouts; {t} has {enc}")


def canonical_layout(shape: tuple[int, ...], threads: int) -> Layout:
    """The layout every tile value of `shape` has in a CTA of `threads` threads."""
    n = prod(shape)
    last = shape[-1] if shape else 1
    vec = min(MAX_VEC, last, max(1, n // threads))
    owners = min(threads, n // vec)
    return Layout(tuple(shape), vec, owners, threads // owners, n // (vec * owners))


def default_threads(max_numel: int, num_warps: int | None) -> int:
    """Threads per CTA for a kernel whose largest tile has `max_numel` elements."""
    if num_warps is None:
        num_warps = min(16, max(4, max_numel // 512))
        threads = num_warps * 32
        while threads > 32 and threads > max_numel:
            threads //= 2
        return threads
    return num_warps * 32


def max_tile_elements(func: Operation) -> int:
    """The most elements any tile value of `func` has (operands, results, block arguments)."""
    from warpforge.dialects.tile import TileType

    best = 1
    for op in func.walk():
        for v in [*op.results, *op.operands]:
            if isinstance(v.type, TileType):
                best = max(best, v.type.numel)
    for block in func.regions[0].blocks:
        for a in block.args:
            if isinstance(a.type, TileType):
                best = max(best, a.type.numel)
    return best


def kernel_threads(func: Operation) -> int | None:
    """Threads per CTA of the tile kernel `func` (`default_threads` of its largest tile and its
    `tile.num_warps`); None when `tile.num_warps` is invalid (`tile-to-gpu` reports it)."""
    num_warps = func.attributes.get("tile.num_warps")
    if num_warps is not None and (not isinstance(num_warps, IntegerAttr) or not 1 <= num_warps.value.data <= 32):
        return None
    return default_threads(max_tile_elements(func), num_warps.value.data if isinstance(num_warps, IntegerAttr) else None)


@dataclass(frozen=True)
class ReducePlan:
    """How `tile.reduce` over `axis` of a tile of `shape` runs: `rows` (a whole row per rep: registers,
    shuffles across all owners, warps through shared memory), `groups` (short rows: registers, then
    shuffles within groups of `group` owners), or `shared` (through shared memory). `scratch`: the
    shared-memory elements it needs."""

    path: str
    scratch: int
    group: int = 1


def distinct_warps(layout: Layout, threads: int) -> int:
    """Warps holding different owners (the others hold replicas)."""
    warps = threads // 32
    return warps if layout.replicas <= 32 else warps // (layout.replicas // 32)


def reduce_plan(shape: tuple[int, ...], axis: int, threads: int, result_shape: tuple[int, ...], result: Layout | SliceLayout | None = None) -> ReducePlan:
    """How `tile.reduce` runs on a tile in the canonical layout of `shape`, its result going to the
    layout `result` (None: the canonical layout of `result_shape`)."""
    layout = canonical_layout(shape, threads)
    result = result if result is not None else canonical_layout(result_shape, threads)
    natural = slice_layout(layout, axis, result_shape)
    n = prod(shape)
    if axis == len(shape) - 1:
        c = shape[-1]
        span = layout.owners * layout.vec
        if c % span == 0:
            k_out = n // c
            wd = distinct_warps(layout, threads)
            free = wd == 1 and (k_out == 1 or natural.same_placement(result))
            return ReducePlan("rows", 0 if free else k_out * wd)
        group = c // layout.vec
        if layout.vec <= c and group * layout.replicas <= 32:
            need = 0 if natural.same_placement(result) else n // c
            return ReducePlan("groups", need, group)
    return ReducePlan("shared", n)
