"""Tile kernels from arguments to PTX: specialization, the compile pipeline, and the compiled kernel.

`specialize(kernel, args)` reads the kernel's annotations and its arguments (lazy tensors,
partitioned tensors, `tile.spec`s, scalars) without touching a GPU and gives the `Specialization`:
per parameter its kind (`partition`, `input`, `atomic`, `scalar`, `constant`), dtype, static
extents, tile shape, and — as Triton does — whether the pointer is 16-byte aligned and each dynamic
extent a multiple of 16 (which decides 128-bit vector accesses). The specialization is the cache key.
Bad arguments are refused here, before anything runs: `LaunchError` for shapes or dtypes that do not
line up, `CompileError` for a tile shape that is not a power of two.

`warpforge.compile.compile_tile` runs the frontend (`frontend` here) and the pipeline
`kernel` → `kernel-to-tile` → `tile` → `tile-to-gpu` → `gpu` → (the SIMT `gpu-to-llvm`) → PTX and
returns a `CompiledTileKernel`: the runtime's `CompiledKernel` plus what the host chain needs (the
grid parameter, the block size, the `load_tile_like` pairs).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any

from warpforge import dtypes
from warpforge.dtypes import DType
from warpforge.errors import CompileError, LaunchError

# --------------------------------------------------------------------------- specialization


@dataclass(frozen=True)
class ParamSig:
    """One parameter of a specialization.

    `kind`: `partition` (the tile block's output part), `input` (borrowed, read-only), `atomic`,
    `scalar` (by value) or `constant` (compiled in, `value`). For tensors: `dims` are the extents the
    kernel is compiled for (None: dynamic), `tile` the partition's tile shape, `align` the known
    alignment of the pointer in bytes, `divisible` per dimension the known power-of-two divisor of the
    extent (16 when a dynamic extent is a multiple of 16, else 1; the extent's own for static ones).
    """

    name: str
    kind: str
    dtype: DType | None = None
    dims: tuple[int | None, ...] = ()
    tile: tuple[int, ...] | None = None
    align: int = 16
    divisible: tuple[int, ...] = ()
    value: Any = None
    strided: bool = False
    """A strided view (a non-contiguous array whose last axis has stride 1): its strides are passed
    at launch, after its extents."""
    stride_divisible: tuple[int, ...] = ()
    """For a strided view, the known power-of-two divisor of each stride but the last (≤ 16)."""


@dataclass(frozen=True)
class Specialization:
    params: tuple[ParamSig, ...]

    @property
    def key(self) -> tuple[Any, ...]:
        return tuple((p.kind, p.dtype.name if p.dtype else None, p.dims, p.tile, p.align, p.divisible, repr(p.value), p.strided, p.stride_divisible) for p in self.params)


from warpforge.runtime.tiling import call_site, check_tile_shape, grid_of  # noqa: E402,F401  (host-side; re-exported)


def _pow2_divisor(n: int, cap: int = 16) -> int:
    if n == 0:
        return cap
    d = 1
    while d < cap and n % (d * 2) == 0:
        d *= 2
    return d


def pointer_alignment(ptr: int) -> int:
    """The alignment of a device address in bytes, as far as it matters (at most 16)."""
    return _pow2_divisor(ptr, 16)


def _annotations(kernel: Any) -> list[tuple[str, Any]]:
    fn = kernel.fn
    sig = inspect.signature(fn)
    hints = dict(getattr(fn, "__annotations__", {}))
    out = []
    for name in sig.parameters:
        ann = hints.get(name)
        if isinstance(ann, str):
            try:
                ann = eval(ann, dict(fn.__globals__))  # noqa: S307 - the user's own annotation expression
            except Exception as e:
                why = e.message if isinstance(e, CompileError) else str(e)
                raise CompileError(f"{kernel.__qualname__}: parameter '{name}': cannot evaluate the annotation {ann!r}: {why}", **_parameter_site(fn, name)) from None
        out.append((name, ann))
    return out


def _parameter_site(fn: Any, name: str) -> dict[str, Any]:
    """`CompileError` location keywords for parameter `name` of `fn` (its `name:` in the `def`), or
    the `def` line when the source is not available."""
    import re

    code = fn.__code__
    site: dict[str, Any] = {"filename": code.co_filename, "line": code.co_firstlineno}
    try:
        lines, start = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return site
    for i, text in enumerate(lines):
        if m := re.search(rf"\b{re.escape(name)}\s*:", text):
            return {**site, "line": start + i, "col": m.start() + 1, "source_line": text}
    return site


def _is_constant_annotation(ann: Any) -> bool:
    return type(ann).__name__ == "ConstantAnnotation" or (isinstance(ann, type) and ann.__name__ == "Constant" and ann.__module__.startswith("warpforge"))


def specialize(kernel: Any, args: tuple[Any, ...]) -> Specialization:
    """The specialization of `kernel` for `args` (see the module docstring). Raises `LaunchError` /
    `CompileError` naming the parameter and the call site."""
    from warpforge.runtime.lazy import LazyTensor, PartitionedTensor
    from warpforge.tile import Spec, TensorAnnotation

    name = kernel.__qualname__
    anns = _annotations(kernel)
    if len(args) != len(anns):
        raise LaunchError(f"{name} takes {len(anns)} argument(s) ({', '.join(n for n, _ in anns)}), got {len(args)} (at {call_site()})")
    symbols: dict[str, tuple[int, str]] = {}

    def bind(sym: str, value: int, where: str) -> None:
        if sym in symbols and symbols[sym][0] != value:
            raise LaunchError(
                f"{name}: the shapes do not line up: {sym} is {symbols[sym][0]} ({symbols[sym][1]}) but {value} ({where}) (at {call_site()})"
            )
        symbols.setdefault(sym, (value, where))

    params: list[ParamSig] = []
    partitioned_grid: tuple[int, ...] | None = None
    for (pname, ann), arg in zip(anns, args):
        if ann is None:
            raise CompileError(f"{name}: parameter '{pname}' needs an annotation: tile.Tensor[dtype, shape], a dtype, or wf.Constant[int]")
        if _is_constant_annotation(ann):
            value = arg.item() if hasattr(arg, "item") and not isinstance(arg, bool | int | float) else arg
            why = ann.check(value) if hasattr(ann, "check") else None
            if why is not None or isinstance(arg, LazyTensor | PartitionedTensor | Spec):
                raise LaunchError(f"{name}: argument '{pname}' is a wf.Constant: {why or 'it needs a number'} (at {call_site()})")
            params.append(ParamSig(pname, "constant", value=value))
            continue
        if not isinstance(ann, TensorAnnotation):
            try:
                dt = dtypes.from_numpy(ann) if not isinstance(ann, type) or ann not in (int, float, bool) else {int: dtypes.i64, float: dtypes.f64, bool: dtypes.bool_}[ann]
            except TypeError:
                raise CompileError(f"{name}: parameter '{pname}': {ann!r} is not a tile-kernel parameter type (tile.Tensor[dtype, shape], a dtype, wf.Constant[int])") from None
            if isinstance(arg, LazyTensor | PartitionedTensor) or (isinstance(arg, Spec) and arg.shape is not None):
                raise LaunchError(f"{name}: argument '{pname}' is a {dt.name} scalar, got a tensor (at {call_site()})")
            params.append(ParamSig(pname, "scalar", dt))
            continue
        # a tensor parameter
        strides: tuple[int, ...] | None = None
        if isinstance(arg, PartitionedTensor):
            arg._check_live(f"passed to {name}")
            kind, shape, tile_shape, dtype, ptr_align = "partition", arg.shape, arg.tile_shape, arg.dtype, arg._align()
            strides = arg._storage.strides  # pyright: ignore[reportPrivateUsage]
        elif isinstance(arg, LazyTensor):
            arg._check_live(f"passed to {name}")
            kind, shape, tile_shape, dtype, ptr_align = "input", arg.shape, None, arg.dtype, arg._align()
            strides = arg._storage.strides  # pyright: ignore[reportPrivateUsage]
        elif isinstance(arg, Spec) and arg.shape is not None:
            kind = "partition" if arg.partition is not None else "input"
            shape, tile_shape, dtype = arg.shape, arg.partition, arg.dtype
            strides = arg.strides
            ptr_align = 16 if arg.aligned else dtype.np.itemsize
            if tile_shape is not None:
                check_tile_shape(tile_shape, "the partition")
        else:
            raise LaunchError(
                f"{name}: argument '{pname}' is {ann!r}: pass a tensor (wf.zeros/ones/full/arange/from_host/tensor(...), "
                f"or x.partition(tile_shape) for an output), got {type(arg).__name__} (at {call_site()})"
            )
        if ann.atomic:
            if kind == "partition":
                raise LaunchError(f"{name}: argument '{pname}' is a tile.AtomicTensor: pass the tensor itself, not a partition (at {call_site()})")
            kind = "atomic"
        if dtype != ann.dtype:
            raise LaunchError(f"{name}: argument '{pname}' holds {dtype.name} elements but the parameter is {ann!r} (at {call_site()})")
        if len(shape) != len(ann.dims):
            raise LaunchError(f"{name}: argument '{pname}' is {len(shape)}-D {tuple(shape)} but the parameter is {ann!r} ({len(ann.dims)}-D) (at {call_site()})")
        dims: list[int | None] = []
        if kind == "partition":
            assert tile_shape is not None
            if partitioned_grid is None:
                partitioned_grid = grid_of(shape, tile_shape)
            elif grid_of(shape, tile_shape) != partitioned_grid:
                raise LaunchError(
                    f"{name}: the partitions do not line up: '{pname}' has {grid_of(shape, tile_shape)} tiles, the first partitioned argument "
                    f"{partitioned_grid} (at {call_site()})"
                )
            for axis, (d, t) in enumerate(zip(ann.dims, tile_shape)):
                if isinstance(d, str):
                    bind(d, t, f"the tile of '{pname}'")
                elif d == -1:
                    raise CompileError(
                        f"{name}: the call passes a partitioned tensor (tiles {tuple(tile_shape)}) as '{pname}' (at {call_site()}), but "
                        f"'{pname}' is declared {ann!r}: -1 is an input's extent, any length; pass the tensor itself (not .partition(...)) "
                        f"for an input, or, for an output, declare the tile's shape with a symbol (\"B\") or the tile size",
                        **_parameter_site(kernel.fn, pname),
                    )
                elif d != t:
                    raise LaunchError(f"{name}: argument '{pname}' is partitioned into tiles {tuple(tile_shape)}, but the parameter says {ann!r} (at {call_site()})")
                dims.append(None)
        else:
            for axis, (d, n) in enumerate(zip(ann.dims, shape)):
                if isinstance(d, str):
                    bind(d, n, f"the extent {axis} of '{pname}'")
                    dims.append(n)
                elif d == -1:
                    dims.append(None)
                elif d != n:
                    raise LaunchError(f"{name}: argument '{pname}' has shape {tuple(shape)}, the parameter {ann!r} (at {call_site()})")
                else:
                    dims.append(n)
        divisible = tuple(_pow2_divisor(n) if d is None else _pow2_divisor(d) for d, n in zip(dims, shape))
        if tile_shape is not None:
            # what a partition's extents are divisible by matters up to its tile's extents only (masks,
            # vector widths): capping it lets launches that differ only there share a specialization
            divisible = tuple(min(dv, t) for dv, t in zip(divisible, tile_shape))
        sdiv = tuple(_pow2_divisor(st) for st in strides[:-1]) if strides is not None else ()
        params.append(ParamSig(pname, kind, dtype, tuple(dims), tuple(tile_shape) if tile_shape else None, ptr_align, divisible, strided=strides is not None, stride_divisible=sdiv))
    if partitioned_grid is None:
        raise LaunchError(
            f"{name} needs a partitioned tensor argument: partitioning the output gives the grid "
            f"(e.g. {name}(wf.zeros((n,), wf.f32).partition((128,)), ...)) (at {call_site()})"
        )
    return Specialization(tuple(params))


# --------------------------------------------------------------------------- compiling


@dataclass(frozen=True)
class CompiledTileKernel:
    """A tile kernel compiled for one specialization: `kernel` (the runtime's `CompiledKernel`: PTX,
    parameters, exact block), `grid_param` (index among the launch parameters of the partition whose
    tiles are the grid), `block` (threads per CTA), `like_pairs` (input, partition) names whose
    shapes must be equal, `spec`, `dynamic_shared` (bytes of dynamic shared memory each launch gives
    the CTA: `tile.dot`'s cp.async rings)."""

    kernel: Any
    grid_param: int
    block: int
    like_pairs: tuple[tuple[str, str], ...]
    spec: Specialization
    dynamic_shared: int = 0


def _symbol(kernel: Any, spec: Specialization) -> str:
    import hashlib

    from warpforge.frontend.compiler import symbol_name

    digest = hashlib.sha256(repr(spec.key).encode()).hexdigest()[:8]
    return f"{symbol_name(kernel.fn)}__{digest}"


def frontend(kernel: Any, spec: Specialization) -> Any:
    from warpforge.frontend.tile import compile_tile_kernel

    return compile_tile_kernel(kernel.fn, spec, num_warps=kernel.num_warps, checks=kernel.checks, symbol=_symbol(kernel, spec), num_stages=kernel.num_stages, min_blocks_per_sm=kernel.min_blocks_per_sm)


def compile_specialization(kernel: Any, spec: Specialization, chip: str = "sm_90", features: str = "") -> CompiledTileKernel:
    """Compile `kernel` for `spec` to PTX (no GPU needed; through the disk cache): see
    `warpforge.compile.compile_tile`, which owns the pipeline."""
    from warpforge.compile import compile_tile

    return compile_tile(kernel, spec, chip, features)


# --------------------------------------------------------------------------- the CPU simulator


@dataclass(frozen=True)
class SimulationProgram:
    """A tile kernel lowered for `warpforge.simulator`: the `gpu`-level module (scalar memory
    accesses, shuffles as `nvvm` ops), its kernel symbol and block size."""

    module: Any
    symbol: str
    block: int
    checked: bool = True
    sites: tuple[Any, ...] = ()
    """The error sites of `module` (what a recorded error's site id means there)."""


_sim_cache: dict[tuple[int, Any], SimulationProgram] = {}


def forget_simulation_programs(kernel: Any) -> None:
    """Drop `kernel`'s cached simulator programs (it is compiled again: a folded constant changed)."""
    for key in [k for k in _sim_cache if k[0] == id(kernel)]:
        _sim_cache.pop(key, None)


def simulation_program(kernel: Any, spec: Specialization, chip: str = "sm_90") -> SimulationProgram:
    """`kernel` for `spec`, lowered for the CPU simulator (cached) as for `chip` (`sm_90a`: wgmma and
    the TMA ring, which the simulator runs too)."""
    from warpforge.compile import Target, lower
    from warpforge.dialects import gpu

    key = (id(kernel), spec.key, chip)
    if key in _sim_cache:
        return _sim_cache[key]
    from warpforge.knobs import refuse_overrides_on_simulator

    kir = frontend(kernel, spec)
    refuse_overrides_on_simulator(kir.symbol)
    module = kir.module
    lower(module, "gpu", Target(chip=chip), model="tile", module_name=kir.symbol + "_module")
    block = 0
    for op in module.walk():
        if isinstance(op, gpu.FuncOp) and op.sym_name.data == kir.symbol and op.known_block_size is not None:
            block = op.known_block_size.get_values()[0]
    _shuffles_to_nvvm(module)
    from warpforge.compile import error_sites

    program = SimulationProgram(module, kir.symbol, block, True, error_sites(module, kir.symbol))
    _sim_cache[key] = program
    return program


def _shuffles_to_nvvm(module: Any) -> None:
    """`gpu.shuffle` → `nvvm.shfl.sync.*` (convert-gpu-to-nvvm's pattern alone): the simulator runs the
    gpu level, and its warp collectives at the nvvm level."""
    from xdsl.pattern_rewriter import PatternRewriteWalker

    try:
        from warpforge.passes.convert_gpu_to_nvvm import ConvertShuffleOp
    except ImportError:  # a checkout without gpu.shuffle: kernels without reductions still simulate
        return
    PatternRewriteWalker(ConvertShuffleOp()).rewrite_module(module)


# --------------------------------------------------------------------------- bound launches


@dataclass
class BoundTileLaunch:
    """A tile-kernel launch prepared on fixed device memory (`TileKernel.bind`): `launch(stream)`
    enqueues it without recording anything.

    On a GPU the runtime's argument checks, the packed parameters (pointers, extents, TMA
    descriptors) and the aliasing check are done once, at bind (`runtime.launch.bind_arguments`);
    each launch still checks its stream, pending kernel errors and stream order, and takes an error
    record slot (`runtime.launch.launch_bound`). On the simulator each launch runs the whole
    `runtime.launch`. `arrays`: the runtime arguments as bound (a tuple: the bound launch uses what
    bind resolved)."""

    compiled: CompiledTileKernel
    prepared: Any
    arrays: tuple[Any, ...]
    grid: int
    bound: Any = field(default=None, repr=False)
    """The runtime's `BoundLaunch` (None on the simulator, and when the grid is empty)."""

    @property
    def block(self) -> int:
        return self.compiled.block

    def launch(self, stream: Any) -> None:
        if not self.grid:
            return
        if self.bound is not None:
            self.bound.launch(stream)
            return
        from warpforge.runtime import launch

        launch(stream, self.prepared, self.arrays, kernel=self.compiled.kernel)


def bind(kernel: Any, args: tuple[Any, ...], device: Any = None, chip: str | None = None) -> BoundTileLaunch:
    from math import prod

    from warpforge.runtime import Device, LaunchConfig, prepare
    from warpforge.runtime.lazy import LazyTensor, PartitionedTensor, tile_chip

    if device is None:  # the device of the memory bound (a simulator's buffers bind there), else GPU 0
        payloads = [a._storage.payload for a in args if isinstance(a, LazyTensor | PartitionedTensor)]  # pyright: ignore[reportPrivateUsage]
        device = next((p.device for p in payloads if isinstance(getattr(p, "device", None), Device)), 0)
    dev = Device(device)
    spec = specialize(kernel, args)
    compiled = compile_specialization(kernel, spec, chip or tile_chip(dev))
    arrays: list[Any] = []
    grid = 0
    for p, a in zip(spec.params, args):
        if p.kind == "constant":
            continue
        if isinstance(a, LazyTensor | PartitionedTensor):
            s = a._storage  # pyright: ignore[reportPrivateUsage]
            if s.init != "external":
                raise LaunchError(f"{kernel.__qualname__}.bind: argument '{p.name}' must wrap device memory (wf.tensor(buffer)), not {s.what}")
            arrays.append(s.payload)
            if p.kind == "partition" and not grid:
                assert p.tile is not None
                grid = prod(grid_of(s.shape, p.tile))
        else:
            arrays.append(a)
    config = LaunchConfig(grid=(max(grid, 1), 1, 1), block=(compiled.block, 1, 1), shmem_size=compiled.dynamic_shared)
    if dev.simulated:  # the same kernel at the gpu level, as the chain's launches on the simulator
        from dataclasses import replace

        from warpforge.runtime.simulated import prepare_lowered

        program = replace(simulation_program(kernel, spec), checked=compiled.kernel.checked)
        prepared = prepare_lowered(compiled.kernel, program, config, dev)  # pyright: ignore[reportArgumentType]
        return BoundTileLaunch(compiled, prepared, tuple(arrays), grid)
    prepared = prepare(compiled.kernel, config, dev)
    from warpforge.runtime.launch import bind_arguments

    bound = bind_arguments(prepared, arrays, kernel=compiled.kernel) if grid else None
    return BoundTileLaunch(compiled, prepared, tuple(arrays), grid, bound)
