"""`vector` ops — the 1-D vector loads/stores and element moves that `tile-to-gpu` emits for 128-bit
global accesses (`ld.global.nc.v4.f32` on the GPU) — so the simulator runs the same vectorized code
the GPU runs, not a scalar stand-in.

A vector value is a tuple of its elements, each a per-thread NumPy array or a uniform scalar. A
`vector.load` reads `n` consecutive elements along the memref's last dimension (bounds-checked, like
a scalar load of each); `vector.store` writes them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects import vector
from xdsl.interpreter import InterpreterFunctions, PythonValues, impl, register_impls

from warpforge.simulator.engine import SimInterpreter
from warpforge.simulator.memref import _rows, flat_index  # pyright: ignore[reportPrivateUsage]
from warpforge.simulator.values import op_error


def _element_indices(indices: list[Any], k: int) -> list[Any]:
    *outer, last = indices
    return [*outer, last + np.int64(k)]


@register_impls
class VectorFunctions(InterpreterFunctions):
    @impl(vector.LoadOp)
    def run_load(self, interp: SimInterpreter, op: vector.LoadOp, args: PythonValues) -> PythonValues:
        m, *indices = args
        n = _vector_width(op, op.result.type)
        out = []
        for k in range(n):
            flat = flat_index(interp, op, m, _element_indices(indices, k), "vector load")
            data = m.data.view(np.uint8) if m.data.dtype == np.bool_ else m.data  # bools: nonzero bytes read True
            value = data[_rows(interp), flat] if m.per_thread else data[flat]
            out.append(value != 0 if data is not m.data else value)
        return (tuple(out),)

    @impl(vector.StoreOp)
    def run_store(self, interp: SimInterpreter, op: vector.StoreOp, args: PythonValues) -> PythonValues:
        value, m, *indices = args
        for k, element in enumerate(value):
            flat = flat_index(interp, op, m, _element_indices(indices, k), "vector store")
            if m.per_thread:
                m.data[_rows(interp), flat] = element
            elif type(flat) is np.ndarray or type(element) is not np.ndarray:
                m.data[flat] = element
            else:
                m.data[flat] = element[-1]
        return ()

    @impl(vector.BroadcastOp)
    def run_broadcast(self, interp: SimInterpreter, op: vector.BroadcastOp, args: PythonValues) -> PythonValues:
        return (tuple(args[0] for _ in range(_vector_width(op, op.vector.type))),)

    @impl(vector.ExtractOp)
    def run_extract(self, interp: SimInterpreter, op: vector.ExtractOp, args: PythonValues) -> PythonValues:
        if op.dynamic_position:  # vectorize-global-access: position = the static_range variable
            vec, position = args[0], args[1]
            if type(position) is not np.ndarray:
                return (vec[int(position)],)
            return (np.choose(position.astype(np.int64), [np.broadcast_to(e, position.shape) for e in vec]),)
        (position,) = op.static_position.get_values()
        return (args[0][position],)

    @impl(vector.InsertOp)
    def run_insert(self, interp: SimInterpreter, op: vector.InsertOp, args: PythonValues) -> PythonValues:
        source, dest = args[0], list(args[1])
        if op.dynamic_position:  # vectorize-global-access: position = the static_range variable
            position = args[2]
            if type(position) is not np.ndarray:
                dest[int(position)] = source
                return (tuple(dest),)
            return (tuple(np.where(position == k, source, e) for k, e in enumerate(dest)),)
        (position,) = op.static_position.get_values()
        dest[position] = source
        return (tuple(dest),)


def _vector_width(op: Any, typ: Any) -> int:
    shape = typ.get_shape()
    if len(shape) != 1:
        raise op_error(op, f"only 1-D vectors are supported by the simulator, got {typ}")
    return int(shape[0])
