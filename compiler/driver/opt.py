"""`warpforge-opt`: warpforge's `mlir-opt`: parse MLIR, run passes, print MLIR, LLVM IR or PTX.

Every stage of the compiler prints and parses as MLIR text, so any stage can be stopped, inspected
and resumed:

    warpforge-opt kernel.mlir -p simt-to-llvm -t llvm
    warpforge-opt gpu.mlir --pass-pipeline='builtin.module(convert-gpu-to-nvvm,check-nvvm-target)' --mlir-print-ir-after-all
    warpforge-opt llvm.mlir -t 'ptx{chip=sm_90 features="+ptx80"}'
    warpforge-opt invalid.mlir --split-input-file --verify-diagnostics

The flags are mlir-opt's (`--mlir-print-ir-before/after[-all|-change|-failure]`, `--mlir-timing`,
`--mlir-pass-statistics`, `--verify-each`, `--verify-diagnostics`, `--split-input-file`,
`--dump-pass-pipeline`, `--mlir-pass-pipeline-crash-reproducer`, `--run-reproducer`, ...). Built on
xDSL's parser, printer and passes; the driver (diagnostics, instrumentation) is warpforge's own.

Bad input is a located diagnostic on stderr (`file:line:col: error: ...`, MLIR's format) and exit
status 1, never a Python traceback (`WARPFORGE_TRACEBACK=1` shows one for internal errors).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from io import StringIO
from typing import IO

from warpforge.diagnostics import Diagnostic, IRDiagnosticError, SourceLoc, error_at
from warpforge.errors import WarpforgeError
from warpforge.pass_manager import PassCrashError, PassOptions, PipelineSpecError

SPLIT_MARKER = "// -----"


from warpforge.errors import UsageError  # a command line that cannot run (missing input, unwritable output, ...)


# --------------------------------------------------------------------------- the command line

def _bool(text: str) -> bool:
    value = text.strip().lower()
    if value in ("1", "true", "on", "yes"):
        return True
    if value in ("0", "false", "off", "no"):
        return False
    raise argparse.ArgumentTypeError(f"expected true/false (or 1/0), got '{text}'")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="warpforge-opt",
        description="warpforge's modular optimizer driver (mlir-opt's flags): parse MLIR, run passes, print MLIR, LLVM IR or PTX",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        add_help=False,
    )
    add = p.add_argument
    add("input_file", nargs="?", default="-", help="the .mlir input ('-' or nothing: stdin)")
    add("-h", "--help", action="store_true", help="show this help (warpforge's dialects, passes, pipelines and targets) and exit")
    add("--upstream", action="store_true", help="with --help, --list-passes or --show-dialects: also list xDSL's other passes and dialects")
    g = p.add_argument_group("pipeline and output")
    g.add_argument("-p", "--passes", dest="pipeline", action="append", default=[], metavar="PIPELINE", help="passes and pipelines, comma-separated (repeatable: run in order)")
    g.add_argument("--pass-pipeline", dest="pipeline", action="append", metavar="PIPELINE", help="the same in MLIR's spelling: 'builtin.module(a,b{opt=1})'")
    g.add_argument("-t", "--target", default="mlir", help="output: mlir (default), llvm (LLVM IR), ptx; e.g. -t 'ptx{chip=sm_90 features=\"+ptx80\"}'")
    g.add_argument("-o", "--output-file", metavar="FILE", help="write the output here (default: stdout)")
    g.add_argument("--split-input-file", action="store_true", help="process each '// -----' chunk of the input separately")
    g.add_argument("--verify-diagnostics", action="store_true", help="check diagnostics against expected-error/warning/note/remark annotations (exit 1 on a mismatch)")
    g.add_argument("--print-op-generic", "--mlir-print-op-generic", dest="print_op_generic", action="store_true", help="print ops in the generic form")
    g.add_argument("--print-debuginfo", "--mlir-print-debuginfo", dest="print_debuginfo", action="store_true", help="print op locations (loc(...))")
    g.add_argument("--allow-unregistered-dialect", action="store_true", help="accept ops of unregistered dialects")
    g = p.add_argument_group("instrumentation (to stderr)")
    g.add_argument("--mlir-print-ir-before", action="append", default=[], metavar="PASS", help="print the IR before PASS (repeatable, or comma-separated)")
    g.add_argument("--mlir-print-ir-after", action="append", default=[], metavar="PASS", help="print the IR after PASS")
    g.add_argument("--mlir-print-ir-before-all", action="store_true", help="print the IR before every pass")
    g.add_argument("--mlir-print-ir-after-all", "--print-between-passes", dest="mlir_print_ir_after_all", action="store_true", help="print the IR after every pass")
    g.add_argument("--mlir-print-ir-after-change", action="store_true", help="print the IR after each pass that changed it")
    g.add_argument("--mlir-print-ir-after-failure", action="store_true", help="print the IR as it was when a pass failed")
    g.add_argument("--mlir-timing", "--time-passes", dest="mlir_timing", action="store_true", help="print a wall-time report per pass")
    g.add_argument("--mlir-pass-statistics", action="store_true", help="print the ops each pass created and erased")
    g.add_argument("--verify-each", type=_bool, nargs="?", const=True, default=True, metavar="BOOL", help="verify the IR after every pass (default; --verify-each=0: once, at the end)")
    g.add_argument("--dump-pass-pipeline", action="store_true", help="print the pass pipeline (passes expanded, options filled in) before running")
    g.add_argument("--mlir-pass-pipeline-crash-reproducer", metavar="FILE", help="when a pass crashes, write the reproducer to FILE (default: a temporary file)")
    g.add_argument("--run-reproducer", action="store_true", help="the input is a reproducer: run the pipeline recorded in it")
    g = p.add_argument_group("information")
    g.add_argument("--list-passes", action="store_true", help="list passes (with options) and pipelines, and exit")
    g.add_argument("--show-dialects", action="store_true", help="list the registered dialects, and exit")
    g.add_argument("-v", "--version", action="store_true", help="print the version, and exit")
    return p


# --------------------------------------------------------------------------- information

def _doc_line(obj: object) -> str:
    doc = (getattr(obj, "__doc__", None) or "").strip().splitlines()
    return doc[0].strip() if doc else ""


_UPSTREAM_SUMMARIES = {
    "cse": "Eliminate common subexpressions (pure ops with equal operands and attributes).",
    "reconcile-unrealized-casts": "Fold chains of builtin.unrealized_conversion_cast that cancel out.",
}
"""One-line summaries for the xDSL passes warpforge's pipelines use whose classes have no docstring."""


