"""`finalize-memref-to-llvm`: `memref` loads, stores, atomics, dims, allocas and globals → `llvm` ops.

Mirrors MLIR's `finalize-memref-to-llvm`, with a smaller descriptor: warpforge's memrefs are
row-major and contiguous (identity layout, no offset), so a memref value is

    !llvm.struct<(ptr<AS>, i64, ...)>   — the pointer, then one i64 per *dynamic* dimension

(`memref<?x64xf32, 1 : i32>` → `!llvm.struct<(ptr<1>, i64)>`, `memref<8xi64, 1 : i32>` →
`!llvm.struct<(ptr<1>)>`); static dimensions are constants. The address space is the memref's
integer memory space (1 global, 3 shared, none/0 generic or local). At a function boundary
`convert-func-to-llvm` passes the struct's fields as separate parameters (the kernel ABI of
DESIGN.md) and rebuilds the struct; this pass reads it through
`builtin.unrealized_conversion_cast` (memref → struct) and `llvm.extractvalue`, and
`reconcile-unrealized-casts` folds the casts away.

| op | becomes |
|---|---|
| `memref.load` / `memref.store` | index linearized row-major in i64, `llvm.getelementptr inbounds` on the element type, `llvm.load` / `llvm.store` with the element's natural alignment |
| `memref.load` / `memref.store` of `i1` | the same on `i8` (a bool is one byte, as in NumPy): `llvm.load i8` + `llvm.icmp ne 0`; `llvm.zext` to i8 + `llvm.store` (0 or 1) |
| `memref.dim` (constant index) | the static size (`arith.constant`) or the descriptor's field |
| `memref.atomic_rmw` | `llvm.atomicrmw <op> … syncscope("device") monotonic`, returning the old value |
| `memref.alloca` (static shape, address space 0) | `llvm.alloca` of the element count, hoisted to the function's entry block |
| `memref.view` | `llvm.getelementptr` on i8 by the byte shift, a new descriptor with the given sizes |
| `memref.extract_aligned_pointer_as_index` | the pointer, `llvm.ptrtoint` to i64, `arith.index_cast` to index |
| `memref.global` / `memref.get_global` | `llvm.mlir.global internal` of `!llvm.array<N x T>` in the memref's address space / `llvm.mlir.addressof` |

Atomics (`memref.atomic_rmw`, kinds from `warpforge.dialects.arith.AtomicRMWKind`): addf→fadd, addi→add, andi→and,
assign→xchg, maximumf→fmaximum, maxnumf→fmax, maxs→max, maxu→umax, minimumf→fminimum,
minnumf→fmin, mins→min, minu→umin, ori→or, xori→xor; mulf/muli have no atomic instruction and are
rejected. The ordering is `monotonic` (PTX `.relaxed`) unless the op carries a discardable attribute
`ordering = "relaxed" | "acquire" | "release" | "acq_rel" | "seq_cst"`; the scope is the GPU
(`syncscope("device")`, PTX `.gpu`; PTX ISA, memory consistency model, "Scope") unless it carries
`syncscope = "block" | "cluster" | "device" | "system"` (`"system"`: no syncscope, PTX `.sys`).
Device scope is the default because a kernel's atomics coordinate its own threads, and a
narrower scope is only correct when the frontend proves every participant is in one block.
LLVM 22's NVPTX backend prints every native `atomicrmw` as a relaxed `.gpu` `atom`, whatever its
ordering and scope, so an ordered or system-scoped atomic that PTX has natively is refused here
(`needs_ptx_atom`): `convert-gpu-to-nvvm` must have made it `nvvm.atomicrmw` (inline PTX). Relaxed
ones of block/cluster/device scope stay (`.gpu` is at least as strong), as do those without a native
`atom` (float min/max): LLVM's compare-and-swap loop keeps ordering and scope in its `cmpxchg`.
`fmaximum`/`fminimum` propagate NaN (IEEE 754-2019 maximum/minimum, like `arith.maximumf`) and
`fmax`/`fmin` ignore it (`maxnum`/`minnum`); PTX has no float `atom.max/min` on sm_90, so LLVM's
AtomicExpand turns all four into a compare-and-swap loop (`atom.cas.b32/b64`).

`memref.view %bytes[%shift][%sizes] : memref<?xi8, AS> to memref<...xT, AS>` (how MLIR types
`gpu.dynamic_shared_memory`) is a GEP of `%shift` bytes and a new descriptor with `%sizes`.

Shared memory: `memref.global` in address space 3 gets internal linkage, no initializer (shared
memory cannot be initialized; an initializer there is an error) and alignment ≥ 16 bytes (what
`cp.async`, `ldmatrix` and vector accesses need). Other address spaces keep a dense initializer.

Not lowered (a diagnostic naming the op): other `memref` ops (`subview`, `cast`, `alloc`, `copy`,
…), non-identity layouts, non-integer memory spaces, dynamic `memref.alloca`, `memref.dim` with a
non-constant index.
"""

