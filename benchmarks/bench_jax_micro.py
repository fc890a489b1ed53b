"""JAX's six shape-polymorphism microbenchmarks, symshape side by side with JAX.

Run: ``python benchmarks/bench_jax_micro.py [--quick]``.  Prints the time per
iteration of each workload for JAX (when installed) and symshape, and the ratio
JAX/symshape (> 1 means symshape is faster).  The workloads are those of JAX's
``benchmarks/shape_poly_benchmark.py``, written once against each library.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _harness import compare, fmt_time, time_per_call  # noqa: E402

import symshape  # noqa: E402

PARSE_SPEC = "a, b, max(a, b), min(max(a, b), b), floordiv(a, 2), mod(b, floordiv(a, 2))"


def canonicalize_slice(s: slice, axis_size: Any, max_dim: Callable[..., Any],
                       min_dim: Callable[..., Any]) -> tuple[Any, Any, Any]:
    """The arithmetic of ``jax._src.core.canonicalize_slice`` for a positive step."""
    step = 1 if s.step is None else s.step

    def clamp(i: Any) -> Any:
        return min_dim(axis_size, i) if i >= 0 else max_dim(0, axis_size + i)

    start = 0 if s.start is None else clamp(s.start)
    stop = axis_size if s.stop is None else clamp(s.stop)
    return start, step, max_dim(0, stop - start + step - 1) // step


def workloads(lib: str) -> dict[str, Callable[[], object]]:
    """The six workloads for ``lib`` ("jax" or "symshape")."""
    if lib == "jax":
        from jax import export
        from jax._src import core as jcore
        symbolic_shape: Callable[..., Any] = export.symbolic_shape
        max_dim, min_dim = jcore.max_dim, jcore.min_dim

        def clear(e: Any) -> None:
            e.scope._clear_caches()

        def slice_fn(s: slice, size: Any) -> Any:
            return jcore.canonicalize_slice(s, size)
    else:
        symbolic_shape = symshape.symbolic_shape
        max_dim, min_dim = symshape.max_dim, symshape.min_dim

        def clear(e: Any) -> None:
            e.scope.clear_caches()

        def slice_fn(s: slice, size: Any) -> Any:
            return canonicalize_slice(s, size, max_dim, min_dim)

    a, b, c = symbolic_shape("a, b, c")

    def parse() -> None:
        symbolic_shape(PARSE_SPEC)

    def builder_arith() -> None:
        for _ in range(1000):
            e1 = a + b // a + c % a + 3
            e2 = b // a - a - c % a + 4
            _ = e1 + e2 + e1 * e2

    def builder_linear_arith() -> None:
        left = [a, 3 * a, a + 2 * b, a + 3 * b + 4 * c]
        right = [b, -1 * a, a - 2 * b, a - 3 * b - 4 * c]
        for l_ in left:
            for r in right:
                for lk in (1, 2, -2):
                    for rk in (1, 2, -2):
                        comb = l_ * lk + r * rk
                        if lib == "jax" and not isinstance(comb, int):
                            _ = comb._leading_term
                        elif not isinstance(comb, int):
                            _ = comb.leading_term

    def builder_min_max() -> None:
        for _ in range(100):
            clear(a)
            _ = max_dim(a, b) + min_dim(a, a + b)

    def load_constraints() -> None:
        symbolic_shape("a, b, c", constraints=["a >= c", "max(max(a, b), 2) >= max(a, b)"])

    def inequalities_slice() -> None:
        for _ in range(30):
            clear(a)
            start, _, size = slice_fn(slice(2, a, 4), b)
            _ = 0 <= size <= b
            _ = start >= 0
            _ = start + size <= b

    return {
        "parse": parse,
        "builder_arith": builder_arith,
        "builder_linear_arith": builder_linear_arith,
        "builder_min_max": builder_min_max,
        "load_constraints": load_constraints,
        "inequalities_slice": inequalities_slice,
    }


def main(argv: list[str] | None = None) -> dict[str, tuple[float | None, float]]:
    """Run the workloads and print a table; returns ``{name: (jax_s, symshape_s)}``."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="shorter timing batches")
    args = ap.parse_args(argv)
    min_time = 0.02 if args.quick else 0.1
    try:
        jax_w: dict[str, Callable[[], object]] | None = workloads("jax")
        import jax
        jax_version = jax.__version__
    except ImportError:
        jax_w, jax_version = None, "not installed"
    ours = workloads("symshape")
    print(f"symshape {symshape.__version__} vs jax {jax_version}, time per iteration\n"
          "(best of 7 interleaved rounds, garbage collector on)")
    print(f"{'workload':<22}{'jax':>12}{'symshape':>12}{'jax/symshape':>14}")
    results: dict[str, tuple[float | None, float]] = {}
    for name, fn in ours.items():
        if jax_w:
            times = compare({"jax": jax_w[name], "symshape": fn}, min_time=min_time)
            t_jax: float | None = times["jax"]
            t_ours = times["symshape"]
        else:
            t_jax, t_ours = None, time_per_call(fn, min_time=min_time)
        ratio = f"{t_jax / t_ours:.1f}x" if t_jax else "-"
        print(f"{name:<22}{fmt_time(t_jax) if t_jax else '-':>12}{fmt_time(t_ours):>12}"
              f"{ratio:>14}")
        results[name] = (t_jax, t_ours)
    return results


if __name__ == "__main__":
    main()
