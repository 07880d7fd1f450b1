"""Random arithmetic kernels for differential tests (hypothesis): a strategy for expressions over
mixed dtypes — signed and unsigned integers, floats, `//`, `%`, shifts, bit operations, comparisons,
`min`/`max`, conversions, optionally one transcendental `math` function on top — with their NumPy
reference under DESIGN.md's policies, inputs rich in edge values, and the kernel that evaluates an
expression per element. Used by test_simulator.py (simulator vs NumPy, CPU) and
test_simulator_vs_gpu.py (simulator vs GPU, bit for bit)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import strategies as st

DTYPES = {name: np.dtype(name) for name in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64")}
WF_NAME = {"int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64", "float32": "f32", "float64": "f64", "bool": "bool_"}


def _mixes_u64_and_signed(a: np.dtype, b: np.dtype) -> bool:
    return (a == np.uint64 and b.kind == "i") or (b == np.uint64 and a.kind == "i")


def ref_convert(x: np.ndarray, dt: np.dtype) -> np.ndarray:
    """NumPy conversion with DESIGN.md's float → int policy: truncate, saturate, NaN → 0."""
    if x.dtype.kind == "f" and dt.kind in "iu":
        info = np.iinfo(dt)
        xf = x.astype(np.float64)
        out = np.where(np.isnan(xf), 0, np.trunc(np.clip(np.nan_to_num(xf), -1e300, 1e300)))
        res = np.empty(x.shape, dt)
        big, small = xf >= float(info.max) + 1, xf < float(info.min)
        mid = ~(big | small | np.isnan(xf))
        res[mid] = out[mid].astype(dt)
        res[big], res[small], res[np.isnan(xf)] = info.max, info.min, 0
        return res
    return x.astype(dt)


def ref_max(a, b) -> np.ndarray:
    r = np.maximum(a, b)
    if r.dtype.kind == "f":  # IEEE maximum: -0 < +0 (the GPU's max.NaN)
        a, b = np.asarray(a, r.dtype), np.asarray(b, r.dtype)
        r = np.where(a == b, np.where(np.signbit(a), b, a), r)
    return r


def ref_min(a, b) -> np.ndarray:
    r = np.minimum(a, b)
    if r.dtype.kind == "f":
        a, b = np.asarray(a, r.dtype), np.asarray(b, r.dtype)
        r = np.where(a == b, np.where(np.signbit(a), a, b), r)
    return r


ARITH = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.true_divide, "//": np.floor_divide, "%": np.remainder}
BITS = {"<<": np.left_shift, ">>": np.right_shift, "&": np.bitwise_and, "|": np.bitwise_or, "^": np.bitwise_xor}
COMPARE = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal, "==": np.equal, "!=": np.not_equal}


@st.composite
def expressions(draw, leaves: list[tuple[str, np.ndarray]], depth: int = 3) -> tuple[str, np.ndarray | int]:
    """(Python source, NumPy reference values) of a random expression over `leaves`; a bare Python
    literal's reference is the Python int itself, so NumPy treats it as weak (NEP 50), as warpforge does."""
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        if draw(st.integers(0, 5)) == 0:
            lit = draw(st.integers(1, 7))
            return str(lit), lit
        return draw(st.sampled_from(leaves))
    kind = draw(st.sampled_from(["arith", "arith", "bits", "compare", "minmax", "convert", "neg", "abs"]))
    src_a, a = draw(expressions(leaves, depth - 1))
    if isinstance(a, int) and kind in ("neg", "convert", "abs"):
        return src_a, a
    if kind == "neg":
        return f"(-{src_a})", np.negative(a)
    if kind == "abs":
        return f"abs({src_a})", np.abs(a)
    if kind == "convert":
        target = draw(st.sampled_from(list(DTYPES)))
        return f"wf.{WF_NAME[target]}({src_a})", ref_convert(a, DTYPES[target])
    src_b, b = draw(expressions(leaves, depth - 1))
    if isinstance(a, int) and isinstance(b, int):
        return src_a, a
    da = b.dtype if isinstance(a, int) else a.dtype  # pyright: ignore[reportAttributeAccessIssue]
    db = a.dtype if isinstance(b, int) else b.dtype  # pyright: ignore[reportAttributeAccessIssue]
    if _mixes_u64_and_signed(da, db):
        return src_a, a
    with np.errstate(all="ignore"):
        if kind == "arith":
            op = draw(st.sampled_from(list(ARITH)))
            return f"({src_a} {op} {src_b})", ARITH[op](a, b)
        if kind == "bits":
            if da.kind == "f" or db.kind == "f":
                return src_a, a
            op = draw(st.sampled_from(list(BITS)))
            return f"({src_a} {op} {src_b})", BITS[op](a, b)
        if kind == "compare":
            op = draw(st.sampled_from(list(COMPARE)))
            return f"wf.i32({src_a} {op} {src_b})", COMPARE[op](a, b).astype(np.int32)
        which = draw(st.sampled_from(["max", "min"]))
        return f"{which}({src_a}, {src_b})", (ref_max if which == "max" else ref_min)(a, b)


