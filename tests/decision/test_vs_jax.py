"""Differential tests against JAX's own symbolic shapes (jax is in the test extra).

* every spec JAX parses, symshape parses to an expression with the same values;
* every comparison JAX decides, symshape decides the same way (a superset).

Each property counts what it really compared: a spec JAX rejects, or a
comparison JAX cannot decide, is counted as skipped, and the test fails if too
few cases were compared or too many were skipped (a run that silently compares
nothing cannot pass).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.exprgen import Tree, evaluate, trees, valuations

import symshape
from symshape import DimExpr, InconclusiveDimensionOperation, SymbolicScope

jax_export = pytest.importorskip("jax.export")
jax_errors = pytest.importorskip("jax.errors")

NAMES = ("a", "b", "c")
N_EXAMPLES = 250
SETTINGS = settings(max_examples=N_EXAMPLES, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
# What JAX raises when it rejects a spec: a syntax error is a ValueError, and a
# spec whose canonical form needs a decision JAX cannot make raises its
# InconclusiveDimensionOperation.  Anything else is a failure of the test.
JAX_REJECTS: tuple[type[Exception], ...] = (ValueError, jax_errors.InconclusiveDimensionOperation)


def jax_render(t: Tree, prec: int = 0) -> str:
    """Text of ``t`` in the syntax both libraries parse.  JAX's spec parser has
    no parentheses (``2*(a + b)`` is a syntax error), so a sum that is an
    operand of a product or of a subtraction is grouped as ``floordiv(x, 1)``,
    which has the same value.  ``prec``: 0 for an argument or the whole spec,
    1 for the right operand of ``-``, 2 for an operand of ``*``."""
    kind = t[0]
    if kind == "var":
        return str(t[1])
    if kind == "int":
        return str(t[1])
    if kind in ("add", "sub"):
        sym = "+" if kind == "add" else "-"
        text = f"{jax_render(t[1], 0)} {sym} {jax_render(t[2], 1)}"
        return text if prec == 0 else f"floordiv({text}, 1)"
    if kind == "mul":
        return f"{jax_render(t[1], 2)}*{jax_render(t[2], 2)}"
    return f"{kind}({jax_render(t[1])}, {jax_render(t[2])})"


def _jax_value(e: Any, env: dict[str, int]) -> int:
    if isinstance(e, int):
        return e
    return int(e._evaluate(env))


def _ours_value(e: DimExpr | int, env: dict[str, int]) -> int:
    return e.evaluate(env) if isinstance(e, DimExpr) else e


def test_specs_jax_accepts_parse_to_equal_values() -> None:
    counts: Counter[str] = Counter()

    @SETTINGS
    @given(trees(NAMES, symbolic_divisors=False),
           st.lists(valuations(NAMES), min_size=3, max_size=3))
    def check(tree: tuple, envs: list[dict[str, int]]) -> None:
        counts["drawn"] += 1
        text = jax_render(tree)
        try:
            (jx,) = jax_export.symbolic_shape(text)
        except JAX_REJECTS:  # JAX rejects some specs (by its own decisions)
            counts["rejected by jax"] += 1
            return
        (ours,) = symshape.symbolic_shape(text)
        for env in envs:
            want = evaluate(tree, env)
            assert _ours_value(ours, env) == want, (text, env)
            assert _jax_value(jx, env) == want, (text, env)
            counts["values compared"] += 1
        counts["specs compared"] += 1

    check()
    assert counts["drawn"] >= N_EXAMPLES, counts
    # measured: JAX parses every spec of jax_render (250 of 250)
    assert counts["rejected by jax"] <= 0.02 * counts["drawn"], counts
    assert counts["specs compared"] >= 0.98 * N_EXAMPLES, counts
    assert counts["values compared"] == 3 * counts["specs compared"], counts


JAX_SPECS = [
    "a, b, max(a, b), min(max(a, b), b), floordiv(a, 2), mod(b, floordiv(a, 2))",
    "a + 2*b - 3, a*b, a^2, b^3", "-a + 5", "floordiv(a, 2), mod(a, 3), floordiv(2*a, 4)",
    "max(a, 3), min(a, b + 1)", "(a)", "a, ", "floordiv(-a, 4)",
]


@pytest.mark.parametrize("spec", JAX_SPECS)
def test_jax_spec_examples(spec: str) -> None:
    jx = jax_export.symbolic_shape(spec)
    ours = symshape.symbolic_shape(spec)
    assert len(jx) == len(ours) >= 1
    compared = 0
    for env in ({"a": 2, "b": 1}, {"a": 7, "b": 3}, {"a": 12, "b": 40}):
        for j, o in zip(jx, ours, strict=True):
            assert _jax_value(j, env) == _ours_value(o, env), (spec, env)
            compared += 1
    assert compared == 3 * len(jx)


def _decide(fn: Any) -> bool | None:
    """True/False, or None when the library says it cannot decide."""
    try:
        return bool(fn())
    except (InconclusiveDimensionOperation, jax_errors.InconclusiveDimensionOperation):
        return None


# The four comparisons asked of each pair (JAX decides == structurally, so it
# is left out: JAX's False for == only means "not the same expression").
_COMPARISONS = {">=": lambda x, y: x >= y, ">": lambda x, y: x > y,
                "<=": lambda x, y: x <= y, "<": lambda x, y: x < y}


def test_symshape_decides_whatever_jax_decides() -> None:
    counts: Counter[str] = Counter()

    @SETTINGS
    @given(trees(NAMES, max_leaves=6, symbolic_divisors=False),
           trees(NAMES, max_leaves=4, symbolic_divisors=False))
    def check(t1: tuple, t2: tuple) -> None:
        counts["drawn"] += 1
        text = f"{jax_render(t1)}, {jax_render(t2)}"
        try:
            jx, jy = jax_export.symbolic_shape(text)
        except JAX_REJECTS:
            counts["rejected by jax"] += 1
            return
        scope = SymbolicScope()
        x, y = symshape.symbolic_shape(text, scope=scope)
        for op, cmp in _COMPARISONS.items():
            theirs = _decide(lambda cmp=cmp: cmp(jx, jy))
            ours = _decide(lambda cmp=cmp: cmp(x, y))
            if theirs is None:
                counts["jax undecided"] += 1
                counts["symshape decided where jax did not"] += ours is not None
                continue
            assert ours == theirs, (text, op, theirs, ours)
            counts["answers compared"] += 1
            counts["answers compared true"] += theirs

    check()
    asked = 4 * (counts["drawn"] - counts["rejected by jax"])
    assert counts["drawn"] >= N_EXAMPLES, counts
    assert counts["rejected by jax"] <= 0.02 * counts["drawn"], counts
    assert counts["answers compared"] + counts["jax undecided"] == asked, counts
    # measured: JAX decides 632 of 1000 comparisons (316 true), and symshape
    # decides 160 of the 368 that JAX cannot
    assert counts["answers compared"] >= 0.5 * asked, counts
    assert counts["symshape decided where jax did not"] >= 0.2 * counts["jax undecided"], counts
    assert counts["answers compared true"] >= 0.1 * counts["answers compared"], counts
    assert counts["answers compared true"] <= 0.9 * counts["answers compared"], counts
