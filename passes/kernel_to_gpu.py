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
  `index_2d`, `col < ncols`, which keeps the index unique).

The error-record layout (8 × i64) is `[count, site, operand a, operand b, ctaid.x, ctaid.y, tid.x, tid.y]`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

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

from warpforge.dialects import gpu, kernel
from warpforge.dialects.nvvm import NVVMTargetAttr
from warpforge.rewriting import inherit_location

GLOBAL = IntegerAttr(1, i32)
"""Address space of global memory (PTX `.global`) as a memref memory space."""

ERROR_RECORD_TYPE = MemRefType(i64, [8], memory_space=GLOBAL)
REPORT_ERROR = "__wf_report_error"


def signless(t: Attribute) -> Attribute:
    """`si32`/`ui32` → `i32`; other types unchanged."""
    if isinstance(t, IntegerType):
        return IntegerType(t.width.data)
    return t


def convert_type(t: Attribute) -> Attribute:
    """A `kernel` type at the gpu level."""
    if isinstance(t, kernel.SliceType | kernel.DisjointSliceType):
        return MemRefType(signless(t.element_type), [builtin.DYNAMIC_INDEX], memory_space=GLOBAL)
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
        return loc.filename.data, loc.line.data, loc.column.data
    return "<unknown>", 0, 0


@dataclass
class _LoweredIndex:
    """A `!kernel.thread_index` at the gpu level: its linear i64 value, and for `index_2d` the row,
    the column and the uniqueness condition `col < ncols`."""

    linear: SSAValue
    row: SSAValue | None = None
    col: SSAValue | None = None
    valid: SSAValue | None = None


class _Emitter:
    """Appends ops at the end of a block, each taking the location of the op being lowered."""

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
            return self(arith.ConstantOp(IntegerAttr(int(value), IndexType())))
        assert isinstance(typ, IntegerType)
        width = typ.width.data
        v = int(value) & ((1 << width) - 1)
        if width > 1 and v >= 1 << (width - 1):
            v -= 1 << width  # two's complement, as signless constants print
        return self(arith.ConstantOp(IntegerAttr(v if width > 1 else int(bool(value)), typ)))


@dataclass
class _FunctionLowering:
    """Lowers one `kernel.func` into a `gpu.func`, op by op, through a value map."""

    src: kernel.FuncOp
    module: _ModuleLowering
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
        for t in src.function_type.inputs:
            if isinstance(t, kernel.SliceType):
                arg_attrs.append(DictionaryAttr({"llvm.noalias": UnitAttr(), "llvm.readonly": UnitAttr()}))
            elif isinstance(t, kernel.DisjointSliceType):
                arg_attrs.append(DictionaryAttr({"llvm.noalias": UnitAttr()}))
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
        bounds = src.attributes.get("launch_bounds")
        if isinstance(bounds, IntegerAttr):
            out.attributes["nvvm.maxntid"] = DenseArrayBase.from_list(i32, [bounds.value.data, 1, 1])
        if self.sites:
            out.attributes["kernel.error_sites"] = ArrayAttr([s.as_attr() for s in self.sites])
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
        emit = _Emitter(block, op)
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
        raise DiagnosticException(f"kernel-to-gpu: cannot lower '{op.name}' at {_where(op)}")

    # ------------------------------------------------------------------ helpers

    def to_i64(self, emit: _Emitter, value: SSAValue, src_type: Attribute) -> SSAValue:
        """An integer of `src_type` (signed or unsigned) as i64, by value."""
        assert isinstance(src_type, IntegerType)
        width = src_type.width.data
        if width == 64:
            return value
        if kernel.is_signed(src_type):
            return emit(arith.ExtSIOp(value, i64))
        return emit(arith.ExtUIOp(value, i64))

    def report(self, emit: _Emitter, site: ErrorSite, a: SSAValue, b: SSAValue) -> None:
        """Call the error reporter (checked mode): record site id and the two operands."""
        assert self.record is not None
        self.sites.append(site)
        site_id = emit.const(len(self.sites), i64)
        self.module.need_reporter()
        emit(func.CallOp(REPORT_ERROR, [self.record, site_id, a, b], []))

    def guarded(
        self,
        emit: _Emitter,
        cond: SSAValue,
        then: Callable[[_Emitter], SSAValue | None],
        otherwise: Callable[[_Emitter], SSAValue | None],
        result_type: Attribute | None,
    ) -> SSAValue | None:
        """`scf.if cond { then } else { otherwise }`, each side a straight-line block."""
        then_block, else_block = Block(), Block()
        t = then(_Emitter(then_block, emit.source))
        e = otherwise(_Emitter(else_block, emit.source))
        for blk, val in ((then_block, t), (else_block, e)):
            _Emitter(blk, emit.source)(scf.YieldOp(*([val] if result_type is not None and val is not None else [])))
        return emit(scf.IfOp(cond, [result_type] if result_type is not None else [], Region(then_block), Region(else_block)))

    def zero_of(self, emit: _Emitter, typ: Attribute) -> SSAValue:
        return emit.const(0, typ)


