"""The decision procedure of a scope: :class:`Decider`, a facade over one
module per job.

A claim is decided by running tactics in order, each only while the answer
is open (:mod:`symshape.decision.tactics`; the two lists are built in
:meth:`Decider._reset`):

* for ``prove`` (:meth:`Decider.prove_links`): the intervals, sign
  witnesses, the pool, directed valuations, proof, refutation, small
  valuations;
* for the comparison operators (:meth:`Decider.decide_ge0`, with a smaller
  budget): the pool, directed valuations, proof, refutation.

The jobs, each in its own module: the scope's valid valuations and their
pool (:mod:`~symshape.decision.pool`), lemmas (:mod:`~symshape.decision.lemmas`),
bounds (:mod:`~symshape.decision.tight_bounds`), the words of its messages
(:mod:`~symshape.decision.messages`).  What is left here: the caches of
answers (per scope, keyed by canonical form, dropped when the scope's facts
change), the evidence and certificates of verdicts, and the hooks every
search (:meth:`Decider._search_with`), lemma (:meth:`Decider._lemma`) and
interval certificate (:meth:`Decider._interval_certificate`) goes through:
the job modules get them as callbacks, so one override sees every call.

The core calls :meth:`Decider.decide_ge0` while it builds ``max`` and
``floordiv`` expressions, so nothing here builds expressions with
``max_expr``/``floordiv`` of the scope: the procedure works on polynomials.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from functools import partial
from typing import Any

from symshape._mypyc import mypyc_attr
from symshape.algebra.bounds import Bound
from symshape.algebra.dimexpr import DimExpr, comparison_difference
from symshape.collector import collector_paused
from symshape.decision import minimize
from symshape.decision import poly as P
from symshape.decision.certificate import Certificate, required_hypotheses
from symshape.decision.facts import Fact, Link
from symshape.decision.lemmas import UNSETTLED as _MISSING
from symshape.decision.lemmas import Lemmas
from symshape.decision.linearize import Linearizer
from symshape.decision.messages import inconclusive_text, unsatisfiable
from symshape.decision.poly import Poly
from symshape.decision.pool import ScopePool
from symshape.decision.search import Model, Refuted, Result, Search, Unknown, too_large
from symshape.decision.simplex import DEFAULT_LIMITS, Budget, Limits
from symshape.decision.tactics import (
    BY_INTERVALS,
    DEPENDS,
    OPEN,
    Attempts,
    Directed,
    IntervalProof,
    Intervals,
    IntervalsFirst,
    Outcome,
    PoolSplit,
    Prove,
    Query,
    Refute,
    SmallValuations,
    Tactic,
    Witnessed,
    run_tactics,
    small_points,
)
from symshape.decision.tight_bounds import BOUNDS_BUDGET, TightBounds
from symshape.decision.verdict import Lease, Status, Verdict
from symshape.scope import register_decider

# Work budgets (work units ~ row updates, search nodes) per search.  A
# decision's searches spend them in two stages (Budget.staged, in
# _search_with): one that closes no case split in the first quarter gives up
# there, so an undecided comparison costs a quarter of DECIDE_BUDGET at most
# where its search makes no progress.
DECIDE_BUDGET = (30_000, 400)
PROVE_BUDGET = (120_000, 1500)
CACHE_MAX = 200_000
#: a search first runs over the scope's facts and the hypotheses alone, with
#: this share of its budget and this depth of case splits (see
#: Decider._search_with): a refutation there needs few splits or none
QUICK_SHARE = 32
QUICK_DEPTH = 3


# An ordinary class with compiled methods: tests and tools patch and spy on
# its hooks, and release() empties its __dict__.
@mypyc_attr(native_class=False)
class Decider:
    """Decides ``e >= 0``, bounds and satisfiability for one scope."""

    lin: Linearizer

    def __init__(self, scope: Any) -> None:
        self.scope = scope
        self._lock = threading.RLock()
        self._gen: tuple[Any, ...] | None = None
        self._reset()
        self._gen = self._generation()

    # -- state -------------------------------------------------------------------
    def _generation(self) -> tuple[Any, ...]:
        return self.scope.fact_generation

    def _sync(self) -> None:
        g = self._generation()
        if g != self._gen:
            with self._lock:
                if g != self._gen:
                    self._reset()
                    self._gen = g

    def clear_answers(self) -> None:
        """Forget every answer, lemma, learned valuation and fact proved on the
        way; keep what follows from the scope's structure alone (the axioms of
        atoms, the facts of the constraints).  Answers do not change."""
        with self._lock:
            self._sync()
            self._reset(self.lin.structural_copy(self._lemma, self._probe))

    def release(self) -> None:
        """Drop every reference this decider and its linearizer hold (they
        refer to each other through their callbacks, a reference cycle), for
        :meth:`symshape.SymbolicScope.release`: neither is used again."""
        lin = self.__dict__.get("lin")
        if lin is not None:
            lin.release()
        self.__dict__.clear()

    def _reset(self, lin: Linearizer | None = None) -> None:
        """Empty caches, and the jobs built afresh (on ``lin``, if given)."""
        self._dcache: dict[DimExpr, bool | None] = {}
        self._ocache: dict[DimExpr, int] = {}
        self._evidence: dict[DimExpr, Outcome] = {}
        self._etexts: dict[tuple[str, Any, Any], str] = {}
        self._bcache: dict[tuple[DimExpr, float], tuple[Bound, Bound]] = {}
        self._vcache: dict[Any, Outcome] = {}
        self._pcache: dict[Any, Outcome] = {}
        self.lin = Linearizer(self.scope, self._lemma, self._probe) if lin is None else lin
        self.pool = ScopePool(self.scope, self.lin, self._lock, self._find_model)
        self.lemmas = Lemmas(self.lin, self.pool)
        self.interval_proof = IntervalProof(self.lin, self.scope)
        self.attempts = Attempts(self._search_with, self.pool, self.scope)
        self.tight_bounds = TightBounds(self.pool, self._search, self._find_model)
        first_points = PoolSplit(self.pool, "prefix")
        other_points = PoolSplit(self.pool, "rest")
        pool = PoolSplit(self.pool)
        directed = Directed(self.pool, self.scope)
        proof = Prove(self.attempts)
        refutation = Refute(self.attempts, self._find_model)
        # The order of the tactics: the comparisons', then prove's (which is
        # thorough: where the searches ran out, it looks at small valuations).
        # The interval bounds come first, for both sides: they need no
        # valuation, and a claim they refute holds at no pool point (they are
        # sound), so no pool is built for a claim they settle (the start of
        # a refutation's counterexample is found when the evidence is read).
        # (The comparisons build the whole pool at once: the scope's operators
        # ask it about the atoms they build, and most of their questions are
        # settled by the intervals before a comparison is asked.)
        self.comparison_tactics: tuple[Tactic, ...] = (pool, directed, proof, refutation)
        self.proof_tactics: tuple[Tactic, ...] = (
            IntervalsFirst(self._interval_certificate),
            Intervals(self._interval_certificate, self.pool, self._find_model),
            Witnessed(self.pool, self.scope, (first_points, other_points)), first_points,
            other_points, directed, proof, refutation, SmallValuations(self.pool))

    def constraint_vars(self) -> tuple[str, ...]:
        """Names of the variables that occur in constraints or implicit facts."""
        return self.pool.constraint_vars()

    # -- the hooks: every search, lemma and interval certificate ------------------
    def _search_with(self, hyp_polys: Sequence[Poly], budget: tuple[int, int] | Budget,
                     note: str, limits: Limits = DEFAULT_LIMITS) -> tuple[list[Fact], Result]:
        """One search over the scope's facts and ``hyp_polys``; also the
        hypothesis facts, which a refutation's certificate refers to.  The
        axioms of the atoms of ``hyp_polys`` include ``den >= 1`` for their
        symbolic divisors: the search only considers valuations where the
        query is defined."""
        with self._lock:
            hyps = [Fact(h, "hyp", note=note) for h in hyp_polys]
            # A decision's search gives up early where it makes no progress
            # (see Budget.staged); a budget passed in is used as it is.
            b = budget if isinstance(budget, Budget) else limits.budget(budget).staged()
            if too_large(hyp_polys, b):
                return hyps, Unknown("work budget: the claim has too many terms")
            accept = partial(self._accepts, list(hyp_polys) + self.pool.domain(hyp_polys))
            if not isinstance(budget, Budget):
                # First the facts of the scope and the hypotheses alone, with
                # a share of the budget: most refutations need none of the
                # derived facts (bounds, lemmas, products of bounds), which
                # cost more to build than such a search.  A refutation or a
                # verified model found here is the answer; else the full search.
                share = limits.budget((budget[0] // QUICK_SHARE, budget[1] // QUICK_SHARE))
                share.max_depth = min(share.max_depth, QUICK_DEPTH)
                quick = Search(self.lin.facts(hyp_polys, level=0), hyps, share, accept).run()
                if isinstance(quick, Refuted | Model):
                    return hyps, quick
            facts = self.lin.facts(hyp_polys)
            return hyps, Search(facts, hyps, b, accept).run()

    def _search(self, hyp_polys: Sequence[Poly], budget: tuple[int, int] | Budget) -> Result:
        return self._search_with(hyp_polys, budget, "hypothesis")[1]

    # (The callbacks below are methods handed out bound, with functools.partial
    # where they carry arguments: in a compiled module a nested function or
    # a lambda in a method of this ordinary class fails to compile.)
    def _accepts(self, checks: list[Poly], env: dict[str, int]) -> bool:
        """Whether a search's model is a valid valuation where ``checks`` hold."""
        pt = self.pool.point(env)
        return self.pool.valid(pt) and pt.satisfies(checks)

    def _model_of(self, limits: Limits, hyps: list[Poly]) -> dict[str, int] | None | bool:
        """The minimizer's search: a model of ``hyps``, None where they are
        refuted, False where the search ran out."""
        r = self._search_with(hyps, DECIDE_BUDGET, "hypothesis", limits)[1]
        if isinstance(r, Model):
            return r.env
        return None if isinstance(r, Refuted) else False

    def _valid_for(self, hyps: list[Poly], env: dict[str, int]) -> bool:
        """The minimizer's check: ``env`` is a valid valuation where ``hyps``
        and their divisors' domain hold."""
        sp = self.pool
        pt = sp.point(env)
        return sp.valid(pt) and pt.satisfies((*hyps, *sp.domain(hyps)))

    def _evidence_of(self, links: Sequence[Link], out: Outcome, names: Sequence[str],
                     scale: float) -> tuple[dict[str, int] | None, dict[str, int] | None]:
        """A verdict's evidence, found when first read: the variables of the
        constraints are found only then (most verdicts never need them)."""
        every = sorted(set(names) | set(self.constraint_vars()))
        return self.evidence(links, out, every, scale)

    def _find_model(self, hyps: Sequence[Poly] = ()) -> dict[str, int] | None:
        r = self._search(hyps, DECIDE_BUDGET)
        return r.env if isinstance(r, Model) else None

    def _lemma(self, target: Poly, level: int) -> Fact | None:
        """``target >= 0`` proved from the facts below ``level`` (cached), or
        None (the linearizer's callback, see :meth:`Lemmas.prove`)."""
        return self.lemmas.prove(target, level)

    def _variable_lemma(self, target: Poly) -> Any:
        """See :meth:`Lemmas.variable_lemma`."""
        return self.lemmas.variable_lemma(target)

    def _probe(self, f: Poly) -> list[int]:
        return self.pool.sample_values(f)

    def _interval_certificate(self, links: Sequence[Link], claim: str,
                              polarity: str) -> Certificate | None:
        """See :meth:`IntervalProof.certificate`."""
        return self.interval_proof.certificate(links, claim, polarity)

    # -- the interface used by the scope ------------------------------------------
    def decide_ge0(self, e: DimExpr | int) -> bool | None:
        """True if ``e >= 0`` for every valid valuation, False if ``e <= -1`` for
        every valid valuation, None if undecided."""
        if isinstance(e, int):
            return e >= 0
        self._sync()
        r = self._dcache.get(e, _MISSING)
        if r is not _MISSING:
            return r
        with collector_paused():  # (short-lived objects only: see symshape.collector)
            out = self._outcome([(">=", P.from_expr(e), "")], "", DECIDE_BUDGET)
        r = True if out.status is Status.PROVED else \
            False if out.status is Status.REFUTED else None
        if len(self._dcache) < CACHE_MAX:
            self._dcache[e] = r
        if r is None and len(self._evidence) < CACHE_MAX:
            self._evidence[e] = out
        return r

    def decide_order(self, e: DimExpr) -> int:
        """1 if ``e >= 0`` is proved, -1 if ``e <= 0`` is proved, else 0 (what
        ``max``/``min`` need, in one query)."""
        self._sync()
        r = self._ocache.get(e)
        if r is not None:
            return r
        p = P.from_expr(e)
        sp = self.pool
        pool = sp.question_pool(sp.get_pool(), [p])
        vals = pool.values(p)
        # Only points where the divisors of e are >= 1 are valuations of the question.
        for h in sp.domain([p]):
            vals = [v if d >= 0 else 0 for v, d in zip(vals, pool.values(h), strict=True)]
        positive = any(v > 0 for v in vals)
        if positive and any(v < 0 for v in vals):
            r = 0  # valid valuations of both signs: neither direction holds
        else:
            ge = self.decide_ge0(e)
            if ge is not None:
                r = 1 if ge else -1
            elif positive:
                r = 0  # e <= 0 fails at a valid valuation: no proof to look for
            else:
                r = -1 if self.decide_ge0(-e) is True else 0
        if len(self._ocache) < CACHE_MAX:
            self._ocache[e] = r
        return r

    def _outcome(self, links: Sequence[Link], claim: str,
                 budget: tuple[int, int]) -> Outcome:
        """Cached outcome with the comparison budget and tactics (separate
        from the cache of :meth:`prove_links`, so that answers never depend
        on the history).  Comparisons are not thorough: for them
        inconclusive and undecided are the same answer."""
        key = tuple((op, P.hkey(d)) for op, d, _ in links)
        out = self._vcache.get(key)
        if out is None:
            out = run_tactics(self.comparison_tactics, Query(links, claim, budget))
            if len(self._vcache) < CACHE_MAX:
                self._vcache[key] = out
        return out

    def prove_links(self, links: Sequence[Link], claim: str, names: Sequence[str],
                    budget: tuple[int, int] = PROVE_BUDGET,
                    limits: Limits = DEFAULT_LIMITS, lease: Lease | None = None) -> Verdict:
        """Decide the conjunction of ``links`` (``(op, d, text)``: ``d op 0``).
        ``lease``: the ownership of a private scope, held by the verdict."""
        self._sync()
        key = (tuple((op, P.hkey(d)) for op, d, _ in links), budget, limits.scale)
        out = self._pcache.get(key)
        if out is None:
            out = run_tactics(self.proof_tactics, Query(links, claim, budget, limits))
            # An answer cut short by the clock is not the answer to the query.
            if len(self._pcache) < CACHE_MAX and \
                    not (limits.timed and out.status is Status.UNDECIDED):
                self._pcache[key] = out
        return Verdict(claim, out.status, reason=out.reason if out.status in OPEN else "",
                       constraints=tuple(self.scope.constraint_texts),
                       certify=None if out.cert is None else
                       partial(self.certificate, links, claim, out, budget, limits.scale),
                       evidence=partial(self._evidence_of, links, out, names, limits.scale),
                       lease=lease)

    def certificate(self, links: Sequence[Link], claim: str, out: Outcome,
                    budget: tuple[int, int], scale: float = 1.0) -> Certificate:
        """The certificate of a decided outcome, for ``claim``.  A claim the
        intervals settled is proved again by the search when the certificate
        is first read: that proof cites the constraints it uses, where the
        interval certificate goes through the bounds of every monomial; the
        interval certificate stays the answer when the search runs out.
        ``scale``: the query's budget scale, which that search keeps to (a
        ``prove`` with a small budget is explained within it too)."""
        cert = out.cert
        assert cert is not None
        if out.reason == BY_INTERVALS:
            better, _, _ = self.attempts.attempt(links, claim, cert.polarity, budget,
                                                 Limits(scale))
            if better is not None:
                return better
        if cert.claim != claim:
            cert = Certificate(claim, links, cert.polarity, cert.refutations, self.scope)
        return cert

    def evidence(self, links: Sequence[Link], out: Outcome, names: Sequence[str],
                 scale: float = 1.0) -> tuple[dict[str, int] | None, dict[str, int] | None]:
        """The smallest counterexample and witness of ``links`` (see
        :mod:`minimize`), starting from the valuations the decision found;
        its searches keep to the query's budget ``scale``."""
        cex = wit = None
        if out.fails is not None:
            cex = self.smallest(links, "proved", out.fails.report(names), names, scale)
        if out.holds is not None and out.status in OPEN:
            wit = self.smallest(links, "refuted", out.holds.report(names), names, scale)
        return cex, wit

    def smallest(self, links: Sequence[Link], polarity: str, start: dict[str, int],
                 names: Sequence[str], scale: float = 1.0) -> dict[str, int]:
        """The smallest valuation of ``names`` refuting the hypotheses that
        ``polarity`` needs refuted: a counterexample for "proved", a witness
        for "refuted".  ``start`` is a verified one."""
        find = partial(self._model_of, Limits(scale))
        check = self._valid_for
        upper = {}
        for n in names:
            hi = self.scope.var_upper_bound(n)
            if hi is not None:
                upper[n] = hi
        best = minimize.smallest(names, required_hypotheses(links, polarity), [start],
                                 find, check, upper)
        return best if best is not None else start

    def prove_ge0(self, e: DimExpr | int) -> Verdict:
        """A :class:`Verdict` for ``e >= 0``."""
        d = P.from_expr(e)
        text = f"{P.to_text(d, self.scope)} >= 0"
        names = sorted(e.free_vars) if isinstance(e, DimExpr) else []
        return self.prove_links([(">=", d, text)], text, names)

    def bounds(self, e: DimExpr | int, limits: Limits = DEFAULT_LIMITS) -> tuple[Bound, Bound]:
        """Sound bounds of ``e`` over the valid valuations; tight for the linear
        fragment (up to the work budget; see :mod:`symshape.decision.tight_bounds`)."""
        if isinstance(e, int):
            return e, e
        self._sync()
        key = (e, limits.scale)
        r = self._bcache.get(key)
        if r is not None:
            return r
        p = P.from_expr(e)
        interval = self.scope.interval(e)
        with self._lock:
            r = self.tight_bounds.bounds(p, interval, limits)
        if len(self._bcache) < CACHE_MAX and not limits.timed:
            self._bcache[key] = r
        return r

    def check_satisfiable(self) -> None:
        """Raise :class:`UnsatisfiableConstraintsError` if the constraints are
        proved contradictory."""
        self._sync()
        sp = self.pool
        for env in sp.cheap_candidates():  # the pool is built lazily
            if sp.valid(sp.point(env)):
                return
        if sp.get_prefix().points:
            return  # the pool holds valuations that satisfy every constraint
        r = self._search([], DECIDE_BUDGET)
        if isinstance(r, Refuted):
            raise unsatisfiable(self.scope, r)

    def explain_inconclusive(self, x: DimExpr | int, op: str, y: DimExpr | int) -> str:
        """``"\nIt holds for a = 3, b = 1 and fails for a = 1, b = 2."``"""
        self._sync()
        ck = (op, x, y)
        text = self._etexts.get(ck)
        if text is not None:
            return text
        kind, e = comparison_difference(op, x, y)
        links = [(kind, P.from_expr(e), "")]
        out: Outcome | None = None
        if kind == ">=" and isinstance(e, DimExpr):
            out = self._evidence.get(e)  # the difference the scope decided: its evidence
        if out is None:
            out = self._outcome(links, "", DECIDE_BUDGET)
        if out.status is Status.UNDECIDED:
            holds, fails = small_points(self.pool, links, want_holds=out.holds is None,
                                        want_fails=out.fails is None)
            holds, fails = out.holds or holds, out.fails or fails
            if holds is not None and fails is not None:
                out = Outcome(Status.INCONCLUSIVE, holds, fails, None, DEPENDS)
        names: set[str] = set()
        for z in (x, y):
            if isinstance(z, DimExpr):
                names |= z.free_vars
        shown = sorted(names)
        extra = [v for v in self.constraint_vars() if v not in names]
        shown += extra[: max(0, 12 - len(shown))]
        cex, wit = self.evidence(links, out, sorted(names | set(self.constraint_vars())))
        text = inconclusive_text(wit, cex, shown, out.status is Status.UNDECIDED)
        if len(self._etexts) < CACHE_MAX:
            self._etexts[ck] = text
        return text


register_decider(Decider)

__all__ = ["BOUNDS_BUDGET", "DECIDE_BUDGET", "PROVE_BUDGET", "Decider"]
