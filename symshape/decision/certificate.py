"""Proof certificates: checkable on their own, readable by a person.

A certificate proves that some sets of hypotheses are contradictory together
with the facts of a scope.  Every fact is a polynomial ``p`` over the monomials
of canonical expressions with the meaning ``p >= 0``, together with the
derivation that justifies it (:mod:`symshape.decision.facts` holds the facts
and proof trees, :mod:`symshape.decision.fact_kinds` one record per kind of
fact: how it is made, checked and worded).  This module holds what a
certificate must refute (the hypothesis sets of a claim), the
:class:`Certificate` and its checker.

:meth:`Certificate.check` recomputes every fact from its derivation and every
sum with exact integer polynomial arithmetic; it never calls the search that
found the certificate.
"""

from __future__ import annotations

import collections
from collections.abc import Iterable, Sequence
from typing import Any

from symshape.algebra.atoms import Max0
from symshape.decision import poly as P
from symshape.decision.derivations import combo_poly, fd_bound
from symshape.decision.fact_kinds import (
    AXIOM_KINDS,
    KINDS,
    axiom_poly,
    kind_of,
    make_axiom,
    make_combo,
    make_fd_bound,
    make_fd_mono,
    make_product,
    make_square,
    max_cases,
    split_cases,
)
from symshape.decision.facts import (
    RENDERERS,
    CertificateError,
    Fact,
    Leaf,
    Link,
    MaxSplit,
    Node,
    Refutation,
    Split,
)
from symshape.decision.poly import Poly

# ---------------------------------------------------------------------------
# Goals: which hypothesis sets a certificate must refute

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
    """Checks facts and refutations in a scope; each kind of fact is checked
    by its record (:meth:`symshape.decision.fact_kinds.FactKind.check`)."""

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
        expect = kind_of(f).check(self, f, ctx)
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
    "AXIOM_KINDS", "KINDS", "RENDERERS", "Certificate", "CertificateError", "Fact", "Leaf",
    "Link", "MaxSplit", "Node", "Refutation", "Split", "assertion_cases", "axiom_poly",
    "combo_poly", "facts_in", "fd_bound", "iter_leaves", "make_axiom", "make_combo",
    "make_fd_bound", "make_fd_mono", "make_product", "make_square", "max_cases",
    "negation_cases", "required_hypotheses", "split_cases",
]
