"""The chips warpforge compiles for, and the PTX ISA versions each one needs: one table.

Every entry point that takes a chip or a feature string — `kernel.compile(chip, features=...)`,
`warpforge compile --chip/--features`, `warpforge-opt -t 'ptx{chip=... features=...}'`, the
`kernel-to-gpu{chip=... features=...}` / `tile-to-gpu{...}` pass options, an `#nvvm.target` read back
for code generation — goes through `resolve_target`, which refuses unknown chips, malformed feature
strings and PTX versions too old for the chip with a `TargetError` *before* LLVM runs. (LLVM 22's
NVPTX backend accepts an unknown chip with a warning and emits `.target sm_999`; it ends the process
with `LLVM ERROR: PTX version 8.0 does not support target 'sm_100'` for a too-old PTX version, and
with an assertion for a feature without `+`/`-`.)

| chip | compute capability | minimum PTX (LLVM 22) |
|---|---|---|
| `sm_50` `sm_52` `sm_53` | 5.x (Maxwell) | 4.0 4.1 4.2 |
| `sm_60` `sm_61` `sm_62` | 6.x (Pascal) | 5.0 |
| `sm_70` `sm_72` | 7.0 (Volta), 7.2 | 6.0 6.1 |
| `sm_75` | 7.5 (Turing) | 6.3 |
| `sm_80` `sm_86` `sm_87` `sm_88` `sm_89` | 8.x (Ampere, Ada) | 7.0 7.1 7.4 9.0 7.8 |
| `sm_90` `sm_90a` | 9.0 (Hopper) | 7.8 8.0 |
| `sm_100` `sm_100a` `sm_100f`, `sm_101…`, `sm_103…` | 10.x (Blackwell) | 8.6, 8.6, 8.8; 8.6 8.6 8.8; 8.8 |
| `sm_110` `sm_110a` `sm_110f` | 11.0 | 9.0 |
| `sm_120` `sm_120a` `sm_120f`, `sm_121…` | 12.x | 8.7 8.7 8.8; 8.8 |

LLVM 22 also targets `sm_20`…`sm_37` (Fermi, Kepler), but no ptxas that reads PTX 8.0 (warpforge's
baseline, below) assembles for them (CUDA 12 dropped them; ptxas 13 everything before sm_75), so
they are refused (`MIN_SM`) with the list of supported chips.

Sources: the minimum PTX versions are the ones LLVM 22's NVPTX backend enforces (`NVPTX.td`; probed
through llvmlite: `tests/test_chips.py` checks the table against it); the PTX ISA's "Release notes"
and "Target ISA notes" (PTX ISA 9.0, §13) give the same. An `a` chip (`sm_90a`) has
architecture-specific instructions (wgmma, setmaxnreg) and runs only on exactly that compute
capability; an `f` chip (`sm_100f`) runs on its family (10.x with x ≥ its minor). `sm_90a` is its own
target, never folded into `sm_90`.

The default PTX version of a chip is its minimum, but at least PTX 8.0 (CUDA 12.0), the version
warpforge's `nvvm` catalog is written against: sm_90 → 8.0, sm_100 → 8.6, sm_120 → 8.7.

What the installed tools support is read from them, not assumed: `ptxas_chips()` (the `--gpu-name`
values `ptxas --help` lists; ptxas 13.0 dropped everything before sm_75), `ptxas_max_ptx()` (from its CUDA
release) and `driver_max_ptx()` (from `cuDriverGetVersion`); `warpforge doctor` prints them.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from warpforge.errors import TargetError

BASELINE_PTX = 80
"""The default PTX version is at least this (PTX 8.0, CUDA 12.0), as ×10."""


@dataclass(frozen=True)
class Chip:
    """One row of the table: `name` (`sm_90a`), compute capability (`major`, `minor`), `suffix`
    (`""`, `"a"`: architecture-specific, `"f"`: family-specific) and `min_ptx`, the oldest PTX ISA
    version (×10: 78 = PTX 7.8) that can target it."""

    name: str
    major: int
    minor: int
    suffix: str
    min_ptx: int

    @property
    def sm(self) -> int:
        """Compute capability ×10 (sm_90a → 90)."""
        return self.major * 10 + self.minor

    @property
    def default_ptx(self) -> int:
        """The PTX version (×10) used when no `+ptxNN` feature is given: `max(min_ptx, 8.0)`."""
        return max(self.min_ptx, BASELINE_PTX)


MIN_SM = 50
"""The oldest compute capability (×10) warpforge compiles for: sm_50 (Maxwell), the oldest CUDA 12's
ptxas assembles (older chips: `TargetError`)."""

UNSUPPORTED_CHIPS = ("sm_20", "sm_21", "sm_30", "sm_32", "sm_35", "sm_37")
"""Chips LLVM 22's NVPTX backend knows that are older than `MIN_SM` (refused by name)."""


