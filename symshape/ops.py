"""Public helpers on dimensions that may be ints or symbolic expressions."""

from __future__ import annotations

from typing import Any

from symshape.expr import DimExpr, _as_int, max_expr, min_expr

Dim = DimExpr | int


def _dim(x: Any, what: str) -> Dim:
    if isinstance(x, DimExpr):
        return x
    v = _as_int(x)
    if v is None:
        raise TypeError(f"{what}: expected an int or a symbolic dimension, got {x!r}")
    return v


def max_dim(x: Any, y: Any) -> Dim:
    """``max(x, y)``: one of the operands when the scope decides which is larger,
    else a symbolic ``max``."""
    return max_expr(_dim(x, "max_dim"), _dim(y, "max_dim"))


def min_dim(x: Any, y: Any) -> Dim:
    """``min(x, y)``: one of the operands when the scope decides which is smaller,
    else a symbolic ``min``."""
    return min_expr(_dim(x, "min_dim"), _dim(y, "min_dim"))


def bounds(e: Any) -> tuple[float | int, float | int]:
    """``(lower, upper)`` bounds of ``e`` over every valuation its scope allows.

    Bounds are ints or ``-math.inf``/``math.inf``; they are sound, and tight for
    the linear fragment (floordiv/mod by constants, max, min).
    """
    if isinstance(e, DimExpr):
        return e.scope.bounds(e)
    v = _dim(e, "bounds")
    assert isinstance(v, int)
    return v, v


__all__ = ["bounds", "max_dim", "min_dim"]
