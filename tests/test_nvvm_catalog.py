"""Every `nvvm` catalog row, compiled: a one-op kernel per row goes through `gpu-to-llvm`, the LLVM IR
exporter and LLVM's NVPTX backend, and the PTX must call no undefined function (a misspelled
intrinsic becomes a silent `.extern .func llvm.…` call) and must assemble with ptxas.

Also: `check-nvvm-target` refuses a row above the module's chip/PTX version, before LLVM can abort
the process on it.
"""

from __future__ import annotations

import pytest
from xdsl.dialects import arith, builtin, llvm, memref
from xdsl.dialects.builtin import IntegerAttr, MemRefType, f32, f64, i1, i32, i64
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from warpforge.backend.chips import CHIPS, MIN_SM
from warpforge.backend.export import export_llvm_ir
from warpforge.backend.nvptx import NVPTXOptions, compile_ptx
from warpforge.backend.toolkit import find_ptxas, run_ptxas
from warpforge.dialects import gpu, nvvm
from warpforge.dialects.nvvm_catalog import CATALOG, IntrinsicSpec
from warpforge.rewriting import LoweringError
from warpforge.pipelines import run_pipeline

_TYPES: dict[str, Attribute] = {"i1": i1, "i32": i32, "i64": i64, "f32": f32, "f64": f64, "f16": builtin.f16}

_IN_MEMORY: dict[str, str] = {"i1": "i32", "v2f16": "i32", "ptr1": "i32", "ptr3": "i32", "ptr": "i32"}
"""How a kernel gets an operand of each catalog type: predicates and `vector<2xf16>` travel as i32 in
memory (bitcast), pointers are made from a global argument or a shared-memory global."""

CHIP, FEATURES = "sm_90", "+ptx80"
"""A target every catalog row supports (the H200's)."""

FOLDED = {"nvvm.read.ptx.sreg.warpsize"}
"""Rows LLVM folds to a constant (WARP_SZ is 32), so their instruction never reaches the PTX."""


PROPERTY_VALUES = {"regs": 232}
"""Property values that are valid for their op (setmaxnreg's register count is 24–256, a multiple of 8)."""


def _chip(spec: IntrinsicSpec) -> str:
    """The H200's chip, in its arch-specific form (`sm_90a`) for the rows that need it (wgmma, setmaxnreg)."""
    return CHIP + "a" if spec.arch_specific else CHIP


def _global(elem: Attribute) -> MemRefType:
    return MemRefType(elem, [-1], memory_space=IntegerAttr(1, i32))


def _kernel_module(spec: IntrinsicSpec, chip: str = CHIP, features: str = FEATURES) -> builtin.ModuleOp:
    """`gpu.module` with one kernel: operands loaded from global memory, results stored back."""
    from warpforge.passes.finalize_memref_to_llvm import Descriptor

    ins = [_global(_TYPES[_IN_MEMORY.get(t, t)]) for t in spec.operands]
    outs = [_global(_TYPES[_IN_MEMORY.get(t, t)]) for t in spec.results]
    block = Block(arg_types=[*ins, *outs])
    ops: list[Operation] = []
    zero = arith.ConstantOp(IntegerAttr(0, builtin.IndexType()))
    ops.append(zero)
    globals_: list[Operation] = []
    operands: list[SSAValue] = []
    for arg, typ_name in zip(block.args[: len(ins)], spec.operands):
        if typ_name in ("ptr1", "ptr3", "ptr"):
            source: SSAValue = arg
            if typ_name == "ptr3":
                shared = MemRefType(i32, [256], memory_space=IntegerAttr(3, i32))
                globals_.append(memref.GlobalOp.get(builtin.StringAttr("smem"), shared, builtin.UnitAttr(), alignment=16))
                get = memref.GetGlobalOp("smem", shared)
                ops.append(get)
                source = get.memref
            desc = Descriptor(source, zero)
            operands.append(desc.pointer())
            ops += desc.ops
            if typ_name == "ptr":  # a generic pointer (a TMA descriptor's address)
                from warpforge.dialects.llvm import AddrSpaceCastOp

                generic = AddrSpaceCastOp(operands[-1], nvvm.catalog_type("ptr"))
                ops.append(generic)
                operands[-1] = generic.results[0]
            continue
        load = memref.LoadOp.get(arg, [zero.result])
        ops.append(load)
        value: SSAValue = load.res
        if typ_name == "i1":  # predicates travel as i32 in memory
            one = arith.ConstantOp(IntegerAttr(1, i32))
            cmp = arith.CmpiOp(load.res, one, "eq")
            ops += [one, cmp]
            value = cmp.result
        elif typ_name == "v2f16":
            cast = llvm.BitcastOp(load.res, nvvm.catalog_type("v2f16"))
            ops.append(cast)
            value = cast.results[0]
        operands.append(value)
    op = nvvm.op(spec.op)(*operands, **{name: PROPERTY_VALUES.get(name, 1) for name, _ in spec.properties})
    ops.append(op)
    for result, out, typ_name in zip(op.results, block.args[len(ins) :], spec.results):
        value = result
        if typ_name == "i1":
            ext = arith.ExtUIOp(result, i32)
            ops.append(ext)
            value = ext.result
        elif typ_name == "v2f16":
            cast = llvm.BitcastOp(result, i32)
            ops.append(cast)
            value = cast.results[0]
        ops.append(memref.StoreOp.get(value, out, [zero.result]))
    ops.append(gpu.ReturnOp())
    block.add_ops(ops)
    kernel = gpu.FuncOp(
        "k", builtin.FunctionType.from_lists([*ins, *outs], []), Region(block), kernel=True, known_block_size=(64, 1, 1)
    )
    target = nvvm.NVVMTargetAttr(chip, features)
    return builtin.ModuleOp([gpu.ModuleOp("m", [*globals_[:1], kernel], [target])])


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_catalog_row_compiles(name: str) -> None:
    spec = CATALOG[name]
    module = _kernel_module(spec, _chip(spec))
    run_pipeline(module, "gpu-to-llvm")
    assert not any(o.dialect_name() in ("nvvm", "gpu", "memref", "arith", "func") for o in module.walk() if not isinstance(o, builtin.ModuleOp | gpu.ModuleOp))
    calls = [o for o in module.walk() if isinstance(o, llvm.CallIntrinsicOp)]
    assert spec.intrinsic in {c.intrin.data for c in calls}
    llvm_ir = str(export_llvm_ir(module))
    ptx = compile_ptx(llvm_ir, NVPTXOptions(chip=_chip(spec), features=FEATURES))
    assert ".extern .func" not in ptx, f"{spec.intrinsic} became an external call:\n{ptx}"
    assert ".extern .func llvm." not in ptx
    assert ".visible .entry k(" in ptx
    if name not in FOLDED:
        mnemonic = spec.ptx.split()[0]
        assert mnemonic in ptx, f"expected `{mnemonic}` (catalog `ptx`) in the PTX of {name}:\n{ptx}"
    if find_ptxas() is not None:
        run_ptxas(ptx, _chip(spec), verbose=False)


