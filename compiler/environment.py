"""Reading warpforge's `WARPFORGE_*` environment variables: one parser for each kind, so every
variable takes the same spellings and a bad value is refused with the variable's name
(`EnvironmentVariableError`), never silently ignored.

- switches (`WARPFORGE_SIMULATE`, `WARPFORGE_CACHE`, `WARPFORGE_PTXAS`, `WARPFORGE_TRACEBACK`,
  `WARPFORGE_PRINT_AUTOTUNING`): `1`/`true`/`yes`/`on` and `0`/`false`/`no`/`off`, case-insensitive,
  surrounding blanks ignored; unset or empty gives the default;
- integers (`WARPFORGE_CACHE_MAX_BYTES`, `WARPFORGE_SIM_STEP_LIMIT`): decimal, at least a minimum;
  unset or empty gives the default;
- paths (`WARPFORGE_DUMP_IR`, `WARPFORGE_KERNEL_OVERRIDE`, `WARPFORGE_REPRODUCER_DIR`,
  `WARPFORGE_CACHE_DIR`) are read as they are.
"""

from __future__ import annotations

import os
import re

from warpforge.errors import EnvironmentVariableError

TRUE = ("1", "true", "yes", "on")
FALSE = ("0", "false", "no", "off")


def flag(name: str, default: bool = False) -> bool:
    """The switch `name`: True for 1/true/yes/on, False for 0/false/no/off (any case), `default` when
    unset or empty. Raises `EnvironmentVariableError` for any other value."""
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    value = raw.strip().lower()
    if value in TRUE:
        return True
    if value in FALSE:
        return False
    raise EnvironmentVariableError(f"{name}={raw!r}: expected one of {', '.join(TRUE)} (on) or {', '.join(FALSE)} (off), any case")


def integer(name: str, default: int, *, minimum: int = 0, unit: str = "") -> int:
    """The integer `name` (decimal digits, at least `minimum`), `default` when unset or empty. Raises
    `EnvironmentVariableError` for anything else."""
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    what = f"an integer >= {minimum}" + (f" ({unit})" if unit else "")
    if re.fullmatch(r"-?[0-9]+", raw) is None:  # plain decimal digits: int() also takes ' 100', '+100', '1_000'
        raise EnvironmentVariableError(f"{name}={raw!r} is not an integer: expected {what}, in decimal digits (no '+', spaces or '_')")
    value = int(raw, 10)
    if value < minimum:
        raise EnvironmentVariableError(f"{name}={raw!r}: expected {what}")
    return value
