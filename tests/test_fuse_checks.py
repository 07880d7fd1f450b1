"""`fuse-checks` changes how reads are checked, not what is reported: the first error (site, index,
length, block, thread) and the error count are the same as with one check per read. Runs on the
simulator in CI and on the GPU with `-m gpu`."""

from __future__ import annotations

import numpy as np
import pytest

import warpforge as wf
from warpforge import simt


@simt.kernel
def three_reads(a: simt.Slice[wf.f32], b: simt.Slice[wf.f32], w: simt.Slice[wf.f32], c: simt.DisjointSlice[wf.f32]):
    idx = simt.index_1d()
    i = idx.get()
    c[idx] = a[i] + b[i] * w[2 * i]


def _devices():
    yield pytest.param("simulator", id="simulator")
    yield pytest.param("gpu", id="gpu", marks=pytest.mark.gpu)


def _run(kind: str, na: int, nb: int, nw: int, n: int = 1024):
    dev = wf.Device.simulator() if kind == "simulator" else wf.Device(0)
    stream = dev.create_stream()
    rng = np.random.default_rng(20261201)
    a, b, w = (rng.standard_normal(k).astype(np.float32) for k in (na, nb, nw))
    bufs = [wf.DeviceBuffer.from_host(stream, x) for x in (a, b, w)]
    c = wf.DeviceBuffer.from_host(stream, np.full(n, np.nan, np.float32))  # poisoned
    three_reads.launch(stream, three_reads.prepare(wf.LaunchConfig(grid=n // 256, block=256), device=dev), *bufs, c)
    return stream, c, (a, b, w)


def test_the_kernel_is_fused():
    """The three reads share one predicate and one branch: the checked body (the copy `hoist-checks`
    keeps for threads whose entry condition fails) has one `scf.if` yielding all three values."""
    gpu_ir = three_reads.ir("gpu")
    assert gpu_ir.count("-> (f32, f32, f32)") == 1, gpu_ir


@pytest.mark.parametrize("kind", list(_devices()))
def test_results_in_range(kind):
    n = 1024
    stream, c, (a, b, w) = _run(kind, n, n, 2 * n)
    out = c.to_host(stream)
    np.testing.assert_allclose(out, a + b * w[::2], rtol=1e-6)


@pytest.mark.parametrize(
    ("na", "nb", "nw", "site", "index", "length", "count"),
    [
        (1024, 700, 2048, "b[i]", 700, 700, 324),  # only b too short: b[i] is reported, at the first thread past it
        (650, 700, 2048, "a[i]", 650, 650, 374 + 324),  # a's read comes first in a thread; every failing read counts
        (1024, 1024, 1000, "w[2 * i]", 1000, 1000, 524),  # w read at 2i: thread 500 is the first past it
    ],
)
def test_first_error_is_reported_as_without_fusion(na, nb, nw, site, index, length, count):
    stream, c, _ = _run("simulator", na, nb, nw)
    with pytest.raises(wf.KernelError) as info:
        c.to_host(stream)
    text = str(info.value)
    assert site in text, text
    assert f"index {index} not in [0, {length})" in text, text
    assert f"; {count - 1} more errors" in text, text  # the slow path re-checks every read of the thread
    thread = index if site != "w[2 * i]" else index // 2
    assert f"block ({thread // 256}, 0), thread ({thread % 256}, 0)" in text, text


@pytest.mark.gpu
def test_gpu_reports_the_read_that_failed():
    """On the GPU the first thread to record wins, so only the site and the length are fixed."""
    stream, c, _ = _run("gpu", 1024, 700, 2048)
    with pytest.raises(wf.KernelError, match=r"b\[i\].*not in \[0, 700\)"):
        c.to_host(stream)
