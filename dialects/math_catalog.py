"""The catalog of elementwise and math builtins: one record per builtin, the single source of truth.

A record (`Builtin`) gives a builtin's Python names (`math.<name>` in kernels of both models,
`simt.<name>`, `tile.<name>`), its arity and type rule, its docstring, the scalar op that gives its
semantics (a class: an upstream `math` op, or a `kernel` op where MLIR has none with the Python
meaning), how its tile form lowers (per element by that scalar op, or `tile_approx`), the inputs it is
defined on (`domain`) and its NumPy reference. Everything else is derived from the table:

- the public stubs `simt.<name>` / `tile.<name>` with their docstrings (`help(simt.cdiv)`), served by
  `warpforge.simt` / `warpforge.tile` on first use (they load xDSL; `import warpforge` stays light);
- the frontend dispatch of both models (`warpforge.frontend.builtins`: the type rules);
- the tile ops (`tile.<mnemonic>`, generated in `warpforge.dialects.tile` with `SCALAR` = the op) and
  so `tile-to-gpu`'s elementwise lowering, which applies `kernel-to-gpu`'s lowering of `SCALAR` per
  register;
- `kernel-to-gpu`'s lowering of the `kernel` ops defined here whose semantics are an upstream op's on
  signless operands (`lowers_to`);
- the README's reference table of builtins (`scripts/gen_reference.py`, checked in CI) and the tests
  that run every record on the simulator and the GPU against NumPy (`tests/test_builtins.py`), one of
  which checks that the simulator interprets every op a record's lowering emits.

A new elementwise builtin is one record here, one op class if MLIR has none (below, next to its
record's neighbours), and its tests. Operators (`+`, `//`, `<<`, …), conversions, the Python builtins
`abs`/`min`/`max` (n-ary, folded on constants) and `math.isnan/isinf/isfinite` (compositions of
comparisons) are not builtins of this table.

Sources: MLIR's `math` dialect (op semantics), libdevice User's Guide (`__nv_*` functions), PTX ISA 9.0
§9.7.3 (`ex2`, `rsqrt`, `sqrt`), §9.7.1.x (`popc`, `clz`), Python's `math` module and NumPy 2 (types).
"""

from __future__ import annotations

import math as pymath
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
from xdsl.dialects import math
from xdsl.dialects.builtin import f32
from xdsl.ir import Attribute, Dialect, Operation
from xdsl.irdl import irdl_op_definition

from warpforge.dialects.kernel import FmodOp, HypotOp, _BinaryOp, _UnaryOp

# --------------------------------------------------------------------------- kernel ops MLIR lacks


@irdl_op_definition
class CeilDivOp(_BinaryOp):
    """`simt.cdiv(a, b)` / `tile.cdiv(a, b)`: integer division rounding toward +∞, ⌈a / b⌉, exact for
    every input (computed as the truncating quotient plus one where the remainder is non-zero and the
    quotient positive, never as `(a + b - 1) // b`, which overflows). Division by zero is a checked
    error with result 0, as `//`; `INT_MIN / -1` wraps. MLIR's `arith.ceildivsi`/`ceildivui` leave
    those undefined."""

    name = "kernel.ceildiv"
    ALLOWED: ClassVar[str] = "i"


@irdl_op_definition
class PopcOp(_UnaryOp):
    """`simt.popc(x)`: the number of set bits of an integer's two's-complement bits, in its own type
    (PTX `popc`, CUDA `__popc`/`__popcll`; `math.ctpop` on the signless type)."""

    name = "kernel.popc"
    ALLOWED: ClassVar[str] = "i"


@irdl_op_definition
class ClzOp(_UnaryOp):
    """`simt.clz(x)`: the number of leading zero bits, in its own type; `clz(0)` is the bit width (PTX
    `clz`, CUDA `__clz`/`__clzll`; `math.ctlz` on the signless type)."""

    name = "kernel.clz"
    ALLOWED: ClassVar[str] = "i"


@irdl_op_definition
class CtzOp(_UnaryOp):
    """`simt.ctz(x)`: trailing zero bits, in x's type; `ctz(0)` is the bit width (`math.cttz`)."""

    name = "kernel.ctz"
    ALLOWED: ClassVar[str] = "i"