from __future__ import annotations

import functools

from dataclasses import dataclass, field
from math import prod

from xdsl.context import Context
from xdsl.dialects import arith, func, llvm, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    BFloat16Type,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StridedLayoutAttr,
    StringAttr,
    TensorType,
    UnrealizedConversionCastOp,
    VectorType,
    i1,
    i8,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from warpforge.dialects import gpu
from warpforge.dialects.element_types import byte_size
from warpforge.dialects.arith import AtomicRMWKind
from warpforge.dialects.nvvm_catalog import ATOM_OPS
from warpforge.dialects.llvm import AtomicRMWOp
from warpforge.rewriting import OneSweepWalker, enclosing_op, fail, i64, integer_attr, ops_of_dialect
from warpforge.rewriting import inherit_location, replace_op
from warpforge.rewriting import TypedPatternApplier

SHARED = 3
"""NVPTX address space of shared memory (`.shared`)."""

SHARED_ALIGNMENT = 16
"""Minimum alignment of a shared-memory global, in bytes."""

SYNC_SCOPES: dict[str, str | None] = {"block": "block", "cluster": "cluster", "device": "device", "system": None}
"""Values of a `syncscope` attribute on `memref.atomic_rmw` → LLVM NVPTX sync scope (None: system)."""

ORDERINGS: dict[str, str] = {
    "relaxed": "monotonic",
    "acquire": "acquire",
    "release": "release",
    "acq_rel": "acq_rel",
    "seq_cst": "seq_cst",
}
"""Values of an `ordering` attribute on an atomic → LLVM's atomic ordering (PTX `.relaxed`, `.acquire`, …)."""


def atomic_ordering(op: Operation) -> str:
    """The LLVM ordering an atomic op asks for with its discardable `ordering` attribute (default relaxed)."""
    attr = op.attributes.get("ordering")
    name = attr.data if isinstance(attr, StringAttr) else "relaxed"
    if name not in ORDERINGS:
        fail(op, f"has ordering '{name}'; expected one of {', '.join(ORDERINGS)}")
    return ORDERINGS[name]


def atomic_syncscope(op: Operation) -> str | None:
    """The LLVM sync scope an atomic op asks for with its discardable `syncscope` attribute (default device)."""
    scope_attr = op.attributes.get("syncscope")
    scope_name = scope_attr.data if isinstance(scope_attr, StringAttr) else DEFAULT_SYNC_SCOPE
    if scope_name not in SYNC_SCOPES:
        fail(op, f"has syncscope '{scope_name}'; expected one of {', '.join(SYNC_SCOPES)}")
    return SYNC_SCOPES[scope_name]

DEFAULT_SYNC_SCOPE = "device"


PTX_SCOPES: dict[str, str] = {"block": "cta", "cluster": "cluster", "device": "gpu", "system": "sys"}
"""Values of a `syncscope` attribute → the PTX scope (`nvvm.atomicrmw`'s `scope`)."""


def atomic_names(op: Operation) -> tuple[str, str]:
    """An atomic's (`syncscope`, `ordering`) attribute values as written (defaults: device, relaxed)."""
    scope_attr, order_attr = op.attributes.get("syncscope"), op.attributes.get("ordering")
    scope = scope_attr.data if isinstance(scope_attr, StringAttr) else DEFAULT_SYNC_SCOPE
    ordering = order_attr.data if isinstance(order_attr, StringAttr) else "relaxed"
    return scope, ordering


