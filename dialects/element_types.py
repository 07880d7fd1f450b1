"""What kind of scalar an IR type is, how wide it is and how many bytes it takes: the one place the
dialects, the passes and the compile driver ask.

The kinds follow MLIR's builtin types (`IntegerType` with its signedness, `FloatType`, `IndexType`;
MLIR's `Type::isSignedInteger`, `isSignlessInteger`, `isa<FloatType>`, `getIntOrFloatBitWidth`):

| kind | types | `bit_width` | `byte_size` |
|---|---|---|---|
| `bool` | `i1` | 1 | 1 (a byte in memory, as PTX and NumPy store bools) |
| `signed` | `si8` … `si64` | 8 … 64 | 1 … 8 |
| `unsigned` | `ui8` … `ui64` | 8 … 64 | 1 … 8 |
| `signless` | `i8` … `i128` (the gpu level and below) | 8 … 128 | 1 … 16 |
| `float` | `f16`, `bf16`, `f32`, `f64` (and xDSL's other floats) | 16 … 64 | 2 … 8 |
| `index` | `index` | 64 (NVPTX's pointer width) | 8 |

`kernel`-level types keep their signedness; `signless()` drops it for the levels below, where the
ops say how they read the bits (`divsi`/`divui`, `extsi`/`extui`).
"""

from __future__ import annotations

from typing import Literal

from xdsl.dialects.builtin import AnyFloat, IndexType, IntegerType, Signedness
from xdsl.ir import Attribute

ScalarKind = Literal["bool", "signed", "unsigned", "signless", "float", "index"]

INDEX_BITS = 64
"""Width of `index` on NVPTX (64-bit pointers, `nvptx64-nvidia-cuda`)."""


def scalar_kind(t: Attribute) -> ScalarKind | None:
    """The kind of scalar `t` is (see the table above); None for anything else (a vector, a memref)."""
    if isinstance(t, IntegerType):
        if t.width.data == 1:
            return "bool"
        return {Signedness.SIGNED: "signed", Signedness.UNSIGNED: "unsigned"}.get(t.signedness.data, "signless")
    if isinstance(t, AnyFloat):
        return "float"
    if isinstance(t, IndexType):
        return "index"
    return None


def kind_letter(t: Attribute) -> str:
    """The letter the lowering tables key on: `b` (bool, `i1`), `f` (float), `i` (signed integer) or
    `u` (any other integer: unsigned, signless, `index`)."""
    kind = scalar_kind(t)
    return "b" if kind == "bool" else "f" if kind == "float" else "i" if kind == "signed" else "u"


def is_float(t: Attribute) -> bool:
    """`f16`, `bf16`, `f32`, `f64` (any xDSL float type)."""
    return isinstance(t, AnyFloat)


def is_integer(t: Attribute) -> bool:
    """An integer other than bool, of any signedness (`si32`, `ui8`, `i64`; not `i1`, not `index`)."""
    return isinstance(t, IntegerType) and t.width.data != 1


def is_signed(t: Attribute) -> bool:
    """A signed integer (`si8` … `si64`)."""
    return isinstance(t, IntegerType) and t.signedness.data == Signedness.SIGNED


def is_signless(t: Attribute) -> bool:
    """A signless integer, bool included (`i1`, `i32`): what `arith` and `llvm` ops take."""
    return isinstance(t, IntegerType) and t.signedness.data == Signedness.SIGNLESS


def bit_width(t: Attribute) -> int:
    """Bits of a scalar type (see the table above). Raises `TypeError` for a type that is not a scalar."""
    if isinstance(t, IntegerType):
        return t.width.data
    if isinstance(t, AnyFloat):
        return t.bitwidth
    if isinstance(t, IndexType):
        return INDEX_BITS
    raise TypeError(f"{t} is not a scalar type")


def byte_size(t: Attribute) -> int:
    """Bytes one element of scalar type `t` takes in memory: its width rounded up to whole bytes
    (bool: 1). Raises `TypeError` for a type that is not a scalar."""
    return max(1, (bit_width(t) + 7) // 8)


def signless(t: Attribute) -> Attribute:
    """`si32`/`ui32` → `i32`; other types unchanged (MLIR's gpu-level integers have no signedness)."""
    if isinstance(t, IntegerType) and t.signedness.data != Signedness.SIGNLESS:
        return IntegerType(t.width.data)
    return t
