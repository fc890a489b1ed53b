"""The smallest valuation with a property: minimal counterexamples and witnesses.

A counterexample (or witness) is reported as the smallest valid valuation:
the smallest largest value first, then the smallest sum, then the first in the
order of the sorted variable names.  Such a valuation is a function of the
question alone (not of which search found a first one), reproducible, and
the easiest for a person to check by hand: ``x <= 100`` fails for
``x = 101``; ``b >= h`` fails for ``b = 1, h = 2``.

The search for it is exact and bounded:

1. the smallest largest value ``M`` by bisection, each step asking the
   decision procedure for a valuation with every variable ``<= M``;
2. the valuations with largest value ``M`` enumerated in (sum, name order)
   when there are few of them, else the smallest sum and then each value in
   name order by bisection.

Every candidate is verified by exact evaluation.  When a work budget runs out
the best valuation verified so far is the answer (it is still valid evidence,
only perhaps not the smallest).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import partial

from symshape.decision import poly as P
from symshape.decision.poly import Poly

# Returns a verified valuation satisfying the hypotheses (``None``: there is
# none, proved; ``False``: undecided within the budget).
Finder = Callable[[Sequence[Poly]], "dict[str, int] | None | bool"]
Checker = Callable[[dict[str, int]], bool]

ENUMERATION_CAP = 1500  # candidate valuations evaluated by enumeration
SEARCH_CAP = 48  # decision-procedure queries per minimization
# Work of exact evaluations per minimization, in units of one evaluation at
# machine-sized values: an evaluation costs more units as its values grow, so
# that bisecting a range of 5,000-digit values (16,000 steps of big-number
# arithmetic) stops at the budget instead of running for a minute.
EVALUATION_CAP = 6000
_BITS_PER_UNIT = 256


def size_order(env: dict[str, int], names: Sequence[str]) -> tuple[int, int, tuple[int, ...]]:
    """The order of valuations of ``names`` by size: the smallest largest
    value first, then the smallest sum, then the first in the order of ``names``."""
    vals = tuple(env[n] for n in names)
    return (max(vals, default=0), sum(vals), vals)


def level_tuples(n: int, top: int, total: int) -> Iterator[tuple[int, ...]]:
    """Tuples of ``n`` values in ``1..top`` with sum ``total`` and largest
    value ``top``, in lexicographic order."""
    for vals in _tuples(n, top, total):
        if top in vals:
            yield vals


def _tuples(n: int, top: int, total: int) -> Iterator[tuple[int, ...]]:
    """Tuples of ``n`` values in ``1..top`` with sum ``total``, in lexicographic order."""
    if n == 0:
        if total == 0:
            yield ()
        return
    lo = max(1, total - top * (n - 1))
    hi = min(top, total - (n - 1))
    for first in range(lo, hi + 1):
        for rest in _tuples(n - 1, top, total - first):
            yield (first, *rest)


def _count_at_most(n: int, top: int, cap: int) -> int:
    """``top**n - (top-1)**n`` (tuples whose largest value is ``top``), capped."""
    if n * max(top, 2).bit_length() > 64:
        return cap + 1
    return min(cap + 1, top ** n - (top - 1) ** n)


class Minimizer:
    """The smallest valuation of ``names`` satisfying a set of hypotheses."""

    def __init__(self, names: Sequence[str], find: Finder, check: Checker,
                 upper: dict[str, int] | None = None) -> None:
        self.names = tuple(sorted(names))
        self.find = find
        self.check = check
        self.upper = upper or {}
        self.searches = 0
        self.evaluations = 0
        self.work = 0  # evaluation units spent (see EVALUATION_CAP)

    def _find(self, hyps: list[Poly]) -> dict[str, int] | None | bool:
        if self.searches >= SEARCH_CAP:
            return False
        self.searches += 1
        return self.find(hyps)

    def _ok(self, env: dict[str, int]) -> bool:
        self.evaluations += 1
        self.work += 1 + sum(abs(v).bit_length() for v in env.values()) // _BITS_PER_UNIT
        return self.check(env)

    def _spent(self) -> bool:
        """Whether the evaluation budget is used up."""
        return self.work >= EVALUATION_CAP

    def _upper_all(self, m: int) -> list[Poly]:
        return [{P.ONE: m, P.var_mono(n): -1} for n in self.names]

    def _first_at(self, top: int) -> dict[str, int] | None:
        """The first valid valuation whose largest value is ``top``, in (sum,
        name order), by enumeration."""
        names = self.names
        n = len(names)
        for total in range(top + n - 1, n * top + 1):
            for vals in level_tuples(n, top, total):
                env = dict(zip(names, vals, strict=True))
                if self._ok(env):
                    return env
        return None

    def minimize(self, start: dict[str, int]) -> dict[str, int]:
        """The smallest valuation, starting from a verified one (``start``)."""
        names = self.names
        if not names:
            return dict(start)
        best = {n: start[n] for n in names}
        n = len(names)
        # 1. whole levels of small values, by enumeration: exact, and needs no
        # search (which may run out of budget on non-linear claims)
        spent = 0
        lo = 1
        while lo <= max(best.values()):
            size = _count_at_most(n, lo, ENUMERATION_CAP)
            if spent + size > ENUMERATION_CAP:
                break
            spent += size
            env = self._first_at(lo)
            if env is not None:
                return env
            lo += 1
        # 2. the smallest largest value, by bisection with the decision procedure.
        # The corner where every variable is as large as allowed is tried first:
        # an exact check, and the answer for claims that fail when values grow
        # (s*s*h <= 2^31), where the search may run out of budget.
        lo, best, done = self._bisect(
            lo, best, lambda v: max(v.values()), self._upper_all,
            lambda mid: {n: min(mid, self.upper.get(n, mid)) for n in names})
        # 3. the first valuation with largest value ``lo``, by (sum, names)
        if _count_at_most(n, lo, ENUMERATION_CAP) <= ENUMERATION_CAP:
            env = self._first_at(lo)
            return env if env is not None else best
        if not done:
            return best  # the searches ran out of budget: the best verified one
        # else the smallest sum, then each value in name order, by bisection
        fixed = self._upper_all(lo)
        total: Poly = {P.var_mono(v): -1 for v in names}
        lo, best, done = self._bisect(n, best, lambda v: sum(v.values()),
                                      lambda mid: [*fixed, {**total, P.ONE: mid}])
        fixed.append({**total, P.ONE: lo})
        for name in names:
            if not done:
                break
            lo, best, done = self._bisect(1, best, partial(_value_of, name),
                                          partial(_capped, fixed, name))
            fixed.append({P.ONE: lo, P.var_mono(name): -1})
        return best

    def _bisect(self, lo: int, best: dict[str, int], measure: Callable[[dict[str, int]], int],
                bound: Callable[[int], list[Poly]],
                corner: Callable[[int], dict[str, int]] | None = None
                ) -> tuple[int, dict[str, int], bool]:
        """The smallest ``v >= lo`` for which a valuation with ``bound(v)`` (the
        measure at most ``v``) exists, knowing that ``best`` is one at
        ``measure(best)``; the best valuation seen; and whether the bisection
        finished exactly (False: the decision procedure ran out of budget at
        some step, which is then passed over as if no valuation were there: the
        answer stays a verified valuation, perhaps not the smallest)."""
        names = self.names
        hi = measure(best)
        exact = True
        while lo < hi:
            if self._spent():
                return min(lo, measure(best)), best, False
            mid = (lo + hi) // 2
            env = corner(mid) if corner is not None else None
            r = env if env is not None and self._ok(env) else self._find(bound(mid))
            if r is None or r is False:
                exact = exact and r is None
                lo = mid + 1
            else:
                assert isinstance(r, dict)
                env = {v: r.get(v, 1) for v in names}
                if size_order(env, names) < size_order(best, names):
                    best = env
                hi = min(mid, measure(best))
        return min(lo, measure(best)), best, exact


def _value_of(name: str, env: dict[str, int]) -> int:
    return env[name]


def _capped(fixed: list[Poly], name: str, mid: int) -> list[Poly]:
    """``fixed`` and ``name <= mid``."""
    return [*fixed, {P.ONE: mid, P.var_mono(name): -1}]


def _find_with(find: Callable[[list[Poly]], dict[str, int] | None | bool], hyps: list[Poly],
               extra: Sequence[Poly]) -> dict[str, int] | None | bool:
    return find([*hyps, *extra])


def smallest(names: Sequence[str], hyp_sets: Sequence[list[Poly]], starts: Sequence[dict[str, int]],
             find: Callable[[list[Poly]], dict[str, int] | None | bool],
             check: Callable[[list[Poly], dict[str, int]], bool],
             upper: dict[str, int] | None = None) -> dict[str, int] | None:
    """The smallest valuation of ``names`` satisfying one of ``hyp_sets``.

    ``starts`` are verified valuations (the evidence found while deciding);
    ``find(hyps)`` asks the decision procedure for a verified valuation
    satisfying ``hyps`` (None: proved impossible; False: undecided);
    ``check(hyps, env)`` verifies a valuation exactly; ``upper`` holds the
    finite upper bounds of variables that the constraints give.
    """
    order = tuple(sorted(names))
    best: dict[str, int] | None = None
    for hyps in hyp_sets:
        start = next((s for s in starts if check(hyps, s)), None)
        if start is None:
            r = find(hyps)
            if not isinstance(r, dict):
                continue
            start = r
        start = {n: start.get(n, 1) for n in order}
        env = Minimizer(order, partial(_find_with, find, hyps),
                        partial(check, hyps), upper).minimize(start)
        if best is None or size_order(env, order) < size_order(best, order):
            best = env
    return best


__all__ = ["Minimizer", "size_order", "smallest"]
