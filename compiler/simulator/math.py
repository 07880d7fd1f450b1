"""`math` ops and libdevice functions (`func.call @__nv_expf`, …), vectorized with NumPy.

Floats narrower than f64 (f16, bf16, f32) are computed in f64 and rounded once to their type, so
exact operations (`floor`, `sqrt`, `fma` of f32, `copysign`, …) give the GPU's bit-exact result and
transcendental functions are correctly rounded almost always — libdevice's are within 1–4 ulp of
that, so such results can differ from the GPU's in the last bits. NaN and infinities follow C99
(NumPy's `fmax`/`fmin` ignore NaN, `fmod` is C's). `__nv_fast_*` (fast math) are computed as the
accurate functions. f64 `fma` is a two-product/two-sum emulation (error ≤ 1 ulp; NumPy has no fma).

Tables: `FLOAT_UNARY`/`FLOAT_BINARY` (math op → f64 function), `INT_UNARY`, and `LIBDEVICE`
(libdevice base name → f64 function and arity; `__nv_<name>f` is the f32 entry, `__nv_<name>`
the f64 one).
"""

from __future__ import annotations

import math as pymath
from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects import math
from xdsl.interpreter import InterpreterFunctions, PythonValues, register_impls
from xdsl.ir import Operation

from warpforge.simulator.engine import Impl, SimInterpreter, ftz_aware, install, install_external
from warpforge.simulator.values import UNSIGNED, bit_width

F64 = np.dtype(np.float64)


def _scalar(x: Any) -> Any:
    return x[()] if type(x) is np.ndarray and x.ndim == 0 else x


