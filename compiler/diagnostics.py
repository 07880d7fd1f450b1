"""Located diagnostics for IR, in MLIR's format, shared by verifiers, passes and the tools.

A diagnostic names the file, line and column of the op it is about (the op's `loc(...)` when it has a
`FileLineColLoc`, else the position where the parser read it), the op, and the pass that was running,
then shows the offending line and a caret, as `mlir-opt` prints it:

    vecadd.mlir:3:8: error: 'kernel.truediv' op is not defined on integers (si32)
      %c = kernel.truediv %a, %a : si32
           ^

How to use it:

- **In a verifier** (`verify_` of an op): keep raising `VerifyException("message")`. `verify_module`
  (which the tools and `run_pipeline` use instead of `module.verify()`) verifies op by op and turns the
  exception into an `IRDiagnosticError` located at the op being verified. To point at *another* op
  (an operand's definition, say), `raise error_at(other_op, "message")`.
- **In a pass**: `raise error_at(op, "cannot lower ...")` for the op the pass cannot handle. The driver
  adds the pass name (`in pass 'kernel-to-gpu'`). Exceptions that are not diagnostics escaping a pass
  are internal errors (a bug), reported with a crash reproducer by `warpforge-opt`.
- **Parsing**: `parse_mlir(ctx, text, filename)` guards against inputs xDSL's lexer cannot handle
  (unterminated string literals, which make its regex backtrack exponentially), records the position
  of every op it parses (so ops without a `loc(...)` are still located), and reports a use of an
  undefined value at its first use. Its errors are `IRDiagnosticError`s too.

Severity names and the output format follow MLIR's `SourceMgrDiagnosticHandler` (`error`, `warning`,
`note`, `remark`); the op is named as MLIR does (`'dialect.op' op message`).
"""

from __future__ import annotations

import linecache
import re
import sys
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Literal

from xdsl.dialects.builtin import CallSiteLoc, FileLineColLoc, FusedLoc, NameLoc, StringAttr
from xdsl.ir import Attribute, Operation
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import ParseError, VerifyException

from warpforge.errors import WarpforgeError

Severity = Literal["error", "warning", "note", "remark"]


@dataclass(frozen=True)
class SourceLoc:
    """A position in a source file: 1-based `line` and `col` (columns count characters, as MLIR's)."""

    filename: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}:{self.col}"


_SOURCES: dict[str, str] = {}
"""Text of the inputs the tools parsed, by file name, to show the offending line of a diagnostic."""


def register_source(filename: str, text: str) -> None:
    """Remember `text` as the content of `filename` (for the source line under a diagnostic)."""
    _SOURCES[filename] = text


def source_line(loc: SourceLoc) -> str | None:
    """Line `loc.line` of `loc.filename` (a registered input, else the file on disk), or None."""
    text = _SOURCES.get(loc.filename)
    if text is not None:
        lines = text.split("\n")
        return lines[loc.line - 1] if 0 < loc.line <= len(lines) else None
    line = linecache.getline(loc.filename, loc.line)
    return line.rstrip("\n") if line else None


@dataclass
class Diagnostic:
    """One diagnostic: severity, message, where (None: unknown), the op and pass it concerns, notes.

    `render()` gives MLIR's text: `file:line:col: error: 'op.name' op message`, the source line and a
    caret under the column; then each note the same way.
    """

    severity: Severity
    message: str
    loc: SourceLoc | None = None
    op_name: str | None = None
    pass_name: str | None = None
    notes: list[Diagnostic] = field(default_factory=list["Diagnostic"])
    filename_hint: str | None = None
    """Printed as `FILE: error: ...` when `loc` is None (so a diagnostic always names its input)."""
    input_loc: SourceLoc | None = None
    """Where the op sits in the parsed input, when its `loc(...)` points elsewhere (a `.py` file):
    what `--verify-diagnostics` matches `expected-error` lines against."""

    @property
    def full_message(self) -> str:
        """The message as printed: with the op's name in front and the pass behind, as MLIR names them."""
        text = self.message
        if self.op_name is not None and not text.startswith(f"'{self.op_name}' op"):
            text = f"'{self.op_name}' op {text}"
        if self.pass_name is not None:
            text += f" (in pass '{self.pass_name}')"
        return text

    def render(self, *, context: bool = True) -> str:
        where = f"{self.loc}: " if self.loc is not None else f"{self.filename_hint}: " if self.filename_hint else ""
        out = f"{where}{self.severity}: {self.full_message}"
        if context and self.loc is not None and (line := source_line(self.loc)) is not None:
            out += f"\n{line}\n{' ' * max(self.loc.col - 1, 0)}^"
        for note in self.notes:
            out += "\n" + note.render(context=context)
        return out

    def __str__(self) -> str:
        return self.render()


