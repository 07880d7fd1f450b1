"""IR mutants: the lit suite's `.mlir` inputs and the examples' `kernel`/`gpu` IR, mutated and run
through `warpforge-opt` in-process (one worker per case, see runner.py)."""

from __future__ import annotations

import io
import os
import random
import re
import shlex
import subprocess
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

from . import REPO


@dataclass(frozen=True)
class Seed:
    """One input: its text, where it came from, and the `warpforge-opt` arguments to run it with."""

    origin: str
    text: str
    args: tuple[str, ...]


@dataclass(frozen=True)
class Mutant:
    origin: str
    mutations: tuple[str, ...]
    text: str
    args: tuple[str, ...]


_KEEP_FLAGS = ("-p", "--passes", "-t", "--target")


def _run_args(run_line: str) -> tuple[str, ...]:
    """The `-p`/`-t` arguments of the first `warpforge-opt` command of a RUN line."""
    command = run_line.split("|", 1)[0]
    try:
        words = shlex.split(command)
    except ValueError:
        return ()
    if "warpforge-opt" not in words:
        return ()
    words = words[words.index("warpforge-opt") + 1 :]
    out: list[str] = []
    for i, w in enumerate(words):
        if w in _KEEP_FLAGS and i + 1 < len(words):
            out += [w, words[i + 1]]
    return tuple(out)


def lit_seeds() -> list[Seed]:
    """Every case of every `.mlir` file under filecheck/, with its RUN line's pass pipeline."""
    seeds: list[Seed] = []
    for path in sorted((REPO / "filecheck").rglob("*.mlir")):
        text = path.read_text()
        runs = [line.split("RUN:", 1)[1] for line in text.splitlines() if "RUN:" in line]
        args = next((a for a in map(_run_args, runs) if a), ())
        rel = str(path.relative_to(REPO))
        for k, chunk in enumerate(re.split(r"^// -----\s*$", text, flags=re.M)):
            body = "\n".join(line for line in chunk.splitlines() if not line.lstrip().startswith("//"))
            if body.strip():
                seeds.append(Seed(f"{rel}#{k}", body + "\n", args))
    return seeds


def example_seeds() -> list[Seed]:
    """The `kernel` and `gpu` IR of every kernel in examples/ (tile kernels at their ahead-of-time shapes)."""
    from warpforge.driver.cli import _kernels, _load_file  # pyright: ignore[reportPrivateUsage]
    from warpforge.simt import SimtKernel

    seeds: list[Seed] = []
    for path in sorted((REPO / "examples").glob("*.py")):
        try:
            kernels = _kernels(_load_file(str(path)))
        except BaseException:  # noqa: BLE001 - an example that does not import is not ours to fuzz here
            continue
        for name, k in sorted(kernels.items()):
            simt_kernel = isinstance(k, SimtKernel)
            for stage, args in (("kernel", ("-p", "simt-to-llvm" if simt_kernel else "tile-to-llvm")), ("gpu", ("-p", "gpu-to-llvm"))):
                try:
                    text = k.ir(stage)
                except BaseException:  # noqa: BLE001 - generic kernels need arguments: skipped
                    continue
                if len(text) <= MAX_SEED_CHARS:
                    seeds.append(Seed(f"examples/{path.name}:{name}:{stage}", text, args))
    return seeds


MAX_SEED_CHARS = 40_000
"""Larger IR (sgemm's unrolled kernel: 100–350 kB) takes tens of seconds per run unmutated: left out,
so that a timeout means a hang."""


# --------------------------------------------------------------------------- mutations

_BOUNDARY = [0, 1, -1, 2, 3, 7, 8, 31, 32, 33, 63, 64, 127, 128, 255, 256, 1023, 1024, 1025, 65535, 65536,
             2**31 - 1, 2**31, -(2**31), -(2**31) - 1, 2**32, 2**63 - 1, 2**63, -(2**63), 2**64, 10**30, 1 << 40]  # fmt: skip
_TYPES = ["i1", "i8", "i16", "i32", "i64", "i128", "index", "f16", "bf16", "f32", "f64", "si8", "si32", "si64", "ui8", "ui32", "ui64"]
_STRINGS = ["", "sm_10", "sm_90a", "sm_100f", "+ptx70", "+ptx99", "bogus", "x" * 40, "\\n", "device", "block", "seq_cst"]
_PUNCT = list("{}()<>[],:=%\"@^#!?*-+")
_INT = re.compile(r"(?<![%\w#^@.])-?\d+(?![\w.])")
_SSA = re.compile(r"%[\w.$-]+")
_OPNAME = re.compile(r"\b[a-z_]+\.[a-z_][\w.]*\b")
_TYPE = re.compile(r"\b(?:i1|i8|i16|i32|i64|i128|index|f16|bf16|f32|f64|si\d+|ui\d+)\b")
_STRING = re.compile(r'"[^"\n]*"')


def _sub_one(rng: random.Random, pattern: re.Pattern[str], text: str, make) -> tuple[str, str] | None:  # noqa: ANN001
    matches = list(pattern.finditer(text))
    if not matches:
        return None
    m = rng.choice(matches)
    new = make(m.group(0))
    return text[: m.start()] + new + text[m.end() :], f"{m.group(0)!r}->{new!r}@{m.start()}"


