"""Matrix multiplication in the Tile model on the tensor cores: `tile.dot` (or `a @ b`) inside a K loop.

Each tile block (8 warps) owns a 128 x 128 tile of C and walks K in steps of 64: it loads a 128 x 64
tile of A and a 64 x 128 tile of B (`tile.load`, zero past the edges, so M, N and K need not be
multiples of the tile) and accumulates `tile.dot(a, b, acc)` in f32 — underneath, the loads become
`cp.async` copies into a 3-stage shared-memory ring (`num_stages`, 96 KiB of dynamic shared memory),
each warp keeps a 64 x 32 block of the accumulator in registers and feeds `mma.sync.m16n8k16` from
`ldmatrix`; `min_blocks_per_sm=2` keeps ptxas at 128 registers so two tile blocks share an SM. On an
H100/H200 the kernels compile for sm_90a, where the same dot runs as `wgmma.mma_async.m64n128k16` (one
64 x 128 block per warpgroup) straight from the rings (passes/lowerings/tile_dot_wgmma.py), and the
rings are filled by TMA (`cp.async.bulk.tensor`, mbarrier waits: passes/tile_tma_ring.py) when both
operands' rows are multiples of 16 bytes — else neither TMA nor 16-byte cp.async can copy B's rows and
the dot runs on mma.sync from plain loads; the example runs one shape of each kind (N = 1032, 1030). The simulator and other GPUs keep mma.sync
(`WARPFORGE_SIM_CHIP=sm_90a warpforge run examples/matmul.py --simulate` runs the sm_90a path on the simulator). Two kernels:

- `matmul_f16`: f16 inputs, f32 output;
- `matmul_bf16_bias_relu`: bf16 inputs and output, with the epilogue fused: the f32 accumulator is
  rounded to bf16, a bf16 bias row added and ReLU applied, in bf16, before the one store.

    warpforge run examples/matmul.py
"""

import numpy as np

import warpforge as wf
from warpforge import bf16, f16, f32, tile

BM, BN, BK = 128, 128, 64
NUM_WARPS, NUM_STAGES, MIN_BLOCKS_PER_SM = 8, 3, 2


@tile.kernel(num_warps=NUM_WARPS, num_stages=NUM_STAGES, min_blocks_per_sm=MIN_BLOCKS_PER_SM)
def matmul_f16(c: tile.Tensor[f32, (BM, BN)], a: tile.Tensor[f16, (-1, -1)], b: tile.Tensor[f16, (-1, -1)], k_tiles: wf.i64):
    acc = tile.zeros((BM, BN), f32)
    for kt in range(k_tiles):
        x = tile.load(a, (tile.bid(0), kt), (BM, BK))
        y = tile.load(b, (kt, tile.bid(1)), (BK, BN))
        acc = tile.dot(x, y, acc)
    c.store(acc)


@tile.kernel(num_warps=NUM_WARPS, num_stages=NUM_STAGES, min_blocks_per_sm=MIN_BLOCKS_PER_SM)
def matmul_bf16_bias_relu(
    c: tile.Tensor[bf16, (BM, BN)], a: tile.Tensor[bf16, (-1, -1)], b: tile.Tensor[bf16, (-1, -1)], bias: tile.Tensor[bf16, (1, -1)], k_tiles: wf.i64
):
    acc = tile.zeros((BM, BN), f32)
    for kt in range(k_tiles):
        acc = tile.dot(tile.load(a, (tile.bid(0), kt), (BM, BK)), tile.load(b, (kt, tile.bid(1)), (BK, BN)), acc)
    out = acc.astype(bf16) + tile.load(bias, (0, tile.bid(1)), (1, BN))
    c.store(tile.maximum(out, 0.0))


matmul_f16.ahead_of_time(tile.spec(f32, (4096, 4096), partition=(BM, BN)), tile.spec(f16, (4096, 4096)), tile.spec(f16, (4096, 4096)), tile.spec(wf.i64))
matmul_bf16_bias_relu.ahead_of_time(
    tile.spec(bf16, (4096, 4096), partition=(BM, BN)), tile.spec(bf16, (4096, 4096)), tile.spec(bf16, (4096, 4096)), tile.spec(bf16, (1, 4096)), tile.spec(wf.i64)
)


def check(name: str, got: np.ndarray, want: np.ndarray, tol: np.ndarray) -> None:
    err = np.abs(got.astype(np.float64) - want)
    if not np.all(err <= tol):
        bad = np.unravel_index(np.argmax(err - tol), err.shape)
        raise SystemExit(f"FAILED: {name} C{bad} = {got[bad]}, expected {want[bad]} (|error| {err[bad]:.3g} > {tol[bad]:.3g})")


def main() -> None:
    # N = 1032: B's rows are 2064 bytes, so TMA can describe both operands (sm_90a); N = 1030: they are
    # not multiples of 16 bytes, so the dot falls back to mma.sync with plain loads. Neither is a multiple of the tile.
    for m, n, k in [(24, 40, 40)] if wf.simulating() else [(1000, 1032, 520), (1000, 1030, 520)]:
        run(m, n, k)


def run(m: int, n: int, k: int) -> None:
    rng = np.random.default_rng()
    stream = wf.Device(0).create_stream()
    k_tiles = -(-k // BK)

    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = wf.full((m, n), np.nan, f32).partition((BM, BN))
    got = matmul_f16(c, wf.from_host(a), wf.from_host(b), k_tiles).first().unpartition().to_host().sync_on(stream)
    want = a.astype(np.float64) @ b.astype(np.float64)
    bound = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))
    check("f16", got, want, 2.0**-20 * k * bound + 1e-6)

    a16 = rng.standard_normal((m, k)).astype(bf16.np)
    b16 = rng.standard_normal((k, n)).astype(bf16.np)
    bias = rng.standard_normal((1, n)).astype(bf16.np)
    c16 = wf.full((m, n), np.nan, bf16).partition((BM, BN))
    got16 = matmul_bf16_bias_relu(c16, wf.from_host(a16), wf.from_host(b16), wf.from_host(bias), k_tiles).first().unpartition().to_host().sync_on(stream)
    exact = a16.astype(np.float64) @ b16.astype(np.float64)
    want16 = np.maximum(exact + bias.astype(np.float64), 0)
    # two bf16 roundings (the accumulator, then the sum with the bias): 2 ulps of 2^-8 of the magnitudes
    scale = np.abs(exact) + np.abs(bias.astype(np.float64))
    check("bf16 + bias + relu", got16, want16, 2.0**-7 * scale + 2.0**-20 * k * (np.abs(a16.astype(np.float64)) @ np.abs(b16.astype(np.float64))) + 1e-6)
    print(f"PASSED: matmul {m}x{n}x{k} on the tensor cores (tile.dot): f16 -> f32, and bf16 with bias + ReLU fused")


if __name__ == "__main__":
    main()
