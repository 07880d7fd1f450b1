"""The execution model: blocks one after another; in a block, the threads at the same program point
run together, one NumPy call per op.

**Program points.** A kernel's `gpu.func` body is a CFG. Each basic block is cut after every barrier
(`BARRIER_OPS`: `gpu.barrier`, `nvvm.barrier0`) into *segments*, numbered in block order; a segment
ends with the block's terminator or with a barrier. `Compiler` pre-decodes every op once (its
implementation, operand and result keys), evaluates constants ahead of time, and computes, per
segment, the values it reads from other segments (`inputs`) and the values other segments read from
it (`outputs`).

**Scheduling (one block = CTA).** The threads of the CTA are split into *groups*: sorted arrays of
linear thread ids (x fastest, as the GPU numbers them; warps are runs of 32) waiting at the same
segment. The scheduler repeatedly picks the group at the lowest-numbered segment, runs the segment
for exactly those threads (its values compacted to their count) and follows each thread's branch:
a `cf.cond_br` whose condition differs between threads splits the group, and groups arriving at the
same segment merge (re-convergence). Because block order puts a loop before its exit and both arms
of an `if` before their join, threads that leave a loop early wait at the exit until the others
arrive, and all lanes of a warp at one program point execute together — what warp collectives need.

**Barriers.** A group that reaches a barrier parks at the next segment. When no group can run, every
thread that has not exited waits at a barrier: if they all wait at the same one, they continue
together; if some threads exited, or they wait at different barriers, the GPU would hang and the
simulator raises `SimulatorError` naming the barrier's source line. A barrier with results (a
reducing barrier, `BARRIER_RESULTS`: `gpu.barrier_reduce`) reads its operands for every thread of
the block from `storage` when the block is released, and stores its results (the same for all).

**Values across segments** live in `storage` (SSA value → an array over all threads of the CTA, or
one uniform value): a segment gathers its inputs for its threads (no copy when all threads run) and
scatters its outputs back; block arguments are written the same way by the branches. `scf.if`
regions run inline when the condition is uniform (or the same for every thread) and otherwise on
the two subsets of threads, merging the yielded values.

Op implementations are xDSL `InterpreterFunctions` (`@impl`, `@impl_terminator`, `@impl_external`,
`register_impls`); each receives this module's `SimInterpreter` and reads the active threads from
`interpreter.frame`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
from xdsl.dialects import builtin, func
from xdsl.interpreter import Interpreter, InterpreterFunctions, OpImplResult, ReturnedValues, Successor, impl, impl_external
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.traits import SymbolTable

from warpforge.simulator.errors import SimulatorError
from warpforge.simulator.values import MemRef, dtype_of, location_of, op_error

DEFAULT_STEP_LIMIT = 1_000_000
"""Segment executions (a basic block, or the part of one up to a barrier, run by a group of threads)
allowed per CTA before the simulator stops a runaway loop."""


BARRIER_RESULTS: dict[type[Operation], Callable[[Operation, Any, int], tuple[Any, ...]]] = {}
"""Barriers that also compute something over the block (`gpu.barrier_reduce`, `nvvm.barrier0.popc`):
op class → `reduce(op, operand values over every thread of the block, thread count)` → results
(uniform). The scheduler calls it when it releases the block from that barrier; filled by `gpu`."""


class CondBranch(NamedTuple):
    """A `cf.cond_br` whose condition is an array (one value per active thread): the scheduler splits
    the threads between the two successors."""

    cond: np.ndarray
    then_block: Block
    then_args: tuple[Any, ...]
    else_block: Block
    else_args: tuple[Any, ...]


Impl = Callable[[Any, "SimInterpreter", Any, Any], tuple[Any, ...]]
"""An implementation as a plain function: `(functions object, interpreter, op, args) -> results`."""


def install(cls: type[InterpreterFunctions], op_type: type[Operation], run: Impl) -> None:
    """Add `run` to `cls` as the `@impl` of `op_type` — how the table-driven op families become
    xDSL implementations. Call `register_impls(cls)` afterwards."""
    setattr(cls, "run_" + op_type.name.replace(".", "_"), impl(op_type)(run))


def flushes_f32_subnormals(op: Operation) -> bool:
    """Whether `op` computes in f32 inside a function compiled with fast math, whose f32 subnormal
    operands and results the GPU flushes to sign-preserving zero (the `gpu.func` attribute
    `llvm.denormal_fp_math_f32 = "preserve-sign"` becomes LLVM's `denormal-fp-math-f32`, and PTX's
    `.ftz` on f32 arithmetic, comparisons and conversions: PTX ISA §9.7.3, "subnormal numbers")."""
    from xdsl.dialects.builtin import Float32Type, StringAttr

    if not any(isinstance(v.type, Float32Type) for v in (*op.operands, *op.results)):
        return False
    parent = op.parent_op()
    while parent is not None:
        value = parent.attributes.get(DENORMAL_F32)
        if value is not None:
            return isinstance(value, StringAttr) and value.data == "preserve-sign"
        parent = parent.parent_op()
    return False


DENORMAL_F32 = "llvm.denormal_fp_math_f32"
"""The function attribute `kernel-to-gpu` sets on fast-math kernels (`passes.kernel_to_gpu.DENORMAL_ATTR`)."""
_F32_TINY = np.float32(np.finfo(np.float32).tiny)


def _flush(x: Any) -> Any:
    """f32 values with subnormals replaced by zeros of their sign; anything else as it is."""
    if getattr(x, "dtype", None) != np.float32:
        return x
    flushed = np.where(np.abs(x) < _F32_TINY, np.copysign(np.float32(0), x), x).astype(np.float32)
    return flushed[()] if np.ndim(x) == 0 else flushed


def ftz_aware(run: Impl) -> Impl:
    """`run`, with f32 subnormal operands and results flushed to ±0 where the GPU flushes them
    (`flushes_f32_subnormals`, decided once per op)."""

    def wrapped(ft: Any, interp: Any, op: Operation, args: PythonValues) -> PythonValues:
        table = interp.compiler.static
        key = ("ftz", id(op))
        flush = table.get(key)
        if flush is None:
            flush = table[key] = flushes_f32_subnormals(op)
        if not flush:
            return run(ft, interp, op, args)
        return tuple(_flush(r) for r in run(ft, interp, op, tuple(_flush(a) for a in args)))

    return wrapped


def install_external(cls: type[InterpreterFunctions], symbol: str, run: Impl) -> None:
    """Add `run` to `cls` as the `@impl_external` of the function `symbol`."""
    setattr(cls, "call_" + symbol, impl_external(symbol)(run))


# --------------------------------------------------------------------------- compiled code


Step = tuple[Any, InterpreterFunctions, Operation, tuple[int, ...], tuple[int, ...]]
"""One op, pre-decoded: (implementation, its functions object, the op, operand keys, result keys);
keys are the `id()` of the SSA values (cheap to hash)."""


def make_step(op: Operation, impl: Any, ft: InterpreterFunctions) -> Step:
    return (impl, ft, op, tuple(id(v) for v in op.operands), tuple(id(r) for r in op.results))


class RegionCode:
    """A single-block region run straight through (an `scf.if` side, an `scf.for` body, a
    single-block function): its steps, its block arguments, the outer values it reads and the
    constants it uses (by key)."""

    __slots__ = ("steps", "args", "inputs", "constants")

    def __init__(self, steps: list[Step], args: tuple[int, ...], inputs: tuple[int, ...], constants: dict[int, Any]):
        self.steps, self.args, self.inputs, self.constants = steps, args, inputs, constants


class Segment:
    """A basic block up to (and excluding) a barrier, or to its terminator."""

    __slots__ = ("id", "block", "steps", "barrier", "inputs", "outputs", "constants", "ops")

    def __init__(self, sid: int, block: Block):
        self.id, self.block = sid, block
        self.steps: list[Step] = []
        self.ops: list[Operation] = []
        self.barrier: Operation | None = None
        self.inputs: tuple[int, ...] = ()
        self.outputs: tuple[int, ...] = ()
        self.constants: dict[int, Any] = {}

    def where(self) -> str:
        """Source location of the segment (its terminator's, else its first op's)."""
        for op in reversed(self.ops):
            loc = location_of(op)
            if loc != "<unknown location>":
                return loc
        return location_of(self.barrier) if self.barrier is not None else "<unknown location>"


class CFGCode:
    """A multi-block region (a kernel body, a function): its segments and block arguments."""

    __slots__ = ("segments", "first_segment", "block_args", "entry_args")

    def __init__(self) -> None:
        self.segments: list[Segment] = []
        self.first_segment: dict[int, int] = {}
        self.block_args: dict[int, tuple[int, ...]] = {}
        self.entry_args: tuple[int, ...] = ()


def _walk_values(ops: list[Operation]) -> tuple[list[SSAValue], set[int]]:
    """Values used by `ops` (recursively, in first-use order) and the keys of values they define
    (results and nested block arguments)."""
    used: list[SSAValue] = []
    seen: set[int] = set()
    defined: set[int] = set()

    def visit(op: Operation) -> None:
        for v in op.operands:
            if id(v) not in seen:
                seen.add(id(v))
                used.append(v)
        for region in op.regions:
            for block in region.blocks:
                defined.update(id(a) for a in block.args)
                for inner in block.ops:
                    visit(inner)
        defined.update(id(r) for r in op.results)

    for op in ops:
        visit(op)
    return used, defined


def _inputs(ops: list[Operation], constants: dict[int, Any], own_args: tuple[int, ...] = ()) -> tuple[tuple[int, ...], dict[int, Any]]:
    """Keys of the values `ops` read from outside themselves, and the constants they use."""
    used, defined = _walk_values(ops)
    defined.update(own_args)
    inputs = tuple(id(v) for v in used if id(v) not in defined and id(v) not in constants)
    return inputs, {id(v): constants[id(v)] for v in used if id(v) in constants}


class Compiler:
    """Pre-decodes regions into `CFGCode` / `RegionCode` against an implementation table; raises
    `SimulatorError` for any op (or external function) without an implementation."""

    def __init__(
        self,
        impls: dict[type[Operation], tuple[InterpreterFunctions, Any]],
        externals: set[str],
        barrier_ops: frozenset[type[Operation]],
        constant_ops: dict[type[Operation], Callable[[Operation], Any]],
    ):
        self.impls, self.externals, self.barrier_ops, self.constant_ops = impls, externals, barrier_ops, constant_ops
        self.constants: dict[int, Any] = {}
        """Values of constant ops (evaluated once here, never executed), by result key."""
        self.regions: dict[int, RegionCode] = {}
        self.cfgs: dict[int, CFGCode] = {}
        self.callees: dict[int, tuple[str, Any]] = {}
        self.static: dict[Any, Any] = {}
        """Per-op facts implementations compute once (result dtypes, constants), by op key."""
        self._keep: list[Any] = []  # keeps keyed IR objects alive (ids stay unique)
        self._compiling: set[int] = set()

    def step(self, op: Operation) -> Step | None:
        """The op's step, or None for a constant (evaluated now into `constants`)."""
        evaluate = self.constant_ops.get(type(op))
        if evaluate is not None:
            self.constants[id(op.results[0])] = evaluate(op)
            return None
        entry = self.impls.get(type(op))
        if entry is None:
            raise op_error(op, "the simulator has no implementation for this op")
        ft, impl = entry
        for region in op.regions:
            self.region(region, op)
        if isinstance(op, func.CallOp):
            self._callee(op)
        return make_step(op, impl, ft)

    def region(self, region: Region, owner: Operation) -> RegionCode | None:
        key = id(region)
        if key in self.regions:
            return self.regions[key]
        if not region.blocks:
            self.regions[key] = None  # pyright: ignore[reportArgumentType]
            return None
        if len(region.blocks) != 1:
            raise op_error(owner, "regions with several blocks inside this op are not supported by the simulator")
        if key in self._compiling:
            raise op_error(owner, "recursive functions are not supported by the simulator")
        self._compiling.add(key)
        block = region.blocks.first
        assert block is not None
        steps = [st for st in (self.step(op) for op in block.ops) if st is not None]
        args = tuple(id(a) for a in block.args)
        inputs, constants = _inputs(list(block.ops), self.constants, args)
        code = RegionCode(steps, args, inputs, constants)
        self._keep.append(region)
        self.regions[key] = code
        return code

    def cfg(self, region: Region, *, split_at_barriers: bool) -> CFGCode:
        key = id(region)
        if key in self.cfgs:
            return self.cfgs[key]
        code = CFGCode()
        self.cfgs[key] = code
        self._keep.append(region)
        top_segment: dict[int, int] = {}  # id(top-level op) → segment id
        for block in region.blocks:
            code.first_segment[id(block)] = len(code.segments)
            code.block_args[id(block)] = tuple(id(a) for a in block.args)
            seg = Segment(len(code.segments), block)
            code.segments.append(seg)
            ops_of: list[list[Operation]] = [[]]
            for op in block.ops:
                top_segment[id(op)] = seg.id
                if split_at_barriers and type(op) in self.barrier_ops:
                    seg.barrier = op
                    seg = Segment(len(code.segments), block)
                    code.segments.append(seg)
                    ops_of.append([])
                    continue
                st = self.step(op)
                if st is not None:
                    seg.steps.append(st)
                    seg.ops.append(op)
                ops_of[-1].append(op)
            first = code.first_segment[id(block)]
            for k, ops in enumerate(ops_of):
                segment = code.segments[first + k]
                segment.inputs, segment.constants = _inputs(ops, self.constants)
        entry = region.blocks.first
        assert entry is not None
        code.entry_args = code.block_args[id(entry)]
        # outputs: top-level results read by ops (or nested ops) of another segment
        outputs: dict[int, list[int]] = {}
        for block in region.blocks:
            for op in block.ops:
                sid = top_segment[id(op)]
                if split_at_barriers and type(op) in self.barrier_ops:
                    # a reducing barrier reads its operands from `storage` when the block is released
                    # (so the segments defining them store them) and the scheduler stores its results
                    for v in op.operands:
                        owner = v.owner
                        if isinstance(owner, Operation) and id(owner) in top_segment and id(v) not in self.constants:
                            keys = outputs.setdefault(top_segment[id(owner)], [])
                            if id(v) not in keys:
                                keys.append(id(v))
                    continue
                for res in op.results:
                    if id(res) in self.constants:
                        continue
                    for use in res.uses:
                        user: Operation | None = use.operation
                        while user is not None and id(user) not in top_segment:
                            user = user.parent_op()
                        if user is None or top_segment[id(user)] != sid:
                            keys = outputs.setdefault(sid, [])
                            if id(res) not in keys:
                                keys.append(id(res))
                            break
        for sid, keys in outputs.items():
            code.segments[sid].outputs = tuple(keys)
        return code

    def _callee(self, op: func.CallOp) -> None:
        if id(op) in self.callees:
            return
        name = op.callee.string_value()
        target = SymbolTable.lookup_symbol(op, op.callee)
        if not isinstance(target, func.FuncOp):
            raise op_error(op, f"cannot find the function @{name}")
        if not target.body.blocks:
            if name not in self.externals:
                raise op_error(op, f"the simulator has no implementation of the external function @{name}")
            self.callees[id(op)] = ("external", name)
        elif len(target.body.blocks) == 1:
            self.callees[id(op)] = ("region", self.region(target.body, target))
        else:
            self.callees[id(op)] = ("cfg", self.cfg(target.body, split_at_barriers=False))
        self._keep.append(op)


