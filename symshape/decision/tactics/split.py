"""The pool: evaluate the claim at the scope's few valid valuations
(:class:`symshape.decision.pool.ScopePool`), finding where it holds and
where it fails.  Both found: the claim is inconclusive, with those two
valuations as its evidence.  The pool's first points are looked at first
(:meth:`symshape.decision.pool.ScopePool.get_prefix`): most inconclusive
claims are shown so there, before the rest of the pool is built."""

from __future__ import annotations

from symshape.decision.pool import ScopePool
from symshape.decision.tactics.base import Outcome, Query, Tactic


class PoolSplit(Tactic):
    """A pool point where the claim holds, and one where it fails: the first of
    each in the pool's order.  ``part``: ``"all"`` the pool; ``"prefix"`` its
    first points; ``"rest"`` the others, for the side the first points did
    not show (the first of each in the pool is then the first of the prefix,
    or else of the rest)."""

    name = "pool"

    def __init__(self, pool: ScopePool, part: str = "all") -> None:
        self.pool = pool
        self.part = part
        if part != "all":
            self.name = f"pool ({'first points' if part == 'prefix' else 'other points'})"

    def run(self, q: Query) -> Outcome | None:
        if q.holds is not None and q.fails is not None:
            return None
        holds, fails = self.pool.split([(op, d) for op, d, _ in q.links], self.part)
        if self.part == "rest":
            q.holds = q.holds or holds
            q.fails = q.fails or fails
        else:
            q.holds, q.fails = holds, fails
        return None


__all__ = ["PoolSplit"]
