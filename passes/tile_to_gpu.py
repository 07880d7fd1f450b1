"""`tile-to-gpu`: tile kernels (`kernel.func` marked `tile`, `tile` ops, after `kernel-to-tile` and
`lower-kernel-control-flow`) → `gpu.func`s that distribute every tile over the threads of one CTA.

**One tile block is one CTA**; tile blocks are linear on `grid.x` (`tile.block_id` is
`gpu.block_id x`, so there is no 65535 limit), and a partition's tile coordinates are the block id
delinearized by its tile counts. **Threads per CTA**: `tile.num_warps` × 32 when the frontend sets
it, else 4 warps up to 2048-element tiles, then one warp per 512 elements (at most 16), never more
threads than the largest tile has elements; the block size is exact (`known_block_size`, PTX
`.reqntid`).

**Layouts.** A tile of shape S with N elements is held in registers by a *blocked* layout
`(vec, owners, replicas, reps)`: the tile's elements in row-major order are cut into chunks of
`vec` contiguous elements (vec ≤ 4 and ≤ the last dimension); chunk c belongs to owner `c % owners`,
and thread t is owner `t / replicas` (replicas > 1 only for tiles smaller than the CTA). So thread t
holds, for r < reps and v < vec, the element `((r * owners) + t / replicas) * vec + v`: consecutive
threads hold consecutive chunks (coalesced), each thread `reps * vec` registers. Every tile value
has the canonical layout of its shape, so elementwise ops are per-register; a layout change
(broadcast of a non-scalar tile, reshape, permute/transpose, some reductions) goes through shared
memory (`barrier; write; barrier; read`), in one scratch `memref.global` per element type.

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
than a warp's span reduce within shuffle groups; other axes use shared memory. `max`/`min`
propagate NaN (`arith.maximumf`).

**Elementwise semantics** are the `kernel` ops': each `tile.<op>` is lowered per register by
`kernel-to-gpu`'s own scalar lowering (the same `kernel.floordiv`, `kernel.cast`, … code), so tiles
and SIMT scalars cannot drift apart. `tile.exp` on f32 is `ex2.approx(x · log2 e)` (documented on
the op). **`kernel.print`** of scalars prints once per tile block (thread 0); of a tile, one line
per element with its index, from the thread holding it. Pass options: `chip`, `features`, `module`
(the `gpu.module`'s name).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from dataclasses import dataclass, field
from math import log2, prod

from xdsl.context import Context
from xdsl.dialects import arith, builtin, cf, math, memref, scf, vector
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    FloatAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    UnitAttr,
    VectorType,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from warpforge.dialects.arith import AtomicRMWKind
from warpforge.diagnostics import error_at
from warpforge.dialects import gpu, kernel, tile
from warpforge.dialects.nvvm import NVVMTargetAttr
from warpforge.passes.kernel_to_gpu import (
    ERROR_RECORD_TYPE,
    GLOBAL,
    SHARED,
    Emitter,
    FunctionLowering,
    ModuleLowering,
    PrintPiece,
    build_printf,
    cast_value,
    signless,
    to_bits,
)

MAX_VEC = 4
"""Elements per chunk at most: 4 (16 bytes of f32)."""
VECTOR_BYTES = 16
"""The widest global access: 128 bits."""
LOG2E = 1.4426950408889634


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


# --------------------------------------------------------------------------- lowered values


@dataclass
class Dist:
    """A tile at the gpu level: its layout, this thread's registers, its (kernel-level) element type."""

    layout: Layout
    regs: list[SSAValue]
    elem: Attribute


@dataclass
class View:
    """A tensor view at the gpu level: the global memref, i64 extents (SSA), static extents where
    known, the row stride (rank 2), known divisibility of each extent, pointer alignment (bytes)."""

    memref: SSAValue
    dims: list[SSAValue]
    static: tuple[int | None, ...]
    stride: SSAValue | None
    divisible: tuple[int, ...]
    align: int
    elem: Attribute
    limit: SSAValue | None = None
    """Elements of the underlying memory, for reinterpreted views (`tile.make_tensor_view`)."""
    base_dims: list[SSAValue] = field(default_factory=list)
    """The memref's own extents (i64): how a linear offset becomes memref indices."""


@dataclass
class PView:
    view: View
    tile: tuple[int, ...]
    padding: Attribute


def _log2(n: int) -> int:
    return int(log2(n))


def _is_float(t: Attribute) -> bool:
    return isinstance(t, AnyFloat)


