"""The formatting rules of kernel `print()`, shared by `kernel.print`, `gpu.printf`, their lowerings and
the simulator, so that both backends print the same text.

Two levels, as the ops:

- `kernel.print` holds a Python format string (`"i = {} x = {:.3f}\\n"`, `str.format` syntax with
  anonymous fields only) and typed operands. `printf_conversion` maps each field (its format spec and
  its operand's kind) to the C conversion CUDA's `vprintf` understands, or refuses it with a message:
  only specs whose printf meaning is the Python meaning are accepted.
- `gpu.printf` holds a C format string (`"i = %lld x = %.3f\\n"`, MLIR's `gpu.printf`) whose
  conversions match the operands exactly: `%d %i %u %x %X %o %c` take `i32` (with `ll`: `i64`),
  `%f %F %e %E %g %G` take `f64`, and — warpforge's extension, MLIR has no string operands — `%s`
  takes an `i1` and prints `True` or `False`. `parse_printf` checks that; `format_printf` is printf
  itself (C99 §7.19.6.1 semantics, through Python's `%` operator, which follows C for these
  conversions), for the simulator.

The value rules (CUDA's ABI for variadic arguments, CUDA C Programming Guide, "Formatted Output"):
integers narrower than 32 bits are promoted to 32 (sign- or zero-extended by their signedness),
64-bit ones print with `%lld`/`%llu`; every float (f16, bf16, f32, f64) is converted to f64 and prints
with `%f` unless a spec says otherwise (numba-cuda's rule, not Python's shortest `repr`); bools print
`True`/`False`.
"""

from __future__ import annotations

import math
import re
import string
from dataclasses import dataclass

KIND_BOOL, KIND_SIGNED, KIND_UNSIGNED, KIND_FLOAT = "b", "i", "u", "f"

MAX_ARGS = 32
"""Arguments one CUDA `printf` takes besides the format; it ignores any beyond (CUDA C Programming
Guide, "Formatted Output", Limitations), so more are refused."""

_SPEC = re.compile(
    r"(?P<align>[<>])?(?P<sign>[-+ ])?(?P<zero>0)?(?P<width>[1-9][0-9]*)?(?:\.(?P<precision>[0-9]+))?(?P<type>[a-zA-Z%])?"
)
_INT_TYPES = {"": "d", "d": "d", "x": "x", "X": "X", "o": "o"}
FLOAT_TYPES = ("f", "F", "e", "E", "g", "G")


def is_float_spec(spec: str) -> bool:
    """True if the format spec asks for a float presentation (`.3f`, `e`, `>10g`): an integer operand
    is then converted to f64 first, as Python's `format(3, ".2f")` does."""
    m = _SPEC.fullmatch(spec)
    return bool(m) and (m.group("type") or "") in FLOAT_TYPES


def printf_conversion(spec: str, kind: str, bits: int) -> str:
    """The printf conversion (`"%-8.3f"`, `"%lld"`, `"%s"`) for one `kernel.print` field.

    `spec` is the field's Python format spec (`""`, `".3f"`, `">8d"`, `"08x"`, `"+e"`); `kind` is
    `"b"` (bool), `"i"`/`"u"` (signed/unsigned integer of `bits` 8–64) or `"f"` (any float). Accepted:
    alignment `<`/`>` (no fill character), sign `+`/`-`/space (signed and float only), `0` padding
    (without an alignment: then it is sign-aware, as printf's), width, precision (floats, with a
    type letter), and the types `d` (integers), `x X o` (unsigned
    integers: printf prints the two's-complement bits of a negative number where Python writes `-`),
    `f F e E g G` (floats). Raises `ValueError` with the reason for anything else (`^`, `=`, fill
    characters, `,` `_`, `#`, `%`, `n`, `c`, `s`, `b`, and specs on bools)."""
    if kind == KIND_BOOL:
        if spec:
            raise ValueError(f"a bool takes no format spec (it prints True/False); got ':{spec}' (use int(b) to format it as a number)")
        return "%s"
    m = _SPEC.fullmatch(spec)
    if m is None:
        raise ValueError(
            f"the format spec ':{spec}' has no printf equivalent in a kernel (supported: [<|>][+|-| ][0][width][.precision][type], "
            "no fill character, no '^' '=' ',' '_' '#')"
        )
    align, sign, zero, width = m.group("align") or "", m.group("sign") or "", m.group("zero") or "", m.group("width") or ""
    precision, typ = m.group("precision"), m.group("type") or ""
    if zero and align:
        raise ValueError(
            f"':{spec}': zero padding with an explicit alignment has no printf equivalent (Python then pads with '0' "
            "as a fill character, before the sign); write ':0<width>' for sign-aware zero padding"
        )
    flags = ("-" if align == "<" else "") + ("" if sign == "-" else sign) + zero
    if kind == KIND_FLOAT:
        if typ not in ("", *FLOAT_TYPES):
            raise ValueError(f"':{spec}': the type '{typ}' is not a float presentation (use f, F, e, E, g or G)")
        if precision is not None and not typ:
            raise ValueError(f"':{spec}': a precision needs a type letter in a kernel (e.g. ':.{precision}f' or ':.{precision}g')")
        return f"%{flags}{width}{'' if precision is None else '.' + precision}{typ or 'f'}"
    if typ in FLOAT_TYPES:
        raise ValueError(f"':{spec}': a float presentation needs a float operand (convert the integer to f64 first)")
    if typ not in _INT_TYPES:
        raise ValueError(f"':{spec}': the type '{typ}' is not supported for integers in a kernel (use d, x, X or o)")
    if precision is not None:
        raise ValueError(f"':{spec}': an integer takes no precision (as in Python)")
    letter = _INT_TYPES[typ]
    if kind == KIND_SIGNED and letter != "d":
        raise ValueError(
            f"':{spec}': '{typ}' of a signed integer would print its two's-complement bits, not Python's '-…'; "
            "convert it to an unsigned type first (e.g. wf.u32(x))"
        )
    if kind == KIND_UNSIGNED and sign in ("+", " "):
        raise ValueError(f"':{spec}': printf has no sign for unsigned integers")
    if kind == KIND_UNSIGNED and letter == "d":
        letter = "u"
    return f"%{flags}{width}{'ll' if bits == 64 else ''}{letter}"