def _rows() -> dict[str, Chip]:
    spec = {
        "sm_50": 40, "sm_52": 41, "sm_53": 42, "sm_60": 50, "sm_61": 50, "sm_62": 50,
        "sm_70": 60, "sm_72": 61, "sm_75": 63,
        "sm_80": 70, "sm_86": 71, "sm_87": 74, "sm_88": 90, "sm_89": 78,
        "sm_90": 78, "sm_90a": 80,
        "sm_100": 86, "sm_100a": 86, "sm_100f": 88,
        "sm_101": 86, "sm_101a": 86, "sm_101f": 88,
        "sm_103": 88, "sm_103a": 88, "sm_103f": 88,
        "sm_110": 90, "sm_110a": 90, "sm_110f": 90,
        "sm_120": 87, "sm_120a": 87, "sm_120f": 88,
        "sm_121": 88, "sm_121a": 88, "sm_121f": 88,
    }  # fmt: skip
    rows = {}
    for name, min_ptx in spec.items():
        m = re.fullmatch(r"sm_(\d+)(\d)([af]?)", name)
        assert m is not None
        rows[name] = Chip(name, int(m.group(1)), int(m.group(2)), m.group(3), min_ptx)
    return rows


CHIPS: dict[str, Chip] = _rows()
"""Every chip warpforge (through LLVM 22's NVPTX backend) can compile for, by name."""

PTX_VERSIONS: tuple[int, ...] = (
    32, 40, 41, 42, 43, 50, 60, 61, 62, 63, 64, 65, 70, 71, 72, 73, 74, 75, 76, 77, 78,
    80, 81, 82, 83, 84, 85, 86, 87, 88, 90,
)  # fmt: skip
"""The PTX ISA versions (×10) LLVM 22's NVPTX backend knows as `+ptxNN` features (it ignores others
with a warning, which would silently pick another version, so they are refused)."""

CUDA_PTX: dict[tuple[int, int], int] = {
    (9, 0): 60, (9, 1): 61, (9, 2): 62, (10, 0): 63, (10, 1): 64, (10, 2): 65,
    (11, 0): 70, (11, 1): 71, (11, 2): 72, (11, 3): 73, (11, 4): 74, (11, 5): 75, (11, 6): 76,
    (11, 7): 77, (11, 8): 78, (12, 0): 80, (12, 1): 81, (12, 2): 82, (12, 3): 83, (12, 4): 84,
    (12, 5): 85, (12, 6): 85, (12, 7): 86, (12, 8): 87, (12, 9): 88, (13, 0): 90,
}  # fmt: skip
"""The newest PTX ISA version (×10) of each CUDA release (PTX ISA release notes): what that release's
ptxas assembles and its driver JIT-compiles."""


def ptx_text(version: int) -> str:
    """80 → `"8.0"`."""
    return f"{version // 10}.{version % 10}"


def cuda_max_ptx(major: int, minor: int) -> int:
    """The newest PTX version (×10) of CUDA `major.minor`; a release newer than the table gets the
    table's newest (newer releases accept every older PTX version)."""
    if (major, minor) in CUDA_PTX:
        return CUDA_PTX[(major, minor)]
    older = [v for (ma, mi), v in CUDA_PTX.items() if (ma, mi) <= (major, minor)]
    return max(older) if older else 0


def chip(name: object) -> Chip:
    """The table row of `name`; `TargetError` for anything else (`sm_999`, `gfx90a`, `""`, `90`)."""
    if isinstance(name, str) and name in CHIPS:
        return CHIPS[name]
    shown = repr(name) if not isinstance(name, str) or not name else f"'{name}'"
    hint = ""
    if isinstance(name, str) and name.startswith("gfx"):
        hint = " (an AMD GPU: warpforge compiles for NVIDIA GPUs only)"
    elif isinstance(name, str) and (m := re.fullmatch(r"(?:sm|compute)_?(\d+)([af]?)", name)) and f"sm_{m.group(1)}{m.group(2)}" in CHIPS:
        hint = f" (did you mean 'sm_{m.group(1)}{m.group(2)}'?)"
    known = ", ".join(CHIPS)
    if isinstance(name, str) and name in UNSUPPORTED_CHIPS:
        raise TargetError(
            f"chip '{name}' is older than warpforge supports (sm_{MIN_SM} and newer: no ptxas that reads PTX 8.0, "
            f"warpforge's baseline, assembles for it; ptxas 13 starts at sm_75): expected one of {known}"
        )
    raise TargetError(f"unknown chip {shown}{hint}: expected one of {known}")


