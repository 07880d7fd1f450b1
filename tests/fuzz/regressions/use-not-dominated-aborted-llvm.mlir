// ARGS: -p gpu-to-llvm -t ptx
// EXPECT: k.py:5:7: error: '(llvm.fadd|arith.addf)' op operand #0 \(%x\) does not dominate this use
gpu.module @kernels [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
  gpu.func @k(%c: memref<?xf32, 1 : i32>) kernel {
    %v = arith.addf %x, %x : f32 loc("k.py":5:7)
    %x = arith.constant 1.0 : f32
    %c0 = arith.constant 0 : index
    memref.store %v, %c[%c0] : memref<?xf32, 1 : i32>
    gpu.return
  }
}
