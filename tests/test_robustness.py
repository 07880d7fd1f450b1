"""Regression tests for issue 16's findings (robustness under fuzzing): each test is a reduced case
that once aborted the process, hung, raised a non-warpforge exception, or gave a silently wrong
result. Semantics tests run on both backends (`backend` fixture: GPU marked `gpu`, and the CPU
simulator); every PTX they produce goes through ptxas when it is installed."""

from __future__ import annotations

import io
import math
import re
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import pytest

import warpforge as wf
from warpforge import simt, tile

from kernel_runner import Backend, backend, poisoned  # noqa: F401 (backend is the fixture)


def assemble(kernel: object, chip: str = "sm_90") -> str:
    """The kernel's PTX, assembled by ptxas when it is installed."""
    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    ptx = kernel.compile(chip).ptx  # pyright: ignore[reportAttributeAccessIssue]
    if find_ptxas() is not None:
        run_ptxas(ptx, chip, verbose=False)
    return ptx


def opt(args: list[str], text: str, tmp_path) -> tuple[int, str]:  # noqa: ANN001
    """Run `warpforge-opt` in-process on `text`; (exit status, stderr)."""
    from warpforge.driver.opt import main

    path = tmp_path / "input.mlir"
    path.write_text(text)
    err, out = io.StringIO(), io.StringIO()
    code = 0
    with redirect_stderr(err), redirect_stdout(out):
        try:
            main([str(path), *args])
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
    return code, err.getvalue()


# --------------------------------------------------------------------------- math.hypot


@simt.kernel
def hypot_kernel(x: simt.Slice[wf.f32], y: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32], out64: simt.DisjointSlice[wf.f64]):
    idx = simt.index_1d()
    i = idx.get()
    out[idx] = math.hypot(x[i], y[i])
    out64[idx] = math.hypot(wf.f64(x[i]) * 1e200, wf.f64(y[i]) * 1e200)


