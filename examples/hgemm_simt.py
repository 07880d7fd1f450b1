"""HGEMM on the tensor cores, SIMT style: C (f32) = A (f16) @ B (f16) with `mma.sync`, `ldmatrix` and
`cp.async`, written warp by warp.

A block of 8 warps computes a 128 x 128 tile of C; each warp a 32 x 64 piece of it: 2 x 8 `m16n8k16`
accumulators (`simt.mma_fragment("c", f32, count=(2, 8))`, 4 f32 per lane each). For each 32-wide
slice of K, the block copies a 128 x 32 tile of A and a 32 x 128 tile of B into shared memory with `simt.cp_async`
(16 bytes per copy, two stages: the next slice is in flight while this one is multiplied), rows
padded by 8 elements so that `ldmatrix`'s eight row addresses fall in different bank groups. Each
warp then reads its A fragments with `ldmatrix` x4 and its B fragments with `ldmatrix` x2 `.trans`
(B is K x N row-major, the MMA wants it column-major) and issues 2 x 8 x 2 `mma.sync` per slice.
`simt.mma_coords` says which entry of C each accumulator element is.

Rows of A past M and elements past the end of B read as zero (`cp.async` zero-fill), so M and N
need not be multiples of the tile; K must be a multiple of 32 and N of 8 (16-byte copies).

    warpforge run examples/hgemm_simt.py
"""

import numpy as np

import warpforge as wf
from warpforge import f16, f32, simt

BM, BN, BK = 128, 128, 32  # the block's tile of C, and the K step
WARPS_M, WARPS_N = 4, 2  # 8 warps, each a 32 x 64 piece of the tile
MI, NI = BM // WARPS_M // 16, BN // WARPS_N // 8  # m16 x n8 accumulators per warp: 2 x 8
PAD = 8  # 16 bytes: consecutive rows start 4 banks apart
THREADS = 32 * WARPS_M * WARPS_N


def make_hgemm(dt=f16, checks: bool = True):
    """The kernel for inputs of `dt` (f16 or bf16), checked or not."""

    @simt.kernel(launch_bounds=THREADS, checks=checks)
    def hgemm(a: simt.Slice[dt], b: simt.Slice[dt], c: simt.unsafe.RawSlice[f32], m: wf.i64, n: wf.i64, k: wf.i64):
        tid = simt.thread_idx.x
        lane = simt.lane_id()
        warp = tid // 32
        wm = (warp // WARPS_N) * (BM // WARPS_M)  # this warp's piece of the block's tile
        wn = (warp % WARPS_N) * (BN // WARPS_N)
        m0 = simt.block_idx.y * BM
        n0 = simt.block_idx.x * BN
        sa = simt.shared_array((2, BM, BK + PAD), dt)
        sb = simt.shared_array((2, BK, BN + PAD), dt)
        acc = simt.mma_fragment("c", f32, count=(MI, NI))
        fa = simt.mma_fragment("a", dt, count=MI)
        fb = simt.mma_fragment("b", dt, count=NI)
        steps = k // BK
        for q in simt.static_range(BM * BK // 8 // THREADS):  # stage 0: the first slice, 16 bytes a copy
            chunk = tid + THREADS * q
            ra, ca = chunk // (BK // 8), (chunk % (BK // 8)) * 8
            simt.cp_async(sa, (0, ra, ca), a, (m0 + ra) * k + ca)
        for q in simt.static_range(BK * BN // 8 // THREADS):
            chunk = tid + THREADS * q
            rb, cb = chunk // (BN // 8), (chunk % (BN // 8)) * 8
            simt.cp_async(sb, (0, rb, cb), b, rb * n + n0 + cb)
        simt.cp_async_commit()
        for step in range(steps):
            buf = step % 2
            if step + 1 < steps:  # the next slice into the other buffer, in flight during this one's MMAs
                k1 = (step + 1) * BK
                for q in simt.static_range(BM * BK // 8 // THREADS):
                    chunk = tid + THREADS * q
                    ra, ca = chunk // (BK // 8), (chunk % (BK // 8)) * 8
                    simt.cp_async(sa, (1 - buf, ra, ca), a, (m0 + ra) * k + k1 + ca)
                for q in simt.static_range(BK * BN // 8 // THREADS):
                    chunk = tid + THREADS * q
                    rb, cb = chunk // (BN // 8), (chunk % (BN // 8)) * 8
                    simt.cp_async(sb, (1 - buf, rb, cb), b, (k1 + rb) * n + n0 + cb)
            simt.cp_async_commit()
            simt.cp_async_wait(1)  # this step's slice has landed (the next may still be in flight)
            simt.sync_threads()
            for kk in simt.static_range(0, BK, 16):
                for i in simt.static_range(MI):  # A: lane l gives row l % 16, column 8 * (l // 16) of a 16 x 16 tile
                    fa[i] = simt.ldmatrix(sa, (buf, wm + 16 * i + lane % 16, kk + 8 * (lane // 16)))
                for j in simt.static_range(NI):  # B: lanes 0-15 give rows kk .. kk + 15 of an 8-wide strip, transposed
                    fb[j] = simt.ldmatrix(sb, (buf, kk + lane % 16, wn + 8 * j), num=2, trans=True)
                for i in simt.static_range(MI):
                    for j in simt.static_range(NI):
                        acc[i, j] = simt.mma_sync(fa[i], fb[j], acc[i, j])
            simt.sync_threads()  # everyone is done with `buf` before the next step refills it
        for e in simt.static_range(4):
            r, q = simt.mma_coords(acc[0, 0], e)  # the same (row, col) in every 16 x 8 accumulator
            for i in simt.static_range(MI):
                row = m0 + wm + 16 * i + r
                if row < m:
                    for j in simt.static_range(NI):
                        col = n0 + wn + 8 * j + q
                        if col < n:
                            c[row * n + col] = acc[i, j][e]

    return hgemm


hgemm = make_hgemm(f16)


def main(m: int = 1000, n: int = 1032, k: int = 512) -> None:
    if wf.simulating():
        m, n, k = 80, 72, 64
    rng = np.random.default_rng()
    dev = wf.Device(0)
    stream = dev.create_stream()
    a_host = rng.standard_normal((m, k)).astype(np.float16)
    b_host = rng.standard_normal((k, n)).astype(np.float16)
    a = wf.DeviceBuffer.from_host(stream, a_host.ravel())
    b = wf.DeviceBuffer.from_host(stream, b_host.ravel())
    c = wf.DeviceBuffer.from_host(stream, np.full(m * n, np.nan, dtype=np.float32))
    grid = ((n + BN - 1) // BN, (m + BM - 1) // BM, 1)
    prepared = hgemm.prepare(wf.LaunchConfig(grid=grid, block=THREADS), device=dev)
    hgemm.launch(stream, prepared, a, b, c, m, n, k)
    got = c.to_host(stream).reshape(m, n)
    expected = a_host.astype(np.float64) @ b_host.astype(np.float64)
    tol = 2.0**-20 * k * (np.abs(a_host.astype(np.float64)) @ np.abs(b_host.astype(np.float64))) + 1e-6
    err = np.abs(got - expected)
    if not np.all(err <= tol):
        bad = np.unravel_index(np.argmax(err - tol), err.shape)
        raise SystemExit(f"FAILED: C{bad} = {got[bad]}, expected {expected[bad]} (|error| {err[bad]:.3g} > {tol[bad]:.3g})")
    print(f"PASSED: hgemm_simt {m}x{n}x{k} (f16 -> f32, mma.sync m16n8k16, ldmatrix, cp.async), max |error| {err.max():.3g}")


if __name__ == "__main__":
    main()