class IRDiagnosticError(WarpforgeError, VerifyException):
    """A located diagnostic about IR: a verifier or a pass refused it, or it did not parse.

    Both a `WarpforgeError` (users catch it as one) and an xDSL `VerifyException` (xDSL code that
    catches verification failures keeps working). `diagnostic` holds the structured `Diagnostic`;
    `op` the op it is about (None for parse errors). `str()` is the rendered diagnostic.
    """

    def __init__(self, diagnostic: Diagnostic, op: Operation | None = None):
        self.diagnostic = diagnostic
        self.op = op
        super().__init__(diagnostic.render())

    def __str__(self) -> str:
        return self.diagnostic.render()

    def in_pass(self, pass_name: str) -> IRDiagnosticError:
        """This diagnostic, naming `pass_name` as the pass that was running (unless one is named)."""
        if self.diagnostic.pass_name is None:
            self.diagnostic.pass_name = pass_name
        return self


# --------------------------------------------------------------------------- warnings and remarks

_HANDLERS: list[Callable[[Diagnostic], None]] = []


def emit(diagnostic: Diagnostic) -> None:
    """Report a diagnostic that does not stop compilation (a warning, a remark): to the innermost
    handler installed with `collect_diagnostics` (`--verify-diagnostics` checks them), else stderr."""
    if _HANDLERS:
        _HANDLERS[-1](diagnostic)
    else:
        print(diagnostic.render(), file=sys.stderr)


def warning_at(op: Operation, message: str) -> None:
    """Emit a warning about `op` (located, names the op)."""
    emit(diagnostic_at(op, message, "warning"))


def remark_at(op: Operation, message: str) -> None:
    """Emit a remark about `op` (located, names the op)."""
    emit(diagnostic_at(op, message, "remark"))


@contextmanager
def collect_diagnostics() -> Iterator[list[Diagnostic]]:
    """Within the block, diagnostics passed to `emit` are appended to the list yielded."""
    found: list[Diagnostic] = []
    _HANDLERS.append(found.append)
    try:
        yield found
    finally:
        _HANDLERS.pop()


# --------------------------------------------------------------------------- where an op is

_POSITIONS: weakref.WeakKeyDictionary[Operation, SourceLoc] = weakref.WeakKeyDictionary()
"""Where the parser read each op (for ops without a `FileLineColLoc`)."""


def record_position(op: Operation, loc: SourceLoc) -> None:
    """Remember that `op` was parsed at `loc`."""
    _POSITIONS[op] = loc


def loc_from_attr(loc: Attribute | None) -> SourceLoc | None:
    """The file:line:col inside a location attribute (`loc("f.py":3:5)`, or the first one found inside a
    `NameLoc`, `CallSiteLoc` (the callee) or `FusedLoc`), else None."""
    if isinstance(loc, FileLineColLoc):
        # `loc("":3:5)`, or a name with a newline in it, names no file a reader can find (the
        # position in the input is, instead)
        name = loc.filename.data
        return SourceLoc(name, loc.line.data, loc.column.data) if name and name.isprintable() else None
    if isinstance(loc, NameLoc):
        return loc_from_attr(loc.location)
    if isinstance(loc, CallSiteLoc):
        return loc_from_attr(loc.callee) or loc_from_attr(loc.caller)
    if isinstance(loc, FusedLoc):
        for inner in getattr(loc.locations, "data", ()):
            if (found := loc_from_attr(inner)) is not None:
                return found
    return None


def location_of(op: Operation) -> SourceLoc | None:
    """`op`'s own location: its `loc(...)` if it has a file:line:col, else where it was parsed, else None."""
    return loc_from_attr(op.location) or _POSITIONS.get(op)


def nearest_location(op: Operation) -> SourceLoc | None:
    """`location_of(op)`, else that of the nearest enclosing op that has one (ops created by a pass
    without a location are reported where the op around them is)."""
    current: Operation | None = op
    while current is not None:
        if (loc := location_of(current)) is not None:
            return loc
        current = current.parent_op()
    return None


def nearest_position(op: Operation) -> SourceLoc | None:
    """Where the parser read `op` (or the nearest enclosing op it read), ignoring `loc(...)`."""
    current: Operation | None = op
    while current is not None:
        if (loc := _POSITIONS.get(current)) is not None:
            return loc
        current = current.parent_op()
    return None