def _our_pass_names() -> list[str]:
    from warpforge.passes import available_passes

    return sorted(available_passes())


def list_passes(upstream: bool) -> str:
    """The passes (options, one-line summaries), pipelines and targets, as `--list-passes` prints them."""
    from warpforge.pass_manager import pass_options
    from warpforge.passes import get_all_passes

    from warpforge.pipelines import PIPELINE_DOCS, PIPELINES

    every = get_all_passes()
    ours = _our_pass_names()
    # xDSL passes the pipelines use are part of warpforge's toolbox too
    used_upstream = sorted({n for ps in PIPELINES.values() for n in ps if n not in ours and n in every})
    lines = ["Passes:"]
    for name in [*ours, *used_upstream]:
        cls = every[name]()
        summary = _doc_line(cls) or _UPSTREAM_SUMMARIES.get(name, "")
        lines.append(f"  {name:30} {summary}" + ("  [xDSL]" if name not in ours else ""))
        for opt, typ, default in pass_options(cls):
            lines.append(f"      {opt}={typ}" + (f" (default {default})" if default != "" else ""))
    lines.append("\nPipelines (expand into their passes):")
    for name, passes in PIPELINES.items():
        lines.append(f"  {name:30} {PIPELINE_DOCS.get(name, '')}")
        lines.append(f"  {'':30} = {','.join(passes)}")
    lines.append("\n" + list_targets())
    rest = sorted(n for n in every if n not in ours and n not in used_upstream)
    if upstream:
        lines.append("\nOther xDSL upstream passes (not used by warpforge, not tested with its dialects):")
        lines.extend(f"  {n}" for n in rest)
    else:
        lines.append(f"\n({len(rest)} other xDSL upstream passes are available: --list-passes --upstream lists them)")
    return "\n".join(lines) + "\n"


