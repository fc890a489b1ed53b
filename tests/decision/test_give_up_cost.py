"""Giving up is cheap (issue 31, point 3): the claims below are left open
(undecided by ``prove``, inconclusive for the comparison operators) and
used to spend the whole depth of a search walking one integer at a time
(a split of a form at ``v``, one case closed at once, the other split
again at ``v + 1``).  Their cost is pinned in work units (never the clock),
measured with the default budget, so that a change that makes giving up
expensive again fails here; a larger budget must still look further."""

from __future__ import annotations

import pytest
from support.work import WorkMeter

import symshape
from symshape.decision.engine import PROVE_BUDGET
from symshape.decision.lemmas import LEMMA_BUDGET
from symshape.decision.simplex import BASE_WALK, FIRST_STAGE, walk_limit
from symshape.decision.tactics import Witnessed

CHAIN = ["x0 >= x1 + 8", "x1 >= x2 + 2", "x2 >= x3 + 1", "x3 >= x4", "x4 >= x5 + 1",
         "x5 >= x6 + 1", "x6 >= x7", "x7 >= x8 + 1", "x8 >= x9 + 2", "x9 >= x10 + 1",
         "x10 >= x11 + 8", "x11 >= 16", "x0 <= 8192", "2*x0 >= x7 + x11", "2*x4 >= x11 + x11",
         "2*x4 >= x10 + x11", "2*x7 >= x8 + x11", "mod(x3, 2) == 0", "x6 + x9 <= 16384",
         "mod(x1, 8) == 0", "x7 + x9 <= 8192", "2*x2 >= x6 + x11"]

# (claim, constraints, work units at most with the default budget).  Measured
# (pure Python): 3,432 units for the chain (7,347 before the walks were
# stopped), 4,884 since every search first tries the scope's facts alone
# (engine.QUICK_SHARE); 2,193 for the product.
SLOW_GIVE_UPS = [
    ("x0 >= x7 + 14", CHAIN, 5_500),
    ("-c*h + 2*s - s*t - 6 <= 4*d - d*h",
     ["2*s + 1 <= 1025", "min(s, t) >= 2", "max(s, h) <= 4096", "max(t, h) <= 8192"], 3_000),
]


def test_a_former_give_up_is_proved_cheaply(work_meter: WorkMeter) -> None:
    """``b*h*floordiv(s, n) <= b*h*s`` walked to 15,477 units before giving
    up; the walk limit cut that to 5,143, and dividing the negated claim by
    ``b*h`` (a ``factor_quotient`` fact) now proves it."""
    with work_meter.measure() as span:
        verdict = symshape.prove("b*h*floordiv(s, n) <= b*h*s", constraints=["n >= 1"])
    assert verdict.status is symshape.Status.PROVED
    assert span.work <= 3_000, span


@pytest.mark.parametrize(("claim", "constraints", "most"), SLOW_GIVE_UPS)
def test_prove_gives_up_within_its_work(claim: str, constraints: list[str], most: int,
                                        work_meter: WorkMeter) -> None:
    with work_meter.measure() as span:
        verdict = symshape.prove(claim, constraints=constraints)
    assert verdict.status is symshape.Status.UNDECIDED
    assert span.work <= most, span


@pytest.mark.parametrize(("claim", "constraints", "most"), SLOW_GIVE_UPS)
def test_a_larger_budget_looks_further(claim: str, constraints: list[str], most: int,
                                       work_meter: WorkMeter) -> None:
    """The walk allowed grows with the budget: the search goes further (and
    the answer is never weaker, here still undecided)."""
    with work_meter.measure() as small:
        symshape.prove(claim, constraints=constraints)
    with work_meter.measure() as large:
        verdict = symshape.prove(claim, constraints=constraints, budget=4)
    assert verdict.status is symshape.Status.UNDECIDED
    assert large.nodes > small.nodes, (small, large)


def test_the_comparison_gives_up_within_its_work(work_meter: WorkMeter) -> None:
    """The operators' path (what JAX's tracer asks): inconclusive, cheaply."""
    x0, x7 = symshape.symbolic_shape("x0, x7", constraints=CHAIN)
    with work_meter.measure() as span, \
            pytest.raises(symshape.InconclusiveDimensionOperation):
        bool(x0 >= x7 + 14)
    assert span.work <= 4_500, span


def test_the_walk_limit_grows_with_the_budget() -> None:
    assert walk_limit(1) == BASE_WALK
    assert walk_limit(0.5) == BASE_WALK
    assert walk_limit(4) > walk_limit(2) > walk_limit(1)


def test_a_search_that_closes_no_case_stops_at_its_first_stage(work_meter: WorkMeter) -> None:
    """A comparison whose search closes no case split in the first quarter of
    its budget gives up there (``Budget.staged``): this cubic used to spend
    the whole comparison budget (30,025 units in its main search, 36,496 in
    all); measured now: 12,411 in all, the main search 7,757."""
    a, b = symshape.symbolic_shape("a, b", constraints=["a >= 9", "3 <= b <= 11", "a >= 12"])
    with work_meter.measure() as span, \
            pytest.raises(symshape.InconclusiveDimensionOperation):
        bool(a * a * a - 7 * a * a * b + b * b * b >= 0)
    assert span.work <= 14_000, span
    assert all(x.work <= x.max_work // FIRST_STAGE + 2_000 for x in span.budgets
               if x.max_work > LEMMA_BUDGET[0]), span


def test_a_search_that_progresses_gets_its_whole_budget(work_meter: WorkMeter) -> None:
    """Past its first stage, a search that has closed a case goes on: the
    cubic's proof search closes cases and spends more than a quarter of
    ``prove``'s budget before it finds the counterexample.  (The scope's sign
    witnesses show the cubic open before any search, at a = 12 and a = 2^40:
    the search is measured here with that tactic taken out.)"""
    scope = symshape.SymbolicScope(["a >= 9", "3 <= b <= 11", "a >= 12"])
    decider = scope.decider()
    assert decider is not None
    kept = tuple(t for t in decider.proof_tactics if not isinstance(t, Witnessed))
    assert len(kept) == len(decider.proof_tactics) - 1
    decider.proof_tactics = kept
    with work_meter.measure() as span:
        verdict = symshape.prove("a*a*a - 7*a*a*b + b*b*b >= 0", scope=scope)
    assert verdict.status is symshape.Status.INCONCLUSIVE
    assert max(x.work for x in span.budgets) > PROVE_BUDGET[0] // FIRST_STAGE, span
