"""The on-disk kernel cache: hits, a miss for every part of the key, corrupted and truncated entries,
concurrent writers, LRU eviction, WARPFORGE_CACHE=0, and `warpforge cache info/clear`.

Every test works in its own cache directory (the `cache` fixture); kernels are written to files
under `tmp_path` and imported fresh, so a "new process" is a new kernel object whose in-memory cache
is empty and whose only way to skip compiling is the disk.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import multiprocessing
import os
import re
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest

from warpforge import cache as wf_cache
from warpforge.cache import DiskCache, decode, encode

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
_modules = itertools.count()

VECADD = """
import warpforge as wf
from warpforge import f32, simt

SCALE = {scale}

@simt.device
def twice(x):
    return x * {device_factor}

@simt.kernel(contract=simt.Contract(domain=1, block=(256, 1, 1)), checks={checks})
def vecadd(a: simt.Slice[f32], b: simt.Slice[f32], c: simt.DisjointSlice[f32]):
    idx = simt.index_1d()
    i = idx.get()
    c[idx] = twice(a[i]) + b[i] * SCALE
"""


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> DiskCache:
    directory = tmp_path / "cache"
    monkeypatch.setenv("WARPFORGE_CACHE_DIR", str(directory))
    monkeypatch.delenv("WARPFORGE_CACHE", raising=False)
    monkeypatch.delenv("WARPFORGE_CACHE_MAX_BYTES", raising=False)
    wf_cache.stats.clear()
    return DiskCache(directory)


def load(path: Path):
    """Import `path` as a fresh module (a new kernel object each time)."""
    spec = importlib.util.spec_from_file_location(f"_cache_test_{next(_modules)}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_kernel(path: Path, *, scale: float = 2.0, device_factor: str = "2.0", checks: bool = True) -> Path:
    path.write_text(VECADD.format(scale=scale, device_factor=device_factor, checks=checks))
    return path


def same_code(a, b) -> bool:
    """Equal compiled kernels; the PTX up to LLVM's `// callseq N` comments, whose numbers run on
    across compilations in one process."""
    from dataclasses import replace

    def norm(ptx: str) -> str:
        return re.sub(r"callseq \d+", "callseq N", ptx)

    return replace(a, ptx=norm(a.ptx)) == replace(b, ptx=norm(b.ptx))


def entries(store: DiskCache, kind: str = "kernel") -> list[Path]:
    return sorted(store.entries.glob(f"{kind}-*.wfc")) if store.entries.exists() else []


# --------------------------------------------------------------------------- hits and misses


def test_second_compile_is_a_disk_hit_with_identical_kernel(cache: DiskCache, tmp_path: Path) -> None:
    path = write_kernel(tmp_path / "k.py")
    first = load(path).vecadd.compile("sm_90")
    assert wf_cache.stats["write"] == 1 and wf_cache.stats["hit"] == 0
    assert len(entries(cache)) == 1
    second = load(path).vecadd.compile("sm_90")  # a new kernel object: only the disk knows it
    assert wf_cache.stats["hit"] == 1 and wf_cache.stats["write"] == 1
    assert second == first  # every field: PTX, parameters, error sites, contract, source line
    assert second.error_sites and second.error_sites[0].filename == str(path)


def test_ir_ptx_and_compile_share_the_entry(cache: DiskCache, tmp_path: Path) -> None:
    path = write_kernel(tmp_path / "k.py")
    ptx = load(path).vecadd.ir("ptx")
    assert wf_cache.stats["write"] == 1
    assert load(path).vecadd.compile().ptx == ptx
    assert wf_cache.stats["hit"] == 1


def test_every_key_part_misses(cache: DiskCache, tmp_path: Path) -> None:
    from warpforge import simt
    from warpforge.compile import simt_key

    base = write_kernel(tmp_path / "base.py")
    k = load(base).vecadd
    key = simt_key(k, "sm_90", "+ptx80")
    assert key == simt_key(load(base).vecadd, "sm_90", "+ptx80")  # stable across kernel objects
    variants = {
        "chip": simt_key(k, "sm_80", "+ptx80"),
        "PTX version": simt_key(k, "sm_90", "+ptx81"),
        "closure constant": simt_key(load(write_kernel(tmp_path / "base.py", scale=3.0)).vecadd, "sm_90", "+ptx80"),
        "device function source": simt_key(load(write_kernel(tmp_path / "base.py", device_factor="3.0")).vecadd, "sm_90", "+ptx80"),
        "option (checks)": simt_key(load(write_kernel(tmp_path / "base.py", checks=False)).vecadd, "sm_90", "+ptx80"),
        "file": simt_key(load(write_kernel(tmp_path / "other.py")).vecadd, "sm_90", "+ptx80"),
    }
    write_kernel(base)
    fn = load(base).vecadd.fn
    variants["fastmath"] = simt_key(simt.kernel(fastmath=True, contract=k.contract)(fn), "sm_90", "+ptx80")
    # launch_bounds with an exact contract block is refused at the decorator: compare against a domain-only contract
    bounded = simt_key(simt.kernel(launch_bounds=128, contract=simt.Contract(domain=1))(fn), "sm_90", "+ptx80")
    assert bounded != simt_key(simt.kernel(launch_bounds=256, contract=simt.Contract(domain=1))(fn), "sm_90", "+ptx80")
    variants["launch bounds"] = bounded
    variants["contract"] = simt_key(simt.kernel(contract=simt.Contract(domain=1, block=(128, 1, 1)))(fn), "sm_90", "+ptx80")
    variants["min blocks per SM"] = simt_key(simt.kernel(contract=k.contract, min_blocks_per_sm=2)(fn), "sm_90", "+ptx80")
    assert simt_key(simt.kernel(contract=k.contract)(fn), "sm_90", "+ptx80") == key
    for what, other in variants.items():
        assert other is not None and other != key, what
    assert len(set(variants.values())) == len(variants)


def test_line_numbers_are_part_of_the_key(cache: DiskCache, tmp_path: Path) -> None:
    # the same source one line lower compiles to other .loc lines and error sites
    path = write_kernel(tmp_path / "k.py")
    first = load(path).vecadd.compile()
    path.write_text("\n" + path.read_text())
    moved = load(path).vecadd.compile()
    assert wf_cache.stats["hit"] == 0 and wf_cache.stats["write"] == 2
    assert moved.error_sites[0].line == first.error_sites[0].line + 1


def test_compiler_fingerprint_is_part_of_the_key(cache: DiskCache, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from warpforge.compile import simt_key

    k = load(write_kernel(tmp_path / "k.py")).vecadd
    key = simt_key(k, "sm_90", "+ptx80")
    monkeypatch.setattr(wf_cache, "compiler_fingerprint", lambda: "a newer warpforge")
    assert simt_key(k, "sm_90", "+ptx80") != key


def test_generic_kernel_specializations_get_their_own_entries(cache: DiskCache, tmp_path: Path) -> None:
    import numpy as np

    path = tmp_path / "generic.py"
    path.write_text(
        textwrap.dedent(
            """
            from warpforge import simt

            @simt.kernel
            def scale(x: simt.Slice, y: simt.DisjointSlice, s):
                idx = simt.index_1d()
                y[idx] = x[idx.get()] * s
            """
        )
    )
    k = load(path).scale
    f32 = k.specialize(np.zeros(4, np.float32), np.zeros(4, np.float32), np.float32(2)).compile()
    f64 = k.specialize(np.zeros(4, np.float64), np.zeros(4, np.float64), np.float64(2)).compile()
    assert wf_cache.stats["write"] == 2 and f32.ptx != f64.ptx
    again = load(path).scale.specialize(np.zeros(4, np.float64), np.zeros(4, np.float64), np.float64(2)).compile()
    assert again == f64 and wf_cache.stats["hit"] == 1


def test_tile_kernels_hit_and_miss_per_specialization(cache: DiskCache, tmp_path: Path) -> None:
    path = tmp_path / "tk.py"
    path.write_text(
        textwrap.dedent(
            """
            import warpforge as wf
            from warpforge import f32, tile

            @tile.kernel
            def add(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)], y: tile.Tensor[f32, (-1,)]):
                z.store(tile.load_tile_like(x, z) + tile.load_tile_like(y, z))
            """
        )
    )
    from warpforge import f32, tile

    def args(n: int, t: int):
        return (tile.spec(f32, (n,), partition=(t,)), tile.spec(f32, (n,)), tile.spec(f32, (n,)))

    first = load(path).add.compile(*args(1024, 128))
    assert wf_cache.stats["write"] == 1
    again = load(path).add.compile(*args(1024, 128))
    assert wf_cache.stats["hit"] == 1
    assert (again.kernel, again.grid_param, again.block, again.like_pairs) == (first.kernel, first.grid_param, first.block, first.like_pairs)
    other = load(path).add.compile(*args(1024, 256))  # another tile shape: another specialization
    assert wf_cache.stats["write"] == 2 and other.kernel.ptx != first.kernel.ptx


# --------------------------------------------------------------------------- damaged entries


@pytest.mark.parametrize("damage", ["flip a byte", "truncate", "empty", "other format", "bad metadata"])
def test_damaged_entries_are_recompiled_never_trusted(cache: DiskCache, tmp_path: Path, damage: str) -> None:
    path = write_kernel(tmp_path / "k.py")
    good = load(path).vecadd.compile()
    (entry,) = entries(cache)
    data = entry.read_bytes()
    if damage == "flip a byte":
        i = data.index(b".entry")  # inside the PTX: the checksum is what catches it
        data = data[:i] + b"X" + data[i + 1 :]
    elif damage == "truncate":
        data = data[: len(data) // 2]
    elif damage == "empty":
        data = b""
    elif damage == "other format":
        data = data.replace(wf_cache.MAGIC, b"WARPFORGE-CACHE 0\n", 1)
    else:  # a well-formed entry whose metadata is not a kernel's
        key = entry.name[len("kernel-") : -len(".wfc")]
        data = encode("kernel", key, {"meta": json.dumps({"kernel": {"name": 1}}).encode(), "ptx": b"junk"})
    entry.write_bytes(data)
    again = load(path).vecadd.compile()
    assert same_code(again, good)
    assert wf_cache.stats["corrupt"] == 1 and wf_cache.stats["write"] == 2
    assert decode(entry.read_bytes(), "kernel", entry.name[len("kernel-") : -len(".wfc")]) is not None  # rewritten whole


def test_decode_refuses_an_entry_for_another_key() -> None:
    data = encode("kernel", "a" * 64, {"meta": b"{}", "ptx": b""})
    assert decode(data, "kernel", "a" * 64) == {"meta": b"{}", "ptx": b""}
    assert decode(data, "kernel", "b" * 64) is None
    assert decode(data, "cubin", "a" * 64) is None


# --------------------------------------------------------------------------- concurrency, eviction, switches


def _compile_in_child(path: str, cache_dir: str, queue) -> None:  # a multiprocessing target
    os.environ["WARPFORGE_CACHE_DIR"] = cache_dir
    spec = importlib.util.spec_from_file_location("_concurrent_kernel", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    queue.put(module.vecadd.compile().ptx)


def _hammer(cache_dir: str, worker: int, rounds: int, queue) -> None:  # a multiprocessing target
    store = DiskCache(Path(cache_dir))
    bad = 0
    for r in range(rounds):
        blob = bytes([worker]) * (1000 + 37 * r)  # every writer writes different bytes under one key
        store.put("kernel", "shared", {"meta": blob})
        got = store.get("kernel", "shared")
        if got is not None and set(got["meta"]) - {0, 1, 2, 3}:
            bad += 1
    queue.put(bad)


def test_concurrent_writers_of_one_kernel(tmp_path: Path) -> None:
    path = write_kernel(tmp_path / "k.py")
    cache_dir = tmp_path / "shared-cache"
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    procs = [ctx.Process(target=_compile_in_child, args=(str(path), str(cache_dir), queue)) for _ in range(3)]
    for p in procs:
        p.start()
    results = [queue.get(timeout=240) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    assert len(set(results)) == 1
    store = DiskCache(cache_dir)
    (entry,) = entries(store)
    assert decode(entry.read_bytes(), "kernel", entry.name[len("kernel-") : -len(".wfc")]) is not None
    assert not list(store.entries.glob("*.tmp"))  # no writer left its temporary file behind


def test_concurrent_writers_never_expose_half_an_entry(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    procs = [ctx.Process(target=_hammer, args=(str(tmp_path), w, 150, queue)) for w in range(4)]
    for p in procs:
        p.start()
    bad = [queue.get(timeout=240) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    assert bad == [0, 0, 0, 0]
    got = DiskCache(tmp_path).get("kernel", "shared")
    assert got is not None and len(set(got["meta"])) == 1  # one writer's whole entry


def test_lru_eviction_keeps_the_cache_under_its_bound(tmp_path: Path) -> None:
    size = len(encode("kernel", "k0", {"meta": bytes(1000)}))
    store = DiskCache(tmp_path, bound=3 * size + size // 2)  # room for three entries, not four
    for i in range(3):
        store.put("kernel", f"k{i}", {"meta": bytes(1000)})
        os.utime(store.path("kernel", f"k{i}"), (1000 + i, 1000 + i))  # k0 oldest
    assert store.get("kernel", "k0") is not None  # a hit makes k0 the most recently used
    store.put("kernel", "k3", {"meta": bytes(1000)})
    names = {p.name for p in entries(store)}
    assert names == {"kernel-k0.wfc", "kernel-k2.wfc", "kernel-k3.wfc"}  # k1 was least recently used
    assert store.info().bytes <= store.bound


def test_cache_off_writes_nothing(cache: DiskCache, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WARPFORGE_CACHE", "0")
    path = write_kernel(tmp_path / "k.py")
    load(path).vecadd.compile()
    load(path).vecadd.compile()
    assert not entries(cache) and wf_cache.stats["write"] == 0 and wf_cache.stats["hit"] == 0


def test_unwritable_cache_directory_still_compiles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    monkeypatch.setenv("WARPFORGE_CACHE_DIR", str(blocker))
    wf_cache.stats.clear()
    compiled = load(write_kernel(tmp_path / "k.py")).vecadd.compile()
    assert ".entry vecadd" in compiled.ptx and wf_cache.stats["write"] == 0


def test_default_directory_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("WARPFORGE_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert wf_cache.cache_dir() == tmp_path / "xdg" / "warpforge"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert wf_cache.cache_dir() == Path.home() / ".cache" / "warpforge"
    monkeypatch.setenv("WARPFORGE_CACHE_DIR", str(tmp_path / "mine"))
    assert wf_cache.cache_dir() == tmp_path / "mine"


# --------------------------------------------------------------------------- the CLI


def test_cli_compile_then_cache_info_and_clear(tmp_path: Path) -> None:
    env = {**os.environ, "WARPFORGE_CACHE_DIR": str(tmp_path / "cli-cache")}
    env.pop("WARPFORGE_CACHE", None)

    def warpforge(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(BIN / "warpforge"), *args], capture_output=True, text=True, cwd=ROOT, env=env)

    first = warpforge("compile", "examples/vecadd.py", "--emit", "ptx")
    assert first.returncode == 0, first.stderr
    info = warpforge("cache", "info")
    assert info.returncode == 0, info.stderr
    assert f"cache directory: {tmp_path / 'cli-cache'}" in info.stdout
    assert "entries: 1 (1 kernel)" in info.stdout
    second = warpforge("compile", "examples/vecadd.py", "--emit", "ptx")  # a new process, from the disk
    assert second.stdout == first.stdout
    cleared = warpforge("cache", "clear")
    assert cleared.returncode == 0 and "removed 1 entries" in cleared.stdout
    assert "entries: 0 (no entries)" in warpforge("cache", "info").stdout
    env["WARPFORGE_CACHE"] = "0"
    assert "state: off" in warpforge("cache", "info").stdout
    warpforge("compile", "examples/vecadd.py", "--emit", "ptx")
    assert "entries: 0" in warpforge("cache", "info").stdout


# --------------------------------------------------------------------------- the compile-size warning


def test_large_kernels_warn_at_their_source_line(cache: DiskCache, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from warpforge import compile as wf_compile
    from warpforge.errors import CompileWarning

    monkeypatch.setattr(wf_compile, "OP_COUNT_WARNING", 10)
    path = write_kernel(tmp_path / "k.py")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load(path).vecadd.compile()
    (w,) = [w for w in caught if issubclass(w.category, CompileWarning)]
    assert w.filename == str(path) and w.lineno == VECADD.splitlines().index("@simt.kernel(contract=simt.Contract(domain=1, block=(256, 1, 1)), checks={checks})") + 1
    assert "ops at the gpu stage" in str(w.message) and "static_range" in str(w.message)


# --------------------------------------------------------------------------- on the GPU: cubins skip the driver JIT


@pytest.mark.gpu
@pytest.mark.parametrize("use_ptxas", [True, False])
def test_gpu_loads_the_cached_cubin_and_runs_it(cache: DiskCache, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, use_ptxas: bool) -> None:
    import numpy as np

    import warpforge as wf
    from warpforge.backend.toolkit import find_ptxas
    from warpforge.runtime import module as rt_module

    if use_ptxas and find_ptxas() is None:
        pytest.skip("ptxas not installed")
    if not use_ptxas:
        monkeypatch.setenv("WARPFORGE_PTXAS", "0")
    monkeypatch.setattr(rt_module, "_cache", {})
    k = load(write_kernel(tmp_path / "k.py", scale=3.0)).vecadd
    dev = wf.Device(0)
    stream = dev.create_stream()
    rng = np.random.default_rng(13)
    n = 5120  # whole blocks: the kernel reads a[i] and b[i] unguarded
    a_host = rng.standard_normal(n).astype(np.float32)
    b_host = rng.standard_normal(n).astype(np.float32)
    a = wf.DeviceBuffer.from_host(stream, a_host)
    b = wf.DeviceBuffer.from_host(stream, b_host)
    c = wf.DeviceBuffer.from_host(stream, np.full(n, np.nan, np.float32))  # poisoned
    prepared = k.prepare(wf.LaunchConfig(grid=(n + 255) // 256, block=256), device=dev)
    k.launch(stream, prepared, a, b, c)
    out = c.to_host(stream)
    np.testing.assert_allclose(out, a_host * np.float32(2.0) + b_host * np.float32(3.0), rtol=1e-6, atol=1e-6)
    # the launch proved vecadd's hoisted checks on the host (grid * block <= len), so it ran the
    # kernel's proven specialization (`proven_specialization()`): the prepared kernel and it are two modules
    launched = [k.compile(dev.chip), k.proven_specialization().compile(dev.chip)]
    for compiled in launched:
        loaded = rt_module.load_kernel(compiled, dev)
        assert loaded.from_cubin is use_ptxas
    if use_ptxas:  # the next process loads both without ptxas or the JIT: one cubin each, nothing else
        assert len(entries(cache, "cubin")) == len({c.ptx for c in launched}) == 2


@pytest.mark.parametrize("variable", wf_cache.BYPASS_ENVIRONMENT)
def test_ir_hooks_bypass_the_cache(cache: DiskCache, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str) -> None:
    path = write_kernel(tmp_path / "k.py")
    load(path).vecadd.compile()  # an entry exists ...
    monkeypatch.setenv(variable, str(tmp_path / "hook"))
    load(path).vecadd.compile()  # ... but a compile that dumps or overrides IR runs every stage
    assert wf_cache.stats["hit"] == 0 and wf_cache.stats["write"] == 1


def test_a_device_function_in_another_file_is_part_of_the_key(cache: DiskCache, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    helper = tmp_path / "cache_helper_mod.py"
    kernel = tmp_path / "uses_helper.py"
    kernel.write_text(
        textwrap.dedent(
            """
            from warpforge import f32, simt
            from cache_helper_mod import twice

            @simt.kernel
            def k(a: simt.Slice[f32], c: simt.DisjointSlice[f32]):
                idx = simt.index_1d()
                c[idx] = twice(a[idx.get()])
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))

    def compile_with(factor: str):
        helper.write_text(f"from warpforge import simt\n\n@simt.device\ndef twice(x):\n    return x * {factor}\n")
        sys.modules.pop("cache_helper_mod", None)
        return load(kernel).k.compile()

    two = compile_with("2.0")
    assert compile_with("2.0") == two and wf_cache.stats["hit"] == 1
    three = compile_with("3.0")  # only the other file changed
    assert wf_cache.stats["hit"] == 1 and wf_cache.stats["write"] == 2
    assert three.ptx != two.ptx
