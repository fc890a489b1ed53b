"""Wall-clock bounds in tests that do not fail on a stalled run.

A bound on wall time guards against a quadratic or hanging path, but one run
can stall on a full collection of the heap the suite has built by then (CI once
took 1.05 s to parse a text that parses in 0.03 s).  These helpers pause the
collector while timing (symshape's own pause, which nests), and time the best of
several first-sight runs."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from symshape.collector import collector_paused


def best_seconds(runs: Iterable[Callable[[], object]]) -> float:
    """The fastest of `runs`, each timed once with the collector paused."""
    best = float("inf")
    with collector_paused():
        for run in runs:
            start = time.perf_counter()
            run()
            best = min(best, time.perf_counter() - start)
    return best
