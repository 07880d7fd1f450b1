"""Op trait lookups remembered per op class (`warpforge.trait_cache`): the same answers as xDSL's own
scan for every op of the dialects a compile loads, and a trait added later is seen."""

from __future__ import annotations

import itertools

from xdsl import traits as xt
from xdsl.dialects import arith, cf, func, memref, scf
from xdsl.ir.core import Operation

from warpforge import trait_cache
from warpforge.context import make_context
from warpforge.dialects import OUR_DIALECTS

TRAITS = [
    xt.Pure, xt.IsTerminator, xt.NoTerminator, xt.ConstantLike, xt.MemoryEffect, xt.HasCanonicalizationPatternsTrait,
    xt.IsolatedFromAbove, xt.SymbolOpInterface, xt.RecursiveMemoryEffect, xt.HasFolder, xt.HasParent, xt.Commutative,
]  # fmt: skip


def _scan(cls: type[Operation], trait: type) -> list[object]:
    """xDSL's definition: the class's traits that are instances of `trait`."""
    return [t for t in cls.traits if isinstance(t, trait)]


def _op_classes() -> list[type[Operation]]:
    classes: list[type[Operation]] = []
    for factory in itertools.chain(OUR_DIALECTS.values(), (lambda: arith.Arith, lambda: scf.Scf, lambda: cf.Cf, lambda: func.Func, lambda: memref.MemRef)):
        classes.extend(factory().operations)
    return classes


def test_cached_lookups_answer_as_the_scan():
    make_context()  # installs the cache
    classes = _op_classes()
    assert len(classes) > 200
    found = 0
    for _ in range(2):  # the second round answers from the memo
        for cls in classes:
            for trait in TRAITS:
                expected = _scan(cls, trait)
                assert cls.get_traits_of_type(trait) == expected, (cls.name, trait)
                assert cls.get_trait(trait) is (expected[0] if expected else None) or len(expected) > 1, (cls.name, trait)
                assert cls.has_trait(trait) is bool(expected), (cls.name, trait)
                found += bool(expected)
    assert found > 100  # the traits are there: the test compares something


def test_get_traits_of_type_returns_a_fresh_list():
    make_context()
    first = arith.AddiOp.get_traits_of_type(xt.Pure)
    first.clear()
    assert arith.AddiOp.get_traits_of_type(xt.Pure) == _scan(arith.AddiOp, xt.Pure) != []


def test_a_trait_added_later_is_seen():
    make_context()

    class Marker(xt.OpTrait):
        pass

    assert not arith.SubiOp.has_trait(Marker) and arith.SubiOp.get_traits_of_type(Marker) == []
    saved = arith.SubiOp.traits._traits
    try:
        arith.SubiOp.traits.add_trait(Marker())
        assert arith.SubiOp.has_trait(Marker)
        assert len(arith.SubiOp.get_traits_of_type(Marker)) == 1
    finally:
        arith.SubiOp.traits._traits = saved
        trait_cache.clear()
    assert not arith.SubiOp.has_trait(Marker)


def test_install_is_idempotent():
    make_context()
    wrapped = Operation.get_trait
    trait_cache.install()
    assert Operation.get_trait == wrapped
