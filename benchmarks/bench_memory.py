"""Retained memory of a long tracing session with the JAX plug-in, and of many
fresh symshape scopes.

    python benchmarks/bench_memory.py [--exports 3000] [--scopes 5000] [--fresh-names 5000]
                                      [--no-plugin]

Three workloads, each measured at checkpoints after a full garbage collection:

* ``exports``: a fresh JAX symbolic scope per export (what real tracing does),
  ``jax.export`` of a small function whose shapes need decisions (concatenate,
  slicing by ``b + 1``, ``floordiv``), with ``symshape.jax.decisions()``
  active (or not, with ``--no-plugin``, for JAX's own share);
* ``scopes``: fresh ``SymbolicScope`` objects with constraints and queries
  (comparisons, ``max``/``min``, ``floordiv``, ``bounds``, ``prove``);
* ``fresh names``: the same with variables named anew at every step (a
  tracer's fresh symbols): variables are interned only while held.

Printed per checkpoint: memory retained (tracemalloc: all of it, and the part
allocated by symshape's own files), gc-tracked objects, and how many of the
scopes made so far are still alive; then the retained memory per 1000
exports / scopes between the first checkpoint and the last.  JAX's own
caches (``weakref_lru_cache`` and ``util.cache``, 2048 entries each by default)
keep the avals of recent traces, and with them their scopes, alive: so the
symshape share per retained scope is what the plug-in adds.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import time
import tracemalloc
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import symshape
from symshape import SymbolicScope

SYMSHAPE_DIR = os.path.dirname(os.path.abspath(symshape.__file__))


@dataclass
class Checkpoint:
    """Retained memory after ``done`` iterations (after ``gc.collect()``)."""

    done: int
    traced: int  # bytes retained, everything tracemalloc sees
    symshape: int  # bytes retained that symshape's own files allocated
    objects: int  # gc-tracked objects
    alive: int  # scopes made so far that are still alive
    alive_symshape: int  # of which symshape scopes
    seconds: float


def retained_bytes() -> tuple[int, int]:
    """(all, symshape's) bytes currently allocated, as tracemalloc sees them."""
    snap = tracemalloc.take_snapshot()
    mine = snap.filter_traces([tracemalloc.Filter(True, os.path.join(SYMSHAPE_DIR, "*"))])
    return (sum(s.size for s in snap.statistics("filename")),
            sum(s.size for s in mine.statistics("filename")))


def measure(step: Callable[[int], Any], n: int, every: int) -> list[Checkpoint]:
    """Run ``step(i)`` for ``i < n``; ``step`` returns the scope it made (or
    scopes), which is tracked by weak reference only."""
    refs: list[weakref.ref[Any]] = []
    out: list[Checkpoint] = []
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    t0 = time.perf_counter()
    try:
        for i in range(n):
            made = step(i)
            refs.extend(weakref.ref(s) for s in (made if isinstance(made, tuple) else (made,)))
            del made
            if (i + 1) % every == 0 or i + 1 == n:
                gc.collect()
                traced, mine = retained_bytes()
                out.append(Checkpoint(i + 1, traced, mine, len(gc.get_objects()),
                                      sum(r() is not None for r in refs),
                                      sum(isinstance(r(), SymbolicScope) for r in refs),
                                      time.perf_counter() - t0))
    finally:
        if started:
            tracemalloc.stop()
    return out


# ---------------------------------------------------------------------------
# Workload 1: fresh symshape scopes with queries

SCOPE_CONSTRAINTS: tuple[list[str], ...] = (
    ["a >= b + 2", "mod(a, 4) == 0"], ["b <= 64", "c == 2*d"], ["a*b <= 400"], [],
    ["max(a, b) <= 9", "c >= 3"])


def scope_step(i: int) -> SymbolicScope:
    """One fresh scope, a few expressions and queries, all dropped on return."""
    scope = SymbolicScope(SCOPE_CONSTRAINTS[i % len(SCOPE_CONSTRAINTS)])
    a, b, c, d = symshape.symbolic_shape("a, b, c, d", scope=scope)
    e = symshape.max_dim(a, b + i % 7) + symshape.min_dim(c, 2 * d)
    q = (a + i) // (b + 1)
    with contextlib.suppress(symshape.InconclusiveDimensionOperation):
        bool(e >= a)
    with contextlib.suppress(symshape.InconclusiveDimensionOperation):
        bool(q * (b + 1) <= a + i)
    symshape.bounds(q)
    symshape.prove("a + b >= 2", scope=scope)
    symshape.prove(f"max(a, b) >= b + {i % 3}", scope=scope)
    return scope


def fresh_names_step(i: int) -> SymbolicScope:
    """:func:`scope_step` with variables named anew at every step (a tracer
    that names its symbols per export): nothing of them may stay behind."""
    names = [f"{v}{i}" for v in "abcd"]
    scope = SymbolicScope([f"{names[0]} >= {names[1]} + 2", f"mod({names[0]}, 4) == 0",
                           f"{names[2]} == 2*{names[3]}"])
    a, b, c, d = symshape.symbolic_shape(", ".join(names), scope=scope)
    e = symshape.max_dim(a, b + i % 7) + symshape.min_dim(c, 2 * d)
    with contextlib.suppress(symshape.InconclusiveDimensionOperation):
        bool(e >= a)
    symshape.prove(f"{names[0]} >= {names[1]} + 1", scope=scope)
    return scope


# ---------------------------------------------------------------------------
# Workload 2: jax.export with a fresh JAX scope per export


def export_step_factory() -> Callable[[int], Any]:
    """``step(i)``: one export with a fresh JAX scope; returns (JAX scope,
    its symshape scope when the plug-in made one)."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import export

    import symshape.jax as sj
    from symshape.jax.convert import BRIDGE_ATTR

    def f(x: Any, y: Any) -> Any:
        z = jnp.concatenate([x, x], axis=0)[: x.shape[0] + 1]
        return z.sum() + y[: y.shape[0] // 2].sum()

    jf = jax.jit(f)

    def step(i: int) -> Any:
        js = export.SymbolicScope([f"b >= {1 + i % 5}", "mod(h, 2) == 0"])
        b, h = export.symbolic_shape("b, h", scope=js)
        exp = export.export(jf)(jax.ShapeDtypeStruct((b, 4), np.float32),
                                jax.ShapeDtypeStruct((h,), np.float32))
        assert exp.out_avals[0].shape == ()
        bridge = getattr(js, BRIDGE_ATTR, None)
        return (js,) if bridge is None else (js, bridge.sym)

    del sj
    return step


@contextlib.contextmanager
def plugin(active: bool) -> Iterator[None]:
    if not active:
        yield
        return
    import symshape.jax as sj
    with sj.decisions():
        yield


def report(label: str, points: list[Checkpoint], unit: str) -> None:
    print(f"\n{label}")
    print(f"{'done':>7} {'retained MB':>12} {'symshape MB':>12} {'gc objects':>11} "
          f"{'alive':>7} {'symshape':>8} {'seconds':>8}")
    for p in points:
        print(f"{p.done:>7} {p.traced / 2**20:>12.2f} {p.symshape / 2**20:>12.2f} "
              f"{p.objects:>11} {p.alive:>7} {p.alive_symshape:>8} {p.seconds:>8.1f}")
    if len(points) >= 2:
        first, last = points[0], points[-1]
        k = 1000 / (last.done - first.done)
        print(f"retained per 1000 {unit} (from {first.done} to {last.done}): "
              f"{(last.traced - first.traced) * k / 2**20:.2f} MB in all, "
              f"{(last.symshape - first.symshape) * k / 2**20:.2f} MB by symshape, "
              f"{(last.objects - first.objects) * k:.0f} gc objects")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--exports", type=int, default=3000)
    ap.add_argument("--scopes", type=int, default=5000)
    ap.add_argument("--fresh-names", type=int, default=5000,
                    help="fresh scopes whose variables are named anew each time")
    ap.add_argument("--every", type=int, default=500)
    ap.add_argument("--no-plugin", action="store_true", help="JAX alone, for comparison")
    args = ap.parse_args()
    if args.scopes:
        report(f"{args.scopes} fresh symshape scopes with queries",
               measure(scope_step, args.scopes, args.every), "scopes")
    if args.fresh_names:
        report(f"{args.fresh_names} fresh symshape scopes, variables named anew each time",
               measure(fresh_names_step, args.fresh_names, args.every), "scopes")
    if args.exports:
        step = export_step_factory()
        with plugin(not args.no_plugin):
            points = measure(step, args.exports, args.every)
            from symshape.jax import plugin as pl
            sizes = {"scopes with answer caches": len(pl._cached_scopes)}
        report(f"{args.exports} exports, a fresh JAX scope each, plug-in "
               f"{'off' if args.no_plugin else 'on'}", points, "exports")
        print(f"plug-in id caches at the end of the session: {sizes}")
        import jax
        jax.clear_caches()
        gc.collect()
        print(f"after leaving decisions() and jax.clear_caches(): "
              f"{len(gc.get_objects())} gc objects")


if __name__ == "__main__":
    main()
