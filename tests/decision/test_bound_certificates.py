"""Bounds that interval propagation gives monomials, written as facts by
replaying its steps (``Linearizer.propagated``): each is a combination of
the scope's facts and axioms that the certificate checker accepts, holds at
every valuation, and costs no search."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.exprgen import render, trees

import symshape
from symshape import SymbolicScope
from symshape.decision import poly as P
from symshape.decision.certificate import _Checker
from symshape.decision.engine import Decider
from symshape.decision.valuations import Point
from symshape.errors import SymshapeError

NAMES = ("a", "b", "c", "d")


def propagated(scope: SymbolicScope) -> dict[Any, Any]:
    d = scope.decider()
    assert d is not None
    return d.lin.propagated()


def test_the_bounds_of_typical_constraints_are_combinations(
        monkeypatch: pytest.MonkeyPatch) -> None:
    s = SymbolicScope(["t >= h + 16", "floordiv(b, 8) >= 1", "min(s, w) >= 4", "k <= 100",
                       "j >= k + 2"])
    facts = propagated(s)
    bounds = {}
    for (m, side), f in facts.items():
        _Checker(s).fact(f, frozenset())  # raises on an invalid derivation
        name = str(P.to_text({m: 1}, s))
        bounds[name, side] = -P.constant(f.poly) if side == 0 else P.constant(f.poly)
    assert bounds[("t", 0)] == 17 and bounds[("b", 0)] == 8
    assert bounds[("s", 0)] == 4 and bounds[("w", 0)] == 4
    assert bounds[("k", 1)] == 100 and bounds[("j", 0)] == 3
    lemmas: list[Any] = []
    lemma = Decider._lemma
    monkeypatch.setattr(Decider, "_lemma",
                        lambda self, *a: lemmas.append(a) or lemma(self, *a))
    v = symshape.prove("b + t + s >= 29", constraints=["t >= h + 16", "floordiv(b, 8) >= 1",
                                                       "min(s, w) >= 4"])
    assert v.status is symshape.Status.PROVED
    assert lemmas == []


constraint_texts = st.one_of(
    st.tuples(trees(NAMES, max_leaves=4), st.sampled_from((">=", "<=")),
              trees(NAMES, max_leaves=3)).map(lambda t: f"{render(t[0])} {t[1]} {render(t[2])}"),
    st.tuples(st.sampled_from(NAMES), st.integers(2, 6)).map(
        lambda t: f"mod({t[0]}, {t[1]}) == 0"),
    st.tuples(st.sampled_from(NAMES), st.integers(1, 5), st.sampled_from(NAMES),
              st.integers(-3, 6)).map(lambda t: f"{t[0]} >= {t[1]}*{t[2]} + {t[3]}"),
    st.tuples(st.integers(1, 5), st.sampled_from(NAMES), st.integers(5, 9)).map(
        lambda t: f"{t[0]} <= {t[1]} <= {t[2]}"),
)


@settings(max_examples=250, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(constraint_texts, min_size=1, max_size=4))
def test_every_propagated_bound_is_checked_and_true(constraints: list[str]) -> None:
    try:
        s = SymbolicScope(constraints)
    except SymshapeError:
        return
    facts = propagated(s)
    checks = [P.from_expr(f) for f, _ in s.facts() if not isinstance(f, int)]
    for f in facts.values():
        _Checker(s).fact(f, frozenset())
    for vals in itertools.product(range(1, 8), repeat=len(NAMES)):
        pt = Point(dict(zip(NAMES, vals, strict=True)), 0, None)
        if all(pt.poly(c) >= 0 for c in checks):
            for key, f in facts.items():
                assert pt.poly(f.poly) >= 0, (constraints, key, vals)


def test_plain_lemmas_about_one_variable_need_no_search() -> None:
    from symshape.algebra.atoms import atom_mono, make_var
    from symshape.decision.engine import _MISSING
    s = SymbolicScope(["a <= 100"])
    d = s.decider()
    assert d is not None
    a, b = atom_mono(make_var("a")), atom_mono(make_var("b"))
    f = d._variable_lemma({b: 4, P.ONE: -4})  # 4*b - 4 >= 0: the axiom b >= 1, times 4
    assert f is not None and f.poly == {b: 4, P.ONE: -4}
    _Checker(s).fact(f, frozenset())
    assert d._variable_lemma({b: -1, P.ONE: 650}) is None  # b is in no fact: no upper bound
    assert d._variable_lemma({b: 1, P.ONE: -2}) is None  # nor a lower bound above 1
    # the bound propagation gave a (a <= 100) shows 2*a <= 1300 without a search
    g = d._variable_lemma({a: -2, P.ONE: 1300})
    assert g is not None and g is not _MISSING and g.poly == {a: -2, P.ONE: 1300}
    _Checker(s).fact(g, frozenset())
    assert d._variable_lemma({a: -1, P.ONE: 50}) is _MISSING  # not implied by it: search
    assert d._variable_lemma({a: 1, b: 1}) is _MISSING


def test_bounds_of_a_quotient_follow_from_its_numerator_without_a_search() -> None:
    from symshape.decision.engine import _MISSING
    from symshape.shapes import parse_expr_in_scope
    s = SymbolicScope(["c <= 1000"])
    d = s.decider()
    assert d is not None
    q = parse_expr_in_scope("floordiv(c + 9, 128)", s)
    assert isinstance(q, symshape.DimExpr)
    (m,) = q.terms
    for target in ({m: 1}, {m: -1, P.ONE: 7}, {m: -3, P.ONE: 21}):  # 0 <= q <= 7
        f = d._variable_lemma(target)
        assert f is not None and f is not _MISSING and f.poly == target, target
        _Checker(s).fact(f, frozenset())
    assert d._variable_lemma({m: -1, P.ONE: 6}) is _MISSING  # q <= 6 does not follow


def test_a_bound_replays_only_the_steps_it_needs() -> None:
    """A query asks for a few bounds: only their steps, and the earlier steps
    those use, are replayed; the fact is the one a full replay gives."""
    from symshape.algebra.atoms import atom_mono, make_var
    texts = ["t >= h + 16", "k <= 100", "j >= k + 2", "b >= 8", "c >= b + 1", "e >= c + 3"]
    s = SymbolicScope(texts)
    d = s.decider()
    assert d is not None
    f = d.lin.propagated_fact(atom_mono(make_var("t")), 0)
    assert f is not None and -P.constant(f.poly) == 17
    assert 0 < len(d.lin._step_facts) < len(s.bound_steps)
    e = d.lin.propagated_fact(atom_mono(make_var("e")), 0)
    assert e is not None and -P.constant(e.poly) == 12  # through c >= 9 and b >= 8
    full = propagated(SymbolicScope(texts))
    names = {str(P.to_text({m: 1}, s)): (m, side) for m, side in full}
    assert str(f) == str(full[names["t"]]) and str(e) == str(full[names["e"]])


def test_bounds_of_a_scaled_atom_are_its_own_bounds_times_the_coefficient(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A cofactor such as ``2*s`` in ``h*(2*s)`` takes its bounds from the
    atom's bound facts, scaled (the sides swap for a negative coefficient),
    without a lemma search; and the claim with that product is still refuted."""
    from symshape.algebra.atoms import atom_mono, make_var
    s = SymbolicScope(["s <= 2048", "t >= 4"])
    d = s.decider()
    assert d is not None
    searches: list[Any] = []
    prove_lemma = d.lin.prove_lemma
    monkeypatch.setattr(d.lin, "prove_lemma",
                        lambda *a: searches.append(a) or prove_lemma(*a))
    sm, tm = atom_mono(make_var("s")), atom_mono(make_var("t"))
    expected = {  # (coefficient, atom): (lower bound, upper bound) of c*atom
        (2, sm): (2, 4096), (-3, sm): (-6144, -3), (5, tm): (20, None), (-1, tm): (None, -4)}
    for (c, m), (lo, hi) in expected.items():
        low, up = d.lin.poly_bounds({m: c})
        if lo is None:
            assert low is None
        else:
            assert low is not None and low.poly == {m: c, P.ONE: -lo}
            _Checker(s).fact(low, frozenset())
        if hi is None:
            assert up is None
        else:
            assert up is not None and up.poly == {m: -c, P.ONE: hi}
            _Checker(s).fact(up, frozenset())
    assert searches == []
    v = symshape.prove("-2*h*s + s >= 18", constraints=["s + b <= 2048", "min(d, b) >= 4"])
    assert v.status is symshape.Status.REFUTED
