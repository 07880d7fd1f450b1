"""Debugging knobs of the Python API, read from the environment (as Triton's `TRITON_KERNEL_DUMP` /
`TRITON_KERNEL_OVERRIDE`):

- `WARPFORGE_DUMP_IR=DIR`: every kernel the Python API compiles writes each stage to `DIR`, named by
  the kernel's symbol (its qualified name and, for generic and tile kernels, its specialization) and
  the stage: `DIR/vecadd.kernel.mlir`, `.gpu.mlir`, `.nvvm.mlir`, `.llvm.mlir` (tile kernels also
  `.tile.mlir`), `DIR/vecadd.ll`, `DIR/vecadd.ptx`. MLIR stages are printed with locations, so
  `warpforge-opt` resumes from any of them.
- `WARPFORGE_KERNEL_OVERRIDE=DIR`: a file of that name found in `DIR` replaces the compiler's output
  for that stage of that kernel (MLIR of any stage, LLVM IR or PTX); the later stages start from it.
  Typically: dump, copy a file to `DIR`, edit it, run again. An override that does not parse or
  verify is a located `IRDiagnosticError` naming the file. The CPU simulator runs the `gpu` stage: an
  override of a later stage (`nvvm`, `llvm`, `ll`, `ptx`) is refused there (`UsageError`), not ignored.
- `WARPFORGE_REPRODUCER_DIR=DIR`: a pass that crashes writes its reproducer there (see
  `warpforge.pass_manager`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

MLIR_STAGES = ("kernel", "tile", "gpu", "nvvm", "llvm")


def stage_file_name(symbol: str, stage: str) -> str:
    """`vecadd.gpu.mlir`, `vecadd.ll`, `vecadd.ptx`: the file of one stage of one kernel."""
    if stage in MLIR_STAGES:
        return f"{symbol}.{stage}.mlir"
    return f"{symbol}.{stage}"


def dump_stage(symbol: str, stage: str, ir: Any) -> None:
    """With `WARPFORGE_DUMP_IR=DIR`: write `ir` (a module or text) as `DIR/<stage file name>`."""
    directory = os.environ.get("WARPFORGE_DUMP_IR")
    if not directory:
        return
    if not isinstance(ir, str):
        from warpforge.diagnostics import print_ir

        ir = print_ir(ir, debuginfo=True)
    path = Path(directory)
    path.mkdir(parents=True, exist_ok=True)
    (path / stage_file_name(symbol, stage)).write_text(ir if ir.endswith("\n") else ir + "\n")


def override_text(symbol: str, stage: str) -> str | None:
    """With `WARPFORGE_KERNEL_OVERRIDE=DIR`: the text of `DIR/<stage file name>` if it exists."""
    directory = os.environ.get("WARPFORGE_KERNEL_OVERRIDE")
    if not directory:
        return None
    path = Path(directory) / stage_file_name(symbol, stage)
    return path.read_text() if path.is_file() else None


LATER_THAN_GPU = ("nvvm", "llvm", "ll", "ptx")
"""The stages past `gpu`: the CPU simulator interprets the `gpu` stage, so their overrides cannot apply there."""


def refuse_overrides_on_simulator(symbol: str) -> None:
    """With `WARPFORGE_KERNEL_OVERRIDE=DIR`: raise `UsageError` when `DIR` overrides a stage of
    `symbol` past `gpu` (the simulator runs the `gpu` stage: such an override would be ignored)."""
    directory = os.environ.get("WARPFORGE_KERNEL_OVERRIDE")
    if not directory:
        return
    found = [stage_file_name(symbol, stage) for stage in LATER_THAN_GPU if (Path(directory) / stage_file_name(symbol, stage)).is_file()]
    if found:
        from warpforge.errors import UsageError

        raise UsageError(
            f"WARPFORGE_KERNEL_OVERRIDE={directory}: {', '.join(found)} override{'s a stage' if len(found) == 1 else ' stages'} past 'gpu' of "
            f"{symbol}, but the CPU simulator runs the kernel's gpu stage, so {'it' if len(found) == 1 else 'they'} cannot apply; "
            f"run on a GPU, or override an earlier stage ({symbol}.kernel.mlir, {symbol}.gpu.mlir; tile kernels also .tile.mlir)"
        )


def apply_stage_hooks(symbol: str, stage: str, module: Any) -> None:
    """After the compiler produced MLIR stage `stage` of `symbol` (in `module`, changed in place): put
    an override's IR in its place, then dump it."""
    text = override_text(symbol, stage)
    if text is not None:
        replace_module(module, text, str(Path(os.environ["WARPFORGE_KERNEL_OVERRIDE"]) / stage_file_name(symbol, stage)))
    dump_stage(symbol, stage, module)


def text_stage(symbol: str, stage: str, produce: Any) -> str:
    """A text stage (`ll`, `ptx`): the override if there is one, else `produce()`; dumped either way."""
    text = override_text(symbol, stage)
    if text is None:
        text = produce()
    dump_stage(symbol, stage, text)
    return text


def replace_module(module: Any, text: str, filename: str) -> None:
    """Parse and verify `text` and move its ops (and attributes) into `module`, replacing its own."""
    from warpforge.context import make_context
    from warpforge.diagnostics import parse_mlir, verify_module

    new = parse_mlir(make_context(), text, filename)
    verify_module(new)
    block = module.body.block
    for op in list(block.ops):
        op.detach()
    for op in list(new.body.block.ops):
        op.detach()
        block.add_op(op)
    module.attributes.clear()
    module.attributes.update(new.attributes)
