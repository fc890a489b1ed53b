"""Facts and proof trees, the data of a certificate.

A :class:`Fact` is a polynomial ``p`` over the monomials of canonical
expressions, meaning ``p >= 0``, with the derivation that justifies it; its
``kind`` names one record of :mod:`symshape.decision.fact_kinds`, which says
how a fact of that kind is made, checked and worded.  A refutation is a tree:
a :class:`Split` covers every integer value of a polynomial ``t`` by the cases
``t <= c`` and ``t >= c + 1``; a :class:`MaxSplit` covers ``max(arg, 0)`` by
the cases ``max(arg, 0) <= 0`` and ``max(arg, 0) <= arg``; a :class:`Leaf`
lists positive integer multipliers of facts whose weighted sum is a negative
constant, which is impossible.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from symshape.algebra.atoms import Max0
from symshape.decision import poly as P
from symshape.decision.poly import Poly
from symshape.errors import LazyText, SymshapeError

# How facts and certificates are shown: :mod:`symshape.decision.explain`, which
# builds on this module, installs its renderers here when it is imported (the
# decision package imports it), so that this module never imports it back.
RENDERERS: dict[str, Callable[[Any], str]] = {}


class CertificateError(SymshapeError):
    """A certificate does not verify (tampered with, or not for this claim)."""


class Fact:
    """``poly >= 0``, with its derivation.

    Build facts with the helper functions of :mod:`symshape.decision.fact_kinds`;
    treat them as immutable (``poly`` is never mutated after construction).
    """

    __slots__ = ("poly", "kind", "atom", "premises", "mults", "divisor", "note", "proof",
                 "_key", "contextual")

    def __init__(self, poly: Poly, kind: str, *, atom: Any = None,
                 premises: Sequence[Fact] = (), mults: Sequence[int] = (), divisor: int = 1,
                 note: str = "", proof: Refutation | None = None) -> None:
        self.poly = poly
        self.kind = kind
        self.atom = atom
        self.premises = prem = tuple(premises)
        self.mults = tuple(mults)
        self.divisor = divisor
        self.note = note
        self.proof = proof
        self._key: tuple[Any, ...] | None = None
        # Depends on a hypothesis or case assumption (valid only in its context)?
        # (most facts have no premises: no generator for them)
        self.contextual: bool = kind in ("hyp", "case") or bool(prem) and any(
            p.contextual for p in prem)

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


class Refutation:
    """A proof that ``hyps`` contradict the facts of the scope."""

    __slots__ = ("hyps", "tree")

    def __init__(self, hyps: Sequence[Fact], tree: Node) -> None:
        self.hyps = tuple(hyps)
        self.tree = tree


# (op in ">=", "==", "!=", d, text): "d op 0"; the text may be made when first read
Link = tuple[str, Poly, str | LazyText]


__all__ = ["RENDERERS", "CertificateError", "Fact", "Leaf", "Link", "MaxSplit", "Node",
           "Refutation", "Split"]