def needs_ptx_atom(op: memref.AtomicRMWOp) -> bool:
    """True when `llvm.atomicrmw` would weaken `op`: LLVM 22's NVPTX backend prints every native
    `atomicrmw` as a relaxed `.gpu` `atom` whatever its ordering and scope, which is right only for
    relaxed atomics of scope block, cluster or device (`.gpu` is at least as strong). Ops without a
    native `atom` (float min/max, …) become compare-and-swap loops, whose `cmpxchg` LLVM prints with
    the ordering and scope, so they are never weakened. `convert-gpu-to-nvvm` turns the others into
    `nvvm.atomicrmw` (inline PTX)."""
    scope, ordering = atomic_names(op)
    if ordering == "relaxed" and scope != "system":
        return False
    try:
        bin_op = AtomicRMWKind.of(op).llvm_op
    except ValueError:
        return False
    return (bin_op, str(op.value.type)) in ATOM_OPS


# --------------------------------------------------------------------------- types


def memory_space(typ: MemRefType, op: Operation) -> int:
    """The NVPTX address space of a memref type (its integer memory space; none means 0)."""
    space = typ.memory_space
    if isinstance(space, NoneAttr):
        return 0
    if isinstance(space, IntegerAttr):
        return space.value.data
    fail(op, f"uses memory space {space}; only integer address spaces are supported (1 global, 3 shared, 0 generic)")


def _check_layout(typ: MemRefType, op: Operation) -> None:
    layout = typ.layout
    if isinstance(layout, NoneAttr):
        return
    if isinstance(layout, AffineMapAttr) and layout.data == layout.data.identity(typ.get_num_dims()):
        return
    if isinstance(layout, StridedLayoutAttr):
        shape = typ.get_shape()
        expected = [prod(shape[k + 1 :]) for k in range(len(shape))]
        strides = [s.data if isinstance(s, IntAttr) else None for s in layout.strides.data]
        offset = layout.offset.data if isinstance(layout.offset, IntAttr) else None
        if DYNAMIC_INDEX not in shape[1:] and strides == expected and offset == 0:
            return
    fail(op, f"uses {typ}: only row-major contiguous memrefs (identity layout) are supported")


def element_type(typ: MemRefType) -> Attribute:
    """The element type as LLVM sees it in memory: `index` is i64, `i1` is i8 (a bool is one byte, as
    in NumPy and C++; see `load_value` / `store_value`)."""
    elem = typ.element_type
    if elem == i1:
        return i8
    return i64 if isinstance(elem, IndexType) else elem


def is_bool_memory(typ: Attribute) -> bool:
    """True for `i1` and vectors of `i1`: stored as bytes, so loads and stores convert."""
    return typ == i1 or (isinstance(typ, VectorType) and typ.element_type == i1)


def memory_type(typ: Attribute) -> Attribute:
    """The in-memory form of a loaded or stored value type: `i1` → `i8`, `vector<Nxi1>` → `vector<Nxi8>`."""
    if typ == i1:
        return i8
    if isinstance(typ, VectorType) and typ.element_type == i1:
        return VectorType(i8, typ.get_shape())
    return typ


def load_value(address: SSAValue, typ: Attribute, alignment: int) -> list[Operation]:
    """`llvm.load` of a `typ` value; the last op's result is the value. A bool (or vector of bools) is
    loaded as its byte(s) and compared `!= 0`: any nonzero byte is True, as NumPy reads it (`load i1`
    of a byte other than 0/1 is undefined in LLVM; on the GPU 0x02 read as False)."""
    if not is_bool_memory(typ):
        return [llvm.LoadOp(address, typ, alignment=alignment)]
    mem = memory_type(typ)
    load = llvm.LoadOp(address, mem, alignment=alignment)
    zero = llvm.ConstantOp(DenseIntOrFPElementsAttr.from_list(mem, [0] * prod(mem.get_shape())) if isinstance(mem, VectorType) else IntegerAttr(0, i8), mem)  # pyright: ignore[reportArgumentType]
    ne = llvm.ICmpOp(load.dereferenced_value, zero.result, IntegerAttr(1, i64))  # 1: ne
    return [load, zero, ne]


