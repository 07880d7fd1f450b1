"""warpforge.runtime checks that need no GPU: launch configuration, every `check_launch` refusal
against `DeviceLimits` presets, scalar packing, aliasing, error-record decoding, the error-record
pool's bookkeeping, and argument refusals from array metadata alone."""

from __future__ import annotations

import dataclasses

import ml_dtypes
import numpy as np
import pytest

from warpforge.errors import AliasError, DeviceError, KernelError, LaunchError
from warpforge.runtime import (
    CompiledKernel,
    Contract,
    DeviceLimits,
    DeviceView,
    ErrorSite,
    LaunchConfig,
    ParamSpec,
    PreparedLaunch,
    as_device_view,
    check_aliasing,
    check_launch,
    gpu_available,
    launch,
    pack_scalar,
)
from warpforge.runtime import errors as rt_errors
from warpforge.runtime.device import Stream
from warpforge.runtime.launch import needs_shared_optin
from warpforge.runtime.memory import device_dtype

H200 = DeviceLimits.H200
F32 = np.dtype(np.float32)


def make_kernel(**overrides) -> CompiledKernel:
    fields = dict(
        name="vecadd",
        entry="vecadd_kernel",
        ptx="// no ptx",
        chip="sm_90",
        params=(
            ParamSpec("a", "slice", F32),
            ParamSpec("b", "slice", F32),
            ParamSpec("c", "disjoint_slice", F32),
        ),
        checked=True,
        error_sites=(ErrorSite(1, "out-of-range read", "a[i] read out of range", "vecadd.py", 12, 16),),
        exact_block=None,
        max_threads=None,
        index_domain=None,
    )
    fields.update(overrides)
    return CompiledKernel(**fields)


def refused(kernel: CompiledKernel, config: LaunchConfig, limits: DeviceLimits = H200) -> str:
    with pytest.raises(LaunchError) as info:
        check_launch(kernel, config, limits)
    return str(info.value)


# --- LaunchConfig and Contract ------------------------------------------------------------------


def test_launch_config_normalizes_to_3_tuples():
    c = LaunchConfig(grid=4, block=256)
    assert (c.grid, c.block, c.shmem_size) == ((4, 1, 1), (256, 1, 1), 0)
    c = LaunchConfig(grid=(8, 2), block=[16, 16], shmem_size=1024)
    assert (c.grid, c.block, c.shmem_size) == ((8, 2, 1), (16, 16, 1), 1024)
    c = LaunchConfig(np.int64(3), (np.int32(32), 2, 2))
    assert c.grid == (3, 1, 1) and c.block == (32, 2, 2) and all(type(d) is int for d in c.block)
    assert c.threads_per_block == 128
    assert LaunchConfig(4, 256) == LaunchConfig((4, 1, 1), (256, 1, 1))


@pytest.mark.parametrize(
    "grid, block, shmem",
    [(0, 256, 0), (4, -1, 0), (2.5, 256, 0), (True, 256, 0), ((1, 2, 3, 4), 256, 0), ((), 256, 0),
     ("4", 256, 0), (4, (256, 0), 0), (4, 256, -1), (4, 256, 1.5), (4, 256, None)],
)
def test_launch_config_refuses_bad_values(grid, block, shmem):
    with pytest.raises(LaunchError):
        LaunchConfig(grid, block, shmem)


def test_launch_config_is_immutable():
    c = LaunchConfig(4, 256)
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.grid = (1, 1, 1)


def test_contract():
    c = Contract(domain=1, block=256)
    assert c.domain == 1 and c.block == (256, 1, 1)
    assert Contract().domain is None and Contract().block is None
    assert Contract(domain=2, block=(16, 16)).block == (16, 16, 1)
    with pytest.raises(LaunchError):
        Contract(domain=3)
    with pytest.raises(LaunchError, match="1-D block"):
        Contract(domain=1, block=(16, 16, 1))
    with pytest.raises(LaunchError, match="z = 1"):
        Contract(domain=2, block=(8, 8, 2))


