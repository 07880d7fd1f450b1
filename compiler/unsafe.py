"""`simt.unsafe`: the escape hatches, named so that every use says what it gives up.

- `RawSlice[T]`: an array parameter any thread may read and write at any index. Every access is
  bounds-checked (checked mode: an out-of-range write records an error and writes nothing), but
  nothing stops two threads from writing the same element: ordering them is the program's job.
"""

from warpforge.frontend.annotations import RawSlice

__all__ = ["RawSlice"]
