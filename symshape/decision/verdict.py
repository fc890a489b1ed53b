"""The answer of :func:`symshape.prove`: a status with its evidence."""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping

from symshape.decision.certificate import Certificate
from symshape.util import int_to_digits


class Status(enum.StrEnum):
    """Outcome of a decision."""

    PROVED = "proved"
    """The claim holds for every valuation allowed by the scope."""
    REFUTED = "refuted"
    """The claim fails for every valuation allowed by the scope."""
    INCONCLUSIVE = "inconclusive"
    """It holds for some valuations and fails for others: both are shown
    (``witness`` and ``counterexample``)."""
    UNDECIDED = "undecided"
    """The search stopped before the claim was proved, refuted or shown to
    depend on the valuation: its work budget or time limit ran out, or its
    case analysis reached its depth (the verdict's ``reason`` says which, and
    :func:`undecided_advice` what may settle it).  Not evidence either way."""

    def __str__(self) -> str:
        return self.value


#: why a claim is undecided: the work budget ran out (a larger budget may help)
BUDGET_RAN_OUT = "the work budget ran out"
#: why a claim is undecided: the time limit ran out (a longer one may help)
TIME_RAN_OUT = "the time limit ran out"
#: why a claim is undecided: the search's case analysis reached its depth
#: (which grows with the budget)
TOO_DEEP = "the case analysis went deeper than the search goes"


def undecided_reason(why: str) -> str:
    """The reason of an undecided verdict, from what stopped the search (a
    budget, a time limit, the depth of its case analysis, or another cause)."""
    if "time limit" in why:
        return TIME_RAN_OUT
    if "budget" in why:
        return BUDGET_RAN_OUT
    if "depth" in why:
        return TOO_DEEP
    return why


def undecided_advice(reason: str, budget: str = "a larger budget",
                     time_limit: str = "a longer time limit") -> str:
    """What may settle an undecided claim, for its ``reason``: more budget only
    where the budget ran out; ``budget`` and ``time_limit`` name the knobs in
    the caller's terms (``--budget`` on the command line)."""
    if reason == BUDGET_RAN_OUT:
        return f"{budget} or a constraint may settle it."
    if reason == TIME_RAN_OUT:
        return f"{time_limit}, {budget} or a constraint may settle it."
    if reason == TOO_DEEP:
        return (f"{budget} (which also lets the case analysis go deeper), or a constraint "
                "that bounds the variables or decides one of the cases, may settle it.")
    return "a constraint may settle it."


def format_valuation(env: Mapping[str, int] | None) -> str:
    """``a = 3, b = 1`` (variables sorted by name)."""
    if not env:
        return "every valuation (no variables are involved)"
    return ", ".join(f"{k} = {int_to_digits(env[k])}" for k in sorted(env))


def _valuation_repr(env: Mapping[str, int] | None) -> str:
    """``repr(env)``, also with values of over 4300 digits (see int_to_digits)."""
    if env is None:
        return "None"
    return "{" + ", ".join(f"{k!r}: {int_to_digits(v)}" for k, v in env.items()) + "}"


Valuation = dict[str, int]
Evidence = tuple[Valuation | None, Valuation | None]  # (counterexample, witness)


class Lease:
    """Ownership of the private scope of a one-off query (see
    :func:`symshape.prove`), shared by the verdicts that answer it.

    When the last of them is freed, ``release()`` runs (the scope breaks its
    reference cycles: reference counting frees it at once, where the cycle
    collector would walk it again and again first), unless something built
    in that scope was handed out and may still be held (a certificate): the
    scope is then left to the cycle collector.
    """

    __slots__ = ("_release", "kept")

    def __init__(self, release: Callable[[], None]) -> None:
        self._release: Callable[[], None] | None = release
        self.kept = False

    def __del__(self) -> None:
        release, self._release = self._release, None
        if release is not None and not self.kept:
            release()


