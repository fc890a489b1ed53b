"""What a scope derives when it is built, and what it leaves for first use.

Building a scope parses and normalizes its constraints, installs the rewrite
rules of its equalities, and checks that the constraints can hold (raising
``UnsatisfiableConstraintsError`` when proved contradictory).  Interval
propagation is a function of those fixed facts alone, so it runs when a bound
is first read: these tests check that it runs exactly then, that its result
does not depend on what was built in the scope before, and that the check of
satisfiability finds its valuation without it for the common constraints.
"""

from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.oracle import Z3Oracle
from support.threads import run_in_threads

import symshape
from symshape import SymbolicScope
from symshape.algebra.dimexpr import DimExpr
from symshape.repair import (
    fact_variables,
    growth_rates,
    growth_rates_at,
    repaired_facts,
    shown_to_hold,
)

ML_CONSTRAINTS = ["b >= 16", "mod(s, 128) == 0", "a >= b + 8", "max(h, w) <= 4096",
                  "2*h + 1 <= 1024", "16 <= t <= 512", "s <= 8192", "mod(c, 8) == 0",
                  "h >= w", "floordiv(s, 128) >= 2"]

# Constraint lists whose propagation takes several steps, tightens bounds by
# relaxed facts (floordiv, max), or stops at the bit limit of big bounds.
PROPAGATING = [
    ML_CONSTRAINTS,
    ["a >= b + 8", "b >= c + 8", "c >= 3", "a <= 100"],
    ["floordiv(s, 2) >= 5", "min(s, w) >= 4", "w <= 3*s"],
    ["a - c == c^3", "a <= 2^40"],
    ["n == 2*k", "k >= 7", "mod(m, 2^200) == 0"],
]


_FRESH = itertools.count()
_NAME = re.compile(r"\b(?!max\b|min\b|mod\b|floordiv\b)([A-Za-z_]\w*)\b")


def fresh(constraints: list[str]) -> tuple[list[str], str]:
    """``constraints`` with every variable renamed ``x_<n>`` for a new ``n``
    (texts never seen before: no template answers), and the suffix."""
    suffix = f"_{next(_FRESH)}"
    return [_NAME.sub(lambda m: m.group(1) + suffix, c) for c in constraints], suffix


def _bound_view(s: SymbolicScope, names: list[str]) -> tuple[object, ...]:
    return (tuple((v, s.var_lower_bound(v), s.var_upper_bound(v)) for v in names),
            tuple(repr(step) for step in s.bound_steps))


@pytest.mark.parametrize("k", range(1, len(ML_CONSTRAINTS) + 1))
def test_building_a_scope_propagates_no_bound_and_builds_no_decider(k: int) -> None:
    cs, x = fresh(ML_CONSTRAINTS[:k])
    s = SymbolicScope(cs)
    assert s._bounds_pending and s._decider_obj is None
    # the first bound read runs propagation, once
    assert s.var_lower_bound("b" + x) == 16
    assert not s._bounds_pending
    steps = s.bound_steps
    assert steps and s.bound_steps == steps


