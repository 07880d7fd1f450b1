"""Layouts of `tile-to-gpu`: how a tile's elements lie in the registers of a CTA's threads, and the plans
reductions follow (`passes/tile_to_gpu/__init__.py` describes the scheme)."""

from __future__ import annotations

from dataclasses import dataclass
from math import prod




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

    def same_placement(self, other: Layout) -> bool:
        """Whether register k of every thread holds the same row-major element in both layouts."""
        return (self.vec, self.owners, self.replicas, self.reps) == (other.vec, other.owners, other.replicas, other.reps)


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


def reduce_plan(shape: tuple[int, ...], axis: int, threads: int, result_shape: tuple[int, ...]) -> ReducePlan:
    layout = canonical_layout(shape, threads)
    n = prod(shape)
    if axis == len(shape) - 1:
        c = shape[-1]
        span = layout.owners * layout.vec
        if c % span == 0:
            k_out = n // c
            wd = distinct_warps(layout, threads)
            return ReducePlan("rows", 0 if (wd == 1 and k_out == 1) else k_out * wd)
        group = c // layout.vec
        if layout.vec <= c and group * layout.replicas <= 32:
            rshape = tuple(list(shape[:-1]) + [1])
            held = Layout(rshape, 1, layout.owners // group, layout.replicas * group, layout.reps)
            need = 0 if held.same_placement(canonical_layout(result_shape, threads)) else n // c
            return ReducePlan("groups", need, group)
    return ReducePlan("shared", n)
