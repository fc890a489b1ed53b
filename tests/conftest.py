"""Shared fixtures: a meter of the decision engine's work (``support.work``).

Limits measured in seconds flake (a loaded machine, coverage, a slower CI
runner); the engine bounds its work with budgets counted in work units (row
updates in pivots and search nodes, see ``symshape.decision.simplex.Budget``),
so tests bound what a query may cost in those units.  The meter records every
budget the engine creates (one per search) and every simplex tableau (the size
of a search's problem: setting it up is work the budget does not count yet) by
wrapping ``Budget.__init__`` and ``Simplex.__init__`` for the duration of a
test: the hot path (``spend``/``node``, pivots) is untouched.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.work import WorkMeter


@pytest.fixture
def work_meter(monkeypatch: pytest.MonkeyPatch) -> WorkMeter:
    """A :class:`WorkMeter` active for one test."""
    from symshape.decision import simplex  # here: a broken core fails only these tests

    meter = WorkMeter()
    budget_init = simplex.Budget.__init__
    simplex_init = simplex.Simplex.__init__

    def init_budget(self: Any, *args: Any, **kwargs: Any) -> None:
        budget_init(self, *args, **kwargs)
        meter.record(self)

    def init_simplex(self: Any, *args: Any, **kwargs: Any) -> None:
        simplex_init(self, *args, **kwargs)
        meter.record_tableau(self)

    monkeypatch.setattr(simplex.Budget, "__init__", init_budget)
    monkeypatch.setattr(simplex.Simplex, "__init__", init_simplex)
    return meter


@pytest.fixture
def atom_evaluations(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the valuation pool's evaluations of floordiv and max atoms for
    one test (a cost measured in evaluations, not seconds)."""
    from symshape.algebra.atoms import Var
    from symshape.decision import valuations

    count = [0]
    compute = valuations.Pool._compute

    def counted(self: Any, x: Any) -> list[int]:
        if type(x) is not Var:
            count[0] += 1
        return compute(self, x)

    monkeypatch.setattr(valuations.Pool, "_compute", counted)
    return count
