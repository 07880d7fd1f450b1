"""The SIMT programming model: write what one thread does, launch thousands.

```python
@simt.kernel(contract=simt.Contract(domain=1, block=(256, 1, 1)))
def vecadd(a: simt.Slice[f32], b: simt.Slice[f32], c: simt.DisjointSlice[f32]):
    idx = simt.index_1d()          # ThreadIndex: this thread's own index
    i = idx.get()                  # i64, for reading
    c[idx] = a[i] + b[i]           # out of range: not written
```

Inside kernels: `simt.index_1d()`, `simt.index_2d(ncols)` (`.row`, `.col`, `.get()`), the raw ids
`simt.thread_idx / block_idx / block_dim / grid_dim` `.x|.y|.z` (i64), Python's arithmetic with
NumPy 2 typing, `math.*`, `len`, `abs`, `min`, `max`, `int`, `float`, `bool`, dtype conversions
(`wf.i32(x)`), `if`/`for … in range`/`while`/`break`/`continue`/`return`.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from warpforge.frontend.annotations import DisjointSlice, Slice, SliceAnnotation

KERNEL_FUNCTIONS = ("index_1d", "index_2d")
"""Functions of this module that only mean something inside a kernel."""


def _device_only(name: str) -> Any:
    def fn(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(f"simt.{name}() can only be used inside a @simt.kernel function")

    fn.__name__ = name
    fn.__qualname__ = name
    return fn


index_1d = _device_only("index_1d")
index_1d.__doc__ = """`simt.index_1d()`: this thread's `ThreadIndex` in a 1-D launch,
`block_idx.x * block_dim.x + thread_idx.x` (i64). Unique per thread: a kernel using it may be launched
only with grid and block y = z = 1 (checked by `prepare()`)."""
index_2d = _device_only("index_2d")
index_2d.__doc__ = """`simt.index_2d(ncols)`: a 2-D `ThreadIndex`: `.row` = global y, `.col` = global x,
`.get()` = `row * ncols + col`. Writes through it also require `col < ncols`; launches need z = 1."""


@dataclass(frozen=True)
class DimProxy:
    """`simt.thread_idx`, `block_idx`, `block_dim`, `grid_dim`: their `.x/.y/.z` are i64 inside kernels."""

    name: str

    def __getattr__(self, attr: str) -> Any:
        raise RuntimeError(f"simt.{self.name}.{attr} can only be used inside a @simt.kernel function")


thread_idx = DimProxy("thread_idx")
block_idx = DimProxy("block_idx")
block_dim = DimProxy("block_dim")
grid_dim = DimProxy("grid_dim")


def Contract(domain: int | None = None, block: tuple[int, int, int] | int | None = None) -> Any:  # noqa: N802
    """`simt.Contract(domain=1, block=(256, 1, 1))`: the launch contract. `block` is exact (PTX
    `.reqntid`): any other block shape is refused by `prepare()`; `domain=1` also requires grid and
    block y = z = 1, `domain=2` requires z = 1."""
    from warpforge.runtime.launch import Contract as _Contract

    if isinstance(block, int):
        block = (block, 1, 1)
    return _Contract(domain=domain, block=block)


@dataclass
class SimtKernel:
    """A `@simt.kernel` function: compiles on first use (cached per chip), then `prepare` + `launch`.

    `kernel[grid, block](*args)` is the numba-style shorthand: prepare (cached) and launch on the
    device's default stream.
    """

    fn: Any
    contract: Any = None
    launch_bounds: int | None = None
    checks: bool = True
    _compiled: dict[tuple[str, str], Any] = field(default_factory=dict[tuple[str, str], Any], repr=False)
    _prepared: dict[tuple[Any, ...], Any] = field(default_factory=dict[tuple[Any, ...], Any], repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        self.__name__ = getattr(self.fn, "__name__", "kernel")
        self.__qualname__ = getattr(self.fn, "__qualname__", self.__name__)
        self.__doc__ = getattr(self.fn, "__doc__", None)
        self.__wrapped__ = self.fn

    # ------------------------------------------------------------------ compilation

    def kernel_ir(self):
        """The frontend's output (`KernelIR`): a fresh `kernel`-dialect module."""
        from warpforge.frontend.compiler import compile_kernel

        block = None
        if self.contract is not None and self.contract.block is not None:
            block = tuple(self.contract.block)
        return compile_kernel(self.fn, contract_block=block, launch_bounds=self.launch_bounds, checks=self.checks)

    def ir(self, stage: str = "gpu", *, chip: str = "sm_90", features: str = "+ptx80") -> str:
        """The kernel at one compilation stage, as text: `kernel`, `gpu`, `nvvm`, `llvm` (MLIR), `ll`
        (LLVM IR) or `ptx`."""
        from warpforge.compile import Target, lower

        kir = self.kernel_ir()
        out = lower(kir.module, stage, Target(chip, features), module_name=kir.symbol + "_module")
        return out if isinstance(out, str) else str(out)

    def compile(self, chip: str = "sm_90", features: str = "+ptx80") -> Any:
        """Compile for `chip` (cached): a `warpforge.runtime.CompiledKernel`."""
        key = (chip, features)
        with self._lock:
            if key in self._compiled:
                return self._compiled[key]
        compiled = self._compile(chip, features)
        with self._lock:
            self._compiled[key] = compiled
        return compiled

    def _compile(self, chip: str, features: str) -> Any:
        import inspect

        from warpforge.compile import Target, cache_key, error_sites, lower
        from warpforge.runtime.compiled import CompiledKernel, ErrorSite, ParamSpec

        kir = self.kernel_ir()
        module = kir.module
        lower(module, "gpu", Target(chip, features), module_name=kir.symbol + "_module")
        sites = error_sites(module, kir.symbol)  # recorded by kernel-to-gpu on the gpu.func
        lower(module, "llvm", Target(chip, features), start="gpu")
        from warpforge.backend.export import export_llvm_ir
        from warpforge.backend.nvptx import NVPTXOptions, compile_ptx

        ptx = compile_ptx(str(export_llvm_ir(module)), NVPTXOptions(chip=chip, features=features))
        params = []
        for p in kir.params:
            if isinstance(p.annotation, SliceAnnotation):
                params.append(ParamSpec(p.name, p.annotation.kind, p.annotation.dtype.np, 1))
            else:
                params.append(ParamSpec(p.name, "scalar", p.annotation.np, 0))
        domain = max(kir.index_dims) if kir.index_dims else None
        contract_domain = getattr(self.contract, "domain", None) if self.contract is not None else None
        if contract_domain is not None:
            domain = contract_domain if domain is None else min(domain, contract_domain)
        try:
            source = inspect.getsource(self.fn)
        except OSError:
            source = self.__qualname__
        return CompiledKernel(
            name=self.__qualname__,
            entry=kir.symbol,
            ptx=ptx,
            chip=chip,
            params=tuple(params),
            checked=self.checks,
            error_sites=tuple(ErrorSite(s.id, s.kind, _site_message(s), s.filename, s.line, s.col, s.operands) for s in sites),
            exact_block=tuple(self.contract.block) if self.contract is not None and self.contract.block is not None else None,
            max_threads=self.launch_bounds,
            index_domain=domain,
            cache_key=cache_key(source, kir.symbol, chip, features, self.checks, self.launch_bounds, self.contract),
        )

    # ------------------------------------------------------------------ launching

    def prepare(self, config: Any, device: Any = None) -> Any:
        """Check `config` (a `wf.LaunchConfig`) against the contract and the device's limits, load the
        kernel, and return the token `launch` needs. Raises `LaunchError` before anything runs."""
        from warpforge.runtime import Device, prepare

        device = device or Device(0)
        compiled = self.compile(device.chip)
        return prepare(compiled, config, device)

    def launch(self, stream: Any, prepared: Any, *args: Any) -> None:
        """Launch on `stream` with a token from `prepare`. Arguments are checked (dtypes, scalar ranges,
        aliasing of outputs) before the launch; kernel errors surface as `KernelError` at the next sync."""
        from warpforge.runtime import launch

        launch(stream, prepared, args, kernel=self.compile(prepared.device.chip))

    def __getitem__(self, config: Any) -> Any:
        """`kernel[grid, block]` or `kernel[grid, block, stream]` or `kernel[grid, block, stream, shmem]`."""
        if not isinstance(config, tuple) or not 2 <= len(config) <= 4:
            raise TypeError("use kernel[grid, block] or kernel[grid, block, stream] or kernel[grid, block, stream, shmem_size]")
        grid, block = config[0], config[1]
        stream = config[2] if len(config) > 2 else None
        shmem = config[3] if len(config) > 3 else 0

        def run(*args: Any) -> None:
            from warpforge.runtime import Device, LaunchConfig

            device = Device(0)
            key = (repr(grid), repr(block), shmem, device.chip)
            prepared = self._prepared.get(key)
            if prepared is None:
                prepared = self.prepare(LaunchConfig(grid=grid, block=block, shmem_size=shmem), device)
                self._prepared[key] = prepared
            self.launch(stream or device.default_stream, prepared, *args)

        return run

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"{self.__qualname__} is a GPU kernel: launch it with {self.__name__}[grid, block](...) or prepare()/launch()")


def _site_message(site: Any) -> str:
    what = f"{site.text}: " if site.text else ""
    if site.kind == "out-of-range read":
        return f"{what}read out of range" if what else "read out of range"
    return f"{what}{site.kind}" if what else site.kind


def kernel(fn: Any = None, *, contract: Any = None, launch_bounds: int | None = None, checks: bool = True) -> Any:
    """Decorator: `@simt.kernel` or `@simt.kernel(contract=…, launch_bounds=256, checks=False)`.

    `checks=False` compiles out the bounds and division checks (division by zero then gives 0, still
    never undefined behaviour). Compilation errors are `CompileError`s, raised at the first compile.
    """

    def wrap(f: Any) -> SimtKernel:
        return SimtKernel(f, contract=contract, launch_bounds=launch_bounds, checks=checks)

    return wrap(fn) if fn is not None else wrap


__all__ = [
    "Contract",
    "DisjointSlice",
    "SimtKernel",
    "Slice",
    "block_dim",
    "block_idx",
    "grid_dim",
    "index_1d",
    "index_2d",
    "kernel",
    "thread_idx",
]
