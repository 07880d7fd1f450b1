"""`kernel-to-gpu`: the `kernel` dialect (Python semantics) → the `gpu` level (gpu, arith, math, scf,
cf, memref, func), making every policy of DESIGN.md explicit in upstream ops.

Runs after `lower-kernel-control-flow` (bodies are CFGs of flat `kernel` ops). Each `kernel.func`
marked `kernel` becomes a `gpu.func … kernel` inside one `gpu.module` carrying
`#nvvm.target<chip, features>` (pass options `chip`, `features`, `module`):

- types lose their signedness (`si32` → `i32`); it moves into the ops (`divsi`/`divui`,
  `extsi`/`extui`, `sitofp`/`uitofp`, `cmpi slt`/`ult`);
- `!kernel.slice<T>` → `memref<?xT, 1 : i32>` with `{llvm.noalias, llvm.readonly}` (→ `ld.global.nc`),
  `!kernel.disjoint_slice<T>` → `memref<?xT, 1 : i32>` with `{llvm.noalias}` (the runtime refuses
  overlapping outputs, so `noalias` holds); checked kernels get a hidden last parameter, the error
  record `memref<8xi64, 1 : i32>`;
- a checked read is `scf.if (i ult len) { memref.load } else { func.call @__wf_report_error; 0 }`: the
  first error is recorded (site id, the two operands, block and thread ids) and the thread goes on;
  `kernel.func` gets `kernel.error_sites`, the table the runtime uses to name the source line;
- integer `//` and `%` round toward −∞; a zero divisor is a checked error with result 0 (and
  `INT_MIN // -1` wraps), so `divsi`/`remsi` never see a divisor that is undefined behaviour;
- shifts by ≥ the width give 0 (or the sign fill), float→int conversion saturates (`arith.fptosi`
  is lowered saturating by `convert-arith-to-llvm`), `max`/`min` propagate NaN (`maximumf`);
- `kernel.store` through a `!kernel.thread_index` writes only when the index is in range (and, for
  `index_2d`, `0 ≤ col < ncols` and no wrap of `row·ncols + col`, which keeps the index unique); through a `!kernel.block_index` only from
  the block's thread (0, 0, 0); to a `raw_slice` at any index, checked;
- shared arrays → `memref.global` in address space 3 + `memref.get_global` (one per
  `kernel.shared_array`), the dynamic shared memory → `gpu.dynamic_shared_memory` + `memref.view`,
  local arrays → `memref.alloca` (zero-filled); every access checked per dimension;
- barriers, fences and warp collectives → their `gpu` ops (`gpu.barrier`, `gpu.barrier_reduce`,
  `gpu.thread_fence`, `gpu.warp_sync`, `gpu.shuffle`, `gpu.subgroup_reduce`, `gpu.vote`,
  `gpu.ballot`, `gpu.active_mask`, `gpu.match_any`), values narrower than 32 bits shuffled as i32;
- atomics → `memref.atomic_rmw` (sub adds the negation; float min/max are `minimumf`/`maximumf`)
  or `gpu.atomic_cmpxchg`, carrying `syncscope` and `ordering`, checked like a read;
- owned views (`kernel.view_load/store`) → the address their ownership rule gives, guarded;
- `kernel.print` (Python format fields) → `gpu.printf` (C conversions; integers below 32 bits
  promoted by their signedness, floats to f64, bools `%s` True/False: `build_printf`);
- a `fastmath` kernel: `afn arcp contract` on every float op and f32 denormals flushed; a kernel whose
  `fastmath` is `#arith.fastmath<…>`: exactly those flags, denormals kept.

The error-record layout (8 × i64) is `[count, site, operand a, operand b, ctaid.x, ctaid.y, tid.x, tid.y]`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import product
from math import prod

from xdsl.context import Context
from xdsl.dialects import arith, builtin, cf, func, math, memref, scf
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
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from warpforge.dialects.arith import AtomicRMWKind
from warpforge.diagnostics import error_at
from warpforge.dialects import gpu, kernel, kernel_hopper, nvgpu_hopper
from warpforge.dialects.math_catalog import BUILTINS, CeilDivOp
from warpforge.dialects.element_types import bit_width, byte_size, kind_letter, signless  # noqa: F401 (signless, byte_size: used by tile-to-gpu too)
from warpforge.dialects.nvvm import NVVMTargetAttr
from warpforge.rewriting import inherit_location, integer_attr

GLOBAL = IntegerAttr(1, i32)
"""Address space of global memory (PTX `.global`) as a memref memory space."""

ERROR_RECORD_TYPE = MemRefType(i64, [8], memory_space=GLOBAL)
REPORT_ERROR = "__wf_report_error"


def convert_type(t: Attribute) -> Attribute:
    """A `kernel` type at the gpu level."""
    if isinstance(t, kernel.SliceType | kernel.DisjointSliceType | kernel.AtomicSliceType | kernel.RawSliceType):
        return MemRefType(signless(t.element_type), [builtin.DYNAMIC_INDEX], memory_space=GLOBAL)
    if isinstance(t, kernel._ArrayType):  # pyright: ignore[reportPrivateUsage]
        return array_memref_type(t)
    if isinstance(t, kernel_hopper.TensorMapType):  # a TMA descriptor parameter
        return nvgpu_hopper.TensorMapDescriptorType(t.dims, signless(t.element_type), t.swizzle.data)
    return signless(t)


@dataclass(frozen=True)
class ErrorSite:
    """One checked site: what went wrong, where, and what `source` text said."""

    kind: str
    text: str
    filename: str
    line: int
    col: int
    operands: tuple[str, str] = ("index", "length")

    def as_attr(self) -> DictionaryAttr:
        return DictionaryAttr(
            {
                "kind": StringAttr(self.kind),
                "text": StringAttr(self.text),
                "file": StringAttr(self.filename),
                "line": IntegerAttr(self.line, i64),
                "col": IntegerAttr(self.col, i64),
                "operands": ArrayAttr([StringAttr(o) for o in self.operands]),
            }
        )


def _site_location(op: Operation) -> tuple[str, int, int]:
    loc = op.location
    if isinstance(loc, builtin.FileLineColLoc):
        line, col = loc.line.data, loc.column.data
        if not (0 <= line < 2**31 and 0 <= col < 2**31):  # hand-written IR: no source has such a line
            return loc.filename.data, 0, 0
        return loc.filename.data, line, col
    return "<unknown>", 0, 0


@dataclass
class _LoweredIndex:
    """A `!kernel.thread_index` at the gpu level: its linear i64 value, and for `index_2d` the row,
    the column and the uniqueness condition `col < ncols`."""

    linear: SSAValue
    row: SSAValue | None = None
    col: SSAValue | None = None
    valid: SSAValue | None = None
    plane: SSAValue | None = None
    block: bool = False
    """A `!kernel.block_index`: writes through it are made by the block's first thread only."""


class Emitter:
    """Appends ops at the end of a block, each taking the location of the op being lowered.

    `emit(op)` adds `op` and returns its first result (None for an op without results);
    `emit.const(value, type)` adds an `arith.constant`. Shared with `tile-to-gpu`."""

    def __init__(self, block: Block, source: Operation):
        self.block, self.source = block, source

    def __call__(self, op: Operation) -> SSAValue:
        inherit_location([op], self.source)
        self.block.add_op(op)
        return op.results[0] if op.results else None  # pyright: ignore[reportReturnType]

    def const(self, value: int | float | bool, typ: Attribute) -> SSAValue:
        if isinstance(typ, AnyFloat):
            return self(arith.ConstantOp(FloatAttr(float(value), typ)))
        if isinstance(typ, IndexType):
            return self(arith.ConstantOp(integer_attr(int(value), IndexType())))
        assert isinstance(typ, IntegerType)
        width = typ.width.data
        v = int(value) & ((1 << width) - 1)
        if width > 1 and v >= 1 << (width - 1):
            v -= 1 << width  # two's complement, as signless constants print
        return self(arith.ConstantOp(integer_attr(v if width > 1 else int(bool(value)), typ)))


DIVISIBILITY = 16
"""What the launch-time specialization assumes of integer scalar arguments (a multiple of 16, as
Triton's `tt.divisibility`), marked `warpforge.divisibility` for `vectorize-global-access`."""


