"""Directed valuations: the cheap way to the side of a claim the pool missed.

A claim ``d >= 0`` that holds at every point of the valuation pool may still
fail elsewhere, typically far out along a variable whose coefficient in ``d``
is negative (``a + s >= 2*b + 3`` with ``a >= b + 8``: fails for a large
``b``).  Before the decision procedure runs a search for such a valuation,
this module tries a few: from a valid point, one variable that moves ``d``
the wanted way is pushed far out, and the constraints it then violates are
repaired by raising variables that appear in them with a positive
coefficient (``a >= b + 8`` raises ``a`` along with ``b``).

Every valuation tried is checked exactly by the caller, so a wrong one costs
time, never an answer.  The choices (which variable to push, which to raise)
go by the variables' colours in the question, not by their names, so the
valuations tried do not depend on the names.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from symshape.decision.poly import Poly
from symshape.repair import linear_vars, repaired

#: variables pushed per question at most
MAX_PUSHED = 3
#: how far a pushed variable goes, nearest first: ``max(factor * value, floor)``
PUSHES = ((8, 64), (64, 4096))

Value = Callable[[dict[str, int], Poly], int | None]


def directed(env: dict[str, int], d: Poly, want_negative: bool, checks: Sequence[Poly],
             order: Callable[[str], object], value: Value) -> Iterator[dict[str, int]]:
    """Valuations from the valid ``env`` where ``d`` is likely negative
    (``want_negative``) or non-negative: each pushes one variable whose
    coefficient in ``d`` has the wanted sign, then repairs ``checks``."""
    movers = sorted((x for x, c in linear_vars(d).items()
                     if x in env and (c < 0) == want_negative),
                    key=lambda x: (order(x), x))[:MAX_PUSHED]
    for factor, floor in PUSHES:
        for x in movers:
            pushed = dict(env)
            pushed[x] = max(factor * pushed[x], floor)
            fixed = repaired(pushed, checks, value, linear_vars, order)
            if fixed is not None:
                yield fixed


__all__ = ["directed"]
