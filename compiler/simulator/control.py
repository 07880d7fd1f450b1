"""Control flow: `cf.br`/`cf.cond_br` (the scheduler follows them per thread), `scf.if`/`scf.for`/
`scf.yield`, `func.call`/`func.return`, `gpu.return`, `cf.assert`.

`scf.if` runs one side inline when its condition is uniform (or equal for every active thread), and
otherwise each side on its subset of the threads, merging the yielded values. `scf.for` with uniform
bounds loops in Python; with per-thread bounds, each iteration runs for the threads still iterating.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import cf, func, scf
from xdsl.interpreter import (
    InterpreterFunctions,
    PythonValues,
    ReturnedValues,
    Successor,
    TerminatorValue,
    impl,
    impl_terminator,
    register_impls,
)

from warpforge.dialects import gpu
from warpforge.simulator.engine import CondBranch, SimInterpreter
from warpforge.simulator.values import op_error


@register_impls
class ControlFlowFunctions(InterpreterFunctions):
    @impl_terminator(cf.BranchOp)
    def run_br(self, interp: SimInterpreter, op: cf.BranchOp, args: PythonValues) -> tuple[TerminatorValue, PythonValues]:
        return Successor(interp.static(op, lambda o: o.successor), tuple(args)), ()

    @impl_terminator(cf.ConditionalBranchOp)
    def run_cond_br(self, interp: SimInterpreter, op: cf.ConditionalBranchOp, args: PythonValues) -> tuple[TerminatorValue, PythonValues]:
        cond = args[0]
        n_then, then_block, else_block = interp.static(op, lambda o: (len(o.then_arguments), o.then_block, o.else_block))
        then_args, else_args = tuple(args[1 : 1 + n_then]), tuple(args[1 + n_then :])
        if type(cond) is np.ndarray:
            return CondBranch(cond, then_block, then_args, else_block, else_args), ()  # pyright: ignore[reportReturnType]
        if cond:
            return Successor(then_block, then_args), ()
        return Successor(else_block, else_args), ()

    @impl(cf.AssertOp)
    def run_assert(self, interp: SimInterpreter, op: cf.AssertOp, args: PythonValues) -> PythonValues:
        cond = args[0]
        if not np.all(cond):
            raise op_error(op, f"assertion failed: {op.msg.data}")
        return ()

    @impl_terminator(gpu.ReturnOp)
    def run_gpu_return(self, interp: SimInterpreter, op: gpu.ReturnOp, args: PythonValues) -> tuple[TerminatorValue, PythonValues]:
        return ReturnedValues(tuple(args)), ()

    @impl_terminator(func.ReturnOp)
    def run_func_return(self, interp: SimInterpreter, op: func.ReturnOp, args: PythonValues) -> tuple[TerminatorValue, PythonValues]:
        return ReturnedValues(tuple(args)), ()

    @impl(func.CallOp)
    def run_call(self, interp: SimInterpreter, op: func.CallOp, args: PythonValues) -> PythonValues:
        return interp.call(op, tuple(args))

    @impl_terminator(scf.YieldOp)
    def run_yield(self, interp: SimInterpreter, op: scf.YieldOp, args: PythonValues) -> tuple[TerminatorValue, PythonValues]:
        return ReturnedValues(tuple(args)), ()

    @impl(scf.IfOp)
    def run_if(self, interp: SimInterpreter, op: scf.IfOp, args: PythonValues) -> PythonValues:
        cond = args[0]
        then_code, else_code, types = interp.static(op, lambda o: (interp.region_code(o.true_region), interp.region_code(o.false_region), tuple(o.result_types)))
        if type(cond) is np.ndarray:
            taken = cond.nonzero()[0]
            if len(taken) == len(cond):
                cond = True
            elif len(taken) == 0:
                cond = False
            else:
                other = (~cond).nonzero()[0]
                then_values = interp.run_region_on(then_code, taken) if then_code is not None else ()
                else_values = interp.run_region_on(else_code, other) if else_code is not None else ()
                if not types:
                    return ()
                return interp.merge(types, len(cond), [(taken, then_values), (other, else_values)])
        code = then_code if cond else else_code
        return interp.run_region(code) if code is not None else ()

    @impl(scf.ForOp)
    def run_for(self, interp: SimInterpreter, op: scf.ForOp, args: PythonValues) -> PythonValues:
        lb, ub, step, *carried = args
        body = interp.static(op, lambda o: interp.region_code(o.body))
        assert body is not None
        if type(lb) is not np.ndarray and type(ub) is not np.ndarray and type(step) is not np.ndarray:
            iv = lb
            values = tuple(carried)
            while iv < ub:
                values = interp.run_region(body, (iv, *values))
                iv = iv + step
            return values
        # per-thread bounds: iterate while any thread is in range; the others keep their values
        n = interp.frame.n
        iv = np.broadcast_to(lb, (n,)).copy()
        ub_all = np.broadcast_to(ub, (n,))
        step_all = np.broadcast_to(step, (n,))
        values = [np.broadcast_to(v, (n,)).copy() for v in carried]
        while True:
            active = (iv < ub_all).nonzero()[0]
            if len(active) == 0:
                return tuple(values)
            out = interp.run_region_on(body, active, (iv, *values))
            for v, new in zip(values, out):
                v[active] = new
            iv[active] += step_all[active]
