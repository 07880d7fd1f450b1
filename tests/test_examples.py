"""Every example: its kernels compile to PTX that ptxas accepts (CPU, in CI), it prints PASSED on the
CPU simulator through `warpforge run --simulate` (CPU, in CI, in seconds), and on a GPU it prints PASSED."""

from __future__ import annotations

import os
import subprocess
import sys
import time
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


@pytest.mark.gpu
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_example_passes_under_warpforge_run_on_gpu(example: Path) -> None:
    # `warpforge run` on a GPU runs the program there (not the simulator), once, with the early PTX check
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    env.pop("WARPFORGE_SIMULATE", None)
    proc = subprocess.run(
        [str(Path(sys.executable).parent / "warpforge"), "run", str(example)], capture_output=True, text=True, env=env, cwd=ROOT, timeout=600
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PASSED" in proc.stdout, proc.stdout + proc.stderr
    assert "simulator" not in proc.stderr, proc.stderr
    passed = [line for line in proc.stdout.splitlines() if line.startswith("PASSED")]
    assert len(passed) == len(set(passed)), proc.stdout  # the file ran once (an example may check several shapes, each once)


SIMULATED_SECONDS = 60
"""An example run on the simulator must finish within this (it picks small sizes under `wf.simulating()`)."""


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_example_passes_on_the_simulator(example: Path) -> None:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    env.pop("WARPFORGE_SIMULATE", None)
    start = time.monotonic()
    try:
        proc = subprocess.run(
            [str(Path(sys.executable).parent / "warpforge"), "run", "--simulate", str(example)],
            capture_output=True, text=True, env=env, cwd=ROOT, timeout=5 * SIMULATED_SECONDS,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"{example.name} ran over {5 * SIMULATED_SECONDS} s on the simulator: pick small sizes when wf.simulating()")
    seconds = time.monotonic() - start
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "running on the CPU simulator" in proc.stderr and "PASSED" in proc.stdout, proc.stdout + proc.stderr
    assert seconds < SIMULATED_SECONDS, f"{example.name} took {seconds:.0f} s on the simulator: pick small sizes when wf.simulating()"