def test_hypot_does_not_overflow_or_underflow(backend: Backend) -> None:
    """`hypot(3e30, 4e30)` in f32 is 5e30, not inf (it was lowered as sqrt(x*x + y*y)); f64 past 1e154 too."""
    rng = np.random.default_rng(16)
    n = 512
    mant = rng.uniform(-4, 4, n).astype(np.float32)
    expo = rng.integers(-30, 37, n)
    x = (mant * np.float32(10.0) ** expo.astype(np.float32)).astype(np.float32)
    y = (rng.uniform(-4, 4, n) * 10.0 ** rng.integers(-30, 37, n)).astype(np.float32)
    x[:4] = [3e30, np.inf, np.nan, 1e-30]
    y[:4] = [4e30, np.nan, 1.0, 1e-30]
    out, out64 = backend.run(hypot_kernel, n // 256, 256, x, y, poisoned(n, np.float32), poisoned(n, np.float64))[2:]
    np.testing.assert_allclose(out, np.hypot(x, y), rtol=4e-7, atol=0)  # libdevice hypotf: 3 ulp
    wide = np.hypot(x.astype(np.float64) * 1e200, y.astype(np.float64) * 1e200)
    np.testing.assert_allclose(out64, wide, rtol=1e-15, atol=0)  # libdevice hypot: 2 ulp
    assert abs(float(out[0]) / 5e30 - 1) < 1e-6 and out[1] == np.inf  # C99 Annex F: hypot(inf, NaN) = inf
    assemble(hypot_kernel)


def test_hypot_calls_libdevice() -> None:
    ptx = assemble(hypot_kernel)
    assert ".extern .func" not in ptx
    assert "__nv_hypot" in hypot_kernel.ir("gpu")


# --------------------------------------------------------------------------- shuffles


@simt.kernel
def shuffle_kernel(
    a: simt.Slice[wf.f32], d: wf.i32, far: simt.DisjointSlice[wf.f32], dyn: simt.DisjointSlice[wf.f32],
    down: simt.DisjointSlice[wf.f32], down_ok: simt.DisjointSlice[wf.i32], up: simt.DisjointSlice[wf.f32],
    up_ok: simt.DisjointSlice[wf.i32], dyn_ok: simt.DisjointSlice[wf.i32],
):
    idx = simt.index_1d()
    v = a[idx.get()]
    far[idx] = simt.shfl_down(v, 36, width=8)
    r, ok = simt.shfl_down(v, d, width=8, with_valid=True)
    dyn[idx] = r
    dyn_ok[idx] = wf.i32(ok)
    r2, ok2 = simt.shfl_down(v, 3, width=8, with_valid=True)
    down[idx] = r2
    down_ok[idx] = wf.i32(ok2)
    r3, ok3 = simt.shfl_up(v, 5, with_valid=True)
    up[idx] = r3
    up_ok[idx] = wf.i32(ok3)


def _expected_shuffle(a: np.ndarray, mode: str, delta: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """The documented rule: the value of lane ± delta when it lies in the lane's segment of `width`
    lanes, else the lane's own value (and valid false)."""
    lane = np.arange(a.size) % 32
    seg = lane // width
    src = lane + delta if mode == "down" else lane - delta
    ok = (src >= 0) & (src < 32) & (src // width == seg) & (delta < 32)
    base = np.arange(a.size) - lane
    return np.where(ok, a[np.clip(base + src, 0, a.size - 1)], a), ok.astype(np.int32)


@pytest.mark.parametrize("delta", [2, 36, 32, -1])
def test_shuffle_deltas_past_32_keep_own_value_and_report_valid(backend: Backend, delta: int) -> None:
    """`shfl_down(v, 36, width=8)` acted like delta 4 (PTX takes the delta mod 32); with_valid gives
    PTX's predicate, false where the source lies outside the segment."""
    rng = np.random.default_rng(1600 + delta)
    n = 256
    a = rng.standard_normal(n).astype(np.float32)
    outs = [poisoned(n, np.float32), poisoned(n, np.float32), poisoned(n, np.float32), poisoned(n, np.int32),
            poisoned(n, np.float32), poisoned(n, np.int32), poisoned(n, np.int32)]
    far, dyn, down, down_ok, up, up_ok, dyn_ok = backend.run(shuffle_kernel, 1, n, a, np.int32(delta), *outs)[1:]
    np.testing.assert_array_equal(far, a)
    want, want_ok = _expected_shuffle(a, "down", delta if delta >= 0 else 2**32 + delta, 8)
    np.testing.assert_array_equal(dyn, want)
    np.testing.assert_array_equal(dyn_ok, want_ok)
    want, want_ok = _expected_shuffle(a, "down", 3, 8)
    np.testing.assert_array_equal(down, want)
    np.testing.assert_array_equal(down_ok, want_ok)
    want, want_ok = _expected_shuffle(a, "up", 5, 32)
    np.testing.assert_array_equal(up, want)
    np.testing.assert_array_equal(up_ok, want_ok)
    assemble(shuffle_kernel)


def test_shuffle_with_valid_must_be_a_constant_bool() -> None:
    @simt.kernel
    def k(a: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32]):
        idx = simt.index_1d()
        out[idx] = simt.shfl_down(a[idx.get()], 1, with_valid=1)

    with pytest.raises(wf.CompileError, match="with_valid is a compile-time True or False"):
        k.compile("sm_90")


# --------------------------------------------------------------------------- aborts and hangs


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"launch_bounds": 0}, r"launch_bounds .* an int in \[1, 1024\]; got 0"),
        ({"launch_bounds": -1}, r"launch_bounds .*got -1"),
        ({"launch_bounds": 256.5}, r"launch_bounds .*got 256.5"),
        ({"launch_bounds": 4096}, r"launch_bounds .*got 4096"),
        ({"min_blocks_per_sm": 0}, r"min_blocks_per_sm .* \[1, 32\]; got 0"),
        ({"min_blocks_per_sm": 10**6}, r"min_blocks_per_sm .*got 1000000"),
        ({"contract": (256, 1, 1)}, r"contract is a simt.Contract"),
        ({"contract": simt.Contract(block=(2048, 1, 1))}, r"2048 threads"),
        ({"contract": simt.Contract(block=256), "launch_bounds": 256}, r"not both"),
    ],
)
def test_kernel_decorator_refuses_what_ptx_cannot_carry(options: dict, message: str) -> None:
    """`launch_bounds=0` (and a negative `.reqntid`) aborted the process in LLVM; -1 gave PTX ptxas
    rejects; `.maxntid` with `.reqntid` too. Now a CompileError at the decorator's line."""
    with pytest.raises(wf.CompileError, match=message) as info:

        @simt.kernel(**options)
        def k(a: simt.Slice[wf.f32], c: simt.DisjointSlice[wf.f32]):
            idx = simt.index_1d()
            c[idx] = a[idx.get()]

    assert info.value.filename == __file__ and info.value.line > 0


