"""Scopes built from constraint texts seen before copy the facts the first
scope derived (``symshape.scope._TEMPLATES``).  A copy must be
indistinguishable from a scope that derived everything itself: the same
normalized constraints, rules, bounds and answers, expressions of its own
(never shared with another scope), and no user scope kept alive by the table.
"""

from __future__ import annotations

import gc
import weakref
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.exprgen import Tree, build, render, trees

import symshape
from symshape import InconclusiveDimensionOperation, SymbolicScope
from symshape import scope as scope_module
from symshape.algebra.dimexpr import DimExpr
from symshape.errors import SymshapeError

NAMES = ("a", "b", "c", "d")

constraint_texts = st.one_of(
    st.tuples(trees(NAMES, max_leaves=4), st.sampled_from((">=", "<=", ">")),
              trees(NAMES, max_leaves=3)).map(lambda t: f"{render(t[0])} {t[1]} {render(t[2])}"),
    st.tuples(st.sampled_from(NAMES), st.integers(2, 16)).map(
        lambda t: f"mod({t[0]}, {t[1]}) == 0"),
    st.tuples(st.sampled_from(NAMES), trees(NAMES, max_leaves=3)).map(
        lambda t: f"{t[0]} == {render(t[1])}"),
    st.tuples(st.integers(1, 9), st.sampled_from(NAMES), st.integers(10, 99)).map(
        lambda t: f"{t[0]} <= {t[1]} <= {t[2]}"),
)
questions = st.tuples(st.sampled_from((">=", "<", "==")), trees(NAMES, max_leaves=5),
                      trees(NAMES, max_leaves=3))


def build_scope(constraints: tuple[str, ...]) -> SymbolicScope | str:
    try:
        return SymbolicScope(constraints)
    except SymshapeError as err:
        return type(err).__name__


def facts_of(s: SymbolicScope) -> Any:
    """What a scope derived from its constraints, as comparable text."""
    return ([str(c) for c in s.constraints], [(str(e), why) for e, why in s.implicit_facts],
            sorted((str(m), k, str(e)) for m, (k, e) in s.rewrite_rules.items()),
            sorted((n, str(e)) for n, e in s.variable_rules.items()),
            [(n, s.var_lower_bound(n), s.var_upper_bound(n)) for n in NAMES])


def answer(q: tuple[str, Tree, Tree], s: SymbolicScope) -> Any:
    op, lt, rt = q
    try:
        x, y = build(lt, s), build(rt, s)
    except SymshapeError as err:
        return type(err).__name__
    try:
        cmp = str(x >= y if op == ">=" else x < y if op == "<" else x == y)
    except InconclusiveDimensionOperation:
        cmp = "inconclusive"
    v = symshape.prove(f"{render(lt)} {op} {render(rt)}", scope=s)
    return (str(x), str(y), cmp, v.status.value, v.counterexample, v.witness,
            symshape.bounds(x - y))


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(constraint_texts, min_size=1, max_size=4).map(tuple),
       st.lists(questions, min_size=1, max_size=3))
def test_a_copied_scope_answers_as_a_scope_built_from_scratch(
        constraints: tuple[str, ...], qs: list[tuple[str, Tree, Tree]]) -> None:
    clear_templates()
    build_scope(constraints)  # the first sight: derives everything, keeps no template
    assert constraints not in scope_module._TEMPLATES
    second = build_scope(constraints)  # derives everything again, then keeps a template
    if isinstance(second, str):
        assert constraints not in scope_module._TEMPLATES
        assert build_scope(constraints) == second  # the same error again
        return
    # (texts that are all trivially true leave nothing to copy)
    assert (constraints in scope_module._TEMPLATES) == bool(second.constraints)
    copied = build_scope(constraints)
    assert isinstance(copied, SymbolicScope) and copied is not second
    copied_answers = [answer(q, copied) for q in qs]  # the copy derives the shared pool
    clear_templates()
    scratch = build_scope(constraints)  # shares nothing with the copy
    assert isinstance(scratch, SymbolicScope)
    assert scratch.shared_derivations is not copied.shared_derivations
    assert facts_of(copied) == facts_of(scratch)
    for q, got in zip(qs, copied_answers, strict=True):
        assert got == answer(q, scratch), q
    assert facts_of(second) == facts_of(scratch)


def clear_templates() -> None:
    scope_module._TEMPLATES.clear()
    scope_module._SEEN_ONCE.clear()


