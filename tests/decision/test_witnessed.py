"""The sign-witness tactic (``symshape.decision.tactics.witnessed``): an open
claim shown so by the scope's fixed valid valuations is decided without the
pool, and its answer and evidence are those the tactics after it give."""

from __future__ import annotations

import random

import pytest
from support.oracle import random_claim

import symshape
from symshape.decision.engine import Decider
from symshape.decision.tactics import Outcome, Query, Tactic, Witnessed
from symshape.decision.tactics.witnessed import MAX_FACTS


def _verdict(claim: str, constraints: list[str], witnesses: bool) -> symshape.Verdict:
    scope = symshape.SymbolicScope(constraints)
    decider = scope.decider()
    assert isinstance(decider, Decider)
    if not witnesses:
        decider.proof_tactics = tuple(t for t in decider.proof_tactics
                                      if not isinstance(t, Witnessed))
    return symshape.prove(claim, scope=scope)


class _Spy(Tactic):
    """A tactic that runs another and records whether it settled the claim
    (a compiled tactic's method cannot be patched)."""

    def __init__(self, inner: Tactic, settled: list[bool]) -> None:
        self.inner = inner
        self.name = inner.name
        self.settled = settled

    def run(self, q: Query) -> Outcome | None:
        out = self.inner.run(q)
        self.settled.append(out is not None)
        return out


def _settled_by_witnesses(claim: str, constraints: list[str]) -> bool:
    scope = symshape.SymbolicScope(constraints)
    decider = scope.decider()
    assert isinstance(decider, Decider)
    settled: list[bool] = []
    decider.proof_tactics = tuple(_Spy(t, settled) if isinstance(t, Witnessed) else t
                                  for t in decider.proof_tactics)
    symshape.prove(claim, scope=scope)
    return any(settled)


CASES = [
    ("a >= b", []),
    ("a >= 2*b + 11", ["a >= b + 8", "mod(a, 4) == 0"]),
    ("a*a*a - 7*a*a*b + b*b*b >= 0", ["a >= 9", "3 <= b <= 11", "a >= 12"]),
    ("floordiv(t + 2*p - k, s) + 1 >= 2", ["t >= k", "s >= 1", "p <= 3"]),
    ("max(h, w) - min(h, w) >= 3", ["h >= w", "max(h, w) <= 4096"]),
    ("b*s*h >= 128*b + 1", ["s >= 128", "h >= 1"]),
    ("mod(s + 7, 8) <= 3", ["s >= 16"]),
    ("x + y <= 2048", ["x <= 1024"]),
]


@pytest.mark.parametrize(("claim", "constraints"), CASES)
def test_a_witnessed_claim_has_the_answer_and_evidence_of_the_other_tactics(
        claim: str, constraints: list[str]) -> None:
    assert _settled_by_witnesses(claim, constraints)
    fast = _verdict(claim, constraints, witnesses=True)
    slow = _verdict(claim, constraints, witnesses=False)
    assert fast.status is slow.status is symshape.Status.INCONCLUSIVE
    assert fast.reason == slow.reason
    assert fast.counterexample == slow.counterexample
    assert fast.witness == slow.witness


def test_generated_claims_agree_with_and_without_the_witnesses() -> None:
    rng = random.Random(41)
    witnessed = 0
    for _ in range(150):
        c = random_claim(rng)
        try:
            fast = _verdict(c.text, list(c.constraints), witnesses=True)
        except symshape.SymshapeError:
            continue  # (unsatisfiable constraints, a possibly-zero divisor)
        slow = _verdict(c.text, list(c.constraints), witnesses=False)
        assert (fast.status, fast.counterexample, fast.witness) == \
            (slow.status, slow.counterexample, slow.witness), c
        witnessed += fast.status is symshape.Status.INCONCLUSIVE
    assert witnessed >= 20  # (the tactic was exercised)


def test_the_evidence_of_a_witnessed_claim_holds_and_fails() -> None:
    verdict = symshape.prove("a*a*a - 7*a*a*b + b*b*b >= 0",
                             constraints=["a >= 9", "3 <= b <= 11", "a >= 12"])
    assert verdict.status is symshape.Status.INCONCLUSIVE
    cex, wit = verdict.counterexample, verdict.witness
    assert cex is not None and wit is not None

    def value(env: dict[str, int]) -> int:
        a, b = env["a"], env["b"]
        return a ** 3 - 7 * a * a * b + b ** 3
    assert value(cex) < 0 <= value(wit)
    assert cex["a"] >= 12 and 3 <= cex["b"] <= 11 and wit["a"] >= 12 and 3 <= wit["b"] <= 11


def test_claims_over_many_variables_are_left_to_the_pool() -> None:
    """Past 8 variables the valuations the witnesses try would depend on
    the names (only 8 are moved), so the tactic stays out: whether it
    settles a claim must not change with a renaming."""
    names = [f"v{i}" for i in range(9)]
    claim = " + ".join(names[1:]) + f" >= {names[0]} + 4"
    assert not _settled_by_witnesses(claim, [])
    assert _settled_by_witnesses(" + ".join(names[1:8]) + f" >= {names[0]} + 4", [])
    verdict = symshape.prove(claim)
    assert verdict.status is symshape.Status.INCONCLUSIVE


@pytest.mark.parametrize("claim", ["a == b", "a >= b >= 1", "a != b + 1"])
def test_equalities_and_chains_are_left_to_the_pool(claim: str) -> None:
    assert not _settled_by_witnesses(claim, [])
    assert symshape.prove(claim).status is symshape.Status.INCONCLUSIVE


def test_scopes_of_many_facts_are_left_to_the_pool() -> None:
    """Past MAX_FACTS facts the witnesses are not tried (few fixed valuations
    satisfy so many facts, and each costs a pass over all of them)."""
    few = [f"x{i} <= {100 + i}" for i in range(MAX_FACTS)]
    assert symshape.SymbolicScope(few).sign_witnesses().fact_count() == MAX_FACTS
    assert _settled_by_witnesses("a >= b", few)
    many = few + ["y <= 7"]
    assert not _settled_by_witnesses("a >= b", many)
    assert symshape.prove("a >= b", constraints=many).status is symshape.Status.INCONCLUSIVE
