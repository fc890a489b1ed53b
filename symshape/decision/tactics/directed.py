"""Directed valuations: when the pool shows only one side of a single claim,
valuations pushed from a pool point along the directions that move the claim
(:mod:`symshape.decision.probe`) often show the other side without a search:
a ``>=`` is probed for the missing side, an equality that fails at every
pool point is solved along one variable.  Every valuation is checked
exactly: a wrong guess costs time, never an answer."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from symshape.decision import canon, probe
from symshape.decision.poly import Poly
from symshape.decision.pool import ScopePool
from symshape.decision.tactics.base import Outcome, Query, Tactic
from symshape.decision.valuations import Point


class Directed(Tactic):
    """The missing side of a single ``>=`` or ``==``, by directed valuations."""

    name = "directed valuations"

    def __init__(self, pool: ScopePool, scope: Any) -> None:
        self.pool = pool
        self.scope = scope

    def run(self, q: Query) -> Outcome | None:
        links = q.links
        if len(links) != 1:
            return None
        op, d, _ = links[0]
        holds, fails = q.holds, q.fails
        if (holds is None) != (fails is None) and op == ">=":
            # One side is missing from the pool: a directed valuation often
            # shows it without a search (see symshape.decision.probe).
            found = self.directed(d, holds or fails, want_fails=fails is None)
            if found is not None:
                if fails is None:
                    q.fails = found
                else:
                    q.holds = found
        elif holds is None and op == "==":
            # An equality that fails at every pool point: solve it along one
            # variable before a search looks for a valuation where it holds.
            q.holds = self.root(d, fails)
        return None

    def directed(self, d: Poly, start: Point | None, want_fails: bool) -> Point | None:
        """A valid valuation, defined for the query, where ``d >= 0`` fails
        (``want_fails``) or holds, among the directed valuations from the
        pool point ``start`` (see :mod:`symshape.decision.probe`)."""
        if start is None:
            return None
        constraints = self.pool.constraint_polys()
        dom = self.pool.domain([d])
        # A repaired valuation satisfies the constraints and the divisors'
        # conditions (checked exactly by the repair; values only grew from a
        # valid point): only the claim is left to check.
        signs = probe.movable(d)
        for env in probe.directed(self.start_env(start, signs), d, want_fails,
                                  [*constraints, *dom], canon.PlaceColorOrder([d, *constraints]),
                                  self.value, signs, self.scope.var_upper_bound):
            pt = self.pool.point(env)
            if (pt.poly(d) < 0) == want_fails:
                return pt
        return None

    def root(self, d: Poly, start: Point | None) -> Point | None:
        """A valid valuation, defined for the query, where ``d == 0``, among
        those that move one variable from the pool point ``start`` (see
        :func:`symshape.decision.probe.roots`)."""
        if start is None:
            return None
        pool = self.pool
        dom = pool.domain([d])
        order = canon.PlaceColorOrder([d, *pool.constraint_polys()])
        signs = probe.monotone_signs(d)
        for env in probe.roots(self.start_env(start, signs), d, order, self.value, signs):
            pt = pool.point(env)
            if pt.poly(d) == 0 and pool.valid(pt) and pt.satisfies(dom):
                return pt
        return None

    @staticmethod
    def start_env(start: Point, movers: Iterable[str]) -> dict[str, int]:
        """The values of the pool point ``start``, with those of the free
        variables among ``movers`` that it leaves implicit."""
        env = dict(start.env)
        for x in movers:
            if x not in env:
                env[x] = start.var(x)
        return env

    def value(self, env: dict[str, int], p: Poly) -> int | None:
        """``p`` at the valuation ``env``."""
        return Point(env, 0, self.pool.lin.sub_atoms).poly(p)


__all__ = ["Directed"]
