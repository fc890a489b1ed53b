"""Cheap, sound interval bounds of expressions under a scope's constraints.

The second part of :class:`symshape.SymbolicScope` (see ``scope.py``): bounds
of atoms (a variable is ``>= 1``; a ``floordiv`` and a ``max`` from their
operands), of monomials (products of their factors' bounds), of sums, and a
relaxation that sees through the cancellations of ``mod`` and ``max``.  The
constraints tighten monomial bounds by a few rounds of propagation when the
scope is built.  Everything here is a function of the expression and the
scope's fixed facts, cached per scope.

(About 620 lines: the bounds, their propagation and their relaxation all read
the per-scope caches and propagated bounds kept here, and the hot ones are
module-level functions on the scope (see docs/architecture.md); split, each
half would reach into the other's private state.)
"""

from __future__ import annotations

import math
from threading import get_ident
from typing import Any, cast

from symshape._mypyc import mypyc_attr
from symshape.algebra.atoms import (
    ONE,
    Atom,
    Factors,
    FloorDiv,
    Max0,
    Mono,
    Var,
    atom_mono,
    make_var,
    single_atom,
)
from symshape.algebra.bounds import Bound, bound_add, bound_mul, is_finite
from symshape.algebra.dimexpr import DimExpr
from symshape.algebra.poly import Terms
from symshape.algebra.substitute import ScopeCopier
from symshape.errors import UnsatisfiableConstraintsError
from symshape.rules import ConstraintRules

# (index in facts(), scale, ((atom, weight), ...)): see IntervalBounds.bound_steps
BoundOrigin = tuple[int, int, tuple[tuple[Atom, int], ...]]
# (monomial, side, origin, value)
BoundStep = tuple[Mono, int, BoundOrigin, int]

#: bits a propagated bound may have beyond four times the widest constant of
#: the facts and of their atoms (see IntervalBounds._propagate_bounds)
BOUND_BITS_MARGIN = 256

# Interval ends are ints or float infinities: every sum and product of ends
# goes through bound_add / bound_mul (or checks the type first), because an
# int beyond 1e308 met with a float infinity would overflow.


def _imul(lo: Bound, hi: Bound, lo2: Bound, hi2: Bound) -> tuple[Bound, Bound]:
    """The product of the intervals ``[lo, hi]`` and ``[lo2, hi2]``."""
    cands = (bound_mul(lo, lo2), bound_mul(lo, hi2), bound_mul(hi, lo2), bound_mul(hi, hi2))
    return min(cands), max(cands)


def _mono_interval(lo_hi: list[tuple[Bound, Bound, int]]) -> tuple[Bound, Bound]:
    lo: Bound = 1
    hi: Bound = 1
    for alo, ahi, k in lo_hi:
        # The k-fold product of [alo, ahi] by repeated squaring (interval
        # products are associative): a loop over k would take as long as the
        # exponent is large.
        while k:
            if k & 1:
                lo, hi = _imul(lo, hi, alo, ahi)
            k >>= 1
            if k:
                alo, ahi = _imul(alo, ahi, alo, ahi)
    return lo, hi


def _term_interval(scope: IntervalBounds, m: Mono,
                   bounds: dict[Mono, tuple[Bound, Bound]]) -> tuple[Bound, Bound]:
    """The interval of monomial ``m`` in ``scope``, clamped by ``bounds``, the
    monomial bounds to read (the scope's, or those of a propagation under
    way).  A function, not a method: in the compiled module a call to it is
    a C call, where a method of the scope's class is a Python one."""
    lo: Bound
    hi: Bound
    one = single_atom(m)
    if one is not None:
        if type(one) is Var:
            lo, hi = 1, math.inf
        else:
            lo, hi = _atom_interval(scope, one)
    else:
        pairs: Factors = m
        lo, hi = _mono_interval([(*_factor_interval(scope, a), k) for a, k in pairs])
    pb = bounds.get(m)
    if pb is not None:
        return max(lo, pb[0]), min(hi, pb[1])
    return lo, hi