def _where(op: Operation) -> str:
    f, line, col = _site_location(op)
    return f"{f}:{line}:{col}"


# --------------------------------------------------------------------------- op lowerings

_LOWERINGS: dict[type[Operation], Callable[[_FunctionLowering, Operation, _Emitter], SSAValue | _LoweredIndex | None]] = {}


def lowers(*ops: type[Operation]):
    def register(fn: Callable[[_FunctionLowering, Operation, _Emitter], SSAValue | _LoweredIndex | None]):
        for op in ops:
            _LOWERINGS[op] = fn
        return fn

    return register


def _kind(t: Attribute) -> str:
    if t == i1:
        return "b"
    if isinstance(t, AnyFloat):
        return "f"
    return "i" if kernel.is_signed(t) else "u"


@lowers(kernel.ConstantOp)
def _constant(fl: _FunctionLowering, op: Operation, emit: _Emitter) -> SSAValue:
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
def _binary(fl: _FunctionLowering, op: Operation, emit: _Emitter) -> SSAValue:
    lhs, rhs = op.operands
    make = _BINARY[type(op)][_kind(lhs.type)]
    return emit(make(fl.v(lhs), fl.v(rhs)))


def _constant_int(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _checked_divisor(fl: _FunctionLowering, op: Operation, emit: _Emitter, a: SSAValue, b: SSAValue, typ: Attribute) -> tuple[SSAValue, SSAValue | None]:
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

        def report(e: _Emitter) -> None:
            fl.report(e, site, fl.to_i64(e, a, op.operands[0].type), fl.to_i64(e, b, op.operands[1].type))

        fl.guarded(emit, is_zero, lambda e: report(e), lambda e: None, None)  # pyright: ignore[reportArgumentType]
    one = emit.const(1, typ)
    unsafe = is_zero
    if kernel.is_signed(op.operands[0].type):
        minus_one = emit.const(-1, typ)
        unsafe = emit(arith.OrIOp(is_zero, emit(arith.CmpiOp(b, minus_one, "eq"))))
    return emit(arith.SelectOp(unsafe, one, b)), is_zero


@lowers(kernel.FloorDivOp, kernel.ModOp)
def _floordiv_mod(fl: _FunctionLowering, op: Operation, emit: _Emitter) -> SSAValue:
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


def _float_floordiv_mod(fl: _FunctionLowering, emit: _Emitter, a: SSAValue, b: SSAValue, typ: Attribute, is_div: bool) -> SSAValue:
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


@lowers(kernel.LShiftOp, kernel.RShiftOp)
def _shift(fl: _FunctionLowering, op: Operation, emit: _Emitter) -> SSAValue:
    lhs, rhs = op.operands
    typ = signless(lhs.type)
    assert isinstance(typ, IntegerType)
    a, count = fl.v(lhs), fl.v(rhs)
    width = emit.const(typ.width.data, typ)
    in_range = emit(arith.CmpiOp(count, width, "ult"))  # a negative count is huge unsigned: out of range
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
def _cmp(fl: _FunctionLowering, op: Operation, emit: _Emitter) -> SSAValue:
    assert isinstance(op, kernel.CmpOp)
    kind = _kind(op.lhs.type)
    a, b = fl.v(op.lhs), fl.v(op.rhs)
    pred = op.predicate.data
    if kind == "f":
        return emit(arith.CmpfOp(a, b, _FLOAT_PREDICATES[pred]))
    table = _SIGNED_PREDICATES if kind == "i" else _UNSIGNED_PREDICATES
    return emit(arith.CmpiOp(a, b, table[pred]))


@lowers(kernel.NegOp)
def _neg(fl: _FunctionLowering, op: Operation, emit: _Emitter) -> SSAValue:
    x = fl.v(op.operands[0])
    typ = signless(op.operands[0].type)
    if isinstance(typ, AnyFloat):
        return emit(arith.NegfOp(x))
    return emit(arith.SubiOp(emit.const(0, typ), x))


@lowers(kernel.InvertOp, kernel.NotOp)
def _invert(fl: _FunctionLowering, op: Operation, emit: _Emitter) -> SSAValue:
    x = fl.v(op.operands[0])
    return emit(arith.XOrIOp(x, emit.const(-1, signless(op.operands[0].type))))


@lowers(kernel.AbsOp)
def _abs(fl: _FunctionLowering, op: Operation, emit: _Emitter) -> SSAValue:
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
def _select(fl: _FunctionLowering, op: Operation, emit: _Emitter) -> SSAValue:
    c, a, b = (fl.v(o) for o in op.operands)
    return emit(arith.SelectOp(c, a, b))


@lowers(kernel.CastOp)
def _cast(fl: _FunctionLowering, op: Operation, emit: _Emitter) -> SSAValue:
    assert isinstance(op, kernel.CastOp)
    return cast_value(emit, fl.v(op.operand), op.operand.type, op.result.type)


def _width(t: Attribute) -> int:
    if isinstance(t, IntegerType):
        return t.width.data
    assert isinstance(t, AnyFloat)
    return t.bitwidth


def cast_value(emit: _Emitter, x: SSAValue, src: Attribute, dst: Attribute) -> SSAValue:
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
        if _width(s) < _width(d) or (_width(s) == _width(d)):
            # f16↔bf16 go through f32
            if _width(s) == _width(d):
                x = emit(arith.ExtFOp(x, builtin.f32))
                return emit(arith.TruncFOp(x, d))
            return emit(arith.ExtFOp(x, d))
        return emit(arith.TruncFOp(x, d))
    if sk == "f":  # float → int: truncate toward zero, saturating, NaN → 0 (lowered as llvm.fptosi.sat)
        return emit(arith.FPToSIOp(x, d) if dk == "i" else arith.FPToUIOp(x, d))
    if dk == "f":
        if sk == "i":
            return emit(arith.SIToFPOp(x, d))
        return emit(arith.UIToFPOp(x, d))  # unsigned and bool (0/1)
    # integer/bool → integer: wrap; extend by the source's signedness
    sw, dw = _width(s), _width(d)
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


def _special(emit: _Emitter, cls: type[gpu._DimensionOp], dim: str) -> SSAValue:  # pyright: ignore[reportPrivateUsage]
    return emit(arith.IndexCastOp(emit(cls(dim)), i64))


@lowers(*_SPECIAL)
def _special_reg(fl: _FunctionLowering, op: Operation, emit: _Emitter) -> SSAValue:
    assert isinstance(op, kernel._SpecialOp)  # pyright: ignore[reportPrivateUsage]
    return _special(emit, _SPECIAL[type(op)], op.dimension.data)


def _global_id(emit: _Emitter, dim: str) -> SSAValue:
    bid = _special(emit, gpu.BlockIdOp, dim)
    bdim = _special(emit, gpu.BlockDimOp, dim)
    tid = _special(emit, gpu.ThreadIdOp, dim)
    return emit(arith.AddiOp(emit(arith.MuliOp(bid, bdim)), tid))


@lowers(kernel.Index1DOp)
def _index_1d(fl: _FunctionLowering, op: Operation, emit: _Emitter) -> _LoweredIndex:
    return _LoweredIndex(linear=_global_id(emit, "x"))


@lowers(kernel.Index2DOp)
def _index_2d(fl: _FunctionLowering, op: Operation, emit: _Emitter) -> _LoweredIndex:
    assert isinstance(op, kernel.Index2DOp)
    ncols = fl.to_i64(emit, fl.v(op.ncols), op.ncols.type)
    row = _global_id(emit, "y")
    col = _global_id(emit, "x")
    linear = emit(arith.AddiOp(emit(arith.MuliOp(row, ncols)), col))
    valid = emit(arith.CmpiOp(col, ncols, "ult"))
    return _LoweredIndex(linear=linear, row=row, col=col, valid=valid)


@lowers(kernel.IndexGetOp, kernel.IndexRowOp, kernel.IndexColOp)
def _index_part(fl: _FunctionLowering, op: Operation, emit: _Emitter) -> SSAValue:
    index = fl.idx(op.operands[0])
    if isinstance(op, kernel.IndexGetOp):
        return index.linear
    part = index.row if isinstance(op, kernel.IndexRowOp) else index.col
    if part is None:
        raise DiagnosticException(f"{_where(op)}: .row/.col exist only on an index_2d() ThreadIndex")
    return part


def _length(emit: _Emitter, memref_value: SSAValue) -> SSAValue:
    zero = emit.const(0, IndexType())
    return emit(arith.IndexCastOp(emit(memref.DimOp(memref_value, zero)), i64))


@lowers(kernel.LenOp)
def _len(fl: _FunctionLowering, op: Operation, emit: _Emitter) -> SSAValue:
    return _length(emit, fl.v(op.operands[0]))


def _as_index(emit: _Emitter, i: SSAValue) -> SSAValue:
    return emit(arith.IndexCastOp(i, IndexType()))


@lowers(kernel.LoadOp)
def _load(fl: _FunctionLowering, op: Operation, emit: _Emitter) -> SSAValue:
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

    def report(e: _Emitter) -> SSAValue:
        fl.report(e, site, i, n)
        return e.const(0, elem)

    result = fl.guarded(emit, ok, lambda e: e(memref.LoadOp.get(m, [_as_index(e, i)])), report, elem)
    assert result is not None
    return result


@lowers(kernel.StoreOp)
def _store(fl: _FunctionLowering, op: Operation, emit: _Emitter) -> None:
    assert isinstance(op, kernel.StoreOp)
    m = fl.v(op.slice)
    value = fl.v(op.value)
    index = fl.idx(op.index)
    n = _length(emit, m)
    ok = emit(arith.CmpiOp(index.linear, n, "ult"))
    if index.valid is not None:
        ok = emit(arith.AndIOp(ok, index.valid))

    def store(e: _Emitter) -> None:
        e(memref.StoreOp.get(value, m, [_as_index(e, index.linear)]))

    fl.guarded(emit, ok, store, lambda e: None, None)  # pyright: ignore[reportArgumentType]
    return None


@lowers(kernel.ReturnOp)
def _return(fl: _FunctionLowering, op: Operation, emit: _Emitter) -> None:
    if op.operands:
        raise DiagnosticException(f"{_where(op)}: a kernel returns nothing")
    emit(gpu.ReturnOp())
    return None


@lowers(cf.BranchOp)
def _br(fl: _FunctionLowering, op: Operation, emit: _Emitter) -> None:
    assert isinstance(op, cf.BranchOp)
    emit(cf.BranchOp(fl.blocks[op.successor], *(fl.v(a) for a in op.arguments)))
    return None


@lowers(cf.ConditionalBranchOp)
def _cond_br(fl: _FunctionLowering, op: Operation, emit: _Emitter) -> None:
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


# --------------------------------------------------------------------------- module


@dataclass
class _ModuleLowering:
    gpu_module: gpu.ModuleOp
    _reporter: bool = False
    _declared: set[str] = field(default_factory=set[str])

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
    dummy = kernel.ConstantOp(IntegerAttr(0, i1))  # location-less source for _Emitter
    e = _Emitter(body, dummy)
    c = [e.const(k, IndexType()) for k in range(8)]
    one = e.const(1, i64)
    old = e(memref.AtomicRMWOp.build(operands=[one, rec, [c[0]]], result_types=[i64], properties={"kind": IntegerAttr(1, i64)}))
    first = e(arith.CmpiOp(old, e.const(0, i64), "eq"))
    then = Block()
    t = _Emitter(then, dummy)
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
class KernelToGpuPass(ModulePass):
    """Lower kernel-dialect kernels (Python semantics) to gpu.func in a gpu.module with #nvvm.target."""

    name = "kernel-to-gpu"

    chip: str = "sm_90"
    features: str = "+ptx80"
    module: str = "kernels"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        funcs = [f for f in op.ops if isinstance(f, kernel.FuncOp)]
        if not funcs:
            return
        gpu_module = gpu.ModuleOp(self.module, [], [NVVMTargetAttr(self.chip, self.features)])
        lowering = _ModuleLowering(gpu_module)
        for f in funcs:
            if not f.is_kernel:
                raise DiagnosticException(f"{_where(f)}: kernel-to-gpu lowers kernels only; device function @{f.sym_name.data} must be inlined first")
            gpu_module.body.block.add_op(_FunctionLowering(f, lowering).run())
        funcs[0].parent_block().insert_op_before(gpu_module, funcs[0])  # pyright: ignore[reportOptionalMemberAccess]
        for f in funcs:
            f.detach()
            f.erase()

