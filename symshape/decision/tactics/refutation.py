"""Proof and refutation by search: the negated claim (for a proof) or the
claim itself (for a refutation) is refuted by an exact search over the facts
of the query (:mod:`symshape.decision.linearize`, :mod:`symshape.decision.search`);
a refutation of every case is the certificate, and a valuation the search
finds instead is evidence for the other side."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from symshape.decision.certificate import Certificate, required_hypotheses
from symshape.decision.facts import Fact, Link, Refutation
from symshape.decision.poly import Poly
from symshape.decision.pool import ModelFinder, ScopePool
from symshape.decision.search import Model, Refuted, Result, Unknown
from symshape.decision.simplex import DEFAULT_LIMITS, Budget, Limits
from symshape.decision.tactics.base import Outcome, Query, Tactic
from symshape.decision.valuations import Point
from symshape.decision.verdict import Status, undecided_reason

# One search over the scope's facts and hypotheses (polynomials, budget, the
# note of the hypothesis facts, limits): the hypothesis facts and the result.
SearchWith = Callable[[Sequence[Poly], "tuple[int, int] | Budget", str, Limits],
                      "tuple[list[Fact], Result]"]


class Attempts:
    """Certificates of one polarity, by refuting every hypothesis set it needs."""

    def __init__(self, search_with: SearchWith, pool: ScopePool, scope: Any) -> None:
        self.search_with = search_with
        self.pool = pool
        self.scope = scope

    def attempt(self, links: Sequence[Link], claim: str, polarity: str,
                budget: tuple[int, int], limits: Limits = DEFAULT_LIMITS
                ) -> tuple[Certificate | None, Point | None, str]:
        """Refute every hypothesis set needed for ``polarity``; or return the
        evidence (a verified valuation) that shows it is impossible, or the
        reason the search gave up."""
        refs: list[Refutation] = []
        note = "negated claim" if polarity == "proved" else "claim"
        for hyp_set in required_hypotheses(links, polarity):
            hyps, r = self.search_with(hyp_set, budget, note, limits)
            if isinstance(r, Refuted):
                refs.append(Refutation(hyps, r.tree))
                continue
            if isinstance(r, Model):
                return None, self.pool.verified_point(r.env), ""
            return None, None, unknown_reason(r)
        return Certificate(claim, links, polarity, refs, self.scope), None, ""


class Prove(Tactic):
    """Refute the negated claim, unless a valuation is known where it fails."""

    name = "proof"

    def __init__(self, attempts: Attempts) -> None:
        self.attempts = attempts

    def run(self, q: Query) -> Outcome | None:
        if q.fails is not None:
            return None
        q.limits.what = "proving the claim"
        cert, ev, why = self.attempts.attempt(q.links, q.claim, "proved", q.budget, q.limits)
        if cert is not None:
            return Outcome(Status.PROVED, q.holds, None, cert, "")
        if ev is not None:
            q.fails = ev
        q.reason = why
        return None


class Refute(Tactic):
    """Refute the claim, unless a valuation is known where it holds."""

    name = "refutation"

    def __init__(self, attempts: Attempts, find_model: ModelFinder) -> None:
        self.attempts = attempts
        self.find_model = find_model

    def run(self, q: Query) -> Outcome | None:
        if q.holds is not None:
            return None
        q.limits.what = "refuting the claim"
        cert, ev, why = self.attempts.attempt(q.links, q.claim, "refuted", q.budget, q.limits)
        if cert is not None:
            fails = q.fails
            if fails is None:
                pool = self.attempts.pool
                m = self.find_model(pool.domain([d for _, d, _ in q.links]))
                fails = pool.point(m) if m is not None else None
            return Outcome(Status.REFUTED, None, fails, cert, "")
        if ev is not None:
            q.holds = ev
        q.reason = q.reason or why
        return None


def unknown_reason(r: Result) -> str:
    """Why a search that found neither a refutation nor a valuation gave up."""
    return undecided_reason(r.reason) if isinstance(r, Unknown) else ""


__all__ = ["Attempts", "Prove", "Refute", "SearchWith", "unknown_reason"]
