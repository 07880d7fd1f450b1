"""The function lowering of `tile-to-gpu`: lowered values (`Dist`, `View`, `PView`), the per-kernel state,
the `@lowers` table every concern module registers into, thread indexing and layout changes."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from math import log2

from xdsl.dialects import arith, builtin, cf, memref, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    BFloat16Type,
    DenseArrayBase,
    DictionaryAttr,
    Float16Type,
    Float32Type,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.utils.exceptions import DiagnosticException

from warpforge.diagnostics import error_at
from warpforge.dialects import gpu, tile
from warpforge.passes.kernel_to_gpu import ERROR_RECORD_TYPE, GLOBAL, SHARED, Emitter, ErrorSite, FunctionLowering, convert_type, signless
from warpforge.passes.tile_to_gpu.layouts import Layout, SliceLayout, VECTOR_BYTES, canonical_layout, default_threads, layout_of, reduce_plan

LOG2E = 1.4426950408889634
REGION_BYTES = 1024
"""Fresh scratch regions of the entry block stack up to this many bytes (`fresh_region`)."""


# --------------------------------------------------------------------------- lowered values


@dataclass
class Dist:
    """A tile at the gpu level: its layout (its type's encoding, `layout_of`), this thread's registers,
    its (kernel-level) element type."""

    layout: Layout | SliceLayout
    regs: list[SSAValue]
    elem: Attribute


def reduce_accumulator(kind: str, elem: Attribute) -> Attribute:
    """The type a `tile.reduce` of `kind` over `elem` combines in: f32 for a sum or product of 16-bit
    floats (rounded to `elem` once at the end, as `nvgpu.mma.sync` accumulates f16 products in f32;
    rounding every partial to f16 loses up to 11 bits per step: 1024 copies of 0.1 summed to 108.2,
    not 102.4), else `elem` (max and min are exact in any type)."""
    if kind in ("sum", "prod") and isinstance(elem, Float16Type | BFloat16Type):
        return Float32Type()
    return elem


@dataclass
class View:
    """A tensor view at the gpu level: the global memref, i64 extents (SSA), static extents where
    known, the strides, known divisibility of each extent, pointer alignment (bytes)."""

    memref: SSAValue
    dims: list[SSAValue]
    static: tuple[int | None, ...]
    strides: list[SSAValue | None] | None
    """Element strides per axis (None in the list: 1) of a strided view, whose memref is 1-D; None:
    row-major contiguous, the memref has the view's shape."""
    divisible: tuple[int, ...]
    align: int
    elem: Attribute
    limit: SSAValue | None = None
    """Elements of the underlying memory, for reinterpreted views (`tile.make_tensor_view`)."""
    base_dims: list[SSAValue] = field(default_factory=list)
    """The memref's own extents (i64): how a linear offset becomes memref indices."""
    stride_divisible: tuple[int, ...] = ()
    """A strided view's known power-of-two divisor of each stride but the last (vector accesses)."""


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


UNIFORM = object()
"""`_TileFunctionLowering.reporting` for a scalar op: every thread of the CTA computes the same value."""


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
    arg_start: list[int] = field(default_factory=list)
    """Per source parameter, the index of its first gpu.func argument (a strided view takes several)."""
    scratch_refs: dict[Attribute, list[memref.GetGlobalOp]] = field(default_factory=dict)
    fresh_scratch: set[Attribute] = field(default_factory=set)
    """Scratch buffers whose first use is being lowered now, in the entry block: nothing read them before."""
    touched: dict[Attribute, int] = field(default_factory=dict)
    """Elements of each scratch buffer some use has touched so far (its first `touched[t]`)."""
    current: Block | None = None
    extra_shared: int = 0
    """Bytes of shared arrays lowerings declared themselves (`tile.dot`'s), for `tile.shared_bytes`."""
    dynamic_shared: int = 0
    """Bytes of dynamic shared memory lowerings placed their arrays in (`tile.dot`'s cp.async rings),
    for `tile.dynamic_shared_bytes`: the launch's `shmem_size`."""
    chip: str = "sm_90"
    """The target chip (`tile-to-gpu`'s option): `sm_90a` lets `tile.dot` use wgmma (tile_dot_wgmma.py)."""
    ring_panels: dict[int, int] = field(default_factory=dict)
    """Per `tile-pipeline` ring id, the column-panel width its slots are split into (a wgmma B operand,
    tile_dot_wgmma.py); rings not listed hold row-major slots."""
    inside_mask_loads: set[Operation] | None = None
    """The tile loads an atomic is computed from elementwise (`memory.padded_loads`), found on first use:
    their lowering also gives each register's in-bounds bit (`inside_masks`)."""
    inside_masks: dict[Operation, tuple[tuple[int, ...], list[SSAValue]]] = field(default_factory=dict)
    """Per such load: its tile shape and whether it read each register (canonical layout) from inside
    its tensor."""
    layout_hints: dict[SSAValue, object] = field(default_factory=dict)
    """Source tile values that get a layout other than the canonical one (`layout_of`), chosen before
    lowering by the `LAYOUT_ANALYSES` (e.g. `tile.dot`'s MMA accumulator layout)."""
    reporting: object = None
    reporting_inside: SSAValue | None = None
    """i1 while a register computed from padded loads is lowered: whether its element lies inside the
    tensors it was read from; an error found for an element past the end (padding) is not recorded."""
    """Whose errors the scalar lowering running now records (`report`): the layout whose registers an
    elementwise op is lowering (`registers_of`), `UNIFORM` for a scalar op (every thread of the CTA
    computes the same value), None outside both (every thread records)."""

    # ------------------------------------------------------------------ setup

    def run(self) -> gpu.FuncOp:
        src = self.src
        self.checks = src.checks
        num_warps = src.attributes.get("tile.num_warps")
        if num_warps is not None and (not isinstance(num_warps, IntegerAttr) or not 1 <= num_warps.value.data <= 32):
            raise error_at(src, f"tile.num_warps must be an integer in [1, 32] (at most 1024 threads per CTA), got {num_warps}")
        self.threads = default_threads(self._max_tile(), num_warps.value.data if isinstance(num_warps, IntegerAttr) else None)
        self._plan_scratch()
        for analysis in LAYOUT_ANALYSES:
            analysis(self)
        infos = src.attributes.get("tile.arg_info")
        info_list = list(infos.data) if isinstance(infos, ArrayAttr) else []
        written = self._written_params()
        in_types: list[Attribute] = []
        arg_attrs: list[DictionaryAttr] = []
        self.arg_start = []
        for t in src.function_type.inputs:
            self.arg_start.append(len(in_types))
            if isinstance(t, tile.TensorViewType) and not t.contiguous:
                # a strided view: its memory as a 1-D memref (pointer, span), then the extents and the
                # dynamic strides as i64 parameters (the kernel ABI of a strided tensor)
                in_types.append(MemRefType(signless(t.element_type), [builtin.DYNAMIC_INDEX], memory_space=GLOBAL))
                in_types += [i64] * (t.rank + sum(1 for st in t.stride_values if st == builtin.DYNAMIC_INDEX))
            elif isinstance(t, tile.TensorViewType):
                in_types.append(MemRefType(signless(t.element_type), [builtin.DYNAMIC_INDEX] * t.rank, memory_space=GLOBAL))
            else:
                in_types.append(convert_type(t))  # scalars; a TMA descriptor (tile-tma-ring) as !nvgpu.tensormap.descriptor
        entry_src = src.body.blocks.first
        assert entry_src is not None
        for i, (t, arg) in enumerate(zip(src.function_type.inputs, entry_src.args)):
            if isinstance(t, tile.TensorViewType):
                flags = {"llvm.noalias": UnitAttr()}
                if arg not in written:
                    flags["llvm.readonly"] = UnitAttr()
                arg_attrs.append(DictionaryAttr(flags))
                end = self.arg_start[i + 1] if i + 1 < len(self.arg_start) else len(in_types)
                arg_attrs += [DictionaryAttr({})] * (end - self.arg_start[i] - 1)  # a strided view's i64s
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
                        types += [signless(a.type.element_type)] * self.layout_of(a, self.src).slots
                    else:
                        types.append(signless(a.type))
                new = Block(arg_types=types)
            region.add_block(new)
            self.blocks[block] = new
            args = iter(new.args)
            for a in block.args:
                if isinstance(a.type, tile.TileType):
                    layout = self.layout_of(a, self.src)
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
            for ref in self.scratch_refs.get(typ, []):  # a conversion needed more than planned: the final size
                if ref.memref.type != MemRefType(typ, [size], memory_space=SHARED):
                    new_ref = memref.GetGlobalOp(name, MemRefType(typ, [size], memory_space=SHARED))
                    ref.parent_block().insert_op_before(new_ref, ref)  # pyright: ignore[reportOptionalMemberAccess]
                    ref.memref.replace_all_uses_with(new_ref.memref)
                    ref.detach()
                    ref.erase()
            shared += size * _bytes(typ)
            g = memref.GlobalOp.get(StringAttr(name), MemRefType(typ, [size], memory_space=SHARED), builtin.UnitAttr(), alignment=16)
            g.location = src.location
            self.module.gpu_module.body.block.add_op(g)
        out.attributes["tile.shared_bytes"] = IntegerAttr(shared, i64)
        min_blocks = src.attributes.get("min_blocks_per_sm")
        if isinstance(min_blocks, IntegerAttr):
            out.attributes["nvvm.minctasm"] = min_blocks  # as kernel-to-gpu: PTX .minnctapersm
        if self.dynamic_shared:
            out.attributes["tile.dynamic_shared_bytes"] = IntegerAttr(self.dynamic_shared, i64)
        if "tile.tma_params" in src.attributes:  # the tensor each TMA descriptor parameter describes (tile-tma-ring)
            out.attributes["tile.tma_params"] = src.attributes["tile.tma_params"]
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

        from warpforge.passes.tile_to_gpu.conversions import conversion_scratch

        for op in self.src.walk():
            if isinstance(op, tile.ConvertLayoutOp):
                st, dt = op.input.type, op.result.type
                assert isinstance(st, tile.TileType)
                need(st.element_type, conversion_scratch(self.layout_of(st, op), self.layout_of(dt, op)))
            elif isinstance(op, tile.BroadcastOp | tile.PermuteOp | tile.TransposeOp | tile.ReshapeOp):
                st, dt = op.input.type, op.result.type
                assert isinstance(st, tile.TileType) and isinstance(dt, tile.TileType)
                if isinstance(op, tile.BroadcastOp) and st.numel == 1:
                    continue
                if isinstance(op, tile.BroadcastOp) and isinstance(self.layout_of(st, op), SliceLayout):
                    continue  # free back along the slice's dimension, else the scratch grows when lowered
                if isinstance(op, tile.ReshapeOp) and canonical_layout(st.dims, self.threads).same_placement(canonical_layout(dt.dims, self.threads)):
                    continue
                if isinstance(op, tile.PermuteOp | tile.TransposeOp) and _feeds_dot_only(op):
                    continue  # a tile.dot operand: read transposed from the dot's shared copy (lowerings/tile_dot.py)
                need(st.element_type, st.numel)
            elif isinstance(op, tile.ReduceOp):
                st = op.input.type
                assert isinstance(st, tile.TileType)
                rt = op.result.type
                assert isinstance(rt, tile.TileType)
                need(reduce_accumulator(op.kind.data, st.element_type), reduce_plan(st.dims, op.axis.data, self.threads, rt.dims, self.layout_of(rt, op)).scratch)
            elif type(op) in SCRATCH_PLANNERS:
                for typ, n in SCRATCH_PLANNERS[type(op)](self, op):
                    need(typ, n)

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
            new = entry.args[self.arg_start[i]]
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
            if not t.contiguous:
                self.values[old] = self._strided_view(e, t, entry, self.arg_start[i], old.name_hint, align, div, info)
                continue
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
            self.values[old] = View(new, dims, static, None, div, align, t.element_type, base_dims=dims)  # pyright: ignore[reportArgumentType]
        self.prologue_end = entry.last_op

    def _strided_view(self, e: Emitter, t: tile.TensorViewType, entry: Block, start: int, hint: str | None, align: int, div: tuple[int, ...], info: Attribute | None) -> View:
        """The `View` of a strided tensor-view parameter: the 1-D memref at `start`, then its extents and
        dynamic strides (i64 parameters)."""
        args = list(entry.args[start + 1 :])
        dims: list[SSAValue] = []
        for axis, extent in enumerate(t.dims):
            a = args.pop(0)
            a.name_hint = f"{hint}_dim{axis}" if hint else None
            dims.append(a if extent == builtin.DYNAMIC_INDEX else e.const(extent, i64))
        strides: list[SSAValue | None] = []
        for axis, st in enumerate(t.stride_values):
            if st == builtin.DYNAMIC_INDEX:
                a = args.pop(0)
                a.name_hint = f"{hint}_stride{axis}" if hint else None
                strides.append(a)
            else:
                strides.append(None if st == 1 else e.const(st, i64))
        static = tuple(None if d == builtin.DYNAMIC_INDEX else d for d in t.dims)
        div = tuple(_static_divisor(s) if s is not None else dv for s, dv in zip(static, div))
        sdiv: tuple[int, ...] = tuple(1 for _ in t.dims[:-1])
        if isinstance(info, DictionaryAttr):
            d = info.data.get("stride_divisibility")
            sdiv = tuple(d.get_values()) if isinstance(d, DenseArrayBase) else sdiv
        sdiv = tuple(_static_divisor(st) if st != builtin.DYNAMIC_INDEX else dv for st, dv in zip(t.stride_values[:-1], sdiv))
        memref_value = entry.args[start]
        span = [e(arith.IndexCastOp(e(memref.DimOp(memref_value, e.const(0, IndexType()))), i64))]
        return View(memref_value, dims, static, strides, div, align, t.element_type, base_dims=span, stride_divisible=sdiv)  # pyright: ignore[reportArgumentType]

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
        self.current = block
        handler = _TILE_LOWERINGS.get(type(op))
        if handler is not None:
            e = Emitter(block, op)
            result = handler(self, op, e)
            if isinstance(result, Dist) and isinstance(op.results[0].type, tile.TileType):
                result = self.convert(e, result, self.layout_of(op.results[0], op))  # the result's encoding (or hint)
            if op.results and result is not None:
                self.values[op.results[0]] = result
                if isinstance(result, SSAValue) and op.results[0].name_hint and not result.name_hint:
                    result.name_hint = op.results[0].name_hint
            return
        if isinstance(op, cf.BranchOp | cf.ConditionalBranchOp) and any(isinstance(self.values.get(v), Dist) for v in op.operands):
            self._branch(op, block)
            return
        if self.reporting is None:
            with self.registers_of(UNIFORM):  # a scalar op: the same value in every thread of the CTA
                super().lower(op, block)
            return
        super().lower(op, block)

    def _expand(self, e: Emitter, values: tuple[SSAValue, ...] | list[SSAValue], dest: Block) -> list[SSAValue]:
        out: list[SSAValue] = []
        for v, arg in zip(values, dest.args):
            lowered = self.values[v]
            if isinstance(lowered, Dist):
                out += self.convert(e, lowered, self.layout_of(arg, e.source)).regs
            else:
                assert isinstance(lowered, SSAValue)
                out.append(lowered)
        return out

    def _branch(self, op: Operation, block: Block) -> None:
        e = Emitter(block, op)
        if isinstance(op, cf.BranchOp):
            e(cf.BranchOp(self.blocks[op.successor], *self._expand(e, op.arguments, op.successor)))
            return
        assert isinstance(op, cf.ConditionalBranchOp)
        then_args = self._expand(e, op.then_arguments, op.then_block)
        else_args = self._expand(e, op.else_arguments, op.else_block)
        e(cf.ConditionalBranchOp(self.v(op.cond), self.blocks[op.then_block], then_args, self.blocks[op.else_block], else_args))

    def layout_of(self, t: Attribute | SSAValue, at: Operation | None = None) -> Layout | SliceLayout:
        """The register layout of tile type `t` (`layouts.layout_of`); a located error at `at` when it
        has an encoding tile-to-gpu cannot hold in registers or one for another CTA size. For a value:
        its `layout_hints` entry (a `LAYOUT_ANALYSES` choice, e.g. `tile.dot`'s MMA accumulator
        layout) first, else its type's."""
        if isinstance(t, SSAValue):
            hint = self.layout_hints.get(t)
            if hint is not None:
                return hint  # pyright: ignore[reportReturnType]
            t = t.type
        at = at if at is not None else self.src
        try:
            return layout_of(t, self.threads)
        except ValueError as err:
            raise error_at(at, f"tile-to-gpu: {err}") from None

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

    # ------------------------------------------------------------------ checked errors, one per element

    @contextmanager
    def registers_of(self, layout: object) -> Iterator[None]:
        """Within: the scalar ops being lowered compute registers of `layout`, so a checked error they
        find is recorded by the one thread that writes the element (`is_writer`), not by its replicas."""
        saved, self.reporting = self.reporting, layout
        try:
            yield
        finally:
            self.reporting = saved

    def report(self, emit: Emitter, site: ErrorSite, a: SSAValue, b: SSAValue) -> None:
        """`FunctionLowering.report`, by one thread per failing element: a thread holding a replica of
        the element (a tile smaller than the CTA, a slice's broadcast rows, an MMA layout's copies) does
        not record, nor does any thread but 0 for a scalar op (the whole CTA computes it); the record's
        count is then the number of distinct failing elements (per CTA for scalars)."""
        if self.reporting is None:
            guard = None
        elif self.reporting is UNIFORM:
            guard = self.is_first_thread()
        else:
            guard = self.is_writer(self.reporting)  # pyright: ignore[reportArgumentType]
        if self.reporting_inside is not None:
            inside = self.reporting_inside
            guard = inside if guard is None else emit(arith.AndIOp(guard, inside))
        self.when(emit, guard, lambda e: FunctionLowering.report(self, e, site, a, b))

    def is_first_thread(self) -> SSAValue:
        """i1: this is thread 0 of the CTA."""
        tid = self.tid
        assert tid is not None
        return self.at_entry(("thread0",), lambda e: e(arith.CmpiOp(tid, e.const(0, i64), "eq")))

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
        if not isinstance(layout, Layout):  # another layout family (tile.dot's MMA layout) says itself
            return layout.first_replica(self)  # pyright: ignore[reportAttributeAccessIssue]
        if layout.replicas == 1:
            return None
        tid = self.tid
        assert tid is not None
        mask = layout.replicas - 1

        def build(e: Emitter) -> SSAValue:
            low = e(arith.AndIOp(tid, e.const(mask, i64)))
            return e(arith.CmpiOp(low, e.const(0, i64), "eq"))

        return self.at_entry(("first", layout.replicas), build)

    def element(self, e: Emitter, layout: Layout | SliceLayout, k: int) -> SSAValue:
        """The row-major element index (i64) this thread holds in register `k` of `layout`."""
        if not isinstance(layout, Layout | SliceLayout):  # another family (tile.dot's MMA layout): chunks of vec
            r, v = divmod(k, layout.vec)
            return layout.flat_index(self, e, r, v)
        if isinstance(layout, Layout):
            r, v = divmod(k, layout.vec)
            return self.flat(e, layout, r, v)
        r, v = layout.registers[k]
        f = self.flat(e, layout.parent, r, v)
        low, span = layout.low, layout.low * layout.extent
        if span == 1:
            return f
        high = e(arith.ShLIOp(e(arith.ShRUIOp(f, e.const(_log2(span), i64))), e.const(_log2(low), i64))) if low > 1 else e(arith.ShRUIOp(f, e.const(_log2(span), i64)))
        if low == 1:
            return high
        return e(arith.OrIOp(high, e(arith.AndIOp(f, e.const(low - 1, i64)))))

    def is_writer(self, layout: Layout | SliceLayout) -> SSAValue | None:
        """i1: this thread writes its registers of `layout` when the tile goes to shared memory: the
        first replica (blocked), and for a slice also the first of the threads holding its rows
        (its owner adds nothing to the reduced coordinate). None when every thread writes."""
        if not isinstance(layout, Layout | SliceLayout):
            return layout.first_replica(self)
        if isinstance(layout, Layout):
            return self.is_first_replica(layout)
        p = layout.parent
        first = self.is_first_replica(p)
        # the owner's own bits of the reduced coordinate: ((owner * vec) / low) mod extent
        lo = _log2(layout.low)
        owner_bits = [b + _log2(p.vec) for b in range(_log2(p.owners))]
        hit = [b for b in owner_bits if lo <= b < lo + _log2(layout.extent)]
        if not hit:
            return first
        mask = sum(1 << (b - _log2(p.vec)) for b in hit)
        owner = self.owner(p)

        def build(e: Emitter) -> SSAValue:
            zero = e(arith.CmpiOp(e(arith.AndIOp(owner, e.const(mask, i64))), e.const(0, i64), "eq"))
            return zero if first is None else e(arith.AndIOp(zero, first))

        return self.at_entry(("slice-writer", p.vec, p.owners, p.replicas, layout.low, layout.extent), build)

    def flat(self, e: Emitter, layout: Layout, r: int, v: int = 0) -> SSAValue:
        """The row-major element index of register (r, v) of this thread, i64."""
        if not isinstance(layout, Layout):
            return layout.flat_index(self, e, r, v)  # pyright: ignore[reportAttributeAccessIssue]
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
        """`d` in the canonical blocked layout of its shape (what memory and shape lowerings read)."""
        target = canonical_layout(d.layout.shape, self.threads)
        return self.relayout(e, d, target, lambda e2, f: f, identity=True)

    def convert(self, e: Emitter, d: Dist, target: Layout | SliceLayout) -> Dist:
        """`d` in `target` (the same shape): free where the placements agree, else through shared memory
        (`tile.convert_layout`); a splat (every register one value) is free in any layout."""
        if d.layout != target and d.regs and all(r is d.regs[0] for r in d.regs):
            return Dist(target, [d.regs[0]] * target.slots, d.elem)
        return self.relayout(e, d, target, lambda e2, f: f, identity=True)

    to_layout = convert

    def fresh_region(self, e: Emitter, typ: Attribute, need: int) -> tuple[SSAValue, int] | None:
        """The scratch buffer of `typ` and an offset where `need` elements no thread has touched yet:
        while lowering the entry block (it runs once, first), small uses — a reduction's warp
        partials — stack after each other up to `REGION_BYTES` instead of reusing offset 0 behind a
        write-after-read barrier. None where that does not apply (use offset 0 and `war_barrier`)."""
        t = signless(typ)
        if self.current is not self.entry or e.block is not self.entry:
            return None
        offset = self.touched.get(t, 0)
        if offset and (offset + need) * _bytes(t) > REGION_BYTES:
            return None
        buf = self.scratch(typ, offset + need)
        self.fresh_scratch.discard(t)
        self.touched[t] = offset + need
        return buf, offset

    def scratch(self, typ: Attribute, need: int) -> SSAValue:
        t = signless(typ)
        self.touched[t] = max(self.touched.get(t, 0), need)
        size = self.scratch_sizes.get(t, 0)
        if need > size:  # a layout conversion the plan did not foresee: run() gives the buffer its final size
            size = self.scratch_sizes[t] = need
        if t not in self.scratch_used and self.current is self.entry:
            self.fresh_scratch.add(t)
        else:
            self.fresh_scratch.discard(t)
        name = self.scratch_used.setdefault(t, f"__tile_smem_{self.src.sym_name.data}_{t}")
        mtype = MemRefType(t, [size], memory_space=SHARED)

        def get(e: Emitter) -> SSAValue:
            ref = memref.GetGlobalOp(name, mtype)
            self.scratch_refs.setdefault(t, []).append(ref)
            return e(ref)

        return self.at_entry(("smem", t), get)

    def war_barrier(self, e: Emitter, typ: Attribute) -> None:
        """The barrier before writing the scratch buffer of `typ` (earlier readers are done), called right
        after `scratch`: left out for the buffer's first use when that is in the entry block, which runs
        once and first, so no thread can have read the buffer yet."""
        t = signless(typ)
        if t in self.fresh_scratch and e.block is self.entry:
            self.fresh_scratch.discard(t)
            return
        self.fresh_scratch.discard(t)
        e(gpu.BarrierOp())

    def write_shared(self, e: Emitter, d: Dist, buf: SSAValue) -> None:
        """barrier (`war_barrier`); the first replica of every owner writes its registers at their
        row-major index; barrier."""
        self.war_barrier(e, d.elem)

        def body(b: Emitter) -> None:
            for k in range(d.layout.slots):
                idx = b(arith.IndexCastOp(self.element(b, d.layout, k), IndexType()))
                b(memref.StoreOp.get(d.regs[k], buf, [idx]))

        self.when(e, self.is_writer(d.layout), body)
        e(gpu.BarrierOp())

    def relayout(self, e: Emitter, d: Dist, target: Layout | SliceLayout, source_index: Callable[[Emitter, SSAValue], SSAValue], identity: bool = False) -> Dist:
        """`d` in `target` (another shape is allowed): target element f is source element
        `source_index(f)` (`identity`: f itself). Registers stay when the placement is the same and
        the map the identity; one scalar is replicated; anything else goes through shared memory."""
        if identity and (d.layout == target or (isinstance(d.layout, Layout) and isinstance(target, Layout) and d.layout.same_placement(target))):
            return Dist(target, d.regs, d.elem)
        if d.layout.uniform:
            return Dist(target, [d.regs[0]] * target.slots, d.elem)
        buf = self.scratch(d.elem, d.layout.numel)
        self.write_shared(e, d, buf)
        regs = []
        for k in range(target.slots):
            f = source_index(e, self.element(e, target, k))
            regs.append(e(memref.LoadOp.get(buf, [e(arith.IndexCastOp(f, IndexType()))])))
        return Dist(target, regs, d.elem)


SCRATCH_PLANNERS: dict[type[Operation], Callable[[_TileFunctionLowering, Operation], list[tuple[Attribute, int]]]] = {}
"""Per op class (lowerings outside this module register here): the shared scratch (element type,
elements) the op's lowering needs, for `_plan_scratch`."""
LAYOUT_ANALYSES: list[Callable[[_TileFunctionLowering], None]] = []
"""Run before a kernel is lowered; each may set `layout_hints` (and plan the scratch it implies)."""

STATIC_SHARED_BYTES = 48 * 1024
"""Static shared memory of a CTA (CUDA C Programming Guide, "Compute Capabilities": 48 KiB; more only as dynamic)."""


def _feeds_dot_only(op: Operation) -> bool:
    from warpforge.dialects.tile_dot import DotOp

    uses = list(op.results[0].uses)
    return op.results[0].type.rank == 2 and len(uses) == 1 and isinstance(uses[0].operation, DotOp) and uses[0].index < 2  # pyright: ignore[reportAttributeAccessIssue]


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
