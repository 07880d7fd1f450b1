"""Layout encodings of the `tile` dialect: how a tile's elements are distributed over the threads of a
CTA (registers) or laid out in shared memory. Triton's encodings (`#ttg.blocked`, `#ttg.slice`,
`#ttg.nvidia_mma`, `#ttg.dot_op`, `#ttg.swizzled_shared`) are the model; the parametrization is ours.

An encoding is the optional last parameter of a tile type: `!tile.tile<64x128xf32, #tile.blocked<vec
= 4, owners = 128, replicas = 1>>`. A tile type without one has no layout assigned yet;
`tile-assign-layouts` gives every tile value one and `tile-to-gpu` reads it.

* `#tile.blocked<vec = V, owners = O, replicas = R>` — the tile's elements in **row-major order** are
  cut into chunks of V contiguous elements; chunk c belongs to owner `c mod O`; thread t of the CTA is
  owner `t / R` (R > 1 only for tiles with fewer chunks than threads: R threads hold each chunk). So
  thread t holds, in register `r·V + v` (r < reps = numel / (V·O), v < V), the row-major element
  `(r·O + t / R)·V + v`; the CTA has O·R threads. This is exactly the layout `tile-to-gpu` always
  used; read per dimension it is Triton's blocked layout with `sizePerThread = [1, …, V]`, row-major
  `order`, O threads (lanes, then warps) laid over the chunks fastest along the last dimension, and
  the R lowest bits of the thread id replicated. V, O, R are powers of two, V divides the last
  dimension (a chunk is one contiguous run in memory) and V·O divides the number of elements.
* `#tile.slice<dim = d, extent = E, parent = #tile.blocked<…>>` — the result of reducing dimension d
  (of extent E) of a tile of the parent layout (with `keepdims`, extent 1 at d; without, d removed;
  E is needed because a blocked layout's placement depends on the shape): thread t holds the reduced
  value of every row it held in the parent, in register order (see `warpforge.passes.tile_to_gpu.
  layouts.SliceLayout`), so broadcasting it back along d to the parent is free.
* `#tile.slice<dim = 1, extent = N, parent = #tile.mma<warps_per_cta = [Wm, 1], …>>` (or a
  `#tile.wgmma` parent) — the **rows** of an M×N MMA accumulator whose warps split M only: an M (or
  M×1) tile of which thread (warp w, lane l) holds, in register 2i + h, row w·M/Wm + 16i + 8h + l/4
  (the accumulator fragment's rows, PTX ISA §9.7.14.5.8; every lane of a quad the same value; warps
  past Wm replicas). A row reduction of the accumulator lands there after quad shuffles, and the
  broadcast back over the columns of any accumulator with the same rows (M, Wm) copies registers
  (`warpforge.passes.lowerings.tile_dot_rows`). The placement does not depend on N: values sharing
  these registers carry one such slice, of the first accumulator reduced.
* `#tile.mma<warps_per_cta = [Wm, Wn], instr_shape = [16, 8]>` — the accumulator of `mma.sync`
  m16n8kK (PTX ISA §9.7.14.5.8, "Matrix fragments for mma.m16n8k16"): an M×N tile is covered by
  Wm×Wn warps, each warp holding (M / Wm) × (N / Wn) as 16×8 fragments. M is a multiple of 16·Wm,
  N of 8·Wn.
* `#tile.dot_operand<op_idx = 0|1, parent = #tile.mma<…>>` — operand A (op_idx 0, M×K) or B (1,
  K×N) of a `tile.dot` whose accumulator has the parent layout, in `mma.sync` fragments (K a
  multiple of 8, the smallest MMA K).
* `#tile.shared<vec = V, per_phase = P, max_phase = M, order = [1, 0]>` — a tile in shared memory,
  XOR-swizzled to avoid bank conflicts (Triton's swizzled shared layout): row i's chunks of V
  elements are permuted by `(i / P) mod M`; `order` lists the dimensions fastest first.

Errors: a parameter that is not a power of two or a shape the encoding cannot cover is a
`VerifyException` naming both.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod

from xdsl.dialects.builtin import ArrayAttr, IntAttr
from xdsl.ir import Attribute, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from warpforge.dialects._common import int_array, int_tuple


def _pow2(n: int) -> bool:
    return n >= 1 and n & (n - 1) == 0


def _check_pow2(what: str, value: int) -> None:
    if not _pow2(value):
        raise VerifyException(f"{what} must be a power of two, got {value}")


class LayoutEncodingAttr(ParametrizedAttribute):
    """The base of the `tile` layout encodings: `verify_shape` checks that a tile of `shape` can have
    this encoding (raising `VerifyException`)."""

    def verify_shape(self, shape: Sequence[int]) -> None:
        raise NotImplementedError


def _parse_fields(parser: AttrParser, names: Sequence[str]) -> dict[str, Attribute | int | list[int]]:
    """`<name = value, …>` with the fields in `names`' order: ints, `[ints]` or attributes (`parent`)."""
    out: dict[str, Attribute | int | list[int]] = {}
    parser.parse_punctuation("<")
    for i, name in enumerate(names):
        if i:
            parser.parse_punctuation(",")
        parser.parse_keyword(name)
        parser.parse_punctuation("=")
        if name == "parent":
            out[name] = parser.parse_attribute()
        elif parser.parse_optional_punctuation("[") is not None:
            values = [parser.parse_integer()]
            while parser.parse_optional_punctuation(",") is not None:
                values.append(parser.parse_integer())
            parser.parse_punctuation("]")
            out[name] = values
        else:
            out[name] = parser.parse_integer()
    parser.parse_punctuation(">")
    return out


