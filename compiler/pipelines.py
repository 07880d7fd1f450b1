"""Named pass pipelines. `warpforge-opt -p simt-to-llvm` expands a name into its passes, so
`--print-between-passes` shows every stage; `run_pipeline` applies one from Python.

| pipeline | from | to |
|---|---|---|
| `gpu-to-llvm` | `gpu` + arith/math/scf/cf/memref/func | `llvm` (inside the `gpu.module`) |
| `simt-to-llvm` | `kernel` (the frontend's output) | `llvm` |
| `tile-to-llvm` | a tile kernel (`kernel` with `tile` values) | `llvm` |
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

GPU_TO_LLVM: tuple[str, ...] = (
    "convert-gpu-to-nvvm",
    "check-nvvm-target",
    "convert-scf-to-cf",
    "convert-nvvm-to-llvm",
    "convert-math-to-llvm",
    "finalize-memref-to-llvm",
    "convert-index-to-llvm",
    "convert-arith-to-llvm",
    "convert-cf-to-llvm",
    "convert-func-to-llvm",
    "reconcile-unrealized-casts",
    "canonicalize",
)
"""`gpu` level → `llvm` dialect. `convert-scf-to-cf`, `reconcile-unrealized-casts` and `canonicalize` are xDSL's."""

KERNEL_TO_GPU: tuple[str, ...] = ("lower-kernel-control-flow", "inline-device-functions", "kernel-to-gpu", "canonicalize", "cse")
"""`kernel` (Python semantics) → `gpu` level."""

PIPELINES: dict[str, tuple[str, ...]] = {
    "gpu-to-llvm": GPU_TO_LLVM,
    "kernel-to-gpu-pipeline": KERNEL_TO_GPU,
    "simt-to-llvm": KERNEL_TO_GPU + GPU_TO_LLVM,
}
"""Every named pipeline, by name."""

PIPELINE_DOCS: dict[str, str] = {
    "gpu-to-llvm": "gpu-level IR (gpu, arith, math, scf, cf, memref, func) to the llvm dialect",
    "kernel-to-gpu-pipeline": "kernel dialect (Python semantics) to gpu-level IR",
    "simt-to-llvm": "kernel dialect all the way to the llvm dialect (kernel-to-gpu-pipeline, gpu-to-llvm)",
}


def expand(spec: str) -> str:
    """Replace every pipeline name in a `-p` spec (comma-separated passes) by its passes."""
    out: list[str] = []
    depth = 0
    current = ""
    for ch in spec + ",":
        if ch == "," and depth == 0:
            name = current.strip()
            if name:
                out.extend(PIPELINES.get(name, (name,)))
            current = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        current += ch
    return ",".join(out)


def run_pipeline(module: ModuleOp, spec: str, *, verify_each: bool = True) -> None:
    """Apply a pass spec (pipeline names allowed) to `module` in place, verifying after each pass
    (`verify_each=False`: once, after the last — much faster on big kernels)."""
    from xdsl.passes import PassPipeline

    from warpforge.context import make_context
    from warpforge.diagnostics import verify_module
    from warpforge.passes import get_all_passes

    def verify(_prev: object, mod: ModuleOp, _next: object) -> None:
        verify_module(mod)

    PassPipeline.parse_spec(get_all_passes(), expand(spec), verify if verify_each else None).apply(make_context(), module)
    if not verify_each:
        verify_module(module)


# --------------------------------------------------------------------------- the Tile model

TILE_TO_GPU: tuple[str, ...] = ("kernel-to-tile", "lower-kernel-control-flow", "tile-to-gpu", "canonicalize", "cse")
"""A tile kernel (`kernel` dialect with `tile` values) → `gpu` level: views and coordinates, then CTA distribution."""

TILE_GPU_TO_LLVM: tuple[str, ...] = (
    *GPU_TO_LLVM[: GPU_TO_LLVM.index("finalize-memref-to-llvm")],
    "convert-vector-to-llvm",
    *GPU_TO_LLVM[GPU_TO_LLVM.index("finalize-memref-to-llvm") :],
)
"""`gpu-to-llvm` plus the 128-bit vector loads and stores `tile-to-gpu` emits."""

PIPELINES["tile-to-gpu-pipeline"] = TILE_TO_GPU
PIPELINES["tile-to-llvm"] = TILE_TO_GPU + TILE_GPU_TO_LLVM
PIPELINE_DOCS["tile-to-gpu-pipeline"] = "tile kernel (kernel dialect with tile values) to gpu-level IR (kernel-to-tile, tile-to-gpu)"
PIPELINE_DOCS["tile-to-llvm"] = "tile kernel all the way to the llvm dialect (tile-to-gpu-pipeline, gpu-to-llvm with vector accesses)"
