"""The compiler → runtime contract: what the frontend hands the runtime for one compiled kernel.

A `CompiledKernel` is plain data (PTX text, the parameter list, the launch contract, the checked-mode
error sites); the runtime never looks at Python source. Kernel ABI (DESIGN.md, "Kernel ABI"):

- a slice parameter (`ParamSpec.kind` ends in `slice`) is a `ptr addrspace(1)` (u64 device pointer)
  followed by one `i64` per dimension: `length` (1-D) or `rows, cols` (2-D, row-major);
- a scalar passes by value at its exact width (bool as one byte);
- in checked mode (`CompiledKernel.checked`) a hidden last parameter points to the launch's error
  record: 8 × int64, zero before the launch — `[0]` number of errors, `[1]` `ErrorSite.id`, `[2]`,
  `[3]` the site's two operands, `[4]` blockIdx.x, `[5]` blockIdx.y, `[6]` threadIdx.x, `[7]` threadIdx.y.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy
else:  # NumPy loads at first use, not at `import warpforge`
    from warpforge.lazy_import import numpy

SLICE_KINDS = frozenset({"slice", "disjoint_slice", "atomic_slice", "raw_slice"})
"""Parameter kinds passed as (pointer, extents…)."""
WRITABLE_KINDS = frozenset({"disjoint_slice", "atomic_slice", "raw_slice"})
"""Slice kinds the kernel may write: outputs, checked for aliasing against every other argument."""
PARAM_KINDS = SLICE_KINDS | {"scalar", "tensor_map"}
TENSOR_MAP_BYTES = 128
"""A `tensor_map` parameter is one 128-byte, 64-byte aligned `.param` (a `__grid_constant__` CUtensorMap)."""

ALIGN_BYTES = 16
"""The pointer alignment a SIMT kernel's launch-time specialization assumes of its `Slice`,
`DisjointSlice` and `RawSlice` arguments (bytes: one 128-bit `ld.global.nc.v4` / `st.global.v4`; every
warpforge allocation is 256-byte aligned)."""

RECORD_WORDS = 8
"""Words (int64) in a checked launch's error record."""
RECORD_BYTES = 8 * RECORD_WORDS


def as_numpy_dtype(dtype: Any) -> numpy.dtype:
    """`dtype` as a `numpy.dtype`: anything `numpy.dtype()` accepts, or an object with a `.np` dtype
    (warpforge's `wf.f32` etc.). Raises `TypeError` when it is neither."""
    if isinstance(dtype, numpy.dtype):
        return dtype
    np_attr = getattr(dtype, "np", None)
    if np_attr is not None and not callable(np_attr):
        return numpy.dtype(np_attr)
    return numpy.dtype(dtype)