# --- check_launch ---------------------------------------------------------------------------------


def test_valid_launches_pass():
    check_launch(make_kernel(), LaunchConfig(4, 256), H200)
    check_launch(make_kernel(exact_block=(256, 1, 1), index_domain=1), LaunchConfig(2**31 - 1, 256), H200)
    check_launch(make_kernel(index_domain=2), LaunchConfig((64, 65535), (16, 16)), H200)
    check_launch(make_kernel(), LaunchConfig((1, 65535, 65535), (1024, 1, 1)), H200)
    check_launch(make_kernel(chip="sm_80"), LaunchConfig(1, 32), H200)  # PTX JIT runs on newer chips


def test_contract_block_mismatch():
    msg = refused(make_kernel(exact_block=(256, 1, 1)), LaunchConfig(4, 128))
    assert "requires block (256, 1, 1)" in msg and "(128, 1, 1)" in msg and "reqntid" in msg


def test_launch_bounds_exceeded():
    msg = refused(make_kernel(max_threads=128), LaunchConfig(4, (16, 16)))
    assert "256 threads" in msg and "launch_bounds allow at most 128" in msg


def test_too_many_threads_per_block():
    msg = refused(make_kernel(), LaunchConfig(1, (64, 32)))
    assert "2048 threads" in msg and "at most 1024 threads per block" in msg


def test_block_z_over_64():
    msg = refused(make_kernel(), LaunchConfig(1, (1, 1, 128)))
    assert "block z = 128" in msg and "64" in msg


def test_block_x_over_device_limit_with_small_limits():
    small = DeviceLimits.for_testing(max_threads_per_block=4096, max_block_dim=(512, 512, 64))
    assert "block x = 1024" in refused(make_kernel(), LaunchConfig(1, 1024), small)


def test_grid_y_65536_refused_and_says_65535():
    msg = refused(make_kernel(), LaunchConfig((1, 65536), 32))
    assert "grid y = 65536" in msg and "65535" in msg and "put the long dimension in x" in msg


def test_grid_z_and_x_limits():
    assert "grid z = 70000" in refused(make_kernel(), LaunchConfig((1, 1, 70000), 32))
    assert "grid x = 2147483648" in refused(make_kernel(), LaunchConfig(2**31, 32))


def test_index_domain_1_needs_1d_launch():
    msg = refused(make_kernel(index_domain=1), LaunchConfig((4, 2), 256))
    assert "index_1d() is unique only in a 1-D launch" in msg and "(4, 2, 1)" in msg
    assert "index_1d()" in refused(make_kernel(index_domain=1), LaunchConfig(4, (128, 2)))
    assert "index_1d()" in refused(make_kernel(index_domain=1), LaunchConfig((4, 1, 2), 128))


def test_index_domain_2_needs_z_1():
    msg = refused(make_kernel(index_domain=2), LaunchConfig((4, 4, 2), (16, 16)))
    assert "index_2d()" in msg and "z = 1" in msg
    assert "index_2d()" in refused(make_kernel(index_domain=2), LaunchConfig((4, 4), (8, 8, 2)))


def test_shared_memory_limits_and_opt_in():
    k = make_kernel()
    small, big = LaunchConfig(4, 256, 32 * 1024), LaunchConfig(4, 256, 64 * 1024)
    check_launch(k, small, H200)
    check_launch(k, big, H200)
    assert not needs_shared_optin(k, small, H200)
    assert needs_shared_optin(k, big, H200)
    # static shared counts too: 40 KiB static + 16 KiB dynamic > 48 KiB
    ks = make_kernel(static_shared_bytes=40 * 1024)
    assert needs_shared_optin(ks, LaunchConfig(4, 256, 16 * 1024), H200)
    check_launch(make_kernel(), LaunchConfig(4, 256, 227 * 1024), H200)
    msg = refused(make_kernel(), LaunchConfig(4, 256, 228 * 1024))
    assert "233472 bytes" in msg and "232448" in msg and "opt-in" in msg
    msg = refused(ks, LaunchConfig(4, 256, 200 * 1024))
    assert "static 40960 + dynamic 204800" in msg


