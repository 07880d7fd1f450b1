"""Assembly formats parsed on first use (`warpforge.lazy_formats`): a compile parses none, printing and
parsing still use them, and every registered op's format still parses (a broken one fails here, not
only at its op's first print)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def
from xdsl.irdl.declarative_assembly_format_parser import FormatParser
from xdsl.irdl.operations import PyRDLOpDefinitionError

import warpforge
from warpforge import lazy_formats
from warpforge.context import make_context
from warpforge.dialects import get_all_dialects

ROOT = Path(__file__).resolve().parent.parent


def _ops_with_formats() -> list[type[IRDLOperation]]:
    ops = []
    for factory in get_all_dialects().values():
        for op in factory().operations:
            if issubclass(op, IRDLOperation) and op.get_irdl_definition().assembly_format is not None:
                ops.append(op)
    return ops


def test_every_registered_format_parses() -> None:
    ops = _ops_with_formats()
    assert len(ops) > 300  # xDSL's dialects and ours: formats of every dialect were found
    names = {op.name.split(".")[0] for op in ops}
    assert {"arith", "llvm", "nvvm", "kernel", "gpu"} <= names
    for op in ops:
        op_def = op.get_irdl_definition()
        program = FormatParser(op_def.assembly_format, op_def).parse_format()  # ParseError fails the test
        assert program.stmts, op.name


def test_definitions_defer_the_format_and_first_use_builds_it() -> None:
    from xdsl.irdl.declarative_assembly_format import FormatProgram

    assert FormatProgram.from_str("$lhs attr-dict `:` type($lhs)", None).__class__ is lazy_formats.LazyFormatProgram
    text = '%0 = "test.c"() : () -> i32\n%1 = arith.addi %0, %0 : i32\n"test.use"(%1) : (i32) -> ()\n'
    from warpforge.diagnostics import parse_mlir

    module = parse_mlir(make_context(allow_unregistered=True), f"builtin.module {{\n{text}}}", "t.mlir")
    printed = str(module)
    assert "arith.addi %0, %0 : i32" in printed  # the custom format printed it
    assert str(parse_mlir(make_context(allow_unregistered=True), printed, "t2.mlir")) == printed


def test_a_malformed_format_is_refused_at_first_use() -> None:
    @irdl_op_definition
    class BadFormatOp(IRDLOperation):  # defined without error: the format is not parsed yet
        name = "test.bad_format"
        x = operand_def()
        assembly_format = "$x attr-dict `:` type($nothing)"

    op = BadFormatOp.__new__(BadFormatOp)
    with pytest.raises(PyRDLOpDefinitionError, match="test.bad_format"):
        BadFormatOp.print(op, None)  # pyright: ignore[reportArgumentType]


PROBE = r"""
import json, os, sys
os.environ["WARPFORGE_CACHE"] = "0"
import warpforge
from warpforge import lazy_formats
from warpforge.driver.cli import _kernels, _load_file
for name, k in sorted(_kernels(_load_file(sys.argv[1])).items()):
    k.compile("sm_90")
import xdsl.irdl.declarative_assembly_format as D
print(json.dumps({"built": lazy_formats.built, "patched": D.FormatProgram.from_str is lazy_formats._lazy_from_str}))
"""


@pytest.mark.parametrize("example", ["vecadd.py", "tile_vecadd.py"])
def test_a_compile_to_ptx_parses_no_assembly_format(example: str) -> None:
    proc = subprocess.run([sys.executable, "-c", PROBE, str(ROOT / "examples" / example)], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got == {"built": 0, "patched": True}


def test_install_is_idempotent_and_patches_a_loaded_module() -> None:
    import xdsl.irdl.declarative_assembly_format as D

    finders = sum(isinstance(f, lazy_formats._Finder) for f in sys.meta_path)
    lazy_formats.install()
    lazy_formats.install()
    assert D.FormatProgram.from_str is lazy_formats._lazy_from_str
    assert sum(isinstance(f, lazy_formats._Finder) for f in sys.meta_path) == finders == 0
    assert warpforge.lazy_formats is lazy_formats
