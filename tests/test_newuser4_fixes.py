"""The fourth new user's findings (each test fails before its fix)."""

from __future__ import annotations

import numpy as np
import pytest

import warpforge as wf
from warpforge import i32, simt
from warpforge.errors import CompileError

from kernel_runner import Backend, backend  # noqa: F401 (backend is the fixture)

# --------------------------------------------------------------------------- DisjointSlice ownership


def _two_views(o: simt.DisjointSlice[i32]):
    idx = simt.index_1d()
    r = o.row(idx, 4)
    c = o.row(idx, 2)
    r[0] = wf.i32(1)
    c[0] = wf.i32(2)


def _index_and_view(o: simt.DisjointSlice[i32]):
    idx = simt.index_1d()
    o[idx] = wf.i32(1)
    v = o.row(idx, 4)
    v[0] = wf.i32(2)


def _block_and_thread(o: simt.DisjointSlice[i32]):
    idx = simt.index_1d()
    o[idx] = wf.i32(1)
    o[simt.block_index_1d()] = wf.i32(2)


def _two_index_2d(o: simt.DisjointSlice[i32]):
    a = simt.index_2d(4)
    b = simt.index_2d(8)
    o[a] = wf.i32(1)
    o[b] = wf.i32(2)


@pytest.mark.parametrize("fn, first, second", [
    (_two_views, "a row view", "a row view"),
    (_index_and_view, r"a ThreadIndex \(index_1d\)", "a row view"),
    (_block_and_thread, r"a ThreadIndex \(index_1d\)", r"a BlockIndex"),
    (_two_index_2d, r"a ThreadIndex \(index_2d\)", r"a ThreadIndex \(index_2d\)"),
])  # fmt: skip
def test_two_ownership_maps_on_one_disjoint_slice_are_refused(fn, first: str, second: str) -> None:
    # each compiled and ran: two threads wrote one element (the simulator kept the last writer's value)
    k = simt.kernel(fn)
    with pytest.raises(CompileError, match=rf"'o' is already written through {first}.*\(line \d+\); writing it through {second}.* too could make two threads write one element"):
        k.ir("kernel")


@simt.kernel
def _same_map_twice(o: simt.DisjointSlice[i32], n: i32):
    idx = simt.index_1d()
    again = simt.index_1d()  # the same ThreadIndex, computed twice
    o[idx] = wf.i32(1)
    if n > 3:
        o[again] = o_value(n)


@simt.device
def o_value(n: i32) -> i32:
    return n * 2


@simt.kernel
def _one_view_many_elements(o: simt.DisjointSlice[i32]):
    idx = simt.index_1d()
    r = o.row(idx, 4)
    same = o.row(idx, 4)
    for k in range(4):
        r[k] = wf.i32(10 * k)
    same[3] = wf.i32(7)


def test_one_map_written_many_times_is_accepted(backend: Backend) -> None:  # noqa: F811
    stream = backend.device.create_stream()
    out = wf.DeviceBuffer.from_host(stream, np.full(8, -1, np.int32))
    _same_map_twice[1, 8](out, 5)
    np.testing.assert_array_equal(out.to_host(stream), np.full(8, 10, np.int32))
    rows = wf.DeviceBuffer.from_host(stream, np.full(32, -1, np.int32))
    _one_view_many_elements[1, 8](rows)
    np.testing.assert_array_equal(rows.to_host(stream), np.tile(np.array([0, 10, 20, 7], np.int32), 8))


# --------------------------------------------------------------------------- warpforge run's PTX check


def test_warpforge_run_assembles_sm_90a_ptx_for_sm_90a(tmp_path) -> None:
    # a SIMT kernel using wgmma's fence/commit/wait compiles for sm_90a; warpforge run's check assembled
    # its PTX with -arch=sm_90 and failed ("does not assemble (please report it)"), where python ran it
    import subprocess
    import sys
    from pathlib import Path

    from warpforge.backend.toolkit import find_ptxas

    if find_ptxas() is None:
        pytest.skip("ptxas not found")
    src = tmp_path / "wg.py"
    src.write_text(
        "import warpforge as wf\nfrom warpforge import simt, f32\n\n@simt.kernel\ndef k(o: simt.DisjointSlice[f32]):\n"
        "    idx = simt.index_1d()\n    simt.wgmma_fence()\n    simt.wgmma_commit_group()\n    simt.wgmma_wait_group(0)\n    o[idx] = 1.0\n\n"
        "s = wf.Device(0).create_stream()\no = wf.DeviceBuffer.zeroed(s, 128, f32)\nk[1, 128](o)\nprint('sum', o.to_host(s).sum())\n"
    )
    run = Path(sys.executable).parent / "warpforge"
    proc = subprocess.run([str(run), "run", "--simulate", str(src)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "PTX for sm_90a of k assembled by ptxas" in proc.stderr and "sum 128.0" in proc.stdout


def test_a_closed_pipe_ends_the_cli_quietly() -> None:
    # `warpforge doctor | head -1` printed "error: BrokenPipeError: [Errno 32] Broken pipe" every time
    import subprocess
    import sys
    from pathlib import Path

    cli = Path(sys.executable).parent / "warpforge"
    proc = subprocess.run(f"'{cli}' doctor | head -1", shell=True, capture_output=True, text=True, timeout=300)
    assert proc.stdout.strip() and "BrokenPipe" not in proc.stderr, proc.stderr