def store_value(value: SSAValue, address: SSAValue, alignment: int) -> list[Operation]:
    """`llvm.store` of `value`; a bool (or vector of bools) is stored as byte(s) 0 or 1 (`llvm.zext`)."""
    if not is_bool_memory(value.type):
        return [llvm.StoreOp(value, address, alignment=alignment)]
    ext = llvm.ZExtOp(value, memory_type(value.type))
    return [ext, llvm.StoreOp(ext.res, address, alignment=alignment)]


@functools.lru_cache(maxsize=64)
def pointer_type(space: int) -> llvm.LLVMPointerType:
    """`!llvm.ptr` for address space 0, `!llvm.ptr<N>` otherwise (one object per space: types are
    immutable)."""
    return llvm.LLVMPointerType() if space == 0 else llvm.LLVMPointerType(IntAttr(space))


_DESCRIPTOR_TYPES: dict[MemRefType, llvm.LLVMStructType] = {}
"""Memref types whose layout and memory space passed the checks → their descriptor type (a module
has a few memref types and thousands of accesses)."""


def descriptor_type(typ: MemRefType, op: Operation) -> llvm.LLVMStructType:
    """`!llvm.struct<(ptr<AS>, i64 per dynamic dimension)>` — warpforge's memref descriptor. Raises
    `LoweringError` at `op` for a layout or memory space it cannot lower."""
    found = _DESCRIPTOR_TYPES.get(typ)
    if found is not None:
        return found
    _check_layout(typ, op)
    dynamic = sum(1 for d in typ.get_shape() if d == DYNAMIC_INDEX)
    found = llvm.LLVMStructType.from_type_list([pointer_type(memory_space(typ, op)), *([i64] * dynamic)])
    if len(_DESCRIPTOR_TYPES) < 4096:
        _DESCRIPTOR_TYPES[typ] = found
    return found


@functools.lru_cache(maxsize=64)
def _position(index: int) -> DenseArrayBase:
    """The `llvm.extractvalue` position `[index]` (one object per index)."""
    return DenseArrayBase.from_list(i64, [index])


def descriptor_fields(typ: MemRefType, op: Operation) -> list[Attribute]:
    """The scalar values a memref passes as at a function boundary: the pointer, then dynamic sizes."""
    return list(descriptor_type(typ, op).types.data)


def natural_alignment(typ: Attribute) -> int:
    """ABI alignment in bytes of a value of `typ` in memory (its size rounded up to a power of two)."""
    if isinstance(typ, VectorType):
        size = natural_alignment(typ.element_type) * prod(typ.get_shape())
    elif isinstance(typ, IntegerType | BFloat16Type | Float16Type | Float32Type | Float64Type):
        size = byte_size(typ)
    else:
        size = 8  # pointers
    return 1 << (size - 1).bit_length()


# --------------------------------------------------------------------------- descriptors


@dataclass
class Descriptor:
    """Read access to one memref value's descriptor; `ops` collects what the reads need."""

    memref_value: SSAValue
    op: Operation
    ops: list[Operation] = field(default_factory=list[Operation])
    _struct: SSAValue | None = None

    @property
    def type(self) -> MemRefType:
        typ = self.memref_value.type
        assert isinstance(typ, MemRefType)
        return typ

    def struct(self) -> SSAValue:
        if self._struct is None:
            cast = UnrealizedConversionCastOp.get([self.memref_value], [descriptor_type(self.type, self.op)])
            self.ops.append(cast)
            self._struct = cast.results[0]
        return self._struct

    def pointer(self) -> SSAValue:
        typ = pointer_type(memory_space(self.type, self.op))
        extract = llvm.ExtractValueOp(_position(0), self.struct(), typ)
        self.ops.append(extract)
        return extract.results[0]

    def size(self, dim: int) -> SSAValue:
        """Dimension `dim`'s extent as an i64 value."""
        shape = self.type.get_shape()
        if shape[dim] != DYNAMIC_INDEX:
            const = llvm.ConstantOp(integer_attr(shape[dim], i64), i64)
            self.ops.append(const)
            return const.result
        field_index = 1 + sum(1 for d in shape[:dim] if d == DYNAMIC_INDEX)
        extract = llvm.ExtractValueOp(_position(field_index), self.struct(), i64)
        self.ops.append(extract)
        return extract.results[0]

    def element_pointer(self, indices: list[SSAValue]) -> SSAValue:
        """`getelementptr inbounds` to the element at `indices` (row-major)."""
        base = self.pointer()
        if not indices:
            return base
        linear: SSAValue | None = None
        for dim, index in enumerate(indices):
            cast = arith.IndexCastOp(index, i64)
            self.ops.append(cast)
            if linear is None:
                linear = cast.result
                continue
            scaled = llvm.MulOp(linear, self.size(dim))
            summed = llvm.AddOp(scaled.results[0], cast.result)
            self.ops += [scaled, summed]
            linear = summed.results[0]
        assert linear is not None
        gep = llvm.GEPOp.from_mixed_indices(
            base, [linear], element_type(self.type), result_type=pointer_type(memory_space(self.type, self.op)), inbounds=True
        )
        self.ops.append(gep)
        return gep.result