def list_targets() -> str:
    from warpforge.backend.targets import TARGETS
    from warpforge.pass_manager import pass_options

    lines = ["Targets (-t):", f"  {'mlir':30} MLIR text (default)"]
    for name, target in TARGETS.items():
        lines.append(f"  {name:30} {_doc_line(target)}")
        for opt, typ, default in pass_options(target):  # pyright: ignore[reportArgumentType]
            lines.append(f"      {opt}={typ}" + (f" (default {default})" if default != "" else ""))
    return "\n".join(lines)


_OUR_DIALECTS = ("kernel", "tile", "gpu", "nvvm", "llvm")
_UPSTREAM_DIALECTS = ("builtin", "arith", "math", "scf", "cf", "func", "memref", "vector", "index", "ub")
"""The xDSL dialects warpforge's stages use (as xDSL defines them)."""


def show_dialects(upstream: bool = False) -> str:
    """The dialects, as `--show-dialects` prints them (all of xDSL's with `--upstream`)."""
    from warpforge.dialects import get_all_dialects

    names = sorted(get_all_dialects())
    ours = [n for n in _OUR_DIALECTS if n in names]
    used = [n for n in _UPSTREAM_DIALECTS if n in names]
    rest = [n for n in names if n not in ours and n not in used]
    lines = ["Available Dialects:", "  warpforge's: " + ", ".join(ours), "  xDSL's, used by warpforge's stages: " + ", ".join(used)]
    if upstream:
        lines.append("  other xDSL dialects: " + ", ".join(rest))
    else:
        lines.append(f"  ({len(rest)} other xDSL dialects are registered: --show-dialects --upstream lists them)")
    return "\n".join(lines) + "\n"


def help_text(parser: argparse.ArgumentParser) -> str:
    return parser.format_help() + "\n" + show_dialects() + "\n" + list_passes(upstream=False)


# --------------------------------------------------------------------------- --verify-diagnostics

_EXPECTED = re.compile(r"expected-(error|warning|note|remark)(-re)?\s*(@(?:[+-]\d+|above|below|unknown))?\s*\{\{(.*)\}\}\s*$")


@dataclass
class Expected:
    """One `// expected-<severity>[-re] [@+N|@-N|@above|@below|@unknown] {{text}}` annotation."""

    severity: str
    pattern: str
    is_regex: bool
    line: int | None
    """The line it expects a diagnostic on (None: `@unknown`, a diagnostic without a location)."""
    at: SourceLoc
    matched: bool = False

    def matches(self, message: str) -> bool:
        if not self.is_regex:
            return self.pattern in message
        return re.search(_fragments_to_regex(self.pattern), message) is not None


def _fragments_to_regex(pattern: str) -> str:
    """`-re` annotations: literal text with `{{regex}}` fragments (as MLIR's and FileCheck's)."""
    out, i = "", 0
    while (j := pattern.find("{{", i)) >= 0:
        k = pattern.find("}}", j + 2)
        if k < 0:
            break
        out += re.escape(pattern[i:j]) + "(?:" + pattern[j + 2 : k] + ")"
        i = k + 2
    return out + re.escape(pattern[i:])


def parse_expectations(text: str, filename: str, first_line: int) -> list[Expected]:
    """The expectations in a chunk whose first line is line `first_line` of `filename`. Raises
    `IRDiagnosticError` for a malformed annotation (an unknown designator, an invalid regex)."""
    lines = text.split("\n")
    found: list[Expected] = []
    for index, line in enumerate(lines):
        m = _EXPECTED.search(line)
        if m is None:
            if re.search(r"//.*expected-(error|warning|note|remark)(-re)?\s*(@|\{\{)", line):
                raise IRDiagnosticError(Diagnostic("error", "malformed expected-* annotation (expected `expected-error @+N {{message}}`)", SourceLoc(filename, first_line + index, line.find("expected-") + 1)))
            continue
        severity, regex, designator, pattern = m.group(1), m.group(2) is not None, m.group(3), m.group(4)
        at = SourceLoc(filename, first_line + index, m.start() + 1)
        target: int | None = index
        if designator == "@unknown":
            target = None
        elif designator == "@above":
            target = index - 1  # the nearest line above that is not an annotation itself
            while target >= 0 and _EXPECTED.search(lines[target]):
                target -= 1
        elif designator == "@below":
            target = index + 1
            while target < len(lines) and _EXPECTED.search(lines[target]):
                target += 1
        elif designator is not None:
            target = index + int(designator[1:])
        if target is not None and not 0 <= target < len(lines):
            raise IRDiagnosticError(Diagnostic("error", f"expected-{severity} {designator} points outside the chunk", at))
        if regex:
            try:
                re.compile(_fragments_to_regex(pattern))
            except re.error as e:
                raise IRDiagnosticError(Diagnostic("error", f"invalid regex in expected-{severity}-re: {e}", at)) from None
        found.append(Expected(severity, pattern, regex, None if target is None else first_line + target, at))
    return found