def _print_fields(printer: Printer, fields: Sequence[tuple[str, object]]) -> None:
    printer.print_string("<")
    for i, (name, value) in enumerate(fields):
        if i:
            printer.print_string(", ")
        printer.print_string(f"{name} = ")
        if isinstance(value, Attribute):
            printer.print_attribute(value)
        elif isinstance(value, tuple | list):
            printer.print_string("[" + ", ".join(str(v) for v in value) + "]")
        else:
            printer.print_string(str(value))
    printer.print_string(">")


def _int(fields: dict[str, Attribute | int | list[int]], name: str) -> IntAttr:
    value = fields[name]
    if not isinstance(value, int):
        raise VerifyException(f"{name} is an integer, got {value}")
    return IntAttr(value)


def _ints(fields: dict[str, Attribute | int | list[int]], name: str) -> ArrayAttr[IntAttr]:
    value = fields[name]
    if not isinstance(value, list):
        raise VerifyException(f"{name} is a list of integers [..], got {value}")
    return int_array(value)


# --------------------------------------------------------------------------- registers


@irdl_attr_definition
class BlockedEncodingAttr(LayoutEncodingAttr):
    """`#tile.blocked<vec = 4, owners = 128, replicas = 1>`: chunks of `vec` row-major elements dealt
    round-robin to `owners` owners, thread t being owner t / `replicas` (module doc)."""

    name = "tile.blocked"

    vec: IntAttr
    owners: IntAttr
    replicas: IntAttr

    def __init__(self, vec: int, owners: int, replicas: int):
        super().__init__(IntAttr(vec), IntAttr(owners), IntAttr(replicas))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        f = _parse_fields(parser, ("vec", "owners", "replicas"))
        return [_int(f, "vec"), _int(f, "owners"), _int(f, "replicas")]

    def print_parameters(self, printer: Printer) -> None:
        _print_fields(printer, [("vec", self.vec.data), ("owners", self.owners.data), ("replicas", self.replicas.data)])

    def verify(self) -> None:
        for what, v in (("vec", self.vec.data), ("owners", self.owners.data), ("replicas", self.replicas.data)):
            _check_pow2(f"#tile.blocked {what}", v)
        if self.threads > 1024:
            raise VerifyException(f"#tile.blocked needs owners x replicas = {self.threads} threads; a CTA has at most 1024")

    @property
    def threads(self) -> int:
        """Threads of the CTA the layout is for (owners × replicas)."""
        return self.owners.data * self.replicas.data

    def verify_shape(self, shape: Sequence[int]) -> None:
        n, last = prod(shape), (shape[-1] if shape else 1)
        vec, owners = self.vec.data, self.owners.data
        if last % vec:
            raise VerifyException(f"#tile.blocked vec = {vec} must divide the last dimension {last} of the tile")
        if n % (vec * owners):
            raise VerifyException(f"#tile.blocked: {owners} owners of {vec} elements each need a multiple of {vec * owners} elements, the tile has {n}")


