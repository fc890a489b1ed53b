"""What every decision tactic shares: the :class:`Tactic` interface, the
:class:`Query` the tactics of one decision fill in, and its :class:`Outcome`.

A tactic looks at the query as the tactics before it left it (the valuations
found so far where the claim holds and where it fails, the reason a search
gave up) and either settles it, returning an :class:`Outcome`, or adds what
it found and returns None.  :func:`run_tactics` runs a list of them in order
(the lists are :class:`symshape.decision.engine.Decider`'s): a claim seen to
hold at one valid valuation and fail at another is inconclusive at once.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Sequence

from symshape._mypyc import mypyc_attr
from symshape.decision.certificate import Certificate
from symshape.decision.facts import Link
from symshape.decision.simplex import DEFAULT_LIMITS, Limits
from symshape.decision.valuations import Point
from symshape.decision.verdict import BUDGET_RAN_OUT, Status

#: The reason of an outcome the interval bounds settled.
BY_INTERVALS = "settled by interval bounds"
#: The reason of an inconclusive outcome.
DEPENDS = "it holds for some valuations and fails for others"
#: The statuses that leave the claim open.
OPEN = (Status.INCONCLUSIVE, Status.UNDECIDED)

#: Finds an outcome's valuations when first read: ``(holds, fails)``.
PointsFinder = Callable[[], "tuple[Point | None, Point | None]"]


class Outcome:
    """A decision: its status, the valuations found where the claim holds
    and where it fails, the certificate of a proof or refutation, and the
    reason a claim is left open.

    ``find_points``, where given, finds the valuations where the claim
    holds and where it fails (``(holds, fails)``, each None where not found)
    when :attr:`holds` or :attr:`fails` is first read: a decision that
    needed no valuation (the interval bounds refuted the claim, sign
    witnesses showed it open) builds the ones its evidence starts from only
    for a caller who asks for the evidence.  They fill in what was not
    given."""

    __slots__ = ("status", "_holds", "_fails", "_find_points", "cert", "reason")

    def __init__(self, status: Status, holds: Point | None, fails: Point | None,
                 cert: Certificate | None, reason: str,
                 find_points: PointsFinder | None = None) -> None:
        self.status = status
        self._holds = holds
        self._fails = fails
        self._find_points = find_points
        self.cert = cert
        self.reason = reason

    def _found(self) -> None:
        find = self._find_points
        if find is not None:
            # (two threads reading at once both find the same valuations)
            holds, fails = find()
            self._holds = self._holds or holds
            self._fails = self._fails or fails
            self._find_points = None

    @property
    def holds(self) -> Point | None:
        """A valid valuation where the claim holds (None if none was found)."""
        self._found()
        return self._holds

    @property
    def fails(self) -> Point | None:
        """A valid valuation where the claim fails (None if none was found)."""
        self._found()
        return self._fails


class Query:
    """The conjunction of ``links`` (``(op, d, text)``: ``d op 0``) being
    decided, what it may spend, and what the tactics found so far."""

    __slots__ = ("links", "claim", "budget", "limits", "holds", "fails", "reason")

    def __init__(self, links: Sequence[Link], claim: str, budget: tuple[int, int],
                 limits: Limits = DEFAULT_LIMITS) -> None:
        self.links = links
        self.claim = claim
        self.budget = budget
        self.limits = limits
        self.holds: Point | None = None  # a valid valuation where the claim holds
        self.fails: Point | None = None  # and one where it fails
        self.reason = ""  # why a search gave up

    def inconclusive(self) -> Outcome:
        """The outcome once both valuations are found."""
        return Outcome(Status.INCONCLUSIVE, self.holds, self.fails, None, DEPENDS)

    def undecided(self) -> Outcome:
        """The outcome when every tactic has run without settling the claim."""
        return Outcome(Status.UNDECIDED, self.holds, self.fails, None,
                       self.reason or BUDGET_RAN_OUT)


# (Tests and callers may define tactics of their own.)
@mypyc_attr(allow_interpreted_subclasses=True)
class Tactic(abc.ABC):
    """One step of a decision."""

    #: What the tactic does, in a few words.
    name: str = ""

    @abc.abstractmethod
    def run(self, q: Query) -> Outcome | None:
        """Settle ``q`` (an :class:`Outcome`), or record what was found in
        it and return None."""


def run_tactics(tactics: Sequence[Tactic], q: Query) -> Outcome:
    """Run ``tactics`` in order on ``q`` until one settles it, or both a
    valuation where it holds and one where it fails are known."""
    for tactic in tactics:
        out = tactic.run(q)
        if out is not None:
            return out
        if q.holds is not None and q.fails is not None:
            return q.inconclusive()
    return q.undecided()


__all__ = ["BY_INTERVALS", "DEPENDS", "OPEN", "Outcome", "PointsFinder", "Query", "Tactic",
           "run_tactics"]
