"""warpforge.runtime on a real GPU: hand-written PTX kernels loaded, prepared and launched, device
buffers, checked-mode error records, torch interop, aliasing and the > 48 KiB shared-memory opt-in.

Every test is marked `gpu` and skipped cleanly without a driver (tests/conftest.py). Results are
compared with NumPy on fresh random inputs; outputs are poisoned with NaN first.
"""

from __future__ import annotations

import dataclasses
import math
import re

import numpy as np
import pytest

from warpforge.errors import AliasError, DeviceError, KernelError, LaunchError
from warpforge.runtime import (
    CompiledKernel,
    Device,
    DeviceBuffer,
    DeviceLimits,
    ErrorSite,
    LaunchConfig,
    ParamSpec,
    as_device_view,
    gpu_available,
    launch,
    prepare,
    synchronize,
)

pytestmark = pytest.mark.gpu

F32 = np.dtype(np.float32)

# vecadd(a: Slice[f32], b: Slice[f32], c: DisjointSlice[f32]), checked, contract block (256, 1, 1):
# c[i] = a[i] + b[i] for i < len(c). The error record (param 6) is never written.
VECADD_PTX = r"""
.version 8.0
.target sm_90
.address_size 64

.visible .entry vecadd(
	.param .u64 vecadd_param_0, .param .u64 vecadd_param_1,
	.param .u64 vecadd_param_2, .param .u64 vecadd_param_3,
	.param .u64 vecadd_param_4, .param .u64 vecadd_param_5,
	.param .u64 vecadd_param_6
)
.reqntid 256, 1, 1
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<12>;
	.reg .f32 	%f<4>;

	ld.param.u64 	%rd1, [vecadd_param_0];
	ld.param.u64 	%rd2, [vecadd_param_2];
	ld.param.u64 	%rd3, [vecadd_param_4];
	ld.param.u64 	%rd4, [vecadd_param_5];
	mov.u32 	%r1, %ctaid.x;
	mov.u32 	%r2, %ntid.x;
	mov.u32 	%r3, %tid.x;
	mul.wide.u32 	%rd5, %r1, %r2;
	cvt.u64.u32 	%rd6, %r3;
	add.s64 	%rd5, %rd5, %rd6;
	setp.ge.s64 	%p1, %rd5, %rd4;
	@%p1 bra 	$L_done;
	cvta.to.global.u64 	%rd1, %rd1;
	cvta.to.global.u64 	%rd2, %rd2;
	cvta.to.global.u64 	%rd3, %rd3;
	shl.b64 	%rd7, %rd5, 2;
	add.s64 	%rd8, %rd1, %rd7;
	ld.global.f32 	%f1, [%rd8];
	add.s64 	%rd9, %rd2, %rd7;
	ld.global.f32 	%f2, [%rd9];
	add.rn.f32 	%f3, %f1, %f2;
	add.s64 	%rd10, %rd3, %rd7;
	st.global.f32 	[%rd10], %f3;
$L_done:
	ret;
}
"""

# saxpy(alpha: f32, x: Slice[f32], y: Slice[f32], out: DisjointSlice[f32]), checked:
# out[i] = alpha * x[i] + y[i] (rounded twice, no fma, so it matches NumPy exactly).
SAXPY_PTX = r"""
.version 8.0
.target sm_90
.address_size 64

.visible .entry saxpy(
	.param .f32 saxpy_param_0,
	.param .u64 saxpy_param_1, .param .u64 saxpy_param_2,
	.param .u64 saxpy_param_3, .param .u64 saxpy_param_4,
	.param .u64 saxpy_param_5, .param .u64 saxpy_param_6,
	.param .u64 saxpy_param_7
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<12>;
	.reg .f32 	%f<6>;

	ld.param.f32 	%f1, [saxpy_param_0];
	ld.param.u64 	%rd1, [saxpy_param_1];
	ld.param.u64 	%rd2, [saxpy_param_3];
	ld.param.u64 	%rd3, [saxpy_param_5];
	ld.param.u64 	%rd4, [saxpy_param_6];
	mov.u32 	%r1, %ctaid.x;
	mov.u32 	%r2, %ntid.x;
	mov.u32 	%r3, %tid.x;
	mul.wide.u32 	%rd5, %r1, %r2;
	cvt.u64.u32 	%rd6, %r3;
	add.s64 	%rd5, %rd5, %rd6;
	setp.ge.s64 	%p1, %rd5, %rd4;
	@%p1 bra 	$L_done;
	cvta.to.global.u64 	%rd1, %rd1;
	cvta.to.global.u64 	%rd2, %rd2;
	cvta.to.global.u64 	%rd3, %rd3;
	shl.b64 	%rd7, %rd5, 2;
	add.s64 	%rd8, %rd1, %rd7;
	ld.global.f32 	%f2, [%rd8];
	add.s64 	%rd9, %rd2, %rd7;
	ld.global.f32 	%f3, [%rd9];
	mul.rn.f32 	%f4, %f1, %f2;
	add.rn.f32 	%f5, %f4, %f3;
	add.s64 	%rd10, %rd3, %rd7;
	st.global.f32 	[%rd10], %f5;
$L_done:
	ret;
}
"""

