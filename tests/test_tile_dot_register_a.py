"""`tile.dot` whose A operand comes from registers: `tile.dot(p.astype(f16), v)` where `p` is (an
elementwise function of) another `tile.dot`'s product — attention's P·V. The product's m16n8
accumulator fragments are the A fragments of the next m16n8k16 MMA (two adjacent n8 tiles make one
k16 step), so such kernels give every MMA value a layout whose warps split M only, and the second
dot reads A from the registers (no shared memory, no ldmatrix for it). On the GPU (marked `gpu`)
and the simulator against NumPy on fresh seeded random inputs with poisoned outputs; the PTX passes
ptxas. Also the regression of a warp grid along M only (128 x 16 over 4 warps), whose warps all
computed rows 0-31 (the warp's row was taken as 0 when wn = 1)."""


import numpy as np
import pytest

import warpforge as wf
from warpforge import bf16, f16, f32, tile

from kernel_runner import Backend, backend  # noqa: F401 (backend is the fixture)

SEED = 1213
M, K1, N1, N2 = 64, 32, 32, 64


def _rng(salt: int) -> np.random.Generator:
    return np.random.default_rng(SEED + salt)


def _chain_kernel(dt):
    @tile.kernel(num_warps=4)
    def chain(c: tile.Tensor[f32, (M, N2)], a: tile.Tensor[dt, (-1, -1)], b: tile.Tensor[dt, (-1, -1)], d: tile.Tensor[dt, (-1, -1)]):
        p = tile.dot(tile.load(a, (tile.bid(0), 0), (M, K1)), tile.load(b, (0, 0), (K1, N1)))
        q = tile.exp2(p * 0.25 - 1.0)  # an elementwise epilogue, per register
        c.store(tile.dot(q.astype(dt), tile.load(d, (0, 0), (N1, N2))))

    return chain


CHAIN = {"f16": _chain_kernel(f16), "bf16": _chain_kernel(bf16)}


@tile.kernel(num_warps=4)
def narrow(c: tile.Tensor[f32, (128, 16)], a: tile.Tensor[f16, (-1, -1)], b: tile.Tensor[f16, (-1, -1)]):
    """128 x 16: warp_grid splits M only (wm = 4, wn = 1)."""
    c.store(tile.dot(tile.load(a, (tile.bid(0), 0), (128, 16)), tile.load(b, (0, 0), (16, 16))))


def _round(x: np.ndarray, dt) -> np.ndarray:
    return x.astype(dt).astype(np.float64)


@pytest.mark.parametrize("name", ["f16", "bf16"])
@pytest.mark.parametrize("m,k1,n1,n2", [(128, 32, 32, 64), (100, 20, 24, 50)])  # two tile blocks; tails everywhere
def test_second_dot_reads_a_from_registers(backend: Backend, name: str, m: int, k1: int, n1: int, n2: int) -> None:
    dt = np.float16 if name == "f16" else bf16.np
    rng = _rng(m + k1 + n1 + n2 + len(name))
    a = (0.5 * rng.standard_normal((m, k1))).astype(dt)
    b = (0.5 * rng.standard_normal((k1, n1))).astype(dt)
    d = rng.standard_normal((n1, n2)).astype(dt)
    c = wf.full((m, n2), np.nan, f32).partition((M, N2))
    got = CHAIN[name](c, wf.from_host(a), wf.from_host(b), wf.from_host(d)).first().unpartition().to_host().sync_on(backend.device.create_stream())
    p = a.astype(np.float64) @ b.astype(np.float64)  # zero-padded past K1/N1: columns of p past n1 are 0
    q = np.exp2(p * 0.25 - 1.0)
    q16 = _round(q, dt)
    want = q16 @ d.astype(np.float64)
    # q's rounding to 16 bits may differ by one ulp where p's f32 rounding moved it across a boundary
    ulp = 2.0**-10 if name == "f16" else 2.0**-7
    tol = (ulp * np.abs(q) + 1e-6) @ np.abs(d.astype(np.float64)) + 1e-4
    err = np.abs(got - want)
    assert np.all(err <= tol), f"max error {err.max()} at {np.unravel_index(np.argmax(err - tol), err.shape)}"


def test_warps_along_m_only(backend: Backend) -> None:
    rng = _rng(7)
    a = rng.standard_normal((200, 16)).astype(np.float16)
    b = rng.standard_normal((16, 16)).astype(np.float16)
    got = narrow(wf.full((200, 16), np.nan, f32).partition((128, 16)), wf.from_host(a), wf.from_host(b)).first().unpartition().to_host().sync_on(backend.device.create_stream())
    want = a.astype(np.float64) @ b.astype(np.float64)
    assert np.all(np.abs(got - want) <= 2.0**-20 * 16 * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))) + 1e-6)


def test_ir_has_no_shared_copy_of_the_register_operand_and_ptx_passes_ptxas() -> None:
    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    specs = (tile.spec(f32, (128, N2), partition=(M, N2)), tile.spec(f16, (128, K1)), tile.spec(f16, (K1, N1)), tile.spec(f16, (N1, N2)))
    gpu = CHAIN["f16"].ir("gpu", *specs)
    # shared arrays: A and B of the first dot, B of the second; none for P (no MMA -> canonical scratch either)
    assert gpu.count('"memref.global"()') == 3, gpu
    lines = gpu.splitlines()
    # A by ldmatrix only for the first dot: one x4 per k16 step (each warp owns 16 rows: 64 / 4 warps)
    assert sum("nvgpu.ldmatrix" in x and "transpose" not in x for x in lines) == K1 // 16
    assert sum("nvgpu.mma.sync" in x for x in lines) == (K1 // 16) * (N1 // 8) + (N1 // 16) * (N2 // 8)
    ptx = CHAIN["f16"].ir("ptx", *specs)
    assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in ptx and ".extern .func" not in ptx
    if find_ptxas() is not None:
        run_ptxas(ptx, "sm_90", verbose=False)
