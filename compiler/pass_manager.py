"""Pass pipelines as `mlir-opt` runs them: parsed with located diagnostics, run with instrumentation.

`parse_pass_pipeline(spec)` reads a pass pipeline (`a,b{opt=1},c`, MLIR's `builtin.module(a,b)`
spelling too; pipeline names from `warpforge.pipelines` expand into their passes). Every mistake is a
`PipelineSpecError` located in the spec (`pass-pipeline:1:COL: error: ...` with the spec and a caret),
with "did you mean" for misspelled pass and option names.

`run_passes(ctx, module, passes, options)` applies them one by one with MLIR's pass instrumentation
(`PassOptions`): the IR before/after chosen passes or every pass (to stderr, as mlir-opt's
`--mlir-print-ir-*`), verification after each pass, a wall-time report (`--mlir-timing`), op
statistics (`--mlir-pass-statistics`), and crash reproducers: an exception that is not a diagnostic
escaping a pass is a bug in that pass; the IR just before the pass and the rest of the pipeline are
written to a reproducer file (`// RUN:` line included) that `warpforge-opt --run-reproducer FILE`
replays. From Python, `WARPFORGE_REPRODUCER_DIR=DIR` makes every pipeline write its reproducers there.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
import tempfile
import time
import typing
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import ArgSpec
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException

from warpforge.diagnostics import Diagnostic, IRDiagnosticError, SourceLoc, did_you_mean, verify_module
from warpforge.errors import WarpforgeError

PassFactory = Callable[[], type[ModulePass]]

SPEC_NAME = "pass-pipeline"
"""The 'file name' of a pipeline spec in its diagnostics."""


class PipelineSpecError(WarpforgeError):
    """A pass pipeline (or `-t` target) spec that cannot be parsed or names an unknown pass or option.

    `str()`: `pass-pipeline:1:COL: error: message`, the spec and a caret under the column."""

    def __init__(self, spec: str, col: int, message: str, *, source: str = SPEC_NAME):
        self.spec, self.col, self.message = spec, col, message
        super().__init__(f"{source}:1:{col}: error: {message}\n{spec}\n{' ' * (col - 1)}^")


class PassCrashError(WarpforgeError):
    """A pass raised an exception that is not a diagnostic: a bug in the pass. `reproducer` is the path
    of the reproducer file written (None when it could not be written)."""

    def __init__(self, message: str, reproducer: str | None):
        self.reproducer = reproducer
        super().__init__(message)


# --------------------------------------------------------------------------- parsing specs

@dataclass(frozen=True)
class PassEntry:
    """One pass of a parsed pipeline: its spec (`ArgSpec`) and where it was written (1-based column)."""

    spec: ArgSpec
    col: int


def split_top_level(spec: str, source: str = SPEC_NAME) -> list[tuple[int, str]]:
    """Split `spec` at commas outside `{}`, `()` and quotes: (0-based offset, text) for each piece.
    Raises `PipelineSpecError` for an unbalanced bracket or quote."""
    pieces: list[tuple[int, str]] = []
    depth: list[tuple[str, int]] = []
    start, i, quote = 0, 0, None
    while i < len(spec):
        c = spec[i]
        if quote is not None:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
            quote_at = i
        elif c in "{(":
            depth.append((c, i))
        elif c in "})":
            if not depth or depth[-1][0] != {"}": "{", ")": "("}[c]:
                raise PipelineSpecError(spec, i + 1, f"unbalanced '{c}'", source=source)
            depth.pop()
        elif c == "," and not depth:
            pieces.append((start, spec[start:i]))
            start = i + 1
        i += 1
    if quote is not None:
        raise PipelineSpecError(spec, quote_at + 1, "unterminated string in the options", source=source)  # pyright: ignore[reportPossiblyUnboundVariable]
    if depth:
        c, at = depth[-1]
        raise PipelineSpecError(spec, at + 1, f"'{c}' is never closed (expected '{'}' if c == '{' else ')'}')", source=source)
    pieces.append((start, spec[start:]))
    return pieces


_ARGSPEC_COL = re.compile(r"pass-pipeline:1:(\d+)\n")


def _parse_one(spec: str, offset: int, text: str) -> ArgSpec:
    from xdsl.utils.arg_spec import parse_spec

    try:
        return parse_spec(text)
    except ArgSpecParseError as e:  # a BaseException in xDSL: never let it through
        message = str(e)
        m = _ARGSPEC_COL.search(message)
        col = int(m.group(1)) if m else 1
        reason = message.rstrip("\n").rsplit("\n", 1)[-1].strip()
        if reason.startswith("Unknown argument value"):
            reason = "expected a value after '=' (quote other strings: chip=\"sm_90\")"
        raise PipelineSpecError(spec, offset + col, reason[0].lower() + reason[1:] if reason else "malformed pass options") from None


def parse_pass_pipeline(spec: str, *, pipelines: dict[str, tuple[str, ...]] | None = None) -> list[PassEntry]:
    """Parse a pipeline spec into pass specs, expanding pipeline names; `builtin.module(...)` (MLIR's
    spelling, also nested `builtin.module(builtin.module(...))`) is accepted around the list.
    Raises `PipelineSpecError`."""
    if pipelines is None:
        from warpforge.pipelines import PIPELINES as pipelines
    entries: list[PassEntry] = []
    _parse_into(spec, spec, 0, entries, pipelines)
    return entries


def _parse_into(full: str, text: str, base: int, out: list[PassEntry], pipelines: dict[str, tuple[str, ...]]) -> None:
    if not text.strip():
        return
    for offset, piece in split_top_level(text):
        at = base + offset + (len(piece) - len(piece.lstrip()))
        piece = piece.strip()
        if not piece:
            raise PipelineSpecError(full, at + 1, "expected a pass name (empty entry between commas)")
        anchor = re.match(r"([A-Za-z_][\w.$-]*)\s*\(", piece)
        if anchor is not None:  # op-anchored nesting: `builtin.module(...)`
            if not piece.endswith(")"):
                raise PipelineSpecError(full, at + len(piece), f"expected ')' to close '{anchor.group(1)}('")
            if anchor.group(1) != "builtin.module":
                raise PipelineSpecError(
                    full, at + 1, f"passes anchored on '{anchor.group(1)}' are not supported: warpforge's passes run on the whole module (write 'builtin.module(...)' or the bare list)"
                )
            inner_start = at + anchor.end()
            _parse_into(full, full[inner_start : at + len(piece) - 1], inner_start, out, pipelines)
            continue
        parsed = _parse_one(full, at, piece)
        if parsed.name in pipelines:
            if parsed.parameters:
                raise PipelineSpecError(
                    full,
                    at + 1,
                    f"'{parsed.name}' is a pipeline ({','.join(pipelines[parsed.name])}) and takes no options; "
                    "spell its passes out to set theirs",
                )
            for name in pipelines[parsed.name]:
                out.append(PassEntry(ArgSpec(name, {}), at + 1))
            continue
        out.append(PassEntry(parsed, at + 1))


def instantiate(entries: Sequence[PassEntry], available: dict[str, PassFactory], spec: str) -> list[ModulePass]:
    """The pass objects for `entries`. Raises `PipelineSpecError` for an unknown pass, an unknown or
    missing option, or an option value of the wrong type."""
    from warpforge.pipelines import PIPELINES

    passes: list[ModulePass] = []
    for entry in entries:
        name = entry.spec.name
        if name not in available:
            raise PipelineSpecError(spec, entry.col, f"unknown pass or pipeline '{name}'{did_you_mean(name, [*available, *PIPELINES])}; `warpforge-opt --list-passes` lists them")
        cls = available[name]()
        options = {f.name for f in dataclasses.fields(cls) if f.init and f.name != "name"}
        for given in entry.spec.normalize_parameter_names().parameters:
            if given not in options:
                spelled = given.replace("_", "-")
                listed = ", ".join(sorted(o.replace("_", "-") for o in options)) or "none"
                hint = did_you_mean(spelled, [o.replace("_", "-") for o in options])
                raise PipelineSpecError(spec, entry.col, f"pass '{name}' has no option '{spelled}'{hint}; its options: {listed}")
        try:
            passes.append(cls.from_pass_spec(entry.spec))
        except (ValueError, TypeError, ArgSpecParseError) as e:
            raise PipelineSpecError(spec, entry.col, f"bad options for pass '{name}': {e}") from None
        except WarpforgeError as e:  # a pass that validates its options in __post_init__
            raise PipelineSpecError(spec, entry.col, f"bad options for pass '{name}': {e}") from None
        _check_target_options(passes[-1], entry, spec)
        _check_option_values(passes[-1], entry, spec)
    return passes


def _check_option_values(p: ModulePass, entry: PassEntry, spec: str) -> None:
    """A pass's `OPTION_VALUES` (option field → the `range` or tuple of values it takes) checked
    here, located at the option (`vector-bytes=-16`): a value outside is a `PipelineSpecError`
    naming what the option takes, never taken silently."""
    allowed: dict[str, typing.Any] = getattr(type(p), "OPTION_VALUES", {})
    for field, values in allowed.items():
        value = getattr(p, field)
        if value in values and not isinstance(value, bool):
            continue
        spelled = field.replace("_", "-")
        takes = f"an int from {values.start} to {values.stop - 1}" if isinstance(values, range) else ", ".join(map(str, values[:-1])) + f" or {values[-1]}"
        at = spec.find(f"{spelled}=", max(entry.col - 1, 0))
        raise PipelineSpecError(spec, at + 1 if at >= 0 else entry.col, f"pass '{entry.spec.name}' option {spelled}={value!r}: {spelled} takes {takes}")


def _check_target_options(p: ModulePass, entry: PassEntry, spec: str) -> None:
    """A pass with `chip`/`features` options (kernel-to-gpu, tile-to-gpu) gets them checked against
    `warpforge.backend.chips` here, so a bad chip is located at its option (`chip=sm_999`), not
    reported when the pass runs."""
    chip = getattr(p, "chip", None)
    if not isinstance(chip, str) or not chip:
        return
    from warpforge.backend.chips import resolve_target
    from warpforge.errors import TargetError

    try:
        resolve_target(chip, getattr(p, "features", "") or "")
    except TargetError as e:
        option = "features" if "feature" in e.message or "PTX" in e.message else "chip"
        at = spec.find(f"{option}=", max(entry.col - 1, 0))
        raise PipelineSpecError(spec, at + 1 if at >= 0 else entry.col, e.message) from None


def pass_options(cls: type[ModulePass]) -> list[tuple[str, str, str]]:
    """(option name as spelled in a spec, type, default) of each option of a pass class."""
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        if not f.init or f.name == "name":
            continue
        typ = hints.get(f.name, f.type)
        typ_name = getattr(typ, "__name__", None) or str(typ).replace("typing.", "")
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory() if f.default_factory is not dataclasses.MISSING else None  # pyright: ignore
        out.append((f.name.replace("_", "-"), typ_name, "" if default is None else str(default).lower() if isinstance(default, bool) else repr(default) if isinstance(default, str) else str(default)))
    return out


def pipeline_text(passes: Iterable[ModulePass]) -> str:
    """`builtin.module(a,b{x=1})`: the pipeline as MLIR's `--dump-pass-pipeline` prints it."""
    return "builtin.module(" + ",".join(str(p.pipeline_pass_spec()) for p in passes) + ")"


