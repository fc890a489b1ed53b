"""Tracing a shape-polymorphic model with and without symshape deciding inside JAX.

Run: ``python benchmarks/bench_jax_trace.py [--quick]``.

The model is a 12-layer transformer block stack (layer norm, multi-head
attention with a causal mask, an MLP, residuals) plus a few sequence ops
(shift, pooling, strided and halved slices) over symbolic batch ``b`` and
sequence ``s``: tracing it asks JAX's shape machinery many symbolic questions
(broadcasting equalities, slice bounds, ``max``/``min``).  Each repetition uses
a fresh function and a fresh symbolic scope, so no trace or decision cache
carries over, and plain and plug-in runs alternate.  Prints the median time
of ``jax.jit(f).trace`` and of a full ``jax.export`` per configuration, and of
``retrace``: tracing a fresh function again with the same symbolic scope (as
when exporting several functions of one model), and the
ratios plug-in / plain of the medians and of the minima (<= 1 means the plug-in
is not slower).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from _harness import fmt_time  # noqa: E402
from jax import export  # noqa: E402

import symshape.jax as sj  # noqa: E402

D_MODEL, HEADS, D_FF, LAYERS = 64, 4, 128, 12


def layer_norm(x: Any) -> Any:
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / jnp.sqrt(var + 1e-5)


def attention(x: Any, w: dict[str, Any]) -> Any:
    b, s, _ = x.shape
    dh = D_MODEL // HEADS
    q = (x @ w["q"]).reshape(b, s, HEADS, dh)
    k = (x @ w["k"]).reshape(b, s, HEADS, dh)
    v = (x @ w["v"]).reshape(b, s, HEADS, dh)
    logits = jnp.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(dh)
    mask = jnp.tril(jnp.ones((s, s), bool))
    logits = jnp.where(mask[None, None], logits, -1e9)
    out = jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(logits, -1), v)
    return out.reshape(b, s, D_MODEL) @ w["o"]


def block(x: Any, w: dict[str, Any]) -> Any:
    x = x + attention(layer_norm(x), w)
    h = jax.nn.gelu(layer_norm(x) @ w["up"])
    x = x + h @ w["down"]
    # sequence ops with symbolic slice bounds
    shifted = jnp.concatenate([x[:, :1], x[:, :-1]], axis=1)
    half = x[:, : x.shape[1] // 2]
    rest = x.shape[1] - x.shape[1] // 2
    x = x + 0.1 * shifted + 0.01 * jnp.pad(half, ((0, 0), (0, rest), (0, 0)))
    return x + 0.01 * x[:, ::2].mean(1, keepdims=True)


def model(x: Any, params: list[dict[str, Any]]) -> Any:
    for w in params:
        x = block(x, w)
    return layer_norm(x).mean(1)


def params_specs() -> list[dict[str, Any]]:
    f32 = np.float32
    sds = jax.ShapeDtypeStruct
    return [{"q": sds((D_MODEL, D_MODEL), f32), "k": sds((D_MODEL, D_MODEL), f32),
             "v": sds((D_MODEL, D_MODEL), f32), "o": sds((D_MODEL, D_MODEL), f32),
             "up": sds((D_MODEL, D_FF), f32), "down": sds((D_FF, D_MODEL), f32)}
            for _ in range(LAYERS)]


_SHARED: dict[bool, Any] = {}


def _input_spec(fresh_scope: bool, plugin: bool) -> Any:
    if not fresh_scope and plugin in _SHARED:
        return _SHARED[plugin]
    scope = export.SymbolicScope(["s >= 2"])
    x = jax.ShapeDtypeStruct(export.symbolic_shape(f"b, s, {D_MODEL}", scope=scope),
                             np.float32)
    if not fresh_scope:
        _SHARED[plugin] = x
    return x


def run_once(kind: str, plugin: bool) -> float:
    x = _input_spec(kind != "retrace", plugin)
    params = params_specs()
    fn = jax.jit(lambda x, p: model(x, p))  # fresh: no cached trace

    def go() -> object:
        if kind in ("trace", "retrace"):
            return fn.trace(x, params)
        return export.export(fn)(x, params)

    gc.collect()
    gc.disable()  # a collection landing in one run only would swamp the difference
    try:
        t0 = time.perf_counter()
        if plugin:
            with sj.decisions():
                go()
        else:
            go()
        return time.perf_counter() - t0
    finally:
        gc.enable()


def measure(kind: str, reps: int) -> tuple[list[float], list[float]]:
    plain: list[float] = []
    plugged: list[float] = []
    for _ in range(2):  # warm up both paths (imports, lowering rules, first-time caches)
        run_once(kind, False)
        run_once(kind, True)
    for i in range(reps):  # alternate, starting with either, so drift hits both alike
        order = (False, True) if i % 2 == 0 else (True, False)
        for plugin in order:
            (plugged if plugin else plain).append(run_once(kind, plugin))
    return plain, plugged


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = ap.parse_args(argv)
    reps = 5 if args.quick else 15
    print(f"jax {jax.__version__}; {LAYERS}-layer attention/MLP stack, symbolic b, s; "
          f"{reps} runs each, alternating")
    for kind in ("trace", "export", "retrace"):
        plain, plugged = measure(kind, reps)
        med_p, med_s = statistics.median(plain), statistics.median(plugged)
        min_p, min_s = min(plain), min(plugged)
        print(f"{kind:>7}: JAX alone {fmt_time(med_p):>10} (min {fmt_time(min_p)})   "
              f"with symshape.jax.decisions {fmt_time(med_s):>10} (min {fmt_time(min_s)})   "
              f"ratio median {med_s / med_p:.2f}, min {min_s / min_p:.2f}")


if __name__ == "__main__":
    main()
