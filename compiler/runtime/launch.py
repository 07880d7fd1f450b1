"""Launch configuration, the launch checks, `prepare` and `launch`.

`check_launch(kernel, config, limits)` refuses, with `LaunchError`, every configuration that breaks
the kernel's contract or the device's limits (DESIGN.md, Semantics → Launches). It reads only plain
data (`CompiledKernel`, `LaunchConfig`, `DeviceLimits`), so every refusal is testable without a GPU.
`prepare` runs it against the live device, loads the kernel and returns a `PreparedLaunch`, the token
`launch(stream, prepared, args)` requires. `launch` checks and packs the arguments per the kernel ABI
(see `compiled.py`), refuses aliased outputs, attaches the error record and enqueues the kernel.
`bind_arguments(prepared, args)` does the argument part once for fixed memory and
`launch_bound(stream, bound)` the per-launch rest (`TileKernel.bind` uses them; see `BoundLaunch`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    import numpy
else:  # NumPy loads at first use, not at `import warpforge`
    from warpforge.lazy_import import numpy

from warpforge.errors import LaunchError, LaunchUsageError, WarpforgeError
from warpforge.runtime import _driver, errors, module, stream_order
from warpforge.runtime.aliasing import check_aliasing
from warpforge.runtime.compiled import TENSOR_MAP_BYTES, CompiledKernel, ParamSpec
from warpforge.runtime.device import Device, DeviceLimits, as_stream
from warpforge.runtime.memory import DeviceBuffer, as_device_view

KIB = 1024
Dim3 = tuple[int, int, int]


def _is_int(v: Any) -> bool:
    return isinstance(v, (int, numpy.integer)) and not isinstance(v, (bool, numpy.bool_))


def _dim3(value: Any, what: str) -> Dim3:
    """An int or a 1–3 tuple of positive ints, padded with 1s to (x, y, z)."""
    dims = (value,) if _is_int(value) else value
    if not isinstance(dims, (tuple, list)) or not 1 <= len(dims) <= 3 or not all(_is_int(d) for d in dims):
        raise LaunchUsageError(f"{what} is an int or a tuple of 1 to 3 ints, got {value!r}")
    dims = tuple(int(d) for d in dims) + (1,) * (3 - len(dims))
    if any(d < 1 for d in dims):
        raise LaunchUsageError(f"{what} dimensions must be at least 1, got {dims}")
    if any(d > 0xFFFFFFFF for d in dims):  # cuLaunchKernel takes unsigned int dimensions
        raise LaunchUsageError(f"{what} dimensions must be below 2**32, got {dims}")
    return dims  # type: ignore[return-value]


@dataclass(frozen=True, init=False)
class LaunchConfig:
    """How many blocks and threads, and the dynamic shared memory per block.

    `grid` (blocks) and `block` (threads per block): an int or a 1–3 tuple, stored as (x, y, z).
    `shmem_size`: dynamic shared memory in bytes per block (default 0). Raises `LaunchError` for
    non-int or non-positive dimensions and negative sizes.
    """

    grid: Dim3
    block: Dim3
    shmem_size: int

    def __init__(self, grid: int | tuple[int, ...], block: int | tuple[int, ...], shmem_size: int = 0):
        object.__setattr__(self, "grid", _dim3(grid, "grid"))
        object.__setattr__(self, "block", _dim3(block, "block"))
        if not _is_int(shmem_size) or not 0 <= shmem_size <= 0xFFFFFFFF:
            raise LaunchUsageError(f"shmem_size is a number of bytes (an int in [0, 2**32)), got {shmem_size!r}")
        object.__setattr__(self, "shmem_size", int(shmem_size))

    @property
    def threads_per_block(self) -> int:
        return math.prod(self.block)

    def __repr__(self) -> str:
        return f"LaunchConfig(grid={self.grid}, block={self.block}, shmem_size={self.shmem_size})"


@dataclass(frozen=True, init=False)
class Contract:
    """A kernel's launch contract: `simt.Contract(domain=1, block=(256, 1, 1))`.

    `domain`: 1 — the kernel indexes with `index_1d()` (grid and block need y = z = 1); 2 —
    `index_2d()` (z = 1); None — no requirement. `block`: the exact block shape (PTX `.reqntid`),
    stored as (x, y, z), or None. Raises `LaunchError` for other values.
    """

    domain: int | None
    block: Dim3 | None

    def __init__(self, domain: int | None = None, block: int | tuple[int, ...] | None = None):
        if domain not in (None, 1, 2) or isinstance(domain, bool):
            raise LaunchError(f"Contract domain is 1 (index_1d), 2 (index_2d) or None, got {domain!r}")
        object.__setattr__(self, "domain", domain)
        object.__setattr__(self, "block", None if block is None else _dim3(block, "Contract block"))
        if self.domain == 1 and self.block is not None and self.block[1:] != (1, 1):
            raise LaunchError(f"Contract(domain=1) needs a 1-D block (x, 1, 1), got {self.block}")
        if self.domain == 2 and self.block is not None and self.block[2] != 1:
            raise LaunchError(f"Contract(domain=2) needs block z = 1, got {self.block}")


def _kib(nbytes: int) -> str:
    return f"{nbytes} bytes ({nbytes / KIB:g} KiB)"


def chip_capability(chip: str) -> tuple[int, int, str]:
    """`sm_90` → (9, 0, ""), `sm_90a` → (9, 0, "a"), `sm_100f` → (10, 0, "f")."""
    m = re.fullmatch(r"sm_(\d+)(\d)([af]?)", chip)
    if m is None:
        raise LaunchError(f"unknown chip {chip!r}: expected sm_XY such as sm_90")
    return int(m.group(1)), int(m.group(2)), m.group(3)


def shared_bytes(kernel: CompiledKernel, config: LaunchConfig) -> int:
    """Shared memory per block: the kernel's static plus the config's dynamic, in bytes."""
    return kernel.static_shared_bytes + config.shmem_size


def needs_shared_optin(kernel: CompiledKernel, config: LaunchConfig, limits: DeviceLimits) -> bool:
    """True when the launch uses more shared memory than every kernel gets (48 KiB), so the
    kernel's dynamic-shared-memory attribute must be raised before it runs."""
    return shared_bytes(kernel, config) > limits.max_shared_per_block