# --------------------------------------------------------------------------- running

@dataclass
class PassOptions:
    """What `run_passes` reports while it runs (mlir-opt's pass instrumentation flags)."""

    print_before: frozenset[str] = frozenset()
    print_after: frozenset[str] = frozenset()
    print_before_all: bool = False
    print_after_all: bool = False
    print_after_change: bool = False
    print_after_failure: bool = False
    print_debuginfo: bool = False
    verify_each: bool = True
    verify_end: bool = True
    """With `verify_each` off: verify once after the last pass (off too: not at all, for a caller
    that verifies where it stops)."""
    timing: bool = False
    statistics: bool = False
    reproducer: str | None = None
    """Write a crash reproducer to this file (else to `WARPFORGE_REPRODUCER_DIR` or a temporary file)."""
    crash_reproducer: bool = True
    """Keep a copy of the IR before each pass, for the reproducer (the Python API turns it on only when
    `WARPFORGE_REPRODUCER_DIR` is set: the copy costs compile time)."""
    allow_unregistered: bool = False
    stream: IO[str] | None = None
    """Where IR dumps and reports go (default: stderr)."""
    timings: list[tuple[int, str, float]] = field(default_factory=list[tuple[int, str, float]])
    """(position in the pipeline, pass name, seconds) of each pass run."""
    stats: list[tuple[int, str, int, int]] = field(default_factory=list[tuple[int, str, int, int]])
    """(position, pass name, ops created, ops erased) of each pass run (with `statistics`)."""


