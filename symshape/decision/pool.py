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

from symshape.algebra.atoms import Atom, FloorDiv, Var
from symshape.algebra.dimexpr import DimExpr
from symshape.decision import canon
from symshape.decision import poly as P
from symshape.decision.linearize import Linearizer
from symshape.decision.poly import Poly
from symshape.decision.valuations import FREE_POINTS, POOL_FREE_SEEDS, Point, Pool
from symshape.repair import divisor_steps, growth_rates, repaired

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
        if any(v < 1 for v in pt.env.values()):
            return False
        return all(pt.poly(p) >= 0 for p in self.constraint_polys())

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
        if not any(P.has_symbolic_divisor(a) for p in polys for m in p for a, _ in m):
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
                    shared = self.scope.shared_derivations
                    points = shared.get("pool")
                    if points is None:
                        points = shared.setdefault("pool", self.initial_pool())
                    self.pool = Pool(points, self.lin.sub_atoms)
                pool = self.pool
        return pool

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

        def value(env: dict[str, int], p: Poly) -> int:
            return self.point(env).poly(p)
        return repaired(start, polys, value, growth_rates, lambda v: rank.get(v, len(rank)), step)

    def initial_pool(self) -> tuple[Point, ...]:
        """The points of the pool: a first valid valuation (a cheap candidate,
        a repaired one, or one a search finds), and valuations near it that
        are valid too."""
        cvars = self.constraint_vars()
        if not self.constraint_polys():
            return FREE_POINTS
        models: list[dict[str, int]] = []
        keys: set[tuple[tuple[str, int], ...]] = set()
        polys = self.constraint_polys()
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
                ok = self.valid(self.point(env))
            else:
                pt = self.point(env)
                ok = env[moved] >= 1 and all(pt.poly(p) >= 0 for p in occurs.get(moved, ()))
            if ok:
                keys.add(k)
                models.append(env)

        for env in self.cheap_candidates():
            add(env)
            if models:
                break
        # Variables by their place in the constraints, not by their names
        # (which must not change what is found).
        colors = canon.variable_colors(polys) if len(cvars) > 1 else {}
        by_place = sorted(cvars, key=lambda v: (colors.get(v, 0), v))
        if not models:
            # A chain of offsets with divisibility (``a >= b + 1``, ``mod(a,
            # 8) == 0``) defeats every candidate above; raising variables
            # until each constraint holds usually finds one, for much less
            # than a search.
            fixed = self.repaired_candidate(by_place)
            if fixed is not None:
                add(fixed)
        if not models:
            m = self.find_model(())
            if m is not None:
                add({v: m.get(v, 1) for v in cvars})
        if models:
            first = models[0]
            add({v: x + 1 for v, x in first.items()})
            add({v: 2 * x for v, x in first.items()})
            add({v: 3 * x + 2 for v, x in first.items()})
            # Nudge a few variables, picked by their place in the constraints.
            for v in by_place[:8]:
                add({**first, v: first[v] + 1}, v)
                add({**first, v: first[v] + 5}, v)
        n = max(POOL_FREE_SEEDS, len(models))
        if not models:
            return ()
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

    def split(self, links: Sequence[tuple[str, Poly]]) -> tuple[Point | None, Point | None]:
        """A pool point where the conjunction of ``links`` (``(op, d)``: ``d op
        0``) holds, and one where it fails (None where there is none)."""
        base = self.get_pool()
        if not base.points:
            return None, None
        pool = self.question_pool(base, [d for _, d in links])
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


__all__ = ["ModelFinder", "ScopePool"]
