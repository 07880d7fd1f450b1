"""Autotuning tile kernels: `@tile.autotune(configs=[tile.Config(...), ...], key=[...])`, as Triton's
`triton.autotune`.

```python
@tile.autotune(configs=[tile.Config(BK=32, num_warps=4), tile.Config(BK=64, num_warps=8)], key=["x"])
@tile.kernel
def rowsum(z: tile.Tensor[f32, ("BM",)], x: tile.Tensor[f32, (-1, -1)], BK: wf.Constant[int]):
    ...

out = rowsum(z.partition((128,)), x)        # BK (and num_warps) come from the best config for x's shape
```

A `Config` names values for the kernel's `wf.Constant` parameters (tile sizes and other compile-time
options, by parameter name; the call then omits those arguments) and optionally `num_warps` (threads
per CTA / 32, overriding the kernel's). `key` names parameters: a new value of a scalar, or a new
shape of a tensor argument (its partition's tile shape included), or new dtypes of the tensor
arguments, start a new tuning.

The first call with a new key on a GPU times every config: each is compiled for the device (a config
that fails to compile or to launch is skipped, with a note) and launched on scratch tensors of the
call's shapes and dtypes (filled with ones; the call's own data is not touched, nothing of the lazy chain runs), `warmup`
times, then `rep` times between CUDA events (`cuEventRecord` / `cuEventElapsedTime`, cuda.bindings);
the median decides. The winner is kept in memory and in the on-disk cache (`warpforge.cache`, kind
`autotune`), keyed by the kernel (its source fingerprint), the configs, the device's name and chip and
the key's values, so the next process reuses it without timing. `WARPFORGE_PRINT_AUTOTUNING=1` prints
each tuning's table (config, milliseconds or why skipped) and the choice to stderr.

On the CPU simulator nothing is timed (its time says nothing about a GPU's): the first config that
compiles is used. `timer=` replaces the CUDA-event timer (tests use a fake one): `timer(launch, config)`
returns milliseconds, `launch()` enqueues the config's kernel once on the scratch tensors.

Raises `UsageError` when the decorator's configs are empty or malformed (not `tile.Config`s, a name
that is not a `wf.Constant` parameter of the kernel, a `num_warps` that is not a power of two up to 32,
configs that bind different parameters, a key naming no parameter) and `LaunchError` when every
config fails.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from warpforge.errors import LaunchError, UsageError

PRINT_ENV = "WARPFORGE_PRINT_AUTOTUNING"
CACHE_KIND = "autotune"


class Config:
    """`tile.Config(BK=64, num_warps=8)`: values for the kernel's `wf.Constant` parameters, by name,
    and optionally `num_warps` (a power of two, 1..32)."""

    __slots__ = ("kwargs", "num_warps")

    def __init__(self, num_warps: int | None = None, **kwargs: Any):
        if num_warps is not None and type(num_warps).__module__ == "numpy" and hasattr(num_warps, "__index__"):
            num_warps = int(num_warps)  # a NumPy int as a Python int
        if num_warps is not None and (isinstance(num_warps, bool) or not isinstance(num_warps, int) or num_warps not in (1, 2, 4, 8, 16, 32)):
            raise UsageError(f"tile.Config: num_warps is a power of two from 1 to 32, got {num_warps!r}")
        for name, value in kwargs.items():
            if isinstance(value, bool) or not isinstance(value, int | float | bool):
                raise UsageError(f"tile.Config: {name}={value!r} is not a compile-time number (a wf.Constant value: int, float or bool)")
        self.kwargs: dict[str, Any] = dict(kwargs)
        self.num_warps = num_warps

    def __repr__(self) -> str:
        parts = [f"{k}={v!r}" for k, v in self.kwargs.items()] + ([f"num_warps={self.num_warps}"] if self.num_warps is not None else [])
        return f"tile.Config({', '.join(parts)})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Config) and other.kwargs == self.kwargs and other.num_warps == self.num_warps

    def __hash__(self) -> int:
        return hash((tuple(sorted(self.kwargs.items())), self.num_warps))


Timer = Callable[[Callable[[], None], Config], float]


@dataclass(frozen=True)
class Trial:
    """One config's result in a tuning: `ms` (None when skipped) and `note` (why it was skipped)."""

    config: Config
    ms: float | None
    note: str = ""


