"""Tiny timing harness shared by the benchmark scripts (not a test)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def time_per_call(fn: Callable[[], object], *, min_time: float = 0.2, repeat: int = 5) -> float:
    """Median seconds per call of ``fn`` over ``repeat`` batches of >= ``min_time`` each."""
    fn()  # warm up (imports, lazy grammar, first-time caches)
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t0
        if dt >= min_time / 4:
            break
        n *= 2
    per_batch = max(1, int(n * (min_time / max(dt, 1e-9))))
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(per_batch):
            fn()
        samples.append((time.perf_counter() - t0) / per_batch)
    return statistics.median(samples)


def fmt_time(seconds: float) -> str:
    """Human-readable duration."""
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    if seconds >= 1e-6:
        return f"{seconds * 1e6:.1f} us"
    return f"{seconds * 1e9:.0f} ns"
