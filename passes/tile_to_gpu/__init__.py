"""`tile-to-gpu`: tile kernels (`kernel.func` marked `tile`, `tile` ops, after `kernel-to-tile` and
`lower-kernel-control-flow`) → `gpu.func`s that distribute every tile over the threads of one CTA.

**One tile block is one CTA**; tile blocks are linear on `grid.x` (`tile.block_id` is
`gpu.block_id x`, so there is no 65535 limit), and a partition's tile coordinates are the block id
delinearized by its tile counts. **Threads per CTA**: `tile.num_warps` × 32 when the frontend sets
it, else 4 warps up to 2048-element tiles, then one warp per 512 elements (at most 16), never more
threads than the largest tile has elements; the block size is exact (`known_block_size`, PTX
`.reqntid`).

**Layouts are read from the types.** Each tile value's layout is its type's encoding
(`layouts.layout_of`; `tile-assign-layouts` sets them, a type without one has the canonical layout of
its shape). A *blocked* layout `#tile.blocked<vec, owners, replicas>` (`layouts.Layout`, with reps =
N / (vec · owners)): the tile's elements in row-major order are cut into chunks of `vec` contiguous
elements (vec ≤ 4 and ≤ the last dimension in the canonical layout); chunk c belongs to owner
`c % owners`, and thread t is owner `t / replicas` (replicas > 1 only for tiles smaller than the
CTA). So thread t holds, for r < reps and v < vec, the element `((r * owners) + t / replicas) * vec +
v`: consecutive threads hold consecutive chunks (coalesced), each thread `reps * vec` registers. A
*slice* layout `#tile.slice<dim, extent, parent>` (`layouts.SliceLayout`) is a reduction's result
where the reduction left it: each thread keeps one register per row it held in the parent, so a
`tile.broadcast` back along the reduced dimension copies registers. Elementwise ops are per
register in their result's layout (operands converted to it; `tile-assign-layouts` makes them agree);
memory, shape and dot lowerings read the canonical blocked layout (`canon`); every lowering's
result is converted to its type's encoding when the two differ. A layout change (`tile.convert_layout`,
a broadcast of a non-scalar tile that is not a slice's, reshape, permute/transpose, some reductions)
is free where both layouts put every element in the same register of the same thread, by `gpu.shuffle
idx` when every lane reads one register of another lane of its warp, else through shared memory
(`barrier; write; barrier; read`, in one scratch `memref.global` per element type; the first
barrier, which protects earlier readers, is left out where nothing can have read the buffer yet —
its first use, or a fresh region, in the entry block).

**Memory.** `tile.load`/`tile.store` of a tile at tile coordinates: each chunk is one access of
`vec` contiguous elements, split into vector accesses of up to 16 bytes (`vector.load` → `ld.global
.nc.v4.f32`) when the specialization proves them aligned: the pointer is 16-byte aligned
(`tile.arg_info` `align`) and, for a 2-D tensor, the row length is a multiple of the vector width
(`divisibility`). A uniform test selects between the tile fully inside the tensor (unmasked) and a
tail tile (each vector or element guarded: loads give the padding value, stores do nothing). Only
one replica of each element stores. Inputs are `noalias readonly` (→ `ld.global.nc`), outputs
`noalias` (the host refuses aliasing).

**Reductions** (`tile.reduce`): each thread combines its own registers (a tree), then lanes combine
by `gpu.shuffle xor` (skipping replicas), then warps through one shared-memory round; rows shorter
than a warp's span reduce within shuffle groups; other axes use shared memory. The `rows` and
`groups` paths leave the result in its slice layout (no shared memory at all within one warp). `max`/`min`
propagate NaN (`arith.maximumf`).

**Elementwise semantics** are the `kernel` ops': each `tile.<op>` is lowered per register by
`kernel-to-gpu`'s own scalar lowering (the same `kernel.floordiv`, `kernel.cast`, … code), so tiles
and SIMT scalars cannot drift apart. `tile.exp` on f32 is `ex2.approx(x · log2 e)` (documented on
the op). **`kernel.print`** of scalars prints once per tile block (thread 0); of a tile, one line
per element with its index, from the thread holding it. Pass options: `chip`, `features`, `module`
(the `gpu.module`'s name).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects import builtin

from warpforge.dialects import gpu, kernel, nvvm
from warpforge.passes.kernel_to_gpu import GpuModulePass, ModuleLowering
from warpforge.passes.tile_to_gpu import conversions as _conversions  # noqa: F401  (each concern module registers
from warpforge.passes.tile_to_gpu import elementwise as _elementwise  # noqa: F401
from warpforge.passes.tile_to_gpu import memory as _memory  # noqa: F401  its @lowers entries when imported)
from warpforge.passes.tile_to_gpu import printing as _printing  # noqa: F401
from warpforge.passes.tile_to_gpu import program as _program  # noqa: F401
from warpforge.passes.tile_to_gpu import reductions as _reductions  # noqa: F401
from warpforge.passes.tile_to_gpu import scan as _scan  # noqa: F401  (tile.cumsum, tile.argmax/argmin)
from warpforge.passes.tile_to_gpu import shape as _shape  # noqa: F401
from warpforge.passes.tile_to_gpu.layouts import VECTOR_BYTES
from warpforge.passes.tile_to_gpu.lowering import _TileFunctionLowering  # pyright: ignore[reportPrivateUsage]

# --------------------------------------------------------------------------- the pass


@dataclass(frozen=True)
class TileToGpuPass(GpuModulePass):
    """Distribute tile kernels over CTAs: gpu.func in a gpu.module with #nvvm.target."""

    name = "tile-to-gpu"

    vector_bytes: int = VECTOR_BYTES
    """The widest global access in bytes (16: 128-bit; 1: no vector accesses, e.g. for the simulator)."""
    OPTION_VALUES: ClassVar[dict[str, tuple[int, ...]]] = {"vector_bytes": (1, 2, 4, 8, 16)}
    """What each option takes (checked when the pipeline is built): PTX's vector accesses are 1–16 bytes, powers of two."""

    def functions(self, op: builtin.ModuleOp) -> list[kernel.FuncOp]:
        return [f for f in op.ops if isinstance(f, kernel.FuncOp) and "tile" in f.attributes]

    def lower_function(self, f: kernel.FuncOp, lowering: ModuleLowering) -> gpu.FuncOp:
        # tile.dot picks wgmma on sm_90a: the chip the pass resolved into the module's #nvvm.target
        func = _TileFunctionLowering(f, lowering, vector_bytes=self.vector_bytes, chip=lowering.chip).run()
        # a wgmma accumulator read after the loop's last wait must depend on it (nvvm.wgmma.wait_accumulators)
        nvvm.fence_wgmma_accumulators(func)
        return func


from warpforge.passes.lowerings import tile_dot as _tile_dot  # noqa: E402,F401  (registers the tile.dot lowering)
from warpforge.passes.lowerings import tile_map as _tile_map  # noqa: E402,F401  (registers the tile.map lowering)
