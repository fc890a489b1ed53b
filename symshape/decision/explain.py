"""Render certificates as text a person can follow.

The words for each kind of fact are its record's
(:mod:`symshape.decision.fact_kinds`); this module lays out a proof: its
cases, the lines of each contradiction, the labelled facts below."""

from __future__ import annotations

from typing import Any

from symshape.algebra.atoms import FloorDiv, Max0
from symshape.algebra.dimexpr import DimExpr
from symshape.decision import poly as P
from symshape.decision.certificate import Certificate, required_hypotheses
from symshape.decision.fact_kinds import kind_of
from symshape.decision.facts import RENDERERS, Fact, Leaf, MaxSplit, Node, Refutation, Split
from symshape.printing import dim_text as _num

_MAX_LINES = 400


class _Renderer:
    def __init__(self, scope: Any) -> None:
        self.scope = scope
        self.labels: dict[int, str] = {}
        self.order: list[Fact] = []
        self.lines: list[str] = []

    def text(self, p: P.Poly) -> str:
        return P.to_text(p, self.scope)

    def label(self, f: Fact) -> str:
        lab = self.labels.get(id(f))
        if lab is None:
            lab = self.labels[id(f)] = f"L{len(self.labels) + 1}"
            self.order.append(f)
        return lab

    def ref(self, f: Fact) -> str:
        """A short reference to a fact: its label, or the fact itself with its reason."""
        if kind_of(f).derived:
            return f"{self.label(f)} ({self.text(f.poly)} >= 0)"
        return f"({self.text(f.poly)} >= 0) [{self.reason(f)}]"

    def atom(self, a: Any) -> str:
        return self.text(P.mono(P.atom_mono(a)))

    def reason(self, f: Fact) -> str:
        """Why a fact used directly holds (its kind's wording)."""
        return kind_of(f).reason(self, f)

    def derivation(self, f: Fact) -> str:
        """How a labelled fact is derived (its kind's wording)."""
        return kind_of(f).derivation(self, f)

    def emit(self, indent: int, s: str) -> None:
        if len(self.lines) < _MAX_LINES:
            self.lines.append("  " * indent + s)
        elif len(self.lines) == _MAX_LINES:
            self.lines.append("  " * indent + "... (explanation truncated)")

    def tree(self, node: Node, indent: int) -> None:
        stack: list[tuple[Node | str, int]] = [(node, indent)]
        while stack:
            n, ind = stack.pop()
            if isinstance(n, str):
                self.emit(ind, n)
                continue
            if isinstance(n, Leaf):
                for i, (k, f) in enumerate(n.items):
                    self.emit(ind, ("  " if i == 0 else "+ ") + f"{_num(k)} x {self.ref(f)}")
                total = n.total()
                self.emit(ind, f"= {self.text(total)} >= 0, a contradiction.")
            elif isinstance(n, Split):
                form = self.text(n.form)
                stack.append((n.right, ind + 1))
                stack.append((f"Case {form} >= {_num(n.bound + 1)}:", ind))
                stack.append((n.left, ind + 1))
                stack.append((f"Case {form} <= {_num(n.bound)}:", ind))
            elif isinstance(n, MaxSplit):
                a = self.atom(n.atom)
                arg = self.text(P.from_expr(n.atom.arg))
                stack.append((n.right, ind + 1))
                stack.append((f"Case {a} == {arg} (so {arg} >= 0):", ind))
                stack.append((n.left, ind + 1))
                stack.append((f"Case {a} == 0 (so {arg} <= 0):", ind))

    def refutation(self, r: Refutation, indent: int, what: str) -> None:
        if r.hyps:
            hs = " and ".join(f"{self.text(h.poly)} >= 0" for h in r.hyps)
            self.emit(indent, f"Suppose {what}: {hs}. Then:")
        else:
            self.emit(indent, "The facts alone are contradictory:")
        self.tree(r.tree, indent + 1)

    def where(self, indent: int) -> None:
        i = 0
        while i < len(self.order):
            f = self.order[i]
            i += 1
            self.emit(indent, f"{self.labels[id(f)]}: {self.text(f.poly)} >= 0 is "
                              f"{self.derivation(f)}.")
            if f.kind == "lemma" and f.proof is not None:
                self.refutation(f.proof, indent + 1, f"{self.labels[id(f)]} fails")


def render_certificate(cert: Certificate) -> str:
    """The proof of ``cert`` as indented text."""
    r = _Renderer(cert.scope)
    want = required_hypotheses(cert.links, cert.polarity)
    if all(P.is_constant(d) for _, d, _ in cert.links):
        # Nothing symbolic is left: say why the sides reduce to constants, not
        # the trivial arithmetic of the certificate (which check() verifies).
        verdict = "holds" if cert.polarity == "proved" else "fails"
        r.emit(0, f"Proof {'of' if cert.polarity == 'proved' else 'that'} {cert.claim}"
                  f"{'' if cert.polarity == 'proved' else ' is false for every valid valuation'}:")
        for _, _, text in cert.links:
            r.emit(1, f"{text or cert.claim}: in canonical form the two sides differ by a "
                      f"constant, so it {verdict} for every valuation.")
        return "\n".join(r.lines)
    if cert.polarity == "proved":
        r.emit(0, f"Proof of {cert.claim} (each line is a fact 'p >= 0' with a multiplier; "
                  "the weighted sum is a negative constant, which is impossible):")
        what = "the claim fails"
    else:
        r.emit(0, f"Proof that {cert.claim} is false for every valid valuation:")
        what = "the claim holds"
    for i, ref in enumerate(cert.refutations):
        label = f"Part {i + 1} of {len(want)}. " if len(want) > 1 else ""
        if label:
            r.emit(1, label.strip())
        r.refutation(ref, 1, what)
    if r.order:
        r.emit(0, "where")
        r.where(1)
    return "\n".join(r.lines)


def fact_repr(f: Fact) -> str:
    """``Fact(a*b - 1 >= 0, from constraint 'a*b >= 1')``: the polynomial as the
    expression printer writes it, then where the fact comes from.  The
    renderer holds the one wording of each reason; derived facts get a
    summary instead of their labels ("see L3"), which mean nothing outside a
    rendered proof."""
    # Facts do not hold their scope; the printer needs it only for floordiv
    # and max atoms, and those carry it in their operands.
    operands: list[DimExpr | int] = []
    for a in P.atoms_of(f.poly):
        if isinstance(a, Max0):
            operands.append(a.arg)
        elif isinstance(a, FloorDiv):
            operands += (a.num, a.den)
    render = _Renderer(next((x.scope for x in operands if isinstance(x, DimExpr)), None))
    why = kind_of(f).summary(render, f)
    return f"Fact({render.text(f.poly)} >= 0, {why})"


RENDERERS.update(certificate=render_certificate, fact=fact_repr)

__all__ = ["fact_repr", "render_certificate"]
