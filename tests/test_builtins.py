"""The elementwise builtins' catalog (`warpforge.dialects.math_catalog`): every record, in every model
it has a form in, run on fresh seeded random inputs against its NumPy reference — on the CPU
simulator always and on the GPU (marked `gpu`); the simulator interprets every op the lowerings emit
at every element type (or the record names the exception); and the stubs, tile ops and docs the
records derive.

The records are run in batches, one kernel per (model, type rule, arity, dtype): row k of a 2-D
launch (SIMT) or tile row k (tile) applies builtin k to its own inputs, drawn from its record's
`domain`. A new record is picked up by every test here; its own edge cases go at the end.
"""

import importlib.util
import math
import tempfile
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest

import warpforge as wf
from warpforge import simt, tile
from warpforge.dialects.math_catalog import BUILTINS, BY_PYTHON_NAME, TILE_FORMS, Builtin, reference

from kernel_runner import Backend, backend, poisoned  # noqa: F401 (backend is the fixture)

N = 256
"""Elements per builtin: two blocks of 128 threads (SIMT), two tiles of 128 (tile)."""

RUN_DTYPES = {"float": ("f32", "f64"), "round": ("f32", "f64"), "int": ("i32", "u32", "i64")}
"""The element types every record runs at against NumPy, by type rule (f16/bf16: `test_half_*`)."""

LOWER_DTYPES = {"float": ("f16", "bf16", "f32", "f64"), "round": ("f16", "bf16", "f32", "f64"), "int": ("i8", "u16", "i32", "u64")}
"""The element types whose `gpu`-level IR the coverage test reads."""

_DIR = Path(tempfile.mkdtemp(prefix="wf-builtin-kernels-"))


def _models(b: Builtin) -> list[str]:
    simt_form = bool(b.simt) or (b.math and hasattr(math, b.name))
    return (["simt"] if simt_form else []) + (["tile"] if b.tile else [])


def _spelling(b: Builtin, model: str) -> str:
    """How a kernel of `model` calls `b` (`simt.cdiv`, `math.exp2`, `tile.exp`)."""
    if model == "tile":
        return f"tile.{b.tile[0]}"
    return f"simt.{b.simt[0]}" if b.simt else f"math.{b.name}"


def _groups(model: str) -> dict[tuple[str, int], list[Builtin]]:
    groups: dict[tuple[str, int], list[Builtin]] = {}
    for b in BUILTINS:
        if model in _models(b):
            groups.setdefault((b.rule, b.arity), []).append(b)
    return groups


def _np_dtype(name: str) -> np.dtype:
    return np.dtype(getattr(wf, name).np)


def _out_dtype(rule: str, model: str, dtype: str) -> str:
    return "i64" if rule == "round" and model == "simt" else dtype


def _batch_kernel(model: str, rule: str, arity: int, dtype: str, records: list[Builtin]) -> Any:
    """One kernel applying `records[k]` to row k of its inputs (generated source, imported from a file:
    the frontend reads kernels' source)."""
    params = "abc"[:arity]
    lines = ["import math", "import warpforge as wf", "from warpforge import simt, tile", ""]
    if model == "simt":
        lines += ["@simt.kernel", f"def batch({', '.join(f'{p}: simt.Slice' for p in params)}, out: simt.DisjointSlice):"]
        lines += [f"    idx = simt.index_2d({N})", "    i = idx.get()", "    k = idx.row"]
        for k, b in enumerate(records):
            args = ", ".join(f"{p}[i]" for p in params)
            lines += [f"    {'if' if k == 0 else 'elif'} k == {k}:", f"        out[idx] = {_spelling(b, model)}({args})"]
    else:
        out = _out_dtype(rule, model, dtype)
        lines += ["@tile.kernel", f"def batch(z: tile.Tensor[wf.{out}, (1, 'B')], {', '.join(f'{p}: tile.Tensor[wf.{dtype}, (-1, -1)]' for p in params)}):"]
        lines += [f"    {p}t = tile.load_tile_like({p}, z, padding=1)" for p in params]
        lines += ["    k = tile.bid(0)"]
        for k, b in enumerate(records):
            args = ", ".join(f"{p}t" for p in params)
            lines += [f"    {'if' if k == 0 else 'elif'} k == {k}:", f"        z.store({_spelling(b, model)}({args}))"]
    return _import(_DIR / f"batch_{model}_{rule}_{arity}_{dtype}.py", "\n".join(lines) + "\n").batch


