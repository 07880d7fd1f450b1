"""The `sm_90a` target: arch-specific `nvvm` ops (catalog `arch_specific`: wgmma, setmaxnreg) are
refused on any other chip by `check-nvvm-target` (never an LLVM abort), and a module that uses them is
retargeted from `sm_90` (a cc 9.0 device) to `sm_90a` with PTX >= 8.0."""

from __future__ import annotations

import pytest

from warpforge.backend.export import export_llvm_ir
from warpforge.backend.nvptx import NVPTXOptions, compile_ptx
from warpforge.backend.targets import module_target
from warpforge.backend.toolkit import find_ptxas, run_ptxas
from warpforge.context import parse_module
from warpforge.dialects.nvvm import NVVMTargetAttr
from warpforge.dialects.nvvm_catalog import CATALOG
from warpforge.passes.check_nvvm_target import arch_specific_chip, needs_arch_specific, retarget_arch_specific
from warpforge.pipelines import run_pipeline
from warpforge.rewriting import LoweringError

_MODULE = """
gpu.module @m [#nvvm.target<chip = "{chip}", features = "{features}">] {{
  llvm.func @k(%out: !llvm.ptr<1>) attributes {{nvvm.kernel}} {{
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    {body}
    llvm.store %tid, %out : i32, !llvm.ptr<1>
    llvm.return
  }}
}}
"""


def _module(body: str, chip: str = "sm_90", features: str = "+ptx78"):
    return parse_module(_MODULE.format(chip=chip, features=features, body=body))


def test_arch_specific_rows_are_the_sm90a_instructions() -> None:
    arch = sorted(name for name, spec in CATALOG.items() if spec.arch_specific)
    assert arch == [
        "nvvm.setmaxnreg.dec", "nvvm.setmaxnreg.inc", "nvvm.wgmma.commit.group.sync.aligned",
        "nvvm.wgmma.fence.aligned", "nvvm.wgmma.wait.group.sync.aligned",
    ]  # fmt: skip
    assert all(CATALOG[n].sm == "sm_90a" and CATALOG[n].min_ptx == 80 for n in arch)


def test_sm90_module_with_setmaxnreg_is_retargeted_to_sm90a_and_assembles() -> None:
    module = _module("nvvm.setmaxnreg.inc 232")
    assert needs_arch_specific(module)
    assert retarget_arch_specific(module, "sm_90") == "sm_90a"
    chip, features = module_target(module) or ("", "")
    assert (chip, features) == ("sm_90a", "+ptx80")  # PTX raised to 8.0, the first with sm_90a
    run_pipeline(module, "check-nvvm-target,convert-nvvm-to-llvm,reconcile-unrealized-casts")
    ptx = compile_ptx(str(export_llvm_ir(module)), NVPTXOptions(chip=chip, features=features))
    assert ".target sm_90a" in ptx and "setmaxnreg.inc.sync.aligned.u32 \t232" in ptx
    assert ".extern .func llvm." not in ptx
    if find_ptxas() is not None:
        run_ptxas(ptx, "sm_90a", verbose=False)


def test_module_without_arch_ops_keeps_its_chip() -> None:
    module = _module("nvvm.fence.proxy.async.shared.cta", features="+ptx80")
    assert not needs_arch_specific(module)
    assert retarget_arch_specific(module, "sm_90") == "sm_90"
    assert module_target(module) == ("sm_90", "+ptx80")


@pytest.mark.parametrize("chip", ["sm_80", "sm_100a"])
def test_other_chips_are_not_retargeted_and_are_refused(chip: str) -> None:
    assert arch_specific_chip(chip, _module("nvvm.setmaxnreg.dec 40", chip=chip, features="+ptx86")) == chip
    module = _module("nvvm.setmaxnreg.dec 40", chip=chip, features="+ptx86")
    with pytest.raises(LoweringError, match=f"'nvvm.setmaxnreg.dec' op needs sm_90a and PTX 8.0, but gpu.module @m targets {chip}"):
        run_pipeline(module, "check-nvvm-target")


def test_plain_sm90_is_refused_before_llvm() -> None:
    # LLVM 22 aborts the process ("Cannot select") on wgmma.fence for sm_90: the target check must stop it
    module = _module("nvvm.wgmma.fence.aligned", features="+ptx80")
    with pytest.raises(LoweringError, match="needs sm_90a and PTX 8.0, but gpu.module @m targets sm_90"):
        run_pipeline(module, "check-nvvm-target")


def test_sm90a_target_attribute() -> None:
    t = NVVMTargetAttr("sm_90a", "")
    assert t.arch_specific and t.sm == 90 and t.ptx == 80
    assert not NVVMTargetAttr("sm_90", "").arch_specific
