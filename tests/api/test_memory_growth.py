"""Memory stays bounded in a long-lived process that keeps meeting new names.

A tracing server names its symbols anew all the time (torch's ``s0``,
``u17``, ...), while some variables stay alive: a scope built from the same
constraint texts is kept as a template, and holds its variables.  Such a
live variable must not keep the fresh ones it is multiplied with (monomials
and product memos are kept on the youngest of their atoms), and nothing
else may keep them either: parse caches, scope templates, the decision
procedure's memos, ``explain()``.

Each test below makes fresh names in one pattern of use, 100,000 in all,
and checks after a warm-up that the number of live variables, the objects
the garbage collector tracks and the process's memory stay flat.  (Measured
before the fix: every name stayed alive, about 600 bytes each.)
``tests/api/test_memory.py`` checks that scopes are freed; this file is
about names.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import sys
from collections.abc import Callable

import pytest

import symshape
from symshape import InconclusiveDimensionOperation
from symshape.algebra.atoms import live_variable_count

_FRESH = itertools.count()


def _names(k: int) -> list[str]:
    """``k`` names never used before in this process."""
    n = next(_FRESH)
    return [f"fresh{n}_{j}" for j in range(k)]


def _collect() -> None:
    for _ in range(3):  # a collection can make more garbage collectable
        gc.collect()


# -- the patterns, each a step that makes NAMES_PER_STEP[pattern] fresh names --


def products_with_a_live_variable() -> int:
    # The template of ["b >= 2"] keeps ``b`` alive; every fresh name is
    # multiplied with it, compared and divided by it.
    names = _names(25)
    b, *ws = symshape.symbolic_shape(", ".join(["b", *names]), constraints=["b >= 2"])
    for w in ws:
        assert w * b >= w
        assert (w * b + w) // b == w + w // b
    return len(names)


def one_off_proves_with_a_live_variable() -> int:
    w, v, u, t = _names(4)
    assert symshape.prove(f"{w}*b + {u} >= {w}", constraints=["b >= 2"]).proved
    assert symshape.prove(f"{v}*{t}*b >= {t}", constraints=["b >= 1"]).proved
    return 4


def explain_without_constraints() -> int:
    x, y, z = _names(3)
    text = symshape.prove(f"{x}*{y} + {z} >= {x}").explain()
    assert x in text
    return 3


def floordiv_and_max_with_fresh_names() -> int:
    x, y, z = _names(3)
    v = symshape.prove(f"floordiv({x}*b, b + 1) + max({y}, b) >= floordiv({z}, b)",
                       constraints=["b >= 2"])
    assert v.status is not None
    p, q = symshape.symbolic_shape(f"{x}, {z}", constraints=["mod(b, 4) == 0", "b >= 4"])
    with contextlib.suppress(InconclusiveDimensionOperation):
        bool(symshape.max_dim(p, q) * (p // 4) >= p)
    return 3


def mixed_one_off_proves() -> int:
    x, y, z, u = _names(4)
    claims = [(f"{x} + b >= {x}", ["b >= 1"]),
              (f"mod({y}, 4) <= 3", []),
              (f"{x}*{z} >= {z}", [f"{x} >= 2"]),
              (f"max({u}, {y}) >= min({u}, 3)", []),
              (f"({z} + b)^2 >= {z}^2", ["b <= 64"])]
    for claim, constraints in claims:
        symshape.prove(claim, constraints=constraints)
    return 4


PATTERNS: dict[str, tuple[Callable[[], int], int]] = {  # step, names in all
    "products": (products_with_a_live_variable, 25_000),
    "one-off": (one_off_proves_with_a_live_variable, 12_000),
    "explain": (explain_without_constraints, 30_000),
    "floordiv-max": (floordiv_and_max_with_fresh_names, 21_000),
    "mixed": (mixed_one_off_proves, 12_000),
}


@pytest.mark.parametrize("pattern", PATTERNS)
def test_fresh_names_leave_nothing_behind(pattern: str) -> None:
    step, total = PATTERNS[pattern]
    warm = 0
    while warm < total // 10:  # warm-up: module caches and templates fill up
        warm += step()
    _collect()
    live_before = live_variable_count()
    objects_before = len(gc.get_objects())
    blocks_before = sys.getallocatedblocks()
    grown = 0
    while warm + grown < total:
        grown += step()
    _collect()
    live_after = live_variable_count()
    objects_after = len(gc.get_objects())
    blocks_after = sys.getallocatedblocks()
    # The variables still alive are those of the templates (``b``) and the
    # names of the last few steps (a bounded cache of recent texts' parse
    # trees names no variable).
    assert live_after <= live_before + 10, (live_before, live_after, grown)
    # Each kept name costs several tracked objects (its variable, monomials,
    # their memos): tens of thousands of names would show in the tens of
    # thousands; bounded caches turning over leave a few hundred.
    assert objects_after - objects_before < 2_000, (objects_before, objects_after, grown)
    # The process's growth, in memory blocks the interpreter holds (not RSS,
    # which moves with the allocator's arenas after other tests: 4-12 MB with
    # no leak).  Before the fix each name kept several blocks (about 0.6 KB).
    assert blocks_after - blocks_before < 10_000, (blocks_before, blocks_after, grown)