def diagnostic_at(op: Operation, message: str, severity: Severity = "error", *, notes: Sequence[tuple[Operation | SourceLoc | None, str]] = ()) -> Diagnostic:
    """A `Diagnostic` about `op`, located at `nearest_location(op)`; `notes` are (where, text) pairs."""
    note_list = [
        Diagnostic("note", text, where if isinstance(where, SourceLoc) else nearest_location(where) if where is not None else None)
        for where, text in notes
    ]
    return Diagnostic(severity, message, nearest_location(op), op_name=op.name, notes=note_list, input_loc=nearest_position(op))


def error_at(op: Operation, message: str, *, notes: Sequence[tuple[Operation | SourceLoc | None, str]] = ()) -> IRDiagnosticError:
    """The exception to raise for `op`: `raise error_at(op, "expected ...")`. Located, names the op."""
    return IRDiagnosticError(diagnostic_at(op, message, notes=notes), op)


# --------------------------------------------------------------------------- verification

def verify_module(module: Operation) -> None:
    """Verify `module` op by op (parents before the ops they hold), with the checks of xDSL's
    `Operation.verify` (operands not erased, successors and terminators where they belong, non-empty
    single-block regions) and each op's own verifier, and report the first failure as an
    `IRDiagnosticError` located at the op that failed.

    Raises `IRDiagnosticError`. A verifier that raises something other than `VerifyException` (an
    `IndexError` on malformed input, say) is a bug in that verifier; it is still reported at the op,
    as an error that says so, never as a bare traceback.
    """
    for op in module.walk():
        try:
            _verify_structure(op)
            op.verify_()
        except IRDiagnosticError:
            raise
        except VerifyException as e:
            raise error_at(op, _verify_message(op, e)) from None
        except Exception as e:  # a verifier bug on malformed input: located all the same
            if type(e) is Exception:  # xDSL's own verifiers raise a bare Exception for some user errors (memref.load's index count)
                raise error_at(op, f"'{op.name}' op {e}") from None
            raise error_at(op, f"verifier failed with {type(e).__name__}: {e} (a bug in the verifier; please report it)") from e


def _verify_structure(op: Operation) -> None:
    from xdsl.dialects.builtin import IndexType, IntegerAttr
    from xdsl.ir import ErasedSSAValue
    from xdsl.dialects.builtin import UnregisteredOp
    from xdsl.traits import IsTerminator

    if any(isinstance(v, ErasedSSAValue) for v in op.operands):
        raise VerifyException("uses a value that was erased")
    block = op.parent
    region = block.parent if block is not None else None
    if op.successors:
        if block is None or region is None or block.last_op is not op:
            raise VerifyException("has successors, so it must terminate its block")
        if any(succ.parent is not region for succ in op.successors):
            raise VerifyException("branches to a block of another region")
    owner = block.parent_op() if block is not None else None
    if op.name == "scf.yield" and owner is not None and owner.name in ("scf.if", "scf.for"):
        # MLIR's region-branch verifier; xDSL 0.75 accepts `scf.if ... -> (f32)` whose else yields nothing
        # (its implicit terminator), and LLVM then aborts the process on the phis ("Broken module")
        yields, wants = [v.type for v in op.operands], [r.type for r in owner.results]
        if yields != wants:
            raise VerifyException(
                f"yields ({', '.join(map(str, yields))}) but its parent '{owner.name}' has results of types ({', '.join(map(str, wants))})"
            )
    if block is not None and block.last_op is not op and op.has_trait(IsTerminator) and not isinstance(op, UnregisteredOp):
        # MLIR's verifier; xDSL 0.75 lets it through and LLVM then aborts on the phis ("Broken module")
        raise VerifyException("must be the last operation in the parent block")
    if block is not None and region is not None and block.last_op is op:
        parent = region.parent
        needs_terminator = len(region.blocks) > 1 or (parent is not None and not parent.has_trait(NoTerminator))
        if needs_terminator and not op.has_trait(IsTerminator):
            raise VerifyException(f"ends a block of '{parent.name if parent else 'a region'}' but is not a terminator")
    for attr in (*op.properties.values(), *op.attributes.values()):
        # xDSL parses `arith.constant 10^30 : index`; its passes then fail building an i64 from it
        if isinstance(attr, IntegerAttr) and isinstance(attr.type, IndexType) and not -(1 << 63) <= attr.value.data < 1 << 64:
            raise VerifyException(f"index value {attr.value.data} does not fit in 64 bits (index is 64-bit on NVPTX)")
    for r in op.regions:
        if len(r.blocks) == 1 and r.block.first_op is None and not op.has_trait(NoTerminator):
            raise VerifyException("has an empty block in a single-block region that expects at least a terminator")


