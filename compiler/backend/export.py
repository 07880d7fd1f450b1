"""Export the `llvm` dialect to LLVM IR (an `llvmlite.ir.Module`) for the NVPTX target.

This wraps xDSL's exporter (`xdsl.backend.llvm`): ops it gets right are handed to its `convert_op`;
our handlers come first for what NVPTX needs and it lacks or gets wrong (NOTES-xdsl-nvptx.md §1–§9):

- kernels: `nvvm.kernel` on an `llvm.func` → the `ptx_kernel` calling convention (`.visible .entry`);
  `nvvm.reqntid` / `nvvm.maxntid` / `nvvm.minctasm` → `!nvvm.annotations`, which LLVM 22 upgrades
  to `.reqntid` / `.maxntid` / `.minnctapersm`;
- linkage of functions (xDSL drops it), `readonly`/`noalias` on pointer parameters (for
  `ld.global.nc`), alignment of globals (shared memory needs ≥ 16 B);
- GEP, load and store on `ptr addrspace(N)` without the address-space-0 bitcast xDSL inserts;
- the ops `warpforge.dialects.llvm` adds (casts, atomics with `syncscope`, fence, switch, …);
- `bf16` (LLVM's `bfloat`), which neither xDSL's exporter nor llvmlite's IR layer knows;
- source locations: every instruction gets a `!dbg` `DILocation` from its op's `loc(...)`, so
  the PTX carries `.loc` lines (`emissionKind: DebugDirectivesOnly`, no DWARF sections).
"""

from __future__ import annotations

import os

os.environ.setdefault("LLVMLITE_ENABLE_IR_LAYER_TYPED_POINTERS", "0")

import re  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402
from contextlib import contextmanager  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from types import MappingProxyType  # noqa: E402
from typing import Any  # noqa: E402

import llvmlite.ir as ir  # noqa: E402
from llvmlite.ir import instructions as llinstr  # noqa: E402
from llvmlite.ir.values import ArgumentAttributes  # noqa: E402
from xdsl.utils.exceptions import LLVMTranslationException
from xdsl.backend.llvm import convert_op as xconvert_op  # noqa: E402
from xdsl.backend.llvm import convert_type as xconvert_type  # noqa: E402
from xdsl.dialects import builtin  # noqa: E402
from xdsl.dialects import llvm as xllvm  # noqa: E402
from xdsl.ir import Block, Operation, SSAValue  # noqa: E402

from warpforge.dialects import llvm  # noqa: E402
from warpforge.errors import WarpforgeError  # noqa: E402

# --------------------------------------------------------------------------- types


class BFloatType(ir.types._BaseFloatType):  # pyright: ignore[reportPrivateUsage]
    """LLVM's `bfloat` for llvmlite's IR layer (it has half/float/double only). LLVM 22 lowers it
    natively on sm_80+ (`add.rn.bf16`, `cvt.rn.bf16.f32`)."""

    null = "0.0"
    intrinsic_name = "bf16"

    def __str__(self) -> str:
        return "bfloat"

    def format_constant(self, value: float) -> str:
        import numpy as np

        bits = int(np.array(value, dtype=np.float32).view(np.uint32))
        # round to nearest even, keep NaN a NaN
        if (bits & 0x7F800000) == 0x7F800000 and (bits & 0x007FFFFF):
            return "0xR7FC0"
        bits += 0x7FFF + ((bits >> 16) & 1)
        return f"0xR{(bits >> 16) & 0xFFFF:04X}"


BFloatType._create_instance()  # pyright: ignore[reportPrivateUsage]

# xDSL's type table is the one place its exporter looks types up; teaching it `bf16` makes every
# fallback conversion (casts, constants, phis) handle it too.
xconvert_type._TYPE_CONVERTERS.setdefault(builtin.BFloat16Type, lambda _: BFloatType())  # pyright: ignore[reportPrivateUsage]

convert_type = xconvert_type.convert_type


class _FunctionAttributes(ir.values.FunctionAttributes):  # pyright: ignore[reportAttributeAccessIssue]
    """llvmlite's function attributes, plus LLVM string attributes (`"key"="value"`), which its list
    of known enum attributes refuses."""

    def add(self, name: str) -> None:
        if name.startswith('"'):
            set.add(self, name)
            return
        super().add(name)


class _ArgumentAttributes(ArgumentAttributes):
    """llvmlite's parameter attributes, plus the memory attributes LLVM has and llvmlite's list lacks."""

    _known = MappingProxyType(
        {**ArgumentAttributes._known, "readonly": False, "writeonly": False, "nocapture": False}  # pyright: ignore[reportPrivateUsage]
    )

    byval: ir.Type | None = None
    """`byval(<type>)`: with opaque pointers llvmlite cannot name the pointee, so it is kept here."""
    grid_constant: bool = False
    """`"nvvm.grid_constant"`: a `__grid_constant__` byval parameter (read-only, addressable in
    param space: LLVM 22 emits `cvta.param`), as a TMA descriptor needs (PTX ISA §5.1.6.1)."""

    def _to_list(self, typ: Any) -> list[str]:
        attrs = super()._to_list(typ)
        if self.byval is not None:
            attrs.insert(0, f"byval({self.byval})")
        if self.grid_constant:
            attrs.append('"nvvm.grid_constant"')
        return attrs


