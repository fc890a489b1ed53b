"""Shape annotations: symshape.typing side by side with jaxtyping + beartype.

Run: ``python benchmarks/bench_typing.py [--quick]``.  Needs jaxtyping and beartype
(the ``bench`` extra).  The same function -- an MLP layer ``(x, w1, w2) -> y``
with the shapes ``b, d``, ``d, 4*d``, ``4*d, d`` -> ``b, d`` as each library can
write them (jaxtyping names the hidden width ``d4``) -- is decorated by each
checker; its body returns a preallocated array, so the figures are the
checkers' overhead (the undecorated call is subtracted).

* ``same shapes``: repeated calls with the same shapes (symshape: one lookup in
  the cache of accepted shapes).
* ``new shapes``: every call a batch size not seen before (symshape: the plan
  of the ranks is reused, the shapes are solved).
* ``first call``: decorate and call once (symshape: read the annotations, build
  the plan; jaxtyping: its first check).
* ``jaxtyping syntax``: symshape reading jaxtyping's own strings.
* ``Float``: symshape with jaxtyping's annotations as they are (``Float[Arr,
  "b d"]``): the dtypes are checked too, and are part of the cache key.

Prints microseconds per call and the ratio jaxtyping+beartype / symshape (> 1 means
symshape is cheaper).
"""
# Linters read the strings in Shaped[T, "b, d"] and Float[T, "b d"] as forward
# references; they are shape specs.
# ruff: noqa: F722, F821, UP037

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402
from _harness import build_label, compare, fmt_time  # noqa: E402

from symshape.typing import Float as SFloat  # noqa: E402
from symshape.typing import Shaped, shapecheck  # noqa: E402

try:
    from beartype import beartype
    from jaxtyping import Float, jaxtyped
except ImportError:  # pragma: no cover - the bench extra is not installed
    print("bench_typing skipped: it needs jaxtyping and beartype (pip install "
          "'symshape[bench]')")
    sys.exit(0)

try:  # the annotations name it: a module-level name (postponed annotations)
    import torch
    T = torch.Tensor
except ImportError:  # pragma: no cover
    torch = None

Arr = np.ndarray
D = 16


def _make_jaxtyping(out: Arr) -> Callable[..., Any]:
    @jaxtyped(typechecker=beartype)
    def layer(x: Float[Arr, "b d"], w1: Float[Arr, "d d4"], w2: Float[Arr, "d4 d"]
              ) -> Float[Arr, "b d"]:
        return out[: x.shape[0]]
    return layer


def _make_symshape(out: Arr) -> Callable[..., Any]:
    @shapecheck
    def layer(x: Shaped[Arr, "b, d"], w1: Shaped[Arr, "d, 4*d"], w2: Shaped[Arr, "4*d, d"]
              ) -> Shaped[Arr, "b, d"]:
        return out[: x.shape[0]]
    return layer


def _make_symshape_jaxtyping_syntax(out: Arr) -> Callable[..., Any]:
    @shapecheck
    def layer(x: Shaped[Arr, "b d"], w1: Shaped[Arr, "d 4*d"], w2: Shaped[Arr, "4*d d"]
              ) -> Shaped[Arr, "b d"]:
        return out[: x.shape[0]]
    return layer


def _make_symshape_float(out: Arr) -> Callable[..., Any]:
    @shapecheck
    def layer(x: SFloat[Arr, "b d"], w1: SFloat[Arr, "d 4*d"], w2: SFloat[Arr, "4*d d"]
              ) -> SFloat[Arr, "b d"]:
        return out[: x.shape[0]]
    return layer


def _make_plain(out: Arr) -> Callable[..., Any]:
    def layer(x: Arr, w1: Arr, w2: Arr) -> Arr:
        return out[: x.shape[0]]
    return layer


MAKERS = {
    "undecorated": _make_plain,
    "jaxtyping+beartype": _make_jaxtyping,
    "symshape": _make_symshape,
    "symshape (jaxtyping syntax)": _make_symshape_jaxtyping_syntax,
    "symshape (Float: dtypes too)": _make_symshape_float,
}


def bench_same_shapes(rounds: int) -> dict[str, float]:
    out = np.zeros((64, D), np.float32)
    x, w1, w2 = (np.zeros(s, np.float32) for s in ((8, D), (D, 4 * D), (4 * D, D)))
    fns = {name: make(out) for name, make in MAKERS.items()}
    return compare({name: (lambda f=f: f(x, w1, w2)) for name, f in fns.items()},
                   rounds=rounds)


