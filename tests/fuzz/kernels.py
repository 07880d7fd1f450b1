"""Generated SIMT kernels, run on the CPU simulator and compared with a NumPy reference.

Expressions follow arith_kernels.py (mixed dtypes, NEP 50 literals, `//` `%` shifts, bit ops,
comparisons, conversions, `min`/`max`, `-`, `abs`), driven by a seeded `random.Random` instead of
hypothesis, in one of four shapes: `r = e`; a branch whose arms convert to one dtype; a
transcendental function (or `math.hypot`) last; a warp shuffle of `e` (up/down/xor with a constant
offset and width, or down with `with_valid=True`)."""

from __future__ import annotations

import importlib.util
import math
import random
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from . import TESTS  # noqa: F401 - puts tests/ on sys.path

import arith_kernels as ak  # noqa: E402

N = 256  # 4 blocks of 64 threads, every thread in range (shuffles need every lane)
_DIR = Path(tempfile.mkdtemp(prefix="wf-fuzz-kernels-"))


@dataclass(frozen=True)
class KernelCase:
    seed: int
    ptxas: bool = False


def _expr(rng: random.Random, leaves: list[tuple[str, Any]], depth: int) -> tuple[str, Any]:
    if depth == 0 or rng.randrange(4) == 0:
        if rng.randrange(6) == 0:
            lit = rng.randint(1, 7)
            return str(lit), lit
        return rng.choice(leaves)
    kind = rng.choice(["arith", "arith", "bits", "compare", "minmax", "convert", "neg", "abs"])
    src_a, a = _expr(rng, leaves, depth - 1)
    if isinstance(a, int) and kind in ("neg", "convert", "abs"):
        return src_a, a
    with np.errstate(all="ignore"):
        if kind == "neg":
            return f"(-{src_a})", np.negative(a)
        if kind == "abs":
            return f"abs({src_a})", np.abs(a)
        if kind == "convert":
            target = rng.choice(list(ak.DTYPES))
            return f"wf.{ak.WF_NAME[target]}({src_a})", ak.ref_convert(a, ak.DTYPES[target])
        src_b, b = _expr(rng, leaves, depth - 1)
        if isinstance(a, int) and isinstance(b, int):
            return src_a, a
        da = b.dtype if isinstance(a, int) else a.dtype
        db = a.dtype if isinstance(b, int) else b.dtype
        if ak._mixes_u64_and_signed(da, db):  # pyright: ignore[reportPrivateUsage]
            return src_a, a
        if kind == "arith":
            op = rng.choice(list(ak.ARITH))
            return f"({src_a} {op} {src_b})", ak.ARITH[op](a, b)
        if kind == "bits":
            if da.kind == "f" or db.kind == "f":
                return src_a, a
            op = rng.choice(list(ak.BITS))
            return f"({src_a} {op} {src_b})", ak.BITS[op](a, b)
        if kind == "compare":
            op = rng.choice(list(ak.COMPARE))
            return f"wf.i32({src_a} {op} {src_b})", ak.COMPARE[op](a, b).astype(np.int32)
        which = rng.choice(["max", "min"])
        return f"{which}({src_a}, {src_b})", (ak.ref_max if which == "max" else ak.ref_min)(a, b)


