"""Resource reports: what ptxas says a compiled kernel uses, and the cubin it made.

`report(compiled)` assembles the kernel's PTX with `ptxas -v -arch=<chip>` (once: the cubin and the
log are cached on disk, keyed by the PTX's SHA-256, the chip and the ptxas binary) and parses, per
`.entry`, the lines ptxas prints (CUDA's `ptxas` "info" lines, as `nvcc -Xptxas -v` shows them):

    ptxas info    : Compiling entry function 'sgemm' for 'sm_90'
        0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
    ptxas info    : Used 127 registers, used 1 barriers, 16640 bytes smem, 400 bytes cmem[0]

A kernel that spills gets a `CompileWarning` at its source line with a hint. `cubin(compiled)` gives
the cubin for loading (the driver's JIT is then skipped), or None without ptxas.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import warnings
from dataclasses import dataclass
from typing import Any

_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '([^']+)'")
_PROPS = re.compile(r"Function properties for (\S+)")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers")
_SMEM = re.compile(r"(\d+) bytes smem")
_CMEM = re.compile(r"(\d+) bytes cmem\[0\]")


@dataclass(frozen=True)
class KernelResources:
    """One `.entry` as ptxas compiled it: `registers` per thread, `spill_stores`/`spill_loads` (bytes
    per thread moved to and from local memory), `local_bytes` (the stack frame: local arrays and
    spills, per thread), `shared_bytes` (static shared memory per block), `constant_bytes`
    (`cmem[0]`: the parameters), all as ptxas -v reports them."""

    name: str
    chip: str
    registers: int = 0
    spill_stores: int = 0
    spill_loads: int = 0
    local_bytes: int = 0
    shared_bytes: int = 0
    constant_bytes: int = 0
    dynamic_shared_bytes: int = 0
    """Dynamic shared memory each launch gives the block (a tile kernel's cp.async / TMA rings and
    their mbarriers: the launch's `shmem_size`); ptxas does not see it."""

    @property
    def spills(self) -> bool:
        return self.spill_stores > 0 or self.spill_loads > 0

    def __str__(self) -> str:
        return (
            f"{self.name} ({self.chip}): {self.registers} registers, {self.spill_stores} bytes spill stores, "
            f"{self.spill_loads} bytes spill loads, {self.local_bytes} bytes local, {self.shared_bytes} bytes shared"
            + (f" (+ {self.dynamic_shared_bytes} bytes dynamic shared)" if self.dynamic_shared_bytes else "")
        )


@dataclass(frozen=True)
class ResourceReport:
    """`kernel.report()`: one `KernelResources` per `.entry`, and ptxas's own log (`log`)."""

    kernels: tuple[KernelResources, ...]
    log: str

    def __getitem__(self, name: str) -> KernelResources:
        for k in self.kernels:
            if k.name == name:
                return k
        raise KeyError(name)

    def __str__(self) -> str:
        return "\n".join(str(k) for k in self.kernels)


def parse_ptxas_log(log: str) -> tuple[KernelResources, ...]:
    """The `KernelResources` of every entry function in a `ptxas -v` log."""
    found: dict[str, dict[str, Any]] = {}
    current: str | None = None  # the entry the next "Used" line belongs to
    props: str | None = None  # the function the next stack-frame line belongs to
    for line in log.splitlines():
        if m := _ENTRY.search(line):
            current = m.group(1)
            found.setdefault(current, {"name": current, "chip": m.group(2)})
        elif m := _PROPS.search(line):
            props = m.group(1)
        elif (m := _FRAME.search(line)) and props in found:
            found[props].update(local_bytes=int(m.group(1)), spill_stores=int(m.group(2)), spill_loads=int(m.group(3)))
        elif (m := _USED.search(line)) and current in found:
            found[current]["registers"] = int(m.group(1))
            if s := _SMEM.search(line):
                found[current]["shared_bytes"] = int(s.group(1))
            if c := _CMEM.search(line):
                found[current]["constant_bytes"] = int(c.group(1))
    return tuple(KernelResources(**d) for d in found.values())


def _ptxas_identity(path: str) -> tuple[str, int, int]:
    st = os.stat(path)
    return (path, st.st_size, st.st_mtime_ns)


def assemble(compiled: Any) -> tuple[bytes, str]:
    """(cubin, ptxas -v log) for a `CompiledKernel`, from the disk cache or ptxas. Raises
    `FileNotFoundError` without ptxas, `PtxasError` when it rejects the PTX."""
    from warpforge import cache
    from warpforge.backend.toolkit import find_ptxas, run_ptxas

    ptxas = find_ptxas()
    if ptxas is None:
        raise FileNotFoundError("ptxas not found: install the CUDA toolkit or `pip install nvidia-cuda-nvcc==13.0.*`")
    key = cache.digest("cubin", hashlib.sha256(compiled.ptx.encode()).hexdigest(), compiled.chip, _ptxas_identity(ptxas))
    store = cache.default_cache()
    if store is not None:
        sections = store.get("cubin", key)
        if sections is not None and "cubin" in sections and "log" in sections:
            try:
                return sections["cubin"], sections["log"].decode()
            except UnicodeDecodeError:
                store.discard("cubin", key)
    result = run_ptxas(compiled.ptx, compiled.chip, verbose=True)
    if store is not None:
        store.put("cubin", key, {"cubin": result.cubin, "log": result.log.encode()})
    return result.cubin, result.log


def report(compiled: Any, *, warn: bool = True, dynamic_shared: int = 0) -> ResourceReport:
    """The `ResourceReport` of a `CompiledKernel` (see the module docstring), each kernel's
    `dynamic_shared_bytes` set to `dynamic_shared`; with `warn`, a `CompileWarning` for each kernel
    that spills."""
    from dataclasses import replace

    _, log = assemble(compiled)
    kernels = parse_ptxas_log(log)
    if dynamic_shared:
        kernels = tuple(replace(k, dynamic_shared_bytes=dynamic_shared) for k in kernels)
    result = ResourceReport(kernels, log)
    if warn:
        for k in result.kernels:
            if k.spills:
                warn_spills(compiled, k)
    return result


def warn_spills(compiled: Any, k: KernelResources) -> None:
    from warpforge.errors import CompileWarning

    filename, line = compiled.source if getattr(compiled, "source", None) else ("<unknown>", 0)
    warnings.warn_explicit(
        f"{compiled.name}: ptxas spills registers to local memory ({k.spill_stores} bytes stored, {k.spill_loads} bytes "
        f"loaded per thread; {k.registers} registers): keep fewer values live (smaller tiles, a smaller "
        "simt.local_array, fewer simt.static_range iterations), spread a tile over more threads (num_warps), or "
        "let each thread use more registers (a smaller launch_bounds or min_blocks_per_sm)",
        CompileWarning,
        filename,
        line,
    )


def cubin(compiled: Any) -> bytes | None:
    """The cubin of a `CompiledKernel` for loading, or None (no ptxas, `WARPFORGE_PTXAS=0`, or ptxas
    rejected the PTX: the driver's JIT then reports the problem)."""
    from warpforge.environment import flag

    if not flag("WARPFORGE_PTXAS", True):
        return None
    from warpforge.backend.toolkit import PtxasError

    try:
        blob, log = assemble(compiled)
    except (FileNotFoundError, PtxasError, OSError):
        return None
    for k in parse_ptxas_log(log):
        if k.spills:
            warn_spills(compiled, k)
    return blob


def report_json(r: ResourceReport) -> str:
    """The report as JSON (for tools)."""
    return json.dumps([k.__dict__ for k in r.kernels])