def bench_new_shapes(rounds: int, sizes: int) -> dict[str, float]:
    out = np.zeros((sizes + 1, D), np.float32)
    w1, w2 = np.zeros((D, 4 * D), np.float32), np.zeros((4 * D, D), np.float32)
    xs = [np.zeros((b, D), np.float32) for b in range(1, sizes + 1)]
    result = {}
    for name, make in MAKERS.items():
        best = float("inf")
        for _ in range(rounds):
            f = make(out)  # a fresh function: no shape seen before
            f(xs[0], w1, w2)  # its first call (the plan) is timed elsewhere
            t0 = time.perf_counter()
            for x in xs[1:]:
                f(x, w1, w2)
            best = min(best, (time.perf_counter() - t0) / (len(xs) - 1))
        result[name] = best
    return result


def bench_first_call(rounds: int) -> dict[str, float]:
    out = np.zeros((64, D), np.float32)
    x, w1, w2 = (np.zeros(s, np.float32) for s in ((8, D), (D, 4 * D), (4 * D, D)))
    result = {}
    for name, make in MAKERS.items():
        best = float("inf")
        for i in range(rounds):
            # A new width each round, so no cache keyed by shapes or specs helps.
            xi = np.zeros((8 + i, D), np.float32)
            t0 = time.perf_counter()
            make(out)(xi, w1, w2)
            best = min(best, time.perf_counter() - t0)
        result[name] = best
    del x
    return result


def bench_torch_same_shapes(rounds: int) -> dict[str, float] | None:
    """Same shapes, torch tensors (the decorator also asks whether dynamo traces)."""
    if torch is None:
        return None
    out = torch.zeros(64, D)
    x, w1, w2 = torch.zeros(8, D), torch.zeros(D, 4 * D), torch.zeros(4 * D, D)

    @jaxtyped(typechecker=beartype)
    def jt(x: Float[T, "b d"], w1: Float[T, "d d4"], w2: Float[T, "d4 d"]
           ) -> Float[T, "b d"]:
        return out[: x.shape[0]]

    @shapecheck
    def ss(x: Shaped[T, "b, d"], w1: Shaped[T, "d, 4*d"], w2: Shaped[T, "4*d, d"]
           ) -> Shaped[T, "b, d"]:
        return out[: x.shape[0]]

    @shapecheck
    def sf(x: SFloat[T, "b d"], w1: SFloat[T, "d 4*d"], w2: SFloat[T, "4*d d"]
           ) -> SFloat[T, "b d"]:
        return out[: x.shape[0]]

    def plain(x: T, w1: T, w2: T) -> T:
        return out[: x.shape[0]]

    fns = {"undecorated": plain, "jaxtyping+beartype": jt, "symshape": ss,
           "symshape (Float: dtypes too)": sf}
    return compare({name: (lambda f=f: f(x, w1, w2)) for name, f in fns.items()},
                   rounds=rounds)


def report(title: str, times: dict[str, float]) -> None:
    base = times["undecorated"]
    print(f"\n{title}")
    jt = times["jaxtyping+beartype"] - base
    for name, t in times.items():
        over = t - base
        extra = ""
        if name.startswith("symshape") and over > 0:
            extra = f"   jaxtyping+beartype / {name}: {jt / over:.1f}x"
        print(f"  {name:<30} {fmt_time(t):>10} per call   overhead {fmt_time(max(over, 0)):>10}"
              f"{extra}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer rounds")
    args = ap.parse_args(argv)
    rounds = 3 if args.quick else 7
    print(f"symshape.typing vs jaxtyping+beartype ({build_label()}); numpy arrays, an MLP "
          f"layer (x: b, d; w1: d, 4*d; w2: 4*d, d) -> (b, d)")
    report("same shapes (symshape: a cache hit)", bench_same_shapes(rounds))
    report("new shapes every call (symshape: the plan reused, shapes solved)",
           bench_new_shapes(rounds, 200 if args.quick else 1000))
    report("first call (decorate + call once)", bench_first_call(rounds * 3))
    torch_times = bench_torch_same_shapes(rounds)
    if torch_times is not None:
        report("torch tensors, same shapes", torch_times)
    return 0


if __name__ == "__main__":
    sys.exit(main())