REAL_SMS = (50, 52, 60, 61, 70, 75, 80, 86, 89, 90)  # warpforge compiles for sm_50 and newer (backend.chips.MIN_SM)
PTX_VERSIONS = (20, 31, 40, 50, 60, 62, 63, 70, 71, 78, 80)


@pytest.mark.parametrize("name", sorted(n for n, s in CATALOG.items() if s.min_sm > REAL_SMS[0]))
def test_check_target_rejects_older_chip(name: str) -> None:
    """One chip below the row's minimum (e.g. redux.sync on sm_75) stops the pipeline before LLVM sees it."""
    spec = CATALOG[name]
    chip = max(sm for sm in REAL_SMS if sm < spec.min_sm)
    module = _kernel_module(spec, chip=f"sm_{chip}", features=f"+ptx{spec.min_ptx}")
    message = rf"'{name}' op needs {spec.sm} and PTX {spec.ptx_version}, but gpu.module @m targets sm_{chip} \(PTX"
    with pytest.raises(LoweringError, match=message):
        run_pipeline(module, "gpu-to-llvm")


def _oldest_chip(spec: IntrinsicSpec) -> str:
    """The row's chip, or sm_50 (`backend.chips.MIN_SM`) for rows older than warpforge compiles for."""
    return spec.sm if spec.sm in CHIPS else f"sm_{MIN_SM}"


def _oldest_ptx(spec: IntrinsicSpec) -> int:
    return max(spec.min_ptx, CHIPS[_oldest_chip(spec)].min_ptx)


def _older_ptx(spec: IntrinsicSpec) -> list[int]:
    """PTX versions below the row's minimum that its oldest chip still accepts."""
    return [v for v in PTX_VERSIONS if CHIPS[_oldest_chip(spec)].min_ptx <= v < spec.min_ptx]


@pytest.mark.parametrize("name", sorted(n for n, s in CATALOG.items() if _older_ptx(s)))
def test_check_target_rejects_older_ptx(name: str) -> None:
    """The row's chip with a PTX ISA version below its minimum is refused too (a PTX version the chip
    itself accepts, so the catalog's check refuses it, not the chip table)."""
    spec = CATALOG[name]
    chip = _oldest_chip(spec)
    ptx = max(_older_ptx(spec))
    module = _kernel_module(spec, chip=chip, features=f"+ptx{ptx}")
    with pytest.raises(LoweringError, match=rf"targets {chip} \(PTX {ptx // 10}\.{ptx % 10}\)"):
        run_pipeline(module, "gpu-to-llvm")


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_check_target_accepts_exact_minimum(name: str) -> None:
    spec = CATALOG[name]
    module = _kernel_module(spec, chip=_oldest_chip(spec), features=f"+ptx{_oldest_ptx(spec)}")
    run_pipeline(module, "convert-gpu-to-nvvm,check-nvvm-target")


def test_ops_lit_test_covers_every_row() -> None:
    """`filecheck/dialects/nvvm/ops.mlir` round-trips every catalog op (regenerate it when a row is added)."""
    from pathlib import Path

    folder = Path(__file__).resolve().parent.parent / "filecheck" / "dialects" / "nvvm"
    # ops.mlir, and the round trips of later families (hopper-ops.mlir: mbarrier, TMA, wgmma, ...)
    text = "".join(f.read_text() for f in sorted(folder.glob("*ops.mlir")))
    missing = [name for name in CATALOG if f"{name} " not in text and f"{name}\n" not in text]
    assert not missing, f"filecheck/dialects/nvvm/ops.mlir lacks {missing}"