def _import(path: Path, source: str) -> Any:
    """`source` written to `path` and imported as a module (the frontend reads kernels' source)."""
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _specialized(model: str, rule: str, arity: int, dtype: str, records: list[Builtin]) -> tuple[Any, tuple[Any, ...]]:
    """The batch kernel and arguments to compile it with (zeros: only their dtypes and shapes count);
    SIMT: the specialization and no arguments."""
    kernel = _batch_kernel(model, rule, arity, dtype, records)
    k = len(records)
    xs = [np.zeros(k * N, _np_dtype(dtype)) for _ in range(arity)]
    out_name = _out_dtype(rule, model, dtype)
    if model == "simt":
        return kernel.specialize(*xs, np.zeros(k * N, _np_dtype(out_name))), ()
    z = wf.empty((k, N), getattr(wf, out_name)).partition((1, 128))
    return kernel, (z, *(wf.from_host(x.reshape(k, N)) for x in xs))


def _inputs(b: Builtin, dtype: str, arity: int, seed: int) -> list[np.ndarray]:
    """`arity` fresh arrays of `dtype` inside `b.domain`, seeded per record, dtype and model."""
    rng = np.random.default_rng(seed)
    lo, hi = b.domain
    dt = _np_dtype(dtype)
    out = []
    for k in range(arity):
        if dt.kind in "fV":  # V: ml_dtypes' bfloat16
            x = rng.uniform(lo, hi, N)
        else:
            x = rng.integers(max(int(lo), 0) if dt.kind == "u" else int(lo), int(hi), N, endpoint=True)
            if b.name == "cdiv" and k == 1:
                x = np.where(x == 0, 7, x)  # a divisor of 0 has its own test
        out.append(x.astype(dt))
    return out


def _seed(b: Builtin, dtype: str, model: str) -> int:
    return sum(map(ord, f"{b.name}/{dtype}/{model}")) * 7919


def _expected(b: Builtin, xs: list[np.ndarray], out_dtype: np.dtype) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.asarray(reference(b)(*xs)).astype(out_dtype)