def test_every_first_use_of_bounds_sees_the_propagated_ones() -> None:
    # a comparison, an interval, a division's normal form and a verdict each
    # read bounds first: all see a >= 24 although nothing propagated yet
    for use in (lambda s, a: s.var(a) >= 24,
                lambda s, a: s.interval(s.var(a))[0] == 24,
                lambda s, a: str(s.var(a) // (s.var(a) - 23)) == f"floordiv(23, {a} - 23) + 1",
                lambda s, a: symshape.prove(f"{a} >= 24", scope=s).proved):
        cs, x = fresh(["b >= 16", "a >= b + 8"])
        s = SymbolicScope(cs)
        assert s._bounds_pending
        assert use(s, "a" + x)
        assert not s._bounds_pending
        assert s.var_lower_bound("a" + x) == 24


@pytest.mark.parametrize("constraints", PROPAGATING)
def test_propagated_bounds_do_not_depend_on_what_was_built_before(
        constraints: list[str]) -> None:
    constraints, x = fresh(constraints)
    names = sorted({m.group(1) for c in constraints for m in _NAME.finditer(c)})
    # Atoms with wide constants and divisions built in the scope (here while
    # the bounds are read for the first time) must not widen the bit limit of
    # propagated bounds, nor change them.
    later = SymbolicScope(constraints)
    v = later.var(names[0])
    _ = v // 2**4000 + symshape.max_dim(v, 2**999) + v % 7
    view = _bound_view(later, names)
    # The second scope with these texts propagates at once (a template is
    # made from it); the third is copied from the template.
    at_once = SymbolicScope(constraints)
    assert not at_once._bounds_pending
    assert _bound_view(at_once, names) == view
    assert _bound_view(SymbolicScope(constraints), names) == view


@pytest.mark.parametrize("constraints, witness", [
    (["b >= 16"], {"b": 16}),
    (["a >= b + 8"], {"a": 9, "b": 1}),
    (["mod(s, 128) == 0"], {"s": 128}),
    (["floordiv(s, 128) >= 2"], {"s": 256}),
    # (t is raised by multiples of the divisors' lcm: 128 + 2*128 >= 256 + 1)
    (["floordiv(s, 128) >= 2", "mod(s, 128) == 0", "t >= s + 1"], {"s": 256, "t": 384}),
])
def test_satisfiability_is_seen_by_repairing_ones_without_propagation(
        constraints: list[str], witness: dict[str, int]) -> None:
    constraints, x = fresh(constraints)
    witness = {v + x: value for v, value in witness.items()}
    s = SymbolicScope(constraints)
    assert s._bounds_pending and s._decider_obj is None
    facts = [f for f, _ in s.facts()]
    names, step = fact_variables(facts)
    assert repaired_facts(dict.fromkeys(names, step), step, facts) == witness


def _checks(scope: SymbolicScope) -> list[tuple[DimExpr | int, int]]:
    """The checks the scope's satisfiability test starts from (kind 0: ``== 0``)."""
    out: list[tuple[DimExpr | int, int]] = [(c.diff, 0 if c.op == "==" else 1)
                                             for c in scope.constraints]
    out.extend((f, 1) for f, _ in scope.implicit_facts)
    return out


@pytest.mark.parametrize("constraints, shown", [
    (["b >= 16"], True),  # b is its own
    (["a >= b + 8"], True),
    (["b - c >= 2", "d >= 3*c + floordiv(e, 4)"], True),
    (["b >= 16", "a >= b + 8"], True),  # b is shared: repaired (b = 16, a = 24)
    (["16 <= t <= 512"], True),
    (["mod(s, 128) == 0"], True),  # repaired from s = 128
    (["a >= floordiv(a, 2) + 3"], True),  # a occurs in an atom too: repaired
    (["a >= b + 1", "b >= a - 5"], True),
    (["b^2 <= 4*c"], True),  # c is its own
    (["a*b >= 10"], False),  # no variable raises the product alone
    (["a*b >= 10", "c >= 2"], False),  # one group not shown is enough
    (["c*d >= 65", "mod(s, 8) == 0", "t >= s + 1"], False),  # c = d = 8 falls short
    # a min needs each of its arguments raised, one after the other (the rates
    # are taken at the valuation reached: see growth_rates_at)
    (["min(m, f) >= 4"], True),
    (["min(a, b) + min(b, c) >= 10"], True),
    (["max(a, b) >= 5", "min(a, b) >= 3"], True),
    (["min(m, f) >= 4", "m <= f + 2", "f <= m + 1"], True),
])
def test_checks_shown_to_hold_by_peeling_and_repair(constraints: list[str],
                                                    shown: bool) -> None:
    constraints, _ = fresh(constraints)
    assert shown_to_hold(_checks(SymbolicScope(constraints))) is shown


def test_a_check_is_peeled_only_by_a_variable_no_other_check_has() -> None:
    s = SymbolicScope()
    a, b = s.var("a"), s.var("b")
    assert shown_to_hold([(b - 3, 1), (a - 5, 1)])
    assert not shown_to_hold([(a - 5, 1), (5 - a, 1), (a - 6, 1)])  # a <= 5 and a >= 6
    assert not shown_to_hold([(a - 5, 0), (a - 6, 1)])  # a == 5 and a >= 6
    assert shown_to_hold([(a - 5, 0), (a - 5, 1), (b - a, 1)])  # b peels; a == 5 holds at 5
    assert not shown_to_hold([((a // 2) - b, 1), (2 - a, 1), (b - 2, 1)])
    assert not shown_to_hold([(-1, 1)])
    assert shown_to_hold([(1, 0)]) is False  # 1 == 0
    assert shown_to_hold([(0, 0), (3, 1)])
    assert shown_to_hold([])
    c, z = s.var("c"), s.var("z")
    assert shown_to_hold([(z - a * b, 1)])  # z settles it
    assert not shown_to_hold([(a * b - 10, 1), (z - a * b, 1)])  # z peels, a*b >= 10 stays
    # a peels; b == 16 is what is left for the repair
    assert shown_to_hold([(a - b - 8, 1), (b - 16, 0)])
    # never peeled under a symbolic divisor: c <= 1 makes it 0 (no value)
    assert not shown_to_hold([(a - b // (c - 1), 1), (1 - c, 1)])
    # a chain peels from its far end, in time linear in its length
    xs = [s.var(f"x{i}") for i in range(400)]
    chain = [(xs[i] - xs[i + 1] - 1, 1) for i in reversed(range(399))]
    assert shown_to_hold([*chain, (xs[-1] - 5, 1)])
    assert not shown_to_hold([*chain, (xs[-1] - 5, 1), (5 - xs[0], 1)])


_TERM = st.one_of(
    st.tuples(st.just("lin"), st.integers(0, 3), st.integers(-3, 3)),
    st.tuples(st.just("fd"), st.integers(0, 3), st.integers(-3, 3), st.integers(2, 6)),
    st.tuples(st.just("mod"), st.integers(0, 3), st.integers(-3, 3), st.integers(2, 6)),
    st.tuples(st.just("prod"), st.integers(0, 3), st.integers(-2, 2), st.integers(0, 3)),
    st.tuples(st.just("sdiv"), st.integers(0, 3), st.integers(-3, 3), st.integers(0, 3),
              st.integers(0, 2)),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.lists(_TERM, min_size=1, max_size=3), st.integers(-40, 40),
                          st.sampled_from([1, 0])), min_size=1, max_size=5))
def test_checks_shown_to_hold_are_satisfiable(
        rows: list[tuple[list[tuple[int, ...]], int, int]]) -> None:
    """Whatever shown_to_hold shows, z3 finds a valuation for (every variable
    >= 1, Python's floor division): the argument the scope's satisfiability
    check returns on must never be wrong."""
    s = SymbolicScope()
    xs = [s.var(n) for n in ("p", "q", "r", "t")]
    checks: list[tuple[DimExpr | int, int]] = []
    for terms, k, kind in rows:
        f: DimExpr | int = k
        for t in terms:
            x, c = xs[t[1]], t[2]
            if t[0] == "lin":
                f = f + c * x
            elif t[0] == "fd":
                f = f + c * (x // t[3])
            elif t[0] == "mod":
                f = f + c * (x % t[3])
            elif t[0] == "prod":
                f = f + c * x * xs[t[3]]
            else:  # a symbolic divisor, >= 1 at every valuation
                f = f + c * (x // (xs[t[3]] + t[4]))
        checks.append((f, kind))
    if not shown_to_hold(checks):
        return
    oracle = Z3Oracle(s)
    assert oracle.satisfiable([(">=" if kind else "==", f) for f, kind in checks]) is True


def test_propagation_runs_once_when_threads_read_bounds_together() -> None:
    import threading
    cs, x = fresh(ML_CONSTRAINTS)
    s = SymbolicScope(cs)
    assert s._bounds_pending
    seen: list[int] = []
    barrier = threading.Barrier(4)

    def read(_: int) -> None:
        barrier.wait()
        seen.append(s.var_lower_bound("a" + x))
    run_in_threads(read, 4)
    assert seen == [24] * 4
    assert len(s.bound_steps) == len({repr(step) for step in s.bound_steps})


def test_a_floordiv_grows_with_its_numerators_variables() -> None:
    s = SymbolicScope()
    a, b = s.var("a"), s.var("b")
    e = 3 * ((2 * a + b) // 8) + b - 5
    assert isinstance(e, symshape.DimExpr)
    rates = growth_rates(e.terms)
    assert rates == {"a": pytest.approx(6 / 8), "b": pytest.approx(1 + 3 / 8)}
    # a term that shrinks as they grow gives no rate
    shrinking = b - a // 8
    assert isinstance(shrinking, symshape.DimExpr)
    assert growth_rates(shrinking.terms) == {"b": 1}


def test_growth_rates_at_a_valuation_see_max_and_min() -> None:
    """Under ``c*max(D, 0)`` a variable's rate is ``c`` times its coefficient in
    ``D`` where ``D > 0``, none where ``D < 0``; at the kink ``D == 0`` only
    what raises the term counts (each argument of a min may go first)."""
    scope = SymbolicScope()
    m, f = scope.var("m"), scope.var("f")
    low = symshape.min_dim(m, f) - 4  # f - max(f - m, 0) - 4, or with m and f swapped
    assert isinstance(low, symshape.DimExpr)
    assert growth_rates_at(low.terms, {"m": 1, "f": 1}) == {"m": 1, "f": 1}  # the kink
    # off the kink, only the smaller argument raises the min
    assert {x: r for x, r in growth_rates_at(low.terms, {"m": 4, "f": 1}).items() if r} \
        == {"f": 1}
    assert {x: r for x, r in growth_rates_at(low.terms, {"m": 1, "f": 4}).items() if r} \
        == {"m": 1}
    high = symshape.max_dim(m, f) - 5
    assert isinstance(high, symshape.DimExpr)
    assert growth_rates_at(high.terms, {"m": 1, "f": 1}) == {"m": 1, "f": 1}
    # off the kink, only the larger argument raises the max
    assert {x: r for x, r in growth_rates_at(high.terms, {"m": 1, "f": 9}).items() if r} \
        == {"f": 1}