class _PropagatedFact:
    """A fact ``sum c*m + c0 >= 0`` of interval propagation (``items``: its
    non-constant terms; ``origin``: see ``IntervalBounds.bound_steps``), and
    the run of propagation that last tightened with it."""

    __slots__ = ("items", "c0", "origin", "linear", "last_run")

    def __init__(self, items: list[tuple[Mono, int]], c0: int, origin: BoundOrigin) -> None:
        self.items = items
        self.c0 = c0
        self.origin = origin
        # Every term a variable of its own: the fact reads nothing but the
        # bounds of those variables (no interval of an atom, no product).
        self.linear = all(type(single_atom(m)) is Var for m, _ in items)
        self.last_run = -1  # (never run)

    def settled(self, changed_at: dict[Mono, int]) -> bool:
        """Whether running this fact again would tighten nothing: it is linear
        in variables, and no bound of its variables changed since it last
        ran, but by itself.  (Each variable's new bound from such a fact
        comes from the others' bounds at the far end of each term, which
        its own steps never move, so a second run gives the same bounds.)"""
        if not self.linear or self.last_run < 0:
            return False
        last = self.last_run
        return all(changed_at.get(m, -1) <= last for m, _ in self.items)


@mypyc_attr(native_class=False)
class IntervalBounds(ConstraintRules):
    """Interval bounds (the state is set up by ``SymbolicScope``)."""

    # The propagated monomial bounds and every step of propagation that
    # tightened one, in order (see bound_steps).  Propagation runs when a
    # bound is first read, not when the scope is built: a scope that is only
    # built (or only used for shapes) never pays for it.  It is a function of
    # the fixed facts alone, so when it runs changes no answer.
    _propagated: dict[Mono, tuple[Bound, Bound]]
    _steps: list[BoundStep]
    # True from the end of construction until propagation has run;
    # _propagating while it runs: the thread running it (its own reads see
    # its progress, without the lock; other threads wait on the scope's lock
    # for the result), else None.
    _bounds_pending: bool
    _propagating: int | None
    # The atoms the constraints built (their constants scale the bit limit of
    # propagated bounds), so that the limit does not depend on what was
    # built in the scope before propagation ran.
    _constraint_atoms: tuple[Any, ...]
    _lock: Any  # the scope's RLock
    _interval_cache: dict[DimExpr, tuple[Bound, Bound]]
    # The interned floordiv and max atoms (see symshape.algebra.protocol.AlgebraScope).
    atom_table: dict[Any, Any]

    @property
    def _mono_bounds(self) -> dict[Mono, tuple[Bound, Bound]]:
        if self._bounds_pending and self._propagating != get_ident():
            self._settle_bounds()
        return self._propagated

    @property
    def _bound_steps(self) -> list[BoundStep]:
        if self._bounds_pending and self._propagating != get_ident():
            self._settle_bounds()
        return self._steps

    def _settle_bounds(self) -> None:
        """Run the propagation that construction left for the first read."""
        with self._lock:
            if self._bounds_pending and self._propagating is None:
                self._propagating = get_ident()
                try:
                    self._propagate_bounds()
                finally:
                    self._propagating = None
                    self._bounds_pending = False

    def var_lower_bound(self, name: str) -> int:
        """The lower bound of variable ``name`` that the constraints give it by
        interval propagation (at least 1; cheap, not always the tightest)."""
        lo = _factor_interval(self, make_var(name))[0]
        return max(1, int(lo)) if is_finite(lo) else 1

    def var_upper_bound(self, name: str) -> int | None:
        """The upper bound of variable ``name`` that the constraints give it by
        interval propagation (None when there is none)."""
        hi = _factor_interval(self, make_var(name))[1]
        return int(hi) if is_finite(hi) else None

    def _copy_bounds_from(self, src: IntervalBounds, cp: ScopeCopier) -> None:
        """Take the propagated monomial bounds of ``src`` (a scope built from
        the same texts), copied into this scope."""
        self._propagated = {cp.mono(m): b for m, b in src._mono_bounds.items()}
        self._bounds_pending = False
        self._steps = [
            (cp.mono(m), side, (i, scale, tuple((cp.atom(a), w) for a, w in parts)), value)
            for m, side, (i, scale, parts), value in src._bound_steps]

    @property
    def bound_steps(self) -> tuple[BoundStep, ...]:
        """The steps of interval propagation that tightened a bound, in the
        order they were taken: ``(m, side, (i, scale, parts), value)`` says
        that a fact, with the bounds of its other terms at that step, gave
        monomial ``m`` the lower (``side`` 0) or upper (1) bound ``value``.
        The fact is ``scale`` times fact number ``i`` of :meth:`facts`, plus
        ``w`` times an axiom of each ``(atom, w)`` in ``parts`` (a relaxed
        fact, see :meth:`_relaxed_facts`; ``parts`` is empty for the fact
        itself).  Replayed in order, the steps write each propagated bound as
        a combination of facts, without a search (see
        ``Linearizer.propagated``)."""
        return tuple(self._bound_steps)

    def _propagate_bounds(self) -> None:
        """Tighten monomial bounds from the linear structure of the facts.

        A few rounds of bound propagation: for ``sum c_i*t_i + c0 >= 0`` each
        ``t_j`` gets a bound from the others' bounds.  The facts are the
        scope's and their relaxations (see :meth:`_relaxed_facts`).  Rounds
        are capped, so a cyclic set of constraints cannot loop; the decision
        procedure does the complete job.
        """
        indexed = [(i, f.terms) for i, (f, _) in enumerate(self.facts())
                   if isinstance(f, DimExpr)]
        if not indexed:
            return
        base = [terms for _, terms in indexed]
        with_origin: list[tuple[Terms, BoundOrigin]] = [
            (terms, (i, 1, ())) for i, terms in indexed]
        # a relaxed fact's origin names the fact of facts() it relaxes
        with_origin += [(terms, (indexed[j][0], scale, parts))
                        for terms, (j, scale, parts) in self._relaxed_facts(base)]
        facts = [_PropagatedFact([(m, c) for m, c in terms.items() if m], terms.get(ONE, 0),
                                 origin) for terms, origin in with_origin]
        # Bounds far beyond the constants are left out: constraints such as
        # ``c - a == c^3`` (a >= 1) raise c's lower bound to its cube, round
        # after round, and millions of bits later every question about the
        # scope would crawl.  Dropping a bound only weakens the facts.
        limit = 4 * self._widest_constant([terms for terms, _ in with_origin]) + \
            BOUND_BITS_MARGIN
        steps = self._steps
        # changed_at[m]: the run (a count of the facts run) that last tightened m
        changed_at: dict[Mono, int] = {}
        run = 0
        for _ in range(8):
            changed = False
            for f in facts:
                run += 1
                if f.settled(changed_at):
                    continue
                n = len(steps)
                if _tighten(self, f.items, f.c0, f.origin, limit):
                    changed = True
                    for k in range(n, len(steps)):
                        changed_at[steps[k][0]] = run
                f.last_run = run
            self._interval_cache.clear()
            if not changed:
                break
            # A fact of one term bounds it by its constant alone: done after
            # the first round.
            facts = [f for f in facts if len(f.items) > 1]

    def _widest_constant(self, facts: list[Terms]) -> int:
        """Bits of the widest constant of ``facts`` and of the operands of the
        scope's atoms (``floordiv(s, 2^300) >= 1`` bounds ``s`` by its divisor)."""
        widest = 0
        for terms in facts:
            for c in terms.values():
                widest = max(widest, abs(c).bit_length())
        for a in self._constraint_atoms:
            for o in a.operands:
                if isinstance(o, int):
                    widest = max(widest, abs(o).bit_length())
                else:
                    t: Terms = o.terms
                    for c in t.values():
                        widest = max(widest, abs(c).bit_length())
        return widest

    def _relaxed_facts(self, facts: list[Terms]) -> list[tuple[Terms, BoundOrigin]]:
        """Linear facts implied by ``facts`` once their top-level divisions and
        maxima are relaxed the way that keeps the fact true.

        ``c*floordiv(N, k)`` with ``c > 0`` is at most ``c*N/k``, and
        ``c*max(D, 0)`` with ``c < 0`` is at most ``c*D``: replacing them makes
        the left side no smaller, so ``f >= 0`` implies the relaxed fact.  This
        is what gives variables the bounds ``floordiv(s, 2) >= 1`` (``s >= 2``)
        and ``min(s, w) >= 4`` (``s >= 4`` and ``w >= 4``) imply.  Each comes
        with its origin: ``(j, scale, parts)``, the relaxed fact being
        ``scale * facts[j]`` plus ``w`` times the axiom ``N - k*q >= 0`` of
        each ``(q, w)`` in ``parts`` that is a floordiv, and the axiom
        ``m - D >= 0`` of each that is a max.
        """
        out: list[tuple[Terms, BoundOrigin]] = []
        for j, terms in enumerate(facts):
            scale = 0
            for m, c in terms.items():
                a = single_atom(m)
                if a is not None:
                    if type(a) is FloorDiv and type(a.den) is int and c > 0:
                        scale = math.lcm(scale or 1, a.den)
                    elif type(a) is Max0 and c < 0:
                        scale = scale or 1
            if not scale:
                continue
            relaxed: Terms = {}
            parts: list[tuple[Atom, int]] = []
            for m, c in terms.items():
                x = single_atom(m)
                if isinstance(x, FloorDiv) and type(x.den) is int and c > 0:
                    w = c * scale // x.den
                    parts.append((x, w))
                    num = x.num
                    for m2, c2 in (num.terms if isinstance(num, DimExpr) else {ONE: num}).items():
                        relaxed[m2] = relaxed.get(m2, 0) + w * c2
                elif isinstance(x, Max0) and c < 0:
                    parts.append((x, -c * scale))
                    for m2, c2 in x.arg.terms.items():
                        relaxed[m2] = relaxed.get(m2, 0) + c * scale * c2
                else:
                    relaxed[m] = relaxed.get(m, 0) + c * scale
            relaxed = {m: c for m, c in relaxed.items() if c}
            if any(relaxed):  # a monomial other than the constant one is left
                out.append((relaxed, (j, scale, tuple(parts))))
        return out

    def _mono_interval(self, m: Mono) -> tuple[Bound, Bound]:
        return _term_interval(self, m, self._mono_bounds)

    def interval(self, e: DimExpr | int) -> tuple[Bound, Bound]:
        """Cheap, sound interval bounds of ``e`` (cached per scope)."""
        return _interval(self, e)

    def terms_interval(self, terms: Terms) -> tuple[Bound, Bound]:
        """Interval bounds of the sum of ``terms`` (monomial -> coefficient),
        each monomial bounded on its own."""
        return _terms_interval(self, terms)

    def _max_upper(self, a: Max0) -> tuple[Terms, int] | None:
        """``(U, u)`` with ``max(D, 0) <= U + u`` for every valuation, where
        ``U`` keeps the terms of ``D`` with a positive coefficient: each
        negative term is at most its coefficient times its monomial's lower
        bound, and ``u`` lifts ``U + u`` to >= 0.  (``max(b - a, 0) <= b - 1``.)
        None when ``D`` has no negative term (``U`` would be ``D`` itself) or
        a needed bound is infinite."""
        d_terms = a.arg.terms
        upper: Terms = {}
        k = 0
        for m, c in d_terms.items():
            if not m:
                k += c
            elif c > 0:
                upper[m] = c
            else:
                lo = self._mono_interval(m)[0]
                if not isinstance(lo, int):  # (-inf)
                    return None
                k += c * lo
        if len(upper) == len(d_terms) - (ONE in d_terms):
            return None
        u_lo = bound_add(_terms_interval(self, upper)[0], k) if upper else k
        if not isinstance(u_lo, int):  # (-inf)
            return None
        return upper, k + max(0, -u_lo)

    def _relaxed_interval(self, e: DimExpr) -> tuple[Bound, Bound]:
        """Interval of ``e`` after exposing the structure of its top-level atoms
        (and of the maxima in the numerators of its floordivs).

        Atom-by-atom intervals lose the cancellation in ``a - 5*floordiv(a, 5)``
        (``mod(a, 5)``) and in ``max(a, b) - a``.  Here each ``c*floordiv(N, k)``
        is replaced by ``(c/k)*(N - r)`` with ``0 <= r <= k-1`` (scaling the whole
        sum by the lcm of the divisors), and each ``c*max(D, 0)`` may be replaced
        by ``c*D + c*max(-D, 0)``, or, at the end of the sum that needs an
        upper bound of the maximum, by ``c`` times the symbolic upper bound of
        :meth:`_max_upper`; every choice is sound, so the intersection is.
        """
        fds: list[tuple[Mono, int, FloorDiv]] = []
        has_max = False
        for m, c in e.terms.items():
            a = single_atom(m)
            if a is not None:
                if type(a) is FloorDiv and isinstance(a.den, int):
                    fds.append((m, c, a))
                elif type(a) is Max0:
                    has_max = True
        if not fds and not has_max:
            return -math.inf, math.inf
        scale = 1
        for _, _, a in fds:
            scale = math.lcm(scale, a.den)
        base: Terms = {}
        extra_lo: Bound = 0
        extra_hi: Bound = 0
        skip = {m for m, _, _ in fds}
        for m, c in e.terms.items():
            if m not in skip:
                base[m] = base.get(m, 0) + c * scale
        for _, c, a in fds:
            k = a.den
            assert isinstance(k, int)
            w = c * scale // k
            num_terms = {ONE: a.num} if isinstance(a.num, int) else a.num.terms
            for m2, c2 in num_terms.items():
                base[m2] = base.get(m2, 0) + w * c2
            # -w * r with 0 <= r <= k - 1
            extra_lo += min(0, -w * (k - 1))
            extra_hi += max(0, -w * (k - 1))
        # The maxima of e and those the numerators brought in (scaled weights).
        maxes: list[tuple[Mono, int, Max0]] = []
        for m, c in base.items():
            one = single_atom(m) if c else None
            if type(one) is Max0:
                maxes.append((m, c, one))
        for m, _, _ in maxes:
            del base[m]
        best_lo: Bound = -math.inf
        best_hi: Bound = math.inf
        n = len(maxes)
        uppers = [self._max_upper(a) for _, _, a in maxes]
        choices = range(1 << n) if n <= 3 else (0, (1 << n) - 1)
        for mask in choices:
            # Terms for the lower end and for the upper end: they differ
            # where a maximum is replaced by an upper bound of it, which is
            # only good for one end.
            terms_lo = dict(base)
            terms_hi = dict(base)
            lo_x, hi_x = extra_lo, extra_hi
            for i, (_m, w, a) in enumerate(maxes):
                if mask >> i & 1:
                    for m2, c2 in a.arg.terms.items():
                        terms_lo[m2] = terms_lo.get(m2, 0) + w * c2
                        terms_hi[m2] = terms_hi.get(m2, 0) + w * c2
                    dlo, dhi = _interval(self, a.arg)
                    mlo, mhi = max(0, -dhi), max(0, -dlo)  # max(-D, 0)
                else:
                    mlo, mhi = _atom_interval(self, a)
                    up = uppers[i]
                    if mhi == math.inf and up is not None:
                        # max(D, 0) <= U + u: the end that needs an upper
                        # bound of the maximum takes it
                        u_terms, u = up
                        side = terms_lo if w < 0 else terms_hi
                        for m2, c2 in u_terms.items():
                            side[m2] = side.get(m2, 0) + w * c2
                        if w < 0:
                            lo_x = bound_add(lo_x, w * u)
                            hi_x = bound_add(hi_x, bound_mul(w, mlo))
                        else:
                            hi_x = bound_add(hi_x, w * u)
                            lo_x = bound_add(lo_x, bound_mul(w, mlo))
                        continue
                lo_x = bound_add(lo_x, bound_mul(w, mlo) if w > 0 else bound_mul(w, mhi))
                hi_x = bound_add(hi_x, bound_mul(w, mhi) if w > 0 else bound_mul(w, mlo))
            lo = _terms_interval(self, {m: c for m, c in terms_lo.items() if c})[0]
            hi = _terms_interval(self, {m: c for m, c in terms_hi.items() if c})[1]
            lo, hi = bound_add(lo, lo_x), bound_add(hi, hi_x)
            if lo != -math.inf:
                best_lo = max(best_lo, -((-lo) // scale))
            if hi != math.inf:
                best_hi = min(best_hi, hi // scale)
        return best_lo, best_hi


# The scope's interval computations, as module-level functions: from compiled
# code a call to one is a C call, where a method of the scope's class (a
# non-native one) is a generic call that makes a bound method object.  The
# methods of IntervalBounds above are their public (and protocol) faces.


def _tighten(scope: IntervalBounds, items: list[tuple[Mono, int]], c0: int, origin: BoundOrigin,
             limit: int) -> bool:
    """One propagation step for the fact ``sum c*m + c0 >= 0`` (``items``
    the non-constant terms; ``origin`` where it comes from, see
    :attr:`bound_steps`); True when a monomial bound changed.  A bound of
    more than ``limit`` bits is not kept."""
    # The largest value of each term c*m, and the sum of the finite ones
    # (one loop: this runs for every fact in every round of propagation).
    # (The bounds propagated so far are read directly: this runs inside
    # the propagation, under the scope's lock.)
    propagated = scope._propagated
    bounds: list[tuple[Bound, Bound]] = []
    his: list[int | None] = []  # None: +inf
    n_inf = 0
    finite_hi: int = c0
    for m, c in items:
        lo, hi = _term_interval(scope, m, propagated)
        bounds.append((lo, hi))
        end = hi if c > 0 else lo
        if isinstance(end, float):  # c*end is +inf (the only floats are infinities)
            his.append(None)
            n_inf += 1
        else:
            h = c * end
            his.append(h)
            finite_hi += h
    if n_inf > 1:
        return False  # no term is bounded by the others
    changed = False
    steps = scope._steps
    # (indexed, not zipped: a compiled zip() is a generic call and iterator)
    for j in range(len(items)):
        m, c = items[j]
        lo, hi = bounds[j]
        hi_j = his[j]
        if hi_j is None:
            rest_hi = finite_hi
        elif n_inf:
            continue
        else:
            rest_hi = finite_hi - hi_j
        # c*m >= -rest_hi
        low = -rest_hi
        if c > 0:
            new_lo = -((-low) // c)
            if new_lo <= lo or new_lo.bit_length() > limit:
                continue
            lo = new_lo
            steps.append((m, 0, origin, new_lo))
        else:
            new_hi = low // c
            if new_hi >= hi or new_hi.bit_length() > limit:
                continue
            hi = new_hi
            steps.append((m, 1, origin, new_hi))
        if lo > hi:
            raise UnsatisfiableConstraintsError(
                "unsatisfiable constraints: they force "
                f"{DimExpr({m: 1}, cast(Any, scope))} into the empty range [{lo}, {hi}]; "
                f"constraints: {list(scope.constraint_texts)}")
        propagated[m] = (lo, hi)
        changed = True
    return changed


def _atom_interval(scope: IntervalBounds, a: Any) -> tuple[Bound, Bound]:
    t = type(a)
    if t is Var:
        return 1, math.inf
    if t is FloorDiv:
        nlo, nhi = _interval(scope, a.num)
        if isinstance(a.den, int):
            k = a.den
            return (nlo // k if is_finite(nlo) else nlo,
                    nhi // k if is_finite(nhi) else nhi)
        dlo, dhi = _interval(scope, a.den)
        dlo = max(dlo, 1)
        if nlo >= 0:
            lo = 0 if not is_finite(dhi) else nlo // dhi
            hi = nhi if not is_finite(nhi) else nhi // dlo
            return lo, hi
        lo = nlo if not is_finite(nlo) else nlo // dlo
        if nhi < 0:
            return lo, (-1 if not is_finite(dhi) else nhi // dhi)
        hi = nhi if not is_finite(nhi) else nhi // dlo
        return lo, hi
    assert t is Max0
    lo, hi = _interval(scope, a.arg)
    return max(lo, 0), max(hi, 0)


def _factor_interval(scope: IntervalBounds, a: Atom) -> tuple[Bound, Bound]:
    """Interval of an atom, with the bounds the constraints give it."""
    lo, hi = _atom_interval(scope, a)
    pb = scope._mono_bounds.get(atom_mono(a))
    if pb is not None:
        lo, hi = max(lo, pb[0]), min(hi, pb[1])
    return lo, hi


def _interval(scope: IntervalBounds, e: DimExpr | int) -> tuple[Bound, Bound]:
    """Cheap, sound interval bounds of ``e`` (cached per scope)."""
    if type(e) is not DimExpr and isinstance(e, int):
        return e, e
    r = scope._interval_cache.get(e)
    if r is not None:
        return r
    lo, hi = _terms_interval(scope, e.terms)
    if (lo == -math.inf and hi == math.inf) or _may_cancel(e.terms):
        # Both ends open is the sign of terms that cancel, as in mod(a, 5);
        # with bounded variables the ends are finite but as loose (mod(a, 4)
        # in [-28, 31] for 4 <= a <= 35, not [0, 3]; max(a, b) - a in
        # [-9, 18] for a, b <= 10, not [0, 9]).
        lo2, hi2 = scope._relaxed_interval(e)
        lo, hi = max(lo, lo2), min(hi, hi2)
    r = (lo, hi)
    scope._interval_cache[e] = r
    return r


def _may_cancel(terms: Terms) -> bool:
    """Do ``terms`` hold a ``floordiv`` by a constant or a ``max`` beside a
    term of its operand (``a - 4*floordiv(a, 4)``, ``max(a - b, 0) + b -
    a``)?  Bounds of the terms taken apart then lose what they share, though
    every end is finite: the relaxation sees through the atom."""
    for m in terms:
        a = single_atom(m)
        if type(a) is FloorDiv and isinstance(a.den, int):
            o: DimExpr | int = a.num
        elif type(a) is Max0:
            o = a.arg
        else:
            continue
        if isinstance(o, DimExpr):
            for m2 in o.terms:
                if m2 and m2 in terms:
                    return True
    return False


def _terms_interval(scope: IntervalBounds, terms: Terms) -> tuple[Bound, Bound]:
    """Interval bounds of the sum of ``terms`` (monomial -> coefficient),
    each monomial bounded on its own."""
    lo: Bound = 0  # ints: infinite terms only set the flags
    hi: Bound = 0
    lo_open = hi_open = False
    mono_bounds = scope._mono_bounds
    for m, c in terms.items():
        if not m:
            lo += c
            hi += c
            continue
        mlo, mhi = _term_interval(scope, m, mono_bounds)
        if c <= 0:
            if not c:
                continue
            mlo, mhi = mhi, mlo  # the ends of c*m come from the other ends of m
        # bound_mul and bound_add inlined: 0 * inf is 0, and an infinite
        # end makes the sum infinite (the only floats are infinities)
        if type(mlo) is float:
            lo_open = True
        elif mlo:
            lo += c * mlo
        if type(mhi) is float:
            hi_open = True
        elif mhi:
            hi += c * mhi
    return (-math.inf if lo_open else lo), (math.inf if hi_open else hi)
