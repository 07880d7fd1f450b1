"""`arith` ops (xDSL's and warpforge's `arith.index_castui`), vectorized over the active threads.

Integer semantics are LLVM's (and PTX's) on signless two's-complement values: `addi`/`subi`/`muli`
wrap at the width; `divsi`/`remsi` truncate toward zero; `divui`/`remui`, `cmpi u*`, `maxui`/`minui`,
`shrui`, `extui`, `uitofp`, `index_castui` read the bits as unsigned. Where LLVM says *poison* the
simulator picks PTX's answer: shifts by ≥ the width give 0 (`shli`, `shrui`) or the sign fill
(`shrsi`); division by zero gives 0. Float → int conversion saturates and maps NaN to 0
(warpforge lowers `fptosi`/`fptoui` to `llvm.fpto[su]i.sat`). `maximumf`/`minimumf` propagate NaN
and order −0 below +0 (`llvm.maximum`/`llvm.minimum`); `maxnumf`/`minnumf` ignore NaN (`fmax`).
Each binary op is one entry of a table (`INT_BINARY`, `FLOAT_BINARY`, `CMPI`, `CMPF`, `CASTS`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, FloatAttr, IntegerAttr
from xdsl.interpreter import InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Operation

from warpforge.dialects.arith import IndexCastUIOp
from warpforge.simulator.engine import Impl, SimInterpreter, ftz_aware, install
from warpforge.simulator.values import UNSIGNED, as_unsigned, bit_width, dtype_of, op_error

BOOL = np.dtype(np.bool_)
I8 = np.dtype(np.int8)
U8 = np.dtype(np.uint8)
I64 = np.dtype(np.int64)


def _scalar(x: Any) -> Any:
    """A 0-d result (from `np.where` on uniform inputs) as a NumPy scalar."""
    return x[()] if type(x) is np.ndarray and x.ndim == 0 else x


def result_dtype(interp: SimInterpreter, op: Operation) -> np.dtype:
    """The storage dtype of `op`'s first result (cached per op)."""
    return interp.static(op, lambda o: dtype_of(o.results[0].type))


def signed_value(x: Any) -> Any:
    """`x` read as a signed integer: `i1` true is −1 (int8); other integers as stored."""
    if x.dtype == BOOL:
        return -(x.astype(I8))
    return x


def unsigned_value(x: Any) -> Any:
    """`x` read as an unsigned integer: `i1` true is 1 (uint8); others as the unsigned view."""
    if x.dtype == BOOL:
        return x.astype(U8)
    return as_unsigned(x)


def _to_bool(x: Any) -> Any:
    return (x & 1) != 0


# --------------------------------------------------------------------------- integer binary ops


def _divsi(a: Any, b: Any) -> Any:
    rem = np.fmod(a, b)  # C's %, truncating; 0 for b == 0
    return (a - rem) // b  # exact division; 0 for b == 0


def _ceildivsi(a: Any, b: Any) -> Any:
    q = np.floor_divide(a, b)
    return q + (a - q * b != 0).astype(q.dtype)


def _ceildivui(a: Any, b: Any) -> Any:
    q = np.floor_divide(a, b)
    return q + (np.remainder(a, b) != 0).astype(q.dtype)


def _shli(a: Any, b: Any) -> Any:
    return np.left_shift(a, b)  # NumPy gives 0 for counts ≥ the width (PTX shl clamps likewise)


def _shrui(a: Any, b: Any) -> Any:
    return np.right_shift(a, b)


INT_BINARY: dict[type[Operation], tuple[Callable[[Any, Any], Any], str]] = {
    arith.AddiOp: (np.add, "s"),
    arith.SubiOp: (np.subtract, "s"),
    arith.MuliOp: (np.multiply, "s"),
    arith.AndIOp: (np.bitwise_and, "b"),
    arith.OrIOp: (np.bitwise_or, "b"),
    arith.XOrIOp: (np.bitwise_xor, "b"),
    arith.MaxSIOp: (np.maximum, "s"),
    arith.MinSIOp: (np.minimum, "s"),
    arith.MaxUIOp: (np.maximum, "u"),
    arith.MinUIOp: (np.minimum, "u"),
    arith.DivSIOp: (_divsi, "s"),
    arith.RemSIOp: (np.fmod, "s"),
    arith.FloorDivSIOp: (np.floor_divide, "s"),
    arith.CeilDivSIOp: (_ceildivsi, "s"),
    arith.DivUIOp: (np.floor_divide, "u"),
    arith.RemUIOp: (np.remainder, "u"),
    arith.CeilDivUIOp: (_ceildivui, "u"),
    arith.ShLIOp: (_shli, "u"),
    arith.ShRUIOp: (_shrui, "u"),
}
"""Integer op → (NumPy function, how it reads its operands: `s` signed as stored, `u` through the
unsigned view, `b` bitwise). `i1` operands are widened to int8 (−1/0 signed, 1/0 unsigned), the
result wrapped back to one bit."""


