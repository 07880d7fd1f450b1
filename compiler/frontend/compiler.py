"""Python function → `kernel`-dialect module: the frontend's entry point."""

from __future__ import annotations

import ast
import inspect
import textwrap
from dataclasses import dataclass
from typing import Any

from xdsl.dialects.builtin import DenseArrayBase, FunctionType, IntegerAttr, ModuleOp, UnitAttr, i1, i32
from xdsl.ir import Block, Region

from warpforge.dialects import kernel
from warpforge.dtypes import DType
from warpforge.errors import CompileError
from warpforge.frontend.annotations import SliceAnnotation, resolve_annotation
from warpforge.frontend.builder import SourceInfo
from warpforge.frontend.calls import CallMixin
from warpforge.frontend.expressions import ExpressionMixin
from warpforge.frontend.statements import StatementMixin
from warpforge.frontend.values import Scalar, SliceValue


class FunctionCompiler(CallMixin, StatementMixin, ExpressionMixin):
    """Walks one kernel's AST (one `visit_*` per construct, in the mixins) and builds its `kernel.func`."""


@dataclass(frozen=True)
class Param:
    """A kernel parameter as the frontend saw it: its name and `SliceAnnotation` or scalar `DType`."""

    name: str
    annotation: SliceAnnotation | DType


@dataclass(frozen=True)
class KernelIR:
    """The frontend's output: the module (one `kernel.func`), its parameters and launch requirements."""

    module: ModuleOp
    symbol: str
    params: tuple[Param, ...]
    index_dims: frozenset[int]
    source: SourceInfo


def symbol_name(fn: Any) -> str:
    """The stable kernel symbol: the qualified name with `.<locals>.` folded (`main.<locals>.k` → `main__k`)."""
    qual = fn.__qualname__.replace(".<locals>.", ".").replace("<", "").replace(">", "")
    return qual.replace(".", "__")


def get_source(fn: Any) -> tuple[ast.FunctionDef, SourceInfo]:
    """The function's AST and where its source lives. Raises `CompileError` when the source is unavailable."""
    try:
        lines, first = inspect.getsourcelines(fn)
        filename = inspect.getsourcefile(fn) or inspect.getfile(fn)
    except (OSError, TypeError) as e:
        raise CompileError(f"cannot read the source of {getattr(fn, '__qualname__', fn)!r}: {e}") from None
    raw = "".join(lines)
    dedented = textwrap.dedent(raw)
    indent = len(lines[0]) - len(lines[0].lstrip())
    tree = ast.parse(dedented)
    fdef = next((n for n in tree.body if isinstance(n, ast.FunctionDef)), None)
    if fdef is None:
        raise CompileError(f"{fn.__qualname__} is not a plain function definition", filename=filename, line=first)
    return fdef, SourceInfo(filename=filename, first_line=first, lines=dedented.splitlines(), col_offset=indent)


def _globals_of(fn: Any) -> dict[str, Any]:
    scope = dict(fn.__globals__)
    closure = inspect.getclosurevars(fn)
    scope.update(closure.nonlocals)
    return scope


def compile_kernel(
    fn: Any,
    *,
    contract_block: tuple[int, int, int] | None = None,
    launch_bounds: int | None = None,
    checks: bool = True,
) -> KernelIR:
    """Compile the Python function `fn` into a `kernel`-dialect module.

    Parameters must be annotated `simt.Slice[T]`, `simt.DisjointSlice[T]` or a scalar dtype (`wf.i32`,
    `int` = i64, `float` = f64, `bool`). Raises `CompileError` (file:line:col, the source line and a
    caret) for anything warpforge does not support.
    """
    fdef, source = get_source(fn)
    compiler = FunctionCompiler(source=source, globals=_globals_of(fn))
    args = fdef.args
    if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs or args.defaults:
        compiler.error(fdef, "kernel parameters must be plain positional parameters (no defaults, *args, **kwargs)")
    hints = dict(getattr(fn, "__annotations__", {}))
    params: list[Param] = []
    for a in args.args:
        ann = hints.get(a.arg)
        if isinstance(ann, str):  # `from __future__ import annotations`: evaluate where the kernel lives
            try:
                ann = eval(ann, compiler.globals)  # noqa: S307 - the user's own annotation expression
            except Exception as e:
                compiler.error(a, f"parameter '{a.arg}': cannot evaluate the annotation {ann!r}: {e}")
        if ann is None:
            compiler.error(a, f"parameter '{a.arg}' needs an annotation: simt.Slice[T], simt.DisjointSlice[T] or a dtype like wf.f32")
        resolved = resolve_annotation(ann)
        if resolved is None:
            compiler.error(a, f"parameter '{a.arg}': {ann!r} is not a kernel parameter type (simt.Slice[T], simt.DisjointSlice[T], wf.<dtype>)")
        params.append(Param(a.arg, resolved))
    if fdef.returns is not None and not (isinstance(fdef.returns, ast.Constant) and fdef.returns.value is None):
        compiler.error(fdef.returns, "a kernel returns nothing; remove the return annotation")

    input_types = [_param_type(p) for p in params]
    block = Block(arg_types=input_types)
    for p, arg in zip(params, block.args):
        arg.name_hint = p.name
        if isinstance(p.annotation, SliceAnnotation):
            compiler.vars[p.name] = SliceValue(arg, p.annotation.dtype, p.annotation.kind, p.name)
        else:
            compiler.vars[p.name] = Scalar(arg, p.annotation)
    with compiler.in_block(block):
        compiler.visit_body(fdef.body)
        if not compiler.terminated:
            compiler.emit(kernel.ReturnOp(), fdef.body[-1] if fdef.body else fdef)

    attributes: dict[str, Any] = {"kernel": UnitAttr()}
    if contract_block is not None:
        attributes["contract_block"] = DenseArrayBase.from_list(i32, list(contract_block))
    if launch_bounds is not None:
        attributes["launch_bounds"] = IntegerAttr(launch_bounds, i32)
    if not checks:
        attributes["checks"] = IntegerAttr(0, i1)
    symbol = symbol_name(fn)
    func = kernel.FuncOp(symbol, FunctionType.from_lists(input_types, []), Region(block), attributes)
    func.location = compiler.loc(fdef)
    module = ModuleOp([func])
    try:
        module.verify()
    except Exception as e:  # a frontend bug, not a user error: say so, with the location
        raise CompileError(f"internal error: the frontend built invalid IR: {e}", filename=source.filename, line=source.first_line) from e
    return KernelIR(module, symbol, tuple(params), frozenset(compiler.index_dims), source)


def _param_type(p: Param):
    ann = p.annotation
    if isinstance(ann, SliceAnnotation):
        return kernel.SliceType(ann.dtype.mlir) if ann.kind == "slice" else kernel.DisjointSliceType(ann.dtype.mlir)
    return ann.mlir
