"""The SIMT programming model: write what one thread does, launch thousands.

```python
@simt.kernel(contract=simt.Contract(domain=1, block=(256, 1, 1)))
def vecadd(a: simt.Slice[f32], b: simt.Slice[f32], c: simt.DisjointSlice[f32]):
    idx = simt.index_1d()          # ThreadIndex: this thread's own index
    i = idx.get()                  # i64, for reading
    c[idx] = a[i] + b[i]           # out of range: not written
```

Inside kernels: `simt.index_1d()`, `simt.index_2d(ncols)` (`.row`, `.col`, `.get()`), the raw ids
`simt.thread_idx / block_idx / block_dim / grid_dim` `.x|.y|.z` (i64), Python's arithmetic with
NumPy 2 typing, `math.*`, `len`, `abs`, `min`, `max`, `int`, `float`, `bool`, dtype conversions
(`wf.i32(x)`), `if`/`for … in range`/`while`/`break`/`continue`/`return`.
"""

from __future__ import annotations

import threading
import weakref

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    import numpy
else:  # NumPy loads at first use, not at `import warpforge`
    from warpforge.lazy_import import numpy

from warpforge import mma, unsafe
from warpforge.builtin_stubs import BuiltinStubs, device_only
from warpforge.errors import UsageError
from warpforge.frontend.annotations import AtomicSlice, DisjointSlice, Slice, SliceAnnotation, TensorMap
from warpforge.frontend.device_function import device
from warpforge.source_snapshot import changed, folded_values, snapshot_source

KERNEL_FUNCTIONS = (
    "index_1d", "index_2d", "index_3d", "block_index_1d",
    # atomics
    "atomic_add", "atomic_sub", "atomic_min", "atomic_max", "atomic_and", "atomic_or", "atomic_xor",
    "atomic_exch", "atomic_cas", "atomic_add_pair",
    # shared and local memory
    "shared_array", "dynamic_shared", "local_array",
    # barriers and fences
    "sync_threads", "sync_threads_count", "sync_threads_and", "sync_threads_or", "sync_warp",
    "threadfence_block", "threadfence", "threadfence_system",
    # warp collectives
    "shfl_xor", "shfl_up", "shfl_down", "shfl_idx", "vote_any", "vote_all", "ballot", "active_mask",
    "lane_id", "match_any", "warp_sum", "warp_min", "warp_max", "warp_and", "warp_or", "warp_xor",
    # loops (the elementwise builtins, `simt.rsqrt`, `simt.cdiv`, …, come from the catalog: `kernel_functions()`)
    "static_range",
    # tensor cores and asynchronous copies (warpforge.mma)
    "mma_fragment", "mma_sync", "mma_coords", "ldmatrix", "cp_async", "cp_async_commit", "cp_async_wait",
    # Hopper warpgroup control (sm_90 / sm_90a)
    "fence_proxy_async", "setmaxnreg_inc", "setmaxnreg_dec", "wgmma_fence", "wgmma_commit_group", "wgmma_wait_group",
    "elect_sync",
    # Hopper mbarriers and TMA copies
    "mbarrier", "mbarrier_init", "mbarrier_arrive", "mbarrier_arrive_expect_tx", "mbarrier_try_wait", "mbarrier_wait",
    "tma_load", "tma_store", "tma_store_commit", "tma_store_wait",
)  # fmt: skip
"""Functions of this module that only mean something inside a kernel, besides the elementwise builtins
of `warpforge.dialects.math_catalog` (`kernel_functions()` gives all of them)."""

WARP_SIZE = 32
"""Threads per warp on every NVIDIA GPU (a compile-time constant inside kernels)."""


def _device_only(name: str) -> Any:
    return device_only("simt", name)


index_1d = _device_only("index_1d")
index_1d.__doc__ = """`simt.index_1d()`: this thread's `ThreadIndex` in a 1-D launch,
`block_idx.x * block_dim.x + thread_idx.x` (i64). Unique per thread: a kernel using it may be launched
only with grid and block y = z = 1 (checked by `prepare()`)."""
index_2d = _device_only("index_2d")
index_2d.__doc__ = """`simt.index_2d(ncols)`: a 2-D `ThreadIndex`: `.row` = global y, `.col` = global x,
`.get()` = `row * ncols + col`. Writes through it also require `col < ncols`; launches need z = 1."""

