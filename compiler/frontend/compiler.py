"""Python function → `kernel`-dialect module: the frontend's entry point."""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.dialects.builtin import DenseArrayBase, FunctionType, IntegerAttr, ModuleOp, UnitAttr, i1, i32
from xdsl.ir import Attribute, Block, Region

from warpforge.dialects import kernel
from warpforge.dtypes import DType
from warpforge.errors import CompileError
from warpforge.frontend.annotations import (
    GENERIC,
    SLICE_NAMES,
    ConstantAnnotation,
    ConstantValue,
    SliceAnnotation,
    TensorMapAnnotation,
    is_complete,
    resolve_annotation,
)
from warpforge.frontend.builder import SourceInfo
from warpforge.frontend.calls import CallMixin
from warpforge.frontend.device import DeviceCallMixin, Unit
from warpforge.frontend.expressions import ExpressionMixin
from warpforge.frontend.hopper import HopperCallMixin, TensorMapValue
from warpforge.frontend.mma import MmaCallMixin
from warpforge.frontend.statements import StatementMixin
from warpforge.frontend.values import Literal, NeedsMemory, NeedsUnroll, Scalar, SliceValue


class FunctionCompiler(HopperCallMixin, MmaCallMixin, DeviceCallMixin, CallMixin, StatementMixin, ExpressionMixin):
    """Walks one kernel's AST (one `visit_*` per construct, in the mixins) and builds its `kernel.func`."""


@dataclass(frozen=True)
class Param:
    """A kernel parameter as the runtime passes it: its name and complete `SliceAnnotation` or scalar
    `DType` (a `wf.Constant` parameter is compiled in and is not a `Param`)."""

    name: str
    annotation: SliceAnnotation | DType | TensorMapAnnotation


@dataclass(frozen=True)
class KernelIR:
    """The frontend's output: the module (the kernel's `kernel.func` and the device functions it
    calls), its run-time parameters and launch requirements."""

    module: ModuleOp
    symbol: str
    params: tuple[Param, ...]
    index_dims: frozenset[int]
    source: SourceInfo
    constants: tuple[tuple[str, Any], ...] = ()
    """The `wf.Constant` parameters and the values compiled in, in parameter order."""
    uses_warp_collectives: bool = False
    uses_dynamic_shared: bool = False


Binding = SliceAnnotation | DType | ConstantValue
"""What a parameter is in one specialization: a complete slice annotation, a scalar dtype, or a constant."""


def symbol_name(fn: Any) -> str:
    """The stable kernel symbol: the qualified name with `.<locals>.` folded (`main.<locals>.k` → `main__k`)."""
    qual = fn.__qualname__.replace(".<locals>.", ".").replace("<", "").replace(">", "")
    return qual.replace(".", "__")


def specialization_suffix(bindings: Sequence[Binding]) -> str:
    """A readable symbol suffix for the bindings of a generic kernel's parameters: `s` `d` `a` `r` +
    dtype for slices, the dtype for scalars, `c<value>` for constants (`saxpy__f32_sf32_df32`)."""
    parts: list[str] = []
    for b in bindings:
        if isinstance(b, SliceAnnotation):
            parts.append(f"{SLICE_NAMES[b.kind][0].lower()}{b.dtype.name if b.dtype else ''}")
        elif isinstance(b, DType):
            parts.append(b.name)
        else:
            parts.append("c" + "".join(ch if ch.isalnum() else "_" for ch in repr(b.value)))
    return "_".join(parts)


