"""From a scope and a query to a canonical list of facts.

Every monomial of the canonical form is a column.  The facts (each
``poly >= 0``, with its derivation, see :mod:`certificate`) are:

* level 0: the explicit constraints (both directions of an equality), the
  scope's implicit facts, and the axioms of every atom reachable from them and
  from the query (``v >= 1``; the two inequalities defining
  ``q = floordiv(num, den)``; ``den >= 1`` for a symbolic divisor; ``m >= 0`` and
  ``m >= arg`` for ``m = max(arg, 0)``);
* level 1 adds, for ``floordiv`` by a symbolic divisor, the sign of the
  quotient from the sign of the numerator, and, for every product monomial,
  McCormick inequalities: products of the bound facts of its factors, e.g.
  ``(a - 1)*(b - 1) >= 0``, i.e. ``a*b - a - b + 1 >= 0``.

Bounds of atoms come from the scope's interval arithmetic (cheap, sound) and
are then *proved*: by replaying the propagation steps that found them
(:mod:`symshape.decision.replay`), or by a small level-0 search (a lemma), so
each bound fact carries its own proof and the certificates stay checkable.
Squares and factors of a query's polynomials come from
:mod:`symshape.decision.factoring`.

(About 640 lines, one class: the facts of each level are built from the
caches of the levels below it (atom bounds, products of bounds, lemmas), so
the builders stay together; the jobs that need none of those caches, the
replay and the factoring, are modules of their own.)  Everything is cached per scope
and sorted by canonical keys, so the facts of a query do not depend on the
order of the constraints or on earlier queries.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from symshape.algebra.atoms import (
    Atom,
    Factors,
    FloorDiv,
    Max0,
    Mono,
    Var,
    atom_mono,
    mono_div,
    nonlinear,
    single_atom,
)
from symshape.algebra.dimexpr import DimExpr
from symshape.decision import canon
from symshape.decision import poly as P
from symshape.decision.fact_kinds import (
    make_axiom,
    make_combo,
    make_fd_bound,
    make_fd_mono,
    make_fd_nested,
    make_fd_num,
    make_product,
)
from symshape.decision.factoring import cofactor, divide, square_facts
from symshape.decision.facts import Fact
from symshape.decision.poly import Poly
from symshape.decision.replay import StepReplay

# (target polynomial, level) -> a lemma fact ``target >= 0`` or None
LemmaProver = Callable[[Poly, int], "Fact | None"]

INF = 1 << 30  # the level of a query: every derived fact


def _finite(x: Any) -> bool:
    return isinstance(x, int)


def _no_lemma(p: Poly, level: int) -> Fact | None:
    return None


def _no_probe(p: Poly) -> list[int]:
    return []


def _no_facts() -> list[Fact]:
    return []


def _no_axioms(a: Atom) -> tuple[Fact, ...]:
    return ()


#: the replay of a released linearizer (see Linearizer.release)
_NO_REPLAY = StepReplay(None, _no_facts, _no_axioms, {})


class Linearizer:
    """Per-scope builder and cache of facts."""

    def __init__(self, scope: Any, prove_lemma: LemmaProver,
                 probe: Callable[[Poly], list[int]] | None = None) -> None:
        self.scope = scope
        self.prove_lemma = prove_lemma
        # values of a polynomial at fixed sample valuations (candidate bounds)
        self.probe: Callable[[Poly], list[int]] = probe or _no_probe
        self._axioms: dict[Atom, tuple[Fact, ...]] = {}
        self._sub: dict[Atom, tuple[Atom, ...]] = {}
        self._fdb: dict[Atom, tuple[Fact | None, Fact | None]] = {}
        self._fdnum: dict[Atom, Fact | None] = {}
        self._lower: dict[Mono, Fact | None] = {}
        self._upper: dict[Mono, Fact | None] = {}
        self._mcc: dict[Mono, tuple[Fact, ...]] = {}
        self._base: dict[int, tuple[list[Fact], list[Atom]]] = {}
        self._pbounds: dict[frozenset[Any], tuple[Fact | None, Fact | None]] = {}
        self._factor: dict[frozenset[Any], tuple[Fact, ...]] = {}
        self._eqs: list[tuple[Fact, Fact, frozenset[Atom]]] | None = None
        self._cfacts: list[Fact] | None = None  # the facts of the constraints
        # Lazily replayed propagation steps (see propagated_fact), by index.
        self._step_facts: dict[int, Fact | None] = {}
        self.replay = StepReplay(scope, self.constraint_facts, self.axioms, self._step_facts)

    def release(self) -> None:
        """Drop the references that close cycles through this linearizer, for
        :meth:`symshape.decision.engine.Decider.release` (not used again): the
        callbacks into the decider, and the replay, whose callbacks are this
        linearizer's methods.  Its tables then die with it."""
        self.prove_lemma = _no_lemma
        self.probe = _no_probe
        self.replay = _NO_REPLAY

    def structural_copy(self, prove_lemma: LemmaProver,
                        probe: Callable[[Poly], list[int]] | None = None) -> Linearizer:
        """A linearizer sharing the caches that depend only on the scope's
        structure (axioms, sub-atoms, the facts of the constraints),
        with none of the facts proved by lemmas."""
        new = Linearizer(self.scope, prove_lemma, probe)
        new._axioms = self._axioms
        new._sub = self._sub
        new._cfacts = self._cfacts
        # level 0: constraints and axioms only (higher levels add derived facts)
        new._base = {lv: b for lv, b in self._base.items() if lv == 0}
        return new

    # -- atoms -------------------------------------------------------------------
    def sub_atoms(self, a: Atom) -> tuple[Atom, ...]:
        """Atoms of the operands of ``a`` (one level)."""
        s = self._sub.get(a)
        if s is None:
            acc: set[Atom] = set()
            for o in a.operands:
                if isinstance(o, DimExpr):
                    for m in o.terms:
                        pairs: Factors = m
                        for b, _ in pairs:
                            acc.add(b)
            s = self._sub[a] = tuple(acc)
        return s

    def closure(self, polys: Iterable[Poly], seen: set[Atom] | None = None) -> list[Atom]:
        """Atoms reachable from ``polys`` (not in ``seen``), iteratively."""
        seen = set() if seen is None else seen
        out: list[Atom] = []
        stack: list[Atom] = []
        for p in polys:
            for m in p:
                pairs: Factors = m
                for a, _ in pairs:
                    if a not in seen:
                        seen.add(a)
                        stack.append(a)
        while stack:
            a = stack.pop()
            out.append(a)
            for b in self.sub_atoms(a):
                if b not in seen:
                    seen.add(b)
                    stack.append(b)
        return out

    def axioms(self, a: Atom) -> tuple[Fact, ...]:
        """Level-0 axioms of one atom."""
        fs = self._axioms.get(a)
        if fs is None:
            t = type(a)
            if t is Var:
                fs = (make_axiom("var", a),)
            elif t is FloorDiv:
                kinds = ["fd_lo", "fd_hi"]
                if isinstance(a.den, DimExpr):  # type: ignore[attr-defined]
                    kinds.append("fd_den")
                fs = tuple(make_axiom(k, a) for k in kinds)
            elif t is Max0:
                fs = (make_axiom("max_ge0", a), make_axiom("max_ge_arg", a))
            else:  # pragma: no cover - the core has exactly three atom types
                fs = ()
            self._axioms[a] = fs
        return fs

    def depth(self, a: Atom) -> int:
        """Nesting depth: 0 for a variable, 1 + the deepest sub-atom otherwise
        (kept on the atom: see :func:`symshape.decision.canon.atom_depth`)."""
        return canon.atom_depth(a)

    def mono_depth(self, m: Mono) -> int:
        """The depth of the deepest atom of a monomial."""
        return max((self.depth(a) for a, _ in m), default=0)

    def constraint_facts(self) -> list[Fact]:
        """Explicit constraints and implicit facts of the scope (built once:
        the scope's facts are fixed)."""
        out = self._cfacts
        if out is None:
            out = self._cfacts = self._make_constraint_facts()
        return out

    def _make_constraint_facts(self) -> list[Fact]:
        out: list[Fact] = []
        for c in self.scope.constraints:
            d = P.from_expr(c.diff)
            out.append(Fact(d, "constraint", note=c.text))
            if c.op == "==":
                out.append(Fact(P.scale(d, -1), "constraint", note=c.text))
        for e, reason in self.scope.implicit_facts:
            out.append(Fact(P.from_expr(e), "implicit", note=str(reason)))
        return out

    def base(self, level: int = INF) -> tuple[list[Fact], list[Atom]]:
        """Facts of the scope alone at ``level``, and the atoms they mention."""
        b = self._base.get(level)
        if b is None:
            cf = self.constraint_facts()
            atoms = self.closure(f.poly for f in cf)
            facts = list(cf)
            for a in atoms:
                facts.extend(self.axioms(a))
            if level > 0:
                facts.extend(self.extras(list(facts), atoms, level))
            b = self._base[level] = (canonical(facts), atoms)
        return b

    # -- level 1: derived facts -------------------------------------------------------
    def fd_bounds(self, a: Atom) -> tuple[Fact | None, Fact | None]:
        """Lower and upper bound facts of ``floordiv(num, den)`` with a symbolic
        divisor, from proved bounds of ``num`` (and of ``den``)."""
        fs = self._fdb.get(a)
        if fs is None:
            lower = upper = None
            if type(a) is FloorDiv and isinstance(a.den, DimExpr):
                lv = self.depth(a)
                lemma = self.prove_lemma
                num, den = P.from_expr(a.num), P.from_expr(a.den)
                nlo, nhi = self.scope.interval(a.num)
                dlo, dhi = self.scope.interval(a.den)
                low = nlo if _finite(nlo) else 0
                p1 = lemma(P.add(num, P.const(-low)), lv)
                if p1 is not None:
                    prems = [p1]
                    if low > 0 and _finite(dhi):
                        p2 = lemma(P.add(P.const(dhi), den, -1), lv)
                        if p2 is not None:
                            prems.append(p2)
                    lower = make_fd_bound("fd_lb", a, prems)
                if _finite(nhi):
                    p1 = lemma(P.add(P.const(nhi), num, -1), lv)
                    if p1 is not None:
                        prems = [p1]
                        p2 = None
                        if nhi >= 0 and _finite(dlo) and dlo > 1:
                            p2 = lemma(P.add(den, P.const(-dlo)), lv)
                        elif nhi < 0 and _finite(dhi):
                            p2 = lemma(P.add(P.const(dhi), den, -1), lv)
                        if p2 is not None:
                            prems.append(p2)
                        upper = make_fd_bound("fd_ub", a, prems)
                if upper is None or P.constant(upper.poly) > 0:
                    # num <= den - 1 makes the quotient <= 0 (floordiv(r, d) under
                    # r <= d - 1), which no constant bound of num shows.
                    p1 = lemma(P.add(P.add(den, P.const(-1)), num, -1), lv)
                    if p1 is not None:
                        upper = make_fd_bound("fd_ub", a, [p1])
            fs = self._fdb[a] = (lower, upper)
        return fs

    def sign_facts(self, a: Atom) -> tuple[Fact, ...]:
        """Bound facts of a symbolic floordiv atom (empty for other atoms)."""
        if type(a) is not FloorDiv or not isinstance(a.den, DimExpr):
            return ()
        lower, upper = self.fd_bounds(a)
        out = tuple(f for f in (lower, upper) if f is not None)
        signed = self.numerator_sign(a)
        return out if signed is None else (*out, signed)

    def numerator_sign(self, a: FloorDiv) -> Fact | None:
        """The quotient against its numerator (``q <= num`` for ``num >= -1``,
        ``q >= num`` for ``num <= 0``; see ``fd_num``), where a lemma gives the
        numerator a sign; the lower bound's premise is reused."""
        if a in self._fdnum:
            return self._fdnum[a]
        num = P.from_expr(a.num)
        lower = self.fd_bounds(a)[0]
        premise = None
        if lower is not None and len(lower.premises) == 1:
            rest = P.add(lower.premises[0].poly, num, -1)  # -L
            if P.is_constant(rest) and P.constant(rest) <= 1:
                premise = lower.premises[0]
        if premise is None and self.scope.interval(a.num)[0] < -1:
            premise = self.prove_lemma(P.add(num, P.const(1)), self.depth(a)) or \
                self.prove_lemma(P.scale(num, -1), self.depth(a))
        fact = None if premise is None else make_fd_num(a, premise)
        self._fdnum[a] = fact
        return fact

    def mono_interval(self, m: Mono) -> tuple[Any, Any]:
        """The scope's interval of monomial ``m``: the bounds that the
        lemmas of :meth:`atom_lower` and :meth:`atom_upper` aim at."""
        return self.scope.interval(DimExpr({m: 1}, self.scope))

    def atom_lower(self, a: Atom) -> Fact | None:
        """A fact ``a - l >= 0`` with the best cheap lower bound ``l``."""
        m = P.atom_mono(a)
        if m in self._lower:
            return self._lower[m]
        lo, _ = self.mono_interval(m)
        t = type(a)
        fact: Fact | None = None
        floor_: int | None = None
        if t is Var:
            fact, floor_ = self.axioms(a)[0], 1
        elif t is Max0:
            fact, floor_ = self.axioms(a)[0], 0
        elif isinstance(a.den, DimExpr):  # type: ignore[attr-defined]
            fact = self.fd_bounds(a)[0]
            if fact is not None:
                floor_ = -P.constant(fact.poly)
        if _finite(lo) and (floor_ is None or lo > floor_):
            lem = self._propagated(m, 0, lo)
            if lem is None:
                lem = self.prove_lemma({m: 1, P.ONE: -lo} if lo else {m: 1}, self.depth(a))
            if lem is not None:
                fact = lem
        self._lower[m] = fact
        return fact

    def atom_upper(self, a: Atom) -> Fact | None:
        """A fact ``u - a >= 0`` with a cheap upper bound ``u``, if one is finite."""
        m = P.atom_mono(a)
        if m in self._upper:
            return self._upper[m]
        _, hi = self.mono_interval(m)
        fact = None
        ceil_: int | None = None
        if type(a) is FloorDiv and isinstance(a.den, DimExpr):
            fact = self.fd_bounds(a)[1]
            if fact is not None:
                ceil_ = P.constant(fact.poly)
        if _finite(hi) and (ceil_ is None or hi < ceil_):
            lem = self._propagated(m, 1, hi)
            if lem is None:
                lem = self.prove_lemma({m: -1, P.ONE: hi} if hi else {m: -1}, self.depth(a))
            if lem is not None:
                fact = lem
        self._upper[m] = fact
        return fact

    def _propagated(self, m: Mono, side: int, target: int) -> Fact | None:
        """The fact ``m - target >= 0`` (``side`` 0) or ``target - m >= 0``
        (side 1), or a tighter one, as interval propagation found the bound
        (see :meth:`propagated_fact`); None when it did not find it that way."""
        f = self.propagated_fact(m, side)
        if f is None:
            return None
        k = P.constant(f.poly)
        return f if (-k >= target if side == 0 else k <= target) else None

    def propagated(self) -> dict[tuple[Mono, int], Fact]:
        """Every bound interval propagation gave a monomial, as a fact (see
        :meth:`StepReplay.propagated`)."""
        return self.replay.propagated()

    def propagated_fact(self, m: Mono, side: int) -> Fact | None:
        """The bound interval propagation gave ``m`` last on ``side``, as a
        fact, or None (see :meth:`StepReplay.propagated_fact`)."""
        return self.replay.propagated_fact(m, side)

    def mono_bounds(self, m: Mono) -> tuple[Fact | None, Fact | None]:
        """Lower and upper bound facts of a monomial (products of factor bounds
        when the factors are non-negative)."""
        one = single_atom(m)
        if one is not None:
            return self.atom_lower(one), self.atom_upper(one)
        if m in self._lower:
            return self._lower[m], self._upper.get(m)
        # Peel one factor at a time down to a monomial whose bounds are known,
        # then build the products back up: a loop, not a recursion, because
        # the chain is as long as the degree (a**500).
        chain: list[tuple[Mono, Atom, Mono]] = []
        cur = m
        while not (len(cur) == 1 and cur[0][1] == 1) and cur not in self._lower:
            # The factor split off first, picked by structure, not by name.
            x = min((a for a, _ in cur), key=canon.atom_order([P.mono(cur)]))
            rest = mono_div(cur, P.atom_mono(x))
            assert rest is not None
            chain.append((cur, x, rest))
            cur = rest
        for cur, x, rest in reversed(chain):
            self._product_bounds(cur, x, rest)
        return self._lower[m], self._upper.get(m)

    def _product_bounds(self, m: Mono, x: Atom, rest: Mono) -> None:
        """Record the bound facts of ``m == x * rest`` from those of its factors
        (``rest``'s already known)."""
        lx, ux = self.atom_lower(x), self.atom_upper(x)
        if len(rest) == 1 and rest[0][1] == 1:
            lr, ur = self.atom_lower(rest[0][0]), self.atom_upper(rest[0][0])
        else:
            lr, ur = self._lower[rest], self._upper.get(rest)
        low: Fact | None = None
        up: Fact | None = None
        if lx is not None and lr is not None:
            vx, vr = -P.constant(lx.poly), -P.constant(lr.poly)
            if vx >= 0 and vr >= 0:
                prems, mults = [make_product(lx, lr)], [1]
                if vr:
                    prems.append(lx)
                    mults.append(vr)
                if vx:
                    prems.append(lr)
                    mults.append(vx)
                low = make_combo(prems, mults)
                if ux is not None and ur is not None:
                    wr = P.constant(ur.poly)
                    # wx*wr - x*rest = wr*(wx - x) + (x - vx)*(wr - rest) + vx*(wr - rest)
                    prems, mults = [make_product(lx, ur)], [1]
                    if wr:
                        prems.append(ux)
                        mults.append(wr)
                    if vx:
                        prems.append(ur)
                        mults.append(vx)
                    up = make_combo(prems, mults)
        self._lower[m] = low
        self._upper[m] = up

    def mccormick(self, m: Mono) -> tuple[Fact, ...]:
        """McCormick inequalities for a product monomial ``m``."""
        fs = self._mcc.get(m)
        if fs is not None:
            return fs
        out: dict[frozenset[Any], Fact] = {}
        pairs: Factors = m
        for x, _ in pairs:
            xm = P.atom_mono(x)
            rest = mono_div(m, xm)
            if not rest:
                continue
            lx, ux = self.atom_lower(x), self.atom_upper(x)
            lr, ur = self.mono_bounds(rest)
            for f1, f2 in ((lx, lr), (ux, ur), (lx, ur), (ux, lr)):
                if f1 is not None and f2 is not None:
                    f = make_product(f1, f2)
                    out.setdefault(P.hkey(f.poly), f)
            if len(rest) > 1 or rest[0][1] > 1:
                for g in (lr, ur):
                    if g is not None:
                        out.setdefault(P.hkey(g.poly), g)
        fs = tuple(out.values())
        self._mcc[m] = fs
        return fs

    def extras(self, facts: Iterable[Fact], atoms: Iterable[Atom], level: int) -> list[Fact]:
        """Derived facts below ``level``: bounds of symbolic floordiv atoms of
        depth < ``level`` and McCormick facts of the product monomials of
        ``facts`` whose atoms have depth < ``level``.  A lemma about an atom is
        proved with the facts below the atom's own depth, so the construction
        is well founded and does not depend on the order of the queries."""
        out: list[Fact] = []
        for a in atoms:
            if self.depth(a) < level:
                out.extend(self.sign_facts(a))
        products: set[Mono] = set()
        for group in (facts, out):
            for f in group:
                for m in f.poly:
                    if nonlinear(m):
                        products.add(m)
        for m in sorted(products, key=P.column_key):
            if self.mono_depth(m) < level:
                out.extend(self.mccormick(m))
        if level == INF:  # composite factors, for the query itself only
            out.extend(self.monotone_facts(atoms))
            out.extend(self.nested_quotient_facts(atoms))
            for f in facts:
                out.extend(self.factor_facts(f.poly))
                if f.kind == "hyp":
                    out.extend(square_facts(f.poly))
            out.extend(self.equality_products(products))
        return out

    def monotone_facts(self, atoms: Iterable[Atom]) -> list[Fact]:
        """``floordiv(n2, d) >= floordiv(n1, d)`` where a lemma proves
        ``n2 >= n1``, for quotients by the same symbolic divisor: a step no
        linear combination makes (it divides by ``d``)."""
        groups: dict[Any, list[FloorDiv]] = {}
        for a in atoms:
            if type(a) is FloorDiv and isinstance(a.den, DimExpr):
                groups.setdefault(a.den, []).append(a)
        out: list[Fact] = []
        # Orders that ignore the variables' names: the cap below keeps the
        # first pairs, which must not depend on them.
        polys = [P.mono(atom_mono(q)) for qs in groups.values() for q in qs]
        by_atom = canon.atom_order(polys)
        for den in sorted(groups, key=lambda d: sorted(by_atom(q) for q in groups[d])):
            quots = sorted(groups[den], key=by_atom)
            for i, q1 in enumerate(quots):
                for q2 in quots[i + 1:]:
                    if len(out) >= MONOTONE_MAX:
                        return out
                    level = max(self.depth(q1), self.depth(q2))
                    diff = P.add(P.from_expr(q2.num), P.from_expr(q1.num), -1)
                    for low, high, d in ((q1, q2, diff), (q2, q1, P.scale(diff, -1))):
                        lem = self.prove_lemma(d, level)
                        if lem is not None:
                            out.append(make_fd_mono(low, high, lem))
        return out

    def nested_quotient_facts(self, atoms: Iterable[Atom]) -> list[Fact]:
        """For two quotients of one numerator whose divisors are ``D`` and
        ``k*D`` (``k`` by exact division, not a constant 1): both sides of
        ``floordiv(N, k*D) == floordiv(floordiv(N, D), k)`` (see
        :class:`~symshape.decision.fact_kinds.NestedQuotient`)."""
        groups: dict[Any, list[FloorDiv]] = {}
        for a in atoms:
            if type(a) is FloorDiv:
                groups.setdefault(P.hkey(P.operand_poly(a.num)), []).append(a)
        pairs = [qs for qs in groups.values() if len(qs) > 1]
        if not pairs:
            return []
        # Orders that ignore the variables' names: the cap below keeps the
        # first facts, which must not depend on them.
        by_atom = canon.atom_order([P.mono(atom_mono(q)) for qs in pairs for q in qs])
        out: list[Fact] = []
        for qs in sorted(pairs, key=lambda qs: sorted(by_atom(q) for q in qs)):
            quots = sorted(qs, key=by_atom)
            for q1 in quots:
                for q2 in quots:
                    if q1 is q2:
                        continue
                    k = divide(P.operand_poly(q2.den), P.operand_poly(q1.den))
                    if k is None or P.is_constant(k) and P.constant(k) <= 1:
                        continue
                    if len(out) >= NESTED_MAX:
                        return out
                    out.append(make_fd_nested(q1, q2, k, 0))
                    out.append(make_fd_nested(q1, q2, k, 1))
        return out

    def equality_products(self, products: Iterable[Mono]) -> list[Fact]:
        """For an equality constraint ``E == 0`` and a product monomial ``x*R``
        of the query where the atom ``x`` occurs in ``E``: ``E*(R - L) >= 0``
        and ``-E*(R - L) >= 0`` for the lower bound ``R >= L``, which together
        say ``E*R == 0``.  This carries divisibility into products: from
        ``c == 4*floordiv(c, 4)``, ``c*d == 4*floordiv(c, 4)*d``."""
        eqs = self._equalities()
        if not eqs:
            return []
        out: list[Fact] = []
        seen: set[Mono] = set()
        # An order that ignores the variables' names (the cap keeps the first).
        order = canon.column_order([P.mono(m) for m in products])
        todo = sorted(products, key=order)
        # Two rounds: the products made in the first bring new monomials
        # (c*d == 2*floordiv(c, 2)*d), which a second equality on d rewrites.
        for _ in range(2):
            made: list[Fact] = []
            for m in todo:
                if m in seen:
                    continue
                seen.add(m)
                pairs: Factors = m
                for x, _ in pairs:
                    rest = mono_div(m, atom_mono(x))
                    if not rest:
                        continue
                    low = None
                    for pos, neg, atoms in eqs:
                        if x not in atoms:
                            continue
                        if low is None:
                            low = self.mono_bounds(rest)[0]
                            if low is None:
                                break
                        made.append(make_product(pos, low))
                        made.append(make_product(neg, low))
                        if len(out) + len(made) >= EQUALITY_PRODUCTS_MAX:
                            return out + made
            out += made
            todo = sorted({m for f in made for m in f.poly
                           if nonlinear(m)} - seen, key=order)
        return out

    def _equalities(self) -> list[tuple[Fact, Fact, frozenset[Atom]]]:
        """The equality constraints as fact pairs ``(E >= 0, -E >= 0)`` with
        the atoms of ``E``."""
        got = self._eqs
        if got is None:
            got = []
            for c in self.scope.constraints:
                if c.op == "==":
                    d = P.from_expr(c.diff)
                    atoms = frozenset(a for m in d for a, _ in m)
                    got.append((Fact(d, "constraint", note=c.text),
                                Fact(P.scale(d, -1), "constraint", note=c.text), atoms))
            self._eqs = got
        return got

    # -- products of composite factors ------------------------------------------------
    def poly_bounds(self, f: Poly) -> tuple[Fact | None, Fact | None]:
        """Proved lower and upper bound facts of a polynomial (lemmas), with
        candidate bounds from interval arithmetic and from sample valuations."""
        if len(f) == 1 and P.ONE not in f:
            (m, c), = f.items()
            if single_atom(m) is not None:
                # c*a: |c| times the atom's bound facts.  A cofactor such as
                # 2*s is common in products, and a search for its bounds
                # would redo, at a third of a millisecond, what they know.
                return self.bound_sum(f), self.bound_sum(P.scale(f, -1))
        k = P.hkey(f)
        got = self._pbounds.get(k)
        if got is not None:
            return got
        level = 1 + max((self.depth(a) for a in P.atoms_of(f)), default=0)
        lo_i, hi_i = self.scope.interval(DimExpr(dict(f), self.scope)) \
            if not P.is_constant(f) else (P.constant(f), P.constant(f))
        samples = self.probe(f)
        lows = [min(samples)] if samples else []
        highs = [max(samples)] if samples else []
        if lows and lows[0] > 0:
            lows.append(0)  # the sign is often what matters
        if highs and highs[0] < 0:
            highs.append(0)
        if _finite(lo_i) and lo_i not in lows:
            lows.append(lo_i)
        if _finite(hi_i) and hi_i not in highs:
            highs.append(hi_i)
        low = up = None
        for lv in lows:
            low = self.prove_lemma(P.add(f, P.const(-lv)), level)
            if low is not None:
                break
        for hv in highs:
            up = self.prove_lemma(P.add(P.const(hv), f, -1), level)
            if up is not None:
                break
        got = self._pbounds[k] = (low, up)
        return got

    def bound_sum(self, p: Poly) -> Fact | None:
        """``p - L >= 0`` for the interval lower bound ``L`` of ``p``: the sum of
        the lower bound facts of its positive terms and the upper bound facts
        of its negative ones (None when one is missing)."""
        prems: list[Fact] = []
        mults: list[int] = []
        for m, c in p.items():
            if not m:
                continue
            a = single_atom(m)
            if a is not None:  # one atom: only the side needed
                f = self.atom_lower(a) if c > 0 else self.atom_upper(a)
            else:
                lo, hi = self.mono_bounds(m)
                f = lo if c > 0 else hi
            if f is None:
                return None
            prems.append(f)
            mults.append(abs(c))
        return make_combo(prems, mults) if prems else None

    def factor_facts(self, p: Poly) -> tuple[Fact, ...]:
        """Products of the bounds of the factors of the non-linear part of ``p``.

        If the non-linear part factors as ``F*G`` (found by exact division by
        the cofactor of one of its atoms), McCormick inequalities on ``F`` and
        ``G`` relate the product to their bounds, which monomial-by-monomial
        McCormick cannot do (``min(a, b)*min(3, c)`` expands into many
        monomials).  Otherwise, for a few atoms ``x``, ``p = x*C + R`` and the
        products of the bounds of ``x`` and of its cofactor ``C`` are added.
        """
        nonlin = {m: c for m, c in p.items() if nonlinear(m)}
        if not nonlin:
            return ()
        k = P.hkey(nonlin)
        fs = self._factor.get(k)
        if fs is not None:
            return fs
        # The first few atoms in an order that ignores the variables' names
        # (the facts made must not depend on them).
        atoms = sorted(P.atoms_of(nonlin), key=canon.atom_order([nonlin]))[:4]
        pairs: list[tuple[Poly, Poly]] = []
        for x in atoms:
            cof = cofactor(nonlin, x)
            quot = divide(nonlin, cof) if cof else None
            if quot is not None and not P.is_constant(quot):
                pairs.append((quot, cof))
                break
        if not pairs:
            for x in atoms[:3]:
                cof = cofactor(p, x)
                if cof and not P.is_constant(cof):
                    pairs.append((P.mono(P.atom_mono(x)), cof))
        out: dict[frozenset[Any], Fact] = {}
        for f, g in pairs:
            lf, uf = self.poly_bounds(f)
            lg, ug = self.poly_bounds(g)
            for f1, f2 in ((lf, lg), (uf, ug), (lf, ug), (uf, lg)):
                if f1 is not None and f2 is not None:
                    fact = make_product(f1, f2)
                    out.setdefault(P.hkey(fact.poly), fact)
        fs = self._factor[k] = tuple(out.values())
        return fs

    def facts(self, polys: Sequence[Poly], level: int = INF) -> list[Fact]:
        """The facts for a query about ``polys`` at ``level`` (``INF``: all)."""
        base, base_atoms = self.base(level)
        extra = self.closure(polys, set(base_atoms))
        more: list[Fact] = []
        for a in extra:
            more.extend(self.axioms(a))
        if level > 0:
            probe = more + [Fact(p, "hyp") for p in polys]
            more.extend(self.extras(probe, extra, level))
        if not more:
            return base
        return base + canonical(more)


# At most this many monotone-division facts per query.
MONOTONE_MAX = 6

# At most this many nested-quotient facts per query (two per pair of quotients).
NESTED_MAX = 8

# At most this many equality-product facts per query (they grow the LP).
EQUALITY_PRODUCTS_MAX = 16


def canonical(facts: Iterable[Fact]) -> list[Fact]:
    """Facts sorted by canonical key, duplicates (same polynomial) dropped."""
    seen: set[frozenset[Any]] = set()
    out: list[Fact] = []
    for f in sorted(facts, key=lambda f: f.key):
        k = P.hkey(f.poly)
        if k in seen:
            continue
        seen.add(k)
        out.append(f)
    return out


__all__ = ["INF", "Linearizer", "canonical"]
