"""The canonical forms of ``max`` and ``min``.

``max(x, y)`` is ``x`` or ``y`` where the scope decides their order
(``symshape.algebra.protocol.AlgebraScope.order``), else ``y + max(x - y, 0)``
with the interned atom ``Max0`` of ``x - y`` normalized (positive leading
coefficient, content 1, no common product of variables); ``min(x, y)`` is ``x + y - max(x, y)``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from symshape.algebra.atoms import ONE, atom_mono, make_max0_atom, mono_mul
from symshape.algebra.dimexpr import DimExpr, DimLike, check_dim, scope_of
from symshape.algebra.factor import common_variable_factor, divide_terms

if TYPE_CHECKING:
    from symshape.algebra.protocol import AlgebraScope


def max_expr(x: DimLike, y: DimLike) -> DimExpr | int:
    """``max(x, y)`` in canonical form, simplified when the order is decided by
    the scope's bounds."""
    x = check_dim(x, "max")
    y = check_dim(y, "max")
    scope = scope_of(x, y)
    if scope is None:
        return max(x, y)
    d = x - y
    if isinstance(d, int):
        return x if d >= 0 else y
    order = scope.order(d)
    if order > 0:
        return x
    if order < 0:
        return y
    return y + _max0(d, scope)


def _max0(d: DimExpr, scope: AlgebraScope) -> DimExpr | int:
    """``max(d, 0)`` with ``d`` normalized: positive leading coefficient, content 1."""
    if d.leading_coefficient < 0:
        # max(d, 0) == d + max(-d, 0)
        return d + _max0(-d, scope)  # type: ignore[arg-type]
    g = 0
    for c in d.terms.values():
        g = math.gcd(g, c)
        if g == 1:
            break
    # A common product of variables is positive: max(k*D, 0) == k*max(D, 0).
    common = common_variable_factor(d.terms)
    if g == 1 and common is ONE:
        return DimExpr.make({atom_mono(make_max0_atom(d, scope)): 1}, scope)
    inner_terms = divide_terms(d.terms, common) if common is not ONE else d.terms
    inner = DimExpr({m: c // g for m, c in inner_terms.items()}, scope)
    return DimExpr.make({mono_mul(atom_mono(make_max0_atom(inner, scope)), common): g}, scope)


def min_expr(x: DimLike, y: DimLike) -> DimExpr | int:
    """``min(x, y)`` in canonical form (``x + y - max(x, y)``)."""
    x = check_dim(x, "min")
    y = check_dim(y, "min")
    if isinstance(x, int) and isinstance(y, int):
        return min(x, y)
    return x + y - max_expr(x, y)


__all__ = ["max_expr", "min_expr"]
