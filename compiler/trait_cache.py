"""Op trait lookups by trait class, remembered per op class.

xDSL 0.75's `Operation.get_trait(T)` / `has_trait(T)` and `get_traits_of_type(T)` (`xdsl.ir.core`)
scan the op class's traits with `isinstance` on every call; the traits are ABCs, so each test goes
through `abc.__instancecheck__`. The greedy rewrite driver, dead-code elimination and the folder ask
these for every op they visit: on the sgemm cold compile ~40k `has_trait` and ~22k
`get_traits_of_type` calls, about 0.5 s of the pipeline under cProfile on the CPU machine.

An op class's traits are class-level (`OpTraits`, fixed when the class is defined, changed only by
`OpTraits.add_trait`), so the answer for (op class, trait class) never changes until `add_trait` is
called: `install()` wraps the three lookups with a per-process memo for trait *classes* (a trait
instance, compared with `==`, is looked up as before) and clears the memo whenever `add_trait` runs.
The answers are the same objects xDSL's own scan returns; `get_traits_of_type` still returns a new
list each call. `install()` is idempotent; `warpforge.context.make_context` calls it.
"""

from __future__ import annotations

from typing import Any

_found: dict[tuple[type, type], Any] = {}
"""(op class, trait class) -> the first trait of that class, or None."""
_of_type: dict[tuple[type, type], tuple[Any, ...]] = {}
"""(op class, trait class) -> every trait of that class."""
_installed = False


def clear() -> None:
    """Forget every remembered lookup (after a trait is added to an op class)."""
    _found.clear()
    _of_type.clear()


def install() -> None:
    """Wrap `Operation.get_trait`, `Operation.has_trait`, `Operation.get_traits_of_type` and
    `OpTraits.add_trait` (see the module doc). Imports `xdsl.ir.core`."""
    global _installed
    if _installed:
        return
    from xdsl.ir.core import Operation, OpTraits

    get_trait = Operation.get_trait.__func__  # pyright: ignore[reportFunctionMemberAccess]
    get_traits_of_type = Operation.get_traits_of_type.__func__  # pyright: ignore[reportFunctionMemberAccess]
    add_trait = OpTraits.add_trait

    def cached_get_trait(cls: type[Operation], trait: Any) -> Any:
        if isinstance(trait, type):
            key = (cls, trait)
            try:
                return _found[key]
            except KeyError:
                found = _found[key] = get_trait(cls, trait)
                return found
        return get_trait(cls, trait)

    def cached_has_trait(cls: type[Operation], trait: Any, *, value_if_unregistered: bool = True) -> bool:
        return cls.get_trait(trait) is not None

    def cached_get_traits_of_type(cls: type[Operation], trait_type: Any) -> list[Any]:
        key = (cls, trait_type)
        try:
            return list(_of_type[key])
        except KeyError:
            found = get_traits_of_type(cls, trait_type)
            _of_type[key] = tuple(found)
            return found

    def clearing_add_trait(self: OpTraits, trait: Any) -> None:
        add_trait(self, trait)
        clear()

    Operation.get_trait = classmethod(cached_get_trait)  # pyright: ignore[reportAttributeAccessIssue]
    Operation.has_trait = classmethod(cached_has_trait)  # pyright: ignore[reportAttributeAccessIssue]
    Operation.get_traits_of_type = classmethod(cached_get_traits_of_type)  # pyright: ignore[reportAttributeAccessIssue]
    OpTraits.add_trait = clearing_add_trait  # pyright: ignore[reportAttributeAccessIssue]
    _installed = True
