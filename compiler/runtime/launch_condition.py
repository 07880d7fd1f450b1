"""Deciding a checked SIMT kernel's entry condition on the host, before the launch.

`hoist-checks` versions a kernel as `cond_br P, ^fast, ^checked`, where `P` implies every hoisted
bounds check. When `P` is the same for every thread (it reads only scalar arguments and slice
lengths: the stencil's `rows * cols - 1 < len(u)`), the pass records it
(`CompiledKernel.launch_condition`, JSON) and the launch evaluates it here: when it holds, the kernel's
*proven* specialization runs (`SimtKernel.checks_hold`: the same code with `P` taken as true, so no
per-thread entry test and no branch); when it fails, or cannot be evaluated, the kernel as compiled
runs, whose threads then all take the checked copy and report the first error exactly as before.

The expression language (`warpforge.passes.hoist_checks.launch_condition`): `["arg", i]`,
`["len", i]`, `["const", c]`, `["grid", d]` / `["block", d]` (the launch's `gridDim` / `blockDim`
along axis d = 0, 1, 2: vecadd's unguarded `a[i]` needs `grid.x * block.x - 1 < len(a)`), `["add"|"sub"|"mul"|"and"|"or", x, y]` with i64 wrap-around (as the
kernel computes them), `["cmp", predicate, x, y]` with `arith.cmpi`'s predicates.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Sequence
from typing import Any

import numpy

_MASK = (1 << 64) - 1


def _signed(v: int) -> int:
    v &= _MASK
    return v - (1 << 64) if v >> 63 else v


def _length(arg: Any) -> int | None:
    shape = getattr(arg, "shape", None)
    try:
        return int(shape[0]) if shape is not None and len(shape) == 1 else None
    except (TypeError, ValueError, IndexError):
        return None


_CMP: dict[str, Callable[[int, int], bool]] = {
    "eq": lambda x, y: x == y, "ne": lambda x, y: x != y,
    "slt": lambda x, y: x < y, "sle": lambda x, y: x <= y, "sgt": lambda x, y: x > y, "sge": lambda x, y: x >= y,
}  # fmt: skip
_ARITH: dict[str, Callable[[int, int], int]] = {
    "add": lambda x, y: _signed(x + y), "sub": lambda x, y: _signed(x - y), "mul": lambda x, y: _signed(x * y),
    "and": lambda x, y: x & y, "or": lambda x, y: x | y,
}  # fmt: skip

Evaluator = Callable[[Sequence[Any]], "int | None"]
"""Takes the launch arguments, followed by the launch's grid and block as two (x, y, z) tuples (or
None when the caller has no launch configuration: a `grid`/`block` term then cannot be decided)."""


def _scalar(i: int) -> Evaluator:
    def value(args: Sequence[Any]) -> int | None:
        a = args[i]
        if isinstance(a, bool | numpy.bool_) or not isinstance(a, int | numpy.integer):
            return None  # not an integer: the launch refuses it with its own message
        return _signed(int(a))

    return value


def _build(expr: list[Any]) -> Evaluator:
    """`expr` as a function of the launch arguments (built once per condition: launches are hot)."""
    kind = expr[0]
    if kind == "const":
        c = int(expr[1])
        return lambda args: c
    if kind == "arg":
        return _scalar(int(expr[1]))
    if kind == "len":
        i = int(expr[1])
        return lambda args: _length(args[i])
    if kind in ("grid", "block"):
        d = int(expr[1])
        if d not in (0, 1, 2):
            raise ValueError(f"axis {d} of {kind}")
        which = -2 if kind == "grid" else -1

        def extent(args: Sequence[Any]) -> int | None:
            dims = args[which]
            return None if dims is None else int(dims[d])

        return extent
    if kind == "cmp":
        pred, x, y = expr[1], _build(expr[2]), _build(expr[3])
        unsigned = pred[0] == "u"
        cmp = _CMP["s" + pred[1:] if unsigned else pred]

        def compare(args: Sequence[Any]) -> int | None:
            a, b = x(args), y(args)
            if a is None or b is None:
                return None
            return int(cmp(a & _MASK, b & _MASK) if unsigned else cmp(a, b))

        return compare
    op = _ARITH.get(kind)
    if op is None:
        raise ValueError(f"unknown launch-condition operation {kind!r}")
    x, y = _build(expr[1]), _build(expr[2])

    def apply(args: Sequence[Any]) -> int | None:
        a, b = x(args), y(args)
        return None if a is None or b is None else op(a, b)

    return apply


@functools.lru_cache(maxsize=1024)
def _evaluator(condition: str) -> Evaluator | None:
    try:
        return _build(json.loads(condition))
    except (IndexError, KeyError, TypeError, ValueError):
        return None


def holds(condition: str, args: Sequence[Any], config: Any = None) -> bool:
    """Whether `condition` (JSON, as recorded by `hoist-checks`) is true for the launch arguments
    `args` (one per kernel parameter) launched with `config` (a `wf.LaunchConfig`: its `grid` and
    `block`, each (x, y, z)). False when an argument's value or length cannot be read, when the
    condition reads the grid or block and `config` is None, or when it is malformed."""
    if not condition:
        return False
    evaluate = _evaluator(condition)
    if evaluate is None:
        return False
    dims = (None, None) if config is None else (tuple(config.grid), tuple(config.block))
    try:
        value = evaluate((*args, *dims))
    except IndexError:
        return False
    return value is not None and value & 1 == 1