def check_launch(kernel: CompiledKernel, config: LaunchConfig, limits: DeviceLimits) -> None:
    """Refuse, with `LaunchError`, a config that breaks `kernel`'s contract or `limits`.

    Checks, in order: the contract's exact block; launch bounds; threads per block; block and grid
    dimensions (grid y, z ≤ 65535); whole warps for kernels with warp collectives; the index domain
    (1-D / 2-D launches); shared memory (above
    48 KiB needs the opt-in, above the opt-in limit is refused); the device's compute capability
    against the kernel's chip.
    """
    if not isinstance(config, LaunchConfig):
        raise LaunchError(f"expected a wf.LaunchConfig(grid=..., block=...), got {type(config).__name__}")
    name, grid, block = kernel.name, config.grid, config.block
    threads = config.threads_per_block
    if kernel.exact_block is not None and tuple(block) != tuple(kernel.exact_block):
        raise LaunchError(
            f"{name} requires block {tuple(kernel.exact_block)} (its contract, PTX .reqntid); got block {block}: "
            f"launch it with block={tuple(kernel.exact_block)}"
        )
    if kernel.max_threads is not None and threads > kernel.max_threads:
        raise LaunchError(
            f"block {block} has {threads} threads; {name}'s launch_bounds allow at most {kernel.max_threads} (PTX .maxntid)"
        )
    if threads > limits.max_threads_per_block:
        raise LaunchError(
            f"block {block} has {threads} threads; {limits.name} allows at most {limits.max_threads_per_block} threads per block"
        )
    for axis, n, most in zip("xyz", block, limits.max_block_dim):
        if n > most:
            raise LaunchError(
                f"block {axis} = {n} exceeds the device limit {most} ({limits.name}: block dimensions at most {limits.max_block_dim})"
            )
    for axis, n, most in zip("xyz", grid, limits.max_grid_dim):
        if n > most:
            note = (
                f"grid y and z are at most {limits.max_grid_dim[1]}; only x may go up to {limits.max_grid_dim[0]}: put the long dimension in x"
                if axis != "x" else f"grid x is at most {most} (2^31 - 1)"
            )
            raise LaunchError(f"grid {axis} = {n} exceeds the device limit {most} ({note})")
    if getattr(kernel, "full_warps", False) and threads % limits.warp_size:
        raise LaunchError(
            f"{name} uses warp collectives (shuffles, votes, warp reductions), which need all {limits.warp_size} lanes of "
            f"every warp; block {block} has {threads} threads, not a multiple of {limits.warp_size}"
        )
    if kernel.index_domain == 1 and (grid[1:] != (1, 1) or block[1:] != (1, 1)):
        raise LaunchError(
            f"{name} uses index_1d(): index_1d() is unique only in a 1-D launch, so grid and block must have y = z = 1; "
            f"got grid {grid}, block {block}"
        )
    if kernel.index_domain == 2 and (grid[2] != 1 or block[2] != 1):
        raise LaunchError(
            f"{name} uses index_2d(): index_2d() is unique only in a 2-D launch, so grid and block must have z = 1; "
            f"got grid {grid}, block {block}"
        )
    total = shared_bytes(kernel, config)
    if total > limits.max_shared_per_block_optin:
        raise LaunchError(
            f"{name} needs {_kib(total)} of shared memory per block (static {kernel.static_shared_bytes} + dynamic "
            f"{config.shmem_size}); {limits.name} allows at most {_kib(limits.max_shared_per_block_optin)} per block, "
            "even with the opt-in"
        )
    major, minor, suffix = chip_capability(kernel.chip)
    have = tuple(limits.compute_capability)
    if suffix == "a" and have != (major, minor):
        raise LaunchError(
            f"{name} was compiled for {kernel.chip}, which runs only on compute capability {major}.{minor}; "
            f"{limits.name} has {have[0]}.{have[1]}: compile for {limits.chip}"
        )
    if suffix == "f" and (have[0] != major or have[1] < minor):
        raise LaunchError(
            f"{name} was compiled for {kernel.chip} (family {major}.x, x >= {minor}); {limits.name} has "
            f"{have[0]}.{have[1]}: compile for {limits.chip}"
        )
    if have < (major, minor):
        raise LaunchError(
            f"{name} was compiled for {kernel.chip} (compute capability {major}.{minor}); {limits.name} has only "
            f"{have[0]}.{have[1]}: compile for {limits.chip}"
        )


