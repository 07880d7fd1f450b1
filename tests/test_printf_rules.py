"""The formatting rules of kernel `print()` (`warpforge.dialects._printf`), checked two ways:

- the simulator's printf (`format_printf`) against the C library's own `snprintf` (through ctypes),
  for every conversion, flag, width and precision warpforge emits, on random values — so the
  simulator prints what CUDA's printf (C's rules) prints;
- every format spec `printf_conversion` accepts means in C what it means in Python: `format(v, spec)`
  equals printf of the conversion it maps to (floats with an explicit type; the bare `{x}` of a float
  is `%f` on purpose, numba-cuda's rule, documented in the README).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from warpforge.dialects._printf import format_printf, parse_printf, printf_conversion, python_fields

_libc_name = ctypes.util.find_library("c")
libc = ctypes.CDLL(_libc_name) if _libc_name else None
needs_libc = pytest.mark.skipif(libc is None, reason="no C library to compare with")

SETTINGS = settings(max_examples=300, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])

flags = st.sampled_from(["", "-", "+", " ", "0", "-+", "+0", " 0"])
widths = st.sampled_from(["", "1", "5", "12", "25"])
precisions = st.sampled_from([None, "0", "1", "3", "6", "10"])


def c_printf(fmt: str, *args: object) -> str:
    assert libc is not None
    buf = ctypes.create_string_buffer(512)
    n = libc.snprintf(buf, 512, fmt.encode(), *args)
    assert 0 <= n < 512
    return buf.value.decode()


@needs_libc
@SETTINGS
@given(flag=flags, width=widths, precision=precisions, letter=st.sampled_from("fFeEgG"), x=st.floats(allow_nan=True, allow_infinity=True))
def test_floats_print_as_c_prints_them(flag: str, width: str, precision: str | None, letter: str, x: float) -> None:
    fmt = f"%{flag}{width}{'' if precision is None else '.' + precision}{letter}"
    if math.isnan(x):
        x = math.copysign(math.nan, x)
    assert format_printf(fmt, [x]) == c_printf(fmt, ctypes.c_double(x))


@needs_libc
@SETTINGS
@given(
    flag=flags, width=widths, letter=st.sampled_from("diuxXo"), long=st.booleans(),
    v=st.integers(min_value=-(2**63), max_value=2**64 - 1),
)  # fmt: skip
def test_integers_print_as_c_prints_them(flag: str, width: str, letter: str, long: bool, v: int) -> None:
    fmt = f"%{flag}{width}{'ll' if long else ''}{letter}"
    bits = 64 if long else 32
    raw = v & ((1 << bits) - 1)
    arg = ctypes.c_ulonglong(raw) if long else ctypes.c_uint(raw)
    assert format_printf(fmt, [v]) == c_printf(fmt, arg)


@needs_libc
def test_bools_and_literal_percent_signs() -> None:
    assert format_printf("%s|%-6s|%6s|100%%", [True, False, True]) == "True|False |  True|100%"
    assert c_printf("%s|%-6s|%6s|100%%", b"True", b"False", b"True") == "True|False |  True|100%"


specs = st.builds(
    lambda a, s, z, w, p, t: a + s + z + w + p + t,
    st.sampled_from(["", "<", ">"]), st.sampled_from(["", "+", "-", " "]), st.sampled_from(["", "0"]),
    st.sampled_from(["", "1", "7", "15"]), st.sampled_from(["", ".0", ".2", ".5"]),
    st.sampled_from(["", "d", "x", "X", "o", "f", "F", "e", "E", "g", "G"]),
)  # fmt: skip


@SETTINGS
@given(spec=specs, signed=st.booleans(), bits=st.sampled_from([8, 16, 32, 64]), data=st.data())
def test_accepted_integer_specs_mean_what_they_mean_in_python(spec: str, signed: bool, bits: int, data: st.DataObject) -> None:
    lo, hi = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else (0, 2**bits - 1)
    v = data.draw(st.integers(min_value=lo, max_value=hi))
    if spec[-1:] in "fFeEgG" and spec:
        return  # a float presentation of an integer: the frontend converts it to f64 first
    try:
        conv = printf_conversion(spec, "i" if signed else "u", bits)
    except ValueError:
        return  # refused (with a message) — the point is that what is accepted is exact
    assert format_printf(conv, [v]) == format(v, spec), (spec, conv, v)


@SETTINGS
@given(spec=specs, x=st.floats(allow_nan=False, allow_infinity=True, width=64))
def test_accepted_float_specs_mean_what_they_mean_in_python(spec: str, x: float) -> None:
    try:
        conv = printf_conversion(spec, "f", 64)
    except ValueError:
        return
    if spec[-1:] not in "fFeEgG" or not spec:
        assert conv.endswith("f")  # bare {x} / {x:>8}: printf's %f, documented
        return
    if math.isinf(x) and "0" in conv.split(".")[0][1:].lstrip("-+ ")[:1]:
        return  # zero padding of inf: C pads with spaces (what both backends print), Python with zeros
    assert format_printf(conv, [x]) == format(x, spec), (spec, conv, x)


@pytest.mark.parametrize(
    ("spec", "kind", "message"),
    [
        ("^5", "f", "no printf equivalent"), ("*<5", "i", "no printf equivalent"), (",", "i", "no printf equivalent"),
        ("#x", "u", "no printf equivalent"), ("x", "i", "two's-complement"), ("+", "u", "no sign for unsigned"),
        (".2", "f", "needs a type letter"), (".2d", "i", "no precision"), ("<05", "i", "zero padding with an explicit alignment"), (">05", "f", "zero padding with an explicit alignment"),
        ("s", "i", "not supported for integers"), ("d", "f", "not a float presentation"), (">3", "b", "takes no format spec"),
    ],
)  # fmt: skip
def test_specs_without_an_exact_printf_meaning_are_refused(spec: str, kind: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        printf_conversion(spec, kind, 32)


def test_format_strings_parse_into_fields_and_conversions() -> None:
    assert python_fields("a {} b {:.3f} {{c}} %") == [("a ", ""), (" b ", ".3f"), (" {c} %", None)]
    with pytest.raises(ValueError, match="anonymous"):
        python_fields("{x}")
    parts = parse_printf("a %lld b %.3f %s %%")
    assert [p if isinstance(p, str) else p.operand for p in parts] == ["a ", "i64", " b ", "f64", " ", "i1", " ", "%"]
    for bad in ("%p", "%n", "%#x", "%hd", "50%", "%Lf"):
        with pytest.raises(ValueError):
            parse_printf(bad)
