"""Deciding a checked SIMT kernel's entry condition on the host, before the launch.

`hoist-checks` versions a kernel as `cond_br P, ^fast, ^checked`, where `P` implies every hoisted
bounds check. When `P` is the same for every thread (it reads only scalar arguments and slice
lengths: the stencil's `rows * cols - 1 < len(u)`), the pass records it
(`CompiledKernel.launch_condition`, JSON) and the launch evaluates it here: when it holds, the kernel's
*proven* specialization runs (`SimtKernel.checks_hold`: the same code with `P` taken as true, so no
per-thread entry test and no branch); when it fails, or cannot be evaluated, the kernel as compiled
runs, whose threads then all take the checked copy and report the first error exactly as before.

The expression language (`warpforge.passes.hoist_checks.launch_condition`): `["arg", i]`,
`["len", i]`, `["const", c]`, `["add"|"sub"|"mul"|"and"|"or", x, y]` with i64 wrap-around (as the
kernel computes them), `["cmp", predicate, x, y]` with `arith.cmpi`'s predicates.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
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


def _value(expr: list[Any], args: Sequence[Any]) -> int | None:
    kind = expr[0]
    if kind == "const":
        return int(expr[1])
    if kind == "arg":
        a = args[expr[1]]
        if isinstance(a, bool | numpy.bool_) or not isinstance(a, int | numpy.integer):
            return None  # not an integer: the launch refuses it with its own message
        return _signed(int(a))
    if kind == "len":
        return _length(args[expr[1]])
    if kind == "cmp":
        x, y = _value(expr[2], args), _value(expr[3], args)
        if x is None or y is None:
            return None
        pred = expr[1]
        if pred[0] == "u":
            x, y, pred = x & _MASK, y & _MASK, "s" + pred[1:]
        return int({"eq": x == y, "ne": x != y, "slt": x < y, "sle": x <= y, "sgt": x > y, "sge": x >= y}[pred])
    x, y = _value(expr[1], args), _value(expr[2], args)
    if x is None or y is None:
        return None
    if kind == "add":
        return _signed(x + y)
    if kind == "sub":
        return _signed(x - y)
    if kind == "mul":
        return _signed(x * y)
    if kind == "and":
        return x & y
    if kind == "or":
        return x | y
    raise ValueError(f"unknown launch-condition operation {kind!r}")


def holds(condition: str, args: Sequence[Any]) -> bool:
    """Whether `condition` (JSON, as recorded by `hoist-checks`) is true for the launch arguments
    `args` (one per kernel parameter). False when an argument's value or length cannot be read."""
    if not condition:
        return False
    try:
        value = _value(json.loads(condition), args)
    except (IndexError, KeyError, TypeError, ValueError):
        return False
    return value is not None and value & 1 == 1