_DOCS = {
    "index_3d": """`simt.index_3d(ny, nx)`: a 3-D `ThreadIndex`: `.z`, `.y`, `.x` are the global ids, `.get()` =
`(z * ny + y) * nx + x`. Writes through it also require `y < ny` and `x < nx`. Any launch shape.""",
    "block_index_1d": """`simt.block_index_1d()`: this block's `BlockIndex`, `(block_idx.z * grid_dim.y +
block_idx.y) * grid_dim.x + block_idx.x` (`.get()`, i64). Writing a `DisjointSlice` through it
(`partial[bidx] = total`) is performed by the block's first thread only — one write per block.""",
    "atomic_add": """`simt.atomic_add(a, i, v, scope=None, order="relaxed")`: atomically `a[i] += v`; returns the old
value. `a` is a `simt.AtomicSlice`, a `simt.unsafe.RawSlice` or a shared array (`a[i, j]`: pass `(i, j)`).
i32/u32/i64/u64/f16/bf16/f32/f64. `scope`: "block", "device" (default for global memory) or "system"
("block" is the default for shared arrays); `order`: "relaxed", "acquire", "release", "acq_rel",
"seq_cst" - PTX `atom.<sem>.<scope>` (PTX ISA 9.7.13.5; seq_cst: `fence.sc` + `atom.acquire`), which
need sm_70 (scopes: sm_60): an older target is a `CompileError`. An index out of range is a checked
error (nothing updated, result 0).""",
    "atomic_sub": "`simt.atomic_sub(a, i, v, ...)`: atomically `a[i] -= v` (an add of -v); returns the old value.",
    "atomic_min": "`simt.atomic_min(a, i, v, ...)`: atomically `a[i] = min(a[i], v)` (integers by signedness; f32/f64 by a compare-and-swap loop, NaN propagates); returns the old value.",
    "atomic_max": "`simt.atomic_max(a, i, v, ...)`: atomically `a[i] = max(a[i], v)`; returns the old value.",
    "atomic_and": "`simt.atomic_and(a, i, v, ...)`: atomically `a[i] &= v` (32/64-bit integers); returns the old value.",
    "atomic_or": "`simt.atomic_or(a, i, v, ...)`: atomically `a[i] |= v`; returns the old value.",
    "atomic_xor": "`simt.atomic_xor(a, i, v, ...)`: atomically `a[i] ^= v`; returns the old value.",
    "atomic_exch": "`simt.atomic_exch(a, i, v, ...)`: atomically `a[i] = v` (32/64-bit); returns the old value.",
    "atomic_cas": "`simt.atomic_cas(a, i, expected, new, ...)`: atomically `if a[i] == expected: a[i] = new` (32/64-bit integers); returns the old value.",
    "atomic_add_pair": """`old0, old1 = simt.atomic_add_pair(a, i, x, y, ...)`: one atomic add of `(x, y)` to `(a[i], a[i + 1])`,
f16 or bf16, `i` even (the pair is one 32-bit word: CUDA's `atomicAdd(__half2*)`); returns both old values.""",
    "shared_array": """`simt.shared_array(shape, dtype)`: an array in the block's shared memory, e.g.
`tile = simt.shared_array((32, 33), wf.f32)`; `shape` is an int or a tuple of compile-time ints.
Every thread of the block sees the same array; its contents are undefined until written, and
threads order their writes and reads with `simt.sync_threads()`. Indexing is bounds-checked
(checked mode). At most 48 KiB of static shared memory per kernel (use `dynamic_shared` beyond).""",
    "dynamic_shared": """`simt.dynamic_shared(dtype)`: the launch's dynamic shared memory
(`LaunchConfig(shmem_size=...)` bytes) as a 1-D array of `shmem_size // itemsize` elements, 16-byte
aligned; above 48 KiB `prepare()` sets the opt-in, up to the device's limit (227 KiB on an H200).""",
    "local_array": """`simt.local_array(shape, dtype)`: this thread's own array (in registers when every
index is known after unrolling, else in local memory), zero-initialized. Bounds-checked.""",
    "sync_threads": "`simt.sync_threads()`: every thread of the block waits here (CUDA `__syncthreads()`).",
    "sync_threads_count": "`simt.sync_threads_count(p)`: a barrier that returns how many threads of the block have `p` true (i32).",
    "sync_threads_and": "`simt.sync_threads_and(p)`: a barrier that returns whether `p` holds in every thread of the block.",
    "sync_threads_or": "`simt.sync_threads_or(p)`: a barrier that returns whether `p` holds in any thread of the block.",
    "sync_warp": "`simt.sync_warp(mask=0xffffffff)`: the lanes of `mask` wait for each other (CUDA `__syncwarp`).",
    "threadfence_block": "`simt.threadfence_block()`: order this thread's memory accesses for the block (`membar.cta`).",
    "threadfence": "`simt.threadfence()`: order this thread's memory accesses for the whole GPU (`membar.gl`).",
    "threadfence_system": "`simt.threadfence_system()`: order them for the GPU, the host and peers (`membar.sys`).",
    "shfl_xor": "`simt.shfl_xor(value, lane_mask, width=32)`: the value of lane `lane ^ lane_mask` (within segments of `width` lanes).",
    "shfl_up": "`simt.shfl_up(value, delta, width=32, with_valid=False)`: the value of lane `lane - delta`; lanes below the segment's start (or any, for `delta` >= 32) keep their own; `with_valid=True` also gives PTX's predicate, `v, ok = ...` (ok false where the lane kept its own).",
    "shfl_down": "`simt.shfl_down(value, delta, width=32, with_valid=False)`: the value of lane `lane + delta`; lanes past the segment's end (or any, for `delta` >= 32) keep their own; `with_valid=True` also gives PTX's predicate, `v, ok = ...`.",
    "shfl_idx": "`simt.shfl_idx(value, src_lane, width=32)`: the value of lane `src_lane` of this lane's segment (a broadcast).",
    "vote_any": "`simt.vote_any(p)`: whether `p` holds in any lane of the warp.",
    "vote_all": "`simt.vote_all(p)`: whether `p` holds in every lane of the warp.",
    "ballot": "`simt.ballot(p)`: a u32 whose bit i is lane i's `p`.",
    "active_mask": "`simt.active_mask()`: a u32 of the lanes executing this call together.",
    "lane_id": "`simt.lane_id()`: this thread's lane in its warp, 0–31 (i64).",
    "match_any": "`simt.match_any(value)`: a u32 of the lanes of the warp holding the same value (bit for bit).",
    "warp_sum": "`simt.warp_sum(x)`: the sum over the warp's 32 lanes, in every lane (`redux.sync` for 32-bit integers on sm_80+; f16/bf16 accumulate in f32 and round once).",
    "warp_min": "`simt.warp_min(x)`: the minimum over the warp (floats: NaN propagates).",
    "warp_max": "`simt.warp_max(x)`: the maximum over the warp (floats: NaN propagates).",
    "warp_and": "`simt.warp_and(x)`: bitwise and over the warp (integers).",
    "warp_or": "`simt.warp_or(x)`: bitwise or over the warp (integers).",
    "warp_xor": "`simt.warp_xor(x)`: bitwise xor over the warp (integers).",
    "static_range": """`for i in simt.static_range(n)` (or `(start, stop, step)`, compile-time ints): the loop is
unrolled, `i` a constant in each copy — for register arrays (`simt.local_array`) indexed by `i`, and
code that must see constants. It reaches LLVM as a loop marked `llvm.loop.unroll.full` (compiled once,
whatever its trip count), which LLVM unrolls, keeping register arrays in registers; where the body needs
`i` as a Python constant (a shuffle offset, `if i == 0`, a fresh array per iteration, `i` after the
loop) the frontend unrolls it instead. Same results either way. At most 1024 iterations; no break/continue.""",
    "mma_fragment": """`simt.mma_fragment(operand, dtype, fill=0, count=None)`: this lane's part of an `mma.sync`
operand, every element `fill`: operand "a"/"b" of f16, bf16 (m16n8k16: 8/4 elements), f32 (as tf32,
m16n8k8: 4/2) or i8/u8 (m16n8k32: 16/8); "c" (the 16x8 accumulator, 4 elements) of f32, f16 or i32.
Elements are read and written as `frag[i]` (compile-time `i`); which matrix entry each is:
`simt.mma_coords` and `warpforge.mma` (PTX ISA §9.7.14.5.8-.10). `count=(2, 8)` gives an array of
fragments: `acc[i, j]` (compile-time indices) is one, `acc[i, j] = simt.mma_sync(...)` updates it.""",
    "mma_sync": """`simt.mma_sync(a, b, c, allow_tf32=False)`: the warp's `mma.sync` D = A·B + C; returns D (a "c"
fragment). A and B of one dtype; f32 inputs need `allow_tf32=True` (they multiply as tf32). Every lane
of the warp must call it together. `acc = simt.mma_sync(a, b, acc)` updates `acc` (also in loops).
Needs sm_80.""",
    "mma_coords": """`simt.mma_coords(frag, i)`: (row, col), i64, of the entry of the warp's operand that element `i`
(a compile-time int) of this lane's fragment holds, e.g. to store a result: `r, c = simt.mma_coords(acc, i)`.""",
    "ldmatrix": """`simt.ldmatrix(s, index, num=4, trans=False)`: the warp loads `num` (1, 2, 4) 8x8 matrices of an
f16/bf16 shared array `s` (PTX `ldmatrix`, sm_75): lanes 8j..8j+7 each give the start `s[index]` (e.g.
`(row, col)`) of one row of matrix j (8 elements along the last dimension, 16-byte aligned). num=4 gives an A fragment (lane l: row l % 16, col
8 * (l // 16) of a 16x16 tile), num=2 a B fragment (with trans=True from a K x N row-major tile: lane l
gives row l % 16), num=1 a 2-element register array. Checked: a row outside `s` or misaligned is an error.""",
    "cp_async": """`simt.cp_async(s, (row, col), x, i, nbytes=16, cache=None)`: start an asynchronous copy of
`x[i : i + nbytes/size]` (global) to `s[row, col:]` (shared) — PTX `cp.async`, sm_80; elements of `x`
past its end are zero-filled (tails need no branch). `cache`: "ca" (L1+L2) or "cg" (L2 only, 16 bytes;
the default for 16 bytes). Complete after `simt.cp_async_commit()` and a covering `simt.cp_async_wait(n)`,
then `simt.sync_threads()` before other threads read it. Checked: destination outside `s`, a misaligned
address or a negative `i` is an error (the slice itself must start 16-byte aligned, as device buffers do).""",
    "cp_async_commit": "`simt.cp_async_commit()`: this thread's `cp_async` copies since the last commit form a group (`cp.async.commit_group`).",
    "cp_async_wait": "`simt.cp_async_wait(n=0)`: wait until at most `n` (a compile-time int) of this thread's newest groups are pending (`cp.async.wait_group`).",
    "fence_proxy_async": "`simt.fence_proxy_async()`: order this thread's shared-memory writes before later TMA/wgmma reads of them (`fence.proxy.async.shared::cta`, sm_90).",
    "setmaxnreg_inc": "`simt.setmaxnreg_inc(regs)`: raise the warpgroup's per-thread register limit to `regs` (a compile-time multiple of 8 in 24..256; `setmaxnreg.inc`, sm_90a: the kernel is compiled for sm_90a).",
    "setmaxnreg_dec": "`simt.setmaxnreg_dec(regs)`: lower the warpgroup's per-thread register limit to `regs` (a compile-time multiple of 8 in 24..256; `setmaxnreg.dec`, sm_90a).",
    "wgmma_fence": "`simt.wgmma_fence()`: order register accesses before the warpgroup's next wgmma (`wgmma.fence`, sm_90a).",
    "wgmma_commit_group": "`simt.wgmma_commit_group()`: close the warpgroup's pending wgmmas into a group (`wgmma.commit_group`, sm_90a).",
    "wgmma_wait_group": "`simt.wgmma_wait_group(n=0)`: wait until at most `n` (a compile-time int) wgmma groups are pending (`wgmma.wait_group`, sm_90a).",
    "elect_sync": """`simt.elect_sync()`: true in exactly one lane of the warp (the lowest active lane), false in the
others (`elect.sync` with the full mask, PTX ISA §9.7.13.12, sm_90). Every lane of the warp must call it
together (the kernel is launched only with whole warps).""",
    "mbarrier": """`bar = simt.mbarrier()`: an mbarrier — an 8-byte barrier object in the block's shared memory that
counts arrivals and asynchronous-transaction bytes per *phase* (PTX ISA §9.7.13.15). One per call site;
the handle is only passed to `simt.mbarrier_*` and `simt.tma_load` (anything else is a `CompileError`).
Before use one thread initializes it (`simt.mbarrier_init`) and the block synchronizes
(`simt.sync_threads()`).""",
    "mbarrier_init": """`simt.mbarrier_init(bar, count)`: start `bar` at phase 0, expecting `count` arrivals (1 .. 2^20 - 1)
per phase (`mbarrier.init.shared.b64`, PTX ISA §9.7.13.15.9, then `fence.proxy.async.shared::cta` so
TMA's transaction updates see the initialized barrier). Call it from one thread, then `simt.sync_threads()`.""",
    "mbarrier_arrive": """`simt.mbarrier_arrive(bar)`: this thread's arrival on the current phase (`mbarrier.arrive.shared.b64`,
PTX ISA §9.7.13.15.13). The phase completes when `count` arrivals and all expected transaction bytes are in.""",
    "mbarrier_arrive_expect_tx": """`simt.mbarrier_arrive_expect_tx(bar, nbytes)`: announce `nbytes` (0 .. 2^20 - 1) of asynchronous
transactions for the current phase and arrive (`mbarrier.arrive.expect_tx.shared.b64`, PTX ISA
§9.7.13.15.12, sm_90). For TMA loads, `nbytes` is the sum of the boxes' bytes (`desc.box_bytes` each),
out-of-bounds parts included.""",
    "mbarrier_try_wait": """`simt.mbarrier_try_wait(bar, parity)`: True when the phase of parity `parity` (0 or 1; a run-time
int's lowest bit) has completed (`mbarrier.try_wait.parity.shared.b64`, PTX ISA §9.7.13.15.16, sm_90;
it may wait a bounded time first).""",
    "mbarrier_wait": """`simt.mbarrier_wait(bar, parity)`: wait until the phase of parity `parity` has completed (a loop on
`simt.mbarrier_try_wait`). The first phase has parity 0; after it completes the barrier is in phase 1
(parity 1), and so on: a ring of buffers flips the parity each time it wraps.""",
    "tma_load": """`simt.tma_load(tile, desc, coords, bar)`: start a TMA copy of the box of `desc` (a `simt.TensorMap`
parameter) whose first element is at `coords` (one integer per dimension, outermost first; i32, may be
negative or past the end: elements outside the tensor are zero-filled) into `tile`, a
`simt.shared_array` of exactly the descriptor's box shape and dtype (aligned by the compiler: 128 bytes,
or the swizzle's repeat of 256/512/1024 bytes). The copy's bytes (always the whole box) complete as
transactions on `bar`: wait for it with `simt.mbarrier_wait` after announcing them with
`simt.mbarrier_arrive_expect_tx` (`cp.async.bulk.tensor.<r>d.shared::cluster.global.tile.mbarrier::complete_tx::bytes`,
PTX ISA §9.7.9.25.5.1, sm_90). Usually one thread issues it.""",
    "tma_store": """`simt.tma_store(tile, desc, coords)`: start a TMA copy of `tile` (as for `tma_load`) to the box at
`coords`; elements outside the tensor are not written (`cp.async.bulk.tensor.<r>d.global.shared::cta.tile.bulk_group`,
PTX ISA §9.7.9.25.5.2, sm_90). Shared-memory writes of other threads must be ordered before it by
`simt.fence_proxy_async()` (each writer) and `simt.sync_threads()`. Then `simt.tma_store_commit()` and
`simt.tma_store_wait()` before the tile is overwritten or the block exits.""",
    "tma_store_commit": "`simt.tma_store_commit()`: this thread's TMA stores since the last commit form a bulk async-group (`cp.async.bulk.commit_group`, PTX ISA §9.7.9.25.6.1).",
    "tma_store_wait": "`simt.tma_store_wait(n=0)`: wait until at most `n` (a compile-time int) of this thread's bulk async-groups are pending, their writes done (`cp.async.bulk.wait_group`, PTX ISA §9.7.9.25.6.2).",
}
"""Docstrings of the kernel-only functions (every warp collective needs all 32 lanes of the warp: a
kernel using them is launched only with blocks of a multiple of 32 threads)."""

