"""Symbolic scopes: the constraints that expressions live under.

A scope owns the explicit constraints, the rewrite rules derived from its
equality constraints, and the caches of everything that depends only on the
constraints (interval bounds, floordiv normal forms, decisions).  Its parts
have one job each: :mod:`symshape.rules` (constraints and rewrite rules),
:mod:`symshape.intervals` (interval bounds) and this module (the scope's
state, its questions to the decision procedure, comparisons and their
messages, satisfiability).

(Over 600 lines for a reason: ``SymbolicScope`` is the one class every layer
above the algebra holds, and mypyc compiles it as one native class; its
rules and intervals already live in their own modules, and what is left --
creation, the algebra's questions, comparisons and their messages -- shares
the scope's private state on every call.)
"""

from __future__ import annotations

import math
import os
import sys
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from functools import partial
from types import CodeType
from typing import TYPE_CHECKING, Any

from symshape import arguments
from symshape._mypyc import mypyc_attr
from symshape.algebra.atoms import (
    FloorDiv,
    Mono,
    Var,
    atom_mono,
    make_var,
    release_atoms,
    single_atom,
)
from symshape.algebra.dimexpr import DimExpr, as_int, comparison_difference
from symshape.algebra.poly import Terms, value_at
from symshape.algebra.substitute import ScopeCopier
from symshape.build import shape_in_scope
from symshape.collector import collector_paused
from symshape.errors import (
    ArgumentError,
    InconclusiveDimensionOperation,
    LazyText,
    ScopeMismatchError,
    SymshapeError,
)
from symshape.intervals import Bound, BoundStep, IntervalBounds
from symshape.repair import Check, fact_variables, repaired_facts, shown_to_hold
from symshape.rules import Constraint
from symshape.util import RecentTable
from symshape.witness import SignWitnesses

if TYPE_CHECKING:
    from symshape.decision.engine import Decider
    from symshape.decision.simplex import Limits


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


_INSIDE: dict[str, bool] = {}


def _inside_package(filename: str) -> bool:
    inside = _INSIDE.get(filename)
    if inside is None:
        inside = _INSIDE[filename] = os.path.abspath(filename).startswith(_PACKAGE_DIR)
    return inside


def _caller_site() -> tuple[CodeType, int] | None:
    """The code and the instruction offset of the first stack frame outside
    the symshape package (see :func:`_site_text`; its line number is only
    looked up when a message shows it: that costs more than the rest of an
    empty scope)."""
    # From the innermost frame: compiled functions have no frame of their own.
    f = sys._getframe(0)
    while f is not None and _inside_package(f.f_code.co_filename):
        f = f.f_back  # type: ignore[assignment]
    return None if f is None else (f.f_code, f.f_lasti)


def _site_text(site: tuple[CodeType, int] | None) -> str:
    """``file:line`` of a site from :func:`_caller_site`."""
    if site is None:
        return "unknown location"
    code, offset = site
    line = code.co_firstlineno
    for start, end, at in code.co_lines():
        if start <= offset < end:
            if at is not None:
                line = at
            break
    return f"{code.co_filename}:{line}"