def _bytes(t: Attribute) -> int:
    if isinstance(t, IntegerType):
        return max(1, t.width.data // 8)
    assert isinstance(t, AnyFloat)
    return t.bitwidth // 8


# --------------------------------------------------------------------------- the function lowering


@dataclass
class _TileFunctionLowering(FunctionLowering):
    """Lowers one tile kernel: tile ops here, scalar `kernel` ops and branches by `kernel-to-gpu`."""

    threads: int = 0
    vector_bytes: int = VECTOR_BYTES
    tid: SSAValue | None = None
    bid: SSAValue | None = None
    entry: Block | None = None
    prologue_end: Operation | None = None
    cache: dict[object, SSAValue] = field(default_factory=dict)
    scratch_sizes: dict[Attribute, int] = field(default_factory=dict)
    scratch_used: dict[Attribute, str] = field(default_factory=dict)
    extra_shared: int = 0
    """Bytes of shared arrays lowerings declared themselves (`tile.dot`'s), for `tile.shared_bytes`."""

    # ------------------------------------------------------------------ setup

    def run(self) -> gpu.FuncOp:
        src = self.src
        self.checks = src.checks
        num_warps = src.attributes.get("tile.num_warps")
        if num_warps is not None and (not isinstance(num_warps, IntegerAttr) or not 1 <= num_warps.value.data <= 32):
            raise error_at(src, f"tile.num_warps must be an integer in [1, 32] (at most 1024 threads per CTA), got {num_warps}")
        self.threads = default_threads(self._max_tile(), num_warps.value.data if isinstance(num_warps, IntegerAttr) else None)
        self._plan_scratch()
        infos = src.attributes.get("tile.arg_info")
        info_list = list(infos.data) if isinstance(infos, ArrayAttr) else []
        written = self._written_params()
        in_types: list[Attribute] = []
        arg_attrs: list[DictionaryAttr] = []
        for t in src.function_type.inputs:
            if isinstance(t, tile.TensorViewType):
                in_types.append(MemRefType(signless(t.element_type), [builtin.DYNAMIC_INDEX] * t.rank, memory_space=GLOBAL))
            else:
                in_types.append(signless(t))
        entry_src = src.body.blocks.first
        assert entry_src is not None
        for i, (t, arg) in enumerate(zip(src.function_type.inputs, entry_src.args)):
            if isinstance(t, tile.TensorViewType):
                flags = {"llvm.noalias": UnitAttr()}
                if arg not in written:
                    flags["llvm.readonly"] = UnitAttr()
                arg_attrs.append(DictionaryAttr(flags))
            else:
                arg_attrs.append(DictionaryAttr({}))
        if self.checks:
            in_types.append(ERROR_RECORD_TYPE)
            arg_attrs.append(DictionaryAttr({"llvm.noalias": UnitAttr()}))
        region = Region()
        for i, block in enumerate(src.body.blocks):
            if i == 0:
                new = Block(arg_types=in_types)
            else:
                types: list[Attribute] = []
                for a in block.args:
                    if isinstance(a.type, tile.TileType):
                        types += [signless(a.type.element_type)] * canonical_layout(a.type.dims, self.threads).slots
                    else:
                        types.append(signless(a.type))
                new = Block(arg_types=types)
            region.add_block(new)
            self.blocks[block] = new
            args = iter(new.args)
            for a in block.args:
                if isinstance(a.type, tile.TileType):
                    layout = canonical_layout(a.type.dims, self.threads)
                    regs = [next(args) for _ in range(layout.slots)]
                    for k, r in enumerate(regs):
                        r.name_hint = f"{a.name_hint}_{k}" if a.name_hint else None
                    self.values[a] = Dist(layout, regs, a.type.element_type)  # pyright: ignore[reportArgumentType]
                else:
                    n = next(args)
                    n.name_hint = a.name_hint
                    self.values[a] = n
        entry = region.blocks.first
        assert entry is not None
        self.entry = entry
        if self.checks:
            self.record = entry.args[-1]
            self.record.name_hint = "err"
        self._prologue(entry, entry_src, info_list)
        for block in src.body.blocks:
            for op in block.ops:
                self.lower(op, self.blocks[block])
        if self.checks and not self.sites and self.record is not None and not self.record.uses:
            # nothing can go wrong at run time (no integer division): no error record to pass
            entry.erase_arg(self.record)
            in_types.pop()
            arg_attrs.pop()
        ftype = FunctionType.from_lists(in_types, [])
        out = gpu.FuncOp(src.sym_name.data, ftype, region, kernel=True, known_block_size=[self.threads, 1, 1], arg_attrs=arg_attrs)
        if self.sites:
            out.attributes["kernel.error_sites"] = ArrayAttr([s.as_attr() for s in self.sites])
        shared = self.extra_shared
        for typ, name in self.scratch_used.items():
            size = self.scratch_sizes[typ]
            shared += size * _bytes(typ)
            g = memref.GlobalOp.get(StringAttr(name), MemRefType(typ, [size], memory_space=SHARED), builtin.UnitAttr(), alignment=16)
            g.location = src.location
            self.module.gpu_module.body.block.add_op(g)
        out.attributes["tile.shared_bytes"] = IntegerAttr(shared, i64)
        out.location = src.location
        return out

    def _max_tile(self) -> int:
        best = 1
        for op in self.src.walk():
            for v in [*op.results, *op.operands]:
                if isinstance(v.type, tile.TileType):
                    best = max(best, v.type.numel)
        for block in self.src.body.blocks:
            for a in block.args:
                if isinstance(a.type, tile.TileType):
                    best = max(best, a.type.numel)
        return best

    def _plan_scratch(self) -> None:
        """Shared-memory scratch per element type: the most any op of the kernel needs at once."""

        def need(typ: Attribute, n: int) -> None:
            if n:
                t = signless(typ)
                self.scratch_sizes[t] = max(self.scratch_sizes.get(t, 0), n)

        for op in self.src.walk():
            if isinstance(op, tile.BroadcastOp | tile.PermuteOp | tile.TransposeOp | tile.ReshapeOp):
                st, dt = op.input.type, op.result.type
                assert isinstance(st, tile.TileType) and isinstance(dt, tile.TileType)
                if isinstance(op, tile.BroadcastOp) and st.numel == 1:
                    continue
                if isinstance(op, tile.ReshapeOp) and canonical_layout(st.dims, self.threads).same_placement(canonical_layout(dt.dims, self.threads)):
                    continue
                need(st.element_type, st.numel)
            elif isinstance(op, tile.ReduceOp):
                st = op.input.type
                assert isinstance(st, tile.TileType)
                rt = op.result.type
                assert isinstance(rt, tile.TileType)
                need(st.element_type, reduce_plan(st.dims, op.axis.data, self.threads, rt.dims).scratch)

    def _written_params(self) -> set[SSAValue]:
        """Tensor parameters the kernel writes (through a partition view, a masked store or an atomic)."""
        written: set[SSAValue] = set()
        for op in self.src.walk():
            target: SSAValue | None = None
            if isinstance(op, tile.StoreOp):
                target = op.view
            elif isinstance(op, tile.StoreMaskedOp | tile.AtomicRMWOp):
                target = op.view
            while target is not None and isinstance(target.owner, tile.MakePartitionViewOp | tile.MakeTensorViewOp):
                target = target.owner.source
            if target is not None:
                written.add(target)
        return written

    def _prologue(self, entry: Block, entry_src: Block, infos: list[Attribute]) -> None:
        e = Emitter(entry, self.src)
        self.tid = e(arith.IndexCastOp(e(gpu.ThreadIdOp("x")), i64))
        self.tid.name_hint = "tid"
        self.bid = e(arith.IndexCastOp(e(gpu.BlockIdOp("x")), i64))
        self.bid.name_hint = "bid"
        for i, (t, old) in enumerate(zip(self.src.function_type.inputs, entry_src.args)):
            new = entry.args[i]
            new.name_hint = old.name_hint
            if not isinstance(t, tile.TensorViewType):
                self.values[old] = new
                continue
            info = infos[i] if i < len(infos) else None
            align, div = 1, tuple(1 for _ in t.dims)
            if isinstance(info, DictionaryAttr):
                a = info.data.get("align")
                d = info.data.get("divisibility")
                align = a.value.data if isinstance(a, IntegerAttr) else 1
                div = tuple(d.get_values()) if isinstance(d, DenseArrayBase) else div
            dims = []
            for axis, extent in enumerate(t.dims):
                if extent != builtin.DYNAMIC_INDEX:
                    dims.append(e.const(extent, i64))
                else:
                    d = e(arith.IndexCastOp(e(memref.DimOp(new, e.const(axis, IndexType()))), i64))
                    d.name_hint = f"{old.name_hint}_dim{axis}" if old.name_hint else None
                    dims.append(d)
            static = tuple(None if d == builtin.DYNAMIC_INDEX else d for d in t.dims)
            div = tuple(_static_divisor(s) if s is not None else dv for s, dv in zip(static, div))
            stride = dims[1] if t.rank == 2 else None
            self.values[old] = View(new, dims, static, stride, div, align, t.element_type, base_dims=dims)  # pyright: ignore[reportArgumentType]
        self.prologue_end = entry.last_op

    def at_entry(self, key: object, build: Callable[[Emitter], SSAValue]) -> SSAValue:
        """A value computed once, at the end of the entry block's prologue (it dominates every use)."""
        if key in self.cache:
            return self.cache[key]
        assert self.entry is not None and self.prologue_end is not None
        tmp = Block()
        value = build(Emitter(tmp, self.src))
        anchor = self.prologue_end
        for op in list(tmp.ops):
            op.detach()
            self.entry.insert_op_after(op, anchor)
            anchor = op
        self.prologue_end = anchor
        self.cache[key] = value
        return value

    # ------------------------------------------------------------------ dispatch

    def lower(self, op: Operation, block: Block) -> None:
        handler = _TILE_LOWERINGS.get(type(op))
        if handler is not None:
            e = Emitter(block, op)
            result = handler(self, op, e)
            if op.results and result is not None:
                self.values[op.results[0]] = result
                if isinstance(result, SSAValue) and op.results[0].name_hint and not result.name_hint:
                    result.name_hint = op.results[0].name_hint
            return
        if isinstance(op, cf.BranchOp | cf.ConditionalBranchOp) and any(isinstance(self.values.get(v), Dist) for v in op.operands):
            self._branch(op, block)
            return
        super().lower(op, block)

    def _expand(self, e: Emitter, values: tuple[SSAValue, ...] | list[SSAValue]) -> list[SSAValue]:
        out: list[SSAValue] = []
        for v in values:
            lowered = self.values[v]
            if isinstance(lowered, Dist):
                out += self.canon(e, lowered).regs
            else:
                assert isinstance(lowered, SSAValue)
                out.append(lowered)
        return out

    def _branch(self, op: Operation, block: Block) -> None:
        e = Emitter(block, op)
        if isinstance(op, cf.BranchOp):
            e(cf.BranchOp(self.blocks[op.successor], *self._expand(e, op.arguments)))
            return
        assert isinstance(op, cf.ConditionalBranchOp)
        then_args = self._expand(e, op.then_arguments)
        else_args = self._expand(e, op.else_arguments)
        e(cf.ConditionalBranchOp(self.v(op.cond), self.blocks[op.then_block], then_args, self.blocks[op.else_block], else_args))

    def dist(self, value: SSAValue) -> Dist:
        lowered = self.values.get(value)
        if not isinstance(lowered, Dist):
            raise DiagnosticException(f"tile-to-gpu: expected a tile value, got {value.type}")
        return lowered

    # ------------------------------------------------------------------ scalar semantics, per register

    def scalar(self, e: Emitter, make: Callable[..., Operation], types: list[Attribute], operands: list[SSAValue]) -> SSAValue:
        """Lower `make(*scratch_args)` — a scalar `kernel` op on operands of the kernel-level `types` —
        with `kernel-to-gpu`'s lowering, the operands being the gpu-level `operands`."""
        scratch = Block(arg_types=types)
        for a, v in zip(scratch.args, operands):
            self.values[a] = v
        op = make(*scratch.args)
        op.location = e.source.location
        text = e.source.attributes.get("text")
        if isinstance(text, StringAttr):
            op.attributes["text"] = text
        assert e.block is not None
        super().lower(op, e.block)
        result = self.values.pop(op.results[0])
        for a in scratch.args:
            self.values.pop(a, None)
        op.drop_all_references()
        assert isinstance(result, SSAValue)
        return result

    # ------------------------------------------------------------------ thread indexing

    def owner(self, layout: Layout) -> SSAValue:
        """This thread's owner index in `layout` (tid // replicas), i64."""
        assert self.tid is not None
        if layout.replicas == 1:
            return self.tid
        tid = self.tid
        shift = _log2(layout.replicas)
        return self.at_entry(("owner", layout.replicas), lambda e: e(arith.ShRUIOp(tid, e.const(shift, i64))))

    def is_first_replica(self, layout: Layout) -> SSAValue | None:
        """i1: this thread is replica 0 of its owner (None when every thread is)."""
        if layout.replicas == 1:
            return None
        tid = self.tid
        assert tid is not None
        mask = layout.replicas - 1

        def build(e: Emitter) -> SSAValue:
            low = e(arith.AndIOp(tid, e.const(mask, i64)))
            return e(arith.CmpiOp(low, e.const(0, i64), "eq"))

        return self.at_entry(("first", layout.replicas), build)

    def flat(self, e: Emitter, layout: Layout, r: int, v: int = 0) -> SSAValue:
        """The row-major element index of register (r, v) of this thread, i64."""
        owner = self.owner(layout)
        base = owner if layout.vec == 1 else e(arith.ShLIOp(owner, e.const(_log2(layout.vec), i64)))
        offset = (r * layout.owners) * layout.vec + v
        return base if offset == 0 else e(arith.AddiOp(base, e.const(offset, i64)))

    def when(self, e: Emitter, cond: SSAValue | None, body: Callable[[Emitter], None]) -> None:
        """`body` under `scf.if cond` (or unconditionally when `cond` is None)."""
        if cond is None:
            body(e)
            return
        then = Block()
        te = Emitter(then, e.source)
        body(te)
        te(scf.YieldOp())
        e(scf.IfOp(cond, [], Region(then), Region(Block([scf.YieldOp()]))))

    def branch_values(self, e: Emitter, cond: SSAValue, then: Callable[[Emitter], list[SSAValue]], otherwise: Callable[[Emitter], list[SSAValue]], types: list[Attribute]) -> list[SSAValue]:
        tb, eb = Block(), Block()
        te, ee = Emitter(tb, e.source), Emitter(eb, e.source)
        tv = then(te)
        te(scf.YieldOp(*tv))
        ev = otherwise(ee)
        ee(scf.YieldOp(*ev))
        op = scf.IfOp(cond, types, Region(tb), Region(eb))
        e(op)
        return list(op.results)

    # ------------------------------------------------------------------ layout changes

    def canon(self, e: Emitter, d: Dist) -> Dist:
        target = canonical_layout(d.layout.shape, self.threads)
        return self.relayout(e, d, target, lambda e2, f: f, identity=True)

    def scratch(self, typ: Attribute, need: int) -> SSAValue:
        t = signless(typ)
        size = self.scratch_sizes.get(t, 0)
        if need > size:
            raise DiagnosticException(f"tile-to-gpu: shared scratch for {t} planned {size} elements, {need} needed (a tile-to-gpu bug)")
        name = self.scratch_used.setdefault(t, f"__tile_smem_{self.src.sym_name.data}_{t}")
        mtype = MemRefType(t, [size], memory_space=SHARED)
        return self.at_entry(("smem", t), lambda e: e(memref.GetGlobalOp(name, mtype)))

    def write_shared(self, e: Emitter, d: Dist, buf: SSAValue) -> None:
        """barrier; the first replica of every owner writes its registers at their row-major index; barrier."""
        e(gpu.BarrierOp())

        def body(b: Emitter) -> None:
            for r in range(d.layout.reps):
                for v in range(d.layout.vec):
                    idx = b(arith.IndexCastOp(self.flat(b, d.layout, r, v), IndexType()))
                    b(memref.StoreOp.get(d.regs[r * d.layout.vec + v], buf, [idx]))

        self.when(e, self.is_first_replica(d.layout), body)
        e(gpu.BarrierOp())

    def relayout(self, e: Emitter, d: Dist, target: Layout, source_index: Callable[[Emitter, SSAValue], SSAValue], identity: bool = False) -> Dist:
        """`d` in `target` (another shape is allowed): target element f is source element
        `source_index(f)` (`identity`: f itself). Registers stay when the placement is the same and
        the map the identity; one scalar is replicated; anything else goes through shared memory."""
        if identity and d.layout.same_placement(target):
            return Dist(target, d.regs, d.elem)
        if d.layout.uniform:
            return Dist(target, [d.regs[0]] * target.slots, d.elem)
        buf = self.scratch(d.elem, d.layout.numel)
        self.write_shared(e, d, buf)
        regs = []
        for r in range(target.reps):
            for v in range(target.vec):
                f = source_index(e, self.flat(e, target, r, v))
                regs.append(e(memref.LoadOp.get(buf, [e(arith.IndexCastOp(f, IndexType()))])))
        return Dist(target, regs, d.elem)


_TILE_LOWERINGS: dict[type[Operation], Callable[[_TileFunctionLowering, Operation, Emitter], SSAValue | Dist | View | PView | None]] = {}


def lowers(*ops: type[Operation]):
    def register(fn: Callable[[_TileFunctionLowering, Operation, Emitter], SSAValue | Dist | View | PView | None]):
        for op in ops:
            _TILE_LOWERINGS[op] = fn
        return fn

    return register


def _static_divisor(n: int) -> int:
    d = 1
    while d < 1 << 20 and n % (d * 2) == 0 and n:
        d *= 2
    return d if n else 1 << 20


# --------------------------------------------------------------------------- ids, views, sizes


@lowers(tile.BlockIdOp)
def _block_id(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> SSAValue:
    assert fl.bid is not None
    return fl.bid


@lowers(tile.NumBlocksOp)
def _num_blocks(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> SSAValue:
    return fl.at_entry("num_blocks", lambda b: b(arith.IndexCastOp(b(gpu.GridDimOp("x")), i64)))


@lowers(tile.DimOp)
def _dim(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> SSAValue:
    assert isinstance(op, tile.DimOp)
    view = fl.values[op.view]
    assert isinstance(view, View)
    return view.dims[op.axis.data]


def _num_tiles(e: Emitter, pv: PView, axis: int) -> SSAValue:
    t = pv.tile[axis]
    static = pv.view.static[axis]
    if static is not None:
        return e.const(-(-static // t), i64)
    dim = pv.view.dims[axis]
    if t == 1:
        return dim
    summed = e(arith.AddiOp(dim, e.const(t - 1, i64)))
    return e(arith.ShRUIOp(summed, e.const(_log2(t), i64)))


@lowers(tile.NumTilesOp)
def _num_tiles_op(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> SSAValue:
    assert isinstance(op, tile.NumTilesOp)
    pv = fl.values[op.view]
    assert isinstance(pv, PView)
    return _num_tiles(e, pv, op.axis.data)


def _traced(fl: _TileFunctionLowering, op: Operation, operand: SSAValue, kind: type) -> Any:
    """What the pass made of `operand` (a `View`/`PView` traced to a kernel parameter), or a located
    error: IR where a view is not made from a parameter in the entry block cannot be lowered."""
    value = fl.values.get(operand)
    if not isinstance(value, kind):
        raise error_at(op, f"cannot be lowered: its {'partition' if kind is PView else 'tensor'} view operand is not made (in the entry block) from a kernel parameter")
    return value


@lowers(tile.BlockCoordOp)
def _block_coord(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> SSAValue:
    assert isinstance(op, tile.BlockCoordOp)
    if fl.bid is None:
        raise error_at(op, "cannot be lowered: the function is not a tile kernel with a grid partition")
    pv = _traced(fl, op, op.view, PView)
    rank = len(pv.tile)
    axis = op.axis.data
    if rank == 1:
        return fl.bid
    bid = fl.bid

    def build(b: Emitter) -> SSAValue:
        inner = _num_tiles(b, pv, 1)
        return b(arith.DivUIOp(bid, inner) if axis == 0 else arith.RemUIOp(bid, inner))

    return fl.at_entry(("coord", id(pv.view), pv.tile, axis), build)


@lowers(tile.MakePartitionViewOp)
def _make_partition_view(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> PView:
    assert isinstance(op, tile.MakePartitionViewOp)
    view = _traced(fl, op, op.source, View)
    pt = op.result.type
    assert isinstance(pt, tile.PartitionViewType)
    return PView(view, pt.dims, pt.padding)


@lowers(tile.MakeTensorViewOp)
def _make_tensor_view(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> View:
    assert isinstance(op, tile.MakeTensorViewOp)
    src = _traced(fl, op, op.source, View)
    rt = op.result.type
    assert isinstance(rt, tile.TensorViewType)
    sizes = iter(op.sizes)
    dims, static = [], []
    for d in rt.dims:
        if d == builtin.DYNAMIC_INDEX:
            dims.append(fl.v(next(sizes)))
            static.append(None)
        else:
            dims.append(e.const(d, i64))
            static.append(d)
    limit = src.dims[0] if len(src.dims) == 1 else e(arith.MuliOp(src.dims[0], src.dims[1]))
    if src.limit is not None:
        limit = src.limit
    div = tuple(_static_divisor(s) if s is not None else 1 for s in static)
    return View(src.memref, dims, tuple(static), dims[1] if len(dims) == 2 else None, div, src.align, src.elem, limit, src.base_dims)


# --------------------------------------------------------------------------- loads and stores


def _index(e: Emitter, view: View, lin: SSAValue, coords: list[SSAValue] | None = None, offset: int = 0) -> list[SSAValue]:
    """Memref indices of linear element `lin + offset` of the view's memory (or, for a view with the
    memref's own shape, of global coordinates `coords` with `offset` added to the last)."""
    mt = view.memref.type
    assert isinstance(mt, MemRefType)

    def idx(v: SSAValue) -> SSAValue:
        return e(arith.IndexCastOp(v, IndexType()))

    def plus(v: SSAValue) -> SSAValue:
        return v if offset == 0 else e(arith.AddiOp(v, e.const(offset, i64)))

    if mt.get_num_dims() == 1:
        return [idx(plus(lin))]
    if coords is not None and view.limit is None and len(coords) == 2:
        return [idx(coords[0]), idx(plus(coords[1]))]
    at = plus(lin)
    cols = view.base_dims[1]
    return [idx(e(arith.DivUIOp(at, cols))), idx(e(arith.RemUIOp(at, cols)))]


def _vector_width(view: View, layout: Layout, tile_shape: tuple[int, ...], vector_bytes: int = VECTOR_BYTES) -> int:
    """Elements per global access: up to `vector_bytes` (16) when alignment and contiguity are proven."""
    elem = signless(view.elem)
    if elem == i1:
        return 1
    b = _bytes(elem)
    w = max(1, min(layout.vec, vector_bytes // b))
    while w > 1:
        aligned = view.align >= w * b
        rows_ok = len(tile_shape) == 1 or view.divisible[1] >= w
        if aligned and rows_ok and view.limit is None:
            return w
        w //= 2
    return 1


@dataclass
class _Chunk:
    """One chunk (vec contiguous elements) of a tile access: its global coordinates and linear offset."""

    coords: list[SSAValue]
    lin: SSAValue


def _chunks(fl: _TileFunctionLowering, e: Emitter, view: View, layout: Layout, origin: list[SSAValue]) -> list[_Chunk]:
    shape = layout.shape
    out = []
    for r in range(layout.reps):
        fb = fl.flat(e, layout, r)
        if len(shape) == 1:
            g = [e(arith.AddiOp(origin[0], fb))]
            lin = g[0]
        else:
            c = shape[1]
            i = e(arith.ShRUIOp(fb, e.const(_log2(c), i64))) if c > 1 else fb
            j = e(arith.AndIOp(fb, e.const(c - 1, i64))) if c > 1 else e.const(0, i64)
            g = [e(arith.AddiOp(origin[0], i)), e(arith.AddiOp(origin[1], j))]
            assert view.stride is not None
            lin = e(arith.AddiOp(e(arith.MuliOp(g[0], view.stride)), g[1]))
        out.append(_Chunk(g, lin))
    return out


def _origin(e: Emitter, coords: list[SSAValue], tile_shape: tuple[int, ...]) -> list[SSAValue]:
    out = []
    for c, t in zip(coords, tile_shape):
        out.append(c if t == 1 else e(arith.ShLIOp(c, e.const(_log2(t), i64))))
    return out


def _coords64(fl: _TileFunctionLowering, e: Emitter, coords: tuple[SSAValue, ...] | list[SSAValue]) -> list[SSAValue]:
    out = []
    for c in coords:
        v = fl.v(c)
        out.append(cast_value(e, v, c.type, kernel.SI64))
    return out


def _whole_tiles(view: View, tile_shape: tuple[int, ...]) -> bool:
    """No tile is partial: each extent is a multiple of the tile's (known from the specialization), so
    a tile is wholly inside the tensor or wholly outside."""
    return all(dv >= t and dv % t == 0 for dv, t in zip(view.divisible, tile_shape)) and view.limit is None


def _tile_inside(e: Emitter, view: View, origin: list[SSAValue]) -> SSAValue:
    """i1: the tile at `origin` starts inside the tensor (uniform; a negative coordinate is outside)."""
    cond: SSAValue | None = None
    for o, d in zip(origin, view.dims):
        ok = e(arith.CmpiOp(o, d, "ult"))
        cond = ok if cond is None else e(arith.AndIOp(cond, ok))
    assert cond is not None
    return cond


def _full_tile(e: Emitter, view: View, origin: list[SSAValue], tile_shape: tuple[int, ...]) -> SSAValue:
    """i1: the tile at `origin` lies wholly inside the tensor (uniform across the CTA)."""
    cond = _tile_inside(e, view, origin)
    for o, t, d in zip(origin, tile_shape, view.dims):
        end = e(arith.AddiOp(o, e.const(t, i64)))
        cond = e(arith.AndIOp(cond, e(arith.CmpiOp(end, d, "ule"))))
    if view.limit is not None and len(origin) == 1:
        end = e(arith.AddiOp(origin[0], e.const(tile_shape[0], i64)))
        cond = e(arith.AndIOp(cond, e(arith.CmpiOp(end, view.limit, "ule"))))
    return cond


def _in_bounds(e: Emitter, view: View, chunk: _Chunk, offset: int, count: int) -> SSAValue:
    """i1: elements `offset … offset+count-1` of the chunk lie inside the tensor."""
    cond: SSAValue | None = None
    coords = chunk.coords
    for axis, (g, d) in enumerate(zip(coords, view.dims)):
        last = axis == len(coords) - 1
        pos = e(arith.AddiOp(g, e.const(offset + count - 1, i64))) if last and offset + count - 1 else g
        ok = e(arith.CmpiOp(pos, d, "ult"))  # a negative coordinate is a huge unsigned one: outside
        cond = ok if cond is None else e(arith.AndIOp(cond, ok))
    if view.limit is not None:
        pos = e(arith.AddiOp(chunk.lin, e.const(offset + count - 1, i64)))
        cond = e(arith.AndIOp(cond, e(arith.CmpiOp(pos, view.limit, "ult"))))  # pyright: ignore[reportArgumentType]
    assert cond is not None
    return cond


def _load_group(e: Emitter, view: View, chunk: _Chunk, offset: int, w: int, alignment: int) -> list[SSAValue]:
    elem = signless(view.elem)
    idx = _index(e, view, chunk.lin, chunk.coords, offset)
    if w == 1:
        return [e(memref.LoadOp.get(view.memref, idx))]
    vt = VectorType(elem, [w])
    load = vector.LoadOp(view.memref, idx, vt)
    load.attributes["alignment"] = IntegerAttr(alignment, i64)
    v = e(load)
    return [e(vector.ExtractOp(v, [k], elem)) for k in range(w)]


def _store_group(e: Emitter, view: View, chunk: _Chunk, offset: int, values: list[SSAValue], alignment: int) -> None:
    elem = signless(view.elem)
    idx = _index(e, view, chunk.lin, chunk.coords, offset)
    if len(values) == 1:
        e(memref.StoreOp.get(values[0], view.memref, idx))
        return
    vt = VectorType(elem, [len(values)])
    vec = e(vector.BroadcastOp(values[0], vt))
    for k, x in enumerate(values[1:], start=1):
        vec = e(vector.InsertOp(x, vec, [k], vt))
    store = vector.StoreOp(vec, view.memref, idx)
    store.attributes["alignment"] = IntegerAttr(alignment, i64)
    e(store)


def _padding_value(e: Emitter, padding: Attribute, elem: Attribute) -> SSAValue:
    if isinstance(padding, FloatAttr):
        return e.const(padding.value.data, signless(elem))
    if isinstance(padding, IntegerAttr):
        return e.const(padding.value.data, signless(elem))
    return e.const(0, signless(elem))


def load_tile(fl: _TileFunctionLowering, e: Emitter, view: View, tile_shape: tuple[int, ...], padding: Attribute, coords: list[SSAValue], elem: Attribute) -> Dist:
    layout = canonical_layout(tile_shape, fl.threads)
    origin = _origin(e, coords, tile_shape)
    chunks = _chunks(fl, e, view, layout, origin)
    w = _vector_width(view, layout, tile_shape, fl.vector_bytes)
    b = _bytes(signless(view.elem))
    types = [signless(elem)] * layout.slots

    def unmasked(b_: Emitter) -> list[SSAValue]:
        regs: list[SSAValue] = []
        for ch in chunks:
            for k in range(0, layout.vec, w):
                regs += _load_group(b_, view, ch, k, w, w * b)
        return regs

    wm = w if view.divisible[-1] >= w else 1  # a vector is wholly inside or outside the tensor

    def masked(b_: Emitter) -> list[SSAValue]:
        pad = _padding_value(b_, padding, elem)
        regs: list[SSAValue] = []
        for ch in chunks:
            for k in range(0, layout.vec, wm):
                ok = _in_bounds(b_, view, ch, k, wm)
                rtypes = [signless(elem)] * wm
                regs += fl.branch_values(b_, ok, lambda x, ch=ch, k=k: _load_group(x, view, ch, k, wm, wm * b), lambda x: [pad] * wm, rtypes)
        return regs

    if _whole_tiles(view, tile_shape):
        # no partial tiles: wholly inside (unmasked) or wholly outside (all padding)
        inside = _tile_inside(e, view, origin)
        regs = fl.branch_values(e, inside, unmasked, lambda b_: [_padding_value(b_, padding, elem)] * layout.slots, types)
    else:
        full = _full_tile(e, view, origin, tile_shape)
        regs = fl.branch_values(e, full, unmasked, masked, types)
    return Dist(layout, regs, elem)


def store_tile(fl: _TileFunctionLowering, e: Emitter, d: Dist, view: View, tile_shape: tuple[int, ...], coords: list[SSAValue]) -> None:
    d = fl.canon(e, d)
    layout = d.layout
    origin = _origin(e, coords, tile_shape)
    w = _vector_width(view, layout, tile_shape, fl.vector_bytes)
    b = _bytes(signless(view.elem))

    def body(x: Emitter) -> None:
        chunks = _chunks(fl, x, view, layout, origin)

        def unmasked(y: Emitter) -> None:
            for r, ch in enumerate(chunks):
                for k in range(0, layout.vec, w):
                    _store_group(y, view, ch, k, d.regs[r * layout.vec + k : r * layout.vec + k + w], w * b)

        wm = w if view.divisible[-1] >= w else 1  # a vector is wholly inside or outside the tensor

        def masked(y: Emitter) -> None:
            for r, ch in enumerate(chunks):
                for k in range(0, layout.vec, wm):
                    ok = _in_bounds(y, view, ch, k, wm)
                    vals = d.regs[r * layout.vec + k : r * layout.vec + k + wm]
                    fl.when(y, ok, lambda z, ch=ch, k=k, vals=vals: _store_group(z, view, ch, k, vals, wm * b))

        if _whole_tiles(view, tile_shape):
            fl.when(x, _tile_inside(x, view, origin), unmasked)
            return
        full = _full_tile(x, view, origin, tile_shape)
        tb, eb = Block(), Block()
        te, ee = Emitter(tb, x.source), Emitter(eb, x.source)
        unmasked(te)
        te(scf.YieldOp())
        masked(ee)
        ee(scf.YieldOp())
        x(scf.IfOp(full, [], Region(tb), Region(eb)))

    fl.when(e, fl.is_first_replica(layout), body)


@lowers(tile.LoadOp)
def _load(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, tile.LoadOp)
    pv = _traced(fl, op, op.view, PView)
    rt = op.result.type
    assert isinstance(rt, tile.TileType)
    return load_tile(fl, e, pv.view, pv.tile, pv.padding, _coords64(fl, e, op.coords), rt.element_type)


@lowers(tile.LoadTileLikeOp)
def _load_tile_like(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, tile.LoadTileLikeOp)
    view = _traced(fl, op, op.source, View)
    like = _traced(fl, op, op.like, PView)
    rt = op.result.type
    assert isinstance(rt, tile.TileType)
    padding = like.padding if getattr(like.padding, "type", None) == rt.element_type else tile.zero_attr(rt.element_type)
    return load_tile(fl, e, view, like.tile, padding, _coords64(fl, e, op.coords), rt.element_type)


@lowers(tile.StoreOp)
def _store(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> None:
    assert isinstance(op, tile.StoreOp)
    pv = _traced(fl, op, op.view, PView)
    store_tile(fl, e, fl.dist(op.value), pv.view, pv.tile, _coords64(fl, e, op.coords))
    return None


def _numel(e: Emitter, view: View) -> SSAValue:
    if view.limit is not None:
        return view.limit
    n = view.dims[0]
    for d in view.dims[1:]:
        n = e(arith.MuliOp(n, d))
    return n


def _masked_offsets(fl: _TileFunctionLowering, e: Emitter, view: View, offsets: Dist, mask: Dist) -> tuple[list[SSAValue], list[SSAValue]]:
    """Per register: the i64 offset and whether it is accessed (mask true, 0 ≤ offset < numel)."""
    offsets, mask = fl.canon(e, offsets), fl.canon(e, mask)
    numel = _numel(e, view)
    offs, oks = [], []
    for o, m in zip(offsets.regs, mask.regs):
        o64 = cast_value(e, o, offsets.elem, kernel.SI64)
        inside = e(arith.CmpiOp(o64, numel, "ult"))  # a negative offset is huge unsigned: outside
        offs.append(o64)
        oks.append(e(arith.AndIOp(inside, m)))
    return offs, oks


@lowers(tile.LoadMaskedOp)
def _load_masked(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, tile.LoadMaskedOp)
    view = fl.values[op.view]
    assert isinstance(view, View)
    offsets = fl.canon(e, fl.dist(op.offsets))
    offs, oks = _masked_offsets(fl, e, view, offsets, fl.dist(op.mask))
    pad = fl.v(op.padding)
    elem = signless(view.elem)
    regs = []
    for o, ok in zip(offs, oks):
        regs += fl.branch_values(e, ok, lambda x, o=o: [x(memref.LoadOp.get(view.memref, _index(x, view, o)))], lambda x: [pad], [elem])
    return Dist(offsets.layout, regs, view.elem)


@lowers(tile.StoreMaskedOp)
def _store_masked(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> None:
    assert isinstance(op, tile.StoreMaskedOp)
    view = fl.values[op.view]
    assert isinstance(view, View)
    value = fl.canon(e, fl.dist(op.value))
    offs, oks = _masked_offsets(fl, e, view, fl.dist(op.offsets), fl.dist(op.mask))

    def body(x: Emitter) -> None:
        for v, o, ok in zip(value.regs, offs, oks):
            fl.when(x, ok, lambda y, v=v, o=o: y(memref.StoreOp.get(v, view.memref, _index(y, view, o))) and None)

    fl.when(e, fl.is_first_replica(value.layout), body)
    return None


_ATOMIC_KINDS: dict[tuple[str, str], AtomicRMWKind] = {
    ("add", "f"): AtomicRMWKind.addf, ("add", "i"): AtomicRMWKind.addi, ("add", "u"): AtomicRMWKind.addi,
    ("max", "f"): AtomicRMWKind.maximumf, ("max", "i"): AtomicRMWKind.maxs, ("max", "u"): AtomicRMWKind.maxu,
    ("min", "f"): AtomicRMWKind.minimumf, ("min", "i"): AtomicRMWKind.mins, ("min", "u"): AtomicRMWKind.minu,
}  # fmt: skip
"""(tile kind, element kind) → `memref.atomic_rmw` kind."""


@lowers(tile.AtomicRMWOp)
def _atomic(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> None:
    assert isinstance(op, tile.AtomicRMWOp)
    view = fl.values[op.view]
    assert isinstance(view, View)
    values = fl.canon(e, fl.dist(op.values))
    offs, oks = _masked_offsets(fl, e, view, fl.dist(op.offsets), fl.dist(op.mask))
    kind = _ATOMIC_KINDS[(op.kind.data, tile.kind_of(view.elem))]
    elem = signless(view.elem)

    def body(x: Emitter) -> None:
        for v, o, ok in zip(values.regs, offs, oks):

            def rmw(y: Emitter, v: SSAValue = v, o: SSAValue = o) -> None:
                y(memref.AtomicRMWOp.build(operands=[v, view.memref, _index(y, view, o)], result_types=[elem], properties={"kind": kind.attr()}))

            fl.when(x, ok, rmw)

    fl.when(e, fl.is_first_replica(values.layout), body)
    return None


# --------------------------------------------------------------------------- making tiles


def _tile_type(op: Operation) -> tile.TileType:
    t = op.results[0].type
    assert isinstance(t, tile.TileType)
    return t


@lowers(tile.FullOp)
def _full(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, tile.FullOp)
    t = _tile_type(op)
    layout = canonical_layout(t.dims, fl.threads)
    value = op.value
    c = e.const(value.value.data, signless(t.element_type))  # pyright: ignore[reportArgumentType]
    return Dist(layout, [c] * layout.slots, t.element_type)


@lowers(tile.IotaOp)
def _iota(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    t = _tile_type(op)
    layout = canonical_layout(t.dims, fl.threads)
    elem = signless(t.element_type)
    regs = []
    for r in range(layout.reps):
        for v in range(layout.vec):
            f = fl.flat(e, layout, r, v)
            regs.append(f if elem == i64 else e(arith.TruncIOp(f, elem)))
    return Dist(layout, regs, t.element_type)


@lowers(tile.SplatOp)
def _splat(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, tile.SplatOp)
    t = _tile_type(op)
    layout = canonical_layout(t.dims, fl.threads)
    return Dist(layout, [fl.v(op.input)] * layout.slots, t.element_type)


@lowers(tile.ExtractOp)
def _extract(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> SSAValue:
    assert isinstance(op, tile.ExtractOp)
    d = fl.dist(op.input)
    assert d.layout.uniform
    return d.regs[0]


def _unravel(e: Emitter, f: SSAValue, shape: tuple[int, ...]) -> list[SSAValue]:
    """Row-major multi-index of flat index `f` (i64) in `shape` (powers of two)."""
    out = []
    rest = f
    for k in range(len(shape) - 1, -1, -1):
        n = shape[k]
        if k == 0:
            out.append(rest)
            break
        out.append(e(arith.AndIOp(rest, e.const(n - 1, i64))) if n > 1 else e.const(0, i64))
        rest = e(arith.ShRUIOp(rest, e.const(_log2(n), i64))) if n > 1 else rest
    if not shape:
        return []
    return list(reversed(out))


def _ravel(e: Emitter, idx: list[SSAValue], shape: tuple[int, ...]) -> SSAValue:
    f: SSAValue | None = None
    for i, n in zip(idx, shape):
        f = i if f is None else e(arith.AddiOp(e(arith.ShLIOp(f, e.const(_log2(n), i64))) if n > 1 else f, i))
    return f if f is not None else e.const(0, i64)


@lowers(kernel.PrintOp)
def _print(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> None:
    """`kernel.print` in a tile kernel. Without a tile of rank > 0 it prints once per tile block, from
    thread 0 of the CTA (a rank-0 tile, e.g. `t.sum()`, prints its value). With one, every element
    prints its own line: the tile's field becomes `[i] value` (`[i, j] value` for rank 2, indices in the
    tile, row-major), printed by the thread holding the element (its first replica). Lines of one
    tile block come in no particular order, as on the GPU."""
    assert isinstance(op, kernel.PrintOp)
    fields = op.fields()
    tiled_arg: SSAValue | None = None
    for a in op.args:
        if isinstance(a.type, tile.TileType) and a.type.dims:
            tiled_arg = a

    tiles = {a: fl.canon(e, fl.dist(a)) for a in op.args if isinstance(a.type, tile.TileType)}  # any relayout before the guard

    def operand(a: SSAValue, k: int) -> tuple[Attribute, SSAValue]:
        if a in tiles:
            d = tiles[a]
            return d.elem, d.regs[k if a is tiled_arg else 0]
        return a.type, fl.v(a)

    def pieces(k: int, index: list[SSAValue]) -> list[PrintPiece]:
        out: list[PrintPiece] = []
        operands = iter(op.args)
        for literal, spec in fields:
            out.append(literal)
            if spec is None:
                continue
            a = next(operands)
            if a is tiled_arg:
                out.append("[")
                for n, i in enumerate(index):
                    out += [", "] if n else []
                    out.append(("", kernel.SI64, i))
                out.append("] ")
            t, v = operand(a, k)
            out.append((spec, t, v))
        return out

    if tiled_arg is None:
        assert fl.tid is not None
        tid = fl.tid
        first = e(arith.CmpiOp(tid, e.const(0, i64), "eq"))
        fl.when(e, first, lambda b: build_printf(b, pieces(0, [])))
        return None
    typ = tiled_arg.type
    assert isinstance(typ, tile.TileType)
    layout = tiles[tiled_arg].layout
    shape = tuple(typ.dims)

    def body(b: Emitter) -> None:
        for r in range(layout.reps):
            for v in range(layout.vec):
                index = _unravel(b, fl.flat(b, layout, r, v), shape)
                build_printf(b, pieces(r * layout.vec + v, index))

    fl.when(e, fl.is_first_replica(layout), body)
    return None


@lowers(tile.BroadcastOp)
def _broadcast(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, tile.BroadcastOp)
    d = fl.canon(e, fl.dist(op.input))
    dst = _tile_type(op)
    src_shape = d.layout.shape
    target = canonical_layout(dst.dims, fl.threads)
    lead = len(dst.dims) - len(src_shape)

    def index(x: Emitter, f: SSAValue) -> SSAValue:
        idx = _unravel(x, f, dst.dims)[lead:]
        src_idx = [i if n > 1 else x.const(0, i64) for i, n in zip(idx, src_shape)]
        return _ravel(x, src_idx, src_shape)

    return fl.relayout(e, d, target, index, identity=prod(src_shape) == prod(dst.dims))


@lowers(tile.ReshapeOp)
def _reshape(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, tile.ReshapeOp)
    d = fl.canon(e, fl.dist(op.input))
    return fl.relayout(e, d, canonical_layout(_tile_type(op).dims, fl.threads), lambda x, f: f, identity=True)


def _permute(fl: _TileFunctionLowering, op: Operation, e: Emitter, perm: list[int]) -> Dist:
    d = fl.canon(e, fl.dist(op.operands[0]))
    dst = _tile_type(op)
    src_shape = d.layout.shape

    def index(x: Emitter, f: SSAValue) -> SSAValue:
        idx = _unravel(x, f, dst.dims)
        src_idx = [x.const(0, i64)] * len(src_shape)
        for out_axis, in_axis in enumerate(perm):
            src_idx[in_axis] = idx[out_axis]
        return _ravel(x, src_idx, src_shape)

    return fl.relayout(e, d, canonical_layout(dst.dims, fl.threads), index)


@lowers(tile.PermuteOp)
def _permute_op(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, tile.PermuteOp)
    return _permute(fl, op, e, [p.data for p in op.permutation.data])


@lowers(tile.TransposeOp)
def _transpose(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    return _permute(fl, op, e, [1, 0])


# --------------------------------------------------------------------------- elementwise


_SCALAR_OPS: dict[str, type[Operation]] = {
    "kernel.add": kernel.AddOp, "kernel.sub": kernel.SubOp, "kernel.mul": kernel.MulOp, "kernel.truediv": kernel.TrueDivOp,
    "kernel.floordiv": kernel.FloorDivOp, "kernel.mod": kernel.ModOp, "kernel.pow": kernel.PowOp, "kernel.and": kernel.AndOp,
    "kernel.or": kernel.OrOp, "kernel.xor": kernel.XorOp, "kernel.lshift": kernel.LShiftOp, "kernel.rshift": kernel.RShiftOp,
    "kernel.max": kernel.MaxOp, "kernel.min": kernel.MinOp, "kernel.neg": kernel.NegOp, "kernel.abs": kernel.AbsOp,
    "kernel.invert": kernel.InvertOp, "kernel.not": kernel.NotOp,
}  # fmt: skip
"""The `SCALAR` names of the elementwise tile ops → the `kernel` op whose lowering gives their semantics."""

_MATH_OPS: dict[str, type[Operation]] = {
    "math.exp": math.ExpOp, "math.exp2": math.Exp2Op, "math.log": math.LogOp, "math.log2": math.Log2Op,
    "math.sqrt": math.SqrtOp, "math.rsqrt": math.RsqrtOp, "math.sin": math.SinOp, "math.cos": math.CosOp,
    "math.tanh": math.TanhOp, "math.floor": math.FloorOp, "math.ceil": math.CeilOp,
}  # fmt: skip


@lowers(*tile.ELEMENTWISE_BINARY)
def _binary(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, tile.ElementwiseBinaryOp)
    a, b = fl.canon(e, fl.dist(op.lhs)), fl.canon(e, fl.dist(op.rhs))
    make = _SCALAR_OPS[op.SCALAR]
    regs = [fl.scalar(e, make, [a.elem, b.elem], [x, y]) for x, y in zip(a.regs, b.regs)]
    return Dist(a.layout, regs, a.elem)


@lowers(*tile.ELEMENTWISE_UNARY)
def _unary(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, tile.ElementwiseUnaryOp)
    a = fl.canon(e, fl.dist(op.operand))
    if op.SCALAR in _SCALAR_OPS:
        make = _SCALAR_OPS[op.SCALAR]
        return Dist(a.layout, [fl.scalar(e, make, [a.elem], [x]) for x in a.regs], a.elem)
    if isinstance(op, tile.ExpOp) and a.elem == builtin.f32:
        # exp(x) = 2^(x·log2 e): ex2.approx (libdevice exp2f), the accuracy of CUDA's __expf
        k = e.const(LOG2E, builtin.f32)
        return Dist(a.layout, [e(math.Exp2Op(e(arith.MulfOp(x, k)))) for x in a.regs], a.elem)
    make = _MATH_OPS[op.SCALAR]
    return Dist(a.layout, [e(make(x)) for x in a.regs], a.elem)


@lowers(tile.CmpOp)
def _cmp(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, tile.CmpOp)
    a, b = fl.canon(e, fl.dist(op.lhs)), fl.canon(e, fl.dist(op.rhs))
    pred = op.predicate.data
    regs = [fl.scalar(e, lambda x, y: kernel.CmpOp(pred, x, y), [a.elem, b.elem], [x, y]) for x, y in zip(a.regs, b.regs)]
    return Dist(a.layout, regs, i1)


@lowers(tile.WhereOp)
def _where(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, tile.WhereOp)
    c = fl.canon(e, fl.dist(op.cond))
    a, b = fl.canon(e, fl.dist(op.true_value)), fl.canon(e, fl.dist(op.false_value))
    regs = [e(arith.SelectOp(x, y, z)) for x, y, z in zip(c.regs, a.regs, b.regs)]
    return Dist(a.layout, regs, a.elem)


@lowers(tile.CastOp)
def _cast(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, tile.CastOp)
    a = fl.canon(e, fl.dist(op.input))
    to = _tile_type(op).element_type
    return Dist(a.layout, [cast_value(e, x, a.elem, to) for x in a.regs], to)


# --------------------------------------------------------------------------- reductions


def _combine(e: Emitter, kind: str, elem: Attribute, a: SSAValue, b: SSAValue) -> SSAValue:
    k = tile.kind_of(elem)
    if kind == "sum":
        return e(arith.AddfOp(a, b) if k == "f" else arith.AddiOp(a, b))
    if kind == "prod":
        return e(arith.MulfOp(a, b) if k == "f" else arith.MuliOp(a, b))
    if kind == "max":
        return e(arith.MaximumfOp(a, b) if k == "f" else arith.MaxSIOp(a, b) if k == "i" else arith.MaxUIOp(a, b))
    return e(arith.MinimumfOp(a, b) if k == "f" else arith.MinSIOp(a, b) if k == "i" else arith.MinUIOp(a, b))


def _tree(e: Emitter, kind: str, elem: Attribute, values: list[SSAValue]) -> SSAValue:
    """Combine `values` pairwise (a balanced tree: more independent operations in flight)."""
    vals = list(values)
    while len(vals) > 1:
        nxt = [_combine(e, kind, elem, vals[i], vals[i + 1]) for i in range(0, len(vals) - 1, 2)]
        if len(vals) % 2:
            nxt.append(vals[-1])
        vals = nxt
    return vals[0]


def _shuffle_xor(e: Emitter, x: SSAValue, offset: int, elem: Attribute) -> SSAValue:
    shuffle_op = getattr(gpu, "ShuffleOp", None)
    if shuffle_op is None:
        raise DiagnosticException("tile-to-gpu: reductions across threads need gpu.shuffle, which this checkout's gpu dialect lacks")
    payload, back = to_bits(e, x, signless(elem))
    sh = shuffle_op("xor", payload, e.const(offset, i32), e.const(32, i32))
    e(sh)
    return back(e, sh.results[0])


@lowers(tile.ReduceOp)
def _reduce(fl: _TileFunctionLowering, op: Operation, e: Emitter) -> Dist:
    assert isinstance(op, tile.ReduceOp)
    d = fl.canon(e, fl.dist(op.input))
    kind, axis = op.kind.data, op.axis.data
    result_type = _tile_type(op)
    shape = d.layout.shape
    kshape = tuple(1 if i == axis else n for i, n in enumerate(shape))
    target = canonical_layout(result_type.dims, fl.threads)
    plan = reduce_plan(shape, axis, fl.threads, result_type.dims)
    layout, elem = d.layout, d.elem
    if plan.path == "rows":
        c = shape[-1]
        per_row = c // (layout.owners * layout.vec)  # reps per output row
        k_out = layout.reps // per_row
        partials = []
        for q in range(k_out):
            regs = d.regs[q * per_row * layout.vec : (q + 1) * per_row * layout.vec]
            p = _tree(e, kind, elem, regs)
            off = layout.replicas
            while off < 32 and off < layout.replicas * layout.owners:
                p = _combine(e, kind, elem, p, _shuffle_xor(e, p, off, elem))
                off *= 2
            partials.append(p)
        wd = distinct_warps(layout, fl.threads)
        if wd == 1 and k_out == 1:
            return Dist(target, [partials[0]] * target.slots, elem)
        buf = fl.scratch(elem, k_out * wd)
        assert fl.tid is not None
        tid = fl.tid
        warp_step = max(1, layout.replicas // 32)
        e(gpu.BarrierOp())

        def write(x: Emitter) -> None:
            warp = x(arith.ShRUIOp(tid, x.const(5, i64)))
            wi = warp if warp_step == 1 else x(arith.ShRUIOp(warp, x.const(_log2(warp_step), i64)))
            for q, p in enumerate(partials):
                at = wi if q == 0 else x(arith.AddiOp(wi, x.const(q * wd, i64)))
                x(memref.StoreOp.get(p, buf, [x(arith.IndexCastOp(at, IndexType()))]))

        lane0 = e(arith.CmpiOp(e(arith.AndIOp(tid, e.const(32 * warp_step - 1, i64))), e.const(0, i64), "eq"))
        fl.when(e, lane0, write)
        e(gpu.BarrierOp())
        regs = []
        for r in range(target.reps):
            for v in range(target.vec):
                q = fl.flat(e, target, r, v) if not target.uniform else e.const(0, i64)
                base = q if wd == 1 else e(arith.MuliOp(q, e.const(wd, i64)))
                loads = []
                for w in range(wd):
                    at = base if w == 0 else e(arith.AddiOp(base, e.const(w, i64)))
                    loads.append(e(memref.LoadOp.get(buf, [e(arith.IndexCastOp(at, IndexType()))])))
                regs.append(_tree(e, kind, elem, loads))
        return Dist(target, regs, elem)
    if plan.path == "groups":
        group = plan.group
        regs = []
        for r in range(layout.reps):
            p = _tree(e, kind, elem, d.regs[r * layout.vec : (r + 1) * layout.vec])
            off = layout.replicas
            while off < layout.replicas * group:
                p = _combine(e, kind, elem, p, _shuffle_xor(e, p, off, elem))
                off *= 2
            regs.append(p)
        held = Layout(kshape, 1, layout.owners // group, layout.replicas * group, layout.reps)
        return fl.relayout(e, Dist(held, regs, elem), target, lambda x, f: f, identity=True)
    # through shared memory: each output element reads its row/column
    buf = fl.scratch(elem, d.layout.numel)
    fl.write_shared(e, d, buf)
    extent = shape[axis]
    stride = prod(shape[axis + 1 :])
    regs = []
    for r in range(target.reps):
        for v in range(target.vec):
            f = fl.flat(e, target, r, v)
            kidx = _unravel(e, f, result_type.dims)
            if op.keepdims is None:
                kidx = kidx[:axis] + [e.const(0, i64)] + kidx[axis:]
            else:
                kidx = kidx[:axis] + [e.const(0, i64)] + kidx[axis + 1 :]
            base = _ravel(e, kidx, shape)
            first = e(memref.LoadOp.get(buf, [e(arith.IndexCastOp(base, IndexType()))]))
            lb = e.const(1, IndexType())
            ub = e.const(extent, IndexType())
            step = e.const(1, IndexType())
            body = Block(arg_types=[IndexType(), signless(elem)])
            be = Emitter(body, e.source)
            k64 = be(arith.IndexCastOp(body.args[0], i64))
            at = be(arith.AddiOp(base, be(arith.MuliOp(k64, be.const(stride, i64)))))
            x = be(memref.LoadOp.get(buf, [be(arith.IndexCastOp(at, IndexType()))]))
            be(scf.YieldOp(_combine(be, kind, elem, body.args[1], x)))
            loop = scf.ForOp(lb, ub, step, [first], Region(body))
            e(loop)
            regs.append(loop.results[0])
    return Dist(target, regs, elem)


# --------------------------------------------------------------------------- the pass


@dataclass(frozen=True)
class TileToGpuPass(ModulePass):
    """Distribute tile kernels over CTAs: gpu.func in a gpu.module with #nvvm.target."""

    name = "tile-to-gpu"

    chip: str = "sm_90"
    features: str = ""
    """A `+ptxNN` PTX ISA version; `""`: the chip's default (`warpforge.backend.chips`)."""
    module: str = ""
    """The `gpu.module`'s name; empty: `<first kernel's symbol>_module`, the name `warpforge compile` uses."""
    vector_bytes: int = VECTOR_BYTES
    """The widest global access in bytes (16: 128-bit; 1: no vector accesses, e.g. for the simulator)."""

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        from warpforge.backend.chips import resolve_target

        target = resolve_target(self.chip, self.features)  # TargetError for an unknown chip or impossible PTX version
        funcs = [f for f in op.ops if isinstance(f, kernel.FuncOp) and "tile" in f.attributes]
        if not funcs:
            return
        first = next((f for f in funcs if f.is_kernel), funcs[0])
        name = self.module or f"{first.sym_name.data}_module"
        gpu_module = gpu.ModuleOp(name, [], [NVVMTargetAttr(target.chip.name, target.features)])
        lowering = ModuleLowering(gpu_module)
        for f in funcs:
            gpu_module.body.block.add_op(_TileFunctionLowering(f, lowering, vector_bytes=self.vector_bytes).run())
        funcs[0].parent_block().insert_op_before(gpu_module, funcs[0])  # pyright: ignore[reportOptionalMemberAccess]
        for f in funcs:
            f.detach()
            f.erase()



from warpforge.passes.lowerings import tile_dot as _tile_dot  # noqa: E402,F401  (registers the tile.dot lowering)
