"""`warpforge new NAME`: a project that runs at once, on a GPU or on the CPU simulator.

    NAME/
      README.md        how to run, test and inspect it
      kernels.py       one SIMT kernel (saxpy) and one tile kernel (a scaled add), with ahead_of_time shapes
      main.py          runs both on seeded random inputs, compares with NumPy, prints PASSED
      test_kernels.py  pytest: the same comparison, on the GPU when there is one, else the simulator

Refuses (a `WarpforgeError`) a name that is not a plain directory name or a directory that exists.
"""

from __future__ import annotations

import re
from pathlib import Path

from warpforge.errors import WarpforgeError


class ProjectError(WarpforgeError):
    """`warpforge new` cannot create the project (bad name, existing directory)."""


KERNELS = '''"""The kernels of {name}: one SIMT kernel and one tile kernel.

SIMT: you write what one thread does and launch many. Tile: you write what one tile block does to its
tile, and warpforge decides how many threads carry it.
"""

import warpforge as wf
from warpforge import f32, simt, tile


@simt.kernel
def saxpy(alpha: f32, x: simt.Slice[f32], y: simt.Slice[f32], out: simt.DisjointSlice[f32]):
    """out = alpha * x + y, one element per thread."""
    idx = simt.index_1d()  # this thread's own element
    i = idx.get()
    if i < len(out):  # the last block may overhang the arrays (reads are bounds-checked)
        out[idx] = alpha * x[i] + y[i]


@tile.kernel
def scaled_add(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)], y: tile.Tensor[f32, (-1,)]):
    """z = 2 * x + y, one tile of B elements per tile block (B comes from z's partition)."""
    tx = tile.load_tile_like(x, z)
    ty = tile.load_tile_like(y, z)
    z.store(2.0 * tx + ty)


# shapes to compile for ahead of time (`warpforge run` checks their PTX before the program runs)
scaled_add.ahead_of_time(tile.spec(f32, (4096,), partition=(256,)), tile.spec(f32, (4096,)), tile.spec(f32, (4096,)))


def run_saxpy(stream, alpha, x_host, y_host):
    """Launch `saxpy` on host arrays; returns the result as a NumPy array."""
    import numpy as np

    n = len(x_host)
    x = wf.DeviceBuffer.from_host(stream, x_host)
    y = wf.DeviceBuffer.from_host(stream, y_host)
    out = wf.DeviceBuffer.from_host(stream, np.full(n, np.nan, dtype=np.float32))  # poisoned first
    block = 256
    saxpy[(n + block - 1) // block, block, stream](np.float32(alpha), x, y, out)
    return out.to_host(stream)


def run_scaled_add(stream, x_host, y_host):
    """Run `scaled_add` on host arrays through the lazy tile chain; returns a NumPy array."""
    n = len(x_host)
    z = wf.empty((n,), f32).partition((256,))
    return scaled_add(z, wf.from_host(x_host), wf.from_host(y_host)).first().unpartition().to_host().sync_on(stream)
'''

MAIN = '''"""{name}: run both kernels on random inputs and compare with NumPy.

    warpforge run main.py      # on the GPU, or without one on the CPU simulator
"""

import numpy as np

import warpforge as wf
from kernels import run_saxpy, run_scaled_add


def main() -> None:
    n = 4096 if wf.simulating() else 1 << 20  # the simulator runs kernels on the CPU: keep it small
    rng = np.random.default_rng(2026)
    stream = wf.Device(0).create_stream()
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    alpha = np.float32(rng.uniform(-4, 4))

    got = run_saxpy(stream, alpha, x, y)
    np.testing.assert_allclose(got, alpha * x + y, rtol=1e-6, atol=1e-6)
    got = run_scaled_add(stream, x, y)
    np.testing.assert_allclose(got, np.float32(2) * x + y, rtol=1e-6, atol=1e-6)
    print(f"PASSED: saxpy and scaled_add on {{n}} elements match NumPy")


if __name__ == "__main__":
    main()
'''

TEST = '''"""Tests of {name}'s kernels: on the GPU when there is one, else on the CPU simulator.

    pytest -q
"""

import os

import warpforge as wf

if not wf.gpu_available():
    os.environ["WARPFORGE_SIMULATE"] = "1"  # wf.Device(0) is then the CPU simulator

import numpy as np
import pytest

from kernels import run_saxpy, run_scaled_add, saxpy


@pytest.fixture
def stream():
    return wf.Device(0).create_stream()


@pytest.mark.parametrize("n", [1, 255, 1000])
def test_saxpy_matches_numpy(stream, n):
    rng = np.random.default_rng(n)
    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    np.testing.assert_allclose(run_saxpy(stream, 1.5, x, y), np.float32(1.5) * x + y, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("n", [256, 1000])
def test_scaled_add_matches_numpy(stream, n):
    rng = np.random.default_rng(n + 1)
    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    np.testing.assert_allclose(run_scaled_add(stream, x, y), np.float32(2) * x + y, rtol=1e-6, atol=1e-6)


def test_saxpy_compiles_to_ptx():
    assert ".visible .entry" in saxpy.compile("sm_90").ptx
'''

README = '''# {name}

A [warpforge](https://pypi.org/project/warpforge/) project: GPU kernels in Python.

- `kernels.py` — `saxpy`, a SIMT kernel (what one thread does), and `scaled_add`, a tile kernel (what
  one tile block does to its tile).
- `main.py` — runs both on random inputs and compares with NumPy.
- `test_kernels.py` — the same checks as pytest tests.

Run it (on the GPU; without one, on the CPU simulator):

    warpforge run main.py

Test it (`pip install pytest` first):

    pytest -q

Look at what the compiler makes of a kernel, stage by stage (`kernel`, `gpu`, `nvvm`, `llvm`, `ll`, `ptx`):

    warpforge compile kernels.py --kernel saxpy --emit ptx
'''


def new_project(name: str, parent: Path | None = None) -> Path:
    """Create the project `name` under `parent` (default: the current directory); returns its path.

    Raises `ProjectError` when `name` is not a plain directory name (letters, digits, `_`, `-`, `.`,
    not starting with `.` or `-`) or the directory exists."""
    if not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", name or ""):
        raise ProjectError(f"project name {name!r} must be a plain directory name (letters, digits, '_', '-', '.')")
    root = (parent or Path.cwd()) / name
    if root.exists():
        raise ProjectError(f"{root} already exists: choose another name or remove it")
    root.mkdir(parents=True)
    files = {"kernels.py": KERNELS, "main.py": MAIN, "test_kernels.py": TEST, "README.md": README}
    for filename, template in files.items():
        (root / filename).write_text(template.format(name=name))
    return root