def inputs(dt: np.dtype, n: int, rng: np.random.Generator) -> np.ndarray:
    if dt.kind == "f":
        special = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.5, np.nan, np.inf, -np.inf, 1e30, -3e9, 7.0], dt)
        values = (rng.standard_normal(n) * rng.choice([1, 10, 1e3, 1e10], n)).astype(dt)
    else:
        info = np.iinfo(dt)
        special = np.array([0, 1, 2, 7, 31, 32, 64, int(info.max), int(info.min), int(info.max) - 1, -1 if dt.kind == "i" else 3, 100], dt)
        values = rng.integers(int(info.min), int(info.max), n, dtype=dt, endpoint=True)
        small = rng.integers(-9 if dt.kind == "i" else 0, 10, n).astype(dt)
        values = np.where(rng.random(n) < 0.5, small, values)
    pick = rng.random(n) < 0.3
    values[pick] = special[rng.integers(0, len(special), pick.sum())]
    return values


_KERNEL_COUNTER = [0]


def compile_expression_kernel(tmp_dir, names_dtypes: list[tuple[str, np.dtype]], expr: str, out_dtype: np.dtype):
    import importlib.util

    _KERNEL_COUNTER[0] += 1
    params = ", ".join(f"x{k}: simt.Slice[wf.{WF_NAME[dt.name]}]" for k, (_, dt) in enumerate(names_dtypes))
    loads = "\n".join(f"        {name} = x{k}[i]" for k, (name, _) in enumerate(names_dtypes))
    source = (
        "import math\n\nimport warpforge as wf\nfrom warpforge import simt\n\n\n"
        "@simt.kernel(checks=False)\n"
        f"def expr_kernel({params}, out: simt.DisjointSlice[wf.{WF_NAME[out_dtype.name]}]):\n"
        "    idx = simt.index_1d()\n    i = idx.get()\n    if i < len(out):\n"
        f"{loads}\n        r = {expr}\n        out[idx] = r\n"
    )
    path = tmp_dir / f"expr_kernel_{_KERNEL_COUNTER[0]}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.expr_kernel, source


TRANSCENDENTAL = {
    "sqrt": np.sqrt, "exp": np.exp, "exp2": np.exp2, "expm1": np.expm1, "log": np.log, "log2": np.log2,
    "log10": np.log10, "log1p": np.log1p, "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin,
    "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh,
    "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh, "cbrt": np.cbrt,
}
"""`math` functions a case may apply last (on a float result), with NumPy's version (an approximate
reference: libdevice and NumPy may differ in the last bits)."""

MATH_ULPS = dict.fromkeys(TRANSCENDENTAL, 5) | {"sqrt": 0}
"""How far (units in the last place) the simulator and the GPU may differ for each function: the
largest error CUDA documents for libdevice (4 ulp: tanf, acoshf; most are 1–2) plus one for the
simulator, which rounds the f64 result once. `sqrt` is IEEE-exact on both (`sqrt.rn`)."""


@dataclass
class Case:
    """One random kernel: `expr` over `v0…` (Python source), the input `arrays` (one per variable),
    the NumPy reference `ref` (its dtype is the output's) and the outermost math function, if any."""

    expr: str
    arrays: list[np.ndarray]
    ref: np.ndarray
    math_function: str | None = None

    @property
    def dtypes(self) -> list[np.dtype]:
        return [a.dtype for a in self.arrays]


def draw_case(data: Any, n: int, *, math_functions: bool = False) -> Case | None:
    """Draw a `Case` of `n` elements with hypothesis' `data` (`st.data()`); None when the expression
    is only literals (nothing to run per thread). With `math_functions`, a quarter of the float
    results go through one function of `TRANSCENDENTAL` last."""
    nvars = data.draw(st.integers(1, 3))
    dts = [DTYPES[data.draw(st.sampled_from(list(DTYPES)))] for _ in range(nvars)]
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    arrays = [inputs(dt, n, rng) for dt in dts]
    leaves = [(f"v{k}", arr) for k, arr in enumerate(arrays)]
    expr, ref = data.draw(expressions(leaves))
    if isinstance(ref, int):
        return None
    name = None
    if math_functions and ref.dtype.kind == "f" and data.draw(st.integers(0, 3)) == 0:
        name = data.draw(st.sampled_from(sorted(TRANSCENDENTAL)))
        with np.errstate(all="ignore"):
            ref = TRANSCENDENTAL[name](ref)
        expr = f"math.{name}({expr})"
    return Case(expr, arrays, ref, name)


def case_kernel(tmp_dir: Path, case: Case) -> tuple[Any, str]:
    """The `@simt.kernel(checks=False)` computing `out[i] = expr` for `case` (and its source)."""
    return compile_expression_kernel(tmp_dir, [(f"v{k}", dt) for k, dt in enumerate(case.dtypes)], case.expr, case.ref.dtype)


def same_bits(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per element: the same bits, or both NaN (any payload)."""
    if a.dtype.kind != "f":
        return a == b
    width = {2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize]
    return (a.view(width) == b.view(width)) | (np.isnan(a) & np.isnan(b))


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per element: how many representable floats lie between `a` and `b` (0 for the same value,
    +0 and -0 alike; 0 when both are NaN, a huge number when only one is). Python ints."""
    width = {4: np.int32, 8: np.int64}[a.dtype.itemsize]
    bits = a.dtype.itemsize * 8

    def ordered(x: np.ndarray) -> list[int]:
        return [v if v >= 0 else -(1 << (bits - 1)) - v for v in x.view(width).tolist()]

    out = np.array([abs(p - q) for p, q in zip(ordered(a), ordered(b))], dtype=object)
    nan_a, nan_b = np.isnan(a), np.isnan(b)
    out[nan_a & nan_b] = 0
    out[nan_a ^ nan_b] = 1 << bits
    return out
