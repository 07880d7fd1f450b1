"""Resolving the Python objects a kernel names (globals, closure variables, builtins) to frontend values.

Numbers become compile-time constants (frozen at compile time, as in numba); modules, dtypes and
functions warpforge implements become namespaces / builtins; anything else is a `CompileError` at
the use.
"""

from __future__ import annotations

import builtins
import functools
import math
import types
from typing import Any

from warpforge.dialects.math_catalog import BUILTINS
from warpforge.dtypes import DType
from warpforge.frontend.values import Builtin, DTypeRef, Literal, Namespace, Value

MATH_FUNCTIONS = ("isnan", "isinf", "isfinite", *(b.name for b in BUILTINS if b.math))
"""Functions of Python's `math` module usable in kernels (those that exist in this Python): the
catalog's (`warpforge.dialects.math_catalog`) and the three tests."""

MATH_CONSTANTS = ("pi", "e", "tau", "inf", "nan")

BUILTINS = ("len", "abs", "min", "max", "int", "float", "bool", "range", "print")


@functools.cache
def _function_names() -> dict[int, str]:
    from warpforge import simt

    names: dict[int, str] = {}
    for name in BUILTINS:
        names[id(getattr(builtins, name))] = name
    for name in MATH_FUNCTIONS:
        if hasattr(math, name):
            names[id(getattr(math, name))] = f"math.{name}"
    for name in simt.kernel_functions():
        names[id(getattr(simt, name))] = f"simt.{name}"
    return names


def resolve_global(obj: Any) -> Value | None:
    """The frontend value for a Python object a kernel refers to, or None if it is not usable."""
    import warpforge
    from warpforge import simt

    if isinstance(obj, bool | int | float) and not isinstance(obj, DType):
        return Literal(obj)
    if isinstance(obj, DType):
        return DTypeRef(obj)
    if isinstance(obj, str):
        from warpforge.frontend.values import Text

        return Text(obj)
    if type(obj) is tuple:  # a module-level shape or table: element by element, as a tuple written in the kernel
        from warpforge.frontend.values import TupleValue

        elements = [resolve_global(x) for x in obj]
        if any(e is None for e in elements):
            return None
        return TupleValue(tuple(elements))  # pyright: ignore[reportArgumentType]
    if obj is math:
        return Namespace("math", math)
    if obj is warpforge:
        return Namespace("wf", warpforge)
    if obj is simt:
        return Namespace("simt", simt)
    if isinstance(obj, simt.DimProxy):
        return Namespace(f"simt.{obj.name}", obj)
    from warpforge.frontend.device import DeviceFunctionRef
    from warpforge.frontend.device_function import DeviceFunction

    if isinstance(obj, DeviceFunction):
        return DeviceFunctionRef(obj)
    if isinstance(obj, types.ModuleType) and obj.__name__ == "warpforge.unsafe":
        return Namespace("simt.unsafe", obj)
    if isinstance(obj, types.BuiltinFunctionType | types.FunctionType | type):
        name = _function_names().get(id(obj))
        if name is not None:
            return Builtin(name)
    try:
        import numpy as np

        if isinstance(obj, type) and issubclass(obj, np.generic):
            from warpforge.dtypes import from_numpy

            return DTypeRef(from_numpy(obj))
    except TypeError:
        return None
    return None


def resolve_attribute(ns: Namespace, attr: str) -> Value | None:
    """`ns.attr` for a namespace (`math.sqrt`, `wf.f32`, `simt.thread_idx`, `simt.thread_idx.x` is
    handled by the caller)."""
    if ns.name == "math":
        if attr in MATH_CONSTANTS:
            return Literal(getattr(math, attr))
        if attr in MATH_FUNCTIONS and hasattr(math, attr):
            return Builtin(f"math.{attr}")
        return None
    if not hasattr(ns.obj, attr):
        return None
    return resolve_global(getattr(ns.obj, attr))