def test_launch_bounds_still_compile() -> None:
    @simt.kernel(launch_bounds=128, min_blocks_per_sm=4)
    def k(a: simt.Slice[wf.f32], c: simt.DisjointSlice[wf.f32]):
        idx = simt.index_1d()
        c[idx] = a[idx.get()]

    ptx = assemble(k)
    assert ".maxntid 128, 1, 1" in ptx and ".minnctapersm 4" in ptx


_GPU_MODULE = """gpu.module @kernels [#nvvm.target<chip = "sm_90", features = "+ptx80">] {{
  gpu.func @k(%c: memref<?xf32, 1 : i32>, %p: i1) kernel {attrs} {{
    %c0 = arith.constant 0 : index
{body}
    gpu.return
  }}
}}
"""

_LATER_IN_BLOCK = """    %v = arith.addf %x, %x : f32 loc("k.py":3:4)
    %x = arith.constant 1.0 : f32
    memref.store %v, %c[%c0] : memref<?xf32, 1 : i32>"""

_OTHER_BRANCH = """    cf.cond_br %p, ^a, ^b
  ^a:
    %x = arith.constant 1.0 : f32
    cf.br ^b
  ^b:
    memref.store %x, %c[%c0] : memref<?xf32, 1 : i32> loc("k.py":9:5)"""

_NESTED_REGION = """    %x = scf.if %p -> (f32) {
      %y = arith.constant 2.0 : f32
      scf.yield %y : f32
    } else {
      scf.yield %y : f32 loc("k.py":7:7)
    }
    memref.store %x, %c[%c0] : memref<?xf32, 1 : i32>"""

_DOMINATED = """    cf.cond_br %p, ^a, ^b
  ^a:
    %x = arith.constant 1.0 : f32
    cf.br ^b
  ^b:
    %y = arith.constant 2.0 : f32
    memref.store %y, %c[%c0] : memref<?xf32, 1 : i32>"""


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (_LATER_IN_BLOCK, r"k.py:3:4: error: '(llvm.fadd|arith.addf)' op operand #0 \(%x\) does not dominate this use: it is defined later in the block"),
        (_OTHER_BRANCH, r"k.py:9:5: error: '(llvm.store|memref.store)' op operand #0 \(%x\) does not dominate this use: its block does not dominate"),
        (_NESTED_REGION, r"input.mlir:8:17: error: use of undefined value .%y."),  # the parser scopes regions
    ],
)
def test_uses_not_dominated_by_their_definition_are_refused_before_llvm(tmp_path, body: str, message: str) -> None:
    """xDSL parses forward references and does not check dominance; LLVM then aborted the process
    ("Broken module found")."""
    code, err = opt(["-p", "gpu-to-llvm", "-t", "ptx"], _GPU_MODULE.format(attrs="", body=body), tmp_path)
    assert code == 1
    import re

    assert re.search(message, err), err


def test_dominated_uses_pass_the_dominance_check(tmp_path) -> None:
    code, err = opt(["-p", "gpu-to-llvm", "-t", "llvm"], _GPU_MODULE.format(attrs="", body=_DOMINATED), tmp_path)
    assert code == 0, err


@pytest.mark.parametrize(
    ("attrs", "message"),
    [
        ("attributes {known_block_size = array<i32: 32, 1, 1>, nvvm.maxntid = array<i32: 64, 1, 1>}", "has both known_block_size"),
        ("attributes {nvvm.maxntid = array<i32: 0, 1, 1>}", r"nvvm.maxntid must be 1 to 3 positive extents, got \[0, 1, 1\]"),
        ("attributes {nvvm.maxntid = array<i32: 2048, 1, 1>}", "2048 threads per block"),
        ("attributes {known_block_size = array<i32: 64, 64, 1>}", "4096 threads per block"),
        ("attributes {nvvm.minctasm = 0 : i32}", r"nvvm.minctasm .* \[1, 32\]"),
    ],
)
def test_launch_bounds_ptxas_rejects_are_verifier_errors(tmp_path, attrs: str, message: str) -> None:
    code, err = opt(["-p", "gpu-to-llvm", "-t", "ptx"], _GPU_MODULE.format(attrs=attrs, body=""), tmp_path)
    assert code == 1 and message in err or __import__("re").search(message, err), err


