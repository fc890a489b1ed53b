"""Shape checks: symshape.ShapeCheck side by side with JAX's shape_poly solver.

Run: ``python benchmarks/bench_shapecheck.py [--quick]``.  The workload: 8 arguments of
rank 4 sharing 6 dimension variables (specs that JAX can solve too).

* ``build``: parse the specs and solve the dimension variables once -- JAX
  ``symbolic_shape`` + ``shape_poly.solve_dim_vars`` (its cache cleared), symshape
  ``ShapeCheck(specs)``.
* ``check N shapes``: match N concrete shape tuples (all valid) and compute the variables --
  JAX as ``Exported.call`` does it (``_call_exported_abstract_eval``: rank and constant
  checks, the cached ``solve_dim_vars``, ``ShapeConstraints.check_statically`` and the
  evaluation of the solution), symshape ``check.solve(shapes)``.
* ``emit checks``: produce StableHLO with the ``@shape_assertion`` calls -- JAX
  ``jax.jit(compute_dim_vars_from_arg_shapes).lower(...)`` on the symbolic avals,
  symshape ``ShapeCheck(specs).to_stablehlo()``.

Prints the times and the ratio JAX/symshape (> 1 means symshape is faster).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _harness import fmt_time, time_per_call  # noqa: E402

from symshape.shapecheck import ShapeCheck  # noqa: E402

SPECS = [
    "b, h, w, c",
    "b, 2*h, 2*w, c",
    "b, h + 1, w + 1, k",
    "k, c, 3, 3",
    "b, n, h, w",
    "n, k, 1, 1",
    "b, 2*h + 1, w, n",
    "b, h*w, c, k",
]
VARS = ("b", "c", "h", "k", "n", "w")


def make_shapes(count: int, seed: int = 0) -> list[list[tuple[int, ...]]]:
    """``count`` valid shape tuples for SPECS."""
    rng = random.Random(seed)
    out: list[list[tuple[int, ...]]] = []
    for _ in range(count):
        b, h, w, c, k, n = (rng.randint(1, 64) for _ in range(6))
        out.append([(b, h, w, c), (b, 2 * h, 2 * w, c), (b, h + 1, w + 1, k), (k, c, 3, 3),
                    (b, n, h, w), (n, k, 1, 1), (b, 2 * h + 1, w, n), (b, h * w, c, k)])
    return out


def symshape_workloads(shapes: list[list[tuple[int, ...]]]) -> dict[str, Callable[[], Any]]:
    check = ShapeCheck(SPECS)

    def check_all() -> None:
        solve = check.solve
        for s in shapes:
            solve(s)

    return {"build": lambda: ShapeCheck(SPECS), "check": check_all,
            "emit": lambda: ShapeCheck(SPECS).to_stablehlo()}


def jax_workloads(shapes: list[list[tuple[int, ...]]]) -> dict[str, Callable[[], Any]]:
    import jax
    import numpy as np
    from jax import export
    from jax._src import core, tree_util
    from jax._src.export import shape_poly

    def avals_and_tree() -> tuple[tuple[Any, ...], Any]:
        scope = export.SymbolicScope()
        avals = tuple(core.ShapedArray(export.symbolic_shape(s, scope=scope), np.float32)
                      for s in SPECS)
        tree = tree_util.tree_structure((tuple(range(len(avals))), {}))
        return avals, tree

    def build() -> Any:
        shape_poly.solve_dim_vars.cache_clear()
        avals, tree = avals_and_tree()
        return shape_poly.solve_dim_vars(avals, tree)

    avals, tree = avals_and_tree()
    dim_vars = shape_poly.all_dim_vars(avals)
    assert tuple(dim_vars) == VARS

    def check_one(actual: list[tuple[int, ...]]) -> list[int]:
        # The steps of jax._src.export._export._call_exported_abstract_eval.
        for arg_idx, (exp_aval, shape) in enumerate(zip(avals, actual, strict=True)):
            if len(exp_aval.shape) != len(shape):
                raise ValueError(f"Rank mismatch for args[{arg_idx}]")
            for d_exp, d in zip(exp_aval.shape, shape, strict=True):
                if core.is_constant_dim(d_exp) and d_exp != d:
                    raise ValueError(f"Shape mismatch for args[{arg_idx}]")
        solution, constraints, synth = shape_poly.solve_dim_vars(avals, tree)
        env = {name: actual[a][d] for (name, a, d) in synth}
        ev = shape_poly.ShapeEvaluator(env)
        constraints.check_statically(ev)
        return [ev.evaluate(solution[v]) for v in dim_vars]

    def check_all() -> None:
        for s in shapes:
            check_one(s)

    def emit() -> str:
        shape_poly.solve_dim_vars.cache_clear()
        avals, tree = avals_and_tree()

        def f(*xs: Any) -> Any:
            return shape_poly.compute_dim_vars_from_arg_shapes(avals, *xs,
                                                               args_kwargs_tree=tree)

        args = [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in avals]
        return jax.jit(f).lower(*args).as_text()

    # Both libraries must compute the same values.
    mine = ShapeCheck(SPECS)
    for s in shapes[:200]:
        got = mine.solve(s)
        assert [int(x) for x in check_one(s)] == [got[v] for v in VARS]
    return {"build": build, "check": check_all, "emit": emit}


def main(argv: list[str] | None = None) -> dict[str, tuple[float | None, float]]:
    """Run the workloads and print a table; returns ``{name: (jax_s, symshape_s)}``."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="1,000 shapes, shorter batches")
    args = ap.parse_args(argv)
    count = 1_000 if args.quick else 10_000
    min_time = 0.05 if args.quick else 0.3
    repeat = 3 if args.quick else 5
    shapes = make_shapes(count)
    ours = symshape_workloads(shapes)
    try:
        theirs: dict[str, Callable[[], Any]] | None = jax_workloads(shapes)
        import jax
        version = jax.__version__
    except ImportError:
        theirs, version = None, "not installed"
    check = ShapeCheck(SPECS)
    print(f"8 arguments of rank 4, 6 dimension variables; symshape: "
          f"{len(check.program.steps)} steps, {len(check.program.assertions)} assertions; "
          f"jax {version}")
    print(f"{'workload':<24}{'jax':>12}{'symshape':>12}{'jax/symshape':>14}")
    labels = {"build": "build", "check": f"check {count:,} shapes", "emit": "emit checks"}
    results: dict[str, tuple[float | None, float]] = {}
    for name, fn in ours.items():
        t_ours = time_per_call(fn, min_time=min_time, repeat=repeat)
        t_jax = time_per_call(theirs[name], min_time=min_time, repeat=repeat) \
            if theirs else None
        ratio = f"{t_jax / t_ours:.1f}x" if t_jax else "-"
        print(f"{labels[name]:<24}{fmt_time(t_jax) if t_jax else '-':>12}"
              f"{fmt_time(t_ours):>12}{ratio:>14}")
        results[name] = (t_jax, t_ours)
    t0 = time.perf_counter()
    solve = check.solve
    for s in shapes:
        solve(s)
    per = (time.perf_counter() - t0) / count
    print(f"symshape check: {fmt_time(per)} per shape tuple")
    return results


if __name__ == "__main__":
    main()