def _print_ir(module: ModuleOp, debuginfo: bool) -> str:
    from io import StringIO

    from xdsl.printer import Printer

    out = StringIO()
    Printer(stream=out, print_debuginfo=debuginfo).print_op(module)
    return out.getvalue()


def run_passes(ctx: Context, module: ModuleOp, passes: Sequence[ModulePass], options: PassOptions | None = None) -> None:
    """Apply `passes` to `module` in place, in order, with `options`' instrumentation.

    Raises `IRDiagnosticError` when a pass refuses the IR or leaves IR that does not verify (the
    diagnostic names the pass), `PassCrashError` when a pass fails with an exception that is not a
    diagnostic (after writing a reproducer)."""
    opts = options or PassOptions()
    stream = opts.stream or sys.stderr
    for index, p in enumerate(passes):
        name = p.name
        before_text = _print_ir(module, opts.print_debuginfo) if opts.print_after_change else None
        if opts.print_before_all or name in opts.print_before:
            stream.write(f"// -----// IR Dump Before {name} //----- //\n{before_text or _print_ir(module, opts.print_debuginfo)}\n\n")
        snapshot = module.clone() if opts.crash_reproducer else None  # the reproducer's input, should the pass crash
        before_ops = set(module.walk()) if opts.statistics else set()
        start = time.perf_counter()
        try:
            p.apply(ctx, module)
        except IRDiagnosticError as e:
            opts.timings.append((index, name, time.perf_counter() - start))
            _after_failure(opts, stream, name, module)
            raise e.in_pass(name)
        except WarpforgeError:  # a CompileError and the like: the caller may expect its own type
            opts.timings.append((index, name, time.perf_counter() - start))
            _after_failure(opts, stream, name, module)
            raise
        except DiagnosticException as e:
            opts.timings.append((index, name, time.perf_counter() - start))
            _after_failure(opts, stream, name, module)
            raise _as_diagnostic(e, module).in_pass(name) from None
        except Exception as e:  # a bug in the pass
            opts.timings.append((index, name, time.perf_counter() - start))
            _after_failure(opts, stream, name, module)
            path = write_reproducer(snapshot, passes[index:], opts.reproducer, allow_unregistered=opts.allow_unregistered) if snapshot is not None else None
            if path:
                where = f"; a reproducer (the IR before the pass and the rest of the pipeline) is in {path}: replay it with `warpforge-opt --run-reproducer {path}`"
            else:
                where = "; set WARPFORGE_REPRODUCER_DIR=DIR for a reproducer" if snapshot is None else ""
            raise PassCrashError(f"error: internal error: pass '{name}' failed with {type(e).__name__}: {e} (a bug in the pass){where}", path) from e
        opts.timings.append((index, name, time.perf_counter() - start))
        if opts.statistics:
            after_ops = set(module.walk())
            opts.stats.append((index, name, len(after_ops - before_ops), len(before_ops - after_ops)))
        if opts.verify_each:
            try:
                verify_module(module)
            except IRDiagnosticError as e:
                _after_failure(opts, stream, name, module)
                e.diagnostic.message += f" (the IR after pass '{name}' does not verify)"
                raise
        if opts.print_after_all or name in opts.print_after:
            stream.write(f"// -----// IR Dump After {name} //----- //\n{_print_ir(module, opts.print_debuginfo)}\n\n")
        elif before_text is not None:
            after_text = _print_ir(module, opts.print_debuginfo)
            if after_text != before_text:
                stream.write(f"// -----// IR Dump After {name} //----- //\n{after_text}\n\n")
    if not opts.verify_each and opts.verify_end:
        verify_module(module)