def test_compute_capability_too_low():
    msg = refused(make_kernel(chip="sm_100"), LaunchConfig(4, 256))
    assert "sm_100" in msg and "9.0" in msg and "compile for sm_90" in msg
    a100 = DeviceLimits.for_testing(name="A100", compute_capability=(8, 0))
    assert "compile for sm_80" in refused(make_kernel(), LaunchConfig(4, 256), a100)
    # arch-specific targets run only on their exact compute capability
    check_launch(make_kernel(chip="sm_90a"), LaunchConfig(4, 256), H200)
    b200 = DeviceLimits.for_testing(name="B200", compute_capability=(10, 0))
    assert "only on compute capability 9.0" in refused(make_kernel(chip="sm_90a"), LaunchConfig(4, 256), b200)
    check_launch(make_kernel(chip="sm_90"), LaunchConfig(4, 256), b200)
    assert "unknown chip" in refused(make_kernel(chip="compute_90"), LaunchConfig(4, 256))


def test_check_launch_wants_a_launch_config():
    with pytest.raises(LaunchError, match="LaunchConfig"):
        check_launch(make_kernel(), (4, 256), H200)


def test_device_limits_presets():
    assert H200.chip == "sm_90" and H200.max_grid_dim == (2**31 - 1, 65535, 65535)
    assert H200.max_shared_per_block == 48 * 1024 and H200.max_shared_per_block_optin == 227 * 1024
    assert H200.multiprocessor_count == 132 and H200.max_block_dim == (1024, 1024, 64)
    assert DeviceLimits.for_testing() == H200
    assert DeviceLimits.for_testing(compute_capability=(8, 6)).chip == "sm_86"


# --- scalar packing -----------------------------------------------------------------------------


def scalar(dtype, name="n") -> ParamSpec:
    return ParamSpec(name, "scalar", np.dtype(dtype))


@pytest.mark.parametrize(
    "dtype, value, text",
    [
        (np.int8, 300, "scalar n=300 does not fit int8 (range [-128, 127])"),
        (np.uint8, 300, "scalar n=300 does not fit uint8"),
        (np.uint32, -1, "scalar n=-1 does not fit uint32"),
        (np.int64, 2**63, "does not fit int64"),
        (np.int32, np.int64(2**40), "does not fit int32"),
        (np.int32, 2.5, "is int32 (an integer); got float 2.5"),
        (np.int32, np.float32(2), "an integer"),
        (np.int32, True, "pass a number"),
        (np.float32, True, "pass a number"),
        (np.bool_, 1, "is a bool; got int 1"),
        (np.float16, 70000, "does not fit float16"),
        (np.float32, 1e39, "does not fit float32"),
        (np.float32, 2**1024, "does not fit float32"),  # issue 16: was packed as +inf
        (np.float64, -(2**1100), "does not fit float64"),
        (np.float32, "1.0", "a float"),
        (np.int32, None, "an integer"),
    ],
)
def test_scalar_refusals(dtype, value, text):
    with pytest.raises(LaunchError) as info:
        pack_scalar(scalar(dtype), value, "k")
    assert text in str(info.value)


def test_scalar_packing_exact_width():
    for dtype, value in [(np.int8, -128), (np.uint8, 255), (np.uint64, 2**64 - 1), (np.int16, np.int64(7)),
                         (np.float32, 2), (np.float64, 0.1), (np.float16, 1.5), (np.float32, np.float64(3.25))]:
        packed = pack_scalar(scalar(dtype), value)
        assert type(packed) is np.dtype(dtype).type and packed == value
    assert type(pack_scalar(scalar(np.bool_), True)) is np.bool_
    assert pack_scalar(scalar(np.bool_), np.bool_(False)) == False  # noqa: E712
    assert np.isinf(pack_scalar(scalar(np.float16), float("inf")))  # a non-finite float is passed as is
    assert np.isnan(pack_scalar(scalar(np.float32), float("nan")))