for _name, _doc in _DOCS.items():
    globals()[_name] = _device_only(_name)
    globals()[_name].__doc__ = _doc

_BUILTIN_STUBS = BuiltinStubs(__name__, "simt", lambda b: b.simt, _device_only)
"""The catalog's elementwise builtins in this module (`simt.cdiv`, …), made on first use."""


def kernel_functions() -> tuple[str, ...]:
    """Every function of this module that only means something inside a kernel (`KERNEL_FUNCTIONS`
    and the catalog's elementwise builtins)."""
    return (*KERNEL_FUNCTIONS, *_BUILTIN_STUBS.stubs())


@dataclass(frozen=True)
class DimProxy:
    """`simt.thread_idx`, `block_idx`, `block_dim`, `grid_dim`: their `.x/.y/.z` are i64 inside kernels."""

    name: str

    def __getattr__(self, attr: str) -> Any:
        raise UsageError(f"simt.{self.name}.{attr} can only be used inside a @simt.kernel function")


thread_idx = DimProxy("thread_idx")
block_idx = DimProxy("block_idx")
block_dim = DimProxy("block_dim")
grid_dim = DimProxy("grid_dim")


def Contract(domain: int | None = None, block: tuple[int, int, int] | int | None = None) -> Any:  # noqa: N802
    """`simt.Contract(domain=1, block=(256, 1, 1))`: the launch contract. `block` is exact (PTX
    `.reqntid`): any other block shape is refused by `prepare()`; `domain=1` also requires grid and
    block y = z = 1, `domain=2` requires z = 1."""
    from warpforge.runtime.launch import Contract as _Contract

    if isinstance(block, int):
        block = (block, 1, 1)
    return _Contract(domain=domain, block=block)


