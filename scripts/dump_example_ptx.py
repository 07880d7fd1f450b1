"""Write the PTX of every example kernel, for each chip, to a directory, so that two trees' code
generation can be compared byte for byte (`diff -r BEFORE AFTER`).

    python scripts/dump_example_ptx.py OUT_DIR [--chips sm_80,sm_90,sm_90a] [--only sgemm,softmax]

For each `examples/*.py` and chip: every `@simt.kernel` of the file and every `@tile.kernel` with
`ahead_of_time` signatures (the kernels `bench/compile_time.py` compiles), disk cache off. One file
per kernel and chip, `OUT_DIR/<example>.<kernel>[.<signature>].<chip>.ptx`; the `.file` lines (which
name the tree's folder) are left out. A kernel that does not compile for a chip gets
`....<chip>.error` with the exception's type and message instead (the tree's path as `<root>`) (e.g. wgmma on sm_80), so a change
in what is refused shows in the diff too. Every example runs in its own process.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import importlib.util, os, sys
os.environ["WARPFORGE_CACHE"] = "0"
import warpforge
path, out, chips = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
root = os.path.dirname(os.path.dirname(os.path.abspath(path)))  # error messages name the tree: left out
sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
stem = os.path.basename(path)[:-3]
spec = importlib.util.spec_from_file_location("__warpforge_dump__." + stem, path)
module = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = module
spec.loader.exec_module(module)

def write(name, text):
    with open(os.path.join(out, name), "w") as f:
        f.write(text)

def clean(ptx):
    return "".join(l for l in ptx.splitlines(keepends=True) if not l.lstrip().startswith(".file"))

for chip in chips:
    for attr, k in sorted(vars(module).items()):
        if isinstance(k, warpforge.simt.SimtKernel):
            try:
                write(f"{stem}.{attr}.{chip}.ptx", clean(k.compile(chip).ptx))
            except Exception as e:
                write(f"{stem}.{attr}.{chip}.error", f"{type(e).__name__}: {e}\n".replace(root, "<root>"))
        elif isinstance(k, warpforge.tile.TileKernel) and k._aot:
            for i, sig in enumerate(k._aot):
                try:
                    write(f"{stem}.{attr}.{i}.{chip}.ptx", clean(k.compile(*sig, chip=chip).kernel.ptx))
                except Exception as e:
                    write(f"{stem}.{attr}.{i}.{chip}.error", f"{type(e).__name__}: {e}\n".replace(root, "<root>"))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="directory to write the PTX files to (created)")
    parser.add_argument("--chips", default="sm_80,sm_90,sm_90a")
    parser.add_argument("--only", help="comma-separated example names (default: every example)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    examples = sorted((ROOT / "examples").glob("*.py"))
    if args.only:
        examples = [p for p in examples if p.stem in set(args.only.split(","))]
    failed = 0
    for path in examples:
        proc = subprocess.run([sys.executable, "-c", CHILD, str(path), args.out, args.chips], capture_output=True, text=True, cwd=ROOT)
        if proc.returncode != 0:
            failed += 1
            sys.stderr.write(f"{path.stem}: failed\n{proc.stderr[-2000:]}\n")
    print(f"{len(list(Path(args.out).iterdir()))} files in {args.out}; {failed} example(s) failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
