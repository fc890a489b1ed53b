"""One record per kind of fact: how a fact of that kind is made, how a
certificate's checker re-derives it, and how a proof words it.

A :class:`~symshape.decision.facts.Fact` names its kind by a string (its
``kind``), the key of :data:`KINDS`; adding a kind of fact means adding one
:class:`FactKind` here (and making its facts where the search needs them,
:mod:`symshape.decision.linearize`).  The kinds:

* axioms about one atom (:class:`Axiom`): ``v - 1 >= 0`` for a variable ``v``;
  ``num - den*q >= 0``, ``den*q + den - 1 - num >= 0`` and ``den - 1 >= 0``
  for ``q = floordiv(num, den)``; ``m >= 0`` and ``m - arg >= 0`` for
  ``m = max(arg, 0)``;
* the scope's explicit constraints and implicit facts;
* hypotheses (the negated claim) and case assumptions of enclosing splits;
* derived facts: bounds of a quotient from bounds of its numerator and
  divisor, the product of two facts, a non-negative integer combination of
  facts divided by a positive integer and rounded down (a Chvatal-Gomory cut,
  sound because every monomial is integer valued), a square, the monotonicity
  of a division, a quotient against its numerator, a fact divided by a
  product of variables that divides its terms, a lemma proved by its own
  refutation.

(About 690 lines: twenty short records, one per kind, each with its make,
check and wording side by side; the certificate checker and the proof
printer read them through the one table :data:`KINDS`, and splitting the
records by family would only scatter that table.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from symshape.algebra.atoms import FloorDiv, Max0, Var
from symshape.algebra.dimexpr import DimExpr
from symshape.algebra.factor import common_variable_factor, divide_terms
from symshape.decision import poly as P
from symshape.decision.derivations import combo_poly, fd_bound, fd_bound_poly
from symshape.decision.facts import CertificateError, Fact, Refutation
from symshape.decision.poly import Poly
from symshape.printing import dim_text


class Checking(Protocol):
    """What a kind's check asks of the certificate checker."""

    scope: Any
    #: the constraint texts that state each polynomial (by hash key)
    allowed: dict[frozenset[Any], set[str]]
    #: the reasons of the implicit facts, by hash key
    implicit: dict[frozenset[Any], set[str]]

    def fact(self, f: Fact, ctx: frozenset[int]) -> None:
        """Check ``f`` (and its premises) where the facts ``ctx`` are assumed."""

    def refutation(self, r: Refutation, want: Sequence[Poly]) -> None:
        """Check that ``r`` refutes the hypotheses ``want``."""


class Wording(Protocol):
    """What a kind's text asks of the renderer of a proof."""

    def text(self, p: Poly) -> str:
        """A polynomial as the expression printer writes it."""

    def atom(self, a: Any) -> str:
        """An atom as the expression printer writes it."""

    def ref(self, f: Fact) -> str:
        """A short reference to a fact, with its reason or label."""

    def label(self, f: Fact) -> str:
        """The label (``L1``, ...) of a derived fact in a proof."""


class FactKind:
    """A kind of fact.  The base record is what an unknown kind gets: its
    check fails, and a proof refers to it by its label."""

    #: the ``kind`` of the facts of this kind
    name = ""
    #: shown by a label in a proof, with its derivation under "where"
    derived = False

    def check(self, c: Checking, f: Fact, ctx: frozenset[int]) -> Poly:
        """The polynomial ``f``'s derivation gives (its premises checked
        first); raise :class:`CertificateError` where it has none."""
        raise CertificateError(f"unknown fact kind {f.kind!r}")

    def reason(self, w: Wording, f: Fact) -> str:
        """Why ``f`` holds, after a fact used directly in a proof's line."""
        return f"see {w.label(f)}"

    def derivation(self, w: Wording, f: Fact) -> str:
        """How ``f`` is derived, in the line of its label in a proof."""
        return self.reason(w, f)

    def summary(self, w: Wording, f: Fact) -> str:
        """Where ``f`` comes from, in its ``repr``."""
        return self.reason(w, f)


# -- axioms: one fact about one atom -------------------------------------------------------