def build_descriptor(typ: MemRefType, op: Operation, pointer: SSAValue, sizes: list[SSAValue]) -> tuple[list[Operation], SSAValue]:
    """Ops assembling a descriptor from its fields and casting it to `typ`; returns (ops, memref value)."""
    struct_type = descriptor_type(typ, op)
    ops: list[Operation] = [llvm.UndefOp(struct_type)]
    struct = ops[-1].results[0]
    for position, value in enumerate([pointer, *sizes]):
        insert = llvm.InsertValueOp(DenseArrayBase.from_list(i64, [position]), struct, value)
        ops.append(insert)
        struct = insert.res
    cast = UnrealizedConversionCastOp.get([struct], [typ])
    ops.append(cast)
    return ops, cast.results[0]


def _memref_type(op: Operation, value: SSAValue) -> MemRefType:
    typ = value.type
    if not isinstance(typ, MemRefType):
        fail(op, f"needs a ranked memref, got {typ}")
    return typ


# --------------------------------------------------------------------------- patterns


@dataclass
class ConvertLoadOp(RewritePattern):
    """`memref.load %m[%i, %j]` → GEP + `llvm.load` (index elements come back through `arith.index_cast`)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.LoadOp, rewriter: PatternRewriter, /):
        typ = _memref_type(op, op.memref)
        desc = Descriptor(op.memref, op)
        address = desc.element_pointer(list(op.indices))
        elem = element_type(typ)
        new_ops = [*desc.ops, *load_value(address, typ.element_type if typ.element_type == i1 else elem, natural_alignment(elem))]
        if isinstance(typ.element_type, IndexType):
            new_ops.append(arith.IndexCastOp(new_ops[-1].results[0], IndexType()))
        replace_op(rewriter, op, new_ops, [new_ops[-1].results[0]])


@dataclass
class ConvertStoreOp(RewritePattern):
    """`memref.store %v, %m[%i]` → GEP + `llvm.store`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.StoreOp, rewriter: PatternRewriter, /):
        typ = _memref_type(op, op.memref)
        desc = Descriptor(op.memref, op)
        address = desc.element_pointer(list(op.indices))
        value: SSAValue = op.value
        pre: list[Operation] = []
        if isinstance(typ.element_type, IndexType):
            pre.append(arith.IndexCastOp(value, i64))
            value = pre[-1].results[0]
        elem = element_type(typ)
        replace_op(rewriter, op, [*pre, *desc.ops, *store_value(value, address, natural_alignment(elem))], [])


