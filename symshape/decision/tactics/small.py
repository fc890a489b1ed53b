"""Small valuations: when the searches ran out of budget, the missing
evidence is looked for among all valid valuations with every value in
``1..K`` (whole levels of the largest value, so the set looked at does not
depend on the variables' names)."""

from __future__ import annotations

from collections.abc import Sequence

from symshape.algebra.atoms import Var
from symshape.decision import minimize
from symshape.decision.facts import Link
from symshape.decision.pool import ScopePool
from symshape.decision.tactics.base import Outcome, Query, Tactic
from symshape.decision.valuations import Point

# Valuations tried, and terms evaluated in all (see small_points).
SMALL_POINTS = 400
SMALL_POINTS_WORK = 40_000


class SmallValuations(Tactic):
    """The missing valuation among the small ones."""

    name = "small valuations"

    def __init__(self, pool: ScopePool) -> None:
        self.pool = pool

    def run(self, q: Query) -> Outcome | None:
        if q.holds is not None and q.fails is not None:
            return None
        q.limits.what = "looking for small valuations"
        h2, f2 = small_points(self.pool, q.links, want_holds=q.holds is None,
                              want_fails=q.fails is None)
        q.holds = q.holds or h2
        q.fails = q.fails or f2
        return None


def small_points(pool: ScopePool, links: Sequence[Link], want_holds: bool, want_fails: bool
                 ) -> tuple[Point | None, Point | None]:
    """Valid valuations with every value in ``1..K`` where the conjunction
    of ``links`` holds / fails, for the largest ``K`` whose whole grid fits
    in :data:`SMALL_POINTS`."""
    polys = [d for _, d, _ in links]
    names = sorted({a.name for a in pool.lin.closure(polys) if type(a) is Var}
                   | set(pool.constraint_vars()))
    n = len(names)
    if n == 0:
        return None, None
    # Each point costs an evaluation of the claim and the constraints.
    size = sum(len(d) for d in polys) + sum(len(c) for c in pool.constraint_polys())
    cap = min(SMALL_POINTS, SMALL_POINTS_WORK // max(size, 1))
    if cap < 1:
        return None, None
    top = 1
    while (top + 1) ** n <= cap:
        top += 1
    dom = pool.domain(polys)
    holds = fails = None
    for level in range(1, top + 1):
        for total in range(level + n - 1, n * level + 1):
            for vals in minimize.level_tuples(n, level, total):
                pt = pool.point(dict(zip(names, vals, strict=True)))
                if not pool.valid(pt) or not pt.satisfies(dom):
                    continue
                ok = all(link_holds(op, pt.poly(d)) for op, d, _ in links)
                if ok and want_holds and holds is None:
                    holds = pt
                if not ok and want_fails and fails is None:
                    fails = pt
                if (holds is not None or not want_holds) and \
                        (fails is not None or not want_fails):
                    return holds, fails
    return holds, fails


def link_holds(op: str, v: int) -> bool:
    """Does ``v op 0`` hold?"""
    return v >= 0 if op == ">=" else (v == 0 if op == "==" else v != 0)


__all__ = ["SMALL_POINTS", "SMALL_POINTS_WORK", "SmallValuations", "link_holds", "small_points"]
