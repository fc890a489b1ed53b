"""Proof certificates: checkable on their own, readable by a person.

A certificate proves that some sets of hypotheses are contradictory together
with the facts of a scope.  Every fact is a polynomial ``p`` over the monomials
of canonical expressions with the meaning ``p >= 0``, together with the
derivation that justifies it:

* axioms about one atom (``v - 1 >= 0`` for a variable ``v``; ``num - den*q >= 0``
  and ``den*q + den - 1 - num >= 0`` for ``q = floordiv(num, den)``; ``m >= 0``
  and ``m - arg >= 0`` for ``m = max(arg, 0)``, ...);
* the scope's explicit constraints and implicit facts;
* hypotheses (the negated claim) and case assumptions of enclosing splits;
* derived facts: the product of two facts, a non-negative integer combination
  of facts divided by a positive integer and rounded down (a Chvatal-Gomory
  cut, sound because every monomial is integer valued), or a lemma proved by
  its own refutation.

A refutation is a tree: a :class:`Split` covers every integer value of a
polynomial ``t`` by the cases ``t <= c`` and ``t >= c + 1``; a
:class:`MaxSplit` covers ``max(arg, 0)`` by the cases ``max(arg, 0) <= 0`` and
``max(arg, 0) <= arg``; a :class:`Leaf` lists positive integer multipliers of
facts whose weighted sum is a negative constant, which is impossible.

:meth:`Certificate.check` recomputes every fact from its derivation and every
sum with exact integer polynomial arithmetic; it never calls the search that
found the certificate.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from symshape.algebra.atoms import FloorDiv, Max0, Var
from symshape.algebra.dimexpr import DimExpr
from symshape.decision import poly as P
from symshape.decision.poly import Poly
from symshape.errors import LazyText, SymshapeError

# Fact kinds.
AXIOM_KINDS = ("var", "fd_lo", "fd_hi", "fd_den", "max_ge0", "max_ge_arg")
KINDS = AXIOM_KINDS + ("fd_lb", "fd_ub", "constraint", "implicit", "hyp", "case",
                       "product", "combo", "lemma", "square", "fd_mono")


# How facts and certificates are shown: :mod:`symshape.decision.explain`, which
# builds on this module, installs its renderers here when it is imported (the
# decision package imports it), so that this module never imports it back.
RENDERERS: dict[str, Callable[[Any], str]] = {}


class CertificateError(SymshapeError):
    """A certificate does not verify (tampered with, or not for this claim)."""


class Fact:
    """``poly >= 0``, with its derivation.

    Build facts with the helper functions of this module; treat them as
    immutable (``poly`` is never mutated after construction).
    """

    __slots__ = ("poly", "kind", "atom", "premises", "mults", "divisor", "note", "proof",
                 "_key", "contextual")

    def __init__(self, poly: Poly, kind: str, *, atom: Any = None,
                 premises: Sequence[Fact] = (), mults: Sequence[int] = (), divisor: int = 1,
                 note: str = "", proof: Refutation | None = None) -> None:
        self.poly = poly
        self.kind = kind
        self.atom = atom
        self.premises = tuple(premises)
        self.mults = tuple(mults)
        self.divisor = divisor
        self.note = note
        self.proof = proof
        self._key: tuple[Any, ...] | None = None
        # Depends on a hypothesis or case assumption (valid only in its context)?
        self.contextual: bool = kind in ("hyp", "case") or any(
            p.contextual for p in self.premises)

    @property
    def key(self) -> tuple[Any, ...]:
        """Canonical sort key: the polynomial, then the derivation kind and note."""
        k = self._key
        if k is None:
            k = self._key = (P.key(self.poly), self.kind, self.note)
        return k

    def __repr__(self) -> str:
        """``Fact(a*b - 1 >= 0, from constraint 'a*b >= 1')``: the polynomial as
        the expression printer writes it, then where the fact comes from."""
        return RENDERERS["fact"](self)


# ---------------------------------------------------------------------------
# Derivations (shared by the builder and the checker: the checker recomputes)


def axiom_poly(kind: str, atom: Any) -> Poly:
    """The polynomial an axiom of ``kind`` asserts about ``atom``."""
    m = P.atom_mono(atom)
    if kind == "var":
        if type(atom) is not Var:
            raise CertificateError(f"'var' axiom about a non-variable {type(atom).__name__} atom")
        return {m: 1, P.ONE: -1}
    if kind in ("fd_lo", "fd_hi", "fd_den"):
        if type(atom) is not FloorDiv:
            raise CertificateError(f"floordiv axiom about {type(atom).__name__} atom")
        num = P.operand_poly(atom.num)
        den = P.operand_poly(atom.den)
        if kind == "fd_den":
            if not isinstance(atom.den, DimExpr):
                raise CertificateError("'fd_den' axiom needs a symbolic divisor")
            return P.add(den, P.const(-1))
        if isinstance(atom.den, int) and atom.den < 1:
            raise CertificateError(f"floordiv by non-positive constant {atom.den}")
        dq = P.mul(den, {m: 1})
        if kind == "fd_lo":  # num - den*q >= 0
            return P.add(num, dq, -1)
        # den*q + den - 1 - num >= 0
        return P.add(P.add(P.add(dq, den), num, -1), P.const(-1))
    if kind in ("max_ge0", "max_ge_arg"):
        if type(atom) is not Max0:
            raise CertificateError(f"max axiom about {type(atom).__name__} atom")
        if kind == "max_ge0":
            return {m: 1}
        return P.add({m: 1}, P.from_expr(atom.arg), -1)
    raise CertificateError(f"unknown axiom kind {kind!r}")


def combo_poly(premises: Sequence[Fact], mults: Sequence[int], divisor: int) -> Poly:
    """``floor(sum(mults[i] * premises[i]) / divisor)``, checking divisibility."""
    if len(premises) != len(mults) or not premises:
        raise CertificateError("combination with mismatched multipliers")
    if divisor < 1:
        raise CertificateError(f"combination with divisor {divisor}")
    acc: Poly = {}
    for f, k in zip(premises, mults, strict=True):
        if not isinstance(k, int) or k <= 0:
            raise CertificateError(f"combination multiplier {k!r} is not a positive int")
        P.add_into(acc, f.poly, k)
    if divisor == 1:
        return acc
    out: Poly = {}
    for m, c in acc.items():
        if m:
            if c % divisor:
                raise CertificateError(
                    f"combination is not divisible by {divisor} (coefficient {c})")
            out[m] = c // divisor
        else:
            v = c // divisor  # rounding down is sound: the rest is an integer
            if v:
                out[m] = v
    return out


def make_axiom(kind: str, atom: Any) -> Fact:
    """An axiom fact about ``atom``."""
    return Fact(axiom_poly(kind, atom), kind, atom=atom)


def make_fd_mono(low: Any, high: Any, premise: Fact) -> Fact:
    """``high - low >= 0`` for ``low = floordiv(n1, d)``, ``high = floordiv(n2, d)``
    from ``premise``: ``n2 - n1 >= 0`` (floor division by ``d >= 1`` is monotone)."""
    return Fact({P.atom_mono(high): 1, P.atom_mono(low): -1}, "fd_mono", atom=(low, high),
                premises=(premise,))


def make_square(base: Poly) -> Fact:
    """``base**2 >= 0`` (``base`` is kept in the fact's ``atom`` slot)."""
    return Fact(P.mul(base, base), "square", atom=dict(base))


def make_product(f1: Fact, f2: Fact) -> Fact:
    """``f1 * f2 >= 0``."""
    return Fact(P.mul(f1.poly, f2.poly), "product", premises=(f1, f2))


def make_combo(premises: Sequence[Fact], mults: Sequence[int], divisor: int = 1) -> Fact:
    """``floor(sum(mults*premises) / divisor) >= 0``."""
    if len(premises) == 1 and mults[0] == 1 and divisor == 1:
        return premises[0]
    return Fact(combo_poly(premises, mults, divisor), "combo", premises=premises,
                mults=mults, divisor=divisor)


def fd_bound(kind: str, atom: Any, premises: Sequence[Fact]) -> int:
    """The bound ``t`` of ``floordiv(num, den)`` given by a bound rule.

    ``fd_lb``: from ``num - L >= 0`` (and optionally ``D - den >= 0``) conclude
    ``q >= t``: ``t = L`` if ``L < 0`` (``num/den`` lies in ``[num, 0)``), else
    ``L // D`` (``0`` without ``D``).  ``fd_ub``: from ``U - num >= 0`` (and
    optionally ``den - D >= 0`` if ``U >= 0``, ``D - den >= 0`` if ``U < 0``)
    conclude ``q <= t``: ``t = U // D`` (``D = 1`` without the premise) if
    ``U >= 0``, else ``U // D`` (``-1`` without the premise).  Against a
    symbolic divisor, one premise ``num - t*den >= 0`` gives ``q >= t``
    (``fd_lb``) and ``(t + 1)*den - 1 - num >= 0`` gives ``q <= t`` (``fd_ub``).
    Every rule uses ``den >= 1``, an invariant of floordiv atoms.
    """
    if type(atom) is not FloorDiv:
        raise CertificateError(f"{kind} fact about {type(atom).__name__} atom")
    if isinstance(atom.den, int) and atom.den < 1:
        raise CertificateError("floordiv by a non-positive constant")
    if not 1 <= len(premises) <= 2:
        raise CertificateError(f"{kind} needs one or two premises")
    num = P.operand_poly(atom.num)
    den = P.operand_poly(atom.den)
    p1 = premises[0].poly
    sign = 1 if kind == "fd_lb" else -1
    rest = P.add(p1, num, -sign)  # fd_lb: num - L; fd_ub: U - num
    if not P.is_constant(rest) and len(premises) == 1:
        # Against the divisor: num - t*den >= 0 gives q >= t, and
        # (t + 1)*den - 1 - num >= 0 gives q <= t (num/den < t + 1), as den >= 1.
        t = _multiple_of(P.scale(rest, -1) if kind == "fd_lb" else P.add(rest, P.const(1)),
                         den)
        if t is not None:
            return t if kind == "fd_lb" else t - 1
    if not P.is_constant(rest):
        raise CertificateError(f"{kind}: first premise does not bound the numerator")
    bound = -P.constant(rest) if kind == "fd_lb" else P.constant(rest)
    d_upper: int | None = None  # D with den <= D
    d_lower: int | None = None  # D with den >= D
    if len(premises) == 2:
        p2 = premises[1].poly
        up = P.add(p2, den, 1)  # D - den + den = D
        lo = P.add(p2, den, -1)  # den - D - den = -D
        if P.is_constant(up) and P.constant(up) >= 1:
            d_upper = P.constant(up)
        elif P.is_constant(lo) and -P.constant(lo) >= 1:
            d_lower = -P.constant(lo)
        else:
            raise CertificateError(f"{kind}: second premise does not bound the divisor")
    if kind == "fd_lb":
        if d_lower is not None:
            raise CertificateError("fd_lb: a lower bound of the divisor does not help")
        if bound < 0:
            return bound
        return bound // d_upper if d_upper is not None else 0
    if kind != "fd_ub":
        raise CertificateError(f"unknown floordiv bound rule {kind!r}")
    if bound >= 0:
        if d_upper is not None:
            raise CertificateError("fd_ub: an upper bound of the divisor does not help")
        return bound // (d_lower or 1)
    if d_lower is not None:
        raise CertificateError("fd_ub: a lower bound of the divisor does not help")
    return bound // d_upper if d_upper is not None else -1


def _multiple_of(p: Poly, den: Poly) -> int | None:
    """``c`` with ``p == c*den`` for a non-constant ``den``, else None."""
    if P.is_constant(den) or not p:
        return 0 if not p else None
    m, c = next(iter(den.items()))
    k, r = divmod(p.get(m, 0), c)
    if r or P.scale(den, k) != p:
        return None
    return k


def make_fd_bound(kind: str, atom: Any, premises: Sequence[Fact]) -> Fact:
    """``q - t >= 0`` (``fd_lb``) or ``t - q >= 0`` (``fd_ub``), see :func:`fd_bound`."""
    t = fd_bound(kind, atom, premises)
    m = P.atom_mono(atom)
    p = {m: 1, P.ONE: -t} if kind == "fd_lb" else {m: -1, P.ONE: t}
    return Fact({k: v for k, v in p.items() if v}, kind, atom=atom, premises=premises)


# ---------------------------------------------------------------------------
# Proof trees


class Leaf:
    """A contradiction: ``sum(k * fact)`` is a negative constant."""

    __slots__ = ("items",)

    def __init__(self, items: Sequence[tuple[int, Fact]]) -> None:
        self.items = tuple(items)

    def total(self) -> Poly:
        """The weighted sum (recomputed)."""
        acc: Poly = {}
        for k, f in self.items:
            P.add_into(acc, f.poly, k)
        return acc

    def closes(self) -> bool:
        """Is the weighted sum a negative constant (the leaf a contradiction)?"""
        total = self.total()
        return P.is_constant(total) and P.constant(total) < 0


class Split:
    """Cases ``form <= bound`` (left) and ``form >= bound + 1`` (right)."""

    __slots__ = ("form", "bound", "left_case", "right_case", "left", "right")

    def __init__(self, form: Poly, bound: int, left: Node, right: Node,
                 left_case: Fact, right_case: Fact) -> None:
        self.form = form
        self.bound = bound
        self.left = left
        self.right = right
        self.left_case = left_case
        self.right_case = right_case


class MaxSplit:
    """Cases ``max(arg, 0) == 0`` (left: ``-m >= 0``) and ``max(arg, 0) == arg``
    (right: ``arg - m >= 0``)."""

    __slots__ = ("atom", "left_case", "right_case", "left", "right")

    def __init__(self, atom: Max0, left: Node, right: Node, left_case: Fact,
                 right_case: Fact) -> None:
        self.atom = atom
        self.left = left
        self.right = right
        self.left_case = left_case
        self.right_case = right_case


Node = Leaf | Split | MaxSplit


def split_cases(form: Poly, bound: int) -> tuple[Fact, Fact]:
    """The two case facts of a :class:`Split`."""
    left = P.add(P.const(bound), form, -1)
    right = P.add(form, P.const(-bound - 1))
    return Fact(left, "case"), Fact(right, "case")


def max_cases(atom: Max0) -> tuple[Fact, Fact]:
    """The two case facts of a :class:`MaxSplit`."""
    m = P.atom_mono(atom)
    return (Fact({m: -1}, "case", atom=atom),
            Fact(P.add(P.from_expr(atom.arg), {m: 1}, -1), "case", atom=atom))


class Refutation:
    """A proof that ``hyps`` contradict the facts of the scope."""

    __slots__ = ("hyps", "tree")

    def __init__(self, hyps: Sequence[Fact], tree: Node) -> None:
        self.hyps = tuple(hyps)
        self.tree = tree


# ---------------------------------------------------------------------------
# Goals: which hypothesis sets a certificate must refute

# (op in ">=", "==", "!=", d, text): "d op 0"; the text may be made when first read
Link = tuple[str, Poly, str | LazyText]


def negation_cases(link_op: str, d: Poly) -> list[list[Poly]]:
    """The negation of ``d op 0`` as a disjunction of conjunctions of ``p >= 0``."""
    if link_op == ">=":
        return [[P.add(P.scale(d, -1), P.const(-1))]]
    if link_op == "==":
        return [[P.add(d, P.const(-1))], [P.add(P.scale(d, -1), P.const(-1))]]
    if link_op == "!=":
        return [[d, P.scale(d, -1)]]
    raise CertificateError(f"unknown comparison {link_op!r}")


def assertion_cases(link_op: str, d: Poly) -> list[list[Poly]]:
    """``d op 0`` itself as a disjunction of conjunctions of ``p >= 0``."""
    if link_op == ">=":
        return [[d]]
    if link_op == "==":
        return [[d, P.scale(d, -1)]]
    if link_op == "!=":
        return [[P.add(d, P.const(-1))], [P.add(P.scale(d, -1), P.const(-1))]]
    raise CertificateError(f"unknown comparison {link_op!r}")


def required_hypotheses(links: Sequence[Link], polarity: str) -> list[list[Poly]]:
    """Hypothesis sets to refute: to prove the conjunction of ``links``, every
    negated link; to refute it, every disjunct of the conjunction's DNF."""
    if polarity == "proved":
        out: list[list[Poly]] = []
        for op, d, _ in links:
            out.extend(negation_cases(op, d))
        return out
    if polarity != "refuted":
        raise CertificateError(f"unknown polarity {polarity!r}")
    dnf: list[list[Poly]] = [[]]
    for op, d, _ in links:
        dnf = [conj + alt for conj in dnf for alt in assertion_cases(op, d)]
    return dnf


# ---------------------------------------------------------------------------
# Checking


class _Checker:
    def __init__(self, scope: Any) -> None:
        self.scope = scope
        self.allowed: dict[frozenset[Any], set[str]] = {}
        for c in scope.constraints:
            self._allow(P.from_expr(c.diff), c.text)
            if c.op == "==":
                self._allow(P.scale(P.from_expr(c.diff), -1), c.text)
        self.implicit: dict[frozenset[Any], set[str]] = {}
        for e, reason in scope.implicit_facts:
            self.implicit.setdefault(P.hkey(P.from_expr(e)), set()).add(str(reason))
        self.done: set[int] = set()  # ids of verified context-free facts
        self.keep: list[Fact] = []  # keeps ids alive while checking

    def _allow(self, p: Poly, text: str) -> None:
        self.allowed.setdefault(P.hkey(p), set()).add(text)

    def fact(self, f: Fact, ctx: frozenset[int]) -> None:
        if not f.contextual and id(f) in self.done:
            return
        kind = f.kind
        if kind in AXIOM_KINDS:
            expect = axiom_poly(kind, f.atom)
        elif kind in ("fd_lb", "fd_ub"):
            for prem in f.premises:
                self.fact(prem, ctx)
            t = fd_bound(kind, f.atom, f.premises)
            m = P.atom_mono(f.atom)
            expect = {m: 1, P.ONE: -t} if kind == "fd_lb" else {m: -1, P.ONE: t}
            expect = {k: v for k, v in expect.items() if v}
        elif kind == "constraint":
            texts = self.allowed.get(P.hkey(f.poly))
            if not texts or f.note not in texts:
                raise CertificateError(
                    f"fact cites constraint {f.note!r}, which does not state "
                    f"{P.to_text(f.poly, self.scope)} >= 0")
            expect = f.poly
        elif kind == "implicit":
            texts = self.implicit.get(P.hkey(f.poly))
            if not texts or f.note not in texts:
                raise CertificateError(f"fact cites unknown implicit fact {f.note!r}")
            expect = f.poly
        elif kind in ("hyp", "case"):
            if id(f) not in ctx:
                raise CertificateError(f"{kind} fact used outside its scope")
            expect = f.poly
        elif kind == "fd_mono":
            low, high = f.atom
            if type(low) is not FloorDiv or type(high) is not FloorDiv or \
                    low.den != high.den or len(f.premises) != 1:
                raise CertificateError("monotonicity of floordiv needs two quotients "
                                       "by the same divisor")
            prem = f.premises[0]
            self.fact(prem, ctx)
            if prem.poly != P.add(P.from_expr(high.num), P.from_expr(low.num), -1):
                raise CertificateError("monotonicity of floordiv: the premise does not "
                                       "order the numerators")
            expect = {P.atom_mono(high): 1, P.atom_mono(low): -1}
        elif kind == "square":
            if not isinstance(f.atom, dict):
                raise CertificateError("a square needs its base polynomial")
            expect = P.mul(f.atom, f.atom)
        elif kind == "product":
            if len(f.premises) != 2:
                raise CertificateError("a product needs two premises")
            for p in f.premises:
                self.fact(p, ctx)
            expect = P.mul(f.premises[0].poly, f.premises[1].poly)
        elif kind == "combo":
            for p in f.premises:
                self.fact(p, ctx)
            expect = combo_poly(f.premises, f.mults, f.divisor)
        elif kind == "lemma":
            if f.proof is None:
                raise CertificateError("lemma without proof")
            negation = P.add(P.scale(f.poly, -1), P.const(-1))
            self.refutation(f.proof, [negation])
            expect = f.poly
        else:
            raise CertificateError(f"unknown fact kind {kind!r}")
        if expect != f.poly:
            raise CertificateError(
                f"{kind} fact claims {P.to_text(f.poly, self.scope)} >= 0 but its derivation "
                f"gives {P.to_text(expect, self.scope)} >= 0")
        if not f.contextual:
            self.done.add(id(f))
            self.keep.append(f)

    def tree(self, root: Node, ctx: frozenset[int]) -> None:
        stack: list[tuple[Node, frozenset[int]]] = [(root, ctx)]
        while stack:
            node, c = stack.pop()
            if isinstance(node, Leaf):
                if not node.items:
                    raise CertificateError("empty leaf")
                for k, f in node.items:
                    if not isinstance(k, int) or isinstance(k, bool) or k <= 0:
                        raise CertificateError(f"leaf multiplier {k!r} is not a positive int")
                    self.fact(f, c)
                total = node.total()
                if not P.is_constant(total) or P.constant(total) >= 0:
                    raise CertificateError(
                        "leaf does not sum to a negative constant: "
                        f"{P.to_text(total, self.scope)} >= 0")
            elif isinstance(node, Split):
                lc, rc = node.left_case, node.right_case
                want_l, want_r = split_cases(node.form, node.bound)
                if not isinstance(node.bound, int) or any(
                        not isinstance(v, int) for v in node.form.values()):
                    raise CertificateError("split on a non-integer form")
                if (lc.kind, rc.kind) != ("case", "case") or lc.poly != want_l.poly \
                        or rc.poly != want_r.poly:
                    raise CertificateError("split cases do not cover all integers")
                stack.append((node.left, c | {id(lc)}))
                stack.append((node.right, c | {id(rc)}))
            elif isinstance(node, MaxSplit):
                if type(node.atom) is not Max0:
                    raise CertificateError("max split on a non-max atom")
                lc, rc = node.left_case, node.right_case
                want_l, want_r = max_cases(node.atom)
                if (lc.kind, rc.kind) != ("case", "case") or lc.poly != want_l.poly \
                        or rc.poly != want_r.poly:
                    raise CertificateError("max split cases are not max(arg, 0) == 0 / == arg")
                stack.append((node.left, c | {id(lc)}))
                stack.append((node.right, c | {id(rc)}))
            else:
                raise CertificateError(f"unknown proof node {node!r}")

    def refutation(self, r: Refutation, want: Sequence[Poly]) -> None:
        got = collections.Counter(P.hkey(h.poly) for h in r.hyps)
        if got != collections.Counter(P.hkey(w) for w in want):
            raise CertificateError("refutation hypotheses do not match the claim")
        for h in r.hyps:
            if h.kind != "hyp":
                raise CertificateError("refutation hypothesis is not marked as such")
        self.tree(r.tree, frozenset(id(h) for h in r.hyps))


class Certificate:
    """A checkable proof of a claim (``polarity == "proved"``) or of its
    negation (``polarity == "refuted"``) in a scope.

    Attributes:
      claim: the claim as text.
      links: ``(op, d, text)`` triples meaning ``d op 0`` (``op`` in
        ``>= == !=``); the claim is their conjunction.
      polarity: ``"proved"`` or ``"refuted"``.
      refutations: one :class:`Refutation` per hypothesis set of
        :func:`required_hypotheses`, in that order.
    """

    def __init__(self, claim: str, links: Sequence[Link], polarity: str,
                 refutations: Sequence[Refutation], scope: Any) -> None:
        self.claim = claim
        self.links = tuple(links)
        self.polarity = polarity
        self.refutations = list(refutations)
        self.scope = scope

    def verify(self) -> None:
        """Re-verify with exact integer arithmetic; raise :class:`CertificateError`
        with the reason when the certificate is invalid."""
        want = required_hypotheses(self.links, self.polarity)
        if len(want) != len(self.refutations):
            raise CertificateError(
                f"{len(want)} hypothesis sets to refute, {len(self.refutations)} refutations")
        checker = _Checker(self.scope)
        for w, r in zip(want, self.refutations, strict=True):
            checker.refutation(r, w)

    def check(self) -> bool:
        """True if the certificate verifies (see :meth:`verify` for the reason
        when it does not)."""
        try:
            self.verify()
        except CertificateError:
            return False
        return True

    def facts_used(self) -> list[Fact]:
        """Every fact the certificate relies on (premises included), each once."""
        return facts_in([r.tree for r in self.refutations])

    def constraints_used(self) -> list[str]:
        """Texts of the explicit constraints the proof relies on, sorted."""
        return sorted({f.note for f in self.facts_used() if f.kind == "constraint"})

    def explain(self) -> str:
        """Render the proof for a person: facts, multipliers and cases."""
        return RENDERERS["certificate"](self)

    def __repr__(self) -> str:
        return f"<Certificate {self.polarity} {self.claim!r}: {len(self.refutations)} part(s)>"


def facts_in(trees: Iterable[Node]) -> list[Fact]:
    """Every fact used in ``trees`` (premises and lemma proofs included), each once."""
    seen: dict[int, Fact] = {}
    stack: list[Fact] = []
    nodes: list[Node] = list(trees)
    while nodes or stack:
        while nodes:
            n = nodes.pop()
            if isinstance(n, Leaf):
                stack.extend(f for _, f in n.items)
            else:
                nodes.extend((n.left, n.right))
        while stack:
            f = stack.pop()
            if id(f) in seen:
                continue
            seen[id(f)] = f
            stack.extend(f.premises)
            if f.proof is not None:
                nodes.append(f.proof.tree)
    return list(seen.values())


def iter_leaves(node: Node) -> Iterable[Leaf]:
    """All leaves of a tree (iteratively)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, Leaf):
            yield n
        else:
            stack.extend((n.right, n.left))


__all__ = [
    "AXIOM_KINDS", "KINDS", "Certificate", "CertificateError", "Fact", "Leaf", "Link",
    "MaxSplit", "Refutation", "Split", "assertion_cases", "axiom_poly", "combo_poly",
    "facts_in", "fd_bound", "iter_leaves", "make_axiom", "make_combo", "make_fd_bound",
    "make_product", "max_cases", "negation_cases", "required_hypotheses", "split_cases",
]