def test_a_copy_has_expressions_of_its_own() -> None:
    scope_module._TEMPLATES.clear()
    cs = ("mod(s, 128) == 0", "t >= s + 8", "max(h, w) <= 4096")
    first, _second = SymbolicScope(cs), SymbolicScope(cs)  # the second keeps a template
    assert cs in scope_module._TEMPLATES
    copy = SymbolicScope(cs)
    for c1, c2 in zip(first.constraints, copy.constraints, strict=True):
        assert str(c1) == str(c2)
        assert isinstance(c1.diff, DimExpr) and isinstance(c2.diff, DimExpr)
        assert c2.diff.scope is copy and c1.diff.scope is first
        # the sides are copied on first use, into the copy as well
        for side in (c2.lhs, c2.rhs):
            assert not isinstance(side, DimExpr) or side.scope is copy
        assert (str(c2.lhs), str(c2.rhs)) == (str(c1.lhs), str(c1.rhs))
    s1, = first.symbolic_shape("s")
    s2, = copy.symbolic_shape("s")
    assert s1 % 128 == 0 and s2 % 128 == 0  # the rewrite rule holds in the copy
    assert str(copy.symbolic_shape("max(h, w)")[0]) == str(first.symbolic_shape("max(h, w)")[0])
    with pytest.raises(SymshapeError):
        _ = s1 + s2  # two scopes never mix


def test_copies_share_the_valuation_pool() -> None:
    # The pool depends on the texts alone: scopes built from them share its
    # points, which name no atom (no scope is kept alive through them).
    clear_templates()
    cs = ("mod(s, 128) == 0", "t >= s + 8")
    scopes = [SymbolicScope(cs) for _ in range(4)]
    # Sign witnesses show the claim inconclusive: no valuation of the pool is
    # built until its evidence is read, which starts at the pool's first points.
    assert symshape.prove("t >= s + 9", scope=scopes[0]).status == symshape.Status.INCONCLUSIVE
    assert "prefix" not in scopes[0].shared_derivations
    for sc in scopes:
        verdict = symshape.prove("t >= s + 9", scope=sc)
        assert verdict.status == symshape.Status.INCONCLUSIVE
        assert verdict.counterexample is not None
    # (the counterexample starts at the pool's first points: the rest of the
    # pool is built when a question needs it, and shared as well)
    firsts = [sc.shared_derivations["prefix"] for sc in scopes[1:]]
    assert firsts[0] is firsts[1] is firsts[2] and firsts[0]
    assert "pool" not in scopes[1].shared_derivations
    for sc in scopes[1:]:
        decider = sc.decider()
        assert decider is not None
        decider.pool.get_pool()
    pools = [sc.shared_derivations["pool"] for sc in scopes[1:]]
    assert pools[0] is pools[1] is pools[2] and len(pools[0]) >= 10
    for points in (firsts[0], pools[0]):
        assert all(pt.memo is None for pt in points)
        assert all(pt.env["s"] % 128 == 0 and pt.env["t"] >= pt.env["s"] + 8 for pt in points)


def test_the_template_table_keeps_no_user_scope_alive_and_is_bounded() -> None:
    n = scope_module._TEMPLATES_MAX
    texts = [(f"a >= {k}", f"mod(b, {k + 1}) == 0") for k in range(2, 2 + n + 5)]
    refs = [weakref.ref(SymbolicScope(cs)) for cs in texts for _ in range(2)]
    gc.collect()
    assert all(r() is None for r in refs)
    assert len(scope_module._TEMPLATES) <= n
    assert texts[-1] in scope_module._TEMPLATES and texts[0] not in scope_module._TEMPLATES


def test_unsatisfiable_texts_raise_every_time() -> None:
    cs = ("a >= 5", "a <= 3")
    for _ in range(2):
        with pytest.raises(symshape.UnsatisfiableConstraintsError):
            SymbolicScope(cs)
    assert cs not in scope_module._TEMPLATES


def test_a_template_is_small() -> None:
    """docs/decision.md: about 11 KB per list of 6 constraints (256 lists kept)."""
    import tracemalloc
    clear_templates()
    lists = [(f"b >= {k}", f"mod(s, {k}) == 0", "a >= b + 8", "max(h, w) <= 4096",
              "2*h + 1 <= 1024", "c <= 1000") for k in range(2, 42)]
    for cs in lists:
        SymbolicScope(cs)  # first sight: no template
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for cs in lists:
            SymbolicScope(cs)  # second sight: keeps a template
        gc.collect()
        per_template = (tracemalloc.get_traced_memory()[0] - before) / len(lists)
    finally:
        tracemalloc.stop()
    assert all(cs in scope_module._TEMPLATES for cs in lists)
    assert per_template < 16_000, per_template
