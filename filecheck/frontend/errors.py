# Each kernel below is a CompileError with file:line:col, the source line and a caret.
# RUN: not warpforge compile %s --kernel read_only --emit kernel 2>&1 | filecheck %s --check-prefix=RO
# RUN: not warpforge compile %s --kernel plain_index --emit kernel 2>&1 | filecheck %s --check-prefix=PI
# RUN: not warpforge compile %s --kernel u64_mix --emit kernel 2>&1 | filecheck %s --check-prefix=MIX
# RUN: not warpforge compile %s --kernel branch_types --emit kernel 2>&1 | filecheck %s --check-prefix=BR
# RUN: not warpforge compile %s --kernel unsupported --emit kernel 2>&1 | filecheck %s --check-prefix=UN
# RUN: not warpforge compile %s --kernel float_to_int_store --emit kernel 2>&1 | filecheck %s --check-prefix=FI
# RUN: not warpforge compile %s --kernel literal_range --emit kernel 2>&1 | filecheck %s --check-prefix=LR
import warpforge as wf
from warpforge import simt


@simt.kernel
def read_only(a: simt.Slice[wf.f32]):
    idx = simt.index_1d()
    # RO: errors.py:[[# @LINE + 4]]:5: error: Slice[f32] 'a' is read-only; declare the parameter simt.DisjointSlice[wf.f32] to write it
    # RO-NEXT: a[idx] = 1.0
    # RO-NEXT: ^
    # RO-NOT: Traceback
    a[idx] = 1.0


@simt.kernel
def plain_index(c: simt.DisjointSlice[wf.f32], i: wf.i64):
    # PI: errors.py:[[# @LINE + 1]]:5: error: DisjointSlice[f32] 'c' is written only through a ThreadIndex
    c[i] = 1.0


@simt.kernel
def u64_mix(a: wf.u64, b: wf.i64, c: simt.DisjointSlice[wf.f64]):
    idx = simt.index_1d()
    # MIX: errors.py:[[# @LINE + 1]]:14: error: mixing u64 and i64 has no exact common type
    c[idx] = a + b


@simt.kernel
def branch_types(x: simt.Slice[wf.f32], c: simt.DisjointSlice[wf.f64]):
    idx = simt.index_1d()
    # BR: errors.py:[[# @LINE + 1]]:5: error: 'v' is f32 in one branch and f64 in the other
    if x[idx.get()] > 0:
        v = x[idx.get()]
    else:
        v = wf.f64(1.0)
    c[idx] = v


@simt.kernel
def unsupported(c: simt.DisjointSlice[wf.f32]):
    idx = simt.index_1d()
    # UN: errors.py:[[# @LINE + 1]]:5: error: With statements are not supported in kernels
    with open("x"):
        pass


@simt.kernel
def float_to_int_store(x: simt.Slice[wf.f32], c: simt.DisjointSlice[wf.i32]):
    idx = simt.index_1d()
    # FI: error: storing into DisjointSlice[i32] 'c': f32 does not convert implicitly to i32; convert explicitly with wf.i32(...)
    c[idx] = x[idx.get()]


@simt.kernel
def literal_range(c: simt.DisjointSlice[wf.u8]):
    idx = simt.index_1d()
    # LR: error: the constant 300 does not fit u8 (0..255)
    c[idx] = 300
