"""`int-range-optimizations` must be sound: every value an op can produce lies in the range the
analysis gives it, and a comparison it folds has that result for every input in the operands' ranges.
Checked exhaustively on i8 against a reference of MLIR's arith semantics (two's complement, wrapping),
on intervals drawn by hypothesis (derandomized: the same cases every run)."""

from __future__ import annotations

import operator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType, i1
from xdsl.ir import Block

import warpforge as wf
from warpforge import simt
from warpforge.context import parse_module
from warpforge.passes.fuse_checks import is_check
from warpforge.passes.int_range_optimizations import RangeAnalysis

def checks_in(kernel) -> int:
    """How many bounds/division checks (slow paths that record an error) the kernel's gpu IR keeps."""
    module = parse_module(kernel.ir("gpu"))
    return sum(1 for op in module.walk() if is_check(op))


W = 8
I8 = IntegerType(W)


def signed(v: int, w: int = W) -> int:
    v &= (1 << w) - 1
    return v - (1 << w) if v >= 1 << (w - 1) else v


def unsigned(v: int, w: int = W) -> int:
    return v & ((1 << w) - 1)


def _tdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


POISON = object()

REFERENCE = {
    arith.AddiOp: lambda a, b: signed(a + b),
    arith.SubiOp: lambda a, b: signed(a - b),
    arith.MuliOp: lambda a, b: signed(a * b),
    arith.DivSIOp: lambda a, b: POISON if b == 0 or (a == -128 and b == -1) else signed(_tdiv(a, b)),
    arith.DivUIOp: lambda a, b: POISON if b == 0 else signed(unsigned(a) // unsigned(b)),
    arith.RemSIOp: lambda a, b: POISON if b == 0 or (a == -128 and b == -1) else signed(a - _tdiv(a, b) * b),
    arith.RemUIOp: lambda a, b: POISON if b == 0 else signed(unsigned(a) % unsigned(b)),
    arith.AndIOp: lambda a, b: signed(a & b),
    arith.OrIOp: lambda a, b: signed(a | b),
    arith.XOrIOp: lambda a, b: signed(a ^ b),
    arith.ShLIOp: lambda a, b: POISON if unsigned(b) >= W else signed(a << unsigned(b)),
    arith.ShRUIOp: lambda a, b: POISON if unsigned(b) >= W else signed(unsigned(a) >> unsigned(b)),
    arith.ShRSIOp: lambda a, b: POISON if unsigned(b) >= W else signed(a >> unsigned(b)),
    arith.MaxSIOp: max,
    arith.MinSIOp: min,
    arith.MaxUIOp: lambda a, b: signed(max(unsigned(a), unsigned(b))),
    arith.MinUIOp: lambda a, b: signed(min(unsigned(a), unsigned(b))),
}

PREDICATES = {
    "eq": operator.eq, "ne": operator.ne, "slt": operator.lt, "sle": operator.le, "sgt": operator.gt, "sge": operator.ge,
    "ult": lambda a, b: unsigned(a) < unsigned(b), "ule": lambda a, b: unsigned(a) <= unsigned(b),
    "ugt": lambda a, b: unsigned(a) > unsigned(b), "uge": lambda a, b: unsigned(a) >= unsigned(b),
}

intervals = st.tuples(st.integers(-128, 127), st.integers(0, 40)).map(lambda t: (t[0], min(127, t[0] + t[1])))


def _analyse(op_cls, rx, ry, make=None):
    block = Block(arg_types=[I8, I8])
    x, y = block.args
    op = make(x, y) if make else op_cls(x, y)
    analysis = RangeAnalysis({"x": 1024, "y": 1024, "z": 64}, {x: rx, y: ry})
    analysis.visit(op)
    return analysis.ranges.get(op.results[0])


@pytest.mark.parametrize("op_cls", list(REFERENCE), ids=lambda c: c.name)
@settings(derandomize=True, max_examples=150, deadline=None)
@given(rx=intervals, ry=intervals)
def test_binary_op_ranges_contain_every_result(op_cls, rx, ry):
    r = _analyse(op_cls, rx, ry)
    if r is None:
        return  # unknown: the full range, trivially sound
    ref = REFERENCE[op_cls]
    for a in range(rx[0], rx[1] + 1):
        for b in range(ry[0], ry[1] + 1):
            v = ref(a, b)
            if v is POISON:
                continue
            assert r[0] <= v <= r[1], (op_cls.name, rx, ry, a, b, v, r)


@pytest.mark.parametrize("pred", list(PREDICATES))
@settings(derandomize=True, max_examples=200, deadline=None)
@given(rx=intervals, ry=intervals)
def test_folded_comparisons_hold_for_every_input(pred, rx, ry):
    r = _analyse(None, rx, ry, make=lambda x, y: arith.CmpiOp(x, y, pred))
    if r is None or r[0] != r[1]:
        return
    for a in range(rx[0], rx[1] + 1):
        for b in range(ry[0], ry[1] + 1):
            assert PREDICATES[pred](a, b) == bool(r[0]), (pred, rx, ry, a, b, r)


def test_thread_bound_check_is_folded_and_global_check_kept():
    """`shared[tid]` with an exact 128-thread block is in range of a 128-element array; a global read
    at `tid` against a runtime length is not decided."""
    @simt.kernel(contract=simt.Contract(domain=1, block=(128, 1, 1)))
    def k(x: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32]):
        idx = simt.index_1d()
        t = simt.thread_idx.x
        buf = simt.shared_array(128, wf.f32)
        buf[t] = x[idx.get()]
        simt.sync_threads()
        out[idx] = buf[127 - t] + buf[(t * 5) % 128]

    assert checks_in(k) == 1, k.ir("gpu")  # only x[i] is checked