# oob(a: Slice[f32], out: DisjointSlice[f32]), checked: out[i] = a[i] for i < len(out), where the read
# of a[i] is checked: out of range, it records site 1 (index i, length len(a)) and reads 0.
OOB_PTX = r"""
.version 8.0
.target sm_90
.address_size 64

.visible .entry oob(
	.param .u64 oob_param_0, .param .u64 oob_param_1,
	.param .u64 oob_param_2, .param .u64 oob_param_3,
	.param .u64 oob_param_4
)
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<20>;
	.reg .f32 	%f<2>;

	ld.param.u64 	%rd1, [oob_param_0];
	ld.param.u64 	%rd2, [oob_param_1];
	ld.param.u64 	%rd3, [oob_param_2];
	ld.param.u64 	%rd4, [oob_param_3];
	mov.u32 	%r1, %ctaid.x;
	mov.u32 	%r2, %ntid.x;
	mov.u32 	%r3, %tid.x;
	mul.wide.u32 	%rd5, %r1, %r2;
	cvt.u64.u32 	%rd6, %r3;
	add.s64 	%rd5, %rd5, %rd6;
	mov.f32 	%f1, 0f00000000;
	setp.lt.s64 	%p1, %rd5, %rd2;
	@%p1 bra 	$L_read;
	ld.param.u64 	%rd7, [oob_param_4];
	cvta.to.global.u64 	%rd7, %rd7;
	atom.global.add.u64 	%rd8, [%rd7], 1;
	setp.ne.s64 	%p2, %rd8, 0;
	@%p2 bra 	$L_store;
	mov.u64 	%rd9, 1;
	st.global.u64 	[%rd7+8], %rd9;
	st.global.u64 	[%rd7+16], %rd5;
	st.global.u64 	[%rd7+24], %rd2;
	cvt.u64.u32 	%rd10, %r1;
	st.global.u64 	[%rd7+32], %rd10;
	mov.u32 	%r4, %ctaid.y;
	cvt.u64.u32 	%rd11, %r4;
	st.global.u64 	[%rd7+40], %rd11;
	st.global.u64 	[%rd7+48], %rd6;
	mov.u32 	%r5, %tid.y;
	cvt.u64.u32 	%rd12, %r5;
	st.global.u64 	[%rd7+56], %rd12;
	bra.uni 	$L_store;
$L_read:
	cvta.to.global.u64 	%rd13, %rd1;
	shl.b64 	%rd14, %rd5, 2;
	add.s64 	%rd15, %rd13, %rd14;
	ld.global.f32 	%f1, [%rd15];
$L_store:
	setp.ge.s64 	%p3, %rd5, %rd4;
	@%p3 bra 	$L_done;
	cvta.to.global.u64 	%rd16, %rd3;
	shl.b64 	%rd17, %rd5, 2;
	add.s64 	%rd18, %rd16, %rd17;
	st.global.f32 	[%rd18], %f1;
$L_done:
	ret;
}
"""

