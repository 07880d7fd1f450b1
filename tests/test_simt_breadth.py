"""The SIMT breadth features on the CPU: issue 4's bad inputs are `CompileError`s with the kernel's
file:line:col (or `LaunchError`s before anything runs), generic kernels specialize per signature,
every construct compiles to PTX that ptxas accepts, and the runtime's new launch checks hold.
(The GPU runs the same kernels in tests/test_gpu_simt.py.)"""

from __future__ import annotations

import importlib.util
import re

import numpy as np
import pytest

import warpforge as wf
from warpforge import simt
from warpforge.runtime import DeviceLimits, LaunchConfig, check_launch


def _kernel_from(tmp_path, body: str, params: str = "x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32], n: wf.i64", prelude: str = ""):
    path = tmp_path / "kern.py"
    path.write_text(
        "import math\nimport warpforge as wf\nfrom warpforge import simt\n" + prelude + "\n"
        "@simt.kernel\n"
        f"def k({params}):\n"
        + "".join(f"    {line}\n" for line in body.splitlines())
    )
    spec = importlib.util.spec_from_file_location("kern_breadth", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.k, path


BAD = [
    # issue 4's bad inputs
    ("s = simt.shared_array((128, 128), wf.f32)", "48 KiB"),
    ("a = simt.shared_array(8192, wf.f32)\nb = simt.shared_array(8192, wf.f32)", "static shared memory"),
    ("y = simt.shfl_xor(x[0], 1, 24)", "width must be a power of two from 1 to 32, got 24"),
    ("y = simt.shfl_down(x[0], 1, width=64)", "power of two from 1 to 32, got 64"),
    ("w = 16 + n\ny = simt.shfl_up(x[0], 1, w)", "width must be a compile-time integer"),
    ("out[n] = 1.0", "written only through a ThreadIndex"),
    ("out[3] = 1.0", "written only through a ThreadIndex"),
    ("simt.atomic_add(out, 0, 1.0)", "needs a simt.AtomicSlice"),
    # more diagnostics
    ("s = simt.shared_array(n, wf.f32)", "the shape must be compile-time integers"),
    ("s = simt.shared_array(0, wf.f32)", "extents must be at least 1"),
    ("s = simt.shared_array(4, 3)", "the dtype must be a warpforge dtype"),
    ("s = simt.local_array((2, 2), wf.f32)\ns[2, 0] = 1.0", "index 2 is out of range for an extent of 2"),
    ("s = simt.shared_array((4, 4), wf.f32)\nv = s[1]", "takes 2 index(es), got 1"),
    ("y = simt.warp_sum(x[0] > 0)", "of a bool"),
    ("y = simt.warp_and(x[0])", "needs integers, got f32"),
    ("simt.sync_warp(2**33)", "a lane mask is a 32-bit unsigned integer"),
    ("y = simt.shfl_xor(x[0], 1, widht=16)", "has no parameter 'widht'"),
    ("b = simt.block_index_1d()\nv = out[b]", "can be read only at the thread's own ThreadIndex"),
    ("idx = simt.index_1d()\nv = out.tile(idx, (2, 2), n)", "needs a 2-D ThreadIndex"),
    ("for i in simt.static_range(n):\n    pass", "needs compile-time integer bounds"),
    ("for i in simt.static_range(3):\n    break", "break/continue are not supported in a simt.static_range"),
    ("s = 'block'", "str constants are not supported"),
]


@pytest.mark.parametrize(("body", "message"), BAD)
def test_bad_input_is_a_compile_error_with_location(tmp_path, body: str, message: str) -> None:
    k, path = _kernel_from(tmp_path, body)
    with pytest.raises(wf.CompileError, match=re.escape(message)) as info:
        k.ir("kernel")
    err = info.value
    assert err.filename == str(path)
    assert err.line >= 6 and err.col >= 1, str(err)


ATOMIC_PARAMS = "a: simt.AtomicSlice[wf.i8], f: simt.AtomicSlice[wf.f32], h: simt.AtomicSlice[wf.f16], i: simt.AtomicSlice[wf.i32], b: simt.AtomicSlice[wf.bool_], c: simt.Slice[wf.f32]"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("simt.atomic_add(a, 0, 1)", "atomic add on 8-bit integers is not supported"),
        ("simt.atomic_and(f, 0, 1.0)", "atomic and is integer-only"),
        ("simt.atomic_max(h, 0, 1.0)", "atomic max on f16 is not supported (f32 and f64 only)"),
        ("simt.atomic_add(b, 0, True)", "atomics on bool are not supported"),
        ("simt.atomic_cas(f, 0, 1.0, 2.0)", "works on 32- and 64-bit integers, got f32"),
        ("simt.atomic_add(i, 0, 1, scope='warp')", "scope is one of 'block', 'device', 'system', got 'warp'"),
        ("simt.atomic_add(i, 0, 1, order='sequential')", "order is one of"),
        ("simt.atomic_add(i, 0, 1.5)", "the float constant 1.5 cannot become i32 implicitly"),
        ("v = i[0]", "takes atomic operations only"),
        ("i[0] = 1", "takes atomic operations only"),
        ("simt.atomic_add_pair(f, 0, 1.0, 2.0)", "adds pairs of f16 or bf16"),
        ("simt.atomic_add(c, 0, 1.0)", "needs a simt.AtomicSlice"),
    ],
)
def test_atomic_on_a_dtype_that_lacks_it(tmp_path, body: str, message: str) -> None:
    k, _ = _kernel_from(tmp_path, body, ATOMIC_PARAMS)
    with pytest.raises(wf.CompileError, match=re.escape(message)):
        k.ir("kernel")


