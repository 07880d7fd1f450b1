"""Shared setup of the Hopper tests (`tests/test_hopper_*.py`): the PTX of a hand-written `nvvm`-level
kernel file, and the devices their GPU tests need (skipping the test on any other).

    from hopper_setup import hopper_device, nvvm_file_ptx, sm90a_device  # noqa: F401 (fixtures)

    def test_x_on_gpu(sm90a_device):
        stream = sm90a_device.create_stream()
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


def nvvm_file_ptx(name: str, chip: str = "sm_90a", features: str = "+ptx80") -> str:
    """The PTX of `tests/<name>` (an MLIR module of `llvm.func`s with `nvvm` ops): parsed and verified,
    `check-nvvm-target,convert-nvvm-to-llvm,reconcile-unrealized-casts`, LLVM's NVPTX backend for
    `chip`/`features`; it must call no external function, and goes through `ptxas` where installed."""
    from warpforge.backend.export import export_llvm_ir
    from warpforge.backend.nvptx import NVPTXOptions, compile_ptx
    from warpforge.backend.toolkit import find_ptxas, run_ptxas
    from warpforge.context import parse_module
    from warpforge.pipelines import run_pipeline

    module = parse_module((Path(__file__).parent / name).read_text())
    run_pipeline(module, "check-nvvm-target,convert-nvvm-to-llvm,reconcile-unrealized-casts")
    ptx = compile_ptx(str(export_llvm_ir(module)), NVPTXOptions(chip=chip, features=features))
    assert ".extern .func" not in ptx
    if find_ptxas() is not None:
        run_ptxas(ptx, chip, verbose=False)
    return ptx


@pytest.fixture
def hopper_device() -> Any:
    """`wf.Device(0)` when it has TMA and mbarriers (compute capability 9.0 or later); else the test
    is skipped."""
    import warpforge as wf

    dev = wf.Device(0)
    if dev.compute_capability < (9, 0):
        pytest.skip("TMA and mbarriers need compute capability 9.0")
    return dev


@pytest.fixture
def sm90a_device() -> Any:
    """`wf.Device(0)` when it runs sm_90a code (compute capability exactly 9.0: an H100/H200); else
    the test is skipped (sm_90a code runs on no other chip)."""
    import warpforge as wf

    dev = wf.Device(0)
    if dev.compute_capability != (9, 0):
        pytest.skip("sm_90a code needs a compute capability 9.0 device")
    return dev
