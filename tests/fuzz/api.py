"""Host-API misuse: each public entry point called with arguments it must refuse. A case passes when
it raises a `WarpforgeError` subclass (class `refused`); another exception is a `traceback`, no
exception at all `accepted`. Cases run on the CPU simulator's device (`wf.Device.simulator()`).

Each case is one Python expression over the names `setup()` defines (`stream`, a SIMT kernel `k`,
its prepared launch `prep`, buffers `a`/`c`, a tile kernel `tk`, a lazy tensor `t`); `CASES` is
the product of each entry point with the invalid values it is given."""

from functools import cache
from typing import Any

import numpy as np

import warpforge as wf
from warpforge import simt, tile

# no `from __future__ import annotations`: the kernels below are annotated with live objects

_BAD_SCALARS = ["None", "-1", "2.5", "'x'", "[]", "True", "float('nan')", "2**64", "object()"]
_BAD_SHAPES = ["-1", "2.5", "'x'", "(2, -3)", "None", "(True,)", "[[1]]", "(1 << 70,)", "(2**40, 2**40)"]
_BAD_TENSOR_SHAPES = [*_BAD_SHAPES, "()", "(1, 2, 3, 4, 5)"]  # tile tensors are 1-D to 4-D
_BAD_DTYPES = ["'nope'", "None", "complex", "'complex64'", "object", "3", "'<U4'"]
_BAD_CHIPS = ["''", "'sm_'", "'sm_10'", "'gfx90a'", "'sm_90 '", "90", "None", "'sm_9999'"]
_BAD_STAGES = ["'bogus'", "''", "None", "3"]

CASES: list[str] = [
    *(f"wf.zeros({s}, wf.f32)" for s in _BAD_TENSOR_SHAPES),
    *(f"wf.zeros((4,), {d})" for d in _BAD_DTYPES),
    *(f"wf.ones({s})" for s in _BAD_TENSOR_SHAPES),
    *(f"wf.full({s}, 1.0)" for s in _BAD_TENSOR_SHAPES),
    *(f"wf.full((4,), 1.0, {d})" for d in _BAD_DTYPES if d != "None"),  # None: the value's dtype
    *(f"wf.empty({s})" for s in _BAD_TENSOR_SHAPES),
    *(f"wf.arange({n})" for n in ["-1", "2.5", "'x'", "None", "(4,)"]),
    *(f"wf.from_host({x})" for x in ["[[1, 2], [3]]", "'text'", "None", "object()", "[1 + 2j]", "a"]),
    *(f"wf.zeros((1024,), wf.f32).partition({p})" for p in ["2.5", "(3,)", "(0,)", "(-4,)", "(1 << 40,)", "(128, 1)", "None", "'x'", "(True,)"]),
    *(f"wf.DeviceBuffer.zeroed(stream, {s}, wf.f32)" for s in [*_BAD_SHAPES, "2**62", "(2**31, 2**31)"]),
    *(f"wf.DeviceBuffer.zeroed(stream, 4, {d})" for d in _BAD_DTYPES),
    *(f"wf.DeviceBuffer.empty(stream, {s}, wf.f32)" for s in ["-1", "2**62", "'x'"]),
    *(f"wf.DeviceBuffer.from_host(stream, {x})" for x in ["[[1, 2], [3]]", "'text'", "None", "[1 + 2j]", "a", "object()"]),
    *(f"wf.DeviceBuffer.zeroed({s}, 4, wf.f32)" for s in ["3", "'stream'", "object()"]),
    *(f"wf.runtime.LaunchConfig(grid={g}, block=32)" for g in _BAD_SCALARS + ["0", "(1, 2, 3, 4)", "(0, 1)"]),
    *(f"wf.runtime.LaunchConfig(grid=1, block={b})" for b in _BAD_SCALARS + ["0", "(1, 2, 3, 4)"]),
    *(f"wf.runtime.LaunchConfig(grid=1, block=32, shmem_size={s})" for s in _BAD_SCALARS),
    *(f"k.prepare({x}, device=stream.device)" for x in ["None", "(4, 256)", "'x'", "4"]),
    "k.prepare(wf.runtime.LaunchConfig(grid=1, block=2048), device=stream.device)",
    "k.prepare(wf.runtime.LaunchConfig(grid=2**31, block=32), device=stream.device)",
    "k.prepare(wf.runtime.LaunchConfig(grid=(1, 70000), block=32), device=stream.device)",
    "k.prepare(wf.runtime.LaunchConfig(grid=1, block=32, shmem_size=1 << 30), device=stream.device)",
    *(f"k.launch(stream, {p}, a, c)" for p in ["None", "'prep'", "3", "object()"]),
    *(f"k.launch({s}, prep, a, c)" for s in ["3", "'stream'", "object()"]),
    "k.launch(stream, prep, a)",
    "k.launch(stream, prep, a, c, c)",
    "k.launch(stream, prep, c, c)",
    "k.launch(stream, prep, a, a)",
    *(f"k.launch(stream, prep, {x}, c)" for x in ["None", "3", "[1.0, 2.0]", "np.zeros(4, np.float32)", "object()"]),
    *(f"k.launch(stream, prep, a, {x})" for x in ["None", "3", "np.zeros(4, np.float32)", "ai"]),
    *(f"k.compile({chip})" for chip in _BAD_CHIPS),
    *(f"k.ir({stage})" for stage in _BAD_STAGES),
    *(f"k.ir('ptx', chip={chip})" for chip in _BAD_CHIPS),
    "k.ir('ptx', features='\"')",
    "k.ir('ptx', features='ptx80')",
    "k.ir('ptx', chip='sm_100f', features='+ptx70')",  # aborted (LLVM ERROR) before the chip table checked the pair
    *(f"k[{g}, 32](a, c)" for g in ["0", "-1", "2.5", "None"]),
    *(f"k[1, {b}](a, c)" for b in ["0", "-1", "2048", "None"]),
    "k[1](a, c)",
    "k[1, 2, 3, 4, 5](a, c)",
    *(f"simt.kernel({opt}=v)(f)".replace("v)", f"{v})") for opt in ["launch_bounds", "min_blocks_per_sm"] for v in ["0", "-1", "256.5", "10**6", "'256'", "True"]),
    *(f"simt.kernel(contract={c})(f)" for c in ["(256, 1, 1)", "256", "'x'", "object()"]),
    *(f"simt.Contract(domain={d})" for d in ["0", "3", "'1'", "True", "2.5"]),
    *(f"simt.Contract(block={b})" for b in ["0", "-1", "(1, 2, 3, 4)", "2.5", "'x'", "(2, 0)"]),
    "simt.Contract(domain=1, block=(16, 16, 1))",
    *(f"compile_annotation(simt.Slice[{t}])" for t in ["'f32'", "simt.Slice[wf.f32]", "3", "None", "complex", "simt.Slice"]),
    *(f"compile_annotation(simt.DisjointSlice[{t}])" for t in ["'f32'", "3"]),
    *(f"tile.spec({d}, (4,))" for d in ["'nope'", "None", "3"]),
    *(f"tile.spec(wf.f32, {s})" for s in ["-1", "'x'", "(2.5,)", "((1,),)"]),
    *(f"tk.ahead_of_time({x})" for x in ["3", "'x'", "None"]),
    *(f"t.to_host().sync_on({s})" for s in ["3", "'stream'", "object()"]),
]


