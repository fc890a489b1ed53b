"""Pausing Python's cyclic garbage collector for one bounded call.

A first-sight ``prove`` allocates a few thousand short-lived containers
(parse trees, term maps, facts, pool values) and frees nearly all of them by
reference counting when it returns; it leaves almost no cyclic garbage (a
scope that ``prove`` made for itself breaks its own cycles, see
``SymbolicScope.release``).  The cyclic collector cannot know that: it runs
whenever the count of live containers grows past its threshold, so inside such
a call it walks objects that are about to be freed anyway, and promotes the
ones alive at that moment to older generations, which brings on full
collections that walk the whole heap of the process (JAX's included).
``benchmarks/bench_coldpath.py`` measured a third of a first-sight ``prove``'s
time there.

:func:`collector_paused` keeps the collector off for the duration of such a
call, as ``timeit`` does for what it times.  The call itself is bounded by its
work budget; what it leaves behind is counted as usual and collected at the
next collection after it.  Nested and concurrent pauses (several threads)
keep the collector off until the last one ends, and only a collector that was
on when the first one began is turned back on.
"""

from __future__ import annotations

import gc
import threading
from types import TracebackType


class _CollectorPause:
    """The context manager :func:`collector_paused` returns (one per process:
    the collector's state is the process's)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._depth = 0
        self._restore = False  # was the collector on when the outermost pause began?

    def __enter__(self) -> None:
        with self._lock:
            if self._depth == 0:
                self._restore = gc.isenabled()
                if self._restore:
                    gc.disable()
            self._depth += 1

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        with self._lock:
            self._depth -= 1
            if self._depth == 0 and self._restore:
                self._restore = False
                gc.enable()


_PAUSE = _CollectorPause()


def collector_paused() -> _CollectorPause:
    """A context manager that keeps the cyclic garbage collector off while it
    is entered (see the module's docstring)."""
    return _PAUSE


__all__ = ["collector_paused"]
