// RUN: warpforge-opt %s --pass-pipeline='builtin.module(convert-gpu-to-nvvm,cse)'
// warpforge-opt reproducer: builtin.module(convert-gpu-to-nvvm,cse)
// Used by ../run-reproducer.mlir: a reproducer as warpforge-opt writes one (here, of no crash).
"builtin.module"() ({
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = () -> index}> ({
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index loc("k.py":3:9)
      "gpu.return"(%t) : (index) -> () loc("k.py":4:5)
    }) {sym_name = "f"} : () -> () loc("k.py":2:1)
  }) : () -> ()
}) : () -> ()