def _after_failure(opts: PassOptions, stream: IO[str], name: str, module: ModuleOp) -> None:
    if opts.print_after_failure:
        try:
            text = _print_ir(module, opts.print_debuginfo)
        except Exception as e:  # the failing pass may have left IR the printer cannot print
            text = f"// (the IR could not be printed: {type(e).__name__}: {e})"
        stream.write(f"// -----// IR Dump After {name} Failed //----- //\n{text}\n\n")


def _as_diagnostic(e: Exception, module: ModuleOp | None = None) -> IRDiagnosticError:
    """Any error as an `IRDiagnosticError`, located where the error says (a `CompileError`'s own
    location, a message that starts with `file:line:col:`), else unlocated."""
    from warpforge.errors import CompileError

    if isinstance(e, IRDiagnosticError):
        return e
    if isinstance(e, CompileError):
        return IRDiagnosticError(Diagnostic("error", e.message, SourceLoc(e.filename, e.line, e.col) if e.line else None))
    text = str(e.args[0]) if e.args else str(e)
    loc = None
    m = re.match(r"^(?:error: )?([^\s:]+):(\d+):(\d+): (?:error: )?(.*)$", text, re.S)
    if m is not None:  # a message that starts with its own file:line:col
        loc, text = SourceLoc(m.group(1), int(m.group(2)), int(m.group(3))), m.group(4)
    elif text.startswith("error: "):
        text = text[len("error: ") :]
    # no location in the message: none is better than a guessed one (the driver names the input file)
    return IRDiagnosticError(Diagnostic("error", text, loc))


