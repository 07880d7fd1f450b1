"""Every example: its kernels compile to PTX that ptxas accepts (CPU, in CI), and on a GPU it prints PASSED."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*.py"))


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_example_compiles_and_ptxas_accepts_it(example: Path) -> None:
    from warpforge.backend.toolkit import find_ptxas, run_ptxas
    from warpforge.driver.cli import _kernels, _load_file

    module = _load_file(str(example))
    kernels = _kernels(module)
    assert kernels, f"{example.name} defines no kernels"
    for name, kernel in kernels.items():
        ptx = kernel.ir("ptx")
        assert ".visible .entry" in ptx, name
        assert ".extern .func" not in ptx, f"{name}: unresolved call in PTX"
        if find_ptxas() is not None:
            run_ptxas(ptx, "sm_90", verbose=False)


@pytest.mark.gpu
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_example_passes_on_gpu(example: Path) -> None:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    env.pop("WARPFORGE_SIMULATE", None)
    proc = subprocess.run([sys.executable, str(example)], capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PASSED" in proc.stdout, proc.stdout + proc.stderr
