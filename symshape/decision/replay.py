"""Interval propagation replayed as facts (:class:`StepReplay`).

The scope's interval propagation (``SymbolicScope.bound_steps``) finds the
bounds of monomials step by step; each step is a fact of the scope plus the
bounds of its other terms, divided by a coefficient and rounded.  Replayed
as a combination of facts, a step is the bound with its own proof, with no
search, and the same facts whatever was asked before.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from typing import Any

from symshape.algebra.atoms import Atom, FloorDiv, Max0, Mono, Var
from symshape.decision import poly as P
from symshape.decision.fact_kinds import make_combo
from symshape.decision.facts import Fact


class StepReplay:
    """The propagation steps of one scope, replayed on demand.

    ``constraint_facts`` and ``axioms`` are the linearizer's (the facts of
    the constraints, the axioms of an atom); ``step_facts`` holds the
    replayed steps by index (None: a step that cannot be replayed)."""

    def __init__(self, scope: Any, constraint_facts: Callable[[], list[Fact]],
                 axioms: Callable[[Atom], tuple[Fact, ...]],
                 step_facts: dict[int, Fact | None]) -> None:
        self.scope = scope
        self.constraint_facts = constraint_facts
        self.axioms = axioms
        self.step_facts = step_facts
        # the step indices of each (monomial, side), and the relaxed facts
        # the steps start from
        self.steps_by_key: dict[tuple[Mono, int], list[int]] | None = None
        self.relaxed_origins: dict[Any, Fact] = {}

    def propagated(self) -> dict[tuple[Mono, int], Fact]:
        """Every bound interval propagation gave a monomial, as a fact (see
        :meth:`propagated_fact`): ``(m, 0)`` for ``m - lo >= 0``, ``(m, 1)``
        for ``hi - m >= 0``."""
        out: dict[tuple[Mono, int], Fact] = {}
        for m, side in self.keyed_steps():
            f = self.propagated_fact(m, side)
            if f is not None:
                out[(m, side)] = f
        return out

    def propagated_fact(self, m: Mono, side: int) -> Fact | None:
        """The bound interval propagation gave ``m`` last on ``side``, as a
        fact, or None.

        The scope's propagation steps (``SymbolicScope.bound_steps``) are
        replayed: the step's fact of the scope plus the bound facts of its
        other terms (from earlier steps, or ``v >= 1`` for a variable),
        divided by the coefficient of ``m`` and rounded, which is the step
        itself written as a combination.  No search, and the same facts
        whatever was asked before.  Only the steps a bound needs are
        replayed (a query asks for a few bounds of many).  A step that needs
        a bound no earlier step gave (an atom's interval, a relaxed fact) is
        left out, and so are the steps that rely on it; their bounds are
        proved by lemmas as before.
        """
        steps = self.keyed_steps().get((m, side))
        return None if not steps else self.step_fact(steps[-1])

    def keyed_steps(self) -> dict[tuple[Mono, int], list[int]]:
        """The indices of the propagation steps of each (monomial, side), in order."""
        keyed = self.steps_by_key
        if keyed is None:
            keyed = {}
            for i, (m, side, _, _) in enumerate(self.scope.bound_steps):
                keyed.setdefault((m, side), []).append(i)
            self.steps_by_key = keyed
        return keyed

    def step_fact(self, i: int) -> Fact | None:
        """Step ``i`` replayed (None when it cannot be), after the earlier
        steps it needs: the last step before it for each bound it uses.
        Iterative, so a long chain of steps cannot exhaust the stack."""
        done = self.step_facts
        if i in done:
            return done[i]
        steps = self.scope.bound_steps
        keyed = self.keyed_steps()
        facts = self.constraint_facts()
        stack = [i]
        while stack:
            j = stack[-1]
            if j in done:
                stack.pop()
                continue
            m, side, origin, value = steps[j]
            f = self.origin_fact(origin, facts, self.relaxed_origins)
            known: dict[tuple[Mono, int], Fact] = {}
            missing: list[int] = []
            for mj, cj in (f.poly.items() if f is not None else ()):
                if not mj or mj is m:
                    continue
                key = (mj, 1 if cj > 0 else 0)
                before = keyed.get(key)
                if not before:
                    continue
                k = bisect.bisect_left(before, j) - 1
                if k < 0:
                    continue
                dep = before[k]
                if dep not in done:
                    missing.append(dep)
                elif done[dep] is not None:
                    known[key] = done[dep]  # type: ignore[assignment]
            if missing:
                stack.extend(missing)
                continue
            stack.pop()
            r = self.replay(m, side, f, known)
            if r is not None:
                k0 = P.constant(r.poly)
                if not (-k0 >= value if side == 0 else k0 <= value):
                    r = None
            done[j] = r
        return done[i]

    def origin_fact(self, origin: Any, facts: list[Fact], memo: dict[Any, Fact]
                     ) -> Fact | None:
        """The fact a propagation step used: a fact of the scope, or its
        relaxation (the fact scaled, plus axioms of its floordiv and max
        terms; see ``SymbolicScope.bound_steps``)."""
        i, scale, parts = origin
        if not 0 <= i < len(facts):
            return None
        if scale == 1 and not parts:
            return facts[i]
        f = memo.get(origin)
        if f is None:
            prems, mults = [facts[i]], [scale]
            for a, w in parts:
                # fd_lo: N - k*q >= 0;  max_ge_arg: m - D >= 0
                prems.append(self.axioms(a)[0 if type(a) is FloorDiv else 1])
                mults.append(w)
            f = memo[origin] = make_combo(prems, mults)
        return f

    def replay(self, m: Mono, side: int, f: Fact | None,
                known: dict[tuple[Mono, int], Fact]) -> Fact | None:
        """One propagation step as a combination (see :meth:`propagated`)."""
        if f is None:
            return None
        c = f.poly.get(m)
        if c is None or (c > 0) != (side == 0):
            return None
        prems, mults = [f], [1]
        for mj, cj in f.poly.items():
            if not mj or mj is m:
                continue
            need = 1 if cj > 0 else 0
            g = known.get((mj, need))
            if need == 0 and len(mj) == 1 and mj[0][1] == 1 and type(mj[0][0]) in (Var, Max0):
                # the atom's own lower bound: v - 1 >= 0, max(D, 0) >= 0
                ax = self.axioms(mj[0][0])[0]
                if g is None or -P.constant(g.poly) < -P.constant(ax.poly):
                    g = ax
            if g is None:
                return None
            prems.append(g)
            mults.append(abs(cj))
        out = make_combo(prems, mults, abs(c))
        p = out.poly
        if p.get(m) != (1 if side == 0 else -1) or any(x is not m and x for x in p):
            return None
        return out


__all__ = ["StepReplay"]