_ARG_FLAGS = {
    "llvm.noalias": "noalias",
    "llvm.readonly": "readonly",
    "llvm.writeonly": "writeonly",
    "llvm.nocapture": "captures(none)",
    "llvm.nonnull": "nonnull",
    "llvm.noundef": "noundef",
    "llvm.signext": "signext",
    "llvm.zeroext": "zeroext",
}
_ARG_INTS = {"llvm.align": "align", "llvm.dereferenceable": "dereferenceable"}

_FUNCTION_FLAGS = {"llvm.noinline": "noinline", "llvm.cold": "cold", "llvm.alwaysinline": "alwaysinline"}
"""Unit attributes on `llvm.func` → LLVM function attributes (e.g. the cold, never-inlined error reporter)."""

_STRING_FUNCTION_ATTRS = {"llvm.denormal_fp_math_f32": "denormal-fp-math-f32"}
"""String attributes on `llvm.func` (value `"preserve-sign"`) → LLVM string function attributes
(`"denormal-fp-math-f32"="preserve-sign,preserve-sign"`: f32 denormals flushed, PTX `.ftz`)."""

_ANNOTATIONS = {"nvvm.reqntid": "reqntid", "nvvm.maxntid": "maxntid"}
"""Launch-bound attributes on `llvm.func` → `!nvvm.annotations` keys (with x/y/z suffix)."""


class ExportError(WarpforgeError):
    """The `llvm`-dialect module cannot be expressed as LLVM IR (an op or type with no translation),
    or fails the checks LLVM would abort on (`warpforge.verify.verify_for_export`).

    `op` is the op that failed (None when unknown), `message` the text without its location;
    `str()` puts the op's `file:line:col` (or `in @function`) in front. `warpforge-opt` reports it
    as a diagnostic located at `op`. `diagnostic` holds the located `Diagnostic` when the failure
    was one already (a dominance or launch-bound check)."""

    def __init__(self, message: str, op: Operation | None = None, *, diagnostic: Any = None):
        self.message, self.op, self.diagnostic = message, op, diagnostic
        super().__init__(f"{_where(op)}: {message}" if op is not None else message)


# --------------------------------------------------------------------------- custom instructions


class _ScopedAtomicRMW(llinstr.Instruction):
    """`atomicrmw` with an optional `syncscope` (llvmlite's builder takes none)."""

    def __init__(self, parent: Any, op: str, ptr: ir.Value, val: ir.Value, ordering: str, scope: str | None):
        super().__init__(parent, val.type, "atomicrmw", (ptr, val))
        self.operation, self.ordering, self.scope = op, ordering, scope

    def descr(self, buf: list[str]) -> None:
        ptr, val = self.operands
        scope = f' syncscope("{self.scope}")' if self.scope else ""
        buf.append(
            f"atomicrmw {self.operation} {ptr.type} {ptr.get_reference()}, {val.type} {val.get_reference()}"
            f"{scope} {self.ordering}{self._stringify_metadata(leading_comma=True)}\n"
        )


class _ScopedCmpXchg(llinstr.Instruction):
    """`cmpxchg` with an optional `syncscope`."""

    def __init__(self, parent: Any, ptr: ir.Value, cmp: ir.Value, val: ir.Value, succ: str, fail: str, scope: str | None):
        super().__init__(parent, ir.LiteralStructType([val.type, ir.IntType(1)]), "cmpxchg", (ptr, cmp, val))
        self.succ, self.fail, self.scope = succ, fail, scope

    def descr(self, buf: list[str]) -> None:
        ptr, cmp, val = self.operands
        scope = f' syncscope("{self.scope}")' if self.scope else ""
        buf.append(
            f"cmpxchg {ptr.type} {ptr.get_reference()}, {cmp.type} {cmp.get_reference()}, {val.type} "
            f"{val.get_reference()}{scope} {self.succ} {self.fail}{self._stringify_metadata(leading_comma=True)}\n"
        )


class _ScopedFence(llinstr.Instruction):
    def __init__(self, parent: Any, ordering: str, scope: str | None):
        super().__init__(parent, ir.VoidType(), "fence", ())
        self.ordering, self.scope = ordering, scope

    def descr(self, buf: list[str]) -> None:
        scope = f' syncscope("{self.scope}")' if self.scope else ""
        buf.append(f"fence{scope} {self.ordering}{self._stringify_metadata(leading_comma=True)}\n")


class _Freeze(llinstr.Instruction):
    def __init__(self, parent: Any, val: ir.Value):
        super().__init__(parent, val.type, "freeze", (val,))

    def descr(self, buf: list[str]) -> None:
        (val,) = self.operands
        buf.append(f"freeze {val.type} {val.get_reference()}{self._stringify_metadata(leading_comma=True)}\n")


