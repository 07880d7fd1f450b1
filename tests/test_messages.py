"""Messages that used to mislead (issue 8, item 8), and a walk over the public API's error paths:
every error a user can cause is a `wf.WarpforgeError` subclass with a message that says what to do."""

from __future__ import annotations

import ast
import math
from pathlib import Path

import numpy as np
import pytest

import warpforge as wf
from warpforge import f32, i32, i64, simt, tile

rng = np.random.default_rng(8)


# --------------------------------------------------------------------------- operators


@simt.kernel
def matmul_scalars(a: simt.Slice[f32], c: simt.DisjointSlice[f32]):
    idx = simt.index_1d()
    c[idx] = a[idx.get()] @ a[idx.get()]


def test_an_unsupported_operator_is_named_by_symbol_and_name() -> None:
    with pytest.raises(wf.CompileError) as info:
        matmul_scalars.compile()
    assert "the operator '@' (matrix multiplication) is not supported on scalars" in info.value.message
    assert info.value.filename == __file__ and "a[idx.get()] @ a[idx.get()]" in str(info.value)


@tile.kernel
def add_tiles(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)]):
    z.store(tile.load_tile_like(x, z) + tile.load_tile_like(x, z))


def test_tile_operator_messages_come_from_the_operator_table(monkeypatch: pytest.MonkeyPatch) -> None:
    from warpforge.frontend import expressions
    from warpforge.frontend.tile import expressions as tile_expressions

    for op_type, (symbol, name) in expressions.OPERATOR_NAMES.items():
        assert expressions.operator_text(op_type) == f"'{symbol}' ({name})"
    assert set(expressions.OPERATOR_NAMES) == {c for c in vars(ast).values() if isinstance(c, type) and issubclass(c, ast.operator) and c is not ast.operator}
    # an operator the tile table lacks is refused by its own name, whatever the table holds
    table = dict(tile_expressions.TILE_BINARY)
    table.pop(ast.Add)
    monkeypatch.setattr(tile_expressions, "TILE_BINARY", table)
    with pytest.raises(wf.CompileError, match=r"the operator '\+' \(addition\) is not supported on tiles"):
        add_tiles.compile(tile.spec(f32, (256,), partition=(128,)), tile.spec(f32, (256,)))


# --------------------------------------------------------------------------- old targets


@simt.kernel
def shuffles(a: simt.Slice[f32], c: simt.DisjointSlice[f32]):
    idx = simt.index_1d()
    c[idx] = simt.shfl_xor(a[idx.get()], 1)


@tile.kernel
def block_sums(z: tile.Tensor[f32, (1,)], x: tile.Tensor[f32, (-1,)]):
    z.store(tile.reshape(tile.sum(tile.load(x, (tile.bid(0),), (256,))), (1,)))


def test_an_instruction_the_target_lacks_is_a_compile_error_at_the_line() -> None:
    with pytest.raises(wf.CompileError) as info:
        shuffles.compile("sm_60", "+ptx50")
    err = info.value
    assert "needs sm_30 and PTX 6.0" in err.message and "targets sm_60 (PTX 5.0)" in err.message
    assert err.filename == __file__ and "simt.shfl_xor" in (err.source_line or "")
    with pytest.raises(wf.CompileError, match=r"PTX 6\.0"):
        block_sums.compile(tile.spec(f32, (4,), partition=(1,)), tile.spec(f32, (1024,)), chip="sm_60", features="+ptx50")


# --------------------------------------------------------------------------- fast math


def _fast(flags: object):
    @simt.kernel(fastmath=flags)
    def k(a: simt.Slice[f32], c: simt.DisjointSlice[f32]):
        idx = simt.index_1d()
        x = a[idx.get()]
        c[idx] = x / 3.0 + math.sqrt(x) * x

    return k