def get_source(fn: Any) -> tuple[ast.FunctionDef, SourceInfo]:
    """The function's AST and where its source lives: the text its decorator saw
    (`warpforge.source_snapshot`), else what `inspect` finds now. Raises `CompileError` when the
    source is unavailable or is not the function's."""
    from warpforge.source_snapshot import snapshot_of

    snapshot = snapshot_of(fn)
    try:
        if snapshot is not None:  # the file's text when the kernel was defined (not as edited since)
            first = fn.__code__.co_firstlineno
            lines = inspect.getblock(snapshot[first - 1 :])
            filename = fn.__code__.co_filename
            if not lines:
                raise OSError("the source file is shorter than the function's line number")
        else:
            lines, first = inspect.getsourcelines(fn)
            filename = inspect.getsourcefile(fn) or inspect.getfile(fn)
    except (OSError, TypeError, IndexError) as e:
        raise CompileError(f"cannot read the source of {getattr(fn, '__qualname__', fn)!r}: {e}") from None
    raw = "".join(lines)
    dedented = textwrap.dedent(raw)
    indent = len(lines[0]) - len(lines[0].lstrip())
    tree = ast.parse(dedented)
    fdef = next((n for n in tree.body if isinstance(n, ast.FunctionDef)), None)
    if fdef is None:
        raise CompileError(f"{fn.__qualname__} is not a plain function definition", filename=filename, line=first)
    code = getattr(fn, "__code__", None)
    params = [a.arg for a in fdef.args.posonlyargs + fdef.args.args]
    if code is not None and (fdef.name != code.co_name or params != list(code.co_varnames[: code.co_argcount])):
        # inspect found other text than the function's: a file edited after import, or code exec'd from a
        # string under a filename whose module's source is something else (linecache's loader fallback)
        raise CompileError(
            f"the source text found for {fn.__qualname__!r} at {filename}:{first} is 'def {fdef.name}({', '.join(params)})', "
            f"not the function's 'def {code.co_name}({', '.join(code.co_varnames[: code.co_argcount])})': the file does not "
            f"hold this function's source (edited since import, or the function was exec'd from a string under this "
            f"filename); warpforge compiles a kernel from its source text",
            filename=filename, line=first,
        )
    return fdef, SourceInfo(filename=filename, first_line=first, lines=dedented.splitlines(), col_offset=indent)


def _globals_of(fn: Any) -> dict[str, Any]:
    scope = dict(fn.__globals__)
    closure = inspect.getclosurevars(fn)
    scope.update(closure.nonlocals)
    return scope


def parameter_annotations(fn: Any) -> list[tuple[str, Any]]:
    """Each parameter's name and resolved annotation (`SliceAnnotation`, `DType`, `ConstantAnnotation`,
    or `GENERIC` when there is none). Raises `CompileError` for annotations warpforge does not know."""
    fdef, source = get_source(fn)
    compiler = FunctionCompiler(source=source, globals=_globals_of(fn))
    args = fdef.args
    if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs or args.defaults:
        compiler.error(fdef, "kernel parameters must be plain positional parameters (no defaults, *args, **kwargs)")
    hints = dict(getattr(fn, "__annotations__", {}))
    out: list[tuple[str, Any]] = []
    for a in args.args:
        ann = hints.get(a.arg)
        if isinstance(ann, str):  # `from __future__ import annotations`: evaluate where the kernel lives
            try:
                ann = eval(ann, compiler.globals)  # noqa: S307 - the user's own annotation expression
            except Exception as e:
                compiler.error(a, f"parameter '{a.arg}': cannot evaluate the annotation {ann!r}: {e}")
        if ann is None:
            out.append((a.arg, GENERIC))
            continue
        resolved = resolve_annotation(ann)
        if resolved is None:
            compiler.error(
                a,
                f"parameter '{a.arg}': {ann!r} is not a kernel parameter type (simt.Slice[T], simt.DisjointSlice[T], "
                "simt.AtomicSlice[T], simt.unsafe.RawSlice[T], wf.<dtype>, wf.Constant[int], or no annotation)",
            )
        out.append((a.arg, resolved))
    return out


def written_kind(fn: Any, name: str) -> str:
    """How a kernel uses the unannotated array parameter `name`: `"disjoint_slice"` when it assigns into
    it (`name[...] = ...`), `"atomic_slice"` when it passes it to `simt.atomic_*`, else `"slice"`."""
    fdef, _ = get_source(fn)
    stored = atomic = False
    for node in ast.walk(fdef):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name) and node.value.id == name:
            stored = True
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Subscript) and isinstance(node.target.value, ast.Name) and node.target.value.id == name:
            stored = True
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == name:
            func = node.func
            fname = func.attr if isinstance(func, ast.Attribute) else (func.id if isinstance(func, ast.Name) else "")
            if fname.startswith("atomic_"):
                atomic = True
    if atomic:
        return "atomic_slice"
    return "disjoint_slice" if stored else "slice"