class _Poison(ir.Constant):
    def __init__(self, typ: ir.Type):
        super().__init__(typ, None)

    def _to_string(self) -> str:  # pyright: ignore[reportIncompatibleMethodOverride]
        return f"{self.type} poison"

    def get_reference(self) -> str:
        return "poison"


# --------------------------------------------------------------------------- the exporter


@dataclass
class _FunctionState:
    fn: ir.Function
    builder: ir.IRBuilder
    values: dict[SSAValue, ir.Value] = field(default_factory=dict[SSAValue, ir.Value])
    blocks: dict[Block, ir.Block] = field(default_factory=dict[Block, ir.Block])
    subprogram: Any = None
    scopes: dict[str, Any] = field(default_factory=dict[str, Any])
    last_loc: Any = None
    func_file: str | None = None
    """The file of the function's own location (an op located elsewhere gets a lexical block file)."""
    locations: dict[tuple[int, int, int], Any] = field(default_factory=dict[tuple[int, int, int], Any])
    """(line, column, id of the scope) -> its `DILocation`, so each is asked of llvmlite once per
    function (`add_debug_info` hashes the whole scope chain on every call: a sixth of the export)."""


STATIC_LOOP_MARK = "warpforge.static_range"
"""A property of the loop ID of a `simt.static_range` loop: still in the module after O3 when LLVM did
not unroll the loop (its unroller replaces `llvm.loop.unroll.*` properties, not this one)."""


class _LoopID(ir.values.MDValue):  # pyright: ignore[reportAttributeAccessIssue]
    """A `distinct` metadata node (llvmlite prints only uniqued ones): a loop ID must not be merged
    with another loop's."""

    def descr(self, buf: list[str]) -> None:  # pyright: ignore[reportIncompatibleMethodOverride]
        buf.append("distinct ")
        super().descr(buf)


Handler = Callable[["LLVMExporter", Operation, _FunctionState], None]
_HANDLERS: dict[type[Operation], Handler] = {}


def _handles(*ops: type[Operation]) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        for op in ops:
            _HANDLERS[op] = fn
        return fn

    return register


