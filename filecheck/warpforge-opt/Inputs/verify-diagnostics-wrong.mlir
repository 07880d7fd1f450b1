// Used by ../verify-diagnostics.mlir: each chunk's expectations are wrong.

// a wrong message: the real error is unexpected, the expectation is missing
kernel.func @k(%a: si32) attributes {kernel} {
  // expected-error @+1 {{is not defined on floats}}
  %c = kernel.truediv %a, %a : si32
  kernel.return
}

// -----

// the right message on the wrong line
kernel.func @k(%a: si32) attributes {kernel} {
  // expected-error @+2 {{is not defined on integers}}
  %c = kernel.truediv %a, %a : si32
  kernel.return
}

// -----

// an expected error in a chunk that has none
func.func @fine() {
  // expected-error @+1 {{never produced}}
  func.return
}

// -----

// an error with no expectation
kernel.func @k(%a: si32) attributes {kernel} {
  %c = kernel.truediv %a, %a : si32
  kernel.return
}

// -----

// severity matters: an error is not a warning
kernel.func @k(%a: si32) attributes {kernel} {
  // expected-warning @+1 {{is not defined on integers}}
  %c = kernel.truediv %a, %a : si32
  kernel.return
}
