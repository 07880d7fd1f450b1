"""Which warpforge package may import which at module level (CONTRIBUTING.md, "The architecture")."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {"compiler": "warpforge", "dialects": "warpforge.dialects", "passes": "warpforge.passes"}

FORBIDDEN: dict[str, tuple[str, ...]] = {
    # importing package prefix: module prefixes it must not import at module level
    "warpforge.dialects": ("warpforge.passes", "warpforge.frontend", "warpforge.backend", "warpforge.runtime",
                           "warpforge.simulator", "warpforge.simt", "warpforge.tile", "warpforge.compile",
                           "warpforge.driver"),
    "warpforge.passes": ("warpforge.frontend", "warpforge.backend", "warpforge.runtime", "warpforge.simulator",
                         "warpforge.simt", "warpforge.tile", "warpforge.compile", "warpforge.driver"),
    "warpforge.backend": ("warpforge.frontend", "warpforge.runtime", "warpforge.simulator", "warpforge.simt",
                          "warpforge.tile", "warpforge.driver"),
    "warpforge.frontend": ("warpforge.runtime", "warpforge.simulator", "warpforge.passes", "warpforge.driver"),
    "warpforge.runtime": ("warpforge.frontend", "warpforge.passes", "warpforge.simt", "warpforge.tile",
                          "warpforge.compile", "warpforge.tile_compile", "warpforge.driver"),
    "warpforge.simulator": ("warpforge.frontend", "warpforge.passes", "warpforge.simt", "warpforge.tile",
                            "warpforge.compile", "warpforge.tile_compile", "warpforge.driver"),
}

KNOWN_EXCEPTIONS: set[tuple[str, str]] = set()
"""Imports that break the rule today and are to be removed; a new one fails the test."""


def _modules():
    for folder, package in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            yield ".".join((package, *parts)), path


def _top_level_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found: set[str] = set()
    for node in tree.body:  # module level only: imports inside functions are lazy by design
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in found if name.startswith("warpforge")}


def _matches(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def test_module_level_imports_follow_the_layering():
    violations = []
    for module, path in _modules():
        for owner, forbidden in FORBIDDEN.items():
            if not _matches(module, owner):
                continue
            for imported in _top_level_imports(path):
                for bad in forbidden:
                    if _matches(imported, bad) and (module, bad) not in KNOWN_EXCEPTIONS:
                        violations.append(f"{module} imports {imported}")
    assert not violations, "\n".join(sorted(set(violations)))


def test_known_exceptions_still_exist():
    """An exception that was fixed must leave the table, so the table never hides a new one."""
    modules = dict(_modules())
    for module, imported in KNOWN_EXCEPTIONS:
        assert any(_matches(name, imported) for name in _top_level_imports(modules[module])), (module, imported)
