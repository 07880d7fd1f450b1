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

from warpforge.backend.export import export_llvm_ir
from warpforge.backend.nvptx import NVPTXOptions, compile_ptx
from warpforge.backend.toolkit import find_ptxas, run_ptxas
from warpforge.dialects import gpu, nvvm
from warpforge.dialects.nvvm_catalog import CATALOG, IntrinsicSpec
from warpforge.rewriting import LoweringError
from warpforge.pipelines import run_pipeline

_TYPES: dict[str, Attribute] = {"i1": i1, "i32": i32, "i64": i64, "f32": f32, "f64": f64}

CHIP, FEATURES = "sm_90", "+ptx80"
"""A target every catalog row supports (the H200's)."""

FOLDED = {"nvvm.read.ptx.sreg.warpsize"}
"""Rows LLVM folds to a constant (WARP_SZ is 32), so their instruction never reaches the PTX."""


def _global(elem: Attribute) -> MemRefType:
    return MemRefType(elem, [-1], memory_space=IntegerAttr(1, i32))


def _kernel_module(spec: IntrinsicSpec, chip: str = CHIP, features: str = FEATURES) -> builtin.ModuleOp:
    """`gpu.module` with one kernel: operands loaded from global memory, results stored back."""
    ins = [_global(_TYPES[t] if t != "i1" else i32) for t in spec.operands]
    outs = [_global(_TYPES[t] if t != "i1" else i32) for t in spec.results]
    block = Block(arg_types=[*ins, *outs])
    ops: list[Operation] = []
    zero = arith.ConstantOp(IntegerAttr(0, builtin.IndexType()))
    ops.append(zero)
    operands: list[SSAValue] = []
    for arg, typ_name in zip(block.args[: len(ins)], spec.operands):
        load = memref.LoadOp.get(arg, [zero.result])
        ops.append(load)
        value: SSAValue = load.res
        if typ_name == "i1":  # predicates travel as i32 in memory
            one = arith.ConstantOp(IntegerAttr(1, i32))
            cmp = arith.CmpiOp(load.res, one, "eq")
            ops += [one, cmp]
            value = cmp.result
        operands.append(value)
    op = nvvm.op(spec.op)(*operands)
    ops.append(op)
    for result, out, typ_name in zip(op.results, block.args[len(ins) :], spec.results):
        value = result
        if typ_name == "i1":
            ext = arith.ExtUIOp(result, i32)
            ops.append(ext)
            value = ext.result
        ops.append(memref.StoreOp.get(value, out, [zero.result]))
    ops.append(gpu.ReturnOp())
    block.add_ops(ops)
    kernel = gpu.FuncOp(
        "k", builtin.FunctionType.from_lists([*ins, *outs], []), Region(block), kernel=True, known_block_size=(64, 1, 1)
    )
    target = nvvm.NVVMTargetAttr(chip, features)
    return builtin.ModuleOp([gpu.ModuleOp("m", [kernel], [target])])


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_catalog_row_compiles(name: str) -> None:
    spec = CATALOG[name]
    module = _kernel_module(spec)
    run_pipeline(module, "gpu-to-llvm")
    assert not any(o.dialect_name() in ("nvvm", "gpu", "memref", "arith", "func") for o in module.walk() if not isinstance(o, builtin.ModuleOp | gpu.ModuleOp))
    calls = [o for o in module.walk() if isinstance(o, llvm.CallIntrinsicOp)]
    assert spec.intrinsic in {c.intrin.data for c in calls}
    llvm_ir = str(export_llvm_ir(module))
    ptx = compile_ptx(llvm_ir, NVPTXOptions(chip=CHIP, features=FEATURES))
    assert ".extern .func" not in ptx, f"{spec.intrinsic} became an external call:\n{ptx}"
    assert ".visible .entry k(" in ptx
    if name not in FOLDED:
        mnemonic = spec.ptx.split()[0]
        assert mnemonic in ptx, f"expected `{mnemonic}` (catalog `ptx`) in the PTX of {name}:\n{ptx}"
    if find_ptxas() is not None:
        run_ptxas(ptx, CHIP, verbose=False)


REAL_SMS = (20, 30, 35, 50, 52, 60, 61, 70, 75, 80, 86, 89, 90)
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


@pytest.mark.parametrize("name", sorted(n for n, s in CATALOG.items() if s.min_ptx > PTX_VERSIONS[0]))
def test_check_target_rejects_older_ptx(name: str) -> None:
    """The row's chip with a PTX ISA version below its minimum is refused too."""
    spec = CATALOG[name]
    ptx = max(v for v in PTX_VERSIONS if v < spec.min_ptx)
    module = _kernel_module(spec, chip=spec.sm, features=f"+ptx{ptx}")
    with pytest.raises(LoweringError, match=rf"targets {spec.sm} \(PTX {ptx // 10}\.{ptx % 10}\)"):
        run_pipeline(module, "gpu-to-llvm")


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_check_target_accepts_exact_minimum(name: str) -> None:
    spec = CATALOG[name]
    module = _kernel_module(spec, chip=spec.sm, features=f"+ptx{spec.min_ptx}")
    run_pipeline(module, "convert-gpu-to-nvvm,check-nvvm-target")


def test_ops_lit_test_covers_every_row() -> None:
    """`filecheck/dialects/nvvm/ops.mlir` round-trips every catalog op (regenerate it when a row is added)."""
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "filecheck" / "dialects" / "nvvm" / "ops.mlir").read_text()
    missing = [name for name in CATALOG if f"{name} " not in text and f"{name}\n" not in text]
    assert not missing, f"filecheck/dialects/nvvm/ops.mlir lacks {missing}"