def compile_kernel(
    fn: Any,
    *,
    contract_block: tuple[int, int, int] | None = None,
    launch_bounds: int | None = None,
    checks: bool = True,
    fastmath: bool | tuple[str, ...] = False,
    bindings: Mapping[str, Binding] | None = None,
    min_blocks_per_sm: int | None = None,
    unroll_static: bool = False,
) -> KernelIR:
    """Compile the Python function `fn` into a `kernel`-dialect module.

    Parameters are annotated `simt.Slice[T]`, `simt.DisjointSlice[T]`, `simt.AtomicSlice[T]`,
    `simt.unsafe.RawSlice[T]` or a scalar dtype (`wf.i32`, `int` = i64, `float` = f64, `bool`);
    parameters without a complete annotation (none, a bare `simt.DisjointSlice`, `wf.Constant[int]`)
    take theirs from `bindings` (one specialization; the symbol gets a suffix naming it). Raises
    `CompileError` (file:line:col, the source line and a caret) for anything warpforge does not support.
    """
    memory_arrays: set[tuple[str, int, int]] = set()
    unrolled_loops: set[tuple[str, int, int]] = EverySite() if unroll_static else set()
    while True:  # again, with a local array in memory, when one turns out to be indexed at run time
        try:
            kir = _compile_kernel(fn, contract_block, launch_bounds, checks, fastmath, bindings, memory_arrays, unrolled_loops)
            if min_blocks_per_sm is not None:
                func = next(op for op in kir.module.ops if isinstance(op, kernel.FuncOp) and op.is_kernel)
                func.attributes["min_blocks_per_sm"] = IntegerAttr(min_blocks_per_sm, i32)
            return kir
        except NeedsMemory as e:
            if e.site in memory_arrays:
                raise CompileError(f"internal error: local array at {e.site} indexed at run time in memory mode") from None
            memory_arrays.add(e.site)
        except NeedsUnroll as e:  # a static_range loop's variable or locals are needed after it: unroll it
            if e.loops <= unrolled_loops:
                raise CompileError(f"internal error: static_range loops at {sorted(e.loops)} unrolled and still needed unrolled") from None
            unrolled_loops |= e.loops


class EverySite(set[tuple[str, int, int]]):
    """The `unrolled_loops` of `compile_kernel(unroll_static=True)`: every `simt.static_range` site."""

    def __contains__(self, site: object) -> bool:
        return True


def static_loop_arrays(fdef: ast.FunctionDef, filename: str, first_line: int) -> set[tuple[str, int, int]]:
    """The sites of the `simt.local_array`s that `fdef` indexes with a `simt.static_range` variable
    (`acc[i, j]` in `for i in simt.static_range(8)`): kept as loops, those loops index them at run
    time, so they start in memory (LLVM's SROA puts them in registers once it has unrolled the loops)
    instead of being found one by one (`NeedsMemory`, a recompile each). A syntactic guess: a wrong
    one costs only that recompile, or an array in memory indexed by constants, which SROA promotes too."""
    indexed: set[str] = set()
    for loop in ast.walk(fdef):
        call = loop.iter if isinstance(loop, ast.For) else None
        if not (isinstance(call, ast.Call) and getattr(call.func, "attr", getattr(call.func, "id", None)) == "static_range"):
            continue
        variables = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}  # pyright: ignore[reportAttributeAccessIssue]
        for node in ast.walk(loop):
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
                if any(isinstance(n, ast.Name) and n.id in variables for n in ast.walk(node.slice)):
                    indexed.add(node.value.id)
    sites: set[tuple[str, int, int]] = set()
    for node in ast.walk(fdef):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and node.targets[0].id in indexed:
            call = node.value
            if isinstance(call, ast.Call) and getattr(call.func, "attr", getattr(call.func, "id", None)) == "local_array":
                sites.add((filename, call.lineno + first_line, call.col_offset))  # as `call_simt_local_array` names it
    return sites