class Axiom(FactKind):
    """An axiom about one atom: made and checked by :meth:`poly`."""

    def poly(self, atom: Any) -> Poly:
        """The polynomial the axiom asserts about ``atom``."""
        raise NotImplementedError

    def make(self, atom: Any) -> Fact:
        """The axiom about ``atom``."""
        return Fact(self.poly(atom), self.name, atom=atom)

    def check(self, c: Checking, f: Fact, ctx: frozenset[int]) -> Poly:
        return self.poly(f.atom)

    def reason(self, w: Wording, f: Fact) -> str:
        return self.words(w.atom(f.atom) if f.atom is not None else "", w, f)

    def words(self, a: str, w: Wording, f: Fact) -> str:
        """The reason, given the text ``a`` of the atom."""
        raise NotImplementedError


class VarAxiom(Axiom):
    name = "var"

    def poly(self, atom: Any) -> Poly:
        m = P.atom_mono(atom)
        if type(atom) is not Var:
            raise CertificateError(f"'var' axiom about a non-variable {type(atom).__name__} atom")
        return {m: 1, P.ONE: -1}

    def words(self, a: str, w: Wording, f: Fact) -> str:
        return f"{a} is a dimension variable"


class FloorDivAxiom(Axiom):
    """The axioms of ``q = floordiv(num, den)``."""

    def poly(self, atom: Any) -> Poly:
        m = P.atom_mono(atom)
        if type(atom) is not FloorDiv:
            raise CertificateError(f"floordiv axiom about {type(atom).__name__} atom")
        num = P.operand_poly(atom.num)
        den = P.operand_poly(atom.den)
        if self.name == "fd_den":
            if not isinstance(atom.den, DimExpr):
                raise CertificateError("'fd_den' axiom needs a symbolic divisor")
            return P.add(den, P.const(-1))
        if isinstance(atom.den, int) and atom.den < 1:
            raise CertificateError(f"floordiv by non-positive constant {atom.den}")
        dq = P.mul(den, {m: 1})
        if self.name == "fd_lo":  # num - den*q >= 0
            return P.add(num, dq, -1)
        # den*q + den - 1 - num >= 0
        return P.add(P.add(P.add(dq, den), num, -1), P.const(-1))


class FloorDivLow(FloorDivAxiom):
    name = "fd_lo"

    def words(self, a: str, w: Wording, f: Fact) -> str:
        return f"definition of {a}: divisor * quotient <= numerator"


class FloorDivHigh(FloorDivAxiom):
    name = "fd_hi"

    def words(self, a: str, w: Wording, f: Fact) -> str:
        return f"definition of {a}: numerator <= divisor * quotient + divisor - 1"


class FloorDivDivisor(FloorDivAxiom):
    name = "fd_den"

    def words(self, a: str, w: Wording, f: Fact) -> str:
        return f"the divisor of {a} is >= 1"


class MaxAxiom(Axiom):
    """The axioms of ``m = max(arg, 0)``."""

    def poly(self, atom: Any) -> Poly:
        m = P.atom_mono(atom)
        if type(atom) is not Max0:
            raise CertificateError(f"max axiom about {type(atom).__name__} atom")
        if self.name == "max_ge0":
            return {m: 1}
        return P.add({m: 1}, P.from_expr(atom.arg), -1)


class MaxNonNegative(MaxAxiom):
    name = "max_ge0"

    def words(self, a: str, w: Wording, f: Fact) -> str:
        return f"{a} >= 0"


class MaxAboveArgument(MaxAxiom):
    name = "max_ge_arg"

    def words(self, a: str, w: Wording, f: Fact) -> str:
        return f"{a} >= {w.text(P.from_expr(f.atom.arg))}"


# -- what a proof starts from: the scope's facts, its hypotheses -----------------------------