@dataclass
class ConvertDimOp(RewritePattern):
    """`memref.dim %m, %c` (constant `%c`) → the static extent, or the descriptor's i64 field as `index`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.DimOp, rewriter: PatternRewriter, /):
        typ = _memref_type(op, op.source)
        index_op = op.index.owner
        if not (isinstance(index_op, arith.ConstantOp) and isinstance(index_op.value, IntegerAttr)):
            fail(op, "needs a constant dimension index")
        dim = index_op.value.value.data
        shape = typ.get_shape()
        if not 0 <= dim < len(shape):
            fail(op, f"asks for dimension {dim} of a rank-{len(shape)} memref")
        if shape[dim] != DYNAMIC_INDEX:
            replace_op(rewriter, op, arith.ConstantOp(IntegerAttr(shape[dim], IndexType())))
            return
        desc = Descriptor(op.source, op)
        size = desc.size(dim)
        cast = arith.IndexCastOp(size, IndexType())
        replace_op(rewriter, op, [*desc.ops, cast])


@dataclass
class ConvertAtomicRMWOp(RewritePattern):
    """`memref.atomic_rmw` → GEP + `llvm.atomicrmw <op> … syncscope("device") monotonic`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.AtomicRMWOp, rewriter: PatternRewriter, /):
        try:
            kind = AtomicRMWKind.of(op)
        except ValueError:
            fail(op, f"has an unknown atomic kind {op.kind.value.data}")
        bin_op = kind.llvm_op
        if bin_op is None:
            fail(op, f"kind '{kind.name}' has no atomic instruction (use a compare-and-swap loop)")
        if kind != AtomicRMWKind.assign and kind.is_float != (not isinstance(op.value.type, IntegerType)):
            fail(op, f"kind '{kind.name}' does not apply to {op.value.type}")
        scope, ordering = atomic_syncscope(op), atomic_ordering(op)
        if needs_ptx_atom(op):
            fail(op, "would lose its ordering or scope as llvm.atomicrmw (NVPTX prints a relaxed .gpu atom): "
                     "run convert-gpu-to-nvvm first, which makes it nvvm.atomicrmw")
        desc = Descriptor(op.memref, op)
        address = desc.element_pointer(list(op.indices))
        rmw = AtomicRMWOp(address, op.value, bin_op, ordering, scope)
        replace_op(rewriter, op, [*desc.ops, rmw])


def _entry_block(op: Operation) -> Block | None:
    parent = enclosing_op(op, lambda p: isinstance(p, func.FuncOp | llvm.FuncOp | gpu.FuncOp))
    return parent.body.blocks.first if parent is not None else None  # pyright: ignore[reportAttributeAccessIssue]


@dataclass
class ConvertAllocaOp(RewritePattern):
    """`memref.alloca() : memref<NxT>` → `llvm.alloca N x T` in the entry block (static shape, address space 0)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.AllocaOp, rewriter: PatternRewriter, /):
        typ = op.memref.type
        if op.dynamic_sizes or DYNAMIC_INDEX in typ.get_shape():
            fail(op, "needs a static shape on the GPU (a local array has a fixed size)")
        if memory_space(typ, op) != 0:
            fail(op, f"allocates in address space {memory_space(typ, op)}; memref.alloca is local memory (0)")
        elem = element_type(typ)
        alignment = op.alignment.value.data if op.alignment is not None else natural_alignment(elem)
        count = llvm.ConstantOp(IntegerAttr(prod(typ.get_shape()), i64), i64)
        alloca = llvm.AllocaOp(count, elem, alignment=alignment)
        inherit_location([count, alloca], op)
        entry = _entry_block(op)
        if entry is not None and op.parent_block() is not entry:
            # static allocas belong in the entry block, where LLVM promotes them to registers
            rewriter.insert([count, alloca], InsertPoint.at_start(entry))
            new_ops, value = build_descriptor(typ, op, alloca.res, [])
        else:
            new_ops, value = build_descriptor(typ, op, alloca.res, [])
            new_ops = [count, alloca, *new_ops]
        replace_op(rewriter, op, new_ops, [value])


@dataclass
class ConvertGlobalOp(RewritePattern):
    """`memref.global` → `llvm.mlir.global internal` of `!llvm.array<N x T>` in the memref's address space."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.GlobalOp, rewriter: PatternRewriter, /):
        typ = op.type
        _check_layout(typ, op)
        shape = typ.get_shape()
        if DYNAMIC_INDEX in shape:
            fail(op, "needs a static shape")
        space = memory_space(typ, op)
        elem = element_type(typ)
        global_type: Attribute = llvm.LLVMArrayType(prod(shape), elem) if shape else elem
        value: Attribute | None = None
        if isinstance(op.initial_value, DenseIntOrFPElementsAttr):
            if space == SHARED:
                fail(op, "initializes shared memory, which cannot hold an initial value")
            value = op.initial_value
            if typ.element_type == i1:  # bools are bytes in memory
                init = op.initial_value
                value = DenseIntOrFPElementsAttr.from_list(TensorType(i8, init.get_shape()), [int(bool(v)) for v in init.get_values()])
        alignment = op.alignment.value.data if op.alignment is not None else natural_alignment(elem)
        if space == SHARED:
            alignment = max(alignment, SHARED_ALIGNMENT)
        new = llvm.GlobalOp(
            global_type,
            op.sym_name,
            "internal",
            addr_space=space,
            constant=op.constant is not None,
            value=value,
            alignment=alignment,
        )
        replace_op(rewriter, op, new)