@pytest.mark.parametrize("attrs", ["nvvm.reqntid = array<i32: -4, 1, 1>", "nvvm.reqntid = array<i32: 64, 1, 1>, nvvm.maxntid = array<i32: 64, 1, 1>", "nvvm.maxntid = array<i32: 0>"])
def test_llvm_func_launch_bounds_checked_before_export(tmp_path, attrs: str) -> None:
    """A negative `nvvm.reqntid` on an `llvm.func` aborted the process in LLVM."""
    text = f"builtin.module {{\n  llvm.func @k() attributes {{nvvm.kernel, {attrs}}} {{\n    llvm.return\n  }}\n}}\n"
    code, err = opt(["-t", "ptx"], text, tmp_path)
    assert code == 1 and re.search(r"input.mlir:2:3: error: 'llvm.func' op .*nvvm\.", err), err


def test_export_errors_are_warpforge_errors() -> None:
    from warpforge.backend.export import ExportError
    from warpforge.backend.nvptx import CodegenError
    from warpforge.backend.toolkit import PtxasError

    assert all(issubclass(e, wf.WarpforgeError) for e in (ExportError, CodegenError, PtxasError))


@tile.kernel
def huge_tile(z: tile.Tensor[wf.f32, ("B",)]):
    z.store(tile.zeros((1 << 20,), wf.f32))


def test_huge_partition_is_refused_at_once() -> None:
    """`partition((1 << 40,))` on a 1,024-element tensor was accepted and compilation never finished."""
    with pytest.raises(wf.CompileError, match=r"1099511627776 elements; a tile has at most 65536") as info:
        wf.zeros((1024,), wf.f32).partition((1 << 40,))
    assert info.value.filename == __file__


def test_huge_tile_in_a_kernel_is_a_located_compile_error() -> None:
    with pytest.raises(wf.CompileError, match=r"1048576 elements; a tile has at most 65536") as info:
        huge_tile.ir("tile", tile.spec(wf.f32, (4096,), partition=(1024,)))
    assert info.value.filename == __file__ and info.value.line == huge_tile.__wrapped__.__code__.co_firstlineno + 2


def test_huge_tile_type_in_mlir_is_a_verifier_error(tmp_path) -> None:
    text = "builtin.module {\n  %t = \"test.op\"() : () -> !tile.tile<1099511627776xf32>\n}\n"
    code, err = opt(["--allow-unregistered-dialect"], text, tmp_path)
    assert code == 1 and "a tile has at most 65536" in err, err


# --------------------------------------------------------------------------- i8/i16 negation, f16 warp sums


@simt.kernel
def narrow_negation(a: simt.Slice[wf.i16], b: simt.Slice[wf.i8], neg16: simt.DisjointSlice[wf.i32], abs16: simt.DisjointSlice[wf.i32],
                    neg8: simt.DisjointSlice[wf.i64], abs8: simt.DisjointSlice[wf.i32]):  # fmt: skip
    idx = simt.index_1d()
    i = idx.get()
    x = a[i]
    y = b[i]
    neg16[idx] = wf.i32(-x)
    abs16[idx] = wf.i32(abs(x))
    neg8[idx] = wf.i64(-y)
    abs8[idx] = wf.i32(abs(y))


