"""Sign witnesses: a claim ``d >= 0`` that the scope's fixed valid valuations
(:mod:`symshape.witness`, the ones the comparison operators try before any
decision) show positive at one and negative at another is inconclusive,
without building the pool.

Most open claims are shown so, and their verdict needs no valuation until
its evidence is read: the valuations the evidence starts from are then
those the pool would have given (its first point where the claim holds and
its first where it fails, as :class:`~symshape.decision.tactics.split.PoolSplit`
finds them), and where the pool has none of one side, the smallest witness
of that side.  The counterexample and the witness reported are the smallest
valuations either way (:mod:`symshape.decision.minimize` is exact within
its budget), so deciding here changes no answer.

The tactic runs only where the witnesses tried do not depend on the names
of the variables (:meth:`symshape.witness.SignWitnesses.tries_every_variable`):
elsewhere an open claim this tactic misses might be left undecided by the
tactics after it, and the status would depend on the names.  Nor does it run
in a scope of more than :data:`MAX_FACTS` facts: a fixed valuation must
satisfy every one of them, which few do there (on the claims of
``benchmarks/bench_coldpath.py``'s families, drawn with another seed, the
witnesses settled 109 of 175 claims in scopes of 0-3 facts, 16 of 42 at 8-11
and none of 62 past 15), while each valuation tried costs a pass over all
of them: a claim the search then proves paid for nothing.
"""

from __future__ import annotations

from typing import Any

from symshape.algebra.dimexpr import DimExpr
from symshape.decision import poly as P
from symshape.decision.minimize import size_order
from symshape.decision.poly import Poly
from symshape.decision.pool import ScopePool
from symshape.decision.tactics.base import DEPENDS, Outcome, Query, Tactic
from symshape.decision.valuations import Point
from symshape.decision.verdict import Status

#: the most facts of a scope where the witnesses are tried (see above)
MAX_FACTS = 16


class Witnessed(Tactic):
    """An inconclusive claim ``d >= 0`` shown by two sign witnesses."""

    name = "sign witnesses"

    def __init__(self, pool: ScopePool, scope: Any) -> None:
        self.pool = pool
        self.scope = scope

    def run(self, q: Query) -> Outcome | None:
        if len(q.links) != 1:
            return None
        op, d, _ = q.links[0]
        if op != ">=" or P.is_constant(d):
            return None
        # (d is the polynomial of a normalized expression of this scope)
        e = DimExpr(dict(d), self.scope)
        witnesses = self.scope.sign_witnesses()
        if witnesses.fact_count() > MAX_FACTS or not witnesses.tries_every_variable(e) \
                or witnesses.signs(e, 3) != 3:
            return None
        start = _EvidenceStart(self.pool, witnesses, d, e)
        return Outcome(Status.INCONCLUSIVE, None, None, None, DEPENDS, find_points=start.find)


class _EvidenceStart:
    """The valuations the evidence of a witnessed claim starts from (see
    the module's docstring): a function of the scope and the claim alone,
    so finding them late changes nothing."""

    def __init__(self, pool: ScopePool, witnesses: Any, d: Poly, e: DimExpr) -> None:
        self.pool = pool
        self.witnesses = witnesses
        self.d = d
        self.e = e

    def find(self) -> tuple[Point | None, Point | None]:
        links = [(">=", self.d)]
        holds, fails = self.pool.split(links, "prefix")
        if holds is None or fails is None:
            more_holds, more_fails = self.pool.split(links, "rest")
            holds, fails = holds or more_holds, fails or more_fails
        if holds is None:
            holds = self._smallest(1)
        if fails is None:
            fails = self._smallest(2)
        return holds, fails

    def _smallest(self, sign: int) -> Point | None:
        found = self.witnesses.showing(self.e, sign)
        if not found:  # pragma: no cover - the witnesses showed both signs
            return None
        names = sorted(found[0])
        return self.pool.verified_point(min(found, key=lambda env: size_order(env, names)))


__all__ = ["MAX_FACTS", "Witnessed"]
