"""A budget on every path (issue 31, point 4): each case that once ran for
seconds, or never returned, answers under a small budget (undecided is
fine), within work units: the decision engine's (``work_meter``) and, for
the nests, the pool's atom evaluations.  Nothing here measures seconds."""

from __future__ import annotations

from typing import Any

import pytest
from support.nests import alternating_nest
from support.work import WorkMeter

import symshape
from symshape import ShapeCheck, ShapeMismatchError
from symshape.decision import Status
from symshape.decision.engine import PROVE_BUDGET

SMALL = 0.05  # a twentieth of the default budget
ANSWERS = {Status.PROVED, Status.REFUTED, Status.INCONCLUSIVE, Status.UNDECIDED}


def _within_budget(span: Any, budget: float) -> None:
    """The searches of ``span`` stayed within what ``budget`` allows each."""
    cap = int(PROVE_BUDGET[0] * budget) + 1
    assert all(b.max_work <= cap for b in span.budgets), span
    assert span.work <= span.allowed + 2 * cap * max(span.searches, 1), span


@pytest.mark.parametrize("claim, constraints", [
    ("(v0 + v1 + v2 + v3)^12 >= v0^12", []),
    ("floordiv(t, p) + 2 <= floordiv(t + 2^47, p)", []),
    ("a^3 + b^3 + c^3 >= 3*a*b*c + 1", []),
])
def test_hard_claims_answer_and_explain_under_a_small_budget(
        work_meter: WorkMeter, claim: str, constraints: list[str]) -> None:
    with work_meter.measure() as span:
        v = symshape.prove(claim, constraints=constraints, budget=SMALL)
        assert v.status in ANSWERS
        assert v.explain()
    _within_budget(span, SMALL)


@pytest.mark.parametrize("depth", [300, 500])
def test_deep_alternating_nests_answer_and_explain(
        work_meter: WorkMeter, atom_evaluations: list[int], depth: int) -> None:
    with work_meter.measure() as span:
        claim = f"{alternating_nest(depth, False)} == {alternating_nest(depth, True)}"
        v = symshape.prove(claim, budget=SMALL)
        assert v.status in ANSWERS
        assert v.explain()
    _within_budget(span, SMALL)
    # linear in the depth: a few evaluations per level (it was about depth**2)
    assert atom_evaluations[0] <= 15 * depth, atom_evaluations[0]


@pytest.mark.parametrize("spec", ["a^999 + a", "(a^1000 + 1) * (a^1000 + 1)"])
def test_specs_of_high_degree_are_solved(work_meter: WorkMeter, spec: str) -> None:
    with work_meter.measure() as span:
        check = ShapeCheck([spec])
        # (sizes are int64 in the generated check: a = 1 is the only valid value here)
        size = symshape.symbolic_shape(spec)[0].evaluate({"a": 1})
        assert check.solve([(size,)]) == {"a": 1}
        with pytest.raises(ShapeMismatchError):
            check.solve([(size + 1,)])
    assert span.work <= PROVE_BUDGET[0], span  # solving needs no search to speak of


def test_three_thousand_repeated_dimensions_compile(work_meter: WorkMeter) -> None:
    with work_meter.measure() as span:
        check = ShapeCheck([", ".join(["a"] * 3000)])
        assert check.solve([(7,) * 3000]) == {"a": 7}
    assert span.work <= PROVE_BUDGET[0], span