@dataclass
class FunctionLowering:
    """Lowers one `kernel.func` into a `gpu.func`, op by op, through a value map.

    `tile-to-gpu` subclasses it for tile kernels, so scalar `kernel` ops lower the same way in both."""

    src: kernel.FuncOp
    module: ModuleLowering
    values: dict[SSAValue, SSAValue | _LoweredIndex] = field(default_factory=dict[SSAValue, "SSAValue | _LoweredIndex"])
    blocks: dict[Block, Block] = field(default_factory=dict[Block, Block])
    sites: list[ErrorSite] = field(default_factory=list[ErrorSite])
    record: SSAValue | None = None
    checks: bool = True

    def run(self) -> gpu.FuncOp:
        src = self.src
        self.checks = src.checks
        in_types = [convert_type(t) for t in src.function_type.inputs]
        arg_attrs: list[DictionaryAttr] = []
        # the launch-time specialization's promise (vectorize-global-access): slice pointers (read-only
        # and written, atomic ones aside) so aligned,
        # 32/64-bit integer scalars multiples of DIVISIBILITY (the pass drops what it does not use)
        align = src.attributes.get("kernel.assume_align")
        for t in src.function_type.inputs:
            if isinstance(t, kernel.SliceType):
                flags: dict[str, Attribute] = {"llvm.noalias": UnitAttr(), "llvm.readonly": UnitAttr()}
                if isinstance(align, IntegerAttr):
                    flags["llvm.align"] = IntegerAttr(align.value.data, i64)
                arg_attrs.append(DictionaryAttr(flags))
            elif isinstance(t, kernel.DisjointSliceType | kernel.AtomicSliceType | kernel.RawSliceType):
                # the runtime refuses a writable argument overlapping any other: noalias holds
                out: dict[str, Attribute] = {"llvm.noalias": UnitAttr()}
                if isinstance(align, IntegerAttr) and not isinstance(t, kernel.AtomicSliceType):  # vector stores
                    out["llvm.align"] = IntegerAttr(align.value.data, i64)
                arg_attrs.append(DictionaryAttr(out))
            elif isinstance(align, IntegerAttr) and isinstance(lowered := convert_type(t), IntegerType) and lowered.width.data in (32, 64):
                arg_attrs.append(DictionaryAttr({"warpforge.divisibility": IntegerAttr(DIVISIBILITY, i64)}))
            else:
                arg_attrs.append(DictionaryAttr({}))
        if self.checks:
            in_types.append(ERROR_RECORD_TYPE)
            arg_attrs.append(DictionaryAttr({"llvm.noalias": UnitAttr()}))
        ftype = FunctionType.from_lists(in_types, [])
        region = Region()
        for i, block in enumerate(src.body.blocks):
            new = Block(arg_types=in_types if i == 0 else [convert_type(a.type) for a in block.args])
            for old_arg, new_arg in zip(block.args, new.args):
                new_arg.name_hint = old_arg.name_hint
                self.values[old_arg] = new_arg
            region.add_block(new)
            self.blocks[block] = new
        if self.checks:
            self.record = region.blocks.first.args[-1]  # pyright: ignore[reportOptionalMemberAccess]
            self.record.name_hint = "err"
        for block in src.body.blocks:
            for op in block.ops:
                self.lower(op, self.blocks[block])
        block_size = src.attributes.get("contract_block")
        out = gpu.FuncOp(
            src.sym_name.data,
            ftype,
            region,
            kernel=True,
            known_block_size=block_size.get_values() if isinstance(block_size, DenseArrayBase) else None,
            arg_attrs=arg_attrs,
        )
        if "fastmath" in src.attributes:
            selected = src.attributes["fastmath"]
            apply_fastmath(out, selected if isinstance(selected, arith.FastMathFlagsAttr) else None)
        min_blocks = src.attributes.get("min_blocks_per_sm")
        if isinstance(min_blocks, IntegerAttr):
            out.attributes["nvvm.minctasm"] = min_blocks
        bounds = src.attributes.get("launch_bounds")
        if isinstance(bounds, IntegerAttr):
            out.attributes["nvvm.maxntid"] = DenseArrayBase.from_list(i32, [bounds.value.data, 1, 1])
        if self.sites:
            out.attributes["kernel.error_sites"] = ArrayAttr([s.as_attr() for s in self.sites])
        if "kernel.checks_hold_at_launch" in src.attributes:  # for hoist-checks (launch-time specialization)
            out.attributes["kernel.checks_hold_at_launch"] = UnitAttr()
        out.location = src.location
        return out

    # ------------------------------------------------------------------ values

    def v(self, value: SSAValue) -> SSAValue:
        lowered = self.values.get(value)
        if lowered is None:
            raise DiagnosticException(f"kernel-to-gpu: a value is used before it is defined ({value.name_hint or value})")
        assert isinstance(lowered, SSAValue)
        return lowered

    def idx(self, value: SSAValue) -> _LoweredIndex:
        lowered = self.values.get(value)
        if not isinstance(lowered, _LoweredIndex):
            raise DiagnosticException("kernel-to-gpu: a !kernel.thread_index must come straight from kernel.index_1d/index_2d")
        return lowered

    def lower(self, op: Operation, block: Block) -> None:
        handler = _LOWERINGS.get(type(op))
        emit = Emitter(block, op)
        if handler is not None:
            result = handler(self, op, emit)
            if op.results and result is not None:
                self.values[op.results[0]] = result
                if isinstance(result, SSAValue) and op.results[0].name_hint:
                    result.name_hint = op.results[0].name_hint
            return
        if op.dialect_name() == "math":
            clone = op.clone(value_mapper={o: self.v(o) for o in op.operands})
            self.values[op.results[0]] = emit(clone)
            return
        if op.dialect_name() == "nvvm" and not op.operands and not op.results:  # fences, setmaxnreg, wgmma groups
            emit(op.clone())
            return
        raise error_at(op, "has no lowering in kernel-to-gpu")

    # ------------------------------------------------------------------ helpers

    def to_i64(self, emit: Emitter, value: SSAValue, src_type: Attribute) -> SSAValue:
        """An integer of `src_type` (signed or unsigned) as i64, by value."""
        assert isinstance(src_type, IntegerType)
        width = src_type.width.data
        if width == 64:
            return value
        if kernel.is_signed(src_type):
            return emit(arith.ExtSIOp(value, i64))
        return emit(arith.ExtUIOp(value, i64))

    def report(self, emit: Emitter, site: ErrorSite, a: SSAValue, b: SSAValue) -> None:
        """Call the error reporter (checked mode): record site id and the two operands."""
        assert self.record is not None
        self.sites.append(site)
        site_id = emit.const(len(self.sites), i64)
        self.module.need_reporter()
        emit(func.CallOp(REPORT_ERROR, [self.record, site_id, a, b], []))

    def guarded(
        self,
        emit: Emitter,
        cond: SSAValue,
        then: Callable[[Emitter], SSAValue | None],
        otherwise: Callable[[Emitter], SSAValue | None],
        result_type: Attribute | None,
    ) -> SSAValue | None:
        """`scf.if cond { then } else { otherwise }`, each side a straight-line block."""
        then_block, else_block = Block(), Block()
        t = then(Emitter(then_block, emit.source))
        e = otherwise(Emitter(else_block, emit.source))
        for blk, val in ((then_block, t), (else_block, e)):
            Emitter(blk, emit.source)(scf.YieldOp(*([val] if result_type is not None and val is not None else [])))
        return emit(scf.IfOp(cond, [result_type] if result_type is not None else [], Region(then_block), Region(else_block)))

    def zero_of(self, emit: Emitter, typ: Attribute) -> SSAValue:
        return emit.const(0, typ)


def _where(op: Operation) -> str:
    f, line, col = _site_location(op)
    return f"{f}:{line}:{col}"


FASTMATH_FLAGS = ("afn", "arcp", "contract")
"""What `@simt.kernel(fastmath=True)` allows on float ops: approximate functions (`__nv_fast_*`,
`sqrt.approx`), reciprocal division (`div.approx`), and contraction into fma — CUDA's
`--use_fast_math`. Not `nnan`/`ninf`: NaN and infinity keep their meaning (`math.isnan` still works)."""

DENORMAL_ATTR = "llvm.denormal_fp_math_f32"
"""`gpu.func`/`llvm.func` attribute: `"preserve-sign"` flushes f32 denormals (`.ftz`), as fast math does."""


def apply_fastmath(func: gpu.FuncOp, selected: arith.FastMathFlagsAttr | None = None) -> None:
    """Put `FASTMATH_FLAGS` on every float `arith`/`math` op of `func` and flush f32 denormals — or,
    for a kernel whose `fastmath` attribute selects flags (`#arith.fastmath<arcp, nnan>`), exactly
    those flags, without flushing."""
    flags = selected if selected is not None else arith.FastMathFlagsAttr([arith.FastMathFlag(f) for f in FASTMATH_FLAGS])
    for op in func.walk():
        if op.dialect_name() not in ("arith", "math"):
            continue
        if "fastmath" not in type(op).get_irdl_definition().properties:  # pyright: ignore[reportAttributeAccessIssue]
            continue
        if any(isinstance(r.type, AnyFloat) for r in (*op.results, *op.operands)):
            op.properties["fastmath"] = flags
    if selected is None:
        func.attributes[DENORMAL_ATTR] = StringAttr("preserve-sign")


# --------------------------------------------------------------------------- op lowerings

_LOWERINGS: dict[type[Operation], Callable[[FunctionLowering, Operation, Emitter], SSAValue | _LoweredIndex | None]] = {}


def lowers(*ops: type[Operation]):
    def register(fn: Callable[[FunctionLowering, Operation, Emitter], SSAValue | _LoweredIndex | None]):
        for op in ops:
            _LOWERINGS[op] = fn
        return fn

    return register


_kind = kind_letter


@lowers(kernel.ConstantOp)
def _constant(fl: FunctionLowering, op: Operation, emit: Emitter) -> SSAValue:
    assert isinstance(op, kernel.ConstantOp)
    value = op.value
    if isinstance(value, FloatAttr):
        return emit.const(value.value.data, value.type)
    return emit.const(value.value.data, signless(value.type))


_BINARY: dict[type[Operation], dict[str, Callable[[SSAValue, SSAValue], Operation]]] = {
    kernel.AddOp: {"i": arith.AddiOp, "u": arith.AddiOp, "f": arith.AddfOp},
    kernel.SubOp: {"i": arith.SubiOp, "u": arith.SubiOp, "f": arith.SubfOp},
    kernel.MulOp: {"i": arith.MuliOp, "u": arith.MuliOp, "f": arith.MulfOp},
    kernel.TrueDivOp: {"f": arith.DivfOp},
    kernel.AndOp: {"b": arith.AndIOp, "i": arith.AndIOp, "u": arith.AndIOp},
    kernel.OrOp: {"b": arith.OrIOp, "i": arith.OrIOp, "u": arith.OrIOp},
    kernel.XorOp: {"b": arith.XOrIOp, "i": arith.XOrIOp, "u": arith.XOrIOp},
    kernel.MaxOp: {"b": arith.OrIOp, "i": arith.MaxSIOp, "u": arith.MaxUIOp, "f": arith.MaximumfOp},
    kernel.MinOp: {"b": arith.AndIOp, "i": arith.MinSIOp, "u": arith.MinUIOp, "f": arith.MinimumfOp},
    kernel.PowOp: {"f": math.PowFOp},
}
"""Binary ops that map to one upstream op per kind of operand type (b/i/u/f)."""


@lowers(*_BINARY)
def _binary(fl: FunctionLowering, op: Operation, emit: Emitter) -> SSAValue:
    lhs, rhs = op.operands
    make = _BINARY[type(op)][_kind(lhs.type)]
    return emit(make(fl.v(lhs), fl.v(rhs)))


