"""Checking the arguments of the public functions, each with a clear error.

Every public function of symshape checks what it is given here, before any
work, so that a wrong type or an impossible value is an
:class:`~symshape.errors.ArgumentError` that names the argument, never an
error from deep inside (``'>' not supported between 'str' and 'int'``).
"""

from __future__ import annotations

import math
import numbers
import operator
from collections.abc import Callable
from typing import Any

from symshape.errors import ArgumentError

#: The largest budget scale that means something: the work budgets it gives are
#: beyond any query's need (about a day of search).  A larger one is taken as
#: this one, so that asking for more never overflows into less.
MAX_BUDGET = 1e6


def _show(value: Any) -> str:
    text = repr(value) if not isinstance(value, int) or value.bit_length() < 64 else \
        f"an int of {value.bit_length()} bits"
    return text if len(text) <= 80 else text[:77] + "..."


def texts(value: Any, name: str = "constraints") -> tuple[str, ...]:
    """``value`` as a tuple of strings: a list, tuple or other iterable of str."""
    if isinstance(value, str):
        raise ArgumentError(f"{name}= must be a sequence of strings, got the string "
                            f"{_show(value)}; write [{_show(value)}]")
    try:
        items = tuple(value)
    except TypeError:
        raise ArgumentError(f"{name}= must be a sequence of strings, got "
                            f"{type(value).__name__} {_show(value)}") from None
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise ArgumentError(f"{name}= must be a sequence of strings, but item {i} is "
                                f"{type(item).__name__} {_show(item)}")
    return items


_EXACT_INTS = 1 << 53  # ints up to this convert to a float exactly


def positive_number(value: Any, name: str) -> float:
    """``value`` as a finite float > 0 (ints, floats and NumPy numbers alike)."""
    # The common cases first, without the ABC check below (this runs for
    # every query's budget); bool is a type of its own, and falls through.
    t = type(value)
    if t is float and 0 < value < math.inf:
        return value
    if t is int and 0 < value <= _EXACT_INTS:
        return float(value)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ArgumentError(f"{name}= must be a positive number, got "
                            f"{type(value).__name__} {_show(value)}")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not number > 0 or math.isnan(number):
        raise ArgumentError(f"{name}= must be a positive number, got {_show(value)}")
    return number


def budget(value: Any) -> float:
    """The scale of the work budgets: a positive number, at most :data:`MAX_BUDGET`."""
    return min(positive_number(value, "budget"), MAX_BUDGET)


def time_limit(value: Any) -> float | None:
    """A time limit in seconds (``None`` for none)."""
    if value is None:
        return None
    number = positive_number(value, "time_limit")
    if math.isinf(number):
        return None
    return number


def callback(value: Any, name: str) -> Callable[..., Any] | None:
    """``None`` or something callable."""
    if value is not None and not callable(value):
        raise ArgumentError(f"{name}= must be callable or None, got "
                            f"{type(value).__name__} {_show(value)}")
    return value


def size(value: Any, name: str) -> int:
    """A dimension size: an integer >= 0 (Python, NumPy or anything with __index__)."""
    if isinstance(value, bool):
        raise ArgumentError(f"{name} must be an integer size, got the bool {value!r}")
    try:
        n = operator.index(value)
    except TypeError:
        raise ArgumentError(f"{name} must be an integer size, got "
                            f"{type(value).__name__} {_show(value)}") from None
    if n < 0:
        raise ArgumentError(f"{name} must be >= 0, got {_show(n)}")
    return n


def _sequence(value: Any, name: str) -> list[Any]:
    if isinstance(value, str) or not hasattr(value, "__iter__"):
        raise ArgumentError(f"{name}= must be a sequence of sizes, got "
                            f"{type(value).__name__} {_show(value)}")
    return list(value)


def sizes(value: Any, name: str) -> tuple[int, ...]:
    """A sequence of sizes >= 0 (a concrete shape, or ranks)."""
    return tuple(size(d, f"{name}[{i}]") for i, d in enumerate(_sequence(value, name)))


def shape(value: Any, name: str) -> tuple[int | None, ...]:
    """A concrete shape whose unknown sizes are ``None``."""
    return tuple(None if d is None else size(d, f"{name}[{i}]")
                 for i, d in enumerate(_sequence(value, name)))


__all__ = ["MAX_BUDGET", "budget", "callback", "positive_number", "shape", "size", "sizes",
           "texts", "time_limit"]
