"""Symbolic scopes: the constraints that expressions live under.

A scope owns the explicit constraints, the rewrite rules derived from its
equality constraints, and the caches of everything that depends only on the
constraints (interval bounds, floordiv normal forms, decisions).
"""

from __future__ import annotations

import math
import os
import sys
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from symshape.build import parse_comparison_in_scope, shape_in_scope
from symshape.errors import (
    InconclusiveDimensionOperation,
    ScopeMismatchError,
    SymshapeError,
    UnsatisfiableConstraintsError,
)
from symshape.expr import (
    _ONE,
    Atom,
    DimExpr,
    FloorDiv,
    Max0,
    Mono,
    Terms,
    Var,
    _as_int,
    atom_children,
    atom_mono,
    comparison_difference,
    fold_atoms,
    make_var,
    mono_key,
)

if TYPE_CHECKING:
    from symshape.decision.engine import Decider
    from symshape.decision.simplex import Limits

Bound = float | int  # ints, or -math.inf / math.inf

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


@dataclass(frozen=True)
class Constraint:
    """One explicit constraint, normalized to ``diff >= 0`` or ``diff == 0``.

    ``text`` is what the user wrote (for a chain, the whole chain), ``op`` is
    ``">="`` or ``"=="`` and ``lhs``/``rhs`` the two sides after the strict
    comparisons were tightened (``a > b`` is kept as ``a >= b + 1``).
    """

    text: str
    op: str
    lhs: DimExpr | int
    rhs: DimExpr | int
    diff: DimExpr | int

    def __str__(self) -> str:
        return f"{self.lhs} {self.op} {self.rhs}"


_INSIDE: dict[str, bool] = {}


def _inside_package(filename: str) -> bool:
    inside = _INSIDE.get(filename)
    if inside is None:
        inside = _INSIDE[filename] = os.path.abspath(filename).startswith(_PACKAGE_DIR)
    return inside


def _caller_location() -> str:
    """The first stack frame outside the symshape package, as ``file:line``."""
    f = sys._getframe(1)
    while f is not None and _inside_package(f.f_code.co_filename):
        f = f.f_back  # type: ignore[assignment]
    if f is None:
        return "unknown location"
    return f"{f.f_code.co_filename}:{f.f_lineno}"


def _imul(x: Bound, y: Bound) -> Bound:
    # Interval products: 0 * inf is 0, because the 0 side really is 0.
    if x == 0 or y == 0:
        return 0
    return x * y


def _mono_interval(lo_hi: list[tuple[Bound, Bound, int]]) -> tuple[Bound, Bound]:
    lo: Bound = 1
    hi: Bound = 1
    for alo, ahi, k in lo_hi:
        for _ in range(k):
            cands = (_imul(lo, alo), _imul(lo, ahi), _imul(hi, alo), _imul(hi, ahi))
            lo, hi = min(cands), max(cands)
    return lo, hi