# --------------------------------------------------------------------------- records


@dataclass(frozen=True)
class Approx:
    """A faster lowering of a builtin's tile form for one element type: `op(x · scale)`."""

    elem: Attribute
    """The element type it applies to (`f32`)."""
    op: type[Operation]
    scale: float
    doc: str


TYPE_RULES: dict[str, str] = {
    "float": "floats keep their type (f16/bf16 compute in f32), integers and bools become f64",
    "round": "a float op; in SIMT kernels the result is an i64 (Python's int), on tiles the float stays (NumPy), integer tiles are unchanged",
    "int": "integers only (bool and floats are a CompileError); operands take their common type (NEP 50)",
}
"""The type rules a record names (implemented once in `warpforge.frontend.builtins`)."""

ALLOWED_KINDS = {"float": "f", "round": "f", "int": "i"}
"""The element kinds each rule lets reach the op (`b` bool, `i` integers, `f` floats): the generated
tile op's verifier."""


@dataclass(frozen=True)
class Builtin:
    """One elementwise builtin. See the module docstring for what is derived from it."""

    name: str
    """The builtin's name in this table and the README."""
    op: type[Operation]
    """The scalar op with its semantics (an upstream `math` op or a `kernel` op)."""
    arity: int
    rule: str
    """A key of `TYPE_RULES`."""
    doc: str
    """What it computes and how it lowers (shapes: elementwise; units: as the inputs)."""
    math: bool = False
    """Also `math.<name>` in kernels (when this Python's `math` has it)."""
    simt: tuple[str, ...] = ()
    """Names in `warpforge.simt`."""
    tile: tuple[str, ...] = ()
    """Names in `warpforge.tile` (and `math.<name>` applies to tiles when `math`); empty: no tile form."""
    mnemonic: str = ""
    """The tile op is `tile.<mnemonic>` (default: the name)."""
    lowers_to: type[Operation] | None = None
    """For a `kernel` op of this module: the upstream op with its semantics on signless operands
    (`kernel-to-gpu` then needs no lowering written for it)."""
    tile_approx: Approx | None = None
    fold: Callable[..., Any] | None = None
    """Python's function for constant arguments (compile-time folding); None: computed at run time."""
    reference: Callable[..., Any] | None = None
    """The NumPy function the tests compare with (None: `numpy.<name>`)."""
    domain: tuple[float, float] = (-4.0, 4.0)
    """Where the tests draw inputs: the interval it is defined (and well conditioned) on."""
    params: tuple[str, ...] = ()
    """Parameter names for the docs (default x / a, b / a, b, c)."""
    simulator: str = ""
    """How the simulator falls short of the GPU for it, if it does ("": it interprets every op the
    lowering emits; `tests/test_builtins.py` checks that, and names a record's exception here)."""

    def __post_init__(self) -> None:
        assert self.rule in TYPE_RULES, self.rule
        assert self.arity in (1, 2, 3), self.arity
        assert not self.tile or self.arity in (1, 2), "tile forms are unary or binary"

    @property
    def tile_op_name(self) -> str:
        return f"tile.{self.mnemonic or self.name}"

    @property
    def parameters(self) -> tuple[str, ...]:
        return self.params or {1: ("x",), 2: ("a", "b"), 3: ("a", "b", "c")}[self.arity]

    def python_names(self) -> list[str]:
        """Every spelling in kernels: `math.x`, `simt.x`, `tile.x`."""
        names = [f"math.{self.name}"] if self.math else []
        return names + [f"simt.{n}" for n in self.simt] + [f"tile.{n}" for n in self.tile]

    def docstring(self, qualified: str) -> str:
        """The stub's docstring for `qualified` (`simt.cdiv`): signature, meaning, types, source."""
        text = f"`{qualified}({', '.join(self.parameters)})`: {self.doc}"
        if qualified.startswith("tile.") and self.tile_approx is not None:
            text += f" On tiles: {self.tile_approx.doc}"
        text += f"\n\nTypes: {TYPE_RULES[self.rule]}."
        if qualified.startswith("tile."):
            text += " Tiles and scalars broadcast as NumPy; with no tile argument the result is a scalar."
        return text


