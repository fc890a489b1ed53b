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

from symshape.algebra.atoms import Factors, FloorDiv, Max0, Var, single_atom
from symshape.algebra.dimexpr import DimExpr
from symshape.algebra.poly import Terms, value_at

C = TypeVar("C")
T = TypeVar("T")


def by_order(items: list[T], key: Callable[[T], Any]) -> list[T]:
    """``items`` sorted by ``key``, which is not called when there is nothing
    to choose: a variable order (see ``canon.PlaceColorOrder``) may cost
    more to set up than everything else a probe or repair does."""
    return sorted(items, key=key) if len(items) > 1 else items


def linear_vars(terms: Terms) -> dict[str, int]:
    """The variables of a term map (an expression's or a polynomial's) with
    their coefficients in its degree-1 terms."""
    out: dict[str, int] = {}
    for m, c in terms.items():
        a = single_atom(m)
        if type(a) is Var:
            out[a.name] = c
    return out


def growth_rates(terms: Terms) -> dict[str, int | Fraction]:
    """:func:`linear_vars`, plus the variables under a top-level
    ``c*floordiv(N, k)`` (``c, k > 0``), each at the rate ``c*d/k`` at which
    the term grows with it (``d`` its coefficient in ``N``): a repair can
    then fix ``floordiv(s, 128) >= 2`` by raising ``s``."""
    out: dict[str, int | Fraction] = dict(linear_vars(terms))
    for m, c in terms.items():
        a = single_atom(m) if c > 0 else None
        if type(a) is FloorDiv and type(a.den) is int and a.den > 0 and \
                isinstance(a.num, DimExpr):
            for x, d in linear_vars(a.num.terms).items():
                out[x] = out.get(x, 0) + Fraction(c * d, a.den)
    return out


def growth_rates_at(terms: Terms, env: dict[str, int]) -> dict[str, int | Fraction]:
    """:func:`growth_rates`, plus the variables under a top-level
    ``c*max(D, 0)`` (the form of ``max`` and ``min``), at ``env``: ``c`` times
    their coefficient in ``D`` where ``D > 0`` there (the max is ``D``), none
    where ``D < 0`` (it is 0).  At a kink, ``D == 0``, only the contributions
    that raise the term count, each variable taking the better of the two
    pieces: raising it may not move the term at once, but it moves off the
    kink, where the other piece's rates apply.  So a repair fixes ``min(m,
    f) >= 4`` (``f - max(f - m, 0) >= 4``) from all ones, raising ``f``, then
    ``m``, which rates blind to the ``max`` (or exact one-sided ones, which
    are all 0 at the kink) never do.  A heuristic, like every rate here: the
    caller checks the valuation reached exactly."""
    out = growth_rates(terms)
    for m, c in terms.items():
        a = single_atom(m)
        if type(a) is Max0:
            arg = a.arg
            if not isinstance(arg, DimExpr):
                continue
            v = value_at(arg, env, {})
            if v is None or v < 0:
                continue
            for x, d in linear_vars(arg.terms).items():
                if v > 0 or c * d > 0:
                    out[x] = out.get(x, 0) + c * d
    return out


def fact_atoms(facts: Sequence[DimExpr | int]) -> tuple[set[str], list[Any]]:
    """The variables that occur directly in ``facts``, and their other atoms
    (floordiv and max, not walked below)."""
    names: set[str] = set()
    atoms: list[Any] = []
    for f in facts:
        if isinstance(f, DimExpr):
            for m in f.terms:
                pairs: Factors = m
                for a, _ in pairs:
                    if type(a) is Var:
                        names.add(a.name)
                    else:
                        atoms.append(a)
    return names, atoms


def fact_variables(facts: Sequence[DimExpr | int]) -> tuple[list[str], int]:
    """The variables of ``facts`` (at any depth) in name order, and the lcm of
    their constant divisors (1 when it passes 2^20: no use as a step)."""
    names, atoms = fact_atoms(facts)
    step, _ = _atoms_below(atoms, names)
    return sorted(names), step if step < 1 << 20 else 1


