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

import pytest
from support.nests import alternating_nest

import symshape


@pytest.mark.parametrize("depth", [60, 240])
def test_alternating_nest_costs_linear_pool_work(depth: int, atom_evaluations: list[int]) -> None:
    v = symshape.prove(f"{alternating_nest(depth, False)} == {alternating_nest(depth, True)}")
    assert v.proved
    assert "a0" in v.explain()
    # measured: about 5 evaluations per level for the proof and as many for
    # the explanation; it was about depth**2 (56,882 at depth 240 for the proof)
    assert atom_evaluations[0] <= 15 * depth, atom_evaluations[0]


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
