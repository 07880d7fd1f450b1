"""The xDSL `Context` every warpforge tool uses: upstream dialects with ours registered in place."""

from __future__ import annotations

from xdsl.context import Context

from warpforge.dialects import get_all_dialects


def make_context(*, allow_unregistered: bool = False) -> Context:
    """A fresh context knowing xDSL's dialects, with `gpu` and `llvm` replaced by warpforge's and
    `kernel`, `nvvm` (and, as they land, `tile`) added."""
    ctx = Context(allow_unregistered=allow_unregistered)
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    return ctx


def parse_module(text: str, *, name: str = "<string>"):
    """Parse MLIR text into a verified `builtin.module`. Raises xDSL's `ParseError` / `VerifyException`."""
    from xdsl.parser import Parser

    module = Parser(make_context(), text, name=name).parse_module()
    module.verify()
    return module
