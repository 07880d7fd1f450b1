"""`inline-device-functions`: every `kernel.call` of a `@simt.device` function → the callee's body,
inlined into the caller's CFG; then the device functions (non-kernel `kernel.func`s) are removed.

Runs after `lower-kernel-control-flow`, when every function body is a CFG whose exits are
`kernel.return` terminators (possibly several). At each call the caller's block is split after the
call; the callee's blocks are cloned in between with its parameters replaced by the call's
arguments, and each cloned `kernel.return %v` becomes `cf.br ^continue(%v)`, whose block arguments
replace the call's results. Callees are inlined before callers (a callee's own calls first), so one
pass inlines any call depth; the frontend refuses recursion. Cloned ops keep their own source
locations (the device function's file and lines), so errors point into the device function.

Inlining is what GPU compilers do with device functions anyway (no call ABI, no stack, every value
stays in registers); the `kernel` level keeps each function once, readable, with `kernel.call`.

```mlir
%r = kernel.call @twice(%x) : (f32) -> f32
// becomes
  cf.br ^body
^body:
  %t = kernel.add %x, %x : f32
  cf.br ^after(%t : f32)
^after(%r: f32):
```
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import builtin, cf
from xdsl.ir import Region
from xdsl.passes import ModulePass

from warpforge.diagnostics import error_at
from warpforge.dialects import kernel
from warpforge.rewriting import inherit_location


def _inline_call(call: kernel.CallOp, callee: kernel.FuncOp) -> None:
    block = call.parent_block()
    assert block is not None
    region = block.parent
    assert region is not None
    result_types = [r.type for r in call.res]
    nxt = call.next_op
    assert nxt is not None, "a kernel.call is never a terminator"
    after = block.split_before(nxt, arg_types=result_types)
    for res, arg in zip(call.res, after.args):
        res.replace_all_uses_with(arg)
    clone = Region()
    callee.body.clone_into(clone)
    blocks = list(clone.blocks)
    entry = blocks[0]
    clone.move_blocks_before(after)
    # the parameters become the call's arguments: nothing flows into the cloned entry block
    for arg, value in zip(list(entry.args), call.arguments):
        arg.replace_all_uses_with(value)
    for arg in reversed(list(entry.args)):
        entry.erase_arg(arg)
    for b in blocks:
        term = b.last_op
        if isinstance(term, kernel.ReturnOp):
            br = cf.BranchOp(after, *term.values)
            inherit_location([br], term)
            b.insert_op_before(br, term)
            term.detach()
            term.erase()
    jump = cf.BranchOp(entry)
    inherit_location([jump], call)
    block.insert_op_before(jump, call)
    call.detach()
    call.erase()


class InlineDeviceFunctionsPass(ModulePass):
    """Inline every kernel.call of a @simt.device function (CFG bodies) and remove the device functions."""

    name = "inline-device-functions"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        funcs = {f.sym_name.data: f for f in op.walk() if isinstance(f, kernel.FuncOp)}
        done: set[str] = set()

        def inline_into(func: kernel.FuncOp, stack: tuple[str, ...]) -> None:
            name = func.sym_name.data
            if name in done:
                return
            if name in stack:
                raise error_at(func, f"@{name} calls itself (recursion is not supported on the GPU)")
            calls = [c for c in func.walk() if isinstance(c, kernel.CallOp)]
            for call in calls:
                target = call.callee.root_reference.data
                callee = funcs.get(target)
                if callee is None:
                    raise error_at(call, f"kernel.call of an unknown function @{target}")
                if callee.is_kernel:
                    raise error_at(call, f"@{target} is a kernel; kernels are launched, not called")
                inline_into(callee, (*stack, name))
                _inline_call(call, callee)
            done.add(name)

        for func in funcs.values():
            inline_into(func, ())
        for func in funcs.values():
            if not func.is_kernel:
                func.detach()
                func.erase()