def test_selected_fastmath_flags_reach_the_float_ops_and_llvm() -> None:
    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    k = _fast({"arcp", "nnan"})
    assert k.fastmath == ("arcp", "nnan")
    gpu_ir = k.ir("gpu")
    assert "arith.divf" in gpu_ir and "fastmath<nnan,arcp>" in gpu_ir.replace(" ", "")
    ll = k.ir("ll")
    assert any("fdiv" in line and "arcp" in line and "nnan" in line for line in ll.splitlines())
    assert "denormal-fp-math" not in ll  # only fastmath=True flushes denormals
    assert "denormal-fp-math" in _fast(True).ir("ll")
    assert _fast({"fast"}).fastmath == ("afn", "arcp", "contract", "ninf", "nnan", "nsz", "reassoc")
    assert _fast(set()).fastmath is False
    if find_ptxas() is not None:
        run_ptxas(k.compile().ptx, "sm_90", verbose=False)


def test_selected_afn_picks_the_approximate_libdevice_functions() -> None:
    def with_sin(flags: object):
        @simt.kernel(fastmath=flags)
        def k(a: simt.Slice[f32], c: simt.DisjointSlice[f32]):
            idx = simt.index_1d()
            c[idx] = math.sin(a[idx.get()])

        return k

    assert "__nv_fast_sinf" in with_sin({"afn"}).ir("ll")
    precise = with_sin({"contract"}).ir("ll")
    assert "__nv_sinf" in precise and "__nv_fast_sinf" not in precise


@pytest.mark.parametrize("flags", [{"arcpp"}, "fast", 3])
def test_unknown_fastmath_flags_are_refused_at_the_kernel(flags: object) -> None:
    with pytest.raises(wf.CompileError, match="fast-math flag|fastmath= takes") as info:
        _fast(flags)
    assert info.value.filename == __file__


