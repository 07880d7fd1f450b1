"""SIMT calls for tensor cores and asynchronous copies: `simt.mma_fragment`, `simt.ldmatrix`,
`simt.mma_sync`, `simt.mma_coords`, `simt.cp_async`, `simt.cp_async_commit`, `simt.cp_async_wait`.

A fragment (`FragmentValue`) is a register array whose elements the frontend keeps as variables
(like a `simt.local_array` indexed by constants), so `if`s merge them and loops carry them.
Assigning a fragment to a name that holds a fragment of the same operand and dtype copies the
elements into it (`acc = simt.mma_sync(a, b, acc)` in a loop updates the loop-carried `acc`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from math import prod

from warpforge import dtypes, mma
from warpforge.dialects import kernel, kernel_mma
from warpforge.dialects.nvvm_catalog import MMA_SHAPES, mma_shape
from warpforge.dtypes import DType
from warpforge.frontend.calls import _REQUIRED, NONE, PARAMETERS  # pyright: ignore[reportPrivateUsage]
from warpforge.frontend.values import (
    ArrayValue,
    Literal,
    NeedsUnroll,
    RegisterArrayValue,
    Scalar,
    SliceValue,
    Text,
    TupleValue,
    Value,
)


@dataclass(frozen=True)
class FragmentValue(RegisterArrayValue):
    """One lane's part of an `mma.sync` operand (`warpforge.mma.Fragment`): `shape` is `(elements,)`;
    its elements are the variables `key_{offset + k}` (`offset`: its place in a fragment array)."""

    operand: str = "c"
    offset: int = 0

    def element(self, flat: int) -> str:
        return f"{self.key}_{self.offset + flat}"

    @property
    def fragment(self) -> mma.Fragment:
        return mma.Fragment(self.operand, self.dtype)

    def describe(self) -> str:
        return f"an mma {self.operand.upper()} fragment of {self.shape[0]} {self.dtype.name}"


@dataclass(frozen=True)
class FragmentArrayValue(RegisterArrayValue):
    """`simt.mma_fragment(operand, dtype, count=(2, 8))`: fragments indexed by compile-time ints
    (`acc[i, j]` is a fragment; `acc[i, j] = simt.mma_sync(...)` updates it); `shape` is
    `(*count, elements)`."""

    operand: str = "c"

    def at(self, flat: int) -> FragmentValue:
        e = self.shape[-1]
        return FragmentValue(self.key, self.dtype, (e,), self.site, self.operand, flat * e)

    def describe(self) -> str:
        return f"an array {'x'.join(map(str, self.shape[:-1]))} of mma {self.operand.upper()} fragments of {self.dtype.name}"


PARAMETERS.update(
    {
        "simt.mma_fragment": (("operand", _REQUIRED), ("dtype", _REQUIRED), ("fill", 0), ("count", None)),
        "simt.mma_sync": (("a", _REQUIRED), ("b", _REQUIRED), ("c", _REQUIRED), ("allow_tf32", False)),
        "simt.mma_coords": (("fragment", _REQUIRED), ("i", _REQUIRED)),
        "simt.ldmatrix": (("array", _REQUIRED), ("index", _REQUIRED), ("num", 4), ("trans", False)),
        "simt.cp_async": (
            ("dst", _REQUIRED), ("index", _REQUIRED), ("src", _REQUIRED), ("src_index", _REQUIRED), ("nbytes", 16), ("cache", None),
        ),
        "simt.cp_async_commit": (),
        "simt.cp_async_wait": (("n", 0),),
    }
)  # fmt: skip


def _affine(fragment: mma.Fragment, i: int) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """(const, ·g, ·t) of the row and of the column of element `i` (the layouts are affine in
    g = lane / 4 and t = lane % 4)."""
    r0, c0 = fragment.coords(0, i)
    rg, cg = fragment.coords(4, i)
    rt, ct = fragment.coords(1, i)
    return (r0, rg - r0, rt - r0), (c0, cg - c0, ct - c0)


class MmaCallMixin:
    """`call_simt_*` handlers of the tensor-core builtins (mixed into `FunctionCompiler`)."""

    # the FunctionCompiler methods these use
    error: object
    emit: object
    vars: dict

    def _fragment(self, operand: str, dtype: DType, elements: list[Scalar], node: ast.AST) -> FragmentValue:
        site = (self.source.filename, getattr(node, "lineno", 0) + self.source.first_line, getattr(node, "col_offset", 0))  # pyright: ignore[reportAttributeAccessIssue]
        frag = FragmentValue(f"__mma{site[1]}_{site[2]}_{len(self.vars)}", dtype, (len(elements),), site, operand)
        for k, e in enumerate(elements):
            self.vars[frag.element(k)] = e
        return frag

    def _fragment_arg(self, value: Value, node: ast.AST, what: str) -> FragmentValue:
        if not isinstance(value, FragmentValue):
            self.error(node, f"{what} needs an mma fragment (simt.mma_fragment, simt.ldmatrix or simt.mma_sync), got {value.describe()}")  # pyright: ignore[reportCallIssue]
        return value

    def _elements(self, frag: FragmentValue) -> list[Scalar]:
        return [self.vars[frag.element(k)] for k in range(frag.shape[0])]

    def _int_constant(self, value: Value, node: ast.AST, what: str) -> int:
        if not isinstance(value, Literal) or not isinstance(value.value, int) or isinstance(value.value, bool):
            self.error(node, f"{what} must be a compile-time int, got {value.describe()}")  # pyright: ignore[reportCallIssue]
        return value.value  # pyright: ignore[reportReturnType]

    def _bool_constant(self, value: Value, node: ast.AST, what: str) -> bool:
        if not isinstance(value, Literal) or not isinstance(value.value, bool | int):
            self.error(node, f"{what} must be True or False, got {value.describe()}")  # pyright: ignore[reportCallIssue]
        return bool(value.value)

    def _i64(self, value: Value, node: ast.AST, what: str) -> Scalar:
        from warpforge.frontend.values import IndexValue

        if isinstance(value, IndexValue):
            value = Scalar(self.emit(kernel.IndexGetOp(value.ssa), node), dtypes.i64)  # pyright: ignore[reportCallIssue]
        scalar = self.materialize(value, node, dtypes.i64 if isinstance(value, Literal) else None)  # pyright: ignore[reportAttributeAccessIssue]
        if not scalar.dtype.is_int:
            self.error(node, f"{what} must be an integer, got {scalar.dtype.name}")  # pyright: ignore[reportCallIssue]
        return self.cast(scalar, dtypes.i64, node)  # pyright: ignore[reportAttributeAccessIssue]

    # ------------------------------------------------------------------ fragments

    def call_simt_mma_fragment(self, node: ast.Call, args: list[Value]) -> Value:
        if self.static_loops:  # a fresh array each iteration: only unrolled
            raise NeedsUnroll(frozenset(self.static_loops))
        operand = args[0]
        if not isinstance(operand, Text) or operand.value not in mma.OPERANDS:
            self.error(node, f"simt.mma_fragment: the operand is \"a\", \"b\" or \"c\", got {operand.describe()}")  # pyright: ignore[reportCallIssue]
        dtype = self.dtype_argument(args[1], node, "simt.mma_fragment")  # pyright: ignore[reportAttributeAccessIssue]
        try:
            frag = mma.Fragment(operand.value, dtype)
        except ValueError as e:
            self.error(node, f"simt.mma_fragment: {e}")  # pyright: ignore[reportCallIssue]
        fill = self.implicit(args[2], dtype, node, "simt.mma_fragment fill")  # pyright: ignore[reportAttributeAccessIssue]
        if isinstance(args[3], Literal) and args[3].value is None:
            return self._fragment(operand.value, dtype, [fill] * frag.elements, node)
        count = self.constant_shape(args[3], node, "simt.mma_fragment count")  # pyright: ignore[reportAttributeAccessIssue]
        site = (self.source.filename, getattr(node, "lineno", 0) + self.source.first_line, getattr(node, "col_offset", 0))  # pyright: ignore[reportAttributeAccessIssue]
        array = FragmentArrayValue(f"__mma{site[1]}_{site[2]}_{len(self.vars)}", dtype, (*count, frag.elements), site, operand.value)
        for k in range(prod(array.shape)):
            self.vars[array.element(k)] = fill
        return array

    # fragment arrays: `acc[i, j]` is a fragment, `acc[i, j] = frag` copies into it
    def _fragment_index(self, base: FragmentArrayValue, index: Value, node: ast.AST) -> int:
        parts = list(index.elements) if isinstance(index, TupleValue) else [index]
        if len(parts) != len(base.shape) - 1:
            self.error(node, f"{base.describe()} takes {len(base.shape) - 1} index(es), got {len(parts)}")  # pyright: ignore[reportCallIssue]
        flat = 0
        for part, extent in zip(parts, base.shape[:-1]):
            if not isinstance(part, Literal) or not isinstance(part.value, int) or isinstance(part.value, bool):
                self.error(node, f"{base.describe()} is indexed by compile-time ints (simt.static_range), got {part.describe()}")  # pyright: ignore[reportCallIssue]
            if not 0 <= part.value < extent:
                self.error(node, f"index {part.value} is out of range for an extent of {extent}")  # pyright: ignore[reportCallIssue]
            flat = flat * extent + part.value
        return flat

    def register_load(self, base: RegisterArrayValue, index: Value, node: ast.AST) -> Value:  # pyright: ignore[reportIncompatibleMethodOverride]
        if isinstance(base, FragmentArrayValue):
            return base.at(self._fragment_index(base, index, node))
        return super().register_load(base, index, node)  # pyright: ignore[reportAttributeAccessIssue]

    def register_store(self, base: RegisterArrayValue, index: Value, value: Value, node: ast.AST) -> None:
        if isinstance(base, FragmentArrayValue):
            target = base.at(self._fragment_index(base, index, node))
            if not isinstance(value, FragmentValue) or not copy_fragment(self.vars, target, value, force=True):
                self.error(node, f"{target.describe()} can only be assigned a fragment of the same operand and dtype, got {value.describe()}")  # pyright: ignore[reportCallIssue]
            return
        super().register_store(base, index, value, node)  # pyright: ignore[reportAttributeAccessIssue]

    def call_simt_mma_coords(self, node: ast.Call, args: list[Value]) -> Value:
        frag = self._fragment_arg(args[0], node, "simt.mma_coords")
        i = self._int_constant(args[1], node, "simt.mma_coords: the element index")
        if not 0 <= i < frag.shape[0]:
            self.error(node, f"simt.mma_coords: {frag.describe()} has elements 0..{frag.shape[0] - 1}, not {i}")  # pyright: ignore[reportCallIssue]
        lane = Scalar(self.emit(kernel.LaneIdOp(), node), dtypes.i64)  # pyright: ignore[reportCallIssue]
        g = self.binary(ast.FloorDiv, lane, Literal(4), node)  # pyright: ignore[reportAttributeAccessIssue]
        t = self.binary(ast.Mod, lane, Literal(4), node)  # pyright: ignore[reportAttributeAccessIssue]
        out = []
        for const, kg, kt in _affine(frag.fragment, i):
            v = self.binary(ast.Add, self.binary(ast.Mult, g, Literal(kg), node), self.binary(ast.Mult, t, Literal(kt), node), node)  # pyright: ignore[reportAttributeAccessIssue]
            out.append(self.binary(ast.Add, v, Literal(const), node))  # pyright: ignore[reportAttributeAccessIssue]
        return TupleValue(tuple(out))

    def call_simt_mma_sync(self, node: ast.Call, args: list[Value]) -> Value:
        a = self._fragment_arg(args[0], node, "simt.mma_sync (a)")
        b = self._fragment_arg(args[1], node, "simt.mma_sync (b)")
        c = self._fragment_arg(args[2], node, "simt.mma_sync (c)")
        allow_tf32 = self._bool_constant(args[3], node, "simt.mma_sync allow_tf32")
        for frag, want in ((a, "a"), (b, "b"), (c, "c")):
            if frag.operand != want:
                self.error(node, f"simt.mma_sync: its {want} argument must be an {want.upper()} fragment, got {frag.describe()}")  # pyright: ignore[reportCallIssue]
        if a.dtype != b.dtype:
            self.error(node, f"simt.mma_sync: A and B must have one dtype, got A {a.dtype.name} and B {b.dtype.name} ({a.fragment.shape})")  # pyright: ignore[reportCallIssue]
        if a.dtype.name == "f32" and not allow_tf32:
            self.error(node, "simt.mma_sync: f32 fragments multiply as tf32 (10 mantissa bits, m16n8k8); pass allow_tf32=True to accept that precision")  # pyright: ignore[reportCallIssue]
        shape = a.fragment.shape
        a_ptx = mma.PTX_INPUT[a.dtype.name]
        row = mma_shape(shape, a_ptx, mma.PTX_ACCUMULATOR.get(c.dtype.name, "?"))
        if row is None:
            known = ", ".join(f"{r.a}->{r.c}" for r in MMA_SHAPES)
            self.error(node, f"simt.mma_sync: no {shape} mma with {a.dtype.name} inputs and a {c.dtype.name} accumulator (available: {known})")  # pyright: ignore[reportCallIssue]
        op = kernel_mma.MmaSyncOp(
            row.shape, row.a, [e.ssa for e in self._elements(a)], [e.ssa for e in self._elements(b)], [e.ssa for e in self._elements(c)]
        )
        self.emit(op, node)  # pyright: ignore[reportCallIssue]
        return self._fragment("c", c.dtype, [Scalar(r, c.dtype) for r in op.d], node)

    def call_simt_ldmatrix(self, node: ast.Call, args: list[Value]) -> Value:
        array = args[0]
        if not isinstance(array, ArrayValue) or array.space != "shared":
            self.error(node, f"simt.ldmatrix reads a shared array (simt.shared_array), got {array.describe()}")  # pyright: ignore[reportCallIssue]
        if array.dtype.name not in ("f16", "bf16"):
            self.error(node, f"simt.ldmatrix loads 8x8 matrices of 16-bit floats from a shared array of f16 or bf16, got {array.describe()}")  # pyright: ignore[reportCallIssue]
        num = self._int_constant(args[2], node, "simt.ldmatrix num")
        if num not in (1, 2, 4):
            self.error(node, f"simt.ldmatrix loads num=1, 2 or 4 matrices, not {num}")  # pyright: ignore[reportCallIssue]
        trans = self._bool_constant(args[3], node, "simt.ldmatrix trans")
        indices = self.array_indices(array, args[1], node)  # pyright: ignore[reportAttributeAccessIssue]
        op = kernel_mma.LdMatrixOp(array.ssa, [self.cast(i, dtypes.i64, node).ssa for i in indices], num, trans, array.dtype.mlir)  # pyright: ignore[reportAttributeAccessIssue]
        self.emit(op, node)  # pyright: ignore[reportCallIssue]
        operand = {4: "a", 2: "b", 1: "x1"}[num]
        if operand == "x1":  # two elements, not an mma operand: a plain register array
            site = (self.source.filename, getattr(node, "lineno", 0) + self.source.first_line, getattr(node, "col_offset", 0))  # pyright: ignore[reportAttributeAccessIssue]
            regs = RegisterArrayValue(f"__ldm{site[1]}_{site[2]}_{len(self.vars)}", array.dtype, (2,), site)
            for k, r in enumerate(op.res):
                self.vars[regs.element(k)] = Scalar(r, array.dtype)
            return regs
        return self._fragment(operand, array.dtype, [Scalar(r, array.dtype) for r in op.res], node)

    # ------------------------------------------------------------------ cp.async

    def call_simt_cp_async(self, node: ast.Call, args: list[Value]) -> Value:
        dst, index, src, src_index, nbytes_v, cache_v = args
        if not isinstance(dst, ArrayValue) or dst.space != "shared":
            self.error(node, f"simt.cp_async copies into a shared array (simt.shared_array), got {dst.describe()}")  # pyright: ignore[reportCallIssue]
        if not isinstance(src, SliceValue):
            self.error(node, f"simt.cp_async copies from a kernel parameter simt.Slice (global memory), got {src.describe()}")  # pyright: ignore[reportCallIssue]
        if src.dtype != dst.dtype:
            self.error(node, f"simt.cp_async copies between one dtype, got {src.describe()} and {dst.describe()}")  # pyright: ignore[reportCallIssue]
        nbytes = self._int_constant(nbytes_v, node, "simt.cp_async nbytes")
        size = max(1, dst.dtype.bits // 8)
        if nbytes not in (4, 8, 16) or nbytes % size:
            self.error(node, f"simt.cp_async copies 4, 8 or 16 bytes (a multiple of {dst.dtype.name}'s {size}), not {nbytes}")  # pyright: ignore[reportCallIssue]
        if isinstance(cache_v, Text):
            cache = cache_v.value
        else:
            cache = None if isinstance(cache_v, Literal) and cache_v.value is None else "?"
        if cache not in (None, "ca", "cg"):
            self.error(node, f"simt.cp_async cache is \"ca\" (L1 and L2) or \"cg\" (L2 only, 16 bytes), got {cache_v.describe()}")  # pyright: ignore[reportCallIssue]
        if cache == "cg" and nbytes != 16:
            self.error(node, f"simt.cp_async cache=\"cg\" copies 16 bytes only, not {nbytes}")  # pyright: ignore[reportCallIssue]
        bypass = cache == "cg" or (cache is None and nbytes == 16)
        indices = self.array_indices(dst, index, node)  # pyright: ignore[reportAttributeAccessIssue]
        i = self._i64(src_index, node, "simt.cp_async src_index")
        op = kernel_mma.CpAsyncOp(dst.ssa, [x.ssa for x in indices], src.ssa, i.ssa, nbytes // size, bypass)
        self.emit(op, node)  # pyright: ignore[reportCallIssue]
        return NONE

    def call_simt_cp_async_commit(self, node: ast.Call, args: list[Value]) -> Value:
        self.emit(kernel_mma.CpAsyncCommitOp(), node)  # pyright: ignore[reportCallIssue]
        return NONE

    def call_simt_cp_async_wait(self, node: ast.Call, args: list[Value]) -> Value:
        n = self._int_constant(args[0], node, "simt.cp_async_wait n")
        if n < 0:
            self.error(node, f"simt.cp_async_wait(n) needs n >= 0, got {n}")  # pyright: ignore[reportCallIssue]
        self.emit(kernel_mma.CpAsyncWaitOp(n), node)  # pyright: ignore[reportCallIssue]
        return NONE


def copy_fragment(vars: dict, old: FragmentValue, new: FragmentValue, *, force: bool = False) -> bool:
    """`old = new` for fragments of one operand and dtype: `new`'s elements become `old`'s (True);
    False when they differ (the name is simply rebound). `force`: also when `new` is `old` itself."""
    if old.operand != new.operand or old.dtype != new.dtype or old.shape != new.shape:
        return False
    if (old.key, old.offset) == (new.key, new.offset):
        return force
    for k in range(old.shape[0]):
        vars[old.element(k)] = vars[new.element(k)]
    return True
