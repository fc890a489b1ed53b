"""The decider's words: what an inconclusive comparison's error message adds
(where the comparison holds and where it fails), and the error of
contradictory constraints."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from symshape.decision.certificate import facts_in
from symshape.decision.search import Refuted
from symshape.decision.verdict import format_valuation
from symshape.errors import UnsatisfiableConstraintsError


def inconclusive_text(witness: Mapping[str, int] | None, counterexample: Mapping[str, int] | None,
                      shown: Sequence[str], undecided: bool) -> str:
    """``"\\nIt holds for a = 3, b = 1 and fails for a = 1, b = 2."``: the
    values of the variables ``shown`` at a witness and a counterexample of a
    comparison, either of which may be missing."""
    parts = []
    if witness is not None:
        parts.append(f"holds for {format_valuation({n: witness[n] for n in shown})}")
    if counterexample is not None:
        parts.append(f"fails for {format_valuation({n: counterexample[n] for n in shown})}")
    if not parts:
        return "\nNo valuation was found where it holds or fails within the work budget."
    text = "\nIt " + " and ".join(parts) + "."
    if undecided:
        text += " (Undecided within the work budget.)"
    return text


def unsatisfiable(scope: Any, refuted: Refuted) -> UnsatisfiableConstraintsError:
    """The error for constraints that ``refuted`` shows contradictory, naming
    the constraints its proof uses (all of them if it names none)."""
    used = {f.note for f in facts_in([refuted.tree]) if f.kind == "constraint"}
    texts = [t for t in scope.constraint_texts if t in used] or \
        list(scope.constraint_texts)
    listed = ", ".join(repr(t) for t in texts)
    return UnsatisfiableConstraintsError(
        f"unsatisfiable constraints: {listed} cannot all hold "
        "(every dimension variable is an integer >= 1)")


__all__ = ["inconclusive_text", "unsatisfiable"]