def pack_scalar(param: ParamSpec, value: Any, kernel_name: str = "") -> Any:
    """`value` as the NumPy scalar of `param.dtype` the kernel ABI passes (exact width).

    bool params take `bool` / `numpy.bool_`; integer params take ints in the dtype's range (not
    bools, not floats); float params take floats and ints that stay finite. bfloat16 is passed as
    its 16 bits (`uint16`). Raises `LaunchError` otherwise, e.g. "scalar n=300 does not fit uint8".
    """
    dt = param.dtype
    at = f"{kernel_name}: " if kernel_name else ""
    got = f"{type(value).__name__} {value!r}"
    if dt.kind == "b":
        if isinstance(value, (bool, numpy.bool_)):
            return numpy.bool_(value)
        raise LaunchError(f"{at}scalar {param.name} is a bool; got {got}: pass True or False")
    if isinstance(value, (bool, numpy.bool_)):
        raise LaunchError(f"{at}scalar {param.name} is {dt.name}; got {got}: pass a number (int(flag) if you mean 0/1)")
    if dt.kind in "iu":
        if not _is_int(value):
            raise LaunchError(f"{at}scalar {param.name} is {dt.name} (an integer); got {got}: pass an int")
        v = int(value)
        lo, hi = _int_range(dt)
        if not lo <= v <= hi:
            raise LaunchError(f"{at}scalar {param.name}={v} does not fit {dt.name} (range [{lo}, {hi}])")
        return dt.type(v)
    # float16 / bfloat16 / float32 / float64
    if not isinstance(value, (int, float, numpy.integer, numpy.floating)):
        raise LaunchError(f"{at}scalar {param.name} is {dt.name} (a float); got {got}: pass a float")
    try:
        as_float = float(value)
    except OverflowError:  # an int of 2**1024 or more: no float holds it (it is not infinity)
        raise LaunchError(f"{at}scalar {param.name}={value!r} does not fit {dt.name} (largest finite value {_float_max(dt):g})") from None
    if dt.name != "bfloat16" and -_float_max_cached(dt) <= as_float <= _float_max_cached(dt):
        return dt.type(as_float)  # within the finite range: the conversion (round to nearest) cannot overflow
    with numpy.errstate(over="ignore"):
        packed = numpy.array(as_float, dtype=dt)
    if math.isfinite(as_float) and not numpy.isfinite(packed.astype(numpy.float64)):
        raise LaunchError(f"{at}scalar {param.name}={value!r} does not fit {dt.name} (largest finite value {_float_max(dt):g})")
    if dt.name == "bfloat16":
        return packed.view(numpy.uint16)[()]
    return packed[()]


