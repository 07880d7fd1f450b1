"""Statements: assignments (incl. `DisjointSlice` writes), `if`/`elif`/`else`, `for … in range(…)`,
`while`, `break`, `continue`, `return`, `pass`, expression statements.

Variables are SSA values; control flow makes the data flow explicit: a `kernel.if` yields the
variables either branch assigns, a loop carries (`iter_args`) the variables its body assigns that
exist before it, and `break`/`continue` pass their current values. A variable must keep one type
across branches and iterations (a `CompileError` otherwise; a Python literal adopts the other side's
type, as in NEP 50).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from math import prod

from xdsl.dialects.builtin import Region, UnitAttr
from xdsl.ir import Block, SSAValue

from warpforge import dtypes
from warpforge.dialects import kernel
from warpforge.dtypes import DType
from warpforge.frontend.builder import FunctionCompilerBase, LoopContext
from warpforge.frontend.values import (
    ArrayValue,
    TupleValue,
    RegisterArrayValue,
    Text,
    ViewValue,
    BlockIndexValue,
    IndexValue,
    Literal,
    LoopIndex,
    NeedsMemory,
    NeedsUnroll,
    RangeValue,
    Scalar,
    SliceValue,
    Undefined,
    UnrolledOnly,
    Value,
    ownership_key,
)


def assigned_names(body: Sequence[ast.stmt], *, loop_targets: bool = True) -> list[str]:
    """Names a block of statements assigns (in first-assignment order), nested blocks included
    (`loop_targets=False`: not counting the variables of nested `for` loops)."""
    names: list[str] = []

    def add(target: ast.expr) -> None:
        if isinstance(target, ast.Name) and target.id not in names:
            names.append(target.id)
        elif isinstance(target, ast.Tuple | ast.List):
            for elt in target.elts:
                add(elt)

    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    add(t)
            elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                add(node.target)
            elif isinstance(node, ast.For) and loop_targets:
                add(node.target)
            elif isinstance(node, ast.NamedExpr):
                add(node.target)
    return names


class _RetypeLoop(Exception):
    """A loop-carried variable initialized from a weak literal (`acc = 0`) takes another type in the
    body (`acc += x[i]`, f32): the loop is compiled again with that type, as NEP 50's weak literal
    would adopt it in straight-line code."""

    def __init__(self, loop: LoopContext, name: str, dtype: DType):
        super().__init__(name)
        self.loop, self.name, self.dtype = loop, name, dtype


class StatementMixin(FunctionCompilerBase):
    def visit_body(self, body: Sequence[ast.stmt]) -> None:
        """Visit statements until one ends the block (break/continue/return); later ones are unreachable."""
        for stmt in body:
            if self.terminated:
                return
            method = getattr(self, f"visit_{type(stmt).__name__}", None)
            if method is None:
                self.error(stmt, f"{type(stmt).__name__} statements are not supported in kernels")
            method(stmt)

    # ------------------------------------------------------------------ simple statements

    def visit_Pass(self, node: ast.Pass) -> None:
        pass

    def visit_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # a docstring
        self.visit_expr(node.value)  # pyright: ignore[reportAttributeAccessIssue]

    def visit_Assign(self, node: ast.Assign) -> None:
        if len(node.targets) != 1:
            self.error(node, "chained assignment (a = b = …) is not supported; assign one name at a time")
        target = node.targets[0]
        if isinstance(target, ast.Tuple | ast.List) and not isinstance(node.value, ast.Tuple | ast.List):
            value = self.visit_expr(node.value)  # pyright: ignore[reportAttributeAccessIssue]
            if not isinstance(value, TupleValue) or len(value.elements) != len(target.elts):
                self.error(node, f"cannot unpack {value.describe()} into {len(target.elts)} names")
            for t, v in zip(target.elts, value.elements):
                self.assign(t, v, node)
            return
        if isinstance(target, ast.Tuple | ast.List):
            if not isinstance(node.value, ast.Tuple | ast.List) or len(node.value.elts) != len(target.elts):
                self.error(node, "tuple assignment needs a tuple of the same length on the right (a, b = b, a)")
            values = [self.visit_expr(v) for v in node.value.elts]  # pyright: ignore[reportAttributeAccessIssue]
            for t, v in zip(target.elts, values):
                self.assign(t, v, node)
            return
        self.assign(target, self.visit_expr(node.value), node)  # pyright: ignore[reportAttributeAccessIssue]

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is None:
            self.error(node, "a declaration without a value is not supported; write `x: wf.f32 = 0`")
        if not isinstance(node.target, ast.Name):
            self.error(node, "an annotated assignment needs a plain name")
        annotation = self.visit_expr(node.annotation)
        from warpforge.frontend.values import DTypeRef

        if not isinstance(annotation, DTypeRef):
            self.error(node.annotation, "the annotation must be a warpforge dtype, e.g. wf.f32")
        value = self.visit_expr(node.value)
        scalar = self.materialize(value, node, annotation.dtype) if isinstance(value, Literal) else self.cast(self.materialize(value, node), annotation.dtype, node)
        self.vars[node.target.id] = scalar

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.target, ast.Name):
            current = self.lookup(node.target.id, node.target)
            self.assign(node.target, self.binary(type(node.op), current, self.visit_expr(node.value), node), node)  # pyright: ignore[reportAttributeAccessIssue]
            return
        if isinstance(node.target, ast.Subscript):
            base = self.visit_expr(node.target.value)  # pyright: ignore[reportAttributeAccessIssue]
            index = self.visit_expr(node.target.slice)  # pyright: ignore[reportAttributeAccessIssue]
            if isinstance(base, RegisterArrayValue):
                current = self.register_load(base, index, node.target)  # pyright: ignore[reportAttributeAccessIssue]
                new = self.binary(type(node.op), current, self.visit_expr(node.value), node)  # pyright: ignore[reportAttributeAccessIssue]
                self.register_store(base, index, new, node)  # pyright: ignore[reportAttributeAccessIssue]
                return
            if isinstance(base, ViewValue):
                current = self.view_load(base, index, node.target)  # pyright: ignore[reportAttributeAccessIssue]
                new = self.binary(type(node.op), current, self.visit_expr(node.value), node)  # pyright: ignore[reportAttributeAccessIssue]
                self.view_store(base, index, new, node)  # pyright: ignore[reportAttributeAccessIssue]
                return
            if isinstance(base, ArrayValue):
                current = self.array_load(base, index, node.target)  # pyright: ignore[reportAttributeAccessIssue]
            elif isinstance(base, SliceValue):
                current = self.load(base, index, node.target)  # pyright: ignore[reportAttributeAccessIssue]
            else:
                self.error(node.target, f"cannot index {base.describe()}")
            new = self.binary(type(node.op), current, self.visit_expr(node.value), node)  # pyright: ignore[reportAttributeAccessIssue]
            self.store(base, index, new, node)
            return
        self.error(node, "augmented assignment needs a name or a subscript on the left")

    def assign(self, target: ast.expr, value: Value, node: ast.AST) -> None:
        if isinstance(target, ast.Name):
            if isinstance(value, Undefined):
                self.error(node, f"'{value.name}' {value.reason}")
            if isinstance(value, Text):
                self.error(node, "str constants are not supported in kernels (strings are only option values, e.g. scope=\"block\")")
            from warpforge.frontend.mma import FragmentValue, copy_fragment

            current = self.vars.get(target.id)
            if isinstance(current, FragmentValue) and isinstance(value, FragmentValue) and copy_fragment(self.vars, current, value):
                return  # `acc = simt.mma_sync(a, b, acc)`: the elements of the existing fragment are updated
            self.vars[target.id] = value
            if isinstance(value, Scalar) and not value.ssa.name_hint and value.ssa.owner is not None:
                value.ssa.name_hint = target.id if target.id.isidentifier() else None
            return
        if isinstance(target, ast.Subscript):
            base = self.visit_expr(target.value)
            if not isinstance(base, SliceValue | ArrayValue | ViewValue | RegisterArrayValue):
                self.error(target, f"cannot assign into {base.describe()}")
            index = self.visit_expr(target.slice)
            if isinstance(base, RegisterArrayValue):
                self.register_store(base, index, value, node)  # pyright: ignore[reportAttributeAccessIssue]
                return
            if isinstance(base, ViewValue):
                self.view_store(base, index, value, node)  # pyright: ignore[reportAttributeAccessIssue]
                return
            self.store(base, index, value, node)
            return
        self.error(target, f"cannot assign to {type(target).__name__}")

    def store(self, base: SliceValue | ArrayValue, index: Value, value: Value, node: ast.AST) -> None:
        if isinstance(base, ArrayValue):
            indices = self.array_indices(base, index, node)  # pyright: ignore[reportAttributeAccessIssue]
            scalar = self.implicit(value, base.dtype, node, f"storing into {base.describe()}")
            text = self.text_of(node.targets[0]) if isinstance(node, ast.Assign) else self.text_of(getattr(node, "target", node))
            self.emit(kernel.ArrayStoreOp(scalar.ssa, base.ssa, [i.ssa for i in indices], text), node)
            return
        if base.kind == "slice":
            self.error(node, f"{base.describe()} is read-only; declare the parameter simt.DisjointSlice[{base.dtype!r}] to write it")
        if base.kind == "atomic_slice":
            self.error(node, f"{base.describe()} takes atomic operations only: simt.atomic_exch({base.name}, i, v) writes atomically")
        text = self.text_of(node.targets[0]) if isinstance(node, ast.Assign) else self.text_of(getattr(node, "target", node))
        if base.kind == "raw_slice":
            i = self.raw_index(index, node)
            scalar = self.implicit(value, base.dtype, node, f"storing into {base.describe()}")
            self.emit(kernel.StoreOp(scalar.ssa, base.ssa, i.ssa, text), node)
            return
        if isinstance(index, BlockIndexValue):
            self.claim_disjoint(base, ("block", ownership_key(index.ssa)), index.describe(), node)
            scalar = self.implicit(value, base.dtype, node, f"storing into {base.describe()}")
            self.emit(kernel.StoreOp(scalar.ssa, base.ssa, index.ssa, text), node)
            return
        if not isinstance(index, IndexValue):
            self.error(
                node,
                f"{base.describe()} is written only through a ThreadIndex (idx = simt.index_1d(); {base.name}[idx] = …), "
                f"which proves no other thread writes the same element; got {index.describe()}",
            )
        self.claim_disjoint(base, ("thread", ownership_key(index.ssa)), index.describe(), node)
        scalar = self.implicit(value, base.dtype, node, f"storing into {base.describe()}")
        self.emit(kernel.StoreOp(scalar.ssa, base.ssa, index.ssa), node)

    def claim_disjoint(self, base: SliceValue, key: tuple[object, ...], how: str, node: ast.AST) -> None:
        """Each thread of a `DisjointSlice`'s writers owns distinct elements only under one ownership map:
        the first write fixes it (a ThreadIndex, a BlockIndex, or a row/column/tile view of a given
        index and extent, compared by how they are computed); a write through another one (`o[idx]` and
        `o.row(idx, 4)[0]`, `index_2d(4)` and `index_2d(8)`, a BlockIndex and a ThreadIndex) could
        make two threads write one element, so it is a `CompileError` naming the first."""
        owners: dict[SSAValue, tuple[tuple[object, ...], str, int]] = self.__dict__.setdefault("_disjoint_owners", {})
        line = getattr(node, "lineno", 1) + self.source.first_line - 1  # pyright: ignore[reportAttributeAccessIssue]
        first = owners.get(base.ssa)
        if first is None:
            owners[base.ssa] = (key, how, line)
            return
        if first[0] != key:
            self.error(
                node,
                f"{base.describe()} is already written through {first[1]} (line {first[2]}); writing it through {how} too "
                "could make two threads write one element: a DisjointSlice is written through one ownership map per kernel "
                "(one ThreadIndex, BlockIndex or view of one index and extent)",
            )

    def raw_index(self, index: Value, node: ast.AST) -> Scalar:
        """Any integer index (a RawSlice is written anywhere, bounds-checked)."""
        if isinstance(index, IndexValue):
            return Scalar(self.emit(kernel.IndexGetOp(index.ssa), node), dtypes.i64)
        if isinstance(index, BlockIndexValue):
            return Scalar(self.emit(kernel.BlockIndexGetOp(index.ssa), node), dtypes.i64)
        if isinstance(index, Literal):
            if not isinstance(index.value, int) or isinstance(index.value, bool):
                self.error(node, f"a slice index must be an integer, got {index.value!r}")
            return self.const(index.value, dtypes.i64, node)
        if isinstance(index, LoopIndex):
            return self.loop_index_as(index, dtypes.i64, node)
        i = self.materialize(index, node)
        if not i.dtype.is_int:
            self.error(node, f"a slice index must be an integer, got {i.dtype.name}")
        return i

    def visit_Return(self, node: ast.Return) -> None:
        if not self.in_device:
            if node.value is not None:
                self.error(node, "a kernel returns nothing; write results into a DisjointSlice")
            self.emit(kernel.ReturnOp(), node)
            self.terminated = True
            return
        if node.value is None:
            if self.device_return is not None:
                self.error(node, f"this function returns {self.device_return.name} elsewhere: every return needs a value")
            self.emit(kernel.ReturnOp(), node)
            self.terminated = True
            return
        value = self.visit_expr(node.value)
        if not isinstance(value, Literal | Scalar) or (isinstance(value, Literal) and value.value is None):
            self.error(node, f"a device function returns a number, got {value.describe()}")
        if self.probe_returns is not None:  # finding the return type: the values are looked at, not kept
            self.probe_returns.append(value)
            self.emit(kernel.ReturnOp(), node)
            self.terminated = True
            return
        if self.device_return is None:
            self.error(node, "this function returns nothing elsewhere, but a value here")
        result = self.implicit(value, self.device_return, node, "the returned value")
        self.emit(kernel.ReturnOp([result.ssa]), node)
        self.terminated = True

    def visit_Break(self, node: ast.Break) -> None:
        self.emit(kernel.BreakOp(self.loop_values(node)), node)
        self.terminated = True

    def visit_Continue(self, node: ast.Continue) -> None:
        self.emit(kernel.ContinueOp(self.loop_values(node)), node)
        self.terminated = True

    def loop_values(self, node: ast.AST) -> list:
        """The current values of the innermost loop's carried variables (what break/continue pass)."""
        if not self.loops:
            self.error(node, "'break'/'continue' outside a loop")
        loop = self.loops[-1]
        return [self.carried_value(name, dt, node).ssa for name, dt in zip(loop.carried, loop.types)]

    def carried_value(self, name: str, dtype: DType, node: ast.AST) -> Scalar:
        value = self.vars.get(name)
        if isinstance(value, UnrolledOnly):  # e.g. an inner simt.static_range's variable, carried by an outer loop
            raise NeedsUnroll(value.loops)
        if value is None or isinstance(value, Undefined):
            self.error(node, f"'{name}' is not defined on every path here")
        if isinstance(value, Scalar) and value.dtype != dtype:
            for loop in reversed(self.loops):
                if name in loop.weak and loop.weak[name] != value.dtype:
                    # the variable started as a Python literal: retry the loop with the type it takes
                    raise _RetypeLoop(loop, name, value.dtype)
            self.error(node, f"'{name}' is {dtype.name} before the loop but {value.dtype.name} here; a variable keeps one type ({_retype_hint(name, dtype, value.dtype)})")
        return self.implicit(value, dtype, node, f"'{name}'")

    # ------------------------------------------------------------------ if

    def visit_If(self, node: ast.If) -> None:
        cond = self.visit_expr(node.test)
        if isinstance(cond, Literal):  # `if True:` / constant conditions: only one side exists
            self.visit_body(node.body if cond.value else node.orelse)
            return
        c = self.truthy(cond, node)
        before = dict(self.vars)
        then_block, else_block = Block(), Block()
        with self.in_block(then_block):
            self.vars = dict(before)
            self.visit_body(node.body)
            then_vars, then_done = self.vars, self.terminated
        with self.in_block(else_block):
            self.vars = dict(before)
            self.visit_body(node.orelse)
            else_vars, else_done = self.vars, self.terminated
        self.vars = before
        live = [vs for vs, done in ((then_vars, then_done), (else_vars, else_done)) if not done]
        changed = [n for n in dict.fromkeys([*then_vars, *else_vars]) if any(vs.get(n) is not before.get(n) for vs in live)]
        merged: list[tuple[str, DType | None]] = []
        for name in changed:
            values = [vs.get(name) for vs in live]
            if any(v is None or isinstance(v, Undefined) for v in values):
                self.vars[name] = Undefined(name, "is assigned in only one branch of an `if` above, so it may be undefined here")
                continue
            if all(isinstance(v, Literal) for v in values) and len({(type(v.value), v.value) for v in values}) == 1:  # pyright: ignore[reportAttributeAccessIssue]
                self.vars[name] = values[0]  # pyright: ignore[reportArgumentType]
                continue
            if not all(isinstance(v, Literal | Scalar) for v in values):
                if len({id(v) for v in values}) == 1:
                    self.vars[name] = values[0]  # pyright: ignore[reportArgumentType]
                    continue
                self.error(node, f"'{name}' is assigned different kinds of values in the branches of this `if`")
            merged.append((name, self._merge_dtype(name, values, node)))  # pyright: ignore[reportArgumentType]
        for vs, block, done in ((then_vars, then_block, then_done), (else_vars, else_block, else_done)):
            if done:
                continue
            with self.in_block(block):
                self.vars = vs
                yielded = [self.implicit(vs[name], dt, node, f"'{name}'").ssa for name, dt in merged]  # pyright: ignore[reportArgumentType]
                self.emit(kernel.YieldOp(yielded), node)
            self.vars = before
        types = [dt.mlir for _, dt in merged]  # pyright: ignore[reportOptionalMemberAccess]
        op = kernel.IfOp(c.ssa, types, Region(then_block), Region(else_block))
        self.emit(op, node)
        self.vars = before
        for (name, dt), res in zip(merged, op.results):
            res.name_hint = name
            self.vars[name] = Scalar(res, dt)  # pyright: ignore[reportArgumentType]
        if then_done and else_done:
            self.terminated_after_if(node)

    def terminated_after_if(self, node: ast.AST) -> None:
        """Both branches left the block: what follows is unreachable, end this block too."""
        if self.loops:
            self.emit(kernel.ContinueOp(self.loop_values_or_empty()), node)
        elif self.in_device and self.device_return is not None and self.probe_returns is None:
            zero = self.const(0, self.device_return, node)  # unreachable: any value of the right type
            self.emit(kernel.ReturnOp([zero.ssa]), node)
        else:
            self.emit(kernel.ReturnOp(), node)
        self.terminated = True

    def loop_values_or_empty(self) -> list:
        loop = self.loops[-1]
        values = []
        for name, dt in zip(loop.carried, loop.types):
            v = self.vars.get(name)
            if isinstance(v, Scalar) and v.dtype == dt:
                values.append(v.ssa)
            else:
                return []
        return values

    def _merge_dtype(self, name: str, values: list[Value], node: ast.AST) -> DType:
        strong = [v for v in values if isinstance(v, Scalar)]
        if not strong:
            lits = [v for v in values if isinstance(v, Literal)]
            return dtypes.literal_dtype(lits[0].value) if len({type(v.value) for v in lits}) == 1 else dtypes.f64
        kinds = {s.dtype for s in strong}
        if len(kinds) > 1:
            self.error(node, f"'{name}' is {' in one branch and '.join(sorted(d.name for d in kinds))} in the other; a variable keeps one type across branches (convert explicitly)")
        return strong[0].dtype

    # ------------------------------------------------------------------ loops

    def _carried(
        self, body: Sequence[ast.stmt], exclude: set[str], node: ast.AST, overrides: dict[str, DType]
    ) -> tuple[list[str], list[Scalar], dict[str, DType]]:
        """The variables the loop carries, their initial values, and which of them started as a
        Python literal (weak: their type may still be decided by the body)."""
        names, inits, weak = [], [], {}
        for name in [*assigned_names(body), *self.register_elements_stored(body)]:
            if name in exclude:
                continue
            value = self.vars.get(name)
            if value is None or isinstance(value, Undefined):
                continue
            if isinstance(value, LoopIndex):  # carried, it would become a typed value: unroll its loops instead
                raise NeedsUnroll(value.loops)
            if isinstance(value, Literal | Scalar):
                names.append(name)
                if isinstance(value, Literal):
                    dt = overrides.get(name)
                    scalar = self.implicit(value, dt, node, f"'{name}'") if dt is not None else self.materialize(value, node)
                    weak[name] = scalar.dtype
                    inits.append(scalar)
                else:
                    inits.append(value)
            elif isinstance(value, SliceValue | IndexValue | ArrayValue | BlockIndexValue | ViewValue):
                self.error(node, f"'{name}' ({value.describe()}) cannot be reassigned inside a loop")
        return names, inits, weak

    def register_elements_stored(self, body: Sequence[ast.stmt]) -> list[str]:
        """The hidden element variables of the register arrays `body` assigns into (`acc[i] = …`),
        which a loop carries like any variable."""
        out: list[str] = []
        for node in ast.walk(ast.Module(body=list(body), type_ignores=[])):
            target = node.target if isinstance(node, ast.AugAssign) else None
            targets = node.targets if isinstance(node, ast.Assign) else ([target] if target is not None else [])
            for t in targets:
                name = t.value.id if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) else None
                if isinstance(t, ast.Name) and type(self.vars.get(t.id)).__name__ == "FragmentValue":
                    name = t.id  # a fragment assigned whole (`acc = simt.mma_sync(a, b, acc)`) updates its elements
                if name is not None:
                    array = self.vars.get(name)
                    if isinstance(array, RegisterArrayValue):
                        out += [array.element(k) for k in range(prod(array.shape)) if array.element(k) not in out]
        return out

    def _probe_weak_types(self, body: Sequence[ast.stmt], before: dict[str, Value], bind: dict[str, Value]) -> dict[str, DType]:
        """Compile the loop body once, throwaway, with each literal-initialized carried variable still
        the literal (and `bind` for the others): the type a variable has at the end of the body is the
        type NEP 50 gives it after one iteration (`y = 0; y = y + a[j]` with `a` i32 → i32)."""
        saved_vars, saved_loops = self.vars, self.loops
        found: dict[str, DType] = {}
        try:
            with self.in_block(Block()):
                self.vars = {**before, **bind}
                self.loops = [*saved_loops, LoopContext([], [])]
                self.visit_body(body)
                if not self.terminated:
                    for name, value in self.vars.items():
                        if isinstance(before.get(name), Literal) and isinstance(value, Scalar):
                            found[name] = value.dtype
        except Exception:  # the real compile reports real errors; a failed probe just decides nothing
            found = {}
        finally:
            self.vars, self.loops = saved_vars, saved_loops
        return found

    def _probe_types(self, body: Sequence[ast.stmt], before: dict[str, Value], bind: dict[str, Value], node: ast.AST) -> dict[str, DType]:
        """Types for literal-initialized carried variables: their type after one probed iteration,
        when their literal fits it."""
        probed = self._probe_weak_types(body, before, bind)
        overrides = {}
        for name, dt in probed.items():
            lit = before[name]
            assert isinstance(lit, Literal)
            fits = dt.is_float or (dt.is_bool and isinstance(lit.value, bool)) or (
                dt.is_int and isinstance(lit.value, int) and dt.min <= lit.value <= dt.max
            )
            if fits:
                overrides[name] = dt
        return overrides

    def _bind_carried(self, names: Sequence[str], values: Sequence[SSAValue], types: Sequence[DType]) -> None:
        """Bind the carried variables `names` to `values` (a loop's block arguments or results), each
        named after its variable in the printed IR."""
        for name, value, dt in zip(names, values, types):
            value.name_hint = name
            self.vars[name] = Scalar(value, dt)

    def _loop_body(self, node: ast.For | ast.While, loop: LoopContext) -> None:
        """Visit a loop's body as the innermost loop; unless it ended (break, continue, return), it
        yields the carried variables' current values."""
        self.loops.append(loop)
        try:
            self.visit_body(node.body)
            if loop.static is not None and not self.terminated:
                for name in loop.carried:  # unrolled, it would be that constant after the loop (weak), not a typed value
                    if isinstance(self.vars.get(name), Literal | LoopIndex):
                        raise NeedsUnroll(loop.static)
            if not self.terminated:
                self.emit(kernel.YieldOp([self.carried_value(n, dt, node).ssa for n, dt in zip(loop.carried, loop.types)]), node)
        finally:
            self.loops.pop()

    def _loop_locals(self, body: Sequence[ast.stmt], carried: list[str], exclude: set[str]) -> None:
        for name in assigned_names(body):
            if type(self.vars.get(name)).__name__ == "FragmentValue":
                continue  # an mma fragment from before the loop: its elements are carried
            if name not in carried and name not in exclude:
                self.vars[name] = Undefined(name, "is assigned only inside a loop above; define it before the loop to use it after")

    def visit_For(self, node: ast.For) -> None:
        if node.orelse:
            self.error(node, "for … else is not supported in kernels")
        if not isinstance(node.target, ast.Name):
            self.error(node.target, "the loop variable must be a plain name")
        rng = self.visit_expr(node.iter)
        if not isinstance(rng, RangeValue):
            self.error(node.iter, "kernels loop only over range(start, stop, step) or simt.static_range(...)")
        if rng.static:
            self.unrolled_for(node, rng)
            return
        lo, hi, step = (self.range_bound(v, node.iter) for v in (rng.start, rng.stop, rng.step))
        if isinstance(rng.step, Literal) and rng.step.value == 0:
            self.error(node.iter, "range() arg 3 must not be zero")
        self.counted_loop(node, lo, hi, step, lambda iv: Scalar(iv, dtypes.i64), self.const(0, dtypes.i64, node))

    def counted_loop(self, node: ast.For, lo: Scalar, hi: Scalar, step: Scalar, bind_iv: Callable[[SSAValue], Value], probe_iv: Value, static: frozenset[tuple[str, int, int]] | None = None) -> kernel.ForOp:
        """A `kernel.for` over `range(lo, hi, step)` running the body of `node`; `bind_iv(block
        argument)` is what the loop variable stands for in the body (emitted at its start), `probe_iv`
        what it stands for while literal-initialized variables are probed for their type. `static`:
        the sites of a `simt.static_range` loop kept as a loop (see `static_loop`)."""
        assert isinstance(node.target, ast.Name)
        iv_name = node.target.id
        before = dict(self.vars)
        overrides: dict[str, DType] = {}
        # (a nested loop's variable needs no probe: it is rebound by that loop, never made a typed value)
        if any(isinstance(before.get(n), Literal) for n in assigned_names(node.body, loop_targets=False) if n != iv_name):
            overrides = self._probe_types(node.body, before, {iv_name: probe_iv}, node)
        while True:
            names, inits, weak = self._carried(node.body, {iv_name}, node, overrides)
            types = [s.dtype for s in inits]
            body = Block(arg_types=[dtypes.i64.mlir, *(t.mlir for t in types)])
            body.args[0].name_hint = iv_name
            loop = LoopContext(names, types, weak, static)
            try:
                with self.in_block(body):
                    self.vars = dict(before)
                    self.vars[iv_name] = bind_iv(body.args[0])
                    self._bind_carried(names, body.args[1:], types)
                    self._loop_body(node, loop)
                break
            except _RetypeLoop as retype:
                self.vars = before
                if retype.loop is not loop or overrides.get(retype.name) == retype.dtype:
                    raise
                overrides[retype.name] = retype.dtype
        self.vars = before
        op = kernel.ForOp(lo.ssa, hi.ssa, step.ssa, [s.ssa for s in inits], Region(body))
        self.emit(op, node)
        self._loop_locals(node.body, names, set())
        self.vars[iv_name] = Undefined(iv_name, "is a loop variable; it is not available after its loop (copy it into another variable inside the loop)") if iv_name not in before else before[iv_name]
        self._bind_carried(names, op.results, types)
        return op

    def unrolled_for(self, node: ast.For, rng: RangeValue) -> None:
        """`for i in simt.static_range(a, b, c)`: the body once per value, `i` a Python constant in each
        (as if written out), so local-array indices, shapes and shuffle offsets may depend on it."""
        assert isinstance(node.target, ast.Name)
        for inner in ast.walk(ast.Module(body=node.body, type_ignores=[])):
            if isinstance(inner, ast.Break | ast.Continue):
                loops = [n for n in ast.walk(ast.Module(body=node.body, type_ignores=[])) if isinstance(n, ast.For | ast.While)]
                nested = any(inner in ast.walk(loop) for loop in loops)
                if not nested:
                    self.error(inner, "break/continue are not supported in a simt.static_range loop (it is unrolled)")
        values = range(rng.start.value, rng.stop.value, rng.step.value)  # pyright: ignore[reportAttributeAccessIssue]
        site = (self.source.filename, node.lineno + self.source.first_line - 1, node.col_offset)
        if len(values) > 1 and site not in self.unrolled_loops and self.static_loop(node, values, site):
            return
        for value in values:
            self.vars[node.target.id] = Literal(value)
            self.visit_body(node.body)
            if self.terminated:
                return

    def static_loop(self, node: ast.For, values: range, site: tuple[str, int, int]) -> bool:
        """`for i in simt.static_range(...)` as a `kernel.for` marked `llvm.loop_unroll_full` (LLVM's
        `llvm.loop.unroll.full` loop metadata: the loop unroller copies the body, then SROA keeps local
        arrays in registers), so the frontend and every pass see the body once. `i` is a `LoopIndex`:
        clamped to its range (which `int-range-optimizations` reads, so indices it bounds need no
        check) and accepted only where a run-time value means what the constant would. False, with
        nothing changed that matters, when the body needs `i` as a constant (`NeedsUnroll`) or does
        not compile this way: the caller unrolls it."""
        saved_vars, saved_terminated = dict(self.vars), self.terminated
        loops = frozenset({site})
        lo, hi = min(values[0], values[-1]), max(values[0], values[-1])

        def bind(iv: SSAValue) -> Value:
            low = self.const(lo, dtypes.i64, node)
            high = self.const(hi, dtypes.i64, node)
            clamped = self.emit(kernel.MinOp(self.emit(kernel.MaxOp(iv, low.ssa), node), high.ssa), node)
            return LoopIndex(clamped, lo, hi, loops)

        self.static_loops.append(site)
        try:
            bounds = [self.const(v, dtypes.i64, node) for v in (values.start, values.stop, values.step)]
            op = self.counted_loop(node, *bounds, bind, LoopIndex(bounds[0].ssa, lo, hi, loops), loops)
        except NeedsUnroll as e:
            if site not in e.loops:
                raise
            self.vars, self.terminated = saved_vars, saved_terminated
            return False
        except (NeedsMemory, _RetypeLoop):  # the kernel or an outer loop compiles again
            raise
        except Exception:  # unrolled, the body's own error (if it has one) is reported as before
            self.vars, self.terminated = saved_vars, saved_terminated
            return False
        finally:
            self.static_loops.pop()
        op.attributes["llvm.loop_unroll_full"] = UnitAttr()
        iv_name = node.target.id  # pyright: ignore[reportAttributeAccessIssue]
        for name in {*assigned_names(node.body), iv_name}:  # defined after the loop only when it is unrolled
            if isinstance(self.vars.get(name), Undefined) and name not in saved_vars or name == iv_name:
                self.vars[name] = UnrolledOnly(name, "is assigned in a simt.static_range loop", loops)
        return True

    def range_bound(self, value: Value, node: ast.AST) -> Scalar:
        if isinstance(value, Literal):
            if not isinstance(value.value, int) or isinstance(value.value, bool):
                self.error(node, f"range() needs integers, got {value.value!r}")
            return self.const(value.value, dtypes.i64, node)
        scalar = self.materialize(value, node)
        if not scalar.dtype.is_int:
            self.error(node, f"range() needs integers, got {scalar.dtype.name}")
        if scalar.dtype == dtypes.u64:
            self.error(node, "range() over u64 is not supported (range variables are i64); convert with int()")
        return self.cast(scalar, dtypes.i64, node)

    def visit_While(self, node: ast.While) -> None:
        if node.orelse:
            self.error(node, "while … else is not supported in kernels")
        before = dict(self.vars)
        overrides: dict[str, DType] = {}
        if any(isinstance(before.get(n), Literal) for n in assigned_names(node.body)):
            overrides = self._probe_types(node.body, before, {}, node)
        while True:
            names, inits, weak = self._carried(node.body, set(), node, overrides)
            types = [s.dtype for s in inits]
            before_block = Block(arg_types=[t.mlir for t in types])
            after_block = Block(arg_types=[t.mlir for t in types])
            loop = LoopContext(names, types, weak)
            try:
                with self.in_block(before_block):
                    self.vars = dict(before)
                    self._bind_carried(names, before_block.args, types)
                    cond = self.truthy(self.visit_expr(node.test), node.test)
                    self.emit(kernel.ConditionOp(cond.ssa, list(before_block.args)), node)
                with self.in_block(after_block):
                    self.vars = dict(before)
                    self._bind_carried(names, after_block.args, types)
                    self._loop_body(node, loop)
                break
            except _RetypeLoop as retype:
                self.vars = before
                if retype.loop is not loop or overrides.get(retype.name) == retype.dtype:
                    raise
                overrides[retype.name] = retype.dtype
        self.vars = before
        op = kernel.WhileOp([s.ssa for s in inits], Region(before_block), Region(after_block))
        self.emit(op, node)
        self._loop_locals(node.body, names, set())
        self._bind_carried(names, op.results, types)


def _retype_hint(name: str, before: DType, after: DType) -> str:
    """How to give a loop-carried variable one type: start it as `after`, or convert back to `before`
    (a tile's dtype names its element type and shape, `f32[128]`: `tile.zeros((128,), wf.f32)`)."""
    elem_before, elem_after = getattr(before, "elem", None), getattr(after, "elem", None)
    if elem_before is not None and elem_after is not None:
        shape = getattr(after, "shape")
        return (
            f"initialize it with the type you want, e.g. {name} = tile.zeros({shape}, {elem_after!r}), "
            f"or convert the new value back with .astype({elem_before!r})"
        )
    return f"initialize it with the type you want, e.g. {name} = {after!r}(0), or convert the new value back with {before!r}(...)"
