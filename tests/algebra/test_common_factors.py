"""Canonical forms that divide out common positive factors, and residues of
polynomials (``symshape.algebra.factor``), against evaluation."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.exprgen import Tree, build, evaluate, polynomial_trees, render, valuations

from symshape import SymbolicScope, symbolic_shape
from symshape.algebra.factor import RESIDUE_WORK, constant_residue
from symshape.algebra.floordiv import floordiv, mod
from symshape.algebra.maxmin import max_expr, min_expr

SETTINGS = settings(max_examples=150, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

EQUAL = [
    ("floordiv(b*s, 128*b)", "floordiv(s, 128)"),
    ("mod(b*s, 128*b)", "b*mod(s, 128)"),
    ("floordiv(p*q, p*r)", "floordiv(q, r)"),
    ("floordiv(p^2*q + p, p*r)", "floordiv(p*q + 1, r)"),
    ("k*max(p, q)", "max(k*p, k*q)"),
    ("k*min(p, q)", "min(k*p, k*q)"),
    ("a*b*max(c, 3)", "max(a*b*c, 3*a*b)"),
    ("mod(n^2 + n, 2)", "0"),
    ("mod(n^3 - n, 3)", "0"),
    ("mod(n*(n + 1)*(n + 2), 6)", "0"),
    ("mod(n^2 + n + 1, 2)", "1"),
    ("mod(4*a^2 + 4*a + 3, 8)", "3"),
]


@pytest.mark.parametrize("lhs, rhs", EQUAL)
def test_common_factors_cancel_in_canonical_forms(lhs: str, rhs: str) -> None:
    x, y = symbolic_shape(f"{lhs}, {rhs}")
    assert x == y, (str(x), str(y))
    assert str(x) == str(y)


def test_the_batched_reshape_quotient_is_the_unbatched_one() -> None:
    b, s = symbolic_shape("b, s", constraints=["mod(s, 128) == 0"])
    assert str(floordiv(b * s, 128 * b)) == "floordiv(s, 128)"
    assert mod(b * s, 128 * b) == 0


def test_factors_that_may_be_zero_are_not_cancelled() -> None:
    """``max(a - 2, 0)`` may be 0: it is no common factor of a quotient."""
    scope = SymbolicScope(["c >= 1"])
    a, c = symbolic_shape("a, c", scope=scope)
    m = max_expr(a - 2, 0)
    e = mod(m * c, m * c + 1)
    assert "max" in str(e)


def _residues_brute_force(tree: Tree, names: tuple[str, ...], k: int) -> set[int]:
    # A polynomial's residue depends only on its variables' residues; the
    # variables are >= 1, so 1..k covers every residue class.
    return {evaluate(tree, dict(zip(names, vs, strict=True))) % k
            for vs in itertools.product(range(1, k + 1), repeat=len(names))}


@SETTINGS
@given(tree=polynomial_trees(("a", "b"), max_leaves=6), k=st.integers(2, 9))
def test_constant_residue_agrees_with_brute_force(tree: Tree, k: int) -> None:
    scope = SymbolicScope()
    e = build(tree, scope)
    if isinstance(e, int):
        return
    r = constant_residue(e.terms, k)
    seen = _residues_brute_force(tree, ("a", "b"), k)
    if r is not None:
        assert seen == {r}, (render(tree), k, r, seen)
    elif k ** len({a for m in e.terms for a, _ in m}) <= RESIDUE_WORK and any(
            sum(e_ for _, e_ in m) >= 2 for m in e.terms):
        assert len(seen) > 1, (render(tree), k)  # complete within its work cap


@SETTINGS
@given(a=polynomial_trees(("a", "b"), max_leaves=4), b=polynomial_trees(("a", "b"), max_leaves=3),
       g=st.sampled_from(["a", "b", "a*b", "a^2", "c", "a*c"]), env=valuations(("a", "b", "c")))
def test_cancelled_quotients_and_maxima_evaluate_as_python_does(
        a: Tree, b: Tree, g: str, env: dict[str, int]) -> None:
    scope = SymbolicScope()
    x, y = build(a, scope), build(b, scope)
    gx, = symbolic_shape(g, scope=scope)
    gv = gx.evaluate(env)
    xv, yv = evaluate(a, env), evaluate(b, env)
    assert max_expr(gx * x, gx * y) == gx * max_expr(x, y)
    v = max_expr(gx * x, gx * y)
    assert (v if isinstance(v, int) else v.evaluate(env)) == max(gv * xv, gv * yv)
    v = min_expr(gx * x, gx * y)
    assert (v if isinstance(v, int) else v.evaluate(env)) == min(gv * xv, gv * yv)
    if yv >= 1 and not isinstance(y, int) and scope.sign(y) > 0:
        q = floordiv(gx * x, gx * y)
        assert (q if isinstance(q, int) else q.evaluate(env)) == (gv * xv) // (gv * yv)
        r = mod(gx * x, gx * y)
        assert (r if isinstance(r, int) else r.evaluate(env)) == (gv * xv) % (gv * yv)
