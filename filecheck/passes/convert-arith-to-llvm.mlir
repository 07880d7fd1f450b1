// RUN: warpforge-opt %s -p convert-arith-to-llvm --split-input-file --allow-unregistered-dialect | filecheck %s

// One-to-one ops, keeping overflow and fast-math flags.

// CHECK-LABEL: func.func @binary(
// CHECK-SAME:    %[[A:[^:]*]]: i32, %[[B:[^:]*]]: i32, %[[X:[^:]*]]: f32, %[[Y:[^:]*]]: f32, %[[V:[^:]*]]: vector<4xf32>)
// CHECK-NEXT:    %[[ADD:.*]] = llvm.add %[[A]], %[[B]] overflow<nsw> : i32
// CHECK-NEXT:    %[[SUB:.*]] = llvm.sub %[[ADD]], %[[B]] : i32
// CHECK-NEXT:    %[[MUL:.*]] = llvm.mul %[[SUB]], %[[B]] overflow<nsw,nuw> : i32
// CHECK-NEXT:    %[[DIV:.*]] = llvm.sdiv %[[MUL]], %[[B]] : i32
// CHECK-NEXT:    %[[UDIV:.*]] = llvm.udiv %[[DIV]], %[[B]] : i32
// CHECK-NEXT:    %[[REM:.*]] = llvm.srem %[[UDIV]], %[[B]] : i32
// CHECK-NEXT:    %[[UREM:.*]] = llvm.urem %[[REM]], %[[B]] : i32
// CHECK-NEXT:    %[[AND:.*]] = llvm.and %[[UREM]], %[[B]] : i32
// CHECK-NEXT:    %[[OR:.*]] = llvm.or %[[AND]], %[[B]] : i32
// CHECK-NEXT:    %[[XOR:.*]] = llvm.xor %[[OR]], %[[B]] : i32
// CHECK-NEXT:    %[[SHL:.*]] = llvm.shl %[[XOR]], %[[B]] : i32
// CHECK-NEXT:    %[[ASHR:.*]] = llvm.ashr %[[SHL]], %[[B]] : i32
// CHECK-NEXT:    %[[LSHR:.*]] = llvm.lshr %[[ASHR]], %[[B]] : i32
// CHECK-NEXT:    %[[FADD:.*]] = llvm.fadd %[[X]], %[[Y]] {fastmathFlags = #llvm.fastmath<fast>} : f32
// CHECK-NEXT:    %[[FSUB:.*]] = llvm.fsub %[[FADD]], %[[Y]] : f32
// CHECK-NEXT:    %[[FMUL:.*]] = llvm.fmul %[[FSUB]], %[[Y]] {fastmathFlags = #llvm.fastmath<contract>} : f32
// CHECK-NEXT:    %[[FDIV:.*]] = llvm.fdiv %[[FMUL]], %[[Y]] : f32
// CHECK-NEXT:    %[[NEG:.*]] = llvm.fneg %[[FDIV]] : f32
// CHECK-NEXT:    %[[VM:.*]] = llvm.fmul %[[V]], %[[V]] : vector<4xf32>
// CHECK-NEXT:    func.return %[[LSHR]], %[[NEG]], %[[VM]] : i32, f32, vector<4xf32>
func.func @binary(%a: i32, %b: i32, %x: f32, %y: f32, %v: vector<4xf32>) -> (i32, f32, vector<4xf32>) {
  %0 = arith.addi %a, %b overflow<nsw> : i32
  %1 = arith.subi %0, %b : i32
  %2 = arith.muli %1, %b overflow<nsw, nuw> : i32
  %3 = arith.divsi %2, %b : i32
  %4 = arith.divui %3, %b : i32
  %5 = arith.remsi %4, %b : i32
  %6 = arith.remui %5, %b : i32
  %7 = arith.andi %6, %b : i32
  %8 = arith.ori %7, %b : i32
  %9 = arith.xori %8, %b : i32
  %10 = arith.shli %9, %b : i32
  %11 = arith.shrsi %10, %b : i32
  %12 = arith.shrui %11, %b : i32
  %f0 = arith.addf %x, %y fastmath<fast> : f32
  %f1 = arith.subf %f0, %y : f32
  %f2 = arith.mulf %f1, %y fastmath<contract> : f32
  %f3 = arith.divf %f2, %y : f32
  %f4 = arith.negf %f3 : f32
  %v1 = arith.mulf %v, %v : vector<4xf32>
  func.return %12, %f4, %v1 : i32, f32, vector<4xf32>
}