def test_scalar_floats_round_as_numpy_converts_them():
    """Values within the finite range take pack_scalar's quick conversion, values beyond it the
    checked one: both give what NumPy's conversion gives (round to nearest), and only a value that
    rounds to infinity is refused."""
    rng = np.random.default_rng(1656)
    for dtype in (np.float16, np.float32, np.float64):
        top = float(np.finfo(dtype).max)
        values = list(rng.standard_normal(64) * rng.choice([1e-6, 1.0, 1e4, top / 4], 64)) + [top, -top, 0.0, -0.0, 5e-324]
        for v in values:
            packed = pack_scalar(scalar(dtype), float(v))
            expected = np.array(float(v), dtype=dtype)[()]
            assert type(packed) is np.dtype(dtype).type and (packed == expected or (np.isnan(packed) and np.isnan(expected)))
            assert np.signbit(packed) == np.signbit(expected)
    assert pack_scalar(scalar(np.float16), 65519.0) == 65504  # above the largest finite, rounds to it
    with pytest.raises(LaunchError, match="does not fit float16"):
        pack_scalar(scalar(np.float16), 65520.0)  # rounds to infinity


def test_scalar_bfloat16_passes_its_bits():
    packed = pack_scalar(scalar(ml_dtypes.bfloat16), 1.5)
    assert type(packed) is np.uint16
    assert np.array(packed, np.uint16).view(ml_dtypes.bfloat16) == 1.5


def test_dtype_arguments_accept_warpforge_style_objects():
    class FakeWf:  # warpforge dtypes carry the NumPy dtype in .np
        np = np.dtype(np.int16)

    assert ParamSpec("x", "slice", FakeWf()).dtype == np.int16
    assert device_dtype(FakeWf()) == np.int16
    assert device_dtype("float32") == F32
    assert device_dtype(ml_dtypes.bfloat16).name == "bfloat16"
    for bad in (np.complex64, object, "U3", "nope"):
        with pytest.raises(LaunchError):
            device_dtype(bad)


# --- aliasing -------------------------------------------------------------------------------------


def view(ptr: int, n: int, dtype=F32) -> DeviceView:
    return DeviceView(ptr, (n,), np.dtype(dtype), n * np.dtype(dtype).itemsize)


PARAMS = (ParamSpec("a", "slice", F32), ParamSpec("b", "slice", F32), ParamSpec("c", "disjoint_slice", F32))


def test_alias_identical_output_and_input():
    with pytest.raises(AliasError) as info:
        check_aliasing(PARAMS, [view(0x1000, 256), view(0x2000, 256), view(0x1000, 256)], "vecadd")
    msg = str(info.value)
    assert "'c'" in msg and "'a'" in msg and "same memory" in msg and "vecadd" in msg


def test_alias_partial_overlap():
    # c starts in the middle of b: views of one buffer
    with pytest.raises(AliasError) as info:
        check_aliasing(PARAMS, [view(0x1000, 256), view(0x2000, 256), view(0x2000 + 512, 256)])
    assert "'c'" in str(info.value) and "'b'" in str(info.value) and "overlaps" in str(info.value)
    # one byte of overlap is enough
    with pytest.raises(AliasError):
        check_aliasing(PARAMS, [view(0x1000, 4), view(0x3000, 4), DeviceView(0x1003, (1,), F32, 4)])


def test_alias_disjoint_and_adjacent_are_fine():
    check_aliasing(PARAMS, [view(0x1000, 256), view(0x2000, 256), view(0x3000, 256)])
    check_aliasing(PARAMS, [view(0x1000, 256), view(0x1400, 256), view(0x1800, 256)])  # back to back


