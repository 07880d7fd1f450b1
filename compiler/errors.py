"""warpforge's exceptions. Every error a user can cause is one of these, with a message that says what
was wrong and where (file:line:col for Python kernels, line:col for MLIR)."""

from __future__ import annotations


class WarpforgeError(Exception):
    """Base of every warpforge diagnostic."""


class CompileError(WarpforgeError):
    """A kernel cannot be compiled: an unsupported construct, a type error, a bad annotation.

    `str()` gives `file:line:col: error: message`, then the source line and a caret under the column.
    """

    def __init__(self, message: str, *, filename: str = "<unknown>", line: int = 0, col: int = 0, source_line: str | None = None):
        self.message, self.filename, self.line, self.col, self.source_line = message, filename, line, col, source_line
        super().__init__(self._render())

    def _render(self) -> str:
        text = f"{self.filename}:{self.line}:{self.col}: error: {self.message}"
        if self.source_line is not None:
            stripped = self.source_line.rstrip("\n")
            text += f"\n  {stripped}\n  {' ' * max(self.col - 1, 0)}^"
        return text


class TargetError(CompileError):
    """An unknown chip, a malformed feature string, or a PTX ISA version the chip cannot use (`sm_100`
    with `+ptx80`), refused before LLVM runs (`warpforge.backend.chips`). Not located in a file: the
    chip comes from an argument or an option, not from kernel source; `str()` is the message."""

    def __init__(self, message: str):
        self.message, self.filename, self.line, self.col, self.source_line = message, "", 0, 0, None
        Exception.__init__(self, message)


class LaunchError(WarpforgeError):
    """A launch was refused before anything ran: the configuration breaks the kernel's contract or the
    device's limits, or an argument does not fit its parameter."""


class AliasError(LaunchError):
    """An output argument's memory overlaps another argument's (byte ranges); refused before launch."""


class KernelError(WarpforgeError):
    """A checked-mode kernel recorded an error (out-of-range read, integer division by zero).

    Raised on the host after the launch completed; the message names the kernel and file:line. The
    CUDA context stays usable. Attributes: `kernel`, `kind`, `filename`, `line`, `col`, `details`.
    """

    def __init__(self, message: str, *, kernel: str = "", kind: str = "", filename: str = "", line: int = 0, col: int = 0, details: dict | None = None):
        self.kernel, self.kind, self.filename, self.line, self.col = kernel, kind, filename, line, col
        self.details = details or {}
        super().__init__(message)


class DeviceError(WarpforgeError):
    """No usable GPU or driver (or another device-side failure), with how to fix it where we know."""


class UsageError(WarpforgeError, TypeError, ValueError):
    """A public function was called with an argument it does not take (a wrong type, an unsupported
    dtype, an unknown stage name); the message says what it takes. Also a `TypeError` and a
    `ValueError`, which these cases raised before."""


class MovedValueError(WarpforgeError):
    """A tensor consumed by `partition()` was used again; names where it was created and consumed."""


class ChainNotRunError(WarpforgeError, TypeError):
    """A lazy result (`….to_host()` of a tile chain) was used as data before the chain ran: call
    `.sync_on(stream)` (or `.sync()`) first, which runs it and returns the NumPy array. Also a
    `TypeError`, which is what using it would raise in plain Python."""


class UsageError(WarpforgeError, TypeError, ValueError):
    """The API was used the wrong way: an argument of the wrong type or value (an unsupported dtype, a
    bad annotation, a bad stage name), a kernel or device function called like a Python function, a
    kernel-only function called outside a kernel. Also a `TypeError` and a `ValueError`, what plain
    Python raises for such mistakes."""
class CompileWarning(UserWarning):
    """A kernel compiled, but something about it will hurt (it spills registers to local memory, or
    lowers to so many ops that compiling is slow); shown at the kernel's source line with a hint."""


class LaunchUsageError(UsageError, LaunchError):
    """A runtime constructor was given a bad argument: a tensor shape (`wf.zeros((-1,))`), a launch
    configuration (`LaunchConfig(grid=(1, 2, 3, 4))`), an object `wf.tensor()` cannot use. A
    `UsageError`, and also a `LaunchError`, which these cases raised before."""


class AnnotationError(CompileError, UsageError):
    """A malformed parameter annotation (`tile.Tensor[f32, (2, 2, 2, 2, 2)]`: rank 5), raised where
    Python evaluates it, at the annotation's file:line:col. A `CompileError` (as every annotation
    error is) and a `UsageError`, which these raised before."""


class EnvironmentVariableError(UsageError, DeviceError):
    """A `WARPFORGE_*` environment variable has a value it does not take (`WARPFORGE_SIMULATE=maybe`,
    `WARPFORGE_CACHE_MAX_BYTES=abc`); the message names the variable and what it takes
    (`warpforge.environment`). Also a `DeviceError`, which `WARPFORGE_SIM_STEP_LIMIT` raised before."""