class SymbolicScope:
    """A set of constraints that the dimension variables of its expressions satisfy.

    Args:
      constraints: strings such as ``"a >= b + 8"``, ``"mod(b, 4) == 0"`` or
        chains ``"16 <= a <= b"``.  ``>`` and ``<`` are tightened to ``>=``
        and ``<=`` over the integers.  Every dimension variable is implicitly
        ``>= 1``.

    Raises:
      UnsatisfiableConstraintsError: when no valuation satisfies the
        constraints together with the implicit ones.
      ParseError: for malformed constraints.
    """

    def __init__(self, constraints: Iterable[str] = ()) -> None:
        if isinstance(constraints, str):
            raise SymshapeError(
                f"constraints must be a sequence of strings, got the string {constraints!r}; "
                f"write [{constraints!r}]")
        self._created_at = _caller_location()
        self._lock = threading.RLock()
        self._constraints: list[Constraint] = []
        # Facts ``e >= 0`` that hold besides the explicit constraints: the
        # ``>= 1`` of a variable that an equality rewrote away.  Fixed once the
        # constraints are loaded, like every fact of the scope: a symbolic
        # divisor's ``>= 1`` is a hypothesis of the queries that mention it
        # (the ``den >= 1`` axiom of its atom), never a fact of the scope.
        self._implicit: list[tuple[DimExpr | int, str]] = []
        self._var_rules: dict[str, DimExpr | int] = {}
        # ``k*m == e``: a term ``c*m`` with ``k | c`` is rewritten to ``(c//k)*e``.
        self._term_rules: dict[Mono, tuple[int, DimExpr | int]] = {}
        self._divisible: tuple[tuple[Terms, int, Mono], ...] | None = None
        self._vars: dict[str, DimExpr | int] = {}
        self._floordiv_cache: dict[Any, DimExpr | int] = {}
        self._atoms: dict[Any, Any] = {}  # interned FloorDiv/Max0 atoms
        self._interval_cache: dict[DimExpr, tuple[Bound, Bound]] = {}
        self._mono_bounds: dict[Mono, tuple[Bound, Bound]] = {}
        self._decider_obj: Decider | None = None
        # Values at the valuation where every variable is 1 (see _at_ones).
        self._ones_memo: dict[Any, int | None] = {}
        self._ones_valid: bool | None = None  # computed on first use
        # (op, x, other) -> decided bool, or the inconclusive message
        self._cmp_cache: dict[tuple[str, DimExpr, Any], bool | str] = {}
        self._initialized = False
        texts = list(constraints)
        for text in texts:
            if not isinstance(text, str):
                raise SymshapeError(f"a constraint must be a string, got {text!r}")
            self._add_constraint_text(text)
        self._propagate_bounds()
        self._initialized = True
        # Results cached while the constraints loaded used partial knowledge.
        self._floordiv_cache.clear()
        self._interval_cache.clear()
        self._ones_memo.clear()
        self._ones_valid = None
        if self._constraints:
            self._check_satisfiable()

    # -- public view ------------------------------------------------------------
    @property
    def constraints(self) -> tuple[Constraint, ...]:
        """The explicit constraints, in the order given."""
        return tuple(self._constraints)

    @property
    def constraint_texts(self) -> tuple[str, ...]:
        """The explicit constraints as the user wrote them."""
        seen: list[str] = []
        for c in self._constraints:
            if not seen or seen[-1] != c.text:
                seen.append(c.text)
        return tuple(seen)

    @property
    def created_at(self) -> str:
        """``file:line`` of the code that created the scope."""
        return self._created_at

    def __str__(self) -> str:
        cs = self.constraint_texts
        body = ", ".join(repr(c) for c in cs) if cs else "no constraints"
        return f"SymbolicScope({body}) created at {self._created_at}"

    __repr__ = __str__

    # -- variables and rules ------------------------------------------------------
    def _var(self, name: str) -> DimExpr | int:
        """The expression for variable ``name`` in this scope (rules applied)."""
        v = self._vars.get(name)
        if v is None:
            v = self._var_rules.get(name)
            if v is None:
                v = DimExpr({atom_mono(make_var(name)): 1}, self)
            self._vars[name] = v
        return v

    def var_lower_bound(self, name: str) -> int:
        """The lower bound of variable ``name`` that the constraints give it by
        interval propagation (at least 1; cheap, not always the tightest)."""
        lo = self._factor_interval(make_var(name))[0]
        return max(1, int(lo)) if math.isfinite(lo) else 1

    def var_upper_bound(self, name: str) -> int | None:
        """The upper bound of variable ``name`` that the constraints give it by
        interval propagation (None when there is none)."""
        hi = self._factor_interval(make_var(name))[1]
        return int(hi) if math.isfinite(hi) else None

    def var(self, name: str) -> DimExpr | int:
        """Public accessor for the dimension variable ``name`` in this scope."""
        return self._var(name)

    def _apply_term_rules(self, terms: Terms) -> Terms:
        hit = False
        for m, c in terms.items():
            rule = self._term_rules.get(m)
            if rule is not None and c % rule[0] == 0:
                hit = True
                break
        if not hit:
            return terms
        out: Terms = {}
        for m, c in terms.items():
            rule = self._term_rules.get(m)
            if rule is not None and c % rule[0] == 0:
                k, rhs = rule
                if isinstance(rhs, int):
                    add: Terms = {_ONE: rhs} if rhs else {}
                else:
                    add = rhs._terms
                for m2, c2 in add.items():
                    out[m2] = out.get(m2, 0) + (c // k) * c2
            else:
                out[m] = out.get(m, 0) + c
        return {m: c for m, c in out.items() if c}

    def _divisibility(self) -> tuple[tuple[Terms, int, Mono], ...]:
        """``(terms of E, K, monomial of floordiv(E, K))`` for every rewrite
        rule ``K*floordiv(E, K) == E`` (from a constraint ``mod(E, K) == 0``):
        the parts of an expression known to be multiples of ``K``."""
        d = self._divisible
        if d is None:
            out = []
            for m, (k, rhs) in sorted(self._term_rules.items(), key=lambda t: mono_key(t[0])):
                if len(m) == 1 and m[0][1] == 1 and type(m[0][0]) is FloorDiv and \
                        isinstance(rhs, DimExpr):
                    a = m[0][0]
                    if a.den == k and a.num == rhs:
                        out.append((rhs._terms, k, m))
            d = tuple(out)
            if self._initialized:
                self._divisible = d
        return d

    def _add_constraint_text(self, text: str) -> None:
        for op, lhs, rhs in parse_comparison_in_scope(text, self):
            if op == "!=":
                raise SymshapeError(f"'!=' is not allowed in a scope constraint: {text!r}")
            kind, diff = comparison_difference(op, lhs, rhs)
            # The sides as the user would read ``diff kind 0`` (``a < b`` is ``b >= a + 1``).
            if op in ("<=", "<"):
                lhs, rhs = rhs, lhs
            if op in (">", "<"):
                rhs = rhs + 1
            self._add_constraint(Constraint(text, kind, lhs, rhs, diff))

    def _add_constraint(self, c: Constraint) -> None:
        d = c.diff
        if isinstance(d, int):
            if (c.op == "==" and d != 0) or (c.op == ">=" and d < 0):
                raise UnsatisfiableConstraintsError(
                    f"unsatisfiable constraint {c.text!r}: it simplifies to "
                    f"{d} {c.op} 0, which is false")
            return  # trivially true: nothing to remember
        self._constraints.append(c)
        if c.op == "==":
            self._add_rule(c)

    def _add_rule(self, c: Constraint) -> None:
        """Turn an equality into a rewrite rule when it has a term to solve for."""
        d = c.diff
        assert isinstance(d, DimExpr)
        candidates: list[tuple[Mono, int]] = []
        for side, _other, _sign in ((c.lhs, c.rhs, 1), (c.rhs, c.lhs, -1)):
            if isinstance(side, DimExpr) and len(side._terms) == 1 and _ONE not in side._terms:
                (m, k), = side._terms.items()
                candidates.append((m, k))
        # Otherwise: a variable with coefficient +-1, then any term, leading first.
        for m, k in sorted(d._terms.items(), key=lambda t: mono_key(t[0])):
            if m and (len(m) == 1 and m[0][1] == 1 and type(m[0][0]) is Var and abs(k) == 1):
                candidates.append((m, k))
        for m, k in sorted(d._terms.items(), key=lambda t: mono_key(t[0])):
            if m:
                candidates.append((m, k))
        for m, k in candidates:
            coeff = d._terms.get(m)
            if coeff is None:
                continue
            rest = d - DimExpr({m: coeff}, self)
            if _occurs(m, rest):
                continue
            if m in self._term_rules:
                continue
            # coeff*m + rest == 0  =>  |coeff|*m == -sign(coeff)*rest
            k = abs(coeff)
            rhs = -rest if coeff > 0 else rest
            self._install_rule(m, k, rhs, c)
            return

    def _install_rule(self, m: Mono, k: int, rhs: DimExpr | int, c: Constraint) -> None:
        if k == 1 and len(m) == 1 and m[0][1] == 1 and type(m[0][0]) is Var:
            name = m[0][0].name
            self._var_rules[name] = rhs
            self._vars.pop(name, None)
            self._implicit.append((rhs - 1, f"{name} >= 1, with {name} == {rhs} from {c.text!r}"))
        self._term_rules[m] = (k, rhs)
        self._floordiv_cache.clear()
        self._interval_cache.clear()

    def clear_caches(self) -> None:
        """Drop every cached result of the scope: bounds, normal forms of
        divisions, decisions, lemmas and valuations learned from queries.

        What follows from the constraints alone (the facts they give, the
        axioms of the atoms built so far) is kept, as JAX keeps its processed
        constraints.  Answers do not change; this exists for benchmarks and
        memory control.
        """
        with self._lock:
            self._interval_cache.clear()
            self._floordiv_cache.clear()
            self._ones_memo.clear()
            self._cmp_cache.clear()
            if self._decider_obj is not None:
                self._decider_obj.clear_answers()

    # -- bounds -----------------------------------------------------------------
    def _facts(self) -> list[tuple[DimExpr | int, str]]:
        """All known facts ``e >= 0`` (explicit constraints, both directions of
        equalities, and implicit facts)."""
        out: list[tuple[DimExpr | int, str]] = []
        for c in self._constraints:
            out.append((c.diff, c.text))
            if c.op == "==":
                d = c.diff
                # The literal negation: ``-d`` through the arithmetic would apply
                # the rewrite rule this very equality installed, and state 0 >= 0.
                out.append((-d if isinstance(d, int) else
                            DimExpr({m: -v for m, v in d._terms.items()}, self), c.text))
        out.extend(self._implicit)
        return out

    def _propagate_bounds(self) -> None:
        """Tighten monomial bounds from the linear structure of the facts.

        A few rounds of bound propagation: for ``sum c_i*t_i + c0 >= 0`` each
        ``t_j`` gets a bound from the others' bounds.  Rounds are capped, so a
        cyclic set of constraints cannot loop; the decision procedure does the
        complete job.
        """
        facts = [f for f, _ in self._facts() if isinstance(f, DimExpr)]
        if not facts:
            return
        for _ in range(8):
            changed = False
            for f in facts:
                items = [(m, c) for m, c in f._terms.items() if m]
                c0 = f._terms.get(_ONE, 0)
                contrib: list[tuple[Bound, Bound]] = []
                for m, c in items:
                    lo, hi = self._mono_interval(m)
                    contrib.append((_imul(c, lo) if c > 0 else _imul(c, hi),
                                    _imul(c, hi) if c > 0 else _imul(c, lo)))
                total_hi = sum(h for _, h in contrib) + c0
                for (m, c), (_, hi_j) in zip(items, contrib, strict=True):
                    rest_hi = total_hi - hi_j if math.isfinite(total_hi) else math.inf
                    if not math.isfinite(rest_hi):
                        if math.isinf(hi_j) and sum(1 for _, h in contrib if math.isinf(h)) == 1:
                            rest_hi = sum(h for _, h in contrib if not math.isinf(h)) + c0
                        else:
                            continue
                    # c*t_m >= -rest_hi
                    low = -rest_hi
                    lo, hi = self._mono_interval(m)
                    assert isinstance(low, int)
                    if c > 0:
                        new_lo = -((-low) // c)
                        if new_lo > lo:
                            self._mono_bounds[m] = (new_lo, hi)
                            changed = True
                    else:
                        new_hi = low // c
                        if new_hi < hi:
                            self._mono_bounds[m] = (lo, new_hi)
                            changed = True
                    lo2, hi2 = self._mono_interval(m)
                    if lo2 > hi2:
                        raise UnsatisfiableConstraintsError(
                            "unsatisfiable constraints: they force "
                            f"{DimExpr({m: 1}, self)} into the empty range [{lo2}, {hi2}]; "
                            f"constraints: {list(self.constraint_texts)}")
            self._interval_cache.clear()
            if not changed:
                break

    def _atom_interval(self, a: Any) -> tuple[Bound, Bound]:
        t = type(a)
        if t is Var:
            return 1, math.inf
        if t is FloorDiv:
            nlo, nhi = self._interval(a.num)
            if isinstance(a.den, int):
                k = a.den
                return (nlo // k if math.isfinite(nlo) else nlo,
                        nhi // k if math.isfinite(nhi) else nhi)
            dlo, dhi = self._interval(a.den)
            dlo = max(dlo, 1)
            if nlo >= 0:
                lo = 0 if math.isinf(dhi) else nlo // dhi
                hi = nhi if math.isinf(nhi) else nhi // dlo
                return lo, hi
            lo = nlo if math.isinf(nlo) else nlo // dlo
            if nhi < 0:
                return lo, (-1 if math.isinf(dhi) else nhi // dhi)
            hi = nhi if math.isinf(nhi) else nhi // dlo
            return lo, hi
        assert t is Max0
        lo, hi = self._interval(a.arg)
        return max(lo, 0), max(hi, 0)

    def _factor_interval(self, a: Atom) -> tuple[Bound, Bound]:
        """Interval of an atom, with the bounds the constraints give it."""
        lo, hi = self._atom_interval(a)
        pb = self._mono_bounds.get(atom_mono(a))
        if pb is not None:
            lo, hi = max(lo, pb[0]), min(hi, pb[1])
        return lo, hi

    def _mono_interval(self, m: Mono) -> tuple[Bound, Bound]:
        if len(m) == 1 and m[0][1] == 1:
            lo, hi = self._atom_interval(m[0][0])
        else:
            lo, hi = _mono_interval([(*self._factor_interval(a), k) for a, k in m])
        pb = self._mono_bounds.get(m)
        if pb is not None:
            lo, hi = max(lo, pb[0]), min(hi, pb[1])
        return lo, hi

    def _interval(self, e: DimExpr | int) -> tuple[Bound, Bound]:
        """Cheap, sound interval bounds of ``e`` (cached per scope)."""
        if type(e) is not DimExpr and isinstance(e, int):
            return e, e
        r = self._interval_cache.get(e)
        if r is not None:
            return r
        lo, hi = self._sum_interval(e._terms)
        if lo == -math.inf and hi == math.inf:
            # Both ends open is the sign of terms that cancel, as in mod(a, 5).
            lo2, hi2 = self._relaxed_interval(e)
            lo, hi = max(lo, lo2), min(hi, hi2)
        r = (lo, hi)
        self._interval_cache[e] = r
        return r

    def _sum_interval(self, terms: Terms) -> tuple[Bound, Bound]:
        lo: Bound = 0
        hi: Bound = 0
        mono_bounds = self._mono_bounds
        for m, c in terms.items():
            if not m:
                lo += c
                hi += c
                continue
            mlo: Bound
            mhi: Bound
            if len(m) == 1 and m[0][1] == 1:
                # _mono_interval inlined for the common single atom.
                a = m[0][0]
                if type(a) is Var:
                    mlo, mhi = 1, math.inf
                else:
                    mlo, mhi = self._atom_interval(a)
                pb = mono_bounds.get(m)
                if pb is not None:
                    mlo, mhi = max(mlo, pb[0]), min(mhi, pb[1])
            else:
                mlo, mhi = self._mono_interval(m)
            # _imul inlined: 0 * inf is 0
            if c > 0:
                lo += 0 if mlo == 0 else c * mlo
                hi += 0 if mhi == 0 else c * mhi
            else:
                lo += 0 if (mhi == 0 or c == 0) else c * mhi
                hi += 0 if (mlo == 0 or c == 0) else c * mlo
        return lo, hi

    def _relaxed_interval(self, e: DimExpr) -> tuple[Bound, Bound]:
        """Interval of ``e`` after exposing the structure of its top-level atoms.

        Atom-by-atom intervals lose the cancellation in ``a - 5*floordiv(a, 5)``
        (``mod(a, 5)``) and in ``max(a, b) - a``.  Here each ``c*floordiv(N, k)``
        is replaced by ``(c/k)*(N - r)`` with ``0 <= r <= k-1`` (scaling the whole
        sum by the lcm of the divisors), and each ``c*max(D, 0)`` may be replaced
        by ``c*D + c*max(-D, 0)``; every choice is sound, so the intersection is.
        """
        fds: list[tuple[Mono, int, FloorDiv]] = []
        maxes: list[tuple[Mono, int, Max0]] = []
        for m, c in e._terms.items():
            if len(m) == 1 and m[0][1] == 1:
                a = m[0][0]
                if type(a) is FloorDiv and isinstance(a.den, int):
                    fds.append((m, c, a))
                elif type(a) is Max0:
                    maxes.append((m, c, a))
        if not fds and not maxes:
            return -math.inf, math.inf
        scale = 1
        for _, _, a in fds:
            scale = math.lcm(scale, a.den)
        base: Terms = {}
        extra_lo: Bound = 0
        extra_hi: Bound = 0
        skip = {m for m, _, _ in fds} | {m for m, _, _ in maxes}
        for m, c in e._terms.items():
            if m not in skip:
                base[m] = base.get(m, 0) + c * scale
        for _, c, a in fds:
            k = a.den
            assert isinstance(k, int)
            w = c * scale // k
            num_terms = {_ONE: a.num} if isinstance(a.num, int) else a.num._terms
            for m2, c2 in num_terms.items():
                base[m2] = base.get(m2, 0) + w * c2
            # -w * r with 0 <= r <= k - 1
            extra_lo += min(0, -w * (k - 1))
            extra_hi += max(0, -w * (k - 1))
        best_lo: Bound = -math.inf
        best_hi: Bound = math.inf
        n = len(maxes)
        choices = range(1 << n) if n <= 3 else (0, (1 << n) - 1)
        for mask in choices:
            terms = dict(base)
            lo_x, hi_x = extra_lo, extra_hi
            for i, (_m, c, a) in enumerate(maxes):
                w = c * scale
                if mask >> i & 1:
                    for m2, c2 in a.arg._terms.items():
                        terms[m2] = terms.get(m2, 0) + w * c2
                    dlo, dhi = self._interval(a.arg)
                    mlo, mhi = max(0, -dhi), max(0, -dlo)  # max(-D, 0)
                else:
                    mlo, mhi = self._atom_interval(a)
                lo_x += _imul(w, mlo) if w > 0 else _imul(w, mhi)
                hi_x += _imul(w, mhi) if w > 0 else _imul(w, mlo)
            lo, hi = self._sum_interval({m: c for m, c in terms.items() if c})
            lo, hi = lo + lo_x, hi + hi_x
            if lo != -math.inf:
                best_lo = max(best_lo, -((-lo) // scale))
            if hi != math.inf:
                best_hi = min(best_hi, hi // scale)
        return best_lo, best_hi

    def _sign(self, e: DimExpr | int) -> int:
        """1 if ``e >= 1`` is proved, -1 if ``e <= -1`` is proved, else 0."""
        lo, hi = self._interval(e)
        if lo >= 1:
            return 1
        if hi <= -1:
            return -1
        if not self._initialized:
            return 0
        # Ask only the directions the interval leaves open (e >= 0 rules out
        # e <= -1, and e <= 0 rules out e >= 1).
        if hi > 0 and self._proves_ge0(e - 1):
            return 1
        if lo < 0 and self._proves_ge0(-e - 1):
            return -1
        return 0

    # -- decisions --------------------------------------------------------------
    def _decider(self) -> Decider | None:
        d = self._decider_obj
        if d is None:
            cls = _DECIDER_CLASS[0] if _DECIDER_CLASS else None
            if cls is None:
                return None
            with self._lock:
                if self._decider_obj is None:
                    self._decider_obj = cls(self)
                d = self._decider_obj
        return d

    def _ge0(self, e: DimExpr | int) -> bool | None:
        """True if ``e >= 0`` for every valuation, False if ``e < 0`` for every
        valuation, None if undecided."""
        lo, hi = self._interval(e)
        if lo >= 0:
            return True
        if hi < 0:
            return False
        if self._interval_is_exact(e):
            return None
        d = self._decider()
        if d is None:
            return None
        assert isinstance(e, DimExpr)  # ints are decided by their interval
        if self._informed_lo(e, d) >= 0:
            return True
        return d.decide_ge0(e)

    def _informed_lo(self, e: DimExpr, d: Decider, sign: int = 1) -> Bound:
        """A lower bound of ``sign*e`` like its interval's, where a positive
        ``floordiv(N, k)`` term whose ``N >= 0`` the decider proves is taken as
        >= 0 (-inf when no term gains from that, without summing anything).

        Code such as ``canonicalize_slice`` proves ``stop - start >= 0`` and
        then compares the quotient ``(stop - start) // step``: the numerator's
        answer is then cached, and the comparison needs no new search.  The
        sub-question is decided, never looked up in what happened to be asked
        before, so the answer does not depend on the history of queries.
        """
        raised: list[tuple[Mono, int]] = []
        for m, c in e._terms.items():
            c *= sign
            # Only positive terms use the atom's lower bound.
            if c > 0 and len(m) == 1 and m[0][1] == 1:
                a = m[0][0]
                if type(a) is FloorDiv and isinstance(a.den, int) and \
                        isinstance(a.num, DimExpr) and self._interval(a.num)[0] < 0 and \
                        d.decide_ge0(a.num) is True:
                    raised.append((m, c))
        if not raised:
            return -math.inf
        rest = {m: sign * c for m, c in e._terms.items()}
        lo: Bound = 0
        for m, c in raised:
            del rest[m]
            lo += c * max(self._mono_interval(m)[0], 0)
        return lo + self._sum_interval(rest)[0]

    def _order(self, e: DimExpr | int) -> int:
        """1 if ``e >= 0`` is proved, -1 if ``e <= 0`` is proved, else 0.

        One query for what ``max``/``min`` need: the decider sees both
        directions at once, so one sample showing each sign settles it.
        """
        lo, hi = self._interval(e)
        if lo >= 0:
            return 1
        if hi <= 0:
            return -1
        if not self._initialized or self._interval_is_exact(e):
            # While constraints load, max/min stay unsimplified unless the
            # intervals decide (sound: simplification is optional there).
            return 0
        d = self._decider()
        if d is None:
            return 0
        assert isinstance(e, DimExpr)  # ints are decided by their interval
        if self._informed_lo(e, d) >= 0:
            return 1
        if self._informed_lo(e, d, -1) >= 0:
            return -1
        v = self._at_ones(e)
        if v is not None and v != 0:
            # A valid valuation rules out one direction: ask only the other
            # (the interval checks above already failed for both).
            if v > 0:
                return 1 if d.decide_ge0(e) is True else 0
            return -1 if d.decide_ge0(-e) is True else 0
        return d.decide_order(e)

    def _proves_ge0(self, e: DimExpr | int) -> bool:
        """True if ``e >= 0`` is proved (the cheap refutations first)."""
        lo, hi = self._interval(e)
        if lo >= 0:
            return True
        if hi < 0 or self._interval_is_exact(e):
            return False
        v = self._at_ones(e)
        if v is not None and v < 0:
            return False  # fails at a valid valuation
        d = self._decider()
        if d is None:
            return False
        assert isinstance(e, DimExpr)  # ints are decided by their interval
        return self._informed_lo(e, d) >= 0 or d.decide_ge0(e) is True

    def _at_ones(self, e: DimExpr | int) -> int | None:
        """Value of ``e`` where every variable is 1, if that valuation satisfies
        every constraint and implicit fact of the scope (else None): a valid
        valuation for free, that refutes many claims without the decider."""
        valid = self._ones_valid
        if valid is None:
            valid = self._ones_valid = all(
                (v := _value_at(f, _ONES, self._ones_memo)) is not None and v >= 0
                for f, _ in self._facts())
        if not valid:
            return None
        return _value_at(e, _ONES, self._ones_memo)

    def _interval_is_exact(self, e: DimExpr | int) -> bool:
        """True when the interval of ``e`` is its exact range: ``e`` is linear
        in variables and the scope has no constraint or implicit fact, so the
        variables range independently over the integers >= 1 and ``e``
        reaches both ends (or grows without bound)."""
        if self._constraints or self._implicit or isinstance(e, int):
            return False
        for m in e._terms:
            if m and (len(m) != 1 or m[0][1] != 1 or type(m[0][0]) is not Var):
                return False
        return True

    def bounds(self, e: DimExpr | int, limits: Limits | None = None) -> tuple[Bound, Bound]:
        """Sound (and, for the linear fragment, tight) bounds of ``e``.

        ``limits`` scales the work budget, sets a time limit or asks for
        progress reports (see :func:`symshape.bounds`).
        """
        if isinstance(e, int):
            return e, e
        self._check_same(e, "bounds")
        d = self._decider()
        if d is None:
            return self._interval(e)
        return d.bounds(e) if limits is None else d.bounds(e, limits)

    def _check_same(self, e: Any, what: str) -> None:
        if isinstance(e, DimExpr) and e._scope is not self:
            self._raise_mismatch(e, what, None)

    def _raise_mismatch(self, other: DimExpr, op: str, mine: DimExpr | None) -> None:
        mine_s = f"'{mine}' " if mine is not None else ""
        raise ScopeMismatchError(
            f"cannot mix symbolic scopes in {op!r}: {mine_s}belongs to {self}, "
            f"but '{other}' belongs to {other._scope}. Create all dimensions of one "
            "function with one scope (pass scope=...).")

    def _compare(self, x: DimExpr, other: Any, op: str) -> bool:
        # Repeated comparisons are common while tracing: answer them from a
        # cache without building the difference again (the scope's facts are
        # fixed, so an answer never goes stale).
        t = type(other)
        if t is int or t is DimExpr:
            key = (op, x, other)
            hit = self._cmp_cache.get(key)
            if hit is not None:
                if type(hit) is str:
                    raise InconclusiveDimensionOperation(hit)
                return hit  # type: ignore[return-value]
            try:
                r = self._compare_uncached(x, other, op)
            except InconclusiveDimensionOperation as err:
                if len(self._cmp_cache) < _CMP_CACHE_MAX:
                    self._cmp_cache[key] = str(err)
                raise
            if len(self._cmp_cache) < _CMP_CACHE_MAX:
                self._cmp_cache[key] = r
            return r
        return self._compare_uncached(x, other, op)

    def _compare_uncached(self, x: DimExpr, other: Any, op: str) -> bool:
        if isinstance(other, DimExpr):
            if other._scope is not self:
                self._raise_mismatch(other, op, x)
            y: DimExpr | int = other
        else:
            v = _as_int(other)
            if v is None:
                raise TypeError(f"cannot compare dimension '{x}' with {other!r}")
            y = v
        kind, d = comparison_difference(op, x, y)
        if kind == ">=":
            r = self._ge0(d)
        else:  # "!=" (truth value): x != 0
            pos = self._ge0(d - 1)
            neg = self._ge0(-d - 1)
            if pos or neg:
                r = True
            elif pos is False and neg is False:
                r = False
            else:
                r = None
        if r is None:
            raise InconclusiveDimensionOperation(self._inconclusive_message(x, op, y))
        return r

    def _inconclusive_message(self, x: DimExpr | int, op: str, y: DimExpr | int) -> str:
        shown = "!=" if op == "!=" else op
        msg = f"Symbolic dimension comparison '{x}' {shown} '{y}' is inconclusive."
        cs = self.constraint_texts
        msg += ("\nScope constraints: " + "; ".join(cs)) if cs else \
            "\nThe scope has no explicit constraints (every variable is >= 1)."
        d = self._decider()
        if d is not None:
            msg += d.explain_inconclusive(x, op, y)
        msg += ("\nSee https://docs.jax.dev/en/latest/export/shape_poly.html"
                "#comparison-of-symbolic-dimensions-is-partially-supported")
        return msg

    def _check_satisfiable(self) -> None:
        """Raise UnsatisfiableConstraintsError for constraints proved
        contradictory.  A cheap valuation that satisfies them settles it
        without the decision procedure (built later, on the first query)."""
        if self._at_ones(0) is not None:
            return
        for env in self._cheap_valuations():
            memo: dict[Any, int | None] = {}
            if all((v := _value_at(f, env, memo)) is not None and v >= 0
                   for f, _ in self._facts()):
                return
        d = self._decider()
        if d is not None:
            d.check_satisfiable()

    def _cheap_valuations(self) -> list[dict[str, int]]:
        """Valuations likely to satisfy the constraints: every variable at the
        lower bound interval propagation gives it (``a >= b + 8``: a = 9,
        b = 1), and those bounds rounded up to a multiple of the constraints'
        divisors (``mod(a, 128) == 0``: a = 128); all twos."""
        names: set[str] = set()
        step = 1
        for f, _ in self._facts():
            if isinstance(f, DimExpr):
                for a in f.atoms(recursive=True):
                    if type(a) is Var:
                        names.add(a.name)
                    elif type(a) is FloorDiv and isinstance(a.den, int):
                        step = math.lcm(step, a.den)
        lows = {v: self.var_lower_bound(v) for v in sorted(names)}
        out = [lows]
        if 1 < step < 1 << 20:
            out.append({v: -(-x // step) * step for v, x in lows.items()})
        out.append(dict.fromkeys(lows, 2))
        return out

    def symbolic_shape(self, spec: str | None, *, like: Sequence[int | None] | None = None
                       ) -> tuple[DimExpr | int, ...]:
        """Parse ``spec`` in this scope (see :func:`symshape.symbolic_shape`)."""
        return shape_in_scope(spec, self, like)


def resolve_scope(constraints: Iterable[str], scope: SymbolicScope | None) -> SymbolicScope:
    """The scope to use given ``constraints=`` and ``scope=`` arguments."""
    if isinstance(constraints, str):
        raise SymshapeError(
            f"constraints must be a sequence of strings, got the string {constraints!r}; "
            f"write [{constraints!r}]")
    constraints = tuple(constraints)
    if scope is not None:
        if constraints:
            raise SymshapeError(
                "pass either scope= or constraints=, not both: the constraints of a scope "
                f"are fixed when it is created (scope: {scope})")
        if not isinstance(scope, SymbolicScope):
            raise SymshapeError(f"scope= must be a symshape.SymbolicScope, got {scope!r}")
        return scope
    return SymbolicScope(constraints)


_DECIDER_CLASS: list[Any] = []


_CMP_CACHE_MAX = 100_000
_ONES: dict[str, int] = {}  # the valuation where every variable is 1


def _value_at(e: DimExpr | int, env: dict[str, int], memo: dict[Any, int | None]
              ) -> int | None:
    """Value of ``e`` where each variable has its value in ``env`` (1 when
    missing), None where a divisor is 0 there; ``memo`` caches the atoms."""
    if type(e) is int:
        return e
    assert isinstance(e, DimExpr)
    total = 0
    for m, c in e._terms.items():
        p = c
        for a, k in m:
            if type(a) is Var:
                x = env.get(a.name, 1)
                if x != 1:
                    p *= x ** k
                continue
            v = memo.get(a, _UNSET)
            if v is _UNSET:
                v = fold_atoms(a, memo, partial(_atom_at, env, memo), _compound_children)
            if v is None:
                return None
            p *= v ** k
        total += p
    return total


_UNSET: Any = object()


def _compound_children(a: Atom) -> list[Atom]:
    """The floordiv and max atoms of ``a``'s operands (variables need no memo here)."""
    return [b for b in atom_children(a) if type(b) is not Var]


def _atom_at(env: dict[str, int], memo: dict[Any, int | None], a: Atom) -> int | None:
    """Value of a floordiv or max atom at ``env``; the atoms of its operands
    are in ``memo``."""
    vals = [_value_at(o, env, memo) for o in a.operands]
    if None in vals:
        return None
    if type(a) is FloorDiv:
        return None if vals[1] == 0 else vals[0] // vals[1]  # type: ignore[operator]
    return max(vals[0], 0)  # type: ignore[type-var]


def register_decider(cls: Any) -> None:
    """Install the decision procedure's class (``cls(scope)`` decides for one
    scope).  :mod:`symshape.decision.engine` calls this when it is imported
    (the package imports it): the decision layer builds on the scope, so the
    scope never imports it."""
    _DECIDER_CLASS[:] = [cls]


def _occurs(m: Mono, e: DimExpr | int) -> bool:
    """Does any atom of ``m`` occur in ``e`` (at any depth)?"""
    if isinstance(e, int):
        return False
    atoms = {a for a, _ in m}
    return bool(atoms & e.atoms(recursive=True))