def _line_in_input(diag: Diagnostic, filename: str) -> int | None:
    for loc in (diag.loc, diag.input_loc):
        if loc is not None and loc.filename == filename:
            return loc.line
    return None


def check_diagnostics(diagnostics: Sequence[Diagnostic], expected: list[Expected], filename: str) -> list[str]:
    """Match produced diagnostics (and their notes) against expectations; the error messages for the
    unexpected and the missing ones (MLIR's wording), empty when all agree."""
    problems: list[str] = []
    flat: list[Diagnostic] = []
    for d in diagnostics:
        flat.append(d)
        flat.extend(d.notes)
    for d in flat:
        line = _line_in_input(d, filename)
        message = d.full_message
        hit = next((e for e in expected if not e.matched and e.severity == d.severity and e.line == line and e.matches(message)), None)
        if hit is None:  # MLIR also accepts a repeated diagnostic matching an already-matched annotation: not here
            where = f"{filename}:{line}:{d.loc.col if d.loc and d.loc.filename == filename else (d.input_loc.col if d.input_loc else 1)}: " if line is not None else f"{filename}: "
            problems.append(f"{where}error: unexpected {d.severity}: {message}")
        else:
            hit.matched = True
    for e in expected:
        if not e.matched:
            problems.append(f"{e.at}: error: expected {e.severity} \"{e.pattern}\" was not produced")
    return problems


# --------------------------------------------------------------------------- running

@dataclass
class Chunk:
    text: str
    first_line: int


def split_chunks(text: str, split: bool) -> list[Chunk]:
    """The input as chunks (`--split-input-file`: at each line starting with `// -----`)."""
    if not split:
        return [Chunk(text, 1)]
    chunks: list[Chunk] = []
    current: list[str] = []
    start = 1
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip().startswith(SPLIT_MARKER):
            chunks.append(Chunk("\n".join(current), start))
            current, start = [], number + 1
            continue
        current.append(line)
    chunks.append(Chunk("\n".join(current), start))
    return chunks


@dataclass
class Run:
    """One invocation's state."""

    args: argparse.Namespace
    filename: str
    passes: list = field(default_factory=list)  # pyright: ignore[reportMissingTypeArgument]
    target: object = None
    options: PassOptions = field(default_factory=PassOptions)
    parse_s: float = 0.0
    output_s: float = 0.0


def _names(values: Sequence[str]) -> frozenset[str]:
    return frozenset(n.strip() for v in values for n in v.split(",") if n.strip())


def _check_pass_names(names: frozenset[str], flag: str, available: dict) -> None:  # pyright: ignore[reportMissingTypeArgument]
    from warpforge.diagnostics import did_you_mean

    for n in sorted(names):
        if n not in available:
            raise UsageError(f"error: {flag}: unknown pass '{n}'{did_you_mean(n, available)}")