def _cdiv(a: int, b: int) -> int:
    if not isinstance(a, int) or not isinstance(b, int) or isinstance(a, bool) or isinstance(b, bool):
        raise TypeError(f"cdiv needs integers, got {a!r} and {b!r}")
    return -(-a // b)


def _fma(a: float, b: float, c: float) -> float:
    """a * b + c rounded once (exact in rationals), as Python 3.13's `math.fma`."""
    if not all(pymath.isfinite(v) for v in (a, b, c)):
        return float(a) * float(b) + float(c)
    return float(Fraction(a) * Fraction(b) + Fraction(c))


def _unsigned(x: np.ndarray) -> np.ndarray:
    return x.view(np.dtype(f"u{x.dtype.itemsize}"))


def _popc(x: np.ndarray) -> np.ndarray:
    return np.bitwise_count(_unsigned(x)).astype(x.dtype)


def _clz(x: np.ndarray) -> np.ndarray:
    u = _unsigned(x).astype(np.uint64)
    bits = np.zeros(u.shape, np.int64)
    v = u.copy()
    while np.any(v):  # bit length, one bit per round (inputs are small arrays)
        bits += v != 0
        v >>= np.uint64(1)
    return (8 * x.dtype.itemsize - bits).astype(x.dtype)


def _np_cdiv(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    q, r = np.divmod(a, b)  # floor quotient and remainder (b != 0)
    return (q + (r != 0)).astype(q.dtype)


def _np_rsqrt(x: np.ndarray) -> np.ndarray:
    return (1.0 / np.sqrt(x.astype(np.float64))).astype(x.dtype)


def _np_erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(pymath.erf, otypes=[np.float64])(x.astype(np.float64)).astype(x.dtype)


def _np_fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    return (a.astype(np.float64) * b + c).astype(a.dtype)  # exact product for f32 and narrower


LOG2E = 1.4426950408889634
"""log2(e), for exp(x) = 2^(x·log2 e)."""

_LIBDEVICE = "libdevice `__nv_{0}f`, `__nv_{0}`"


def _unary(name: str, op: type[Operation], doc: str, **kw: Any) -> Builtin:
    kw.setdefault("fold", getattr(pymath, name, None))
    return Builtin(name, op, 1, "float", doc, math=True, **kw)


BUILTINS: tuple[Builtin, ...] = (
    # ---------------------------------------------------------------- float, unary
    _unary("sqrt", math.SqrtOp, "the square root, correctly rounded (`sqrt.rn`, `llvm.sqrt`).", tile=("sqrt",), domain=(0.0, 100.0)),
    Builtin(
        "rsqrt", math.RsqrtOp, 1, "float", "1 / sqrt(x) (libdevice `__nv_rsqrt[f]`: `rsqrt.approx`, 2 ulp on f32).",
        simt=("rsqrt",), tile=("rsqrt",), fold=lambda x: 1.0 / pymath.sqrt(x), reference=_np_rsqrt, domain=(0.01, 100.0),
    ),
    _unary(
        "exp", math.ExpOp, "e**x (" + _LIBDEVICE.format("exp") + ").", tile=("exp",),
        tile_approx=Approx(f32, math.Exp2Op, LOG2E, "f32 uses `ex2.approx(x·log2 e)` (about 2 ulp + |x|·2⁻²⁴, subnormal results flush to 0), the accuracy of CUDA's `__expf`."),
    ),
    _unary(
        "exp2", math.Exp2Op, "2**x: f32 (and f16/bf16, through f32) is PTX `ex2.approx.f32` (libdevice `__nv_exp2f`, 2 ulp); f64 is libdevice `__nv_exp2`.",
        simt=("exp2",), tile=("exp2",), fold=lambda x: 2.0**x,
    ),
    _unary("expm1", math.ExpM1Op, "e**x - 1, accurate near 0 (" + _LIBDEVICE.format("expm1") + ").", tile=("expm1",)),
    _unary("log", math.LogOp, "the natural logarithm (" + _LIBDEVICE.format("log") + ").", tile=("log",), domain=(0.01, 100.0)),
    _unary("log2", math.Log2Op, "the base-2 logarithm (" + _LIBDEVICE.format("log2") + ").", tile=("log2",), domain=(0.01, 100.0)),
    _unary("log10", math.Log10Op, "the base-10 logarithm (" + _LIBDEVICE.format("log10") + ").", tile=("log10",), domain=(0.01, 100.0)),
    _unary("log1p", math.Log1pOp, "log(1 + x), accurate near 0 (" + _LIBDEVICE.format("log1p") + ").", tile=("log1p",), domain=(-0.9, 10.0)),
    _unary("sin", math.SinOp, "the sine, x in radians (" + _LIBDEVICE.format("sin") + ").", tile=("sin",)),
    _unary("cos", math.CosOp, "the cosine, x in radians (" + _LIBDEVICE.format("cos") + ").", tile=("cos",)),
    _unary("tan", math.TanOp, "the tangent, x in radians (" + _LIBDEVICE.format("tan") + ").", tile=("tan",), domain=(-1.4, 1.4)),
    _unary("asin", math.AsinOp, "the arc sine, in radians (" + _LIBDEVICE.format("asin") + ").", domain=(-1.0, 1.0), reference=np.arcsin),
    _unary("acos", math.AcosOp, "the arc cosine, in radians (" + _LIBDEVICE.format("acos") + ").", domain=(-1.0, 1.0), reference=np.arccos),
    _unary("atan", math.AtanOp, "the arc tangent, in radians (" + _LIBDEVICE.format("atan") + ").", tile=("atan",), reference=np.arctan),
    _unary("sinh", math.SinhOp, "the hyperbolic sine (" + _LIBDEVICE.format("sinh") + ").", domain=(-3.0, 3.0)),
    _unary("cosh", math.CoshOp, "the hyperbolic cosine (" + _LIBDEVICE.format("cosh") + ").", domain=(-3.0, 3.0)),
    _unary("tanh", math.TanhOp, "the hyperbolic tangent (" + _LIBDEVICE.format("tanh") + ").", tile=("tanh",)),
    _unary("asinh", math.AsinhOp, "the inverse hyperbolic sine (" + _LIBDEVICE.format("asinh") + ").", reference=np.arcsinh),
    _unary("acosh", math.AcoshOp, "the inverse hyperbolic cosine (" + _LIBDEVICE.format("acosh") + ").", domain=(1.0, 10.0), reference=np.arccosh),
    _unary("atanh", math.AtanhOp, "the inverse hyperbolic tangent (" + _LIBDEVICE.format("atanh") + ").", domain=(-0.9, 0.9), reference=np.arctanh),
    _unary("erf", math.ErfOp, "the error function (" + _LIBDEVICE.format("erf") + "), e.g. for an exact GELU.", tile=("erf",), reference=_np_erf),
    _unary("cbrt", math.CbrtOp, "the cube root (" + _LIBDEVICE.format("cbrt") + ").", domain=(-100.0, 100.0)),
    _unary("fabs", math.AbsFOp, "the absolute value as a float (`abs.f32`, `llvm.fabs`).", reference=np.abs),
    # ---------------------------------------------------------------- float, rounding
    Builtin("floor", math.FloorOp, 1, "round", "rounds toward −∞ (`cvt.rmi`, `llvm.floor`).", math=True, tile=("floor",), fold=pymath.floor, domain=(-100.0, 100.0)),
    Builtin("ceil", math.CeilOp, 1, "round", "rounds toward +∞ (`cvt.rpi`, `llvm.ceil`).", math=True, tile=("ceil",), fold=pymath.ceil, domain=(-100.0, 100.0)),
    Builtin("trunc", math.TruncOp, 1, "round", "rounds toward 0 (`cvt.rzi`, `llvm.trunc`).", math=True, tile=("trunc",), fold=pymath.trunc, domain=(-100.0, 100.0)),
    Builtin("rint", math.RoundEvenOp, 1, "round", "rounds to the nearest integer, halves to even, as Python's `round(x)` and `numpy.rint` (`cvt.rni`, `llvm.roundeven`).", simt=("rint",), tile=("rint",), fold=round, domain=(-100.0, 100.0)),
    # ---------------------------------------------------------------- float, binary and ternary
    Builtin("atan2", math.Atan2Op, 2, "float", "the angle of the point (b, a), in radians, (−π, π] (" + _LIBDEVICE.format("atan2") + ").", math=True, tile=("atan2",), fold=pymath.atan2, reference=np.arctan2, params=("y", "x")),
    Builtin("pow", math.PowFOp, 2, "float", "a**b on floats (" + _LIBDEVICE.format("pow") + "); on tiles use `**`.", math=True, fold=pymath.pow, reference=np.power, domain=(0.1, 4.0)),
    Builtin("copysign", math.CopySignOp, 2, "float", "the magnitude of a with the sign of b (`llvm.copysign`).", math=True, tile=("copysign",), fold=pymath.copysign),
    Builtin("fmod", FmodOp, 2, "float", "C's fmod: the remainder of truncating division, with a's sign (libdevice `fmod`; f16/bf16 through f32, exact).", math=True, tile=("fmod",), fold=pymath.fmod, domain=(0.5, 8.0)),
    Builtin("hypot", HypotOp, 2, "float", "sqrt(a² + b²) without intermediate overflow or underflow (libdevice `hypot`; C99 Annex F: hypot(±inf, NaN) = +inf).", math=True, tile=("hypot",), fold=pymath.hypot),
    Builtin(
        "fma", math.FmaOp, 3, "float", "a * b + c with one rounding (`fma.rn`, `llvm.fma`; Python 3.13's `math.fma`).",
        math=True, simt=("fma",), fold=_fma, reference=_np_fma,
    ),
    # ---------------------------------------------------------------- integers
    Builtin(
        "cdiv", CeilDivOp, 2, "int", "⌈a / b⌉, integer division rounding up (e.g. the number of tiles of size b covering a); exact for every input; division by zero is a checked error with result 0, as `//`.",
        simt=("cdiv",), tile=("cdiv",), mnemonic="ceildiv", fold=_cdiv, reference=_np_cdiv, domain=(-1000.0, 1000.0),
    ),
    Builtin(
        "popc", PopcOp, 1, "int", "the number of set bits of x's two's-complement bits (PTX `popc`, CUDA `__popc`), in x's type. Unlike `numpy.bitwise_count`, a negative x counts its sign bits.",
        simt=("popc",), tile=("popc",), lowers_to=math.CtPopOp, reference=_popc, domain=(-1000.0, 1000.0),
    ),
    Builtin(
        "clz", ClzOp, 1, "int", "the number of leading zero bits of x (PTX `clz`, CUDA `__clz`), in x's type; `clz(0)` is the bit width, a negative x gives 0.",
        simt=("clz",), tile=("clz",), lowers_to=math.CountLeadingZerosOp, reference=_clz, domain=(-1000.0, 1000.0),
    ),
    Builtin(
        "ctz", CtzOp, 1, "int", "the number of trailing zero bits of x, in x's type; `ctz(0)` is the bit width.",
        simt=("ctz",), tile=("ctz",), lowers_to=math.CountTrailingZerosOp,
        reference=lambda x: np.where(x == 0, 8 * x.dtype.itemsize, np.bitwise_count(((x & -x) - 1).view(np.dtype(f"u{x.dtype.itemsize}")))).astype(x.dtype),
        domain=(-1000.0, 1000.0),
    ),
)  # fmt: skip
"""Every elementwise builtin."""

KERNEL_OPS: tuple[type[Operation], ...] = tuple(sorted({b.op for b in BUILTINS if b.op.__module__ == __name__}, key=lambda op: op.name))
"""The `kernel` ops defined in this module, found from the records (registered into the `kernel`
dialect by its table, `warpforge.dialects.kernel`)."""



BY_PYTHON_NAME: dict[str, Builtin] = {n: b for b in BUILTINS for n in b.python_names()}
"""`math.exp2` / `simt.cdiv` / `tile.cdiv` → its record."""

TILE_FORMS: tuple[Builtin, ...] = tuple(b for b in BUILTINS if b.tile)
"""The records with a tile op."""


def reference(b: Builtin) -> Callable[..., Any]:
    """The NumPy function the tests compare `b` with."""
    return b.reference if b.reference is not None else getattr(np, b.name)
