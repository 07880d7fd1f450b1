"""`convert-func-to-llvm`: `func.func`/`func.call`/`func.return` → `llvm.func`/`llvm.call`/`llvm.return`.

Mirrors MLIR's `convert-func-to-llvm` (with bare pointers for memrefs instead of MLIR's full
descriptor), and implements warpforge's kernel ABI (DESIGN.md, "Kernel ABI"):

- **memref parameters expand**: a `memref<...>` parameter becomes the pointer (`!llvm.ptr<AS>`)
  followed by one `i64` per dynamic dimension — a `Slice` is `ptr addrspace(1)` + `i64` length, a
  `memref<?x?xf32, 1>` passes both extents. The argument's attribute dictionary (`llvm.noalias`,
  `llvm.readonly`, …) goes on the pointer parameter. In the body, the descriptor
  `!llvm.struct<(ptr<AS>, i64...)>` is rebuilt with `llvm.insertvalue` and cast back to the memref
  with `builtin.unrealized_conversion_cast`, which meets `finalize-memref-to-llvm`'s casts and is
  folded by `reconcile-unrealized-casts`. Call sites expand memref arguments the same way.
- **linkage**: kernels (`nvvm.kernel`) are external (`.visible .entry`), other definitions
  `internal`, declarations external. Discardable attributes (`nvvm.kernel`, `nvvm.reqntid`,
  `nvvm.maxntid`, …) are kept on the `llvm.func` for the exporter.
- **results**: none → `void`, one → that type, several → an `!llvm.struct` built with
  `llvm.insertvalue` at `func.return` and taken apart with `llvm.extractvalue` after `llvm.call`.

Not lowered (a diagnostic naming the op): memref results, memref block arguments outside the entry
block, `index` or other non-LLVM types in signatures (run `convert-index-to-llvm` first), indirect
calls (`func.call_indirect`, `func.constant`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    MemRefType,
    ModuleOp,
    UnrealizedConversionCastOp,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from warpforge.rewriting import OneSweepWalker, fail, i64, ops_of_dialect
from warpforge.passes.finalize_memref_to_llvm import build_descriptor, descriptor_fields, descriptor_type
from warpforge.rewriting import inherit_location, replace_op
from warpforge.rewriting import TypedPatternApplier

KERNEL_ATTR = "nvvm.kernel"


def _value_type(typ: Attribute, op: Operation, what: str) -> Attribute:
    """`typ` if the LLVM dialect can carry it as a value, else a diagnostic."""
    if llvm.is_compatible_type(typ):
        return typ
    hint = " (run convert-index-to-llvm first)" if "index" in str(typ) else ""
    fail(op, f"has {what} of type {typ}, which has no LLVM equivalent{hint}")


def parameter_types(typ: Attribute, op: Operation) -> list[Attribute]:
    """The LLVM parameters one function argument of type `typ` passes as (memrefs expand)."""
    if isinstance(typ, MemRefType):
        return descriptor_fields(typ, op)
    return [_value_type(typ, op, "an argument")]


def result_type(types: list[Attribute], op: Operation) -> Attribute:
    """`void`, the one result type, or a struct of several."""
    for typ in types:
        if isinstance(typ, MemRefType):
            fail(op, f"returns a memref ({typ}); functions returning memrefs are not supported")
        _value_type(typ, op, "a result")
    if not types:
        return llvm.LLVMVoidType()
    if len(types) == 1:
        return types[0]
    return llvm.LLVMStructType.from_type_list(types)


def expand_operands(values: list[SSAValue], op: Operation) -> tuple[list[Operation], list[SSAValue]]:
    """Ops and values passing `values` as LLVM arguments: a memref becomes its pointer and sizes."""
    ops: list[Operation] = []
    flat: list[SSAValue] = []
    for value in values:
        typ = value.type
        if not isinstance(typ, MemRefType):
            flat.append(value)
            continue
        struct_type = descriptor_type(typ, op)
        cast = UnrealizedConversionCastOp.get([value], [struct_type])
        ops.append(cast)
        for position, field_type in enumerate(struct_type.types.data):
            extract = llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [position]), cast.results[0], field_type)
            ops.append(extract)
            flat.append(extract.results[0])
    return ops, flat


@dataclass
class ConvertFuncOp(RewritePattern):
    """`func.func` → `llvm.func` with memref parameters expanded and the descriptor rebuilt at entry."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.FuncOp, rewriter: PatternRewriter, /):
        inputs = list(op.function_type.inputs.data)
        old_attrs = list(op.arg_attrs.data) if op.arg_attrs is not None else [DictionaryAttr({})] * len(inputs)
        new_inputs: list[Attribute] = []
        new_attrs: list[DictionaryAttr] = []
        for typ, attrs in zip(inputs, old_attrs):
            fields = parameter_types(typ, op)
            new_inputs += fields
            new_attrs += [attrs] + [DictionaryAttr({})] * (len(fields) - 1)
        output = result_type(list(op.function_type.outputs.data), op)

        body = op.detach_region(op.body)
        if body.blocks:
            entry = body.blocks.first
            assert entry is not None
            for block in list(body.blocks)[1:]:
                for arg in block.args:
                    if isinstance(arg.type, MemRefType):
                        fail(op, f"passes a memref ({arg.type}) as a block argument, which is not supported")
            for index in reversed(range(len(inputs))):
                arg = entry.args[index]
                typ = arg.type
                if not isinstance(typ, MemRefType):
                    continue
                fields = [
                    rewriter.insert_block_argument(entry, index + 1 + k, t) for k, t in enumerate(descriptor_fields(typ, op))
                ]
                new_ops, memref_value = build_descriptor(typ, op, fields[0], fields[1:])
                if arg.name_hint:
                    dynamic_dims = [d for d, n in enumerate(typ.get_shape()) if n == DYNAMIC_INDEX]
                    fields[0].name_hint = arg.name_hint
                    for value, dim in zip(fields[1:], dynamic_dims):
                        value.name_hint = f"{arg.name_hint}_dim{dim}"
                    for desc_op in new_ops:
                        desc_op.results[0].name_hint = f"{arg.name_hint}_desc"
                inherit_location(new_ops, op)
                rewriter.insert(new_ops, InsertPoint.at_start(entry))
                arg.replace_all_uses_with(memref_value)
                rewriter.erase_block_argument(arg)

        is_kernel = KERNEL_ATTR in op.attributes
        linkage = "internal" if body.blocks and not is_kernel else "external"
        props: dict[str, Attribute | None] = {}
        if any(d.data for d in new_attrs):
            props["arg_attrs"] = ArrayAttr(new_attrs)
        new = llvm.FuncOp(
            op.sym_name.data,
            llvm.LLVMFunctionType(new_inputs, output),
            linkage=llvm.LinkageAttr(linkage),
            body=body,
            other_props=props,
            extra_attrs=dict(op.attributes),
        )
        new.location = op.location
        replace_op(rewriter, op, new)


