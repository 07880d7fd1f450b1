"""Op lowerings that extend a pass without being passes themselves: each module registers its
`@lowers` entries into the value-map lowering of the pass it belongs to when that pass imports it.

| module | extends | lit test |
|---|---|---|
| `kernel_to_gpu_mma.py` | `kernel-to-gpu`: the tensor-core and `cp.async` ops of `dialects/kernel_mma.py` | `filecheck/passes/kernel-to-gpu-mma.mlir` |
| `tile_dot.py` | `tile-to-gpu`: `tile.dot` on `mma.sync` | `filecheck/passes/tile-to-gpu-dot.mlir` |
| `tile_map.py` | `tile-to-gpu`: `tile.map` (device functions on tiles), its body per register | `filecheck/passes/tile-to-gpu-map.mlir` |
"""
