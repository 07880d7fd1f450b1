"""The public stubs of the elementwise builtins (`simt.cdiv`, `tile.exp`, …), made from their catalog
(`warpforge.dialects.math_catalog`) on first use.

The catalog holds op classes, so it loads xDSL, which `import warpforge` does not: `warpforge.simt`
and `warpforge.tile` serve these stubs from a module `__getattr__` (PEP 562) and list them in
`__dir__` and `__all__`. A stub raises `UsageError` when called outside a kernel; its docstring
comes from the record (`help(simt.cdiv)`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from warpforge.errors import UsageError


def device_only(prefix: str, name: str) -> Callable[..., Any]:
    """The host-side object of the kernel-only function `warpforge.<prefix>.<name>` (`prefix` "simt"
    or "tile"): calling it raises `UsageError` ("simt.index_1d() can only be used inside a
    @simt.kernel function"); the frontend recognizes it by identity inside kernels."""

    def fn(*args: Any, **kwargs: Any) -> Any:
        raise UsageError(f"{prefix}.{name}() can only be used inside a @{prefix}.kernel function")

    fn.__name__ = name
    fn.__qualname__ = name
    fn.__module__ = f"warpforge.{prefix}"
    return fn


class BuiltinStubs:
    """The catalog stubs of one module: `prefix` ("simt" / "tile"), the names a record has there
    (`names_of(record)`), and `make(name)`, the module's own kernel-only function factory."""

    def __init__(self, module: str, prefix: str, names_of: Callable[[Any], tuple[str, ...]], make: Callable[[str], Any]):
        self.module, self.prefix, self.names_of, self.make = module, prefix, names_of, make
        self._stubs: dict[str, Any] | None = None
        self._lock = threading.Lock()

    def stubs(self) -> dict[str, Any]:
        """name → stub, made once (one object per name: the frontend recognizes them by identity)."""
        with self._lock:
            if self._stubs is None:
                from warpforge.dialects.math_catalog import BUILTINS

                stubs: dict[str, Any] = {}
                for b in BUILTINS:
                    for name in self.names_of(b):
                        stub = self.make(name)
                        stub.__doc__ = b.docstring(f"{self.prefix}.{name}")
                        stub.__module__ = self.module
                        stubs[name] = stub
                self._stubs = stubs
            return self._stubs

    def module_hooks(self, static_all: list[str], module_globals: dict[str, Any]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
        """The module's PEP 562 `__getattr__` (a stub, or `__all__`: `static_all` and the stubs' names)
        and `__dir__` (its globals and the stubs): `__getattr__, __dir__ = STUBS.module_hooks(...)`."""

        def module_getattr(name: str) -> Any:
            if name == "__all__":
                return [*static_all, *self.stubs()]
            if not name.startswith("_") and name in self.stubs():
                return self.stubs()[name]
            raise AttributeError(f"module {self.module!r} has no attribute {name!r}")

        def module_dir() -> list[str]:
            return sorted({*module_globals, *self.stubs()})

        return module_getattr, module_dir