def test_i1_values_are_truth_values():
    block = Block(arg_types=[i1, i1])
    x, y = block.args
    analysis = RangeAnalysis({"x": 1, "y": 1, "z": 1}, {x: (1, 1), y: (0, 1)})
    op = arith.AndIOp(x, y)
    analysis.visit(op)
    assert analysis.ranges[op.result] == (0, 1)
    analysis.ranges[y] = (1, 1)
    op2 = arith.AndIOp(x, y)
    analysis.visit(op2)
    assert analysis.ranges[op2.result] == (1, 1)


@pytest.mark.parametrize("pred", list(PREDICATES))
def test_i1_comparisons_use_the_sign_of_true(pred):
    """On i1, signed predicates see true as -1 (MLIR's two's complement): `true slt false`."""
    for rx in ((0, 0), (1, 1), (0, 1)):
        for ry in ((0, 0), (1, 1), (0, 1)):
            block = Block(arg_types=[i1, i1])
            x, y = block.args
            analysis = RangeAnalysis({"x": 1, "y": 1, "z": 1}, {x: rx, y: ry})
            op = arith.CmpiOp(x, y, pred)
            analysis.visit(op)
            r = analysis.ranges.get(op.result)
            if r is None or r[0] != r[1]:
                continue
            for a in range(rx[0], rx[1] + 1):
                for b in range(ry[0], ry[1] + 1):
                    assert PREDICATES[pred](signed(a, 1), signed(b, 1)) == bool(r[0]), (pred, rx, ry, a, b)


def test_extsi_of_i1_is_minus_one_for_true():
    block = Block(arg_types=[i1])
    (x,) = block.args
    analysis = RangeAnalysis({"x": 1, "y": 1, "z": 1}, {x: (1, 1)})
    op = arith.ExtSIOp(x, I8)
    analysis.visit(op)
    assert analysis.ranges[op.result] == (-1, -1)


def test_a_dominating_guard_proves_the_check():
    """`if i < len(a): ... a[i]` and `if i >= len(b): return` then `b[i]`: both reads are in range."""
    @simt.kernel
    def guarded(a: simt.Slice[wf.f32], b: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32]):
        idx = simt.index_1d()
        i = idx.get()
        if i >= len(b):
            return
        x = b[i]
        if i < len(a):
            x += a[i]
        out[idx] = x

    assert checks_in(guarded) == 0, guarded.ir("gpu")


def test_an_unrelated_guard_proves_nothing():
    @simt.kernel
    def unrelated(a: simt.Slice[wf.f32], b: simt.Slice[wf.f32], out: simt.DisjointSlice[wf.f32]):
        idx = simt.index_1d()
        i = idx.get()
        if i < len(b):  # says nothing about a
            out[idx] = a[i]
        if i <= len(a):  # off by one: a[i] may still be out of range
            out[idx] = a[i]

    assert checks_in(unrelated) == 2, unrelated.ir("gpu")
