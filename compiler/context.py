"""The xDSL `Context` every warpforge tool uses: upstream dialects with ours registered in place."""

from __future__ import annotations

from xdsl.context import Context

from warpforge.dialects import get_all_dialects


def make_context(*, allow_unregistered: bool = False) -> Context:
    """A fresh context knowing xDSL's dialects, with `gpu` and `llvm` replaced by warpforge's and
    `kernel`, `nvvm` (and, as they land, `tile`) added."""
    from warpforge import trait_cache

    trait_cache.install()  # op trait lookups remembered per op class (same answers)
    ctx = Context(allow_unregistered=allow_unregistered)
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    return ctx


def parse_module(text: str, *, name: str = "<string>"):
    """Parse MLIR text into a verified `builtin.module`. Raises `warpforge.diagnostics.IRDiagnosticError`
    (a `WarpforgeError` and an xDSL `VerifyException`), located at line:col."""
    from warpforge.diagnostics import parse_mlir, verify_module

    module = parse_mlir(make_context(), text, name)
    verify_module(module)
    return module