@dataclass
class LLVMExporter:
    """Translates one module of `llvm.func`/`llvm.mlir.global` ops to an `llvmlite.ir.Module`.

    `module` is either a `builtin.module` holding them, or one holding a single `gpu.module` whose
    body holds them (the shape `gpu-to-llvm` produces).
    """

    triple: str = "nvptx64-nvidia-cuda"
    data_layout: str = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
    """NVPTX's data layout (from `TargetMachine.target_data` of LLVM 22's NVPTX target)."""
    debug_info: bool = True
    """Attach `!dbg` locations from op locations (PTX `.loc` lines)."""

    llmod: ir.Module = field(init=False)
    origins: list[tuple[Any, Operation]] = field(init=False, default_factory=list[tuple[Any, Operation]])
    """Each LLVM global, function and instruction made, with the op it was made from (`origin_of`)."""
    _files: dict[str, Any] = field(init=False, default_factory=dict[str, Any])
    _compile_unit: Any = field(init=False, default=None)

    # ------------------------------------------------------------------ module

    def export(self, module: builtin.ModuleOp) -> ir.Module:
        self.llmod = ir.Module(name=str(module.sym_name.data) if module.sym_name else "warpforge")
        self.llmod.triple = self.triple
        self.llmod.data_layout = self.data_layout
        body_ops = list(_llvm_body(module).ops)
        globals_ = [op for op in body_ops if isinstance(op, xllvm.GlobalOp)]
        funcs = [op for op in body_ops if isinstance(op, xllvm.FuncOp)]
        for op in body_ops:
            if not isinstance(op, xllvm.GlobalOp | xllvm.FuncOp):
                raise ExportError(
                    f"'{op.name}' cannot be exported to LLVM IR: only llvm.func and llvm.mlir.global may appear at "
                    f"module level (run the lowering pipeline first: {_pipeline_hint(module)})",
                    op,
                )
        if self.debug_info:
            self._init_debug_info(funcs)
        for op in globals_:
            with _translating(op):
                self._export_global(op)
        for op in funcs:
            with _translating(op):
                self._declare_function(op)
        for op in funcs:
            if op.body.blocks:
                self._export_function(op)
        return self.llmod

    def origin_of(self, llvm_ir: str, message: str) -> Operation | None:
        """The op an LLVM diagnostic about `llvm_ir` (the text of this exporter's module) is about:
        the line it names (`<string>:LINE:COL: error: …`, LLVM's IR parser), else a line of IR it
        quotes (LLVM's verifier prints the offending instructions indented), matched against the
        instructions, globals and functions this exporter made; None when no line matches."""
        lines = llvm_ir.split("\n")
        wanted: list[str] = []
        for m in re.finditer(r"<string>:(\d+):\d+:", message):
            n = int(m.group(1))
            if 0 < n <= len(lines):
                wanted.append(lines[n - 1].strip())
        wanted += [line.strip() for line in message.split("\n") if line.startswith("  ") and line.strip()]
        if not wanted:
            return None
        printed: dict[str, Operation] = {}
        for value, op in self.origins:
            text = str(value).strip() if isinstance(value, llinstr.Instruction) else str(value).split("\n", 1)[0].strip()
            printed.setdefault(text, op)
        for line in wanted:
            if line in printed:
                return printed[line]
        for line in wanted:  # a function's `define`/`declare` line, or a global's definition
            for value, op in self.origins:
                if isinstance(value, ir.GlobalValue) and re.search(rf'@"?{re.escape(value.name)}"?[\s(=]', line) and re.match(r"(define|declare|@)", line):
                    return op
        return None

    def _export_global(self, op: xllvm.GlobalOp) -> None:
        gvar = ir.GlobalVariable(self.llmod, convert_type(op.global_type), op.sym_name.data, addrspace=op.addr_space.value.data)
        self.origins.append((gvar, op))
        gvar.linkage = op.linkage.linkage.data
        if op.constant is not None:
            gvar.global_constant = True
        if op.alignment is not None:
            gvar.align = op.alignment.value.data
        if op.value is not None:
            if isinstance(op.value, builtin.StringAttr):
                raw = op.value.data.encode()
                gvar.initializer = ir.Constant(ir.ArrayType(ir.IntType(8), len(raw)), bytearray(raw))
            else:
                gvar.initializer = xconvert_op.create_constant(op.global_type, op.value)
        elif op.addr_space.value.data == 3 and gvar.linkage != "external":
            # shared memory cannot be initialized: LLVM wants `undef` there (an `external` one is the
            # dynamic shared memory, PTX `.extern .shared`, and has no initializer at all)
            gvar.initializer = ir.Constant(gvar.value_type, ir.Undefined)

    def _declare_function(self, op: xllvm.FuncOp) -> None:
        ftype = op.function_type
        fn = ir.Function(
            self.llmod,
            ir.FunctionType(convert_type(ftype.output), [convert_type(t) for t in ftype.inputs], var_arg=ftype.is_variadic),
            name=op.sym_name.data,
        )
        self.origins.append((fn, op))
        is_kernel = "nvvm.kernel" in op.attributes
        linkage = op.linkage.linkage.data
        if is_kernel:
            fn.calling_convention = "ptx_kernel"
        elif op.body.blocks and linkage not in ("external", ""):
            fn.linkage = linkage
        if op.arg_attrs is not None:
            for arg, attrs in zip(fn.args, op.arg_attrs.data):
                arg.attributes = _ArgumentAttributes()
                for name, value in attrs.data.items():
                    if name in _ARG_FLAGS:
                        arg.add_attribute(_ARG_FLAGS[name])
                    elif name in _ARG_INTS and isinstance(value, builtin.IntegerAttr):
                        setattr(arg.attributes, _ARG_INTS[name], value.value.data)
                    elif name == "llvm.byval":
                        arg.attributes.byval = convert_type(value)  # pyright: ignore[reportAttributeAccessIssue]
                    elif name == "nvvm.grid_constant":
                        arg.attributes.grid_constant = True  # pyright: ignore[reportAttributeAccessIssue]
        for attr_name, key in _STRING_FUNCTION_ATTRS.items():
            value = op.attributes.get(attr_name)
            if isinstance(value, builtin.StringAttr):
                if not isinstance(fn.attributes, _FunctionAttributes):
                    old = fn.attributes
                    fn.attributes = _FunctionAttributes()
                    for a in old:
                        fn.attributes.add(a)
                fn.attributes.add(f'"{key}"="{value.data},{value.data}"')
        for attr_name, flag in _FUNCTION_FLAGS.items():
            if attr_name in op.attributes or (attr_name == "llvm.noinline" and op.no_inline is not None):
                fn.attributes.add(flag)
        for attr_name, key in _ANNOTATIONS.items():
            bounds = op.attributes.get(attr_name)
            if isinstance(bounds, builtin.DenseArrayBase):
                for axis, n in zip("xyz", bounds.get_values()):
                    self._annotate(fn, f"{key}{axis}", int(n))
        minctasm = op.attributes.get("nvvm.minctasm")
        if isinstance(minctasm, builtin.IntegerAttr):
            self._annotate(fn, "minctasm", minctasm.value.data)

    def _annotate(self, fn: ir.Function, key: str, value: int) -> None:
        node = self.llmod.add_metadata([fn, ir.MetaDataString(self.llmod, key), ir.Constant(ir.IntType(32), value)])
        self.llmod.add_named_metadata("nvvm.annotations", node)

    # ------------------------------------------------------------------ functions

    def _export_function(self, op: xllvm.FuncOp) -> None:
        fn = self.llmod.get_global(op.sym_name.data)
        assert isinstance(fn, ir.Function)
        state = _FunctionState(fn, ir.IRBuilder(), func_file=_file_of(op.location))
        if self.debug_info:
            state.subprogram = self._subprogram(op, fn)
            fn.set_metadata("dbg", state.subprogram)
        for i, block in enumerate(op.body.blocks):
            state.blocks[block] = fn.append_basic_block(name=block.name_hint or "")
            if i == 0:
                state.values.update(zip(block.args, fn.args))
        for block in list(op.body.blocks)[1:]:
            state.builder.position_at_end(state.blocks[block])
            for arg in block.args:
                with _translating(block.first_op or op):
                    state.values[arg] = state.builder.phi(convert_type(arg.type))
        for block in op.body.blocks:
            state.builder.position_at_end(state.blocks[block])
            for inner in block.ops:
                self._export_op(inner, state)

    def _export_op(self, op: Operation, state: _FunctionState) -> None:
        block = state.builder.block
        before = len(block.instructions)
        handler = _HANDLERS.get(type(op))
        with _translating(op):
            if handler is not None:
                handler(self, op, state)
            else:
                xconvert_op.convert_op(op, state.builder, state.values, state.blocks)
                weights = op.attributes.get("branch_weights") if isinstance(op, xllvm.CondBrOp) else None
                if isinstance(weights, builtin.DenseArrayBase):  # `!prof` branch weights (then, else)
                    branch = state.builder.block.instructions[-1]
                    assert isinstance(branch, ir.ConditionalBranch)
                    branch.set_weights([int(w) for w in weights.get_values()])
        if isinstance(op, xllvm.BrOp) and "llvm.loop_unroll_full" in op.attributes:
            block.instructions[-1].set_metadata("llvm.loop", self._loop_id("llvm.loop.unroll.full", STATIC_LOOP_MARK))
        self.origins.extend((instr, op) for instr in block.instructions[before:])
        if state.subprogram is not None:
            loc = self._location(op, state)
            for instr in block.instructions[before:]:
                if not isinstance(instr, llinstr.PhiInstr):
                    instr.set_metadata("dbg", loc)

    def _loop_id(self, *hints: str) -> Any:
        """A new loop ID (`!N = distinct !{!N, !{!"llvm.loop.unroll.full"}, ...}`, LLVM LangRef
        "'llvm.loop'"): the latch branch of a loop carries it; its first operand is itself. LLVM
        keeps properties it does not know (`STATIC_LOOP_MARK`) on a loop it keeps."""
        options = [self.llmod.add_metadata([ir.MetaDataString(self.llmod, h)]) for h in hints]
        loop = _LoopID(self.llmod, options, name=str(len(self.llmod.metadata)))
        loop.operands = (loop, *options)
        return loop

    # ------------------------------------------------------------------ debug info

    def _init_debug_info(self, funcs: list[xllvm.FuncOp]) -> None:
        first_file = next((f for fn in funcs if (f := _file_of(fn.location)) is not None), "<unknown>")
        self._compile_unit = self.llmod.add_debug_info(
            "DICompileUnit",
            {
                "language": ir.DIToken("DW_LANG_Python"),
                "file": self._difile(first_file),
                "producer": "warpforge",
                "isOptimized": True,
                "runtimeVersion": 0,
                "emissionKind": ir.DIToken("DebugDirectivesOnly"),
            },
            is_distinct=True,
        )
        self.llmod.add_named_metadata("llvm.dbg.cu", self._compile_unit)
        i32 = ir.IntType(32)
        for key, value in (("Debug Info Version", 3), ("Dwarf Version", 2)):
            self.llmod.add_named_metadata(
                "llvm.module.flags", self.llmod.add_metadata([i32(2), ir.MetaDataString(self.llmod, key), i32(value)])
            )

    def _difile(self, path: str) -> Any:
        if path not in self._files:
            directory, _, name = path.rpartition("/")
            self._files[path] = self.llmod.add_debug_info("DIFile", {"filename": name or path, "directory": directory})
        return self._files[path]

    def _subprogram(self, op: xllvm.FuncOp, fn: ir.Function) -> Any:
        line, _ = _line_col(op.location)
        file = self._difile(_file_of(op.location) or "<unknown>")
        return self.llmod.add_debug_info(
            "DISubprogram",
            {
                "name": fn.name,
                "file": file,
                "line": line,
                "type": self.llmod.add_debug_info("DISubroutineType", {"types": self.llmod.add_metadata([])}),
                "unit": self._compile_unit,
                "spFlags": ir.DIToken("DISPFlagDefinition"),
            },
            is_distinct=True,
        )

    def _location(self, op: Operation, state: _FunctionState) -> Any:
        loc = op.location
        if isinstance(loc, builtin.FileLineColLoc):
            path = loc.filename.data
            scope = state.subprogram
            if path != (state.func_file or path):
                if path not in state.scopes:
                    state.scopes[path] = self.llmod.add_debug_info(
                        "DILexicalBlockFile", {"scope": state.subprogram, "file": self._difile(path), "discriminator": 0}
                    )
                scope = state.scopes[path]
            key = (loc.line.data, loc.column.data, id(scope))  # the scope is held by `state`
            found = state.locations.get(key)
            if found is None:
                found = state.locations[key] = self.llmod.add_debug_info("DILocation", {"line": key[0], "column": key[1], "scope": scope})
            state.last_loc = found
        elif state.last_loc is None:
            line, _ = _line_col(_func_of(op))
            state.last_loc = self.llmod.add_debug_info("DILocation", {"line": line, "column": 0, "scope": state.subprogram})
        return state.last_loc


