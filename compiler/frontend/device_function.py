"""`@simt.device`: the decorator and the object it makes (light to import; the compiler side lives in
`warpforge.frontend.device`)."""

from __future__ import annotations

import functools
from typing import Any

from warpforge.errors import UsageError
from warpforge.source_snapshot import snapshot_source


class DeviceFunction:
    """A `@simt.device` function: callable from kernels (and other device functions), not from the host."""

    def __init__(self, fn: Any, *, inline: bool = True):
        self.fn = fn
        self.inline = inline
        snapshot_source(fn)  # compile the text as imported, not as edited later
        functools.update_wrapper(self, fn)  # pyright: ignore[reportArgumentType]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise UsageError(f"{self.fn.__qualname__} is a @simt.device function: call it from a @simt.kernel (or another device function)")

    def __repr__(self) -> str:
        return f"<simt.device {self.fn.__qualname__}>"


def device(fn: Any = None, *, inline: bool = True) -> Any:
    """Decorator: `@simt.device` makes a function callable from kernels (see the module docstring).

    Device functions are always inlined (`inline=True`; GPU code runs fastest with no calls)."""

    def wrap(f: Any) -> DeviceFunction:
        return DeviceFunction(f, inline=inline)

    return wrap(fn) if fn is not None else wrap
