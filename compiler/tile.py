"""The Tile programming model: write what one tile block does with whole tiles; the compiler decides
how many threads carry it (the model of cutile-rs, cuTile Python and Triton).

```python
import warpforge as wf
from warpforge import tile, f32

@tile.kernel
def add(z: tile.Tensor[f32, ("B",)], x: tile.Tensor[f32, (-1,)], y: tile.Tensor[f32, (-1,)]):
    z.store(tile.load_tile_like(x, z) + tile.load_tile_like(y, z))

x = wf.ones((1024,), f32); y = wf.ones((1024,), f32)              # lazy: nothing touches the GPU
z = wf.zeros((1024,), f32).partition((128,))                        # 8 tile blocks; B = 128
out = add(z, x, y).first().unpartition().to_host().sync_on(stream)  # runs the chain; a NumPy array
```

Parameters are `tile.Tensor[dtype, shape]`: a dimension is a static size (`1024`), dynamic (`-1`,
read at launch) or a symbol (`"B"`) supplied at the call — by the partition for a partitioned
argument (its tile shape), by the tensor's extent otherwise; a kernel is compiled once per
specialization (dtypes, tile shapes, static extents, `wf.Constant` values, and whether each pointer
is 16-byte aligned and each dynamic extent a multiple of 16). A partitioned argument is the tile
block's exclusive output part (`z.store(t)`, `z.load()`); any other tensor argument is a borrowed,
read-only input (`tile.load_tile_like(x, z)`, `tile.load(x, index, shape)`, `tile.gather`). Scalars
(`n: wf.i32`) pass by value; `n: wf.Constant[int]` is a compile-time constant.

Inside the body: arithmetic between tiles and scalars with NumPy broadcasting and NEP 50 typing
(`//` and `%` round toward −∞), comparisons, `tile.where`, math (`tile.exp`, `exp2`, `log`, `log2`,
`sqrt`, `rsqrt`, `sin`, `cos`, `tanh`, `abs`, `floor`, `ceil`, `maximum`/`minimum` propagating NaN),
reductions (`tile.sum/max/min/prod(t, axis=None, keepdims=False)` or `t.sum(...)`), `tile.zeros/ones/
full/arange`, `t.astype(dtype)`, `tile.reshape/permute/transpose/broadcast_to`, `tile.bid(axis)`,
`tile.num_tiles(axis)`, `tile.atomic_add/max/min` on a `tile.AtomicTensor`, `for … in range(…)`
(static or dynamic bounds) and `if`.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from warpforge import dtypes
from warpforge.dtypes import DType
from warpforge.builtin_stubs import BuiltinStubs, device_only
from warpforge.errors import UsageError
from warpforge.source_snapshot import changed, folded_values, snapshot_source

# --------------------------------------------------------------------------- annotations


@dataclass(frozen=True)
class TensorAnnotation:
    """`tile.Tensor[f32, ("B", -1)]`: element dtype and one entry per dimension: an int ≥ 0 (static),
    -1 (dynamic) or a str (a symbol bound at the call). `atomic`: a `tile.AtomicTensor`."""

    dtype: DType
    dims: tuple[int | str, ...]
    atomic: bool = False

    def __repr__(self) -> str:
        kind = "AtomicTensor" if self.atomic else "Tensor"
        return f"tile.{kind}[{self.dtype!r}, {self.dims!r}]"


def _annotation_error(message: str) -> Exception:
    """An `AnnotationError` at the user's annotation (the first frame outside warpforge: Python
    evaluates `tile.Tensor[...]` in the `def` line; 3.11's code positions give the column)."""
    import linecache
    import os
    import sys

    from warpforge.errors import AnnotationError

    package = os.path.dirname(os.path.abspath(__file__))
    frame = sys._getframe(1)  # pyright: ignore[reportPrivateUsage]
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package + os.sep):
        frame = frame.f_back  # pyright: ignore[reportAssignmentType]
    if frame is None:
        return UsageError(message)
    filename, line, col = frame.f_code.co_filename, frame.f_lineno, 0
    positions = list(frame.f_code.co_positions())
    if 0 <= frame.f_lasti // 2 < len(positions):
        start_line, _, start_col, _ = positions[frame.f_lasti // 2]
        if start_line == line and start_col is not None:
            col = start_col + 1
    return AnnotationError(message, filename=filename, line=line or 0, col=col, source_line=linecache.getline(filename, line) or None)


class _TensorMarker:
    atomic = False

    def __class_getitem__(cls, item: Any) -> TensorAnnotation:
        name = "AtomicTensor" if cls.atomic else "Tensor"
        if not isinstance(item, tuple) or len(item) != 2:
            raise _annotation_error(f"tile.{name}[dtype, shape] takes a dtype and a shape tuple, e.g. tile.{name}[wf.f32, (-1,)]")
        dtype, shape = item
        try:
            dt = dtypes.from_numpy(dtype)
        except TypeError as e:
            raise _annotation_error(f"tile.{name}[...] needs a warpforge dtype such as wf.f32: {e}") from None
        if isinstance(shape, int | str):
            shape = (shape,)
        if not isinstance(shape, tuple) or not 1 <= len(shape) <= 4:
            raise _annotation_error(f"tile.{name}[dtype, shape]: the shape is a tuple of 1 to 4 dimensions, got {shape!r}")
        for d in shape:
            if isinstance(d, bool) or not (isinstance(d, str) and d.isidentifier() or isinstance(d, int) and d >= -1):
                raise _annotation_error(f"tile.{name}: a dimension is a size (>= 0), -1 (dynamic) or a symbol name like \"B\", got {d!r}")
        return TensorAnnotation(dt, tuple(shape), cls.atomic)


class Tensor(_TensorMarker):
    """`tile.Tensor[dtype, shape]`: a tensor parameter (partitioned: the tile block's own output part;
    otherwise a borrowed, read-only input)."""


class AtomicTensor(_TensorMarker):
    """`tile.AtomicTensor[dtype, shape]`: a tensor every tile block may update with `tile.atomic_add`,
    `atomic_max`, `atomic_min` (at any offset; device-scope relaxed atomics) and not otherwise read."""

    atomic = True


# --------------------------------------------------------------------------- device-side functions

KERNEL_FUNCTIONS = (
    "load_tile_like", "load", "gather", "zeros", "ones", "full", "arange", "where", "maximum", "minimum", "abs",
    "sum", "max", "min", "prod", "reshape", "permute", "transpose", "broadcast_to", "bid", "num_tiles",
    "atomic_add", "atomic_max", "atomic_min", "dot", "argmax", "argmin", "cumsum",
)  # fmt: skip
"""Functions of this module that only mean something inside a `@tile.kernel`, besides the elementwise
builtins of `warpforge.dialects.math_catalog` (`tile.exp`, `tile.cdiv`, …; `kernel_functions()` gives all)."""


def _device_only(name: str) -> Any:
    return device_only("tile", name)


load_tile_like = _device_only("load_tile_like")
load_tile_like.__doc__ = """`tile.load_tile_like(x, z, padding=0)`: the tile of input `x` lining up with this tile
block's part of the partitioned `z` (same tile shape and coordinates). Past `x`'s end: `padding`."""
load = _device_only("load")
load.__doc__ = """`tile.load(x, index, shape, padding=0)`: the tile of input `x` at tile coordinates `index`
when `x` is cut into tiles of `shape` (static powers of two). Past `x`'s end: `padding`."""
gather = _device_only("gather")
gather.__doc__ = """`tile.gather(x, offsets, mask=None, padding=0)`: elements of input `x` at the row-major
element offsets of the integer tile `offsets`; where `mask` is false or an offset is outside `x`, the
element is `padding` and nothing is read."""
zeros = _device_only("zeros")
zeros.__doc__ = """`tile.zeros(shape, dtype=wf.f32)`: a tile of zeros."""
ones = _device_only("ones")
ones.__doc__ = """`tile.ones(shape, dtype=wf.f32)`: a tile of ones."""
full = _device_only("full")
full.__doc__ = """`tile.full(shape, value, dtype=None)`: a tile with every element `value`."""
arange = _device_only("arange")
arange.__doc__ = """`tile.arange(n, dtype=wf.i32)`: 0, 1, …, n − 1 (n a power of two)."""
where = _device_only("where")
where.__doc__ = """`tile.where(cond, a, b)`: `numpy.where` with broadcasting."""
maximum = _device_only("maximum")
maximum.__doc__ = """`tile.maximum(a, b)`: elementwise maximum; NaN propagates (`numpy.maximum`)."""
minimum = _device_only("minimum")
minimum.__doc__ = """`tile.minimum(a, b)`: elementwise minimum; NaN propagates (`numpy.minimum`)."""
abs = _device_only("abs")  # noqa: A001 - tile.abs, as numpy.abs
abs.__doc__ = """`tile.abs(t)`: elementwise absolute value (`numpy.abs`; `abs(INT_MIN)` wraps, bool tiles unchanged)."""
sum = _device_only("sum")  # noqa: A001
sum.__doc__ = """`tile.sum(t, axis=None, keepdims=False)`: the sum over `axis` (all axes when None)."""
max = _device_only("max")  # noqa: A001
max.__doc__ = """`tile.max(t, axis=None, keepdims=False)`: the maximum over `axis`; NaN propagates."""
min = _device_only("min")  # noqa: A001
min.__doc__ = """`tile.min(t, axis=None, keepdims=False)`: the minimum over `axis`; NaN propagates."""
prod = _device_only("prod")
reshape = _device_only("reshape")
permute = _device_only("permute")
transpose = _device_only("transpose")
broadcast_to = _device_only("broadcast_to")
bid = _device_only("bid")
bid.__doc__ = """`tile.bid(axis=0)`: this tile block's tile coordinate along `axis` of the grid (the
partitioned argument's tiles), i64."""
dot = _device_only("dot")
dot.__doc__ = """`tile.dot(a, b, acc=None, allow_tf32=False)` (also `a @ b`): `a @ b + acc` of 2-D tiles on the
tensor cores (`mma.sync`, sm_80+). `a` is M x K, `b` K x N, one dtype: f16 or bf16 (an f32 result),
f32 (multiplied as tf32, only with `allow_tf32=True`), i8 or u8 (an i32 result, wrapping). M, N >= 16,
K >= 16 (32 for 8-bit inputs). `acc` (default zeros) is M x N of the result dtype; carry it through a
`for` loop to accumulate over K, then `.astype(...)` and elementwise epilogues as for any tile.
Raises `CompileError` (at the call) for other shapes or dtypes, or products needing more than 48 KiB
of shared memory (A, B and the f32 accumulator are staged there)."""
num_tiles = _device_only("num_tiles")
num_tiles.__doc__ = """`tile.num_tiles(axis=0)`: the grid's extent along `axis`, i64."""
atomic_add = _device_only("atomic_add")
atomic_add.__doc__ = """`tile.atomic_add(x, offsets, values, mask=None)`: atomically add each value into the
`tile.AtomicTensor` `x` at its row-major offset (masked-off or out-of-range elements: nothing)."""
atomic_max = _device_only("atomic_max")
atomic_min = _device_only("atomic_min")
argmax = _device_only("argmax")
argmax.__doc__ = """`tile.argmax(t, axis=None, keepdims=False)` (also `t.argmax(...)`): `numpy.argmax` — the int64
index along `axis` (of the flattened tile when None) of the largest element: the first one on ties,
the first NaN when there is one."""
argmin = _device_only("argmin")
argmin.__doc__ = """`tile.argmin(t, axis=None, keepdims=False)`: `numpy.argmin` (first index on ties; the first NaN)."""
cumsum = _device_only("cumsum")
cumsum.__doc__ = """`tile.cumsum(t, axis=None)` (also `t.cumsum(...)`): `numpy.cumsum`, the inclusive prefix sum
along `axis` (of the flattened tile when None); bool and integers narrower than 64 bits sum in int64
(uint64), floats in their own type (a parallel scan: a few ulp from NumPy's sequential sums)."""


_BUILTIN_STUBS = BuiltinStubs(__name__, "tile", lambda b: b.tile, _device_only)
"""The catalog's elementwise builtins in this module (`tile.cdiv`, …), made on first use."""


def kernel_functions() -> tuple[str, ...]:
    """Every function of this module that only means something inside a `@tile.kernel`."""
    return (*KERNEL_FUNCTIONS, *_BUILTIN_STUBS.stubs())


# --------------------------------------------------------------------------- specs for ahead-of-time compilation


@dataclass(frozen=True)
class Spec:
    """An argument described without data, for ahead-of-time compilation: a tensor of `dtype` and
    `shape` (partitioned into `partition` tiles when given), or a scalar (`shape` None). `aligned`:
    whether the pointer is 16-byte aligned (warpforge's allocations are). `strides`: the element
    strides of a strided view (a non-contiguous array whose last stride is 1), None: contiguous."""

    dtype: DType
    shape: tuple[int, ...] | None = None
    partition: tuple[int, ...] | None = None
    aligned: bool = True
    strides: tuple[int, ...] | None = None


def spec(
    dtype: Any, shape: int | tuple[int, ...] | None = None, *, partition: int | tuple[int, ...] | None = None, aligned: bool = True, strides: tuple[int, ...] | None = None
) -> Spec:
    """`tile.spec(wf.f32, (1024,), partition=(128,))`: an argument for `kernel.ahead_of_time(...)`.

    `shape` and `partition`: an int or a tuple of non-negative ints (None: a scalar / not
    partitioned). Raises `UsageError` for anything else and for unsupported dtypes."""
    from warpforge.errors import UsageError

    def as_tuple(what: str, s: Any) -> tuple[int, ...] | None:
        if s is None:
            return None
        def integral(d: Any) -> bool:  # a Python or NumPy int
            return not isinstance(d, bool) and hasattr(d, "__index__") and (isinstance(d, int) or type(d).__module__ == "numpy")

        dims = (s,) if integral(s) else tuple(s) if isinstance(s, tuple | list) else None
        if dims is None or not all(integral(d) and d >= 0 for d in dims):
            raise UsageError(f"tile.spec: {what} is an int or a tuple of non-negative ints, got {s!r}")
        return tuple(int(d) for d in dims)

    st = as_tuple("strides", strides)
    dims = as_tuple("shape", shape)
    if st is not None and (dims is None or len(st) != len(dims) or st[-1] != 1):
        raise UsageError(f"tile.spec: strides {st} need one stride per dimension of the shape {dims}, the last 1 (the last axis contiguous)")
    return Spec(dtypes.from_numpy(dtype), dims, as_tuple("partition", partition), aligned, st)


# --------------------------------------------------------------------------- the kernel object


@dataclass(eq=False)
class TileKernel:
    """A `@tile.kernel` function. Calling it with lazy tensors records a launch (nothing runs until a
    `sync_on`); `compile(*args)`, `ir(stage, *args)` work on lazy tensors or `tile.spec`s without a
    GPU, and `ahead_of_time(*args)` registers shapes for `warpforge run`/`compile` without a GPU."""

    fn: Any
    num_warps: int | None = None
    checks: bool = True
    num_stages: int | None = None
    min_blocks_per_sm: int | None = None
    _compiled: dict[Any, Any] = field(default_factory=dict[Any, Any], repr=False)
    _aot: list[tuple[Any, ...]] = field(default_factory=list[tuple[Any, ...]], repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _folded: Any = field(default=None, repr=False)
    """The module globals / closure values the compiled code holds (`source_snapshot.folded_values`)."""

    def __post_init__(self) -> None:
        self.__name__ = getattr(self.fn, "__name__", "kernel")
        self.__qualname__ = getattr(self.fn, "__qualname__", self.__name__)
        self.__doc__ = getattr(self.fn, "__doc__", None)
        self.__wrapped__ = self.fn
        snapshot_source(self.fn)  # compile the text as imported, not as edited later
        if not isinstance(self.checks, bool):
            raise UsageError(f"checks is True or False, got {self.checks!r}")
        for option in ("num_warps", "num_stages", "min_blocks_per_sm"):  # a NumPy int as a Python int
            value = getattr(self, option)
            if type(value).__module__ == "numpy" and hasattr(value, "__index__") and not isinstance(value, bool):
                setattr(self, option, int(value))
        if self.num_warps is not None and (isinstance(self.num_warps, bool) or not isinstance(self.num_warps, int) or self.num_warps not in (1, 2, 4, 8, 16, 32)):
            raise UsageError(f"num_warps is a power of two from 1 to 32, got {self.num_warps!r}")
        if self.num_stages is not None and (isinstance(self.num_stages, bool) or not isinstance(self.num_stages, int) or not 1 <= self.num_stages <= 8):
            raise UsageError(f"num_stages is an int from 1 to 8 (1: no pipelining), got {self.num_stages!r}")
        if self.min_blocks_per_sm is not None and (isinstance(self.min_blocks_per_sm, bool) or not isinstance(self.min_blocks_per_sm, int) or not 1 <= self.min_blocks_per_sm <= 32):
            raise UsageError(f"min_blocks_per_sm is an int from 1 to 32 (PTX .minnctapersm), got {self.min_blocks_per_sm!r}")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Record a launch with `args` (by position, or by parameter name as in `k(z, x=t)`; an unknown
        or missing name is a `UsageError` listing the parameters)."""
        from warpforge.runtime.lazy import record_launch
        from warpforge.specialize import bind_arguments

        return record_launch(self, bind_arguments(self.fn, self.__qualname__, args, kwargs))

    def specialize(self, args: tuple[Any, ...]) -> Any:
        """The `Specialization` of this kernel for `args` (lazy tensors, partitions, `tile.spec`s, scalars)."""
        from warpforge.tile_compile import specialize

        return specialize(self, args)

    def compile(self, *args: Any, chip: str = "sm_90", features: str = "") -> Any:
        """Compile for the shapes and dtypes of `args` (cached): a `CompiledTileKernel`.

        `compile("sm_90")` (a chip alone, as `SimtKernel.compile` takes) compiles every
        `ahead_of_time` signature instead and returns them as one `AheadOfTime` (`.ptx`, `.kernels`)."""
        if len(args) == 1 and isinstance(args[0], str):
            chip = args[0]
            from warpforge.backend.chips import resolve_target

            resolve_target(chip, features)  # a bad chip is the first thing to say
            if not self._aot:
                raise UsageError(
                    f"{self.__qualname__} is a tile kernel: its shapes come from its arguments; register some with "
                    f"{self.__name__}.ahead_of_time(tile.spec(...), ...) to compile it without them"
                )
            return AheadOfTime(tuple(self.compile(*sig, chip=chip, features=features) for sig in self._aot))
        return self.compile_specialization(self.specialize(args), chip, features)

    def compile_specialization(self, spec: Any, chip: str = "sm_90", features: str = "") -> Any:
        from warpforge.backend.chips import resolve_target

        from warpforge.driver.run import before_compile

        target = resolve_target(chip, features)  # TargetError for an unknown chip or impossible PTX version
        chip, features = target.chip.name, target.features
        before_compile(chip)  # `warpforge run`'s early PTX check, at the program's first compilation
        key = (spec.key, chip, features)
        if self._folded is not None and changed(self._folded) is not None:
            # a module global or closure value compiled in was rebound: compile the current values
            from warpforge.tile_compile import forget_simulation_programs

            with self._lock:
                self._compiled.clear()
                self._folded = None
            forget_simulation_programs(self)
        with self._lock:
            if key in self._compiled:
                return self._compiled[key]
        from warpforge.compile import compile_tile

        folded = folded_values(self.fn)  # the values as this compile reads them
        compiled = compile_tile(self, spec, chip, features)
        with self._lock:
            self._compiled[key] = compiled
            if self._folded is None:
                self._folded = folded
        return compiled

    def report(self, *args: Any, chip: str = "sm_90", features: str = "") -> Any:
        """What ptxas says the kernel uses for `args` (or each `ahead_of_time` signature when none are
        given): a `warpforge.report.ResourceReport` (registers, spills, shared, local and constant
        memory per kernel). Needs ptxas (`FileNotFoundError` otherwise); cached on disk."""
        from warpforge.report import ResourceReport, report

        signatures = [args] if args else list(self._aot)
        if not signatures:
            raise UsageError(
                f"{self.__qualname__} is a tile kernel: its shapes come from its arguments; pass them "
                f"({self.__name__}.report(*args)) or register some with {self.__name__}.ahead_of_time(tile.spec(...), ...)"
            )
        compiled = [self.compile(*sig, chip=chip, features=features) for sig in signatures]
        reports = [report(c.kernel, dynamic_shared=c.dynamic_shared) for c in compiled]
        return ResourceReport(tuple(k for r in reports for k in r.kernels), "".join(r.log for r in reports))

    def __getitem__(self, config: Any) -> Any:
        raise UsageError(
            f"{self.__qualname__} is a tile kernel: it takes no [grid, block] (one tile block per tile of its "
            f"partitioned output); call it with its arguments: {self.__name__}(out.partition(tile_shape), ...)"
        )

    def bind(self, *args: Any, device: Any = None, chip: str | None = None) -> Any:
        """Prepare one launch on existing device memory, to enqueue again and again without the lazy
        chain (benchmarks, hot loops): `args` as for a call, the tensors made with `wf.tensor(buf)`
        (`wf.tensor(buf).partition(tile_shape)` for outputs) over `DeviceBuffer`s or torch / cupy
        arrays. `chip`: compile for it instead of the device's tile chip (`sm_90` on an H200 keeps
        `mma.sync`; default `sm_90a` there, wgmma). Returns a `BoundTileLaunch`: `.launch(stream)`,
        `.grid`, `.block`, `.compiled`."""
        from warpforge.tile_compile import bind

        return bind(self, args, device, chip)

    def ahead_of_time(self, *args: Any) -> TileKernel:
        """Register argument shapes (`tile.spec(...)`s or lazy tensors) to compile without a GPU."""
        self.specialize(args)  # bad shapes are reported here, where they are written
        self._aot.append(args)
        return self

    def ir(self, stage: str = "gpu", *args: Any, chip: str = "sm_90", features: str = "", debuginfo: bool = False) -> str:
        """The kernel at one stage (`kernel`, `tile`, `gpu`, `nvvm`, `llvm`, `ll`, `ptx`) for `args`, or
        for every `ahead_of_time` signature when no args are given (MLIR stages: one module each,
        separated by `// -----`, as `warpforge-opt --split-input-file` reads them). `debuginfo`: print
        each op's `loc(...)`."""
        from warpforge.compile import Target, lower_tile

        signatures = [args] if args else list(self._aot)
        if not signatures:
            raise UsageError(
                f"{self.__qualname__} is a tile kernel: its shapes come from its arguments; pass them "
                f"({self.__name__}.ir(stage, *args)) or register some with {self.__name__}.ahead_of_time(tile.spec(...), ...)"
            )
        chunks = [lower_tile(self, self.specialize(sig), stage, Target(chip, features), debuginfo=debuginfo) for sig in signatures]
        if stage in ("ll", "ptx"):
            return "\n".join(chunks)
        return "\n// -----\n".join(c.rstrip("\n") for c in chunks)


@dataclass(frozen=True)
class AheadOfTime:
    """A tile kernel compiled for its `ahead_of_time` signatures: `kernels` (`CompiledTileKernel`s) and
    `ptx`, their PTX modules one after another."""

    kernels: tuple[Any, ...]

    @property
    def ptx(self) -> str:
        return "\n".join(k.kernel.ptx for k in self.kernels)


def kernel(fn: Any = None, *, num_warps: int | None = None, checks: bool = True, num_stages: int | None = None, min_blocks_per_sm: int | None = None, **unknown: Any) -> Any:
    """Decorator: `@tile.kernel` or `@tile.kernel(num_warps=8, checks=False)`.

    `num_warps` sets the threads per CTA (32 each); by default it follows the largest tile (4 up to
    2048 elements, then one warp per 512 elements, at most 16). `checks=False` compiles out the
    integer-division-by-zero check (the result is then 0). `num_stages` (1–8, default 3): how many K
    steps of `tile.dot` operands a K loop keeps in flight in its `cp.async` shared-memory ring
    (`tile-pipeline`; 1: no pipelining); the ring lives in dynamic shared memory, stages × the
    operand tiles' bytes. `min_blocks_per_sm` (PTX `.minnctapersm`, as `simt.kernel`'s): ptxas limits
    the registers per thread so that many CTAs fit on one SM (it may spill to do so; `warpforge
    compile --resources` shows it). Compile errors are `CompileError`s.
    """

    if unknown:
        from warpforge.simt import unknown_options

        unknown_options("tile.kernel", unknown, ("num_warps", "checks", "num_stages", "min_blocks_per_sm"))

    def wrap(f: Any) -> TileKernel:
        return TileKernel(f, num_warps=num_warps, checks=checks, num_stages=num_stages, min_blocks_per_sm=min_blocks_per_sm)

    return wrap(fn) if fn is not None else wrap


from warpforge.autotune import AutotunedKernel, Config, autotune  # noqa: E402  (@tile.autotune, tile.Config)

_STATIC_ALL = [
    "AutotunedKernel",
    "Config",
    "autotune",
    "AtomicTensor",
    "Spec",
    "Tensor",
    "TileKernel",
    "kernel",
    "kernel_functions",
    "spec",
    *KERNEL_FUNCTIONS,
]
"""`__all__` less the catalog's builtins (`__all__` itself adds them, on first use)."""

__getattr__, __dir__ = _BUILTIN_STUBS.module_hooks(_STATIC_ALL, globals())  # PEP 562: the catalog's stubs, on first use