def parse_features(features: object, *, known_only: bool = True) -> int | None:
    """The PTX version (×10) a feature string asks for: `""` → None (the chip's default), `"+ptx86"`
    → 86. `TargetError` for anything else: a missing `+` (`ptx80`), stray characters, several
    versions, and (with `known_only`, as code generation needs) a version LLVM 22 does not know
    (`+ptx91`). IR may name any version (`#nvvm.target` verifies with `known_only=False`, so
    `check-nvvm-target` can reason about it); code generation refuses the unknown ones."""
    if not isinstance(features, str):
        raise TargetError(f"features must be a string such as '+ptx80', got {features!r}")
    text = features.strip()
    if not text:
        return None
    m = re.fullmatch(r"\+ptx(\d+)", text)
    if m is None:
        why = " (a feature starts with '+')" if re.fullmatch(r"ptx\d+", text) else ""
        raise TargetError(
            f"malformed features {features!r}{why}: expected a PTX ISA version such as '+ptx80' (or '' for the chip's default)"
        )
    version = int(m.group(1))
    if known_only and version not in PTX_VERSIONS:
        known = ", ".join(f"+ptx{v}" for v in PTX_VERSIONS)
        raise TargetError(f"unknown PTX ISA version in features '{features}': LLVM 22's NVPTX backend knows {known}")
    return version


@dataclass(frozen=True)
class ResolvedTarget:
    """A checked chip and PTX version: `chip` (the table row), `ptx` (×10) and `features` (`+ptxNN`,
    always explicit, so LLVM never picks a version of its own)."""

    chip: Chip
    ptx: int

    @property
    def features(self) -> str:
        return f"+ptx{self.ptx}"


def resolve_target(chip_name: object, features: object = "") -> ResolvedTarget:
    """Check `chip_name` and `features` against the table and give the PTX version to compile with.

    `features=""` means the chip's default (`Chip.default_ptx`). Raises `TargetError` for an unknown
    chip, malformed features, or a PTX version older than the chip's minimum (`sm_100` with
    `+ptx80`: sm_100 needs PTX 8.6), before anything reaches LLVM.
    """
    row = chip(chip_name)
    asked = parse_features(features)
    if asked is None:
        return ResolvedTarget(row, row.default_ptx)
    if asked < row.min_ptx:
        raise TargetError(
            f"PTX {ptx_text(asked)} (features '{features}') cannot target {row.name}: it needs PTX "
            f"{ptx_text(row.min_ptx)} or newer; use features '+ptx{row.default_ptx}' or '' for the chip's default"
        )
    return ResolvedTarget(row, asked)


def check_opt_level(opt: object) -> int:
    """LLVM's optimization level, 0 to 3; `TargetError` otherwise."""
    if isinstance(opt, bool) or not isinstance(opt, int) or not 0 <= opt <= 3:
        raise TargetError(f"optimization level must be 0, 1, 2 or 3, got {opt!r}")
    return opt


# --------------------------------------------------------------------------- what the installed tools support


@functools.cache
def ptxas_chips() -> tuple[str, ...]:
    """The `sm_XX` names the installed ptxas assembles for (from `ptxas --help`), in table order;
    `()` when no ptxas is found."""
    from warpforge.backend.toolkit import find_ptxas

    path = find_ptxas()
    if path is None:
        return ()
    import subprocess  # here, not at module level: a cache hit never starts a process

    try:
        text = subprocess.run([path, "--help"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return ()
    listed = set(re.findall(r"'(sm_\d+[af]?)'", text))
    return tuple(name for name in CHIPS if name in listed)


@functools.cache
def ptxas_version() -> tuple[int, int] | None:
    """The CUDA release of the installed ptxas (`ptxas --version`: "release 13.0"), or None."""
    from warpforge.backend.toolkit import find_ptxas

    path = find_ptxas()
    if path is None:
        return None
    import subprocess  # here, not at module level: a cache hit never starts a process

    try:
        text = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"release (\d+)\.(\d+)", text)
    return (int(m.group(1)), int(m.group(2))) if m else None


def ptxas_max_ptx() -> int | None:
    """The newest PTX version (×10) the installed ptxas assembles, or None without ptxas."""
    release = ptxas_version()
    return cuda_max_ptx(*release) if release else None


def driver_version() -> tuple[int, int] | None:
    """The CUDA version of the installed driver (`cuDriverGetVersion`), or None without a driver."""
    try:
        from cuda.bindings import driver as drv

        (err,) = drv.cuInit(0)
        if err != drv.CUresult.CUDA_SUCCESS:
            return None
        err, version = drv.cuDriverGetVersion()
        if err != drv.CUresult.CUDA_SUCCESS:
            return None
    except Exception:  # no driver library, or cuda-bindings missing: "no driver"
        return None
    return version // 1000, version % 1000 // 10


def driver_max_ptx() -> int | None:
    """The newest PTX version (×10) the installed driver JIT-compiles, or None without a driver."""
    version = driver_version()
    return cuda_max_ptx(*version) if version else None
