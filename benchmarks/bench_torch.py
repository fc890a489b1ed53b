"""symshape.torch beside torch.export on a 24-layer decoder with a KV cache.

Run: ``python benchmarks/bench_torch.py [--quick] [--only-per-call] [--device cuda]``.

The model: 24 attention layers over a new chunk ``x: (b, s, 32)`` and, per
layer, a cached key and value ``(b, p, 32)``; positions ``p .. p + s`` index a
learned table of 4096 rows.  The specs are ``"b, s, 32"`` and ``"b, p, 32"``
(1 + 48 tensors, the cache a list) under ``b <= 64``, ``s <= 512``, ``p + s <= 4096``; the last one
is not expressible by ``Dim``s, so :func:`symshape.torch.export` adds a run-time
check.  Measured (median of the repetitions):

* ``export_specs``: specs and constraints -> ``dynamic_shapes`` (symshape only);
* ``torch.export (Dims)``: torch's own export with those ``dynamic_shapes``
  (checks off: torch cannot know ``p + s <= 4096``, so this traces the same
  model without it);
* ``symshape.torch.export``: the same with the check (specs -> export);
* ``explain(ep)``: decide every range constraint and run-time assertion of the
  exported program under the specs' constraints;
* ``torch.export failing``: torch's time to reject hand-written ``Dim``s with one
  ``Dim`` per cache (each must equal the others); ``explain(error)``: read,
  decide and suggest a fix for each of its complaints (variables: the ``Dim``
  names, constraints: their ranges); ``explain(error, specs)``: the same
  complaints decided under the symshape specs, which imply them all.

Per call (first, ``--only-per-call`` for just this; ``--device cuda`` on a GPU):
``x.sum(1)`` of a ``(64, 1024)`` tensor with sizes ``"b, n"``, called through
``ep.module()`` in interleaved rounds (``_harness.compare``: a batch of every
contender in turn, each figure its best round), one torch thread:

* ``no checks``: ``torch.export.export`` with the ``Dim``s ``b <= 4096`` and
  ``n`` (the baseline);
* ``symshape checks``: :func:`symshape.torch.export` with ``b <= 4096`` and
  ``mod(n, 16) == 0``: the same ``Dim``s plus one run-time assertion in the
  user's words, through the exporting process's ``module()`` (which adds the
  sizes to a failure);
* ``symshape, loaded``: that program after ``torch.export.save``/``load``;
* ``torch derived dim``: torch's own ``n = 16*k`` (not checked at run time);
* ``eager``: the model itself, for scale.
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402
from _harness import compare, fmt_time  # noqa: E402

import symshape.torch as st  # noqa: E402

D, LAYERS, TABLE = 32, 24, 4096


class Layer(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.q = torch.nn.Linear(D, D)
        self.kv = torch.nn.Linear(D, 2 * D)
        self.out = torch.nn.Linear(D, D)

    def forward(self, x: Any, past_k: Any, past_v: Any) -> Any:
        k_new, v_new = self.kv(x).chunk(2, dim=-1)
        k = torch.cat([past_k, k_new], dim=1)
        v = torch.cat([past_v, v_new], dim=1)
        att = torch.softmax(self.q(x) @ k.transpose(1, 2) / D ** 0.5, dim=-1)
        return x + self.out(att @ v)


class Decoder(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.pos = torch.nn.Parameter(torch.randn(TABLE, D))
        self.layers = torch.nn.ModuleList(Layer() for _ in range(LAYERS))

    def forward(self, x: Any, cache: list[Any]) -> Any:
        p = cache[0].shape[1]
        h = x + self.pos[p: p + x.shape[1]]
        for i, layer in enumerate(self.layers):
            h = layer(h, cache[2 * i], cache[2 * i + 1])
        return h


SPECS = ["b, s, 32", "b, p, 32"]  # the second spec is for every tensor of the cache list
CONSTRAINTS = ["b <= 64", "s <= 512", "p + s <= 4096"]


def example() -> tuple[Any, ...]:
    return (torch.randn(2, 16, D), [torch.randn(2, 40, D) for _ in range(2 * LAYERS)])


def median_time(fn: Callable[[], object], reps: int) -> float:
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


class RowSum(torch.nn.Module):
    def forward(self, x: Any) -> Any:
        return x.sum(1)


def programs() -> dict[str, Any]:
    """The exported programs (on the CPU)."""
    model, args = RowSum(), (torch.ones(64, 1024),)
    b, n = torch.export.Dim("b", min=2, max=4096), torch.export.Dim("n", min=2)
    plain = torch.export.export(model, args, dynamic_shapes=({0: b, 1: n},))
    k = torch.export.Dim("k", min=2)
    derived = torch.export.export(model, args, dynamic_shapes=({0: b, 1: 16 * k},))
    checked = st.export(model, args, ["b, n"], constraints=["b <= 4096", "mod(n, 16) == 0"])
    buf = io.BytesIO()
    torch.export.save(checked, buf)
    buf.seek(0)
    loaded = torch.export.load(buf)
    return {"no checks": plain, "symshape checks": checked, "symshape, loaded": loaded,
            "torch derived dim": derived}


def per_call(quick: bool, device_name: str) -> None:
    """Per-call time of a program with and without symshape's run-time check
    (interleaved rounds in this process; see the module docs)."""
    device = torch.device(device_name)
    x = torch.ones(64, 1024, device=device)
    bad = torch.ones(64, 1000, device=device)
    mods = {name: ep.module().to(device) for name, ep in programs().items()}
    checked = mods["symshape checks"]
    n_asserts = sum(1 for n in checked.graph.nodes if "_assert_scalar" in str(n.target))
    try:
        checked(bad)
        refusal = "accepted (!)"
    except RuntimeError as err:
        refusal = str(err)
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)

    def call(m: Any) -> Any:
        def run() -> None:
            m(x)
            sync()
        return run

    fns = {name: call(m) for name, m in mods.items()}
    fns["eager"] = call(RowSum())
    best = compare(fns, min_time=0.05 if quick else 0.2, rounds=3 if quick else 9)
    base = best["no checks"]
    print(f"x.sum(1) of (64, 1024) on {device}, torch {torch.__version__}; "
          f"{n_asserts} run-time assertion(s) in the checked program")
    for name, t in best.items():
        print(f"  {name:<18} {fmt_time(t):>10} per call   {t / base:.2f}x of no checks")
    print(f"  a bad call (64, 1000): {refusal}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="one repetition of the exports")
    ap.add_argument("--device", default="cpu",
                    help="where the per-call benchmark's tensors live (cpu, cuda)")
    ap.add_argument("--threads", type=int, default=1,
                    help="torch's CPU threads (1: the per-call overhead, not contention)")
    ap.add_argument("--only-per-call", action="store_true",
                    help="only the per-call time with and without checks")
    opts = ap.parse_args(argv)
    torch.set_num_threads(opts.threads)
    per_call(opts.quick, opts.device)
    if opts.only_per_call:
        return 0
    reps = 1 if opts.quick else 3
    model, args = Decoder().eval(), example()
    st.export_specs(args, SPECS, constraints=CONSTRAINTS, model=model)  # warm up
    t_specs = median_time(lambda: st.export_specs(args, SPECS, constraints=CONSTRAINTS,
                                                  model=model), 5 * reps)
    es = st.export_specs(args, SPECS, constraints=CONSTRAINTS, model=model)
    t_torch = median_time(lambda: torch.export.export(model, args,
                                                      dynamic_shapes=es.dynamic_shapes), reps)
    eps: list[Any] = []
    t_sym = median_time(lambda: eps.append(st.export(model, args, specs=es)), reps)
    ep = eps[-1]
    explanation: list[Any] = []
    t_explain = median_time(lambda: explanation.append(st.explain(ep, es)), reps)
    ex = explanation[-1]

    # Hand-written Dims, one per cache: torch must reject them.
    dims = [torch.export.Dim("b", max=64), torch.export.Dim("s", max=512)]
    hand = ({0: dims[0], 1: dims[1]},
            [{0: dims[0], 1: torch.export.Dim(f"p{i}", max=3584)} for i in range(2 * LAYERS)])
    errors: list[BaseException] = []

    def failing() -> None:
        try:
            torch.export.export(model, args, dynamic_shapes=hand)
        except Exception as err:  # torch's UserError
            errors.append(err)
    t_fail = median_time(failing, reps)
    err = errors[-1]
    bad: list[Any] = []
    t_explain_err = median_time(lambda: bad.append(st.explain(err)), reps)
    ex_err = bad[-1]
    tied: list[Any] = []
    t_explain_specs = median_time(lambda: tied.append(st.explain(err, es)), reps)

    print(f"24-layer decoder, {1 + len(args[1])} tensor inputs, torch {torch.__version__}")
    print(f"  export_specs (specs -> dynamic_shapes)  {fmt_time(t_specs)}")
    print(f"  torch.export.export with those Dims     {fmt_time(t_torch)}")
    print(f"  symshape.torch.export (with the check)  {fmt_time(t_sym)}")
    print(f"  explain(ep): {len(ex.reports)} guards, {len(ex.implied)} implied   "
          f"{fmt_time(t_explain)}")
    print(f"  torch.export.export failing (hand Dims) {fmt_time(t_fail)}")
    print(f"  explain(error): {len(ex_err.reports)} complaints, "
          f"{len(ex_err.not_implied)} not implied, "
          f"{sum(1 for r in ex_err.not_implied if r.suggestions)} with a suggestion   "
          f"{fmt_time(t_explain_err)}")
    print(f"  explain(error, specs): {len(tied[-1].implied)} of them implied by the specs "
          f"(one p for every cache)   {fmt_time(t_explain_specs)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