_INT_RANGES: dict[Any, tuple[int, int]] = {}
_FLOAT_MAX: dict[Any, float] = {}


def _int_range(dt: numpy.dtype) -> tuple[int, int]:
    """(min, max) of an integer dtype (`numpy.iinfo`), cached."""
    r = _INT_RANGES.get(dt)
    if r is None:
        info = numpy.iinfo(dt)
        r = _INT_RANGES[dt] = (int(info.min), int(info.max))
    return r


def _float_max_cached(dt: numpy.dtype) -> float:
    m = _FLOAT_MAX.get(dt)
    if m is None:
        m = _FLOAT_MAX[dt] = _float_max(dt)
    return m


def _float_max(dt: numpy.dtype) -> float:
    try:
        return float(numpy.finfo(dt).max)
    except ValueError:  # bfloat16: NumPy's finfo does not know it, ml_dtypes' does
        import ml_dtypes

        return float(ml_dtypes.finfo(dt).max)


@dataclass(frozen=True, eq=False)
class PreparedLaunch:
    """The token `launch` requires: `kernel` checked with `config` against `device` and loaded there.

    `shared_optin`: the launch uses more than 48 KiB of shared memory per block, and the kernel's
    dynamic-shared-memory attribute was raised to `config.shmem_size`. Made only by `prepare`.
    """

    kernel: CompiledKernel
    config: LaunchConfig
    device: Device
    shared_optin: bool
    _loaded: module.LoadedKernel = field(repr=False)
    _core_config: Any = field(repr=False)


def prepare(kernel: CompiledKernel, config: LaunchConfig, device: Device | int | None = None) -> PreparedLaunch:
    """Check `config` against `kernel` and `device` (default GPU 0), load the kernel, set the shared
    memory opt-in when the launch needs more than 48 KiB, and return the `PreparedLaunch`.

    Raises `LaunchError` (see `check_launch`; also when the PTX entry's parameters disagree with
    `kernel.params` in number or size) and `DeviceError` (no GPU, PTX rejected by the driver).
    """
    if not isinstance(kernel, CompiledKernel):
        raise LaunchError(f"prepare() takes a CompiledKernel, got {type(kernel).__name__}")
    dev = Device(0 if device is None else device)
    if dev.simulated:
        raise LaunchError(
            f"the CPU simulator runs a kernel's gpu-level IR, not PTX: prepare the kernel itself, "
            f"{kernel.name}.prepare(config, device=...) (or warpforge.runtime.simulated.prepare_lowered)"
        )
    limits = dev.limits
    check_launch(kernel, config, limits)
    loaded = module.load_kernel(kernel, dev)
    _check_abi(kernel)
    optin = needs_shared_optin(kernel, config, limits)
    if optin:
        module.set_max_dynamic_shared(loaded, dev, config.shmem_size)
    try:
        import cuda.core as core

        core_config = core.LaunchConfig(grid=config.grid, block=config.block, shmem_size=config.shmem_size)
    except Exception as e:
        raise _driver.wrap_driver_failure(e, "building the launch configuration") from None
    return PreparedLaunch(kernel, config, dev, optin, loaded, core_config)


