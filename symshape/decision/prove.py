"""``symshape.prove``: decide a claim and return the evidence."""

from __future__ import annotations

from collections.abc import Iterable

from symshape.decision.certificate import Link
from symshape.decision.poly import from_expr
from symshape.decision.verdict import Verdict
from symshape.errors import SymshapeError
from symshape.expr import DimExpr
from symshape.scope import SymbolicScope


def claim_links(text: str, scope: SymbolicScope) -> tuple[list[Link], list[str]]:
    """Parse a claim (comparison or chain) into links ``(op, d, text)`` meaning
    ``d op 0`` with ``op`` in ``>= == !=``, and the names of its variables."""
    from symshape.shapes import parse_comparison_in_scope
    links: list[Link] = []
    names: set[str] = set()
    for op, lhs, rhs in parse_comparison_in_scope(text, scope):
        for side in (lhs, rhs):
            if isinstance(side, DimExpr):
                names |= side.free_vars
        link_text = f"{lhs} {op} {rhs}"
        if op == ">=":
            links.append((">=", from_expr(lhs - rhs), link_text))
        elif op == ">":
            links.append((">=", from_expr(lhs - rhs - 1), link_text))
        elif op == "<=":
            links.append((">=", from_expr(rhs - lhs), link_text))
        elif op == "<":
            links.append((">=", from_expr(rhs - lhs - 1), link_text))
        elif op == "==":
            links.append(("==", from_expr(lhs - rhs), link_text))
        elif op == "!=":
            links.append(("!=", from_expr(lhs - rhs), link_text))
        else:  # pragma: no cover - the parser only produces the six operators
            raise SymshapeError(f"unknown comparison operator {op!r} in {text!r}")
    return links, sorted(names)


def prove(claim: str, *, constraints: Iterable[str] = (),
          scope: SymbolicScope | None = None) -> Verdict:
    """Decide ``claim`` for every valuation allowed by the constraints.

    Args:
      claim: a comparison such as ``"a + 2*b >= 32"`` (operators
        ``>= > <= < == !=``) or a chain such as ``"0 <= a <= b"`` (proved iff
        every link is proved).
      constraints: constraints of a new scope (exclusive with ``scope``).
      scope: an existing :class:`~symshape.SymbolicScope`.

    Returns:
      A :class:`~symshape.Verdict`: ``proved`` with a checkable certificate,
      ``refuted`` (false for every valuation) with a counterexample and a
      certificate, or ``inconclusive`` with a counterexample and a witness.

    Raises:
      ParseError: for a malformed claim or constraint.
      UnsatisfiableConstraintsError: if the constraints contradict each other.
    """
    from symshape.shapes import resolve_scope
    if not isinstance(claim, str):
        raise SymshapeError(f"prove() expects the claim as a string, got {claim!r}")
    sc = resolve_scope(constraints, scope)
    links, names = claim_links(claim, sc)
    decider = sc._decider()
    if decider is None:  # pragma: no cover - the engine is part of the package
        raise SymshapeError("the decision engine is unavailable")
    return decider.prove_links(links, " ".join(claim.split()), names)


__all__ = ["claim_links", "prove"]