@mypyc_attr(native_class=False)
class SymbolicScope(IntervalBounds):
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
        texts = arguments.texts(constraints)
        self._created_at = _caller_site()
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
        # The algebra's tables (see symshape.algebra.protocol.AlgebraScope): normalized
        # divisions, and the interned FloorDiv/Max0 atoms.
        self.division_memo: dict[Any, DimExpr | int] = {}
        self.atom_table: dict[Any, Any] = {}
        self.rewrites_terms = False
        self._interval_cache: dict[DimExpr, tuple[Bound, Bound]] = {}
        self._propagated: dict[Mono, tuple[Bound, Bound]] = {}
        self._steps: list[BoundStep] = []
        self._bounds_pending = False
        self._propagating = None
        self._constraint_atoms: tuple[Any, ...] = ()
        self._decider_obj: Decider | None = None
        # Values at the valuation where every variable is 1 (see _at_ones).
        self._ones_memo: dict[Any, int | None] = {}
        self._ones_valid: bool | None = None  # computed on first use
        self._witnesses: SignWitnesses | None = None  # made on first use (see _witnessed)
        # (op, x, other) -> decided bool, or the inconclusive message (made when read)
        self._cmp_cache: dict[tuple[str, DimExpr, Any], bool | LazyText] = {}
        self._initialized = False
        # (what loading the constraints allocates is short-lived or kept by the
        # scope: see symshape.collector)
        with collector_paused():
            self._load_constraints(texts)

    def _load_constraints(self, texts: tuple[str, ...]) -> None:
        """The constructor's work on the constraint ``texts``: from a template
        scope built from the same texts, else parsed, normalized and checked."""
        template = _template(texts) if texts else None
        # What derives from the constraints alone and names no atom of the
        # scope (the decision procedure's valuation pool): shared by every
        # scope built from the same texts once a template exists.
        self._derived: dict[str, Any] = {} if template is None else template._derived
        if template is not None:
            self._copy_facts_from(template)
        else:
            for text in texts:
                self._add_constraint_text(text)
            # Bounds are propagated when first read (see IntervalBounds).
            self._constraint_atoms = tuple(self.atom_table.values())
            self._bounds_pending = bool(self._constraints or self._implicit)
        self._initialized = True
        # Results cached while the constraints loaded used partial knowledge.
        self.division_memo.clear()
        self._interval_cache.clear()
        self._ones_memo.clear()
        self._ones_valid = None
        if self._constraints and template is None:
            self._check_satisfiable()
            _seen(texts, self)

    def _copy_facts_from(self, src: SymbolicScope, lazy: bool = True) -> None:
        """Take the fixed facts of ``src``, a scope built from the same
        constraint texts, copied into this scope (see ``_TEMPLATES``).
        ``lazy``: the sides of the constraints are copied on first use, which
        keeps ``src`` alive until then (right for a template, never for a
        user's scope)."""
        cp = ScopeCopier(self)
        self._copy_rules_from(src, cp, lazy)
        self._copy_bounds_from(src, cp)

    @property
    def shared_derivations(self) -> dict[str, Any]:
        """A table for what the layers above derive from the constraints alone
        without naming this scope's atoms (the decision procedure keeps its
        valuation pool here).  Scopes built from the same constraint texts
        may share it: write only values that depend on the texts alone."""
        return self._derived

    # -- public view ------------------------------------------------------------
    @property
    def created_at(self) -> str:
        """``file:line`` of the code that created the scope."""
        return _site_text(self._created_at)

    def __str__(self) -> str:
        cs = self.constraint_texts
        body = ", ".join(repr(c) for c in cs) if cs else "no constraints"
        return f"SymbolicScope({body}) created at {self.created_at}"

    def __repr__(self) -> str:
        return self.__str__()

    # -- variables and rules ------------------------------------------------------
    def var(self, name: str) -> DimExpr | int:
        """The expression for dimension variable ``name`` in this scope (the
        equalities' rewrite rules applied: with ``n == 2*k``, ``var("n")`` is
        ``2*k``)."""
        v = self._vars.get(name)
        if v is None:
            v = self._var_rules.get(name)
            if v is None:
                v = DimExpr({atom_mono(make_var(name)): 1}, self)
            self._vars[name] = v
        return v


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
            self.division_memo.clear()
            self._ones_memo.clear()
            if self._witnesses is not None:
                self._witnesses.clear()
            self._cmp_cache.clear()
            if self._decider_obj is not None:
                self._decider_obj.clear_answers()

    def release(self) -> None:
        """Break this scope's reference cycles, so that reference counting
        frees it at once instead of the cycle collector.

        Expressions refer to their scope and the scope's tables refer to
        expressions, so a scope is a reference cycle: the collector frees it
        only after it has walked the young objects again and again.  A
        one-off :func:`symshape.prove` owns its scope, and releases it when
        the last verdict that can reach it is freed.  The scope, and every
        expression or atom built in it, must not be used afterwards: call
        this only on a scope nothing else holds.
        """
        with self._lock:
            d = self._decider_obj
            if d is not None:
                d.release()
            release_atoms(self.atom_table.values())
            # (the shared derivations are dropped, not cleared: other scopes
            # built from the same texts use them)
            self.__dict__.clear()

    # -- bounds -----------------------------------------------------------------
    def sign(self, e: DimExpr | int) -> int:
        """1 if ``e >= 1`` is proved, -1 if ``e <= -1`` is proved, else 0."""
        lo, hi = self.interval(e)
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
    def decider(self) -> Decider | None:
        """The decision procedure of this scope (built on first use; None
        only when no procedure is installed, see :func:`register_decider`)."""
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

    def known_ge0(self, e: DimExpr | int) -> bool | None:
        """True if ``e >= 0`` for every valuation, False if ``e < 0`` for every
        valuation, None if undecided."""
        lo, hi = self.interval(e)
        if lo >= 0:
            return True
        if hi < 0:
            return False
        if self._interval_is_exact(e):
            return None
        assert isinstance(e, DimExpr)  # ints are decided by their interval
        if self._initialized and self._witnessed(e, 3) == 3:
            # Both signs at valid valuations: the decider proves neither
            # side (and explains the inconclusive answer when asked).
            return None
        d = self.decider()
        if d is None:
            return None
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
        for m, c in e.terms.items():
            c *= sign
            # Only positive terms use the atom's lower bound.
            a = single_atom(m) if c > 0 else None
            if type(a) is FloorDiv and isinstance(a.den, int) and \
                    isinstance(a.num, DimExpr) and self.interval(a.num)[0] < 0 and \
                    d.decide_ge0(a.num) is True:
                raised.append((m, c))
        if not raised:
            return -math.inf
        rest = {m: sign * c for m, c in e.terms.items()}
        lo: Bound = 0
        for m, c in raised:
            del rest[m]
            lo += c * max(self._mono_interval(m)[0], 0)
        return lo + self.terms_interval(rest)[0]

    def order(self, e: DimExpr | int) -> int:
        """1 if ``e >= 0`` is proved, -1 if ``e <= 0`` is proved, else 0.

        One query for what ``max``/``min`` need: the decider sees both
        directions at once, so one sample showing each sign settles it.
        """
        lo, hi = self.interval(e)
        if lo >= 0:
            return 1
        if hi <= 0:
            return -1
        if not self._initialized or self._interval_is_exact(e):
            # While constraints load, max/min stay unsimplified unless the
            # intervals decide (sound: simplification is optional there).
            return 0
        assert isinstance(e, DimExpr)  # ints are decided by their interval
        if self._witnessed(e, 3) == 3:
            return 0  # both signs at valid valuations: the decider proves neither
        d = self.decider()
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
        lo, hi = self.interval(e)
        if lo >= 0:
            return True
        if hi < 0 or self._interval_is_exact(e):
            return False
        v = self._at_ones(e)
        if v is not None and v < 0:
            return False  # fails at a valid valuation
        assert isinstance(e, DimExpr)  # ints are decided by their interval
        if self._witnessed(e, 2) & 2:
            return False  # fails at another valid valuation
        d = self.decider()
        if d is None:
            return False
        assert isinstance(e, DimExpr)  # ints are decided by their interval
        return self._informed_lo(e, d) >= 0 or d.decide_ge0(e) is True

    def sign_witnesses(self) -> SignWitnesses:
        """The valid valuations that show the signs of expressions before any
        decision (see :mod:`symshape.witness`; made on first use).  What they
        show is only a function of the expression and the fixed facts: ask
        after the constraints are loaded."""
        w = self._witnesses
        if w is None:
            w = self._witnesses = SignWitnesses([f for f, _ in self.facts()], self)
        return w

    def _witnessed(self, e: DimExpr, want: int) -> int:
        """The signs of ``e`` that valid valuations show (bit 1: > 0, bit 2:
        < 0), looked for until ``want`` is shown."""
        return self.sign_witnesses().signs(e, want)

    def _at_ones(self, e: DimExpr | int) -> int | None:
        """Value of ``e`` where every variable is 1, if that valuation satisfies
        every constraint and implicit fact of the scope (else None): a valid
        valuation for free, that refutes many claims without the decider."""
        valid = self._ones_valid
        if valid is None:
            valid = self._ones_valid = all(
                (v := value_at(f, _ONES, self._ones_memo)) is not None and v >= 0
                for f, _ in self.facts())
        if not valid:
            return None
        return value_at(e, _ONES, self._ones_memo)

    def _interval_is_exact(self, e: DimExpr | int) -> bool:
        """True when the interval of ``e`` is its exact range: ``e`` is linear
        in variables and the scope has no constraint or implicit fact, so the
        variables range independently over the integers >= 1 and ``e``
        reaches both ends (or grows without bound)."""
        if self._constraints or self._implicit or isinstance(e, int):
            return False
        return all(not m or type(single_atom(m)) is Var for m in e.terms)

    def bounds(self, e: DimExpr | int, limits: Limits | None = None) -> tuple[Bound, Bound]:
        """Sound (and, for the linear fragment, tight) bounds of ``e``.

        ``limits`` scales the work budget, sets a time limit or asks for
        progress reports (see :func:`symshape.bounds`).
        """
        if isinstance(e, int):
            return e, e
        self._check_same(e, "bounds")
        d = self.decider()
        if d is None:
            return self.interval(e)
        return d.bounds(e) if limits is None else d.bounds(e, limits)

    def _check_same(self, e: Any, what: str) -> None:
        if isinstance(e, DimExpr) and e.scope is not self:
            self.raise_mismatch(e, what, None)

    def raise_mismatch(self, other: DimExpr, op: str, mine: DimExpr | None) -> None:
        """Raise :class:`ScopeMismatchError` for combining ``mine`` (of this
        scope) with ``other`` (of another scope) in the operation ``op``."""
        mine_s = f"'{mine}' " if mine is not None else ""
        raise ScopeMismatchError(
            f"cannot mix symbolic scopes in {op!r}: {mine_s}belongs to {self}, "
            f"but '{other}' belongs to {other.scope}. Create all dimensions of one "
            "function with one scope (pass scope=...).")

    def compare(self, x: DimExpr, other: Any, op: str) -> bool:
        """``x op other`` for ``op`` in ``>= > <= < == !=``: the answer when it
        holds (or fails) for every valuation, else raise
        :class:`InconclusiveDimensionOperation` (what the operators call)."""
        # Repeated comparisons are common while tracing: answer them from a
        # cache without building the difference again (the scope's facts are
        # fixed, so an answer never goes stale).
        t = type(other)
        if t is int or t is DimExpr:
            key = (op, x, other)
            hit = self._cmp_cache.get(key)
            if hit is not None:
                if type(hit) is LazyText:
                    raise InconclusiveDimensionOperation(hit)
                return hit  # type: ignore[return-value]
            try:
                r = self._compare_uncached(x, other, op)
            except InconclusiveDimensionOperation as err:
                if len(self._cmp_cache) < _CMP_CACHE_MAX and len(err.args) == 1 and \
                        type(err.args[0]) is LazyText:
                    self._cmp_cache[key] = err.args[0]
                raise
            if len(self._cmp_cache) < _CMP_CACHE_MAX:
                self._cmp_cache[key] = r
            return r
        return self._compare_uncached(x, other, op)

    def _compare_uncached(self, x: DimExpr, other: Any, op: str) -> bool:
        with collector_paused():  # (short-lived objects only: see symshape.collector)
            if isinstance(other, DimExpr):
                if other.scope is not self:
                    self.raise_mismatch(other, op, x)
                y: DimExpr | int = other
            else:
                v = as_int(other)
                if v is None:
                    raise TypeError(f"cannot compare dimension '{x}' with {other!r}")
                y = v
            kind, d = comparison_difference(op, x, y)
            if kind == ">=":
                r = self.known_ge0(d)
            else:  # "!=" (truth value): x != 0
                pos = self.known_ge0(d - 1)
                neg = self.known_ge0(-d - 1)
                if pos or neg:
                    r = True
                elif pos is False and neg is False:
                    r = False
                else:
                    r = None
            if r is None:
                raise InconclusiveDimensionOperation(
                    LazyText(partial(self._inconclusive_message, x, op, y)))
            return r

    def _inconclusive_message(self, x: DimExpr | int, op: str, y: DimExpr | int) -> str:
        shown = "!=" if op == "!=" else op
        msg = f"Symbolic dimension comparison '{x}' {shown} '{y}' is inconclusive."
        cs = self.constraint_texts
        msg += ("\nScope constraints: " + "; ".join(cs)) if cs else \
            "\nThe scope has no explicit constraints (every variable is >= 1)."
        d = self.decider()
        if d is not None:
            msg += d.explain_inconclusive(x, op, y)
        msg += ("\nSee https://docs.jax.dev/en/latest/export/shape_poly.html"
                "#comparison-of-symbolic-dimensions-is-partially-supported")
        return msg

    def _check_satisfiable(self) -> None:
        """Raise UnsatisfiableConstraintsError for constraints proved
        contradictory.  A cheap valuation that satisfies them settles it
        without propagating bounds or the decision procedure (both are left
        for the first question that needs them)."""
        checks: list[Check] = [(c.diff, 0 if c.op == "==" else 1) for c in self._constraints]
        for f, _ in self._implicit:
            checks.append((f, 1))
        if shown_to_hold(checks):
            return
        facts = [f for f, _ in self.facts()]
        names, step = fact_variables(facts)
        # Repaired from all ones, each variable a multiple of the constant
        # divisors: ``a >= b + 8`` gives a = 9; ``mod(s, 128) == 0`` s = 128.
        start = dict.fromkeys(names, step)
        found = repaired_facts(start, step, facts)
        if step == 1:
            # (the repair's first round tried all ones: remember the verdict)
            self._ones_valid = found == start
        if found is not None:
            return
        # Failing that (a fact no variable raises alone, such as ``c*d >= 64``
        # or ``b^2 <= 4*c``): from the bounds interval propagation gives, from
        # those rounded up to multiples of the divisors, and from all twos.
        lows = {v: self.var_lower_bound(v) for v in names}
        candidates = [(lows, 1)]
        if step > 1:
            candidates.append(({v: -(-x // step) * step for v, x in lows.items()}, step))
        candidates.append((dict.fromkeys(lows, 2), 1))
        for env, env_step in candidates:
            if repaired_facts(env, env_step, facts) is not None:
                return
        d = self.decider()
        if d is not None:
            d.check_satisfiable()

    def symbolic_shape(self, spec: str | None, *, like: Sequence[int | None] | None = None
                       ) -> tuple[DimExpr | int, ...]:
        """Parse ``spec`` in this scope (see :func:`symshape.symbolic_shape`)."""
        return shape_in_scope(spec, self, like)


# The facts of a scope depend on its constraint texts alone, so a scope built
# from texts seen before copies what an earlier scope with those texts derived
# (normalized constraints, rewrite rules, propagated bounds; the check that they
# are satisfiable) instead of deriving it again: real tracing builds a fresh
# scope per export, from the same texts every time.  The copies come from a
# private scope per list of texts (a scope a user holds would be kept alive by
# the table), made the second time the texts are seen, so that a one-off scope
# pays nothing for it.  The _TEMPLATES_MAX most recently used lists are kept
# (about 11 KB each with 6 constraints).
# (OrderedDicts: dropping the oldest entry of a plain dict again and again
# makes each next(iter(d)) skip the freed slots at its front)
_TEMPLATES: OrderedDict[tuple[str, ...], SymbolicScope] = OrderedDict()
_TEMPLATES_MAX = 256
_TEMPLATES_LOCK = threading.Lock()


# The constraint lists of the last scopes built (a template is kept the
# second time a list is seen).
_SEEN_ONCE: RecentTable[tuple[str, ...], bool] = RecentTable(2 * _TEMPLATES_MAX)


def _seen(texts: tuple[str, ...], scope: SymbolicScope) -> None:
    """Note that ``scope`` was just built from ``texts`` and found
    satisfiable; the second time, keep a private copy of its fixed facts for
    later scopes with the same texts."""
    if not _SEEN_ONCE.get(texts, False):
        _SEEN_ONCE.put(texts, True)
        return
    template = SymbolicScope()
    template._copy_facts_from(scope, lazy=False)
    template._derived = scope._derived
    with _TEMPLATES_LOCK:
        _TEMPLATES[texts] = template
        _evict(_TEMPLATES, _TEMPLATES_MAX)


def _template(texts: tuple[str, ...]) -> SymbolicScope | None:
    """The template for ``texts``, if one is kept (then the most recently used)."""
    template = _TEMPLATES.get(texts)
    if template is not None:
        with _TEMPLATES_LOCK:
            if texts in _TEMPLATES:
                _TEMPLATES.move_to_end(texts)
    return template


def _evict(table: OrderedDict[tuple[str, ...], Any], n: int) -> None:
    """Drop the oldest entries of ``table`` beyond ``n``."""
    while len(table) > n:
        table.popitem(last=False)


def resolve_scope(constraints: Iterable[str], scope: object) -> SymbolicScope:
    """The scope to use given ``constraints=`` and ``scope=`` arguments (``scope`` is
    checked here, not by its annotation: a compiled build would raise a bare
    TypeError for a value of another type)."""
    constraints = arguments.texts(constraints)
    if scope is not None:
        if not isinstance(scope, SymbolicScope):
            raise ArgumentError(f"scope= must be a symshape.SymbolicScope, got "
                                f"{type(scope).__name__} {scope!r:.80}")
        if constraints:
            raise SymshapeError(
                "pass either scope= or constraints=, not both: the constraints of a scope "
                f"are fixed when it is created (scope: {scope})")
        return scope
    return SymbolicScope(constraints)


_DECIDER_CLASS: list[Any] = []


_CMP_CACHE_MAX = 100_000
_ONES: dict[str, int] = {}  # the valuation where every variable is 1


def register_decider(cls: Any) -> None:
    """Install the decision procedure's class (``cls(scope)`` decides for one
    scope).  :mod:`symshape.decision.engine` calls this when it is imported
    (the package imports it): the decision layer builds on the scope, so the
    scope never imports it."""
    _DECIDER_CLASS[:] = [cls]


__all__ = ["Constraint", "SymbolicScope", "register_decider", "resolve_scope"]
