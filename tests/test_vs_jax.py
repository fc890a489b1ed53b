"""Differential tests against JAX's own symbolic shapes (jax is in the test extra).

* every spec JAX parses, symshape parses to an expression with the same values;
* every comparison JAX decides, symshape decides the same way (a superset).
"""

from __future__ import annotations

from typing import Any

import pytest
from exprgen import evaluate, render, trees, valuations
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import symshape
from symshape import DimExpr, InconclusiveDimensionOperation, SymbolicScope

jax_export = pytest.importorskip("jax.export")

NAMES = ("a", "b", "c")
SETTINGS = settings(max_examples=250, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def _jax_value(e: Any, env: dict[str, int]) -> int:
    if isinstance(e, int):
        return e
    return int(e._evaluate(env))


def _ours_value(e: DimExpr | int, env: dict[str, int]) -> int:
    return e.evaluate(env) if isinstance(e, DimExpr) else e


@SETTINGS
@given(trees(NAMES, symbolic_divisors=False), st.lists(valuations(NAMES), min_size=3,
                                                       max_size=3))
def test_specs_jax_accepts_parse_to_equal_values(tree: tuple, envs: list[dict[str, int]]) -> None:
    text = render(tree)
    try:
        (jx,) = jax_export.symbolic_shape(text)
    except Exception:  # JAX rejects some specs (e.g. by its own decisions); skip those
        return
    (ours,) = symshape.symbolic_shape(text)
    for env in envs:
        want = evaluate(tree, env)
        assert _ours_value(ours, env) == want
        assert _jax_value(jx, env) == want


JAX_SPECS = [
    "a, b, max(a, b), min(max(a, b), b), floordiv(a, 2), mod(b, floordiv(a, 2))",
    "a + 2*b - 3, a*b, a^2, b^3", "-a + 5", "floordiv(a, 2), mod(a, 3), floordiv(2*a, 4)",
    "max(a, 3), min(a, b + 1)", "(a)", "a, ", "floordiv(-a, 4)",
]


@pytest.mark.parametrize("spec", JAX_SPECS)
def test_jax_spec_examples(spec: str) -> None:
    jx = jax_export.symbolic_shape(spec)
    ours = symshape.symbolic_shape(spec)
    assert len(jx) == len(ours)
    for env in ({"a": 2, "b": 1}, {"a": 7, "b": 3}, {"a": 12, "b": 40}):
        for j, o in zip(jx, ours, strict=True):
            assert _jax_value(j, env) == _ours_value(o, env)


def _decide(fn: Any) -> bool | None:
    try:
        return bool(fn())
    except InconclusiveDimensionOperation:
        return None
    except Exception as err:  # JAX raises its own InconclusiveDimensionOperation
        if "nconclusive" in type(err).__name__:
            return None
        raise


@SETTINGS
@given(trees(NAMES, max_leaves=6, symbolic_divisors=False),
       trees(NAMES, max_leaves=4, symbolic_divisors=False))
def test_symshape_decides_whatever_jax_decides(t1: tuple, t2: tuple) -> None:
    text = f"{render(t1)}, {render(t2)}"
    try:
        jx, jy = jax_export.symbolic_shape(text)
    except Exception:
        return
    scope = SymbolicScope()
    x, y = symshape.symbolic_shape(text, scope=scope)
    theirs = _decide(lambda: jx >= jy)
    ours = _decide(lambda: x >= y)
    if theirs is not None:
        assert ours == theirs, (text, theirs, ours)