# shmem_probe(x: Slice[f32], out: DisjointSlice[f32], nbytes: u32), unchecked, dynamic shared memory:
# smem[tid] = x[i]; thread 0 writes 1.0 into the last float of the nbytes-byte dynamic shared memory;
# out[i] = smem[tid] + that float = x[i] + 1.
SHMEM_PTX = r"""
.version 8.0
.target sm_90
.address_size 64

.extern .shared .align 16 .b8 dyn_smem[];

.visible .entry shmem_probe(
	.param .u64 shmem_probe_param_0, .param .u64 shmem_probe_param_1,
	.param .u64 shmem_probe_param_2, .param .u64 shmem_probe_param_3,
	.param .u32 shmem_probe_param_4
)
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<10>;
	.reg .b64 	%rd<12>;
	.reg .f32 	%f<6>;

	ld.param.u64 	%rd1, [shmem_probe_param_0];
	ld.param.u64 	%rd3, [shmem_probe_param_2];
	ld.param.u64 	%rd4, [shmem_probe_param_3];
	ld.param.u32 	%r9, [shmem_probe_param_4];
	mov.u32 	%r1, %ctaid.x;
	mov.u32 	%r2, %ntid.x;
	mov.u32 	%r3, %tid.x;
	mul.wide.u32 	%rd5, %r1, %r2;
	cvt.u64.u32 	%rd6, %r3;
	add.s64 	%rd5, %rd5, %rd6;
	shl.b64 	%rd7, %rd5, 2;
	mov.f32 	%f1, 0f00000000;
	setp.ge.s64 	%p1, %rd5, %rd4;
	@%p1 bra 	$L_skip_load;
	cvta.to.global.u64 	%rd1, %rd1;
	add.s64 	%rd8, %rd1, %rd7;
	ld.global.f32 	%f1, [%rd8];
$L_skip_load:
	mov.u32 	%r4, dyn_smem;
	shl.b32 	%r5, %r3, 2;
	add.u32 	%r6, %r4, %r5;
	st.shared.f32 	[%r6], %f1;
	add.u32 	%r7, %r4, %r9;
	sub.u32 	%r7, %r7, 4;
	setp.eq.u32 	%p2, %r3, 0;
	mov.f32 	%f2, 0f3F800000;
	@%p2 st.shared.f32 	[%r7], %f2;
	bar.sync 	0;
	ld.shared.f32 	%f3, [%r6];
	ld.shared.f32 	%f4, [%r7];
	add.rn.f32 	%f5, %f3, %f4;
	@%p1 bra 	$L_done;
	cvta.to.global.u64 	%rd3, %rd3;
	add.s64 	%rd9, %rd3, %rd7;
	st.global.f32 	[%rd9], %f5;
$L_done:
	ret;
}
"""

# scale2d(m: Slice2D[f32], out: DisjointSlice2D[f32]), checked, index_2d: out[r, c] = 2 * m[r, c].
SCALE2D_PTX = r"""
.version 8.0
.target sm_90
.address_size 64

.visible .entry scale2d(
	.param .u64 scale2d_param_0, .param .u64 scale2d_param_1, .param .u64 scale2d_param_2,
	.param .u64 scale2d_param_3, .param .u64 scale2d_param_4, .param .u64 scale2d_param_5,
	.param .u64 scale2d_param_6
)
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<8>;
	.reg .b64 	%rd<14>;
	.reg .f32 	%f<3>;

	ld.param.u64 	%rd1, [scale2d_param_0];
	ld.param.u64 	%rd2, [scale2d_param_1];
	ld.param.u64 	%rd3, [scale2d_param_2];
	ld.param.u64 	%rd4, [scale2d_param_3];
	mov.u32 	%r1, %ctaid.y;
	mov.u32 	%r2, %ntid.y;
	mov.u32 	%r3, %tid.y;
	mul.wide.u32 	%rd5, %r1, %r2;
	cvt.u64.u32 	%rd6, %r3;
	add.s64 	%rd5, %rd5, %rd6;
	mov.u32 	%r4, %ctaid.x;
	mov.u32 	%r5, %ntid.x;
	mov.u32 	%r6, %tid.x;
	mul.wide.u32 	%rd7, %r4, %r5;
	cvt.u64.u32 	%rd8, %r6;
	add.s64 	%rd7, %rd7, %rd8;
	setp.ge.s64 	%p1, %rd5, %rd2;
	setp.ge.s64 	%p2, %rd7, %rd3;
	or.pred 	%p3, %p1, %p2;
	@%p3 bra 	$L_done;
	mad.lo.s64 	%rd9, %rd5, %rd3, %rd7;
	shl.b64 	%rd9, %rd9, 2;
	cvta.to.global.u64 	%rd1, %rd1;
	cvta.to.global.u64 	%rd4, %rd4;
	add.s64 	%rd10, %rd1, %rd9;
	ld.global.f32 	%f1, [%rd10];
	mul.rn.f32 	%f2, %f1, 0f40000000;
	add.s64 	%rd11, %rd4, %rd9;
	st.global.f32 	[%rd11], %f2;
$L_done:
	ret;
}
"""

