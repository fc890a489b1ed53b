"""Interval bounds (``symshape.intervals``) contain every value, and the
relaxations that see through ``floordiv``, ``max`` and ``min`` settle what
``canonicalize_slice`` asks without a search.

The comparison operators answer from these intervals before anything else, so
an interval that misses a value would be a wrong True/False.  The property
draws constraints and expression trees and checks, on every valuation of a
grid that satisfies the constraints, that ``scope.interval(e)`` holds the value.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.exprgen import build, evaluate, trees
from support.grid import grid_env, valid_mask

import symshape
from symshape import SymbolicScope, UnsatisfiableConstraintsError, intervals
from symshape.algebra.atoms import ONE
from symshape.decision.engine import Decider
from symshape.intervals import BOUND_BITS_MARGIN, IntervalBounds

CONSTRAINTS = ["a >= b + 2", "b >= 3", "mod(a, 4) == 0", "max(a, b) <= 9", "min(c, d) >= 2",
               "floordiv(c, 2) >= 2", "d <= b", "c <= 7", "a + d <= 12"]
ENV = grid_env("abcd", 12)


def _valid_mask(constraints: list[str]) -> Any:
    return valid_mask(constraints, ENV)


COUNTS: Counter[str] = Counter()


@settings(max_examples=400, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from(CONSTRAINTS), max_size=3, unique=True),
       trees(max_leaves=7, symbolic_divisors=False))
def test_intervals_contain_every_value(constraints: list[str], t: Any) -> None:
    try:
        scope = SymbolicScope(constraints)
    except UnsatisfiableConstraintsError:
        return
    mask = _valid_mask(constraints)
    values = np.broadcast_to(evaluate(t, ENV), next(iter(ENV.values())).shape)[mask]
    if not mask.any() or np.abs(values).max() >= 2**40:
        return
    e = build(t, scope)
    lo, hi = scope.interval(e)
    COUNTS["checked"] += 1
    if lo != -np.inf or hi != np.inf:
        COUNTS["bounded"] += 1
    assert lo <= values.min() and values.max() <= hi, (constraints, str(e), (lo, hi))


def test_the_property_checked_bounded_intervals() -> None:
    # (runs after the property in file order; alone it checks its own count)
    if COUNTS["checked"] == 0:
        test_intervals_contain_every_value()
    assert COUNTS["checked"] >= 200 and COUNTS["bounded"] >= 100, COUNTS


@pytest.mark.parametrize("text, lo", [
    # min(a, b) - b + max(b - 2, 0) + 3: max(a - b, 0) <= a - 1 and max(b - 2, 0) >= b - 2
    ("min(a, b) - b + max(b - 2, 0) + 3", 2),
    # the maxima inside a floordiv's numerator are relaxed too
    ("b - floordiv(min(a, b) - b + max(b - 2, 0) + 3, 4)", 1),
    ("max(a, b) - a", 0),
    ("b - 1 - max(b - a, 0)", 0),  # the symbolic upper bound of a maximum
    ("a - 4*floordiv(a, 4)", 0),
])
def test_relaxed_intervals(text: str, lo: int) -> None:
    scope = SymbolicScope()
    e = symshape.symbolic_shape(text, scope=scope)[0]
    assert scope.interval(e)[0] == lo


@pytest.mark.parametrize("constraints", [[], ["a >= 4", "a <= 35"], ["a <= 7"]])
def test_a_remainder_keeps_its_range_under_bounded_variables(constraints: list[str]) -> None:
    """``mod(a, 4)`` is in [0, 3] whatever bounds ``a`` has: with finite bounds
    the terms ``a`` and ``-4*floordiv(a, 4)`` taken apart gave [-28, 31] for
    4 <= a <= 35.  So ``floordiv(mod(a, 4), 8)`` is 0, and the nest JAX
    decides is proved (before, symshape left it undecided)."""
    (a,) = symshape.symbolic_shape("a", constraints=constraints)
    assert a.scope.interval(a % 4) == (0, 3)
    assert (a % 4) // 8 == 0 and isinstance((a % 4) // 8, int)
    assert str(symshape.prove("floordiv(floordiv(mod(a, 4), 8), 4) >= 0",
                              constraints=constraints).status) == "proved"
    # (terms pulled out of the numerator first would lose the range: 2*mod(a, 4) over 8)
    assert (2 * (a % 4)) // 8 == 0


@pytest.mark.parametrize("constraints", [[], ["a <= 10", "b <= 10"]])
def test_a_maximum_keeps_its_cancellation_under_bounded_variables(constraints: list[str]) -> None:
    """``max(a, b) - a`` is ``max(a - b, 0) + b - a``: its terms apart gave
    [-9, 18] for a, b <= 10; through the maximum, [0, 9]."""
    a, b = symshape.symbolic_shape("a, b", constraints=constraints)
    assert a.scope.interval(symshape.max_dim(a, b) - a)[0] == 0


def test_canonicalize_slice_needs_no_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """What ``jax``'s ``canonicalize_slice`` asks of ``x[2:a:4]`` on an axis of
    size ``b``, as in JAX's ``inequalities_slice`` benchmark."""
    searches: list[Any] = []
    search = Decider._search_with
    monkeypatch.setattr(Decider, "_search_with",
                        lambda self, *a, **k: searches.append(a) or search(self, *a, **k))
    a, b = symshape.symbolic_shape("a, b")
    start = symshape.min_dim(b, 2)
    stop = symshape.min_dim(b, a)
    size = symshape.max_dim(0, stop - start + 3) // 4
    assert 0 <= size <= b and start >= 0
    assert searches == []
    assert start + size <= b  # needs the integrality of the quotient: a search