def _constant_int(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _checked_divisor(fl: FunctionLowering, op: Operation, emit: Emitter, a: SSAValue, b: SSAValue, typ: Attribute) -> tuple[SSAValue, SSAValue | None]:
    """Returns (safe divisor, zero?) — `b` with 0 (and, for signed, −1) replaced by 1, so `divsi`/`remsi`
    are never undefined behaviour; reports a checked error when `b == 0`. A constant divisor other than
    0 and −1 needs none of this (zero? is then None)."""
    known = _constant_int(b)
    if known is not None and known not in (0, -1):
        return b, None
    zero = emit.const(0, typ)
    is_zero = emit(arith.CmpiOp(b, zero, "eq"))
    if fl.checks:
        fname, line, col = _site_location(op)
        text = op.attributes["text"].data if isinstance(op.attributes.get("text"), StringAttr) else ""  # pyright: ignore[reportAttributeAccessIssue]
        site = ErrorSite("integer division by zero", text, fname, line, col, ("dividend", "divisor"))

        def report(e: Emitter) -> None:
            fl.report(e, site, fl.to_i64(e, a, op.operands[0].type), fl.to_i64(e, b, op.operands[1].type))

        fl.guarded(emit, is_zero, lambda e: report(e), lambda e: None, None)  # pyright: ignore[reportArgumentType]
    one = emit.const(1, typ)
    unsafe = is_zero
    if kernel.is_signed(op.operands[0].type):
        minus_one = emit.const(-1, typ)
        unsafe = emit(arith.OrIOp(is_zero, emit(arith.CmpiOp(b, minus_one, "eq"))))
    return emit(arith.SelectOp(unsafe, one, b)), is_zero


@lowers(kernel.FloorDivOp, kernel.ModOp)
def _floordiv_mod(fl: FunctionLowering, op: Operation, emit: Emitter) -> SSAValue:
    lhs, rhs = op.operands
    typ = signless(lhs.type)
    a, b = fl.v(lhs), fl.v(rhs)
    kind = _kind(lhs.type)
    is_div = isinstance(op, kernel.FloorDivOp)
    if kind == "f":
        return _float_floordiv_mod(fl, emit, a, b, typ, is_div)
    safe_b, is_zero = _checked_divisor(fl, op, emit, a, b, typ)
    zero = emit.const(0, typ)
    if kind == "u":
        res = emit(arith.DivUIOp(a, safe_b) if is_div else arith.RemUIOp(a, safe_b))
        return res if is_zero is None else emit(arith.SelectOp(is_zero, zero, res))
    # signed: truncating division, then round toward −∞ (Python): q -= 1 when r != 0 and sign(r) != sign(b)
    q = emit(arith.DivSIOp(a, safe_b))
    r = emit(arith.RemSIOp(a, safe_b))
    r_nonzero = emit(arith.CmpiOp(r, zero, "ne"))
    signs_differ = emit(arith.CmpiOp(emit(arith.XOrIOp(r, safe_b)), zero, "slt"))
    adjust = emit(arith.AndIOp(r_nonzero, signs_differ))
    if is_div:
        res = emit(arith.SelectOp(adjust, emit(arith.SubiOp(q, emit.const(1, typ))), q))
    else:
        res = emit(arith.SelectOp(adjust, emit(arith.AddiOp(r, safe_b)), r))
    if is_zero is None:  # a constant divisor other than 0 and -1
        return res
    is_minus_one = emit(arith.CmpiOp(b, emit.const(-1, typ), "eq"))
    if is_div:
        neg_a = emit(arith.SubiOp(zero, a))  # a // -1 == -a, wrapping at INT_MIN (no sdiv overflow)
        res = emit(arith.SelectOp(is_minus_one, neg_a, res))
    else:
        res = emit(arith.SelectOp(is_minus_one, zero, res))
    return emit(arith.SelectOp(is_zero, zero, res))


@lowers(CeilDivOp)
def _ceildiv(fl: FunctionLowering, op: Operation, emit: Emitter) -> SSAValue:
    """⌈a / b⌉ = the truncating quotient, plus 1 where the remainder is non-zero and the exact quotient
    positive (the remainder has a's sign: same sign as b). Never `(a + b - 1) / b` (it overflows);
    division by zero as `//` (checked error, result 0), `a / -1` is `-a` (wrapping)."""
    lhs, rhs = op.operands
    typ = signless(lhs.type)
    a, b = fl.v(lhs), fl.v(rhs)
    safe_b, is_zero = _checked_divisor(fl, op, emit, a, b, typ)
    zero, one = emit.const(0, typ), emit.const(1, typ)
    if _kind(lhs.type) == "u":
        q = emit(arith.DivUIOp(a, safe_b))
        r_nonzero = emit(arith.CmpiOp(emit(arith.RemUIOp(a, safe_b)), zero, "ne"))
        res = emit(arith.SelectOp(r_nonzero, emit(arith.AddiOp(q, one)), q))
        return res if is_zero is None else emit(arith.SelectOp(is_zero, zero, res))
    q = emit(arith.DivSIOp(a, safe_b))
    r = emit(arith.RemSIOp(a, safe_b))
    r_nonzero = emit(arith.CmpiOp(r, zero, "ne"))
    same_sign = emit(arith.CmpiOp(emit(arith.XOrIOp(r, safe_b)), zero, "sge"))
    res = emit(arith.SelectOp(emit(arith.AndIOp(r_nonzero, same_sign)), emit(arith.AddiOp(q, one)), q))
    if is_zero is None:  # a constant divisor other than 0 and -1
        return res
    is_minus_one = emit(arith.CmpiOp(b, emit.const(-1, typ), "eq"))
    res = emit(arith.SelectOp(is_minus_one, emit(arith.SubiOp(zero, a)), res))
    return emit(arith.SelectOp(is_zero, zero, res))


_UPSTREAM: dict[type[Operation], type[Operation]] = {b.op: b.lowers_to for b in BUILTINS if b.lowers_to is not None}
"""`kernel` ops of the builtin catalog whose semantics are an upstream op's on signless operands
(`kernel.popc` → `math.ctpop`), from the records' `lowers_to`."""


@lowers(*_UPSTREAM)
def _upstream(fl: FunctionLowering, op: Operation, emit: Emitter) -> SSAValue:
    return emit(_UPSTREAM[type(op)](*(fl.v(o) for o in op.operands)))


def _float_floordiv_mod(fl: FunctionLowering, emit: Emitter, a: SSAValue, b: SSAValue, typ: Attribute, is_div: bool) -> SSAValue:
    """NumPy's float `divmod` (npy_divmod): mod = fmod(a, b) moved to b's sign; div = (a - mod) / b rounded.
    f16/bf16 compute in f32 (libdevice has fmod for f32 and f64 only) and round once at the end."""
    if typ in (builtin.f16, builtin.bf16):
        wide = _float_floordiv_mod(fl, emit, emit(arith.ExtFOp(a, builtin.f32)), emit(arith.ExtFOp(b, builtin.f32)), builtin.f32, is_div)
        return emit(arith.TruncFOp(wide, typ))
    mod = emit(func.CallOp(fl.module.libdevice("fmod", typ), [a, b], [typ]))
    zero = emit.const(0.0, typ)
    mod_nonzero = emit(arith.CmpfOp(mod, zero, "une"))
    b_neg = emit(arith.CmpfOp(b, zero, "olt"))
    mod_neg = emit(arith.CmpfOp(mod, zero, "olt"))
    fix = emit(arith.AndIOp(mod_nonzero, emit(arith.XOrIOp(b_neg, mod_neg))))
    if not is_div:
        moved = emit(arith.SelectOp(fix, emit(arith.AddfOp(mod, b)), mod))
        # a zero result takes the divisor's sign (Python: -0.0 % 3.0 == 0.0, 1.0 % -1.0 == -0.0)
        is_zero = emit(arith.CmpfOp(moved, zero, "oeq"))
        return emit(arith.SelectOp(is_zero, emit(math.CopySignOp(zero, b)), moved))
    div = emit(arith.DivfOp(emit(arith.SubfOp(a, mod)), b))
    div = emit(arith.SelectOp(fix, emit(arith.SubfOp(div, emit.const(1.0, typ))), div))
    floor = emit(math.FloorOp(div))
    half = emit.const(0.5, typ)
    up = emit(arith.CmpfOp(emit(arith.SubfOp(div, floor)), half, "ogt"))
    floor = emit(arith.SelectOp(up, emit(arith.AddfOp(floor, emit.const(1.0, typ))), floor))
    div_zero = emit(arith.CmpfOp(div, zero, "oeq"))
    signed_zero = emit(math.CopySignOp(zero, emit(arith.DivfOp(a, b))))
    res = emit(arith.SelectOp(div_zero, signed_zero, floor))
    # b == 0: NumPy gives a / b (±inf or NaN)
    b_zero = emit(arith.CmpfOp(b, zero, "oeq"))
    return emit(arith.SelectOp(b_zero, emit(arith.DivfOp(a, b)), res))


@lowers(kernel.FmodOp, kernel.HypotOp)
def _fmod(fl: FunctionLowering, op: Operation, emit: Emitter) -> SSAValue:
    """libdevice `fmod` / `hypot` (f16/bf16 through f32: fmod is exact, hypot rounds once more)."""
    name = "fmod" if isinstance(op, kernel.FmodOp) else "hypot"
    a, b = (fl.v(o) for o in op.operands)
    typ = signless(op.operands[0].type)
    if typ in (builtin.f32, builtin.f64):
        return emit(func.CallOp(fl.module.libdevice(name, typ), [a, b], [typ]))
    wide = [emit(arith.ExtFOp(x, builtin.f32)) for x in (a, b)]
    r = emit(func.CallOp(fl.module.libdevice(name, builtin.f32), wide, [builtin.f32]))
    return emit(arith.TruncFOp(r, typ))


@lowers(kernel.LShiftOp, kernel.RShiftOp)
def _shift(fl: FunctionLowering, op: Operation, emit: Emitter) -> SSAValue:
    lhs, rhs = op.operands
    typ = signless(lhs.type)
    assert isinstance(typ, IntegerType)
    a, raw = fl.v(lhs), fl.v(rhs)
    width = emit.const(typ.width.data, typ)
    # clamp the count first: LLVM's NVPTX backend folds `count ult width ? shl : 0` into PTX's clamping
    # `shl` of the count's low 32 bits, wrong for counts ≥ 2^32 (e.g. a negative i64 count); a count
    # clamped to ≤ width has no high bits
    count = emit(arith.MinUIOp(raw, width))  # a negative count is huge unsigned: clamped to the width
    in_range = emit(arith.CmpiOp(count, width, "ult"))
    safe = emit(arith.SelectOp(in_range, count, emit.const(0, typ)))
    zero = emit.const(0, typ)
    if isinstance(op, kernel.LShiftOp):
        return emit(arith.SelectOp(in_range, emit(arith.ShLIOp(a, safe)), zero))
    if kernel.is_signed(lhs.type):
        fill = emit(arith.ShRSIOp(a, emit.const(typ.width.data - 1, typ)))
        return emit(arith.SelectOp(in_range, emit(arith.ShRSIOp(a, safe)), fill))
    return emit(arith.SelectOp(in_range, emit(arith.ShRUIOp(a, safe)), zero))


_FLOAT_PREDICATES = {"eq": "oeq", "ne": "une", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge"}
_SIGNED_PREDICATES = {"eq": "eq", "ne": "ne", "lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge"}
_UNSIGNED_PREDICATES = {"eq": "eq", "ne": "ne", "lt": "ult", "le": "ule", "gt": "ugt", "ge": "uge"}


@lowers(kernel.CmpOp)
def _cmp(fl: FunctionLowering, op: Operation, emit: Emitter) -> SSAValue:
    assert isinstance(op, kernel.CmpOp)
    kind = _kind(op.lhs.type)
    a, b = fl.v(op.lhs), fl.v(op.rhs)
    pred = op.predicate.data
    if kind == "f":
        return emit(arith.CmpfOp(a, b, _FLOAT_PREDICATES[pred]))
    table = _SIGNED_PREDICATES if kind == "i" else _UNSIGNED_PREDICATES
    return emit(arith.CmpiOp(a, b, table[pred]))


@lowers(kernel.NegOp)
def _neg(fl: FunctionLowering, op: Operation, emit: Emitter) -> SSAValue:
    x = fl.v(op.operands[0])
    typ = signless(op.operands[0].type)
    if isinstance(typ, AnyFloat):
        return emit(arith.NegfOp(x))
    return emit(arith.SubiOp(emit.const(0, typ), x))


@lowers(kernel.InvertOp, kernel.NotOp)
def _invert(fl: FunctionLowering, op: Operation, emit: Emitter) -> SSAValue:
    x = fl.v(op.operands[0])
    return emit(arith.XOrIOp(x, emit.const(-1, signless(op.operands[0].type))))


@lowers(kernel.AbsOp)
def _abs(fl: FunctionLowering, op: Operation, emit: Emitter) -> SSAValue:
    x = fl.v(op.operands[0])
    t = op.operands[0].type
    kind = _kind(t)
    if kind == "f":
        return emit(math.AbsFOp(x))
    if kind == "u":
        return x
    typ = signless(t)
    zero = emit.const(0, typ)
    neg = emit(arith.CmpiOp(x, zero, "slt"))
    return emit(arith.SelectOp(neg, emit(arith.SubiOp(zero, x)), x))


@lowers(kernel.SelectOp)
def _select(fl: FunctionLowering, op: Operation, emit: Emitter) -> SSAValue:
    c, a, b = (fl.v(o) for o in op.operands)
    return emit(arith.SelectOp(c, a, b))


@lowers(kernel.CastOp)
def _cast(fl: FunctionLowering, op: Operation, emit: Emitter) -> SSAValue:
    assert isinstance(op, kernel.CastOp)
    return cast_value(emit, fl.v(op.operand), op.operand.type, op.result.type)


def cast_value(emit: Emitter, x: SSAValue, src: Attribute, dst: Attribute) -> SSAValue:
    """NumPy conversion semantics between kernel scalar types (see `kernel.cast`)."""
    if src == dst:
        return x
    sk, dk = _kind(src), _kind(dst)
    s, d = signless(src), signless(dst)
    if dk == "b":
        zero = emit.const(0, s)
        if sk == "f":
            return emit(arith.CmpfOp(x, zero, "une"))  # NaN is truthy, as in Python
        return emit(arith.CmpiOp(x, zero, "ne"))
    if sk == "f" and dk == "f":
        if s == d:
            return x
        if bit_width(s) < bit_width(d) or (bit_width(s) == bit_width(d)):
            # f16↔bf16 go through f32
            if bit_width(s) == bit_width(d):
                x = emit(arith.ExtFOp(x, builtin.f32))
                return emit(arith.TruncFOp(x, d))
            return emit(arith.ExtFOp(x, d))
        if d == builtin.bf16 and s == builtin.f64:  # as ml_dtypes: f64 → f32 → bf16 (two roundings)
            x = emit(arith.TruncFOp(x, builtin.f32))
        return emit(arith.TruncFOp(x, d))
    if sk == "f":  # float → int: truncate toward zero, saturating, NaN → 0 (lowered as llvm.fptosi.sat)
        return emit(arith.FPToSIOp(x, d) if dk == "i" else arith.FPToUIOp(x, d))
    if dk == "f":
        if d == builtin.bf16 and bit_width(s) > 8:
            # as ml_dtypes (NumPy's bf16): integer → f32 → bf16, two roundings (exact up to 2^24)
            wide = emit(arith.SIToFPOp(x, builtin.f32) if sk == "i" else arith.UIToFPOp(x, builtin.f32))
            return emit(arith.TruncFOp(wide, d))
        if sk == "i":
            return emit(arith.SIToFPOp(x, d))
        return emit(arith.UIToFPOp(x, d))  # unsigned and bool (0/1)
    # integer/bool → integer: wrap; extend by the source's signedness
    sw, dw = bit_width(s), bit_width(d)
    if sw == dw:
        return x
    if sw > dw:
        return emit(arith.TruncIOp(x, d))
    return emit(arith.ExtSIOp(x, d) if sk == "i" else arith.ExtUIOp(x, d))


_SPECIAL: dict[type[Operation], type[gpu._DimensionOp]] = {  # pyright: ignore[reportPrivateUsage]
    kernel.ThreadIdxOp: gpu.ThreadIdOp,
    kernel.BlockIdxOp: gpu.BlockIdOp,
    kernel.BlockDimOp: gpu.BlockDimOp,
    kernel.GridDimOp: gpu.GridDimOp,
}


def _special(emit: Emitter, cls: type[gpu._DimensionOp], dim: str) -> SSAValue:  # pyright: ignore[reportPrivateUsage]
    return emit(arith.IndexCastOp(emit(cls(dim)), i64))


@lowers(*_SPECIAL)
def _special_reg(fl: FunctionLowering, op: Operation, emit: Emitter) -> SSAValue:
    assert isinstance(op, kernel._SpecialOp)  # pyright: ignore[reportPrivateUsage]
    return _special(emit, _SPECIAL[type(op)], op.dimension.data)


def _global_id(emit: Emitter, dim: str) -> SSAValue:
    bid = _special(emit, gpu.BlockIdOp, dim)
    bdim = _special(emit, gpu.BlockDimOp, dim)
    tid = _special(emit, gpu.ThreadIdOp, dim)
    return emit(arith.AddiOp(emit(arith.MuliOp(bid, bdim)), tid))


@lowers(kernel.Index1DOp)
def _index_1d(fl: FunctionLowering, op: Operation, emit: Emitter) -> _LoweredIndex:
    return _LoweredIndex(linear=_global_id(emit, "x"))


_GLOBAL_ID_BITS = {"x": 41, "y": 26, "z": 22}
"""A global thread id `block_id·block_dim + thread_id` along each axis is below 2^bits: grids have at
most (2^31 − 1, 65535, 65535) blocks of at most (1024, 1024, 64) threads on every compute capability
(CUDA C++ Programming Guide, "Compute Capabilities", table of technical specifications)."""


def _global_id_axis(v: SSAValue) -> str | None:
    """The axis of `v` when it is `_global_id(emit, axis)`'s result, else None."""
    add = v.owner
    if not isinstance(add, arith.AddiOp) or not isinstance(mul := add.lhs.owner, arith.MuliOp):
        return None
    parts = [x.owner.input.owner if isinstance(x.owner, arith.IndexCastOp) else None for x in (mul.lhs, mul.rhs, add.rhs)]
    kinds = (gpu.BlockIdOp, gpu.BlockDimOp, gpu.ThreadIdOp)
    if not all(isinstance(p, k) for p, k in zip(parts, kinds)):
        return None
    axes = {p.dimension.data for p in parts}  # pyright: ignore[reportOptionalMemberAccess, reportAttributeAccessIssue]
    return axes.pop() if len(axes) == 1 else None


def _bound_bits(v: SSAValue) -> int:
    """k such that `v < 2^k` whenever `v ≥ 0`, from how `v` was made (64: nothing known): a
    non-negative constant, an integer widened from k bits (sign-extended: k − 1), a global thread id."""
    owner = v.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        c = owner.value.value.data
        return c.bit_length() if c >= 0 else 64
    if isinstance(owner, arith.ExtUIOp | arith.ExtSIOp) and isinstance(owner.input.type, IntegerType):
        return owner.input.type.width.data - (1 if isinstance(owner, arith.ExtSIOp) else 0)
    axis = _global_id_axis(v)
    return _GLOBAL_ID_BITS[axis] if axis is not None else 64


def _mul_add_exact(emit: Emitter, a: SSAValue, n: SSAValue, b: SSAValue) -> tuple[SSAValue, SSAValue]:
    """`a·n + b` (i64, wrapping) and whether it is exact — no signed overflow — for a, b ≥ 0 and
    0 ≤ n (a negative `n` gives some value and a meaningless flag: callers AND it with `b < n`).
    Exact iff the high halves do not both count (`a_hi·n_hi = 0`), the cross term `a_hi·n_lo +
    a_lo·n_hi` stays below 2^31, and each partial sum stays below 2^63 (every step fits in u64, so
    the sign bit says whether it passed 2^63 − 1).

    Where the operands are provably small the flag is the constant true and costs nothing: every
    caller also requires `0 ≤ b < n`, so `a·n + b < (a + 1)·n ≤ 2^(A+N)` for `a < 2^A`, `n < 2^N`
    (`_bound_bits`), exact when A + N ≤ 63 — `index_2d(ncols)` of a 32-bit `ncols` (rows < 2^26),
    a tile view's constant tile shape. Elsewhere (an i64 `ncols`, a 1-D id times a 32-bit `n`) the
    flag stays."""
    i64_ = IntegerType(64)
    total_bits = _bound_bits(a) + _bound_bits(n)
    if total_bits <= 63:
        return emit(arith.AddiOp(emit(arith.MuliOp(a, n)), b)), emit.const(1, i1)
    c32, m32 = emit.const(32, i64_), emit.const(0xFFFF_FFFF, i64_)
    zero = emit.const(0, i64_)
    a_hi, n_hi = emit(arith.ShRUIOp(a, c32)), emit(arith.ShRUIOp(n, c32))
    a_lo, n_lo = emit(arith.AndIOp(a, m32)), emit(arith.AndIOp(n, m32))
    one_high = emit(arith.OrIOp(emit(arith.CmpiOp(a_hi, zero, "eq")), emit(arith.CmpiOp(n_hi, zero, "eq"))))
    cross = emit(arith.AddiOp(emit(arith.MuliOp(a_hi, n_lo)), emit(arith.MuliOp(a_lo, n_hi))))
    low = emit(arith.MuliOp(a_lo, n_lo))
    partial = emit(arith.AddiOp(emit(arith.ShLIOp(cross, c32)), low))
    # the same bits as `partial + b`, written as the plain product so that range analysis
    # (int-range-optimizations, hoist-checks) sees `a·n + b`; `partial` only feeds the flag
    total = emit(arith.AddiOp(emit(arith.MuliOp(a, n)), b))
    checks = [
        one_high,
        emit(arith.CmpiOp(cross, emit.const(1 << 31, i64_), "ult")),
        emit(arith.CmpiOp(low, zero, "sge")),
        emit(arith.CmpiOp(partial, zero, "sge")),
        emit(arith.CmpiOp(total, zero, "sge")),  # = partial + b: past 2^63 - 1 it is negative
    ]
    exact = checks[0]
    for c in checks[1:]:
        exact = emit(arith.AndIOp(exact, c))
    return total, exact


@lowers(kernel.Index2DOp)
def _index_2d(fl: FunctionLowering, op: Operation, emit: Emitter) -> _LoweredIndex:
    """`row·ncols + col`, unique while `0 ≤ col < ncols` (signed: a negative `ncols` makes every
    thread invalid, where an unsigned compare let two threads share an element) and the product
    does not wrap (a huge `ncols` would map two threads onto one element)."""
    assert isinstance(op, kernel.Index2DOp)
    ncols = fl.to_i64(emit, fl.v(op.ncols), op.ncols.type)
    row = _global_id(emit, "y")
    col = _global_id(emit, "x")
    linear, exact = _mul_add_exact(emit, row, ncols, col)
    valid = emit(arith.AndIOp(emit(arith.CmpiOp(col, ncols, "slt")), exact))
    return _LoweredIndex(linear=linear, row=row, col=col, valid=valid)


@lowers(kernel.Index3DOp)
def _index_3d(fl: FunctionLowering, op: Operation, emit: Emitter) -> _LoweredIndex:
    """`(z·ny + y)·nx + x`, unique while `0 ≤ y < ny`, `0 ≤ x < nx` (signed compares) and neither
    product wraps."""
    assert isinstance(op, kernel.Index3DOp)
    ny = fl.to_i64(emit, fl.v(op.ny), op.ny.type)
    nx = fl.to_i64(emit, fl.v(op.nx), op.nx.type)
    z, y, x = _global_id(emit, "z"), _global_id(emit, "y"), _global_id(emit, "x")
    plane_row, exact_y = _mul_add_exact(emit, z, ny, y)
    linear, exact_x = _mul_add_exact(emit, plane_row, nx, x)
    valid = emit(arith.AndIOp(emit(arith.CmpiOp(y, ny, "slt")), emit(arith.CmpiOp(x, nx, "slt"))))
    valid = emit(arith.AndIOp(valid, emit(arith.AndIOp(exact_y, exact_x))))
    return _LoweredIndex(linear=linear, row=y, col=x, valid=valid, plane=z)


@lowers(kernel.IndexGetOp, kernel.IndexRowOp, kernel.IndexColOp, kernel.IndexPlaneOp)
def _index_part(fl: FunctionLowering, op: Operation, emit: Emitter) -> SSAValue:
    index = fl.idx(op.operands[0])
    if isinstance(op, kernel.IndexGetOp):
        return index.linear
    part = index.row if isinstance(op, kernel.IndexRowOp) else (index.plane if isinstance(op, kernel.IndexPlaneOp) else index.col)
    if part is None:
        raise error_at(op, ".row/.col exist only on an index_2d() ThreadIndex")
    return part


def _length(emit: Emitter, memref_value: SSAValue) -> SSAValue:
    zero = emit.const(0, IndexType())
    return emit(arith.IndexCastOp(emit(memref.DimOp(memref_value, zero)), i64))


@lowers(kernel.LenOp)
def _len(fl: FunctionLowering, op: Operation, emit: Emitter) -> SSAValue:
    return _length(emit, fl.v(op.operands[0]))


def _as_index(emit: Emitter, i: SSAValue) -> SSAValue:
    return emit(arith.IndexCastOp(i, IndexType()))


@lowers(kernel.LoadOp)
def _load(fl: FunctionLowering, op: Operation, emit: Emitter) -> SSAValue:
    assert isinstance(op, kernel.LoadOp)
    m = fl.v(op.slice)
    elem = signless(op.result.type)
    if isinstance(op.index.type, kernel.ThreadIndexType):
        index = fl.idx(op.index)
        i = index.linear
    else:
        index = None
        i = fl.to_i64(emit, fl.v(op.index), op.index.type)
    if not fl.checks:
        return emit(memref.LoadOp.get(m, [_as_index(emit, i)]))
    n = _length(emit, m)
    ok = emit(arith.CmpiOp(i, n, "ult"))  # a negative index is a huge unsigned value: out of range
    if index is not None and index.valid is not None:
        ok = emit(arith.AndIOp(ok, index.valid))
    fname, line, col = _site_location(op)
    site = ErrorSite("out-of-range read", op.text.data if op.text else "", fname, line, col)

    def report(e: Emitter) -> SSAValue:
        fl.report(e, site, i, n)
        return e.const(0, elem)

    result = fl.guarded(emit, ok, lambda e: e(memref.LoadOp.get(m, [_as_index(e, i)])), report, elem)
    assert result is not None
    return result


@lowers(kernel.StoreOp)
def _store(fl: FunctionLowering, op: Operation, emit: Emitter) -> None:
    assert isinstance(op, kernel.StoreOp)
    if isinstance(op.slice.type, kernel.RawSliceType):
        _raw_store(fl, op, emit)
        return None
    m = fl.v(op.slice)
    value = fl.v(op.value)
    index = fl.idx(op.index)
    n = _length(emit, m)
    ok = emit(arith.CmpiOp(index.linear, n, "ult"))
    if index.valid is not None:
        ok = emit(arith.AndIOp(ok, index.valid))
    if index.block:  # a BlockIndex write: the block's first thread makes it
        ok = emit(arith.AndIOp(ok, _first_thread(emit)))

    def store(e: Emitter) -> None:
        e(memref.StoreOp.get(value, m, [_as_index(e, index.linear)]))

    fl.guarded(emit, ok, store, lambda e: None, None)  # pyright: ignore[reportArgumentType]
    return None


@lowers(kernel.ReturnOp)
def _return(fl: FunctionLowering, op: Operation, emit: Emitter) -> None:
    if op.operands:
        raise error_at(op, "a kernel returns nothing")
    emit(gpu.ReturnOp())
    return None


@lowers(cf.BranchOp)
def _br(fl: FunctionLowering, op: Operation, emit: Emitter) -> None:
    assert isinstance(op, cf.BranchOp)
    br = cf.BranchOp(fl.blocks[op.successor], *(fl.v(a) for a in op.arguments))
    br.attributes.update({k: v for k, v in op.attributes.items() if k.startswith("llvm.")})  # loop metadata of a latch
    emit(br)
    return None


@lowers(cf.ConditionalBranchOp)
def _cond_br(fl: FunctionLowering, op: Operation, emit: Emitter) -> None:
    assert isinstance(op, cf.ConditionalBranchOp)
    emit(
        cf.ConditionalBranchOp(
            fl.v(op.cond),
            fl.blocks[op.then_block],
            [fl.v(a) for a in op.then_arguments],
            fl.blocks[op.else_block],
            [fl.v(a) for a in op.else_arguments],
        )
    )
    return None


# --------------------------------------------------------------------------- shared and local arrays

SHARED = IntegerAttr(3, i32)
"""Address space of shared memory (PTX `.shared`) as a memref memory space."""


def array_memref_type(t: kernel._ArrayType) -> MemRefType:  # pyright: ignore[reportPrivateUsage]
    """`!kernel.shared<16x17xf32>` → `memref<16x17xf32, 3 : i32>`; `!kernel.local<8xf32>` → `memref<8xf32>`."""
    shape = [builtin.DYNAMIC_INDEX if d == kernel.DYNAMIC else d for d in t.dims]
    space: Attribute = SHARED if isinstance(t, kernel.SharedArrayType) else builtin.NoneAttr()
    return MemRefType(signless(t.element_type), shape, memory_space=space)


@lowers(kernel.SharedArrayOp)
def _shared_array(fl: FunctionLowering, op: Operation, emit: Emitter) -> SSAValue:
    assert isinstance(op, kernel.SharedArrayOp) and isinstance(op.result.type, kernel.SharedArrayType)
    typ = array_memref_type(op.result.type)
    align = op.attributes.get("alignment")  # raised by the frontend for TMA boxes (128 / 1024 bytes)
    name = fl.module.shared_global(fl.src.sym_name.data, typ, op, align.value.data if isinstance(align, IntegerAttr) else 16)
    return emit(memref.GetGlobalOp(name, typ))


@lowers(kernel.DynamicSharedOp)
def _dynamic_shared(fl: FunctionLowering, op: Operation, emit: Emitter) -> SSAValue:
    assert isinstance(op, kernel.DynamicSharedOp) and isinstance(op.result.type, kernel.SharedArrayType)
    typ = array_memref_type(op.result.type)
    raw = emit(gpu.DynamicSharedMemoryOp())
    zero = emit.const(0, IndexType())
    nbytes = emit(memref.DimOp(raw, zero))
    count = emit(arith.DivUIOp(nbytes, emit.const(byte_size(typ.element_type), IndexType())))
    return emit(memref.ViewOp(raw, zero, [count], typ))


@lowers(kernel.LocalArrayOp)
def _local_array(fl: FunctionLowering, op: Operation, emit: Emitter) -> SSAValue:
    """`memref.alloca`, zero-filled (stores LLVM drops when the program overwrites them first)."""
    assert isinstance(op, kernel.LocalArrayOp) and isinstance(op.result.type, kernel.LocalArrayType)
    typ = array_memref_type(op.result.type)
    alloca = emit(memref.AllocaOp.get(typ.element_type, shape=typ.get_shape()))
    zero = emit.const(0, typ.element_type)
    shape = typ.get_shape()
    if prod(shape) <= LOCAL_UNROLLED_ZEROING:
        for position in product(*(range(n) for n in shape)):
            emit(memref.StoreOp.get(zero, alloca, [emit.const(k, IndexType()) for k in position]))
        return alloca

    def loops(e: Emitter, dim: int, indices: list[SSAValue]) -> None:
        if dim == len(shape):
            e(memref.StoreOp.get(zero, alloca, indices))
            return
        body = Block(arg_types=[IndexType()])
        inner = Emitter(body, op)
        loops(inner, dim + 1, [*indices, body.args[0]])
        inner(scf.YieldOp())
        e(scf.ForOp(e.const(0, IndexType()), e.const(shape[dim], IndexType()), e.const(1, IndexType()), [], Region(body)))

    loops(emit, 0, [])
    return alloca


LOCAL_UNROLLED_ZEROING = 256
"""Local arrays up to this many elements are zeroed by straight-line stores, larger ones by a loop."""


def _extents(emit: Emitter, m: SSAValue, typ: MemRefType) -> list[SSAValue]:
    """Each dimension's extent as i64."""
    out = []
    for dim, size in enumerate(typ.get_shape()):
        if size == builtin.DYNAMIC_INDEX:
            out.append(emit(arith.IndexCastOp(emit(memref.DimOp(m, emit.const(dim, IndexType()))), i64)))
        else:
            out.append(emit.const(size, i64))
    return out


def _checked_indices(fl: FunctionLowering, emit: Emitter, op: Operation, m: SSAValue, indices: list[SSAValue]) -> tuple[list[SSAValue], SSAValue | None, tuple[SSAValue, SSAValue] | None]:
    """The indices as i64, whether all are in range (None without checks), and the (index, extent) to
    report: the first dimension out of range."""
    typ = m.type
    assert isinstance(typ, MemRefType)
    idx = [fl.to_i64(emit, fl.v(i), i.type) for i in indices]
    if not fl.checks:
        return idx, None, None
    extents = _extents(emit, m, typ)
    oks = [emit(arith.CmpiOp(i, n, "ult")) for i, n in zip(idx, extents)]
    ok = oks[0]
    for more in oks[1:]:
        ok = emit(arith.AndIOp(ok, more))
    bad_i, bad_n = idx[-1], extents[-1]
    for i, n, fine in reversed(list(zip(idx[:-1], extents[:-1], oks[:-1]))):
        bad_i = emit(arith.SelectOp(fine, bad_i, i))
        bad_n = emit(arith.SelectOp(fine, bad_n, n))
    return idx, ok, (bad_i, bad_n)


def _site(op: Operation, kind: str) -> ErrorSite:
    fname, line, col = _site_location(op)
    text = op.properties.get("text")
    return ErrorSite(kind, text.data if isinstance(text, StringAttr) else "", fname, line, col)


@lowers(kernel.ArrayLoadOp)
def _array_load(fl: FunctionLowering, op: Operation, emit: Emitter) -> SSAValue:
    assert isinstance(op, kernel.ArrayLoadOp)
    m = fl.v(op.array)
    elem = signless(op.result.type)
    idx, ok, bad = _checked_indices(fl, emit, op, m, list(op.indices))
    if ok is None or bad is None:
        return emit(memref.LoadOp.get(m, [_as_index(emit, i) for i in idx]))
    site = _site(op, "out-of-range read")

    def report(e: Emitter) -> SSAValue:
        fl.report(e, site, bad[0], bad[1])
        return e.const(0, elem)

    result = fl.guarded(emit, ok, lambda e: e(memref.LoadOp.get(m, [_as_index(e, i) for i in idx])), report, elem)
    assert result is not None
    return result


@lowers(kernel.ArrayStoreOp)
def _array_store(fl: FunctionLowering, op: Operation, emit: Emitter) -> None:
    assert isinstance(op, kernel.ArrayStoreOp)
    m = fl.v(op.array)
    value = fl.v(op.value)
    idx, ok, bad = _checked_indices(fl, emit, op, m, list(op.indices))
    if ok is None or bad is None:
        emit(memref.StoreOp.get(value, m, [_as_index(emit, i) for i in idx]))
        return None
    site = _site(op, "out-of-range write")

    def store(e: Emitter) -> None:
        e(memref.StoreOp.get(value, m, [_as_index(e, i) for i in idx]))

    def report(e: Emitter) -> None:
        fl.report(e, site, bad[0], bad[1])

    fl.guarded(emit, ok, store, report, None)  # pyright: ignore[reportArgumentType]
    return None


# --------------------------------------------------------------------------- synchronization


@lowers(kernel.BarrierOp)
def _barrier(fl: FunctionLowering, op: Operation, emit: Emitter) -> None:
    emit(gpu.BarrierOp())
    return None


@lowers(kernel.BarrierReduceOp)
def _barrier_reduce(fl: FunctionLowering, op: Operation, emit: Emitter) -> SSAValue:
    assert isinstance(op, kernel.BarrierReduceOp)
    return emit(gpu.BarrierReduceOp(op.kind.data, fl.v(op.predicate)))


@lowers(kernel.ThreadFenceOp)
def _thread_fence(fl: FunctionLowering, op: Operation, emit: Emitter) -> None:
    assert isinstance(op, kernel.ThreadFenceOp)
    emit(gpu.ThreadFenceOp(op.scope.data))
    return None


@lowers(kernel.WarpSyncOp)
def _warp_sync(fl: FunctionLowering, op: Operation, emit: Emitter) -> None:
    assert isinstance(op, kernel.WarpSyncOp)
    emit(gpu.WarpSyncOp(fl.v(op.mask)))
    return None


# --------------------------------------------------------------------------- formatted output


PrintPiece = str | tuple[str, Attribute, SSAValue]
"""Part of a printed line: literal text, or (Python format spec, kernel-level type, gpu-level value)."""


def build_printf(emit: Emitter, pieces: list[PrintPiece]) -> None:
    """Emit the `gpu.printf` of `pieces`: each field's C conversion (`_printf.printf_conversion`), its
    value promoted as CUDA's variadic ABI wants — integers below 32 bits extended by their signedness
    to i32, floats extended to f64, bools kept as i1 (`%s`: True/False). Shared with `tile-to-gpu`."""
    from warpforge.dialects._printf import escape_percent, printf_conversion

    text: list[str] = []
    args: list[SSAValue] = []
    for piece in pieces:
        if isinstance(piece, str):
            text.append(escape_percent(piece))
            continue
        spec, t, value = piece
        kind, bits = _kind(t), bit_width(t)
        if kind == "f" and t != builtin.f64:
            value = emit(arith.ExtFOp(value, builtin.f64))
        elif kind in ("i", "u") and bits < 32:
            value = emit(arith.ExtSIOp(value, i32) if kind == "i" else arith.ExtUIOp(value, i32))
        text.append(printf_conversion(spec, kind, bits))
        args.append(value)
    emit(gpu.PrintfOp("".join(text), args))


@lowers(kernel.PrintOp)
def _print(fl: FunctionLowering, op: Operation, emit: Emitter) -> None:
    """`kernel.print` → `gpu.printf` (`build_printf`), from every thread that runs it."""
    assert isinstance(op, kernel.PrintOp)
    pieces: list[PrintPiece] = []
    operands = iter(op.args)
    for literal, spec in op.fields():
        pieces.append(literal)
        if spec is not None:
            arg = next(operands)
            pieces.append((spec, arg.type, fl.v(arg)))
    build_printf(emit, pieces)
    return None


# --------------------------------------------------------------------------- warp collectives


def to_bits(emit: Emitter, x: SSAValue, typ: Attribute) -> tuple[SSAValue, Callable[[Emitter, SSAValue], SSAValue]]:
    """A signless scalar as something `gpu.shuffle`/`gpu.match_any` moves or compares bit for bit:
    32/64-bit values as they are (floats too for shuffles: see `as_int`), narrower ones zero-extended
    into an i32. Returns the value and how to get the original type back."""
    if isinstance(typ, IntegerType) and typ.width.data in (32, 64) or isinstance(typ, AnyFloat) and typ.bitwidth in (32, 64):
        return x, lambda e, v: v
    width = bit_width(typ)
    narrow = IntegerType(width)
    bits = emit(arith.BitcastOp(x, narrow)) if isinstance(typ, AnyFloat) else x
    wide = emit(arith.ExtUIOp(bits, i32))

    def back(e: Emitter, v: SSAValue) -> SSAValue:
        low = e(arith.TruncIOp(v, narrow))
        return e(arith.BitcastOp(low, typ)) if isinstance(typ, AnyFloat) else low

    return wide, back


def _i32(fl: FunctionLowering, emit: Emitter, value: SSAValue, typ: Attribute) -> SSAValue:
    """An integer of any width/signedness as i32 (wrapping), for lane numbers and offsets."""
    v = fl.v(value)
    width = bit_width(signless(typ))
    if width == 32:
        return v
    if width > 32:
        return emit(arith.TruncIOp(v, i32))
    return emit(arith.ExtSIOp(v, i32) if kernel.is_signed(typ) else arith.ExtUIOp(v, i32))


@lowers(kernel.ShuffleOp)
def _shuffle(fl: FunctionLowering, op: Operation, emit: Emitter) -> SSAValue:
    assert isinstance(op, kernel.ShuffleOp)
    typ = signless(op.value.type)
    payload, back = to_bits(emit, fl.v(op.value), typ)
    offset = _i32(fl, emit, op.offset, op.offset.type)
    width = emit.const(op.width.value.data, i32)
    shuffle = gpu.ShuffleOp(op.mode.data, payload, offset, width)
    emit(shuffle)
    result, valid = shuffle.shuffle_result, shuffle.valid
    if op.mode.data in ("up", "down") and not _small_constant(op.offset, 32):
        # PTX takes the delta mod 32 (`b[4:0]`, PTX ISA §9.7.9.6): a delta of 32 or more (or negative,
        # read unsigned) keeps the lane's own value, as any source past the segment's edge does
        wide = fl.v(op.offset)
        in_range = emit(arith.CmpiOp(wide, emit.const(32, signless(op.offset.type)), "ult"))
        result = emit(arith.SelectOp(in_range, result, payload))
        valid = emit(arith.AndIOp(in_range, valid))
    fl.values[op.results[1]] = valid
    return back(emit, result)


def _small_constant(value: SSAValue, bound: int) -> bool:
    """Whether `value` is a `kernel.constant` in [0, bound)."""
    owner = value.owner
    if isinstance(owner, kernel.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return 0 <= owner.value.value.data < bound
    return False


def _reduction_name(kind: str, t: Attribute) -> str:
    if kind in ("min", "max"):
        if isinstance(t, AnyFloat):
            return f"{kind}imumf"  # NaN propagates, as in max()/min()
        return f"{kind}{'si' if kernel.is_signed(t) else 'ui'}"
    return kind


@lowers(kernel.WarpReduceOp)
def _warp_reduce(fl: FunctionLowering, op: Operation, emit: Emitter) -> SSAValue:
    """`simt.warp_*`: one `gpu.subgroup_reduce`. An f16/bf16 sum accumulates in f32 and rounds once at
    the end (what users of CUDA's `__half` reductions expect; an f16 butterfly loses bits at every
    level); min/max are exact in any precision and stay in the type."""
    assert isinstance(op, kernel.WarpReduceOp)
    x = fl.v(op.value)
    typ = signless(op.value.type)
    if op.kind.data == "add" and isinstance(typ, builtin.Float16Type | builtin.BFloat16Type):
        wide = emit(arith.ExtFOp(x, builtin.f32))
        total = emit(gpu.SubgroupReduceOp("add", wide))
        return emit(arith.TruncFOp(total, typ))
    return emit(gpu.SubgroupReduceOp(_reduction_name(op.kind.data, op.value.type), x))


@lowers(kernel.VoteOp)
def _vote(fl: FunctionLowering, op: Operation, emit: Emitter) -> SSAValue:
    assert isinstance(op, kernel.VoteOp)
    return emit(gpu.VoteOp(op.kind.data, fl.v(op.predicate)))


@lowers(kernel.BallotOp)
def _ballot(fl: FunctionLowering, op: Operation, emit: Emitter) -> SSAValue:
    assert isinstance(op, kernel.BallotOp)
    return emit(gpu.BallotOp(fl.v(op.predicate)))


@lowers(kernel.ActiveMaskOp)
def _active_mask(fl: FunctionLowering, op: Operation, emit: Emitter) -> SSAValue:
    return emit(gpu.ActiveMaskOp())


@lowers(kernel.MatchAnyOp)
def _match_any(fl: FunctionLowering, op: Operation, emit: Emitter) -> SSAValue:
    assert isinstance(op, kernel.MatchAnyOp)
    typ = signless(op.value.type)
    bits, _ = to_bits(emit, fl.v(op.value), typ)
    if isinstance(typ, AnyFloat) and typ.bitwidth in (32, 64):
        bits = emit(arith.BitcastOp(bits, IntegerType(typ.bitwidth)))
    return emit(gpu.MatchAnyOp(bits))


@lowers(kernel.LaneIdOp)
def _lane_id(fl: FunctionLowering, op: Operation, emit: Emitter) -> SSAValue:
    return emit(arith.IndexCastOp(emit(gpu.LaneIdOp()), i64))


# --------------------------------------------------------------------------- block index and raw writes


def _block_linear(emit: Emitter) -> SSAValue:
    """`(block_id.z * grid_dim.y + block_id.y) * grid_dim.x + block_id.x` as i64."""
    bz, by, bx = (_special(emit, gpu.BlockIdOp, d) for d in "zyx")
    gy, gx = _special(emit, gpu.GridDimOp, "y"), _special(emit, gpu.GridDimOp, "x")
    return emit(arith.AddiOp(emit(arith.MuliOp(emit(arith.AddiOp(emit(arith.MuliOp(bz, gy)), by)), gx)), bx))


def _first_thread(emit: Emitter) -> SSAValue:
    """Whether this is thread (0, 0, 0) of its block."""
    zero = emit.const(0, i64)
    conds = [emit(arith.CmpiOp(_special(emit, gpu.ThreadIdOp, d), zero, "eq")) for d in "xyz"]
    return emit(arith.AndIOp(emit(arith.AndIOp(conds[0], conds[1])), conds[2]))


@lowers(kernel.BlockIndex1DOp)
def _block_index_1d(fl: FunctionLowering, op: Operation, emit: Emitter) -> _LoweredIndex:
    return _LoweredIndex(linear=_block_linear(emit), valid=None, block=True)


@lowers(kernel.BlockIndexGetOp)
def _block_index_get(fl: FunctionLowering, op: Operation, emit: Emitter) -> SSAValue:
    return fl.idx(op.operands[0]).linear


def _raw_store(fl: FunctionLowering, op: kernel.StoreOp, emit: Emitter) -> None:
    """A `raw_slice` write at any index: checked (out of range: an error, nothing written), not race-checked."""
    m, value = fl.v(op.slice), fl.v(op.value)
    i = fl.to_i64(emit, fl.v(op.index), op.index.type)
    if not fl.checks:
        emit(memref.StoreOp.get(value, m, [_as_index(emit, i)]))
        return
    n = _length(emit, m)
    ok = emit(arith.CmpiOp(i, n, "ult"))
    site = _site(op, "out-of-range write")

    def store(e: Emitter) -> None:
        e(memref.StoreOp.get(value, m, [_as_index(e, i)]))

    fl.guarded(emit, ok, store, lambda e: fl.report(e, site, i, n), None)  # pyright: ignore[reportArgumentType]


# --------------------------------------------------------------------------- atomics

_K = AtomicRMWKind
ATOMIC_RMW_KIND: dict[tuple[str, str], AtomicRMWKind] = {
    ("add", "i"): _K.addi, ("add", "u"): _K.addi, ("add", "f"): _K.addf,
    ("sub", "i"): _K.addi, ("sub", "u"): _K.addi, ("sub", "f"): _K.addf,
    ("max", "i"): _K.maxs, ("max", "u"): _K.maxu, ("max", "f"): _K.maximumf,
    ("min", "i"): _K.mins, ("min", "u"): _K.minu, ("min", "f"): _K.minimumf,
    ("and", "i"): _K.andi, ("and", "u"): _K.andi,
    ("or", "i"): _K.ori, ("or", "u"): _K.ori,
    ("xor", "i"): _K.xori, ("xor", "u"): _K.xori,
    ("exch", "i"): _K.assign, ("exch", "u"): _K.assign, ("exch", "f"): _K.assign,
}  # fmt: skip
"""(kernel.atomic / tile.atomic_rmw kind, element kind letter) → `memref.atomic_rmw` kind: sub adds the negation (PTX has no
atom.sub); float min/max are `minimumf`/`maximumf` (NaN propagates, a CAS loop on sm_90); integer
min/max follow the signedness."""


def _atomic_guarded(
    fl: FunctionLowering, op: Operation, emit: Emitter, target: SSAValue, indices: list[SSAValue], elem: Attribute,
    body: Callable[[Emitter, list[SSAValue]], SSAValue],
) -> SSAValue:
    """Run `body(emit, index values)` when every index is in range; otherwise (checked mode) report the
    error and give 0. Unchecked: `body` unguarded."""
    m = fl.v(target)
    idx, ok, bad = _checked_indices(fl, emit, op, m, indices)
    if ok is None or bad is None:
        return body(emit, [_as_index(emit, i) for i in idx])
    site = _site(op, "out-of-range atomic")

    def report(e: Emitter) -> SSAValue:
        fl.report(e, site, bad[0], bad[1])
        return e.const(0, elem)

    result = fl.guarded(emit, ok, lambda e: body(e, [_as_index(e, i) for i in idx]), report, elem)
    assert result is not None
    return result


def _scope_attrs(op: kernel.AtomicOp | kernel.AtomicCASOp | kernel.AtomicAddPairOp) -> dict[str, Attribute]:
    return {"syncscope": StringAttr(op.scope.data), "ordering": StringAttr(op.ordering.data)}


@lowers(kernel.AtomicOp)
def _atomic(fl: FunctionLowering, op: Operation, emit: Emitter) -> SSAValue:
    assert isinstance(op, kernel.AtomicOp)
    kind = op.kind.data
    elem = signless(op.value.type)
    rmw_kind = ATOMIC_RMW_KIND[(kind, _kind(op.value.type))]
    value = fl.v(op.value)
    if kind == "sub":
        value = emit(arith.NegfOp(value)) if isinstance(elem, AnyFloat) else emit(arith.SubiOp(emit.const(0, elem), value))
    m = fl.v(op.target)

    def rmw(e: Emitter, indices: list[SSAValue]) -> SSAValue:
        atomic = memref.AtomicRMWOp.build(
            operands=[value, m, indices], result_types=[elem], properties={"kind": rmw_kind.attr()}, attributes=_scope_attrs(op)
        )
        return e(atomic)

    return _atomic_guarded(fl, op, emit, op.target, list(op.indices), elem, rmw)


@lowers(kernel.AtomicCASOp)
def _atomic_cas(fl: FunctionLowering, op: Operation, emit: Emitter) -> SSAValue:
    assert isinstance(op, kernel.AtomicCASOp)
    elem = signless(op.new.type)
    m, cmp, new = fl.v(op.target), fl.v(op.expected), fl.v(op.new)

    def cas(e: Emitter, indices: list[SSAValue]) -> SSAValue:
        xchg = gpu.AtomicCmpxchgOp(m, indices, cmp, new)
        xchg.attributes.update(_scope_attrs(op))
        return e(xchg)

    return _atomic_guarded(fl, op, emit, op.target, list(op.indices), elem, cas)


@lowers(kernel.AtomicAddPairOp)
def _atomic_add_pair(fl: FunctionLowering, op: Operation, emit: Emitter) -> None:
    """`gpu.atomic_add_pair` when `i` is even and `i + 1` in range; otherwise a checked error, 0 and 0."""
    assert isinstance(op, kernel.AtomicAddPairOp)
    elem = signless(op.x.type)
    m, x, y = fl.v(op.target), fl.v(op.x), fl.v(op.y)
    (index,) = op.indices
    i = fl.to_i64(emit, fl.v(index), index.type)
    n = _length(emit, m)
    last = emit(arith.AddiOp(i, emit.const(1, i64)))
    ok = emit(arith.AndIOp(emit(arith.CmpiOp(last, n, "ult")), emit(arith.CmpiOp(i, n, "ult"))))
    even = emit(arith.CmpiOp(emit(arith.AndIOp(i, emit.const(1, i64))), emit.const(0, i64), "eq"))
    ok = emit(arith.AndIOp(ok, even))
    results: list[SSAValue] = []

    def pair(e: Emitter) -> SSAValue:
        add = gpu.AtomicAddPairOp(m, [_as_index(e, i)], x, y)
        add.attributes.update(_scope_attrs(op))  # pyright: ignore[reportArgumentType]
        e(add)
        results.append(add.old_hi)
        return add.old_lo

    then_block, else_block = Block(), Block()
    lo_then = pair(Emitter(then_block, op))
    Emitter(then_block, op)(scf.YieldOp(lo_then, results[0]))
    other = Emitter(else_block, op)
    if fl.checks:
        fl.report(other, _site(op, "odd or out-of-range atomic pair index"), i, n)
    zero = other.const(0, elem)
    other(scf.YieldOp(zero, zero))
    branch = scf.IfOp(ok, [elem, elem], Region(then_block), Region(else_block))
    emit(branch)
    fl.values[op.results[1]] = branch.results[1]
    return branch.results[0]  # pyright: ignore[reportReturnType]


# --------------------------------------------------------------------------- owned views


def _view_address(fl: FunctionLowering, op: kernel.ViewLoadOp | kernel.ViewStoreOp, emit: Emitter) -> tuple[SSAValue, SSAValue, SSAValue]:
    """(linear address, owned and in range?, length) of a view access (ownership rule: `kernel.view_load`)."""
    m = fl.v(op.slice)
    index = fl.idx(op.index)
    coords = [fl.v(c) for c in op.coords]
    sizes = [fl.v(s) for s in op.sizes]
    zero = emit.const(0, i64)
    kind = op.view.data
    conds: list[SSAValue] = []
    if kind == "tile":
        if index.row is None or index.col is None:
            raise error_at(op, "a tile view needs a 2-D ThreadIndex (simt.index_2d)")
        r, k = coords
        th, tw, n = sizes
        row, row_exact = _mul_add_exact(emit, index.row, th, r)
        col, col_exact = _mul_add_exact(emit, index.col, tw, k)
        address, address_exact = _mul_add_exact(emit, row, n, col)
        conds += [emit(arith.CmpiOp(r, th, "ult")), emit(arith.CmpiOp(k, tw, "ult")), emit(arith.CmpiOp(col, n, "ult"))]
        conds += [emit(arith.CmpiOp(th, zero, "sgt")), emit(arith.CmpiOp(tw, zero, "sgt"))]
        conds += [row_exact, col_exact, address_exact]  # no product wraps onto another thread's element
    else:
        (j,) = coords
        (n,) = sizes
        i = index.linear
        if kind == "row":
            address, exact = _mul_add_exact(emit, i, n, j)
            conds += [emit(arith.CmpiOp(j, n, "ult")), exact]
        else:  # column
            address, exact = _mul_add_exact(emit, j, n, i)
            conds += [emit(arith.CmpiOp(i, n, "ult")), emit(arith.CmpiOp(j, zero, "sge")), exact]
        if index.valid is not None:
            conds.append(index.valid)
    conds.append(emit(arith.CmpiOp(sizes[-1], zero, "sgt")))
    length = _length(emit, m)
    conds.append(emit(arith.CmpiOp(address, length, "ult")))
    ok = conds[0]
    for c in conds[1:]:
        ok = emit(arith.AndIOp(ok, c))
    return address, ok, length


@lowers(kernel.ViewStoreOp)
def _view_store(fl: FunctionLowering, op: Operation, emit: Emitter) -> None:
    assert isinstance(op, kernel.ViewStoreOp)
    m, value = fl.v(op.slice), fl.v(op.value)
    address, ok, _ = _view_address(fl, op, emit)

    def store(e: Emitter) -> None:
        e(memref.StoreOp.get(value, m, [_as_index(e, address)]))

    fl.guarded(emit, ok, store, lambda e: None, None)  # pyright: ignore[reportArgumentType]
    return None


@lowers(kernel.ViewLoadOp)
def _view_load(fl: FunctionLowering, op: Operation, emit: Emitter) -> SSAValue:
    assert isinstance(op, kernel.ViewLoadOp)
    m = fl.v(op.slice)
    elem = signless(op.result.type)
    address, ok, length = _view_address(fl, op, emit)
    if not fl.checks:
        safe = emit(arith.SelectOp(ok, address, emit.const(0, i64)))
        loaded = emit(memref.LoadOp.get(m, [_as_index(emit, safe)]))
        return emit(arith.SelectOp(ok, loaded, emit.const(0, elem)))
    site = _site(op, "read outside the thread's view")

    def report(e: Emitter) -> SSAValue:
        fl.report(e, site, address, length)
        return e.const(0, elem)

    result = fl.guarded(emit, ok, lambda e: e(memref.LoadOp.get(m, [_as_index(e, address)])), report, elem)
    assert result is not None
    return result


# --------------------------------------------------------------------------- module


@dataclass
class ModuleLowering:
    """The `gpu.module` being built: its shared-memory globals, the error-reporting function and the
    libdevice declarations, each added once (shared by every `FunctionLowering` of the module, SIMT
    and tile alike)."""

    gpu_module: gpu.ModuleOp
    _reporter: bool = False
    _declared: set[str] = field(default_factory=set[str])
    _shared: int = 0

    @property
    def chip(self) -> str:
        """The `sm_XX[a]` of the module's `#nvvm.target` (what `GpuModulePass` resolved)."""
        targets = self.gpu_module.targets
        assert targets is not None and isinstance(targets.data[0], NVVMTargetAttr)
        return targets.data[0].chip.data

    def shared_global(self, kernel_name: str, typ: MemRefType, source: Operation, alignment: int = 16) -> str:
        """Declare a new shared-memory `memref.global` (uninitialized; `alignment`-byte aligned, ≥ 16,
        once lowered) for one `kernel.shared_array` of kernel `kernel_name`; returns its symbol."""
        name = f"__wf_shared_{kernel_name}_{self._shared}"
        self._shared += 1
        glob = memref.GlobalOp.get(StringAttr(name), typ, UnitAttr(), alignment=max(16, alignment))
        glob.location = source.location
        body = self.gpu_module.body.block
        first = body.first_op
        if first is None:
            body.add_op(glob)
        else:
            body.insert_op_before(glob, first)
        return name

    def need_reporter(self) -> None:
        if not self._reporter:
            self._reporter = True
            self.gpu_module.body.block.add_op(_build_reporter())

    def libdevice(self, name: str, typ: Attribute) -> str:
        """Declare (once) and name the libdevice function `name` for `typ` (`fmod` f32 → `__nv_fmodf`)."""
        symbol = f"__nv_{name}{'f' if typ == builtin.f32 else ''}"
        if symbol not in self._declared:
            self._declared.add(symbol)
            decl = func.FuncOp.external(symbol, [typ, typ], [typ])
            self.gpu_module.body.block.add_op(decl)
        return symbol


def _build_reporter() -> func.FuncOp:
    """`func.func private @__wf_report_error(%rec, %site, %a, %b)`: count the error atomically; the thread
    that saw a count of 0 fills in the site, operands and ids (record layout in the module docstring)."""
    body = Block(arg_types=[ERROR_RECORD_TYPE, i64, i64, i64])
    rec, site, a, b = body.args
    for arg, name in zip(body.args, ("rec", "site", "a", "b")):
        arg.name_hint = name
    dummy = kernel.ConstantOp(IntegerAttr(0, i1))  # location-less source for Emitter
    e = Emitter(body, dummy)
    c = [e.const(k, IndexType()) for k in range(8)]
    one = e.const(1, i64)
    old = e(memref.AtomicRMWOp.build(operands=[one, rec, [c[0]]], result_types=[i64], properties={"kind": AtomicRMWKind.addi.attr()}))
    first = e(arith.CmpiOp(old, e.const(0, i64), "eq"))
    then = Block()
    t = Emitter(then, dummy)
    fields = [site, a, b, _special(t, gpu.BlockIdOp, "x"), _special(t, gpu.BlockIdOp, "y"), _special(t, gpu.ThreadIdOp, "x"), _special(t, gpu.ThreadIdOp, "y")]
    for k, value in enumerate(fields, start=1):
        t(memref.StoreOp.get(value, rec, [c[k]]))
    t(scf.YieldOp())
    otherwise = Block([scf.YieldOp()])
    e(scf.IfOp(first, [], Region(then), Region(otherwise)))
    e(func.ReturnOp())
    reporter = func.FuncOp(REPORT_ERROR, FunctionType.from_lists(body.arg_types, []), Region(body), visibility="private")
    # the error path is cold: keep it out of line so the kernel's hot path stays small
    reporter.attributes["llvm.noinline"] = UnitAttr()
    reporter.attributes["llvm.cold"] = UnitAttr()
    return reporter


@dataclass(frozen=True)
class GpuModulePass(ModulePass):
    """Base of `kernel-to-gpu` and `tile-to-gpu`: the `kernel.func`s it lowers (`functions`) become
    one `gpu.module` with `#nvvm.target<chip, features>`, holding each one's `lower_function`, put
    where the first of them was; the `kernel.func`s are erased. Raises `TargetError` for an unknown
    chip or a PTX version it cannot have (before anything is lowered)."""

    chip: str = "sm_90"
    features: str = ""
    """A `+ptxNN` PTX ISA version; `""`: the chip's default (`warpforge.backend.chips`)."""
    module: str = ""
    """The `gpu.module`'s name; empty: `<first kernel's symbol>_module`, the name `warpforge compile` uses."""

    def functions(self, op: builtin.ModuleOp) -> list[kernel.FuncOp]:
        """The functions this pass lowers, in order."""
        raise NotImplementedError

    def lower_function(self, f: kernel.FuncOp, lowering: ModuleLowering) -> gpu.FuncOp:
        """The `gpu.func` of `f` (`lowering`: the module's shared state)."""
        raise NotImplementedError

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        from warpforge.backend.chips import resolve_target

        target = resolve_target(self.chip, self.features)
        funcs = self.functions(op)
        if not funcs:
            return
        first = next((f for f in funcs if f.is_kernel), funcs[0])
        name = self.module or f"{first.sym_name.data}_module"
        gpu_module = gpu.ModuleOp(name, [], [NVVMTargetAttr(target.chip.name, target.features)])
        lowering = ModuleLowering(gpu_module)
        for f in funcs:
            gpu_module.body.block.add_op(self.lower_function(f, lowering))
        funcs[0].parent_block().insert_op_before(gpu_module, funcs[0])  # pyright: ignore[reportOptionalMemberAccess]
        for f in funcs:
            f.detach()
            f.erase()


@dataclass(frozen=True)
class KernelToGpuPass(GpuModulePass):
    """Lower kernel-dialect kernels (Python semantics) to gpu.func in a gpu.module with #nvvm.target."""

    name = "kernel-to-gpu"

    def functions(self, op: builtin.ModuleOp) -> list[kernel.FuncOp]:
        return [f for f in op.ops if isinstance(f, kernel.FuncOp)]

    def lower_function(self, f: kernel.FuncOp, lowering: ModuleLowering) -> gpu.FuncOp:
        if not f.is_kernel:
            raise error_at(f, f"kernel-to-gpu lowers kernels only; device function @{f.sym_name.data} must be inlined first")
        return FunctionLowering(f, lowering).run()


from warpforge.passes.lowerings import kernel_to_gpu_mma as _kernel_to_gpu_mma  # noqa: E402,F401  (registers the tensor-core lowerings)
from warpforge.passes.lowerings import kernel_to_gpu_hopper as _kernel_to_gpu_hopper  # noqa: E402,F401  (mbarriers, TMA)
