"""Tiny timing harness shared by the benchmark scripts (not a test)."""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable


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