_ENTRY_PARAM = re.compile(
    r"\.param\s+(?:\.align\s+\d+\s+)?\.[bsuf](8|16|32|64)\b(?:\s+\.ptr\b[^,\n]*?)?\s+[\w$]+(?:\[(\d+)\])?\s*(?:,|$)"
)


def ptx_entry_param_sizes(ptx: str, entry: str) -> list[int] | None:
    """The byte size of each parameter of `.entry entry(...)` in `ptx`, in order, or None when the
    PTX declares no such entry. PTX ISA §5.1.6.1 (kernel parameters): `.param .u64 x`, `.param .f32
    x`, `.param .align 2 .b8 x[2]` (16-bit floats), `.param .u64 .ptr .global .align 1 x`.

    Raises `LaunchError` for a parameter declaration it cannot read."""
    m = re.search(r"\.entry\s+" + re.escape(entry) + r"\s*\(([^)]*)\)", ptx)
    if m is None:
        return None
    sizes: list[int] = []
    for decl in (d.strip() for d in m.group(1).split(",")):
        if not decl:
            continue
        pm = _ENTRY_PARAM.fullmatch(decl)
        if pm is None:
            raise LaunchError(f"cannot read the parameter declaration {decl!r} of .entry {entry} in the PTX")
        sizes.append(int(pm.group(1)) // 8 * int(pm.group(2) or 1))
    return sizes


def abi_param_sizes(kernel: CompiledKernel) -> list[int]:
    """The byte size of each PTX parameter the kernel ABI (`compiled.py`) passes for `kernel`: a
    slice's pointer and extents 8 each, a scalar its dtype's width, the error record's pointer 8."""
    sizes: list[int] = []
    for p in kernel.params:
        if p.kind == "tensor_map":
            sizes.append(TENSOR_MAP_BYTES)
            continue
        sizes.extend([8] * p.abi_count if p.is_slice else [p.dtype.itemsize])
    sizes += [TENSOR_MAP_BYTES for p in kernel.params for _ in p.tma]  # a TMA ring's descriptors (ParamSpec.tma)
    return sizes + ([8] if kernel.checked else [])


def _check_abi(kernel: CompiledKernel) -> None:
    """The PTX entry the compiler generated must take the parameters `kernel.params` (+ the error
    record) describe, in number and byte size: a mismatch would make the driver read arguments at
    the wrong offsets. Read from the PTX text, so no driver call can fail here (probing the loaded
    kernel with `cuKernelGetParamInfo` fails by design past the last parameter, which
    compute-sanitizer reports as an error)."""
    actual = ptx_entry_param_sizes(kernel.ptx, kernel.entry)
    if actual is None:
        raise LaunchError(f"the PTX of {kernel.name} declares no .entry {kernel.entry}: the kernel was compiled inconsistently")
    expected = abi_param_sizes(kernel)
    if actual != expected:
        described = ", ".join(f"{p.name}: {p.abi_count}" for p in kernel.params) + (", error record: 1" if kernel.checked else "")
        what = (
            f"takes {len(actual)} parameters, but its signature describes {len(expected)} ({described})"
            if len(actual) != len(expected)
            else f"takes parameters of {actual} bytes, but its signature describes {expected} bytes ({described})"
        )
        raise LaunchError(f"the PTX entry {kernel.entry} of {kernel.name} {what}: the kernel was compiled inconsistently")


def _same_kernel(a: CompiledKernel, b: CompiledKernel) -> bool:
    if a is b:
        return True
    # the code itself decides: one source text can compile to different kernels (closure constants)
    return a.entry == b.entry and a.ptx == b.ptx and a.params == b.params


def launch(stream: Any, prepared: PreparedLaunch, args: Sequence[Any], *, kernel: CompiledKernel | None = None) -> None:
    """Enqueue `prepared.kernel` on `stream` with `args` (one per `kernel.params`, in order).

    `stream`: a `Stream`, cuda.core stream, an object with `__cuda_stream__`, or None for the
    device's default stream. `kernel`, when given, must be the kernel `prepared` was made for.
    Slices: `DeviceBuffer` or any DLPack / CUDA-array-interface device array; scalars: Python or
    NumPy numbers that fit the parameter's dtype.

    Stream order (`warpforge.runtime.stream_order`): the launch first waits for the stream each
    `DeviceBuffer` argument was last used on, when that is another stream, and the buffers then
    belong to `stream`; a torch tensor or `__cuda_array_interface__` array is ordered after its own
    stream (torch's current stream, the CAI `stream`), and that stream waits for the launch. Nothing
    synchronizes the host.

    First raises `KernelError` if an earlier checked launch on this device has completed with an
    error (this launch is then not enqueued). Raises `LaunchError` for a wrong token, argument count,
    argument (see `as_device_view`, `pack_scalar`), `AliasError` for an output sharing memory with
    another argument, and `LaunchError` when the driver refuses the launch.
    """
    k, args = _check_call(prepared, args, kernel, "launch(stream, prepared, args)")
    dev = prepared.device
    if dev.simulated:  # a token of `warpforge.runtime.simulated.prepare_kernel`
        from warpforge.runtime.simulated import launch_simulated

        return launch_simulated(stream, prepared, args)
    s = _launch_stream(stream, dev, k)
    dev.make_current()
    errors.check_pending(device=dev, front_only=True)
    packed, views = _pack(k, args, dev, s)
    check_aliasing(k.params, views, k.name)
    # stream order (stream_order.py): wait for the streams the arguments were last used on
    buffers = [a for p, a in zip(k.params, args) if p.is_slice and isinstance(a, DeviceBuffer)]
    foreign = [a for p, a in zip(k.params, args) if p.is_slice and not isinstance(a, DeviceBuffer)]
    homes = stream_order.order_launch(s, buffers, foreign)
    _enqueue(s, prepared, packed, views, homes)


def _check_call(prepared: Any, args: Any, kernel: CompiledKernel | None, call: str) -> tuple[CompiledKernel, tuple[Any, ...]]:
    """The token, kernel and argument-count checks of `launch` and `bind_arguments`."""
    if not isinstance(prepared, PreparedLaunch):
        raise LaunchError(
            f"{call.split('(')[0]}() needs the PreparedLaunch that prepare(kernel, config, device) returned, got {type(prepared).__name__}"
        )
    k = prepared.kernel
    if kernel is not None and not _same_kernel(kernel, k):
        raise LaunchError(
            f"this PreparedLaunch was made for {k.name}, not {kernel.name}: prepare {kernel.name} with its own config"
        )
    if not isinstance(args, (tuple, list)):
        raise LaunchError(f"{call}: args is a tuple or list of {k.name}'s arguments, got {type(args).__name__}")
    args = tuple(args)
    if len(args) != len(k.params):
        names = ", ".join(p.name for p in k.params)
        raise LaunchError(f"{k.name} takes {len(k.params)} argument{'s' if len(k.params) != 1 else ''} ({names}), got {len(args)}")
    return k, args


def _launch_stream(stream: Any, dev: Device, k: CompiledKernel) -> Any:
    s = as_stream(stream, dev)
    if s.device is not dev:
        raise LaunchError(f"{k.name} was prepared for {dev.label}, but the stream belongs to {s.device.label}")
    return s


def _tma() -> Any:
    global _tma_module
    if _tma_module is None:
        from warpforge.runtime import tma

        _tma_module = tma
    return _tma_module


def _cuda_core() -> Any:
    global _core_module
    if _core_module is None:
        import cuda.core

        _core_module = cuda.core
    return _core_module


_tma_module: Any = None
_core_module: Any = None


def _pack(k: CompiledKernel, args: tuple[Any, ...], dev: Device, view_stream: Any) -> tuple[list[Any], list[Any]]:
    """`args` checked and packed per the kernel ABI (`compiled.py`), without the error record: the
    packed values and, per parameter, its `DeviceView` (None for scalars and descriptors).
    `view_stream`: the consumer stream foreign arrays' views are ordered for (None: no ordering)."""
    packed: list[Any] = []
    views: list[Any] = []
    int64 = numpy.int64
    for p, a in zip(k.params, args):
        if p.is_slice:
            v = as_device_view(a, view_stream, param=p, device=dev, kernel_name=k.name)
            if p.align and v.ptr % p.align:
                raise LaunchError(
                    f"{k.name}: argument '{p.name}' at {v.ptr:#x} is not {p.align}-byte aligned, and this compiled kernel "
                    f"{'writes it with' if p.writable else 'reads it with'} {p.align}-byte vector {'stores' if p.writable else 'loads'} "
                    "(vectorize-global-access): launch through the kernel "
                    "(kernel.launch / kernel[grid, block]), which runs its scalar specialization for such pointers"
                )
            views.append(v)
            packed.append(v.ptr)
            if p.strided:  # (ptr, span, extents…, strides but the last…): see ParamSpec.strided
                strides = v.strides if v.strides is not None else tuple(math.prod(v.shape[i + 1 :]) for i in range(len(v.shape)))
                packed.append(int64(v.span))
                packed.extend(_int64s(v.shape))
                packed.extend(_int64s(strides[:-1]))
            else:
                packed.extend(_int64s(v.shape))
        elif p.kind == "tensor_map":  # a TMA descriptor, by value (cuda.core's TensorMapDescriptor)
            views.append(None)
            packed.append(_tma().tensor_map_argument(p, a, k.name).launch_argument(dev))
        else:
            views.append(None)
            packed.append(pack_scalar(p, a, k.name))
            if p.align and int(packed[-1]) % p.align:
                raise LaunchError(
                    f"{k.name}: argument '{p.name}' = {int(packed[-1])} is not a multiple of {p.align}, and this compiled kernel's "
                    "vector loads rely on it (vectorize-global-access): launch through the kernel (kernel.launch / "
                    "kernel[grid, block]), which runs its scalar specialization for such values"
                )
    for p, v in zip(k.params, views):  # a TMA ring's descriptors, built from the tensor argument (ParamSpec.tma)
        if p.tma:
            launch_descriptor = _tma().launch_descriptor
            packed.extend(launch_descriptor(v.ptr, tuple(int(n) for n in v.shape), p.dtype, box, swizzle, dev, k.name, p.name) for box, swizzle in p.tma)
    return packed, views


_INT64S: dict[tuple[int, ...], tuple[Any, ...]] = {}


def _int64s(values: tuple[int, ...]) -> tuple[Any, ...]:
    """`values` as `numpy.int64`s (the ABI's extents and strides), cached per tuple: a program
    launches on few shapes, and NumPy scalars are immutable."""
    got = _INT64S.get(values)
    if got is None:
        if len(_INT64S) >= 1024:
            _INT64S.clear()
        got = _INT64S[values] = tuple(numpy.int64(n) for n in values)
    return got


def _enqueue(s: Any, prepared: PreparedLaunch, packed: Sequence[Any], keep_alive: Any, homes: list[int]) -> None:
    """Attach an error-record slot (checked kernels), enqueue, commit the slot, join the foreign
    arrays' home streams (`stream_order.join_after`)."""
    k = prepared.kernel
    pool = errors.pool_for(prepared.device) if k.checked else None
    slot = pool.acquire(s) if pool is not None else None
    try:
        core = _cuda_core()
        if slot is not None:
            core.launch(s.raw, prepared._core_config, prepared._loaded.function, *packed, slot.device_ptr)
        else:
            core.launch(s.raw, prepared._core_config, prepared._loaded.function, *packed)
    except Exception as e:
        if slot is not None:
            pool.release(slot)  # type: ignore[union-attr]
        if isinstance(e, WarpforgeError):
            raise
        raise LaunchError(_driver.with_sticky_hint(f"the driver refused to launch {k.name} with {prepared.config}: {type(e).__name__}: {e}")) from None
    if slot is not None:
        pool.commit(slot, s, k, keep_alive=keep_alive)  # type: ignore[union-attr]
    stream_order.join_after(s, homes)


@dataclass(frozen=True, eq=False)
class BoundLaunch:
    """A `PreparedLaunch` with its arguments resolved once, on fixed device memory (`bind_arguments`);
    `launch_bound(stream, bound)` enqueues it.

    What depends only on the memory is computed at bind: the argument checks of `launch` (kinds,
    dtypes, ranks, devices, contiguity, read-only outputs, alignment), the packed parameters (pointers,
    extents, strides, scalars, TMA descriptors), and the aliasing check. What can change between
    launches stays per launch: the stream (its device), the pending-error check, stream order (the
    `DeviceBuffer`s' last streams, torch's current stream, a CAI's `stream`, a DLPack export for the
    launch stream) and the error-record slot. A foreign array whose pointer or shape changed since
    the bind is refused (`stream_order.BoundForeign`; DLPack-only arrays cannot be read without an
    export and are not checked). `args`: the arguments as bound; `packed`: the kernel parameters but
    the error record; `views`: per parameter its `DeviceView` (None for scalars), kept alive with
    each checked launch."""

    prepared: PreparedLaunch
    args: tuple[Any, ...]
    packed: tuple[Any, ...]
    views: tuple[Any, ...]
    buffers: tuple[DeviceBuffer, ...]
    foreign: tuple[stream_order.BoundForeign, ...]

    def launch(self, stream: Any) -> None:
        """`launch_bound(stream, self)`."""
        launch_bound(stream, self)


def bind_arguments(prepared: PreparedLaunch, args: Sequence[Any], *, kernel: CompiledKernel | None = None) -> BoundLaunch:
    """Check and pack `args` for `prepared` once (see `BoundLaunch`), as `launch` does at every
    launch. Raises what `launch` raises for the token, the argument count, an argument, or aliased
    outputs (`AliasError`); `LaunchError` for a token of the CPU simulator (launch it with `launch`)."""
    k, args = _check_call(prepared, args, kernel, "bind_arguments(prepared, args)")
    dev = prepared.device
    if dev.simulated:
        raise LaunchError(f"{k.name} is prepared for {dev.label}: the simulator's launches take launch(stream, prepared, args)")
    dev.make_current()
    packed, views = _pack(k, args, dev, None)
    check_aliasing(k.params, views, k.name)
    buffers: list[DeviceBuffer] = []
    foreign: list[stream_order.BoundForeign] = []
    for p, a in zip(k.params, args):
        if not p.is_slice:
            continue
        if isinstance(a, DeviceBuffer):
            if not any(b is a for b in buffers):
                buffers.append(a)
        elif not any(f.obj is a for f in foreign):
            foreign.append(stream_order.BoundForeign(a, f"{k.name}: argument '{p.name}'"))
    return BoundLaunch(prepared, args, tuple(packed), tuple(views), tuple(buffers), tuple(foreign))


def launch_bound(stream: Any, bound: BoundLaunch) -> None:
    """Enqueue `bound` (`bind_arguments`) on `stream` (as `launch`: a `Stream`, cuda.core stream, an
    object with `__cuda_stream__`, or None for the device's default stream).

    Per launch, as `launch`: raises `LaunchError` for a stream of another device, `KernelError` if an
    earlier checked launch on the device has completed with an error (nothing is enqueued), orders
    the launch after the arguments' streams and their home streams after it (`stream_order`), takes
    an error-record slot for a checked kernel; `LaunchError` when a foreign array's memory moved
    since the bind, or when the driver refuses the launch."""
    if not isinstance(bound, BoundLaunch):
        raise LaunchError(f"launch_bound() needs the BoundLaunch that bind_arguments(prepared, args) returned, got {type(bound).__name__}")
    prepared = bound.prepared
    dev = prepared.device
    s = _launch_stream(stream, dev, prepared.kernel)
    dev.make_current()
    errors.check_pending(device=dev, front_only=True)
    homes = stream_order.order_bound_launch(s, bound.buffers, bound.foreign)
    _enqueue(s, prepared, bound.packed, bound.views, homes)
