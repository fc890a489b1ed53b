"""Deep nests of max/min: the valuation pool evaluates each atom once per
colouring of its variables, not once per question.

Building ``max(min(max(...)))`` asks the decision procedure about every
level (is one argument above the other?), and every such question is about
the whole nest below it.  Each question's pool used to evaluate the whole
nest again: quadratic in the depth (a 500-deep equality took seconds to
prove and as long again to explain).  Cost is counted in atom evaluations,
not seconds.
"""

from __future__ import annotations

from typing import Any

import pytest

import symshape
from symshape.algebra.atoms import Var
from symshape.decision import valuations


def _nest(depth: int, swapped: bool) -> str:
    e = "a0"
    for i in range(1, depth):
        op = "max" if i % 2 else "min"
        e = f"{op}(a{i}, {e})" if swapped else f"{op}({e}, a{i})"
    return e


@pytest.fixture
def evaluations(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the pool's evaluations of floordiv and max atoms."""
    count = [0]
    compute = valuations.Pool._compute

    def counted(self: Any, x: Any) -> list[int]:
        if type(x) is not Var:
            count[0] += 1
        return compute(self, x)

    monkeypatch.setattr(valuations.Pool, "_compute", counted)
    return count


@pytest.mark.parametrize("depth", [60, 240])
def test_alternating_nest_costs_linear_pool_work(depth: int, evaluations: list[int]) -> None:
    v = symshape.prove(f"{_nest(depth, False)} == {_nest(depth, True)}")
    assert v.proved
    assert "a0" in v.explain()
    # measured: about 5 evaluations per level for the proof and as many for
    # the explanation; it was about depth**2 (56,882 at depth 240 for the proof)
    assert evaluations[0] <= 15 * depth, evaluations[0]


def test_a_variable_coloured_anew_is_evaluated_anew() -> None:
    # The values kept for an atom are reused only where its variables have
    # the names and colours they had: the pool still finds both signs here.
    a, b, c = symshape.symbolic_shape("a, b, c")
    m = symshape.max_dim(a, b)
    with pytest.raises(symshape.InconclusiveDimensionOperation):
        bool(m >= c)
    with pytest.raises(symshape.InconclusiveDimensionOperation):
        bool(m + b >= 2 * c)
    assert symshape.max_dim(a, b) + symshape.min_dim(a, b) == a + b