def _run_batch(backend: Backend, model: str, rule: str, arity: int, dtype: str, records: list[Builtin]) -> tuple[np.ndarray, list[list[np.ndarray]]]:
    """Run the batch; returns the (len(records), N) output and each record's inputs."""
    inputs = [_inputs(b, dtype, arity, _seed(b, dtype, model)) for b in records]
    stacked = [np.concatenate([xs[p] for xs in inputs]) for p in range(arity)]
    out_name = _out_dtype(rule, model, dtype)
    out_dt = _np_dtype(out_name)
    kernel = _batch_kernel(model, rule, arity, dtype, records)
    k = len(records)
    if model == "simt":
        out = backend.run(kernel, (N // 128, k), (128, 1, 1), *stacked, poisoned(k * N, out_dt))[-1]
    else:
        stream = backend.device.create_stream()
        z = wf.full((k, N), np.nan if out_dt.kind == "f" else 7, getattr(wf, out_name)).partition((1, 128))
        args = [wf.from_host(x.reshape(k, N)) for x in stacked]
        out = kernel(z, *args).first().unpartition().to_host().sync_on(stream)
    return np.asarray(out).reshape(k, N), inputs


def _tolerance(dt: np.dtype) -> dict[str, float]:
    """libdevice is within a few ulp of the correctly rounded result (`ex2.approx`, `rsqrt.approx`:
    2 ulp); the simulator rounds once from f64."""
    if dt.kind not in "fV":
        return {"rtol": 0, "atol": 0}
    eps = float(np.finfo(dt).eps)
    return {"rtol": 16 * eps, "atol": 16 * eps}


def _batches(dtypes_by_rule: dict[str, tuple[str, ...]]) -> list[Any]:
    """One test case per batch: (model, rule, arity) group and element type."""
    return [
        pytest.param(model, rule, arity, dtype, id=f"{model}-{rule}{arity}-{dtype}")
        for model in ("simt", "tile")
        for (rule, arity) in _groups(model)
        for dtype in dtypes_by_rule[rule]
    ]


@pytest.mark.parametrize(("model", "rule", "arity", "dtype"), _batches(RUN_DTYPES))
def test_every_builtin_matches_numpy(backend: Backend, model: str, rule: str, arity: int, dtype: str) -> None:
    records = _groups(model)[(rule, arity)]
    out, inputs = _run_batch(backend, model, rule, arity, dtype, records)
    wrong = []
    for k, (b, xs) in enumerate(zip(records, inputs)):
        want = _expected(b, xs, out.dtype)
        try:
            np.testing.assert_allclose(out[k].astype(np.float64) if out.dtype.kind == "V" else out[k], want, **_tolerance(out.dtype))
        except AssertionError as e:
            wrong.append(f"{_spelling(b, model)} at {dtype}: {str(e).strip().splitlines()[-3:]}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("model", ["simt", "tile"])
@pytest.mark.parametrize("dtype", ["f16", "bf16"])
def test_half_precision_builtins_round_once_from_f32(backend: Backend, model: str, dtype: str) -> None:
    """f16/bf16 compute in f32 and round once (the type rule): against NumPy's f32 result, rounded."""
    records = [b for b in _groups(model)[("float", 1)] if b.name in ("exp", "exp2", "log", "sqrt", "rsqrt", "tanh", "erf", "sin")]
    out, inputs = _run_batch(backend, model, "float", 1, dtype, records)
    half = _np_dtype(dtype)
    for k, (b, xs) in enumerate(zip(records, inputs)):
        want = _expected(b, [xs[0].astype(np.float32)], np.dtype(np.float32))
        got = out[k].astype(np.float32)
        ulp = float(ml_dtypes.finfo(half).eps)  # results are O(1): one ulp of the half type, plus f32's error
        np.testing.assert_allclose(got, want, rtol=1.01 * ulp, atol=ulp, err_msg=f"{_spelling(b, model)} at {dtype}")


# --------------------------------------------------------------------------- the simulator covers every lowering


STRUCTURE = {"builtin.module", "gpu.module", "gpu.func", "func.func"}
"""Ops the simulator reads as the program's structure, not as instructions."""


def _gpu_level_ops(model: str, rule: str, arity: int, dtype: str, records: list[Builtin]) -> set[str]:
    """The op names, and `call @__nv_*` for libdevice calls, in the `gpu`-level IR (what the simulator
    runs) of the batch kernel."""
    from xdsl.dialects import func

    from warpforge.context import parse_module

    kernel, args = _specialized(model, rule, arity, dtype, records)
    text = kernel.ir("gpu", *args)
    names = set()
    for op in parse_module(text).walk():
        if isinstance(op, func.CallOp) and op.callee.string_value().startswith("__nv_"):
            names.add(f"call @{op.callee.string_value()}")
        else:
            names.add(op.name)
    return names


@pytest.mark.parametrize(("model", "rule", "arity", "dtype"), _batches(LOWER_DTYPES))
def test_the_simulator_interprets_every_op_the_builtins_lower_to(model: str, rule: str, arity: int, dtype: str) -> None:
    """Every op (and libdevice function) in the `gpu`-level IR of every builtin, at every element type
    its rule takes, is one the simulator runs — or the record's `simulator` field names the gap."""
    from warpforge import simulator
    from warpforge.simulator.math import LIBDEVICE

    records = _groups(model)[(rule, arity)]
    supported = set(simulator.supported_ops()) | STRUCTURE
    missing = set()
    for name in _gpu_level_ops(model, rule, arity, dtype, records):
        if name.startswith("call @__nv_"):
            base = name.removeprefix("call @__nv_").removeprefix("fast_")
            if base not in LIBDEVICE and base.removesuffix("f") not in LIBDEVICE:
                missing.add(name)
        elif name not in supported:
            missing.add(name)
    excused = {b.name: b.simulator for b in records if b.simulator}
    assert not missing or excused, f"the simulator does not interpret {sorted(missing)} ({model}, {rule}, {dtype}): implement them or name the gap in the record's `simulator`"


PTX_DTYPES = {"float": ("f16", "f32", "f64"), "round": ("bf16", "f64"), "int": ("i8", "i32", "u64")}


@pytest.mark.parametrize(("model", "rule", "arity", "dtype"), _batches(PTX_DTYPES))
def test_every_builtin_assembles_with_ptxas(model: str, rule: str, arity: int, dtype: str) -> None:
    """The PTX of every builtin (the batch kernels) assembles for sm_90, and no intrinsic or libdevice
    function is left as an `.extern .func` call."""
    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    if find_ptxas() is None:
        pytest.skip("needs ptxas")
    records = _groups(model)[(rule, arity)]
    kernel, args = _specialized(model, rule, arity, dtype, records)
    ptx = kernel.compile(*args, chip="sm_90").ptx if model == "simt" else kernel.compile(*args, chip="sm_90").kernel.ptx
    assert ".extern .func" not in ptx
    run_ptxas(ptx, "sm_90", verbose=False)


# --------------------------------------------------------------------------- what the records derive


def test_every_record_gives_its_stubs_with_docstrings_and_its_ops() -> None:
    from warpforge.dialects import get_all_dialects
    from warpforge.dialects.math_catalog import KERNEL_OPS
    from warpforge.dialects.tile import BUILTIN_OPS

    kernel_ops = {op.name for op in get_all_dialects()["kernel"]().operations}
    tile_ops = {op.name: op for op in get_all_dialects()["tile"]().operations}
    assert {op.name for op in KERNEL_OPS} <= kernel_ops
    for b in BUILTINS:
        assert isinstance(b.op, type) and b.op.name in kernel_ops | {op.name for op in get_all_dialects()["math"]().operations}
        for name in b.simt:
            stub = getattr(simt, name)
            assert name in simt.kernel_functions() and name in simt.__all__ and name in dir(simt)
            assert stub.__doc__.startswith(f"`simt.{name}(") and b.doc in stub.__doc__
            with pytest.raises(wf.UsageError, match=f"simt.{name}.. can only be used inside"):
                stub(1)
        for name in b.tile:
            stub = getattr(tile, name)
            assert name in tile.kernel_functions() and name in tile.__all__
            assert stub.__doc__.startswith(f"`tile.{name}(") and b.doc in stub.__doc__
        if b.tile:
            op = BUILTIN_OPS[b]
            assert tile_ops[b.tile_op_name] is op and op.SCALAR is b.op and op.BUILTIN is b
        for spelling in b.python_names():
            assert BY_PYTHON_NAME[spelling] is b
    assert len({n for b in BUILTINS for n in b.python_names()}) == sum(len(b.python_names()) for b in BUILTINS), "a name in two records"
    assert not hasattr(simt, "no_such_builtin")


def test_every_tile_form_prints_and_parses() -> None:
    """Each generated tile op round-trips through `warpforge-opt`'s parser and printer."""
    from warpforge.context import parse_module

    for b in TILE_FORMS:
        t = "!tile.tile<16xf32>" if b.rule != "int" else "!tile.tile<16xsi32>"
        args = ", ".join(f"%x{k}" for k in range(b.arity))
        text = f"func.func @f({', '.join(f'%x{k}: {t}' for k in range(b.arity))}) -> {t} {{\n  %r = {b.tile_op_name} {args} : {t}\n  func.return %r : {t}\n}}\n"
        module = parse_module(text)
        assert f"{b.tile_op_name} %" in str(module)
        wrong = "!tile.tile<16xsi32>" if b.rule != "int" else "!tile.tile<16xf32>"
        with pytest.raises(Exception, match=f"'{b.tile_op_name}' op is not defined on (integer|float) tiles"):
            parse_module(text.replace(t, wrong))


# --------------------------------------------------------------------------- cdiv, popc, clz: the edges


@simt.kernel
def cdiv_i32(a: simt.Slice[wf.i32], b: simt.Slice[wf.i32], out: simt.DisjointSlice[wf.i32]):
    idx = simt.index_1d()
    i = idx.get()
    out[idx] = simt.cdiv(a[i], b[i])


@simt.kernel
def cdiv_u64(a: simt.Slice[wf.u64], b: simt.Slice[wf.u64], out: simt.DisjointSlice[wf.u64]):
    idx = simt.index_1d()
    i = idx.get()
    out[idx] = simt.cdiv(a[i], b[i])


@simt.kernel(checks=False)
def cdiv_unchecked(a: simt.Slice[wf.i64], b: simt.Slice[wf.i64], out: simt.DisjointSlice[wf.i64]):
    idx = simt.index_1d()
    i = idx.get()
    out[idx] = simt.cdiv(a[i], b[i])


def _py_cdiv(a: int, b: int, bits: int, signed: bool) -> int:
    """Python's exact ⌈a / b⌉, wrapped to the width (only INT_MIN / -1 wraps)."""
    r = -(-a // b) % 2**bits
    return r - 2**bits if signed and r >= 2 ** (bits - 1) else r


def test_cdiv_is_exact_at_the_extremes(backend: Backend) -> None:
    lo, hi = -(2**31), 2**31 - 1
    pairs = [(lo, -1), (lo, 1), (lo, 2), (lo, -2), (lo, 3), (hi, 2), (hi, -2), (hi, hi), (lo, lo), (hi, lo), (lo, hi), (-1, lo),
             (7, 2), (-7, 2), (7, -2), (-7, -2), (6, 3), (-6, 3), (0, 5), (0, -5), (1, hi), (-1, hi), (hi - 1, hi)]  # fmt: skip
    rng = np.random.default_rng(4242)
    extra = rng.integers(lo, hi, (128 - len(pairs), 2), endpoint=True)
    extra[:, 1] = np.where(extra[:, 1] == 0, 3, extra[:, 1])
    a = np.array([p[0] for p in pairs] + list(extra[:, 0]), np.int32)
    b = np.array([p[1] for p in pairs] + list(extra[:, 1]), np.int32)
    (got,) = backend.run(cdiv_i32, 1, 128, a, b, poisoned(128, np.int32))[2:]
    np.testing.assert_array_equal(got, [_py_cdiv(int(x), int(y), 32, True) for x, y in zip(a, b)])


def test_cdiv_of_unsigned_64_bit_values_never_overflows(backend: Backend) -> None:
    top = 2**64 - 1
    pairs = [(top, 1), (top, 2), (top, top), (top - 1, top), (top, 2**63), (2**63 + 1, 2**63), (1, top), (0, top), (5, 3)]
    rng = np.random.default_rng(777)
    a = np.array([p[0] for p in pairs] + list(rng.integers(0, 2**64, 64 - len(pairs), dtype=np.uint64)), np.uint64)
    b = np.array([p[1] for p in pairs] + list(rng.integers(1, 2**40, 64 - len(pairs), dtype=np.uint64)), np.uint64)
    (got,) = backend.run(cdiv_u64, 1, 64, a, b, poisoned(64, np.uint64))[2:]
    np.testing.assert_array_equal(got, np.array([_py_cdiv(int(x), int(y), 64, False) for x, y in zip(a, b)], np.uint64))


def test_cdiv_by_zero_is_a_kernel_error_and_gives_zero_unchecked(backend: Backend) -> None:
    rng = np.random.default_rng(99)
    a = rng.integers(-100, 100, 64).astype(np.int32)
    b = rng.integers(1, 9, 64).astype(np.int32)
    b[17] = 0
    with pytest.raises(wf.KernelError, match="division by zero") as info:
        backend.run(cdiv_i32, 1, 64, a, b, poisoned(64, np.int32))
    assert "simt.cdiv(a[i], b[i])" in str(info.value)
    (got,) = backend.run(cdiv_unchecked, 1, 64, a.astype(np.int64), b.astype(np.int64), poisoned(64, np.int64))[2:]
    want = np.array([0 if y == 0 else _py_cdiv(int(x), int(y), 64, True) for x, y in zip(a, b)], np.int64)
    np.testing.assert_array_equal(got, want)


@tile.kernel
def tile_cdiv(z: tile.Tensor[wf.i32, ("B",)], n: tile.Tensor[wf.i32, ("B",)], a: tile.Tensor[wf.i32, (-1,)], b: tile.Tensor[wf.i32, (-1,)], size: wf.i32):
    x = tile.load_tile_like(a, z)
    z.store(tile.cdiv(x, tile.load_tile_like(b, z, padding=1)) + tile.cdiv(x, 3))  # tile / tile and tile / scalar
    n.store(tile.full((128,), tile.cdiv(size, 128), wf.i32) + tile.cdiv(1000, 7))  # scalars: scalar results


def test_tile_cdiv_broadcasts_and_takes_scalars(backend: Backend) -> None:
    rng = np.random.default_rng(5150)
    a = rng.integers(-(2**31), 2**31, 256, dtype=np.int64).astype(np.int32)
    b = rng.integers(-50, 50, 256).astype(np.int32)
    b = np.where(b == 0, -3, b)
    stream = backend.device.create_stream()
    res = tile_cdiv(wf.full((256,), 7, wf.i32).partition((128,)), wf.full((256,), 7, wf.i32).partition((128,)), wf.from_host(a), wf.from_host(b), 1000)
    z, n = (r.unpartition().to_host().sync_on(stream) for r in (res[0], res[1]))
    want = np.array([(_py_cdiv(int(x), int(y), 32, True) + _py_cdiv(int(x), 3, 32, True) + 2**31) % 2**32 - 2**31 for x, y in zip(a, b)], np.int32)
    np.testing.assert_array_equal(z, want)
    np.testing.assert_array_equal(n, np.full(256, 8 + 143, np.int32))


@simt.kernel
def bits(a: simt.Slice[wf.i32], b: simt.Slice[wf.u64], o1: simt.DisjointSlice[wf.i32], o2: simt.DisjointSlice[wf.i32], o3: simt.DisjointSlice[wf.u64], o4: simt.DisjointSlice[wf.u64]):
    idx = simt.index_1d()
    i = idx.get()
    o1[idx] = simt.popc(a[i])
    o2[idx] = simt.clz(a[i]) * 100 + simt.ctz(a[i])
    o3[idx] = simt.popc(b[i])
    o4[idx] = simt.clz(b[i]) * 100 + simt.ctz(b[i])


def _ctz(v: int, bits: int) -> int:
    return bits if v == 0 else (v & -v).bit_length() - 1


def test_popc_clz_and_ctz_count_two_complement_bits(backend: Backend) -> None:
    rng = np.random.default_rng(31337)
    a = np.concatenate([np.array([0, -1, 1, -(2**31), 2**31 - 1, 2**16], np.int32), rng.integers(-(2**31), 2**31, 58, dtype=np.int64).astype(np.int32)])
    b = np.concatenate([np.array([0, 2**64 - 1, 1, 2**63, 2**32, 2**63 - 1], np.uint64), rng.integers(0, 2**64, 58, dtype=np.uint64)])
    o1, o2, o3, o4 = backend.run(bits, 1, 64, a, b, *(poisoned(64, t) for t in (np.int32, np.int32, np.uint64, np.uint64)))[2:]
    np.testing.assert_array_equal(o1, [bin(int(x) % 2**32).count("1") for x in a])
    np.testing.assert_array_equal(o2, [(32 - (int(x) % 2**32).bit_length()) * 100 + _ctz(int(x) % 2**32, 32) for x in a])
    np.testing.assert_array_equal(o3, np.array([bin(int(x)).count("1") for x in b], np.uint64))
    np.testing.assert_array_equal(o4, np.array([(64 - int(x).bit_length()) * 100 + _ctz(int(x), 64) for x in b], np.uint64))



@simt.kernel
def simt_rint(a: simt.Slice[wf.f32], o: simt.DisjointSlice[wf.i64]):
    idx = simt.index_1d()
    o[idx] = simt.rint(a[idx.get()])


@tile.kernel
def tile_rint(z: tile.Tensor[wf.f32, ("B",)], a: tile.Tensor[wf.f32, (-1,)]):
    z.store(tile.rint(tile.load_tile_like(a, z)) + tile.rint(2.5))  # a constant folds (Python's round: 2)


def test_rint_rounds_halves_to_even(backend: Backend) -> None:
    """`simt.rint` is Python's `round(x)` (an int), `tile.rint` is `numpy.rint` (floats stay floats);
    both round .5 to the even neighbour (PTX `cvt.rni`), which the generic batch's random inputs hardly
    ever hit."""
    rng = np.random.default_rng(2718)
    halves = np.arange(-8, 8) + 0.5
    a = np.concatenate([halves, -halves, rng.uniform(-1e6, 1e6, 96)]).astype(np.float32)
    (got,) = backend.run(simt_rint, 1, 128, a, poisoned(128, np.int64))[1:]
    np.testing.assert_array_equal(got, [round(float(x)) for x in a])
    stream = backend.device.create_stream()
    z = tile_rint(wf.full((128,), np.nan, wf.f32).partition((128,)), wf.from_host(a)).first().unpartition().to_host().sync_on(stream)
    np.testing.assert_array_equal(z, np.rint(a) + np.float32(2.0))


# --------------------------------------------------------------------------- compile-time rules and diagnostics


def _compile_error(body: str, annotation: str = "simt.Slice[wf.f32]") -> str:
    source = f"import math\nimport warpforge as wf\nfrom warpforge import simt\n\n@simt.kernel\ndef k(a: {annotation}, out: simt.DisjointSlice[wf.i64]):\n    idx = simt.index_1d()\n    x = a[idx.get()]\n    out[idx] = {body}\n"
    path = _DIR / f"error_{abs(hash(body))}.py"
    module = _import(path, source)
    with pytest.raises(wf.CompileError) as info:
        module.k.ir("kernel")
    assert f"{path}:9:" in str(info.value), str(info.value)  # located at the call's line
    return str(info.value)


@pytest.mark.parametrize(
    ("body", "annotation", "message"),
    [
        ("simt.cdiv(x, 2)", "simt.Slice[wf.f32]", r"simt.cdiv\(\) needs integers, got f32"),
        ("simt.popc(x)", "simt.Slice[wf.f64]", r"simt.popc\(\) needs integers, got f64"),
        ("simt.clz(x > 0)", "simt.Slice[wf.i32]", r"simt.clz\(\) needs integers, got bool \(convert with int\(\) first\)"),
        ("simt.cdiv(7, 0)", "simt.Slice[wf.i32]", "division by zero in the constant expression 'simt.cdiv.7, 0.'"),
        ("simt.cdiv(x)", "simt.Slice[wf.i32]", r"simt.cdiv\(\) takes 2 argument\(s\), got 1"),
        ("simt.cdiv(x, 2.5)", "simt.Slice[wf.i32]", r"simt.cdiv\(\) needs integers, got f64"),
        ("math.sqrt(x, x)", "simt.Slice[wf.f32]", r"math.sqrt\(\) takes 1 argument\(s\), got 2"),
    ],
)
def test_builtin_misuse_is_a_located_compile_error(body: str, annotation: str, message: str) -> None:
    import re

    assert re.search(message, _compile_error(body, annotation))


def test_constant_arguments_fold_to_compile_time_constants() -> None:
    """`simt.cdiv(N, 128)` of constants is a constant (usable where one is needed, e.g. a shape)."""
    total = 1000

    @simt.kernel
    def folded(out: simt.DisjointSlice[wf.i64]):
        idx = simt.index_1d()
        s = simt.shared_array((simt.cdiv(total, 128),), wf.i64)  # a shape: must be a compile-time int
        s[0] = simt.cdiv(-7, 2) + math.floor(2.5) + len(s)
        out[idx] = s[0]

    text = folded.ir("kernel")
    assert "!kernel.shared<8xsi64>" in text and "kernel.ceildiv" not in text
    got = Backend("simulator").run(folded, 1, 32, poisoned(32, np.int64))[0]
    np.testing.assert_array_equal(got, np.full(32, -3 + 2 + 8))