@irdl_attr_definition
class SliceEncodingAttr(LayoutEncodingAttr):
    """`#tile.slice<dim = 1, extent = 128, parent = #tile.blocked<…>>`: a reduction's result along
    `dim` of a tile in the `parent` layout whose extent along `dim` was `extent`; each thread keeps
    the rows it held. With a `#tile.mma` / `#tile.wgmma` parent: the rows of that accumulator, held
    in its fragments' rows (module doc)."""

    name = "tile.slice"

    dim: IntAttr
    extent: IntAttr
    parent: Attribute

    def __init__(self, dim: int, extent: int, parent: Attribute):
        super().__init__(IntAttr(dim), IntAttr(extent), parent)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        f = _parse_fields(parser, ("dim", "extent", "parent"))
        parent = f["parent"]
        assert isinstance(parent, Attribute)
        return [_int(f, "dim"), _int(f, "extent"), parent]

    def print_parameters(self, printer: Printer) -> None:
        _print_fields(printer, [("dim", self.dim.data), ("extent", self.extent.data), ("parent", self.parent)])

    def verify(self) -> None:
        if isinstance(self.parent, MmaEncodingAttr | WgmmaEncodingAttr):
            self._verify_rows()
            return
        if not isinstance(self.parent, BlockedEncodingAttr):
            raise VerifyException(f"the parent of #tile.slice is a #tile.blocked, #tile.mma or #tile.wgmma layout, got {self.parent}")
        if self.dim.data < 0:
            raise VerifyException(f"#tile.slice dim must be >= 0, got {self.dim.data}")
        _check_pow2("#tile.slice extent", self.extent.data)

    @property
    def rows_of_mma(self) -> bool:
        """Whether this is the rows slice of an MMA accumulator (parent `#tile.mma` / `#tile.wgmma`)."""
        return isinstance(self.parent, MmaEncodingAttr | WgmmaEncodingAttr)

    def _verify_rows(self) -> None:
        parent = self.parent
        assert isinstance(parent, MmaEncodingAttr | WgmmaEncodingAttr)
        if self.dim.data != 1:
            raise VerifyException(f"#tile.slice of {parent.name} is the rows of the accumulator (dim = 1, the columns reduced), got dim = {self.dim.data}")
        if parent.warps[1] != 1:
            raise VerifyException(f"#tile.slice of {parent.name} needs warps that split M only (warps_per_cta = [Wm, 1]: each warp owns whole rows), got {list(parent.warps)}")
        n = parent.instr[1]
        if self.extent.data < n or self.extent.data % n:
            raise VerifyException(f"#tile.slice of {parent.name}: extent (the accumulator's N) must be a multiple of the fragment's {n} columns, got {self.extent.data}")

    def verify_shape(self, shape: Sequence[int]) -> None:
        if self.rows_of_mma:
            parent = self.parent
            assert isinstance(parent, MmaEncodingAttr | WgmmaEncodingAttr)
            wm = parent.warps[0]
            rows = 16 * wm if isinstance(parent, WgmmaEncodingAttr) else None
            if len(shape) not in (1, 2) or (len(shape) == 2 and shape[1] != 1) or shape[0] % (16 * wm) or (rows is not None and shape[0] != rows):
                want = f"{rows}" if rows is not None else f"M a multiple of {16 * wm}"
                raise VerifyException(f"#tile.slice of {parent.name} with {wm} warps along M holds the rows of the accumulator: an M or Mx1 tile, {want}; got {list(shape)}")
            return
        # keepdims: the parent's shape with extent 1 at dim; without: dim removed. Row-major, both
        # flatten the parent as (elements before dim, extent, elements after dim).
        if self.dim.data > len(shape):
            raise VerifyException(f"#tile.slice dim = {self.dim.data} is out of range for a rank-{len(shape)} tile")
        parent = self.parent
        assert isinstance(parent, BlockedEncodingAttr)
        n, chunk = prod(shape) * self.extent.data, parent.vec.data * parent.owners.data
        if n % chunk:
            raise VerifyException(f"#tile.slice: the parent tile of {n} elements is not a multiple of {parent}'s {chunk}")


