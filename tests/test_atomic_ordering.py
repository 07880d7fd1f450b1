"""Atomic `scope=` and `order=` reach the PTX: every kind × dtype × space × ordering × scope is
spelled `atom{.sem}{.scope}{.space}.op.type` (PTX ISA §9.7.13.5), seq_cst as `fence.sc` + `atom.acquire`
(NVIDIA's PTX interoperability guide, "Atomics ABI"), and assembles with ptxas; message-passing and
store-buffering litmus tests check the orderings on the GPU (and the kernels' logic on the simulator).

Before the fix LLVM's NVPTX backend printed every one of them as a relaxed `.gpu` atom
(`simt.atomic_add(r, 0, 1, scope="system", order="acq_rel")` → `atom.global.add.u32`).
"""

from __future__ import annotations

import importlib.util
import re
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import warpforge as wf
from warpforge import simt
from warpforge.backend.toolkit import find_ptxas, run_ptxas
from warpforge.dialects.nvvm_catalog import ATOM_OPS

from kernel_runner import Backend, backend, poisoned  # noqa: F401 (the fixture)

ORDERS = ("relaxed", "acquire", "release", "acq_rel", "seq_cst")
SCOPES = {"block": "cta", "device": "gpu", "system": "sys"}
DTYPES = ("i32", "u32", "i64", "u64", "f32", "f64", "f16", "bf16")


def _kinds(dtype: str) -> tuple[str, ...]:
    if dtype in ("f16", "bf16"):
        return ("add", "sub")
    if dtype in ("f32", "f64"):
        return ("add", "sub", "exch", "min", "max")
    return ("add", "sub", "and", "or", "xor", "exch", "min", "max")


def _bits(dtype: str) -> int:
    return int(re.sub(r"\D", "", dtype))


def _op_type(kind: str, dtype: str) -> str:
    """The `.op.type` of the native `atom` (written out here, independently of the compiler's table)."""
    bits = _bits(dtype)
    if kind in ("add", "sub"):
        if dtype in ("f16", "bf16"):
            return f"add.noftz.{dtype}"
        return f"add.f{bits}" if dtype.startswith("f") else f"add.u{bits}"
    if kind in ("and", "or", "xor", "exch"):
        return f"{kind}.b{bits}"
    sign = "s" if dtype.startswith("i") else "u"
    return f"{kind}.{sign}{bits}"


def expected_instructions(kind: str, dtype: str, space: str, order: str, scope: str) -> list[str]:
    """The PTX instruction(s) (mnemonic with qualifiers) one `simt.atomic_<kind>` must become."""
    sc = SCOPES[scope]
    if dtype.startswith("f") and kind in ("min", "max"):
        # no float atom.min/max: a compare-and-swap loop whose cas carries the ordering (LLVM prints .relaxed)
        sem = {"seq_cst": "acquire"}.get(order, order)
        cas = f"atom.{sem}.{sc}.{space}.cas.b{_bits(dtype)}"
        return [f"fence.sc.{sc}", cas] if order == "seq_cst" else [cas]
    if order == "relaxed" and scope != "system":
        return [f"atom.{space}.{_op_type(kind, dtype)}"]  # LLVM's atomicrmw: .gpu scope, at least as strong
    sem = "" if order == "relaxed" else "." + {"seq_cst": "acquire"}.get(order, order)
    atom = f"atom{sem}.{sc}.{space}.{_op_type(kind, dtype)}"
    return [f"fence.sc.{sc}", atom] if order == "seq_cst" else [atom]


