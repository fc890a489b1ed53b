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

import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from symshape.algebra.atoms import Factors, FloorDiv, Max0, Var
from symshape.algebra.dimexpr import DimExpr
from symshape.decision.poly import Poly
from symshape.repair import by_order, linear_vars, repaired

#: variables pushed per question at most
MAX_PUSHED = 3
#: how far a pushed variable goes, nearest first: ``max(factor * value, floor)``
PUSHES = ((8, 64), (64, 4096))

Value = Callable[[dict[str, int], Poly], int | None]


def monotone_signs(d: Poly) -> dict[str, int]:
    """The variables in which ``d`` is monotone, with the direction (1:
    non-decreasing, -1: non-increasing).  Besides the degree-1 terms, this
    looks through what is monotone in its operand: ``floordiv(N, k)`` in its
    numerator (``k`` a constant >= 1, or symbolic: a divisor is >= 1
    wherever the query is defined) and, where ``N`` has one sign by its form,
    in a symbolic divisor, ``max(D, 0)`` in its argument, and
    monomials of variables alone (every variable is >= 1), so that the ``c``
    of ``k - floordiv(c + 3, 4)`` is a variable that lowers it.  A variable
    met in both directions, or inside anything else, is left out."""
    signs: dict[str, int] = {}
    mixed: set[str] = set()
    # Each (atom, direction) is visited once, and each atom made opaque once:
    # nested maxima share subterms, and walking them as a tree is exponential.
    seen: set[tuple[Any, int]] = set()
    hidden: set[Any] = set()
    todo: list[tuple[Poly, int]] = [(d, 1)]
    while todo:
        terms, sign = todo.pop()
        for m, c in terms.items():
            if not m:
                continue
            s = sign if c > 0 else -sign
            if all(type(a) is Var for a, _ in m):
                pairs: Factors = m
                for a, _ in pairs:
                    name = a.name  # type: ignore[attr-defined]
                    if signs.setdefault(name, s) != s:
                        mixed.add(name)
                continue
            a = m[0][0]
            if len(m) == 1 and m[0][1] == 1 and (type(a) is Max0 or (
                    type(a) is FloorDiv and (type(a.den) is not int or a.den > 0))):
                if (a, s) in seen:
                    continue
                seen.add((a, s))
                if type(a) is Max0:
                    todo.append((a.arg.terms, s))
                else:
                    assert isinstance(a, FloorDiv)
                    if not isinstance(a.num, int):
                        todo.append((a.num.terms, s))
                    if not isinstance(a.den, int):
                        # floordiv(N, D) falls as D grows where N >= 0, and
                        # rises where N <= 0 (D >= 1 wherever it is defined)
                        n_sign = _fixed_sign(a.num)
                        if n_sign:
                            todo.append((a.den.terms, -s * n_sign))
                        else:
                            _opaque(a.den.terms, mixed, hidden)
                continue
            _opaque({m: c}, mixed, hidden)
    return {x: s for x, s in signs.items() if x not in mixed}


def _fixed_sign(e: DimExpr | int) -> int:
    """1 if ``e`` is >= 0 for every valuation, -1 if it is <= 0, else 0, read
    from its form alone: every coefficient of one sign, and every atom a
    variable (>= 1) or a maximum (>= 0)."""
    if isinstance(e, int):
        return (e > 0) - (e < 0)
    signs: set[bool] = set()
    for m, c in e.terms.items():
        if any(type(a) is FloorDiv for a, _ in m):
            return 0
        signs.add(c > 0)
    return 0 if len(signs) != 1 else 1 if True in signs else -1


def movable(d: Poly) -> dict[str, int]:
    """The variables worth pushing to move ``d``, with the sign of their
    effect: the monotone ones (see :func:`monotone_signs`), and the others
    by their degree-1 coefficient (pushing one moves ``d`` that way at least
    while the value is small)."""
    signs = linear_vars(d)
    signs.update(monotone_signs(d))
    return signs


