"""The valid valuations of one scope: :class:`ScopePool`.

A scope's constraints as polynomials, which valuations satisfy them, and the
pool of a few valid valuations (chosen from the constraints alone, when first
asked for, and never extended by later queries) at which every claim is
evaluated before any search.  The valuations themselves, and how a pool is
evaluated all at once, are :mod:`symshape.decision.valuations`.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from typing import Any

from symshape.algebra.atoms import Atom, Factors, FloorDiv, Var
from symshape.algebra.dimexpr import DimExpr
from symshape.decision import canon
from symshape.decision import poly as P
from symshape.decision.linearize import Linearizer
from symshape.decision.poly import Poly
from symshape.decision.valuations import FREE_POINTS, POOL_FREE_SEEDS, Point, Pool
from symshape.repair import divisor_steps, growth_rates_at, repaired

# A search for one valuation satisfying the constraints and ``hyps``.
ModelFinder = Callable[[Sequence[Poly]], "dict[str, int] | None"]


class ScopePool:
    """The valid valuations of a scope, and its pool of them.

    ``find_model`` searches for a valuation when no cheap candidate satisfies
    the constraints (the decider's search, see
    :class:`symshape.decision.engine.Decider`)."""

    def __init__(self, scope: Any, lin: Linearizer, lock: threading.RLock,
                 find_model: ModelFinder) -> None:
        self.scope = scope
        self.lin = lin
        self.lock = lock
        self.find_model = find_model
        self.domains: dict[Atom, Poly] = {}
        # fixed sample valuations, not necessarily valid (see sample_values)
        self.samples = Pool(FREE_POINTS, lin.sub_atoms)
        self.checks: list[Poly] | None = None
        self.cvars: tuple[str, ...] | None = None
        self.constraint_atoms: bool | None = None  # see question_pool
        self.pool: Pool | None = None
        self.prefix: Pool | None = None  # see get_prefix
        self.rest: Pool | None = None  # see get_rest
        self.places: list[str] | None = None  # see by_place

    # -- the constraints -----------------------------------------------------------
    def constraint_polys(self) -> list[Poly]:
        """The polynomials ``p`` of the facts ``p >= 0`` of the constraints."""
        c = self.checks
        if c is None:
            c = self.checks = [f.poly for f in self.lin.constraint_facts()]
        return c

    def constraint_vars(self) -> tuple[str, ...]:
        """Names of the variables that occur in constraints or implicit facts."""
        cv = self.cvars
        if cv is None:
            names: set[str] = set()
            for a in self.lin.closure(self.constraint_polys()):
                if type(a) is Var:
                    names.add(a.name)
            cv = self.cvars = tuple(sorted(names))
        return cv

    def point(self, env: dict[str, int], seed: int = 0) -> Point:
        """The valuation ``env`` (other variables: see :class:`Point`)."""
        return Point(env, seed, self.lin.sub_atoms)

    def valid(self, pt: Point) -> bool:
        """Does ``pt`` give every variable a value >= 1 and satisfy every constraint?"""
        for v in pt.env.values():
            if v < 1:
                return False
        return pt.satisfies(self.constraint_polys())

    def verified_point(self, env: dict[str, int]) -> Point:
        """A verified valuation found by a search, as evidence of one answer.

        It is not added to the pool: the pool is fixed when the scope is
        built, so that no answer depends on which queries came before.
        """
        return self.point(dict(env), 0)

    def domain(self, polys: Sequence[Poly]) -> list[Poly]:
        """``den - 1 >= 0`` for every symbolic divisor of the atoms of ``polys``:
        where an expression of a query is defined (a hypothesis of that query,
        never a fact of the scope)."""
        out: list[Poly] = []
        if not _any_symbolic_divisor(polys):
            return out  # (without walking a deep nest of atoms at every question)
        cache = self.domains
        for a in self.lin.closure(polys):
            if type(a) is FloorDiv and isinstance(a.den, DimExpr):
                d = cache.get(a)
                if d is None:
                    d = cache[a] = P.add(P.from_expr(a.den), P.const(-1))
                out.append(d)
        return out

    def sample_values(self, f: Poly) -> list[int]:
        """Values at fixed sample valuations (not necessarily valid): candidate
        bounds to try to prove; independent of the history of queries."""
        # Every free variable takes the same value here: candidate bounds
        # need no variety, and the memo then serves every probe.
        return self.samples.values(f)

    # -- the pool --------------------------------------------------------------------
    def get_pool(self) -> Pool:
        """The pool of valid valuations (built on first use)."""
        pool = self.pool
        if pool is None:
            with self.lock:
                if self.pool is None:
                    # The pool depends on the constraints alone: scopes built
                    # from the same texts compute it once, and share its
                    # points (points without a memo name no atom of a scope).
                    self.pool = Pool(self._shared("pool", self.initial_pool), self.lin.sub_atoms)
                pool = self.pool
        return pool

    def get_prefix(self) -> Pool:
        """The first points of the pool, in its order (built on first use, without
        the rest of the pool): a first valid valuation and those spread from it.
        Where a question holds at one of them and fails at another, the whole
        pool shows the same two points first, for less than its cost (the
        colours of the variables and the nudged valuations)."""
        prefix = self.prefix
        if prefix is None:
            with self.lock:
                if self.prefix is None:
                    full = self.pool  # (once built, the whole pool serves as well)
                    self.prefix = full if full is not None else \
                        Pool(self._shared("prefix", self.prefix_points), self.lin.sub_atoms)
                prefix = self.prefix
        return prefix

    def get_rest(self) -> Pool:
        """The points of the pool after those of :meth:`get_prefix` (none when
        the prefix is the whole pool), in its order."""
        rest = self.rest
        if rest is None:
            prefix = self.get_prefix()
            full = self.get_pool()
            with self.lock:
                if self.rest is None:
                    skip = len(full.points) if prefix is full else len(prefix.points)
                    self.rest = Pool(full.points[skip:], self.lin.sub_atoms)
                rest = self.rest
        return rest

    def fails_at_first_points(self, p: Poly) -> bool:
        """Is ``p`` negative at one of the pool's first points (where it is
        defined)?  Only once those points are built: building them may take
        a search, whose facts may ask this again (a lemma), so this never
        builds them; the answer is then False (not shown)."""
        if self.prefix is None and self.pool is None:
            return False
        return self.split([(">=", p)], "prefix")[1] is not None

    def _shared(self, key: str, build: Callable[[], Any]) -> Any:
        """What scopes built from the same constraint texts compute once."""
        shared = self.scope.shared_derivations
        got = shared.get(key)
        if got is None:
            got = shared.setdefault(key, build())
        return got

    def cheap_candidates(self) -> list[dict[str, int]]:
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
        for a in self.lin.closure(self.constraint_polys()):
            if type(a) is FloorDiv and isinstance(a.den, int):
                step = math.lcm(step, a.den)
        if step > 1 and step < 1 << 20:
            out.append({v: -(-x // step) * step for v, x in lows.items()})
        return out

    def repaired_candidate(self, order: Sequence[str]) -> dict[str, int] | None:
        """A valuation of the constraint variables repaired until every
        constraint holds (see :func:`symshape.repair.repaired`), raising
        variables in ``order``; None when the repair gives up.  It starts
        from the lower bounds interval propagation gives, each variable under
        a constant divisor rounded up to a multiple of its divisors, and
        raises by multiples of all of them: from there a chain of offsets
        needs a few raises, not one per link and round.  The caller checks
        the valuation exactly."""
        polys = self.constraint_polys()
        step = 1
        for a in self.lin.closure(polys):
            if type(a) is FloorDiv and isinstance(a.den, int):
                step = math.lcm(step, a.den)
        if step >= 1 << 20:
            return None
        own = divisor_steps([a for p in polys for m in p for a, _ in m if type(a) is not Var],
                            set())
        start = {}
        for v in order:
            k = own.get(v, 1)
            start[v] = -(-self.scope.var_lower_bound(v) // k) * k
        rank = {v: i for i, v in enumerate(order)}
        return repaired(start, polys, lambda env, p: self.point(env).poly(p), growth_rates_at,
                        lambda v: rank.get(v, len(rank)), step)

    def by_place(self) -> list[str]:
        """The constraint variables ordered by their places in the constraints,
        not by their names (which must not change what is found); computed
        once (the repair of the first valuation and the nudges both read it)."""
        places = self.places
        if places is None:
            cvars = self.constraint_vars()
            colors = canon.variable_colors(self.constraint_polys()) if len(cvars) > 1 else {}
            places = self.places = sorted(cvars, key=lambda v: (colors.get(v, 0), v))
        return places

    def first_models(self) -> tuple[dict[str, int], ...]:
        """The first models of the pool: a valid valuation (a cheap candidate,
        a repaired one, or one a search finds), then those of ``x + 1``,
        ``2*x`` and ``3*x + 2`` from it that are valid too; none when no
        valuation is found."""
        found = _Models(self)
        models, add = found.models, found.add
        for env in self.cheap_candidates():
            add(env)
            if models:
                break
        if not models:
            # A chain of offsets with divisibility (``a >= b + 1``, ``mod(a,
            # 8) == 0``) defeats every candidate above; raising variables
            # until each constraint holds usually finds one, for much less
            # than a search.
            fixed = self.repaired_candidate(self.by_place())
            if fixed is not None:
                add(fixed)
        if not models:
            m = self.find_model(())
            if m is not None:
                add({v: m.get(v, 1) for v in self.constraint_vars()})
        if models:
            first = models[0]
            add({v: x + 1 for v, x in first.items()})
            add({v: 2 * x for v, x in first.items()})
            add({v: 3 * x + 2 for v, x in first.items()})
        return tuple(models)

    def prefix_points(self) -> tuple[Point, ...]:
        """The points of :meth:`get_prefix`: those of :meth:`first_models`, as
        the pool numbers them."""
        if not self.constraint_polys():
            return FREE_POINTS
        return tuple(Point(env, i, None)
                     for i, env in enumerate(self._shared("first models", self.first_models)))

    def initial_pool(self) -> tuple[Point, ...]:
        """The points of the pool: :meth:`first_models`, then valuations that
        nudge a few variables of the first one and are valid too."""
        if not self.constraint_polys():
            return FREE_POINTS
        models = list(self._shared("first models", self.first_models))
        if not models:
            return ()
        keys = {tuple(sorted(env.items())) for env in models}
        # The constraints each variable occurs in: a valuation that differs
        # from a valid one in one variable only needs those checked.
        occurs: dict[str, list[Poly]] = {}
        for p in self.constraint_polys():
            for a in self.lin.closure([p]):
                if type(a) is Var:
                    occurs.setdefault(a.name, []).append(p)
        first = models[0]
        # Nudge a few variables, picked by their place in the constraints.
        for v in self.by_place()[:8]:
            for x in (first[v] + 1, first[v] + 5):
                env = {**first, v: x}
                k = tuple(sorted(env.items()))
                if k in keys:
                    continue
                if self.point(env).satisfies(occurs.get(v, ())):
                    keys.add(k)
                    models.append(env)
        n = max(POOL_FREE_SEEDS, len(models))
        # Points without a memo: they name no atom, so scopes built from the
        # same texts share them (see get_pool).
        return tuple(Point(models[i % len(models)], i, None) for i in range(n))

    def question_pool(self, pool: Pool, polys: Sequence[Poly]) -> Pool:
        """``pool`` for a question about ``polys`` under the scope's constraints."""
        atoms = self.constraint_atoms
        if atoms is None:
            atoms = self.constraint_atoms = any(
                type(a) is not Var for p in self.constraint_polys() for m in p for a, _ in m)
        return pool.for_question(polys, atoms)

    def split(self, links: Sequence[tuple[str, Poly]],
              part: str = "all") -> tuple[Point | None, Point | None]:
        """A pool point where the conjunction of ``links`` (``(op, d)``: ``d op
        0``) holds, and one where it fails (None where there is none): the
        first of each in the pool's order, among the points of ``part`` of the
        pool: ``"all"``, its first points (``"prefix"``, :meth:`get_prefix`)
        or the others (``"rest"``, :meth:`get_rest`)."""
        base = self.get_prefix() if part == "prefix" else \
            self.get_rest() if part == "rest" else self.get_pool()
        if not base.points:
            return None, None
        polys = [d for _, d in links]
        pool = self.question_pool(base, polys)
        truth: list[bool] | None = None
        # Points where a divisor of the query is 0 are not valuations of the query.
        for d in self.domain(polys):
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


def _any_symbolic_divisor(polys: Sequence[Poly]) -> bool:
    """Does an atom of ``polys`` have a symbolic divisor, at any depth?"""
    for p in polys:
        for m in p:
            pairs: Factors = m
            for a, _ in pairs:
                if P.has_symbolic_divisor(a):
                    return True
    return False


class _Models:
    """Valid valuations, each once, in the order added (a class, since
    there are no nested functions in compiled modules, see docs/architecture.md)."""

    __slots__ = ("pool", "models", "keys")

    def __init__(self, pool: ScopePool) -> None:
        self.pool = pool
        self.models: list[dict[str, int]] = []
        self.keys: set[tuple[tuple[str, int], ...]] = set()

    def add(self, env: dict[str, int]) -> None:
        """Append ``env`` if it is new and valid."""
        k = tuple(sorted(env.items()))
        if k not in self.keys and self.pool.valid(self.pool.point(env)):
            self.keys.add(k)
            self.models.append(env)


__all__ = ["ModelFinder", "ScopePool"]
