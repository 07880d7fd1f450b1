"""`tile-assign-layouts` writes `tile.dot`'s MMA accumulator layout into the IR (`#tile.mma`, on
sm_90a `#tile.wgmma`), and `tile-to-gpu` lowers the same as when it chooses the layout itself (the
fallback for IR without it): the gpu-stage IR of the example GEMM and attention kernels is identical
with and without the encodings, on sm_80, sm_90 and sm_90a."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from warpforge.context import parse_module
from warpforge.pipelines import run_pipeline, stage_pipelines
from warpforge.passes import tile_assign_layouts

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _example_kernels(name: str) -> list[tuple[str, object]]:
    from warpforge.tile import TileKernel

    spec = importlib.util.spec_from_file_location(f"_mma_layouts_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return [(n, k) for n, k in sorted(vars(mod).items()) if isinstance(k, TileKernel) and k._aot]  # pyright: ignore[reportPrivateUsage]


def _stages(tile_ir: str, chip: str) -> tuple[str, str]:
    """(the IR after tile-assign-layouts, the gpu-stage IR) of a tile-stage module."""
    (_, to_tile), (_, to_gpu), *_ = stage_pipelines("tile", chip=chip, features="", module="m")
    del to_tile
    passes = to_gpu.split(",")
    cut = next(i for i, p in enumerate(passes) if p.startswith("tile-assign-layouts")) + 1
    module = parse_module(tile_ir)
    run_pipeline(module, ",".join(passes[:cut]))
    assigned = str(module)
    run_pipeline(module, ",".join(passes[cut:]))
    return assigned, str(module)


@pytest.mark.parametrize("chip", ["sm_80", "sm_90", "sm_90a"])
@pytest.mark.parametrize("example", ["matmul", "attention"])
def test_encoded_mma_layouts_lower_as_the_fallback(example: str, chip: str, monkeypatch: pytest.MonkeyPatch) -> None:
    kernels = _example_kernels(example)
    assert kernels
    encoded = 0
    for name, k in kernels:
        tile_ir = k.ir("tile", chip=chip)  # pyright: ignore[reportAttributeAccessIssue]
        assigned, gpu_ir = _stages(tile_ir, chip)
        with monkeypatch.context() as m:
            m.setattr(tile_assign_layouts, "assign_mma_encodings", lambda *a: None)
            plain, fallback_ir = _stages(tile_ir, chip)
        assert "#tile.mma" not in plain and "#tile.wgmma" not in plain
        if "#tile.mma" in assigned or "#tile.wgmma" in assigned:
            encoded += 1
            assert ("#tile.wgmma" in assigned) == (chip == "sm_90a"), name  # attention: register-A wgmma
        assert gpu_ir == fallback_ir, f"{name} on {chip}: tile-to-gpu lowers the encoded MMA layouts differently"
    if example == "matmul":
        assert encoded == len(kernels)  # every matmul kernel's accumulator is encoded in the IR