def python_fields(fmt: str) -> list[tuple[str, str | None]]:
    """`kernel.print`'s format as (literal text, field spec or None) pairs; the last pair has None.

    Fields are anonymous (`{}` or `{:spec}`), `{{`/`}}` are braces. Raises `ValueError` otherwise."""
    out: list[tuple[str, str | None]] = []
    try:
        parsed = list(string.Formatter().parse(fmt))
    except ValueError as e:
        raise ValueError(f"bad format string {fmt!r}: {e}") from None
    pending = ""
    for literal, name, spec, conversion in parsed:
        pending += literal
        if name is None:
            continue
        if name != "" or conversion is not None:
            written = "{" + name + ("!" + conversion if conversion else "") + "}"
            raise ValueError(f"kernel.print fields are anonymous, without a conversion ('{{}}' or '{{:spec}}'); got '{written}'")
        if "{" in (spec or ""):
            raise ValueError("nested fields in a format spec are not supported")
        out.append((pending, spec or ""))
        pending = ""
    out.append((pending, None))
    return out


def parse_format(parser: object) -> str:
    """The format string literal of `kernel.print`/`gpu.printf` in custom syntax. xDSL prints non-ASCII
    text as UTF-8 byte escapes (`"\\CF\\80"` for `π`), which its string-literal parser refuses; those
    parse as bytes and are decoded here."""
    text = parser.parse_optional_str_literal()  # pyright: ignore[reportAttributeAccessIssue]
    if text is not None:
        return text
    raw = parser.parse_optional_bytes_literal()  # pyright: ignore[reportAttributeAccessIssue]
    if raw is not None:
        try:
            return raw.decode()
        except UnicodeDecodeError:
            parser.raise_error("the format is not valid UTF-8")  # pyright: ignore[reportAttributeAccessIssue]
    return parser.parse_str_literal(" (the format)")  # pyright: ignore[reportAttributeAccessIssue]


def escape_percent(text: str) -> str:
    return text.replace("%", "%%")


# --------------------------------------------------------------------------- the printf level

_CONVERSION = re.compile(r"%(?P<flags>[-+ 0#]*)(?P<width>[0-9]*)(?:\.(?P<precision>[0-9]*))?(?P<length>hh|h|ll|l|L|j|z|t)?(?P<conv>.?)", re.S)
INT_CONVERSIONS = "diuxXoc"
FLOAT_CONVERSIONS = "fFeEgG"


@dataclass(frozen=True)
class Conversion:
    """One `%…` of a printf format: its text, its flags, width, precision, length and letter."""

    text: str
    flags: str
    width: str
    precision: str | None
    length: str
    letter: str

    @property
    def operand(self) -> str:
        """What the argument must be: `"i32"`, `"i64"`, `"f64"` or `"i1"` (`%s`: True/False)."""
        if self.letter in INT_CONVERSIONS:
            return "i64" if self.length == "ll" else "i32"
        if self.letter in FLOAT_CONVERSIONS:
            return "f64"
        return "i1"