@pytest.mark.parametrize("backend", ["simulator", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_selected_fastmath_kernel_matches_numpy(backend: str) -> None:
    dev = wf.Device.simulator() if backend == "simulator" else wf.Device(0)
    s = dev.create_stream()
    x = rng.uniform(0.5, 100.0, 1024).astype(np.float32)
    a, c = wf.DeviceBuffer.from_host(s, x), wf.DeviceBuffer.from_host(s, np.full(1024, np.nan, np.float32))
    k = _fast({"contract", "arcp"})
    k.launch(s, k.prepare(wf.LaunchConfig(grid=4, block=256, shmem_size=0), device=dev), a, c)
    np.testing.assert_allclose(c.to_host(s), x / np.float32(3) + np.sqrt(x) * x, rtol=2e-6)


# --------------------------------------------------------------------------- the simulator's step limit


@simt.kernel
def spin(n: i64, c: simt.DisjointSlice[i64]):
    idx = simt.index_1d()
    s = 0
    for j in range(n):
        s += j
    c[idx] = s


def _spin(dev: object, n: int) -> np.ndarray:
    s = dev.create_stream()  # pyright: ignore[reportAttributeAccessIssue]
    c = wf.DeviceBuffer.zeroed(s, 32, i64)
    spin.launch(s, spin.prepare(wf.LaunchConfig(grid=1, block=32, shmem_size=0), device=dev), np.int64(n), c)
    return c.to_host(s)


def test_the_step_limit_hint_names_a_public_option(monkeypatch: pytest.MonkeyPatch) -> None:
    n = int(rng.integers(60, 200))
    with pytest.raises(wf.WarpforgeError, match=r"step limit reached: 50 .*wf\.Device\.simulator\(step_limit=N\).*WARPFORGE_SIM_STEP_LIMIT") as info:
        _spin(wf.Device.simulator(step_limit=50), n)
    assert "step_limit=" in str(info.value)
    assert (_spin(wf.Device.simulator(step_limit=10 * n), n) == n * (n - 1) // 2).all()
    monkeypatch.setenv("WARPFORGE_SIM_STEP_LIMIT", "40")
    assert wf.Device.simulator().step_limit == 40
    with pytest.raises(wf.WarpforgeError, match="step limit reached: 40"):
        _spin(wf.Device.simulator(), n)
    monkeypatch.setenv("WARPFORGE_SIM_STEP_LIMIT", "many")
    with pytest.raises(wf.DeviceError, match="not an integer"):
        wf.Device.simulator()
    monkeypatch.delenv("WARPFORGE_SIM_STEP_LIMIT")
    with pytest.raises(wf.DeviceError, match="positive number of steps"):
        wf.Device.simulator(step_limit=0)


# --------------------------------------------------------------------------- DeviceBuffer.astype / reshape


@simt.kernel
def double(a: simt.Slice[f32], c: simt.DisjointSlice[f32]):
    idx = simt.index_1d()
    c[idx] = 2.0 * a[idx.get()]


@pytest.mark.parametrize("backend", ["simulator", pytest.param("gpu", marks=pytest.mark.gpu)])
def test_the_launch_hints_name_methods_that_exist_and_work(backend: str) -> None:
    dev = wf.Device.simulator() if backend == "simulator" else wf.Device(0)
    s = dev.create_stream()
    prepared = double.prepare(wf.LaunchConfig(grid=1, block=256, shmem_size=0), device=dev)
    x = rng.normal(size=(16, 16))
    a64 = wf.DeviceBuffer.from_host(s, x.reshape(-1))
    c = wf.DeviceBuffer.from_host(s, np.full(256, np.nan, np.float32))
    with pytest.raises(wf.LaunchError, match=r"x\.astype\(numpy\.float32\)"):
        double.launch(s, prepared, a64, c)
    a = a64.astype(np.float32)  # as the hint says: NumPy's conversion
    assert a.dtype == np.float32 and a.shape == (256,)
    np.testing.assert_array_equal(a.to_host(s), x.reshape(-1).astype(np.float32))
    a2 = a.reshape(16, 16)
    with pytest.raises(wf.LaunchError, match=r"x\.reshape\(-1\)"):
        double.launch(s, prepared, a2, c)
    double.launch(s, prepared, a2.reshape(-1), c)  # as the hint says
    np.testing.assert_array_equal(c.to_host(s), 2 * x.reshape(-1).astype(np.float32))
    # a reshape is a view: the same memory, refused as overlapping when one of them is the output
    view = c.reshape(16, -1)
    assert view.shape == (16, 16) and view.ptr == c.ptr
    np.testing.assert_array_equal(view.to_host(s), c.to_host(s).reshape(16, 16))
    with pytest.raises(wf.AliasError):
        double.launch(s, prepared, c.reshape(-1), c)
    with pytest.raises(wf.LaunchError, match="cannot reshape a buffer of 256 elements"):
        c.reshape(5, -1)


# --------------------------------------------------------------------------- lazy results


def test_using_to_host_before_sync_on_says_the_chain_has_not_run() -> None:
    x = rng.normal(size=256).astype(np.float32)
    out = add_tiles(wf.zeros((256,), f32).partition((128,)), wf.from_host(x)).first().unpartition().to_host()
    for use in (lambda: out[0], lambda: np.asarray(out), lambda: out.shape, lambda: out + 1, lambda: len(out), lambda: out == x):
        with pytest.raises(wf.ChainNotRunError, match=r"has not run yet; run it with \.sync_on\(stream\)"):
            use()
    with pytest.raises(TypeError):  # still what plain Python code expects
        out[0]
    np.testing.assert_array_equal(out.sync_on(wf.Device.simulator().create_stream()), 2 * x)


# --------------------------------------------------------------------------- every error path


def _paths(tmp_path: Path) -> list[tuple[str, type[wf.WarpforgeError], object]]:
    from warpforge.backend.export import export_llvm_ir
    from warpforge.backend.nvptx import compile_ptx

    dev = wf.Device.simulator()
    s = dev.create_stream()

    @simt.device
    def helper(x: f32) -> f32:
        return x

    @simt.kernel(contract=simt.Contract(domain=1, block=(256, 1, 1)))
    def reads(a: simt.Slice[f32], c: simt.DisjointSlice[f32]):
        idx = simt.index_1d()
        c[idx] = a[idx.get() + 1]

    def kernel_error() -> None:
        a, c = wf.DeviceBuffer.zeroed(s, 256, f32), wf.DeviceBuffer.zeroed(s, 256, f32)
        reads.launch(s, reads.prepare(wf.LaunchConfig(grid=1, block=256, shmem_size=0), device=dev), a, c)
        c.to_host(s)

    def moved() -> None:
        z = wf.zeros((256,), f32)
        add_tiles(z.partition((128,)), z)

    def not_run() -> None:
        add_tiles(wf.zeros((256,), f32).partition((128,)), wf.ones((256,), f32)).first().unpartition().to_host()[0]

    def alias() -> None:
        c = wf.DeviceBuffer.zeroed(s, 256, f32)
        double.launch(s, double.prepare(wf.LaunchConfig(grid=1, block=256, shmem_size=0), device=dev), c, c)

    def bad_export() -> None:
        from xdsl.dialects.builtin import ModuleOp
        from xdsl.dialects.arith import ConstantOp
        from xdsl.dialects.builtin import IntegerAttr, i32 as xi32

        export_llvm_ir(ModuleOp([ConstantOp(IntegerAttr(1, xi32))]))

    paths: list[tuple[str, type[wf.WarpforgeError], object]] = [
        ("an unsupported construct", wf.CompileError, lambda: matmul_scalars.compile()),
        ("an instruction the target lacks", wf.CompileError, lambda: shuffles.compile("sm_60", "+ptx50")),
        ("an unknown fast-math flag", wf.CompileError, lambda: _fast({"fastest"})),
        ("DeviceBuffer()", wf.UsageError, lambda: wf.DeviceBuffer()),
        ("an unsupported dtype", wf.LaunchError, lambda: wf.DeviceBuffer.from_host(s, np.zeros(3, np.complex64))),
        ("an unsupported dtype in an annotation", wf.CompileError, lambda: simt.Slice[np.complex64]),  # located at the annotation
        ("a kernel called like a function", wf.UsageError, lambda: double(1, 2)),
        ("a device function called from the host", wf.UsageError, lambda: helper(1.0)),
        ("a kernel function outside a kernel", wf.UsageError, lambda: simt.index_1d()),
        ("a tile function outside a kernel", wf.UsageError, lambda: tile.bid(0)),
        ("an unknown stage", wf.UsageError, lambda: double.ir("bogus")),
        ("a bad Slice annotation", wf.CompileError, lambda: simt.Slice["x"]),  # located at the annotation
        ("a bad Constant annotation", wf.UsageError, lambda: wf.Constant[str]),
        ("a bad tile annotation", wf.UsageError, lambda: tile.Tensor["x", (4,)]),
        ("a bad num_warps", wf.UsageError, lambda: tile.kernel(num_warps=3)(lambda z: None)),
        ("a bad shorthand", wf.UsageError, lambda: double[1]),
        ("len() of a 0-d buffer", wf.UsageError, lambda: len(wf.DeviceBuffer.zeroed(s, (), f32))),
        ("a block the contract forbids", wf.LaunchError, lambda: reads.prepare(wf.LaunchConfig(grid=1, block=128, shmem_size=0), device=dev)),
        ("overlapping arguments", wf.AliasError, alias),
        ("an out-of-range read", wf.KernelError, kernel_error),
        ("a partitioned tensor used again", wf.MovedValueError, moved),
        ("a lazy result used before it ran", wf.ChainNotRunError, not_run),
        ("a runaway loop on the simulator", wf.WarpforgeError, lambda: _spin(wf.Device.simulator(step_limit=5), 100)),
        ("bad simulator limits", wf.DeviceError, lambda: wf.Device.simulator(3)),  # pyright: ignore[reportArgumentType]
        ("LLVM IR LLVM rejects", wf.WarpforgeError, lambda: compile_ptx("this is not LLVM IR")),
        ("a module the exporter cannot translate", wf.WarpforgeError, bad_export),
    ]
    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    if find_ptxas() is not None:
        paths.append(("PTX ptxas rejects", wf.WarpforgeError, lambda: run_ptxas(".version 8.0\n.target sm_90\nnonsense;", "sm_90", verbose=False)))
    return paths


def test_every_user_facing_error_is_a_warpforge_error(tmp_path: Path) -> None:
    for what, expected, cause in _paths(tmp_path):
        with pytest.raises(Exception) as info:
            cause()  # pyright: ignore[reportCallIssue]
        err = info.value
        assert isinstance(err, expected), f"{what}: raised {type(err).__module__}.{type(err).__name__}: {err}"
        assert str(err), f"{what}: an empty message"