def divisor_steps(atoms: list[Any], names: set[str]) -> dict[str, int]:
    """Variable -> the lcm of the constant divisors of the quotients whose
    numerator it occurs in directly, in ``atoms`` and at any depth below
    them (a variable met is added to ``names``): raising it by a multiple
    keeps every such numerator's residue.  Lcms past 2^20 are no use as
    steps and are left out."""
    steps: dict[str, int] = {}
    _atoms_below(atoms, names, steps)
    return steps


#: a check: ``f >= 0`` (kind 1) or ``f == 0`` (kind 0)
Check = tuple[DimExpr | int, int]


def shown_to_hold(checks: Sequence[Check]) -> bool:
    """Whether cheap arguments show that the checks hold together (False:
    not shown; the caller goes on with stronger means).

    First the checks that a variable of their own settles are peeled off: an
    inequality with a term ``c*x`` (``c > 0``) whose variable occurs in no
    other check left and nowhere else in it.  Whatever valuation the rest
    has, raising ``x`` makes that check hold and changes no other check
    left, so the checks peeled last are fixed first (``a >= b + 8`` goes,
    then ``b >= 16``).  What is left must hold where every variable is the
    lcm of its constant divisors (``s = 128`` for ``mod(s, 128) == 0``), or
    at what :func:`swept` makes of that; its variables are no peeled
    check's own, so raising those afterwards keeps it.  A check under a
    symbolic divisor is never peeled (the divisor could be 0 where the
    others fix it): it is evaluated exactly.  Linear in the size of the
    checks, few allocations: this runs on every scope built."""
    n = len(checks)
    if n == 1 and _settled_by_own_variable(checks[0]):
        return True
    owns: list[list[str] | None] = [None] * n  # variables that may settle check i
    names: list[list[str]] = [[]] * n  # the variables of check i
    steps = [1] * n  # the lcm of the constant divisors of check i
    occurs: dict[str, int] = {}  # variable -> checks not peeled yet that have it
    where: dict[str, list[int]] | None = None  # variable -> the checks with it (when needed)
    todo: list[int] = []
    peeled = [False] * n
    for i in range(n):
        f, kind = checks[i]
        if not isinstance(f, DimExpr):
            if f < 0 or (kind == 0 and f != 0):
                return False
            peeled[i] = True
            continue
        here: list[str] = []
        own: list[str] | None = None
        others: set[str] | None = None
        atoms: list[Any] | None = None
        for m, c in f.terms.items():
            one = single_atom(m)
            if type(one) is Var:
                x = one.name
                here.append(x)
                if kind == 1 and c > 0:
                    if own is None:
                        own = []
                    own.append(x)
                continue
            pairs: Factors = m
            for a, _ in pairs:
                if type(a) is Var:
                    if others is None:
                        others = set()
                    others.add(a.name)
                elif atoms is None:
                    atoms = [a]
                else:
                    atoms.append(a)
        if atoms is not None:
            if others is None:
                others = set()
            steps[i], exact = _atoms_below(atoms, others)
            if exact:
                own = None
        if others is not None:
            if own is not None:
                own = [x for x in own if x not in others]
            linear = set(here)
            for x in others:
                if x not in linear:
                    here.append(x)
        names[i] = here
        for x in here:
            occurs[x] = occurs.get(x, 0) + 1
        if own:
            owns[i] = own
            todo.append(i)
    while todo:
        i = todo.pop()
        own = owns[i]
        if peeled[i] or own is None or not _has_own(own, occurs):
            continue
        peeled[i] = True
        for x in names[i]:
            occurs[x] -= 1
            if occurs[x] == 1:  # the one check left with x may peel now
                if where is None:
                    where = _checks_with(names)
                for j in where[x]:
                    if not peeled[j] and owns[j] is not None:
                        todo.append(j)
    step = 1
    env: dict[str, int] = {}
    for i in range(n):
        if not peeled[i]:
            step = math.lcm(step, steps[i])
            for x in names[i]:
                env[x] = 0
    if not env:
        return True  # every check peeled
    if step >= 1 << 20:
        step = 1
    for x in env:
        env[x] = step
    memo: dict[Any, int | None] = {}  # (atom values at env, shared by the checks)
    failed = -1
    for i in range(n):
        if not peeled[i]:
            f, kind = checks[i]
            v = value_at(f, env, memo)
            if v is None or v < 0 or (kind == 0 and v != 0):
                failed = i
                break
    else:
        return True
    # The repair starts with the check that failed (the ones before it hold
    # at env: evaluating them first again would only find that out again),
    # and evaluates the checks of one valuation with one memo of atom values.
    signed: list[tuple[DimExpr | int, int]] = []
    for i in (failed, *range(failed), *range(failed + 1, n)):
        if not peeled[i]:
            f, kind = checks[i]
            signed.append((f, 1))
            if kind == 0:
                signed.append((f, -1))
    return swept(env, signed, _ValueAt(), _signed_rates, step)