def directed(env: dict[str, int], d: Poly, want_negative: bool, checks: Sequence[Poly],
             order: Callable[[str], object], value: Value,
             signs: dict[str, int] | None = None,
             ceiling: Callable[[str], int | None] | None = None) -> Iterator[dict[str, int]]:
    """Valuations from the valid ``env`` where ``d`` is likely negative
    (``want_negative``) or non-negative: each pushes one variable that moves
    ``d`` the wanted way (``signs``: :func:`movable` of ``d``), then repairs
    ``checks``.  A push stops at the variable's upper bound (``ceiling``,
    None where it has none): the repair only raises variables, so a value
    beyond a bound such as ``t <= 1024`` could never be repaired, and the
    bound itself is where ``d`` goes furthest."""
    if signs is None:
        signs = movable(d)
    movers = by_order([x for x, c in signs.items() if x in env and (c < 0) == want_negative],
                      lambda x: (order(x), x))[:MAX_PUSHED]
    tried: set[tuple[str, int]] = set()
    for factor, floor in PUSHES:
        for x in movers:
            target = max(factor * env[x], floor)
            top = None if ceiling is None else ceiling(x)
            if top is not None:
                target = min(target, top)
            if target <= env[x] or (x, target) in tried:
                continue
            tried.add((x, target))
            pushed = dict(env)
            pushed[x] = target
            fixed = repaired(pushed, checks, value, _rates, order)
            if fixed is not None:
                yield fixed
    # Remainders are not monotone in anything: ``mod(f + 11, 128) <= 2``
    # fails for small f and holds for f = 117.  Try their extreme values.
    for moved in (*residue_moves(env, d, order, value), *quotient_moves(env, d, order, value)):
        fixed = repaired(moved, checks, value, _rates, order)
        if fixed is not None:
            yield fixed