def _parse_target(spec: str) -> object:
    from xdsl.utils.arg_spec import parse_spec
    from xdsl.utils.exceptions import ArgSpecParseError

    from warpforge.backend.targets import TARGETS
    from warpforge.diagnostics import did_you_mean
    from warpforge.pass_manager import split_top_level

    split_top_level(spec, source="target")  # unbalanced braces and quotes, located
    try:
        parsed = parse_spec(spec)
    except ArgSpecParseError as e:
        m = re.search(r"pass-pipeline:1:(\d+)\n", str(e))
        raise PipelineSpecError(spec, int(m.group(1)) if m else 1, str(e).rstrip().rsplit("\n", 1)[-1].strip(), source="target") from None
    if parsed.name == "mlir":
        if parsed.parameters:
            raise PipelineSpecError(spec, 1, "target 'mlir' takes no options (use --print-op-generic, --print-debuginfo)", source="target")
        return None
    if parsed.name not in TARGETS:
        raise PipelineSpecError(spec, 1, f"unknown target '{parsed.name}'{did_you_mean(parsed.name, ['mlir', *TARGETS])}; targets: mlir, {', '.join(TARGETS)}", source="target")
    cls = TARGETS[parsed.name]
    import dataclasses

    fields = {f.name for f in dataclasses.fields(cls) if f.init and f.name != "name"}
    for given in parsed.normalize_parameter_names().parameters:
        if given not in fields:
            spelled = given.replace("_", "-")
            raise PipelineSpecError(spec, 1, f"target '{parsed.name}' has no option '{spelled}'{did_you_mean(spelled, fields)}; its options: {', '.join(sorted(fields))}", source="target")
    try:
        target = cls.from_spec(parsed)
    except (ValueError, TypeError) as e:
        raise PipelineSpecError(spec, 1, f"bad options for target '{parsed.name}': {e}", source="target") from None
    if getattr(target, "opt", 3) not in (0, 1, 2, 3):
        raise PipelineSpecError(spec, 1, f"target '{parsed.name}': opt must be 0, 1, 2 or 3 (LLVM's -O levels), got {target.opt}", source="target")  # pyright: ignore
    if getattr(target, "chip", ""):  # a chip/PTX pair given here is refused here, at its option
        from warpforge.backend.chips import resolve_target
        from warpforge.errors import TargetError

        try:
            resolve_target(target.chip, target.features)  # pyright: ignore
        except TargetError as e:
            option = "features" if "feature" in e.message or "PTX" in e.message else "chip"
            col = spec.find(f"{option}=") + 1 or 1
            raise PipelineSpecError(spec, col, e.message, source="target") from None
    return target


def _emit(run: Run, module: object) -> str:
    """The module in the output format."""
    from xdsl.printer import Printer

    out = StringIO()
    if run.target is None:
        Printer(stream=out, print_generic_format=run.args.print_op_generic, print_debuginfo=run.args.print_debuginfo).print_op(module)  # pyright: ignore
        out.write("\n")
        return out.getvalue()
    from warpforge.backend.export import ExportError
    from warpforge.backend.nvptx import CodegenError

    try:
        run.target.emit(None, module, out)  # pyright: ignore
    except (ExportError, CodegenError, WarpforgeError) as e:
        if isinstance(e, IRDiagnosticError):
            raise
        if isinstance(e, ExportError) and isinstance(e.diagnostic, Diagnostic):
            raise IRDiagnosticError(e.diagnostic, e.op) from None
        # located at the op that failed (ExportError.op), else at the module (line 1 of the input)
        at = getattr(e, "op", None) or module
        raise error_at(at, f"cannot emit -t {run.args.target}: {getattr(e, 'message', None) or e}") from None  # pyright: ignore
    text = out.getvalue()
    return text if text.endswith("\n") else text + "\n"


def _process_chunk(run: Run, chunk: Chunk) -> str:
    """Parse, verify, run the pipeline and emit one chunk; the output text. Raises diagnostics."""
    from warpforge.context import make_context
    from warpforge.diagnostics import parse_mlir, verify_module
    from warpforge.pass_manager import run_passes

    ctx = make_context(allow_unregistered=run.args.allow_unregistered_dialect)
    start = time.perf_counter()
    module = parse_mlir(ctx, chunk.text, run.filename, first_line=chunk.first_line)
    verify_module(module)
    from warpforge.verify import verify_dominance

    verify_dominance(module)  # as MLIR's verifier: xDSL parses uses its definitions do not dominate
    run.parse_s += time.perf_counter() - start
    run_passes(ctx, module, run.passes, run.options)  # pyright: ignore
    _check_model_pipeline(run, module)
    start = time.perf_counter()
    text = _emit(run, module)
    run.output_s += time.perf_counter() - start
    return text


