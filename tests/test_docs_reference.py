"""docs/reference/ is generated from the code (scripts/gen_reference.py); it must not drift."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_reference_docs_match_the_code():
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_reference.py"), "--check"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr + "\nregenerate with: python scripts/gen_reference.py"


def test_every_warpforge_op_and_pass_has_a_summary():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import gen_reference
    finally:
        sys.path.pop(0)
    text = gen_reference.dialects_md() + gen_reference.passes_md()
    assert "(no summary)" not in text, [line for line in text.splitlines() if "(no summary)" in line][:5]
    from warpforge.passes import PASSES

    for name, load in PASSES.items():
        assert (load().__doc__ or "").strip(), f"pass {name} has no docstring"