ALL_PTX = {"vecadd": VECADD_PTX, "saxpy": SAXPY_PTX, "oob": OOB_PTX, "shmem_probe": SHMEM_PTX, "scale2d": SCALE2D_PTX}


def kernel(name: str, params, *, checked=True, error_sites=(), exact_block=None, index_domain=None, ptx=None, entry=None):
    return CompiledKernel(
        name=name,
        entry=entry or name,
        ptx=ptx if ptx is not None else ALL_PTX[name],
        chip="sm_90",
        params=tuple(params),
        checked=checked,
        error_sites=tuple(error_sites),
        exact_block=exact_block,
        max_threads=None,
        index_domain=index_domain,
        cache_key=f"test-{name}",
    )


VECADD = kernel(
    "vecadd",
    [ParamSpec("a", "slice", F32), ParamSpec("b", "slice", F32), ParamSpec("c", "disjoint_slice", F32)],
    exact_block=(256, 1, 1),
    index_domain=1,
)
SAXPY = kernel(
    "saxpy",
    [ParamSpec("alpha", "scalar", F32), ParamSpec("x", "slice", F32), ParamSpec("y", "slice", F32),
     ParamSpec("out", "disjoint_slice", F32)],
)
OOB = kernel(
    "oob",
    [ParamSpec("a", "slice", F32), ParamSpec("out", "disjoint_slice", F32)],
    error_sites=[ErrorSite(1, "out-of-range read", "a[i] read out of range", "oob.py", 3, 14)],
)
SHMEM = kernel(
    "shmem_probe",
    [ParamSpec("x", "slice", F32), ParamSpec("out", "disjoint_slice", F32), ParamSpec("nbytes", "scalar", np.dtype(np.uint32))],
    checked=False,
)
SCALE2D = kernel(
    "scale2d",
    [ParamSpec("m", "slice", F32, ndim=2), ParamSpec("out", "disjoint_slice", F32, ndim=2)],
    index_domain=2,
)


@pytest.fixture(scope="module")
def dev():
    return Device(0)


@pytest.fixture
def stream(dev):
    return dev.create_stream()


@pytest.fixture
def rng():
    return np.random.default_rng(1610)


def blocks(n: int, per: int = 256) -> int:
    return max(1, math.ceil(n / per))


def poisoned(stream, n: int, dtype=np.float32) -> DeviceBuffer:
    return DeviceBuffer.from_host(stream, np.full(n, np.nan, dtype=dtype))


# --- device -------------------------------------------------------------------------------------


def test_device_basics(dev):
    assert gpu_available()
    assert Device(0) is dev
    assert dev.chip.startswith("sm_") and dev.compute_capability >= (9, 0)
    limits = dev.limits
    assert limits == DeviceLimits.from_device(dev)
    assert limits.max_grid_dim[1] == 65535 and limits.max_grid_dim[2] == 65535
    assert limits.max_threads_per_block == 1024 and limits.warp_size == 32
    if "H200" in dev.name:
        assert limits == dataclasses.replace(DeviceLimits.H200, name=dev.name)
    default = dev.default_stream
    assert default is dev.default_stream
    assert default.handle not in (0, 1, 2)  # a created stream, not the legacy / per-thread default
    assert default.__cuda_stream__()[1] == default.handle


def test_device_ordinal_out_of_range():
    with pytest.raises(DeviceError, match="does not exist"):
        Device(4096)


# --- buffers ------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
                                   "uint64", "float16", "float32", "float64", "bfloat16"])