def _in_f64(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` (on f64) applied to operands of any float type, the result rounded once to that type."""

    def run(*xs: Any) -> Any:
        dt = xs[0].dtype
        if dt == F64:
            return _scalar(fn(*xs))
        return _scalar(np.asarray(fn(*(x.astype(F64) for x in xs))).astype(dt))

    return run


def _vectorized(f: Callable[..., float]) -> Callable[..., Any]:
    """A Python `math` function over arrays (for what NumPy lacks: erf, lgamma, …)."""
    vf = np.vectorize(f, otypes=[np.float64])

    def run(*xs: Any) -> Any:
        try:
            return vf(*xs)
        except (ValueError, OverflowError):  # domain errors: NaN / inf as C does
            return np.vectorize(lambda *a: _c_like(f, *a), otypes=[np.float64])(*xs)

    return run


def _c_like(f: Callable[..., float], *a: float) -> float:
    try:
        return f(*a)
    except ValueError:
        return float("nan")
    except OverflowError:
        return float("inf")


def _round_half_away(x: Any) -> Any:
    t = np.trunc(x)
    return t + np.where(np.abs(x - t) >= 0.5, np.sign(x), 0.0)


def _rsqrt(x: Any) -> Any:
    return 1.0 / np.sqrt(x)


def _exp10(x: Any) -> Any:
    return np.power(10.0, x)


def _two_sum(a: Any, b: Any) -> tuple[Any, Any]:
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _split(a: Any) -> tuple[Any, Any]:
    c = 134217729.0 * a  # 2**27 + 1 (Veltkamp)
    hi = c - (c - a)
    return hi, a - hi


def _fma(a: Any, b: Any, c: Any) -> Any:
    """a * b + c with one rounding (f64: two-product/two-sum, ≤ 1 ulp; narrower types: exact in f64)."""
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    err = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s, e = _two_sum(p, c)
    r = s + (e + err)
    return np.where(np.isfinite(r), r, p + c)


FLOAT_UNARY: dict[type[Operation], Callable[[Any], Any]] = {
    math.AbsFOp: np.abs,
    math.SqrtOp: np.sqrt,
    math.RsqrtOp: _rsqrt,
    math.CbrtOp: np.cbrt,
    math.ExpOp: np.exp,
    math.Exp2Op: np.exp2,
    math.ExpM1Op: np.expm1,
    math.LogOp: np.log,
    math.Log2Op: np.log2,
    math.Log10Op: np.log10,
    math.Log1pOp: np.log1p,
    math.SinOp: np.sin,
    math.CosOp: np.cos,
    math.TanOp: np.tan,
    math.AsinOp: np.arcsin,
    math.AcosOp: np.arccos,
    math.AtanOp: np.arctan,
    math.SinhOp: np.sinh,
    math.CoshOp: np.cosh,
    math.TanhOp: np.tanh,
    math.AsinhOp: np.arcsinh,
    math.AcoshOp: np.arccosh,
    math.AtanhOp: np.arctanh,
    math.ErfOp: _vectorized(pymath.erf),
    math.FloorOp: np.floor,
    math.CeilOp: np.ceil,
    math.TruncOp: np.trunc,
    math.RoundOp: _round_half_away,
    math.RoundEvenOp: np.rint,
}
"""`math` op on floats → the f64 function (see the module docstring for rounding)."""

FLOAT_BINARY: dict[type[Operation], Callable[[Any, Any], Any]] = {
    math.PowFOp: np.power,
    math.Atan2Op: np.arctan2,
    math.CopySignOp: np.copysign,
}

FLOAT_TERNARY: dict[type[Operation], Callable[[Any, Any, Any], Any]] = {math.FmaOp: _fma}


def _bit_length(u: Any) -> Any:
    """Bits needed for each unsigned value (0 → 0)."""
    v = u.astype(np.uint64)
    for shift in (1, 2, 4, 8, 16, 32):
        v = v | (v >> np.uint64(shift))
    return np.bitwise_count(v)


def _ctlz(x: Any) -> Any:
    width = bit_width(x.dtype)
    return (width - _bit_length(x.view(UNSIGNED[x.dtype]))).astype(x.dtype)


def _cttz(x: Any) -> Any:
    u = x.view(UNSIGNED[x.dtype])
    return np.bitwise_count((u & (~u + u.dtype.type(1))) - u.dtype.type(1)).astype(x.dtype)


def _ctpop(x: Any) -> Any:
    return np.bitwise_count(x.view(UNSIGNED[x.dtype])).astype(x.dtype)


def _ipowi(a: Any, b: Any) -> Any:
    """Integer power wrapping at the width; negative exponents give 0 except for bases ±1 (MLIR)."""
    e = np.asarray(b).astype(np.int64)
    base = np.asarray(a).copy()
    result = np.ones_like(base)
    ee = np.maximum(e, 0).astype(np.uint64)
    for _ in range(64):
        if not np.any(ee):
            break
        odd = (ee & np.uint64(1)).astype(bool)
        result = np.where(odd, result * base, result)
        base = base * base
        ee = ee >> np.uint64(1)
    one, minus_one = np.asarray(a) == 1, np.asarray(a) == -1
    neg = e < 0
    result = np.where(neg, np.where(one, 1, np.where(minus_one, np.where(e % 2 == 0, 1, -1), 0)).astype(result.dtype), result)
    return _scalar(result)


def _fpowi(x: Any, n: Any) -> Any:
    """`math.fpowi`: a float to an integer power (computed in f64, rounded once)."""
    return _in_f64(np.power)(x, np.asarray(n).astype(x.dtype))


INT_UNARY: dict[type[Operation], Callable[[Any], Any]] = {
    math.AbsIOp: np.abs,  # wraps: abs(INT_MIN) == INT_MIN (llvm.abs, not poison)
    math.CountLeadingZerosOp: _ctlz,
    math.CountTrailingZerosOp: _cttz,
    math.CtPopOp: _ctpop,
}


def _unary(fn: Callable[[Any], Any]) -> Impl:
    def run(ft: Any, interp: SimInterpreter, op: Operation, args: PythonValues) -> PythonValues:
        return (fn(*args),)

    return run


class MathFunctions(InterpreterFunctions):
    """`math` ops. Every op comes from one of the tables above."""


for _op, _fn in FLOAT_UNARY.items():
    install(MathFunctions, _op, ftz_aware(_unary(_in_f64(_fn))))
for _op, _fn2 in FLOAT_BINARY.items():
    install(MathFunctions, _op, ftz_aware(_unary(_in_f64(_fn2))))
for _op, _fn3 in FLOAT_TERNARY.items():
    install(MathFunctions, _op, ftz_aware(_unary(_in_f64(_fn3))))
for _op, _ifn in INT_UNARY.items():
    install(MathFunctions, _op, _unary(_ifn))
install(MathFunctions, math.IPowIOp, _unary(_ipowi))
install(MathFunctions, math.FPowIOp, _unary(_fpowi))
register_impls(MathFunctions)


# --------------------------------------------------------------------------- libdevice


def _fdim(x: Any, y: Any) -> Any:
    return np.where(x > y, x - y, np.where(np.isnan(x) | np.isnan(y), x + y, 0.0))


def _sinpi(x: Any) -> Any:
    return np.sin(np.pi * np.remainder(x, 2.0))


def _cospi(x: Any) -> Any:
    return np.cos(np.pi * np.remainder(x, 2.0))


LIBDEVICE: dict[str, tuple[Callable[..., Any], int]] = {
    "sqrt": (np.sqrt, 1), "rsqrt": (_rsqrt, 1), "cbrt": (np.cbrt, 1), "rcbrt": (lambda x: 1.0 / np.cbrt(x), 1),
    "exp": (np.exp, 1), "exp2": (np.exp2, 1), "exp10": (_exp10, 1), "expm1": (np.expm1, 1),
    "log": (np.log, 1), "log2": (np.log2, 1), "log10": (np.log10, 1), "log1p": (np.log1p, 1),
    "sin": (np.sin, 1), "cos": (np.cos, 1), "tan": (np.tan, 1), "sinpi": (_sinpi, 1), "cospi": (_cospi, 1),
    "asin": (np.arcsin, 1), "acos": (np.arccos, 1), "atan": (np.arctan, 1),
    "sinh": (np.sinh, 1), "cosh": (np.cosh, 1), "tanh": (np.tanh, 1),
    "asinh": (np.arcsinh, 1), "acosh": (np.arccosh, 1), "atanh": (np.arctanh, 1),
    "erf": (_vectorized(pymath.erf), 1), "erfc": (_vectorized(pymath.erfc), 1),
    "lgamma": (_vectorized(pymath.lgamma), 1), "tgamma": (_vectorized(pymath.gamma), 1),
    "fabs": (np.abs, 1), "floor": (np.floor, 1), "ceil": (np.ceil, 1), "trunc": (np.trunc, 1),
    "round": (_round_half_away, 1), "rint": (np.rint, 1), "nearbyint": (np.rint, 1),
    "pow": (np.power, 2), "atan2": (np.arctan2, 2), "fmod": (np.fmod, 2), "hypot": (np.hypot, 2),
    "fmin": (np.fmin, 2), "fmax": (np.fmax, 2), "copysign": (np.copysign, 2), "fdim": (_fdim, 2),
    "remainder": (_vectorized(pymath.remainder), 2), "fma": (_fma, 3),
}  # fmt: skip
"""libdevice base name → (f64 function, arity)."""

FAST_F32 = ("exp", "exp10", "log", "log2", "log10", "sin", "cos", "tan", "pow")
"""Functions with an `__nv_fast_<name>f` variant (simulated as the accurate function)."""


class LibdeviceFunctions(InterpreterFunctions):
    """External `__nv_*` functions called with `func.call` (libdevice, linked into the PTX)."""


def _libdevice(fn: Callable[..., Any]) -> Impl:
    wrapped = _in_f64(fn)

    def run(ft: Any, interp: SimInterpreter, op: Operation, args: PythonValues) -> PythonValues:
        return (wrapped(*args),)

    return run


for _name, (_lfn, _arity) in LIBDEVICE.items():
    install_external(LibdeviceFunctions, f"__nv_{_name}f", _libdevice(_lfn))
    install_external(LibdeviceFunctions, f"__nv_{_name}", _libdevice(_lfn))
    if _name in FAST_F32:
        install_external(LibdeviceFunctions, f"__nv_fast_{_name}f", _libdevice(_lfn))
register_impls(LibdeviceFunctions)
