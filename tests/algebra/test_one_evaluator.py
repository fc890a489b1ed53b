"""One evaluator, one rule on a zero divisor, for every caller.

A floordiv whose divisor is 0 at a valuation is undefined there
(``symshape.algebra.poly``); ``evaluate_expr`` (and ``DimExpr.evaluate``)
raise ``ZeroDivisionError`` naming the atom, ``value_at`` gives None, and the
decision layer's points and pools give the atom the value 0.  At valuations
where every divisor is nonzero, all callers give the same value.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symshape
from symshape.algebra.atoms import atom_children, atom_mono
from symshape.algebra.floordiv import floordiv
from symshape.algebra.maxmin import max_expr
from symshape.algebra.poly import evaluate_expr, value_at
from symshape.decision.valuations import Point, Pool


def _exprs() -> tuple[dict[str, object], symshape.DimExpr, symshape.DimExpr]:
    a, b, c = symshape.symbolic_shape("a, b, c", constraints=["a >= 3"])
    q = floordiv(b, a - 2)  # a valid divisor in the scope, 0 at a = 2
    return {"a": a, "b": b, "c": c}, q + 5, max_expr(q * c - 4, c) + 1


AT_ZERO = {"a": 2, "b": 7, "c": 3}
DEFINED = [{"a": 3, "b": 7, "c": 3}, {"a": 5, "b": 20, "c": 2}, {"a": 9, "b": 1, "c": 4}]


def test_evaluate_expr_raises_naming_the_atom() -> None:
    _, e, nested = _exprs()
    for x in (e, nested):
        with pytest.raises(ZeroDivisionError, match=r"floordiv\(b, a - 2\).*divisor is 0"):
            evaluate_expr(x, AT_ZERO)
        with pytest.raises(ZeroDivisionError, match="divisor is 0"):
            x.evaluate(AT_ZERO)


def test_value_at_gives_none() -> None:
    _, e, nested = _exprs()
    assert value_at(e, AT_ZERO, {}) is None
    assert value_at(nested, AT_ZERO, {}) is None  # (undefined below a max: still None)


def test_decision_points_and_pools_give_the_atom_zero() -> None:
    _, e, nested = _exprs()
    # the floordiv is worth 0: e = 0 + 5, nested = max(0*3 - 4, 3) + 1
    assert Point(dict(AT_ZERO), 0, atom_children).poly(e.terms) == 5
    assert Point(dict(AT_ZERO), 0, None).poly(nested.terms) == 4
    fd = next(iter(a for m in e.terms for a, _ in m))
    assert Point(dict(AT_ZERO), 0, atom_children).poly({atom_mono(fd): 1}) == 0
    pool = Pool([Point(dict(AT_ZERO), 0, atom_children), Point(dict(DEFINED[0]), 1, atom_children)],
                atom_children)
    assert pool.values(e.terms) == [5, 7 + 5]
    assert pool.values(nested.terms) == [4, max(7 * 3 - 4, 3) + 1]


def test_numpy_grids_give_zero_where_undefined() -> None:
    _, e, _ = _exprs()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = e.evaluate({"a": np.array([2, 3]), "b": np.array([7, 7]), "c": np.array([3, 3])})
    assert got.tolist() == [5, 12]


@pytest.mark.parametrize("env", DEFINED)
def test_every_caller_agrees_where_defined(env: dict[str, int]) -> None:
    _, e, nested = _exprs()
    for x in (e, nested):
        want = evaluate_expr(x, env)
        assert x.evaluate(env) == want
        assert value_at(x, env, {}) == want
        assert Point(dict(env), 0, atom_children).poly(x.terms) == want
        arrays = {k: np.array([v, v]) for k, v in env.items()}
        assert x.evaluate(arrays).tolist() == [want, want]
        pts = [Point(dict(env), i, atom_children) for i in range(3)]
        assert Pool(pts, atom_children).values(x.terms) == [want] * 3