@pytest.mark.parametrize("shape", [(0,), (7,), (3, 5), (1000,)])
def test_device_buffer_round_trip(stream, rng, dtype, shape):
    if dtype == "bfloat16":
        import ml_dtypes

        dt = np.dtype(ml_dtypes.bfloat16)
    else:
        dt = np.dtype(dtype)
    if dt.kind == "b":
        host = rng.integers(0, 2, size=shape).astype(dt)
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        host = rng.integers(info.min, info.max, size=shape, dtype=dt, endpoint=True)
    else:
        host = rng.standard_normal(size=shape).astype(dt)
    buf = DeviceBuffer.from_host(stream, host)
    assert buf.shape == shape and buf.dtype == dt and buf.nbytes == host.nbytes and buf.size == host.size
    back = buf.to_host()
    assert back.dtype == dt and back.shape == shape
    np.testing.assert_array_equal(back.view(np.uint8), np.ascontiguousarray(host).view(np.uint8))
    zeros = DeviceBuffer.zeroed(stream, shape, dt).to_host(stream)
    assert not zeros.view(np.uint8).any()


def test_device_buffer_copy_from_host_and_empty(stream, rng):
    buf = DeviceBuffer.empty(stream, (4, 6), np.int32)
    host = rng.integers(-100, 100, size=(4, 6), dtype=np.int32)
    buf.copy_from_host(host)
    np.testing.assert_array_equal(buf.to_host(), host)
    with pytest.raises(LaunchError, match="shape"):
        buf.copy_from_host(np.zeros((6, 4), np.int32))
    with pytest.raises(LaunchError, match="astype"):
        buf.copy_from_host(np.zeros((4, 6), np.int64))
    # a non-contiguous host source is copied contiguously
    src = rng.standard_normal((8, 8)).astype(np.float32)[::2, ::2]
    np.testing.assert_array_equal(DeviceBuffer.from_host(stream, src).to_host(), src)


def test_device_buffer_accepts_warpforge_style_dtype(stream):
    class F32Like:
        np = np.dtype(np.float32)

    buf = DeviceBuffer.zeroed(stream, 16, F32Like())
    assert buf.dtype == np.float32 and buf.shape == (16,)


# --- launches -----------------------------------------------------------------------------------


def test_vecadd_prepare_and_launch(dev, stream, rng):
    n = 1000  # not a multiple of 256: the tail threads do nothing
    a_h, b_h = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    a, b, c = DeviceBuffer.from_host(stream, a_h), DeviceBuffer.from_host(stream, b_h), poisoned(stream, n)
    prepared = prepare(VECADD, LaunchConfig(grid=blocks(n), block=256), dev)
    assert not prepared.shared_optin
    launch(stream, prepared, (a, b, c), kernel=VECADD)
    np.testing.assert_array_equal(c.to_host(), a_h + b_h)
    # the token can be reused, and on the default stream
    c2 = DeviceBuffer.zeroed(None, n, np.float32)
    launch(None, prepared, [b, a, c2])
    np.testing.assert_array_equal(c2.to_host(), b_h + a_h)


def test_contract_refused_at_prepare(dev):
    with pytest.raises(LaunchError, match=r"requires block \(256, 1, 1\)"):
        prepare(VECADD, LaunchConfig(4, 128), dev)
    with pytest.raises(LaunchError, match="index_1d"):
        prepare(VECADD, LaunchConfig((4, 2), 256), dev)


def test_saxpy_scalar_argument(dev, stream, rng):
    n = 4096 + 17
    x_h, y_h = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    alpha = 1.75
    x, y, out = DeviceBuffer.from_host(stream, x_h), DeviceBuffer.from_host(stream, y_h), poisoned(stream, n)
    prepared = prepare(SAXPY, LaunchConfig(blocks(n, 128), 128), dev)
    launch(stream, prepared, (alpha, x, y, out))
    expected = np.float32(alpha) * x_h + y_h
    np.testing.assert_array_equal(out.to_host(), expected)
    with pytest.raises(LaunchError, match="a float"):
        launch(stream, prepared, ("2", x, y, out))


def test_2d_kernel(dev, stream, rng):
    rows, cols = 37, 45
    m_h = rng.standard_normal((rows, cols)).astype(np.float32)
    m, out = DeviceBuffer.from_host(stream, m_h), DeviceBuffer.from_host(stream, np.full((rows, cols), np.nan, np.float32))
    prepared = prepare(SCALE2D, LaunchConfig((blocks(cols, 16), blocks(rows, 16)), (16, 16)), dev)
    launch(stream, prepared, (m, out))
    np.testing.assert_array_equal(out.to_host(), 2 * m_h)
    with pytest.raises(LaunchError, match="is 2-D, got a 1-D array"):
        launch(stream, prepared, (DeviceBuffer.zeroed(stream, 10, np.float32), out))
    with pytest.raises(LaunchError, match="index_2d"):
        prepare(SCALE2D, LaunchConfig((1, 1, 2), (16, 16)), dev)


