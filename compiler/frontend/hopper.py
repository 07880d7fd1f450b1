"""SIMT calls for Hopper (sm_90 / sm_90a): warpgroup control — `simt.fence_proxy_async`,
`simt.setmaxnreg_inc`, `simt.setmaxnreg_dec`, `simt.wgmma_fence`, `simt.wgmma_commit_group`,
`simt.wgmma_wait_group`, `simt.elect_sync` — and asynchronous copies through typed handles:
`simt.mbarrier()` (an `MbarrierValue`) with `simt.mbarrier_init / _arrive / _arrive_expect_tx /
_try_wait / _wait`, and TMA copies `simt.tma_load` / `simt.tma_store` (+ `simt.tma_store_commit`,
`simt.tma_store_wait`) of a `simt.TensorMap[...]` parameter (a `TensorMapValue`).

The handles are what make misuse a `CompileError` at the call: a barrier argument must be an
`simt.mbarrier()`, a TMA box must be a static shared array of the descriptor's box shape and dtype,
the coordinates one per dimension of the descriptor.

Each becomes one `nvvm` op (catalog row, PTX ISA section in `warpforge.dialects.nvvm_catalog`) that
`kernel-to-gpu` passes through unchanged. The `setmaxnreg` and `wgmma` ones are `sm_90a`-only: a kernel
using them is compiled for `sm_90a` on a compute-capability-9.0 device, and refused by
`check-nvvm-target` for any other chip. Immediates are checked here, so misuse is a `CompileError`
at the call's line.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from xdsl.dialects.builtin import IntegerAttr, i64
from xdsl.ir import Block, Region, SSAValue

from warpforge import dtypes
from warpforge.dialects import kernel, kernel_hopper, nvvm
from warpforge.dtypes import DType
from warpforge.frontend.calls import _REQUIRED, NONE, PARAMETERS  # pyright: ignore[reportPrivateUsage]
from warpforge.frontend.values import ArrayValue, IndexValue, Literal, Scalar, TupleValue, Value

SHARED_ALIGNMENT = {"none": 128, "32B": 256, "64B": 512, "128B": 1024}
"""Alignment (bytes) of a TMA box in shared memory: 128 bytes for `cp.async.bulk.tensor` (PTX ISA
§9.7.9.25.5.1), and the swizzle pattern's repeat (8 rows of the swizzle span) for a swizzled box, so
the pattern starts at the box's first row."""


@dataclass(frozen=True)
class MbarrierValue(Value):
    """`simt.mbarrier()`: an 8-byte mbarrier in the block's shared memory (a `!kernel.shared<1xui64>`
    nothing else may touch)."""

    ssa: SSAValue

    def describe(self) -> str:
        return "an mbarrier (simt.mbarrier())"