def _verify_message(op: Operation, e: VerifyException) -> str:
    text = str(e.args[0]) if e.args else str(e)
    # xDSL's messages often start with the op name ("Operation arith.addi ...", "kernel.add: ..."):
    # the diagnostic names the op already.
    for prefix in ("Operation does not verify: ", f"Operation {op.name} ", f"{op.name}: ", f"'{op.name}' op ", f"{op.name} "):
        if text.startswith(prefix):
            text = text[len(prefix) :]
    return text


# --------------------------------------------------------------------------- parsing

_STRING_ESCAPE = re.compile(r'["nt\\]|[0-9A-Fa-f]{2}')


_STRING_OR_COMMENT = re.compile(r'//[^\n]*|"')
_STRING_RUN = re.compile(r'[^"\\\n\v\f]*')


def check_string_literals(text: str, filename: str) -> None:
    """Refuse text whose string literals xDSL's lexer would backtrack on for exponential time: a `"`
    never closed on its line, or a backslash escape MLIR does not define (`\\"`, `\\n`, `\\t`, `\\\\`,
    two hex digits). `//` comments are skipped. Raises `IRDiagnosticError` at the literal's line:col."""
    i, n = 0, len(text)
    while (m := _STRING_OR_COMMENT.search(text, i)) is not None:
        if m.group(0) != '"':  # a comment
            i = m.end()
            continue
        start = m.start()
        i = m.end()
        while True:
            i = _STRING_RUN.match(text, i).end()  # pyright: ignore[reportOptionalMemberAccess]
            if i >= n or text[i] in "\n\v\f":
                raise _parse_diagnostic(filename, text, start, "unterminated string literal (a '\"' is missing before the end of the line)")
            if text[i] == '"':
                i += 1
                break
            escape = _STRING_ESCAPE.match(text, i + 1)  # text[i] is a backslash
            if escape is None:
                raise _parse_diagnostic(filename, text, i, "invalid escape in string literal (MLIR allows \\\", \\n, \\t, \\\\ and two hex digits)")
            i = escape.end()


def _offset_to_loc(filename: str, text: str, offset: int) -> SourceLoc:
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return SourceLoc(filename, line, col)


def _parse_diagnostic(filename: str, text: str, offset: int, message: str) -> IRDiagnosticError:
    return IRDiagnosticError(Diagnostic("error", message, _offset_to_loc(filename, text, offset)))


def parse_error_diagnostic(e: ParseError) -> IRDiagnosticError:
    """An xDSL `ParseError` as a located `IRDiagnosticError` (the message first, then the line)."""
    span = e.span
    text = span.input.content if isinstance(span.input.content, str) else span.input.content.decode("utf-8", "replace")
    return _parse_diagnostic(span.input.name, text, span.start, clarify_parse_message(e.msg.rstrip("."), text, span.start))


def clarify_parse_message(message: str, text: str, offset: int) -> str:
    """xDSL's parser messages that say too little, said in full: an empty one (`" in block definition"`:
    input ended inside a region, or no op where one belongs) and `Unexpected attribute T` (an op's
    type constraint refused `T`: named with the op, and what that op takes where we know it)."""
    if message.strip() in ("", "in block definition"):
        if not text[offset:].strip():
            return "unexpected end of input: expected an operation or '}' (a '{' above is not closed)"
        return "expected an operation or '}' here"
    m = re.fullmatch(r"Unexpected attribute (.+)", message, re.S)
    if m is None:
        return message
    got = m.group(1).strip()
    op = re.match(r"\s*(?:%[\w.$-]+(?::\d+)?(?:\s*,\s*%[\w.$-]+(?::\d+)?)*\s*=\s*)?\"?([A-Za-z_][\w$.]*)", text[offset:])
    name = op.group(1) if op else ""
    where = f"'{name}' does not take {got} here" if name else f"{got} is not allowed here"
    hint = "a type after ':' is not one the op allows in that position"
    if got.startswith("!kernel.slice<") and name in ("kernel.store", "kernel.atomic_rmw", "kernel.atomic_cas"):
        hint = "a !kernel.slice is read-only: write through a !kernel.disjoint_slice (with the thread's !kernel.thread_index) or a !kernel.raw_slice"
    elif name.startswith("arith.") and name.endswith("f") and not got.startswith(("f", "bf", "vector", "tensor")):
        hint = f"'{name}' works on floating-point types (f16, bf16, f32, f64); integers use the 'i' form (arith.addi, …)"
    elif name.startswith("arith.") and name.endswith("i") and got.startswith(("f", "bf")):
        hint = f"'{name}' works on integer types (i1 … i64, index); floats use the 'f' form (arith.addf, …)"
    return f"{where}: {hint}"


