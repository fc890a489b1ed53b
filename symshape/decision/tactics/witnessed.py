"""Sign witnesses: a claim ``d >= 0`` that the scope's fixed valid valuations
(:mod:`symshape.witness`, the ones the comparison operators try before any
decision) show positive at one and negative at another is inconclusive,
without building the pool.

Most open claims are shown so, and their verdict needs no valuation until
its evidence is read: the valuations the evidence starts from are then
those the pool's tactics that come next would have found (the
:class:`~symshape.decision.tactics.split.PoolSplit` of its first points and
of the rest, run then), and where the pool has none of one side, the
smallest witness of that side.  The counterexample and the witness reported are the smallest
valuations either way (:mod:`symshape.decision.minimize` is exact within
its budget), so deciding here changes no answer.

The tactic runs only where the witnesses tried do not depend on the names
of the variables (at most :data:`~symshape.witness.MAX_MOVED` of them, see
:meth:`symshape.witness.SignWitnesses.variables`): elsewhere an open claim
this tactic misses might be left undecided by the tactics after it, and the
status would depend on the names.  Nor does it run in a scope of more than
:data:`MAX_FACTS` facts: a fixed valuation shows a sign only where it
satisfies every fact, which few do in such scopes, while each valuation
tried costs a pass over the facts, and a claim the search then proves has
paid for nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from symshape.algebra.dimexpr import DimExpr
from symshape.decision import poly as P
from symshape.decision.facts import Link
from symshape.decision.minimize import size_order
from symshape.decision.pool import ScopePool
from symshape.decision.tactics.base import DEPENDS, Outcome, Query, Tactic
from symshape.decision.valuations import Point
from symshape.decision.verdict import Status
from symshape.witness import MAX_MOVED

#: the most facts of a scope where the witnesses are tried (see above)
MAX_FACTS = 16


class Witnessed(Tactic):
    """An inconclusive claim ``d >= 0`` shown by two sign witnesses.
    ``pool_tactics``: the tactics of the pool that come next, which find
    the valuations its evidence starts from."""

    name = "sign witnesses"

    def __init__(self, pool: ScopePool, scope: Any, pool_tactics: tuple[Tactic, ...]) -> None:
        self.pool = pool
        self.scope = scope
        self.pool_tactics = pool_tactics

    def run(self, q: Query) -> Outcome | None:
        if len(q.links) != 1:
            return None
        op, d, _ = q.links[0]
        if op != ">=" or P.is_constant(d):
            return None
        # (d is the polynomial of a normalized expression of this scope)
        e = DimExpr(dict(d), self.scope)
        witnesses = self.scope.sign_witnesses()
        if witnesses.fact_count() > MAX_FACTS:
            return None
        names = witnesses.variables(e)
        if len(names) > MAX_MOVED or witnesses.signs(e, 3, names) != 3:
            return None
        start = _EvidenceStart(self, q.links, e)
        return Outcome(Status.INCONCLUSIVE, None, None, None, DEPENDS, find_points=start.find)


class _EvidenceStart:
    """The valuations the evidence of a witnessed claim starts from (see
    the module's docstring): a function of the scope and the claim alone,
    so finding them late changes nothing."""

    def __init__(self, tactic: Witnessed, links: Sequence[Link], e: DimExpr) -> None:
        self.tactic = tactic
        self.links = links
        self.e = e

    def find(self) -> tuple[Point | None, Point | None]:
        q = Query(self.links, "", (0, 0))
        for t in self.tactic.pool_tactics:
            t.run(q)
        holds, fails = q.holds, q.fails
        if holds is None:
            holds = self._smallest(1)
        if fails is None:
            fails = self._smallest(2)
        return holds, fails

    def _smallest(self, sign: int) -> Point | None:
        found = self.tactic.scope.sign_witnesses().showing(self.e, sign)
        if not found:  # pragma: no cover - the witnesses showed both signs
            return None
        names = sorted(found[0])
        return self.tactic.pool.verified_point(min(found, key=lambda env: size_order(env, names)))


__all__ = ["MAX_FACTS", "Witnessed"]
