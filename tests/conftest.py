"""Shared fixtures: a meter of the decision engine's work (``support.work``).

Limits measured in seconds flake (a loaded machine, coverage, a slower CI
runner); the engine bounds its work with budgets counted in work units (row
updates in pivots and search nodes, see ``symshape.decision.simplex.Budget``),
so tests bound what a query may cost in those units.  The meter records every
budget the engine creates (one per search) and every simplex tableau (the size
of a search's problem: setting it up is work the budget does not count yet),
told by ``simplex.BUDGET_WATCHERS`` and ``TABLEAU_WATCHERS`` for the duration
of a test: the hot path (``spend``/``node``, pivots) is untouched.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from support.work import WorkMeter


@pytest.fixture
def work_meter() -> Iterator[WorkMeter]:
    """A :class:`WorkMeter` active for one test."""
    from symshape.decision import simplex  # here: a broken core fails only these tests

    meter = WorkMeter()
    simplex.BUDGET_WATCHERS.append(meter.record)
    simplex.TABLEAU_WATCHERS.append(meter.record_tableau)
    try:
        yield meter
    finally:
        simplex.BUDGET_WATCHERS.remove(meter.record)
        simplex.TABLEAU_WATCHERS.remove(meter.record_tableau)


@pytest.fixture
def atom_evaluations() -> Iterator[list[int]]:
    """Counts the valuation pool's evaluations of floordiv and max atoms for
    one test (a cost measured in evaluations, not seconds)."""
    from symshape.algebra.atoms import Var
    from symshape.decision import valuations

    count = [0]

    def counted(x: Any) -> None:
        if type(x) is not Var:
            count[0] += 1

    valuations.EVALUATION_WATCHERS.append(counted)
    try:
        yield count
    finally:
        valuations.EVALUATION_WATCHERS.remove(counted)