def _shuffled(ref: np.ndarray, mode: str, k: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    lane = np.arange(ref.size) % 32
    base = np.arange(ref.size) - lane
    src = {"down": lane + k, "up": lane - k, "xor": lane ^ k}[mode]
    ok = (src >= 0) & (src < 32) & (src // width == lane // width) & (k < 32)
    return np.where(ok, ref[np.clip(base + src, 0, ref.size - 1)], ref), ok


def generate(seed: int) -> tuple[str, list[np.ndarray], list[np.ndarray], dict[str, int]] | None:
    """(kernel source, inputs, reference outputs, ulp tolerance per output) for `seed`; None when the
    expression is only literals."""
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    dts = [ak.DTYPES[rng.choice(list(ak.DTYPES))] for _ in range(rng.randint(1, 3))]
    arrays = [ak.inputs(dt, N, nrng) for dt in dts]
    leaves = [(f"v{k}", a) for k, a in enumerate(arrays)]
    expr, ref = _expr(rng, leaves, 3)
    if isinstance(ref, int):
        return None
    shape = rng.choice(["plain", "plain", "branch", "math", "shuffle"])
    outs: list[tuple[str, np.ndarray, int]] = []  # (name, reference, ulps)
    body: list[str] = []
    ulps = 0
    if shape == "math" and ref.dtype.kind == "f":
        name = rng.choice(sorted(ak.TRANSCENDENTAL) + ["hypot"])
        with np.errstate(all="ignore"):
            if name == "hypot":
                src_b, b = _expr(rng, leaves, 1)
                t = ak.WF_NAME[ref.dtype.name]
                b = ak.ref_convert(np.full(N, b, np.int64) if isinstance(b, int) else np.asarray(b), ref.dtype)
                expr, ref, ulps = f"math.hypot({expr}, wf.{t}({src_b}))", np.hypot(ref, b), 2
            else:
                expr, ref, ulps = f"math.{name}({expr})", ak.TRANSCENDENTAL[name](ref), ak.MATH_ULPS[name]
        body.append(f"r = {expr}")
    elif shape == "branch":
        src_b, b = _expr(rng, leaves, 2)
        target = rng.choice(list(ak.DTYPES))
        cond_l, cond_r = rng.choice(leaves)[0], rng.choice(leaves)[0]
        cl = arrays[int(cond_l[1:])]
        cr = arrays[int(cond_r[1:])]
        if ak._mixes_u64_and_signed(cl.dtype, cr.dtype):  # pyright: ignore[reportPrivateUsage]
            cond_r, cr = cond_l, cl
        with np.errstate(all="ignore"):
            cond = np.less(cl, cr)
            rb = np.full(N, b, np.int64) if isinstance(b, int) else np.asarray(b)
            ref = np.where(cond, ak.ref_convert(np.asarray(ref), ak.DTYPES[target]), ak.ref_convert(rb, ak.DTYPES[target]))
        t = ak.WF_NAME[target]
        body += [f"if {cond_l} < {cond_r}:", f"    r = wf.{t}({expr})", "else:", f"    r = wf.{t}({src_b})"]
    elif shape == "shuffle":
        mode = rng.choice(["down", "up", "xor"])
        width = rng.choice([1, 2, 4, 8, 16, 32])
        k = rng.choice([0, 1, 2, 3, 5, 8, 16, 31, 32, 36, 100])
        if mode == "xor":
            k = rng.randrange(width)  # a lane of the segment (xor past the segment is CUDA's other rule)
        got, ok = _shuffled(ref, mode, k, width)
        body.append(f"e = {expr}")
        if mode == "down" and rng.random() < 0.5:
            body += [f"r, ok = simt.shfl_down(e, {k}, width={width}, with_valid=True)", "valid[idx] = wf.i32(ok)"]
            outs.append(("valid", ok.astype(np.int32), 0))
        else:
            body.append(f"r = simt.shfl_{mode}(e, {k}, width={width})")
        ref = got
    else:
        body.append(f"r = {expr}")
    outs.insert(0, ("out", np.asarray(ref), ulps))
    params = [f"x{k}: simt.Slice[wf.{ak.WF_NAME[dt.name]}]" for k, dt in enumerate(dts)]
    params += [f"{name}: simt.DisjointSlice[wf.{ak.WF_NAME[r.dtype.name]}]" for name, r, _ in outs]
    loads = [f"v{k} = x{k}[i]" for k in range(len(dts))]
    lines = ["idx = simt.index_1d()", "i = idx.get()", *loads, *body, "out[idx] = r"]
    source = (
        "import math\n\nimport warpforge as wf\nfrom warpforge import simt\n\n\n@simt.kernel(checks=False)\n"
        f"def fuzz_kernel({', '.join(params)}):\n" + "".join(f"    {line}\n" for line in lines)
    )
    return source, arrays, [r for _, r, _ in outs], {name: u for name, _, u in outs}


_KNOWN_REFUSALS = re.compile(r"u64|uint64|no exact common type|differs between branches")


def handle(case: KernelCase) -> tuple[str, str]:
    """Compile and simulate one generated kernel; `ok`, `wrong` (with the first differing element),
    `refused` (a `CompileError` warpforge documents), or the class of what went wrong."""
    import warpforge as wf

    from kernel_runner import Backend, poisoned

    made = generate(case.seed)
    if made is None:
        return "ok", "literals only"
    source, arrays, refs, ulps = made
    path = _DIR / f"fuzz_kernel_{case.seed}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    kernel = module.fuzz_kernel
    try:
        if case.ptxas:
            from warpforge.backend.toolkit import find_ptxas, run_ptxas

            if find_ptxas() is not None:
                try:
                    run_ptxas(kernel.compile("sm_90").ptx, "sm_90", verbose=False)
                except wf.WarpforgeError as e:
                    if not isinstance(e, wf.CompileError):
                        return "ptxas", f"{e}"[:300]
                    raise
        outs = Backend("simulator").run(kernel, N // 64, 64, *arrays, *(poisoned(N, r.dtype) for r in refs))[len(arrays) :]
    except wf.CompileError as e:
        if _KNOWN_REFUSALS.search(str(e)):
            return "refused", str(e).splitlines()[0][:200]
        return "traceback", f"unexpected CompileError: {e}\n{source}"[:600]
    except wf.WarpforgeError as e:
        return "traceback", f"{type(e).__name__}: {e}\n{source}"[:600]
    for (name, allowed), got, want in zip(ulps.items(), outs, refs):
        want = want.astype(got.dtype) if want.dtype != got.dtype else want
        same = ak.same_bits(got, want)
        if allowed and got.dtype.kind == "f":
            same = same | (ak.ulp_distance(got, want) <= allowed).astype(bool)
        if not same.all():
            k = int(np.flatnonzero(~same)[0])
            return "wrong", f"{name}[{k}]: got {got[k]!r}, NumPy {want[k]!r}; inputs {[a[k] for a in arrays]}\n{source}"[:800]
    return "ok", ""
