"""JAX's six shape-polymorphism microbenchmarks, symshape side by side with JAX.

Run: ``python benchmarks/bench_jax_micro.py [--quick]``.  Prints the time per
iteration of each workload for JAX (when installed) and symshape, and the ratio
JAX/symshape (> 1 means symshape is faster).  The workloads are those of JAX's
``benchmarks/shape_poly_benchmark.py``, written once against each library.

Two variants are measured side by side:

* *cleared*: JAX's own set-up, one scope for the whole run whose caches are
  cleared where JAX's benchmark clears them;
* *fresh*: a new scope (``symbolic_shape("a, b, c")``) wherever the first
  variant clears the caches (every inner iteration of ``builder_min_max`` and
  ``inequalities_slice``) and at the start of every call of the workloads
  that never clear them (``builder_arith``, ``builder_linear_arith``), as real
  tracing makes a fresh scope per export.  ``parse`` and
  ``load_constraints`` build a fresh scope in both variants.  Scopes that are
  only freed by the garbage collector show up here.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _harness import build_label, compare, fmt_time, time_per_call  # noqa: E402

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


def workloads(lib: str, fresh: bool = False) -> dict[str, Callable[[], object]]:
    """The six workloads for ``lib`` ("jax" or "symshape"); ``fresh``: a new
    scope where the caches would be cleared (see the module's docstring)."""
    if lib == "jax":
        from jax import export
        from jax._src import core as jcore
        symbolic_shape: Callable[..., Any] = export.symbolic_shape
        max_dim: Callable[..., Any] = jcore.max_dim
        min_dim: Callable[..., Any] = jcore.min_dim

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

    abc = symbolic_shape("a, b, c")

    def parse() -> None:
        symbolic_shape(PARSE_SPEC)

    def builder_arith() -> None:
        a, b, c = symbolic_shape("a, b, c") if fresh else abc
        for _ in range(1000):
            e1 = a + b // a + c % a + 3
            e2 = b // a - a - c % a + 4
            _ = e1 + e2 + e1 * e2

    def builder_linear_arith() -> None:
        a, b, c = symbolic_shape("a, b, c") if fresh else abc
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
        a, b, _c = abc
        for _ in range(100):
            if fresh:
                a, b, _c = symbolic_shape("a, b, c")
            else:
                clear(a)
            _ = max_dim(a, b) + min_dim(a, a + b)

    def load_constraints() -> None:
        symbolic_shape("a, b, c", constraints=["a >= c", "max(max(a, b), 2) >= max(a, b)"])

    def inequalities_slice() -> None:
        a, b, _c = abc
        for _ in range(30):
            if fresh:
                a, b, _c = symbolic_shape("a, b, c")
            else:
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
    """Run the workloads in both variants and print a table; returns
    ``{name: (jax_s, symshape_s)}`` of the cleared variant and
    ``{name + ":fresh": ...}`` of the fresh-scope variant."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="shorter timing batches")
    args = ap.parse_args(argv)
    min_time = 0.02 if args.quick else 0.1
    try:
        jax_w: dict[str, Callable[[], object]] | None = workloads("jax")
        jax_f: dict[str, Callable[[], object]] | None = workloads("jax", fresh=True)
        import jax
        jax_version = jax.__version__
    except ImportError:
        jax_w, jax_f, jax_version = None, None, "not installed"
    ours = workloads("symshape")
    ours_f = workloads("symshape", fresh=True)
    print(f"symshape {symshape.__version__} ({build_label()}) vs jax {jax_version}, "
          "time per iteration\n"
          "(best of 7 interleaved rounds, garbage collector on); cleared: one scope, caches\n"
          "cleared as in JAX's benchmark; fresh: a new scope per iteration (see --help)")
    print(f"{'workload':<22}{'jax':>11}{'symshape':>11}{'cleared':>9}"
          f"{'jax':>11}{'symshape':>11}{'fresh':>9}")
    results: dict[str, tuple[float | None, float]] = {}
    for name, fn in ours.items():
        row = f"{name:<22}"
        for key, jw, mine in ((name, jax_w, fn), (name + ":fresh", jax_f, ours_f[name])):
            if jw:
                times = compare({"jax": jw[name], "symshape": mine}, min_time=min_time)
                t_jax: float | None = times["jax"]
                t_ours = times["symshape"]
            else:
                t_jax, t_ours = None, time_per_call(mine, min_time=min_time)
            ratio = f"{t_jax / t_ours:.1f}x" if t_jax else "-"
            row += f"{fmt_time(t_jax) if t_jax else '-':>11}{fmt_time(t_ours):>11}{ratio:>9}"
            results[key] = (t_jax, t_ours)
        print(row, flush=True)
    if jax_w:
        for variant, suffix in (("cleared", ""), ("fresh", ":fresh")):
            rs = [j / s for k, (j, s) in results.items() if k.endswith(suffix) and j
                  and (suffix or ":" not in k)]
            print(f"{variant}: JAX / symshape {min(rs):.1f}x-{max(rs):.1f}x "
                  f"(target of issue 10: >= 5x on all six)")
    return results

if __name__ == "__main__":
    main()
