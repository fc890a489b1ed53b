"""The decision procedure of a scope: :class:`Decider`.

A query goes through, in order:

1. the scope's interval bounds (done by the scope before calling us) and our
   caches (per scope, keyed by canonical form);
2. a pool of valid valuations (verified by exact evaluation of every
   constraint): if the claim holds at one and fails at another it is
   inconclusive, with both valuations as evidence;
3. an exact search (:mod:`search`): branch and bound over the linear relaxation
   of the facts (:mod:`linearize`) with ``max`` case splits, which either
   refutes the negated claim (a proof, with a checkable certificate), finds a
   verified counterexample, or runs out of its work budget (then the answer is
   "undecided", never a wrong one).

The core calls :meth:`Decider.decide_ge0` while it builds ``max`` and
``floordiv`` expressions, so nothing here builds expressions with
``max_expr``/``floordiv`` of the scope: the procedure works on polynomials.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable, Sequence
from typing import Any

from symshape.algebra.atoms import Atom, FloorDiv, Max0, Var
from symshape.algebra.bounds import Bound
from symshape.algebra.dimexpr import DimExpr, comparison_difference
from symshape.decision import canon, minimize, probe
from symshape.decision import poly as P
from symshape.decision.certificate import (
    Certificate,
    Fact,
    Leaf,
    Link,
    Refutation,
    facts_in,
    make_combo,
    required_hypotheses,
)
from symshape.decision.linearize import Linearizer
from symshape.decision.poly import Poly
from symshape.decision.search import Model, Refuted, Result, Search, Unknown
from symshape.decision.simplex import DEFAULT_LIMITS, Budget, Limits
from symshape.decision.valuations import FREE_POINTS, POOL_FREE_SEEDS, Point, Pool
from symshape.decision.verdict import (
    BUDGET_RAN_OUT,
    Lease,
    Status,
    Verdict,
    format_valuation,
    undecided_reason,
)
from symshape.errors import UnsatisfiableConstraintsError
from symshape.scope import register_decider

# Work budgets (work units ~ row updates, search nodes) per search.
DECIDE_BUDGET = (30_000, 400)
PROVE_BUDGET = (120_000, 1500)
LEMMA_BUDGET = (3_000, 40)
BOUNDS_BUDGET = (120_000, 3000)  # for each side of bounds(), all steps together
BOUNDS_STEPS = 80
CACHE_MAX = 200_000
# Valuations tried when the searches run out of budget (see _small_points).
SMALL_POINTS = 400
SMALL_POINTS_WORK = 40_000  # terms evaluated in all

_MISSING: Any = object()


class _Outcome:
    __slots__ = ("status", "holds", "fails", "cert", "reason")

    def __init__(self, status: Status, holds: Point | None, fails: Point | None,
                 cert: Certificate | None, reason: str) -> None:
        self.status = status
        self.holds = holds
        self.fails = fails
        self.cert = cert
        self.reason = reason


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
            lin: Linearizer = self.lin
            self._reset()
            self.lin = lin.structural_copy(self._lemma, self._probe)
            self._samples = Pool(FREE_POINTS, self.lin.sub_atoms)

    def release(self) -> None:
        """Drop every reference this decider and its linearizer hold (they
        refer to each other through their callbacks, a reference cycle), for
        :meth:`symshape.SymbolicScope.release`: neither is used again."""
        lin = self.__dict__.get("lin")
        if lin is not None:
            lin.__dict__.clear()
        self.__dict__.clear()

    def _reset(self) -> None:
        self._domains: dict[Atom, Poly] = {}
        self._dcache: dict[DimExpr, bool | None] = {}
        self._ocache: dict[DimExpr, int] = {}
        self._evidence: dict[DimExpr, _Outcome] = {}
        self._etexts: dict[tuple[str, Any, Any], str] = {}
        self._bcache: dict[tuple[DimExpr, float], tuple[Bound, Bound]] = {}
        self._vcache: dict[Any, _Outcome] = {}
        self._pcache: dict[Any, _Outcome] = {}
        self._lemmas: dict[Any, Fact | None] = {}
        self.lin = Linearizer(self.scope, self._lemma, self._probe)
        self._samples = Pool(FREE_POINTS, self.lin.sub_atoms)
        self._checks: list[Poly] | None = None
        self._cvars: tuple[str, ...] | None = None
        self._constraint_atoms: bool | None = None  # see _question_pool
        self._pool: Pool | None = None

    def _constraint_polys(self) -> list[Poly]:
        c = self._checks
        if c is None:
            c = self._checks = [f.poly for f in self.lin.constraint_facts()]
        return c

    def constraint_vars(self) -> tuple[str, ...]:
        """Names of the variables that occur in constraints or implicit facts."""
        cv = self._cvars
        if cv is None:
            names: set[str] = set()
            for a in self.lin.closure(self._constraint_polys()):
                if type(a) is Var:
                    names.add(a.name)
            cv = self._cvars = tuple(sorted(names))
        return cv

    def _point(self, env: dict[str, int], seed: int = 0) -> Point:
        return Point(env, seed, self.lin.sub_atoms)

    def _valid(self, pt: Point) -> bool:
        if any(v < 1 for v in pt.env.values()):
            return False
        return all(pt.poly(p) >= 0 for p in self._constraint_polys())

    # -- the pool of valid valuations ----------------------------------------------
    def _get_pool(self) -> Pool:
        pool = self._pool
        if pool is None:
            with self._lock:
                if self._pool is None:
                    # The pool depends on the constraints alone: scopes built
                    # from the same texts compute it once, and share its
                    # points (points without a memo name no atom of a scope).
                    shared = self.scope.shared_derivations
                    points = shared.get("pool")
                    if points is None:
                        points = shared.setdefault("pool", self._initial_pool())
                    self._pool = Pool(points, self.lin.sub_atoms)
                pool = self._pool
        return pool

    def _cheap_candidates(self) -> list[dict[str, int]]:
        """Valuations of the constraint variables likely to satisfy the
        constraints, each checked exactly by the caller before any search:
        all ones, all twos, every variable at the lower bound that interval
        propagation gives it (``a >= b + 8``: a = 9, b = 1), and those bounds
        rounded up to a multiple of the constraints' divisors (``mod(a, 128)
        == 0``: a = 128)."""
        cvars = self.constraint_vars()
        out = [dict.fromkeys(cvars, 1), dict.fromkeys(cvars, 2)]
        lows = {v: self.scope.var_lower_bound(v) for v in cvars}
        if any(x > 1 for x in lows.values()):
            out.append(lows)
        step = 1
        for a in self.lin.closure(self._constraint_polys()):
            if type(a) is FloorDiv and isinstance(a.den, int):
                step = math.lcm(step, a.den)
        if step > 1 and step < 1 << 20:
            out.append({v: -(-x // step) * step for v, x in lows.items()})
        return out

    def _initial_pool(self) -> tuple[Point, ...]:
        cvars = self.constraint_vars()
        if not self._constraint_polys():
            return FREE_POINTS
        models: list[dict[str, int]] = []
        keys: set[tuple[tuple[str, int], ...]] = set()
        polys = self._constraint_polys()
        # The constraints each variable occurs in: a valuation that differs
        # from a valid one in one variable only needs those checked.
        occurs: dict[str, list[Poly]] = {}
        for p in polys:
            for a in self.lin.closure([p]):
                if type(a) is Var:
                    occurs.setdefault(a.name, []).append(p)

        def add(env: dict[str, int], moved: str | None = None) -> None:
            k = tuple(sorted(env.items()))
            if k in keys:
                return
            if moved is None:
                ok = self._valid(self._point(env))
            else:
                pt = self._point(env)
                ok = env[moved] >= 1 and all(pt.poly(p) >= 0 for p in occurs.get(moved, ()))
            if ok:
                keys.add(k)
                models.append(env)

        for env in self._cheap_candidates():
            add(env)
            if models:
                break
        if not models:
            m = self._find_model()
            if m is not None:
                add({v: m.get(v, 1) for v in cvars})
        if models:
            first = models[0]
            add({v: x + 1 for v, x in first.items()})
            add({v: 2 * x for v, x in first.items()})
            add({v: 3 * x + 2 for v, x in first.items()})
            # Nudge a few variables, picked by their place in the constraints
            # (not by their names, which must not change what is found).
            colors = canon.variable_colors(self._constraint_polys())
            for v in sorted(cvars, key=lambda v: (colors.get(v, 0), v))[:8]:
                add({**first, v: first[v] + 1}, v)
                add({**first, v: first[v] + 5}, v)
        n = max(POOL_FREE_SEEDS, len(models))
        if not models:
            return ()
        # Points without a memo: they name no atom, so scopes built from the
        # same texts share them (see _get_pool).
        return tuple(Point(models[i % len(models)], i, None) for i in range(n))

    def _verified_point(self, env: dict[str, int]) -> Point:
        """A verified valuation found by a search, as evidence of one answer.

        It is not added to the pool: the pool is fixed when the scope is
        built, so that no answer depends on which queries came before.
        """
        return self._point(dict(env), 0)

    def _find_model(self, hyps: Sequence[Poly] = ()) -> dict[str, int] | None:
        r = self._search(hyps, DECIDE_BUDGET)
        return r.env if isinstance(r, Model) else None

    def domain(self, polys: Sequence[Poly]) -> list[Poly]:
        """``den - 1 >= 0`` for every symbolic divisor of the atoms of ``polys``:
        where an expression of a query is defined (a hypothesis of that query,
        never a fact of the scope)."""
        out: list[Poly] = []
        cache = self._domains
        for a in self.lin.closure(polys):
            if type(a) is FloorDiv and isinstance(a.den, DimExpr):
                d = cache.get(a)
                if d is None:
                    d = cache[a] = P.add(P.from_expr(a.den), P.const(-1))
                out.append(d)
        return out

    def _split_pool(self, links: Sequence[tuple[str, Poly]]) -> tuple[Point | None, Point | None]:
        base = self._get_pool()
        if not base.points:
            return None, None
        pool = self._question_pool(base, [d for _, d in links])
        truth: list[bool] | None = None
        # Points where a divisor of the query is 0 are not valuations of the query.
        for d in self.domain([d for _, d in links]):
            t = [v >= 0 for v in pool.values(d)]
            truth = t if truth is None else [x and y for x, y in zip(truth, t, strict=True)]
        defined = truth
        truth = None
        for op, d in links:
            vals = pool.values(d)
            if op == ">=":
                t = [v >= 0 for v in vals]
            elif op == "==":
                t = [v == 0 for v in vals]
            else:
                t = [v != 0 for v in vals]
            truth = t if truth is None else [x and y for x, y in zip(truth, t, strict=True)]
        assert truth is not None
        holds = fails = None
        for i, ok in enumerate(truth):
            if defined is not None and not defined[i]:
                continue
            if ok:
                if holds is None:
                    holds = pool.point(i)
            elif fails is None:
                fails = pool.point(i)
        return holds, fails

    def _question_pool(self, pool: Pool, polys: Sequence[Poly]) -> Pool:
        """``pool`` for a question about ``polys`` under the scope's constraints."""
        atoms = self._constraint_atoms
        if atoms is None:
            atoms = self._constraint_atoms = any(
                type(a) is not Var for p in self._constraint_polys() for m in p for a, _ in m)
        return pool.for_question(polys, atoms)

    # -- searches ----------------------------------------------------------------
    def _accept(self, hyps: Sequence[Poly]) -> Any:
        checks = list(hyps) + self.domain(hyps)

        def accept(env: dict[str, int]) -> bool:
            pt = self._point(env)
            return self._valid(pt) and all(pt.poly(h) >= 0 for h in checks)
        return accept

    def _search(self, hyp_polys: Sequence[Poly], budget: tuple[int, int] | Budget,
                note: str = "hypothesis") -> Result:
        return self._search_with(hyp_polys, budget, note)[1]

    def _search_with(self, hyp_polys: Sequence[Poly], budget: tuple[int, int] | Budget,
                     note: str, limits: Limits = DEFAULT_LIMITS) -> tuple[list[Fact], Result]:
        """One search over the scope's facts and ``hyp_polys``; also the
        hypothesis facts, which a refutation's certificate refers to.  The
        axioms of the atoms of ``hyp_polys`` include ``den >= 1`` for their
        symbolic divisors: the search only considers valuations where the
        query is defined."""
        with self._lock:
            hyps = [Fact(h, "hyp", note=note) for h in hyp_polys]
            b = budget if isinstance(budget, Budget) else limits.budget(budget)
            if _too_large(hyp_polys, b):
                return hyps, Unknown("work budget: the claim has too many terms")
            facts = self.lin.facts(hyp_polys)
            return hyps, Search(facts, hyps, b, self._accept(hyp_polys)).run()

    def _probe(self, f: Poly) -> list[int]:
        """Values at fixed sample valuations (not necessarily valid): candidate
        bounds to try to prove; independent of the history of queries."""
        # Every free variable takes the same value here: candidate bounds
        # need no variety, and the memo then serves every probe.
        return self._samples.values(f)

    def _lemma(self, target: Poly, level: int) -> Fact | None:
        """``target >= 0`` proved from the facts below ``level`` (cached), or None."""
        k = (P.hkey(target), level)
        if k in self._lemmas:
            return self._lemmas[k]
        settled = self._variable_lemma(target)
        if settled is not _MISSING:
            self._lemmas[k] = settled
            return settled
        neg = P.add(P.scale(target, -1), P.const(-1))
        hyp = Fact(neg, "hyp", note="negated lemma")
        budget = Budget(*LEMMA_BUDGET)
        out = None
        if _too_large([neg], budget):
            self._lemmas[k] = None
            return None
        facts = self.lin.facts([neg], level)
        r = Search(facts, [hyp], budget).run()
        if isinstance(r, Refuted):
            out = Fact(target, "lemma", proof=Refutation([hyp], r.tree))
        self._lemmas[k] = out
        return out

    def _variable_lemma(self, target: Poly) -> Any:
        """The lemma ``c*x + k >= 0`` about one atom ``x``, settled without a
        search where the answer is plain: a bound that interval propagation
        gave ``x`` shows the others it implies; for a variable ``v``,
        ``c*(v - 1) >= 0`` is the axiom ``v >= 1`` times ``c``, and a
        variable that no fact of the scope mentions has no other bound, so
        nothing more about it can be proved (None).  ``_MISSING`` for every
        other target."""
        if len(target) > 2:
            return _MISSING
        terms = [(m, c) for m, c in target.items() if m]
        if len(terms) != 1:
            return _MISSING
        (m, c), = terms
        if len(m) != 1 or m[0][1] != 1:
            return _MISSING
        v = m[0][0]
        k = target.get(P.ONE, 0)
        if type(v) is Var:
            if c > 0 and k == -c:
                return make_combo([self.lin.axioms(v)[0]], [c])
            free = v.name not in self.constraint_vars()
            if free and (c < 0 or k < -c):
                return None  # an upper bound, or a lower one above 1, of a free variable
        # c*x + k >= 0 from x >= lo (c > 0) or x <= hi (c < 0), propagated,
        # or for a quotient by a constant, from the bounds of its numerator
        lemma = self._lemma_from_bound(target, c, self.lin.propagated_fact(m, 0 if c > 0 else 1))
        if lemma is None and type(v) is FloorDiv:
            lemma = self._lemma_from_bound(target, c, self._quotient_bound(v, c > 0))
        return _MISSING if lemma is None else lemma

    @staticmethod
    def _lemma_from_bound(target: Poly, c: int, bound: Fact | None) -> Fact | None:
        """The lemma ``target >= 0`` (``c*x + k``) shown by ``bound``, a fact
        ``x - lo >= 0`` (``c > 0``) or ``hi - x >= 0``, when it implies it."""
        if bound is None:
            return None
        hyp = Fact(P.add(P.scale(target, -1), P.const(-1)), "hyp", note="negated lemma")
        leaf = Leaf([(abs(c), bound), (1, hyp)])
        return Fact(target, "lemma", proof=Refutation([hyp], leaf)) if leaf.closes() else None

    def _quotient_bound(self, q: FloorDiv, lower: bool) -> Fact | None:
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

    def _decide(self, links: Sequence[Link], claim: str, budget: tuple[int, int],
                limits: Limits = DEFAULT_LIMITS, thorough: bool = True,
                split: tuple[Point | None, Point | None] | None = None) -> _Outcome:
        """Prove or refute the conjunction of ``links``, with evidence.

        Inconclusive needs both a valuation where the claim holds and one
        where it fails; when a search runs out of budget first, the answer is
        undecided (with whatever evidence was found), unless ``thorough`` and
        the missing valuation is a small one.  Comparisons are not thorough:
        for them inconclusive and undecided are the same answer.  ``split``:
        what :meth:`_split_pool` gives for ``links``, when already known.
        """
        plain = [(op, d) for op, d, _ in links]
        holds, fails = self._split_pool(plain) if split is None else split
        if (holds is None) != (fails is None) and len(plain) == 1 and plain[0][0] == ">=":
            # One side is missing from the pool: a directed valuation often
            # shows it without a search (see symshape.decision.probe).
            found = self._directed(plain[0][1], holds or fails, want_fails=fails is None)
            if found is not None:
                holds, fails = (holds, found) if fails is None else (found, fails)
        elif holds is None and len(plain) == 1 and plain[0][0] == "==":
            # An equality that fails at every pool point: solve it along one
            # variable before a search looks for a valuation where it holds.
            holds = self._root(plain[0][1], fails)
        if holds is not None and fails is not None:
            return _Outcome(Status.INCONCLUSIVE, holds, fails, None, _DEPENDS)
        reason = ""
        tried_prove = False
        if fails is None:
            tried_prove = True
            limits.what = "proving the claim"
            cert, ev, why = self._attempt(links, claim, "proved", budget, limits)
            if cert is not None:
                return _Outcome(Status.PROVED, holds, None, cert, "")
            if ev is not None:
                fails = ev
            reason = why
        if holds is None:
            limits.what = "refuting the claim"
            cert, ev, why = self._attempt(links, claim, "refuted", budget, limits)
            if cert is not None:
                if fails is None:
                    m = self._find_model(self.domain([d for _, d, _ in links]))
                    fails = self._point(m) if m is not None else None
                return _Outcome(Status.REFUTED, None, fails, cert, "")
            if ev is not None:
                holds = ev
            reason = reason or why
            if fails is None and not tried_prove:
                limits.what = "proving the claim"
                cert, ev, why = self._attempt(links, claim, "proved", budget, limits)
                if cert is not None:
                    return _Outcome(Status.PROVED, holds, None, cert, "")
                fails = ev
                reason = reason or why
        if thorough and (holds is None or fails is None):
            # The searches ran out of budget: look for the missing evidence
            # among all small valuations (whole levels of the largest value,
            # so the set looked at does not depend on the variables' names).
            limits.what = "looking for small valuations"
            h2, f2 = self._small_points(links, want_holds=holds is None,
                                        want_fails=fails is None)
            holds = holds or h2
            fails = fails or f2
        if holds is not None and fails is not None:
            return _Outcome(Status.INCONCLUSIVE, holds, fails, None, _DEPENDS)
        return _Outcome(Status.UNDECIDED, holds, fails, None,
                        reason or BUDGET_RAN_OUT)

    def _directed(self, d: Poly, start: Point | None, want_fails: bool) -> Point | None:
        """A valid valuation, defined for the query, where ``d >= 0`` fails
        (``want_fails``) or holds, among the directed valuations from the
        pool point ``start`` (see :mod:`symshape.decision.probe`)."""
        if start is None:
            return None
        constraints = self._constraint_polys()
        dom = self.domain([d])
        # A repaired valuation satisfies the constraints and the divisors'
        # conditions (checked exactly by the repair; values only grew from a
        # valid point): only the claim is left to check.
        signs = probe.movable(d)
        for env in probe.directed(self._probe_env(start, signs), d, want_fails,
                                  [*constraints, *dom], canon.place_color_order([d, *constraints]),
                                  self._probe_value, signs, self.scope.var_upper_bound):
            pt = self._point(env)
            if (pt.poly(d) < 0) == want_fails:
                return pt
        return None

    def _root(self, d: Poly, start: Point | None) -> Point | None:
        """A valid valuation, defined for the query, where ``d == 0``, among
        those that move one variable from the pool point ``start`` (see
        :func:`symshape.decision.probe.roots`)."""
        if start is None:
            return None
        dom = self.domain([d])
        order = canon.place_color_order([d, *self._constraint_polys()])
        signs = probe.monotone_signs(d)
        for env in probe.roots(self._probe_env(start, signs), d, order, self._probe_value, signs):
            pt = self._point(env)
            if pt.poly(d) == 0 and self._valid(pt) and all(pt.poly(h) >= 0 for h in dom):
                return pt
        return None

    def _probe_env(self, start: Point, movers: Iterable[str]) -> dict[str, int]:
        """The values of the pool point ``start``, with those of the free
        variables among ``movers`` that it leaves implicit."""
        env = dict(start.env)
        for x in movers:
            if x not in env:
                env[x] = start.var(x)
        return env

    def _probe_value(self, env: dict[str, int], p: Poly) -> int | None:
        return Point(env, 0, self.lin.sub_atoms).poly(p)

    def _small_points(self, links: Sequence[Link], want_holds: bool, want_fails: bool
                      ) -> tuple[Point | None, Point | None]:
        """Valid valuations with every value in ``1..K`` where the conjunction
        of ``links`` holds / fails, for the largest ``K`` whose whole grid fits
        in :data:`SMALL_POINTS`."""
        polys = [d for _, d, _ in links]
        names = sorted({a.name for a in self.lin.closure(polys) if type(a) is Var}
                       | set(self.constraint_vars()))
        n = len(names)
        if n == 0:
            return None, None
        # Each point costs an evaluation of the claim and the constraints.
        size = sum(len(d) for d in polys) + sum(len(c) for c in self._constraint_polys())
        cap = min(SMALL_POINTS, SMALL_POINTS_WORK // max(size, 1))
        if cap < 1:
            return None, None
        top = 1
        while (top + 1) ** n <= cap:
            top += 1
        dom = self.domain(polys)
        holds = fails = None
        for level in range(1, top + 1):
            for total in range(level + n - 1, n * level + 1):
                for vals in minimize.level_tuples(n, level, total):
                    pt = self._point(dict(zip(names, vals, strict=True)))
                    if not self._valid(pt) or any(pt.poly(h) < 0 for h in dom):
                        continue
                    ok = all(_link_holds(op, pt.poly(d)) for op, d, _ in links)
                    if ok and want_holds and holds is None:
                        holds = pt
                    if not ok and want_fails and fails is None:
                        fails = pt
                    if (holds is not None or not want_holds) and \
                            (fails is not None or not want_fails):
                        return holds, fails
        return holds, fails

    def _interval_outcome(self, links: Sequence[Link], claim: str,
                          split: tuple[Point | None, Point | None]) -> _Outcome | None:
        """A proof or refutation from interval bounds alone, when they settle
        the claim: cheap, and as strong as the comparison operators (which
        answer from the same intervals).  The certificate combines the
        monomials' bound facts (see :meth:`Linearizer.mono_bounds`).
        ``split``: the pool's valuations where the claim holds and fails
        (see :meth:`_split_pool`); a claim the pool shows failing cannot be
        proved, nor one it shows holding refuted, so those certificates are
        not attempted."""
        holds, fails = split
        if fails is None:
            cert = self._interval_certificate(links, claim, "proved")
            if cert is not None:
                return _Outcome(Status.PROVED, None, None, cert, _BY_INTERVALS)
        cert = None if holds is not None else \
            self._interval_certificate(links, claim, "refuted")
        if cert is not None:
            polys = [d for _, d, _ in links]
            pool = self._get_pool()
            m = None if pool.points else self._find_model(self.domain(polys))
            fails = self._question_pool(pool, polys).point(0) if pool.points else \
                (self._point(m) if m is not None else None)
            return _Outcome(Status.REFUTED, None, fails, cert, _BY_INTERVALS)
        return None

    def _interval_certificate(self, links: Sequence[Link], claim: str,
                              polarity: str) -> Certificate | None:
        """Refute each hypothesis set of ``polarity`` by one hypothesis ``h``
        whose interval upper bound is negative: the bound facts of the
        monomials of ``-h`` add up to ``-h - L >= 0`` with ``L >= 1``.  Where
        the terms' own bounds do not settle it, floordivs by constants and
        maxima are relaxed through their axioms first (see
        :meth:`_relaxed_leaf`)."""
        refs: list[Refutation] = []
        note = "negated claim" if polarity == "proved" else "claim"
        for hyp_set in required_hypotheses(links, polarity):
            hyps = [Fact(h, "hyp", note=note) for h in hyp_set]
            leaf = None
            for hf in hyps:
                if self.scope.terms_interval(hf.poly)[1] >= 0:
                    leaf = self._relaxed_leaf(hf)
                    if leaf is not None:
                        break
                    continue
                if P.is_constant(hf.poly):  # a negative constant: refuted alone
                    leaf = Leaf([(1, hf)])
                    break
                leaf = self._bound_leaf([], 1, hf)
                if leaf is not None:
                    break
            if leaf is None:
                return None
            refs.append(Refutation(hyps, leaf))
        return Certificate(claim, links, polarity, refs, self.scope)

    def _bound_leaf(self, axioms: list[tuple[int, Fact]], scale: int, hf: Fact,
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

    def _relaxed_leaf(self, hf: Fact) -> Leaf | None:
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
            if len(m) == 1 and m[0][1] == 1:
                a = m[0][0]
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
            leaf = self._bound_leaf(axioms, scale, hf, rest)
            if leaf is not None:
                return leaf
        return None

    def _attempt(self, links: Sequence[Link], claim: str, polarity: str,
                 budget: tuple[int, int], limits: Limits = DEFAULT_LIMITS
                 ) -> tuple[Certificate | None, Point | None, str]:
        """Refute every hypothesis set needed for ``polarity``; or return the
        evidence (a verified valuation) that shows it is impossible."""
        refs: list[Refutation] = []
        note = "negated claim" if polarity == "proved" else "claim"
        for hyp_set in required_hypotheses(links, polarity):
            hyps, r = self._search_with(hyp_set, budget, note, limits)
            if isinstance(r, Refuted):
                refs.append(Refutation(hyps, r.tree))
                continue
            if isinstance(r, Model):
                return None, self._verified_point(r.env), ""
            return None, None, _unknown_reason(r)
        return Certificate(claim, links, polarity, refs, self.scope), None, ""

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
        pool = self._question_pool(self._get_pool(), [p])
        vals = pool.values(p)
        # Only points where the divisors of e are >= 1 are valuations of the question.
        for h in self.domain([p]):
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
                 budget: tuple[int, int]) -> _Outcome:
        """Cached outcome with the comparison budget (separate from the cache of
        :meth:`prove_links`, so that answers never depend on the history)."""
        key = tuple((op, P.hkey(d)) for op, d, _ in links)
        out = self._vcache.get(key)
        if out is None:
            out = self._decide(links, claim, budget, thorough=False)
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
        split = None
        if out is None:
            split = self._split_pool([(op, d) for op, d, _ in links])
            out = self._interval_outcome(links, claim, split)
        if out is None:
            out = self._decide(links, claim, budget, limits, split=split)
            # An answer cut short by the clock is not the answer to the query.
            if len(self._pcache) < CACHE_MAX and \
                    not (limits.timed and out.status is Status.UNDECIDED):
                self._pcache[key] = out
        allnames = sorted(set(names) | set(self.constraint_vars()))
        return Verdict(claim, out.status, reason=out.reason if out.status in _OPEN else "",
                       constraints=tuple(self.scope.constraint_texts),
                       certify=None if out.cert is None else
                       lambda: self.certificate(links, claim, out, budget),
                       evidence=lambda: self.evidence(links, out, allnames), lease=lease)

    def certificate(self, links: Sequence[Link], claim: str, out: _Outcome,
                    budget: tuple[int, int]) -> Certificate:
        """The certificate of a decided outcome, for ``claim``.  A claim the
        intervals settled is proved again by the search when the certificate
        is first read: that proof cites the constraints it uses, where the
        interval certificate goes through the bounds of every monomial; the
        interval certificate stays the answer when the search runs out."""
        cert = out.cert
        assert cert is not None
        if out.reason == _BY_INTERVALS:
            better, _, _ = self._attempt(links, claim, cert.polarity, budget)
            if better is not None:
                return better
        if cert.claim != claim:
            cert = Certificate(claim, links, cert.polarity, cert.refutations, self.scope)
        return cert

    def evidence(self, links: Sequence[Link], out: _Outcome, names: Sequence[str]
                 ) -> tuple[dict[str, int] | None, dict[str, int] | None]:
        """The smallest counterexample and witness of ``links`` (see
        :mod:`minimize`), starting from the valuations the decision found."""
        cex = wit = None
        if out.fails is not None:
            cex = self.smallest(links, "proved", out.fails.report(names), names)
        if out.holds is not None and out.status in _OPEN:
            wit = self.smallest(links, "refuted", out.holds.report(names), names)
        return cex, wit

    def smallest(self, links: Sequence[Link], polarity: str, start: dict[str, int],
                 names: Sequence[str]) -> dict[str, int]:
        """The smallest valuation of ``names`` refuting the hypotheses that
        ``polarity`` needs refuted: a counterexample for "proved", a witness
        for "refuted".  ``start`` is a verified one."""
        def find(hyps: list[Poly]) -> dict[str, int] | None | bool:
            r = self._search(hyps, DECIDE_BUDGET)
            if isinstance(r, Model):
                return r.env
            return None if isinstance(r, Refuted) else False

        def check(hyps: list[Poly], env: dict[str, int]) -> bool:
            pt = self._point(env)
            return self._valid(pt) and all(pt.poly(h) >= 0 for h in (*hyps, *self.domain(hyps)))

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
        fragment (up to the work budget)."""
        if isinstance(e, int):
            return e, e
        self._sync()
        key = (e, limits.scale)
        r = self._bcache.get(key)
        if r is not None:
            return r
        p = P.from_expr(e)
        lo_i, hi_i = self.scope.interval(e)
        with self._lock:
            limits.what = "searching for the lower bound"
            lo = self._tight_lower(p, lo_i, limits.budget(BOUNDS_BUDGET))
            limits.what = "searching for the upper bound"
            hi = self._tight_lower(P.scale(p, -1), -hi_i, limits.budget(BOUNDS_BUDGET))
        r = (lo, -hi if hi != -math.inf else math.inf)
        if len(self._bcache) < CACHE_MAX and not limits.timed:
            self._bcache[key] = r
        return r

    def _tight_lower(self, p: Poly, proven: Bound, budget: Budget) -> Bound:
        """The largest ``L`` with ``p >= L`` proved, searching down from values
        achieved at valid valuations (where ``p`` is defined)."""
        dom = self.domain([p])
        pool = self._question_pool(self._get_pool(), [p])
        vals = pool.values(p)
        if dom:
            ok = [all(v >= 0 for v in col) for col in zip(*(pool.values(d) for d in dom),
                                                            strict=True)]
            vals = [v for v, good in zip(vals, ok, strict=True) if good]
        if not vals:
            m = self._find_model(dom)
            if m is None:
                return proven
            vals = [self._point(m).poly(p)]
        best = min(vals)  # achieved, so the true minimum is <= best
        if proven == best:
            return best
        if proven == -math.inf and self._unbounded_below(p):
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
            r = self._search([hyp], budget)
            if isinstance(r, Refuted):
                proven = mid
            elif isinstance(r, Model):
                best = min(best, self._verified_point(r.env).poly(p))
            else:
                return proven
        return proven

    def _unbounded_below(self, p: Poly) -> bool:
        """Heuristic: ``p`` decreases without bound along a ray of valid
        valuations (only ever used to report the always-sound bound -inf)."""
        pool = self._get_pool()
        if not pool.points:
            return False
        mine = sorted({a.name for a in self.lin.closure([p]) if type(a) is Var})
        if not mine:
            return False
        names = sorted(set(mine) | set(self.constraint_vars()))
        size = max((abs(c) for q in [p] + self._constraint_polys() for c in q.values()),
                   default=1)
        t0 = 1 << (size.bit_length() + 24)
        base = self._question_pool(pool, [p]).point(0)
        env0 = base.report(names)
        # a few directions: all variables together, then single variables of p
        directions = [{n: 1 for n in names}] + [{n: 1} for n in mine[:6]]
        for d in directions:
            vals = []
            for t in (t0, 2 * t0, 4 * t0):
                env = dict(env0)
                for n, k in d.items():
                    env[n] = env[n] + k * t
                pt = self._point(env, base.seed)
                if not self._valid(pt):
                    break
                vals.append(pt.poly(p))
            if len(vals) == 3 and vals[0] > vals[1] > vals[2] and \
                    vals[1] - vals[2] >= vals[0] - vals[1] > 0:
                return True
        return False

    def check_satisfiable(self) -> None:
        """Raise :class:`UnsatisfiableConstraintsError` if the constraints are
        proved contradictory."""
        self._sync()
        for env in self._cheap_candidates():  # the pool is built lazily
            if self._valid(self._point(env)):
                return
        if self._get_pool().points:
            return  # the pool holds valuations that satisfy every constraint
        r = self._search([], DECIDE_BUDGET)
        if isinstance(r, Refuted):
            used = {f.note for f in facts_in([r.tree]) if f.kind == "constraint"}
            texts = [t for t in self.scope.constraint_texts if t in used] or \
                list(self.scope.constraint_texts)
            listed = ", ".join(repr(t) for t in texts)
            raise UnsatisfiableConstraintsError(
                f"unsatisfiable constraints: {listed} cannot all hold "
                "(every dimension variable is an integer >= 1)")

    def explain_inconclusive(self, x: DimExpr | int, op: str, y: DimExpr | int) -> str:
        """``"\nIt holds for a = 3, b = 1 and fails for a = 1, b = 2."``"""
        self._sync()
        ck = (op, x, y)
        text = self._etexts.get(ck)
        if text is not None:
            return text
        kind, e = comparison_difference(op, x, y)
        links = [(kind, P.from_expr(e), "")]
        out: _Outcome | None = None
        if kind == ">=" and isinstance(e, DimExpr):
            out = self._evidence.get(e)  # the difference the scope decided: its evidence
        if out is None:
            out = self._outcome(links, "", DECIDE_BUDGET)
        if out.status is Status.UNDECIDED:
            holds, fails = self._small_points(links, want_holds=out.holds is None,
                                              want_fails=out.fails is None)
            holds, fails = out.holds or holds, out.fails or fails
            if holds is not None and fails is not None:
                out = _Outcome(Status.INCONCLUSIVE, holds, fails, None, _DEPENDS)
        names: set[str] = set()
        for z in (x, y):
            if isinstance(z, DimExpr):
                names |= z.free_vars
        shown = sorted(names)
        extra = [v for v in self.constraint_vars() if v not in names]
        shown += extra[: max(0, 12 - len(shown))]
        cex, wit = self.evidence(links, out, sorted(names | set(self.constraint_vars())))
        parts = []
        if wit is not None:
            parts.append(f"holds for {format_valuation({n: wit[n] for n in shown})}")
        if cex is not None:
            parts.append(f"fails for {format_valuation({n: cex[n] for n in shown})}")
        if not parts:
            text = "\nNo valuation was found where it holds or fails within the work budget."
        else:
            text = "\nIt " + " and ".join(parts) + "."
            if out.status is Status.UNDECIDED:
                text += " (Undecided within the work budget.)"
        if len(self._etexts) < CACHE_MAX:
            self._etexts[ck] = text
        return text


_BY_INTERVALS = "settled by interval bounds"
_DEPENDS = "it holds for some valuations and fails for others"


# Work units per monomial of a query that the setup of a search costs before
# the search counts anything (facts of products, rows of the tableau): a claim
# too large for its budget is undecided at once instead of after minutes.
_SETUP_COST = 64


def _too_large(polys: Sequence[Poly], budget: Budget) -> bool:
    return sum(len(p) for p in polys) * _SETUP_COST > budget.max_work


def _link_holds(op: str, v: int) -> bool:
    return v >= 0 if op == ">=" else (v == 0 if op == "==" else v != 0)
_OPEN = (Status.INCONCLUSIVE, Status.UNDECIDED)


def _unknown_reason(r: Result) -> str:
    return undecided_reason(r.reason) if isinstance(r, Unknown) else ""


register_decider(Decider)

__all__ = ["Decider"]
