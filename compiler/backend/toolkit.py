"""Finding the CUDA tools the backend uses: `ptxas` (to check and assemble PTX) and libdevice.

A system CUDA install is used when present (`CUDA_HOME`, `CUDA_PATH`, `/usr/local/cuda`, `ptxas` on
`PATH`); otherwise the PyPI packages `nvidia-cuda-nvcc` (ptxas) and `nvidia-nvvm`
(`nvvm/libdevice/libdevice.10.bc`), located with `cuda.pathfinder`.
"""

from __future__ import annotations

import functools
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from warpforge.errors import WarpforgeError


def _cuda_homes() -> list[Path]:
    homes = [os.environ.get(v) for v in ("CUDA_HOME", "CUDA_PATH")]
    return [Path(h) for h in homes if h] + [Path("/usr/local/cuda")]


@functools.cache
def find_ptxas() -> str | None:
    """Path of `ptxas`, or None when neither a CUDA install nor `nvidia-cuda-nvcc` provides one."""
    return ptxas_origin()[0]


@functools.cache
def ptxas_origin() -> tuple[str | None, str]:
    """(path of `ptxas` or None, why that one): the first of `$CUDA_HOME`, `$CUDA_PATH`,
    `/usr/local/cuda` (a system CUDA install is preferred: it matches the system's driver), `PATH`,
    then the `nvidia-cuda-nvcc` wheel (found with `cuda.pathfinder`)."""
    homes = [(os.environ.get(v), f"${v}") for v in ("CUDA_HOME", "CUDA_PATH")] + [("/usr/local/cuda", "/usr/local/cuda")]
    for home, name in homes:
        if home and (Path(home) / "bin" / "ptxas").is_file():
            return str(Path(home) / "bin" / "ptxas"), f"from {name}: a system CUDA install is preferred to the nvidia-cuda-nvcc wheel"
    if found := shutil.which("ptxas"):
        return found, "from PATH: a system CUDA install is preferred to the nvidia-cuda-nvcc wheel"
    try:
        from cuda.pathfinder import find_nvidia_binary_utility

        found = find_nvidia_binary_utility("ptxas")
    except Exception:  # pathfinder missing or broken: report "not found"
        found = None
    if found:
        return found, "from the nvidia-cuda-nvcc wheel (no CUDA install in $CUDA_HOME, $CUDA_PATH, /usr/local/cuda or on PATH)"
    return None, "no CUDA install ($CUDA_HOME, $CUDA_PATH, /usr/local/cuda, PATH) and no nvidia-cuda-nvcc wheel"


@functools.cache
def find_libdevice() -> str | None:
    """Path of `libdevice.10.bc`, or None when neither a CUDA install nor `nvidia-nvvm` provides it."""
    for home in _cuda_homes():
        candidate = home / "nvvm" / "libdevice" / "libdevice.10.bc"
        if candidate.is_file():
            return str(candidate)
    try:
        from cuda.pathfinder import find_bitcode_lib

        return find_bitcode_lib("device")
    except Exception:
        return None


class PtxasError(WarpforgeError):
    """ptxas rejected the PTX; the message holds its diagnostics."""


@dataclass(frozen=True)
class PtxasReport:
    """What `ptxas -v` said about a PTX module: its output text and the cubin it produced."""

    log: str
    cubin: bytes


def run_ptxas(ptx: str, chip: str = "sm_90", *, verbose: bool = True, extra: tuple[str, ...] = ()) -> PtxasReport:
    """Assemble `ptx` for `chip` with ptxas; return its log and cubin.

    Raises `PtxasError` with ptxas's diagnostics when it rejects the PTX, and `FileNotFoundError`
    when no ptxas is installed (see `find_ptxas`).
    """
    ptxas = find_ptxas()
    if ptxas is None:
        raise FileNotFoundError(
            "ptxas not found: install the CUDA toolkit or `pip install nvidia-cuda-nvcc==13.0.*`"
        )
    with tempfile.TemporaryDirectory(prefix="warpforge-ptxas-") as tmp:
        src, out = Path(tmp) / "kernel.ptx", Path(tmp) / "kernel.cubin"
        src.write_text(ptx)
        cmd = [ptxas, f"-arch={chip}", *(["-v"] if verbose else []), *extra, "-o", str(out), str(src)]
        import subprocess  # only when ptxas runs: not loaded by every compile

        proc = subprocess.run(cmd, capture_output=True, text=True)
        log = (proc.stdout + proc.stderr).replace(str(src), "kernel.ptx")
        if proc.returncode != 0:
            raise PtxasError(f"ptxas rejected the PTX for {chip}:\n{log.strip()}")
        return PtxasReport(log=log, cubin=out.read_bytes())