# --------------------------------------------------------------------------- running


class Frame:
    """The threads executing ops together: `n` of them, with linear ids `tids` (None: all threads of
    the block, in order), and `vals`, the values (compacted to these threads) by SSA key."""

    __slots__ = ("vals", "n", "tids")

    def __init__(self, vals: dict[int, Any], n: int, tids: np.ndarray | None):
        self.vals, self.n, self.tids = vals, n, tids


@dataclass
class SimStats:
    """What one simulated launch did.

    `thread_ops`: ops executed, summed over threads (an op run by 256 threads counts 256);
    `op_executions`: op implementations called (each on all the threads at that point at once);
    `steps`: segment executions (basic blocks, cut at barriers, run by a group of threads);
    `blocks` (CTAs) and `threads` launched; `seconds` of wall time.
    """

    blocks: int = 0
    threads: int = 0
    thread_ops: int = 0
    op_executions: int = 0
    steps: int = 0
    seconds: float = 0.0

    @property
    def thread_ops_per_second(self) -> float:
        return self.thread_ops / self.seconds if self.seconds > 0 else float("inf")


_MISSING = object()


def select(x: Any, sel: np.ndarray) -> Any:
    """`x` for the threads `sel` (positions): a per-thread array's elements, a vector's (a tuple of
    per-thread or uniform elements) element by element; a uniform value as it is."""
    return tuple(e[sel] if type(e) is np.ndarray else e for e in x) if type(x) is tuple else x