def write_reproducer(module: ModuleOp, remaining: Sequence[ModulePass], path: str | None, *, allow_unregistered: bool = False) -> str | None:
    """Write `module` (printed generically with locations) and `remaining` as a reproducer file; the
    path written, or None. `path` None: `WARPFORGE_REPRODUCER_DIR` if set, else a temporary file."""
    text = reproducer_text(module, remaining, allow_unregistered=allow_unregistered)
    try:
        if path is None:
            directory = os.environ.get("WARPFORGE_REPRODUCER_DIR") or None
            if directory:
                os.makedirs(directory, exist_ok=True)
            fd, path = tempfile.mkstemp(prefix="warpforge-reproducer-", suffix=".mlir", dir=directory)
            with os.fdopen(fd, "w") as f:
                f.write(text)
        else:
            with open(path, "w") as f:
                f.write(text)
        return path
    except OSError:
        return None


REPRODUCER_MARK = "// warpforge-opt reproducer: "


def reproducer_text(module: ModuleOp, remaining: Sequence[ModulePass], *, allow_unregistered: bool = False) -> str:
    """A reproducer: a `// RUN:` line with the remaining pipeline, then the IR (generic form, locations)."""
    from io import StringIO

    from xdsl.printer import Printer

    spec = pipeline_text(remaining)
    flags = " --allow-unregistered-dialect" if allow_unregistered else ""
    out = StringIO()
    try:
        Printer(stream=out, print_generic_format=True, print_debuginfo=True).print_op(module)
    except Exception as e:
        out.write(f"// the IR could not be printed: {type(e).__name__}: {e}")
    return (
        f"// RUN: warpforge-opt %s --pass-pipeline='{spec}'{flags}\n"
        f"{REPRODUCER_MARK}{spec}\n"
        "// The IR just before the pass that crashed, and the rest of the pipeline (replay it with\n"
        "// `warpforge-opt --run-reproducer FILE`).\n"
        f"{out.getvalue()}\n"
    )


def read_reproducer(text: str) -> str | None:
    """The pipeline recorded in a reproducer's text, or None."""
    for line in text.splitlines():
        if line.startswith(REPRODUCER_MARK):
            return line[len(REPRODUCER_MARK) :].strip()
    return None


# --------------------------------------------------------------------------- reports

def timing_report(timings: Sequence[tuple[int, str, float]], parse_s: float, output_s: float) -> str:
    """MLIR's `--mlir-timing` table: wall time per pass of the pipeline, parser and output included."""
    per_pass: dict[tuple[int, str], float] = {}
    for index, name, t in timings:  # several chunks (--split-input-file): summed per pipeline position
        per_pass[(index, name)] = per_pass.get((index, name), 0.0) + t
    rows = [("Parser", parse_s), *((name, t) for (_, name), t in per_pass.items()), ("Output", output_s)]
    total = sum(t for _, t in rows) or 1e-12
    bar = "===" + "-" * 73 + "==="
    lines = [bar, "... Execution time report ...".center(79).rstrip(), bar, f"  Total Execution Time: {total:.4f} seconds", "", "  ----Wall Time----  ----Name----"]
    for name, t in rows:
        lines.append(f"  {t:8.4f} ({100 * t / total:5.1f}%)  {name}")
    lines.append(f"  {total:8.4f} (100.0%)  Total")
    return "\n".join(lines) + "\n"


def statistics_report(stats: Sequence[tuple[int, str, int, int]]) -> str:
    """MLIR's `--mlir-pass-statistics` report: ops created and erased by each pass."""
    bar = "===" + "-" * 73 + "==="
    lines = [bar, "... Pass statistics report ...".center(79).rstrip(), bar]
    summed: dict[tuple[int, str], list[int]] = {}
    for index, name, created, erased in stats:
        entry = summed.setdefault((index, name), [0, 0])
        entry[0] += created
        entry[1] += erased
    for (_, name), (created, erased) in summed.items():
        lines.append(f"'{name}'")
        lines.append(f"  (S) {created:5} ops-created - Number of operations created by the pass")
        lines.append(f"  (S) {erased:5} ops-erased  - Number of operations erased by the pass")
    return "\n".join(lines) + "\n"
