"""Repairing a valuation: raise variables until every check holds.

Two places need a valuation that satisfies a list of checks ``c >= 0``
without running a model search: the scope's check that its constraints can
hold at all (``symshape.scope``), and the decision procedure's directed
valuations (``symshape.decision.probe``).  Both start from a valuation that
is nearly right and fix the failing checks one at a time: for the first
failing check, the first of its variables (in the caller's order) with a
positive coefficient grows by just enough.  ``a + b >= 8`` from all ones
gives ``a = 7``; ``a >= b + 8`` after ``b`` grew raises ``a`` along.

The result is only a candidate: callers check it exactly (here every check
is evaluated again before the valuation is returned).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any, TypeVar

from symshape.expr import DimExpr, FloorDiv, Mono, Terms, Var, value_at

C = TypeVar("C")
T = TypeVar("T")


def by_order(items: list[T], key: Callable[[T], Any]) -> list[T]:
    """``items`` sorted by ``key``, which is not called when there is nothing
    to choose: a variable order (see ``canon.place_color_order``) may cost
    more to set up than everything else a probe or repair does."""
    return sorted(items, key=key) if len(items) > 1 else items


def linear_vars(terms: Terms) -> dict[str, int]:
    """The variables of a term map (an expression's or a polynomial's) with
    their coefficients in its degree-1 terms."""
    out: dict[str, int] = {}
    for m, c in terms.items():
        if len(m) == 1 and m[0][1] == 1 and type(m[0][0]) is Var:
            out[m[0][0].name] = c
    return out


def growth_rates(terms: Terms) -> dict[str, int | Fraction]:
    """:func:`linear_vars`, plus the variables under a top-level
    ``c*floordiv(N, k)`` (``c, k > 0``), each at the rate ``c*d/k`` at which
    the term grows with it (``d`` its coefficient in ``N``): a repair can
    then fix ``floordiv(s, 128) >= 2`` by raising ``s``."""
    out: dict[str, int | Fraction] = dict(linear_vars(terms))
    for m, c in terms.items():
        if c > 0 and len(m) == 1 and m[0][1] == 1 and type(m[0][0]) is FloorDiv:
            a = m[0][0]
            if type(a.den) is int and a.den > 0 and isinstance(a.num, DimExpr):
                for x, d in linear_vars(a.num.terms).items():
                    out[x] = out.get(x, 0) + Fraction(c * d, a.den)
    return out


def fact_variables(facts: Sequence[DimExpr | int]) -> tuple[list[str], int]:
    """The variables of ``facts`` (at any depth) in name order, and the lcm of
    their constant divisors (1 when it passes 2^20: no use as a step)."""
    names: set[str] = set()
    step = 1
    seen: set[Any] = set()
    stack: list[DimExpr] = [f for f in facts if isinstance(f, DimExpr)]
    # (a walk of its own rather than DimExpr.atoms: it runs on every scope
    # built, and a variable needs no more than its name)
    while stack:
        for m in stack.pop().terms:
            for a, _ in m:
                if type(a) is Var:
                    names.add(a.name)
                elif a not in seen:
                    seen.add(a)
                    if type(a) is FloorDiv and type(a.den) is int:
                        step = math.lcm(step, a.den)
                    for o in a.operands:
                        if isinstance(o, DimExpr):
                            stack.append(o)
    return sorted(names), step if step < 1 << 20 else 1


def have_own_variables(facts: Sequence[DimExpr | int]) -> bool:
    """Whether every fact ``f >= 0`` has a variable of its own: a term ``c*x``
    with ``c > 0`` whose variable occurs nowhere else in the facts.  Facts
    that all have one hold together (fix the other variables at 1, then raise
    each fact's own variable until the fact holds), as ``b >= 16`` and
    ``a >= b + 8`` do.  (Plain loops, one pass over the facts: this runs on
    every scope built.)"""
    owners: list[list[str]] = []  # per fact: the variables of its terms c*x, c > 0
    uses: dict[str, int] = {}  # variable -> its terms c*x in the facts (2: elsewhere too)
    seen: set[Any] = set()
    atoms: list[Any] = []
    for f in facts:
        if not isinstance(f, DimExpr):
            if f < 0:
                return False
            continue
        own: list[str] = []
        for m, c in f.terms.items():
            if len(m) == 1:
                a, e = m[0]
                if e == 1 and type(a) is Var:
                    uses[a.name] = uses.get(a.name, 0) + 1
                    if c > 0:
                        own.append(a.name)
                    continue
            _shared_variables(m, uses, seen, atoms)
        if not own:
            return False
        owners.append(own)
    while atoms:  # every variable under an atom, at any depth
        for o in atoms.pop().operands:
            if isinstance(o, DimExpr):
                for m in o.terms:
                    _shared_variables(m, uses, seen, atoms)
    for own in owners:
        found = False
        for name in own:
            if uses[name] == 1:
                found = True
                break
        if not found:
            return False
    return True


def _shared_variables(m: Mono, uses: dict[str, int], seen: set[Any], atoms: list[Any]) -> None:
    """Mark the variables of ``m`` as not any fact's own (``uses`` 2), and
    queue its atoms not seen yet (see :func:`have_own_variables`)."""
    for a, _ in m:
        if type(a) is Var:
            uses[a.name] = 2
        elif a not in seen:
            seen.add(a)
            atoms.append(a)


def repaired_facts(env: dict[str, int], step: int, facts: Sequence[DimExpr | int]
                   ) -> dict[str, int] | None:
    """A valuation where every fact ``f >= 0`` holds, repaired from ``env``
    (see :func:`repaired`; variables raised in name order, which only decides
    how fast one is found), or None."""
    return repaired(env, facts, _fact_value, _fact_rates, str, step)


def _fact_value(env: dict[str, int], fact: DimExpr | int) -> int | None:
    return value_at(fact, env, {})


def _fact_rates(fact: DimExpr | int) -> Mapping[str, int | Fraction]:
    return {} if isinstance(fact, int) else growth_rates(fact.terms)


#: evaluations of checks one repair may spend (it is a shortcut: when it runs
#: out, the caller falls back to a search that has a work budget of its own)
MAX_EVALUATIONS = 20_000

#: bits a repaired value may have: twice those of the largest constant a text
#: may write (10,000 digits).  Raising a variable to fix a nonlinear check
#: (``b^4 <= b - c``) can square the failing amount at every round, and the
#: values would soon take minutes to evaluate.
MAX_VALUE_BITS = 70_000


def repaired(env: dict[str, int], checks: Sequence[C],
             value: Callable[[dict[str, int], C], int | None],
             linear: Callable[[C], Mapping[str, int | Fraction]],
             order: Callable[[str], object], step: int = 1) -> dict[str, int] | None:
    """``env`` changed until ``value(env, check) >= 0`` for every check, by
    raising, while a check fails by ``k``, its first variable (in ``order``)
    with a coefficient ``c > 0`` in ``linear(check)`` by ``ceil(k / c)``,
    rounded up to a multiple of ``step`` (which keeps multiples of the
    divisors multiples).  None when a failing check has no such variable, a
    value is undefined, a value outgrows :data:`MAX_VALUE_BITS`, or the
    rounds (twice the checks, plus 4) or the evaluations
    (:data:`MAX_EVALUATIONS`) run out."""
    env = dict(env)
    spent = 0
    for _ in range(2 * len(checks) + 4):
        failing: tuple[C, int] | None = None
        for check in checks:
            spent += 1
            if spent > MAX_EVALUATIONS:
                return None
            v = value(env, check)
            if v is None:
                return None
            if v < 0:
                failing = (check, v)
                break
        if failing is None:
            return env
        check, v = failing
        ups = [(x, c) for x, c in linear(check).items() if c > 0 and x in env]
        if not ups:
            return None
        x, c = by_order(ups, lambda u: (order(u[0]), u[0]))[0]
        grow = -(v // c)  # ceil(-v / c)
        env[x] += -(-grow // step) * step
        if env[x].bit_length() > MAX_VALUE_BITS:
            return None
    return None


__all__ = ["MAX_EVALUATIONS", "MAX_VALUE_BITS", "by_order", "fact_variables", "growth_rates",
           "have_own_variables", "linear_vars", "repaired", "repaired_facts"]