def test_two_read_only_aliases_are_allowed():
    check_aliasing(PARAMS, [view(0x1000, 256), view(0x1000, 256), view(0x2000, 256)])


def test_alias_between_two_outputs_and_scalars_skipped():
    params = (ParamSpec("x", "disjoint_slice", F32), ParamSpec("n", "scalar", np.dtype(np.int64)),
              ParamSpec("y", "atomic_slice", F32))
    with pytest.raises(AliasError, match="output 'x'.*output 'y'"):
        check_aliasing(params, [view(0x1000, 8), None, view(0x1010, 8)])
    check_aliasing(params, [view(0x1000, 8), None, view(0x2000, 8)])


def test_empty_ranges_overlap_nothing():
    check_aliasing(PARAMS, [view(0x1000, 0), view(0x1000, 4), view(0x1000, 0)])


# --- error records --------------------------------------------------------------------------------


def record(*words: int) -> np.ndarray:
    return np.array(list(words) + [0] * (8 - len(words)), dtype=np.int64)


def test_decode_error_record():
    err = rt_errors.decode_record(make_kernel(), record(8, 1, 1024, 1024, 3, 0, 255, 0))
    assert isinstance(err, KernelError)
    msg = str(err)
    assert msg == ("vecadd: a[i] read out of range at vecadd.py:12:16: index 1024 not in [0, 1024) "
                   "(block (3, 0), thread (255, 0)); 7 more errors")
    assert (err.kernel, err.kind, err.filename, err.line, err.col) == ("vecadd", "out-of-range read", "vecadd.py", 12, 16)
    assert err.details["index"] == 1024 and err.details["length"] == 1024
    assert err.details["block"] == (3, 0) and err.details["thread"] == (255, 0) and err.details["count"] == 8


def test_decode_counts_and_other_operands():
    k = make_kernel(error_sites=(
        ErrorSite(1, "out-of-range read", "a[i] read out of range", "k.py", 3, 9),
        ErrorSite(2, "integer division by zero", "n // d divides by zero", "k.py", 7, 12, ("dividend", "divisor")),
    ))
    one = str(rt_errors.decode_record(k, record(1, 1, -1, 10, 0, 0, 0, 0)))
    assert "index -1 not in [0, 10)" in one and "more" not in one
    two = str(rt_errors.decode_record(k, record(2, 2, 7, 0, 1, 2, 3, 4)))
    assert "k.py:7:12" in two and "dividend 7, divisor 0" in two and two.endswith("; 1 more error")
    assert "(block (1, 2), thread (3, 4))" in two
    unknown = rt_errors.decode_record(k, record(1, 99, 5, 6))
    assert "unknown site id 99" in str(unknown)
    assert rt_errors.decode_record(k, record(0)) is None


def test_raise_first_reports_later_launches():
    k = make_kernel()
    with pytest.raises(KernelError, match=r"index 5 not in \[0, 4\).*\(2 later launches also recorded errors\)"):
        rt_errors.raise_first([(k, record(1, 1, 5, 4)), (k, record(1, 1, 6, 4)), (k, record(3, 1, 9, 4))])
    rt_errors.raise_first([])


class FakeEvent:
    def __init__(self, done: bool):
        self.is_done = done
        self.synced = False

    def sync(self):
        self.synced = True
        self.is_done = True


def fake_pending(pool, kernel, words, done):
    host = np.zeros(8, np.int64)
    host[: len(words)] = words
    slot = rt_errors._Slot(0x1000, host, 0)
    slot.dirty = False
    slot.event = FakeEvent(done)
    pool._pending.append(rt_errors._Pending(slot, kernel, None))
    return slot