def test_narrow_negation_wraps_before_widening(backend: Backend) -> None:
    """`-x` / `abs(x)` of an i16 holding -32768, widened, gave +32768 on the H200: ptxas dropped the
    sign extension after `neg.s16`. The PTX now negates at 32 bits and sign-extends with `prmt`."""
    rng = np.random.default_rng(1616)
    n = 512
    a = rng.integers(-32768, 32768, n).astype(np.int16)
    b = rng.integers(-128, 128, n).astype(np.int8)
    a[:4] = [-32768, 32767, 0, -1]
    b[:4] = [-128, 127, 0, -1]
    outs = [poisoned(n, np.int32), poisoned(n, np.int32), poisoned(n, np.int64), poisoned(n, np.int32)]
    neg16, abs16, neg8, abs8 = backend.run(narrow_negation, n // 256, 256, a, b, *outs)[2:]
    np.testing.assert_array_equal(neg16, (-a).astype(np.int32))  # NumPy wraps at i16 too: -(-32768) = -32768
    np.testing.assert_array_equal(abs16, np.abs(a).astype(np.int32))
    np.testing.assert_array_equal(neg8, (-b).astype(np.int64))
    np.testing.assert_array_equal(abs8, np.abs(b).astype(np.int32))
    assert neg16[0] == -32768 and abs16[0] == -32768 and neg8[0] == -128
    ptx = assemble(narrow_negation)
    assert "neg.s16" not in ptx and "prmt.b32" in ptx


@simt.kernel
def warp_sums(a: simt.Slice[wf.f16], b: simt.Slice[wf.bf16], out: simt.DisjointSlice[wf.f16], out_b: simt.DisjointSlice[wf.bf16]):
    idx = simt.index_1d()
    i = idx.get()
    out[idx] = simt.warp_sum(a[i])
    out_b[idx] = simt.warp_sum(b[i])


def test_half_precision_warp_sums_accumulate_in_f32(backend: Backend) -> None:
    """An f16 butterfly lost bits at every level (−0.5 where the sum is −0.68): f16/bf16 warp sums
    accumulate in f32 and round once, on the simulator and the GPU alike."""
    import ml_dtypes

    rng = np.random.default_rng(1617)
    n = 256
    x = rng.standard_normal(n).astype(np.float16)
    x[:32] = 1.0
    x[0] = 2048.0  # 2048 + 31 ones: an f16 butterfly rounds 2049 to 2048 at its first level
    y = rng.standard_normal(n).astype(ml_dtypes.bfloat16)
    out, out_b = backend.run(warp_sums, 1, n, x, y, poisoned(n, np.float16), poisoned(n, ml_dtypes.bfloat16))[2:]
    for got, vals, dt in ((out, x, np.float16), (out_b, y, ml_dtypes.bfloat16)):
        exact = vals.astype(np.float64).reshape(-1, 32).sum(axis=1)
        want = np.repeat(exact.astype(np.float32).astype(dt), 32)  # f32 holds these 32-term sums exactly or to < 1/2 f16 ulp
        np.testing.assert_array_equal(got.astype(np.float64), want.astype(np.float64))
    assert out[0] == np.float16(2080.0)
    assemble(warp_sums)


# --------------------------------------------------------------------------- host API


def test_host_api_misuse_raises_warpforge_errors() -> None:
    """The issue's list (each raised AttributeError, TypeError or NumPy's ValueError, or was
    accepted); tests/fuzz/api.py has the full table, run by tests/test_fuzz.py."""
    dev = wf.Device.simulator()
    stream = dev.create_stream()
    cases = [
        (lambda: shuffle_kernel.launch(stream, None), wf.LaunchError),
        (lambda: wf.zeros((4,), dtype="nope"), wf.UsageError),
        (lambda: wf.zeros((4,), dtype=np.complex64), wf.UsageError),
        (lambda: wf.zeros((1024,), wf.f32).partition(2.5), wf.LaunchError),
        (lambda: wf.DeviceBuffer.zeroed(stream, 2**62, wf.f32), wf.LaunchError),
        (lambda: wf.DeviceBuffer.from_host(stream, [[1, 2], [3]]), wf.LaunchError),
        (lambda: wf.from_host([[1, 2], [3]]), wf.LaunchError),
        (lambda: wf.runtime.LaunchConfig(grid=2**64, block=32), wf.LaunchError),
        (lambda: hypot_kernel.ir("bogus"), wf.UsageError),
        (lambda: hypot_kernel[1](), wf.UsageError),
        (lambda: tile.spec(wf.f32, (2.5,)), wf.UsageError),
    ]
    for call, error in cases:
        with pytest.raises(error):
            call()
    assert issubclass(wf.UsageError, TypeError) and issubclass(wf.UsageError, ValueError)


def test_slice_of_a_non_dtype_is_a_compile_error_at_the_annotation() -> None:
    """`simt.Slice["f32"]` raised TypeError, `Slice[Slice[f32]]` ValueError, at definition."""
    with pytest.raises(wf.CompileError, match=r"Slice\[\.\.\.\] needs a warpforge dtype") as info:
        simt.Slice["f32"]  # what evaluating the annotation does
    assert info.value.filename == __file__ and info.value.col > 1
    with pytest.raises(wf.CompileError, match="arrays of arrays are not supported"):
        simt.Slice[simt.Slice[wf.f32]]
    with pytest.raises(wf.CompileError, match="a dtype is needed, got None"):
        simt.DisjointSlice[None]


@simt.kernel
def colliding_names(a: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32]):
    idx = simt.index_1d()
    x = a[idx.get()]
    x = x * 2.0
    x = x + 1.0
    x_1 = x * 3.0
    acc = simt.local_array((12,), wf.f32)
    for k in simt.static_range(12):
        acc[k] = x_1 + k
    out[idx] = acc[11] + x