def _kernel_source(dtype: str, space: str) -> tuple[str, list[list[str]]]:
    """A kernel with one atomic per kind × order × scope (results stored, so none is dropped)."""
    lines = [
        "import warpforge as wf",
        "from warpforge import simt",
        "",
        "@simt.kernel(checks=False)",
        f"def k(a: simt.AtomicSlice[wf.{dtype}], v: simt.Slice[wf.{dtype}], o: simt.unsafe.RawSlice[wf.{dtype}]):",
        "    i = simt.index_1d().get()",
        "    x = v[i]",
    ]
    if space == "shared":
        lines.append(f"    s = simt.shared_array(256, wf.{dtype})")
    target = "s" if space == "shared" else "a"
    expected: list[list[str]] = []
    n = 0
    for kind in _kinds(dtype):
        for order in ORDERS:
            for scope in SCOPES:
                lines.append(f"    o[{n}] = simt.atomic_{kind}({target}, {n}, x, scope={scope!r}, order={order!r})")
                expected.append(expected_instructions(kind, dtype, space, order, scope))
                n += 1
    return "\n".join(lines) + "\n", expected


def _load(tmp_path: Path, name: str, source: str):
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def instructions(ptx: str) -> list[str]:
    """Every atom/red/fence/membar instruction of `ptx` (mnemonic and qualifiers), in order."""
    found: list[str] = []
    for line in ptx.splitlines():
        for stmt in line.split(";"):
            word = stmt.strip().split(None, 1)[0] if stmt.strip() else ""
            if word.startswith(("atom.", "red.", "fence.", "membar.")):
                found.append(word)
    return found