def _int_binary(fn: Callable[[Any, Any], Any], mode: str) -> Impl:
    def run(ft: Any, interp: SimInterpreter, op: Operation, args: PythonValues) -> PythonValues:
        a, b = args
        dt = a.dtype
        if dt == BOOL:
            if mode == "b":
                return (fn(a, b),)
            wide = signed_value if mode == "s" else unsigned_value
            return (_to_bool(fn(wide(a), wide(b))),)
        if mode == "u":
            udt = UNSIGNED[dt]
            return (fn(a.view(udt), b.view(udt)).view(dt),)
        return (fn(a, b),)

    return run


def _shrsi(ft: Any, interp: SimInterpreter, op: Operation, args: PythonValues) -> PythonValues:
    a, b = args
    if a.dtype == BOOL:  # shifting an i1 by 0 keeps it; by 1 (≥ width) gives the sign fill: itself
        return (a,)
    width = bit_width(a.dtype)
    count = np.minimum(as_unsigned(b), width - 1).astype(a.dtype)  # ≥ width: the sign fill, as PTX shr.s
    return (np.right_shift(a, count),)


# --------------------------------------------------------------------------- comparisons


CMPI: dict[int, tuple[Callable[[Any, Any], Any], str]] = {
    0: (np.equal, "b"),
    1: (np.not_equal, "b"),
    2: (np.less, "s"),
    3: (np.less_equal, "s"),
    4: (np.greater, "s"),
    5: (np.greater_equal, "s"),
    6: (np.less, "u"),
    7: (np.less_equal, "u"),
    8: (np.greater, "u"),
    9: (np.greater_equal, "u"),
}
"""`arith.cmpi` predicate (MLIR's numbering: eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge) →
(comparison, how the operands are read)."""