def test_prepared_for_another_kernel_refused(dev, stream):
    prepared = prepare(VECADD, LaunchConfig(1, 256), dev)
    with pytest.raises(LaunchError, match="made for vecadd, not saxpy"):
        launch(stream, prepared, (1.0, None, None, None), kernel=SAXPY)


def test_argument_refusals_on_gpu(dev, stream):
    prepared = prepare(VECADD, LaunchConfig(1, 256), dev)
    a = DeviceBuffer.zeroed(stream, 256, np.float32)
    with pytest.raises(LaunchError, match="NumPy array lives in host memory"):
        launch(stream, prepared, (np.zeros(256, np.float32), a, DeviceBuffer.zeroed(stream, 256, np.float32)))
    with pytest.raises(LaunchError, match="expects float32 elements, got float64"):
        launch(stream, prepared, (a, DeviceBuffer.zeroed(stream, 256, np.float64), DeviceBuffer.zeroed(stream, 256, np.float32)))
    with pytest.raises(LaunchError, match="takes 3 arguments"):
        launch(stream, prepared, (a, a))


# --- checked mode -------------------------------------------------------------------------------


def run_oob(dev, stream, rng, n_a=1000, n_out=1024):
    a_h = rng.standard_normal(n_a).astype(np.float32)
    a, out = DeviceBuffer.from_host(stream, a_h), poisoned(stream, n_out)
    prepared = prepare(OOB, LaunchConfig(blocks(n_out), 256), dev)
    launch(stream, prepared, (a, out))
    return a_h, out


def test_kernel_error_raised_at_to_host_and_context_survives(dev, stream, rng):
    a_h, out = run_oob(dev, stream, rng)
    with pytest.raises(KernelError) as info:
        out.to_host()
    err = info.value
    msg = str(err)
    assert msg.startswith("oob: a[i] read out of range at oob.py:3:14: index ")
    assert "not in [0, 1000)" in msg and "(block (3, 0), thread (" in msg and msg.endswith("; 23 more errors")
    assert (err.kernel, err.kind, err.filename, err.line, err.col) == ("oob", "out-of-range read", "oob.py", 3, 14)
    d = err.details
    assert d["count"] == 24 and d["length"] == 1000 and d["block"] == (3, 0)
    assert 1000 <= d["index"] < 1024 and d["index"] == 768 + d["thread"][0]
    # the error is reported once; the data is there and the context is still usable
    host = out.to_host()
    np.testing.assert_array_equal(host[:1000], a_h)
    assert not host[1000:].any()
    a_h, out = run_oob(dev, stream, rng, n_a=1024, n_out=1024)
    np.testing.assert_array_equal(out.to_host(), a_h)


def test_kernel_error_raised_at_next_launch(dev, stream, rng):
    run_oob(dev, stream, rng)
    stream.raw.sync()  # wait without checking
    with pytest.raises(KernelError, match="read out of range"):
        run_oob(dev, stream, rng, n_a=8, n_out=8)
    stream.sync()  # nothing left to report


def test_kernel_error_raised_at_synchronize(dev, stream, rng):
    run_oob(dev, stream, rng)
    with pytest.raises(KernelError):
        synchronize()
    run_oob(dev, stream, rng)
    with pytest.raises(KernelError):
        dev.synchronize()
    run_oob(dev, stream, rng)
    with pytest.raises(KernelError):
        stream.sync()


def test_many_checked_launches_recycle_records(dev, stream, rng):
    n = 512
    x_h = rng.standard_normal(n).astype(np.float32)
    x, out = DeviceBuffer.from_host(stream, x_h), poisoned(stream, n)
    prepared = prepare(OOB, LaunchConfig(blocks(n), 256), dev)
    for _ in range(700):  # more than one chunk of error records in flight
        launch(stream, prepared, (x, out))
    np.testing.assert_array_equal(out.to_host(), x_h)
    # a record written by a kernel is zeroed before its slot is reused: later clean launches stay clean
    run_oob(dev, stream, rng)
    with pytest.raises(KernelError):
        stream.sync()
    for _ in range(600):
        launch(stream, prepared, (x, out))
    stream.sync()