// -----

// Max/min: maximumf/minimumf propagate NaN (llvm.intr.maximum/minimum), maxnumf/minnumf ignore it.

// CHECK-LABEL: func.func @minmax(
// CHECK-SAME:    %[[X:[^:]*]]: f32, %[[Y:[^:]*]]: f32, %[[A:[^:]*]]: i64, %[[B:[^:]*]]: i64)
// CHECK-NEXT:    %[[M1:.*]] = llvm.intr.maximum(%[[X]], %[[Y]]) : (f32, f32) -> f32
// CHECK-NEXT:    %[[M2:.*]] = llvm.intr.minimum(%[[M1]], %[[Y]]) : (f32, f32) -> f32
// CHECK-NEXT:    %[[M3:.*]] = llvm.intr.maxnum(%[[M2]], %[[Y]]) {fastmathFlags = #llvm.fastmath<nnan>} : (f32, f32) -> f32
// CHECK-NEXT:    %[[M4:.*]] = llvm.intr.minnum(%[[M3]], %[[Y]]) : (f32, f32) -> f32
// CHECK-NEXT:    %[[I1:.*]] = llvm.intr.smax(%[[A]], %[[B]]) : (i64, i64) -> i64
// CHECK-NEXT:    %[[I2:.*]] = llvm.intr.smin(%[[I1]], %[[B]]) : (i64, i64) -> i64
// CHECK-NEXT:    %[[I3:.*]] = llvm.intr.umax(%[[I2]], %[[B]]) : (i64, i64) -> i64
// CHECK-NEXT:    %[[I4:.*]] = llvm.intr.umin(%[[I3]], %[[B]]) : (i64, i64) -> i64
// CHECK-NEXT:    func.return %[[M4]], %[[I4]] : f32, i64
func.func @minmax(%x: f32, %y: f32, %a: i64, %b: i64) -> (f32, i64) {
  %0 = arith.maximumf %x, %y : f32
  %1 = arith.minimumf %0, %y : f32
  %2 = arith.maxnumf %1, %y fastmath<nnan> : f32
  %3 = arith.minnumf %2, %y : f32
  %4 = arith.maxsi %a, %b : i64
  %5 = arith.minsi %4, %b : i64
  %6 = arith.maxui %5, %b : i64
  %7 = arith.minui %6, %b : i64
  func.return %3, %7 : f32, i64
}

// -----

// Casts; float → int saturates (llvm.fpto[su]i.sat).

// CHECK-LABEL: func.func @casts(
// CHECK-SAME:    %[[H:[^:]*]]: f16, %[[A:[^:]*]]: i8, %[[X:[^:]*]]: f64)
// CHECK-NEXT:    %[[E:.*]] = llvm.fpext %[[H]] : f16 to f32
// CHECK-NEXT:    %[[T:.*]] = llvm.fptrunc %[[X]] : f64 to f32
// CHECK-NEXT:    %[[S:.*]] = llvm.sext %[[A]] : i8 to i32
// CHECK-NEXT:    %[[Z:.*]] = llvm.zext %[[A]] : i8 to i64
// CHECK-NEXT:    %[[TR:.*]] = llvm.trunc %[[Z]] : i64 to i16
// CHECK-NEXT:    %[[SF:.*]] = llvm.sitofp %[[S]] : i32 to f32
// CHECK-NEXT:    %[[UF:.*]] = llvm.uitofp %[[TR]] : i16 to f64
// CHECK-NEXT:    %[[FS:.*]] = llvm.call_intrinsic "llvm.fptosi.sat.i32.f32"(%[[E]]) : (f32) -> i32
// CHECK-NEXT:    %[[FU:.*]] = llvm.call_intrinsic "llvm.fptoui.sat.i64.f64"(%[[UF]]) : (f64) -> i64
// CHECK-NEXT:    %[[BC:.*]] = llvm.bitcast %[[T]] : f32 to i32
// CHECK-NEXT:    func.return %[[SF]], %[[FS]], %[[FU]], %[[BC]] : f32, i32, i64, i32
func.func @casts(%h: f16, %a: i8, %x: f64) -> (f32, i32, i64, i32) {
  %e = arith.extf %h : f16 to f32
  %t = arith.truncf %x : f64 to f32
  %s = arith.extsi %a : i8 to i32
  %z = arith.extui %a : i8 to i64
  %tr = arith.trunci %z : i64 to i16
  %sf = arith.sitofp %s : i32 to f32
  %uf = arith.uitofp %tr : i16 to f64
  %fs = arith.fptosi %e : f32 to i32
  %fu = arith.fptoui %uf : f64 to i64
  %bc = arith.bitcast %t : f32 to i32
  func.return %sf, %fs, %fu, %bc : f32, i32, i64, i32
}

