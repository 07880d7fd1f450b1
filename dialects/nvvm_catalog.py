"""The `nvvm` catalog: one row per `nvvm` op — the LLVM 22 intrinsic it becomes, its operand and result
types, and the minimum SM and PTX ISA version the instruction needs.

This table is the single source of truth: `warpforge.dialects.nvvm` builds its ops from it, their
verifiers and `check-nvvm-target` read the requirements from it, `convert-nvvm-to-llvm` reads the
intrinsic names from it, and `tests/test_nvvm_catalog.py` compiles every row to PTX and checks no
`.extern .func llvm.` call (the symptom of a misspelled intrinsic) reaches the output.

Rows with `arch_specific` (wgmma fence/commit/wait, setmaxnreg; and `WGMMA_SPEC` for
`nvvm.wgmma.mma_async`, whose lowering is inline PTX) exist only on `sm_90a`.

Sources: PTX ISA 9.0 (§10 special registers, §9.7.13 parallel synchronization, §9.7.9 `shfl.sync`,
`vote.sync`, `match.sync`, `redux.sync`, `activemask`); LLVM's `IntrinsicsNVVM.td` (LLVM 22) for the
intrinsic names and signatures; MLIR's `NVVMOps.td` for op names.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class IntrinsicSpec:
    """One `nvvm` op.

    `operands`/`results` are MLIR type names (`i1`, `i32`, `i64`, `f32`, `f64`, and for the
    tensor-core rows `f16`, `v2f16` = `vector<2xf16>`, `ptr1`/`ptr3` = `!llvm.ptr<1>`/`!llvm.ptr<3>`,
    global and shared pointers); `immediates` are
    constant arguments the lowering appends *before* the operands (e.g. the barrier id 0).
    `min_sm` is the compute capability ×10 (sm_90 → 90), `min_ptx` the PTX ISA version ×10 (8.0 → 80).
    """

    op: str
    intrinsic: str
    operands: tuple[str, ...]
    results: tuple[str, ...]
    min_sm: int
    min_ptx: int
    ptx: str
    summary: str
    immediates: tuple[tuple[str, int], ...] = ()
    pure: bool = False
    """No side effects and the same value each time within a thread (special registers)."""
    convergent: bool = False
    """Must be reached by the threads named in its mask/block together (barriers, warp collectives)."""
    names: tuple[str, ...] = ()
    """Operand names (default `arg0`, `arg1`, …)."""
    properties: tuple[tuple[str, str], ...] = ()
    """Integer properties of the op (name, type), passed to the intrinsic as immediates after
    `immediates` and before the operands (`nvvm.cp.async.wait.group {n = 1 : i32}`)."""
    arch_specific: bool = False
    """Needs the architecture-specific target of `min_sm` (`sm_90a`, PTX ISA §5.1 "arch-specific
    features"): refused on plain `sm_90` and on any other chip (an `sm_90a` cubin runs only on cc 9.0)."""
    trailing: tuple[tuple[str, int], ...] = ()
    """Constant arguments the lowering appends *after* the operands (TMA's multicast mask, cache hint
    and their enable flags, all off)."""
    casts: tuple[tuple[int, int], ...] = ()
    """(operand index, address space): operands the lowering `addrspacecast`s before the call (TMA's
    destination: shared `ptr<3>` → `shared::cluster` `ptr<7>`)."""

    def operand_names(self) -> tuple[str, ...]:
        return self.names or tuple(f"arg{i}" for i in range(len(self.operands)))

    @property
    def sm(self) -> str:
        return f"sm_{self.min_sm}{'a' if self.arch_specific else ''}"

    @property
    def ptx_version(self) -> str:
        return f"{self.min_ptx // 10}.{self.min_ptx % 10}"


def _sregs() -> list[IntrinsicSpec]:
    rows: list[IntrinsicSpec] = []
    for reg, what in (("tid", "thread index in the block"), ("ntid", "threads per block"),
                      ("ctaid", "block index in the grid"), ("nctaid", "blocks per grid")):  # fmt: skip
        for axis in "xyz":
            rows.append(
                IntrinsicSpec(
                    op=f"nvvm.read.ptx.sreg.{reg}.{axis}",
                    intrinsic=f"llvm.nvvm.read.ptx.sreg.{reg}.{axis}",
                    operands=(),
                    results=("i32",),
                    min_sm=20,
                    min_ptx=20,
                    ptx=f"%{reg}.{axis}",
                    summary=f"{what}, {axis} (PTX ISA §10)",
                    pure=True,
                )
            )
    rows += [
        IntrinsicSpec("nvvm.read.ptx.sreg.laneid", "llvm.nvvm.read.ptx.sreg.laneid", (), ("i32",), 20, 20,
                      "%laneid", "lane within the warp, 0–31 (PTX ISA §10.4)", pure=True),
        IntrinsicSpec("nvvm.read.ptx.sreg.warpsize", "llvm.nvvm.read.ptx.sreg.warpsize", (), ("i32",), 20, 20,
                      "WARP_SZ", "threads per warp, 32 (PTX ISA §10.5)", pure=True),
        IntrinsicSpec("nvvm.read.ptx.sreg.clock64", "llvm.nvvm.read.ptx.sreg.clock64", (), ("i64",), 20, 20,
                      "%clock64", "per-SM cycle counter (PTX ISA §10.16)"),
        IntrinsicSpec("nvvm.read.ptx.sreg.globaltimer", "llvm.nvvm.read.ptx.sreg.globaltimer", (), ("i64",), 30, 31,
                      "%globaltimer", "global nanosecond timer (PTX ISA §10.22)"),
        IntrinsicSpec("nvvm.read.ptx.sreg.dynamic_smem_size", "llvm.nvvm.read.ptx.sreg.dynamic_smem_size", (), ("i32",),
                      20, 41, "%dynamic_smem_size", "bytes of dynamic shared memory of the launch (PTX ISA §10.31)",
                      pure=True),
    ]  # fmt: skip
    return rows


def _sync() -> list[IntrinsicSpec]:
    return [
        IntrinsicSpec("nvvm.barrier0", "llvm.nvvm.barrier.cta.sync.aligned.all", (), (), 20, 20,
                      "bar.sync 0", "block-wide barrier (PTX ISA §9.7.13.1)",
                      immediates=(("i32", 0),), convergent=True),
        IntrinsicSpec("nvvm.barrier0.popc", "llvm.nvvm.barrier.cta.red.popc.aligned.all", ("i1",), ("i32",), 20, 20,
                      "bar.red.popc.u32", "block-wide barrier counting the threads whose predicate holds (PTX ISA §9.7.13.1)",
                      immediates=(("i32", 0),), convergent=True, names=("pred",)),
        IntrinsicSpec("nvvm.barrier0.and", "llvm.nvvm.barrier.cta.red.and.aligned.all", ("i1",), ("i1",), 20, 20,
                      "bar.red.and.pred", "block-wide barrier: true if the predicate holds in every thread (PTX ISA §9.7.13.1)",
                      immediates=(("i32", 0),), convergent=True, names=("pred",)),
        IntrinsicSpec("nvvm.barrier0.or", "llvm.nvvm.barrier.cta.red.or.aligned.all", ("i1",), ("i1",), 20, 20,
                      "bar.red.or.pred", "block-wide barrier: true if the predicate holds in any thread (PTX ISA §9.7.13.1)",
                      immediates=(("i32", 0),), convergent=True, names=("pred",)),
        IntrinsicSpec("nvvm.bar.warp.sync", "llvm.nvvm.bar.warp.sync", ("i32",), (), 70, 60,
                      "bar.warp.sync", "warp barrier over the lanes of a mask (PTX ISA §9.7.13.2)",
                      convergent=True, names=("mask",)),
        IntrinsicSpec("nvvm.membar.cta", "llvm.nvvm.membar.cta", (), (), 20, 20,
                      "membar.cta", "memory fence, block scope (PTX ISA §9.7.13.4)"),
        IntrinsicSpec("nvvm.membar.gl", "llvm.nvvm.membar.gl", (), (), 20, 20,
                      "membar.gl", "memory fence, device scope (PTX ISA §9.7.13.4)"),
        IntrinsicSpec("nvvm.membar.sys", "llvm.nvvm.membar.sys", (), (), 20, 20,
                      "membar.sys", "memory fence, system scope (PTX ISA §9.7.13.4)"),
    ]  # fmt: skip


def _warp() -> list[IntrinsicSpec]:
    rows: list[IntrinsicSpec] = []
    for mode, ptx_mode in (("bfly", "bfly"), ("up", "up"), ("down", "down"), ("idx", "idx")):
        for ty in ("i32", "f32"):
            rows.append(
                IntrinsicSpec(
                    op=f"nvvm.shfl.sync.{mode}.{ty}",
                    intrinsic=f"llvm.nvvm.shfl.sync.{mode}.{ty}",
                    operands=("i32", ty, "i32", "i32"),
                    results=(ty,),
                    min_sm=30,
                    min_ptx=60,
                    ptx=f"shfl.sync.{ptx_mode}.b32",
                    summary=f"warp shuffle ({mode}) of 32 bits: mask, value, lane/offset, clamp (PTX ISA §9.7.9.6)",
                    convergent=True,
                    names=("mask", "val", "offset", "clamp"),
                )
            )
            rows.append(
                IntrinsicSpec(
                    op=f"nvvm.shfl.sync.{mode}.{ty}p",
                    intrinsic=f"llvm.nvvm.shfl.sync.{mode}.{ty}p",
                    operands=("i32", ty, "i32", "i32"),
                    results=(ty, "i1"),
                    min_sm=30,
                    min_ptx=60,
                    ptx=f"shfl.sync.{ptx_mode}.b32",
                    summary=f"warp shuffle ({mode}) of 32 bits, also giving whether the source lane was in range (PTX ISA §9.7.9.6)",
                    convergent=True,
                    names=("mask", "val", "offset", "clamp"),
                )
            )
    rows += [
        IntrinsicSpec("nvvm.vote.any.sync", "llvm.nvvm.vote.any.sync", ("i32", "i1"), ("i1",), 30, 60,
                      "vote.sync.any.pred", "true if the predicate holds in any lane of the mask (PTX ISA §9.7.13.8)",
                      convergent=True, names=("mask", "pred")),
        IntrinsicSpec("nvvm.vote.all.sync", "llvm.nvvm.vote.all.sync", ("i32", "i1"), ("i1",), 30, 60,
                      "vote.sync.all.pred", "true if the predicate holds in every lane of the mask (PTX ISA §9.7.13.8)",
                      convergent=True, names=("mask", "pred")),
        IntrinsicSpec("nvvm.vote.ballot.sync", "llvm.nvvm.vote.ballot.sync", ("i32", "i1"), ("i32",), 30, 60,
                      "vote.sync.ballot.b32", "bit i set when lane i's predicate holds (PTX ISA §9.7.13.8)",
                      convergent=True, names=("mask", "pred")),
        IntrinsicSpec("nvvm.activemask", "llvm.nvvm.activemask", (), ("i32",), 30, 62,
                      "activemask.b32", "mask of the lanes executing this instruction (PTX ISA §9.7.13.9)",
                      convergent=True),
        IntrinsicSpec("nvvm.match.any.sync.i32", "llvm.nvvm.match.any.sync.i32", ("i32", "i32"), ("i32",), 70, 60,
                      "match.any.sync.b32", "lanes of the mask holding the same 32-bit value (PTX ISA §9.7.13.10)",
                      convergent=True, names=("mask", "val")),
        IntrinsicSpec("nvvm.match.any.sync.i64", "llvm.nvvm.match.any.sync.i64", ("i32", "i64"), ("i32",), 70, 60,
                      "match.any.sync.b64", "lanes of the mask holding the same 64-bit value (PTX ISA §9.7.13.10)",
                      convergent=True, names=("mask", "val")),
    ]  # fmt: skip
    redux_ptx = {"add": "add.s32", "min": "min.s32", "max": "max.s32", "umin": "min.u32", "umax": "max.u32",
                 "and": "and.b32", "or": "or.b32", "xor": "xor.b32"}  # fmt: skip
    for kind, ptx_suffix in redux_ptx.items():
        rows.append(
            IntrinsicSpec(
                op=f"nvvm.redux.sync.{kind}",
                intrinsic=f"llvm.nvvm.redux.sync.{kind}",
                operands=("i32", "i32"),
                results=("i32",),
                min_sm=80,
                min_ptx=70,
                ptx=f"redux.sync.{ptx_suffix}",
                summary=f"warp reduction ({kind}) of a 32-bit integer over the mask: value, mask (PTX ISA §9.7.13.11)",
                convergent=True,
                names=("val", "mask"),
            )
        )
    return rows


# --------------------------------------------------------------------------- tensor cores


@dataclass(frozen=True)
class MMAShape:
    """One `mma.sync` shape/type combination (PTX ISA 9.0 §9.7.14.5.14, "Matrix multiply-accumulate
    operation using mma instruction"; MLIR's `NVVM_MMAOp` table plays the same part).

    `m, n, k`: D (m×n) = A (m×k) · B (k×n) + C (m×n), A row-major, B column-major (`.row.col`, the
    only layout of these shapes). `a`, `c`, `d` are PTX element types (`f16`, `bf16`, `tf32`, `s8`,
    `u8`, `f32`, `s32`); B has A's type. `a_regs`/`b_regs`/`c_regs`/`d_regs` are the registers of
    each lane's fragment as catalog type names (a `v2f16` holds two f16, an `i32` two bf16, one
    tf32 or four 8-bit integers), each operand's per-lane element count is `elements`. The LLVM 22
    intrinsic is `llvm.nvvm.mma.<shape>.row.col.<suffix>`: named by the D and C types for f16 inputs
    (`f32.f32`, `f16.f16`), by the input type otherwise (`bf16`, `tf32`, `s8`, `u8`).
    """

    m: int
    n: int
    k: int
    a: str
    c: str
    a_regs: tuple[str, ...]
    b_regs: tuple[str, ...]
    c_regs: tuple[str, ...]
    suffix: str
    min_sm: int = 80
    min_ptx: int = 70

    @property
    def d(self) -> str:
        return self.c

    @property
    def shape(self) -> str:
        return f"m{self.m}n{self.n}k{self.k}"

    @property
    def d_regs(self) -> tuple[str, ...]:
        return self.c_regs

    @property
    def op(self) -> str:
        """The `nvvm` op name: PTX's qualifiers in PTX's order (`…m16n8k16.row.col.f32.f16.f16.f32`)."""
        return f"nvvm.mma.sync.{self.shape}.row.col.{self.d}.{self.a}.{self.a}.{self.c}"

    @property
    def intrinsic(self) -> str:
        return f"llvm.nvvm.mma.{self.shape}.row.col.{self.suffix}"

    @property
    def ptx(self) -> str:
        return f"mma.sync.aligned.{self.shape}.row.col.{self.d}.{self.a}.{self.a}.{self.c}"

    def elements(self, operand: str) -> int:
        """Elements of `operand` ("a", "b", "c", "d") each lane holds: m·k/32, k·n/32, m·n/32."""
        return {"a": self.m * self.k, "b": self.k * self.n, "c": self.m * self.n, "d": self.m * self.n}[operand] // 32


MMA_SHAPES: tuple[MMAShape, ...] = (
    MMAShape(16, 8, 16, "f16", "f32", ("v2f16",) * 4, ("v2f16",) * 2, ("f32",) * 4, "f32.f32"),
    MMAShape(16, 8, 16, "f16", "f16", ("v2f16",) * 4, ("v2f16",) * 2, ("v2f16",) * 2, "f16.f16"),
    MMAShape(16, 8, 16, "bf16", "f32", ("i32",) * 4, ("i32",) * 2, ("f32",) * 4, "bf16"),
    MMAShape(16, 8, 8, "tf32", "f32", ("i32",) * 4, ("i32",) * 2, ("f32",) * 4, "tf32"),
    MMAShape(16, 8, 32, "s8", "s32", ("i32",) * 4, ("i32",) * 2, ("i32",) * 4, "s8"),
    MMAShape(16, 8, 32, "u8", "s32", ("i32",) * 4, ("i32",) * 2, ("i32",) * 4, "u8"),
)
"""Every `mma.sync` combination warpforge emits: the verifier (the ops' operand types), the
intrinsic-name builder (`MMAShape.intrinsic`), `check-nvvm-target` (`min_sm`/`min_ptx`: sm_80 and
PTX 7.0 for all of these) and `tests/test_nvvm_catalog.py` (the PTX mnemonic) read it."""


def fragment_layout(row: MMAShape, operand: str, lane: int, i: int) -> tuple[int, int]:
    """(row, column) of the matrix entry that element `i` of `lane`'s fragment of `operand` ("a":
    m×k, "b": k×n, "c"/"d": m×n) holds — PTX ISA 9.0 §9.7.14.5.8 (m16n8k8), .5.9 (m16n8k16), .5.10
    (m16n8k32), "Matrix Fragments for mma.m16n8kK". With g = lane / 4 and t = lane % 4:

    | operand | 16-bit inputs (k16) | tf32 (k8) | 8-bit inputs (k32) |
    |---|---|---|---|
    | A | (g + 8·(i/2 % 2), 2t + i%2 + 8·(i/4)) | (g + 8·(i%2), t + 4·(i/2)) | (g + 8·(i/4 % 2), 4t + i%4 + 16·(i/8)) |
    | B | (2t + i%2 + 8·(i/2), g) | (t + 4·i, g) | (4t + i%4 + 16·(i/4), g) |
    | C, D | (g + 8·(i/2), 2t + i%2) | same | same |

    Elements are packed into registers in order, the lower index in the lower bits."""
    g, t = lane // 4, lane % 4
    if operand in ("c", "d"):
        return g + 8 * (i // 2), 2 * t + i % 2
    if row.a in ("f16", "bf16"):
        return (g + 8 * (i // 2 % 2), 2 * t + i % 2 + 8 * (i // 4)) if operand == "a" else (2 * t + i % 2 + 8 * (i // 2), g)
    if row.a == "tf32":
        return (g + 8 * (i % 2), t + 4 * (i // 2)) if operand == "a" else (t + 4 * i, g)
    return (g + 8 * (i // 4 % 2), 4 * t + i % 4 + 16 * (i // 8)) if operand == "a" else (4 * t + i % 4 + 16 * (i // 4), g)


def mma_shape(shape: str, a: str, c: str) -> MMAShape | None:
    """The `MMA_SHAPES` row for a shape name (`"m16n8k16"`), an input type and an accumulator type."""
    for row in MMA_SHAPES:
        if row.shape == shape and row.a == a and row.c == c:
            return row
    return None


def _mma_rows() -> list[IntrinsicSpec]:
    rows = []
    for s in MMA_SHAPES:
        names = (*(f"a{i}" for i in range(len(s.a_regs))), *(f"b{i}" for i in range(len(s.b_regs))),
                 *(f"c{i}" for i in range(len(s.c_regs))))  # fmt: skip
        rows.append(
            IntrinsicSpec(
                op=s.op, intrinsic=s.intrinsic, operands=(*s.a_regs, *s.b_regs, *s.c_regs), results=s.d_regs,
                min_sm=s.min_sm, min_ptx=s.min_ptx, ptx=s.ptx,
                summary=f"warp-wide {s.shape} matrix multiply-accumulate, {s.a} inputs, {s.c} accumulator (PTX ISA §9.7.14.5.14)",
                convergent=True, names=names,
            )
        )  # fmt: skip
    return rows


def _ldmatrix_rows() -> list[IntrinsicSpec]:
    """`ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16` (PTX ISA §9.7.14.5.15; sm_75, PTX 6.5):
    lanes 8j..8j+7 give the row addresses of matrix j (16 bytes each); register j of lane l holds
    row l/4, elements 2(l%4), 2(l%4)+1 of matrix j (`.trans`: of its transpose).
    `stmatrix` (§9.7.14.5.16; sm_90, PTX 7.8) is the inverse."""
    rows = []
    for num in (1, 2, 4):
        for trans in (False, True):
            t = ".trans" if trans else ""
            rows.append(
                IntrinsicSpec(
                    op=f"nvvm.ldmatrix.x{num}{t}.b16", intrinsic=f"llvm.nvvm.ldmatrix.sync.aligned.m8n8.x{num}{t}.b16",
                    operands=("ptr3",), results=("i32",) * num, min_sm=75, min_ptx=65,
                    ptx=f"ldmatrix.sync.aligned.m8n8.x{num}{t}.shared.b16",
                    summary=f"warp-wide load of {num} 8x8 matrices of 16-bit elements from shared memory{', transposed' if trans else ''} (PTX ISA §9.7.14.5.15)",
                    convergent=True, names=("ptr",),
                )
            )  # fmt: skip
            rows.append(
                IntrinsicSpec(
                    op=f"nvvm.stmatrix.x{num}{t}.b16", intrinsic=f"llvm.nvvm.stmatrix.sync.aligned.m8n8.x{num}{t}.b16",
                    operands=("ptr3", *("i32",) * num), results=(), min_sm=90, min_ptx=78,
                    ptx=f"stmatrix.sync.aligned.m8n8.x{num}{t}.shared.b16",
                    summary=f"warp-wide store of {num} 8x8 matrices of 16-bit elements to shared memory{', transposed' if trans else ''} (PTX ISA §9.7.14.5.16)",
                    convergent=True, names=("ptr", *(f"r{i}" for i in range(num))),
                )
            )  # fmt: skip
    return rows


def _cp_async_rows() -> list[IntrinsicSpec]:
    """`cp.async.{ca,cg}.shared.global [dst], [src], N[, src_size]` (PTX ISA §9.7.9.25.3.1; sm_80, PTX
    7.0): an asynchronous copy of N bytes (4, 8 or 16; `.cg`, which bypasses L1, only 16) from global to
    shared memory; the `.s` forms copy `src_size` bytes and zero-fill the rest. Completion is tracked
    per thread by `cp.async.commit_group` / `cp.async.wait_group N` / `cp.async.wait_all`."""
    rows = []
    for cache, sizes in (("ca", (4, 8, 16)), ("cg", (16,))):
        for size in sizes:
            for zfill in (False, True):
                s = ".s" if zfill else ""
                rows.append(
                    IntrinsicSpec(
                        op=f"nvvm.cp.async.{cache}.shared.global.{size}{s}",
                        intrinsic=f"llvm.nvvm.cp.async.{cache}.shared.global.{size}{s}",
                        operands=("ptr3", "ptr1", *(("i32",) if zfill else ())), results=(), min_sm=80, min_ptx=70,
                        ptx=f"cp.async.{cache}.shared.global",
                        summary=f"asynchronous copy of {size} bytes from global to shared memory{' (src_size bytes, the rest zero-filled)' if zfill else ''}, {'caching in L1 and L2' if cache == 'ca' else 'caching in L2 only'} (PTX ISA §9.7.9.25.3.1)",
                        names=("dst", "src", *(("src_size",) if zfill else ())),
                    )
                )  # fmt: skip
    rows += [
        IntrinsicSpec("nvvm.cp.async.commit.group", "llvm.nvvm.cp.async.commit.group", (), (), 80, 70,
                      "cp.async.commit_group", "close this thread's pending cp.async copies into a group (PTX ISA §9.7.9.25.3.2)"),
        IntrinsicSpec("nvvm.cp.async.wait.group", "llvm.nvvm.cp.async.wait.group", (), (), 80, 70,
                      "cp.async.wait_group", "wait until at most `n` of this thread's newest cp.async groups are pending (PTX ISA §9.7.9.25.3.3)",
                      properties=(("n", "i32"),)),
        IntrinsicSpec("nvvm.cp.async.wait.all", "llvm.nvvm.cp.async.wait.all", (), (), 80, 70,
                      "cp.async.wait_all", "wait for all of this thread's cp.async copies (PTX ISA §9.7.9.25.3.3)"),
    ]  # fmt: skip
    return rows


# --------------------------------------------------------------------------- Hopper (sm_90 / sm_90a)

TMA_NO_MULTICAST = (("i16", 0), ("i64", 0), ("i1", 0), ("i1", 0), ("i32", 0))
"""TMA load trailing arguments: multicast CTA mask, L2 cache hint, use-multicast, use-hint, cta_group."""


def _hopper_rows() -> list[IntrinsicSpec]:
    """mbarriers (PTX ISA §9.7.13.15), TMA `cp.async.bulk.tensor` (§9.7.9.25.5), bulk async-groups
    (§9.7.9.25.6), proxy fences (§9.7.13.4 `fence.proxy`), warpgroup MMA fences and groups
    (§9.7.15.6–.8), `elect.sync` (§9.7.13.12), `setmaxnreg` (§9.7.19.5) and named barriers (§9.7.13.1).
    Intrinsic names from LLVM 22's `IntrinsicsNVVM.td`; each row is compiled to PTX and assembled by
    `tests/test_hopper_nvvm.py` (a wrong name would become a silent `.extern .func`)."""
    rows = [
        IntrinsicSpec("nvvm.mbarrier.init.shared", "llvm.nvvm.mbarrier.init.shared", ("ptr3", "i32"), (), 80, 70,
                      "mbarrier.init.shared.b64", "initialize the 8-byte mbarrier at `addr` to expect `count` arrivals per phase (PTX ISA §9.7.13.15.9)",
                      names=("addr", "count")),
        IntrinsicSpec("nvvm.mbarrier.arrive.shared", "llvm.nvvm.mbarrier.arrive.shared", ("ptr3",), ("i64",), 80, 70,
                      "mbarrier.arrive.shared.b64", "arrive on the mbarrier; returns the phase state token (PTX ISA §9.7.13.15.13)",
                      names=("addr",)),
        IntrinsicSpec("nvvm.mbarrier.arrive.expect_tx", "llvm.nvvm.mbarrier.arrive.expect.tx.scope.cta.space.cta",
                      ("ptr3", "i32"), ("i64",), 90, 80, "mbarrier.arrive.expect_tx.shared.b64",
                      "arrive on the mbarrier and announce `tx_count` bytes of asynchronous transactions (TMA) this phase waits for (PTX ISA §9.7.13.15.12)",
                      names=("addr", "tx_count")),
        IntrinsicSpec("nvvm.mbarrier.try_wait.parity", "llvm.nvvm.mbarrier.try.wait.parity.scope.cta.space.cta",
                      ("ptr3", "i32"), ("i1",), 90, 78, "mbarrier.try_wait.parity.shared.b64",
                      "true when the phase of parity `phase` (0 or 1) has completed; waits a bounded time first (PTX ISA §9.7.13.15.16)",
                      names=("addr", "phase")),
        IntrinsicSpec("nvvm.cp.async.bulk.commit.group", "llvm.nvvm.cp.async.bulk.commit.group", (), (), 90, 80,
                      "cp.async.bulk.commit_group", "close this thread's pending bulk copies (TMA stores) into a bulk async-group (PTX ISA §9.7.9.25.6.1)"),
        IntrinsicSpec("nvvm.cp.async.bulk.wait_group", "llvm.nvvm.cp.async.bulk.wait.group", (), (), 90, 80,
                      "cp.async.bulk.wait_group", "wait until at most `n` of this thread's bulk async-groups are pending (PTX ISA §9.7.9.25.6.2)",
                      properties=(("n", "i32"),)),
        IntrinsicSpec("nvvm.cp.async.bulk.wait_group.read", "llvm.nvvm.cp.async.bulk.wait.group.read", (), (), 90, 80,
                      "cp.async.bulk.wait_group.read", "wait until at most `n` bulk async-groups still read their shared-memory source (PTX ISA §9.7.9.25.6.2)",
                      properties=(("n", "i32"),)),
        IntrinsicSpec("nvvm.fence.proxy.async.shared.cta", "llvm.nvvm.fence.proxy.async.shared_cta", (), (), 90, 80,
                      "fence.proxy.async.shared::cta", "order this thread's generic-proxy shared-memory accesses with the async proxy (TMA, wgmma) (PTX ISA §9.7.13.4)"),
        IntrinsicSpec("nvvm.fence.proxy.async", "llvm.nvvm.fence.proxy.async", (), (), 90, 80,
                      "fence.proxy.async", "order generic-proxy and async-proxy accesses in all state spaces (PTX ISA §9.7.13.4)"),
        IntrinsicSpec("nvvm.prefetch.tensormap", "llvm.nvvm.prefetch.tensormap.p0", ("ptr",), (), 90, 80,
                      "prefetch", "prefetch a TMA descriptor (a `__grid_constant__` kernel parameter) into the cache (PTX ISA §9.7.9.15)",
                      names=("tmap",)),
        IntrinsicSpec("nvvm.wgmma.fence.aligned", "llvm.nvvm.wgmma.fence.sync.aligned", (), (), 90, 80,
                      "wgmma.fence.sync.aligned", "order register accesses before the next wgmma.mma_async of the warpgroup (PTX ISA §9.7.15.6)",
                      convergent=True, arch_specific=True),
        IntrinsicSpec("nvvm.wgmma.commit.group.sync.aligned", "llvm.nvvm.wgmma.commit_group.sync.aligned", (), (), 90, 80,
                      "wgmma.commit_group.sync.aligned", "close the warpgroup's pending wgmma.mma_async ops into a wgmma-group (PTX ISA §9.7.15.7)",
                      convergent=True, arch_specific=True),
        IntrinsicSpec("nvvm.wgmma.wait.group.sync.aligned", "llvm.nvvm.wgmma.wait_group.sync.aligned", (), (), 90, 80,
                      "wgmma.wait_group.sync.aligned", "wait until at most `n` wgmma-groups are pending; only then are their accumulators readable (PTX ISA §9.7.15.8)",
                      convergent=True, arch_specific=True, properties=(("n", "i64"),)),
        IntrinsicSpec("nvvm.elect.sync", "llvm.nvvm.elect.sync", ("i32",), ("i32", "i1"), 90, 80,
                      "elect.sync", "elect one leader lane of `membermask`: its lane id, and true in the leader (PTX ISA §9.7.13.12)",
                      convergent=True, names=("membermask",)),
        IntrinsicSpec("nvvm.setmaxnreg.inc", "llvm.nvvm.setmaxnreg.inc.sync.aligned.u32", (), (), 90, 80,
                      "setmaxnreg.inc.sync.aligned.u32", "raise the warpgroup's per-thread register limit to `regs` (24–256, a multiple of 8) (PTX ISA §9.7.19.5)",
                      convergent=True, arch_specific=True, properties=(("regs", "i32"),)),
        IntrinsicSpec("nvvm.setmaxnreg.dec", "llvm.nvvm.setmaxnreg.dec.sync.aligned.u32", (), (), 90, 80,
                      "setmaxnreg.dec.sync.aligned.u32", "lower the warpgroup's per-thread register limit to `regs` (24–256, a multiple of 8) (PTX ISA §9.7.19.5)",
                      convergent=True, arch_specific=True, properties=(("regs", "i32"),)),
        IntrinsicSpec("nvvm.barrier", "llvm.nvvm.barrier.cta.sync.aligned.count", ("i32", "i32"), (), 20, 20,
                      "bar.sync", "named barrier `id` (0–15) for `count` threads (a multiple of 32) (PTX ISA §9.7.13.1)",
                      convergent=True, names=("id", "count")),
        IntrinsicSpec("nvvm.barrier.arrive", "llvm.nvvm.barrier.cta.arrive.aligned.count", ("i32", "i32"), (), 20, 20,
                      "bar.arrive", "arrive at named barrier `id` (0–15) of `count` threads without waiting (PTX ISA §9.7.13.1)",
                      convergent=True, names=("id", "count")),
    ]  # fmt: skip
    for rank in range(1, 6):
        coords = tuple(f"c{i}" for i in range(rank))
        rows.append(
            IntrinsicSpec(
                f"nvvm.cp.async.bulk.tensor.shared.cluster.global.{rank}d", f"llvm.nvvm.cp.async.bulk.tensor.g2s.tile.{rank}d",
                ("ptr3", "ptr3", "ptr", *("i32",) * rank), (), 90, 80,
                f"cp.async.bulk.tensor.{rank}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes",
                f"TMA load of a {rank}-D box at element coordinates (innermost first) from the tensor of descriptor `tmap` into shared memory `dst`; completes `box bytes` transactions on mbarrier `mbar` (PTX ISA §9.7.9.25.5.1)",
                names=("dst", "mbar", "tmap", *coords), trailing=TMA_NO_MULTICAST, casts=((0, 7),),
            )
        )  # fmt: skip
        rows.append(
            IntrinsicSpec(
                f"nvvm.cp.async.bulk.tensor.global.shared.cta.{rank}d", f"llvm.nvvm.cp.async.bulk.tensor.s2g.tile.{rank}d",
                ("ptr3", "ptr", *("i32",) * rank), (), 90, 80,
                f"cp.async.bulk.tensor.{rank}d.global.shared::cta.tile.bulk_group",
                f"TMA store of a {rank}-D box from shared memory `src` to the tensor of descriptor `tmap` at element coordinates (innermost first); tracked by the bulk async-group (PTX ISA §9.7.9.25.5.2)",
                names=("src", "tmap", *coords), trailing=(("i64", 0), ("i1", 0)),
            )
        )  # fmt: skip
    return rows


@dataclass(frozen=True)
class WGMMAType:
    """One `wgmma.mma_async` input/accumulator combination (PTX ISA 9.0 §9.7.15.5.1, "Register
    fragments and shared memory matrix layouts"; MLIR's `NVVM_WgmmaMmaAsyncOp`): D (64×n, `d`) =
    A (64×k) · B (k×n) + D, A and B of type `ab` from shared memory (64-bit matrix descriptors),
    `n` a multiple of 8 in 8..256; each thread of the warpgroup holds n/2 f32 accumulators."""

    ab: str
    d: str
    k: int
    min_sm: int = 90
    min_ptx: int = 80
    arch_specific: bool = True


WGMMA_TYPES: tuple[WGMMAType, ...] = (WGMMAType("f16", "f32", 16), WGMMAType("bf16", "f32", 16))
"""The `nvvm.wgmma.mma_async` combinations warpforge emits (f32 accumulators only)."""

WGMMA_SPEC = IntrinsicSpec(
    "nvvm.wgmma.mma_async", "", (), (), 90, 80, "wgmma.mma_async.sync.aligned",
    "warpgroup-wide asynchronous 64xNxK matrix multiply-accumulate from shared-memory descriptors (PTX ISA §9.7.15.5.2); "
    "LLVM 22 has no intrinsic: lowered to inline PTX", convergent=True, arch_specific=True,
)  # fmt: skip
"""The target requirement of `nvvm.wgmma.mma_async` (not a catalog op: its lowering is inline PTX)."""


CATALOG: dict[str, IntrinsicSpec] = {
    row.op: row
    for row in (*_sregs(), *_sync(), *_warp(), *_mma_rows(), *_ldmatrix_rows(), *_cp_async_rows(), *_hopper_rows())
}
"""Every `nvvm` op, by op name."""


# --------------------------------------------------------------------------- scoped, ordered atomics
# `nvvm.atomicrmw` is not an intrinsic call: LLVM 22's NVPTX backend drops the ordering and the
# sync scope of `atomicrmw` (it prints a bare `atom.global.add.u32` for `atomicrmw add … acq_rel`),
# so the op becomes inline PTX. Its `cmpxchg` keeps both, so compare-and-swap (and the CAS loops
# LLVM builds for float min/max and f16x2 adds) stay on `llvm.cmpxchg`.


@dataclass(frozen=True)
class AtomSpec:
    """One `atom` operation and type `nvvm.atomicrmw` emits (PTX ISA §9.7.13.5 "atom").

    `op` is the `llvm.atomicrmw` operation name (`add`, `fadd`, `xchg`, `umax`, …), `type` the value's
    MLIR type name, `ptx` the instruction's `.op.type` part (`add.u32`, `exch.b64`, `add.noftz.bf16`).
    `min_sm`/`min_ptx` as in `IntrinsicSpec`, for the operation without `.sem`/`.scope` qualifiers
    (`ATOM_SEMANTICS` and `ATOM_SCOPES` add theirs).
    """

    op: str
    type: str
    ptx: str
    min_sm: int
    min_ptx: int

    @property
    def bits(self) -> int:
        """Width of the value in bits (16, 32 or 64): the inline-asm register class `h`, `r` or `l`."""
        return {"f16": 16, "bf16": 16, "i32": 32, "f32": 32, "vector<2xf16>": 32, "vector<2xbf16>": 32}.get(self.type, 64)


def _atoms() -> list[AtomSpec]:
    rows = [
        AtomSpec("add", "i32", "add.u32", 20, 20), AtomSpec("add", "i64", "add.u64", 20, 20),
        AtomSpec("fadd", "f32", "add.f32", 20, 20), AtomSpec("fadd", "f64", "add.f64", 60, 50),
        AtomSpec("fadd", "f16", "add.noftz.f16", 70, 63), AtomSpec("fadd", "bf16", "add.noftz.bf16", 90, 78),
        AtomSpec("fadd", "vector<2xf16>", "add.noftz.f16x2", 60, 62),
        AtomSpec("fadd", "vector<2xbf16>", "add.noftz.bf16x2", 90, 78),
        AtomSpec("xchg", "i32", "exch.b32", 20, 20), AtomSpec("xchg", "i64", "exch.b64", 20, 20),
        AtomSpec("xchg", "f32", "exch.b32", 20, 20), AtomSpec("xchg", "f64", "exch.b64", 20, 20),
    ]  # fmt: skip
    for op in ("and", "or", "xor"):
        rows += [AtomSpec(op, "i32", f"{op}.b32", 20, 20), AtomSpec(op, "i64", f"{op}.b64", 32, 20)]
    for op, ptx, sign in (("max", "max", "s"), ("min", "min", "s"), ("umax", "max", "u"), ("umin", "min", "u")):
        rows += [AtomSpec(op, "i32", f"{ptx}.{sign}32", 20, 20), AtomSpec(op, "i64", f"{ptx}.{sign}64", 32, 20)]
    return rows


ATOM_OPS: dict[tuple[str, str], AtomSpec] = {(row.op, row.type): row for row in _atoms()}
"""(`llvm.atomicrmw` operation, value type) → its `atom` instruction. Float min/max have none (PTX
has no scalar float `atom.min/max` before sm_100): LLVM's compare-and-swap loop carries them."""


@dataclass(frozen=True)
class AtomQualifier:
    """A `.sem` or `.scope` qualifier of `atom` and the first SM / PTX ISA version that has it."""

    ptx: str
    min_sm: int
    min_ptx: int


ATOM_SCOPES: dict[str, AtomQualifier] = {
    "cta": AtomQualifier(".cta", 60, 50),
    "cluster": AtomQualifier(".cluster", 90, 78),
    "gpu": AtomQualifier(".gpu", 60, 50),
    "sys": AtomQualifier(".sys", 60, 50),
}
"""`nvvm.atomicrmw` scopes (PTX ISA §8.5 "Scope"; `atom{.scope}`: PTX 5.0, sm_60; `.cluster`: PTX 7.8, sm_90)."""

ATOM_SEMANTICS: dict[str, AtomQualifier] = {
    "relaxed": AtomQualifier("", 20, 20),
    "acquire": AtomQualifier(".acquire", 70, 60),
    "release": AtomQualifier(".release", 70, 60),
    "acq_rel": AtomQualifier(".acq_rel", 70, 60),
    "seq_cst": AtomQualifier(".acquire", 70, 60),
}
"""`nvvm.atomicrmw` memory orderings → the `atom{.sem}` qualifier (PTX 6.0, sm_70). `relaxed` is
spelled by omitting `.sem` (PTX ISA: relaxed is the default), so it also assembles for sm_60.
`seq_cst` has no `.sem`: it is `fence.sc.<scope>` then `atom.acquire.<scope>`, the mapping of C++
sequentially consistent read-modify-writes in NVIDIA's PTX interoperability guide ("Atomics ABI")."""

ATOM_SPACES: dict[int, str] = {0: "", 1: ".global", 3: ".shared"}
"""NVPTX address space of the pointer → `atom{.space}` (0: generic addressing, no qualifier)."""


def atom_instruction(spec: AtomSpec, sem: str, scope: str, space: int) -> str:
    """The PTX text of `atom{.sem}{.scope}{.space}.op.type $0, [$1], $2;` (with `fence.sc.<scope>;`
    first for `seq_cst`): operand 0 the old value, 1 the address, 2 the value."""
    scope_q = ATOM_SCOPES[scope].ptx
    text = f"atom{ATOM_SEMANTICS[sem].ptx}{scope_q}{ATOM_SPACES[space]}.{spec.ptx} $0, [$1], $2;"
    return f"fence.sc{scope_q}; {text}" if sem == "seq_cst" else text
