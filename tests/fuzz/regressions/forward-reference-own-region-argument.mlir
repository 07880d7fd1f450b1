// ARGS: -p lower-kernel-control-flow
// EXPECT: :5:19: error: use of value '%k' outside the region that defines it
kernel.func @f(%n: si64) attributes {kernel} {
  %one = kernel.constant 1 : si64
  kernel.for %k = %k to %n step %one : si64 {
    kernel.yield
  }
  kernel.return
}