// -----

// Comparisons (every predicate keeps its name; cmpf false/true fold), select and constants.

// CHECK-LABEL: func.func @compare_select(
// CHECK-SAME:    %[[A:[^:]*]]: i32, %[[B:[^:]*]]: i32, %[[X:[^:]*]]: f32, %[[Y:[^:]*]]: f32)
// CHECK-NEXT:    %[[C:.*]] = llvm.mlir.constant(7 : i32) : i32
// CHECK-NEXT:    %[[T:.*]] = llvm.mlir.constant(true) : i1
// CHECK-NEXT:    %[[F:.*]] = llvm.mlir.constant(2.500000e+00 : f32) : f32
// CHECK-NEXT:    %[[SPLAT:.*]] = llvm.mlir.constant(dense<1.000000e+00> : vector<4xf32>) : vector<4xf32>
// CHECK-NEXT:    %[[I0:.*]] = llvm.icmp "eq" %[[A]], %[[B]] : i32
// CHECK-NEXT:    %[[I1:.*]] = llvm.icmp "ne" %[[A]], %[[B]] : i32
// CHECK-NEXT:    %[[I2:.*]] = llvm.icmp "slt" %[[A]], %[[B]] : i32
// CHECK-NEXT:    %[[I3:.*]] = llvm.icmp "sle" %[[A]], %[[B]] : i32
// CHECK-NEXT:    %[[I4:.*]] = llvm.icmp "sgt" %[[A]], %[[B]] : i32
// CHECK-NEXT:    %[[I5:.*]] = llvm.icmp "sge" %[[A]], %[[B]] : i32
// CHECK-NEXT:    %[[I6:.*]] = llvm.icmp "ult" %[[A]], %[[B]] : i32
// CHECK-NEXT:    %[[I7:.*]] = llvm.icmp "ule" %[[A]], %[[B]] : i32
// CHECK-NEXT:    %[[I8:.*]] = llvm.icmp "ugt" %[[A]], %[[B]] : i32
// CHECK-NEXT:    %[[I9:.*]] = llvm.icmp "uge" %[[A]], %[[B]] : i32
// CHECK-NEXT:    %[[F0:.*]] = llvm.mlir.constant(false) : i1
// CHECK-NEXT:    %[[F1:.*]] = llvm.fcmp "oeq" %[[X]], %[[Y]] : f32
// CHECK-NEXT:    %[[F2:.*]] = llvm.fcmp "ogt" %[[X]], %[[Y]] : f32
// CHECK-NEXT:    %[[F3:.*]] = llvm.fcmp "oge" %[[X]], %[[Y]] : f32
// CHECK-NEXT:    %[[F4:.*]] = llvm.fcmp "olt" %[[X]], %[[Y]] : f32
// CHECK-NEXT:    %[[F5:.*]] = llvm.fcmp "ole" %[[X]], %[[Y]] : f32
// CHECK-NEXT:    %[[F6:.*]] = llvm.fcmp "one" %[[X]], %[[Y]] : f32
// CHECK-NEXT:    %[[F7:.*]] = llvm.fcmp "ord" %[[X]], %[[Y]] : f32
// CHECK-NEXT:    %[[F8:.*]] = llvm.fcmp "ueq" %[[X]], %[[Y]] : f32
// CHECK-NEXT:    %[[F9:.*]] = llvm.fcmp "ugt" %[[X]], %[[Y]] : f32
// CHECK-NEXT:    %[[F10:.*]] = llvm.fcmp "uge" %[[X]], %[[Y]] : f32
// CHECK-NEXT:    %[[F11:.*]] = llvm.fcmp "ult" %[[X]], %[[Y]] : f32
// CHECK-NEXT:    %[[F12:.*]] = llvm.fcmp "ule" %[[X]], %[[Y]] : f32
// CHECK-NEXT:    %[[F13:.*]] = llvm.fcmp "une" %[[X]], %[[Y]] : f32
// CHECK-NEXT:    %[[F14:.*]] = llvm.fcmp "uno" %[[X]], %[[Y]] : f32
// CHECK-NEXT:    %[[F15:.*]] = llvm.mlir.constant(true) : i1
// CHECK-NEXT:    %[[SEL:.*]] = llvm.select %[[I0]], %[[A]], %[[C]] : i1, i32
func.func @compare_select(%a: i32, %b: i32, %x: f32, %y: f32) -> (i32, f32, vector<4xf32>, i1) {
  %c = arith.constant 7 : i32
  %t = arith.constant true
  %f = arith.constant 2.5 : f32
  %splat = arith.constant dense<1.0> : vector<4xf32>
  %i0 = arith.cmpi eq, %a, %b : i32
  %i1 = arith.cmpi ne, %a, %b : i32
  %i2 = arith.cmpi slt, %a, %b : i32
  %i3 = arith.cmpi sle, %a, %b : i32
  %i4 = arith.cmpi sgt, %a, %b : i32
  %i5 = arith.cmpi sge, %a, %b : i32
  %i6 = arith.cmpi ult, %a, %b : i32
  %i7 = arith.cmpi ule, %a, %b : i32
  %i8 = arith.cmpi ugt, %a, %b : i32
  %i9 = arith.cmpi uge, %a, %b : i32
  %f0 = arith.cmpf false, %x, %y : f32
  %f1 = arith.cmpf oeq, %x, %y : f32
  %f2 = arith.cmpf ogt, %x, %y : f32
  %f3 = arith.cmpf oge, %x, %y : f32
  %f4 = arith.cmpf olt, %x, %y : f32
  %f5 = arith.cmpf ole, %x, %y : f32
  %f6 = arith.cmpf one, %x, %y : f32
  %f7 = arith.cmpf ord, %x, %y : f32
  %f8 = arith.cmpf ueq, %x, %y : f32
  %f9 = arith.cmpf ugt, %x, %y : f32
  %f10 = arith.cmpf uge, %x, %y : f32
  %f11 = arith.cmpf ult, %x, %y : f32
  %f12 = arith.cmpf ule, %x, %y : f32
  %f13 = arith.cmpf une, %x, %y : f32
  %f14 = arith.cmpf uno, %x, %y : f32
  %f15 = arith.cmpf true, %x, %y : f32
  %sel = arith.select %i0, %a, %c : i32
  %all = "test.all"(%t, %i1, %i2, %i3, %i4, %i5, %i6, %i7, %i8, %i9, %f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8, %f9, %f10, %f11, %f12, %f13, %f14, %f15) : (i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1, i1) -> i1
  func.return %sel, %f, %splat, %all : i32, f32, vector<4xf32>, i1
}

