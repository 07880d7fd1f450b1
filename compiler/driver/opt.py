"""`warpforge-opt`: xDSL's opt driver with warpforge's dialects, passes, pipelines and targets.

Every stage of the compiler prints and parses as MLIR text, so any stage can be stopped, inspected
and resumed:

    warpforge-opt kernel.mlir -p simt-to-llvm -t llvm
    warpforge-opt gpu.mlir -p convert-gpu-to-nvvm,check-nvvm-target --print-between-passes
    warpforge-opt llvm.mlir -t 'ptx{chip=sm_90 features="+ptx80"}'

Bad input is a diagnostic with line:col on stderr and exit status 1, never a Python traceback.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Sequence

from xdsl.utils.exceptions import DiagnosticException, ParseError, PassFailedException, VerifyException
from xdsl.utils.target import Target
from xdsl.xdsl_opt_main import xDSLOptMain

from warpforge.backend.targets import TARGETS
from warpforge.dialects import get_all_dialects
from warpforge.pipelines import PIPELINE_DOCS, PIPELINES, expand


class WarpforgeOptMain(xDSLOptMain):
    """`xDSLOptMain` with warpforge's registry; pipeline names expand into their passes."""

    version_format = "warpforge-opt (xdsl {xdsl_version})"

    def __init__(self, args: Sequence[str] | None = None):
        super().__init__(description="warpforge modular optimizer driver", args=args)

    def register_all_dialects(self) -> None:
        for name, factory in get_all_dialects().items():
            self.ctx.register_dialect(name, factory)

    def register_all_passes(self) -> None:
        from warpforge.passes import get_all_passes

        for name, factory in get_all_passes().items():
            self.register_pass(name, factory)

    def register_all_targets(self) -> None:
        super().register_all_targets()
        for name, target in TARGETS.items():
            self.available_targets[name] = _target_factory(target)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.formatter_class = argparse.RawDescriptionHelpFormatter
        arg_parser.epilog = _help_epilog(self)

    def setup_pipeline(self) -> None:
        self.args.passes = expand(self.args.passes)
        try:
            super().setup_pipeline()
        except ValueError as e:  # unknown pass names
            raise SystemExit(_fail(f"{e}; run `warpforge-opt --help` for the list"))

    def parse_chunk(self, chunk, file_extension: str, start_offset: int = 0):  # type: ignore[no-untyped-def, override]
        """MLIR input through `warpforge.diagnostics.parse_mlir`: located errors, also for what xDSL's
        parser fails on without a ParseError (an integer out of range for its type, a forward
        reference never resolved, …), and no exponential lexing of unterminated strings."""
        if (self.args.frontend or file_extension) != "mlir":
            return super().parse_chunk(chunk, file_extension, start_offset)
        from warpforge.diagnostics import parse_mlir, register_source

        raw = chunk.read()
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        register_source(self.get_input_name(), "\n" * start_offset + text)  # the line under a diagnostic
        module = parse_mlir(self.ctx, text, self.get_input_name(), first_line=start_offset + 1)
        try:
            module.verify()
        except VerifyException:
            raise
        except Exception:  # a verifier that fails on malformed input without a VerifyException
            # (xDSL's memref.load/store raise a bare Exception for a wrong index count): located
            from warpforge.diagnostics import verify_module

            verify_module(module)
            raise
        from warpforge.verify import verify_dominance

        verify_dominance(module)  # as MLIR's verifier: xDSL parses forward references without checking
        return module

    def run(self) -> None:
        try:
            super().run()
        except ParseError as e:
            raise SystemExit(_fail(str(e)))
        except PassFailedException as e:
            raise SystemExit(_fail(f"pass failed: {e}"))
        except (VerifyException, DiagnosticException) as e:
            raise SystemExit(_fail(str(e)))
        except Exception as e:  # every other failure is ours: still a diagnostic, not a traceback
            from warpforge.errors import WarpforgeError

            if isinstance(e, WarpforgeError):
                raise SystemExit(_fail(str(e)))
            raise SystemExit(_fail(f"internal error: {type(e).__name__}: {e}"))


def _target_factory(target: type[Target]) -> Callable[[], type[Target]]:
    def factory() -> type[Target]:
        return target

    return factory


def _fail(message: str) -> int:
    located = re.match(r"\S+:\d+:\d+: (error|warning)", message) is not None  # a rendered diagnostic
    print(f"error: {message}" if not message.startswith("error") and not located else message, file=sys.stderr)
    return 1


def _help_epilog(main: WarpforgeOptMain) -> str:
    from warpforge.passes import available_passes

    ours = sorted(available_passes())
    upstream = sorted(n for n in main.available_passes if n not in ours)
    lines = ["warpforge passes:"]
    for name in ours:
        doc = (main.available_passes[name]().__doc__ or "").strip().splitlines()
        lines.append(f"  {name:28} {doc[0] if doc else ''}")
    lines.append("\npipelines (expand into their passes):")
    for name, passes in PIPELINES.items():
        lines.append(f"  {name:28} {PIPELINE_DOCS.get(name, '')}")
        lines.append(f"  {'':28} = {','.join(passes)}")
    lines.append("\ntargets (-t):")
    for name, target in TARGETS.items():
        doc = (target.__doc__ or "").strip().splitlines()
        lines.append(f"  {name:28} {doc[0] if doc else ''}")
    lines.append("  mlir                         MLIR text (default)")
    lines.append(f"\nupstream xDSL passes also available: {', '.join(upstream)}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the `warpforge-opt` console script."""
    try:
        WarpforgeOptMain(args=argv).run()
    except (KeyboardInterrupt, BrokenPipeError):
        raise SystemExit(1)