def test_pool_bookkeeping_without_gpu():
    pool = rt_errors.ErrorRecordPool(device=None)
    k = make_kernel()
    clean = fake_pending(pool, k, [], done=True)
    bad = fake_pending(pool, k, [3, 1, 1024, 1024, 3, 0, 255, 0], done=True)
    running = fake_pending(pool, k, [], done=False)
    later = fake_pending(pool, k, [1, 1, 9, 4], done=True)
    # front_only stops at the first launch still running
    found = pool.collect(front_only=True)
    assert [r[2] for _, r in found] == [1024] and pool.pending_count == 2
    assert not clean.dirty and bad.dirty  # a slot the kernel wrote is zeroed before its next use
    assert set(map(id, pool._free)) == {id(clean), id(bad)}
    # a full scan collects the completed launch behind the running one
    found = pool.collect()
    assert [r[2] for _, r in found] == [9] and pool.pending_count == 1
    # block waits for the rest
    assert pool.collect(block=True) == [] and running.event.synced and pool.pending_count == 0
    assert later.dirty and len(pool._free) == 4


# --- arguments: refusals from metadata alone ---------------------------------------------------


class FakeCai:
    """An object exposing only `__cuda_array_interface__` (like numba / cupy arrays)."""

    def __init__(self, shape, typestr="<f4", strides=None, readonly=False, ptr=0x7F0000000000, mask=None):
        self.__cuda_array_interface__ = {
            "version": 3, "shape": shape, "typestr": typestr, "data": (ptr, readonly),
            "strides": strides, "stream": None, "mask": mask,
        }


class FakeDlpack:
    def __init__(self, device_type):
        self.device_type = device_type

    def __dlpack__(self, **kwargs):
        raise AssertionError("must be refused before reading the data")

    def __dlpack_device__(self):
        return (self.device_type, 0)


A = ParamSpec("a", "slice", F32)
C = ParamSpec("c", "disjoint_slice", F32)
M = ParamSpec("m", "slice", F32, ndim=2)


def refused_arg(obj, param=A) -> str:
    with pytest.raises(LaunchError) as info:
        as_device_view(obj, None, param=param, kernel_name="vecadd")
    return str(info.value)


def test_numpy_array_refused_as_host_memory():
    msg = refused_arg(np.zeros(4, np.float32))
    assert "argument 'a' of vecadd" in msg
    assert "a NumPy array lives in host memory: copy it with wf.DeviceBuffer.from_host(stream, a)" in msg


def test_dlpack_host_tensor_refused():
    msg = refused_arg(FakeDlpack(1))
    assert "host memory" in msg and "from_host" in msg


def test_non_contiguous_cai_refused():
    msg = refused_arg(FakeCai((4, 4), strides=(4, 32)), M)  # a transposed 4x4 float32
    assert "argument 'm' of vecadd is not C-contiguous (strides (4, 32) in bytes" in msg
    assert "pass x.contiguous()" in msg
    assert "not C-contiguous" in refused_arg(FakeCai((8,), strides=(8,)))  # every other element


def test_cai_wrong_dtype_ndim_readonly_mask():
    msg = refused_arg(FakeCai((8,), typestr="<f8"))
    assert "'a'" in msg and "float32" in msg and "float64" in msg
    msg = refused_arg(FakeCai((2, 4)))
    assert "is 1-D, got a 2-D array of shape (2, 4)" in msg
    assert "read-only" in refused_arg(FakeCai((8,), readonly=True), C)
    assert "masked" in refused_arg(FakeCai((8,), mask=1))


def test_not_an_array_refused():
    assert "expected device memory" in refused_arg([1.0, 2.0])
    assert "expected device memory" in refused_arg(3.0)


def test_contiguous_cai_needs_the_driver_only_after_the_checks():
    # explicit C strides, and a size-1 dim with any stride, are contiguous: the checks pass
    ok = FakeCai((4, 1), strides=(4, 64))
    if gpu_available():
        pytest.skip("with a GPU the fake pointer would reach the driver")
    with pytest.raises(DeviceError, match="no CUDA driver / no GPU found"):
        as_device_view(ok, None, param=ParamSpec("m", "slice", F32, ndim=2))


