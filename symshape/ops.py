"""Public helpers on dimensions that may be ints or symbolic expressions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from symshape.algebra.dimexpr import DimExpr, check_dim
from symshape.algebra.maxmin import max_expr, min_expr
from symshape.decision.simplex import Limits

Dim = DimExpr | int


def max_dim(x: Any, y: Any) -> Dim:
    """``max(x, y)``: one of the operands when the scope decides which is larger,
    else a symbolic ``max``."""
    return max_expr(check_dim(x, "max_dim"), check_dim(y, "max_dim"))


def min_dim(x: Any, y: Any) -> Dim:
    """``min(x, y)``: one of the operands when the scope decides which is smaller,
    else a symbolic ``min``."""
    return min_expr(check_dim(x, "min_dim"), check_dim(y, "min_dim"))


def bounds(e: Any, *, budget: float = 1.0, time_limit: float | None = None,
           progress: Callable[[float, str], None] | None = None
           ) -> tuple[float | int, float | int]:
    """``(lower, upper)`` bounds of ``e`` over every valuation its scope allows.

    Bounds are ints or ``-math.inf``/``math.inf``; they are sound, and tight for
    the linear fragment (floordiv/mod by constants, max, min) within the work
    budget.

    Args:
      e: an int or a symbolic dimension.
      budget: a scale of the default work budget (2.0 allows twice the work).
      time_limit: stop searching for tighter bounds after this many seconds
        (the bounds found so far are returned; they are always sound).
      progress: ``progress(elapsed_seconds, what)``, called about every 0.2 s
        while the search runs.
    """
    if isinstance(e, DimExpr):
        return e.scope.bounds(e, Limits(budget, time_limit, progress))
    v = check_dim(e, "bounds")
    assert isinstance(v, int)
    return v, v


__all__ = ["bounds", "max_dim", "min_dim"]
