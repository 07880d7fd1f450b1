"""The second new user's findings (each test fails before its fix): what a kernel compiles from
when its file is edited after import, module constants rebound after the first compile, kernel
overrides the simulator cannot apply, `wf.full`'s fill value, and the smaller diagnostics. CPU only
(the simulator runs the kernels)."""

from __future__ import annotations

import importlib.util
import os
import sys
import time

import numpy as np
import pytest

import warpforge as wf
from warpforge import simt, tile
from warpforge.simulator.launch import run as sim_run


def _import(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _edit(path, old, new):
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    later = time.time() + 5
    os.utime(path, (later, later))  # linecache/inspect see a changed file


# --------------------------------------------------------------------------- 1. edited after import

_SIMT_MODULE = """\
from warpforge import simt, f32

@simt.device
def bump(x: f32) -> f32:
    return x + 1.0

@simt.kernel
def kern(a: simt.Slice[f32], c: simt.DisjointSlice[f32]):
    idx = simt.index_1d(); i = idx.get()
    if i < len(a):
        c[idx] = bump(a[i]) + 10.0
"""

_TILE_MODULE = """\
from warpforge import tile, f32

@tile.kernel
def tk(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)]):
    z.store(tile.load_tile_like(x, z) + 1.0)
"""


@pytest.mark.parametrize("edit", ["kernel", "device"])
def test_simt_kernel_compiles_the_source_it_was_imported_with(tmp_path, monkeypatch, edit: str) -> None:
    path = tmp_path / f"edited_simt_{edit}.py"
    path.write_text(_SIMT_MODULE)
    module = _import(path, path.stem)
    if edit == "kernel":  # an editor saves the file between import and the first launch
        _edit(path, "bump(a[i]) + 10.0", "bump(a[i]) * 100.0")
    else:
        _edit(path, "return x + 1.0", "return x - 7.0")
    rng = np.random.default_rng(1)
    a = rng.standard_normal(40).astype(np.float32)
    out = np.full(40, np.nan, np.float32)
    sim_run(module.kern, 1, 64, a, out)
    np.testing.assert_allclose(out, a + 1.0 + 10.0, rtol=1e-6)


def test_tile_kernel_compiles_the_source_it_was_imported_with(tmp_path) -> None:
    path = tmp_path / "edited_tile.py"
    path.write_text(_TILE_MODULE)
    module = _import(path, path.stem)
    _edit(path, "+ 1.0)", "* 100.0)")
    rng = np.random.default_rng(2)
    a = rng.standard_normal(40).astype(np.float32)
    stream = wf.Device.simulator().create_stream()
    got = module.tk(wf.zeros((40,), wf.f32).partition((64,)), wf.from_host(a)).first().unpartition().to_host().sync_on(stream)
    np.testing.assert_allclose(got, a + 1.0, rtol=1e-6)
