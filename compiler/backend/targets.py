"""`warpforge-opt -t` outputs: `llvm` (LLVM IR text) and `ptx` (PTX text).

`-t llvm` shadows xDSL's host-triple `llvm` target: ours exports for `nvptx64-nvidia-cuda` with
warpforge's exporter (`warpforge.backend.export`). `-t 'ptx{chip=sm_90 features="+ptx80"}'` runs
LLVM's NVPTX backend; without options the chip and PTX version come from the `gpu.module`'s
`#nvvm.target`, else sm_90 / PTX 8.0. Chips and PTX versions are checked against the chip table
(`warpforge.backend.chips`) before LLVM runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.utils.target import Target

from warpforge.backend.export import ExportError, LLVMExporter, export_llvm_ir
from warpforge.backend.nvptx import CodegenError, NVPTXOptions, compile_ptx
from warpforge.errors import TargetError


def module_target(module: ModuleOp) -> tuple[str, str] | None:
    """(chip, features) of the first `gpu.module`'s `#nvvm.target`, if any."""
    found = _target_module(module)
    return (found.target.chip.data, found.target.features.data) if found is not None else None  # pyright: ignore


def _target_module(module: ModuleOp) -> Operation | None:
    """The first `gpu.module` with an `#nvvm.target` (the op a target error is reported at)."""
    from warpforge.dialects.gpu import ModuleOp as GpuModuleOp
    from warpforge.dialects.nvvm import NVVMTargetAttr

    for op in module.ops:
        if isinstance(op, GpuModuleOp) and isinstance(op.target, NVVMTargetAttr):
            return op
    return None


def resolve_options(module: ModuleOp, chip: str = "", features: str = "", opt: int = 3) -> NVPTXOptions:
    """Code generation options: explicit values first, then the module's `#nvvm.target`, then sm_90.

    An explicit `chip` without `features` takes that chip's default PTX version (not the module's,
    which may be too old for it). Raises `TargetError` (`warpforge.backend.chips`) for an unknown chip
    or an impossible chip/PTX pair, before LLVM runs."""
    if chip:
        return NVPTXOptions(chip=chip, features=features, opt_level=opt)
    module_chip, module_features = module_target(module) or ("sm_90", "")
    return NVPTXOptions(chip=module_chip, features=features or module_features, opt_level=opt)


@dataclass(frozen=True)
class LLVMIRTarget(Target):
    """LLVM IR text for `nvptx64-nvidia-cuda` (before optimization). `debug=false` drops `!dbg` locations."""

    name = "llvm"
    debug: bool = True

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        print(export_llvm_ir(module, debug_info=self.debug), file=output)


@dataclass(frozen=True)
class PTXTarget(Target):
    """PTX text from LLVM's NVPTX backend at `-O{opt}`; `chip`/`features` override the module's target."""

    name = "ptx"
    chip: str = ""
    features: str = ""
    opt: int = 3
    debug: bool = True

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        """Raises `ExportError` naming the op a failure is about: a chip/PTX pair the chip table
        refuses (at the `gpu.module` whose `#nvvm.target` gave it, checked before LLVM runs), an op
        with no translation, or IR LLVM rejects (at the op the offending LLVM line came from, else
        at the module)."""
        try:
            options = resolve_options(module, self.chip, self.features, self.opt)  # TargetError before LLVM
        except TargetError as e:
            raise ExportError(e.message, _target_module(module) or module) from None
        exporter = LLVMExporter(debug_info=self.debug)
        llvm_ir = str(export_llvm_ir(module, debug_info=self.debug, exporter=exporter))
        try:
            output.write(compile_ptx(llvm_ir, options))
        except CodegenError as e:
            raise ExportError(str(e), exporter.origin_of(llvm_ir, str(e)) or _target_module(module) or module) from None


TARGETS: dict[str, type[Target]] = {"llvm": LLVMIRTarget, "ptx": PTXTarget}
