"""Package discovery for warpforge's folder layout.

The repository keeps the compiler, its dialects and its passes in three top-level folders that install
as one `warpforge` package (`compiler/` -> `warpforge`, `dialects/` -> `warpforge.dialects`,
`passes/` -> `warpforge.passes`). Every sub-folder holding an `__init__.py` is a subpackage, found
here rather than listed by hand, so a new subpackage cannot be silently left out of a wheel. Package
data (anything not `.py`, e.g. project templates) ships with the package it lies in.
"""

from pathlib import Path

from setuptools import setup

ROOTS = {"warpforge": "compiler", "warpforge.dialects": "dialects", "warpforge.passes": "passes"}


def find_packages() -> list[str]:
    here = Path(__file__).parent
    packages = []
    for name, folder in ROOTS.items():
        for init in sorted((here / folder).rglob("__init__.py")):
            parts = init.parent.relative_to(here / folder).parts
            if "__pycache__" in parts:
                continue
            packages.append(".".join((name, *parts)))
    return packages


setup(
    package_dir=ROOTS,
    packages=find_packages(),
    package_data={"": ["*.txt", "*.md", "*.mlir", "*.toml", "*.tmpl", "templates/*", "templates/**/*"]},
)
