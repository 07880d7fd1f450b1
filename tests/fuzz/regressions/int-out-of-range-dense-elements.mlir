// ARGS: -p finalize-memref-to-llvm
// EXPECT: :3:1: error: malformed operation: Integer value -2147483649 is out of range for type i32
"memref.global"() <{sym_name = "table", sym_visibility = "private", type = memref<2xi32, 1 : i32>, initial_value = dense<[1, -2147483649]> : tensor<2xi32>, constant}> : () -> ()