class ConstraintFact(FactKind):
    """One direction of an explicit constraint of the scope (``note``: its text)."""

    name = "constraint"

    def make(self, poly: Poly, text: str) -> Fact:
        """``poly >= 0``, stated by the constraint ``text``."""
        return Fact(poly, self.name, note=text)

    def check(self, c: Checking, f: Fact, ctx: frozenset[int]) -> Poly:
        texts = c.allowed.get(P.hkey(f.poly))
        if not texts or f.note not in texts:
            raise CertificateError(
                f"fact cites constraint {f.note!r}, which does not state "
                f"{P.to_text(f.poly, c.scope)} >= 0")
        return f.poly

    def reason(self, w: Wording, f: Fact) -> str:
        return f"constraint {f.note!r}"

    def summary(self, w: Wording, f: Fact) -> str:
        return f"from constraint {f.note!r}"


class ImplicitFact(FactKind):
    """An implicit fact of the scope (``note``: its reason)."""

    name = "implicit"

    def make(self, poly: Poly, reason: str) -> Fact:
        """``poly >= 0``, implied by the scope for ``reason``."""
        return Fact(poly, self.name, note=reason)

    def check(self, c: Checking, f: Fact, ctx: frozenset[int]) -> Poly:
        texts = c.implicit.get(P.hkey(f.poly))
        if not texts or f.note not in texts:
            raise CertificateError(f"fact cites unknown implicit fact {f.note!r}")
        return f.poly

    def reason(self, w: Wording, f: Fact) -> str:
        return f"implicit: {f.note}"


class Assumed(FactKind):
    """A fact valid only where it is assumed: checked against the context."""

    def check(self, c: Checking, f: Fact, ctx: frozenset[int]) -> Poly:
        if id(f) not in ctx:
            raise CertificateError(f"{f.kind} fact used outside its scope")
        return f.poly


class Hypothesis(Assumed):
    """A hypothesis of a refutation (``note``: which one, such as "negated claim")."""

    name = "hyp"

    def make(self, poly: Poly, note: str = "") -> Fact:
        """The hypothesis ``poly >= 0``."""
        return Fact(poly, self.name, note=note)

    def reason(self, w: Wording, f: Fact) -> str:
        return f.note or "hypothesis"


class CaseAssumption(Assumed):
    """The assumption of one case of a split."""

    name = "case"

    def make(self, poly: Poly, atom: Any = None) -> Fact:
        """The case ``poly >= 0`` (of a split on ``atom``, if any)."""
        return Fact(poly, self.name, atom=atom)

    def reason(self, w: Wording, f: Fact) -> str:
        return "case assumption"


# -- derived facts ------------------------------------------------------------------------------


class FloorDivBound(FactKind):
    """A bound of a quotient implied by bounds of its numerator (and divisor),
    see :func:`fd_bound`."""

    derived = True

    def make(self, atom: Any, premises: Sequence[Fact]) -> Fact:
        """``q - t >= 0`` (``fd_lb``) or ``t - q >= 0`` (``fd_ub``)."""
        return make_fd_bound(self.name, atom, premises)

    def check(self, c: Checking, f: Fact, ctx: frozenset[int]) -> Poly:
        for prem in f.premises:
            c.fact(prem, ctx)
        return fd_bound_poly(self.name, f.atom, f.premises)

    def side(self) -> str:
        return "lower" if self.name == "fd_lb" else "upper"

    def derivation(self, w: Wording, f: Fact) -> str:
        prem = " and ".join(w.ref(p) for p in f.premises)
        return (f"the {self.side()} bound of {w.atom(f.atom)} implied by {prem} "
                "(its divisor is >= 1)")

    def summary(self, w: Wording, f: Fact) -> str:
        return f"{self.side()} bound of {w.atom(f.atom)}"


class FloorDivLowerBound(FloorDivBound):
    name = "fd_lb"


class FloorDivUpperBound(FloorDivBound):
    name = "fd_ub"


class Product(FactKind):
    """The product of two facts."""

    name = "product"
    derived = True

    def make(self, f1: Fact, f2: Fact) -> Fact:
        """``f1 * f2 >= 0``."""
        return Fact(P.mul(f1.poly, f2.poly), self.name, premises=(f1, f2))

    def check(self, c: Checking, f: Fact, ctx: frozenset[int]) -> Poly:
        if len(f.premises) != 2:
            raise CertificateError("a product needs two premises")
        for p in f.premises:
            c.fact(p, ctx)
        return P.mul(f.premises[0].poly, f.premises[1].poly)

    def derivation(self, w: Wording, f: Fact) -> str:
        a, b = f.premises
        return f"product of {w.ref(a)} and {w.ref(b)}"

    def summary(self, w: Wording, f: Fact) -> str:
        return "product of 2 facts"