def parse_mlir(ctx: object, text: str, filename: str = "<stdin>", *, first_line: int = 1) -> Operation:
    """Parse MLIR text into a `builtin.module`, recording every op's position (see `location_of`).

    `first_line`: the line of `filename` where `text` starts (a `--split-input-file` chunk), so
    positions are the file's. Raises `IRDiagnosticError` for any syntax error, located at line:col.
    Does not verify: call `verify_module`.
    """
    from xdsl.context import Context

    assert isinstance(ctx, Context)
    padded = "\n" * (first_line - 1) + text
    if first_line == 1:  # a chunk's caller registers the whole file
        register_source(filename, text)
    check_string_literals(padded, filename)
    if not re.sub(r"//[^\n]*", "", text).strip():  # an empty chunk (`// -----` twice): an empty module
        from xdsl.dialects.builtin import ModuleOp

        return ModuleOp([])
    parser = None
    try:
        parser = _LocatingParser(ctx, padded, filename)  # lexes the first token: may already fail
        module = parser.parse_module()
        if module not in _POSITIONS:  # an implicit module (ops at top level) is where its input starts
            record_position(module, SourceLoc(filename, first_line, 1))
        return module
    except ParseError as e:
        raise parse_error_diagnostic(e) from None
    except IRDiagnosticError:
        raise
    except (VerifyException, ValueError, KeyError, IndexError, AssertionError, TypeError) as e:
        # xDSL's parser (or a dialect's parse hook) failing on malformed input: located where it stopped
        at = parser._current_token.span.start if parser is not None else 0  # pyright: ignore[reportPrivateUsage]
        what = str(e) if isinstance(e, VerifyException) else f"cannot parse this ({type(e).__name__}: {e})"
        raise _parse_diagnostic(filename, padded, at, what) from None