@dataclass(frozen=True)
class TensorMapValue(Value):
    """A `simt.TensorMap[dtype, box, swizzle]` parameter."""

    ssa: SSAValue
    dtype: DType
    box: tuple[int, ...]
    swizzle: str
    name: str

    def describe(self) -> str:
        return f"simt.TensorMap[{self.dtype.name}, {self.box}, {self.swizzle!r}] '{self.name}'"

    @property
    def box_bytes(self) -> int:
        n = max(1, self.dtype.bits // 8)
        for b in self.box:
            n *= b
        return n

    def kernel_attribute(self, attr: str) -> Value | None:
        """`desc.box_bytes`, `desc.box` (compile-time), else None."""
        if attr == "box_bytes":
            return Literal(self.box_bytes)
        if attr == "box":
            return TupleValue(tuple(Literal(b) for b in self.box))
        return None

PARAMETERS.update(
    {
        "simt.fence_proxy_async": (),
        "simt.setmaxnreg_inc": (("regs", _REQUIRED),),
        "simt.setmaxnreg_dec": (("regs", _REQUIRED),),
        "simt.wgmma_fence": (),
        "simt.wgmma_commit_group": (),
        "simt.wgmma_wait_group": (("n", 0),),
        "simt.elect_sync": (),
        "simt.mbarrier": (),
        "simt.mbarrier_init": (("barrier", _REQUIRED), ("count", _REQUIRED)),
        "simt.mbarrier_arrive": (("barrier", _REQUIRED),),
        "simt.mbarrier_arrive_expect_tx": (("barrier", _REQUIRED), ("nbytes", _REQUIRED)),
        "simt.mbarrier_try_wait": (("barrier", _REQUIRED), ("parity", _REQUIRED)),
        "simt.mbarrier_wait": (("barrier", _REQUIRED), ("parity", _REQUIRED)),
        "simt.tma_load": (("dst", _REQUIRED), ("desc", _REQUIRED), ("coords", _REQUIRED), ("barrier", _REQUIRED)),
        "simt.tma_store": (("src", _REQUIRED), ("desc", _REQUIRED), ("coords", _REQUIRED)),
        "simt.tma_store_commit": (),
        "simt.tma_store_wait": (("n", 0),),
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

    # ------------------------------------------------------------------ elect.sync

    def call_simt_elect_sync(self, node: ast.Call, args: list[Value]) -> Value:
        self.uses_warp_collectives = True  # pyright: ignore[reportAttributeAccessIssue]
        return Scalar(self.emit(kernel_hopper.ElectSyncOp(), node), dtypes.bool_)  # pyright: ignore[reportCallIssue]

    # ------------------------------------------------------------------ mbarriers

    def call_simt_mbarrier(self, node: ast.Call, args: list[Value]) -> Value:
        self.static_shared_bytes += 16  # pyright: ignore[reportAttributeAccessIssue]
        op = kernel.SharedArrayOp(kernel.SharedArrayType((1,), dtypes.u64.mlir))
        return MbarrierValue(self.emit(op, node))  # pyright: ignore[reportCallIssue]

    def _barrier(self, value: Value, node: ast.AST, what: str) -> MbarrierValue:
        if not isinstance(value, MbarrierValue):
            self.error(node, f"{what} needs an mbarrier (made with simt.mbarrier()), got {value.describe()}")  # pyright: ignore[reportCallIssue]
        return value

    def _i32(self, value: Value, node: ast.AST, what: str, lo: int | None = None, hi: int | None = None) -> Scalar:
        """`value` as an i32 scalar: a compile-time int (checked against [lo, hi]) or a run-time integer."""
        if isinstance(value, IndexValue):
            value = Scalar(self.emit(kernel.IndexGetOp(value.ssa), node), dtypes.i64)  # pyright: ignore[reportCallIssue]
        if isinstance(value, Literal):
            if not isinstance(value.value, int) or isinstance(value.value, bool):
                self.error(node, f"{what} must be an integer, got {value.describe()}")  # pyright: ignore[reportCallIssue]
            if lo is not None and hi is not None and not lo <= value.value <= hi:
                self.error(node, f"{what} must be in [{lo}, {hi}], got {value.value}")  # pyright: ignore[reportCallIssue]
            return self.const(value.value, dtypes.i32, node)  # pyright: ignore[reportAttributeAccessIssue]
        if not isinstance(value, Scalar) or not value.dtype.is_int:
            self.error(node, f"{what} must be an integer, got {value.describe()}")  # pyright: ignore[reportCallIssue]
        return self.cast(value, dtypes.i32, node)  # pyright: ignore[reportAttributeAccessIssue]

    def call_simt_mbarrier_init(self, node: ast.Call, args: list[Value]) -> Value:
        bar = self._barrier(args[0], node, "simt.mbarrier_init")
        count = self._i32(args[1], node, "simt.mbarrier_init count (arrivals per phase)", 1, (1 << 20) - 1)
        self.emit(kernel_hopper.MbarrierInitOp(bar.ssa, count.ssa), node)  # pyright: ignore[reportCallIssue]
        return NONE

    def call_simt_mbarrier_arrive(self, node: ast.Call, args: list[Value]) -> Value:
        bar = self._barrier(args[0], node, "simt.mbarrier_arrive")
        self.emit(kernel_hopper.MbarrierArriveOp(bar.ssa), node)  # pyright: ignore[reportCallIssue]
        return NONE

    def call_simt_mbarrier_arrive_expect_tx(self, node: ast.Call, args: list[Value]) -> Value:
        bar = self._barrier(args[0], node, "simt.mbarrier_arrive_expect_tx")
        nbytes = self._i32(args[1], node, "simt.mbarrier_arrive_expect_tx nbytes", 0, (1 << 20) - 1)
        self.emit(kernel_hopper.MbarrierArriveExpectTxOp(bar.ssa, nbytes.ssa), node)  # pyright: ignore[reportCallIssue]
        return NONE

    def _parity(self, value: Value, node: ast.AST, what: str) -> Scalar:
        parity = self._i32(value, node, f"{what} parity", 0, 1)
        if not isinstance(value, Literal):  # a run-time phase: only its lowest bit is the parity
            parity = Scalar(self.emit(kernel.AndOp(parity.ssa, self.const(1, dtypes.i32, node).ssa), node), dtypes.i32)  # pyright: ignore[reportCallIssue, reportAttributeAccessIssue]
        return parity

    def call_simt_mbarrier_try_wait(self, node: ast.Call, args: list[Value]) -> Value:
        bar = self._barrier(args[0], node, "simt.mbarrier_try_wait")
        parity = self._parity(args[1], node, "simt.mbarrier_try_wait")
        return Scalar(self.emit(kernel_hopper.MbarrierTryWaitParityOp(bar.ssa, parity.ssa), node), dtypes.bool_)  # pyright: ignore[reportCallIssue]

    def call_simt_mbarrier_wait(self, node: ast.Call, args: list[Value]) -> Value:
        bar = self._barrier(args[0], node, "simt.mbarrier_wait")
        parity = self._parity(args[1], node, "simt.mbarrier_wait")
        before, after = Block(), Block()
        with self.in_block(before):  # pyright: ignore[reportAttributeAccessIssue]
            done = self.emit(kernel_hopper.MbarrierTryWaitParityOp(bar.ssa, parity.ssa), node)  # pyright: ignore[reportCallIssue]
            self.emit(kernel.ConditionOp(self.emit(kernel.NotOp(done), node), []), node)  # pyright: ignore[reportCallIssue]
        with self.in_block(after):  # pyright: ignore[reportAttributeAccessIssue]
            self.emit(kernel.YieldOp([]), node)  # pyright: ignore[reportCallIssue]
        self.emit(kernel.WhileOp([], Region(before), Region(after)), node)  # pyright: ignore[reportCallIssue]
        return NONE

    # ------------------------------------------------------------------ TMA

    def _tensor_map(self, value: Value, node: ast.AST, what: str) -> TensorMapValue:
        if not isinstance(value, TensorMapValue):
            self.error(node, f"{what} needs a TMA descriptor (a simt.TensorMap[dtype, box] parameter), got {value.describe()}")  # pyright: ignore[reportCallIssue]
        return value

    def _box(self, value: Value, desc: TensorMapValue, node: ast.AST, what: str) -> ArrayValue:
        """The shared array of a TMA copy: static, of the descriptor's box and dtype; its alignment is
        raised to what the copy needs (`SHARED_ALIGNMENT`)."""
        want = f"a shared array (simt.shared_array({desc.box}, wf.{desc.dtype.name})) of the descriptor's box"
        if not isinstance(value, ArrayValue) or value.space != "shared":
            self.error(node, f"{what}: the shared-memory side must be {want}, got {value.describe()}")  # pyright: ignore[reportCallIssue]
        owner = value.ssa.owner
        if not isinstance(owner, kernel.SharedArrayOp):
            self.error(node, f"{what}: the shared-memory side must be {want} (not the dynamic shared memory), got {value.describe()}")  # pyright: ignore[reportCallIssue]
        if tuple(value.shape) != desc.box or value.dtype != desc.dtype:
            self.error(node, f"{what}: the shared-memory side must be {want}, got {value.describe()}")  # pyright: ignore[reportCallIssue]
        align = SHARED_ALIGNMENT[desc.swizzle]
        old = owner.attributes.get("alignment")
        current = old.value.data if isinstance(old, IntegerAttr) else 16
        if align > current:
            owner.attributes["alignment"] = IntegerAttr(align, i64)
            self.static_shared_bytes += align - current  # pyright: ignore[reportAttributeAccessIssue]  (padding, at most)
        return value

    def _coords(self, value: Value, desc: TensorMapValue, node: ast.AST, what: str) -> list[SSAValue]:
        parts = list(value.elements) if isinstance(value, TupleValue) else [value]
        rank = len(desc.box)
        if len(parts) != rank:
            self.error(
                node,
                f"{what}: {desc.describe()} is rank {rank}, so the coordinates are {rank} integers (outermost first), got {len(parts)}",
            )  # pyright: ignore[reportCallIssue]
        return [self._i32(p, node, f"{what} coordinate {k}").ssa for k, p in enumerate(parts)]

    def call_simt_tma_load(self, node: ast.Call, args: list[Value]) -> Value:
        desc = self._tensor_map(args[1], node, "simt.tma_load")
        dst = self._box(args[0], desc, node, "simt.tma_load")
        coords = self._coords(args[2], desc, node, "simt.tma_load")
        bar = self._barrier(args[3], node, "simt.tma_load")
        self.emit(kernel_hopper.TmaLoadOp(dst.ssa, desc.ssa, coords, bar.ssa), node)  # pyright: ignore[reportCallIssue]
        return NONE

    def call_simt_tma_store(self, node: ast.Call, args: list[Value]) -> Value:
        desc = self._tensor_map(args[1], node, "simt.tma_store")
        src = self._box(args[0], desc, node, "simt.tma_store")
        coords = self._coords(args[2], desc, node, "simt.tma_store")
        self.emit(kernel_hopper.TmaStoreOp(src.ssa, desc.ssa, coords), node)  # pyright: ignore[reportCallIssue]
        return NONE

    def call_simt_tma_store_commit(self, node: ast.Call, args: list[Value]) -> Value:
        self.emit(nvvm.op("nvvm.cp.async.bulk.commit.group")(), node)  # pyright: ignore[reportCallIssue]
        return NONE

    def call_simt_tma_store_wait(self, node: ast.Call, args: list[Value]) -> Value:
        n = self._hopper_int(args[0], node, "simt.tma_store_wait n")
        if n < 0:
            self.error(node, f"simt.tma_store_wait(n) needs n >= 0, got {n}")  # pyright: ignore[reportCallIssue]
        self.emit(nvvm.op("nvvm.cp.async.bulk.wait_group")(n=n), node)  # pyright: ignore[reportCallIssue]
        return NONE
