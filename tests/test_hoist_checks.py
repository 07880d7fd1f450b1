"""`hoist-checks` changes where reads are checked, not what is reported: when the entry condition
holds the kernel runs without the hoisted checks (same results), when it fails the original checked
body runs and reports the first error (site, index, length, block, thread) and the count exactly as
a kernel without the pass does. Runs on the simulator in CI and on the GPU with `-m gpu`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import warpforge as wf
from warpforge import f32, simt

ROOT = Path(__file__).resolve().parent.parent


@simt.kernel(contract=simt.Contract(domain=1, block=(128, 1, 1)))
def guarded(a: simt.Slice[f32], c: simt.DisjointSlice[f32], m: wf.i64, k: wf.i64):
    idx = simt.index_1d()
    row = idx.get()
    acc = wf.f32(0)
    for col in range(k):
        acc += a[row * k + col] if row < m else wf.f32(0)
    c[idx] = acc


@simt.kernel(contract=simt.Contract(domain=1, block=(128, 1, 1)))
def strided(a: simt.Slice[f32], c: simt.DisjointSlice[f32], k: wf.i64):
    idx = simt.index_1d()
    acc = wf.f32(0)
    for k0 in range(0, k, 8):
        acc += a[k0 + simt.thread_idx.x % 8]
    c[idx] = acc


def _devices():
    yield pytest.param("simulator", id="simulator")
    yield pytest.param("gpu", id="gpu", marks=pytest.mark.gpu)


def _device(kind: str):
    return wf.Device.simulator() if kind == "simulator" else wf.Device(0)


def test_the_kernels_are_versioned():
    """Each kernel branches once on entry values (weighted towards the fast body), and after
    canonicalize only one copy still calls the reporter: the fast one has no checks left."""
    for kern in (guarded, strided):
        gpu_ir = kern.ir("gpu")
        assert "branch_weights = array<i32: 1048576, 1>" in gpu_ir, gpu_ir
        calls = gpu_ir.count("func.call @__wf_report_error")
        assert calls == 1, gpu_ir  # one read, checked in the checked copy only
        assert gpu_ir.count("gpu.return") == 2, gpu_ir


def test_sgemm_hoists_every_global_read():
    """SGEMM's global reads (before and inside the K loop; `simt.static_range` bodies stay loops, so each
    read site appears once per copy) all move to the entry: the fast body, the first copy, reads without
    calling the reporter (its full-tile reads as vector loads); the checked body keeps a check on every read."""
    import re

    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import sgemm
    finally:
        sys.path.remove(str(ROOT / "examples"))
    gpu_ir = sgemm.sgemm.ir("gpu")
    assert "branch_weights" in gpu_ir
    fast, checked = gpu_ir.split("gpu.return", 1)
    reads = re.compile(r"(?:memref|vector).load %(a|b)\[")  # vector: vectorize-global-access's 128-bit reads of full tiles
    assert len(reads.findall(fast)) >= 4 and "func.call @__wf_report_error" not in fast, gpu_ir
    assert checked.count("func.call @__wf_report_error") == len(reads.findall(checked)) == len(reads.findall(fast)), gpu_ir


@pytest.mark.parametrize("kind", list(_devices()))
@pytest.mark.parametrize(("m", "k", "extra"), [(300, 7, 0), (256, 16, 5), (1, 1, 0)])
def test_results_in_range(kind, m, k, extra):
    """`len(a) >= m * k`: the fast body runs; the results are NumPy's."""
    dev = _device(kind)
    stream = dev.create_stream()
    rng = np.random.default_rng(1500 + m + k)
    n = 384
    a_host = rng.standard_normal(m * k + extra).astype(np.float32)
    a = wf.DeviceBuffer.from_host(stream, a_host)
    c = wf.DeviceBuffer.from_host(stream, np.full(n, np.nan, np.float32))  # poisoned
    guarded.launch(stream, guarded.prepare(wf.LaunchConfig(grid=n // 128, block=128), device=dev), a, c, m, k)
    got = c.to_host(stream)
    want = np.zeros(n, np.float32)
    rows = min(m, n)
    want[:rows] = a_host[: m * k].reshape(m, k)[:rows].sum(axis=1, dtype=np.float64)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    ("m", "k", "length", "index", "thread", "count"),
    [
        # a is one element short: row m - 1 reads past it at its last column, nobody else does
        (200, 4, 799, 799, 199, 1),
        # a holds 50 rows of 3: rows 50..99 each fail at every column (row 50 first: index 150)
        (100, 3, 150, 150, 50, 150),
    ],
)
def test_first_error_is_reported_as_without_hoisting(m, k, length, index, thread, count):
    """The entry condition fails, so every thread runs the checked body: the report names the same
    read, index, length, block and thread, and counts every failing read, as the unversioned kernel."""
    dev = wf.Device.simulator()
    stream = dev.create_stream()
    rng = np.random.default_rng(15)
    a = wf.DeviceBuffer.from_host(stream, rng.standard_normal(length).astype(np.float32))
    c = wf.DeviceBuffer.from_host(stream, np.full(256, np.nan, np.float32))
    guarded.launch(stream, guarded.prepare(wf.LaunchConfig(grid=2, block=128), device=dev), a, c, m, k)
    with pytest.raises(wf.KernelError) as info:
        c.to_host(stream)
    text = str(info.value)
    assert "a[row * k + col]" in text, text
    assert f"index {index} not in [0, {length})" in text, text
    assert f"block ({thread // 128}, 0), thread ({thread % 128}, 0)" in text, text
    if count > 1:
        assert f"; {count - 1} more errors" in text, text
    else:
        assert "more error" not in text, text


@pytest.mark.parametrize("kind", list(_devices()))
def test_loop_reads_in_range_and_past_the_end(kind):
    """`a[k0 + tid % 8]` for `k0 in range(0, k, 8)`: with len(a) >= k + 7 the fast body runs (NumPy's
    sums); one element shorter, the first thread whose lane reads past the end reports it."""
    dev = _device(kind)
    stream = dev.create_stream()
    rng = np.random.default_rng(1501)
    k = 40
    a_host = rng.standard_normal(k + 7).astype(np.float32)
    cfg = wf.LaunchConfig(grid=1, block=128)
    a = wf.DeviceBuffer.from_host(stream, a_host)
    c = wf.DeviceBuffer.from_host(stream, np.full(128, np.nan, np.float32))
    strided.launch(stream, strided.prepare(cfg, device=dev), a, c, k)
    got = c.to_host(stream)
    lanes = np.arange(128) % 8
    want = np.array([a_host[lane::8][: k // 8].sum(dtype=np.float64) for lane in lanes], np.float32)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)

    short = wf.DeviceBuffer.from_host(stream, a_host[: k - 1])
    strided.launch(stream, strided.prepare(cfg, device=dev), short, c, k)
    with pytest.raises(wf.KernelError, match=r"a\[k0 \+ simt.thread_idx.x % 8\].*index 39 not in \[0, 39\)"):
        c.to_host(stream)


def test_opt_shows_the_entry_condition(tmp_path: Path):
    """`warpforge-opt --mlir-print-ir-after=hoist-checks` shows the condition the checks became."""
    src = tmp_path / "k.py"
    src.write_text(
        "import warpforge as wf\nfrom warpforge import f32, simt\n\n"
        "@simt.kernel(contract=simt.Contract(domain=1, block=(128, 1, 1)))\n"
        "def loop(a: simt.Slice[f32], c: simt.DisjointSlice[f32], k: wf.i64):\n"
        "    idx = simt.index_1d()\n    acc = wf.f32(0)\n"
        "    for k0 in range(0, k, 8):\n        acc += a[k0]\n    c[idx] = acc\n"
    )
    bin_dir = Path(sys.executable).parent
    kernel_ir = subprocess.run([str(bin_dir / "warpforge"), "compile", str(src), "--emit", "kernel"],
                               capture_output=True, text=True, check=True).stdout
    (tmp_path / "k.mlir").write_text(kernel_ir)
    proc = subprocess.run([str(bin_dir / "warpforge-opt"), str(tmp_path / "k.mlir"), "-p", "kernel-to-gpu-pipeline",
                           "--mlir-print-ir-after=hoist-checks"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    dump = proc.stderr + proc.stdout
    assert "hoist-checks" in dump and "branch_weights" in dump, dump[:2000]


def test_random_shapes_report_exactly_the_out_of_range_reads():
    """Seeded sweep around the boundary `len(a) = m * k` (and far from it): an error is reported
    exactly when some row below `m` reads past `len(a)`, with the first such index and the count of
    failing reads; otherwise the sums are NumPy's. A hoisted condition that held when a read was out
    of range would show up here as a missing report."""
    rng = np.random.default_rng(20261215)
    dev = wf.Device.simulator()
    stream = dev.create_stream()
    n = 256
    for _ in range(10):
        m, k = int(rng.integers(1, 300)), int(rng.integers(1, 6))
        length = max(1, m * k + int(rng.choice([-k - 1, -1, 0, 1, 5])))
        a_host = rng.standard_normal(length).astype(np.float32)
        a = wf.DeviceBuffer.from_host(stream, a_host)
        c = wf.DeviceBuffer.from_host(stream, np.full(n, np.nan, np.float32))
        guarded.launch(stream, guarded.prepare(wf.LaunchConfig(grid=2, block=128), device=dev), a, c, m, k)
        # (column, row) in the order the simulator's threads reach the reads: column by column
        order = sorted((q, r) for r in range(min(m, n)) for q in range(k))
        bad = np.array([r * k + q for q, r in order if r * k + q >= length], np.int64)
        if bad.size:
            with pytest.raises(wf.KernelError) as info:
                c.to_host(stream)
            text = str(info.value)
            first = int(bad[0])  # columns run in step on the simulator: the first failing column, lowest row
            assert f"index {first} not in [0, {length})" in text, (m, k, length, text)
            assert (f"; {bad.size - 1} more error" in text) if bad.size > 1 else ("more error" not in text), text
        else:
            got = c.to_host(stream)
            rows = min(m, n)
            want = np.zeros(n, np.float64)
            want[:rows] = a_host[: rows * k].reshape(rows, k).sum(axis=1, dtype=np.float64)
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
