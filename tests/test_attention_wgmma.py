"""examples/attention.py on Hopper's warpgroup MMA (passes/lowerings/tile_dot_wgmma.py, A from registers):
for sm_90a both products are `wgmma.mma_async` with A from registers — Q·Kᵀ with Q's fragments read
once by `ldmatrix` before the K/V loop and K's ring slot as a K-major B (d = 128: two 64-element
swizzle panels), P·V with P's f16/bf16 pairs straight from the S accumulator and V's slot as an
N-major B — and no `mma.sync`; the PTX goes through `ptxas -arch=sm_90a -v` with no wgmma
serialization note (C75xx) and no spills; other chips keep `mma.sync`. On the simulator at sm_90a
(the wgmma model) and (marked `gpu`) on an H100/H200: seeded random inputs, NaN-poisoned outputs,
sequence lengths not multiples of the tile, f16 and bf16, d 64 and 128, causal and not, against a
float64 NumPy reference."""

import math
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import warpforge as wf
from warpforge import bf16, f16, f32, tile

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
import attention as A  # noqa: E402

SEED = 5521
DTYPES = {"f16": f16, "bf16": bf16}


def _specs(dt, d: int, seq: int = 4096) -> tuple[object, ...]:  # noqa: ANN001
    bm = A.CONFIGS[d][0]
    return (tile.spec(dt, (4, 32, seq, d), partition=(1, 1, bm, d)), *(tile.spec(dt, (4, 32, seq, d)) for _ in range(3)), tile.spec(f32))


def _kernel(dt, d: int, causal: bool):  # noqa: ANN001, ANN202
    return A.attention_f16_d64_causal if (dt, d, causal) == (f16, 64, True) else A.make_attention(dt, d, causal)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("name", ["f16", "bf16"])
