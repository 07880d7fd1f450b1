// ARGS: -p gpu-to-llvm -t ptx
// EXPECT: :9:7: error: 'scf.yield' op yields \(\) but its parent 'scf.if' has results of types \(f32\)
// found by the fuzz slice (examples/softmax.py's gpu IR with the else branch's scf.yield deleted):
// xDSL verified an scf.if with results and an empty else region, and LLVM aborted the process on the
// phis ("Broken module found")
builtin.module {
  gpu.module @m [#nvvm.target<chip = "sm_90", features = "+ptx80">] {
    gpu.func @k(%a: f32, %c: i1, %o: memref<?xf32, 1 : i32>) kernel {
      %r = scf.if %c -> (f32) {
        scf.yield %a : f32
      } else {
      }
      %i = arith.constant 0 : index
      memref.store %r, %o[%i] : memref<?xf32, 1 : i32>
      gpu.return
    }
  }
}
