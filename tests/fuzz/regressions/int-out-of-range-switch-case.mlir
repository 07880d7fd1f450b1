// ARGS: -p convert-cf-to-llvm
// EXPECT: :4:3: error: malformed operation: Integer value 9223372036854775807 is out of range for type i32
func.func @f(%s: i32) {
  cf.switch %s : i32, [
    default: ^a,
    9223372036854775807: ^a
  ]
^a:
  func.return
}
