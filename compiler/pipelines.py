"""Named pass pipelines. `warpforge-opt -p simt-to-llvm` expands a name into its passes, so
`--print-between-passes` shows every stage; `run_pipeline` applies one from Python.

| pipeline | from | to |
|---|---|---|
| `gpu-to-llvm` | `gpu` + arith/math/scf/cf/memref/func | `llvm` (inside the `gpu.module`) |
| `simt-to-llvm` | `kernel` (the frontend's output) | `llvm` |
| `tile-to-llvm` | a tile kernel (`kernel` with `tile` values) | `llvm` |
| `tile-dialect-to-gpu`, `tile-dialect-to-llvm` | a tile kernel's `tile` stage (after `kernel-to-tile`) | `gpu` level, `llvm` |
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import ModuleOp

if TYPE_CHECKING:
    from xdsl.passes import ModulePass

GPU_TO_LLVM: tuple[str, ...] = (
    "convert-nvgpu-to-nvvm",
    "convert-gpu-to-nvvm",
    "check-nvvm-target",
    "convert-scf-to-cf",
    "convert-nvvm-to-llvm",
    "convert-math-to-llvm",
    "convert-vector-to-llvm",
    "finalize-memref-to-llvm",
    "convert-index-to-llvm",
    "convert-arith-to-llvm",
    "convert-cf-to-llvm",
    "convert-func-to-llvm",
    "reconcile-unrealized-casts",
    "canonicalize",
)
"""`gpu` level → `llvm` dialect. `convert-scf-to-cf`, `reconcile-unrealized-casts` and `canonicalize` run xDSL's patterns.
`convert-vector-to-llvm` lowers the 128-bit vector accesses of tile kernels (a no-op on SIMT kernels), so
one pipeline resumes the gpu and nvvm stages of both models."""

KERNEL_TO_GPU: tuple[str, ...] = (
    "lower-kernel-control-flow",
    "inline-device-functions",
    "kernel-to-gpu",
    "canonicalize",
    "cse",
    "int-range-optimizations",
    "hoist-checks",
    "canonicalize",
    "fuse-checks",
    "vectorize-global-access",
    "cse",
)
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


@functools.lru_cache(maxsize=256)
def parse_passes(spec: str) -> tuple[ModulePass, ...]:
    """The passes of an expanded spec, parsed once per spec (a few ms each time: xDSL reads each
    pass's options with `typing.get_type_hints`). Passes are frozen dataclasses, so one instance
    serves every module. Raises `ValueError` for an unknown pass or bad options."""
    from xdsl.passes import PassPipeline

    from warpforge.passes import get_all_passes

    return PassPipeline.parse_spec(get_all_passes(), spec).passes


def run_pipeline(module: ModuleOp, spec: str, *, verify_each: bool = True, verify_end: bool = True) -> None:
    """Apply a pass spec (pipeline names allowed) to `module` in place, verifying after each pass
    (`verify_each=False`: once, after the last — much faster on big kernels; `verify_end=False` too:
    not at all, for a caller that verifies where it stops).

    Raises `warpforge.diagnostics.IRDiagnosticError` (located, naming the pass) when a pass refuses
    the IR, `warpforge.pass_manager.PassCrashError` when a pass crashes; with
    `WARPFORGE_REPRODUCER_DIR=DIR` set, a crash writes a reproducer there (`warpforge-opt --run-reproducer`)."""
    import os

    from warpforge.context import make_context
    from warpforge.pass_manager import PassOptions, instantiate, parse_pass_pipeline, run_passes
    from warpforge.passes import get_all_passes

    passes = instantiate(parse_pass_pipeline(spec), get_all_passes(), spec)
    options = PassOptions(verify_each=verify_each, verify_end=verify_end, crash_reproducer=bool(os.environ.get("WARPFORGE_REPRODUCER_DIR")))
    run_passes(make_context(), module, passes, options)


# --------------------------------------------------------------------------- the Tile model

TILE_TO_GPU: tuple[str, ...] = (
    "kernel-to-tile", "tile-pipeline", "tile-tma-ring", "lower-kernel-control-flow", "inline-device-functions", "tile-assign-layouts", "tile-to-gpu", "canonicalize", "cse",
)  # fmt: skip
"""A tile kernel (`kernel` dialect with `tile` values) → `gpu` level: views and coordinates, the cp.async
pipelining of tile.dot operands, device functions inlined, layouts, then CTA distribution."""

TILE_GPU_TO_LLVM: tuple[str, ...] = GPU_TO_LLVM
"""`gpu-to-llvm`, which includes the 128-bit vector loads and stores `tile-to-gpu` emits."""

TILE_DIALECT_TO_GPU: tuple[str, ...] = TILE_TO_GPU[TILE_TO_GPU.index("kernel-to-tile") + 1 :]
"""The `tile` stage (after `kernel-to-tile`: tensor and partition views) → `gpu` level."""

PIPELINES["tile-to-gpu-pipeline"] = TILE_TO_GPU
PIPELINES["tile-to-llvm"] = TILE_TO_GPU + TILE_GPU_TO_LLVM
PIPELINES["tile-dialect-to-gpu"] = TILE_DIALECT_TO_GPU
PIPELINES["tile-dialect-to-llvm"] = TILE_DIALECT_TO_GPU + TILE_GPU_TO_LLVM
PIPELINE_DOCS["tile-dialect-to-gpu"] = "a tile kernel's tile stage (after kernel-to-tile) to gpu-level IR"
PIPELINE_DOCS["tile-dialect-to-llvm"] = "a tile kernel's tile stage (after kernel-to-tile) all the way to the llvm dialect"
PIPELINE_DOCS["tile-to-gpu-pipeline"] = "tile kernel (kernel dialect with tile values) to gpu-level IR (kernel-to-tile, tile-to-gpu)"
PIPELINE_DOCS["tile-to-llvm"] = "tile kernel all the way to the llvm dialect (tile-to-gpu-pipeline, gpu-to-llvm with vector accesses)"


# --------------------------------------------------------------------------- the stages the compile driver runs

GPU_TO_NVVM: tuple[str, ...] = GPU_TO_LLVM[: GPU_TO_LLVM.index("check-nvvm-target") + 1]
"""The `nvvm` stage: `gpu` ops → `nvvm` ops, then the target check (first part of `gpu-to-llvm`)."""

TARGET_PASSES = frozenset({"kernel-to-gpu", "tile-pipeline", "tile-tma-ring", "tile-assign-layouts", "tile-to-gpu"})
"""Passes that take the target (`chip`, `features`) and the `gpu.module`'s name as options."""


def stage_pipelines(model: str, *, chip: str, features: str, module: str) -> tuple[tuple[str, str], ...]:
    """What `warpforge.compile` runs: (stage reached, pass spec that reaches it from the previous
    stage) for `model` `"simt"` or `"tile"`, cut from the named pipelines above (`simt-to-llvm`,
    `tile-to-llvm`) so the two never drift apart. Raises `ValueError` for another model."""

    def spec(passes: tuple[str, ...]) -> str:
        options = f'{{chip="{chip}" features="{features}" module={module}}}'
        return ",".join(p + options if p in TARGET_PASSES else p for p in passes)

    if model == "simt":
        to_llvm = GPU_TO_LLVM[len(GPU_TO_NVVM) :]
        return (("gpu", spec(KERNEL_TO_GPU)), ("nvvm", spec(GPU_TO_NVVM)), ("llvm", spec(to_llvm)))
    if model == "tile":
        assert TILE_GPU_TO_LLVM[: len(GPU_TO_NVVM)] == GPU_TO_NVVM
        to_llvm = TILE_GPU_TO_LLVM[len(GPU_TO_NVVM) :]
        return (
            ("tile", spec(TILE_TO_GPU[:1])),
            ("gpu", spec(TILE_TO_GPU[1:])),
            ("nvvm", spec(GPU_TO_NVVM)),
            ("llvm", spec(to_llvm)),
        )
    raise ValueError(f"unknown programming model {model!r}: expected 'simt' or 'tile'")