// -----

// Expansions: floor/ceil division round toward −∞/+∞; extended add/multiply.

// CHECK-LABEL: func.func @expansions(
// CHECK-SAME:    %[[A:[^:]*]]: i32, %[[B:[^:]*]]: i32)
// CHECK-NEXT:    %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[Q:.*]] = llvm.sdiv %[[A]], %[[B]] : i32
// CHECK-NEXT:    %[[R:.*]] = llvm.srem %[[A]], %[[B]] : i32
// CHECK-NEXT:    %[[NZ:.*]] = llvm.icmp "ne" %[[R]], %[[Z]] : i32
// CHECK-NEXT:    %[[X:.*]] = llvm.xor %[[R]], %[[B]] : i32
// CHECK-NEXT:    %[[NEG:.*]] = llvm.icmp "slt" %[[X]], %[[Z]] : i32
// CHECK-NEXT:    %[[ADJ:.*]] = llvm.and %[[NZ]], %[[NEG]] : i1
// CHECK-NEXT:    %[[QM:.*]] = llvm.sub %[[Q]], %[[ONE]] : i32
// CHECK-NEXT:    %[[FLOOR:.*]] = llvm.select %[[ADJ]], %[[QM]], %[[Q]] : i1, i32
// CHECK:         llvm.icmp "sge"
// CHECK:         %[[CEIL:.*]] = llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, i32
// CHECK:         llvm.icmp "eq" %[[A]], %{{.*}} : i32
// CHECK:         llvm.udiv
// CHECK:         %[[CEILU:.*]] = llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, i32
// CHECK-NEXT:    %[[SUM:.*]] = llvm.add %[[A]], %[[B]] : i32
// CHECK-NEXT:    %[[CARRY:.*]] = llvm.icmp "ult" %[[SUM]], %[[A]] : i32
// CHECK-NEXT:    %[[AW:.*]] = llvm.sext %[[A]] : i32 to i64
// CHECK-NEXT:    %[[BW:.*]] = llvm.sext %[[B]] : i32 to i64
// CHECK-NEXT:    %[[P:.*]] = llvm.mul %[[AW]], %[[BW]] : i64
// CHECK-NEXT:    %[[LO:.*]] = llvm.trunc %[[P]] : i64 to i32
// CHECK-NEXT:    %[[SH:.*]] = llvm.mlir.constant(32) : i64
// CHECK-NEXT:    %[[HIW:.*]] = llvm.lshr %[[P]], %[[SH]] : i64
// CHECK-NEXT:    %[[HI:.*]] = llvm.trunc %[[HIW]] : i64 to i32
// CHECK-NEXT:    func.return %[[FLOOR]], %[[CEIL]], %[[CEILU]], %[[SUM]], %[[CARRY]], %[[LO]], %[[HI]]
func.func @expansions(%a: i32, %b: i32) -> (i32, i32, i32, i32, i1, i32, i32) {
  %0 = arith.floordivsi %a, %b : i32
  %1 = arith.ceildivsi %a, %b : i32
  %2 = arith.ceildivui %a, %b : i32
  %sum, %carry = arith.addui_extended %a, %b : i32, i1
  %lo, %hi = arith.mulsi_extended %a, %b : i32
  func.return %0, %1, %2, %sum, %carry, %lo, %hi : i32, i32, i32, i32, i1, i32, i32
}

