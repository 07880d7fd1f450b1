"""SIMT calls for Hopper warpgroup control (sm_90 / sm_90a): `simt.fence_proxy_async`,
`simt.setmaxnreg_inc`, `simt.setmaxnreg_dec`, `simt.wgmma_fence`, `simt.wgmma_commit_group`,
`simt.wgmma_wait_group`.

Each becomes one `nvvm` op (catalog row, PTX ISA section in `warpforge.dialects.nvvm_catalog`) that
`kernel-to-gpu` passes through unchanged. The `setmaxnreg` and `wgmma` ones are `sm_90a`-only: a kernel
using them is compiled for `sm_90a` on a compute-capability-9.0 device, and refused by
`check-nvvm-target` for any other chip. Immediates are checked here, so misuse is a `CompileError`
at the call's line.
"""

from __future__ import annotations

import ast

from warpforge.dialects import nvvm
from warpforge.frontend.calls import _REQUIRED, NONE, PARAMETERS  # pyright: ignore[reportPrivateUsage]
from warpforge.frontend.values import Literal, Value

PARAMETERS.update(
    {
        "simt.fence_proxy_async": (),
        "simt.setmaxnreg_inc": (("regs", _REQUIRED),),
        "simt.setmaxnreg_dec": (("regs", _REQUIRED),),
        "simt.wgmma_fence": (),
        "simt.wgmma_commit_group": (),
        "simt.wgmma_wait_group": (("n", 0),),
    }
)


class HopperCallMixin:
    """`call_simt_*` handlers of the Hopper builtins (mixed into `FunctionCompiler`)."""

    error: object
    emit: object

    def _hopper_int(self, value: Value, node: ast.AST, what: str) -> int:
        if not isinstance(value, Literal) or not isinstance(value.value, int) or isinstance(value.value, bool):
            self.error(node, f"{what} must be a compile-time int, got {value.describe()}")  # pyright: ignore[reportCallIssue]
        return value.value  # pyright: ignore[reportReturnType]

    def _setmaxnreg(self, node: ast.Call, args: list[Value], direction: str) -> Value:
        name = f"simt.setmaxnreg_{direction}"
        regs = self._hopper_int(args[0], node, f"{name} regs")
        if not (24 <= regs <= 256 and regs % 8 == 0):
            self.error(node, f"{name}(regs): regs must be a multiple of 8 in [24, 256] (PTX ISA §9.7.19.5), got {regs}")  # pyright: ignore[reportCallIssue]
        self.emit(nvvm.op(f"nvvm.setmaxnreg.{direction}")(regs=regs), node)  # pyright: ignore[reportCallIssue]
        return NONE

    def call_simt_setmaxnreg_inc(self, node: ast.Call, args: list[Value]) -> Value:
        return self._setmaxnreg(node, args, "inc")

    def call_simt_setmaxnreg_dec(self, node: ast.Call, args: list[Value]) -> Value:
        return self._setmaxnreg(node, args, "dec")

    def call_simt_fence_proxy_async(self, node: ast.Call, args: list[Value]) -> Value:
        self.emit(nvvm.op("nvvm.fence.proxy.async.shared.cta")(), node)  # pyright: ignore[reportCallIssue]
        return NONE

    def call_simt_wgmma_fence(self, node: ast.Call, args: list[Value]) -> Value:
        self.emit(nvvm.op("nvvm.wgmma.fence.aligned")(), node)  # pyright: ignore[reportCallIssue]
        return NONE

    def call_simt_wgmma_commit_group(self, node: ast.Call, args: list[Value]) -> Value:
        self.emit(nvvm.op("nvvm.wgmma.commit.group.sync.aligned")(), node)  # pyright: ignore[reportCallIssue]
        return NONE

    def call_simt_wgmma_wait_group(self, node: ast.Call, args: list[Value]) -> Value:
        n = self._hopper_int(args[0], node, "simt.wgmma_wait_group n")
        if n < 0:
            self.error(node, f"simt.wgmma_wait_group(n) needs n >= 0, got {n}")  # pyright: ignore[reportCallIssue]
        self.emit(nvvm.op("nvvm.wgmma.wait.group.sync.aligned")(n=n), node)  # pyright: ignore[reportCallIssue]
        return NONE
