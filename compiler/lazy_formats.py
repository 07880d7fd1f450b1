"""Declarative assembly formats parsed when an op is first parsed or printed, not when it is defined.

xDSL 0.75's `irdl_op_definition` (`xdsl.irdl.operations.get_accessors_from_op_def`) parses every op's
`assembly_format` string into a `FormatProgram` as the class is defined. warpforge's dialects and
xDSL's that it loads define ~470 ops with ~390 formats; parsing them is ~85 ms of every cold
compile (about 60 % of `irdl_op_definition`'s cost, measured on the CPU machine), yet a compile from
Python prints and parses no op. xDSL 0.75 has no lighter registration path (`OpDef.from_pyrdl` and
the accessors are needed by every op that is built), so this module defers only the format:
`FormatProgram.from_str` returns a `LazyFormatProgram` that parses the text on its first
`parse`/`print` (the only two methods `irdl_op_definition` calls on it; other attributes are
forwarded to the parsed program).

A malformed format is then reported at its op's first parse or print, as the same
`PyRDLOpDefinitionError` xDSL raises at definition; `tests/test_lazy_formats.py` builds every
registered op's format, so a broken one still fails the test suite.

`install()` is called by `import warpforge`: it imports nothing of xDSL. When
`xdsl.irdl.declarative_assembly_format` is already loaded it patches it at once; otherwise a
`sys.meta_path` finder patches it right after it is first imported (before any op is defined).
"""

from __future__ import annotations

import sys
from typing import Any

MODULE = "xdsl.irdl.declarative_assembly_format"
"""The xDSL module whose `FormatProgram.from_str` `irdl_op_definition` calls."""

built = 0
"""How many formats have been parsed in this process (for tests and benchmarks)."""


class LazyFormatProgram:
    """An op's assembly format, parsed into xDSL's `FormatProgram` on first use.

    `text`: the `assembly_format` string; `op_def`: the op's `OpDef` (complete when the class is
    defined, unchanged after). Raises `xdsl.irdl.operations.PyRDLOpDefinitionError` on first use
    when the format does not parse (xDSL's error at definition)."""

    __slots__ = ("text", "op_def", "_program")

    def __init__(self, text: str, op_def: Any) -> None:
        self.text, self.op_def, self._program = text, op_def, None

    def program(self) -> Any:
        """The parsed `FormatProgram` (built once)."""
        if self._program is None:
            from xdsl.irdl.declarative_assembly_format_parser import FormatParser
            from xdsl.irdl.operations import PyRDLOpDefinitionError
            from xdsl.utils.exceptions import ParseError

            global built
            try:
                self._program = FormatParser(self.text, self.op_def).parse_format()
            except ParseError as e:
                raise PyRDLOpDefinitionError(f"Error during the parsing of the assembly format of {self.op_def.name}: ", e.args) from e
            built += 1
        return self._program

    def parse(self, parser: Any, op_type: type) -> Any:
        return self.program().parse(parser, op_type)

    def print(self, printer: Any, op: Any) -> None:
        return self.program().print(printer, op)

    def __getattr__(self, name: str) -> Any:  # stmts, and anything else a caller reads
        return getattr(self.program(), name)


def _lazy_from_str(input: str, op_def: Any) -> LazyFormatProgram:
    return LazyFormatProgram(input, op_def)


def patch(module: Any) -> None:
    """Make `module.FormatProgram.from_str` (xDSL's) return a `LazyFormatProgram`."""
    module.FormatProgram.from_str = staticmethod(_lazy_from_str)


class _Loader:
    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def create_module(self, spec: Any) -> Any:
        return self.inner.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self.inner.exec_module(module)
        patch(module)


class _Finder:
    """Finds `MODULE` with the normal path finder and patches it once it has run."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != MODULE:
            return None
        from importlib.machinery import PathFinder

        self.remove()
        spec = PathFinder.find_spec(fullname, path, target)
        if spec is not None and spec.loader is not None:
            spec.loader = _Loader(spec.loader)
        return spec

    def remove(self) -> None:
        if self in sys.meta_path:
            sys.meta_path.remove(self)


def install() -> None:
    """Defer the parsing of assembly formats defined from now on (idempotent)."""
    loaded = sys.modules.get(MODULE)
    if loaded is not None:
        if loaded.FormatProgram.from_str is not _lazy_from_str:
            patch(loaded)
        return
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
