// RUN: warpforge-opt %s | warpforge-opt | filecheck %s
// RUN: warpforge-opt %s --print-op-generic | warpforge-opt | filecheck %s

// gpu.printf round-trips in MLIR's syntax (format, then the arguments and their types); %s takes an i1.

// CHECK-LABEL: gpu.func @prints(
// CHECK:         gpu.printf "i = %lld x = %.3f %s %u\0A", %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : i64, f64, i1, i32
// CHECK:         gpu.printf "100%% done\0A"
gpu.module @m {
  gpu.func @prints(%i: i64, %x: f64, %b: i1, %u: i32) {
    gpu.printf "i = %lld x = %.3f %s %u\n", %i, %x, %b, %u : i64, f64, i1, i32
    gpu.printf "100%% done\n"
    gpu.return
  }
}