@cache
def setup() -> dict[str, Any]:
    dev = wf.Device.simulator()
    stream = dev.create_stream()

    @simt.kernel(contract=simt.Contract(domain=1, block=(32, 1, 1)))
    def k(x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32]):
        idx = simt.index_1d()
        out[idx] = x[idx.get()] + 1.0

    @tile.kernel
    def tk(z: tile.Tensor[wf.f32, ("B",)], x: tile.Tensor[wf.f32, (-1,)]):
        z.store(tile.load_tile_like(x, z))

    def f(x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32]):
        idx = simt.index_1d()
        out[idx] = x[idx.get()]

    def compile_annotation(annotation: Any) -> Any:
        """A kernel whose parameter has `annotation`, compiled (errors show at the definition)."""

        def g(x: Any, out: simt.DisjointSlice[wf.f32]):
            idx = simt.index_1d()
            out[idx] = 1.0

        g.__annotations__["x"] = annotation
        return simt.kernel(g).compile("sm_90")

    a = wf.DeviceBuffer.from_host(stream, np.arange(32, dtype=np.float32))
    c = wf.DeviceBuffer.zeroed(stream, 32, wf.f32)
    ai = wf.DeviceBuffer.zeroed(stream, 32, wf.i32)
    prep = k.prepare(wf.runtime.LaunchConfig(grid=1, block=32), device=dev)
    return {"wf": wf, "simt": simt, "tile": tile, "np": np, "stream": stream, "k": k, "tk": tk, "f": f, "a": a, "c": c, "ai": ai,
            "prep": prep, "t": wf.zeros((4,), wf.f32), "compile_annotation": compile_annotation}  # fmt: skip


def handle(index: int) -> tuple[str, str]:
    source = CASES[index]
    env = dict(setup())  # a failure here is the harness's own: it escapes as a traceback
    env["t"] = wf.zeros((4,), wf.f32)
    try:
        result = eval(source, env)  # noqa: S307 - our own table of expressions
    except wf.WarpforgeError as e:
        return "refused", f"{source}: {type(e).__name__}: {str(e).splitlines()[0][:160]}"
    except BaseException as e:  # noqa: BLE001
        klass, detail = "traceback", f"{source}: {type(e).__name__}: {str(e)[:200]}"
    else:
        klass, detail = "accepted", f"{source} -> {type(result).__name__}"
    return klass, detail