@dataclass
class SimtKernel:
    """A `@simt.kernel` function: compiles on first use (cached per chip), then `prepare` + `launch`.

    `kernel[grid, block](*args)` is the numba-style shorthand: prepare (cached) and launch on the
    device's default stream. A *generic* kernel (a parameter without a complete annotation, or a
    `wf.Constant`) is compiled per argument signature at launch (see `warpforge.specialize`);
    `specialize(*args)` gives the specialization for given arguments (a `SimtKernel` of its own).
    """

    fn: Any
    contract: Any = None
    launch_bounds: int | None = None
    checks: bool = True
    fastmath: bool | tuple[str, ...] = False
    """True (CUDA's `--use_fast_math`), False, or selected LLVM flags as a sorted tuple (`fastmath_flags`)."""
    min_blocks_per_sm: int | None = None
    """PTX `.minnctapersm`: ptxas keeps registers low enough for this many blocks per SM."""
    bindings: tuple[tuple[str, Any], ...] | None = None
    """For a specialization of a generic kernel: each incomplete parameter's binding."""
    assume_aligned: bool = True
    """The launch-time alignment specialization: compiled assuming every `Slice`, `DisjointSlice` and
    `RawSlice` pointer is 16-byte aligned and every 32/64-bit integer scalar a multiple of 16
    (`vectorize-global-access` may then read and write 64/128 bits at once); a launch with an argument
    that breaks what the compiled code relies on runs
    the scalar specialization (`assume_aligned=False`)."""
    checks_hold: bool = False
    """The launch-time specialization of the checks: compiled for launches whose hoisted bounds checks
    the host has proven (`hoist-checks`' uniform entry condition, `warpforge.runtime.launch_condition`),
    so the kernel has no per-thread entry test. A launch picks it by itself; never set it by hand."""
    _compiled: dict[tuple[str, str], Any] = field(default_factory=dict[tuple[str, str], Any], repr=False)
    _prepared: dict[tuple[Any, ...], Any] = field(default_factory=dict[tuple[Any, ...], Any], repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _specializations: dict[tuple[Any, ...], SimtKernel] = field(default_factory=dict[tuple[Any, ...], "SimtKernel"], repr=False)
    _annotations: list[tuple[str, Any]] | None = field(default=None, repr=False)
    _variant_prepared: Any = field(default_factory=weakref.WeakKeyDictionary, repr=False)
    _folded: Any = field(default=None, repr=False)
    """The module globals / closure values the compiled code holds (`source_snapshot.folded_values`)."""
    _retired: list[Any] = field(default_factory=list[Any], repr=False)
    """Compiled kernels dropped because a folded value was rebound (their tokens are prepared again)."""

    def __post_init__(self) -> None:
        self.fastmath = fastmath_flags(self.fastmath, self.fn)
        snapshot_source(self.fn)  # compile the text as imported, not as edited later
        self.__name__ = getattr(self.fn, "__name__", "kernel")
        self.__qualname__ = getattr(self.fn, "__qualname__", self.__name__)
        self.__doc__ = getattr(self.fn, "__doc__", None)
        self.__wrapped__ = self.fn

    # ------------------------------------------------------------------ specialization

    def annotations(self) -> list[tuple[str, Any]]:
        """Each parameter's name and resolved annotation (`GENERIC` when it has none)."""
        if self._annotations is None:
            from warpforge.frontend.compiler import parameter_annotations

            self._annotations = parameter_annotations(self.fn)
        return self._annotations

    @property
    def is_generic(self) -> bool:
        """True when launches specialize this kernel per argument types / constant values."""
        from warpforge.frontend.annotations import is_complete

        return self.bindings is None and not all(is_complete(a) for _, a in self.annotations())

    def specialize(self, *args: Any) -> SimtKernel:
        """The specialization of this generic kernel for `args` (as they would be passed to a launch):
        a non-generic `SimtKernel`, compiled once per signature and cached. `self` if not generic."""
        if not self.is_generic:
            return self
        from warpforge.specialize import bindings_for

        bindings = bindings_for(self, self.annotations(), args)
        key = tuple(sorted((k, repr(v)) for k, v in bindings.items()))
        with self._lock:
            child = self._specializations.get(key)
            if child is None:
                child = SimtKernel(
                    self.fn, self.contract, self.launch_bounds, self.checks, self.fastmath, self.min_blocks_per_sm, tuple(bindings.items()),
                    self.assume_aligned, self.checks_hold,
                )
                child.__qualname__ = self.__qualname__
                self._specializations[key] = child
        return child

    def _runtime_args(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        from warpforge.specialize import runtime_args

        return runtime_args(self.annotations(), args)

    # ------------------------------------------------------------------ compilation

    def kernel_ir(self, *, unroll_static: bool = False):
        """The frontend's output (`KernelIR`): a fresh `kernel`-dialect module. `unroll_static`: every
        `simt.static_range` unrolled by the frontend (else kept as loops LLVM unrolls where it can)."""
        from warpforge.frontend.compiler import compile_kernel

        block = None
        if self.contract is not None and self.contract.block is not None:
            block = tuple(self.contract.block)
        kir = compile_kernel(
            self.fn,
            contract_block=block,
            launch_bounds=self.launch_bounds,
            checks=self.checks,
            fastmath=self.fastmath,
            bindings=dict(self.bindings) if self.bindings else None,
            min_blocks_per_sm=self.min_blocks_per_sm,
            unroll_static=unroll_static,
        )
        if self.assume_aligned or self.checks_hold:
            from warpforge.runtime.compiled import ALIGN_BYTES
            from xdsl.dialects.builtin import IntegerAttr, UnitAttr, i64

            for op in kir.module.walk():
                if op.name == "kernel.func" and "kernel" in op.attributes:
                    if self.assume_aligned:
                        op.attributes["kernel.assume_align"] = IntegerAttr(ALIGN_BYTES, i64)
                    if self.checks_hold:
                        op.attributes["kernel.checks_hold_at_launch"] = UnitAttr()
        return kir

    def ir(self, stage: str = "gpu", *, chip: str = "sm_90", features: str = "", debuginfo: bool = False) -> str:
        """The kernel at one compilation stage, as text: `kernel`, `gpu`, `nvvm`, `llvm` (MLIR), `ll`
        (LLVM IR) or `ptx` (the compiled kernel's, from the disk cache when there). A generic kernel
        needs `specialize(*args)` first. `debuginfo`: MLIR stages print each op's `loc(...)` (the Python
        source line), which `warpforge-opt` keeps when it resumes."""
        from warpforge.compile import Target, lower_simt

        return lower_simt(self, stage, Target(chip, features), debuginfo=debuginfo)

    def compile(self, chip: str = "sm_90", features: str = "") -> Any:
        """Compile for `chip` (cached in memory and on disk, see `warpforge.cache`): a
        `warpforge.runtime.CompiledKernel`. `features` is a `+ptxNN` PTX ISA version, `""` for the
        chip's default; an unknown chip or a PTX version too old for it raises `TargetError` (the
        table: `warpforge.backend.chips`)."""
        from warpforge.backend.chips import resolve_target

        from warpforge.driver.run import before_compile

        target = resolve_target(chip, features)
        chip, features = target.chip.name, target.features
        before_compile(chip)  # `warpforge run`'s early PTX check, at the program's first compilation
        key = (chip, features)
        if self._folded is not None and changed(self._folded) is not None:
            self._drop_compiled()
        with self._lock:
            if key in self._compiled:
                return self._compiled[key]
        from warpforge.compile import compile_simt

        folded = folded_values(self.fn)  # the values as this compile reads them
        compiled = compile_simt(self, chip, features)
        with self._lock:
            self._compiled[key] = compiled
            if self._folded is None:
                self._folded = folded
        return compiled

    def _drop_compiled(self) -> None:
        """A module global or closure value the kernel compiled in was rebound (`SCALE = 5.0` after a
        launch): forget every compiled form, so the next launch compiles the current values."""
        import sys

        with self._lock:
            self._retired.extend(self._compiled.values())
            self._compiled.clear()
            self._prepared.clear()
            self._specializations.clear()
            self._variant_prepared = weakref.WeakKeyDictionary()
            self._folded = None
        simulator = sys.modules.get("warpforge.simulator.launch")
        if simulator is not None:
            simulator.forget_lowered(self)

    def report(self, chip: str = "sm_90", features: str = "") -> Any:
        """What ptxas says this kernel uses (`ptxas -v`): a `warpforge.report.ResourceReport`
        (registers, spill stores/loads, shared, local and constant memory per kernel). Needs ptxas
        (`FileNotFoundError` otherwise); cached on disk with the cubin."""
        from warpforge.report import report

        return report(self.compile(chip, features))

    # ------------------------------------------------------------------ launching

    def prepare(self, config: Any, device: Any = None) -> Any:
        """Check `config` (a `wf.LaunchConfig`) against the contract and the device's limits, load the
        kernel, and return the token `launch` needs. Raises `LaunchError` before anything runs.

        For a generic kernel the checks that need the compiled kernel happen at `launch`, once the
        arguments fix the specialization (each specialization is prepared once per config)."""
        from warpforge.runtime import Device, prepare

        device = Device(0 if device is None else device)
        if self.is_generic:
            return GenericPrepared(self, config, device)
        if device.simulated:  # the CPU simulator: same checks, runs the gpu-level IR
            from warpforge.runtime.simulated import prepare_kernel

            return prepare_kernel(self, config, device)
        compiled = self.compile(device.chip)
        return prepare(compiled, config, device)

    def launch(self, stream: Any, prepared: Any, *args: Any) -> None:
        """Launch on `stream` with a token from `prepare`. Arguments are checked (dtypes, scalar ranges,
        aliasing of outputs) before the launch; kernel errors surface as `KernelError` at the next sync."""
        from warpforge.runtime import launch

        if isinstance(prepared, GenericPrepared):
            if prepared.kernel is not self:
                from warpforge.errors import LaunchError

                raise LaunchError(f"this prepared launch was made for {prepared.kernel.__qualname__}, not {self.__qualname__}")
            child = self.specialize(*args)
            child_prepared = prepared.for_specialization(child)
            child.launch(stream, child_prepared, *self._runtime_args(args))
            return
        from warpforge.runtime.launch import PreparedLaunch

        if not isinstance(prepared, PreparedLaunch):
            from warpforge.errors import LaunchError

            raise LaunchError(f"{self.__qualname__}.launch(stream, prepared, *args) needs the token prepare() returned, got {type(prepared).__name__}")
        compiled = self.compile(prepared.device.chip)
        if prepared.kernel is not compiled and any(prepared.kernel is old for old in self._retired):
            # compiled again since this token was prepared (a folded module constant was rebound)
            again = self._variant_prepared.setdefault(prepared, {})
            if "recompiled" not in again or again["recompiled"].kernel is not compiled:
                again["recompiled"] = self.prepare(prepared.config, prepared.device)
            prepared = again["recompiled"]
        variant = self
        if not self.checks_hold and compiled.launch_condition:
            from warpforge.runtime.launch_condition import holds

            if holds(compiled.launch_condition, args, prepared.config):  # every hoisted check holds: the code without the entry test
                variant = self.proven_specialization()
        if variant.assume_aligned:
            needs = compiled if variant is self else variant.compile(prepared.device.chip)
            if any(p.align for p in needs.params) and not _pointers_aligned(needs.params, args):
                variant = variant.scalar_specialization()  # the alignment specialization does not hold
        if variant is not self:
            # the variant prepared once per token (kept as long as the token lives)
            by_variant = self._variant_prepared.setdefault(prepared, {})
            key = (variant.assume_aligned, variant.checks_hold)
            if key not in by_variant:
                by_variant[key] = variant.prepare(prepared.config, prepared.device)
            variant.launch(stream, by_variant[key], *args)
            return
        launch(stream, prepared, args, kernel=compiled)

    def _variant(self, assume_aligned: bool, checks_hold: bool) -> SimtKernel:
        if (assume_aligned, checks_hold) == (self.assume_aligned, self.checks_hold):
            return self
        key = ("variant", assume_aligned, checks_hold)
        with self._lock:
            child = self._specializations.get(key)
            if child is None:
                child = SimtKernel(
                    self.fn, self.contract, self.launch_bounds, self.checks, self.fastmath, self.min_blocks_per_sm, self.bindings,
                    assume_aligned, checks_hold,
                )
                child.__qualname__ = self.__qualname__
                self._specializations[key] = child
        return child

    def scalar_specialization(self) -> SimtKernel:
        """This kernel compiled without the launch-time alignment promise (`assume_aligned=False`):
        what a launch runs when a slice pointer is not 16-byte aligned."""
        return self._variant(False, self.checks_hold)

    def proven_specialization(self) -> SimtKernel:
        """This kernel compiled for launches whose hoisted checks the host proved (`checks_hold=True`):
        what a launch runs when `CompiledKernel.launch_condition` holds for its arguments."""
        return self._variant(self.assume_aligned, True)

    def __getitem__(self, config: Any) -> Any:
        """`kernel[grid, block]` or `kernel[grid, block, stream]` or `kernel[grid, block, stream, shmem]`.
        The launch takes the kernel's arguments by position or by parameter name (`kernel[g, b](x, out=o)`);
        an unknown or missing name is a `UsageError` listing the parameters.

        With tensors of the tile model's lazy chain (`wf.zeros`, `wf.from_host`, a tile kernel's
        outputs, …) among the arguments, the launch is not run but recorded as a step of the chain
        (`kernel[grid, block](x, y, out).first().to_host().sync_on(stream)`), ordered with the tile
        launches and copies around it on the one stream (`warpforge.runtime.lazy.record_simt_launch`)."""
        if not isinstance(config, tuple) or not 2 <= len(config) <= 4:
            from warpforge.errors import UsageError

            raise UsageError("use kernel[grid, block] or kernel[grid, block, stream] or kernel[grid, block, stream, shmem_size]")
        grid, block = config[0], config[1]
        stream = config[2] if len(config) > 2 else None
        shmem = config[3] if len(config) > 3 else 0

        def run(*args: Any, **kwargs: Any) -> Any:
            from warpforge.runtime import Device, LaunchConfig, Stream
            from warpforge.errors import UsageError as ChainUsageError
            from warpforge.runtime.lazy import _Handle, record_simt_launch  # pyright: ignore[reportPrivateUsage]
            from warpforge.specialize import bind_arguments

            args = bind_arguments(self.fn, self.__qualname__, args, kwargs)  # keyword arguments by parameter name

            if any(isinstance(a, _Handle) for a in args):  # chain tensors: a step of the lazy chain
                if stream is not None:
                    raise ChainUsageError(
                        f"{self.__qualname__}[grid, block, stream](...) with chain tensors: the chain runs on the stream given to "
                        "sync_on(stream); leave the stream out of the launch"
                    )
                return record_simt_launch(self, grid, block, shmem, args)
            if isinstance(stream, Stream):
                device = stream.device
            else:  # the device of the buffers passed (a simulator's buffers launch on it), else GPU 0
                from warpforge.runtime.memory import DeviceBuffer

                device = next((a.device for a in args if isinstance(a, DeviceBuffer)), None) or Device(0)
            key = (repr(grid), repr(block), shmem, device)
            prepared = self._prepared.get(key)
            if prepared is None:
                prepared = self.prepare(LaunchConfig(grid=grid, block=block, shmem_size=shmem), device)
                self._prepared[key] = prepared
            self.launch(stream or device.default_stream, prepared, *args)

        return run

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise UsageError(f"{self.__qualname__} is a GPU kernel: launch it with {self.__name__}[grid, block](...) or prepare()/launch()")


def _pointers_aligned(params: Any, args: tuple[Any, ...]) -> bool:
    """Whether every argument meets what the compiled code relies on (`ParamSpec.align`): slice
    pointers so aligned, integer scalars multiples of it. An argument whose address cannot be read
    cheaply counts as unaligned (the scalar code then runs)."""
    for p, a in zip(params, args):
        if p.align and p.is_slice:
            ptr = _device_address(a)
            if ptr is None or ptr % p.align:
                return False
        elif p.align:  # an integer scalar the code needs a multiple of p.align
            try:
                if int(a) % p.align:
                    return False
            except (TypeError, ValueError, OverflowError):
                return False  # the launch's own check reports what is wrong with it
    return True


def _device_address(a: Any) -> int | None:
    ptr = getattr(a, "ptr", None)
    if isinstance(ptr, int):
        return ptr
    data_ptr = getattr(a, "data_ptr", None)
    if callable(data_ptr):  # torch
        try:
            return int(data_ptr())
        except Exception:
            return None
    cai = getattr(a, "__cuda_array_interface__", None)
    if isinstance(cai, dict) and isinstance(cai.get("data"), tuple):
        return int(cai["data"][0])
    return None


@dataclass(eq=False)
class GenericPrepared:
    """`prepare()`'s token for a generic kernel: the config and device, checked against each
    specialization (and cached per specialization) when `launch` sees the arguments."""

    kernel: SimtKernel
    config: Any
    device: Any
    _by_specialization: dict[int, Any] = field(default_factory=dict[int, Any], repr=False)

    def for_specialization(self, child: SimtKernel) -> Any:
        prepared = self._by_specialization.get(id(child))
        if prepared is None:
            prepared = child.prepare(self.config, self.device)
            self._by_specialization[id(child)] = prepared
        return prepared


FASTMATH_FLAGS = ("afn", "arcp", "contract", "ninf", "nnan", "nsz", "reassoc")
"""The fast-math flags a kernel may select: MLIR's `arith.fastmath` (= LLVM's instruction flags)."""


def fastmath_flags(value: Any, fn: Any = None) -> bool | tuple[str, ...]:
    """`fastmath=` normalized: True/False as given; a set/list/tuple of `FASTMATH_FLAGS` names (or
    `"fast"`, all of them) as a sorted tuple — empty means False. Raises `CompileError` (at the
    kernel's `def`) for anything else."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) or not isinstance(value, set | frozenset | list | tuple):
        _fastmath_error(fn, f"fastmath= takes True, False or a set of flags such as {{'contract', 'afn'}}, got {value!r}")
    flags: set[str] = set()
    for flag in value:
        if flag == "fast":
            flags.update(FASTMATH_FLAGS)
        elif flag in FASTMATH_FLAGS:
            flags.add(flag)
        else:
            _fastmath_error(fn, f"unknown fast-math flag {flag!r}; the flags are {', '.join(FASTMATH_FLAGS)} (MLIR's arith.fastmath) or 'fast' (all)")
    return tuple(sorted(flags)) if flags else False


def _fastmath_error(fn: Any, message: str) -> NoReturn:
    import inspect

    from warpforge.errors import CompileError

    try:
        filename, line = inspect.getsourcefile(fn) or "<unknown>", inspect.getsourcelines(fn)[1]
    except (TypeError, OSError):
        filename, line = "<unknown>", 0
    raise CompileError(message, filename=filename, line=line, col=1)


MAX_THREADS_PER_BLOCK = 1024
"""Threads per block on every CUDA chip since sm_20 (CUDA C++ Programming Guide, compute capabilities)."""
MAX_BLOCKS_PER_SM = 32
"""Resident blocks per SM on sm_50 … sm_90/sm_100 (the largest `.minnctapersm` that can be met)."""


def unknown_options(decorator: str, unknown: dict[str, Any], valid: tuple[str, ...]) -> NoReturn:
    """Refuse `@decorator(name=...)` options it does not take: a `CompileError` at the decorator's
    call (file:line:col) listing the valid ones (Python's own TypeError had no location)."""
    from warpforge.errors import CompileError
    from warpforge.runtime.tiling import call_position

    filename, line, col = call_position()
    names = ", ".join(repr(n) for n in unknown)
    raise CompileError(
        f"@{decorator}: unknown option{'s' if len(unknown) > 1 else ''} {names}; the options are {', '.join(valid)}",
        filename=filename, line=line, col=col or 1,
    )


def _check_kernel_options(f: Any, contract: Any, launch_bounds: Any, min_blocks_per_sm: Any) -> None:
    """Refuse decorator arguments the PTX directives cannot carry (`.maxntid`, `.reqntid`,
    `.minnctapersm`), as a `CompileError` at the decorated function's `def` line."""
    from warpforge.errors import CompileError
    from warpforge.runtime.launch import Contract as _Contract

    def refuse(message: str) -> None:
        code = getattr(f, "__code__", None)
        filename = code.co_filename if code is not None else "<unknown>"
        line = code.co_firstlineno if code is not None else 0
        raise CompileError(f"@simt.kernel: {message}", filename=filename, line=line, col=1)

    def is_int(v: Any) -> bool:
        return isinstance(v, int | numpy.integer) and not isinstance(v, bool)

    if not callable(f):
        refuse(f"decorates a function, got {f!r}")
    if launch_bounds is not None and (not is_int(launch_bounds) or not 1 <= launch_bounds <= MAX_THREADS_PER_BLOCK):
        refuse(f"launch_bounds is the maximum threads per block (PTX .maxntid), an int in [1, {MAX_THREADS_PER_BLOCK}]; got {launch_bounds!r}")
    if min_blocks_per_sm is not None and (not is_int(min_blocks_per_sm) or not 1 <= min_blocks_per_sm <= MAX_BLOCKS_PER_SM):
        refuse(f"min_blocks_per_sm (PTX .minnctapersm) is an int in [1, {MAX_BLOCKS_PER_SM}]; got {min_blocks_per_sm!r}")
    if contract is not None:
        if not isinstance(contract, _Contract):
            refuse(f"contract is a simt.Contract(domain=..., block=...), got {contract!r}")
        if contract.block is not None:
            threads = contract.block[0] * contract.block[1] * contract.block[2]
            if threads > MAX_THREADS_PER_BLOCK or contract.block[2] > 64:
                refuse(f"contract block {contract.block} has {threads} threads (z {contract.block[2]}); a block has at most {MAX_THREADS_PER_BLOCK} threads and z <= 64")
            if launch_bounds is not None:
                refuse("give either contract block (exact, PTX .reqntid) or launch_bounds (a maximum, PTX .maxntid), not both: ptxas refuses both on one kernel")


def kernel(
    fn: Any = None,
    *,
    contract: Any = None,
    launch_bounds: int | None = None,
    checks: bool = True,
    fastmath: bool | set[str] = False,
    min_blocks_per_sm: int | None = None,
    **unknown: Any,
) -> Any:
    """Decorator: `@simt.kernel` or `@simt.kernel` or `@simt.kernel(contract=…, checks=False, fastmath=True)` (or `launch_bounds=256` instead of a contract block).

    `min_blocks_per_sm=2` asks ptxas to fit two blocks per SM (PTX `.minnctapersm`, with the
    contract's block or `launch_bounds`): it caps the registers per thread, trading spills for occupancy.

    `checks=False` compiles out the bounds and division checks (division by zero then gives 0, still
    never undefined behaviour). `fastmath=True` trades accuracy for speed as CUDA's `--use_fast_math`
    does: approximate division, square root and transcendentals (`div.approx`, `sqrt.approx`,
    `ex2.approx`, libdevice's `__nv_fast_*`), f32 denormals flushed to zero (`.ftz`), and the LLVM
    flags `afn arcp contract` on float arithmetic; NaN and infinity keep their meaning.
    `fastmath={"contract", "afn"}` selects LLVM's instruction flags instead (any of `FASTMATH_FLAGS`:
    `afn arcp contract ninf nnan nsz reassoc`, MLIR's `arith.fastmath`; `"fast"` for all): they go on
    every float `arith`/`math` op and its LLVM instruction; denormals are kept (no `.ftz`). An unknown
    flag is a `CompileError`.
    Compilation errors are `CompileError`s, raised at the first compile.
    """

    if unknown:
        unknown_options("simt.kernel", unknown, ("contract", "launch_bounds", "checks", "fastmath", "min_blocks_per_sm"))

    def wrap(f: Any) -> SimtKernel:
        _check_kernel_options(f, contract, launch_bounds, min_blocks_per_sm)
        if not isinstance(checks, bool):
            _fastmath_error(f, f"@simt.kernel: checks is True or False, got {checks!r}")
        return SimtKernel(
            f, contract=contract, checks=checks, fastmath=fastmath,
            launch_bounds=None if launch_bounds is None else int(launch_bounds),  # a NumPy int as a Python int
            min_blocks_per_sm=None if min_blocks_per_sm is None else int(min_blocks_per_sm),
        )  # fmt: skip

    return wrap(fn) if fn is not None else wrap


_STATIC_ALL = [
    *_DOCS,
    "WARP_SIZE",
    "AtomicSlice",
    "device",
    "unsafe",
    "Contract",
    "DisjointSlice",
    "SimtKernel",
    "Slice",
    "TensorMap",
    "block_dim",
    "block_idx",
    "grid_dim",
    "index_1d",
    "index_2d",
    "kernel",
    "kernel_functions",
    "thread_idx",
]
"""`__all__` less the catalog's builtins (`__all__` itself adds them, on first use)."""

__getattr__, __dir__ = _BUILTIN_STUBS.module_hooks(_STATIC_ALL, globals())  # PEP 562: the catalog's stubs, on first use