def swept(env: dict[str, int], checks: Sequence[tuple[DimExpr | int, int]],
          value: Callable[[dict[str, int], tuple[DimExpr | int, int]], int | None],
          linear: Callable[[tuple[DimExpr | int, int], dict[str, int]],
                           Mapping[str, int | Fraction]],
          step: int = 1) -> bool:
    """Whether raising variables makes every check hold, from ``env``: the
    raise of :func:`repaired` (the first variable, by name, with a positive
    rate, by just enough, in multiples of ``step``), but the checks are
    swept in turn, forward then backward, each failing one fixed where it is
    met, until a sweep finds none failing.

    :func:`repaired` goes back to the first check after every raise: a chain
    ``x0 >= x1 + 8, x1 >= x2 + 2, ..., x11 >= 16`` then needs a raise per
    link and round, quadratic in its length, and runs out of rounds on the
    chains that real constraint lists have.  Sweeping both ways settles a
    chain in one sweep in the direction it is written against, and the
    next sweep confirms it.  Bounded like :func:`repaired`: at most twice
    the checks plus 4 sweeps, :data:`MAX_EVALUATIONS` evaluations and
    :data:`MAX_VALUE_BITS` bits per value."""
    env = dict(env)
    n = len(checks)
    spent = 0
    forward = list(range(n))
    backward = forward[::-1]
    for sweep in range(2 * n + 4):
        fixed = False
        for i in (forward if sweep % 2 == 0 else backward):
            spent += 1
            if spent > MAX_EVALUATIONS:
                return False
            check = checks[i]
            v = value(env, check)
            if v is None:
                return False
            if v >= 0:
                continue
            ups = [(x, c) for x, c in linear(check, env).items() if c > 0 and x in env]
            if not ups:
                return False
            x, c = min(ups)
            grow = -(v // c)  # ceil(-v / c)
            env[x] += -(-grow // step) * step
            if env[x].bit_length() > MAX_VALUE_BITS:
                return False
            fixed = True
        if not fixed:
            return True
    return False


class _ValueAt:
    """``check``'s signed value at ``env`` (see :func:`_signed_value`), with the
    values of atoms remembered while ``env`` keeps its values: a repair
    evaluates every check at one valuation before it changes it."""

    __slots__ = ("_at", "_memo")

    def __init__(self) -> None:
        self._at: tuple[int, ...] = ()
        self._memo: dict[Any, int | None] = {}

    def __call__(self, env: dict[str, int], check: tuple[DimExpr | int, int]) -> int | None:
        at = tuple(env.values())  # (a repair changes values, never the keys)
        if at != self._at:
            self._at = at
            self._memo = {}
        v = value_at(check[0], env, self._memo)
        return None if v is None else check[1] * v


def _settled_by_own_variable(check: Check) -> bool:
    """Whether one inequality, linear in variables, has a variable with a
    positive coefficient (raising it makes the check hold): the peeling of
    :func:`shown_to_hold` for a scope of one constraint, without its tables."""
    f, kind = check
    if kind != 1 or not isinstance(f, DimExpr):
        return False
    own = False
    for m, c in f.terms.items():
        if not m:
            continue
        if type(single_atom(m)) is not Var:
            return False
        if c > 0:
            own = True
    return own


def _checks_with(names: list[list[str]]) -> dict[str, list[int]]:
    """Variable -> the indices of the checks that have it."""
    where: dict[str, list[int]] = {}
    for i, here in enumerate(names):
        for x in here:
            w = where.get(x)
            if w is None:
                where[x] = [i]
            else:
                w.append(i)
    return where


def _atoms_below(atoms: list[Any], names: set[str], steps: dict[str, int] | None = None
                 ) -> tuple[int, bool]:
    """Walk ``atoms`` and every atom below them, adding their variables to
    ``names``: the lcm of their constant divisors, and whether one has a
    symbolic divisor; ``steps`` (if given) gets :func:`divisor_steps`."""
    step = 1
    exact = False
    seen: set[Any] = set()
    while atoms:
        a = atoms.pop()
        if a in seen:
            continue
        seen.add(a)
        if type(a) is FloorDiv:
            if type(a.den) is int:
                step = math.lcm(step, a.den)
            else:
                exact = True
        for o in a.operands:
            if isinstance(o, DimExpr):
                for m in o.terms:
                    pairs: Factors = m
                    for b, _ in pairs:
                        if type(b) is Var:
                            names.add(b.name)
                            if steps is not None and type(a) is FloorDiv and \
                                    type(a.den) is int and o is a.num:
                                k = math.lcm(steps.get(b.name, 1), a.den)
                                if k < 1 << 20:
                                    steps[b.name] = k
                        elif b not in seen:
                            atoms.append(b)
    return step, exact


def _has_own(own: list[str], occurs: dict[str, int]) -> bool:
    for x in own:  # noqa: SIM110 (a plain loop: no generator object)
        if occurs[x] == 1:
            return True
    return False


def _signed_value(env: dict[str, int], check: tuple[DimExpr | int, int]) -> int | None:
    v = value_at(check[0], env, {})
    return None if v is None else check[1] * v


def _signed_rates(check: tuple[DimExpr | int, int],
                  env: dict[str, int]) -> Mapping[str, int | Fraction]:
    f, sign = check
    if isinstance(f, int):
        return {}
    return growth_rates_at(f.terms if sign > 0 else {m: -c for m, c in f.terms.items()}, env)


def repaired_facts(env: dict[str, int], step: int, facts: Sequence[DimExpr | int]
                   ) -> dict[str, int] | None:
    """A valuation where every fact ``f >= 0`` holds, repaired from ``env``
    (see :func:`repaired`; variables raised in name order, which only decides
    how fast one is found), or None."""
    return repaired(env, [(f, 1) for f in facts], _signed_value, _signed_rates, str, step)


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
             linear: Callable[[C, dict[str, int]], Mapping[str, int | Fraction]],
             order: Callable[[str], object], step: int = 1) -> dict[str, int] | None:
    """``env`` changed until ``value(env, check) >= 0`` for every check, by
    raising, while a check fails by ``k``, its first variable (in ``order``)
    with a coefficient ``c > 0`` in ``linear(check, env)`` (its rate at the
    valuation reached) by ``ceil(k / c)``,
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
        ups = [(x, c) for x, c in linear(check, env).items() if c > 0 and x in env]
        if not ups:
            return None
        x, c = by_order(ups, lambda u: (order(u[0]), u[0]))[0]
        grow = -(v // c)  # ceil(-v / c)
        env[x] += -(-grow // step) * step
        if env[x].bit_length() > MAX_VALUE_BITS:
            return None
    return None


__all__ = ["MAX_EVALUATIONS", "MAX_VALUE_BITS", "by_order", "divisor_steps", "fact_atoms",
           "fact_variables", "growth_rates", "growth_rates_at",
           "linear_vars", "repaired", "repaired_facts", "shown_to_hold", "swept", "Check"]
