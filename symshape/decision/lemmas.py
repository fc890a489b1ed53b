"""Lemmas: facts ``target >= 0`` that the linearizer asks for, each proved
once per scope (:class:`Lemmas`).

A lemma about one atom is settled without a search where the answer is
plain (an axiom times a constant, a bound that interval propagation proved,
the bounds of a quotient by a constant from those of its numerator); any
other is proved by a small search over the facts below its level.
"""

from __future__ import annotations

from typing import Any

from symshape.algebra.atoms import FloorDiv, Var
from symshape.decision import poly as P
from symshape.decision.fact_kinds import make_combo
from symshape.decision.facts import Fact, Leaf, Refutation
from symshape.decision.linearize import Linearizer
from symshape.decision.poly import Poly
from symshape.decision.pool import ScopePool
from symshape.decision.search import Refuted, Search, too_large
from symshape.decision.simplex import Budget

# Work budget (work units ~ row updates, search nodes) of one lemma's search.
LEMMA_BUDGET = (3_000, 40)

#: What :meth:`Lemmas.variable_lemma` returns for a target it does not settle.
UNSETTLED: Any = object()


class Lemmas:
    """The lemmas of one scope, proved on demand and cached."""

    def __init__(self, lin: Linearizer, pool: ScopePool) -> None:
        self.lin = lin
        self.pool = pool
        self.cache: dict[Any, Fact | None] = {}

    def prove(self, target: Poly, level: int) -> Fact | None:
        """``target >= 0`` proved from the facts below ``level`` (cached), or None."""
        k = (P.hkey(target), level)
        if k in self.cache:
            return self.cache[k]
        settled = self.variable_lemma(target)
        if settled is not UNSETTLED:
            self.cache[k] = settled
            return settled
        neg = P.add(P.scale(target, -1), P.const(-1))
        hyp = Fact(neg, "hyp", note="negated lemma")
        budget = Budget(*LEMMA_BUDGET)
        out = None
        if too_large([neg], budget) or self.pool.fails_at_first_points(target):
            # A lemma that fails at a valid valuation (the pool's first
            # points) is false: every fact a search would use holds there,
            # so the search could only spend its budget and fail (the
            # answer is None either way, only its cost differs).
            self.cache[k] = None
            return None
        facts = self.lin.facts([neg], level)
        r = Search(facts, [hyp], budget).run()
        if isinstance(r, Refuted):
            out = Fact(target, "lemma", proof=Refutation([hyp], r.tree))
        self.cache[k] = out
        return out

    def variable_lemma(self, target: Poly) -> Any:
        """The lemma ``c*x + k >= 0`` about one atom ``x``, settled without a
        search where the answer is plain: a bound that interval propagation
        gave ``x`` shows the others it implies; for a variable ``v``,
        ``c*(v - 1) >= 0`` is the axiom ``v >= 1`` times ``c``, and a
        variable that no fact of the scope mentions has no other bound, so
        nothing more about it can be proved (None).  :data:`UNSETTLED` for
        every other target."""
        if len(target) > 2:
            return UNSETTLED
        terms = [(m, c) for m, c in target.items() if m]
        if len(terms) != 1:
            return UNSETTLED
        (m, c), = terms
        if len(m) != 1 or m[0][1] != 1:
            return UNSETTLED
        v = m[0][0]
        k = target.get(P.ONE, 0)
        if type(v) is Var:
            if c > 0 and k == -c:
                return make_combo([self.lin.axioms(v)[0]], [c])
            free = v.name not in self.pool.constraint_vars()
            if free and (c < 0 or k < -c):
                return None  # an upper bound, or a lower one above 1, of a free variable
        # c*x + k >= 0 from x >= lo (c > 0) or x <= hi (c < 0), propagated,
        # or for a quotient by a constant, from the bounds of its numerator
        lemma = lemma_from_bound(target, c, self.lin.propagated_fact(m, 0 if c > 0 else 1))
        if lemma is None and type(v) is FloorDiv:
            lemma = lemma_from_bound(target, c, self.quotient_bound(v, c > 0))
        return UNSETTLED if lemma is None else lemma

    def quotient_bound(self, q: FloorDiv, lower: bool) -> Fact | None:
        """``q >= floor(L/k)`` (``lower``) or ``q <= floor(U/k)`` for ``q =
        floordiv(N, k)`` with a constant ``k``: the axiom ``k*q + k - 1 - N >=
        0`` (or ``N - k*q >= 0``) plus the bound facts of the terms of ``N``,
        divided by ``k`` and rounded."""
        if not isinstance(q.den, int) or q.den < 1:
            return None
        num = P.operand_poly(q.num)
        if P.is_constant(num):
            return None
        fd_lo, fd_hi = self.lin.axioms(q)[:2]  # N - k*q >= 0, k*q + k - 1 - N >= 0
        terms = self.lin.bound_sum(num if lower else P.scale(num, -1))
        if terms is None:
            return None
        return make_combo([fd_hi if lower else fd_lo, terms], [1, 1], divisor=q.den)


def lemma_from_bound(target: Poly, c: int, bound: Fact | None) -> Fact | None:
    """The lemma ``target >= 0`` (``c*x + k``) shown by ``bound``, a fact
    ``x - lo >= 0`` (``c > 0``) or ``hi - x >= 0``, when it implies it."""
    if bound is None:
        return None
    hyp = Fact(P.add(P.scale(target, -1), P.const(-1)), "hyp", note="negated lemma")
    leaf = Leaf([(abs(c), bound), (1, hyp)])
    return Fact(target, "lemma", proof=Refutation([hyp], leaf)) if leaf.closes() else None


__all__ = ["LEMMA_BUDGET", "UNSETTLED", "Lemmas", "lemma_from_bound"]