class _WarpGridEncoding:
    """What `#tile.mma` and `#tile.wgmma` share: `warps_per_cta` = [warps along M, warps along N] and
    `instr_shape` = [M, N] of one instruction's fragment, printed and parsed as `<warps_per_cta = [..],
    instr_shape = [..]>`. (Each attribute declares the two parameters itself, `ArrayAttr[IntAttr]` each.)"""

    warps_per_cta: ArrayAttr[IntAttr]  # declared by the attribute; named here for the methods below
    instr_shape: ArrayAttr[IntAttr]

    def __init__(self, warps_per_cta: Sequence[int], instr_shape: Sequence[int] = (16, 8)):
        super().__init__(  # pyright: ignore[reportCallIssue]
            int_array(warps_per_cta), int_array(instr_shape)
        )

    @property
    def warps(self) -> tuple[int, int]:
        wm, wn = int_tuple(self.warps_per_cta)
        return wm, wn

    @property
    def instr(self) -> tuple[int, int]:
        m, n = int_tuple(self.instr_shape)
        return m, n

    @property
    def threads(self) -> int:
        return 32 * prod(int_tuple(self.warps_per_cta))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        f = _parse_fields(parser, ("warps_per_cta", "instr_shape"))
        return [_ints(f, "warps_per_cta"), _ints(f, "instr_shape")]

    def print_parameters(self, printer: Printer) -> None:
        _print_fields(printer, [("warps_per_cta", int_tuple(self.warps_per_cta)), ("instr_shape", int_tuple(self.instr_shape))])


@irdl_attr_definition
class MmaEncodingAttr(_WarpGridEncoding, LayoutEncodingAttr):
    """`#tile.mma<warps_per_cta = [2, 2], instr_shape = [16, 8]>`: the `mma.sync` m16n8 accumulator
    (module doc; PTX ISA §9.7.14.5.8)."""

    name = "tile.mma"

    warps_per_cta: ArrayAttr[IntAttr]
    instr_shape: ArrayAttr[IntAttr]

    def verify(self) -> None:
        warps, instr = int_tuple(self.warps_per_cta), int_tuple(self.instr_shape)
        if len(warps) != 2:
            raise VerifyException(f"#tile.mma warps_per_cta is [warps along M, warps along N], got {list(warps)}")
        for w in warps:
            _check_pow2("#tile.mma warps_per_cta", w)
        if prod(warps) > 32:
            raise VerifyException(f"#tile.mma: {prod(warps)} warps; a CTA has at most 32")
        if instr != (16, 8):
            raise VerifyException(f"#tile.mma instr_shape is the mma.sync m16n8 fragment [16, 8], got {list(instr)}")

    def verify_shape(self, shape: Sequence[int]) -> None:
        (wm, wn), (im, in_) = self.warps, self.instr
        if len(shape) != 2 or shape[0] % (im * wm) or shape[1] % (in_ * wn):
            raise VerifyException(f"#tile.mma with {wm}x{wn} warps of {im}x{in_} fragments covers M×N tiles with M a multiple of {im * wm} and N of {in_ * wn}, got {list(shape)}")


@irdl_attr_definition
class WgmmaEncodingAttr(_WarpGridEncoding, LayoutEncodingAttr):
    """`#tile.wgmma<warps_per_cta = [8, 1], instr_shape = [64, 128]>`: the accumulator of `wgmma.mma_async
    .m64nNk16` (PTX ISA §9.7.15.5.1.1, "Register fragments", accumulator D): each warpgroup (4 warps)
    holds one 64×N block, warp w of it rows 16w … 16w + 15; lane l, register 4j + 2h + v holds row
    16w + 8h + l/4, column 8j + 2(l%4) + v — per warp the `#tile.mma` m16n8 placement with N/8 fragments
    along N. `warps_per_cta` is [warps along M, 1] (M = 16 × warps: one m64 per warpgroup),
    `instr_shape` [64, N] the wgmma shape. As Triton's `#nvidia_mma` version 3."""

    name = "tile.wgmma"

    warps_per_cta: ArrayAttr[IntAttr]
    instr_shape: ArrayAttr[IntAttr]

    def verify(self) -> None:
        warps, instr = int_tuple(self.warps_per_cta), int_tuple(self.instr_shape)
        if len(warps) != 2 or warps[1] != 1 or warps[0] % 4 or warps[0] > 32:
            raise VerifyException(f"#tile.wgmma warps_per_cta is [warps along M (a multiple of 4, at most 32), 1], got {list(warps)}")
        if len(instr) != 2 or instr[0] != 64 or not (8 <= instr[1] <= 256 and instr[1] % 8 == 0):
            raise VerifyException(f"#tile.wgmma instr_shape is [64, N] with N a multiple of 8 in [8, 256] (PTX ISA §9.7.15.5.2), got {list(instr)}")

    def verify_shape(self, shape: Sequence[int]) -> None:
        (wm, _), (_, n) = self.warps, self.instr
        if len(shape) != 2 or shape[0] != 16 * wm or shape[1] != n:
            raise VerifyException(f"#tile.wgmma with {wm} warps of m64n{n} covers a {16 * wm}x{n} tile, got {list(shape)}")


