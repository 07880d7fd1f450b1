"""Specializing generic SIMT kernels per launch: argument types → bindings → one compiled kernel each.

A `@simt.kernel` whose parameters all have complete annotations (`simt.Slice[wf.f32]`, `wf.i32`) is
compiled once. One with a parameter lacking them — no annotation, a bare `simt.DisjointSlice`, or
`wf.Constant[int]` — is *generic*: like numba, each launch looks at its arguments, and each distinct
signature is compiled once and cached:

- no annotation, array argument: a slice of the array's dtype, whose kind follows the kernel's use
  of the parameter (assigned into: `DisjointSlice`; passed to `simt.atomic_*`: `AtomicSlice`;
  otherwise `Slice`, read-only);
- no annotation, scalar argument: `bool` → bool, `int` → i64, `float` → f64, a NumPy scalar → its dtype;
- a bare slice marker: that kind, the array's dtype;
- `wf.Constant[int]`: the value is compiled in (one specialization per value) and not passed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from warpforge import dtypes
from warpforge.dtypes import DType
from warpforge.errors import LaunchError
from warpforge.frontend.annotations import GENERIC, ConstantAnnotation, ConstantValue, SliceAnnotation, is_complete


@dataclass(frozen=True)
class ArraySignature:
    """An array argument described by its element dtype and shape alone, without memory: what
    specialization reads of an array (`dtype`, rank), for a launch whose arrays do not exist yet
    (a SIMT step of the lazy tile chain, `warpforge.runtime.lazy.record_simt_launch`)."""

    dtype: np.dtype[Any]
    shape: tuple[int, ...]

    @property
    def ndim(self) -> int:
        return len(self.shape)


def is_array(arg: Any) -> bool:
    """Whether a launch argument is an array (a device buffer, a DLPack / CUDA-array-interface object,
    an `ArraySignature`, or a NumPy array, which the runtime then refuses with its own message)."""
    if isinstance(arg, np.ndarray | ArraySignature):
        return True
    if isinstance(arg, bool | int | float | np.generic):
        return False
    return hasattr(arg, "__cuda_array_interface__") or hasattr(arg, "__dlpack__") or (hasattr(arg, "ptr") and hasattr(arg, "shape"))


def array_dtype(arg: Any, where: str) -> DType:
    """The element dtype of an array argument. Raises `LaunchError` when it has none warpforge knows."""
    dt = getattr(arg, "dtype", None)
    try:
        if dt is not None:
            return dtypes.from_numpy(dt)
    except TypeError:
        pass
    cai = getattr(arg, "__cuda_array_interface__", None)
    if isinstance(cai, dict) and "typestr" in cai:
        try:
            return dtypes.from_numpy(np.dtype(cai["typestr"]))
        except TypeError as e:
            raise LaunchError(f"{where}: {e}") from None
    raise LaunchError(f"{where}: cannot tell the dtype of {type(arg).__name__} {dt!r}")


def scalar_dtype(arg: Any, where: str) -> DType:
    """The dtype a scalar argument gives an unannotated parameter (Python bool/int/float → bool/i64/f64)."""
    if isinstance(arg, bool | np.bool_):
        return dtypes.bool_
    if isinstance(arg, np.generic):
        try:
            return dtypes.from_numpy(arg.dtype)
        except TypeError as e:
            raise LaunchError(f"{where}: {e}") from None
    if isinstance(arg, int):
        return dtypes.i64
    if isinstance(arg, float):
        return dtypes.f64
    raise LaunchError(f"{where}: expected a number or an array, got {type(arg).__name__}")


def bindings_for(kernel: Any, annotations: list[tuple[str, Any]], args: tuple[Any, ...]) -> dict[str, Any]:
    """The bindings of `kernel`'s incomplete parameters for `args` (see the module docstring)."""
    from warpforge.frontend.compiler import written_kind

    name = kernel.__qualname__
    if len(args) != len(annotations):
        raise LaunchError(f"{name} takes {len(annotations)} argument(s) ({', '.join(n for n, _ in annotations)}), got {len(args)}")
    out: dict[str, Any] = {}
    for (pname, ann), arg in zip(annotations, args):
        where = f"{name}: argument '{pname}'"
        if is_complete(ann):
            continue
        if isinstance(ann, ConstantAnnotation):
            value = arg.item() if isinstance(arg, np.generic) else arg
            why = ann.check(value)
            if why is not None:
                raise LaunchError(f"{where} is a wf.Constant: it {why}")
            out[pname] = ConstantValue(value)
        elif isinstance(ann, SliceAnnotation):
            if not is_array(arg):
                raise LaunchError(f"{where} is {ann!r}: pass a device array, got {type(arg).__name__}")
            out[pname] = SliceAnnotation(ann.kind, array_dtype(arg, where))
        elif ann is GENERIC or type(ann).__name__ == "Generic":
            if is_array(arg):
                out[pname] = SliceAnnotation(written_kind(kernel.fn, pname), array_dtype(arg, where))
            else:
                out[pname] = scalar_dtype(arg, where)
    return out


def runtime_args(annotations: list[tuple[str, Any]], args: tuple[Any, ...]) -> tuple[Any, ...]:
    """`args` without those of `wf.Constant` parameters (compiled in, not passed)."""
    return tuple(a for (_, ann), a in zip(annotations, args) if not isinstance(ann, ConstantAnnotation))


def bind_arguments(fn: Any, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    """A kernel launch's arguments in parameter order: `args`, then `kwargs` matched to the Python
    function's parameters by name (as Triton's launches allow; numba's do not). `kwargs` empty: `args`
    as given (the launch checks count them). Raises `UsageError` naming the parameters for an unknown
    or repeated name, or a parameter left without an argument."""
    if not kwargs:
        return args
    import inspect

    from warpforge.errors import UsageError

    sig = inspect.signature(fn)
    names = ", ".join(sig.parameters)
    unknown = [k for k in kwargs if k not in sig.parameters]
    if unknown:
        raise UsageError(f"{name}({names}) has no parameter named {', '.join(repr(k) for k in unknown)}")
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError as e:
        raise UsageError(f"{name}({names}): {e}; pass the arguments by position or by these parameter names") from None
    bound.apply_defaults()
    return tuple(bound.args)