@dataclass
class ConvertCallOp(RewritePattern):
    """`func.call @f(%args)` → `llvm.call @f(...)`, memref arguments expanded, several results unpacked."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.CallOp, rewriter: PatternRewriter, /):
        ops, args = expand_operands(list(op.arguments), op)
        types = [r.type for r in op.results]
        output = result_type(types, op)
        call = llvm.CallOp(op.callee, *args, return_type=None if not types else output)
        ops.append(call)
        results: list[SSAValue] = list(call.results)
        if len(types) > 1:
            results = []
            for position, typ in enumerate(types):
                extract = llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [position]), call.results[0], typ)
                ops.append(extract)
                results.append(extract.results[0])
        replace_op(rewriter, op, ops, results)


@dataclass
class ConvertReturnOp(RewritePattern):
    """`func.return` → `llvm.return` (several values packed into a struct)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.ReturnOp, rewriter: PatternRewriter, /):
        values = list(op.arguments)
        if len(values) <= 1:
            result_type([v.type for v in values], op)
            replace_op(rewriter, op, llvm.ReturnOp(values[0] if values else None))
            return
        struct_type = result_type([v.type for v in values], op)
        ops: list[Operation] = [llvm.UndefOp(struct_type)]
        struct = ops[0].results[0]
        for position, value in enumerate(values):
            insert = llvm.InsertValueOp(DenseArrayBase.from_list(i64, [position]), struct, value)
            ops.append(insert)
            struct = insert.res
        ops.append(llvm.ReturnOp(struct))
        replace_op(rewriter, op, ops)


class ConvertFuncToLLVMPass(ModulePass):
    """Lower func.func/call/return to llvm.func/call/return; memref parameters become pointer + sizes."""

    name = "convert-func-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        OneSweepWalker(
            TypedPatternApplier([ConvertFuncOp(), ConvertCallOp(), ConvertReturnOp()])
        ).rewrite_module(op)
        for inner in ops_of_dialect(op, "func"):
            fail(inner, "has no lowering to the llvm dialect")
