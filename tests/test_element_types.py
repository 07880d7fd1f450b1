"""`warpforge.dialects.element_types`: the one helper for an IR type's scalar kind, width and size."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import (
    IndexType,
    IntegerType,
    MemRefType,
    Signedness,
    VectorType,
    bf16,
    f16,
    f32,
    f64,
    i1,
    i8,
    i32,
    i64,
)

from warpforge.dialects import kernel, nvgpu
from warpforge.dialects.element_types import bit_width, byte_size, is_float, is_integer, is_signed, is_signless, scalar_kind, signless

SI8, UI16, SI32, UI64 = (IntegerType(w, s) for w, s in ((8, Signedness.SIGNED), (16, Signedness.UNSIGNED), (32, Signedness.SIGNED), (64, Signedness.UNSIGNED)))

TABLE = [  # type, kind, bits, bytes
    (i1, "bool", 1, 1),
    (SI8, "signed", 8, 1),
    (UI16, "unsigned", 16, 2),
    (SI32, "signed", 32, 4),
    (UI64, "unsigned", 64, 8),
    (i8, "signless", 8, 1),
    (i64, "signless", 64, 8),
    (IntegerType(128), "signless", 128, 16),
    (f16, "float", 16, 2),
    (bf16, "float", 16, 2),
    (f32, "float", 32, 4),
    (f64, "float", 64, 8),
    (IndexType(), "index", 64, 8),
]


@pytest.mark.parametrize(("t", "kind", "bits", "nbytes"), TABLE, ids=lambda v: str(v))
def test_kind_width_and_size(t, kind: str, bits: int, nbytes: int) -> None:
    assert scalar_kind(t) == kind
    assert bit_width(t) == bits
    assert byte_size(t) == nbytes
    assert is_float(t) == (kind == "float")
    assert is_integer(t) == (kind in ("signed", "unsigned", "signless"))
    assert is_signed(t) == (kind == "signed")
    assert is_signless(t) == (kind in ("bool", "signless"))
    assert signless(t) == (IntegerType(bits) if kind in ("signed", "unsigned") else t)


@pytest.mark.parametrize("t", [VectorType(f32, [4]), MemRefType(f32, [4])], ids=str)
def test_non_scalars_have_no_kind_and_no_width(t) -> None:
    assert scalar_kind(t) is None and not is_float(t) and not is_integer(t)
    with pytest.raises(TypeError, match="is not a scalar type"):
        bit_width(t)
    with pytest.raises(TypeError, match="is not a scalar type"):
        byte_size(t)


def test_the_kernel_scalar_rule_reads_the_kinds() -> None:
    # kernel scalars: bool, signed/unsigned 8-64-bit integers, floats; never signless wide ints or index
    accepted = [t for t, *_ in TABLE if kernel.is_scalar_type(t)]
    assert accepted == [i1, SI8, UI16, SI32, UI64, f16, bf16, f32, f64]
    assert kernel.is_int_type(SI32) and not kernel.is_int_type(i1) and kernel.is_float_type(bf16)


@pytest.mark.parametrize(("elem", "count", "nbytes"), [(f16, 8, 16), (f32, 2, 8), (i8, 4, 4), (f64, 2, 16)])
def test_cp_async_byte_count_uses_the_element_size(elem, count: int, nbytes: int) -> None:
    from xdsl.dialects.builtin import IntegerAttr
    from xdsl.dialects.test import TestOp

    src = TestOp(result_types=[MemRefType(elem, [64])]).results[0]
    dst = TestOp(result_types=[MemRefType(elem, [64], memory_space=IntegerAttr(3, i32))]).results[0]
    idx = TestOp(result_types=[IndexType()]).results[0]
    assert nvgpu.DeviceAsyncCopyOp(src, [idx], dst, [idx], count).byte_count() == nbytes
