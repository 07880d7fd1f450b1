// ARGS: -p gpu-to-llvm
// EXPECT: :5:5: error: 'arith.constant' op index value 1000000000000000000000000000000 does not fit in 64 bits
gpu.module @m {
  gpu.func @k(%out: memref<?xindex, 1 : i32>) kernel {
    %c1 = arith.constant 1000000000000000000000000000000 : index
    %c0 = arith.constant 0 : index
    memref.store %c1, %out[%c0] : memref<?xindex, 1 : i32>
    gpu.return
  }
}