def test_propagated_bounds_stay_near_the_size_of_the_constants(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``c - a == c^3`` with ``a >= 1`` raises c's lower bound to its cube
    round after round (15 million bits after 8 rounds, and a minute for the
    scope); bounds beyond four times the constants' width are left out."""
    widest: list[int] = [0]
    real = IntervalBounds._propagate_bounds

    def spy(self: IntervalBounds) -> None:
        try:
            real(self)
        finally:  # (every step taken, also those before the contradiction)
            for _, _, _, value in self._steps:
                widest[0] = max(widest[0], value.bit_length())

    monkeypatch.setattr(IntervalBounds, "_propagate_bounds", spy)
    with pytest.raises(UnsatisfiableConstraintsError):
        SymbolicScope(["c - a == c^3", "a - d <= min(-4, b)"])
    assert 0 < widest[0] <= 4 * 3 + BOUND_BITS_MARGIN
    # a wide constant keeps its bound, in a fact or inside an atom
    assert SymbolicScope(["a >= 2^1000"]).var_lower_bound("a") == 2 ** 1000
    assert SymbolicScope(["floordiv(s, 2^300) >= 1"]).var_lower_bound("s") == 2 ** 300
    assert SymbolicScope(["floordiv(floordiv(s, 2^300), 2) >= 1"]).var_lower_bound("s") \
        == 2 ** 301


CHAINS = [
    ["x0 >= x1 + 8", "x1 >= x2 + 2", "x2 >= x3 + 1", "x3 >= x4", "x4 >= 16", "x0 <= 8192",
     "x1 + x3 <= 8192", "2*x2 >= x4 + x4"],
    ["a >= b + 1", "b >= c + 1", "c >= d + 1", "d >= 5", "a <= 100", "a + d <= 104"],
    ["m >= s + 16", "m <= 512", "min(m, s) >= 1", "mod(m, 16) == 0", "2*m + 1 <= 2049"],
    ["t >= k", "floordiv(t, 4) >= 2", "k + t <= 64", "p <= 3", "t - p >= 6"],
]


@pytest.mark.parametrize("constraints", CHAINS)
def test_propagation_skips_only_facts_that_would_tighten_nothing(
        constraints: list[str]) -> None:
    """Propagation runs a fact linear in variables again only where a bound
    it reads changed since it last ran: once propagation has settled (in
    fewer rounds than its cap), running every such fact once more tightens
    no bound."""
    scope = SymbolicScope(constraints)
    steps = scope.bound_steps  # (runs the propagation)
    assert steps
    bounds = dict(scope._propagated)
    for f, _ in scope.facts():
        if isinstance(f, int):
            continue
        items = [(m, c) for m, c in f.terms.items() if m]
        if all(len(m) == 1 and m[0][1] == 1 for m, _ in items):
            assert not intervals._tighten(scope, items, f.terms.get(ONE, 0), (0, 1, ()),
                                          1 << 20), str(f)
    assert scope._propagated == bounds