class Combination(FactKind):
    """A positive integer combination of facts, divided and rounded down."""

    name = "combo"
    derived = True

    def make(self, premises: Sequence[Fact], mults: Sequence[int], divisor: int = 1) -> Fact:
        """``floor(sum(mults*premises) / divisor) >= 0`` (the premise itself
        for one premise times 1)."""
        if len(premises) == 1 and mults[0] == 1 and divisor == 1:
            return premises[0]
        return Fact(combo_poly(premises, mults, divisor), self.name, premises=premises,
                    mults=mults, divisor=divisor)

    def check(self, c: Checking, f: Fact, ctx: frozenset[int]) -> Poly:
        for p in f.premises:
            c.fact(p, ctx)
        return combo_poly(f.premises, f.mults, f.divisor)

    def derivation(self, w: Wording, f: Fact) -> str:
        parts = " + ".join(f"{dim_text(m)} x {w.ref(p)}"
                           for m, p in zip(f.mults, f.premises, strict=True))
        if f.divisor > 1:
            return f"({parts}) / {dim_text(f.divisor)}, rounded down (every term is an integer)"
        return parts

    def summary(self, w: Wording, f: Fact) -> str:
        why = f"sum of {len(f.premises)} facts"
        if f.divisor > 1:
            why += f", divided by {f.divisor} and rounded down"
        return why


class Lemma(FactKind):
    """A fact proved by its own refutation."""

    name = "lemma"
    derived = True

    def make(self, target: Poly, proof: Refutation) -> Fact:
        """``target >= 0``, proved by refuting ``target <= -1``."""
        return Fact(target, self.name, proof=proof)

    def check(self, c: Checking, f: Fact, ctx: frozenset[int]) -> Poly:
        if f.proof is None:
            raise CertificateError("lemma without proof")
        negation = P.add(P.scale(f.poly, -1), P.const(-1))
        c.refutation(f.proof, [negation])
        return f.poly

    def derivation(self, w: Wording, f: Fact) -> str:
        return "a lemma, proved below"

    def summary(self, w: Wording, f: Fact) -> str:
        return "lemma, proved by its own refutation"


class Square(FactKind):
    """The square of a polynomial (kept in the fact's ``atom`` slot)."""

    name = "square"

    def make(self, base: Poly) -> Fact:
        """``base**2 >= 0``."""
        return Fact(P.mul(base, base), self.name, atom=dict(base))

    def check(self, c: Checking, f: Fact, ctx: frozenset[int]) -> Poly:
        if not isinstance(f.atom, dict):
            raise CertificateError("a square needs its base polynomial")
        return P.mul(f.atom, f.atom)

    def reason(self, w: Wording, f: Fact) -> str:
        return f"the square of {w.text(f.atom)}"


class MonotoneDivision(FactKind):
    """``floordiv(n2, d) >= floordiv(n1, d)`` from ``n2 >= n1`` (the pair of
    quotients in the fact's ``atom`` slot)."""

    name = "fd_mono"

    def make(self, low: Any, high: Any, premise: Fact) -> Fact:
        """``high - low >= 0`` for ``low = floordiv(n1, d)``, ``high =
        floordiv(n2, d)`` from ``premise``: ``n2 - n1 >= 0`` (floor division
        by ``d >= 1`` is monotone)."""
        return Fact({P.atom_mono(high): 1, P.atom_mono(low): -1}, self.name, atom=(low, high),
                    premises=(premise,))

    def check(self, c: Checking, f: Fact, ctx: frozenset[int]) -> Poly:
        low, high = f.atom
        if type(low) is not FloorDiv or type(high) is not FloorDiv or \
                low.den != high.den or len(f.premises) != 1:
            raise CertificateError("monotonicity of floordiv needs two quotients "
                                   "by the same divisor")
        prem = f.premises[0]
        c.fact(prem, ctx)
        if prem.poly != P.add(P.from_expr(high.num), P.from_expr(low.num), -1):
            raise CertificateError("monotonicity of floordiv: the premise does not "
                                   "order the numerators")
        return {P.atom_mono(high): 1, P.atom_mono(low): -1}

    def reason(self, w: Wording, f: Fact) -> str:
        low, high = f.atom
        return (f"{w.atom(high)} >= {w.atom(low)}: the same divisor, and "
                f"{w.ref(f.premises[0])} orders the numerators")


