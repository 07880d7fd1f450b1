"""Worker processes with a per-case timeout: a case that aborts the process (LLVM ERROR, a signal) or
runs past the timeout costs one worker, which is replaced; the parent never runs a case itself.

The timeout counts the worker's CPU time (from `/proc`, where there is one), not the wall clock: on a
machine shared with other work a niced worker may wait for the CPU far longer than it computes, and
that is not a hang. A case is also given up after `WALL_FACTOR` times the timeout of wall time."""

from __future__ import annotations

import multiprocessing as mp
import os
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any


WALL_FACTOR = 8
"""A case that has not answered after this many timeouts of wall-clock time is a hang, CPU or not."""


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of process `pid` so far (Linux `/proc/PID/stat`), None where unknown."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


@dataclass
class Outcome:
    """One case's class (see the package docstring) and what it printed or raised (abbreviated)."""

    kind: str
    case: Any
    klass: str
    detail: str = ""


def _serve(conn: Any, handler: Callable[[Any], tuple[str, str]], nice: int) -> None:
    if nice:
        os.nice(nice)
    # LLVM writes to file descriptor 2 directly ("'sm_9999' is not a recognized processor", and
    # "LLVM ERROR: …" before an abort): keep it out of the report, in a file per worker
    log = os.open(os.path.join(tempfile.gettempdir(), f"wf-fuzz-worker-{os.getpid()}.log"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(log, 2)
    while True:
        try:
            case = conn.recv()
        except EOFError:
            return
        if case is None:
            return
        try:
            result = handler(case)
        except BaseException as e:  # noqa: BLE001 - the handler classifies; this is its own bug
            result = ("traceback", f"fuzz handler: {type(e).__name__}: {e}")
        conn.send(result)


def _log_tail(w: _Worker) -> str:
    try:
        with open(os.path.join(tempfile.gettempdir(), f"wf-fuzz-worker-{w.proc.pid}.log"), errors="replace") as f:
            return f.read()[-300:].strip()
    except OSError:
        return ""


class _Worker:
    def __init__(self, ctx: Any, handler: Callable[[Any], tuple[str, str]], nice: int):
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child, handler, nice), daemon=True)
        self.proc.start()
        child.close()
        self.case: Any = None
        self.started = 0.0
        self.cpu_started: float | None = None

    def start(self, case: Any) -> None:
        self.conn.send(case)
        self.started = time.monotonic()
        self.cpu_started = cpu_seconds(self.proc.pid)

    def ran_past(self, timeout: float, now: float) -> bool:
        """True when the current case has used `timeout` seconds of CPU (of wall time where the CPU
        time is unknown), or `WALL_FACTOR` timeouts of wall time."""
        wall = now - self.started
        if wall <= timeout:
            return False
        cpu = cpu_seconds(self.proc.pid)
        if cpu is None or self.cpu_started is None:
            return True
        return cpu - self.cpu_started > timeout or wall > WALL_FACTOR * timeout

    def kill(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(5)
        self.conn.close()


def run_cases(
    cases: Iterable[tuple[str, Any]],
    handlers: dict[str, Callable[[Any], tuple[str, str]]],
    *,
    workers: int = 2,
    timeout: float = 20.0,
    nice: int = 0,
) -> Iterator[Outcome]:
    """Run `(kind, case)` pairs, each by `handlers[kind]` in a worker process (fork: the parent's
    imports are inherited), `workers` at a time; yields an `Outcome` per case as it completes."""
    ctx = mp.get_context("fork")
    pending = iter(cases)
    pools: dict[str, list[_Worker]] = {}
    busy: list[tuple[_Worker, str, Any]] = []
    idle: dict[str, list[_Worker]] = {k: [] for k in handlers}
    exhausted = False

    def take(kind: str) -> _Worker:
        if idle[kind]:
            return idle[kind].pop()
        w = _Worker(ctx, handlers[kind], nice)
        pools.setdefault(kind, []).append(w)
        return w

    try:
        while True:
            while not exhausted and len(busy) < workers:
                nxt = next(pending, None)
                if nxt is None:
                    exhausted = True
                    break
                kind, case = nxt
                w = take(kind)
                w.start(case)
                busy.append((w, kind, case))
            if not busy:
                return
            done = mp.connection.wait([w.conn for w, _, _ in busy] + [w.proc.sentinel for w, _, _ in busy], timeout=0.5)
            now = time.monotonic()
            still: list[tuple[_Worker, str, Any]] = []
            for w, kind, case in busy:
                if w.conn in done or w.conn.poll():
                    try:
                        klass, detail = w.conn.recv()
                    except (EOFError, OSError):
                        w.proc.join(1)
                        klass, detail = "abort", f"worker died (exit code {w.proc.exitcode}): {_log_tail(w)}"
                        w.kill()
                        yield Outcome(kind, case, klass, detail)
                        continue
                    idle[kind].append(w)
                    yield Outcome(kind, case, klass, detail)
                elif w.proc.sentinel in done or not w.proc.is_alive():
                    w.proc.join(1)
                    w.kill()
                    yield Outcome(kind, case, "abort", f"worker died (exit code {w.proc.exitcode}): {_log_tail(w)}")
                elif w.ran_past(timeout, now):
                    w.kill()
                    yield Outcome(kind, case, "hang", f"no answer after {timeout:g} s of CPU time ({now - w.started:.0f} s wall)")
                else:
                    still.append((w, kind, case))
            busy = still
    finally:
        for ws in pools.values():
            for w in ws:
                if w.proc.is_alive():
                    try:
                        w.conn.send(None)
                    except OSError:
                        pass
                w.kill()
