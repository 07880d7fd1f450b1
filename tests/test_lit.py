"""Runs the lit/FileCheck suite under `filecheck/` as one pytest test."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_lit_suite() -> None:
    lit = shutil.which("lit", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    if lit is None:
        pytest.fail("lit is not installed: pip install -e '.[test]'")
    env = dict(os.environ)
    # the RUN lines call warpforge-opt, warpforge and filecheck: find them next to this Python even
    # when its virtual environment is not activated
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    try:
        from warpforge.runtime.device import gpu_available

        if gpu_available():
            env["WARPFORGE_LIT_GPU"] = "1"
    except Exception:
        pass
    proc = subprocess.run(
        [sys.executable, lit, "-v", "--order=lexical", str(ROOT / "filecheck")],
        capture_output=True,
        text=True,
        env=env,
    )
    if proc.returncode != 0:
        pytest.fail(f"lit suite failed:\n{proc.stdout[-20000:]}\n{proc.stderr[-5000:]}")
    assert "Passed" in proc.stdout or "Total Discovered Tests" in proc.stdout