class QuotientAndNumerator(FactKind):
    """A quotient by ``den >= 1`` against its own numerator: ``num - q >= 0``
    from ``num - L >= 0`` with ``L >= -1`` (``q <= q*den <= num`` for
    ``num >= 0``, and ``floordiv(-1, den) == -1``), and
    ``q - num >= 0`` from ``U - num >= 0`` with ``U <= 0`` (``num/den`` lies in
    ``[num, 0]``).  No linear combination makes that step when ``den`` is
    symbolic."""

    name = "fd_num"

    def make(self, atom: Any, premise: Fact) -> Fact:
        """The fact about ``q = floordiv(num, den)`` (the ``atom``) that
        ``premise`` gives (see the class)."""
        return Fact(self._poly(atom, premise), self.name, atom=atom, premises=(premise,))

    @staticmethod
    def _poly(atom: Any, premise: Fact) -> Poly:
        num = P.operand_poly(atom.num)
        q = {P.atom_mono(atom): 1}
        below = P.add(premise.poly, num, -1)  # -L when the premise is num - L
        if P.is_constant(below) and P.constant(below) <= 1:
            return P.add(num, q, -1)
        above = P.add(premise.poly, num)  # U when the premise is U - num
        if P.is_constant(above) and P.constant(above) <= 0:
            return P.add(q, num, -1)
        raise CertificateError("a quotient against its numerator: the premise does not "
                               "give the numerator a sign")

    def check(self, c: Checking, f: Fact, ctx: frozenset[int]) -> Poly:
        if type(f.atom) is not FloorDiv or len(f.premises) != 1:
            raise CertificateError("a quotient against its numerator needs a floordiv "
                                   "and one premise")
        c.fact(f.premises[0], ctx)
        return self._poly(f.atom, f.premises[0])

    def reason(self, w: Wording, f: Fact) -> str:
        return (f"{w.atom(f.atom)} lies between 0 and its numerator, whose sign "
                f"{w.ref(f.premises[0])} shows (its divisor is >= 1)")


class NestedQuotient(FactKind):
    """A quotient by ``k*D`` against the quotient of the same numerator by
    ``D``: ``floordiv(N, k*D) == floordiv(floordiv(N, D), k)``, so with ``q1 =
    floordiv(N, D)`` and ``q2 = floordiv(N, k*D)``, ``q1 - k*q2 >= 0`` (side
    0) and ``k*q2 + k - 1 - q1 >= 0`` (side 1).  ``k`` is a polynomial, kept
    with the two quotients in the fact's ``atom`` slot; it is an integer, and
    >= 1 wherever both divisors are >= 1 (the domain of every question about
    them).  What ``mod(floordiv(c, d), a + 1) >= 0`` needs once the algebra
    has merged the two divisions: no linear combination makes the step (it
    divides by ``D``)."""

    name = "fd_nested"
    derived = True

    def make(self, inner: FloorDiv, outer: FloorDiv, k: Poly, side: int) -> Fact:
        """Side ``side`` (see the class) for ``inner = floordiv(N, D)`` and
        ``outer = floordiv(N, k*D)``."""
        return Fact(self._poly(inner, outer, k, side), self.name, atom=(inner, outer, k, side))

    @staticmethod
    def _poly(inner: FloorDiv, outer: FloorDiv, k: Poly, side: int) -> Poly:
        q1 = {P.atom_mono(inner): 1}
        kq2 = P.mul(k, {P.atom_mono(outer): 1})
        if side == 0:
            return P.add(q1, kq2, -1)
        return P.add(P.add(kq2, k), P.add(q1, P.const(1)), -1)

    def check(self, c: Checking, f: Fact, ctx: frozenset[int]) -> Poly:
        if not (isinstance(f.atom, tuple) and len(f.atom) == 4):
            raise CertificateError("a nested quotient needs two quotients, a factor and a side")
        inner, outer, k, side = f.atom
        if type(inner) is not FloorDiv or type(outer) is not FloorDiv or side not in (0, 1) \
                or not isinstance(k, dict):
            raise CertificateError("a nested quotient needs two floordivs and a side")
        if P.operand_poly(inner.num) != P.operand_poly(outer.num):
            raise CertificateError("a nested quotient: the numerators differ")
        if P.mul(k, P.operand_poly(inner.den)) != P.operand_poly(outer.den):
            raise CertificateError("a nested quotient: the outer divisor is not the factor "
                                   "times the inner one")
        return self._poly(inner, outer, k, side)

    def reason(self, w: Wording, f: Fact) -> str:
        inner, outer, k, _ = f.atom
        return f"{w.atom(outer)} = floordiv({w.atom(inner)}, {w.text(k)})"

    def derivation(self, w: Wording, f: Fact) -> str:
        return f"the floor division identity {self.reason(w, f)} (both divisors are >= 1)"

    def summary(self, w: Wording, f: Fact) -> str:
        return "a quotient by a multiple of a divisor, against the quotient by that divisor"