def parse_printf(fmt: str) -> list[str | Conversion]:
    """`gpu.printf`'s format as literal text and `Conversion`s (`%%` becomes a literal `%`).

    Raises `ValueError` for conversions warpforge does not print: a length other than `ll` (on an
    integer), `#`, `*` widths, `%n`, `%p`, a `%` at the end."""
    parts: list[str | Conversion] = []
    pos = 0
    for m in _CONVERSION.finditer(fmt):
        if m.start() < pos:
            continue
        if m.start() > pos:
            parts.append(fmt[pos : m.start()])
        pos = m.end()
        conv = m.group("conv")
        if conv == "%" and m.group(0) == "%%":
            parts.append("%")
            continue
        text = m.group(0)
        if conv == "":
            raise ValueError(f"the format ends in a lone '%' (write '%%' for a percent sign)")
        if conv not in INT_CONVERSIONS + FLOAT_CONVERSIONS + "s":
            raise ValueError(f"unsupported printf conversion '{text}' (supported: %d %i %u %x %X %o %c, %f %F %e %E %g %G, %s for i1)")
        if "#" in m.group("flags"):
            raise ValueError(f"'{text}': the '#' flag is not supported")
        length = m.group("length") or ""
        if length not in ("", "ll") or (length and conv not in INT_CONVERSIONS):
            raise ValueError(f"'{text}': the length modifier '{length}' is not supported (integers: none for i32, 'll' for i64)")
        parts.append(Conversion(text, m.group("flags"), m.group("width"), m.group("precision"), length, conv))
    if pos < len(fmt):
        parts.append(fmt[pos:])
    return parts


def format_printf(fmt: str, values: list[object]) -> str:
    """printf(`fmt`, *values) for `gpu.printf`'s operand types (ints as Python ints or NumPy
    scalars of the operand's width, in any signedness; floats; bools), as CUDA's device printf
    formats them: `%d`/`%i` read the bits as signed, `%u %x %X %o` as unsigned, of 32 bits (64 with
    `ll`); a NaN prints `nan` (`-nan` with its sign bit set, as glibc)."""
    out: list[str] = []
    args = iter(values)
    for part in parse_printf(fmt):
        if isinstance(part, str):
            out.append(part)
            continue
        value = next(args)
        tail = part.width + ("" if part.precision is None else "." + part.precision)
        flags = part.flags
        if part.letter in INT_CONVERSIONS:
            bits = 64 if part.length == "ll" else 32
            raw = int(value) & ((1 << bits) - 1)  # pyright: ignore[reportArgumentType]
            if part.letter in "di":
                out.append(f"%{flags}{tail}d" % (raw - (1 << bits) if raw >> (bits - 1) else raw))
            elif part.letter == "c":
                out.append(f"%{_only(flags, '-')}{part.width}c" % chr(raw & 0xFF))
            else:  # unsigned conversions have no sign (C ignores '+' and ' ' there)
                letter = "d" if part.letter == "u" else part.letter
                out.append(f"%{_only(flags, '-0')}{tail}{letter}" % raw)
        elif part.letter in FLOAT_CONVERSIONS:
            x = float(value)  # pyright: ignore[reportArgumentType]
            if math.isnan(x) and math.copysign(1.0, x) < 0:
                nan = "-NAN" if part.letter.isupper() else "-nan"
                out.append(f"%{_only(flags, '-')}{part.width}s" % nan)
            elif not math.isfinite(x):  # C pads inf and nan with spaces, never zeros (Python would)
                out.append(f"%{flags.replace('0', '')}{tail}{part.letter}" % x)
            else:
                out.append(f"%{flags}{tail}{part.letter}" % x)
        else:
            out.append(f"%{_only(flags, '-')}{tail}s" % ("True" if bool(value) else "False"))
    return "".join(out)


def _only(flags: str, keep: str) -> str:
    return "".join(f for f in flags if f in keep)


def parse_format_op(cls, parser):  # noqa: ANN001, ANN201 (an op class and xDSL's Parser)
    """`"format", %a, %b attr-dict : type, type` (the syntax of `gpu.printf` and `kernel.print`):
    parse it and build `cls(format, operands)`."""
    fmt = parse_format(parser)
    operands = []
    while parser.parse_optional_punctuation(",") is not None:
        operands.append(parser.parse_unresolved_operand())
    attrs = parser.parse_optional_attr_dict()
    types = []
    if operands:
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
    op = cls(fmt, parser.resolve_operands(operands, types, parser.pos))
    op.attributes.update(attrs)
    return op


def print_format_op(op, printer) -> None:  # noqa: ANN001 (a format op and xDSL's Printer)
    """Print `op` (with `format` and `args`) in the syntax `parse_format_op` reads."""
    printer.print_string(" ")
    printer.print_string_literal(op.format.data)
    for a in op.args:
        printer.print_string(", ")
        printer.print_operand(a)
    printer.print_op_attributes(op.attributes)
    if op.args:
        printer.print_string(" : ")
        printer.print_list([a.type for a in op.args], printer.print_attribute)