def test_sm_90a_ptx_is_register_a_wgmma_and_passes_ptxas(name: str, d: int, causal: bool) -> None:
    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    dt = DTYPES[name]
    bm, bn, _, _ = A.CONFIGS[d]
    ptx = _kernel(dt, d, causal).ir("ptx", *_specs(dt, d), chip="sm_90a")
    reg_a = r"\{[^}]*\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}, %rd\d+, p, 1, 1, (\d);"
    qk = re.findall(rf"wgmma\.mma_async\.sync\.aligned\.m64n{bn}k16\.f32\.{name}\.{name} {reg_a}", ptx)
    pv = re.findall(rf"wgmma\.mma_async\.sync\.aligned\.m64n{d}k16\.f32\.{name}\.{name} {reg_a}", ptx)
    if bn == d:  # one shape for both products: K-major Q·Kᵀ (trans-b 0), N-major P·V (trans-b 1)
        assert sorted(qk) == ["0"] * (2 * d // 16) + ["1"] * (2 * bn // 16), qk
    else:
        assert qk == ["0"] * (2 * d // 16) and pv == ["1"] * (2 * bn // 16), (qk, pv)  # two loops: unmasked and masked tail
    assert "mma.sync" not in ptx
    assert ptx.count("ldmatrix") == d // 16  # Q's A fragments, once, before the loops
    if find_ptxas() is not None:
        report = run_ptxas(ptx, "sm_90a", verbose=True)
        assert re.search(r"\b0 bytes spill stores", report.log), report.log
        assert "C75" not in report.log, report.log  # no "wgmma serialized" notes


@pytest.mark.parametrize("chip", ["sm_90", "sm_80"])
def test_other_chips_keep_mma_sync(chip: str) -> None:
    ptx = A.make_attention(f16, 128, False).ir("ptx", *_specs(f16, 128), chip=chip)
    assert "wgmma" not in ptx and "mma.sync.aligned.m16n8k16" in ptx


def _run(device: wf.Device, dt, d: int, causal: bool, shape: tuple[int, int, int], salt: int) -> None:  # noqa: ANN001
    rng = np.random.default_rng(SEED + salt)
    q, k, v = (rng.standard_normal((*shape, d)).astype(dt.np) for _ in range(3))
    o = wf.full((*shape, d), np.nan, dt).partition((1, 1, A.CONFIGS[d][0], d))  # poisoned: every element written
    got = _kernel(dt, d, causal)(o, wf.from_host(q), wf.from_host(k), wf.from_host(v), math.log2(math.e) / math.sqrt(d))
    out = got.first().unpartition().to_host().sync_on(device.create_stream())
    assert np.isfinite(out).all()
    A.check(f"{dt.name} d={d} causal={causal} {shape}", out, A.reference(q, k, v, causal), dt)


SIM_CASES = {
    # (dtype, d, causal, (B, H, S)): S not a multiple of the 64-key tile (nor of the query tile)
    "bf16_d128": ("bf16", 128, False, (1, 1, 150)),
    "f16_d128_causal": ("f16", 128, True, (1, 1, 200)),
    "bf16_d64": ("bf16", 64, False, (1, 2, 100)),
    "f16_d64_causal": ("f16", 64, True, (1, 2, 80)),
}


@pytest.mark.parametrize("case", list(SIM_CASES))
def test_sm_90a_path_on_the_simulator_matches_numpy(case: str, wgmma_calls: list) -> None:
    name, d, causal, shape = SIM_CASES[case]
    dev = wf.Device.simulator(chip="sm_90a")
    _run(dev, DTYPES[name], d, causal, shape, len(case))
    bn = A.CONFIGS[d][1]
    assert set(wgmma_calls) == {(bn, 16, 2, True), (d, 16, 2, False)}  # Kᵀ K-major, V N-major: both products on wgmma


@pytest.mark.gpu
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("name", ["f16", "bf16"])
def test_gpu_matches_numpy(name: str, d: int, causal: bool) -> None:
    dev = wf.Device(0)
    if dev.chip not in ("sm_90", "sm_90a"):
        pytest.skip("the wgmma path needs an H100/H200")
    _run(dev, DTYPES[name], d, causal, (2, 3, 1000), 3 * d + causal)
    _run(dev, DTYPES[name], d, causal, (1, 2, 4096 + 72), 5 * d + causal)


def _scaled_a_gemm(bm: int, bn: int, bk: int, warps: int, dtype):  # noqa: ANN001, ANN202
    """C = (2·A) @ B with A scaled in registers in the K loop: A is no ring slot, so on sm_90a the
    dot is wgmma with A from registers staged through a padded shared array (`register_a_fragments`)."""

    @tile.kernel(num_warps=warps, num_stages=2)
    def scaled_a_gemm(c: tile.Tensor[f32, (bm, bn)], a: tile.Tensor[dtype, (-1, -1)], b: tile.Tensor[dtype, (-1, -1)], k_tiles: wf.i64):
        acc = tile.zeros((bm, bn), f32)
        for kt in range(k_tiles):
            a2 = tile.load(a, (tile.bid(0), kt), (bm, bk)) * 2.0
            acc = tile.dot(a2.astype(dtype), tile.load(b, (kt, tile.bid(1)), (bk, bn)), acc)
        c.store(acc)

    return scaled_a_gemm


@pytest.mark.parametrize("name", ["f16", "bf16"])
def test_a_computed_in_registers_is_register_a_wgmma_on_the_simulator(name: str, wgmma_calls: list) -> None:
    dt = DTYPES[name]
    bm, bn, bk, m, n, k = 64, 64, 32, 100, 72, 80  # tails in M, N and K
    kern = _scaled_a_gemm(bm, bn, bk, 4, dt)
    sig = (tile.spec(f32, (m, n), partition=(bm, bn)), tile.spec(dt, (m, k)), tile.spec(dt, (k, n)), tile.spec(wf.i64))
    ptx = kern.ir("ptx", *sig, chip="sm_90a")
    assert len(re.findall(r"wgmma\.mma_async\.sync\.aligned\.m64n64k16\.f32\.\w+\.\w+ \{[^}]*\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}", ptx)) == bk // 16
    assert "mma.sync" not in ptx
    rng = np.random.default_rng(SEED + len(name))
    a = rng.standard_normal((m, k)).astype(dt.np)
    b = rng.standard_normal((k, n)).astype(dt.np)
    c = wf.full((m, n), np.nan, f32).partition((bm, bn))
    dev = wf.Device.simulator(chip="sm_90a")
    got = kern(c, wf.from_host(a), wf.from_host(b), -(-k // bk)).first().unpartition().to_host().sync_on(dev.create_stream())
    want = (2 * a.astype(np.float64)) @ b.astype(np.float64)
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4 * k)
    assert wgmma_calls and set(wgmma_calls) == {(bn, 16, 2, False)}  # only B from shared memory (N-major)


@pytest.mark.parametrize(
    ("name", "d", "causal", "seq", "cfg"),
    [("f16", 128, True, 300, (128, 64, 8, 3)), ("bf16", 64, False, 330, (64, 64, 4, 4))],
)
def test_deeper_rings_shared_by_both_loops_on_the_simulator(name: str, d: int, causal: bool, seq: int, cfg: tuple[int, int, int, int], wgmma_calls: list) -> None:
    """3 and 4 stages (which fit since the unmasked and masked loops share one K and one V ring,
    `tile-pipeline`'s `_reuse_rings`), each ring wrapping several times, against NumPy."""
    dt = DTYPES[name]
    rng = np.random.default_rng(SEED + seq)
    q, k, v = (rng.standard_normal((1, 1, seq, d)).astype(dt.np) for _ in range(3))
    dev = wf.Device.simulator(chip="sm_90a")
    got = A.attention(q, k, v, causal, dt, *cfg).first().unpartition().to_host().sync_on(dev.create_stream())
    A.check(f"{name} d={d} causal={causal} {cfg}", got, A.reference(q, k, v, causal), dt)
    assert set(wgmma_calls) == {(cfg[1], 16, 2, True), (d, 16, 2, False)}  # both products on wgmma


def test_a_transposed_from_a_ring_keeps_mma_sync_on_sm_90a() -> None:
    """`tile.dot(a.T, b)` (A read by `ldmatrix.trans` from its ring slot) is not a register-A wgmma:
    it stays on mma.sync, correct on the sm_90a simulator."""
    bm, bn, bk, m, n, k = 64, 64, 32, 100, 72, 80

    @tile.kernel(num_warps=4, num_stages=2)
    def gemm_tn(c: tile.Tensor[f32, (bm, bn)], a: tile.Tensor[f16, (-1, -1)], b: tile.Tensor[f16, (-1, -1)], k_tiles: wf.i64):
        acc = tile.zeros((bm, bn), f32)
        for kt in range(k_tiles):
            acc = tile.dot(tile.load(a, (kt, tile.bid(0)), (bk, bm)).T, tile.load(b, (kt, tile.bid(1)), (bk, bn)), acc)
        c.store(acc)

    sig = (tile.spec(f32, (m, n), partition=(bm, bn)), tile.spec(f16, (k, m)), tile.spec(f16, (k, n)), tile.spec(wf.i64))
    ptx = gemm_tn.ir("ptx", *sig, chip="sm_90a")
    assert "wgmma.mma_async" not in ptx and "mma.sync.aligned.m16n8k16" in ptx
    rng = np.random.default_rng(SEED + 77)
    a = rng.standard_normal((k, m)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    dev = wf.Device.simulator(chip="sm_90a")
    got = gemm_tn(wf.full((m, n), np.nan, f32).partition((bm, bn)), wf.from_host(a), wf.from_host(b), -(-k // bk)).first().unpartition().to_host().sync_on(dev.create_stream())
    np.testing.assert_allclose(got, a.T.astype(np.float64) @ b.astype(np.float64), rtol=1e-5, atol=1e-4 * k)