def _llvm_body(module: builtin.ModuleOp) -> Block:
    ops = list(module.ops)
    if len(ops) == 1 and ops[0].name == "gpu.module":
        return ops[0].regions[0].block
    return module.body.block


def _file_of(loc: Any) -> str | None:
    return loc.filename.data if isinstance(loc, builtin.FileLineColLoc) else None


def _line_col(loc: Any) -> tuple[int, int]:
    if isinstance(loc, builtin.FileLineColLoc):
        return loc.line.data, loc.column.data
    return 0, 0


def _func_of(op: Operation) -> Any:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, xllvm.FuncOp):
        parent = parent.parent_op()
    return parent.location if parent is not None else None


def _where(op: Operation) -> str:
    from warpforge.rewriting import where

    return where(op)


def _pipeline_hint(module: builtin.ModuleOp) -> str:
    """Which `warpforge-opt` pipeline lowers what `module` holds to the `llvm` dialect: a `kernel.func`
    with `tile` ops or `tile.Tensor` arguments is a tile kernel (`-p tile-to-llvm`), another one a
    SIMT kernel (`-p simt-to-llvm`), gpu-level IR `-p gpu-to-llvm`."""
    names = {op.name.split(".", 1)[0] for op in module.walk()}
    if "kernel" in names:
        return "-p tile-to-llvm for a tile kernel" if "tile" in names else "-p simt-to-llvm for a SIMT kernel"
    return "-p gpu-to-llvm"


