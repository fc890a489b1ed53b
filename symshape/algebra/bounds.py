"""Ends of intervals: ints, or ``-math.inf``/``math.inf`` (the only floats).

Interval arithmetic on exact ints beyond the float range must never convert
to float; these helpers decide by type.
"""

from __future__ import annotations

import math

# An end of an interval: an int, or -math.inf / math.inf (the only floats).
Bound = int | float


def is_finite(b: Bound) -> bool:
    """Is the interval end ``b`` finite?  Decided by type, never by converting
    to float (``math.isfinite`` overflows on ints beyond 1e308)."""
    return type(b) is not float


def bound_add(x: Bound, y: Bound) -> Bound:
    """``x + y`` for interval ends of the same side: an infinite one wins
    (adding a float infinity to an int beyond 1e308 would overflow)."""
    if type(x) is float:
        return x
    if type(y) is float:
        return y
    return x + y


def bound_mul(x: Bound, y: Bound) -> Bound:
    """``x * y`` for interval ends, with ``0 * inf == 0`` (the zero side
    really is zero) and no float conversion of large ints."""
    if x == 0 or y == 0:
        return 0
    if type(x) is float or type(y) is float:
        return math.inf if (x > 0) == (y > 0) else -math.inf
    return x * y


__all__ = ["Bound", "bound_add", "bound_mul", "is_finite"]