def _compile_kernel(fn: Any, contract_block: Any, launch_bounds: Any, checks: bool, fastmath: bool | tuple[str, ...], bindings: Any, memory_arrays: set[tuple[str, int, int]], unrolled_loops: set[tuple[str, int, int]]) -> KernelIR:
    fdef, source = get_source(fn)
    unit = Unit()
    compiler = FunctionCompiler(source=source, globals=_globals_of(fn))
    compiler.unit = unit
    if not isinstance(unrolled_loops, EverySite):
        memory_arrays |= static_loop_arrays(fdef, source.filename, source.first_line)
    compiler.memory_arrays = memory_arrays
    compiler.unrolled_loops = unrolled_loops
    if fdef.returns is not None and not (isinstance(fdef.returns, ast.Constant) and fdef.returns.value is None):
        compiler.error(fdef.returns, "a kernel returns nothing; remove the return annotation")
    annotations = parameter_annotations(fn)
    bindings = dict(bindings or {})
    params: list[Param] = []
    constants: list[tuple[str, Any]] = []
    specialized: list[Binding] = []
    input_types: list[Attribute] = []
    arg_nodes = {a.arg: a for a in fdef.args.args}
    for name, ann in annotations:
        binding: Any = ann if is_complete(ann) else bindings.get(name)
        if binding is None:
            what = "is a wf.Constant" if isinstance(ann, ConstantAnnotation) else ("has no dtype" if isinstance(ann, SliceAnnotation) else "has no annotation")
            compiler.error(
                arg_nodes[name],
                f"parameter '{name}' needs an annotation to compile the kernel alone (simt.Slice[wf.f32], wf.i32, ...): it {what}, "
                "so the kernel is generic and compiles per argument types at launch (kernel[grid, block](...)) or with kernel.specialize(*args)",
            )
        if not is_complete(ann):
            specialized.append(binding)
        if isinstance(binding, ConstantValue):
            if isinstance(ann, ConstantAnnotation) and (why := ann.check(binding.value)) is not None:
                compiler.error(arg_nodes[name], f"parameter '{name}' {why}")
            constants.append((name, binding.value))
            compiler.vars[name] = Literal(binding.value)
            continue
        if isinstance(ann, SliceAnnotation) and (not isinstance(binding, SliceAnnotation) or binding.kind != ann.kind):
            compiler.error(arg_nodes[name], f"parameter '{name}' is {ann!r}, bound to {binding!r}")
        params.append(Param(name, binding))
        input_types.append(param_type(binding))
    block = Block(arg_types=input_types)
    for p, arg in zip(params, block.args):
        arg.name_hint = p.name
        if isinstance(p.annotation, SliceAnnotation):
            assert p.annotation.dtype is not None
            compiler.vars[p.name] = SliceValue(arg, p.annotation.dtype, p.annotation.kind, p.name)
        elif isinstance(p.annotation, TensorMapAnnotation):
            compiler.vars[p.name] = TensorMapValue(arg, p.annotation.dtype, p.annotation.box, p.annotation.swizzle, p.name)
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
    if fastmath is True:
        attributes["fastmath"] = UnitAttr()
    elif fastmath:  # selected flags: #arith.fastmath<...> (kernel-to-gpu puts exactly these on the float ops)
        from xdsl.dialects.arith import FastMathFlag, FastMathFlagsAttr

        attributes["fastmath"] = FastMathFlagsAttr([FastMathFlag(f) for f in fastmath])
    symbol = symbol_name(fn)
    if specialized:
        symbol += "__" + specialization_suffix(specialized)
    func = kernel.FuncOp(symbol, FunctionType.from_lists(input_types, []), Region(block), attributes)
    func.location = compiler.loc(fdef)
    module = ModuleOp([func, *unit.functions])
    try:
        module.verify()
    except Exception as e:  # a frontend bug, not a user error: say so, with the location
        raise CompileError(f"internal error: the frontend built invalid IR: {e}", filename=source.filename, line=source.first_line) from e
    return KernelIR(
        module,
        symbol,
        tuple(params),
        frozenset(compiler.index_dims),
        source,
        tuple(constants),
        compiler.uses_warp_collectives,
        compiler.uses_dynamic_shared,
    )


def param_type(binding: SliceAnnotation | DType | TensorMapAnnotation) -> Attribute:
    """The `kernel`-dialect type of a run-time parameter."""
    if isinstance(binding, TensorMapAnnotation):
        from warpforge.dialects.kernel_hopper import TensorMapType

        return TensorMapType(binding.box, binding.dtype.mlir, binding.swizzle)
    if isinstance(binding, SliceAnnotation):
        assert binding.dtype is not None
        cls = {"slice": kernel.SliceType, "disjoint_slice": kernel.DisjointSliceType, "atomic_slice": kernel.AtomicSliceType, "raw_slice": kernel.RawSliceType}[binding.kind]
        return cls(binding.dtype.mlir)
    return binding.mlir


def _param_type(p: Param) -> Attribute:
    return param_type(p.annotation)