def test_printed_ir_reparses_when_name_hints_collide(tmp_path) -> None:
    """xDSL printed a value hinted `x_1` and the second `x` both as `%x_1` (and a local array's
    `__local5_10` likewise): the gpu-level text of such kernels did not parse back."""
    for stage, passes in (("kernel", "simt-to-llvm"), ("gpu", "gpu-to-llvm")):
        code, err = opt(["-p", passes, "-t", "llvm"], colliding_names.ir(stage), tmp_path)
        assert code == 0, err


def test_export_checks_dominance_itself() -> None:
    """The Python API exports without warpforge-opt's parse-time check: `export_llvm_ir` refuses too."""
    from xdsl.context import Context

    from warpforge.backend.export import ExportError, export_llvm_ir
    from warpforge.diagnostics import parse_mlir
    from warpforge.dialects import get_all_dialects

    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    text = """builtin.module {
  llvm.func @k() attributes {nvvm.kernel} {
    %v = llvm.fadd %x, %x : f32
    %x = llvm.mlir.constant(1.0 : f32) : f32
    llvm.return
  }
}
"""
    module = parse_mlir(ctx, text, "k.mlir")
    with pytest.raises(ExportError, match=r"k.mlir:3:5: error: 'llvm.fadd' op operand #0 \(%x\) does not dominate this use"):
        export_llvm_ir(module)


_EXEC_DECOY = """\
import warpforge as wf
def decoy(a: wf.simt.Slice[wf.f32], c: wf.simt.DisjointSlice[wf.f32]):
    c[wf.simt.index_1d()] = a[0] * 100.0
"""

_EXEC_REAL = """\
@simt.kernel
def real(a: simt.Slice[wf.f32], c: simt.DisjointSlice[wf.f32]):
    c[simt.index_1d()] = a[0] + 1.0
"""


@pytest.mark.parametrize("model", ["simt", "tile"])
def test_a_kernel_whose_file_holds_other_source_is_refused(tmp_path, model: str) -> None:
    # exec'd under the filename of a module whose line 2 is another function: inspect (through linecache's
    # loader fallback or the file itself) returns that function's text, and the decoy was compiled instead
    import linecache

    path = tmp_path / "decoy_module.py"
    path.write_text(_EXEC_DECOY)
    real_src = _EXEC_REAL if model == "simt" else _EXEC_REAL.replace("@simt.kernel", "@tile.kernel").replace(
        "def real(a: simt.Slice[wf.f32], c: simt.DisjointSlice[wf.f32]):\n    c[simt.index_1d()] = a[0] + 1.0",
        "def real(a: tile.Tensor[wf.f32, (128,)], c: tile.Tensor[wf.f32, (128,)]):\n    c.store(a.load() + 1.0)",
    )
    scope = {"wf": wf, "simt": simt, "tile": tile}
    exec(compile(real_src, str(path), "exec"), scope)
    try:
        with pytest.raises(wf.CompileError, match=r"the source text found for 'real' .* is 'def decoy\(a, c\)'"):
            if model == "simt":
                scope["real"].ir("kernel")
            else:
                a = np.arange(128, dtype=np.float32)
                scope["real"](wf.tensor(a).partition((128,)), wf.zeros((128,), wf.f32).partition((128,))).sync()
    finally:
        linecache.checkcache(str(path))
