"""``symshape.prove``: decide a claim and return the evidence."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial

from symshape.algebra.dimexpr import DimExpr, comparison_difference
from symshape.build import parse_comparison_in_scope
from symshape.collector import collector_paused
from symshape.decision.certificate import Link
from symshape.decision.poly import from_expr
from symshape.decision.simplex import Limits
from symshape.decision.suggest import with_suggestions
from symshape.decision.verdict import Lease, Status, Verdict
from symshape.errors import ArgumentError, LazyText, SymshapeError
from symshape.scope import SymbolicScope, resolve_scope


def claim_links(text: str, scope: SymbolicScope) -> tuple[list[Link], list[str]]:
    """Parse a claim (comparison or chain) into links ``(op, d, text)`` meaning
    ``d op 0`` with ``op`` in ``>= == !=``, and the names of its variables.

    A link's text is made when first read (only the explanation of a claim
    whose sides reduce to constants reads it): most proofs never print it."""
    links: list[Link] = []
    names: set[str] = set()
    parts = parse_comparison_in_scope(text, scope)
    for i, (op, lhs, rhs) in enumerate(parts):
        for side in (lhs, rhs):
            if isinstance(side, DimExpr):
                names |= side.free_vars
        kind, d = comparison_difference(op, lhs, rhs)
        link_text = LazyText(partial(_link_text, text, i, scope, op, lhs, rhs, isinstance(d, int)))
        links.append((kind, from_expr(d), link_text))
    return links, sorted(names)


def _link_text(text: str, index: int, scope: SymbolicScope, op: str, lhs: DimExpr | int,
               rhs: DimExpr | int, constant: bool) -> str:
    """``lhs op rhs`` in canonical form; for sides that differ by a constant
    (``constant``) while not both constants, why (see _same_form_reason)."""
    out = f"{lhs} {op} {rhs}"
    if constant and (isinstance(lhs, DimExpr) or isinstance(rhs, DimExpr)):
        out += _same_form_reason(text, index, scope)
    return out


def _same_form_reason(text: str, index: int, scope: SymbolicScope) -> str:
    """Which equality constraints made the two sides of link ``index`` of the
    claim ``text`` differ by a constant ("" when their canonical forms alone
    do): found by building the claim without the constraints."""
    _, lhs, rhs = parse_comparison_in_scope(text, SymbolicScope())[index]
    if isinstance(lhs - rhs, int):
        return ""
    used: set[str] = set()
    for side in (lhs, rhs):
        if isinstance(side, DimExpr):
            used |= side.free_vars
    cited = list(dict.fromkeys(
        c.text for c in scope.constraints
        if c.op == "==" and isinstance(c.diff, DimExpr) and c.diff.free_vars & used))
    if not cited:
        return ""
    return ("; rewritten with the constraint" + ("s " if len(cited) > 1 else " ")
            + ", ".join(repr(c) for c in cited))


def prove(claim: str, *, constraints: Iterable[str] = (),
          scope: SymbolicScope | None = None, budget: float = 1.0,
          time_limit: float | None = None,
          progress: Callable[[float, str], None] | None = None) -> Verdict:
    """Decide ``claim`` for every valuation allowed by the constraints.

    Args:
      claim: a comparison such as ``"a + 2*b >= 32"`` (operators
        ``>= > <= < == !=``) or a chain such as ``"0 <= a <= b"`` (proved iff
        every link is proved).
      constraints: constraints of a new scope (exclusive with ``scope``).
      scope: an existing :class:`~symshape.SymbolicScope`.
      budget: a scale of the default work budget (2.0 allows twice the
        work).  Within the same budget the answer is reproducible.
      time_limit: give up after this many seconds (the answer is then
        ``undecided``; it depends on the machine's speed).
      progress: ``progress(elapsed_seconds, what)``, called about every 0.2 s
        while the search runs (for a progress line).

    Returns:
      A :class:`~symshape.Verdict`: ``proved`` with a checkable certificate,
      ``refuted`` (false for every valuation) with a counterexample and a
      certificate, ``inconclusive`` (it holds for some valuations and fails
      for others) with a counterexample and a witness, or ``undecided`` when
      the work budget (or the time limit) ran out first.

    Raises:
      ParseError: for a malformed claim or constraint.
      UnsatisfiableConstraintsError: if the constraints contradict each other.
    """
    if not isinstance(claim, str):
        raise ArgumentError(f"prove() expects the claim as a string, got "
                            f"{type(claim).__name__} {claim!r:.80}")
    # The cyclic collector would walk this call's short-lived objects: see
    # symshape.collector.
    with collector_paused():
        return _prove(claim, constraints, scope, Limits(budget, time_limit, progress))


def _prove(claim: str, constraints: Iterable[str], scope: SymbolicScope | None,
           limits: Limits) -> Verdict:
    """:func:`prove` once its arguments are checked."""
    sc = resolve_scope(constraints, scope)
    links, names = claim_links(claim, sc)
    decider = sc.decider()
    if decider is None:  # pragma: no cover - the engine is part of the package
        raise SymshapeError("the decision engine is unavailable")
    # A scope made here is this call's alone: its verdicts own it, and the
    # last one freed releases it (see Lease).
    lease = Lease(sc.release) if scope is None else None
    try:
        verdict = decider.prove_links(links, " ".join(claim.split()), names, limits=limits,
                                      lease=lease)
    except BaseException:
        if lease is not None:
            lease.kept = True  # the traceback's frames may still reach the scope
        raise
    if verdict.status is Status.INCONCLUSIVE or verdict.status is Status.UNDECIDED:
        # Computed when first read (several proofs): see symshape.decision.suggest.
        # They keep to the time limit of this call.
        verdict = with_suggestions(verdict, _prove_again, limits.scale, limits.deadline)
    return verdict


def _prove_again(claim: str, *, constraints: Iterable[str] = (),
                 budget: float = 1.0, time_limit: float | None = None) -> Verdict:
    """:func:`prove` for the suggestions' candidate proofs (looked up at each
    call, so that what a test patches here is used)."""
    return prove(claim, constraints=constraints, budget=budget, time_limit=time_limit)


__all__ = ["claim_links", "prove"]