class PositiveFactorQuotient(FactKind):
    """A fact divided by a positive factor: from ``M*R + c >= 0``, where the
    product of variables ``M`` divides every non-constant term and ``c <= 0``,
    follows ``R >= 0`` (``c == 0``) or ``R - 1 >= 0`` (``c < 0``): every
    variable is ``>= 1``, so ``M >= 1`` and ``M*R`` has the sign of ``R``.
    No linear combination makes that step: ``b*h*q - b*h*s - 1 >= 0`` gives
    ``q - s - 1 >= 0``, which ``q <= s`` then contradicts."""

    name = "factor_quotient"
    derived = True

    def make(self, premise: Fact) -> Fact | None:
        """The quotient of ``premise`` by the largest product of variables
        that divides its non-constant terms; None where there is no such
        factor or the constant is positive."""
        q = self.quotient(premise.poly)
        return None if q is None else Fact(q, self.name, premises=(premise,))

    @staticmethod
    def quotient(p: Poly) -> Poly | None:
        """``R`` (``c == 0``) or ``R - 1`` (``c < 0``) for ``p = M*R + c``,
        ``M`` the largest product of variables dividing the terms of ``p``
        but its constant ``c <= 0``; None when ``M`` is 1 or ``c > 0``."""
        c = P.constant(p)
        if c > 0:
            return None
        rest = P.linear_part(p)
        if not rest:
            return None
        factor = common_variable_factor(rest)
        if not factor:  # (the constant monomial: no factor)
            return None
        out = divide_terms(rest, factor)
        return P.add(out, P.const(-1)) if c < 0 else out

    def check(self, c: Checking, f: Fact, ctx: frozenset[int]) -> Poly:
        if len(f.premises) != 1:
            raise CertificateError("a quotient by a positive factor needs one premise")
        c.fact(f.premises[0], ctx)
        q = self.quotient(f.premises[0].poly)
        if q is None:
            raise CertificateError("a quotient by a positive factor: no product of "
                                   "variables divides the premise's terms, or its "
                                   "constant is positive")
        return q

    def derivation(self, w: Wording, f: Fact) -> str:
        return (f"{w.ref(f.premises[0])} divided by a product of variables (each >= 1) "
                f"that divides its terms")

    def summary(self, w: Wording, f: Fact) -> str:
        return "a fact divided by a positive product of variables"


# -- the records -------------------------------------------------------------------------------

