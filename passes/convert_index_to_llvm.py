"""`convert-index-to-llvm`: `index` becomes `i64` everywhere; index casts become extensions/truncations.

warpforge's `index` is 64-bit (PTX's address width on `nvptx64`), so this is MLIR's index type
conversion in `LLVMTypeConverter` (`index-bitwidth=64`) plus the `arith.index_cast*` patterns of
`convert-arith-to-llvm`, as one pass:

1. `ConvertIndexType`: every `index` — op result types, block arguments, function signatures
   (`func.func`'s `function_type`), `arith.constant` values (`42 : index` → `42 : i64`), and any
   other attribute holding it (e.g. `cf.switch` case values) — becomes `i64`, in place, so each op
   keeps its location. Types nested in others follow (`vector<4xindex>` → `vector<4xi64>`).
2. `ConvertIndexCastOp` / `ConvertIndexCastUIOp`: `arith.index_cast` (signed) → `llvm.sext` or
   `llvm.trunc`, `arith.index_castui` → `llvm.zext` or `llvm.trunc`; a cast between `index` and
   `i64` disappears.

Memrefs must already be lowered (`finalize-memref-to-llvm`): `memref`, `scf` and `gpu` ops demand
`index` operands, so one still present is an error naming it, not a silent type mismatch.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IndexType, IntegerType, MemRefType, ModuleOp
from xdsl.ir import Attribute, Data, Operation, ParametrizedAttribute
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from warpforge.dialects.arith import IndexCastUIOp
from warpforge.rewriting import OneSweepWalker, dialect_of, fail, i64
from warpforge.rewriting import replace_op
from warpforge.rewriting import TypedPatternApplier

INDEX_DIALECTS_BEFORE = ("memref", "scf", "gpu", "affine", "vector", "tensor")
"""Dialects whose ops require `index` operands: they must be lowered before this pass runs."""


def convert_attribute(attr: Attribute, memo: dict[int, tuple[Attribute, Attribute]] | None = None) -> Attribute:
    """`attr` with every `index` inside it (types, typed attributes) replaced by `i64`.

    `memo` (id of an attribute → (that attribute, its conversion)) remembers conversions across
    calls: a module repeats a few types thousands of times (`ConvertIndexType` keeps one per run;
    the attribute is held in the entry, so its id is not reused while the memo lives)."""
    if isinstance(attr, Data) and not isinstance(attr, ArrayAttr | DictionaryAttr):
        return attr  # a plain value (an int, a string): no type inside
    if memo is not None:
        hit = memo.get(id(attr))
        if hit is not None:
            return hit[1]
    if isinstance(attr, IndexType):
        new: Attribute = i64
    elif isinstance(attr, MemRefType):
        new = attr  # memref shapes/element types are finalize-memref-to-llvm's business
    elif isinstance(attr, ParametrizedAttribute):
        params = tuple(convert_attribute(p, memo) for p in attr.parameters)
        new = attr if params == attr.parameters else type(attr).new(params)
    elif isinstance(attr, ArrayAttr):
        items = tuple(convert_attribute(p, memo) for p in attr.data)
        new = attr if items == attr.data else ArrayAttr(items)
    elif isinstance(attr, DictionaryAttr):
        entries = {k: convert_attribute(v, memo) for k, v in attr.data.items()}
        new = attr if entries == dict(attr.data) else DictionaryAttr(entries)
    else:
        new = attr
    if memo is not None:
        memo[id(attr)] = (attr, new)
    return new


@dataclass
class ConvertIndexType(RewritePattern):
    """Rewrite `index` to `i64` in an op's result types, block arguments, properties and attributes, in place."""

    memo: dict[int, tuple[Attribute, Attribute]] = field(default_factory=dict[int, tuple[Attribute, Attribute]])
    """Conversions already made in this run (see `convert_attribute`)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        memo = self.memo
        if dialect_of(op) in INDEX_DIALECTS_BEFORE and (
            any(convert_attribute(v.type, memo) is not v.type for v in (*op.operands, *op.results))
        ):
            fail(op, "still needs index values; lower it before convert-index-to-llvm")
        for result in list(op.results):
            new = convert_attribute(result.type, memo)
            if new is not result.type:
                rewriter.replace_value_with_new_type(result, new)
        for region in op.regions:
            for block in region.blocks:
                for arg in list(block.args):
                    new = convert_attribute(arg.type, memo)
                    if new is not arg.type:
                        rewriter.replace_value_with_new_type(arg, new)
        changed = False
        for table in (op.properties, op.attributes):
            if not table:
                continue
            for name, value in list(table.items()):
                new = convert_attribute(value, memo)
                if new is not value:
                    table[name] = new
                    changed = True
        if changed:
            rewriter.handle_operation_modification(op)


def _integer_cast(op: Operation, signed: bool, rewriter: PatternRewriter) -> None:
    source, target = op.operands[0], op.results[0]
    from_type, to_type = convert_attribute(source.type), convert_attribute(target.type)
    if not isinstance(from_type, IntegerType) or not isinstance(to_type, IntegerType):
        fail(op, f"casts {source.type} to {target.type}; expected integer types")
    if from_type.width.data == to_type.width.data:
        replace_op(rewriter, op, [], [source])
        return
    if from_type.width.data > to_type.width.data:
        new: Operation = llvm.TruncOp(source, to_type)
    elif signed:
        new = llvm.SExtOp(source, to_type)
    else:
        new = llvm.ZExtOp(source, to_type)
    replace_op(rewriter, op, new)


@dataclass
class ConvertIndexCastOp(RewritePattern):
    """`arith.index_cast` → `llvm.sext` (widening), `llvm.trunc` (narrowing) or nothing (i64)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.IndexCastOp, rewriter: PatternRewriter, /):
        _integer_cast(op, True, rewriter)


@dataclass
class ConvertIndexCastUIOp(RewritePattern):
    """`arith.index_castui` → `llvm.zext` (widening), `llvm.trunc` (narrowing) or nothing (i64)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: IndexCastUIOp, rewriter: PatternRewriter, /):
        _integer_cast(op, False, rewriter)


class ConvertIndexToLLVMPass(ModulePass):
    """Make `index` i64 everywhere and lower `arith.index_cast`/`index_castui` to sext/zext/trunc."""

    name = "convert-index-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        OneSweepWalker(ConvertIndexType(), apply_recursively=False).rewrite_module(op)
        OneSweepWalker(TypedPatternApplier([ConvertIndexCastOp(), ConvertIndexCastUIOp()])).rewrite_module(op)