def _make_locating_parser() -> type:
    from xdsl.parser import Parser, UnresolvedOperand
    from xdsl.utils.lexer import Span

    class LocatingParser(Parser):
        """xDSL's parser, recording op positions, the first use of each forward reference, and naming
        an unknown op at its name (with a suggestion)."""

        def __init__(self, ctx, text: str, name: str):  # type: ignore[no-untyped-def]
            super().__init__(ctx, text, name)
            self._text, self._name = text, name
            self._first_use: dict[str, Span] = {}
            self._forward_uses: dict[object, tuple[str, Span]] = {}

        def parse_operation(self) -> Operation:
            start = self._current_token.span.start
            try:
                op = super().parse_operation()
            except (ValueError, NotImplementedError, AssertionError, KeyError, IndexError, TypeError, OverflowError, VerifyException) as e:
                if isinstance(e, ParseError | IRDiagnosticError):
                    raise
                # xDSL's parser, or an op's custom `parse`, failed on malformed input without a
                # ParseError (an integer out of range for its type, `i128` dense data, a forward
                # reference used as its own region's argument, …): located at the op all the same
                raise ParseError(Span(start, max(start + 1, self._current_token.span.start), self.lexer.input), _malformed(e)) from None
            record_position(op, _offset_to_loc(self._name, self._text, start))
            return op

        def parse_optional_type(self):  # type: ignore[no-untyped-def]
            return self._verified(super().parse_optional_type)

        def parse_optional_attribute(self):  # type: ignore[no-untyped-def]
            return self._verified(super().parse_optional_attribute)

        def _verified(self, parse):  # type: ignore[no-untyped-def]
            # types and attributes verify as they are built: report a failure where they were written
            start = self._current_token.span.start
            try:
                return parse()
            except VerifyException as e:
                end = max(self._current_token.span.start, start + 1)
                raise ParseError(Span(start, end, self.lexer.input), str(e)) from None

        def parse_optional_argument(self, expect_type: bool = True):  # type: ignore[no-untyped-def,override]
            # `%a: T loc(...)`: the printer writes block-argument locations (--print-debuginfo); accept
            # them in every custom format that parses its arguments with parse_argument
            arg = super().parse_optional_argument(expect_type)
            if expect_type and arg is not None and self._current_token.text == "loc":
                location = self.parse_optional_location()
                if location is not None:
                    arg = self.Argument(arg.name, arg.type, location)  # pyright: ignore
            return arg

        def resolve_operand(self, operand: UnresolvedOperand, type: Attribute):  # type: ignore[override]
            if operand.operand_name not in self.ssa_values:
                self._first_use.setdefault(operand.operand_name, operand.span)
            value = super().resolve_operand(operand, type)
            self._forward_uses.setdefault(value, (operand.operand_name, operand.span))
            return value

        def _check_forward_references(self, module: Operation) -> None:
            """A forward reference the parser never resolved (a value used outside the region that
            defines it, e.g. `kernel.for %k = %k …`): xDSL leaves a placeholder that crashes verifiers."""
            from xdsl.parser.core import ForwardDeclaredValue

            for op in module.walk():
                for operand in op.operands:
                    if isinstance(operand, ForwardDeclaredValue):
                        name, at = self._forward_uses.get(operand, ("?", Span(0, 1, self.lexer.input)))
                        raise ParseError(at, f"use of value '%{name}' outside the region that defines it")

        def _get_op_by_name(self, name: str) -> type[Operation]:
            if (op_type := self.ctx.get_optional_op(name, dialect_stack=self._parser_state.dialect_stack)) is not None:
                return op_type
            # the name was just read: point at it, not at the token after it
            at = self._text.rfind(name, 0, self._current_token.span.start)
            if at > 0 and self._text[at - 1] == '"':  # the generic form: point at the opening quote
                at -= 1
            where = Span(at, at + len(name), self.lexer.input) if at >= 0 else None
            hint = _suggest_op(self.ctx, name)
            self.raise_error(f"operation '{name}' is not registered{hint}; pass --allow-unregistered-dialect to accept unknown ops", where)

        def parse_module(self, allow_implicit_module: bool = True):  # type: ignore[no-untyped-def]
            try:
                module = super().parse_module(allow_implicit_module)
                self._check_forward_references(module)
                return module
            except ParseError as e:
                if e.msg.startswith("values used but not defined") and self.forward_ssa_references:
                    first = min(self.forward_ssa_references, key=lambda n: self._first_use[n].start if n in self._first_use else 1 << 62)
                    if first in self._first_use:
                        raise ParseError(self._first_use[first], f"use of undefined value '%{first}'") from None
                raise

    return LocatingParser


def _malformed(e: BaseException) -> str:
    text = str(e.args[0] if isinstance(e, KeyError) and e.args else e).strip()
    if "Forward declared values do not have an owner" in text:
        return "this operation uses a value that is not defined before it in its scope"
    if isinstance(e, VerifyException):  # an attribute or type of the op did not verify as it was parsed
        return text
    return f"malformed operation: {text or type(e).__name__}"


class _LazyParser:
    _cls: type | None = None

    def __call__(self, ctx: object, text: str, name: str):  # type: ignore[no-untyped-def]
        if _LazyParser._cls is None:
            _LazyParser._cls = _make_locating_parser()
        return _LazyParser._cls(ctx, text, name)


_LocatingParser = _LazyParser()


def _suggest_op(ctx: object, name: str) -> str:
    dialect_name = name.split(".", 1)[0]
    try:
        dialect = ctx.get_optional_dialect(dialect_name)  # type: ignore[attr-defined]
    except Exception:
        dialect = None
    if dialect is None:
        return ""
    names = [op.name for op in dialect.operations]
    return did_you_mean(name, names)


def did_you_mean(name: str, candidates: Iterable[str]) -> str:
    """`" (did you mean 'x'?)"` for the closest of `candidates` to `name`, or `""`."""
    import difflib  # only for a message: not loaded by every compile

    close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def print_ir(op: Operation, *, debuginfo: bool = False, generic: bool = False) -> str:
    """`op` as MLIR text (as `str(op)`); `debuginfo`: with each op's `loc(...)`."""
    from io import StringIO

    from xdsl.printer import Printer

    out = StringIO()
    Printer(stream=out, print_debuginfo=debuginfo, print_generic_format=generic).print_op(op)
    return out.getvalue()


def kernel_symbol(op: Operation) -> str | None:
    """The `sym_name` of `op` (a function or module), or None."""
    name = op.properties.get("sym_name") or op.attributes.get("sym_name")
    return name.data if isinstance(name, StringAttr) else None