def launch_all(stream, prepared, arg_lists) -> list[KernelError]:
    """Launch each argument tuple in order, then sync; the KernelErrors raised on the way (by a
    launch's check of completed launches, which does not enqueue that launch: it is retried, or by
    the sync)."""
    reports = []
    for args in arg_lists:
        for _ in range(3):  # a check reports each error once: a third try would mean a repeated report
            try:
                launch(stream, prepared, args)
                break
            except KernelError as e:
                reports.append(e)
        else:
            raise AssertionError(f"a launch raised KernelError three times in a row: {reports[-3:]}")
    try:
        stream.sync()
    except KernelError as e:
        reports.append(e)
    return reports


def launches_reported(err: KernelError) -> int:
    more = re.search(r"\((\d+) later launch(es)? also recorded errors\)$", str(err))
    return 1 + (int(more.group(1)) if more else 0)


def check_oob_report(err: KernelError) -> None:
    msg, d = str(err), err.details
    assert msg.startswith("oob: a[i] read out of range at oob.py:3:14: index ") and "; 23 more errors" in msg
    assert d["count"] == 24 and d["length"] == 1000 and d["block"] == (3, 0) and d["index"] == 768 + d["thread"][0]


def test_many_launches_between_syncs_error_in_the_kth(dev, stream, rng):
    # the records are copied in batches, where a check finds completed launches: each launch with an
    # error is reported once, with its own thread and count, however the launches complete
    n = 1024
    x_h = rng.standard_normal(n).astype(np.float32)
    x, short = DeviceBuffer.from_host(stream, x_h), DeviceBuffer.from_host(stream, rng.standard_normal(1000).astype(np.float32))
    out = poisoned(stream, n)
    prepared = prepare(OOB, LaunchConfig(blocks(n), 256), dev)
    reports = launch_all(stream, prepared, [(short if k == 70 else x, out) for k in range(200)])
    assert len(reports) == 1 and launches_reported(reports[0]) == 1
    check_oob_report(reports[0])
    np.testing.assert_array_equal(out.to_host(), x_h)  # nothing left to report; the later launches wrote x
    # more than one chunk of records; errors in launches 9, 150 and 299
    reports = launch_all(stream, prepared, [(short if k in (9, 150, 299) else x, out) for k in range(300)])
    assert sum(launches_reported(e) for e in reports) == 3
    for e in reports:
        check_oob_report(e)
    # the written slots were zeroed before their reuse: clean launches stay clean
    assert launch_all(stream, prepared, [(x, out)] * 600) == []
    np.testing.assert_array_equal(out.to_host(), x_h)


def test_launch_reports_completed_error_after_many_launches(dev, stream, rng):
    n = 1024
    x_h = rng.standard_normal(n).astype(np.float32)
    x, short = DeviceBuffer.from_host(stream, x_h), DeviceBuffer.from_host(stream, x_h[:1000].copy())
    out = poisoned(stream, n)
    prepared = prepare(OOB, LaunchConfig(blocks(n), 256), dev)
    for _ in range(50):
        launch(stream, prepared, (x, out))
    launch(stream, prepared, (short, out))
    stream.raw.sync()  # completes without checking
    with pytest.raises(KernelError) as info:
        launch(stream, prepared, (x, out))  # the launch's check finds the 51st launch's error
    check_oob_report(info.value)
    assert launches_reported(info.value) == 1
    launch(stream, prepared, (x, out))
    np.testing.assert_array_equal(out.to_host(), x_h)  # nothing left to report


# --- shared memory opt-in -----------------------------------------------------------------------


def test_dynamic_shared_memory_64k_opt_in(dev, stream, rng):
    n, nbytes = 3000, 64 * 1024
    x_h = rng.standard_normal(n).astype(np.float32)
    x, out = DeviceBuffer.from_host(stream, x_h), poisoned(stream, n)
    prepared = prepare(SHMEM, LaunchConfig(blocks(n), 256, shmem_size=nbytes), dev)
    assert prepared.shared_optin
    launch(stream, prepared, (x, out, nbytes))
    np.testing.assert_array_equal(out.to_host(), x_h + np.float32(1))
    # a smaller config prepared afterwards keeps the larger opt-in valid
    small = prepare(SHMEM, LaunchConfig(blocks(n), 256, shmem_size=4096), dev)
    launch(stream, small, (x, out, 4096))
    launch(stream, prepared, (x, out, nbytes))
    np.testing.assert_array_equal(out.to_host(), x_h + np.float32(1))
    with pytest.raises(LaunchError, match="even with the opt-in"):
        prepare(SHMEM, LaunchConfig(1, 256, shmem_size=dev.limits.max_shared_per_block_optin + 16), dev)


