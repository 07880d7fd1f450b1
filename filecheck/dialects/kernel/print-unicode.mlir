// RUN: warpforge-opt %s | warpforge-opt | filecheck %s
// RUN: warpforge-opt %s -p 'kernel-to-gpu{chip=sm_90 features="+ptx80"}',gpu-to-llvm -t llvm | filecheck %s --check-prefix=LL

// A format with non-ASCII text round-trips through the custom syntax (xDSL prints it as UTF-8 byte
// escapes) and reaches LLVM as its UTF-8 bytes ("π ≈ %f ✓\n").
// CHECK: kernel.print "\CF\80 \E2\89\88 {} \E2\9C\93\0A", %{{.*}} : f32
// LL: c"\cf\80 \e2\89\88 %f \e2\9c\93\0a\00"
kernel.func @k(%x: f32) attributes {kernel} {
  kernel.print "π ≈ {} ✓\n", %x : f32
  kernel.return
}
