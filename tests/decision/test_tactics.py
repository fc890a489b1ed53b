"""The decision tactics: their order, the interface they share, and which
tactic settles which kind of claim (``symshape.decision.tactics``)."""

from __future__ import annotations

import re

import pytest
from support.paths import ROOT

import symshape
from symshape.decision.engine import Decider
from symshape.decision.tactics import Outcome, Query, Tactic, run_tactics
from symshape.decision.valuations import Point
from symshape.decision.verdict import Status

PROOF_ORDER = ["intervals first", "intervals", "sign witnesses", "pool (first points)",
               "pool (other points)", "directed valuations", "proof", "refutation",
               "small valuations"]
COMPARISON_ORDER = ["pool", "directed valuations", "proof", "refutation"]


def decider(constraints: list[str]) -> Decider:
    d = symshape.SymbolicScope(constraints).decider()
    assert isinstance(d, Decider)
    return d


def test_the_order_of_the_tactics() -> None:
    d = decider([])
    assert [t.name for t in d.proof_tactics] == PROOF_ORDER
    assert [t.name for t in d.comparison_tactics] == COMPARISON_ORDER


def test_the_code_map_lists_the_tactics_in_their_order() -> None:
    """``docs/architecture.md`` ("How a claim is decided") names each tactic
    in bold, in the order prove runs them."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## How a claim is decided", 1)[1].split("\n## ", 1)[0]
    named = [m.lower() for m in re.findall(r"^\d+\. \*\*([^*]+)\*\*", section, re.M)]
    assert named[: len(PROOF_ORDER)] == PROOF_ORDER


class Recorded(Tactic):
    """A tactic that records that it ran, then does what ``act`` says."""

    def __init__(self, name: str, log: list[str], act: str = "") -> None:
        self.name = name
        self.log = log
        self.act = act

    def run(self, q: Query) -> Outcome | None:
        self.log.append(self.name)
        if self.act == "settle":
            return Outcome(Status.PROVED, None, None, None, "")
        if self.act == "holds":
            q.holds = Point({}, 0, None)
        if self.act == "fails":
            q.fails = Point({}, 0, None)
        return None


def test_the_first_tactic_that_settles_the_claim_ends_the_run() -> None:
    log: list[str] = []
    tactics = [Recorded("a", log), Recorded("b", log, "settle"), Recorded("c", log)]
    out = run_tactics(tactics, Query([], "", (1, 1)))
    assert out.status is Status.PROVED and log == ["a", "b"]


def test_both_valuations_make_the_claim_inconclusive_at_once() -> None:
    log: list[str] = []
    tactics = [Recorded("a", log, "holds"), Recorded("b", log, "fails"), Recorded("c", log)]
    out = run_tactics(tactics, Query([], "", (1, 1)))
    assert out.status is Status.INCONCLUSIVE and log == ["a", "b"]
    assert out.holds is not None and out.fails is not None


def test_no_tactic_settling_the_claim_leaves_it_undecided() -> None:
    log: list[str] = []
    q = Query([], "", (1, 1))
    q.reason = "undecided: the case analysis is too deep"
    out = run_tactics([Recorded("a", log, "holds")], q)
    assert out.status is Status.UNDECIDED and out.reason == q.reason and out.holds is not None


class Spy(Tactic):
    """Runs a real tactic, and records its name and whether it settled."""

    def __init__(self, inner: Tactic, log: list[tuple[str, bool]]) -> None:
        self.inner = inner
        self.name = inner.name
        self.log = log

    def run(self, q: Query) -> Outcome | None:
        out = self.inner.run(q)
        self.log.append((self.name, out is not None or (q.holds is not None and
                                                        q.fails is not None)))
        return out


@pytest.mark.parametrize(("claim", "constraints", "status", "settled_by"), [
    ("a >= b", [], Status.INCONCLUSIVE, "sign witnesses"),
    ("a >= 2*b + 11", ["a >= b + 8", "mod(a, 4) == 0"], Status.INCONCLUSIVE,
     "sign witnesses"),
    # (the witnesses settle no equality and no chain)
    ("a == b", [], Status.INCONCLUSIVE, "pool (first points)"),
    ("a <= 8", ["a >= b + 8", "mod(a, 4) == 0"], Status.REFUTED, "intervals"),
    ("a >= b + 11 >= 1", ["a >= b + 8", "mod(a, 4) == 0"], Status.INCONCLUSIVE,
     "pool (other points)"),
    ("a >= 9", ["a >= b + 8"], Status.PROVED, "intervals first"),
    ("a - 1 >= 0", [], Status.PROVED, "intervals first"),
    ("mod(a, 4) <= 3", [], Status.PROVED, "intervals first"),
    ("a + s >= 2*b + 3", ["b >= 16", "mod(s, 128) == 0", "a >= b + 8"],
     Status.INCONCLUSIVE, "directed valuations"),
    ("floordiv(n + t - 1, t) * t >= n", [], Status.PROVED, "proof"),
    ("a*b < a", [], Status.REFUTED, "refutation"),
])
def test_which_tactic_settles_a_claim(claim: str, constraints: list[str], status: Status,
                                      settled_by: str) -> None:
    scope = symshape.SymbolicScope(constraints)
    d = scope.decider()
    assert isinstance(d, Decider)
    log: list[tuple[str, bool]] = []
    d.proof_tactics = tuple(Spy(t, log) for t in d.proof_tactics)
    v = symshape.prove(claim, scope=scope)
    assert v.status is status
    assert log[-1] == (settled_by, True), log
    assert [name for name, _ in log] == PROOF_ORDER[: len(log)]
