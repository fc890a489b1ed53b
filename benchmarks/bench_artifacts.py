"""Per-call cost of symshape's run-time shape checks in exported artifacts.

The same function is exported twice, with and without symshape's checks, and
each export is called with the same array, interleaved in one process:

* JAX: ``x.sum(axis=1)`` over a (64, 1024) float32 array, with and without
  ``symshape.jax.assert_shapes(x, "b, 128*k")``, exported with specs
  ``"b, s"``; ``jax.jit(exp.call)`` of the export as made and of the export
  after ``serialize``/``deserialize``.  For reference, the same check emitted
  through JAX's own (effectful) ``shape_assertion`` primitive, as symshape did
  before: an export that cannot be serialized.
* PyTorch: ``benchmarks/bench_torch.py`` (its per-call section, first in its
  output; ``--only-per-call``) measures the same reduction exported with and
  without symshape's checks, in process and after ``torch.export.save``/``load``.

Target (issue 27): checks cost within 5% of the export without them.  The
figures are medians of interleaved batches (``_harness.compare`` takes the best
round; here each contender's median over rounds is printed too).

Run: ``python benchmarks/bench_artifacts.py [--quick]``; ``--platform cuda``
runs the JAX calls on a GPU.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import _calibrate, fmt_time  # noqa: E402

SHAPE = (64, 1024)


def interleaved_medians(fns: dict[str, Callable[[], object]], rounds: int,
                        min_time: float) -> dict[str, float]:
    """Median seconds per call of each function over ``rounds`` interleaved batches."""
    per_batch = {name: _calibrate(fn, min_time) for name, fn in fns.items()}
    samples: dict[str, list[float]] = {name: [] for name in fns}
    names = list(fns)
    for r in range(rounds):
        k = r % len(names)
        for name in names[k:] + names[:k]:
            fn, n = fns[name], per_batch[name]
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            samples[name].append((time.perf_counter() - t0) / n)
    return {name: statistics.median(s) for name, s in samples.items()}


def _block(call: Callable[[Any], Any], x: Any) -> object:
    return call(x).block_until_ready()


def jax_contenders(platform: str) -> dict[str, Callable[[], object]]:
    import jax
    from jax import export
    from jax._src.export import shape_poly  # only for the "before" reference

    import symshape.jax as sj

    def plain(x: Any) -> Any:
        return x.sum(axis=1)

    def checked(x: Any) -> Any:
        sj.assert_shapes(x, "b, 128*k")
        return x.sum(axis=1)

    def effectful(x: Any) -> Any:
        # What assert_shapes emitted before: JAX's shape_assertion, with its effect.
        s = shape_poly.dimension_size_p.bind(x, dimension=1)
        shape_poly.shape_assertion(s % 128 == 0, s, error_message="needs a multiple of 128")
        return x.sum(axis=1)

    avals = sj.args_specs((np.zeros(SHAPE, np.float32),), ("b, s",))
    exports = {name: export.export(jax.jit(f))(*avals)
               for name, f in (("plain", plain), ("checked", checked),
                               ("JAX's effectful check", effectful))}
    x = jax.device_put(np.ones(SHAPE, np.float32), jax.devices(platform)[0])
    fns: dict[str, Callable[[], object]] = {}
    for name, exp in exports.items():
        variants = [("", exp)]
        if not exp.ordered_effects and not exp.unordered_effects:
            variants.append((", deserialized", export.deserialize(exp.serialize())))
        for suffix, e in variants:
            call = jax.jit(e.call)
            call(x).block_until_ready()
            fns[name + suffix] = functools.partial(_block, call, x)
    return fns


def report(title: str, times: dict[str, float], base: str) -> None:
    print(f"\n{title}")
    for name, t in times.items():
        extra = "" if name == base else f"  ({t / times[base]:.2f}x of {base!r})"
        print(f"  {name:45s} {fmt_time(t):>10s}{extra}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--platform", default="cpu", help="JAX platform of the calls")
    args = ap.parse_args(argv)
    rounds, min_time = (7, 0.05) if args.quick else (21, 0.1)
    print(f"Per-call time of exported functions, {SHAPE} float32, median of {rounds} "
          "interleaved batches")
    jax_times = interleaved_medians(jax_contenders(args.platform), rounds, min_time)
    report(f"JAX ({args.platform}): jax.jit(exp.call)(x)", jax_times, "plain")
    worst = max(jax_times["checked"] / jax_times["plain"],
                jax_times["checked, deserialized"] / jax_times["plain, deserialized"])
    print(f"  checks cost: {100 * (worst - 1):+.1f}% (target: within 5%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
