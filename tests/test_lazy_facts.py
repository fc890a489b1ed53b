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

import symshape
from symshape import SymbolicScope, UnsatisfiableConstraintsError
from symshape.expr import value_at
from symshape.repair import fact_variables, growth_rates, have_own_variables, repaired_facts

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


@pytest.mark.parametrize("constraints, independent", [
    (["b >= 16"], True),
    (["a >= b + 8"], True),
    (["b - c >= 2", "d >= 3*c + floordiv(e, 4)"], True),
    (["b >= 16", "a >= b + 8"], False),  # b is raised by one fact, lowered by the other
    (["16 <= t <= 512"], False),
    (["mod(s, 128) == 0"], False),
    (["a*b >= 10"], False),
    (["a >= floordiv(a, 2) + 3"], False),  # a occurs in an atom too
    (["a >= b + 1", "b >= a - 5"], False),
])
def test_facts_with_a_variable_of_their_own(constraints: list[str], independent: bool) -> None:
    constraints, _ = fresh(constraints)
    facts = [f for f, _ in SymbolicScope(constraints).facts()]
    assert have_own_variables(facts) is independent


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.lists(st.integers(-3, 3), min_size=4, max_size=4),
                          st.integers(-40, 40)), min_size=1, max_size=4))
def test_facts_with_variables_of_their_own_hold_together(
        rows: list[tuple[list[int], int]]) -> None:
    """Where fact_variables says every fact has a variable of its own, raising
    that variable from all ones satisfies each fact (the argument the scope's
    satisfiability check skips its repair on)."""
    s = SymbolicScope()
    xs = [s.var(n) for n in ("p", "q", "r", "t")]
    facts = [sum((c * x for c, x in zip(coeffs, xs, strict=True)), start=0) + k
             for coeffs, k in rows]
    if not have_own_variables(facts):
        return
    names, _ = fact_variables(facts)
    env = dict.fromkeys(names, 1)
    for f in facts:
        if isinstance(f, int):
            assert f >= 0
            continue
        own = [m[0][0].name for m, c in f.terms.items() if len(m) == 1 and m[0][1] == 1
               and c > 0 and all(m[0][0].name not in g.free_vars for g in facts
                                 if g is not f and not isinstance(g, int))]
        assert own
        v = value_at(f, env, {})
        assert v is not None
        if v < 0:
            c = f.terms[next(m for m in f.terms if m and m[0][0].name == own[0])]
            env[own[0]] += -(v // c)
    assert all(value_at(f, env, {}) >= 0 for f in facts)  # type: ignore[operator]


def test_propagation_runs_once_when_threads_read_bounds_together() -> None:
    import threading
    cs, x = fresh(ML_CONSTRAINTS)
    s = SymbolicScope(cs)
    assert s._bounds_pending
    seen: list[int] = []
    barrier = threading.Barrier(4)

    def read() -> None:
        barrier.wait()
        seen.append(s.var_lower_bound("a" + x))
    threads = [threading.Thread(target=read) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
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
    assert growth_rates((b - a // 8).terms) == {"b": 1}


@pytest.mark.parametrize("constraints", [
    ["a >= b + 1", "b >= a + 1"],
    ["mod(s, 2) == 1", "mod(s, 4) == 0"],
    ["floordiv(s, 128) >= 2", "s <= 255"],
    ["a*b >= 10", "a <= 1", "b <= 9"],
    ["16 <= t <= 15"],
])
def test_contradictory_constraints_still_raise_when_the_scope_is_built(
        constraints: list[str]) -> None:
    with pytest.raises(UnsatisfiableConstraintsError):
        SymbolicScope(constraints)


def test_constraints_that_only_the_decision_procedure_sees_hold() -> None:
    # No variable raises c*d alone, and all ones and all twos fail: the
    # propagated bounds, then the decision procedure, find a valuation.
    s = SymbolicScope(["c*d >= 64", "c <= 8", "d <= 8"])
    assert s.var("c") * s.var("d") >= 64
