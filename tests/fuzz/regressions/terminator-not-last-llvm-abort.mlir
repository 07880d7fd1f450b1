// ARGS: -p gpu-to-llvm -t ptx
// EXPECT: :9:9: error: 'scf.yield' op must be the last operation in the parent block
// found by the fuzz slice (examples/softmax.py's gpu IR with a line `} else {` deleted): xDSL verified a
// block with two terminators and LLVM aborted the process on the phis ("Broken module found")
builtin.module {
  gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    gpu.func @k(%a: f32, %b: f32, %c: i1, %o: memref<?xf32, 1 : i32>) kernel {
      %r = scf.if %c -> (f32) {
        scf.yield %a : f32
        scf.yield %b : f32
      } else {
        scf.yield %b : f32
      }
      %i = arith.constant 0 : index
      memref.store %r, %o[%i] : memref<?xf32, 1 : i32>
      gpu.return
    }
  }
}
