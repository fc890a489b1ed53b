"""The decision procedure, side by side with JAX's, on generated claims.

Run: ``python benchmarks/bench_decision.py [--quick] [--n N] [--seed S]``.

Each claim (``lhs op rhs`` under a few constraints, drawn by the same
generator as the soundness tests, ``tests/oracle.py``) is built in a fresh
scope of each library with the operator API, then decided with ``>=``-style
comparisons: ``x >= y`` (and ``> <= <``) directly; ``x == y`` as
``x >= y and x <= y`` (refuted if either is refuted); ``x != y`` as
``x > y or x < y`` (refuted if ``x >= y and x <= y``).  An undecided
comparison raises ``InconclusiveDimensionOperation`` in both libraries.  (JAX's
own ``==`` answers ``False`` whenever the canonical forms differ, which is not
a decision, so it is not used.)

Ground truth comes from brute force over small valuations and z3 (Python floor
semantics written out): *valid* (holds everywhere), *unsat* (fails everywhere),
*contingent*.  A wrong answer is a proof of a claim that is not valid, or a
refutation of a claim that is not unsat.

Times are per claim: the first decision in a fresh scope (building the
expressions is not timed), and the median of repeats of the same decision
(cached).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from oracle import (  # noqa: E402
    Claim,
    Z3Oracle,
    brute_force,
    build,
    links_of,
    random_claim,
    symshape_ops,
)

import symshape  # noqa: E402

Decide = Callable[[], str]  # "proved" / "refuted" / "inconclusive"


def _decision(cmp: Callable[[Any, Any, str], bool], inconclusive: type[BaseException],
              x: Any, op: str, y: Any) -> str:
    def ge(u: Any, v: Any, o: str) -> bool | None:
        try:
            return cmp(u, v, o)
        except inconclusive:
            return None

    if op in (">=", ">", "<=", "<"):
        r = ge(x, y, op)
        return "inconclusive" if r is None else ("proved" if r else "refuted")
    a, b = ge(x, y, ">="), ge(x, y, "<=")
    if op == "==":
        if a is False or b is False:
            return "refuted"
        return "proved" if a and b else "inconclusive"
    # "!="
    if a and b:
        return "refuted"
    if a is False or b is False or ge(x, y, ">") or ge(x, y, "<"):
        return "proved"
    return "inconclusive"


def _cmp(x: Any, y: Any, op: str) -> bool:
    if op == ">=":
        return bool(x >= y)
    if op == ">":
        return bool(x > y)
    if op == "<=":
        return bool(x <= y)
    return bool(x < y)


def symshape_case(c: Claim) -> Decide | None:
    """A decision closure over freshly built symshape expressions."""
    try:
        scope = symshape.SymbolicScope(c.constraints)
        ops = symshape_ops()
        x = build(c.lhs, scope.var, ops)
        y = build(c.rhs, scope.var, ops)
    except symshape.SymshapeError:
        return None
    if not isinstance(x, symshape.DimExpr) and not isinstance(y, symshape.DimExpr):
        return None
    inc = symshape.InconclusiveDimensionOperation
    return lambda: _decision(_cmp, inc, x, c.op, y)


def jax_case(c: Claim) -> Decide | None:
    """The same with ``jax.export.symbolic_shape`` (None if JAX cannot build it)."""
    from jax import export
    from jax._src import core as jcore
    inc = jcore.InconclusiveDimensionOperation
    try:
        dims = export.symbolic_shape("a, b, c, d", constraints=c.constraints)
        env = dict(zip("abcd", dims, strict=True))
        ops = {"add": lambda u, v: u + v, "sub": lambda u, v: u - v,
               "mul": lambda u, v: u * v, "floordiv": lambda u, v: u // v,
               "mod": lambda u, v: u % v, "max": jcore.max_dim, "min": jcore.min_dim}
        x = build(c.lhs, env.__getitem__, ops)
        y = build(c.rhs, env.__getitem__, ops)
    except Exception:  # noqa: BLE001 - JAX raises many types for what it cannot build
        return None
    if isinstance(x, int) and isinstance(y, int):
        return None
    return lambda: _decision(_cmp, inc, x, c.op, y)


def label(c: Claim) -> str:
    """Ground truth: valid, unsat, contingent or unknown."""
    scope = symshape.SymbolicScope(c.constraints)
    links = links_of(c.text, scope)
    wit, cex = brute_force(scope, links, 6)
    if wit is not None and cex is not None:
        return "contingent"
    z = Z3Oracle(scope, timeout_ms=3000)
    if cex is None:
        v = z.valid(links)
        if v:
            return "valid"
        if v is False and wit is not None:
            return "contingent"
    if wit is None:
        s = z.satisfiable(links)
        if s is False:
            return "unsat"
        if s and cex is not None:
            return "contingent"
    if wit is not None and cex is None and z.valid(links) is False:
        return "contingent"
    return "unknown"


def timed(fn: Decide) -> tuple[str, float]:
    t0 = time.perf_counter()
    r = fn()
    return r, time.perf_counter() - t0


def repeat_time(fn: Decide, n: int = 20) -> float:
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n


def wrong(answer: str, truth: str) -> bool:
    return (answer == "proved" and truth in ("unsat", "contingent")) or \
        (answer == "refuted" and truth in ("valid", "contingent"))


def fmt(us: float) -> str:
    return f"{us * 1e6:9.1f} us"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="300 claims instead of 3000")
    ap.add_argument("--n", type=int, default=None, help="number of generated claims")
    ap.add_argument("--seed", type=int, default=2024)
    args = ap.parse_args(argv)
    n = args.n if args.n is not None else (300 if args.quick else 3000)
    try:
        import jax  # noqa: F401
        have_jax = True
    except ImportError:
        have_jax = False
        print("jax is not installed: symshape only")

    rng = random.Random(args.seed)
    rows: dict[str, dict[str, Any]] = {
        lib: {"times": [], "cached": [], "proved": 0, "refuted": 0, "inconclusive": 0,
              "wrong": 0, "answers": []}
        for lib in (("symshape", "jax") if have_jax else ("symshape",))}
    t_start = time.perf_counter()
    # 1. claims that both libraries can build
    claims: list[Claim] = []
    while len(claims) < n:
        c = random_claim(rng)
        if symshape_case(c) is None or (have_jax and jax_case(c) is None):
            continue
        claims.append(c)
    # 2. timing (ground truth is computed afterwards: running z3 between the
    # timed calls would disturb them)
    for c in claims:
        for lib, make in (("symshape", symshape_case), ("jax", jax_case)):
            if lib not in rows:
                continue
            fn = make(c)
            assert fn is not None
            r, dt = timed(fn)
            row = rows[lib]
            row["times"].append(dt)
            row["cached"].append(repeat_time(fn, 5))
            row[r] += 1
            row["answers"].append(r)
    # 3. ground truth
    truths = [label(c) for c in claims]
    n_used = len(claims)
    for row in rows.values():
        row["wrong"] = sum(wrong(r, t) for r, t in zip(row["answers"], truths, strict=True))
    superset_miss = extra = 0
    if have_jax:
        for rs, rj in zip(rows["symshape"]["answers"], rows["jax"]["answers"], strict=True):
            superset_miss += rj != "inconclusive" and rs == "inconclusive"
            extra += rj == "inconclusive" and rs != "inconclusive"

    print(f"{n_used} claims (seed {args.seed}); ground truth: "
          + ", ".join(f"{k} {truths.count(k)}" for k in ("valid", "unsat", "contingent",
                                                          "unknown")))
    head = (f"{'library':10} {'proved':>7} {'refuted':>8} {'inconcl.':>9} {'wrong':>6} "
            f"{'median':>12} {'p90':>12} {'cached med.':>12}")
    print(head)
    print("-" * len(head))
    for lib, row in rows.items():
        ts = sorted(row["times"])
        med = statistics.median(ts)
        p90 = ts[int(0.9 * (len(ts) - 1))]
        cached = statistics.median(row["cached"])
        print(f"{lib:10} {row['proved']:7d} {row['refuted']:8d} {row['inconclusive']:9d} "
              f"{row['wrong']:6d} {fmt(med):>12} {fmt(p90):>12} {fmt(cached):>12}")
    if have_jax:
        s_med = statistics.median(rows["symshape"]["times"])
        j_med = statistics.median(rows["jax"]["times"])
        print(f"\nmedian speed-up (JAX / symshape): {j_med / s_med:.1f}x")
        print(f"decided by JAX but not by symshape: {superset_miss}")
        print(f"decided by symshape but not by JAX: {extra}")
    print(f"(total wall time {time.perf_counter() - t_start:.1f} s, including ground truth)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