def _unordered(cmp: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    def run(a: Any, b: Any) -> Any:
        return cmp(a, b) | np.isnan(a) | np.isnan(b)

    return run


def _one(a: Any, b: Any) -> Any:
    return np.less(a, b) | np.greater(a, b)


def _ord(a: Any, b: Any) -> Any:
    return np.equal(a, a) & np.equal(b, b)


def _uno(a: Any, b: Any) -> Any:
    return np.isnan(a) | np.isnan(b)


def _false(a: Any, b: Any) -> Any:
    return np.zeros_like(a, dtype=BOOL) if type(a) is np.ndarray else np.bool_(False)


def _true(a: Any, b: Any) -> Any:
    return np.ones_like(a, dtype=BOOL) if type(a) is np.ndarray else np.bool_(True)


CMPF: dict[int, Callable[[Any, Any], Any]] = {
    0: _false,
    1: np.equal,  # oeq
    2: np.greater,  # ogt
    3: np.greater_equal,  # oge
    4: np.less,  # olt
    5: np.less_equal,  # ole
    6: _one,
    7: _ord,
    8: _unordered(np.equal),  # ueq
    9: _unordered(np.greater),  # ugt
    10: _unordered(np.greater_equal),  # uge
    11: _unordered(np.less),  # ult
    12: _unordered(np.less_equal),  # ule
    13: np.not_equal,  # une: NumPy's != is true for NaN
    14: _uno,
    15: _true,
}
"""`arith.cmpf` predicate (MLIR's numbering) → comparison. NumPy's ordered comparisons are false
for NaN, as `o*` predicates are; `u*` add "either is NaN"."""


# --------------------------------------------------------------------------- float binary ops


def _maximumf(a: Any, b: Any) -> Any:
    r = np.maximum(a, b)  # NaN-propagating
    # llvm.maximum orders -0 < +0; np.maximum returns either operand when they compare equal
    return _scalar(np.where(a == b, np.where(np.signbit(a), b, a), r))


def _minimumf(a: Any, b: Any) -> Any:
    r = np.minimum(a, b)
    return _scalar(np.where(a == b, np.where(np.signbit(a), a, b), r))


def _maxnumf(a: Any, b: Any) -> Any:
    """`llvm.maxnum` (C's fmax: NaN ignored), with −0 ordered below +0 as PTX `max` does. LLVM lets
    maxnum return either zero; NumPy's `fmax` picks one by code path (SIMD or scalar), which made
    results depend on array length: the order is fixed here."""
    r = np.fmax(a, b)
    return _scalar(np.where(a == b, np.where(np.signbit(a), b, a), r))


def _minnumf(a: Any, b: Any) -> Any:
    """`llvm.minnum` (C's fmin), with −0 ordered below +0 (see `_maxnumf`)."""
    r = np.fmin(a, b)
    return _scalar(np.where(a == b, np.where(np.signbit(a), a, b), r))


FLOAT_BINARY: dict[type[Operation], Callable[[Any, Any], Any]] = {
    arith.AddfOp: np.add,
    arith.SubfOp: np.subtract,
    arith.MulfOp: np.multiply,
    arith.DivfOp: np.true_divide,
    arith.MaximumfOp: _maximumf,
    arith.MinimumfOp: _minimumf,
    arith.MaxnumfOp: _maxnumf,
    arith.MinnumfOp: _minnumf,
}
"""Float op → NumPy function, computed in the operands' own type (f32 stays f32)."""
if hasattr(arith, "RemFOp"):
    FLOAT_BINARY[arith.RemFOp] = np.fmod  # pyright: ignore[reportAttributeAccessIssue]


def _float_binary(fn: Callable[[Any, Any], Any]) -> Impl:
    def run(ft: Any, interp: SimInterpreter, op: Operation, args: PythonValues) -> PythonValues:
        return (fn(args[0], args[1]),)

    return run


# --------------------------------------------------------------------------- conversions


def float_to_int(x: Any, dt: np.dtype, signed: bool) -> Any:
    """Truncate toward zero, saturating at the range of the `dt`-wide integer (signed or unsigned),
    NaN → 0 (`llvm.fptosi.sat` / `llvm.fptoui.sat`); returns the signless storage of `dt`."""
    width = bit_width(dt)
    lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)
    xf = np.asarray(x, dtype=np.float64)  # exact for every narrower float
    big = xf >= float(hi + 1)  # hi + 1 is a power of two: exact
    small = xf < float(lo)
    bad = big | small | np.isnan(xf)
    wide = np.dtype(np.int64) if signed or width < 64 else np.dtype(np.uint64)
    r = np.trunc(np.where(bad, 0.0, xf)).astype(wide)
    r = np.where(big, np.array(hi).astype(wide), np.where(small, np.array(lo).astype(wide), r))
    if dt == BOOL:
        return _scalar(_to_bool(r))
    return _scalar(r.astype(dt) if wide != np.uint64 else r.view(dt))


def _extsi(x: Any, dt: np.dtype) -> Any:
    return signed_value(x).astype(dt)


def _extui(x: Any, dt: np.dtype) -> Any:
    return unsigned_value(x).astype(dt)


def _trunci(x: Any, dt: np.dtype) -> Any:
    if dt == BOOL:
        return _to_bool(x)
    return x.astype(dt)


def _index_cast(x: Any, dt: np.dtype) -> Any:
    """Sign-extend into `index`, truncate out of it (MLIR's `arith.index_cast`)."""
    if x.dtype == dt:
        return x
    if dt == I64:
        return signed_value(x).astype(I64)
    return _trunci(x, dt)


def _index_castui(x: Any, dt: np.dtype) -> Any:
    """Zero-extend into `index`, truncate out of it (MLIR's `arith.index_castui`)."""
    if x.dtype == dt:
        return x
    if dt == I64:
        return unsigned_value(x).astype(I64)
    return _trunci(x, dt)


def _sitofp(x: Any, dt: np.dtype) -> Any:
    return signed_value(x).astype(dt)


def _uitofp(x: Any, dt: np.dtype) -> Any:
    return unsigned_value(x).astype(dt)


def _fptosi(x: Any, dt: np.dtype) -> Any:
    return float_to_int(x, dt, True)


def _fptoui(x: Any, dt: np.dtype) -> Any:
    return float_to_int(x, dt, False)


def _float_cast(x: Any, dt: np.dtype) -> Any:
    return x.astype(dt)  # round to nearest even (f64→f32, f32→f16/bf16)


