"""NumPy imported at its first use, not by `import warpforge`.

Importing NumPy is most of `import warpforge` (~60 ms of ~90 ms on the CPU machine; issue 13's goal
is `import warpforge` <= 0.25 s, and the GPU machine's slower file system makes every module count).
The modules that `import warpforge` loads and that use NumPy (dtypes, mma, simt, the runtime) take
`numpy` from here:

    if TYPE_CHECKING:
        import numpy
    else:
        from warpforge.lazy_import import numpy

`numpy` here is a stand-in that imports the real module at its first attribute access, then puts
the real module in place of the stand-in in every loaded module's globals (and in this module), so
later accesses cost nothing extra. A program that uses arrays has loaded NumPy by its first launch
anyway; one that only imports warpforge (the CLI's `--help`, `warpforge doctor`) never does.
"""

from __future__ import annotations

import sys
from typing import Any


class LazyModule:
    """A module imported at the first attribute access (`name`: its import name)."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        object.__setattr__(self, "_name", name)

    def _load(self) -> Any:
        import importlib

        module = importlib.import_module(self._name)
        for name, loaded in list(sys.modules.items()):  # rebind every warpforge global that holds the stand-in
            if name != "warpforge" and not name.startswith("warpforge."):
                continue
            namespace = getattr(loaded, "__dict__", None)
            if isinstance(namespace, dict):
                for key, value in list(namespace.items()):
                    if value is self:
                        namespace[key] = module
        return module

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._load(), attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r} (not imported yet)>"


numpy: Any = LazyModule("numpy")
"""NumPy, imported at first use (then this name is the real module)."""