@dataclass
class ConvertViewOp(RewritePattern):
    """`memref.view %src[%shift][%sizes]` → a GEP of `%shift` bytes from `%src`'s pointer and a new
    descriptor (the result's dynamic sizes are `%sizes`)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.ViewOp, rewriter: PatternRewriter, /):
        src_type, typ = _memref_type(op, op.source), _memref_type(op, op.result)
        space = memory_space(src_type, op)
        if memory_space(typ, op) != space:
            fail(op, "changes the memory space; memref.view keeps it")
        desc = Descriptor(op.source, op)
        base = desc.pointer()
        shift = arith.IndexCastOp(op.byte_shift, i64)
        gep = llvm.GEPOp.from_mixed_indices(base, [shift.result], IntegerType(8), result_type=pointer_type(space), inbounds=True)
        sizes: list[Operation] = [arith.IndexCastOp(size, i64) for size in op.sizes]
        new_ops, value = build_descriptor(typ, op, gep.result, [s.results[0] for s in sizes])
        replace_op(rewriter, op, [*desc.ops, shift, gep, *sizes, *new_ops], [value])


@dataclass
class ConvertExtractAlignedPointerAsIndexOp(RewritePattern):
    """`memref.extract_aligned_pointer_as_index %m` → the descriptor's pointer, `llvm.ptrtoint` to i64, as
    `index` (for a shared memref: the address in the shared window, what a wgmma matrix descriptor encodes)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.ExtractAlignedPointerAsIndexOp, rewriter: PatternRewriter, /):
        _memref_type(op, op.source)
        desc = Descriptor(op.source, op)
        as_int = llvm.PtrToIntOp(desc.pointer(), i64)
        cast = arith.IndexCastOp(as_int.results[0], IndexType())
        replace_op(rewriter, op, [*desc.ops, as_int, cast])


@dataclass
class ConvertGetGlobalOp(RewritePattern):
    """`memref.get_global @g` → `llvm.mlir.addressof @g` wrapped in a descriptor."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.GetGlobalOp, rewriter: PatternRewriter, /):
        typ = op.memref.type
        address = llvm.AddressOfOp(op.name_, pointer_type(memory_space(typ, op)))
        new_ops, value = build_descriptor(typ, op, address.result, [])
        replace_op(rewriter, op, [address, *new_ops], [value])


class FinalizeMemRefToLLVMPass(ModulePass):
    """Lower memref loads, stores, atomics, dims, allocas and globals to llvm ops on a (ptr, sizes) descriptor."""

    name = "finalize-memref-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        OneSweepWalker(
            TypedPatternApplier(
                [
                    ConvertLoadOp(),
                    ConvertStoreOp(),
                    ConvertDimOp(),
                    ConvertAtomicRMWOp(),
                    ConvertAllocaOp(),
                    ConvertGlobalOp(),
                    ConvertGetGlobalOp(),
                    ConvertViewOp(),
                    ConvertExtractAlignedPointerAsIndexOp(),
                ]
            )
        ).rewrite_module(op)
        for inner in ops_of_dialect(op, "memref"):
            fail(
                inner,
                "has no lowering to the llvm dialect (supported: load, store, dim, atomic_rmw, alloca, global, get_global, view, extract_aligned_pointer_as_index)",
            )
