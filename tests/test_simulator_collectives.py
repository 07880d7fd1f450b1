"""The simulator on the `gpu` ops of the SIMT breadth work (issue 4) — warp shuffles, subgroup
reductions, votes, ballot, active mask, match-any, reducing barriers, fences, warp sync, dynamic
shared memory, and every atomic — on hand-written `gpu`-level IR, against NumPy/Python references
on fresh random inputs, with the GPU's edge cases: shuffles past a segment's edge, 64-bit shuffles,
widths below 32, collectives with exited or diverged lanes, barrier counts, atomics returning old
values, float atomic min/max with NaN (it propagates: `maximumf`/`minimumf`). A few kernels go
through the frontend too. CPU only."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import warpforge as wf
from warpforge import simt, simulator
from warpforge.context import parse_module
from warpforge.simulator import SimulatorError

RNG = np.random.default_rng(1700)
BF16 = np.dtype(ml_dtypes.bfloat16)

SM90 = '#nvvm.target<chip = "sm_90", features = "+ptx80">'
SM75 = '#nvvm.target<chip = "sm_75", features = "+ptx70">'


def kernel_module(params: str, body: str, target: str = SM90, name: str = "k"):
    """A `gpu.module` with one kernel `@name(params)` whose body is `body` (then `gpu.return`)."""
    return parse_module(
        f"""builtin.module {{
  gpu.module @m [{target}] {{
    gpu.func @{name}({params}) kernel {{
{body}
      gpu.return
    }}
  }}
}}"""
    )


def g(t: str) -> str:
    """A global memref of `t`."""
    return f"memref<?x{t}, 1 : i32>"


NP = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "f16": np.float16, "bf16": BF16, "f32": np.float32, "f64": np.float64}


def random_bits(n: int, t: str) -> np.ndarray:
    """`n` values of `t` with random bit patterns (NaN payloads and all, for 64-bit moves)."""
    dt = np.dtype(NP[t])
    return RNG.integers(0, 256, n * dt.itemsize, dtype=np.uint8).view(dt)


def bits(x: np.ndarray) -> np.ndarray:
    return x.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[x.dtype.itemsize])


# --------------------------------------------------------------------------- gpu.shuffle


def shuffle_module(mode: str, width: int, t: str):
    return kernel_module(
        f"%x: {g(t)}, %off: {g('i32')}, %out: {g(t)}, %valid: {g('i1')}",
        f"""
      %tid = gpu.global_id x
      %v = memref.load %x[%tid] : {g(t)}
      %o = memref.load %off[%tid] : {g('i32')}
      %w = arith.constant {width} : i32
      %r, %ok = gpu.shuffle {mode} %v, %o, %w : {t}
      memref.store %r, %out[%tid] : {g(t)}
      memref.store %ok, %valid[%tid] : {g('i1')}""",
    )


def shuffle_reference(mode: str, width: int, x: np.ndarray, off: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """MLIR's `gpu.shuffle` on segments of `width` lanes: the value read, and whether the source was
    inside the segment (if not, the lane's own value)."""
    i = np.arange(len(x))
    lane, base = i % 32, i - i % 32
    start = lane - lane % width
    if mode == "up":
        src, valid = lane - off, lane - off >= start
    elif mode == "down":
        src, valid = lane + off, lane + off < start + width
    elif mode == "xor":
        src, valid = lane ^ off, np.ones(len(x), bool)
    else:
        src, valid = start + off % width, np.ones(len(x), bool)
    return x[np.where(valid, base + src, i)], valid


@pytest.mark.parametrize("t", ["i32", "f32", "i64", "f64"])
@pytest.mark.parametrize("width", [1, 4, 8, 32])
@pytest.mark.parametrize("mode", ["xor", "up", "down", "idx"])
def test_shuffle_matches_numpy_at_every_width_and_edge(mode: str, width: int, t: str):
    n = 128  # 2 blocks of 64: 4 warps
    x = random_bits(n, t)  # 64-bit values: both halves must move, bit for bit
    if mode in ("up", "down"):
        off = RNG.integers(0, 32, n).astype(np.int32)  # per lane, often past the segment's edge
    elif mode == "xor":
        off = RNG.integers(0, width, n).astype(np.int32)
    else:
        off = RNG.integers(0, 64, n).astype(np.int32)  # idx reads lane `off mod width` of the segment
    out, valid = np.zeros(n, NP[t]), np.zeros(n, bool)
    simulator.simulate(shuffle_module(mode, width, t), "k", 2, 64, [x, off, out, valid])
    want, want_valid = shuffle_reference(mode, width, x, off)
    np.testing.assert_array_equal(valid, want_valid)
    np.testing.assert_array_equal(bits(out), bits(want))


def test_shuffle_up_and_down_past_the_edge_keep_the_own_value():
    n = 64
    x = RNG.standard_normal(n).astype(np.float32)
    for mode, offset, width in (("up", 5, 32), ("down", 7, 32), ("up", 3, 8), ("down", 2, 8), ("down", 1, 4)):
        out, valid = np.zeros(n, np.float32), np.zeros(n, bool)
        simulator.simulate(shuffle_module(mode, width, "f32"), "k", 1, n, [x, np.full(n, offset, np.int32), out, valid])
        i = np.arange(n)
        pos = i % width
        inside = pos >= offset if mode == "up" else pos + offset < width
        np.testing.assert_array_equal(out, np.where(inside, x[i - offset if mode == "up" else np.minimum(i + offset, n - 1)], x))
        np.testing.assert_array_equal(valid, inside)


def test_xor_shuffle_past_the_width_reads_earlier_segments_only():
    """PTX's clamp (CUDA's documented `__shfl_xor_sync` with a width): a lane may read an earlier
    segment; reading a later one gives its own value, and `valid` says which happened."""
    n = 32
    x = RNG.standard_normal(n).astype(np.float32)
    out, valid = np.zeros(n, np.float32), np.zeros(n, bool)
    simulator.simulate(shuffle_module("xor", 8, "f32"), "k", 1, n, [x, np.full(n, 8, np.int32), out, valid])
    i = np.arange(n)
    earlier = (i & 8) != 0  # lane ^ 8 lies below the lane's own segment
    np.testing.assert_array_equal(valid, earlier)
    np.testing.assert_array_equal(out, np.where(earlier, x[i ^ 8], x))


def test_shuffle_with_a_diverged_lane_is_an_error_naming_the_line():
    module = kernel_module(
        f"%out: {g('i32')}",
        f"""
      %tid = gpu.thread_id x
      %c8 = arith.constant 8 : index
      %lt = arith.cmpi ult, %tid, %c8 : index
      cf.cond_br %lt, ^go, ^done
    ^go:
      %t = arith.index_cast %tid : index to i32
      %w = arith.constant 32 : i32
      %one = arith.constant 1 : i32
      %r, %ok = gpu.shuffle down %t, %one, %w : i32 loc("k.py":9:8)
      memref.store %r, %out[%tid] : {g('i32')}
      cf.br ^done
    ^done:""",
    )
    with pytest.raises(SimulatorError, match=r"'gpu.shuffle' at k.py:9:8: lane 8 of warp 0 is named in the member mask"):
        simulator.simulate(module, "k", 1, 32, [np.zeros(32, np.int32)])


def test_shuffle_reading_an_exited_lane_is_an_error():
    module = kernel_module(
        f"%out: {g('i32')}",
        f"""
      %tid = gpu.thread_id x
      %c31 = arith.constant 31 : index
      %last = arith.cmpi eq, %tid, %c31 : index
      cf.cond_br %last, ^exit, ^go
    ^exit:
      gpu.return
    ^go:
      %t = arith.index_cast %tid : index to i32
      %w = arith.constant 32 : i32
      %one = arith.constant 1 : i32
      %r, %ok = gpu.shuffle down %t, %one, %w : i32
      memref.store %r, %out[%tid] : {g('i32')}""",
    )
    with pytest.raises(SimulatorError, match=r"lane 30 of warp 0 reads lane 31, which is not executing this shuffle"):
        simulator.simulate(module, "k", 1, 32, [np.zeros(32, np.int32)])


# --------------------------------------------------------------------------- gpu.subgroup_reduce

INT_KINDS = ["add", "mul", "minsi", "minui", "maxsi", "maxui", "and", "or", "xor"]
FLOAT_KINDS = ["add", "mul", "minnumf", "maxnumf", "minimumf", "maximumf"]


def reduce_module(kind: str, t: str, size: int, target: str = SM90):
    cluster = "" if size == 32 else f" cluster(size = {size})"
    return kernel_module(
        f"%x: {g(t)}, %out: {g(t)}",
        f"""
      %tid = gpu.global_id x
      %v = memref.load %x[%tid] : {g(t)}
      %r = gpu.subgroup_reduce {kind} %v{cluster} : ({t}) -> {t}
      memref.store %r, %out[%tid] : {g(t)}""",
        target,
    )


def _maximum(a, b):  # llvm.maximum: NaN propagates, -0 < +0
    with np.errstate(invalid="ignore"):
        r = np.where(np.isnan(a) | np.isnan(b), np.nan, np.where(a > b, a, b)).astype(a.dtype)
    return np.where((a == 0) & (b == 0), np.where(np.signbit(a), b, a), r).astype(a.dtype)


def _minimum(a, b):
    with np.errstate(invalid="ignore"):
        r = np.where(np.isnan(a) | np.isnan(b), np.nan, np.where(a < b, a, b)).astype(a.dtype)
    return np.where((a == 0) & (b == 0), np.where(np.signbit(a), a, b), r).astype(a.dtype)


def combine_reference(kind: str, dt: np.dtype):
    udt = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[dt.itemsize]
    return {
        "add": np.add, "mul": np.multiply, "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
        "minsi": np.minimum, "maxsi": np.maximum,
        "minui": lambda a, b: np.minimum(a.view(udt), b.view(udt)).view(dt),
        "maxui": lambda a, b: np.maximum(a.view(udt), b.view(udt)).view(dt),
        "minnumf": np.fmin, "maxnumf": np.fmax, "minimumf": _minimum, "maximumf": _maximum,
    }[kind]  # fmt: skip


def reduce_reference(kind: str, x: np.ndarray, size: int) -> np.ndarray:
    """Each cluster of `size` lanes reduced as the GPU's butterfly does: halves folded onto each
    other (offsets size/2, …, 1), so float rounding follows the same tree; every lane gets it."""
    fn = combine_reference(kind, x.dtype)
    v = x.reshape(-1, size)
    while v.shape[1] > 1:
        half = v.shape[1] // 2
        with np.errstate(all="ignore"):
            v = fn(v[:, :half], v[:, half:])
    return np.repeat(v[:, 0], size)


def float_inputs(n: int, t: str) -> np.ndarray:
    x = (RNG.standard_normal(n) * RNG.choice([1e-3, 1.0, 1e3], n)).astype(NP[t])
    x[RNG.choice(n, 6, replace=False)] = np.array([0.0, -0.0, 0.0, -0.0, np.inf, -np.inf]).astype(NP[t])
    x[RNG.integers(0, n)] = np.nan
    return x


@pytest.mark.parametrize("size", [1, 4, 32])
@pytest.mark.parametrize("t", ["i8", "i16", "i32", "i64"])
@pytest.mark.parametrize("kind", INT_KINDS)
def test_integer_subgroup_reduce_matches_numpy(kind: str, t: str, size: int):
    n = 128
    info = np.iinfo(NP[t])
    x = RNG.integers(info.min, info.max, n, dtype=NP[t], endpoint=True)  # sums and products wrap
    out = np.zeros(n, NP[t])
    simulator.simulate(reduce_module(kind, t, size), "k", 2, 64, [x, out])
    np.testing.assert_array_equal(out, reduce_reference(kind, x, size))


@pytest.mark.parametrize("size", [2, 8, 32])
@pytest.mark.parametrize("t", ["f16", "bf16", "f32", "f64"])
@pytest.mark.parametrize("kind", FLOAT_KINDS)
def test_float_subgroup_reduce_rounds_in_the_butterfly_order(kind: str, t: str, size: int):
    n = 128
    x = float_inputs(n, t)
    out = np.zeros(n, NP[t])
    simulator.simulate(reduce_module(kind, t, size), "k", 2, 64, [x, out])
    want = reduce_reference(kind, x, size)
    np.testing.assert_array_equal(out.astype(np.float64), want.astype(np.float64))
    if kind.endswith("imumf"):  # -0 orders below +0: the bits agree, not only the values
        np.testing.assert_array_equal(np.signbit(out.astype(np.float64)), np.signbit(want.astype(np.float64)))


def test_float_warp_sum_is_the_butterfly_not_a_sequential_sum():
    x = np.zeros(32, np.float32)
    x[:4] = [1e8, 1.0, -1e8, 1.0]  # lanes 0..3 of a cluster of 4
    out = np.zeros(32, np.float32)
    simulator.simulate(reduce_module("add", "f32", 4), "k", 1, 32, [x, out])
    # (x0 + x2) + (x1 + x3) = 0 + 2; a left-to-right sum would give ((1e8 + 1) - 1e8) + 1 = 1
    assert out[:4].tolist() == [2.0] * 4


def test_nan_in_a_warp_max_propagates_and_maxnumf_ignores_it():
    x = RNG.standard_normal(32).astype(np.float32)
    x[9] = np.nan
    for kind, expect_nan in (("maximumf", True), ("maxnumf", False)):
        out = np.zeros(32, np.float32)
        simulator.simulate(reduce_module(kind, "f32", 32), "k", 1, 32, [x, out])
        assert np.isnan(out).all() if expect_nan else (out == np.nanmax(x)).all()


EXIT_THEN_REDUCE = """
      %tid = gpu.thread_id x
      %c5 = arith.constant 5 : index
      %r5 = arith.remui %tid, %c5 : index
      %c0 = arith.constant 0 : index
      %gone = arith.cmpi eq, %r5, %c0 : index
      cf.cond_br %gone, ^exit, ^go
    ^exit:
      gpu.return
    ^go:
      %v = memref.load %x[%tid] : memref<?xi32, 1 : i32>
      %r = gpu.subgroup_reduce add %v : (i32) -> i32 loc("k.py":3:7)
      memref.store %r, %out[%tid] : memref<?xi32, 1 : i32>"""


def test_i32_warp_sum_with_exited_lanes_follows_redux_sync():
    """sm_80+ lowers an i32 warp sum to `redux.sync`, which leaves exited lanes out; the shuffle
    butterfly (older chips) would read them: undefined, so an error."""
    x = RNG.integers(-1000, 1000, 64, dtype=np.int32)
    out = np.zeros(64, np.int32)
    params = f"%x: {g('i32')}, %out: {g('i32')}"
    simulator.simulate(kernel_module(params, EXIT_THEN_REDUCE, SM90), "k", 1, 64, [x, out])
    live = np.arange(64) % 5 != 0
    sums = [x[w * 32 : (w + 1) * 32][live[w * 32 : (w + 1) * 32]].sum() for w in range(2)]
    np.testing.assert_array_equal(out[live], np.repeat(sums, 32)[live])
    with pytest.raises(SimulatorError, match=r"k.py:3:7: lane 0 of warp 0 has exited .* needs every lane of the cluster"):
        simulator.simulate(kernel_module(params, EXIT_THEN_REDUCE, SM75), "k", 1, 64, [x, out])


def test_cluster_reduce_with_other_lanes_of_the_warp_diverged_is_an_error():
    """Even a reduction over clusters of 8 lanes shuffles with the full warp mask."""
    module = kernel_module(
        f"%x: {g('f32')}, %out: {g('f32')}",
        f"""
      %tid = gpu.thread_id x
      %c8 = arith.constant 8 : index
      %lt = arith.cmpi ult, %tid, %c8 : index
      cf.cond_br %lt, ^go, ^done
    ^go:
      %v = memref.load %x[%tid] : {g('f32')}
      %r = gpu.subgroup_reduce add %v cluster(size = 8) : (f32) -> f32 loc("k.py":4:4)
      memref.store %r, %out[%tid] : {g('f32')}
      cf.br ^done
    ^done:""",
    )
    with pytest.raises(SimulatorError, match=r"k.py:4:4: lane 8 of warp 0 is named in the member mask"):
        simulator.simulate(module, "k", 1, 32, [np.zeros(32, np.float32), np.zeros(32, np.float32)])


# --------------------------------------------------------------------------- votes, ballot, active mask, match


VOTES = f"""
      %tid = gpu.thread_id x
      %c7 = arith.constant 7 : index
      %r7 = arith.remui %tid, %c7 : index
      %c0 = arith.constant 0 : index
      %gone = arith.cmpi eq, %r7, %c0 : index
      cf.cond_br %gone, ^exit, ^go
    ^exit:
      gpu.return
    ^go:
      %v = memref.load %x[%tid] : {g('i32')}
      %z = arith.constant 0 : i32
      %p = arith.cmpi sgt, %v, %z : i32
      %any = gpu.vote any %p
      %all = gpu.vote all %p
      %b = gpu.ballot %p : i32
      %am = gpu.active_mask : i32
      %key = memref.load %k[%tid] : {g('i64')}
      %mt = gpu.match_any %key : i64
      memref.store %any, %o_any[%tid] : {g('i1')}
      memref.store %all, %o_all[%tid] : {g('i1')}
      memref.store %b, %o_ballot[%tid] : {g('i32')}
      memref.store %am, %o_active[%tid] : {g('i32')}
      memref.store %mt, %o_match[%tid] : {g('i32')}"""


def test_votes_ballot_active_mask_and_match_leave_exited_lanes_out():
    n = 128
    x = RNG.integers(-3, 60, n, dtype=np.int32)
    x[32:64] = np.abs(x[32:64]) + 1  # warp 1: every live lane positive
    keys = RNG.integers(0, 3, n).astype(np.int64) << 40  # equal keys differ only in high bits
    outs = [np.zeros(n, bool), np.zeros(n, bool), np.zeros(n, np.int32), np.zeros(n, np.int32), np.zeros(n, np.int32)]
    params = f"%x: {g('i32')}, %k: {g('i64')}, %o_any: {g('i1')}, %o_all: {g('i1')}, %o_ballot: {g('i32')}, %o_active: {g('i32')}, %o_match: {g('i32')}"
    simulator.simulate(kernel_module(params, VOTES), "k", 1, n, [x, keys, *outs])
    o_any, o_all, o_ballot, o_active, o_match = outs
    live = np.arange(n) % 7 != 0
    lane_bit = np.uint64(1) << (np.arange(n) % 32).astype(np.uint64)
    for w in range(n // 32):
        sl = slice(32 * w, 32 * w + 32)
        lv, p = live[sl], x[sl] > 0
        mask = int((lane_bit[sl] * lv).sum())
        ballot = int((lane_bit[sl] * (lv & p)).sum())
        for lane in np.flatnonzero(lv):
            t = 32 * w + lane
            assert o_any[t] == (lv & p).any() and o_all[t] == p[lv].all()
            assert o_ballot[t].view(np.uint32) == ballot and o_active[t].view(np.uint32) == mask
            same = int((lane_bit[sl] * (lv & (keys[sl] == keys[t]))).sum())
            assert o_match[t].view(np.uint32) == same
    assert o_all[32:64][live[32:64]].all()


def test_ballot_of_a_diverged_branch_is_an_error_and_a_partial_mask_is_fine():
    # gpu.ballot names the whole warp: in a branch only some lanes take, that is undefined on the GPU
    diverged = kernel_module(
        f"%out: {g('i32')}",
        f"""
      %tid = gpu.thread_id x
      %c2 = arith.constant 2 : index
      %r = arith.remui %tid, %c2 : index
      %c0 = arith.constant 0 : index
      %even = arith.cmpi eq, %r, %c0 : index
      cf.cond_br %even, ^go, ^done
    ^go:
      %true = arith.constant true
      %b = gpu.ballot %true : i32 loc("k.py":5:9)
      memref.store %b, %out[%tid] : {g('i32')}
      cf.br ^done
    ^done:""",
    )
    with pytest.raises(SimulatorError, match=r"'gpu.ballot' at k.py:5:9: lane 1 of warp 0 is named in the member mask"):
        simulator.simulate(diverged, "k", 1, 32, [np.zeros(32, np.int32)])
    # the nvvm form with the branch's own active mask votes among the lanes in the branch
    partial = kernel_module(
        f"%x: {g('i32')}, %out: {g('i32')}",
        f"""
      %tid = gpu.thread_id x
      %c2 = arith.constant 2 : index
      %r = arith.remui %tid, %c2 : index
      %c0 = arith.constant 0 : index
      %even = arith.cmpi eq, %r, %c0 : index
      cf.cond_br %even, ^go, ^done
    ^go:
      %m = nvvm.activemask : i32
      %v = memref.load %x[%tid] : {g('i32')}
      %z = arith.constant 0 : i32
      %p = arith.cmpi sgt, %v, %z : i32
      %b = nvvm.vote.ballot.sync %m, %p : (i32, i1) -> i32
      memref.store %b, %out[%tid] : {g('i32')}
      cf.br ^done
    ^done:""",
    )
    x = RNG.integers(-5, 5, 32, dtype=np.int32)
    out = np.zeros(32, np.int32)
    simulator.simulate(partial, "k", 1, 32, [x, out])
    want = sum(1 << lane for lane in range(0, 32, 2) if x[lane] > 0)
    assert out[::2].view(np.uint32).tolist() == [want] * 16 and not out[1::2].any()


# --------------------------------------------------------------------------- reducing barriers


BARRIER_REDUCE = f"""
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %bx = gpu.block_dim x
      %row = arith.muli %ty, %bx : index
      %t = arith.addi %row, %tx : index
      %bid = gpu.block_id x
      %bd = gpu.block_dim y
      %per = arith.muli %bx, %bd : index
      %base = arith.muli %bid, %per : index
      %i = arith.addi %base, %t : index
      %v = memref.load %x[%i] : {g('i32')}
      %z = arith.constant 0 : i32
      %pos = arith.cmpi sgt, %v, %z : i32
      %n = gpu.barrier_reduce popc %pos : i32
      %m50 = arith.constant -50 : i32
      %big = arith.cmpi sgt, %v, %m50 : i32
      %all = gpu.barrier_reduce and %big : i1
      %c95 = arith.constant 95 : i32
      %huge = arith.cmpi sgt, %v, %c95 : i32
      %some = gpu.barrier_reduce or %huge : i1
      %true = arith.constant true
      %everyone = gpu.barrier_reduce popc %true : i32
      %n2 = arith.addi %n, %everyone : i32
      memref.store %n2, %count[%i] : {g('i32')}
      memref.store %all, %every[%i] : {g('i1')}
      memref.store %some, %any[%i] : {g('i1')}"""


def test_barrier_reductions_count_and_or_over_the_block():
    block, blocks = (16, 6, 1), 5
    per = 16 * 6
    n = per * blocks
    x = RNG.integers(-60, 100, n, dtype=np.int32)
    x[:per] = np.abs(x[:per])  # block 0: all > -50
    count, every, some = np.zeros(n, np.int32), np.zeros(n, bool), np.zeros(n, bool)
    params = f"%x: {g('i32')}, %count: {g('i32')}, %every: {g('i1')}, %any: {g('i1')}"
    simulator.simulate(kernel_module(params, BARRIER_REDUCE), "k", blocks, block, [x, count, every, some])
    b = x.reshape(blocks, per)
    np.testing.assert_array_equal(count, np.repeat((b > 0).sum(1) + per, per))
    np.testing.assert_array_equal(every, np.repeat((b > -50).all(1), per))
    np.testing.assert_array_equal(some, np.repeat((b > 95).any(1), per))
    assert every[:per].all()


def test_barrier_count_in_a_loop_and_after_divergence():
    """Each round the threads still counting vote; the loop's trip count is the block's."""
    module = kernel_module(
        f"%x: {g('i32')}, %rounds: {g('i32')}",
        f"""
      %tid = gpu.thread_id x
      %v0 = memref.load %x[%tid] : {g('i32')}
      %zero = arith.constant 0 : i32
      %one = arith.constant 1 : i32
      cf.br ^head(%v0, %zero : i32, i32)
    ^head(%v: i32, %k: i32):
      %pos = arith.cmpi sgt, %v, %zero : i32
      cf.cond_br %pos, ^dec, ^keep
    ^dec:
      %v1 = arith.subi %v, %one : i32
      cf.br ^join(%v1 : i32)
    ^keep:
      cf.br ^join(%v : i32)
    ^join(%w: i32):
      %n = gpu.barrier_reduce popc %pos : i32
      %k1 = arith.addi %k, %one : i32
      %more = arith.cmpi sgt, %n, %zero : i32
      cf.cond_br %more, ^head(%w, %k1 : i32, i32), ^done
    ^done:
      memref.store %k1, %rounds[%tid] : {g('i32')}""",
    )
    x = RNG.integers(-5, 20, 96, dtype=np.int32)
    rounds = np.zeros(96, np.int32)
    simulator.simulate(module, "k", 1, 96, [x, rounds])
    assert (rounds == max(x.max(), 0) + 1).all()


def test_barrier_reduce_some_threads_skip_is_an_error():
    module = kernel_module(
        f"%out: {g('i32')}",
        f"""
      %tid = gpu.thread_id x
      %c3 = arith.constant 3 : index
      %lt = arith.cmpi ult, %tid, %c3 : index
      cf.cond_br %lt, ^exit, ^go
    ^exit:
      gpu.return
    ^go:
      %true = arith.constant true
      %n = gpu.barrier_reduce popc %true : i32 loc("k.py":12:4)
      memref.store %n, %out[%tid] : {g('i32')}""",
    )
    with pytest.raises(SimulatorError, match=r"'gpu.barrier_reduce' at k.py:12:4 is reached by 61 of the 64 threads"):
        simulator.simulate(module, "k", 1, 64, [np.zeros(64, np.int32)])


# --------------------------------------------------------------------------- fences and warp sync


def test_fences_and_warp_sync_run_and_order_nothing():
    module = kernel_module(
        f"%x: {g('f32')}, %out: {g('f32')}",
        f"""
      %tid = gpu.global_id x
      %v = memref.load %x[%tid] : {g('f32')}
      gpu.thread_fence block
      gpu.thread_fence device
      %full = arith.constant -1 : i32
      gpu.warp_sync %full
      gpu.thread_fence system
      memref.store %v, %out[%tid] : {g('f32')}""",
    )
    x = RNG.standard_normal(256).astype(np.float32)
    out = np.zeros(256, np.float32)
    simulator.simulate(module, "k", 2, 128, [x, out])
    np.testing.assert_array_equal(out, x)


@pytest.mark.parametrize(
    ("mask", "branch", "message"),
    [
        ("-1", True, r"'gpu.warp_sync' at k.py:2:2: lane 16 of warp 0 is named in the member mask"),
        ("65535", False, r"'gpu.warp_sync' at k.py:2:2: lane 16 of warp 0 executes it but is not in its mask 0x0000ffff"),
    ],
)
def test_warp_sync_mask_errors(mask: str, branch: bool, message: str):
    cond = "%lt" if branch else "%true"
    module = kernel_module(
        "",
        f"""
      %tid = gpu.thread_id x
      %c16 = arith.constant 16 : index
      %lt = arith.cmpi ult, %tid, %c16 : index
      %true = arith.constant true
      cf.cond_br {cond}, ^go, ^done
    ^go:
      %m = arith.constant {mask} : i32
      gpu.warp_sync %m loc("k.py":2:2)
      cf.br ^done
    ^done:""",
    )
    with pytest.raises(SimulatorError, match=message):
        simulator.simulate(module, "k", 1, 32, [])


# --------------------------------------------------------------------------- dynamic shared memory


DYNAMIC_SHARED = f"""
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bd = gpu.block_dim x
      %base = arith.muli %bid, %bd : index
      %i = arith.addi %base, %tid : index
      %raw = gpu.dynamic_shared_memory : memref<?xi8, 3 : i32>
      %c0 = arith.constant 0 : index
      %bytes = memref.dim %raw, %c0 : memref<?xi8, 3 : i32>
      %c4 = arith.constant 4 : index
      %words = arith.divui %bytes, %c4 : index
      %f = memref.view %raw[%c0][%words] : memref<?xi8, 3 : i32> to memref<?xf32, 3 : i32>
      %c16 = arith.constant 16 : index
      %w4 = arith.subi %words, %c4 : index
      %ints = memref.view %raw[%c16][%w4] : memref<?xi8, 3 : i32> to memref<?xi32, 3 : i32>
      %before = memref.load %f[%tid] : memref<?xf32, 3 : i32>
      %v = memref.load %x[%i] : {g('f32')}
      %vb = arith.addf %v, %before : f32
      memref.store %vb, %f[%tid] : memref<?xf32, 3 : i32>
      gpu.barrier
      %c1 = arith.constant 1 : index
      %last = arith.subi %bd, %c1 : index
      %rev = arith.subi %last, %tid : index
      %other = memref.load %f[%rev] : memref<?xf32, 3 : i32>
      memref.store %other, %out[%i] : {g('f32')}
      %asint = memref.load %ints[%tid] : memref<?xi32, 3 : i32>
      memref.store %asint, %alias[%i] : {g('i32')}
      %b64 = arith.index_cast %bytes : index to i64
      memref.store %b64, %size[%i] : {g('i64')}"""


def test_dynamic_shared_memory_is_sized_by_the_launch_fresh_per_block_and_aliased_by_views():
    block, blocks, nbytes = 64, 3, 64 * 4 + 100
    n = block * blocks
    x = RNG.standard_normal(n).astype(np.float32)
    out, alias, size = np.zeros(n, np.float32), np.zeros(n, np.int32), np.zeros(n, np.int64)
    params = f"%x: {g('f32')}, %out: {g('f32')}, %alias: {g('i32')}, %size: {g('i64')}"
    simulator.simulate(kernel_module(params, DYNAMIC_SHARED), "k", blocks, block, [x, out, alias, size], dynamic_shared_bytes=nbytes)
    assert (size == nbytes).all()
    xb = x.reshape(blocks, block)
    np.testing.assert_array_equal(out, xb[:, ::-1].ravel())  # each block starts from zeros: + 0
    # the i32 view starts 16 bytes (4 floats) in: thread t sees float t + 4's bits
    shifted = np.concatenate([xb[:, 4:], np.zeros((blocks, 4), np.float32)], axis=1).ravel()
    np.testing.assert_array_equal(alias, shifted.view(np.int32))


def test_dynamic_shared_memory_past_the_launch_size_is_out_of_bounds():
    x = np.zeros(64, np.float32)
    params = f"%x: {g('f32')}, %out: {g('f32')}, %alias: {g('i32')}, %size: {g('i64')}"
    args = [x, np.zeros(64, np.float32), np.zeros(64, np.int32), np.zeros(64, np.int64)]
    with pytest.raises(SimulatorError, match=r"out of bounds: index 32 not in \[0, 32\)"):
        simulator.simulate(kernel_module(params, DYNAMIC_SHARED), "k", 1, 64, args, dynamic_shared_bytes=128)


# --------------------------------------------------------------------------- atomics


def _py_maximumf(a, b):
    return _maximum(np.array([a]), np.array([b]))[0]


def _py_minimumf(a, b):
    return _minimum(np.array([a]), np.array([b]))[0]


def _py_maxnumf(a, b):
    """C's fmax with −0 < +0 (a legal `llvm.maxnum` result, fixed so results do not depend on NumPy's code path)."""
    if np.isnan(a):
        return b
    if np.isnan(b) or a > b or (a == b and not np.signbit(a)):
        return a
    return b


def _py_minnumf(a, b):
    if np.isnan(a):
        return b
    if np.isnan(b) or a < b or (a == b and np.signbit(a)):
        return a
    return b


ATOMIC_KINDS = {  # MLIR's AtomicRMWKind → the sequential update (on NumPy scalars of the dtype)
    0: lambda a, b: a + b, 1: lambda a, b: a + b, 2: lambda a, b: a & b, 3: lambda a, b: b,
    4: _py_maximumf, 5: _py_maxnumf, 6: max, 7: "umax", 8: _py_minimumf,
    9: _py_minnumf, 10: min, 11: "umin", 14: lambda a, b: a | b, 15: lambda a, b: a ^ b,
}  # fmt: skip

ATOMIC_CASES = [
    (1, "i32"), (1, "i64"), (0, "f32"), (0, "f64"), (2, "i32"), (14, "i64"), (15, "i32"), (3, "i64"), (3, "f32"),
    (6, "i32"), (10, "i64"), (7, "i32"), (11, "i64"), (4, "f32"), (8, "f64"), (5, "f32"), (9, "f64"),
]  # fmt: skip


def sequential(kind: int, dt: np.dtype, mem: np.ndarray, addr: np.ndarray, vals: np.ndarray) -> np.ndarray:
    """The atomics applied one thread after another; returns what each thread saw."""
    fn = ATOMIC_KINDS[kind]
    if fn in ("umax", "umin"):
        udt = {4: np.uint32, 8: np.uint64}[dt.itemsize]
        pick = np.maximum if fn == "umax" else np.minimum
        fn = lambda a, b: pick(np.array(a, dt).view(udt), np.array(b, dt).view(udt)).view(dt)[()]  # noqa: E731
    old = np.empty(len(addr), dt)
    with np.errstate(all="ignore"):
        for t, (a, v) in enumerate(zip(addr, vals)):
            old[t] = mem[a]
            mem[a] = fn(mem[a], v)
    return old


def atomic_inputs(t: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    dt = np.dtype(NP[t])
    if dt.kind == "f":
        vals = (RNG.standard_normal(n) * 100).astype(dt)
        vals[RNG.choice(n, 4, replace=False)] = [0.0, -0.0, np.nan, -np.inf]
        mem = RNG.standard_normal(5).astype(dt)
        mem[0] = -0.0
    else:
        info = np.iinfo(dt)
        vals = RNG.integers(info.min, info.max, n, dtype=dt, endpoint=True)
        mem = RNG.integers(info.min, info.max, 5, dtype=dt, endpoint=True)
    return vals, mem


@pytest.mark.parametrize(("kind", "t"), ATOMIC_CASES)
def test_atomic_rmw_on_global_memory_returns_old_values_in_thread_order(kind: int, t: str):
    module = kernel_module(
        f"%m: {g(t)}, %addr: {g('i64')}, %x: {g(t)}, %old: {g(t)}",
        f"""
      %i = gpu.global_id x
      %a64 = memref.load %addr[%i] : {g('i64')}
      %a = arith.index_cast %a64 : i64 to index
      %v = memref.load %x[%i] : {g(t)}
      %o = "memref.atomic_rmw"(%v, %m, %a) <{{kind = {kind} : i64}}> : ({t}, {g(t)}, index) -> {t}
      memref.store %o, %old[%i] : {g(t)}""",
    )
    n = 384
    vals, mem = atomic_inputs(t, n)
    addr = RNG.integers(0, 5, n).astype(np.int64)  # 5 addresses, many threads each
    addr[:64] = np.arange(64) % 5  # and a warp with a regular pattern
    want_mem = mem.copy()
    want_old = sequential(kind, np.dtype(NP[t]), want_mem, addr, vals)
    old = np.zeros(n, NP[t])
    simulator.simulate(module, "k", 3, 128, [mem, addr, vals, old])
    np.testing.assert_array_equal(bits(old), bits(want_old))
    np.testing.assert_array_equal(bits(mem), bits(want_mem))


def test_float_atomic_max_and_min_propagate_nan_and_order_signed_zeros():
    module = kernel_module(
        f"%m: {g('f32')}, %x: {g('f32')}",
        f"""
      %i = gpu.global_id x
      %v = memref.load %x[%i] : {g('f32')}
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %a = "memref.atomic_rmw"(%v, %m, %c0) <{{kind = 4 : i64}}> : (f32, {g('f32')}, index) -> f32
      %b = "memref.atomic_rmw"(%v, %m, %c1) <{{kind = 8 : i64}}> : (f32, {g('f32')}, index) -> f32""",
    )
    x = RNG.standard_normal(256).astype(np.float32)
    x[RNG.integers(0, 256)] = np.nan
    m = np.array([-np.inf, np.inf], np.float32)
    simulator.simulate(module, "k", 2, 128, [m, x])
    assert np.isnan(m).all()
    m = np.array([-np.inf, np.inf], np.float32)
    simulator.simulate(module, "k", 2, 128, [m, np.nan_to_num(x, nan=0.5)])
    assert m.tolist() == [np.nan_to_num(x, nan=0.5).max(), np.nan_to_num(x, nan=0.5).min()]
    zeros = np.where(RNG.random(256) < 0.5, -0.0, 0.0).astype(np.float32)
    zeros[-1] = 0.0  # one +0 somewhere: max(-0, +0) = +0, min(+0, -0) = -0 (llvm.maximum / llvm.minimum)
    zeros[0] = -0.0
    m = np.array([-0.0, 0.0], np.float32)
    simulator.simulate(module, "k", 2, 128, [m, zeros])
    assert m.tolist() == [0.0, 0.0] and np.signbit(m).tolist() == [False, True]


SHARED_ATOMICS = f"""
      %tid = gpu.thread_id x
      %i = gpu.global_id x
      %s = memref.get_global @bins : memref<8xi32, 3 : i32>
      %c8 = arith.constant 8 : index
      %lt = arith.cmpi ult, %tid, %c8 : index
      cf.cond_br %lt, ^init, ^go
    ^init:
      %seed = memref.load %init[%tid] : {g('i32')}
      memref.store %seed, %s[%tid] : memref<8xi32, 3 : i32>
      cf.br ^go
    ^go:
      gpu.barrier
      %a64 = memref.load %addr[%i] : {g('i64')}
      %a = arith.index_cast %a64 : i64 to index
      %v = memref.load %x[%i] : {g('i32')}
      %o = "memref.atomic_rmw"(%v, %s, %a) <{{kind = 7 : i64}}> : (i32, memref<8xi32, 3 : i32>, index) -> i32
      %cmp = arith.constant 5 : i32
      %c = gpu.atomic_cmpxchg %s[%a], %cmp, %v : memref<8xi32, 3 : i32>, i32
      memref.store %o, %old[%i] : {g('i32')}
      memref.store %c, %cas[%i] : {g('i32')}
      gpu.barrier
      cf.cond_br %lt, ^out, ^done
    ^out:
      %bid = gpu.block_id x
      %row = arith.muli %bid, %c8 : index
      %j = arith.addi %row, %tid : index
      %r = memref.load %s[%tid] : memref<8xi32, 3 : i32>
      memref.store %r, %final[%j] : {g('i32')}
      cf.br ^done
    ^done:"""


def test_shared_memory_atomics_and_cas_per_block():
    module = parse_module(
        f"""builtin.module {{
  gpu.module @m [{SM90}] {{
    "memref.global"() <{{sym_name = "bins", sym_visibility = "private", type = memref<8xi32, 3 : i32>, initial_value, alignment = 16 : i64}}> : () -> ()
    gpu.func @k(%init: {g('i32')}, %addr: {g('i64')}, %x: {g('i32')}, %old: {g('i32')}, %cas: {g('i32')}, %final: {g('i32')}) kernel {{
{SHARED_ATOMICS}
      gpu.return
    }}
  }}
}}"""
    )
    blocks, block = 3, 64
    n = blocks * block
    init = RNG.integers(0, 10, 8, dtype=np.int32)
    addr = RNG.integers(0, 8, n).astype(np.int64)
    x = RNG.integers(-8, 8, n, dtype=np.int32)  # negatives are huge unsigned
    old, cas, final = np.zeros(n, np.int32), np.zeros(n, np.int32), np.zeros(8 * blocks, np.int32)
    simulator.simulate(module, "k", blocks, block, [init, addr, x, old, cas, final])
    for b in range(blocks):  # each block: its own shared bins, seeded from init
        mem = init.copy()
        sl = slice(b * block, (b + 1) * block)
        want_old = sequential(7, np.dtype(np.int32), mem, addr[sl], x[sl])
        want_cas = np.empty(block, np.int32)
        for t, (a, v) in enumerate(zip(addr[sl], x[sl])):  # the threads run max, then all of them the CAS
            want_cas[t] = mem[a]
            mem[a] = v if mem[a] == 5 else mem[a]
        np.testing.assert_array_equal(old[sl], want_old)
        np.testing.assert_array_equal(cas[sl], want_cas)
        np.testing.assert_array_equal(final[8 * b : 8 * b + 8], mem)


@pytest.mark.parametrize("t", ["i32", "i64"])
def test_compare_and_swap_returns_old_values_in_thread_order(t: str):
    module = kernel_module(
        f"%m: {g(t)}, %addr: {g('i64')}, %cmp: {g(t)}, %new: {g(t)}, %old: {g(t)}",
        f"""
      %i = gpu.global_id x
      %a64 = memref.load %addr[%i] : {g('i64')}
      %a = arith.index_cast %a64 : i64 to index
      %c = memref.load %cmp[%i] : {g(t)}
      %v = memref.load %new[%i] : {g(t)}
      %o = gpu.atomic_cmpxchg %m[%a], %c, %v {{syncscope = "block", ordering = "acq_rel"}} : {g(t)}, {t}
      memref.store %o, %old[%i] : {g(t)}""",
    )
    n = 256
    mem = RNG.integers(0, 4, 6).astype(NP[t])
    addr = RNG.integers(0, 6, n).astype(np.int64)
    cmp = RNG.integers(0, 4, n).astype(NP[t])
    new = RNG.integers(0, 4, n).astype(NP[t])
    want_mem, want_old = mem.copy(), np.empty(n, NP[t])
    for k in range(n):
        want_old[k] = want_mem[addr[k]]
        if want_mem[addr[k]] == cmp[k]:
            want_mem[addr[k]] = new[k]
    old = np.zeros(n, NP[t])
    simulator.simulate(module, "k", 2, 128, [mem, addr, cmp, new, old])
    np.testing.assert_array_equal(old, want_old)
    np.testing.assert_array_equal(mem, want_mem)


@pytest.mark.parametrize("t", ["f16", "bf16"])
def test_atomic_add_pair_rounds_each_half_and_returns_both_old_values(t: str):
    module = kernel_module(
        f"%m: {g(t)}, %pair: {g('i64')}, %lo: {g(t)}, %hi: {g(t)}, %old_lo: {g(t)}, %old_hi: {g(t)}",
        f"""
      %i = gpu.global_id x
      %p = memref.load %pair[%i] : {g('i64')}
      %two = arith.constant 2 : i64
      %e = arith.muli %p, %two : i64
      %a = arith.index_cast %e : i64 to index
      %x = memref.load %lo[%i] : {g(t)}
      %y = memref.load %hi[%i] : {g(t)}
      %ol, %oh = gpu.atomic_add_pair %m[%a], %x, %y : {g(t)}, {t}
      memref.store %ol, %old_lo[%i] : {g(t)}
      memref.store %oh, %old_hi[%i] : {g(t)}""",
    )
    n = 256
    dt = np.dtype(NP[t])
    mem = RNG.standard_normal(8).astype(dt)
    pair = RNG.integers(0, 4, n).astype(np.int64)
    lo, hi = RNG.standard_normal(n).astype(dt), (RNG.standard_normal(n) * 1e-2).astype(dt)
    want_mem, want_lo, want_hi = mem.copy(), np.empty(n, dt), np.empty(n, dt)
    for k in range(n):  # one thread after another, each half rounded to the type
        e = 2 * pair[k]
        want_lo[k], want_hi[k] = want_mem[e], want_mem[e + 1]
        want_mem[e] = (want_mem[e] + lo[k]).astype(dt)
        want_mem[e + 1] = (want_mem[e + 1] + hi[k]).astype(dt)
    old_lo, old_hi = np.zeros(n, dt), np.zeros(n, dt)
    simulator.simulate(module, "k", 2, 128, [mem, pair, lo, hi, old_lo, old_hi])
    for got, want in ((old_lo, want_lo), (old_hi, want_hi), (mem, want_mem)):
        np.testing.assert_array_equal(bits(got), bits(want))


# --------------------------------------------------------------------------- through the frontend


@simt.kernel
def block_sum_and_count(x: simt.Slice[wf.f32], sums: simt.DisjointSlice[wf.f32], positives: simt.DisjointSlice[wf.i32]):
    idx = simt.index_1d()
    t = simt.thread_idx.x
    v = x[idx.get()]
    partial = simt.shared_array(8, wf.f32)
    s = simt.warp_sum(v)
    if simt.lane_id() == 0:
        partial[t // 32] = s
    count = simt.sync_threads_count(v > 0)
    b = simt.block_index_1d()
    if t < 32:
        w = partial[t] if t < 8 else wf.f32(0)
        total = simt.warp_sum(w)
        sums[b] = total
    positives[b] = count


def test_block_reduction_through_the_frontend():
    blocks = 6
    x = RNG.standard_normal(256 * blocks).astype(np.float32)
    sums, positives = np.full(blocks, np.nan, np.float32), np.zeros(blocks, np.int32)
    simulator.run(block_sum_and_count, blocks, 256, x, sums, positives)
    xb = x.reshape(blocks, 8, 32)
    warp = xb.copy()
    for off in (16, 8, 4, 2, 1):  # the butterfly's order, lane 0's value
        warp = warp[..., :off] + warp[..., off : 2 * off]
    per_warp = np.concatenate([warp[..., 0], np.zeros((blocks, 24), np.float32)], axis=1)
    for off in (16, 8, 4, 2, 1):
        per_warp = per_warp[:, :off] + per_warp[:, off : 2 * off]
    np.testing.assert_array_equal(sums, per_warp[:, 0])
    np.testing.assert_array_equal(positives, (x.reshape(blocks, 256) > 0).sum(1))


@simt.kernel
def reverse_in_dynamic_shared(x: simt.Slice[wf.i32], out: simt.DisjointSlice[wf.i32]):
    idx = simt.index_1d()
    buf = simt.dynamic_shared(wf.i32)
    t = simt.thread_idx.x
    buf[t] = x[idx.get()]
    simt.sync_threads()
    out[idx] = buf[simt.block_dim.x - 1 - t] + wf.i32(len(buf))


def test_dynamic_shared_memory_through_the_runtime():
    dev = wf.Device.simulator()
    stream = dev.create_stream()
    x = RNG.integers(-1000, 1000, 512, dtype=np.int32)
    xd, out = wf.DeviceBuffer.from_host(stream, x), wf.DeviceBuffer.zeroed(stream, 512, wf.i32)
    prepared = reverse_in_dynamic_shared.prepare(wf.LaunchConfig(grid=4, block=128, shmem_size=128 * 4 + 64), device=dev)
    reverse_in_dynamic_shared.launch(stream, prepared, xd, out)
    np.testing.assert_array_equal(out.to_host(stream), x.reshape(4, 128)[:, ::-1].ravel() + (128 * 4 + 64) // 4)
    # too little dynamic shared memory: the checked read past its end is a KernelError, as on the GPU
    with pytest.raises(wf.KernelError, match="out-of-range"):
        simulator.run(reverse_in_dynamic_shared, 1, 128, x[:128], np.zeros(128, np.int32), shmem_size=64 * 4)


# --------------------------------------------------------------------------- coverage


def test_every_gpu_and_nvvm_op_has_an_implementation():
    """The simulator runs whatever the `gpu` level holds: a new `gpu` op (or `nvvm` catalog op) needs
    an implementation here (`warpforge.simulator.gpu.GPU_OPS` / `NVVM_OPS`)."""
    from warpforge.dialects import nvvm
    from warpforge.dialects.gpu import GPU

    from warpforge.dialects.nvgpu import NVGPU

    supported = set(simulator.supported_ops())
    assert {op.name for op in GPU.operations} - {"gpu.module", "gpu.func"} <= supported
    # the tensor-core rows take llvm pointers and packed registers: only convert-nvgpu-to-nvvm emits
    # them, below the gpu level, from the nvgpu ops the simulator runs (stmatrix: nothing emits it yet)
    tensor_core = {n for n in nvvm.OPS if n.startswith(("nvvm.mma.sync.", "nvvm.ldmatrix.", "nvvm.stmatrix.", "nvvm.cp.async."))}
    assert set(nvvm.OPS) - tensor_core <= supported
    assert {op.name for op in NVGPU.operations} <= supported