def test_atomic_on_a_target_that_lacks_it(tmp_path) -> None:
    k, path = _kernel_from(tmp_path, "simt.atomic_add(h, 0, 1.0)", ATOMIC_PARAMS)
    k.ir("ptx")  # sm_90 has atom.add.noftz.f16
    with pytest.raises(Exception, match=r"an atomic add of f16\) needs sm_70, but gpu.module .* targets sm_60") as info:
        k.ir("ptx", chip="sm_60", features="+ptx60")
    assert str(path) in str(info.value)


def test_shuffle_on_an_old_chip_is_refused_not_an_llvm_abort(tmp_path) -> None:
    k, _ = _kernel_from(tmp_path, "idx = simt.index_1d()\nout[idx] = simt.match_any(x[0]) + 0.0")
    with pytest.raises(Exception, match=r"nvvm.match.any.sync.i32' op needs sm_70"):
        k.ir("ptx", chip="sm_60", features="+ptx60")


# --------------------------------------------------------------------------- device functions

DEVICE_PRELUDE = """
@simt.device
def scale(v: wf.f32, by: wf.f32) -> wf.f32:
    return v * by

@simt.device
def first(s: simt.Slice[wf.f32]):
    return s[0]

@simt.device
def twice(k: wf.i32):
    return 2 * k

@simt.device
def loop_forever(v):
    return loop_forever(v)
"""


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("y = scale(x[0], 2.0, 3.0)", "scale() takes 2 argument(s), got 3"),
        ("y = scale(x[0])", "is missing the argument"),
        ("y = twice(x[0])", "argument 'k' of twice(): f32 does not convert implicitly to i32"),
        ("y = scale(x, 2.0)", "argument 'v' of scale() is a f32, got Slice[f32] 'x'"),
        ("y = first(out)", "argument 's' of first() is simt.Slice[wf.f32], got DisjointSlice[f32] 'out'"),
        ("y = first(2.0)", "argument 's' of first() is simt.Slice[wf.f32], got the constant 2.0"),
        ("y = loop_forever(x[0])", "recursion is not supported"),
    ],
)
def test_device_function_called_with_wrong_types(tmp_path, body: str, message: str) -> None:
    k, path = _kernel_from(tmp_path, body, prelude=DEVICE_PRELUDE)
    with pytest.raises(wf.CompileError, match=re.escape(message)) as info:
        k.ir("kernel")
    assert info.value.filename == str(path)
    assert info.value.line >= 19 or "recursion" in message  # the call site, in the kernel (recursion: the recursive call)


def test_device_functions_are_inlined(tmp_path) -> None:
    k, _ = _kernel_from(tmp_path, "idx = simt.index_1d()\nout[idx] = scale(first(x), 3.0) + scale(x[idx.get()], 2)", prelude=DEVICE_PRELUDE)
    kernel_ir = k.ir("kernel")
    assert "kernel.call @scale__f32_f32" in kernel_ir and "kernel.func @first__sf32" in kernel_ir
    assert kernel_ir.count("kernel.func @scale__f32_f32(") == 1  # compiled once per signature
    gpu_ir = k.ir("gpu")
    assert "kernel.call" not in gpu_ir and "func.call @scale" not in gpu_ir
    _ptxas(k.ir("ptx"))


# --------------------------------------------------------------------------- specialization


@simt.kernel
def generic_axpy(a, x, y, out, unroll: wf.Constant[int]):
    idx = simt.index_1d()
    acc = y[idx.get()]
    for _ in simt.static_range(unroll):
        acc = a * x[idx.get()] + acc
    out[idx] = acc


def test_generic_kernel_specializes_per_signature_and_constant() -> None:
    f32 = np.zeros(4, np.float32)
    f64 = np.zeros(4, np.float64)
    s1 = generic_axpy.specialize(np.float32(2), f32, f32, f32, 2)
    s2 = generic_axpy.specialize(np.float32(3), f32, f32, f32, 2)
    s3 = generic_axpy.specialize(2.0, f64, f64, f64, 4)
    assert s1 is s2  # same signature: cached
    assert s1 is not s3
    assert dict(s1.bindings)["out"] == simt.DisjointSlice[wf.f32]  # assigned into: DisjointSlice
    assert dict(s1.bindings)["x"] == simt.Slice[wf.f32]  # only read: Slice
    assert dict(s3.bindings)["a"] == wf.f64
    ir1 = s1.ir("kernel")
    assert "generic_axpy__f32_sf32_sf32_df32_c2" in ir1
    assert ir1.count("kernel.mul") == 1 and "llvm.loop_unroll_full" in ir1  # unroll = 2, compiled in: a loop LLVM unrolls
    assert "generic_axpy__f64_sf64_sf64_df64_c4" in s3.ir("kernel")
    compiled = s1.compile()
    assert [p.name for p in compiled.params] == ["a", "x", "y", "out"]  # the constant is not passed
    assert generic_axpy._runtime_args((1, 2, 3, 4, 5)) == (1, 2, 3, 4)
    _ptxas(s3.ir("ptx"))