def mutate(rng: random.Random, text: str, op_names: list[str]) -> tuple[str, str]:
    """One random mutation of `text`; returns the new text and a short description."""
    lines = text.splitlines()
    for _ in range(8):
        kind = rng.choice(["int", "int", "ssa", "ssa", "type", "type", "delete", "duplicate", "swap", "opname", "punct", "string", "truncate", "drop-loc"])
        out: tuple[str, str] | None = None
        if kind == "int":
            out = _sub_one(rng, _INT, text, lambda _: str(rng.choice(_BOUNDARY)))
        elif kind == "ssa":
            names = sorted(set(_SSA.findall(text)))
            if len(names) > 1:
                out = _sub_one(rng, _SSA, text, lambda old: rng.choice([n for n in names if n != old]))
        elif kind == "type":
            out = _sub_one(rng, _TYPE, text, lambda old: rng.choice([t for t in _TYPES if t != old]))
        elif kind == "opname" and op_names:
            out = _sub_one(rng, _OPNAME, text, lambda old: rng.choice(op_names))
        elif kind == "string":
            out = _sub_one(rng, _STRING, text, lambda _: '"' + rng.choice(_STRINGS) + '"')
        elif kind == "drop-loc":
            out = _sub_one(rng, re.compile(r"loc\([^)]*\)"), text, lambda _: "")
        elif kind in ("delete", "duplicate", "swap") and len(lines) > 2:
            i = rng.randrange(len(lines))
            new = list(lines)
            if kind == "delete":
                del new[i]
            elif kind == "duplicate":
                new.insert(i, lines[i])
            else:
                j = min(len(lines) - 1, i + 1)
                new[i], new[j] = new[j], new[i]
            out = "\n".join(new) + "\n", f"{kind} line {i + 1}"
        elif kind == "punct" and text:
            i = rng.randrange(len(text))
            c = rng.choice(_PUNCT)
            out = (text[:i] + c + text[i + 1 :] if rng.random() < 0.5 else text[:i] + c + text[i:]), f"punct {c!r}@{i}"
        elif kind == "truncate" and len(text) > 10:
            i = rng.randrange(len(text) // 2, len(text))
            out = text[:i], f"truncate@{i}"
        if out is not None:
            return out[0], f"{kind}:{out[1]}"
    return text, "none"


def mutants(seeds: list[Seed], count: int, seed: int, ptx_share: float = 0.15) -> list[Mutant]:
    """`count` mutants of `seeds` (round-robin over a shuffled order), 1–3 mutations each; a share
    also runs `-t ptx` (when the seed's pipeline reaches the `llvm` dialect)."""
    rng = random.Random(seed)
    op_names = sorted({m for s in seeds for m in _OPNAME.findall(s.text) if m.split(".")[0] in ("arith", "gpu", "kernel", "tile", "memref", "scf", "cf", "llvm", "nvvm", "math", "func", "vector")})
    order = list(seeds)
    rng.shuffle(order)
    out: list[Mutant] = []
    for k in range(count):
        s = order[k % len(order)]
        text, done = s.text, []
        for _ in range(rng.choice([1, 1, 1, 2, 3])):
            text, what = mutate(rng, text, op_names)
            done.append(what)
        args = s.args
        lowers = any(p in " ".join(args) for p in ("to-llvm", "simt-to-llvm", "tile-to-llvm")) or "llvm.func" in s.text
        if lowers and "-t" not in args and rng.random() < ptx_share:
            args = (*args, "-t", "ptx")
        out.append(Mutant(s.origin, tuple(done), text, args))
    return out


# --------------------------------------------------------------------------- running one

_LOCATED = re.compile(r"(?:^|\s|\()(?:[^\s:]+:)?\d+:\d+")
_TMP = Path(tempfile.gettempdir())


def classify(code: int, stderr: str) -> str:
    """`ok`, `located`, `unlocated`, `internal` or `traceback` for a finished `warpforge-opt` run."""
    if "Traceback (most recent call last)" in stderr:
        return "traceback"
    if "internal error" in stderr:
        return "internal"
    if "a bug in the verifier" in stderr:  # a verifier crashed (xDSL's llvm casts, memref.load/store): reported, located
        return "verifier-crash"
    if code == 0:
        return "ok"
    first = next((line for line in stderr.splitlines() if line.strip()), "")
    return "located" if _LOCATED.search(first) else "unlocated"


def run_opt(text: str, args: tuple[str, ...]) -> tuple[int, str, str]:
    """`warpforge-opt FILE ARGS` in this process: (exit status, stdout, stderr). A non-SystemExit
    exception escaping it is re-raised (the caller classifies it as a traceback)."""
    from warpforge.driver.opt import main

    path = _TMP / f"wf-fuzz-{os.getpid()}.mlir"
    path.write_text(text)
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with redirect_stdout(out), redirect_stderr(err):
        try:
            main([str(path), *args])
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    return code, out.getvalue(), err.getvalue()


def handle(m: Mutant) -> tuple[str, str]:
    """Classify one mutant (runs in a worker). PTX printed with exit 0 goes through ptxas."""
    try:
        code, out, err = run_opt(m.text, m.args)
    except BaseException as e:  # noqa: BLE001
        return "traceback", f"{type(e).__name__}: {e}"[:300]
    klass = classify(code, err)
    if klass == "ok" and "-t" in m.args and m.args[m.args.index("-t") + 1].startswith("ptx") and ".entry" in out:
        from warpforge.backend.toolkit import find_ptxas

        ptxas = find_ptxas()
        if ptxas is not None:
            path = _TMP / f"wf-fuzz-{os.getpid()}.ptx"
            path.write_text(out)
            arch = re.search(r"^\.target (sm_\w+)", out, re.M)
            r = subprocess.run([ptxas, f"-arch={arch.group(1) if arch else 'sm_90'}", "-o", os.devnull, str(path)], capture_output=True, text=True)
            if r.returncode != 0:
                return "ptxas", r.stderr.strip()[:300]
    return klass, err.strip()[:300]