@contextmanager
def _translating(op: Operation) -> Iterator[None]:
    """Turn xDSL's or llvmlite's failure to translate `op` into an `ExportError` about `op`."""
    try:
        yield
    except ExportError as e:
        if e.op is None:
            raise ExportError(e.message, op) from None
        raise
    except NotImplementedError as e:
        raise ExportError(f"'{op.name}' has no LLVM IR translation ({e})", op) from None
    except LLVMTranslationException as e:  # xDSL's type conversion: a type LLVM/NVPTX has no form of (f80)
        raise ExportError(f"cannot translate '{op.name}' to LLVM IR: {e}", op) from None
    except (KeyError, TypeError, AssertionError, ValueError, IndexError, AttributeError) as e:
        raise ExportError(f"cannot translate '{op.name}' to LLVM IR: {e!r}", op) from None


def export_llvm_ir(module: builtin.ModuleOp, *, debug_info: bool = True, exporter: LLVMExporter | None = None) -> ir.Module:
    """Translate an `llvm`-dialect module to an `llvmlite.ir.Module` for `nvptx64-nvidia-cuda`.

    Raises `ExportError` naming the op and its source location when an op has no translation, when a
    use is not dominated by its definition, or when launch bounds are malformed (checked first, since
    LLVM aborts the process on such IR). `exporter`: the `LLVMExporter` to use (its `origin_of`
    maps an LLVM diagnostic about the result back to an op); by default a new one with `debug_info`.
    """
    from xdsl.utils.exceptions import VerifyException

    from warpforge.verify import verify_for_export

    try:
        verify_for_export(module)
    except VerifyException as e:
        raise ExportError(str(e), diagnostic=getattr(e, "diagnostic", None)) from None
    return (exporter or LLVMExporter(debug_info=debug_info)).export(module)


# --------------------------------------------------------------------------- handlers


def _v(state: _FunctionState, value: SSAValue) -> ir.Value:
    return state.values[value]


@_handles(xllvm.GEPOp)
def _gep(ex: LLVMExporter, op: Operation, s: _FunctionState) -> None:
    assert isinstance(op, xllvm.GEPOp)
    base = _v(s, op.ptr)
    ssa = iter(op.ssa_indices)
    indices = [
        _v(s, next(ssa)) if idx == xllvm.GEP_USE_SSA_VAL else ir.Constant(ir.IntType(32), idx)
        for idx in op.rawConstantIndices.iter_values()
    ]
    instr = llinstr.GEPInstr(s.builder.block, base, indices, op.inbounds is not None, "", source_etype=convert_type(op.elem_type))
    # keep the result an opaque pointer in the base's address space, whatever the base's llvmlite type
    instr.type = ir.PointerType(addrspace=base.type.addrspace)
    s.builder._insert(instr)  # pyright: ignore[reportPrivateUsage]
    s.values[op.results[0]] = instr


@_handles(xllvm.LoadOp)
def _load(ex: LLVMExporter, op: Operation, s: _FunctionState) -> None:
    assert isinstance(op, xllvm.LoadOp)
    _refuse_atomic_access(op)
    instr = s.builder.load(_v(s, op.ptr), typ=convert_type(op.dereferenced_value.type))
    if op.alignment is not None:
        instr.align = op.alignment.value.data
    s.values[op.dereferenced_value] = instr


def _refuse_atomic_access(op: xllvm.LoadOp | xllvm.StoreOp) -> None:
    """`llvm.load/store atomic <ordering>` would be exported as a plain access (llvmlite's builder takes
    no sync scope and this exporter no ordering): refuse it rather than drop the ordering."""
    if op.ordering.value.data != 0:
        raise ExportError(f"'{op.name}' is atomic; atomic loads and stores are not exported (use llvm.atomicrmw/cmpxchg)", op)