def test_generic_kernel_alone_says_it_needs_arguments() -> None:
    with pytest.raises(wf.CompileError, match="needs an annotation to compile the kernel alone"):
        generic_axpy.ir("kernel")
    with pytest.raises(wf.LaunchError, match="is a wf.Constant: it needs int"):
        generic_axpy.specialize(1.0, np.zeros(2), np.zeros(2), np.zeros(2), 2.5)


# --------------------------------------------------------------------------- launch checks


def test_warp_collective_kernels_need_whole_warps() -> None:
    @simt.kernel
    def k(x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32]):
        idx = simt.index_1d()
        out[idx] = simt.warp_sum(x[idx.get()])

    compiled = k.compile()
    assert compiled.full_warps
    check_launch(compiled, LaunchConfig(grid=4, block=96), DeviceLimits.H200)
    with pytest.raises(wf.LaunchError, match="not a multiple of 32"):
        check_launch(compiled, LaunchConfig(grid=4, block=100), DeviceLimits.H200)


def test_static_and_dynamic_shared_memory_are_checked_against_the_device() -> None:
    @simt.kernel
    def k(out: simt.DisjointSlice[wf.f32]):
        idx = simt.index_1d()
        s = simt.shared_array((64, 64), wf.f32)  # 16 KiB
        d = simt.dynamic_shared(wf.f32)
        s[0, 0] = 1.0
        out[idx] = s[0, 0] + d[0]

    compiled = k.compile()
    assert compiled.static_shared_bytes == 64 * 64 * 4
    check_launch(compiled, LaunchConfig(grid=1, block=32, shmem_size=64 * 1024), DeviceLimits.H200)  # opt-in: fine
    with pytest.raises(wf.LaunchError, match=r"static 16384 \+ dynamic 229376"):
        check_launch(compiled, LaunchConfig(grid=1, block=32, shmem_size=224 * 1024), DeviceLimits.H200)


def test_grid_y_and_z_above_65535_are_refused() -> None:
    @simt.kernel
    def k(out: simt.DisjointSlice[wf.i64]):
        idx = simt.index_3d(4, 4)
        out[idx] = idx.z

    compiled = k.compile()
    for grid in ((1, 65536, 1), (1, 1, 70000)):
        with pytest.raises(wf.LaunchError, match="exceeds the device limit 65535"):
            check_launch(compiled, LaunchConfig(grid=grid, block=32), DeviceLimits.H200)
    check_launch(compiled, LaunchConfig(grid=(2**31 - 1, 65535, 65535), block=32), DeviceLimits.H200)


# --------------------------------------------------------------------------- everything assembles


def _ptxas(ptx: str) -> None:
    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    assert ".extern .func" not in ptx
    if find_ptxas() is not None:
        run_ptxas(ptx, "sm_90", verbose=False)


def test_fastmath_changes_the_code() -> None:
    import math

    def body(x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32]):
        idx = simt.index_1d()
        v = x[idx.get()]
        out[idx] = math.exp(v) / math.sqrt(v) + math.sin(v)

    precise, fast = simt.kernel(body).ir("ptx"), simt.kernel(body, fastmath=True).ir("ptx")
    assert "div.rn.f32" in precise and "sqrt.rn.f32" in precise and "approx.ftz.f32" not in precise.replace("ex2.approx.ftz.f32", "")
    for instr in ("div.approx.ftz.f32", "sqrt.approx.ftz.f32", "ex2.approx.ftz.f32", "sin.approx.ftz.f32"):
        assert instr in fast
    _ptxas(fast)


def test_register_arrays_stay_in_registers_and_run_time_indices_use_local_memory() -> None:
    @simt.kernel
    def regs(x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32]):
        idx = simt.index_1d()
        acc = simt.local_array((4, 4), wf.f32)
        for k in range(8):
            for i in simt.static_range(4):
                for j in simt.static_range(4):
                    acc[i, j] += x[(idx.get() + k + i * 4 + j) % len(x)]
        out[idx] = acc[3, 3] + acc[0, 1]

    @simt.kernel
    def mem(x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32], k: wf.i64):
        idx = simt.index_1d()
        acc = simt.local_array(8, wf.f32)
        acc[k] = x[0]
        out[idx] = acc[3]

    # the static_range loops stay loops (LLVM unrolls them), so the array is indexed by their variables
    # in the IR; LLVM's SROA puts it in registers after unrolling: no local memory in the PTX
    assert regs.ir("kernel").count("llvm.loop_unroll_full") == 2
    assert not re.search(r"(ld|st)\.local|\.local \.", regs.ir("ptx"))
    assert "kernel.local_array" in mem.ir("kernel")
    _ptxas(mem.ir("ptx"))
