"""The pool: evaluate the claim at the scope's few valid valuations
(:class:`symshape.decision.pool.ScopePool`), finding where it holds and
where it fails.  Both found: the claim is inconclusive, with those two
valuations as its evidence."""

from __future__ import annotations

from symshape.decision.pool import ScopePool
from symshape.decision.tactics.base import Outcome, Query, Tactic


class PoolSplit(Tactic):
    """A pool point where the claim holds, and one where it fails."""

    name = "pool"

    def __init__(self, pool: ScopePool) -> None:
        self.pool = pool

    def run(self, q: Query) -> Outcome | None:
        q.holds, q.fails = self.pool.split([(op, d) for op, d, _ in q.links])
        return None


__all__ = ["PoolSplit"]
