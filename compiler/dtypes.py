"""warpforge's scalar dtypes: `bool_`, `i8`…`i64`, `u8`…`u64`, `f16`, `bf16`, `f32`, `f64`.

Each is a `DType` that annotates kernel parameters (`simt.Slice[f32]`, `n: wf.i32`), converts inside
kernels (`wf.i32(x)`, NumPy semantics: integers wrap, floats saturate), and names the host dtype
(`.np`, a `numpy.dtype`; bf16 is `ml_dtypes.bfloat16`). In the `kernel` dialect integers keep their
signedness (`si32`, `ui8`); lowering makes it explicit in the ops and drops it from the types.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
else:  # NumPy loads at first use, not at `import warpforge`
    from warpforge.lazy_import import numpy as np

if TYPE_CHECKING:  # xDSL loads when a kernel compiles, not at `import warpforge`
    from xdsl.ir import Attribute

from warpforge.errors import UsageError


@dataclass(frozen=True, eq=True)
class DType:
    """A scalar type. `kind` is `"b"` (bool), `"i"` (signed), `"u"` (unsigned) or `"f"` (float)."""

    name: str
    kind: str
    bits: int

    def __repr__(self) -> str:
        return f"wf.{self.name}"

    @property
    def is_bool(self) -> bool:
        return self.kind == "b"

    @property
    def is_int(self) -> bool:
        """Signed or unsigned integer (not bool)."""
        return self.kind in "iu"

    @property
    def is_signed(self) -> bool:
        return self.kind == "i"

    @property
    def is_unsigned(self) -> bool:
        return self.kind == "u"

    @property
    def is_float(self) -> bool:
        return self.kind == "f"

    @cached_property
    def np(self) -> np.dtype[Any]:
        """The NumPy dtype of host data of this type."""
        if self.name == "bf16":
            import ml_dtypes

            return np.dtype(ml_dtypes.bfloat16)
        return np.dtype({"bool": "bool", "f16": "float16", "f32": "float32", "f64": "float64"}.get(self.name, self.name.replace("i", "int").replace("u", "uint")))

    @cached_property
    def mlir(self) -> Attribute:
        """The type in the `kernel` dialect: `i1`, `si32`, `ui8`, `f16`, `bf16`, `f32`, `f64`."""
        from xdsl.dialects import builtin

        if self.is_bool:
            return builtin.i1
        if self.is_int:
            sign = builtin.Signedness.SIGNED if self.is_signed else builtin.Signedness.UNSIGNED
            return builtin.IntegerType(self.bits, sign)
        return {16: builtin.f16, 32: builtin.f32, 64: builtin.f64}[self.bits] if self.name != "bf16" else builtin.bf16

    @cached_property
    def signless(self) -> Attribute:
        """The type after lowering (`i1`, `i32`, `f32`…): signedness lives in the ops."""
        from xdsl.dialects import builtin

        if self.is_bool:
            return builtin.i1
        if self.is_int:
            return builtin.IntegerType(self.bits)
        return self.mlir

    @property
    def min(self) -> int | float:
        if self.is_bool:
            return 0
        if self.is_int:
            return int(np.iinfo(self.np).min)
        return float(np.finfo(self.np).min) if self.name != "bf16" else -3.3895313892515355e38

    @property
    def max(self) -> int | float:
        if self.is_bool:
            return 1
        if self.is_int:
            return int(np.iinfo(self.np).max)
        return float(np.finfo(self.np).max) if self.name != "bf16" else 3.3895313892515355e38

    def __call__(self, value: Any) -> Any:
        """On the host: a NumPy scalar of this type. Inside a kernel the frontend treats `wf.i32(x)` as a cast."""
        return self.np.type(value)


bool_ = DType("bool", "b", 1)
i8 = DType("i8", "i", 8)
i16 = DType("i16", "i", 16)
i32 = DType("i32", "i", 32)
i64 = DType("i64", "i", 64)
u8 = DType("u8", "u", 8)
u16 = DType("u16", "u", 16)
u32 = DType("u32", "u", 32)
u64 = DType("u64", "u", 64)
f16 = DType("f16", "f", 16)
bf16 = DType("bf16", "f", 16)
f32 = DType("f32", "f", 32)
f64 = DType("f64", "f", 64)

ALL: tuple[DType, ...] = (bool_, i8, i16, i32, i64, u8, u16, u32, u64, f16, bf16, f32, f64)
BY_NAME: dict[str, DType] = {d.name: d for d in ALL}


def from_numpy(dtype: Any) -> DType:
    """The `DType` of a NumPy dtype (or anything `numpy.dtype()` accepts, or a `DType`).

    Raises `UsageError` (a `TypeError`) for dtypes warpforge does not support (complex, object,
    strings, …), for `None` (NumPy would read it as float64) and for what is not a dtype at all.
    """
    from warpforge.errors import UsageError

    if isinstance(dtype, DType):
        return dtype
    if hasattr(dtype, "np") and isinstance(dtype.np, np.dtype):
        return from_numpy(dtype.np)
    supported = ", ".join(d.name for d in ALL)
    if dtype is None:
        raise UsageError(f"a dtype is needed, got None (supported: {supported})")
    try:
        dt = np.dtype(dtype)
    except (TypeError, ValueError) as e:
        raise UsageError(f"{dtype!r} is not a dtype ({e}); pass a warpforge dtype such as wf.f32 (supported: {supported})") from None
    for d in ALL:
        if d.np == dt:
            return d
    raise UsageError(f"dtype {dt} is not supported by warpforge (supported: {supported})")


def from_mlir(typ: Attribute) -> DType:
    """The `DType` of a `kernel`-dialect scalar type (`si32`, `i1`, `f32`, …)."""
    for d in ALL:
        if d.mlir == typ:
            return d
    raise TypeError(f"{typ} is not a warpforge scalar type")


def promote(a: DType, b: DType) -> DType:
    """The result dtype of a binary arithmetic op on two typed (strong) values, NumPy 2 rules (NEP 50).

    Raises `TypeError` for `u64` with a signed integer (NumPy gives float64, silently losing
    precision; warpforge refuses) — the caller turns it into a `CompileError` with the location.
    """
    if a == b:
        return a
    if (a == u64 and b.is_signed) or (b == u64 and a.is_signed):
        raise TypeError(f"mixing {a.name} and {b.name} has no exact common type (NumPy would use f64); cast one side explicitly")
    if bf16 in (a, b):
        other = b if a == bf16 else a
        if other.is_bool or (other.is_int and other.bits <= 8):
            return bf16
        return f32 if other in (f16,) or (other.is_int and other.bits <= 16) else (other if other.is_float else f64)
    return from_numpy(np.result_type(a.np, b.np))


def promote_weak(strong: DType, literal: bool | int | float) -> DType:
    """The result dtype of `strong op literal` where the Python literal is weak (NEP 50): the strong
    type wins unless the literal is of a higher kind (`i32 * 1.5` → f64, `bool + 1` → i64)."""
    if strong == bf16:
        return bf16
    return from_numpy(np.result_type(strong.np, type(literal)(0)))


def literal_dtype(value: bool | int | float) -> DType:
    """The default dtype of a Python literal that becomes a value of its own: bool, i64, f64."""
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return i64
    return f64
