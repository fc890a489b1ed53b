"""Per-call time of a torch exported program with and without symshape's checks.

Run: ``python benchmarks/bench_artifacts_torch.py [--quick] [--device cuda]``.

One process, interleaved rounds (``_harness.compare``: each round runs a batch
of every contender in turn; each figure is its best round).  The model is
``x.sum(1)`` of a ``(64, 1024)`` tensor whose sizes are ``"b, 16*k"``:

* ``no checks``: ``torch.export.export`` with the ``Dim``s ``b <= 4096`` and
  ``n``: the same program without the residue check (the baseline);
* ``symshape checks``: :func:`symshape.torch.export` with ``b <= 4096`` and
  ``mod(n, 16) == 0``: the same ``Dim``s plus one run-time assertion in the
  user's words, called through its ``module()`` in the exporting process
  (which adds the sizes to a failure);
* ``symshape, loaded``: that program after ``torch.export.save`` /
  ``torch.export.load`` (torch's module, nothing of symshape);
* ``torch derived dim``: torch's own way to say the residue, ``n = 16*k``
  (which its ``module()`` does not check at run time, see docs/torch.md);
* ``eager``: the model itself, for scale.

``--device cuda`` runs the tensors on the GPU (the program is exported on the
CPU and moved with ``ep.module().to(device)``); the default is the CPU.
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402
from _harness import compare, fmt_time  # noqa: E402

import symshape.torch as st  # noqa: E402


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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer, shorter rounds")
    ap.add_argument("--device", default="cpu", help="where the tensors live (cpu, cuda)")
    ap.add_argument("--threads", type=int, default=1,
                    help="torch's CPU threads (1: the per-call overhead, not contention)")
    opts = ap.parse_args(argv)
    torch.set_num_threads(opts.threads)
    device = torch.device(opts.device)
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
    best = compare(fns, min_time=0.05 if opts.quick else 0.2, rounds=3 if opts.quick else 9)
    base = best["no checks"]
    print(f"x.sum(1) of (64, 1024) on {device}, torch {torch.__version__}; "
          f"{n_asserts} run-time assertion(s) in the checked program")
    for name, t in best.items():
        print(f"  {name:<18} {fmt_time(t):>10} per call   {t / base:.2f}x of no checks")
    print(f"  a bad call (64, 1000): {refusal}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
