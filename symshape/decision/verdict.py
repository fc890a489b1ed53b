"""The answer of :func:`symshape.prove`: a status with its evidence."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from symshape.decision.certificate import Certificate


class Status(enum.StrEnum):
    """Outcome of a decision."""

    PROVED = "proved"
    """The claim holds for every valuation allowed by the scope."""
    REFUTED = "refuted"
    """The claim fails for every valuation allowed by the scope."""
    INCONCLUSIVE = "inconclusive"
    """It holds for some valuations and fails for others, or it could not be
    decided within the work budget."""

    def __str__(self) -> str:
        return self.value


def format_valuation(env: dict[str, int] | None) -> str:
    """``a = 3, b = 1`` (variables sorted by name)."""
    if not env:
        return "every valuation (no variables are involved)"
    return ", ".join(f"{k} = {env[k]}" for k in sorted(env))


@dataclass(frozen=True)
class Verdict:
    """The result of deciding a claim.

    Attributes:
      claim: the claim as text.
      status: a :class:`Status`.
      counterexample: for a refuted or inconclusive claim, a valuation (variable
        name -> int) that satisfies every constraint of the scope and falsifies
        the claim (``None`` if none was found within the budget).
      witness: for an inconclusive claim, a valuation that satisfies every
        constraint and the claim (``None`` if none was found).
      certificate: for a proved claim, a :class:`Certificate` of the claim;
        for a refuted claim, a certificate that the claim is false everywhere.
        ``certificate.check()`` re-verifies it independently.
      reason: a short explanation of an inconclusive status.
      constraints: the scope's constraints, as written.
    """

    claim: str
    status: Status
    counterexample: dict[str, int] | None = None
    witness: dict[str, int] | None = None
    certificate: Certificate | None = None
    reason: str = ""
    constraints: tuple[str, ...] = field(default=())

    def __bool__(self) -> bool:
        return self.status is Status.PROVED

    @property
    def proved(self) -> bool:
        """True if the claim was proved."""
        return self.status is Status.PROVED

    @property
    def refuted(self) -> bool:
        """True if the claim was refuted."""
        return self.status is Status.REFUTED

    def explain(self) -> str:
        """A readable account: the proof (facts, multipliers, cases), or the
        valuations that show why the claim is not proved."""
        head = f"Claim: {self.claim}"
        cons = ("Constraints: " + "; ".join(self.constraints)) if self.constraints else \
            "Constraints: none"
        lines = [head, cons + " (every variable is an integer >= 1)"]
        if self.status is Status.PROVED:
            assert self.certificate is not None
            lines.append("Status: proved.")
            lines.append(self.certificate.explain())
        elif self.status is Status.REFUTED:
            lines.append("Status: refuted (the claim is false for every valid valuation).")
            if self.counterexample:
                lines.append(f"For example it fails for {format_valuation(self.counterexample)}.")
            elif self.counterexample is not None:
                lines.append("It involves no variables: it is simply false.")
            if self.certificate is not None:
                lines.append(self.certificate.explain())
        else:
            lines.append("Status: inconclusive" + (f" ({self.reason})." if self.reason else "."))
            if self.witness is not None:
                lines.append(f"It holds for {format_valuation(self.witness)}.")
            if self.counterexample is not None:
                lines.append(f"It fails for {format_valuation(self.counterexample)}.")
        return "\n".join(lines)

    def __str__(self) -> str:
        return f"{self.claim}: {self.status.value}"


__all__ = ["Status", "Verdict", "format_valuation"]