def _bitcast(x: Any, dt: np.dtype) -> Any:
    return x.view(dt)


CASTS: dict[type[Operation], Callable[[Any, np.dtype], Any]] = {
    arith.ExtSIOp: _extsi,
    arith.ExtUIOp: _extui,
    arith.TruncIOp: _trunci,
    arith.IndexCastOp: _index_cast,
    IndexCastUIOp: _index_castui,
    arith.SIToFPOp: _sitofp,
    arith.UIToFPOp: _uitofp,
    arith.FPToSIOp: _fptosi,
    arith.FPToUIOp: _fptoui,
    arith.ExtFOp: _float_cast,
    arith.TruncFOp: _float_cast,
    arith.BitcastOp: _bitcast,
}
"""Conversion op → function of (value, result storage dtype)."""


def _cast(fn: Callable[[Any, np.dtype], Any]) -> Impl:
    def run(ft: Any, interp: SimInterpreter, op: Operation, args: PythonValues) -> PythonValues:
        return (fn(args[0], result_dtype(interp, op)),)

    return run


# --------------------------------------------------------------------------- the functions


def _constant_value(op: arith.ConstantOp) -> Any:
    """The NumPy scalar of an `arith.constant` (integers from their two's-complement bits)."""
    attr = op.value
    if isinstance(attr, DenseIntOrFPElementsAttr) or not isinstance(attr, IntegerAttr | FloatAttr):
        raise op_error(op, f"constants of type {op.result.type} are not supported by the simulator")
    dt = dtype_of(op.result.type)
    if isinstance(attr, FloatAttr):
        return np.array(attr.value.data, dtype=np.float64).astype(dt)[()]
    if dt == BOOL:
        return np.bool_(attr.value.data & 1)
    bits = bit_width(dt)
    return np.array(attr.value.data & ((1 << bits) - 1), dtype=np.uint64).astype(UNSIGNED[dt]).view(dt)[()]


class ArithFunctions(InterpreterFunctions):
    """`arith` ops on per-thread arrays (and uniform scalars). Table-driven ops are added below."""

    @impl(arith.ConstantOp)
    def run_constant(self, interp: SimInterpreter, op: arith.ConstantOp, args: PythonValues) -> PythonValues:
        # not reached from compiled code: `CONSTANT_OPS` evaluates constants once, ahead of time
        return (interp.static(op, _constant_value),)

    @impl(arith.CmpiOp)
    def run_cmpi(self, interp: SimInterpreter, op: arith.CmpiOp, args: PythonValues) -> PythonValues:
        a, b = args
        cmp, mode = interp.static(op, lambda o: CMPI[o.predicate.value.data])
        if mode == "s":
            a, b = signed_value(a), signed_value(b)
        elif mode == "u":
            a, b = unsigned_value(a), unsigned_value(b)
        return (cmp(a, b),)

    @impl(arith.CmpfOp)
    @ftz_aware
    def run_cmpf(self, interp: SimInterpreter, op: arith.CmpfOp, args: PythonValues) -> PythonValues:
        return (interp.static(op, lambda o: CMPF[o.predicate.value.data])(args[0], args[1]),)

    @impl(arith.SelectOp)
    def run_select(self, interp: SimInterpreter, op: arith.SelectOp, args: PythonValues) -> PythonValues:
        c, a, b = args
        if type(c) is np.ndarray:
            return (np.where(c, a, b),)
        return (a if c else b,)

    @impl(arith.NegfOp)
    @ftz_aware
    def run_negf(self, interp: SimInterpreter, op: arith.NegfOp, args: PythonValues) -> PythonValues:
        return (np.negative(args[0]),)


for _op, (_fn, _mode) in INT_BINARY.items():
    install(ArithFunctions, _op, _int_binary(_fn, _mode))
for _op, _ffn in FLOAT_BINARY.items():
    install(ArithFunctions, _op, ftz_aware(_float_binary(_ffn)))
for _op, _cfn in CASTS.items():
    install(ArithFunctions, _op, ftz_aware(_cast(_cfn)) if _op in (arith.ExtFOp, arith.TruncFOp) else _cast(_cfn))
install(ArithFunctions, arith.ShRSIOp, _shrsi)
register_impls(ArithFunctions)

CONSTANT_OPS: dict[type[Operation], Callable[[Any], Any]] = {arith.ConstantOp: _constant_value}
"""Ops whose single result is a compile-time constant: the simulator evaluates them once."""