class Verdict:
    """The result of deciding a claim.

    Attributes:
      claim: the claim as text.
      status: a :class:`Status`.
      counterexample: for a refuted, inconclusive or undecided claim, the
        smallest valuation (variable name -> int; smallest largest value, then
        smallest sum, then in name order) that satisfies every constraint of
        the scope and falsifies the claim (``None`` if none was found within
        the budget).
      witness: for an inconclusive or undecided claim, the smallest valuation
        that satisfies every constraint and the claim (``None`` if none was
        found).
      certificate: for a proved claim, a :class:`Certificate` of the claim;
        for a refuted claim, a certificate that the claim is false everywhere.
        ``certificate.check()`` re-verifies it independently.
      reason: a short explanation of an inconclusive or undecided status.
      constraints: the scope's constraints, as written.
      suggestions: for an inconclusive or undecided claim, constraints (in
        symshape's syntax, weakest first) each of which, added to the scope,
        makes the claim proved; every one was checked by the prover.

    The valuations and the suggestions cost further searches, so they are
    computed when first read, not when the claim is decided.  A verdict is
    immutable.
    """

    __slots__ = ("claim", "status", "_certificate", "_certificate_fn", "reason", "constraints",
                 "_evidence", "_evidence_fn", "_suggestions", "_suggestions_fn", "_lease",
                 "__weakref__")

    claim: str
    status: Status
    _certificate: Certificate | None
    _certificate_fn: Callable[[], Certificate] | None
    reason: str
    constraints: tuple[str, ...]
    _evidence: Evidence | None
    _evidence_fn: Callable[[], Evidence] | None
    _suggestions: tuple[str, ...] | None
    _suggestions_fn: Callable[[], tuple[str, ...]] | None
    _lease: Lease | None

    def __init__(self, claim: str, status: Status, *,
                 counterexample: Valuation | None = None, witness: Valuation | None = None,
                 certificate: Certificate | None = None, reason: str = "",
                 constraints: tuple[str, ...] = (),
                 suggestions: tuple[str, ...] | None = None,
                 evidence: Callable[[], Evidence] | None = None,
                 certify: Callable[[], Certificate] | None = None,
                 suggest: Callable[[], tuple[str, ...]] | None = None,
                 lease: Lease | None = None) -> None:
        init = object.__setattr__
        init(self, "claim", claim)
        init(self, "status", status)
        init(self, "_certificate", certificate)
        init(self, "_certificate_fn", certify)
        init(self, "reason", reason)
        init(self, "constraints", tuple(constraints))
        init(self, "_evidence", None if evidence is not None else (counterexample, witness))
        init(self, "_evidence_fn", evidence)
        init(self, "_suggestions", suggestions if suggest is None else None)
        init(self, "_suggestions_fn", suggest)
        # Held, never read: the private scope lives while a verdict does.
        init(self, "_lease", lease)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a Verdict is immutable (cannot set {name!r})")

    def _get_evidence(self) -> Evidence:
        ev = self._evidence
        if ev is None:
            fn = self._evidence_fn
            assert fn is not None
            ev = fn()
            object.__setattr__(self, "_evidence", ev)
            object.__setattr__(self, "_evidence_fn", None)
        return ev

    @property
    def certificate(self) -> Certificate | None:
        """The certificate of a proved or refuted claim (see the class)."""
        cert = self._certificate
        if cert is None and self._certificate_fn is not None:
            if self._lease is not None:
                # The certificate's facts are built in the private scope and
                # may outlive every verdict: the scope is never released.
                self._lease.kept = True
            cert = self._certificate_fn()
            object.__setattr__(self, "_certificate", cert)
            object.__setattr__(self, "_certificate_fn", None)
        return cert

    @property
    def counterexample(self) -> Valuation | None:
        """The smallest valid valuation where the claim fails (see the class)."""
        cex = self._get_evidence()[0]
        return None if cex is None else dict(cex)

    @property
    def witness(self) -> Valuation | None:
        """The smallest valid valuation where the claim holds (see the class)."""
        wit = self._get_evidence()[1]
        return None if wit is None else dict(wit)

    @property
    def suggestions(self) -> tuple[str, ...]:
        """Constraints that would settle the claim, weakest first (see the class)."""
        sg = self._suggestions
        if sg is None:
            fn = self._suggestions_fn
            sg = fn() if fn is not None else ()
            object.__setattr__(self, "_suggestions", sg)
            object.__setattr__(self, "_suggestions_fn", None)
        return sg

    def with_suggestions(self, suggest: Callable[[], tuple[str, ...]]) -> Verdict:
        """The same verdict, with suggestions computed by ``suggest()`` when
        first read."""
        out = Verdict(self.claim, self.status, certificate=self._certificate,
                      certify=self._certificate_fn, reason=self.reason,
                      constraints=self.constraints, suggest=suggest, lease=self._lease)
        object.__setattr__(out, "_evidence", self._evidence)
        object.__setattr__(out, "_evidence_fn", self._evidence_fn)
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Verdict):
            return NotImplemented
        return (self.claim, self.status, self.reason, self.constraints,
                self.counterexample, self.witness) == \
            (other.claim, other.status, other.reason, other.constraints,
             other.counterexample, other.witness)

    __hash__ = None  # type: ignore[assignment]  # holds dicts, like the dataclass did

    def __repr__(self) -> str:
        return (f"Verdict(claim={self.claim!r}, status={self.status!r}, "
                f"counterexample={_valuation_repr(self.counterexample)}, "
                f"witness={_valuation_repr(self.witness)}, "
                f"reason={self.reason!r}, constraints={self.constraints!r})")

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
            lines.append(f"Status: {self.status.value}"
                         + (f" ({self.reason})." if self.reason else "."))
            if self.witness is not None:
                lines.append(f"It holds for {format_valuation(self.witness)}.")
            if self.counterexample is not None:
                lines.append(f"It fails for {format_valuation(self.counterexample)}.")
        return "\n".join(lines)

    def __str__(self) -> str:
        return f"{self.claim}: {self.status.value}"


__all__ = ["BUDGET_RAN_OUT", "TIME_RAN_OUT", "TOO_DEEP", "Lease", "Status", "Verdict",
           "format_valuation", "undecided_advice", "undecided_reason"]