@_handles(xllvm.StoreOp)
def _store(ex: LLVMExporter, op: Operation, s: _FunctionState) -> None:
    assert isinstance(op, xllvm.StoreOp)
    _refuse_atomic_access(op)
    instr = llinstr.StoreInstr(s.builder.block, _v(s, op.value), _v(s, op.ptr))
    instr.align = op.alignment.value.data if op.alignment is not None else None
    s.builder._insert(instr)  # pyright: ignore[reportPrivateUsage]


@_handles(xllvm.AddressOfOp)
def _addressof(ex: LLVMExporter, op: Operation, s: _FunctionState) -> None:
    assert isinstance(op, xllvm.AddressOfOp)
    gvar = ex.llmod.get_global(op.global_name.root_reference.data)
    space = gvar.type.addrspace
    # a no-op constant bitcast gives the global's address an opaque pointer type
    s.values[op.result] = gvar.bitcast(ir.PointerType(addrspace=space))


@_handles(xllvm.ConstantOp)
def _constant(ex: LLVMExporter, op: Operation, s: _FunctionState) -> None:
    assert isinstance(op, xllvm.ConstantOp)
    value = op.value
    typ = convert_type(op.result.type)
    if isinstance(value, builtin.IntegerAttr):
        s.values[op.result] = ir.Constant(typ, value.value.data)
    elif isinstance(value, builtin.FloatAttr):
        s.values[op.result] = ir.Constant(typ, value.value.data)
    else:
        s.values[op.result] = xconvert_op.create_constant(op.result.type, value)


def _fastmath(op: Operation) -> list[str]:
    flags = op.properties.get("fastmathFlags")
    if isinstance(flags, xllvm.FastMathAttr):
        return [f.value for f in flags.data]
    return []


@_handles(xllvm.CallIntrinsicOp)
def _call_intrinsic(ex: LLVMExporter, op: Operation, s: _FunctionState) -> None:
    assert isinstance(op, xllvm.CallIntrinsicOp)
    args = [_v(s, a) for a in op.args]
    ret = convert_type(op.ress.type) if op.ress is not None else ir.VoidType()
    name = op.intrin.data
    fn = ex.llmod.globals.get(name)
    if fn is None:
        fn = ir.Function(ex.llmod, ir.FunctionType(ret, [a.type for a in args]), name=name)
    fastmath = _fastmath(op) if isinstance(ret, ir.types._BaseFloatType) else []  # pyright: ignore[reportPrivateUsage]
    result = s.builder.call(fn, args, fastmath=fastmath)
    if op.ress is not None:
        s.values[op.ress] = result


@_handles(xllvm.InlineAsmOp)
def _inline_asm(ex: LLVMExporter, op: Operation, s: _FunctionState) -> None:
    """`llvm.inline_asm` → an LLVM `asm` call (PTX inline assembly, e.g. `wgmma.mma_async`)."""
    assert isinstance(op, xllvm.InlineAsmOp)
    args = [_v(s, a) for a in op.operands_]
    ret = convert_type(op.res.type) if op.res is not None else ir.VoidType()
    asm = ir.InlineAsm(ir.FunctionType(ret, [a.type for a in args]), op.asm_string.data, op.constraints.data,
                       side_effect=op.has_side_effects is not None)  # fmt: skip
    result = s.builder.call(asm, args)
    if op.res is not None:
        s.values[op.res] = result


@_handles(xllvm.CallOp)
def _call(ex: LLVMExporter, op: Operation, s: _FunctionState) -> None:
    assert isinstance(op, xllvm.CallOp)
    if op.callee is None:
        raise NotImplementedError("indirect calls")
    callee = ex.llmod.get_global(op.callee.string_value())
    ret_float = op.returned is not None and isinstance(convert_type(op.returned.type), ir.types._BaseFloatType)  # pyright: ignore[reportPrivateUsage]
    result = s.builder.call(callee, [_v(s, a) for a in op.args], fastmath=_fastmath(op) if ret_float else [])
    if op.returned is not None:
        s.values[op.returned] = result


_CASTS = {llvm.AddrSpaceCastOp: "addrspacecast", llvm.FPToSIOp: "fptosi", llvm.FPToUIOp: "fptoui", llvm.UIToFPOp: "uitofp"}


@_handles(*_CASTS)
def _cast(ex: LLVMExporter, op: Operation, s: _FunctionState) -> None:
    instr = llinstr.CastInstr(s.builder.block, _CASTS[type(op)], _v(s, op.operands[0]), convert_type(op.results[0].type))
    s.builder._insert(instr)  # pyright: ignore[reportPrivateUsage]
    s.values[op.results[0]] = instr


@_handles(llvm.AtomicRMWOp)
def _atomicrmw(ex: LLVMExporter, op: Operation, s: _FunctionState) -> None:
    assert isinstance(op, llvm.AtomicRMWOp)
    scope = op.syncscope.data if op.syncscope else None
    instr = _ScopedAtomicRMW(s.builder.block, op.bin_op.data, _v(s, op.ptr), _v(s, op.val), op.ordering.data, scope)
    s.builder._insert(instr)  # pyright: ignore[reportPrivateUsage]
    s.values[op.res] = instr


