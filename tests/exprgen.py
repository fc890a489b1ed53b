"""Hypothesis strategies for random dimension-expression trees (shared by tests).

A tree is a nested tuple: ``("var", name)``, ``("int", n)`` or ``(op, x, y)``
with ``op`` in ``add sub mul floordiv mod max min``.  Divisors are positive
constants, variables, or variables plus a positive constant, so every tree is
defined for every valuation with variables >= 1.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

import symshape
from symshape.expr import floordiv, max_expr, min_expr, mod

Tree = tuple[Any, ...]
VARS = ("a", "b", "c", "d")


def divisors(names: tuple[str, ...]) -> st.SearchStrategy[Tree]:
    """Divisors that are >= 1 for every valuation."""
    return st.one_of(
        st.integers(1, 9).map(lambda k: ("int", k)),
        st.sampled_from(names).map(lambda v: ("var", v)),
        st.tuples(st.sampled_from(names), st.integers(1, 3)).map(
            lambda t: ("add", ("var", t[0]), ("int", t[1]))),
    )


def trees(names: tuple[str, ...] = VARS, max_leaves: int = 8,
          symbolic_divisors: bool = True) -> st.SearchStrategy[Tree]:
    """Random expression trees over ``names``."""
    leaves = st.one_of(
        st.sampled_from(names).map(lambda v: ("var", v)),
        st.integers(-6, 6).map(lambda n: ("int", n)),
    )
    divs = divisors(names) if symbolic_divisors else st.integers(1, 9).map(lambda k: ("int", k))

    def extend(children: st.SearchStrategy[Tree]) -> st.SearchStrategy[Tree]:
        return st.one_of(
            st.tuples(st.sampled_from(("add", "sub", "mul", "max", "min")), children, children),
            st.tuples(st.sampled_from(("floordiv", "mod")), children, divs),
        )

    return st.recursive(leaves, extend, max_leaves=max_leaves)


def evaluate(t: Tree, env: dict[str, int]) -> int:
    """Direct evaluation with Python semantics."""
    kind = t[0]
    if kind == "var":
        return env[t[1]]
    if kind == "int":
        return int(t[1])
    x, y = evaluate(t[1], env), evaluate(t[2], env)
    if kind == "add":
        return x + y
    if kind == "sub":
        return x - y
    if kind == "mul":
        return x * y
    if kind == "floordiv":
        return x // y
    if kind == "mod":
        return x % y
    if kind == "max":
        return max(x, y)
    assert kind == "min"
    return min(x, y)


_OPS = {
    "add": lambda x, y: x + y,
    "sub": lambda x, y: x - y,
    "mul": lambda x, y: x * y,
    "floordiv": floordiv,
    "mod": mod,
    "max": max_expr,
    "min": min_expr,
}


def build(t: Tree, scope: symshape.SymbolicScope) -> Any:
    """Build the symshape expression of ``t`` with the operator API."""
    kind = t[0]
    if kind == "var":
        return scope.var(t[1])
    if kind == "int":
        return int(t[1])
    return _OPS[kind](build(t[1], scope), build(t[2], scope))


def render(t: Tree) -> str:
    """Text of ``t`` in the spec grammar (function forms, full parentheses)."""
    kind = t[0]
    if kind == "var":
        return str(t[1])
    if kind == "int":
        return f"({t[1]})" if t[1] < 0 else str(t[1])
    x, y = render(t[1]), render(t[2])
    if kind in ("add", "sub", "mul"):
        sym = {"add": "+", "sub": "-", "mul": "*"}[kind]
        return f"({x} {sym} {y})"
    return f"{kind}({x}, {y})"


def valuations(names: tuple[str, ...] = VARS, hi: int = 12) -> st.SearchStrategy[dict[str, int]]:
    """Valuations with every variable in ``1..hi``."""
    return st.fixed_dictionaries({n: st.integers(1, hi) for n in names})
