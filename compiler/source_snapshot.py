"""What a kernel was compiled from, captured when it is defined (light to import: `linecache` only).

- `snapshot_source(fn)`: at decoration (`@simt.kernel`, `@tile.kernel`, `@simt.device`), keep the
  text of `fn`'s file as Python read it, so a file edited between import and the first launch does not
  change what compiles (the function object runs the old text; the kernel must too). Triton keeps
  its `JITFunction.src` the same way.
- `folded_values(fn)` / `changed(folded)`: the module globals and closure variables a kernel reads
  whose values the frontend compiles in (numbers, strings, dtypes, tuples of those), with those values,
  and whether any of them has been rebound since: a launch compiles again when one has.
"""

from __future__ import annotations

import linecache
from typing import Any

SNAPSHOT = "__warpforge_source__"
"""The attribute of the function object holding its file's lines (a list of str, as `linecache`)."""


def snapshot_source(fn: Any) -> None:
    """Store the lines of `fn`'s source file on `fn` (once; nothing when the file cannot be read, as
    for code exec'd from a string). One `stat` and, the first time per file, one read."""
    code = getattr(fn, "__code__", None)
    if code is None or SNAPSHOT in getattr(fn, "__dict__", {SNAPSHOT: None}):
        return
    linecache.checkcache(code.co_filename)
    lines = linecache.getlines(code.co_filename, getattr(fn, "__globals__", None))
    if lines:
        fn.__dict__[SNAPSHOT] = lines


def snapshot_of(fn: Any) -> list[str] | None:
    """The lines `snapshot_source` stored, or None."""
    return getattr(fn, "__dict__", {}).get(SNAPSHOT)


def _plain(value: object) -> bool:
    if isinstance(value, bool | int | float | complex | str) or type(value).__name__ == "DType":
        return True
    return isinstance(value, tuple | frozenset) and all(_plain(v) for v in value)


Folded = tuple[tuple[Any, str | None, Any], ...]
"""(scope, name, value): a globals dict and a name, or a closure cell and None."""


def folded_values(fn: Any) -> Folded:
    """The plain values (`_plain`) `fn` reads from its module globals and closure, and, recursively,
    those of the `@simt.device` functions it names."""
    out: list[tuple[Any, str | None, Any]] = []
    seen: set[int] = set()

    def visit(f: Any) -> None:
        code = getattr(f, "__code__", None)
        if code is None or id(f) in seen:
            return
        seen.add(id(f))
        scope = f.__globals__
        for name in _names(code):
            if name in scope:
                value = scope[name]
                if _plain(value):
                    out.append((scope, name, value))
                elif type(value).__name__ == "DeviceFunction":
                    visit(value.fn)
        for cell in f.__closure__ or ():
            try:
                value = cell.cell_contents
            except ValueError:  # an empty cell
                continue
            if _plain(value):
                out.append((cell, None, value))
            elif type(value).__name__ == "DeviceFunction":
                visit(value.fn)

    visit(fn)
    return tuple(out)


def _names(code: Any) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:  # nested code (comprehensions before 3.12, lambdas)
        if hasattr(const, "co_names"):
            names |= _names(const)
    return names


_MISSING = object()


def changed(folded: Folded) -> str | None:
    """The name of the first value in `folded` rebound to a different value since, or None. Cheap:
    a dict lookup (or cell read) and an identity test per value; repr only when the object differs
    (`SCALE = 2.0` again is the same value; `1` and `True` are not)."""
    for scope, name, old in folded:
        if name is None:
            try:
                now = scope.cell_contents
            except ValueError:
                return "a closure variable"
        else:
            now = scope.get(name, _MISSING)
        if now is not old and (type(now) is not type(old) or repr(now) != repr(old)):
            return name or "a closure variable"
    return None