def residue_moves(env: dict[str, int], d: Poly, order: Callable[[str], object],
                  value: Value) -> Iterator[dict[str, int]]:
    """Valuations from ``env`` that raise one variable ``x`` of the numerator
    ``N`` of a ``floordiv(N, k)`` of ``d`` (``k`` a constant; ``x`` with a
    degree-1 term in ``N``, which is monotone in it) by the least amount that
    makes ``N mod k`` its smallest, then its largest, reachable value (exact
    where ``N`` is affine in ``x``; the caller checks every valuation)."""
    seen: set[tuple[str, int]] = set()
    atoms: set[FloorDiv] = set()
    moves: list[tuple[str, int, int, Poly]] = []
    for m in d:
        pairs: Factors = m
        for a, _ in pairs:
            if type(a) is not FloorDiv or type(a.den) is not int or isinstance(a.num, int) \
                    or a in atoms:
                continue
            atoms.add(a)
            num = a.num.terms
            monotone = monotone_signs(num)
            for x, c in linear_vars(num).items():
                if x in env and x in monotone and (x, a.den) not in seen:
                    seen.add((x, a.den))
                    moves.append((x, a.den, c, num))
    for x, k, c, num in by_order(moves, lambda t: (order(t[0]), t[0], t[1]))[:MAX_PUSHED]:
        n0 = value(env, num)
        if n0 is None:
            continue
        g = math.gcd(c, k)
        inv = pow(c // g, -1, k // g) if k // g > 1 else 0
        for r in (n0 % g, k - g + n0 % g):  # the residues c*t can reach
            t = (r - n0) // g * inv % (k // g)
            if t:
                moved = dict(env)
                moved[x] += t
                yield moved


def quotient_moves(env: dict[str, int], d: Poly, order: Callable[[str], object],
                   value: Value) -> Iterator[dict[str, int]]:
    """Valuations from ``env`` that raise one variable ``x`` of the symbolic
    divisor ``D`` of a ``floordiv(N, D)`` of ``d`` (``x`` with a positive
    degree-1 coefficient in ``D``, monotone there, and absent from ``N``)
    just past the numerator, where the quotient is 0 and ``mod(N, D)`` is
    ``N``, its largest value (``mod(f + 5, d)`` with ``d = f + 6``)."""
    atoms: set[FloorDiv] = set()
    moves: list[tuple[str, int, Any, Any]] = []
    for m in d:
        pairs: Factors = m
        for a, _ in pairs:
            if type(a) is not FloorDiv or isinstance(a.den, int) or a in atoms:
                continue
            atoms.add(a)
            den = a.den.terms
            in_num = set() if isinstance(a.num, int) else a.num.free_vars
            up = monotone_signs(den)
            for x, c in linear_vars(den).items():
                if c > 0 and x in env and up.get(x) == 1 and x not in in_num:
                    moves.append((x, c, a.num, den))
    for x, c, num, den in by_order(moves, lambda t: (order(t[0]), t[0]))[:MAX_PUSHED]:
        n0 = num if isinstance(num, int) else value(env, num.terms)
        d0 = value(env, den)
        if n0 is None or d0 is None or n0 < d0:
            continue
        moved = dict(env)
        moved[x] += (n0 - d0) // c + 1
        yield moved


#: evaluations of ``d`` one variable's root search may spend
ROOT_EVALUATIONS = 48


def roots(env: dict[str, int], d: Poly, order: Callable[[str], object],
          value: Value, signs: dict[str, int] | None = None) -> Iterator[dict[str, int]]:
    """Valuations from ``env`` (where ``d`` is not 0) that make ``d`` zero,
    each found by moving one variable in which ``d`` is monotone: steps that
    double until ``d`` changes sign, a secant step (exact where ``d`` is
    affine in the variable), then bisection.  What an equality ``d == 0``
    needs as the valuation where it holds; the caller checks each one.
    ``signs``: :func:`monotone_signs` of ``d``, if the caller has it."""
    if signs is None:
        signs = monotone_signs(d)
    movers = by_order([x for x in signs if x in env], lambda x: (order(x), x))[:MAX_PUSHED]
    d0 = value(env, d)
    if not d0:
        return
    for x in movers:
        found = _root_along(env, x, signs[x] if d0 < 0 else -signs[x], d, d0, value)
        if found is not None:
            yield found


def _opaque(terms: Poly, mixed: set[str], hidden: set[Any]) -> None:
    """Mark every variable in ``terms`` as mixed (met inside something not
    monotone), each atom walked once (``hidden``)."""
    stack = [a for m in terms for a, _ in m]
    while stack:
        a = stack.pop()
        if type(a) is Var:
            mixed.add(a.name)
        elif a not in hidden:
            hidden.add(a)
            stack.extend(b for o in a.operands if not isinstance(o, int)
                         for m in o.terms for b, _ in m)


class _Along:
    """``d``'s values as one variable of a valuation moves, counted down from
    :data:`ROOT_EVALUATIONS` (a class, since there are no nested functions in
    compiled modules, see docs/architecture.md)."""

    __slots__ = ("trial", "x", "d", "value", "left")

    def __init__(self, env: dict[str, int], x: str, d: Poly, value: Value) -> None:
        self.trial = dict(env)
        self.x = x
        self.d = d
        self.value = value
        self.left = ROOT_EVALUATIONS

    def at(self, v: int) -> int | None:
        """``d`` with the variable at ``v`` (None: undefined there)."""
        self.left -= 1
        self.trial[self.x] = v
        return self.value(self.trial, self.d)


def _root_along(env: dict[str, int], x: str, direction: int, d: Poly, d0: int,
                value: Value) -> dict[str, int] | None:
    """``env`` with ``x`` moved in ``direction`` (1: up) to a value where ``d``
    is 0, or None when none is found within :data:`ROOT_EVALUATIONS`."""
    along = _Along(env, x, d, value)
    at, trial = along.at, along.trial
    v0 = env[x]
    near, d_near = v0, d0  # the last value tried where d has the sign of d0
    step = 1
    far = None
    while along.left > 0:
        v = max(v0 + direction * step, 1)
        dv = at(v)
        if dv is None:
            return None
        if dv == 0:
            return dict(trial)
        if (dv > 0) != (d0 > 0):
            far = v
            break
        if step == 1 and dv != d_near:
            # the secant through the first two values (exact for an affine d)
            q, r = divmod(-d_near * (v - near), dv - d_near)
            guess = near + q
            if not r and guess >= 1:
                dg = at(guess)
                if dg == 0:
                    return dict(trial)
        if v == 1:
            return None
        near, d_near = v, dv
        step *= 2
    if far is None:
        return None
    # d has the sign of d0 at near and the other sign at far
    while abs(far - near) > 1 and along.left > 0:
        mid = (near + far) // 2
        dm = at(mid)
        if dm is None:
            return None
        if dm == 0:
            return dict(trial)
        if (dm > 0) == (d0 > 0):
            near = mid
        else:
            far = mid
    return None


def _rates(check: Poly, env: dict[str, int]) -> dict[str, int]:
    """The rates a directed valuation's repair raises variables by: their
    coefficients in ``check``'s degree-1 terms, whatever the valuation."""
    return linear_vars(check)


__all__ = ["directed", "monotone_signs", "movable", "residue_moves", "roots"]
