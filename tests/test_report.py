"""Resource reports from `ptxas -v`: parsing, `kernel.report()` for both models (cached with the
cubin), the spill warning at the kernel's source line, and `warpforge compile --report`."""

from __future__ import annotations

import importlib.util
import itertools
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from warpforge import cache as wf_cache
from warpforge.backend.toolkit import find_ptxas
from warpforge.report import KernelResources, parse_ptxas_log

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
needs_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="ptxas not installed")
_modules = itertools.count()

LOG = """\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'first' for 'sm_90'
ptxas info    : Function properties for first
    24 bytes stack frame, 16 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 32 registers, used 1 barriers, 4096 bytes smem, 380 bytes cmem[0]
ptxas info    : Compile time = 1.2 ms
ptxas info    : Function properties for __wf_report_error
    8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Compiling entry function 'second' for 'sm_90'
ptxas info    : Function properties for second
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 10 registers, used 0 barriers, 368 bytes cmem[0]
"""


def test_parse_ptxas_log_reads_every_entry() -> None:
    first, second = parse_ptxas_log(LOG)
    assert first == KernelResources("first", "sm_90", registers=32, spill_stores=16, spill_loads=12, local_bytes=24, shared_bytes=4096, constant_bytes=380)
    assert second == KernelResources("second", "sm_90", registers=10, constant_bytes=368)
    assert first.spills and not second.spills


def load(path: Path):
    spec = importlib.util.spec_from_file_location(f"_report_test_{next(_modules)}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("WARPFORGE_CACHE_DIR", str(tmp_path / "cache"))
    wf_cache.stats.clear()
    return tmp_path / "cache"


@needs_ptxas
def test_simt_report_matches_the_kernel_and_is_cached(fresh_cache: Path) -> None:
    module = load(ROOT / "examples" / "histogram.py")
    kernels = [k for k in vars(module).values() if type(k).__name__ == "SimtKernel"]
    (k,) = kernels
    first = k.report()
    (res,) = first.kernels
    assert res.name == k.compile().entry and res.chip == "sm_90"
    assert res.shared_bytes == k.compile().static_shared_bytes > 0  # ptxas agrees with the compiler's count
    assert 0 < res.registers <= 255 and not res.spills
    hits = wf_cache.stats["hit"]
    assert k.report() == first
    assert wf_cache.stats["hit"] == hits + 1  # the cubin entry: ptxas ran once
    assert len(list((fresh_cache / "kernels").glob("cubin-*.wfc"))) == 1


@needs_ptxas
def test_tile_report(fresh_cache: Path) -> None:
    from warpforge import f32, tile

    module = load(ROOT / "examples" / "tile_vecadd.py")
    k = next(v for v in vars(module).values() if type(v).__name__ == "TileKernel")
    n = 1 << 12
    r = k.report(tile.spec(f32, (n,), partition=(1024,)), tile.spec(f32, (n,)), tile.spec(f32, (n,)))
    (res,) = r.kernels
    assert res.registers > 0 and not res.spills
    assert res.dynamic_shared_bytes == 0 and "dynamic" not in str(res)


def test_tile_report_counts_the_rings_dynamic_shared_memory(fresh_cache: Path) -> None:
    # `--report` said "0 bytes shared" for matmul, whose 3-stage cp.async ring takes 96 KiB of dynamic shared memory
    module = load(ROOT / "examples" / "matmul.py")
    (res,) = module.matmul_f16.report().kernels
    stages, bm, bn, bk = module.NUM_STAGES, module.BM, module.BN, module.BK
    assert res.dynamic_shared_bytes >= stages * (bm * bk + bk * bn) * 2, res
    assert f"(+ {res.dynamic_shared_bytes} bytes dynamic shared)" in str(res)


SPILLS = """
import warpforge as wf
from warpforge import f32, simt

@simt.kernel(launch_bounds=1024, min_blocks_per_sm=2, checks=False)
def spills(a: simt.Slice[f32], c: simt.DisjointSlice[f32]):
    idx = simt.index_1d()
    i = idx.get()
    r = simt.local_array(96, f32)
    for q in simt.static_range(96):
        r[q] = a[i * 96 + q]
    acc = wf.f32(0)
    for q in simt.static_range(96):
        acc = acc + r[q] * r[95 - q] + r[(q * 7) % 96]
    c[idx] = acc
"""


@needs_ptxas
def test_a_kernel_that_spills_warns_at_its_source_line(fresh_cache: Path, tmp_path: Path) -> None:
    from warpforge.errors import CompileWarning

    path = tmp_path / "spills.py"
    path.write_text(SPILLS)
    k = load(path).spills
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (res,) = k.report().kernels
    assert res.spill_stores > 0 and res.spill_loads > 0 and res.registers <= 32  # 64K regs / (2 x 1024 threads)
    (w,) = [w for w in caught if issubclass(w.category, CompileWarning)]
    assert w.filename == str(path) and w.lineno == SPILLS.splitlines().index("@simt.kernel(launch_bounds=1024, min_blocks_per_sm=2, checks=False)") + 1
    assert "spills registers" in str(w.message) and "min_blocks_per_sm" in str(w.message)


@needs_ptxas
def test_cli_compile_report(tmp_path: Path) -> None:
    env = {**os.environ, "WARPFORGE_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run(
        [str(BIN / "warpforge"), "compile", "examples/sgemm.py", "--emit", "ptx", "-o", str(tmp_path / "out.ptx"), "--report"],
        capture_output=True, text=True, cwd=ROOT, env=env,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    line = proc.stderr.strip().splitlines()[-1]
    assert line.startswith("sgemm (sm_90): ") and " registers, 0 bytes spill stores, 0 bytes spill loads" in line
    assert "16640 bytes shared" in line  # 2 x 8 x (128 + 4) + 2 x 8 x 128 floats
    assert (tmp_path / "out.ptx").read_text().count(".entry sgemm") == 1