TILE_PIPELINES = frozenset({"tile-to-llvm", "tile-to-gpu-pipeline"})
"""The pipelines that lower tile kernels only (`kernel.func` with the `tile` attribute)."""


def _check_model_pipeline(run: Run, module: object) -> None:
    """After `-p tile-to-llvm` (or `tile-to-gpu-pipeline`), a `kernel.func` still in the module is a
    SIMT kernel the tile passes left alone: a located error naming the pipeline that lowers it,
    instead of exiting 0 with the module half-lowered. Other pipelines and single passes apply
    where they match, as in mlir-opt."""
    from warpforge.diagnostics import error_at

    spec = ",".join(run.args.pipeline or ())
    last = spec.replace("builtin.module(", "").rstrip(")").split(",")[-1].split("{")[0].strip()
    if last not in TILE_PIPELINES:
        return
    for op in module.walk():  # pyright: ignore[reportAttributeAccessIssue]
        if op.name == "kernel.func" and "tile" not in op.attributes:
            name = op.properties.get("sym_name") or op.attributes.get("sym_name")
            shown = f" @{name.data}" if name is not None else ""
            raise error_at(op, f"'kernel.func'{shown} is a SIMT kernel (no `tile` attribute), which -p {last} does not lower: use -p simt-to-llvm (or -p kernel-to-gpu-pipeline)")


def _read_input(path: str) -> tuple[str, str]:
    if path == "-":
        return sys.stdin.read(), "<stdin>"
    if os.path.isdir(path):
        raise UsageError(f"error: {path} is a directory, not an .mlir file")
    if not os.path.exists(path):
        raise UsageError(f"error: cannot open input file '{path}': no such file")
    ext = os.path.splitext(path)[1]
    if ext not in (".mlir", ""):
        raise UsageError(f"error: {path}: unknown file extension '{ext}' (warpforge-opt reads MLIR text, .mlir; for Python kernels: warpforge compile {path} --emit kernel)")
    try:
        with open(path, encoding="utf-8") as f:
            return f.read(), path
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"error: cannot read input file '{path}': {e}") from None


def _open_output(path: str | None) -> IO[str]:
    if path is None or path == "-":
        return sys.stdout
    try:
        return open(path, "w", encoding="utf-8")
    except OSError as e:
        raise UsageError(f"error: cannot write output file '{path}': {e.strerror or e}") from None


def _render(e: Exception, filename: str) -> str:
    if isinstance(e, IRDiagnosticError):
        if e.diagnostic.loc is None and e.diagnostic.filename_hint is None and filename:
            e.diagnostic.filename_hint = filename
        return e.diagnostic.render()
    text = str(e)
    return text if text.startswith("error") or re.match(r"^\S+:\d+:\d+: error", text) else f"error: {text}"


