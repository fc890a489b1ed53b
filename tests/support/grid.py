"""Valuation grids for brute-force tests (shared by tests).

A grid is a dict ``name -> 1-D numpy array``: every valuation of the names
with values ``1..hi``, one per position.  Expressions are evaluated on all of
it at once, and a constraint list becomes a boolean mask of the valuations
where it holds.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from symshape import SymbolicScope
from symshape.algebra.dimexpr import DimExpr
from symshape.shapes import parse_comparison_in_scope


def grid_env(names: str | tuple[str, ...], hi: int) -> dict[str, Any]:
    """Every valuation of ``names`` with values in ``1..hi``."""
    axes = np.meshgrid(*(np.arange(1, hi + 1, dtype=np.int64),) * len(names), indexing="ij")
    return {n: g.ravel() for n, g in zip(names, axes, strict=True)}


def value_on(e: DimExpr | int, env: dict[str, Any]) -> Any:
    """The values of ``e`` on the grid ``env`` (an array of its size)."""
    size = next(iter(env.values())).shape
    if isinstance(e, DimExpr):
        return np.broadcast_to(e.evaluate(env), size)
    return np.full(size, e, dtype=np.int64)


def valid_mask(constraints: list[str], env: dict[str, Any]) -> Any:
    """Where the constraints hold on the grid, evaluated in a scope that knows
    none of them (so the mask does not rely on what is being tested)."""
    free = SymbolicScope()
    mask = np.ones(next(iter(env.values())).shape, dtype=bool)
    for text in constraints:
        for op, lhs, rhs in parse_comparison_in_scope(text, free):
            d = value_on(lhs, env) - value_on(rhs, env)
            mask &= {">=": d >= 0, ">": d > 0, "<=": d <= 0, "<": d < 0, "==": d == 0}[op]
    return mask