VAR = VarAxiom()
FD_LO = FloorDivLow()
FD_HI = FloorDivHigh()
FD_DEN = FloorDivDivisor()
MAX_GE0 = MaxNonNegative()
MAX_GE_ARG = MaxAboveArgument()
FD_LB = FloorDivLowerBound()
FD_UB = FloorDivUpperBound()
CONSTRAINT = ConstraintFact()
IMPLICIT = ImplicitFact()
HYP = Hypothesis()
CASE = CaseAssumption()
PRODUCT = Product()
COMBO = Combination()
LEMMA = Lemma()
SQUARE = Square()
FD_MONO = MonotoneDivision()
FD_NUM = QuotientAndNumerator()
FACTOR_QUOTIENT = PositiveFactorQuotient()
FD_NESTED = NestedQuotient()
UNKNOWN = FactKind()

AXIOMS: dict[str, Axiom] = {k.name: k for k in (VAR, FD_LO, FD_HI, FD_DEN, MAX_GE0, MAX_GE_ARG)}
#: every kind of fact, by name
KINDS: dict[str, FactKind] = {
    **AXIOMS,
    **{k.name: k for k in (FD_LB, FD_UB, CONSTRAINT, IMPLICIT, HYP, CASE, PRODUCT, COMBO,
                           LEMMA, SQUARE, FD_MONO, FD_NUM, FACTOR_QUOTIENT, FD_NESTED)}}
AXIOM_KINDS = tuple(AXIOMS)


def kind_of(f: Fact) -> FactKind:
    """The record of ``f``'s kind (:data:`UNKNOWN` for a name no record has)."""
    return KINDS.get(f.kind, UNKNOWN)


# -- axioms by the name of their kind ------------------------------------------------------------


def axiom_poly(kind: str, atom: Any) -> Poly:
    """The polynomial an axiom of ``kind`` asserts about ``atom``."""
    record = AXIOMS.get(kind)
    if record is None:
        raise CertificateError(f"unknown axiom kind {kind!r}")
    return record.poly(atom)


# -- the makers, by the names the search and the tests use -------------------------------------


def make_axiom(kind: str, atom: Any) -> Fact:
    """An axiom fact about ``atom``."""
    return Fact(axiom_poly(kind, atom), kind, atom=atom)


def make_fd_bound(kind: str, atom: Any, premises: Sequence[Fact]) -> Fact:
    """``q - t >= 0`` (``fd_lb``) or ``t - q >= 0`` (``fd_ub``), see :func:`fd_bound`."""
    return Fact(fd_bound_poly(kind, atom, premises), kind, atom=atom, premises=premises)


make_fd_mono = FD_MONO.make
make_fd_num = FD_NUM.make
make_fd_nested = FD_NESTED.make
make_factor_quotient = FACTOR_QUOTIENT.make
make_square = SQUARE.make
make_product = PRODUCT.make
make_combo = COMBO.make


def split_cases(form: Poly, bound: int) -> tuple[Fact, Fact]:
    """The two case facts of a :class:`~symshape.decision.facts.Split`."""
    left = P.add(P.const(bound), form, -1)
    right = P.add(form, P.const(-bound - 1))
    return CASE.make(left), CASE.make(right)


def max_cases(atom: Max0) -> tuple[Fact, Fact]:
    """The two case facts of a :class:`~symshape.decision.facts.MaxSplit`."""
    m = P.atom_mono(atom)
    return (CASE.make({m: -1}, atom),
            CASE.make(P.add(P.from_expr(atom.arg), {m: 1}, -1), atom))


__all__ = [
    "AXIOMS", "AXIOM_KINDS", "CASE", "COMBO", "CONSTRAINT", "FACTOR_QUOTIENT", "FD_DEN", "FD_HI",
    "FD_LB", "FD_NESTED",
    "FD_LO", "FD_MONO", "FD_NUM", "FD_UB", "HYP", "IMPLICIT", "KINDS", "LEMMA", "MAX_GE0",
    "MAX_GE_ARG",
    "PRODUCT", "SQUARE", "UNKNOWN", "VAR", "Axiom", "Checking", "FactKind", "Wording",
    "axiom_poly", "combo_poly", "fd_bound", "fd_bound_poly", "kind_of", "make_axiom", "make_combo",
    "make_factor_quotient", "make_fd_bound", "make_fd_mono", "make_fd_nested", "make_fd_num",
    "make_product",
    "make_square", "max_cases",
    "split_cases",
]