@dataclass(eq=False)
class AutotunedKernel:
    """A `@tile.kernel` with `@tile.autotune(...)`: call it as the kernel, without the arguments the
    configs bind. `best_config(*args)` says which config a call with `args` uses (tuning if needed);
    `trials` holds the latest tuning's `Trial`s per key."""

    kernel: Any
    configs: tuple[Config, ...]
    key: tuple[str, ...]
    warmup: int = 3
    rep: int = 20
    timer: Timer | None = None
    _params: list[str] = field(default_factory=list, repr=False)
    _bound: tuple[str, ...] = field(default=(), repr=False)
    _chosen: dict[Any, Config] = field(default_factory=dict, repr=False)
    _variants: dict[Config, Any] = field(default_factory=dict, repr=False)
    trials: dict[Any, tuple[Trial, ...]] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        from warpforge.tile import TileKernel
        from warpforge.tile_compile import _annotations, _is_constant_annotation  # pyright: ignore[reportPrivateUsage]

        if not isinstance(self.kernel, TileKernel):
            raise UsageError(f"tile.autotune decorates a @tile.kernel (put @tile.autotune(...) above @tile.kernel), got {type(self.kernel).__name__}")
        name = self.kernel.__qualname__
        self.__name__, self.__qualname__ = self.kernel.__name__, name
        self.__doc__ = self.kernel.__doc__
        if not isinstance(self.configs, Sequence) or isinstance(self.configs, str | bytes) or not self.configs:
            raise UsageError(f"tile.autotune({name}): configs is a non-empty list of tile.Config(...), got {self.configs!r}")
        self.configs = tuple(self.configs)
        bad = [c for c in self.configs if not isinstance(c, Config)]
        if bad:
            raise UsageError(f"tile.autotune({name}): configs are tile.Config(...) objects, got {bad[0]!r}")
        anns = _annotations(self.kernel)
        self._params = [n for n, _ in anns]
        constants = {n for n, a in anns if _is_constant_annotation(a)}
        bound = tuple(self.configs[0].kwargs)
        for c in self.configs:
            for n in c.kwargs:
                if n not in constants:
                    what = "is not a parameter" if n not in self._params else "is not a wf.Constant parameter"
                    raise UsageError(f"tile.autotune({name}): {c!r}: '{n}' {what} of {name} (its wf.Constant parameters: {sorted(constants) or 'none'})")
            if set(c.kwargs) != set(bound):
                raise UsageError(f"tile.autotune({name}): every config binds the same parameters; {c!r} differs from {self.configs[0]!r}")
        self._bound = tuple(n for n in self._params if n in bound)
        if isinstance(self.key, str) or not all(isinstance(k, str) for k in self.key):
            raise UsageError(f"tile.autotune({name}): key is a list of parameter names, got {self.key!r}")
        self.key = tuple(self.key)
        for k in self.key:
            if k not in self._params or k in self._bound:
                raise UsageError(f"tile.autotune({name}): key '{k}' is not an argument of the call (arguments: {', '.join(self._call_params())})")
        if not (isinstance(self.warmup, int) and self.warmup >= 0 and isinstance(self.rep, int) and self.rep >= 1):
            raise UsageError(f"tile.autotune({name}): warmup >= 0 and rep >= 1 are ints, got warmup={self.warmup!r}, rep={self.rep!r}")

    # ------------------------------------------------------------------ calls

    def _call_params(self) -> list[str]:
        return [n for n in self._params if n not in self._bound]

    def __call__(self, *args: Any) -> Any:
        config = self.best_config(*args)
        return self.variant(config)(*self.full_args(config, args))

    def full_args(self, config: Config, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """The kernel's arguments: `args` with the config's values at their parameters' places."""
        names = self._call_params()
        if len(args) != len(names):
            raise LaunchError(
                f"{self.__qualname__} (autotuned) takes {len(names)} argument(s) ({', '.join(names)}); "
                f"the configs give {', '.join(self._bound) or 'nothing else'}; got {len(args)}"
            )
        given = dict(zip(names, args))
        return tuple(config.kwargs[n] if n in config.kwargs else given[n] for n in self._params)

    def variant(self, config: Config) -> Any:
        """The `TileKernel` for `config` (its `num_warps`), one per config."""
        from warpforge.tile import TileKernel

        with self._lock:
            v = self._variants.get(config)
            if v is None:
                base = self.kernel
                v = TileKernel(base.fn, num_warps=config.num_warps if config.num_warps is not None else base.num_warps, checks=base.checks)
                self._variants[config] = v
            return v

    # ------------------------------------------------------------------ choosing

    def key_values(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """What identifies a tuning: each key argument's value (scalars) or shape (tensors; with the
        tile shape for partitions), and the dtypes of every tensor argument."""
        given = dict(zip(self._call_params(), args))
        out: list[tuple[str, str]] = [(k, _describe(given.get(k))) for k in self.key]
        out.append(("dtypes", ",".join(str(a.dtype.name) for a in args if hasattr(a, "dtype") and hasattr(a, "shape"))))
        return tuple(out)

    def best_config(self, *args: Any) -> Config:
        """The config a call with `args` uses: remembered (this process, then the disk cache), else
        tuned now (see the module docstring)."""
        from warpforge.runtime import Device

        device = Device(0)
        kv = self.key_values(args)
        mem_key = (device.label, kv)
        with self._lock:
            hit = self._chosen.get(mem_key)
        if hit is not None:
            return hit
        disk_key = self._disk_key(device, kv)
        config = self._load(disk_key)
        if config is None:
            config = self._tune(device, args, kv)
            if not getattr(device, "simulated", False) or self.timer is not None:
                self._store(disk_key, config)
        with self._lock:
            self._chosen[mem_key] = config
        return config

    def _tune(self, device: Any, args: tuple[Any, ...], kv: tuple[Any, ...]) -> Config:
        from warpforge.runtime.lazy import tile_chip

        simulated = getattr(device, "simulated", False)
        trials: list[Trial] = []
        for config in self.configs:
            full = self.full_args(config, args)
            try:
                self.variant(config).compile(*full, chip=tile_chip(device))
            except Exception as e:  # a config that does not compile is skipped, never fatal
                trials.append(Trial(config, None, f"does not compile: {_first_line(e)}"))
                continue
            if simulated and self.timer is None:
                trials.append(Trial(config, None, "first config that compiles (the simulator times nothing)"))
                break
            try:
                ms = self._time(device, config, args)
            except Exception as e:
                trials.append(Trial(config, None, f"does not run: {_first_line(e)}"))
                continue
            trials.append(Trial(config, ms))
        self.trials[kv] = tuple(trials)
        timed = [t for t in trials if t.ms is not None]
        if timed:
            best = min(timed, key=lambda t: t.ms).config  # pyright: ignore[reportArgumentType, reportCallIssue]
        elif simulated and self.timer is None and trials and "first config" in trials[-1].note:
            best = trials[-1].config
        else:
            notes = "; ".join(f"{t.config!r} {t.note}" for t in trials)
            raise LaunchError(f"{self.__qualname__}: no autotuning config works for {_key_text(kv)}: {notes}")
        from warpforge.environment import flag

        if flag(PRINT_ENV):
            self._print(kv, trials, best)
        return best

    def _time(self, device: Any, config: Config, args: tuple[Any, ...]) -> float:
        stream = device.create_stream()
        variant = self.variant(config)
        if getattr(device, "simulated", False):  # only with a given timer: each launch runs the chain on fresh scratch

            def launch() -> None:
                variant(*self.full_args(config, _scratch_args(args, stream))).sync_on(stream)

        else:
            bound = variant.bind(*self.full_args(config, _scratch_args(args, stream)), device=device)

            def launch() -> None:
                bound.launch(stream)

        if self.timer is not None:
            return float(self.timer(launch, config))
        return _event_median_ms(launch, stream, self.warmup, self.rep)

    def _print(self, kv: tuple[Any, ...], trials: list[Trial], best: Config) -> None:
        lines = [f"autotuning {self.__qualname__} for {_key_text(kv)}:"]
        for t in trials:
            lines.append(f"  {t.config!r:50} {f'{t.ms:.4f} ms' if t.ms is not None else t.note}")
        lines.append(f"  chose {best!r}")
        print("\n".join(lines), file=sys.stderr)

    # ------------------------------------------------------------------ the disk cache

    def _disk_key(self, device: Any, kv: tuple[Any, ...]) -> str | None:
        from warpforge.compile import kernel_key

        return kernel_key("autotune", self.kernel.fn, repr(self.configs), self.key, device.name, device.chip, repr(kv), self.kernel.checks)

    def _load(self, key: str | None) -> Config | None:
        from warpforge import cache

        store = cache.default_cache()
        if key is None or store is None:
            return None
        sections = store.get(CACHE_KIND, key)
        if sections is None:
            return None
        try:
            index = int(json.loads(sections["meta"])["config"])
            return self.configs[index]
        except (KeyError, ValueError, TypeError, IndexError):
            store.discard(CACHE_KIND, key)
            return None

    def _store(self, key: str | None, config: Config) -> None:
        from warpforge import cache

        store = cache.default_cache()
        if key is None or store is None:
            return
        meta = {"config": self.configs.index(config), "repr": repr(config)}
        store.put(CACHE_KIND, key, {"meta": json.dumps(meta).encode()})


def _describe(arg: Any) -> str:
    """A key argument as stable text: `shape (1000,)`, `shape (1000,) in tiles (256,)`, or its value."""
    from warpforge.runtime.lazy import PartitionedTensor

    if isinstance(arg, PartitionedTensor):
        return f"shape {tuple(arg.shape)} in tiles {tuple(arg.tile_shape)}"
    if hasattr(arg, "shape") and hasattr(arg, "dtype"):
        return f"shape {tuple(arg.shape)}"
    if hasattr(arg, "item") and callable(arg.item):
        arg = arg.item()
    return repr(arg)


def _key_text(kv: tuple[Any, ...]) -> str:
    return ", ".join(f"{k}: {v}" for k, v in kv)


def _first_line(e: Exception) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"


def _scratch_args(args: tuple[Any, ...], stream: Any) -> tuple[Any, ...]:
    """Device tensors of the shapes and dtypes of `args`' tensors, for timing: filled with ones (no
    division by zero for a checked kernel to record, indices in range); partitions are partitioned the
    same way; scalars pass as they are."""
    import numpy

    from warpforge.runtime.lazy import LazyTensor, PartitionedTensor, from_host, tensor
    from warpforge.runtime.memory import DeviceBuffer

    def ones(a: Any) -> Any:
        host = numpy.ones(tuple(a.shape), a.dtype.np)
        if getattr(stream, "simulated", False):  # the simulator's chain makes its tensors from host arrays
            return from_host(host)
        return tensor(DeviceBuffer.from_host(stream, host))

    out: list[Any] = []
    for a in args:
        if isinstance(a, PartitionedTensor):
            out.append(ones(a).partition(a.tile_shape))
        elif isinstance(a, LazyTensor):
            out.append(ones(a))
        else:
            out.append(a)
    if not getattr(stream, "simulated", False):
        stream.sync()
    return tuple(out)


def _event_median_ms(launch: Callable[[], None], stream: Any, warmup: int, rep: int) -> float:
    """Milliseconds per launch on `stream`: `warmup` launches, then `rep` launches with a CUDA event
    between each (cuda.bindings `cuEventRecord` / `cuEventElapsedTime`), the median."""
    from cuda.bindings import driver as drv

    handle = drv.CUstream(int(stream.raw.handle))
    for _ in range(warmup):
        launch()
    drv.cuStreamSynchronize(handle)
    events = [drv.cuEventCreate(0)[1] for _ in range(rep + 1)]
    try:
        drv.cuEventRecord(events[0], handle)
        for k in range(rep):
            launch()
            drv.cuEventRecord(events[k + 1], handle)
        drv.cuEventSynchronize(events[-1])
        times = [drv.cuEventElapsedTime(events[k], events[k + 1])[1] for k in range(rep)]
    finally:
        for e in events:
            drv.cuEventDestroy(e)
    import statistics  # not at `import warpforge` (statistics imports fractions, decimal)

    return float(statistics.median(times))


def autotune(configs: Sequence[Config], key: Sequence[str], *, warmup: int = 3, rep: int = 20, timer: Timer | None = None) -> Callable[[Any], AutotunedKernel]:
    """Decorator: `@tile.autotune(configs=[tile.Config(...), ...], key=["x"])` above `@tile.kernel`
    (see the module docstring). `warmup`, `rep`: launches before and between the CUDA events."""

    def wrap(kernel: Any) -> AutotunedKernel:
        return AutotunedKernel(kernel, tuple(configs) if isinstance(configs, Sequence) and not isinstance(configs, str) else configs, tuple(key) if not isinstance(key, str) else key, warmup, rep, timer)  # pyright: ignore[reportArgumentType]

    return wrap
