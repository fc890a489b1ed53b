"""Intervals: the scope's interval bounds settle the claim, with a
certificate that combines the bound facts of its monomials (see
:meth:`symshape.decision.linearize.Linearizer.bound_sum`): cheap, and as
strong as the comparison operators, which answer from the same intervals.

A claim the pool shows failing cannot be proved, nor one it shows holding
refuted, so those certificates are not attempted.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from symshape.algebra.atoms import Factors, FloorDiv, Max0, single_atom
from symshape.algebra.bounds import is_finite
from symshape.decision import poly as P
from symshape.decision.certificate import Certificate, required_hypotheses
from symshape.decision.facts import Fact, Leaf, Link, Refutation
from symshape.decision.linearize import Linearizer
from symshape.decision.poly import Poly
from symshape.decision.pool import ModelFinder, ScopePool
from symshape.decision.tactics.base import BY_INTERVALS, Outcome, Query, Tactic
from symshape.decision.valuations import Point
from symshape.decision.verdict import Status

# links, claim, polarity -> the interval certificate, or None
IntervalCertifier = Callable[[Sequence[Link], str, str], "Certificate | None"]


class IntervalProof:
    """Certificates from interval bounds alone."""

    def __init__(self, lin: Linearizer, scope: Any) -> None:
        self.lin = lin
        self.scope = scope

    def certificate(self, links: Sequence[Link], claim: str,
                    polarity: str) -> Certificate | None:
        """Refute each hypothesis set of ``polarity`` by one hypothesis ``h``
        whose interval upper bound is negative: the bound facts of the
        monomials of ``-h`` add up to ``-h - L >= 0`` with ``L >= 1``.  Where
        the terms' own bounds do not settle it, floordivs by constants and
        maxima are relaxed through their axioms first (see
        :meth:`relaxed_leaf`)."""
        refs: list[Refutation] = []
        note = "negated claim" if polarity == "proved" else "claim"
        for hyp_set in required_hypotheses(links, polarity):
            hyps = [Fact(h, "hyp", note=note) for h in hyp_set]
            leaf = None
            for hf in hyps:
                if self.scope.terms_interval(hf.poly)[1] >= 0:
                    leaf = self.relaxed_leaf(hf)
                    if leaf is not None:
                        break
                    continue
                if P.is_constant(hf.poly):  # a negative constant: refuted alone
                    leaf = Leaf([(1, hf)])
                    break
                leaf = self.bound_leaf([], 1, hf)
                if leaf is not None:
                    break
            if leaf is None:
                return None
            refs.append(Refutation(hyps, leaf))
        return Certificate(claim, links, polarity, refs, self.scope)

    def bound_leaf(self, axioms: list[tuple[int, Fact]], scale: int, hf: Fact,
                   rest: Poly | None = None) -> Leaf | None:
        """The contradiction ``scale*hf + sum(w*axiom) + (rest - L >= 0)``,
        where ``rest`` is ``-scale*hf.poly`` less the weighted ``axioms`` (by
        default ``-hf.poly``) and ``rest - L >= 0`` the sum of its monomials'
        bound facts; None unless the total is a negative constant."""
        if rest is None:
            rest = P.scale(hf.poly, -1)
        items = [*axioms, (scale, hf)]
        if not P.is_constant(rest):
            f = self.lin.bound_sum(rest)
            if f is None:
                return None
            items.append((1, f))
        leaf = Leaf(items)
        return leaf if leaf.closes() else None

    def relaxed_leaf(self, hf: Fact) -> Leaf | None:
        """``hf.poly <= -1`` shown after relaxing top-level atoms of ``p =
        -hf.poly`` through their axioms: each ``c*q``, ``q = floordiv(N, k)``
        for a constant ``k``, by ``k*q >= N - k + 1`` where ``c > 0`` and
        ``k*q <= N`` where ``c < 0`` (``p`` scaled by the lcm of the
        divisors); and ``c*max(D, 0)`` with ``c > 0`` by ``max(D, 0) >= D``,
        for each choice of such maxima (all of them beyond three).  This sees
        the cancellations in ``a - 4*floordiv(a, 4)`` (``mod(a, 4)``) and in
        ``b + max(a - b, 0) - a`` (``max(a, b) - a``) that bounds of each term
        alone miss (as ``IntervalBounds._relaxed_interval`` does for the
        intervals)."""
        p = P.scale(hf.poly, -1)
        fds: list[tuple[int, FloorDiv, int]] = []
        maxes: list[tuple[int, Max0]] = []
        scale = 1
        for m, c in p.items():
            a = single_atom(m)
            if a is not None:
                if type(a) is FloorDiv and isinstance(a.den, int):
                    fds.append((c, a, a.den))
                    scale = math.lcm(scale, a.den)
                elif type(a) is Max0 and c > 0:
                    maxes.append((c, a))
        if not fds and not maxes:
            return None
        base = P.scale(p, scale)
        fd_axioms: list[tuple[int, Fact]] = []
        for c, a, k in fds:
            fd_lo, fd_hi = self.lin.axioms(a)[:2]  # num - k*q >= 0, k*q + k - 1 - num >= 0
            w = abs(c) * scale // k
            ax = fd_hi if c > 0 else fd_lo
            P.add_into(base, ax.poly, -w)
            fd_axioms.append((w, ax))
        n = len(maxes)
        masks = range(1 << n) if n <= 3 else (0, (1 << n) - 1)
        for mask in masks:
            if mask == 0 and not fds:
                continue  # nothing relaxed: the plain bounds already failed
            rest = dict(base)
            axioms = list(fd_axioms)
            for i, (c, a) in enumerate(maxes):
                if mask >> i & 1:
                    ax = self.lin.axioms(a)[1]  # max(D, 0) - D >= 0
                    P.add_into(rest, ax.poly, -c * scale)
                    axioms.append((c * scale, ax))
            if not self.may_close(rest):
                continue
            leaf = self.bound_leaf(axioms, scale, hf, rest)
            if leaf is not None:
                return leaf
        return None

    def may_close(self, rest: Poly) -> bool:
        """False when the bound facts of the monomials of ``rest`` cannot sum
        to ``rest - L >= 0`` with ``L >= 1``, as :meth:`bound_leaf` needs:
        found from the intervals, without proving the lemmas that a failed
        attempt proves for every monomial (most of a claim's time with
        nested divisions).

        The bound facts (see ``Linearizer.atom_lower``, ``atom_upper`` and
        ``mono_bounds``) are never tighter than the scope's intervals, but
        for a division by a symbolic divisor, which facts may bound by 0
        beyond its interval (``floordiv(n, d) >= 0`` from ``n >= 0``, ``<= 0``
        from ``n <= d - 1``).  A product's facts exist only where each
        factor's lower bound fact is at least 0; its lower bound is the
        product of the factors' lower bounds, its upper bound that of their
        upper bounds.  So each term's bound is at most (at least, for the
        upper bounds of negative terms) what is summed here."""
        total = P.constant(rest)
        for m, c in rest.items():
            if not m:
                continue
            pairs: Factors = m
            product = len(pairs) > 1 or pairs[0][1] > 1
            term = 1
            for a, k in pairs:
                lo, hi = self.lin.mono_interval(P.atom_mono(a))
                if type(a) is FloorDiv and not isinstance(a.den, int):
                    lo, hi = max(lo, 0), min(hi, 0)
                if c > 0:
                    if not is_finite(lo) or (product and lo < 0):
                        return False  # no lower bound fact of the term
                    term *= int(lo) ** k
                else:
                    if not is_finite(hi):
                        return False  # no upper bound fact of the term
                    term *= (max(int(hi), 0) if product else int(hi)) ** k
            total += c * term
        return total >= 1


class Intervals(Tactic):
    """A refutation from interval bounds alone, when they settle the claim
    (the proof side is :class:`IntervalsFirst`).  ``certify`` makes the
    certificate (the decider's :meth:`IntervalProof.certificate`).

    It needs no valuation, so it runs before the pool is built: the
    valuation its counterexample starts from (the pool's first point, else
    a model the search finds) is found only when the verdict's evidence is
    read (see :class:`RefutationStart`).  A claim the pool shows holding
    somewhere is never refuted here (the bounds are sound), so running
    first changes no answer."""

    name = "intervals"

    def __init__(self, certify: IntervalCertifier, pool: ScopePool,
                 find_model: ModelFinder) -> None:
        self.certify = certify
        self.pool = pool
        self.find_model = find_model

    def run(self, q: Query) -> Outcome | None:
        links, claim = q.links, q.claim
        cert = self.certify(links, claim, "refuted")
        if cert is None:
            return None
        start = RefutationStart(self.pool, self.find_model, [d for _, d, _ in links])
        return Outcome(Status.REFUTED, None, None, cert, BY_INTERVALS, find_points=start.find)


class RefutationStart:
    """The valuation the counterexample of a claim refuted by its intervals
    starts from: the pool's first point, or where the pool has none, a model
    of the domain of ``polys`` (their divisors >= 1) that the search finds.
    A function of the scope alone, so finding it late changes nothing."""

    def __init__(self, pool: ScopePool, find_model: ModelFinder, polys: list[Poly]) -> None:
        self.pool = pool
        self.find_model = find_model
        self.polys = polys

    def find(self) -> tuple[Point | None, Point | None]:
        """``(None, the valuation)`` (an outcome's points; None where none is found)."""
        sp, polys = self.pool, self.polys
        pool = sp.get_prefix()  # (its first point is the pool's)
        if pool.points:
            return None, sp.question_pool(pool, polys).point(0)
        m = self.find_model(sp.domain(polys))
        return None, (sp.point(m) if m is not None else None)


class IntervalsFirst(Tactic):
    """A proof from interval bounds, before the pool is built: it needs no
    valuation, and a one-off ``prove`` that intervals settle (most of the
    cheap ones) then never pays for the scope's pool."""

    name = "intervals first"

    def __init__(self, certify: IntervalCertifier) -> None:
        self.certify = certify

    def run(self, q: Query) -> Outcome | None:
        cert = self.certify(q.links, q.claim, "proved")
        return None if cert is None else Outcome(Status.PROVED, None, None, cert, BY_INTERVALS)


__all__ = ["IntervalCertifier", "IntervalProof", "Intervals", "IntervalsFirst",
           "RefutationStart"]
