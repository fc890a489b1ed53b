"""Tiny timing harness shared by the benchmark scripts (not a test)."""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any


def build_label() -> str:
    """Which build of symshape runs: its compiled modules, or pure Python (timings
    differ between the two; see hatch_build.py)."""
    import symshape
    mods = symshape.compiled_modules()
    return f"compiled core: {', '.join(mods)}" if mods else "pure Python"


def time_per_call(fn: Callable[[], object], *, min_time: float = 0.2, repeat: int = 5) -> float:
    """Median seconds per call of ``fn`` over ``repeat`` batches of >= ``min_time`` each."""
    per_batch = _calibrate(fn, min_time)
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(per_batch):
            fn()
        samples.append((time.perf_counter() - t0) / per_batch)
    return statistics.median(samples)


def _calibrate(fn: Callable[[], object], min_time: float) -> int:
    """Calls per batch so that one batch lasts about ``min_time`` seconds."""
    fn()  # warm up (imports, lazy grammar, first-time caches)
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t0
        if dt >= min_time / 4:
            return max(1, int(n * (min_time / max(dt, 1e-9))))
        n *= 2


def compare(fns: dict[str, Callable[[], object]], *, min_time: float = 0.1,
            rounds: int = 7) -> dict[str, float]:
    """Seconds per call of each function, measured in interleaved rounds.

    Each round runs one batch of every function in turn, so a slow phase of
    the machine (another process, frequency scaling) hits every contender
    alike; each function's figure is its best round (the least disturbed).
    The garbage collector stays on during a batch (allocation patterns that
    make it work are part of the cost); each batch starts after a collection,
    so no contender pays for the garbage of another.
    """
    per_batch = {}
    for name, fn in fns.items():
        gc.collect()  # leftovers of the previous contender are not billed here
        per_batch[name] = _calibrate(fn, min_time)
    best = {name: float("inf") for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            n = per_batch[name]
            gc.collect()
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            best[name] = min(best[name], (time.perf_counter() - t0) / n)
    return best


def fmt_time(seconds: float) -> str:
    """Human-readable duration."""
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    if seconds >= 1e-6:
        return f"{seconds * 1e6:.1f} us"
    return f"{seconds * 1e9:.0f} ns"


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-quantile (0 <= q <= 1) of ``values``, nearest rank below."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[int(q * (len(ordered) - 1))]


def interleaved_best(fns: dict[str, Callable[[], object]], *, rounds: int = 5
                     ) -> dict[str, float]:
    """Seconds of one call of each function: the best of ``rounds`` rounds.

    For work too slow or too stateful to batch (one query, one scope): each
    round calls every function once, in an order rotated from round to round
    (no contender is always first after another's garbage).  No collection is
    forced between calls: a full collection costs far more than one call.
    """
    names = list(fns)
    best = {name: float("inf") for name in names}
    for r in range(rounds):
        k = r % len(names)
        for name in names[k:] + names[:k]:
            fn = fns[name]
            t0 = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - t0)
    return best


def ratio(slow: float | None, fast: float | None) -> str:
    """``slow / fast`` as ``"3.2x"`` (``"-"`` when either is missing)."""
    if not slow or not fast or slow != slow or fast != fast:
        return "-"
    return f"{slow / fast:.1f}x"


def compare_op(x: Any, y: Any, op: str) -> bool:
    """``x op y`` for ``op`` in ``>= > <= <`` (either library's dimensions)."""
    if op == ">=":
        return bool(x >= y)
    if op == ">":
        return bool(x > y)
    if op == "<=":
        return bool(x <= y)
    return bool(x < y)
