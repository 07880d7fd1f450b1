"""HGEMM on the tensor cores, SIMT style: C (f32) = A (f16) @ B (f16) with `mma.sync`, `ldmatrix` and
`cp.async`, written warp by warp.

A block of 4 warps computes a 64 x 64 tile of C; each warp a 32 x 32 piece of it: 2 x 4 `m16n8k16`
accumulators (`simt.mma_fragment("c", f32)`, 4 f32 per lane each). For each 32-wide slice of K, the
block copies a 64 x 32 tile of A and a 32 x 64 tile of B into shared memory with `simt.cp_async`
(16 bytes per copy, two stages: the next slice is in flight while this one is multiplied), rows
padded by 8 elements so that `ldmatrix`'s eight row addresses fall in different bank groups. Each
warp then reads its A fragments with `ldmatrix` x4 and its B fragments with `ldmatrix` x2 `.trans`
(B is K x N row-major, the MMA wants it column-major) and issues 2 x 4 x 2 `mma.sync` per slice.
`simt.mma_coords` says which entry of C each accumulator element is.

Rows of A past M and elements past the end of B read as zero (`cp.async` zero-fill), so M and N
need not be multiples of the tile; K must be a multiple of 32 and N of 8 (16-byte copies).

    warpforge run examples/hgemm_simt.py
"""

import numpy as np

import warpforge as wf
from warpforge import f16, f32, simt

BM, BN, BK = 64, 64, 32
PAD = 8  # 16 bytes: consecutive rows start 4 banks apart
THREADS = 128


def make_hgemm(dt=f16, checks: bool = True):
    """The kernel for inputs of `dt` (f16 or bf16), checked or not."""

    @simt.kernel(launch_bounds=THREADS, checks=checks)
    def hgemm(a: simt.Slice[dt], b: simt.Slice[dt], c: simt.unsafe.RawSlice[f32], m: wf.i64, n: wf.i64, k: wf.i64):
        tid = simt.thread_idx.x
        lane = simt.lane_id()
        warp = tid // 32
        wm = (warp // 2) * 32  # this warp's 32 x 32 piece of the block's tile
        wn = (warp % 2) * 32
        m0 = simt.block_idx.y * BM
        n0 = simt.block_idx.x * BN
        sa = simt.shared_array((2, BM, BK + PAD), dt)
        sb = simt.shared_array((2, BK, BN + PAD), dt)
        c00 = simt.mma_fragment("c", f32)
        c01 = simt.mma_fragment("c", f32)
        c02 = simt.mma_fragment("c", f32)
        c03 = simt.mma_fragment("c", f32)
        c10 = simt.mma_fragment("c", f32)
        c11 = simt.mma_fragment("c", f32)
        c12 = simt.mma_fragment("c", f32)
        c13 = simt.mma_fragment("c", f32)
        steps = k // BK
        # stage 0: the first slice
        for q in simt.static_range(2):
            chunk = tid + THREADS * q  # 256 chunks of 8 f16 per tile
            ra, ca = chunk // 4, (chunk % 4) * 8
            simt.cp_async(sa, (0, ra, ca), a, (m0 + ra) * k + ca)
            rb, cb = chunk // 8, (chunk % 8) * 8
            simt.cp_async(sb, (0, rb, cb), b, rb * n + n0 + cb)
        simt.cp_async_commit()
        for step in range(steps):
            buf = step % 2
            if step + 1 < steps:  # the next slice into the other buffer, in flight during this one's MMAs
                k1 = (step + 1) * BK
                for q in simt.static_range(2):
                    chunk = tid + THREADS * q
                    ra, ca = chunk // 4, (chunk % 4) * 8
                    simt.cp_async(sa, (1 - buf, ra, ca), a, (m0 + ra) * k + k1 + ca)
                    rb, cb = chunk // 8, (chunk % 8) * 8
                    simt.cp_async(sb, (1 - buf, rb, cb), b, (k1 + rb) * n + n0 + cb)
            simt.cp_async_commit()
            simt.cp_async_wait(1)  # this step's slice has landed (the next may still be in flight)
            simt.sync_threads()
            for kk in simt.static_range(0, BK, 16):
                # A fragments: lane l gives row l % 16, column 8 * (l // 16) of a 16 x 16 tile
                a0 = simt.ldmatrix(sa, (buf, wm + lane % 16, kk + 8 * (lane // 16)))
                a1 = simt.ldmatrix(sa, (buf, wm + 16 + lane % 16, kk + 8 * (lane // 16)))
                # B fragments: lanes 0-15 give rows kk .. kk + 15 of an 8-wide column strip, transposed
                b0 = simt.ldmatrix(sb, (buf, kk + lane % 16, wn), num=2, trans=True)
                b1 = simt.ldmatrix(sb, (buf, kk + lane % 16, wn + 8), num=2, trans=True)
                b2 = simt.ldmatrix(sb, (buf, kk + lane % 16, wn + 16), num=2, trans=True)
                b3 = simt.ldmatrix(sb, (buf, kk + lane % 16, wn + 24), num=2, trans=True)
                c00 = simt.mma_sync(a0, b0, c00)
                c01 = simt.mma_sync(a0, b1, c01)
                c02 = simt.mma_sync(a0, b2, c02)
                c03 = simt.mma_sync(a0, b3, c03)
                c10 = simt.mma_sync(a1, b0, c10)
                c11 = simt.mma_sync(a1, b1, c11)
                c12 = simt.mma_sync(a1, b2, c12)
                c13 = simt.mma_sync(a1, b3, c13)
            simt.sync_threads()  # everyone is done with `buf` before the next step refills it
        for i in simt.static_range(4):
            r, q = simt.mma_coords(c00, i)  # the same (row, col) in every 16 x 8 accumulator
            for half in simt.static_range(2):
                row = m0 + wm + 16 * half + r
                col = n0 + wn + q
                if row < m:
                    base = row * n + col
                    if col < n:
                        c[base] = c00[i] if half == 0 else c10[i]
                    if col + 8 < n:
                        c[base + 8] = c01[i] if half == 0 else c11[i]
                    if col + 16 < n:
                        c[base + 16] = c02[i] if half == 0 else c12[i]
                    if col + 24 < n:
                        c[base + 24] = c03[i] if half == 0 else c13[i]

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