# --- aliasing -----------------------------------------------------------------------------------


def test_aliased_output_refused(dev, stream, rng):
    n = 256
    prepared = prepare(VECADD, LaunchConfig(1, 256), dev)
    a = DeviceBuffer.from_host(stream, rng.standard_normal(n).astype(np.float32))
    b = DeviceBuffer.from_host(stream, rng.standard_normal(n).astype(np.float32))
    with pytest.raises(AliasError, match="output 'c' of vecadd is the same memory as input 'a'"):
        launch(stream, prepared, (a, b, a))
    # two read-only aliases are fine
    c = poisoned(stream, n)
    launch(stream, prepared, (a, a, c))
    np.testing.assert_array_equal(c.to_host(), 2 * a.to_host())


# --- torch interop ------------------------------------------------------------------------------


def test_torch_tensors_zero_copy(dev, rng):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    n = 5000
    a = torch.randn(n, device="cuda")
    b = torch.randn(n, device="cuda")
    c = torch.full((n,), float("nan"), device="cuda")
    ts = torch.cuda.current_stream()
    prepared = prepare(VECADD, LaunchConfig(blocks(n), 256), dev)
    view = as_device_view(c, ts, param=VECADD.params[2], device=dev)
    assert view.ptr == c.data_ptr() and view.shape == (n,)  # no copy
    launch(ts, prepared, (a, b, c))
    torch.testing.assert_close(c, a + b, rtol=0, atol=0)
    # a DeviceBuffer is visible to torch without a copy
    buf = DeviceBuffer.from_host(dev.default_stream, rng.standard_normal(64).astype(np.float32))
    dev.default_stream.sync()
    t = torch.as_tensor(buf, device="cuda")
    assert t.data_ptr() == buf.ptr
    np.testing.assert_array_equal(t.cpu().numpy(), buf.to_host())


def test_torch_non_contiguous_and_partial_alias_refused(dev):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    prepared = prepare(VECADD, LaunchConfig(4, 256), dev)
    strided = torch.randn(2048, device="cuda")[::2]
    ok = torch.randn(1024, device="cuda")
    with pytest.raises(LaunchError, match=r"not C-contiguous.*x\.contiguous\(\)"):
        launch(None, prepared, (strided, ok, torch.empty(1024, device="cuda")))
    with pytest.raises(LaunchError, match="not C-contiguous"):
        as_device_view(torch.randn(64, 64, device="cuda").t(), None, param=SCALE2D.params[0])
    with pytest.raises(LaunchError, match="expects float32 elements, got float64"):
        launch(None, prepared, (ok.double(), ok, torch.empty(1024, device="cuda")))
    base = torch.zeros(2048, device="cuda")
    with pytest.raises(AliasError, match="output 'c' of vecadd overlaps input 'a'"):
        launch(None, prepared, (base[:1024], ok, base[512:1536]))
    with pytest.raises(LaunchError, match="host memory"):
        launch(None, prepared, (torch.zeros(1024), ok, torch.empty(1024, device="cuda")))


# --- loading ------------------------------------------------------------------------------------


def test_bad_ptx_raises_device_error(dev):
    bad = kernel("broken", VECADD.params, ptx=VECADD_PTX.replace("add.rn.f32", "add.bogus.f32"), entry="vecadd")
    with pytest.raises(DeviceError, match="rejected the PTX of broken"):
        prepare(bad, LaunchConfig(1, 32), dev)
    missing = kernel("missing", VECADD.params, ptx=VECADD_PTX, entry="no_such_entry")
    with pytest.raises(DeviceError, match="no .entry named 'no_such_entry'"):
        prepare(missing, LaunchConfig(1, 256), dev)


def test_abi_mismatch_refused(dev):
    wrong = kernel("vecadd", VECADD.params[:2], ptx=VECADD_PTX)  # 2 params + record = 5, PTX has 7
    with pytest.raises(LaunchError, match="takes 7 parameters, but its signature describes 5"):
        prepare(wrong, LaunchConfig(1, 256), dev)