# --- launch(): refusals before the driver -------------------------------------------------------


class FakeRawStream:
    handle = 0x1234


class FakeDevice:
    ordinal = 0
    label = "GPU 0"
    simulated = False

    def make_current(self):
        pass


def fake_prepared(kernel: CompiledKernel, device=None) -> PreparedLaunch:
    return PreparedLaunch(kernel, LaunchConfig(1, 32), device or FakeDevice(), False, None, None)


def test_launch_refuses_wrong_token_and_kernel():
    with pytest.raises(LaunchError, match="PreparedLaunch"):
        launch(None, (LaunchConfig(1, 32),), ())
    other = make_kernel(name="saxpy", entry="saxpy_kernel", cache_key="k2")
    with pytest.raises(LaunchError, match="made for vecadd, not saxpy"):
        launch(None, fake_prepared(make_kernel(cache_key="k1")), (1, 2, 3), kernel=other)


def test_launch_refuses_wrong_argument_count():
    with pytest.raises(LaunchError, match=r"vecadd takes 3 arguments \(a, b, c\), got 2"):
        launch(None, fake_prepared(make_kernel()), (1, 2))
    with pytest.raises(LaunchError, match="tuple or list"):
        launch(None, fake_prepared(make_kernel()), np.zeros(3))


def test_launch_checks_arguments_before_the_driver():
    dev = FakeDevice()
    stream = Stream(FakeRawStream(), dev)
    k = make_kernel(params=(ParamSpec("x", "slice", F32), ParamSpec("n", "scalar", np.dtype(np.uint8))), checked=False)
    with pytest.raises(LaunchError, match="NumPy array lives in host memory"):
        launch(stream, fake_prepared(k, dev), (np.zeros(4, np.float32), 3))
    k = make_kernel(params=(ParamSpec("n", "scalar", np.dtype(np.uint8)),), checked=False)
    with pytest.raises(LaunchError, match="scalar n=300 does not fit uint8"):
        launch(stream, fake_prepared(k, dev), (300,))


def test_launch_refuses_a_stream_of_another_device():
    stream = Stream(FakeRawStream(), FakeDevice())
    with pytest.raises(LaunchError, match="prepared for GPU 0"):
        launch(stream, fake_prepared(make_kernel(), FakeDevice()), (1, 2, 3))


def test_compiled_kernel_abi_count():
    k = make_kernel(params=(M, ParamSpec("n", "scalar", np.dtype(np.int32)), C))
    assert k.abi_param_count == 3 + 1 + 2 + 1
    assert make_kernel(checked=False).abi_param_count == 6
    assert C.writable and not A.writable and not ParamSpec("n", "scalar", F32).writable
    with pytest.raises(ValueError):
        ParamSpec("x", "slise", F32)
    with pytest.raises(ValueError):
        ParamSpec("x", "slice", F32, ndim=5)  # tile tensors have 1 to 4 axes
    assert ParamSpec("x", "slice", F32, ndim=4).abi_count == 1 + 4
    assert ParamSpec("x", "slice", F32, ndim=4, strided=True).abi_count == 2 + 4 + 3  # ptr, span, extents, strides


def test_module_cache_is_keyed_by_the_code_not_the_source_text() -> None:
    """Regression: kernels made by one factory (same source text, different closure constants) shared
    a cache key, and the second launch ran the first kernel's module (a wrong sum, silently)."""
    from dataclasses import replace

    from warpforge.runtime.module import module_key

    a = CompiledKernel(name="k", entry="k", ptx=".version 8.0\n// block 8192\n", chip="sm_90", params=(), checked=False,
                       error_sites=(), exact_block=None, max_threads=None, index_domain=None, cache_key="same-source")  # fmt: skip
    b = replace(a, ptx=".version 8.0\n// block 16384\n")
    assert module_key(a) != module_key(b)
    assert module_key(a) == module_key(replace(a, cache_key="another"))