def run(argv: Sequence[str] | None = None) -> int:
    """Run `warpforge-opt` with `argv`; the exit status (0 ok, 1 a diagnostic, 2 bad flags)."""
    from warpforge.pass_manager import instantiate, parse_pass_pipeline, pipeline_text, read_reproducer
    from warpforge.passes import get_all_passes

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.help:
        sys.stdout.write(help_text(parser))
        if args.upstream:
            sys.stdout.write("\n" + list_passes(upstream=True).rsplit("\nOther xDSL", 1)[-1].join(["Other xDSL", ""]))
        return 0
    if args.version:
        from importlib.metadata import version

        print(f"warpforge-opt {version('warpforge')} (xdsl {version('xdsl')}, llvmlite {version('llvmlite')})")
        return 0
    if args.list_passes:
        sys.stdout.write(list_passes(args.upstream))
        return 0
    if args.show_dialects:
        sys.stdout.write(show_dialects(args.upstream))
        return 0

    available = get_all_passes()
    text, filename = _read_input(args.input_file)
    spec = ",".join(s for s in args.pipeline if s.strip())
    if args.run_reproducer:
        recorded = read_reproducer(text)
        if recorded is None:
            raise UsageError(f"error: {filename} is not a warpforge-opt reproducer (no '// warpforge-opt reproducer:' line)")
        if spec:
            raise UsageError("error: --run-reproducer takes the pipeline from the reproducer; drop -p/--pass-pipeline")
        spec = recorded
    entries = parse_pass_pipeline(spec)
    passes = instantiate(entries, available, spec)
    _check_pass_names(_names(args.mlir_print_ir_before), "--mlir-print-ir-before", available)
    _check_pass_names(_names(args.mlir_print_ir_after), "--mlir-print-ir-after", available)
    target = _parse_target(args.target)
    options = PassOptions(
        print_before=_names(args.mlir_print_ir_before),
        print_after=_names(args.mlir_print_ir_after),
        print_before_all=args.mlir_print_ir_before_all,
        print_after_all=args.mlir_print_ir_after_all,
        print_after_change=args.mlir_print_ir_after_change,
        print_after_failure=args.mlir_print_ir_after_failure,
        print_debuginfo=args.print_debuginfo,
        verify_each=args.verify_each,
        timing=args.mlir_timing,
        statistics=args.mlir_pass_statistics,
        reproducer=args.mlir_pass_pipeline_crash_reproducer,
        allow_unregistered=args.allow_unregistered_dialect,
    )
    if args.dump_pass_pipeline:
        sys.stderr.write(f"Pass Manager with {len(passes)} passes:\n{pipeline_text(passes)}\n")
    output = _open_output(args.output_file)
    state = Run(args, filename, passes, target, options)

    from warpforge.diagnostics import collect_diagnostics, register_source

    register_source(filename, text)
    status = 0
    try:
        for index, chunk in enumerate(split_chunks(text, args.split_input_file)):
            if index > 0:
                output.write("// -----\n")
            if args.verify_diagnostics:
                status |= _verify_chunk(state, chunk, output)
                continue
            with collect_diagnostics() as warnings:
                try:
                    out = _process_chunk(state, chunk)
                except WarpforgeError as e:  # reported; the next chunk still runs
                    print(_render(e, filename), file=sys.stderr)
                    status = 1
                    continue
                finally:
                    for w in warnings:
                        print(w.render(), file=sys.stderr)
            output.write(out)
            output.flush()
    finally:
        if output is not sys.stdout:
            output.close()
    if args.mlir_timing:
        from warpforge.pass_manager import timing_report

        sys.stderr.write(timing_report(options.timings, state.parse_s, state.output_s))
    if args.mlir_pass_statistics:
        from warpforge.pass_manager import statistics_report

        sys.stderr.write(statistics_report(options.stats))
    return status


def _verify_chunk(state: Run, chunk: Chunk, output: IO[str]) -> int:
    from warpforge.diagnostics import collect_diagnostics

    expected = parse_expectations(chunk.text, state.filename, chunk.first_line)
    produced: list[Diagnostic] = []
    with collect_diagnostics() as emitted:
        try:
            out = _process_chunk(state, chunk)
            output.write(out)
        except IRDiagnosticError as e:
            produced.append(e.diagnostic)
        except PassCrashError as e:  # a crash is never an expected diagnostic
            print(_render(e, state.filename), file=sys.stderr)
            return 1
        except WarpforgeError as e:  # a CompileError raised by a pass, say
            from warpforge.pass_manager import _as_diagnostic  # pyright: ignore[reportPrivateUsage]

            produced.append(_as_diagnostic(e).diagnostic)
    problems = check_diagnostics([*emitted, *produced], expected, state.filename)
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the `warpforge-opt` console script."""
    try:
        code = run(argv)
    except (UsageError, PipelineSpecError) as e:
        print(_render(e, ""), file=sys.stderr)
        code = 1
    except IRDiagnosticError as e:
        print(e.diagnostic.render(), file=sys.stderr)
        code = 1
    except KeyboardInterrupt:
        code = 130
    except BrokenPipeError:  # `warpforge-opt ... | head`: the reader left; not an error of ours
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except OSError:
            pass
        code = 1
    except SystemExit:
        raise
    except Exception as e:  # a bug in warpforge: still a diagnostic, not a traceback
        if os.environ.get("WARPFORGE_TRACEBACK", "").strip().lower() in ("1", "true", "yes", "on"):  # never refused here: an error is being shown
            raise
        print(f"error: internal error: {type(e).__name__}: {e} (set WARPFORGE_TRACEBACK=1 for the traceback)", file=sys.stderr)
        code = 1
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except OSError:
            pass
    raise SystemExit(code)