@dataclass(frozen=True)
class ParamSpec:
    """One kernel parameter as the user passes it.

    `kind`: `"slice"` (read-only input), `"disjoint_slice"` (output written at the thread's own
    index), `"scalar"`; later `"atomic_slice"`, `"raw_slice"`. `dtype`: element dtype (slices) or
    value dtype (scalars) — bool, int8…int64, uint8…uint64, float16, bfloat16, float32, float64.
    `ndim`: slices only, 1 (passes ptr, length), 2 (ptr, rows, cols), up to 4 for tile tensors (ptr,
    then each extent).
    `"tensor_map"` (`simt.TensorMap[dtype, box, swizzle]`): a TMA descriptor, one 128-byte parameter;
    `dtype` its element type, `box` the box shape (outermost first, `ndim` = its rank), `swizzle` its
    shared-memory swizzle — the launch refuses a descriptor that differs.
    """

    name: str
    kind: str
    dtype: numpy.dtype
    ndim: int = 1
    strided: bool = False
    """A tile kernel's strided view (last axis contiguous): passes (ptr, span, extents…, strides but
    the last…) — `span` the elements from the first to one past the last."""
    box: tuple[int, ...] = ()
    swizzle: str = ""
    align: int = 0
    """What the compiled code relies on (its vector loads and stores, `vectorize-global-access`): for a slice the
    pointer's alignment in bytes, for an integer scalar a divisor of its value; 0 when nothing. The
    launch refuses an argument without it."""
    tma: tuple[tuple[tuple[int, ...], str], ...] = ()
    """For a tile kernel's tensor whose tiles a TMA ring copies (`tile-tma-ring`): per descriptor the
    kernel takes, its (box, swizzle). The launch builds each from the argument (address, shape, dtype;
    `warpforge.runtime.tma.launch_descriptor`) and passes them, 128 bytes each, after every
    parameter's own (before the error record)."""

    def __post_init__(self) -> None:
        if self.kind not in PARAM_KINDS:
            raise ValueError(f"parameter {self.name!r}: unknown kind {self.kind!r} (one of {sorted(PARAM_KINDS)})")
        object.__setattr__(self, "dtype", as_numpy_dtype(self.dtype))
        if self.kind == "tensor_map" and (len(self.box) != self.ndim or not self.box):
            raise ValueError(f"parameter {self.name!r}: a tensor map's box {self.box} must have ndim={self.ndim} extents")
        if self.kind in SLICE_KINDS and self.ndim not in (1, 2, 3, 4):
            raise ValueError(f"parameter {self.name!r}: slices are 1-D to 4-D, got ndim={self.ndim}")

    @property
    def writable(self) -> bool:
        """True for outputs (disjoint, atomic and raw slices)."""
        return self.kind in WRITABLE_KINDS

    @property
    def is_slice(self) -> bool:
        return self.kind in SLICE_KINDS

    @property
    def abi_count(self) -> int:
        """PTX parameters this parameter becomes: 1 + ndim for slices (2 + 2·ndim − 1 for a strided
        view), 1 for scalars."""
        if self.is_slice and self.strided:
            return 2 + 2 * self.ndim - 1
        return 1 + self.ndim if self.is_slice else 1


@dataclass(frozen=True)
class ErrorSite:
    """A place in the source where a checked kernel can record an error.

    `id` is the value the kernel writes into record[1] (ids start at 1); `kind` e.g.
    `"out-of-range read"`, `"integer division by zero"`; `message` what the source said
    (`"a[i] read out of range"`); `operands` names record[2] and record[3].
    """

    id: int
    kind: str
    message: str
    filename: str
    line: int
    col: int
    operands: tuple[str, str] = ("index", "length")


@dataclass(frozen=True)
class CompiledKernel:
    """A kernel compiled to PTX, with everything the runtime checks before and after a launch.

    `exact_block`: the contract's block (PTX `.reqntid`), any other block is refused.
    `max_threads`: launch bounds (`.maxntid`), block x*y*z must not exceed it.
    `index_domain`: 1 — the kernel uses `index_1d()`, so grid and block need y = z = 1;
    2 — `index_2d()`, so z = 1; None — no requirement.
    `static_shared_bytes`: the kernel's static shared memory, bytes per block.
    `cache_key`: the disk-cache key (source, signature, options, chip, compiler; see
    `warpforge.compile.kernel_key`), empty when the source was not available.
    `full_warps`: the kernel uses warp collectives (shuffles, votes, warp reductions), which need
    every lane of each warp: blocks must have a multiple of 32 threads.
    """

    name: str
    entry: str
    ptx: str
    chip: str
    params: tuple[ParamSpec, ...]
    checked: bool
    error_sites: tuple[ErrorSite, ...]
    exact_block: tuple[int, int, int] | None
    max_threads: int | None
    index_domain: int | None
    static_shared_bytes: int = 0
    cache_key: str = ""
    full_warps: bool = False
    source: tuple[str, int] | None = None
    """(file, line) of the kernel's definition, for warnings about the compiled code (spills)."""
    launch_condition: str = ""
    """The checks' entry condition when the host can decide it (`hoist-checks`, JSON; see
    `warpforge.runtime.launch_condition`), else empty."""

    @property
    def abi_param_count(self) -> int:
        """Number of PTX parameters of the entry, the TMA descriptors (`ParamSpec.tma`) and the hidden
        error-record pointer included."""
        return sum(p.abi_count + len(p.tma) for p in self.params) + (1 if self.checked else 0)

    def error_site(self, site_id: int) -> ErrorSite | None:
        """The site with `id == site_id`, or None."""
        for site in self.error_sites:
            if site.id == site_id:
                return site
        return None