@irdl_attr_definition
class DotOperandEncodingAttr(LayoutEncodingAttr):
    """`#tile.dot_operand<op_idx = 0, parent = #tile.mma<…>>`: operand A (0) or B (1) of a `tile.dot`
    whose accumulator is in the parent layout, as `mma.sync` fragments (module doc)."""

    name = "tile.dot_operand"

    op_idx: IntAttr
    parent: Attribute

    def __init__(self, op_idx: int, parent: Attribute):
        super().__init__(IntAttr(op_idx), parent)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        f = _parse_fields(parser, ("op_idx", "parent"))
        parent = f["parent"]
        assert isinstance(parent, Attribute)
        return [_int(f, "op_idx"), parent]

    def print_parameters(self, printer: Printer) -> None:
        _print_fields(printer, [("op_idx", self.op_idx.data), ("parent", self.parent)])

    def verify(self) -> None:
        if self.op_idx.data not in (0, 1):
            raise VerifyException(f"#tile.dot_operand op_idx is 0 (A) or 1 (B), got {self.op_idx.data}")
        if not isinstance(self.parent, MmaEncodingAttr):
            raise VerifyException(f"the parent of #tile.dot_operand is a #tile.mma layout, got {self.parent}")

    def verify_shape(self, shape: Sequence[int]) -> None:
        parent = self.parent
        assert isinstance(parent, MmaEncodingAttr)
        (wm, wn), (im, in_) = parent.warps, parent.instr
        if len(shape) != 2:
            raise VerifyException(f"#tile.dot_operand is for 2-D tiles, got {list(shape)}")
        rows, cols = shape
        k = cols if self.op_idx.data == 0 else rows
        outer, need = (rows, im * wm) if self.op_idx.data == 0 else (cols, in_ * wn)
        if k % 8 or outer % need:
            which = "A (M×K)" if self.op_idx.data == 0 else "B (K×N)"
            raise VerifyException(f"#tile.dot_operand {which} of {list(shape)}: K must be a multiple of 8 and {'M' if self.op_idx.data == 0 else 'N'} of {need}")


# --------------------------------------------------------------------------- shared memory


@irdl_attr_definition
class SharedEncodingAttr(LayoutEncodingAttr):
    """`#tile.shared<vec = 8, per_phase = 1, max_phase = 8, order = [1, 0]>`: a tile in shared memory,
    chunks of `vec` elements XOR-swizzled by `(row / per_phase) mod max_phase` (module doc)."""

    name = "tile.shared"

    vec: IntAttr
    per_phase: IntAttr
    max_phase: IntAttr
    order: ArrayAttr[IntAttr]

    def __init__(self, vec: int, per_phase: int, max_phase: int, order: Sequence[int]):
        super().__init__(IntAttr(vec), IntAttr(per_phase), IntAttr(max_phase), int_array(order))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        f = _parse_fields(parser, ("vec", "per_phase", "max_phase", "order"))
        return [_int(f, "vec"), _int(f, "per_phase"), _int(f, "max_phase"), _ints(f, "order")]

    def print_parameters(self, printer: Printer) -> None:
        _print_fields(
            printer,
            [("vec", self.vec.data), ("per_phase", self.per_phase.data), ("max_phase", self.max_phase.data), ("order", int_tuple(self.order))],
        )

    def verify(self) -> None:
        for what, v in (("vec", self.vec.data), ("per_phase", self.per_phase.data), ("max_phase", self.max_phase.data)):
            _check_pow2(f"#tile.shared {what}", v)
        order = int_tuple(self.order)
        if sorted(order) != list(range(len(order))):
            raise VerifyException(f"#tile.shared order must be a permutation of the dimensions, got {list(order)}")

    def verify_shape(self, shape: Sequence[int]) -> None:
        order = int_tuple(self.order)
        if len(order) != len(shape):
            raise VerifyException(f"#tile.shared order {list(order)} must name each of the {len(shape)} dimensions of the tile")
        fastest = shape[order[0]] if shape else 1
        if fastest % self.vec.data:
            raise VerifyException(f"#tile.shared vec = {self.vec.data} must divide the fastest dimension's extent {fastest}")


LAYOUT_ATTRS = (BlockedEncodingAttr, DotOperandEncodingAttr, MmaEncodingAttr, SharedEncodingAttr, SliceEncodingAttr, WgmmaEncodingAttr)