// -----

// Negating an i8/i16 (`0 - x`): at i32, the low bits sign-extended by prmt, then truncated, so
// neither LLVM (narrowing back to neg.s16) nor ptxas (dropping the cvt.s32.s16 after it) can lose
// the wrap of -(-32768). Other narrow subtractions and i32 negation stay one llvm.sub.
// CHECK-LABEL: func.func @narrow_negation(
// CHECK-SAME:    %[[X:.*]]: i16, %[[Y:.*]]: i8, %[[Z:.*]]: i32
// CHECK:         %[[W:.*]] = llvm.sext %[[X]] : i16 to i32
// CHECK:         %[[N:.*]] = llvm.sub %{{.*}}, %[[W]] : i32
// CHECK:         %[[E:.*]] = llvm.call_intrinsic "llvm.nvvm.prmt"(%[[N]], %{{.*}}, %{{.*}}) : (i32, i32, i32) -> i32
// CHECK:         %[[T:.*]] = llvm.trunc %[[E]] : i32 to i16
// CHECK:         %[[WY:.*]] = llvm.sext %[[Y]] : i8 to i32
// CHECK:         llvm.call_intrinsic "llvm.nvvm.prmt"
// CHECK:         %[[TY:.*]] = llvm.trunc %{{.*}} : i32 to i8
// CHECK:         %[[NZ:.*]] = llvm.sub %{{.*}}, %[[Z]] : i32
// CHECK:         %[[D:.*]] = llvm.sub %[[X]], %[[X]] : i16
// CHECK:         func.return %[[T]], %[[TY]], %[[NZ]], %[[D]]
func.func @narrow_negation(%x: i16, %y: i8, %z: i32) -> (i16, i8, i32, i16) {
  %c0 = arith.constant 0 : i16
  %c0b = arith.constant 0 : i8
  %c0w = arith.constant 0 : i32
  %0 = arith.subi %c0, %x : i16
  %1 = arith.subi %c0b, %y : i8
  %2 = arith.subi %c0w, %z : i32
  %3 = arith.subi %x, %x : i16
  func.return %0, %1, %2, %3 : i16, i8, i32, i16
}
