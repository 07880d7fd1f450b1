"""A fix to xDSL 0.75's printer, installed when warpforge's dialects load: SSA names never collide.

xDSL names a value after its name hint, adding `_1`, `_2`, … for later values with the same hint; a
value whose hint is *itself* `x_1` then prints as `%x_1` too, and the text no longer parses ("SSA
value %x_1 is already defined"). Kernels hit this easily (a Python variable assigned twice and one
named `x_1`; a `simt.local_array`'s elements `__local5_10`), so `warpforge compile --emit gpu` output
could not be resumed by `warpforge-opt`. The fixed printer also skips names already printed in the
scope. (To be reported upstream to xDSL.)
"""

from __future__ import annotations

from xdsl.ir import SSAValue
from xdsl.printer import Printer

_USED = "\0used"
"""Key, in the printer's per-scope name-count dict, of the set of names printed (not a valid hint)."""


def _print_ssa_value(self: Printer, value: SSAValue) -> str:
    names = self._ssa_values  # pyright: ignore[reportPrivateUsage]
    if value in names:
        name = names[value]
    elif value.name_hint:
        counts = self.ssa_names
        used = counts.get(_USED)
        if not isinstance(used, set):
            used = set()
            counts[_USED] = used  # pyright: ignore[reportArgumentType]
        hint = value.name_hint
        index = counts.get(hint, 0)
        name = f"{hint}_{index}" if index else hint
        while name in used:
            index += 1
            name = f"{hint}_{index}"
        counts[hint] = index + 1
        used.add(name)
        names[value] = name
    else:
        name = self._get_new_valid_name_id()  # pyright: ignore[reportPrivateUsage]
        names[value] = name
    self.print_string(f"%{name}")
    return name


def install() -> None:
    """Replace `Printer.print_ssa_value` (idempotent)."""
    if Printer.print_ssa_value is not _print_ssa_value:
        Printer.print_ssa_value = _print_ssa_value  # pyright: ignore[reportAttributeAccessIssue]
