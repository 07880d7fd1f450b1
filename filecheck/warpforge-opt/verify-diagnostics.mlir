// RUN: warpforge-opt %s --split-input-file --verify-diagnostics
// RUN: not warpforge-opt %S/Inputs/verify-diagnostics-wrong.mlir --split-input-file --verify-diagnostics 2>&1 >/dev/null | filecheck %s --check-prefix=WRONG

// --verify-diagnostics as MLIR's: every diagnostic must be expected on its line, every expectation met.
// This file passes; Inputs/verify-diagnostics-wrong.mlir (wrong, missing and unexpected diagnostics)
// must fail with exit status 1 and name each mismatch at its line.

// @+1: the next line
kernel.func @k(%a: si32) attributes {kernel} {
  // expected-error @+1 {{'kernel.truediv' op is not defined on integers (si32)}}
  %c = kernel.truediv %a, %a : si32
  kernel.return
}

// -----

// the same line
kernel.func @k(%a: f32) attributes {kernel} {
  %c = kernel.lshift %a, %a : f32 // expected-error {{is not defined on floats (f32)}}
  kernel.return
}

// -----

// @-N: a line above; regex fragments in -re
kernel.func @k(%a: f32) attributes {kernel} {
  %c = kernel.lshift %a, %a : f32
  // expected-error-re @-1 {{'kernel.{{[a-z]+}}' op is not defined on {{(floats|integers)}} (f32)}}
  kernel.return
}

// -----

// @below and @above skip other annotation lines
kernel.func @k(%a: si32) attributes {kernel} {
  // expected-error @below {{not defined on integers}}
  %c = kernel.truediv %a, %a : si32
  kernel.return
}

// -----

kernel.func @k(%a: si32) attributes {kernel} {
  %c = kernel.truediv %a, %a : si32
  // expected-error @above {{not defined on integers}}
  kernel.return
}

// -----

// parse errors are diagnostics too: an unterminated string literal (refused before xDSL's lexer,
// whose regex backtracks exponentially on it), at its line:col
// expected-error @+1 {{unterminated string literal}}
func.func @f() attributes {a = "never closed } {
  func.return
}

// -----

// a use of an undefined value, at the use
func.func @f() -> i32 {
  // expected-error @+1 {{use of undefined value '%b'}}
  func.return %b : i32
}

// -----

// an unknown op, at its name, with a suggestion
func.func @f() {
  %0 = arith.constant 1 : i32
  // expected-error @+1 {{operation 'arith.addx' is not registered (did you mean 'arith.addi'?)}}
  %1 = arith.addx %0, %0 : i32
  func.return
}

// -----

// a chunk without errors and without expectations passes
func.func @fine() {
  func.return
}

// WRONG: verify-diagnostics-wrong.mlir:6:3: error: unexpected error: 'kernel.truediv' op is not defined on integers (si32)
// WRONG-NEXT: verify-diagnostics-wrong.mlir:5:6: error: expected error "is not defined on floats" was not produced
// WRONG-NEXT: verify-diagnostics-wrong.mlir:15:3: error: unexpected error: 'kernel.truediv' op is not defined on integers (si32)
// WRONG-NEXT: verify-diagnostics-wrong.mlir:14:6: error: expected error "is not defined on integers" was not produced
// WRONG-NEXT: verify-diagnostics-wrong.mlir:23:6: error: expected error "never produced" was not produced
// WRONG-NEXT: verify-diagnostics-wrong.mlir:31:3: error: unexpected error: 'kernel.truediv' op is not defined on integers (si32)
// WRONG-NEXT: verify-diagnostics-wrong.mlir:40:3: error: unexpected error: 'kernel.truediv' op is not defined on integers (si32)
// WRONG-NEXT: verify-diagnostics-wrong.mlir:39:6: error: expected warning "is not defined on integers" was not produced