@pytest.mark.parametrize("space", ["global", "shared"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_every_combination_is_spelled_in_ptx(tmp_path: Path, dtype: str, space: str) -> None:
    source, expected = _kernel_source(dtype, space)
    module = _load(tmp_path, f"atomics_{dtype}_{space}", source)
    ptx = module.k.ir("ptx")
    found = Counter(instructions(ptx))
    want = Counter(i for group in expected for i in group)
    assert found == want, f"missing: {want - found}\nunexpected: {found - want}"
    if find_ptxas() is not None:
        run_ptxas(ptx, "sm_90", verbose=False)
        if dtype != "bf16":  # the oldest chip CUDA 13's ptxas assembles (bf16 atomics need sm_90)
            run_ptxas(module.k.ir("ptx", chip="sm_75", features="+ptx63"), "sm_75", verbose=False)


@simt.kernel
def issue_example(r: simt.AtomicSlice[wf.u32], out: simt.DisjointSlice[wf.u32]):
    idx = simt.index_1d()
    out[idx] = simt.atomic_add(r, 0, 1, scope="system", order="acq_rel")


def test_issue_example_emits_acq_rel_sys() -> None:
    ptx = issue_example.ir("ptx")
    assert "atom.acq_rel.sys.global.add.u32" in ptx
    assert "atom.global.add.u32" not in ptx
    if find_ptxas() is not None:
        run_ptxas(ptx, "sm_90", verbose=False)


@simt.kernel
def cas_orders(a: simt.AtomicSlice[wf.i64], out: simt.unsafe.RawSlice[wf.i64]):
    out[0] = simt.atomic_cas(a, 0, 1, 2, scope="block", order="acquire")
    out[1] = simt.atomic_cas(a, 1, 1, 2, scope="device", order="release")
    out[2] = simt.atomic_cas(a, 2, 1, 2, scope="system", order="acq_rel")
    out[3] = simt.atomic_cas(a, 3, 1, 2, scope="device", order="seq_cst")
    out[4] = simt.atomic_cas(a, 4, 1, 2, scope="system")


def test_compare_and_swap_keeps_ordering_and_scope() -> None:
    ptx = cas_orders.ir("ptx")
    assert [i for i in instructions(ptx) if i.startswith(("atom.", "fence."))][-6:] == [
        "atom.acquire.cta.global.cas.b64",
        "atom.release.gpu.global.cas.b64",
        "atom.acq_rel.sys.global.cas.b64",
        "fence.sc.gpu",
        "atom.acquire.gpu.global.cas.b64",
        "atom.relaxed.sys.global.cas.b64",
    ]
    if find_ptxas() is not None:
        run_ptxas(ptx, "sm_90", verbose=False)


@simt.kernel
def ordered_on_pascal(a: simt.AtomicSlice[wf.u32]):
    simt.atomic_add(a, 0, 1, order="release")


@simt.kernel
def system_on_maxwell(a: simt.AtomicSlice[wf.u32]):
    simt.atomic_add(a, 0, 1, scope="system")


def test_orderings_the_chip_lacks_are_refused_at_compile_time() -> None:
    """`.sem` needs sm_70 (PTX 6.0), `.scope` sm_60: refused with the source line, never weakened."""
    with pytest.raises(wf.CompileError, match=r"test_atomic_ordering\.py:\d+:\d+: error: .*atom.release.gpu.global.add.u32. needs sm_70"):
        ordered_on_pascal.ir("ptx", chip="sm_61", features="+ptx50")
    with pytest.raises(wf.CompileError, match=r"test_atomic_ordering\.py:\d+:\d+: error: .*atom.sys.global.add.u32. needs sm_60"):
        system_on_maxwell.ir("ptx", chip="sm_52", features="+ptx41")


@simt.kernel
def ordered_reads_are_coherent(x: simt.Slice[wf.f32], flag: simt.AtomicSlice[wf.u32], out: simt.DisjointSlice[wf.f32]):
    idx = simt.index_1d()
    i = idx.get()
    if simt.atomic_add(flag, 0, 0, order="acquire") != 0:
        out[idx] = x[i]


@simt.kernel
def plain_reads(x: simt.Slice[wf.f32], flag: simt.AtomicSlice[wf.u32], out: simt.DisjointSlice[wf.f32]):
    idx = simt.index_1d()
    i = idx.get()
    if simt.atomic_add(flag, 0, 0) != 0:
        out[idx] = x[i]


def _kernel_signature(ll: str) -> str:
    return next(line for line in ll.splitlines() if line.startswith("define ptx_kernel"))


def test_kernel_with_ordered_atomics_reads_without_the_noncoherent_cache() -> None:
    """An acquire publishes other threads' writes: the kernel's loads must not be `ld.global.nc`
    (and LLVM must not move them above the inline PTX, so the parameters lose `noalias`)."""
    assert "ld.global.nc" not in ordered_reads_are_coherent.ir("ptx")
    assert "noalias" not in _kernel_signature(ordered_reads_are_coherent.ir("ll"))
    # control: with only relaxed atomics the parameters keep noalias/readonly and the read is .nc
    assert "noalias readonly" in _kernel_signature(plain_reads.ir("ll"))
    assert "ld.global.nc" in plain_reads.ir("ptx")


# --------------------------------------------------------------------------- litmus tests

SPIN_LIMIT = 1 << 22
"""Spins before a consumer gives up: a message that never arrives is a reported failure, never a hang."""

WORDS = 4
"""Data words per message (written before the flag, read after it)."""


_MP_SOURCE = """
import warpforge as wf
from warpforge import simt

@simt.kernel(contract=simt.Contract(domain=1, block=(128, 1, 1)))
def mp(data: simt.unsafe.RawSlice[wf.u32], flags: simt.AtomicSlice[wf.u32], out: simt.unsafe.RawSlice[wf.u32],
       status: simt.unsafe.RawSlice[wf.u32], seed: wf.u32, producers: wf.i64):
    g = simt.index_1d().get()
    if g < producers:  # producer of message g: the data, then the flag with release
        for w in range({words}):
            data[g * {words} + w] = seed * wf.u32({words}) + wf.u32(g * {words} + w)
        simt.atomic_exch(flags, g, seed, scope="{scope}", order="{release}")
    else:  # consumer of message g - producers (another block): the flag with acquire, then the data
        m = g - producers
        spins = 0
        seen = simt.atomic_or(flags, m, 0, scope="{scope}", order="{acquire}")
        while seen != seed and spins < {spin_limit}:
            seen = simt.atomic_or(flags, m, 0, scope="{scope}", order="{acquire}")
            spins += 1
        if seen == seed:
            for w in range({words}):
                out[m * {words} + w] = data[m * {words} + w]
            status[m] = 1
        else:
            status[m] = 2
"""


def _mp_kernel(release: str, acquire: str, scope: str):
    """The MP kernel for one (release order, acquire order, scope); the orders are keyword strings,
    so each variant is its own generated source file."""
    import tempfile

    name = f"mp_{release}_{acquire}_{scope}"
    source = _MP_SOURCE.format(release=release, acquire=acquire, scope=scope, words=WORDS, spin_limit=SPIN_LIMIT)
    return _load(Path(tempfile.mkdtemp(prefix="wf-litmus-")), name, source).mp


MP_CASES = [("release", "acquire", "device"), ("acq_rel", "acq_rel", "device"), ("seq_cst", "seq_cst", "device"),
            ("release", "acquire", "system")]  # fmt: skip
MP_KERNELS = {case: _mp_kernel(*case) for case in MP_CASES}


@pytest.mark.parametrize("case", MP_CASES, ids=["-".join(c) for c in MP_CASES])
def test_message_passing_between_blocks(backend: Backend, case: tuple[str, str, str]) -> None:
    """MP litmus at GPU (or system) scope: thread g of the first half of the grid writes WORDS words
    and releases flag g; thread g of the second half (another block) acquires it, then must read the
    words written before the release. Fresh flag values per trial (the seed), data poisoned first."""
    kernel = MP_KERNELS[case]
    release, acquire, scope = case
    ptx = kernel.ir("ptx")
    assert f"atom.{ {'seq_cst': 'acquire'}.get(release, release)}.{SCOPES[scope]}.global.exch.b32" in ptx
    assert f"atom.{ {'seq_cst': 'acquire'}.get(acquire, acquire)}.{SCOPES[scope]}.global.or.b32" in ptx
    blocks = 32 if backend.name == "gpu" else 2  # 16 producer + 16 consumer blocks: all resident at once
    producers = blocks // 2 * 128
    trials = 50 if backend.name == "gpu" else 2
    rng = np.random.default_rng(8)
    for trial in range(trials):
        seed = np.uint32(rng.integers(1, 1 << 30))
        data = poisoned(producers * WORDS, np.uint32)
        flags = rng.integers(0, 1 << 30, producers).astype(np.uint32)
        flags[flags == seed] += 1  # never the fresh value
        out = poisoned(producers * WORDS, np.uint32)
        status = np.zeros(producers, np.uint32)
        _, _, out, status = backend.run(kernel, blocks, 128, data, flags, out, status, seed, producers)
        assert (status != 2).all(), f"trial {trial}: {(status == 2).sum()} consumers timed out waiting for the flag"
        assert (status == 1).all(), f"trial {trial}: {(status != 1).sum()} consumers never finished"
        expected = seed.astype(np.uint64) * WORDS + np.arange(producers * WORDS, dtype=np.uint64)
        bad = out != expected.astype(np.uint32)
        assert not bad.any(), f"trial {trial}: {bad.sum()} words read stale after the acquire (first at {np.flatnonzero(bad)[:5]})"


@simt.kernel(contract=simt.Contract(domain=1, block=(256, 1, 1)))
def mp_shared(out: simt.unsafe.RawSlice[wf.u32], status: simt.unsafe.RawSlice[wf.u32], seed: wf.u32):
    """Within a CTA, in shared memory at block scope: threads 0–127 (warps 0–3) write WORDS words and
    release their flag; thread t + 128 (another warp) acquires flag t and reads the words."""
    t = simt.thread_idx.x
    data = simt.shared_array(128 * WORDS, wf.u32)
    flags = simt.shared_array(128, wf.u32)
    if t < 128:
        flags[t] = 0
    simt.sync_threads()
    base = simt.block_idx.x * 128
    if t < 128:
        for w in range(WORDS):
            data[t * WORDS + w] = seed + wf.u32(t * WORDS + w)
        simt.atomic_exch(flags, t, 1, scope="block", order="release")
    else:
        m = t - 128
        spins = 0
        seen = simt.atomic_or(flags, m, 0, scope="block", order="acquire")
        while seen == 0 and spins < SPIN_LIMIT:
            seen = simt.atomic_or(flags, m, 0, scope="block", order="acquire")
            spins += 1
        if seen == 1:
            for w in range(WORDS):
                out[(base + m) * WORDS + w] = data[m * WORDS + w]
            status[base + m] = 1
        else:
            status[base + m] = 2


def test_message_passing_in_shared_memory_at_block_scope(backend: Backend) -> None:
    ptx = mp_shared.ir("ptx")
    assert "atom.release.cta.shared.exch.b32" in ptx and "atom.acquire.cta.shared.or.b32" in ptx
    blocks = 64 if backend.name == "gpu" else 2
    trials = 50 if backend.name == "gpu" else 2
    rng = np.random.default_rng(9)
    for trial in range(trials):
        seed = np.uint32(rng.integers(1, 1 << 30))
        out = poisoned(blocks * 128 * WORDS, np.uint32)
        status = np.zeros(blocks * 128, np.uint32)
        out, status = backend.run(mp_shared, blocks, 256, out, status, seed)
        assert (status != 2).all(), f"trial {trial}: {(status == 2).sum()} consumers timed out"
        assert (status == 1).all()
        expected = (seed + np.tile(np.arange(128 * WORDS, dtype=np.uint32), blocks)).astype(np.uint32)
        bad = out != expected
        assert not bad.any(), f"trial {trial}: {bad.sum()} shared words read stale after the acquire"


@simt.kernel(contract=simt.Contract(domain=1, block=(128, 1, 1)))
def store_buffering(xy: simt.AtomicSlice[wf.u32], seen: simt.unsafe.RawSlice[wf.u32], pairs: wf.i64):
    """SB litmus with seq_cst: thread g < pairs stores x[g] then loads y[g]; thread g + pairs (another
    block) stores y[g] then loads x[g]. Sequential consistency forbids both loads seeing 0."""
    g = simt.index_1d().get()
    if g < pairs:
        simt.atomic_exch(xy, 2 * g, 1, order="seq_cst")
        seen[g] = simt.atomic_or(xy, 2 * g + 1, 0, order="seq_cst")
    else:
        m = g - pairs
        simt.atomic_exch(xy, 2 * m + 1, 1, order="seq_cst")
        seen[g] = simt.atomic_or(xy, 2 * m, 0, order="seq_cst")


def test_store_buffering_is_forbidden_under_seq_cst(backend: Backend) -> None:
    # one fence.sc per seq_cst atomic: 4 in the proven specialization a launch runs (its checks
    # decided at launch); the kernel as compiled holds hoist-checks' two copies of the body
    assert store_buffering.compile("sm_90").launch_condition
    assert instructions(store_buffering.proven_specialization().ir("ptx")).count("fence.sc.gpu") == 4
    assert instructions(store_buffering.ir("ptx")).count("fence.sc.gpu") == 2 * 4
    blocks = 32 if backend.name == "gpu" else 2
    pairs = blocks // 2 * 128
    trials = 50 if backend.name == "gpu" else 2
    for trial in range(trials):
        xy = np.zeros(2 * pairs, np.uint32)
        seen = poisoned(2 * pairs, np.uint32)
        xy, seen = backend.run(store_buffering, blocks, 128, xy, seen, pairs)
        assert (xy == 1).all()
        assert np.isin(seen, (0, 1)).all(), "a load saw neither the old nor the new value"
        both_zero = (seen[:pairs] == 0) & (seen[pairs:] == 0)
        assert not both_zero.any(), f"trial {trial}: {both_zero.sum()} pairs saw both flags 0 (SB allowed: not seq_cst)"



# --------------------------------------------------------------------------- nvvm.atomicrmw, row by row

_ROW_SEMS = ("relaxed", "acquire", "release", "acq_rel", "seq_cst")


def _row_module(op: str, typ: str) -> str:
    """MLIR text: one kernel applying `nvvm.atomicrmw <op>` on `typ` with every sem × scope × space,
    each old value stored to a global output (so none is dropped)."""
    lines = []
    n = 0
    for space in (1, 3):
        for sem in _ROW_SEMS:
            for scope in ("cta", "gpu", "sys", "cluster"):
                p = "%g" if space == 1 else "%s"
                lines.append(f"    %r{n} = nvvm.atomicrmw {op} {p}, %v {{sem = \"{sem}\", scope = \"{scope}\"}} : !llvm.ptr<{space}>, {typ}")
                lines.append(f"    %o{n} = llvm.getelementptr inbounds %out[{n}] : (!llvm.ptr<1>) -> !llvm.ptr<1>, {typ}")
                lines.append(f"    llvm.store %r{n}, %o{n} : {typ}, !llvm.ptr<1>")
                n += 1
    body = "\n".join(lines)
    return f"""builtin.module {{
  gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">] {{
    llvm.func @k(%g: !llvm.ptr<1>, %s: !llvm.ptr<3>, %out: !llvm.ptr<1>, %v: {typ}) attributes {{nvvm.kernel}} {{
{body}
      llvm.return
    }}
  }}
}}"""


@pytest.mark.parametrize("row", sorted(ATOM_OPS))
def test_every_atom_row_assembles_with_every_sem_scope_and_space(row: tuple[str, str]) -> None:
    """Each `ATOM_OPS` row through `convert-nvvm-to-llvm`, the exporter and NVPTX: the PTX holds
    `atom{.sem}.<scope>.<space>.<ptx>` for all 40 combinations, and ptxas assembles it for sm_90."""
    from xdsl.parser import Parser

    from warpforge.backend.export import export_llvm_ir
    from warpforge.backend.nvptx import NVPTXOptions, compile_ptx
    from warpforge.context import make_context
    from warpforge.pipelines import run_pipeline

    op, typ = row
    spec = ATOM_OPS[row]
    module = Parser(make_context(), _row_module(op, typ)).parse_module()
    run_pipeline(module, "check-nvvm-target,convert-nvvm-to-llvm,reconcile-unrealized-casts")
    ptx = compile_ptx(str(export_llvm_ir(module)), NVPTXOptions(chip="sm_90", features="+ptx80"))
    want = Counter()
    for space in ("global", "shared"):
        for sem in _ROW_SEMS:
            for scope in ("cta", "gpu", "sys", "cluster"):
                q = "" if sem == "relaxed" else "." + {"seq_cst": "acquire"}.get(sem, sem)
                want[f"atom{q}.{scope}.{space}.{spec.ptx}"] += 1
                if sem == "seq_cst":
                    want[f"fence.sc.{scope}"] += 1
    assert Counter(instructions(ptx)) == want
    if find_ptxas() is not None:
        run_ptxas(ptx, "sm_90", verbose=False)


@simt.kernel
def ordered_pairs(a: simt.AtomicSlice[wf.f16], out: simt.unsafe.RawSlice[wf.f16]):
    lo, hi = simt.atomic_add_pair(a, 0, wf.f16(1.0), wf.f16(2.0), scope="system", order="release")
    out[0] = lo
    out[1] = hi


def test_f16_pair_add_keeps_ordering_in_its_cas_loop() -> None:
    """LLVM 22 makes the f16x2 add a compare-and-swap loop, whose `cmpxchg` keeps order and scope."""
    ptx = ordered_pairs.ir("ptx")
    assert "atom.release.sys.global.cas.b32" in instructions(ptx)
    if find_ptxas() is not None:
        run_ptxas(ptx, "sm_90", verbose=False)


# --------------------------------------------------------------------------- values of the inline-PTX atomics

_VALUE_SOURCE = """
import warpforge as wf
from warpforge import simt

@simt.kernel(contract=simt.Contract(domain=1, block=(256, 1, 1)))
def k(a: simt.AtomicSlice[wf.{t}], v: simt.Slice[wf.{t}], init: simt.Slice[wf.{t}], olds: simt.unsafe.RawSlice[wf.{t}],
      out: simt.unsafe.RawSlice[wf.{t}]):
    i = simt.index_1d().get()
    t = simt.thread_idx.x
    x = v[i]
    s = simt.shared_array({n}, wf.{t})
    if t < {n}:
        s[t] = init[0]
    simt.sync_threads()
{body}
    simt.sync_threads()
    if t < {n}:
        out[simt.block_idx.x * {n} + t] = s[t]
"""


def _value_kernel(dtype: str):
    import tempfile

    kinds = _kinds(dtype)
    n = len(kinds)
    body = []
    for j, kind in enumerate(kinds):  # global: system scope, acq_rel; shared: block scope, seq_cst
        body.append(f'    olds[i * {2 * n} + {j}] = simt.atomic_{kind}(a, {j}, x, scope="system", order="acq_rel")')
        body.append(f'    olds[i * {2 * n} + {n + j}] = simt.atomic_{kind}(s, {j}, x, scope="block", order="seq_cst")')
    source = _VALUE_SOURCE.format(t=dtype, n=n, body="\n".join(body))
    return _load(Path(tempfile.mkdtemp(prefix="wf-atomic-values-")), f"atomic_values_{dtype}", source).k, kinds


def _combine(kind: str, init, values: np.ndarray):
    """The final value after applying `kind` with every value (in any order: all these commute)."""
    dt = values.dtype
    with np.errstate(over="ignore"):
        if kind == "add":
            return (init + values.sum(dtype=dt)).astype(dt)
        if kind == "sub":
            return (init - values.sum(dtype=dt)).astype(dt)
    fold = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor, "min": np.minimum, "max": np.maximum}[kind]
    return fold.reduce(np.concatenate([[init], values]).astype(dt))


@pytest.mark.parametrize("dtype", DTYPES)
def test_ordered_atomics_compute_what_relaxed_ones_do(backend: Backend, dtype: str) -> None:
    """Every kind through the inline-PTX path (global: system/acq_rel, shared: block/seq_cst), all
    threads of the grid on one address per kind: final values as NumPy's, and `exch` hands every value
    on exactly once (old values plus the final one are the initial value plus all written)."""
    kernel, kinds = _value_kernel(dtype)
    n = len(kinds)
    np_t = np.dtype(getattr(wf, dtype).np)
    small = dtype in ("f16", "bf16")
    grid = 1 if small else 4
    count = grid * 256
    rng = np.random.default_rng(11)
    if dtype.startswith(("f", "bf")):
        values = rng.integers(0, 2 if small else 9, count).astype(np_t)  # sums stay exact in any order
        init = np.array([3], np_t)
    else:
        info = np.iinfo(np_t)
        values = rng.integers(info.min, info.max, count, dtype=np_t, endpoint=True)
        init = rng.integers(info.min, info.max, 1, dtype=np_t, endpoint=True)
    a = np.full(n, init[0], np_t)
    olds = poisoned(count * 2 * n, np_t)
    out = np.zeros(grid * n, np_t)
    a, olds, out = (r for k, r in enumerate(backend.run(kernel, grid, 256, a, values, init, olds, out)) if k in (0, 3, 4))
    olds = olds.reshape(count, 2 * n)
    for j, kind in enumerate(kinds):
        per_block = values.reshape(grid, 256)
        if kind == "exch":
            seen = np.sort(np.concatenate([olds[:, j], [a[j]]]).view(f"u{np_t.itemsize}"))
            np.testing.assert_array_equal(seen, np.sort(np.concatenate([init, values]).view(f"u{np_t.itemsize}")), err_msg="global exch")
            for b in range(grid):
                seen = np.sort(np.concatenate([olds[b * 256 : (b + 1) * 256, n + j], [out[b * n + j]]]).view(f"u{np_t.itemsize}"))
                np.testing.assert_array_equal(seen, np.sort(np.concatenate([init, per_block[b]]).view(f"u{np_t.itemsize}")), err_msg="shared exch")
            continue
        np.testing.assert_array_equal(a[j], _combine(kind, init[0], values), err_msg=f"global {kind}")
        for b in range(grid):
            np.testing.assert_array_equal(out[b * n + j], _combine(kind, init[0], per_block[b]), err_msg=f"shared {kind}, block {b}")


@simt.kernel(contract=simt.Contract(domain=1, block=(32, 1, 1)))
def locked_counter(lock: simt.AtomicSlice[wf.u32], counter: simt.unsafe.RawSlice[wf.u32], failed: simt.unsafe.RawSlice[wf.u32],
                   rounds: wf.i64):  # fmt: skip
    """A spin lock (CAS with acquire, exch with release) guarding plain loads and stores: lane 0 of
    every block adds 1 and 2 to two counter words `rounds` times. A lock acquisition that never
    succeeds is recorded in `failed` (bounded spin), never a hang."""
    if simt.thread_idx.x == 0:
        for r in range(rounds):
            spins = 0
            got = simt.atomic_cas(lock, 0, 0, 1, order="acquire") == 0
            while not got and spins < SPIN_LIMIT:
                got = simt.atomic_cas(lock, 0, 0, 1, order="acquire") == 0
                spins += 1
            if got:
                counter[0] = counter[0] + 1
                counter[1] = counter[1] + 2
                simt.atomic_exch(lock, 0, 0, order="release")
            else:
                failed[simt.block_idx.x] = 1


def test_spin_lock_with_acquire_cas_and_release_exch(backend: Backend) -> None:
    """Mutual exclusion needs both orderings: without them increments are lost (a stale counter read
    after taking the lock, or the store still in flight when the lock is released)."""
    ptx = locked_counter.ir("ptx")
    assert "atom.acquire.gpu.global.cas.b32" in instructions(ptx)
    assert "atom.release.gpu.global.exch.b32" in instructions(ptx)
    blocks = 64 if backend.name == "gpu" else 4
    rounds = 50 if backend.name == "gpu" else 3
    for trial in range(5 if backend.name == "gpu" else 1):
        lock = np.zeros(1, np.uint32)
        counter = np.zeros(2, np.uint32)
        failed = np.zeros(blocks, np.uint32)
        lock, counter, failed = backend.run(locked_counter, blocks, 32, lock, counter, failed, rounds)
        assert not failed.any(), f"trial {trial}: {failed.sum()} blocks never got the lock"
        assert lock[0] == 0
        np.testing.assert_array_equal(counter, [blocks * rounds, 2 * blocks * rounds], err_msg=f"trial {trial}: lost updates")


def test_the_exporter_refuses_atomic_loads_it_would_make_plain() -> None:
    """`llvm.load/store atomic` has no exporter support (llvmlite's builder takes no sync scope): an
    error naming the op, not a plain load with the ordering dropped."""
    from xdsl.parser import Parser

    from warpforge.backend.export import ExportError, export_llvm_ir
    from warpforge.context import make_context

    load = """llvm.func @f(%p: !llvm.ptr<1>) -> i32 {
      %x = llvm.load %p atomic acquire {alignment = 4 : i64} : !llvm.ptr<1> -> i32
      llvm.return %x : i32
    }"""
    store = """llvm.func @g(%p: !llvm.ptr<1>, %v: i32) {
      "llvm.store"(%v, %p) <{ordering = 5 : i64, alignment = 4 : i64}> : (i32, !llvm.ptr<1>) -> ()
      llvm.return
    }"""
    for text, name in ((load, "llvm.load"), (store, "llvm.store")):
        with pytest.raises(ExportError, match=f"'{name}' is atomic"):
            export_llvm_ir(Parser(make_context(), text).parse_module())
