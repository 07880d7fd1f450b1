"""warpforge's passes, one per file named after the pass (`convert_gpu_to_nvvm.py` ↔ `convert-gpu-to-nvvm`).

`PASSES` maps each pass name to a lazy factory returning the pass class, as xDSL's `Universe` does;
`get_all_passes()` adds them to xDSL's upstream passes (ours win on a name clash).
"""

from collections.abc import Callable
from importlib import import_module

from xdsl.passes import ModulePass

_OUR_PASSES: dict[str, tuple[str, str]] = {
    # pass name: (module under warpforge.passes, class name)
    "convert-gpu-to-nvvm": ("convert_gpu_to_nvvm", "ConvertGpuToNVVMPass"),
    "convert-nvgpu-to-nvvm": ("convert_nvgpu_to_nvvm", "ConvertNVGPUToNVVMPass"),
    "check-nvvm-target": ("check_nvvm_target", "CheckNVVMTargetPass"),
    "convert-nvvm-to-llvm": ("convert_nvvm_to_llvm", "ConvertNVVMToLLVMPass"),
    "convert-arith-to-llvm": ("convert_arith_to_llvm", "ConvertArithToLLVMPass"),
    "convert-math-to-llvm": ("convert_math_to_llvm", "ConvertMathToLLVMPass"),
    "convert-index-to-llvm": ("convert_index_to_llvm", "ConvertIndexToLLVMPass"),
    "convert-func-to-llvm": ("convert_func_to_llvm", "ConvertFuncToLLVMPass"),
    "convert-cf-to-llvm": ("convert_cf_to_llvm", "ConvertCfToLLVMPass"),
    "finalize-memref-to-llvm": ("finalize_memref_to_llvm", "FinalizeMemRefToLLVMPass"),
    "lower-kernel-control-flow": ("lower_kernel_control_flow", "LowerKernelControlFlowPass"),
    "kernel-to-gpu": ("kernel_to_gpu", "KernelToGpuPass"),
    "kernel-to-tile": ("kernel_to_tile", "KernelToTilePass"),
    "tile-assign-layouts": ("tile_assign_layouts", "TileAssignLayoutsPass"),
    "tile-to-gpu": ("tile_to_gpu", "TileToGpuPass"),
    "tile-pipeline": ("tile_pipeline", "TilePipelinePass"),
    "tile-tma-ring": ("tile_tma_ring", "TileTmaRingPass"),
    "convert-vector-to-llvm": ("convert_vector_to_llvm", "ConvertVectorToLLVMPass"),
    "inline-device-functions": ("inline_device_functions", "InlineDeviceFunctionsPass"),
    "fuse-checks": ("fuse_checks", "FuseChecksPass"),
    "int-range-optimizations": ("int_range_optimizations", "IntRangeOptimizationsPass"),
    "hoist-checks": ("hoist_checks", "HoistChecksPass"),
    "vectorize-global-access": ("vectorize_global_access", "VectorizeGlobalAccessPass"),
    # xDSL's rewrites, cheaper per op:
    "canonicalize": ("canonicalize", "CanonicalizePass"),
    "convert-scf-to-cf": ("convert_scf_to_cf", "ConvertScfToCfPass"),
    "reconcile-unrealized-casts": ("reconcile_unrealized_casts", "ReconcileUnrealizedCastsPass"),
}


def _factory(module: str, cls: str) -> Callable[[], type[ModulePass]]:
    def load() -> type[ModulePass]:
        return getattr(import_module(f"warpforge.passes.{module}"), cls)

    return load


PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    name: _factory(module, cls) for name, (module, cls) in _OUR_PASSES.items()
}
"""warpforge's own passes, by name."""


def available_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Our passes whose module exists in this checkout (lets the registry name passes still being written)."""
    from importlib.util import find_spec

    return {name: f for name, f in PASSES.items() if find_spec(f"warpforge.passes.{_OUR_PASSES[name][0]}") is not None}


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """xDSL's upstream passes plus ours; ours replace upstream passes of the same name."""
    from xdsl.transforms import get_all_passes as upstream

    passes = dict(upstream())
    passes.update(available_passes())
    return passes
