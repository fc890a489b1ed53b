"""Sound bounds of an expression over the valid valuations of a scope
(:class:`TightBounds`): tight for the linear fragment, up to the work budget.

A lower bound is searched for down from the smallest value seen at a valid
valuation (which the true minimum is at most), each candidate proved by a
search; the upper bound is the lower bound of the negation.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from symshape.algebra.atoms import Var
from symshape.algebra.bounds import Bound
from symshape.decision import poly as P
from symshape.decision.poly import Poly
from symshape.decision.pool import ModelFinder, ScopePool
from symshape.decision.search import Model, Refuted, Result
from symshape.decision.simplex import Budget, Limits

# Work budget for each side of bounds(), all steps together, and the most steps.
BOUNDS_BUDGET = (120_000, 3000)
BOUNDS_STEPS = 80

# One search over the scope's facts and the hypotheses ``hyps >= 0``.
Searcher = Callable[[Sequence[Poly], Budget], Result]


class TightBounds:
    """The bounds of one scope's expressions."""

    def __init__(self, pool: ScopePool, search: Searcher, find_model: ModelFinder) -> None:
        self.pool = pool
        self.search = search
        self.find_model = find_model

    def bounds(self, p: Poly, interval: tuple[Bound, Bound],
               limits: Limits) -> tuple[Bound, Bound]:
        """The lower and upper bound of ``p``, tightened from its ``interval``."""
        lo_i, hi_i = interval
        limits.what = "searching for the lower bound"
        lo = self.tight_lower(p, lo_i, limits.budget(BOUNDS_BUDGET))
        limits.what = "searching for the upper bound"
        hi = self.tight_lower(P.scale(p, -1), -hi_i, limits.budget(BOUNDS_BUDGET))
        return lo, -hi if hi != -math.inf else math.inf

    def tight_lower(self, p: Poly, proven: Bound, budget: Budget) -> Bound:
        """The largest ``L`` with ``p >= L`` proved, searching down from values
        achieved at valid valuations (where ``p`` is defined)."""
        sp = self.pool
        dom = sp.domain([p])
        pool = sp.question_pool(sp.get_pool(), [p])
        vals = pool.values(p)
        if dom:
            ok = [all(v >= 0 for v in col) for col in zip(*(pool.values(d) for d in dom),
                                                            strict=True)]
            vals = [v for v, good in zip(vals, ok, strict=True) if good]
        if not vals:
            m = self.find_model(dom)
            if m is None:
                return proven
            vals = [sp.point(m).poly(p)]
        best = min(vals)  # achieved, so the true minimum is <= best
        if proven == best:
            return best
        if proven == -math.inf and self.unbounded_below(p):
            return -math.inf
        gap = 1
        first = True
        for _ in range(BOUNDS_STEPS):
            if proven >= best:
                return best
            if first:
                mid = best
                first = False
            elif proven == -math.inf:
                mid = best - gap
                gap *= 2
            else:
                mid = best - (best - int(proven)) // 2
            # prove p >= mid by refuting p <= mid - 1
            hyp = P.add(P.scale(p, -1), P.const(mid - 1))
            r = self.search([hyp], budget)
            if isinstance(r, Refuted):
                proven = mid
            elif isinstance(r, Model):
                best = min(best, sp.verified_point(r.env).poly(p))
            else:
                return proven
        return proven

    def unbounded_below(self, p: Poly) -> bool:
        """Heuristic: ``p`` decreases without bound along a ray of valid
        valuations (only ever used to report the always-sound bound -inf)."""
        sp = self.pool
        pool = sp.get_pool()
        if not pool.points:
            return False
        mine = sorted({a.name for a in sp.lin.closure([p]) if type(a) is Var})
        if not mine:
            return False
        names = sorted(set(mine) | set(sp.constraint_vars()))
        size = max((abs(c) for q in [p] + sp.constraint_polys() for c in q.values()),
                   default=1)
        t0 = 1 << (size.bit_length() + 24)
        base = sp.question_pool(pool, [p]).point(0)
        env0 = base.report(names)
        # a few directions: all variables together, then single variables of p
        directions = [{n: 1 for n in names}] + [{n: 1} for n in mine[:6]]
        for d in directions:
            vals = []
            for t in (t0, 2 * t0, 4 * t0):
                env = dict(env0)
                for n, k in d.items():
                    env[n] = env[n] + k * t
                pt = sp.point(env, base.seed)
                if not sp.valid(pt):
                    break
                vals.append(pt.poly(p))
            if len(vals) == 3 and vals[0] > vals[1] > vals[2] and \
                    vals[1] - vals[2] >= vals[0] - vals[1] > 0:
                return True
        return False


__all__ = ["BOUNDS_BUDGET", "BOUNDS_STEPS", "Searcher", "TightBounds"]
