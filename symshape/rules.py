"""A scope's constraints: normalized from their texts, and the rewrite rules
that equalities give.

The first part of :class:`symshape.SymbolicScope` (see ``scope.py``): it reads
each constraint text, keeps it as ``diff >= 0`` or ``diff == 0``, and turns an
equality with a term to solve for into a rewrite rule that every expression of
the scope is built with.  Its facts (``facts()``) are what the interval bounds
and the decision procedure start from.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from symshape._mypyc import mypyc_attr
from symshape.algebra.atoms import ONE, Atom, FloorDiv, Mono, Var, mono_key, single_atom
from symshape.algebra.dimexpr import DimExpr, comparison_difference
from symshape.algebra.poly import Terms
from symshape.algebra.substitute import ScopeCopier
from symshape.build import parse_comparison_in_scope
from symshape.errors import SymshapeError, UnsatisfiableConstraintsError
from symshape.printing import dim_text
from symshape.repair import by_order

if TYPE_CHECKING:
    from symshape.scope import SymbolicScope


@mypyc_attr(native_class=False)
class Constraint:
    """One explicit constraint, normalized to ``diff >= 0`` or ``diff == 0``.

    ``text`` is what the user wrote (for a chain, the whole chain), ``op`` is
    ``">="`` or ``"=="`` and ``lhs``/``rhs`` the two sides after the strict
    comparisons were tightened (``a > b`` is kept as ``a >= b + 1``).
    Immutable: the fields are read-only properties.  A constraint copied from
    a scope built from the same texts copies its sides on first use: only the
    adapters and messages read them.
    """

    # (read-only properties over private slots rather than a __setattr__ that
    # raises: building a constraint then costs plain slot stores, on every
    # scope built)
    __slots__ = ("_text", "_op", "_diff", "_sides", "_copy_from")

    _text: str
    _op: str
    _diff: DimExpr | int
    _sides: tuple[DimExpr | int, DimExpr | int] | None
    _copy_from: tuple[Constraint, ScopeCopier] | None

    def __init__(self, text: str, op: str, lhs: DimExpr | int, rhs: DimExpr | int,
                 diff: DimExpr | int) -> None:
        self._text = text
        self._op = op
        self._diff = diff
        self._sides = (lhs, rhs)
        self._copy_from = None

    @classmethod
    def copied(cls, src: Constraint, cp: ScopeCopier) -> Constraint:
        """``src`` with its expressions copied by ``cp`` (the sides lazily)."""
        c = cls.__new__(cls)
        c._text = src._text
        c._op = src._op
        c._diff = cp.expr(src._diff)
        c._sides = None
        c._copy_from = (src, cp)
        return c

    @property
    def text(self) -> str:
        """The constraint as the user wrote it (a chain: the whole chain)."""
        return self._text

    @property
    def op(self) -> str:
        """``">="`` or ``"=="``."""
        return self._op

    @property
    def diff(self) -> DimExpr | int:
        """``lhs - rhs``, the canonical expression compared with 0."""
        return self._diff

    def _get_sides(self) -> tuple[DimExpr | int, DimExpr | int]:
        sides = self._sides
        if sides is None:
            assert self._copy_from is not None
            src, cp = self._copy_from
            sides = (cp.expr(src.lhs), cp.expr(src.rhs))
            self._sides = sides
            self._copy_from = None
        return sides

    @property
    def lhs(self) -> DimExpr | int:
        """The left side."""
        return self._get_sides()[0]

    @property
    def rhs(self) -> DimExpr | int:
        """The right side."""
        return self._get_sides()[1]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Constraint):
            return NotImplemented
        return (self.text, self.op, self.lhs, self.rhs, self.diff) == \
            (other.text, other.op, other.lhs, other.rhs, other.diff)

    def __hash__(self) -> int:
        return hash((self.text, self.op, self.diff))

    def __repr__(self) -> str:
        return (f"Constraint(text={self.text!r}, op={self.op!r}, lhs={dim_text(self.lhs)}, "
                f"rhs={dim_text(self.rhs)}, diff={dim_text(self.diff)})")

    def __str__(self) -> str:
        return f"{dim_text(self.lhs)} {self.op} {dim_text(self.rhs)}"


@mypyc_attr(native_class=False)
class ConstraintRules:
    """Constraints and rewrite rules (the state is set up by ``SymbolicScope``)."""

    _constraints: list[Constraint]
    _implicit: list[tuple[DimExpr | int, str]]
    _var_rules: dict[str, DimExpr | int]
    _term_rules: dict[Mono, tuple[int, DimExpr | int]]
    _divisible: tuple[tuple[Terms, int, Mono], ...] | None
    _vars: dict[str, DimExpr | int]
    division_memo: dict[Any, DimExpr | int]
    rewrites_terms: bool
    _interval_cache: dict[DimExpr, Any]
    _initialized: bool

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
    def implicit_facts(self) -> tuple[tuple[DimExpr | int, str], ...]:
        """Facts ``e >= 0`` that hold besides the explicit constraints, with
        their reasons (the ``>= 1`` of a variable an equality rewrote away)."""
        return tuple(self._implicit)

    @property
    def rewrite_rules(self) -> Mapping[Mono, tuple[int, DimExpr | int]]:
        """The equalities' rewrite rules: ``{m: (k, e)}`` rewrites a term
        ``c*m`` with ``k | c`` to ``(c//k)*e`` (read-only)."""
        return MappingProxyType(self._term_rules)

    @property
    def variable_rules(self) -> Mapping[str, DimExpr | int]:
        """Variables that equalities define: ``{name: expression}`` (read-only)."""
        return MappingProxyType(self._var_rules)

    @property
    def fact_generation(self) -> tuple[int, int, int, bool]:
        """Changes while the constraints load, never after: the decision
        procedure rebuilds what it derived from a scope still loading."""
        return (len(self._constraints), len(self._implicit), len(self._term_rules),
                self._initialized)

    @property
    def _whole(self) -> SymbolicScope:
        """This part as the scope it belongs to (expressions are built in it)."""
        return self  # type: ignore[return-value]

    def rewrite_terms(self, terms: Terms) -> Terms:
        """``terms`` with the equalities' rewrite rules applied (the same
        map when no rule applies)."""
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
                    add: Terms = {ONE: rhs} if rhs else {}
                else:
                    add = rhs.terms
                for m2, c2 in add.items():
                    out[m2] = out.get(m2, 0) + (c // k) * c2
            else:
                out[m] = out.get(m, 0) + c
        return {m: c for m, c in out.items() if c}

    def divisibility_rules(self) -> tuple[tuple[Terms, int, Mono], ...]:
        """``(terms of E, K, monomial of floordiv(E, K))`` for every rewrite
        rule ``K*floordiv(E, K) == E`` (from a constraint ``mod(E, K) == 0``):
        the parts of an expression known to be multiples of ``K``."""
        d = self._divisible
        if d is None:
            if not self._term_rules:
                return ()
            out = []
            for m, (k, rhs) in sorted(self._term_rules.items(), key=lambda t: mono_key(t[0])):
                if len(m) == 1 and m[0][1] == 1 and type(m[0][0]) is FloorDiv and \
                        isinstance(rhs, DimExpr):
                    a = m[0][0]
                    if a.den == k and a.num == rhs:
                        out.append((rhs.terms, k, m))
            d = tuple(out)
            if self._initialized:
                self._divisible = d
        return d

    def _copy_rules_from(self, src: ConstraintRules, cp: ScopeCopier, lazy: bool) -> None:
        """Take the constraints, implicit facts and rewrite rules of ``src``
        (a scope built from the same texts), copied into this scope (the
        constraints' sides on first use if ``lazy``)."""
        e = cp.expr
        self._constraints = [
            Constraint.copied(c, cp) if lazy else Constraint(c.text, c.op, e(c.lhs), e(c.rhs),
                                                             e(c.diff))
            for c in src._constraints]
        self._implicit = [(e(f), why) for f, why in src._implicit]
        self._var_rules = {name: e(rhs) for name, rhs in src._var_rules.items()}
        self._term_rules = {cp.mono(m): (k, e(rhs)) for m, (k, rhs) in src._term_rules.items()}
        self.rewrites_terms = src.rewrites_terms

    def _add_constraint_text(self, text: str) -> None:
        for op, lhs, rhs in parse_comparison_in_scope(text, self._whole):
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
        terms = d.terms
        # Candidates in order: a side that is a single term; a variable with
        # coefficient +-1, leading first; any other term, leading first.  A
        # group is sorted only when it has more than one candidate left
        # (by_order): sort keys of new monomials cost more than the rest of
        # this.  (A candidate fails or succeeds the same way in any group.)
        tried: list[Mono] = []
        for side in c._get_sides():
            if isinstance(side, DimExpr) and len(side.terms) == 1 and ONE not in side.terms:
                m = next(iter(side.terms))
                if self._solve_for(m, terms, c):
                    return
                tried.append(m)
        unit_vars = [m for m in terms if len(m) == 1 and m[0][1] == 1 and m not in tried
                     and type(m[0][0]) is Var and abs(terms[m]) == 1]
        for m in by_order(unit_vars, mono_key):
            if self._solve_for(m, terms, c):
                return
        tried.extend(unit_vars)
        for t in by_order([t for t in terms if t and t not in tried], mono_key):
            if self._solve_for(t, terms, c):
                return

    def _solve_for(self, m: Mono, terms: Terms, c: Constraint) -> bool:
        """Install ``coeff*m + rest == 0`` as the rule ``|coeff|*m ->
        -sign(coeff)*rest`` unless ``m`` is not a term, has a rule already, or
        has an atom that ``rest`` has too."""
        coeff = terms.get(m)
        if coeff is None or m in self._term_rules or _occurs_elsewhere(m, terms):
            return False
        # (the other terms of a normalized sum are normalized: no arithmetic)
        rest = DimExpr.make({t: v for t, v in terms.items() if t is not m}, self._whole)
        self._install_rule(m, abs(coeff), -rest if coeff > 0 else rest, c)
        return True

    def _install_rule(self, m: Mono, k: int, rhs: DimExpr | int, c: Constraint) -> None:
        one = single_atom(m) if k == 1 else None
        if type(one) is Var:
            name = one.name
            self._var_rules[name] = rhs
            self._vars.pop(name, None)
            self._implicit.append(
                (rhs - 1, f"{name} >= 1, with {name} == {dim_text(rhs)} from {c.text!r}"))
        self._term_rules[m] = (k, rhs)
        self.rewrites_terms = True
        self.division_memo.clear()
        self._interval_cache.clear()

    def facts(self) -> list[tuple[DimExpr | int, str]]:
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
                            DimExpr({m: -v for m, v in d.terms.items()}, self._whole), c.text))
        out.extend(self._implicit)
        return out


def _occurs_elsewhere(m: Mono, terms: Terms) -> bool:
    """Does an atom of ``m`` occur in a term of ``terms`` other than ``m`` (at
    any depth)?  Then ``m`` cannot be solved for.  (On the term map: the
    candidates that fail build no expression.)"""
    wanted = [a for a, _ in m]
    seen: set[Any] = set()
    stack: list[Atom] = []
    for t in terms:
        if t is not m and _meets(t, wanted, seen, stack):
            return True
    while stack:  # (stops at the first hit; nested atoms are walked once)
        for o in stack.pop().operands:
            if isinstance(o, DimExpr):
                for t in o.terms:
                    if _meets(t, wanted, seen, stack):
                        return True
    return False


def _meets(t: Mono, wanted: list[Atom], seen: set[Any], stack: list[Atom]) -> bool:
    """Has ``t`` an atom in ``wanted``?  Queues its other floordiv and max
    atoms not seen yet (see :func:`_occurs_elsewhere`)."""
    for a, _ in t:
        if a in wanted:
            return True
        if type(a) is not Var and a not in seen:
            seen.add(a)
            stack.append(a)
    return False