class SimInterpreter(Interpreter):
    """xDSL's `Interpreter`, extended with the state of one simulated launch: the block being run,
    the active `frame`, shared memory, and the scheduler."""

    def __init__(
        self,
        module: builtin.ModuleOp,
        functions: list[InterpreterFunctions],
        compiler: Compiler,
        *,
        grid: tuple[int, int, int],
        block: tuple[int, int, int],
        step_limit: int,
        dynamic_shared_bytes: int = 0,
    ):
        super().__init__(module, index_bitwidth=64)
        self.dynamic_shared_bytes = dynamic_shared_bytes
        """The launch's dynamic shared memory per block, bytes (`LaunchConfig.shmem_size`)."""
        for ft in functions:
            self.register_implementations(ft)
        self.compiler = compiler
        self.grid, self.block_dims, self.step_limit = grid, block, step_limit
        bx, by, bz = block
        self.T = bx * by * bz
        lin = np.arange(self.T, dtype=np.int64)
        self.linear_tid = lin
        self.thread_ids = (lin % bx, (lin // bx) % by, lin // (bx * by))
        """Per-thread `threadIdx.x/y/z` of every thread of a block (int64)."""
        self.block_id: tuple[np.int64, np.int64, np.int64] = (np.int64(0), np.int64(0), np.int64(0))
        self.shared: dict[Any, MemRef] = {}
        """Memory private to the running block (shared memory, per-thread allocas), by op key."""
        self.globals: dict[str, MemRef] = {}
        """`memref.global`s outside shared memory, by symbol, for the whole launch."""
        self.exited = np.zeros(self.T, bool)
        """Threads of the running block that have returned from the kernel."""
        self.frame = Frame({}, self.T, None)
        self.stats = SimStats()
        self.cta_steps = 0

    # ------------------------------------------------------------------ steps and regions

    def exec_steps(self, steps: list[Step], vals: dict[int, Any], n: int) -> OpImplResult | None:
        """Run `steps` for the current frame's threads; returns the terminator's result, if any."""
        stats = self.stats
        stats.thread_ops += n * len(steps)
        stats.op_executions += len(steps)
        for impl, ft, op, operands, results in steps:
            try:
                result = impl(ft, self, op, [vals[k] for k in operands])
            except SimulatorError:
                raise
            except KeyError as e:
                raise op_error(op, f"internal error: an operand has no value for these threads ({e})") from None
            except Exception as e:  # NumPy or implementation failure: name the op and where it is
                raise op_error(op, f"{type(e).__name__}: {e}") from e
            if results:
                vals.update(zip(results, result.values))
            if result.terminator_value is not None:
                return result
        return None

    def static(self, op: Operation, compute: Any) -> Any:
        """`compute(op)`, computed once per op (attribute access on xDSL ops is slow): decoded
        predicates, successors, result dtypes, constants."""
        table = self.compiler.static
        value = table.get(id(op), _MISSING)
        if value is _MISSING:
            value = compute(op)
            table[id(op)] = value
        return value

    def run_region(self, code: RegionCode, args: tuple[Any, ...] = ()) -> tuple[Any, ...]:
        """Run a single-block region for all threads of the current frame, in its value scope."""
        frame = self.frame
        vals = frame.vals
        if args:
            vals.update(zip(code.args, args))
        result = self.exec_steps(code.steps, vals, frame.n)
        return () if result is None else tuple(result.terminator_value.values)  # pyright: ignore[reportOptionalMemberAccess]

    def run_region_on(self, code: RegionCode, sel: np.ndarray, args: tuple[Any, ...] = ()) -> tuple[Any, ...]:
        """Run a single-block region for the subset `sel` (positions in the current frame)."""
        frame = self.frame
        outer = frame.vals
        vals: dict[int, Any] = dict(code.constants)
        for k in code.inputs:
            x = outer[k]
            vals[k] = x[sel] if type(x) is np.ndarray else (select(x, sel) if type(x) is tuple else x)
        for k, x in zip(code.args, args):
            vals[k] = x[sel] if type(x) is np.ndarray else (select(x, sel) if type(x) is tuple else x)
        tids = sel if frame.tids is None else frame.tids[sel]
        self.frame = Frame(vals, len(sel), tids)
        try:
            result = self.exec_steps(code.steps, vals, len(sel))
        finally:
            self.frame = frame
        return () if result is None else tuple(result.terminator_value.values)  # pyright: ignore[reportOptionalMemberAccess]

    def region_code(self, region: Region) -> RegionCode | None:
        return self.compiler.regions[id(region)]

    def merge(self, types: Any, n: int, parts: list[tuple[np.ndarray, tuple[Any, ...]]]) -> tuple[Any, ...]:
        """Per-result arrays over the frame's `n` threads, from values computed on disjoint subsets."""
        out = []
        for i, t in enumerate(types):
            arr = np.empty(n, dtype_of(t))
            for sel, values in parts:
                arr[sel] = values[i]
            out.append(arr)
        return tuple(out)

    # ------------------------------------------------------------------ calls

    def call(self, op: func.CallOp, args: tuple[Any, ...]) -> tuple[Any, ...]:
        kind, target = self.compiler.callees[id(op)]
        if kind == "external":
            return tuple(self.call_external(target, op, args))
        frame = self.frame
        if kind == "region":
            code: RegionCode = target
            vals = dict(code.constants)
            vals.update(zip(code.args, args))
            self.frame = Frame(vals, frame.n, frame.tids)
            try:
                result = self.exec_steps(code.steps, self.frame.vals, frame.n)
            finally:
                self.frame = frame
            return () if result is None else tuple(result.terminator_value.values)  # pyright: ignore[reportOptionalMemberAccess]
        cfg: CFGCode = target
        storage: dict[int, Any] = dict(zip(cfg.entry_args, args))
        returned = self.run_cfg(cfg, frame.tids, storage, set(), what=f"@{op.callee.string_value()}")
        if not op.results:
            return ()
        full = self.merge(op.result_types, self.T, [(g if g is not None else self.linear_tid, vals) for g, vals in returned])
        return tuple(x if frame.tids is None else x[frame.tids] for x in full)

    # ------------------------------------------------------------------ the scheduler

    def store(self, storage: dict[int, Any], owned: set[int], key: int, x: Any, g: np.ndarray | None) -> None:
        """Record value `x` (compacted to the threads `g`; None: all) of SSA value `key`."""
        if g is None:
            storage[key] = x
            owned.discard(key)
            return
        cur = storage.get(key, _MISSING)
        if type(x) is tuple:  # a vector: each element as a value of its own (never written in place)
            elements: list[Any] = []
            for i, xi in enumerate(x):
                one: dict[int, Any] = {} if cur is _MISSING else {0: cur[i]}
                self.store(one, set(), 0, xi, g)
                elements.append(one[0])
            storage[key] = tuple(elements)
            owned.discard(key)
            return
        if cur is _MISSING:
            if type(x) is np.ndarray:
                full = np.empty(self.T, x.dtype)
                full[g] = x
                storage[key] = full
                owned.add(key)
            else:
                storage[key] = x  # uniform, and only these threads have defined it
            return
        if type(cur) is np.ndarray:
            if key not in owned:
                cur = cur.copy()
                storage[key] = cur
                owned.add(key)
            cur[g] = x
            return
        if type(x) is not np.ndarray and (x is cur or (isinstance(x, np.generic) and x.dtype == cur.dtype and x == cur)):
            return
        if isinstance(cur, MemRef) or isinstance(x, MemRef):
            raise SimulatorError("a memref value differs between the threads of a block; the simulator does not support that")
        full = np.full(self.T, cur, dtype=cur.dtype)
        full[g] = x
        storage[key] = full
        owned.add(key)

    def run_segment(self, seg: Segment, g: np.ndarray | None, storage: dict[int, Any], owned: set[int]) -> OpImplResult | None:
        vals: dict[int, Any] = dict(seg.constants)
        try:
            if g is None:
                n = self.T
                for k in seg.inputs:
                    x = storage[k]
                    if type(x) is np.ndarray:
                        owned.discard(k)  # now shared with this segment's values: copy before writing
                    vals[k] = x
            else:
                n = len(g)
                for k in seg.inputs:
                    x = storage[k]
                    vals[k] = x[g] if type(x) is np.ndarray else (select(x, g) if type(x) is tuple else x)
        except KeyError:
            raise SimulatorError(f"internal error: a value read at {seg.where()} was never defined for these threads") from None
        frame = self.frame
        self.frame = Frame(vals, n, g)
        try:
            result = self.exec_steps(seg.steps, vals, n)
        finally:
            self.frame = frame
        for k in seg.outputs:
            self.store(storage, owned, k, vals[k], g)
        return result

    def _count(self, g: np.ndarray | None) -> int:
        return self.T if g is None else len(g)

    def _add_group(self, groups: dict[int, np.ndarray | None], sid: int, g: np.ndarray | None) -> None:
        cur = groups.get(sid, _MISSING)
        if cur is _MISSING:
            groups[sid] = g
            return
        assert cur is not None and g is not None, "a thread is at two program points"
        merged = np.concatenate((cur, g))  # pyright: ignore[reportArgumentType]
        merged.sort()
        groups[sid] = None if len(merged) == self.T else merged

    def _jump(self, cfg: CFGCode, groups: dict[int, np.ndarray | None], block: Block, args: tuple[Any, ...], g: np.ndarray | None, storage: dict[int, Any], owned: set[int]) -> None:
        for k, x in zip(cfg.block_args[id(block)], args):
            self.store(storage, owned, k, x, g)
        self._add_group(groups, cfg.first_segment[id(block)], g)

    def where_block(self) -> str:
        return "(" + ", ".join(str(int(b)) for b in self.block_id) + ")"

    def run_cfg(self, cfg: CFGCode, tids: np.ndarray | None, storage: dict[int, Any], owned: set[int], *, what: str = "the kernel", kernel: bool = False) -> list[tuple[np.ndarray | None, tuple[Any, ...]]]:
        """Run a CFG region for the threads `tids` (None: all) until every one of them returns.
        Returns, per group of threads that returned together, the returned values. `kernel`: the
        region is the kernel's body, so returning threads exit (`exited`)."""
        groups: dict[int, np.ndarray | None] = {0: tids}
        waiting: dict[int, np.ndarray | None] = {}
        returned: list[tuple[np.ndarray | None, tuple[Any, ...]]] = []
        exited = 0
        segments = cfg.segments
        while True:
            if not groups:
                if not waiting:
                    return returned
                self._release_barrier(cfg, waiting, exited, tids)
                (sid,) = waiting
                barrier = segments[sid - 1].barrier
                if barrier is not None and barrier.results:
                    self._barrier_results(barrier, storage, owned)
                groups, waiting = waiting, {}
                continue
            sid = min(groups)
            g = groups.pop(sid)
            self.cta_steps += 1
            if self.cta_steps > self.step_limit:
                seg = segments[sid]
                raise SimulatorError(
                    f"step limit reached: {self.step_limit} basic-block executions in block {self.where_block()} of {what}, "
                    f"now at {seg.where()} (a runaway loop?); to allow more, use wf.Device.simulator(step_limit=N) "
                    f"or set WARPFORGE_SIM_STEP_LIMIT=N (simulator.run(..., step_limit=N) for direct runs)",
                    location=seg.where(),
                )
            seg = segments[sid]
            result = self.run_segment(seg, g, storage, owned)
            if seg.barrier is not None:
                self._add_group(waiting, sid + 1, g)
                continue
            if result is None:
                raise SimulatorError(f"internal error: the block at {seg.where()} has no terminator")
            tv = result.terminator_value
            if type(tv) is Successor:
                self._jump(cfg, groups, tv.block, tuple(tv.args), g, storage, owned)
            elif type(tv) is CondBranch:
                cond = tv.cond
                taken = cond.nonzero()[0]
                if len(taken) == len(cond):
                    self._jump(cfg, groups, tv.then_block, tv.then_args, g, storage, owned)
                elif len(taken) == 0:
                    self._jump(cfg, groups, tv.else_block, tv.else_args, g, storage, owned)
                else:
                    other = (~cond).nonzero()[0]
                    for sel, block, args in ((taken, tv.then_block, tv.then_args), (other, tv.else_block, tv.else_args)):
                        sub = sel if g is None else g[sel]
                        self._jump(cfg, groups, block, tuple(a[sel] if type(a) is np.ndarray else (select(a, sel) if type(a) is tuple else a) for a in args), sub, storage, owned)
            elif type(tv) is ReturnedValues:
                exited += self._count(g)
                returned.append((g, tuple(tv.values)))
                if kernel:
                    self.exited[slice(None) if g is None else g] = True
            else:
                raise SimulatorError(f"internal error: unexpected terminator result {tv!r} at {seg.where()}")

    def _release_barrier(self, cfg: CFGCode, waiting: dict[int, np.ndarray | None], exited: int, tids: np.ndarray | None) -> None:
        """All live threads wait at barriers: check that they wait at the same one, with nobody exited."""
        barriers = {sid: cfg.segments[sid - 1].barrier for sid in waiting}
        total = self._count(tids)
        if len(waiting) > 1:
            parts = ", ".join(f"{location_of(b)} ({self._count(g)} threads)" for (sid, g), b in zip(waiting.items(), barriers.values()))  # pyright: ignore[reportArgumentType]
            first = next(iter(barriers.values()))
            raise SimulatorError(
                f"the threads of block {self.where_block()} wait at different barriers: {parts} "
                "(on the GPU the block would hang or synchronize wrongly)",
                location=location_of(first),  # pyright: ignore[reportArgumentType]
            )
        if exited:
            (sid, g), = waiting.items()
            barrier = barriers[sid]
            assert barrier is not None
            where = location_of(barrier)
            raise SimulatorError(
                f"'{barrier.name}' at {where} is reached by {self._count(g)} of the {total} threads of block "
                f"{self.where_block()}; the other {exited} returned without reaching it (on the GPU the block would hang)",
                location=where,
            )

    def _barrier_results(self, barrier: Operation, storage: dict[int, Any], owned: set[int]) -> None:
        """Every thread of the block is released from the reducing `barrier`: compute its results from
        its operands (read for all threads) and store them, the same for every thread."""
        reduce = BARRIER_RESULTS.get(type(barrier))
        if reduce is None:
            raise SimulatorError(f"internal error: no reduction for the barrier '{barrier.name}' at {location_of(barrier)}", location=location_of(barrier))
        constants = self.compiler.constants
        operands = []
        for v in barrier.operands:
            x = constants[id(v)] if id(v) in constants else storage.get(id(v), _MISSING)
            if x is _MISSING:
                raise SimulatorError(f"internal error: the operand of '{barrier.name}' at {location_of(barrier)} has no value", location=location_of(barrier))
            operands.append(x)
        try:
            results = reduce(barrier, operands, self.T)
        except SimulatorError:
            raise
        except Exception as e:
            raise op_error(barrier, f"{type(e).__name__}: {e}") from e
        for r, x in zip(barrier.results, results):
            self.store(storage, owned, id(r), x, None)

    # ------------------------------------------------------------------ the launch

    def launch(self, cfg: CFGCode, args: tuple[Any, ...], blocks: Iterable[tuple[int, int, int]] | None = None) -> SimStats:
        """Run every block of the grid, one after another (x fastest) — or only `blocks`, (x, y, z)
        ids in the grid, in the order given (a test of a huge grid samples some)."""
        start = time.perf_counter()
        gx, gy, gz = self.grid
        order = ((bx, by, bz) for bz in range(gz) for by in range(gy) for bx in range(gx)) if blocks is None else blocks
        count = 0
        with np.errstate(all="ignore"):
            for bx, by, bz in order:
                self.block_id = (np.int64(bx), np.int64(by), np.int64(bz))
                self.shared = {}
                self.cta_steps = 0
                self.exited[:] = False
                storage: dict[int, Any] = dict(zip(cfg.entry_args, args))
                self.run_cfg(cfg, None, storage, set(), kernel=True)
                self.stats.steps += self.cta_steps
                count += 1
        self.stats.blocks = count
        self.stats.threads = self.stats.blocks * self.T
        self.stats.seconds = time.perf_counter() - start
        return self.stats


@dataclass
class Program:
    """A kernel compiled for the simulator: its `gpu.func`, its CFG code and the compiler that holds
    every region and callee it reaches."""

    module: builtin.ModuleOp
    kernel: Operation
    cfg: CFGCode
    compiler: Compiler
    arg_types: tuple[Any, ...] = field(default=())
