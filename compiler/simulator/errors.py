"""The simulator's diagnostic."""

from __future__ import annotations

from warpforge.errors import WarpforgeError


class SimulatorError(WarpforgeError):
    """The CPU simulator cannot run a kernel as the GPU would, or the kernel would misbehave there.

    Raised for: an op (or external function) the simulator has no implementation for; a barrier
    reached by only some threads of a block while the others exited or wait at another barrier (a
    hang on the GPU); a runaway loop past the step limit; an unchecked out-of-bounds access (a fault
    or silent corruption on the GPU); a warp collective whose lanes are not converged. The message
    names the op and its source location (`file:line:col`). `location` holds that text.
    """

    def __init__(self, message: str, *, location: str = ""):
        self.location = location
        super().__init__(message)