@_handles(llvm.CmpXchgOp)
def _cmpxchg(ex: LLVMExporter, op: Operation, s: _FunctionState) -> None:
    assert isinstance(op, llvm.CmpXchgOp)
    scope = op.syncscope.data if op.syncscope else None
    instr = _ScopedCmpXchg(
        s.builder.block, _v(s, op.ptr), _v(s, op.cmp), _v(s, op.val),
        op.success_ordering.data, op.failure_ordering.data, scope,
    )  # fmt: skip
    s.builder._insert(instr)  # pyright: ignore[reportPrivateUsage]
    s.values[op.res] = instr


@_handles(llvm.FenceOp)
def _fence(ex: LLVMExporter, op: Operation, s: _FunctionState) -> None:
    assert isinstance(op, llvm.FenceOp)
    instr = _ScopedFence(s.builder.block, op.ordering.data, op.syncscope.data if op.syncscope else None)
    s.builder._insert(instr)  # pyright: ignore[reportPrivateUsage]


@_handles(llvm.FreezeOp)
def _freeze(ex: LLVMExporter, op: Operation, s: _FunctionState) -> None:
    assert isinstance(op, llvm.FreezeOp)
    instr = _Freeze(s.builder.block, _v(s, op.val))
    s.builder._insert(instr)  # pyright: ignore[reportPrivateUsage]
    s.values[op.res] = instr


@_handles(llvm.PoisonOp)
def _poison(ex: LLVMExporter, op: Operation, s: _FunctionState) -> None:
    assert isinstance(op, llvm.PoisonOp)
    s.values[op.res] = _Poison(convert_type(op.res.type))


@_handles(llvm.ExtractElementOp)
def _extractelement(ex: LLVMExporter, op: Operation, s: _FunctionState) -> None:
    assert isinstance(op, llvm.ExtractElementOp)
    s.values[op.res] = s.builder.extract_element(_v(s, op.vector), _v(s, op.position))


@_handles(llvm.SwitchOp)
def _switch(ex: LLVMExporter, op: Operation, s: _FunctionState) -> None:
    assert isinstance(op, llvm.SwitchOp)
    instr = s.builder.switch(_v(s, op.value), s.blocks[op.default_destination])
    typ = convert_type(op.value.type)
    for value, dest in zip(op.case_values.get_values(), op.case_destinations):
        instr.add_case(ir.Constant(typ, value), s.blocks[dest])


def _intrinsic_suffix(t: ir.Type) -> str:
    if isinstance(t, ir.VectorType):
        return f"v{t.count}{t.element.intrinsic_name}"
    return t.intrinsic_name


@_handles(llvm.MaximumOp, llvm.MinimumOp, llvm.SMaxOp, llvm.SMinOp, llvm.UMaxOp, llvm.UMinOp)
def _binary_intrinsic(ex: LLVMExporter, op: Operation, s: _FunctionState) -> None:
    lhs, rhs = _v(s, op.operands[0]), _v(s, op.operands[1])
    name = f"{type(op).INTRINSIC}.{_intrinsic_suffix(lhs.type)}"  # pyright: ignore[reportAttributeAccessIssue]
    fn = ex.llmod.globals.get(name) or ir.Function(ex.llmod, ir.FunctionType(lhs.type, [lhs.type, lhs.type]), name=name)
    s.values[op.results[0]] = s.builder.call(fn, [lhs, rhs])


_XDSL_INTRINSICS: dict[type[Operation], str] = {
    **xconvert_op._UNARY_INTRINSIC_MAP,  # pyright: ignore[reportPrivateUsage]
    **xconvert_op._BINARY_INTRINSIC_MAP,  # pyright: ignore[reportPrivateUsage]
    xllvm.FMAOp: "llvm.fma",
}
"""xDSL's `llvm.intr.*` ops (fabs, sqrt, floor, ceil, copysign, maxnum, minnum, pow, fma, …). xDSL's own
converter declares most of them without the type suffix (`@llvm.fabs` instead of `@llvm.fabs.f32`),
which LLVM only accepts by re-mangling, drops their fast-math flags and refuses any on `fma`."""


@_handles(*_XDSL_INTRINSICS)
def _xdsl_intrinsic(ex: LLVMExporter, op: Operation, s: _FunctionState) -> None:
    args = [_v(s, a) for a in op.operands]
    typ = convert_type(op.results[0].type)
    name = f"{_XDSL_INTRINSICS[type(op)]}.{_intrinsic_suffix(typ)}"
    fn = ex.llmod.globals.get(name) or ir.Function(ex.llmod, ir.FunctionType(typ, [a.type for a in args]), name=name)
    s.values[op.results[0]] = s.builder.call(fn, args, fastmath=_fastmath(op))


def supported_ops() -> frozenset[str]:
    """Names of the `llvm` ops this exporter translates itself (the rest go to xDSL's `convert_op`)."""
    return frozenset(op.name for op in _HANDLERS)

