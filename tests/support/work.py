"""A meter of the decision engine's work, in its own units (see the
``work_meter`` fixture in ``tests/conftest.py``, which installs it for one
test): limits in seconds flake on a loaded machine, work units do not."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any


@dataclass(repr=False)
class Span:
    """The budgets created while a :meth:`WorkMeter.measure` block ran."""

    budgets: list[Any] = field(default_factory=list)
    tableaus: list[Any] = field(default_factory=list)

    @property
    def searches(self) -> int:
        """Number of searches (each gets its own budget)."""
        return len(self.budgets)

    @property
    def work(self) -> int:
        """Work units spent by all searches together."""
        return sum(b.work for b in self.budgets)

    @property
    def nodes(self) -> int:
        """Search nodes spent by all searches together."""
        return sum(b.nodes for b in self.budgets)

    @property
    def exhausted(self) -> int:
        """Searches that ran out of their budget."""
        return sum(b.work > b.max_work or b.nodes > b.max_nodes for b in self.budgets)

    @property
    def largest_tableau(self) -> int:
        """Variables (columns and rows) of the largest simplex tableau set up."""
        return max((len(t.lo) for t in self.tableaus), default=0)

    @property
    def allowed(self) -> int:
        """Work units the budgets allowed, all searches together."""
        return sum(b.max_work for b in self.budgets)

    def __repr__(self) -> str:
        return (f"Span({self.searches} searches, {self.work} work units of {self.allowed} allowed, "
                f"{self.nodes} nodes, {self.exhausted} budgets exhausted, "
                f"largest tableau {self.largest_tableau})")


class WorkMeter:
    """Counts the engine's work inside :meth:`measure` blocks."""

    def __init__(self) -> None:
        self._open: list[Span] = []

    def record(self, budget: Any) -> None:
        for span in self._open:
            span.budgets.append(budget)

    def record_tableau(self, tableau: Any) -> None:
        for span in self._open:
            span.tableaus.append(tableau)

    @contextmanager
    def measure(self) -> Iterator[Span]:
        """The budgets created inside the block (nested blocks see theirs too)."""
        span = Span()
        self._open.append(span)
        try:
            yield span
        finally:
            self._open.remove(span)


__all__ = ["Span", "WorkMeter"]
