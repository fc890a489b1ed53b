"""Hypothesis strategies for random dimension-expression trees (shared by tests).

A tree is a nested tuple: ``("var", name)``, ``("int", n)`` or ``(op, x, y)``
with ``op`` in ``add sub mul floordiv mod max min``.  Divisors are positive
constants, variables, or variables plus a positive constant, so every tree is
defined for every valuation with variables >= 1.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from hypothesis import strategies as st

import symshape
from symshape.algebra.floordiv import floordiv, mod
from symshape.algebra.maxmin import max_expr, min_expr

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


def polynomial_trees(names: tuple[str, ...] = VARS, max_leaves: int = 6
                     ) -> st.SearchStrategy[Tree]:
    """Random trees of ``add``, ``sub`` and ``mul`` only (polynomials) over ``names``
    and small ints."""
    return st.recursive(
        st.one_of(st.sampled_from(names).map(lambda v: ("var", v)),
                  st.integers(-6, 6).map(lambda n: ("int", n))),
        lambda children: st.tuples(st.sampled_from(("add", "sub", "mul")), children, children),
        max_leaves=max_leaves)


#: the binary operators of the parser's trees, as the parse tests draw them
SYNTAX_BINARY = ("add", "sub", "mul", "floordiv", "mod", "max", "min")


def syntax_trees(names: st.SearchStrategy[str], max_int: int, unary: tuple[str, ...],
                 max_leaves: int) -> st.SearchStrategy[Any]:
    """Random trees of the surface syntax (for texts to parse): names drawn from
    ``names``, ints in ``[0, max_int]``, the binary operators, the prefix
    operators ``unary`` (``"neg"``, ``"pos"``) and ``("pow", x, n)`` with
    ``0 <= n <= 12``."""
    leaves = st.one_of(names.map(lambda n: ("var", n)),
                       st.integers(0, max_int).map(lambda n: ("int", n)))

    def extend(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        return st.one_of(
            st.tuples(st.sampled_from(list(SYNTAX_BINARY)), children, children),
            st.tuples(st.sampled_from(list(unary)) if len(unary) > 1 else st.just(unary[0]),
                      children),
            st.tuples(st.just("pow"), children, st.integers(0, 12)),
        )

    return st.recursive(leaves, extend, max_leaves=max_leaves)


def evaluate(t: Tree, env: dict[str, Any]) -> Any:
    """Direct evaluation with Python semantics (elementwise when ``env`` holds
    numpy arrays; exact Python ints otherwise)."""
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
    exact = isinstance(x, int) and isinstance(y, int)
    if kind == "max":
        return max(x, y) if exact else np.maximum(x, y)
    assert kind == "min"
    return min(x, y) if exact else np.minimum(x, y)


OPS = {
    "add": lambda x, y: x + y,
    "sub": lambda x, y: x - y,
    "mul": lambda x, y: x * y,
    "floordiv": floordiv,
    "mod": mod,
    "max": max_expr,
    "min": min_expr,
}


def build_with(t: Tree, var: Callable[[str], Any], ops: Mapping[str, Callable[[Any, Any], Any]]
               ) -> Any:
    """Build ``t`` with ``var(name)`` for variables and ``ops[kind]`` for the
    binary operations (any library's expressions)."""
    kind = t[0]
    if kind == "var":
        return var(t[1])
    if kind == "int":
        return int(t[1])
    return ops[kind](build_with(t[1], var, ops), build_with(t[2], var, ops))


def jax_ops(core: Any) -> dict[str, Callable[[Any, Any], Any]]:
    """The binary operations with JAX's dimension expressions, for
    :func:`build_with`; ``core`` is ``jax._src.core`` (looked up at each call,
    so that what a test patches there is used)."""
    return {"add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y,
            "floordiv": lambda x, y: x // y, "mod": lambda x, y: x % y,
            "max": lambda x, y: core.max_dim(x, y), "min": lambda x, y: core.min_dim(x, y)}


def build(t: Tree, scope: symshape.SymbolicScope) -> Any:
    """Build the symshape expression of ``t`` with the operator API."""
    return build_with(t, scope.var, OPS)


# A renaming of the variables a-d that reverses their alphabetical order.
REVERSING_RENAME = {"a": "q", "b": "p", "c": "z", "d": "e"}


def renamed_tree(t: Tree, mapping: Mapping[str, str] = REVERSING_RENAME) -> Tree:
    """``t`` with every variable renamed by ``mapping``."""
    if t[0] == "var":
        return ("var", mapping[t[1]])
    if t[0] == "int":
        return t
    return (t[0], renamed_tree(t[1], mapping), renamed_tree(t[2], mapping))


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
