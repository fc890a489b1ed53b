"""A hypothesis property run once and shared by the tests of a module.

The property test re-raises the run's failure; a ratchet reads the run's
counts and fails (never skips) when the run failed: whatever the order or
selection of tests, each computes what it needs from the one run.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import pytest


@dataclass
class Run:
    """The counts of a property run, and the failure it raised (after
    hypothesis shrank it), if any."""

    counts: Counter[str]
    error: Exception | None

    def raise_failure(self) -> None:
        """For the property test: its failure, as hypothesis raised it."""
        if self.error is not None:
            raise self.error

    def require_success(self, property_test: str) -> Counter[str]:
        """For a ratchet: the counts of a run that succeeded."""
        if self.error is not None:
            pytest.fail(f"the property run failed (see {property_test}): {self.error!r}")
        return self.counts


def run_property(prop: Callable[[], None], counts: Counter[str]) -> Run:
    """Run the hypothesis-wrapped ``prop`` (which fills ``counts``) once."""
    try:
        prop()
    except Exception as err:  # noqa: BLE001 - re-raised by Run.raise_failure
        return Run(counts, err)
    return Run(counts, None)
