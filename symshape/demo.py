"""A short tour of symshape: ``python -m symshape.demo``.

Parses shape specs, shows canonical forms, proves one claim (with its
certificate), refutes one (with a counterexample), and, when JAX is installed,
exports a shape-polymorphic function whose shape checks come from symshape.
"""

from __future__ import annotations

import sys


def _section(title: str) -> None:
    print(f"\n== {title} ==")


def main() -> int:
    """Run the demo; returns the process exit status."""
    import symshape

    _section("Parse shape specs")
    scope = symshape.SymbolicScope(["mod(t, 128) == 0"])
    b, h, t = symshape.symbolic_shape("b, h, t", scope=scope)
    print('symbolic_shape("b, h, t", constraints=["mod(t, 128) == 0"]) ->', (b, h, t))
    spec = symshape.symbolic_shape("b, 2*h + 1, floordiv(t, 128)", scope=scope)
    print('symbolic_shape("b, 2*h + 1, floordiv(t, 128)") ->', spec)

    _section("Canonical forms: equal values are equal expressions")
    lhs, rhs = 2 * (h // 2) + h % 2, h
    print(f"2*floordiv(h, 2) + mod(h, 2) == h  ->  {lhs == rhs}")
    print(f"128*floordiv(t, 128) == t          ->  {128 * (t // 128) == t}")
    print(f"max(b, h) + min(b, h)              ->  "
          f"{symshape.max_dim(b, h) + symshape.min_dim(b, h)}")

    _section("Prove")
    proved = symshape.prove("a*b >= a + b - 1")
    print(proved.explain())
    assert proved.certificate is not None and proved.certificate.check()

    _section("Refute")
    refuted = symshape.prove("b < mod(b, 3)")
    print(refuted.explain())

    _section("Inconclusive, and why")
    unknown = symshape.prove("a + 1 >= b")
    print(unknown.explain())

    _section("Export with JAX")
    try:
        import jax  # noqa: F401
    except ImportError:
        print("jax is not installed: pip install 'symshape[jax]' to see this part")
        return 0
    _export_demo()
    return 0


def _export_demo() -> None:
    import jax
    import jax.numpy as jnp
    import numpy as np

    import symshape
    import symshape.jax as sj

    def f(x: jax.Array) -> jax.Array:
        # JAX alone cannot prove 'b >= mod(b, 3)' for this slice.
        return jax.lax.slice_in_dim(x, 0, x.shape[0] % 3)

    x_spec = sj.args_specs((np.zeros((5,), np.float32),), ("b",))
    with sj.decisions():
        exp = jax.export.export(jax.jit(f))(*x_spec)
    # The labels show the code as written above (tests/interface/test_docs.py checks they match).
    print("exported f(x) = jax.lax.slice_in_dim(x, 0, x.shape[0] % 3) for x: f32[b];",
          "output shapes:", sj.shapes(exp)[1])
    print("call with b = 7 ->", exp.call(jnp.arange(7, dtype=jnp.float32)))

    def g(x: jax.Array) -> jax.Array:
        return x.reshape(-1, 128).sum(axis=1)

    scope = symshape.SymbolicScope(["mod(a, 128) == 0"])
    g_spec = sj.args_specs((np.zeros((256,), np.float32),), ("a",), scope=scope)
    with sj.decisions():
        exp_g = jax.export.export(jax.jit(g))(*g_spec)
    print("exported g(x) = x.reshape(-1, 128).sum(axis=1) for x: f32[a] with mod(a, 128) == 0;",
          "output shapes:", sj.shapes(exp_g)[1])
    try:
        exp_g.call(jnp.ones((200,), jnp.float32))
    except Exception as err:  # the shape assertion fires at call time
        print("calling with a = 200 fails as it should:", str(err).splitlines()[0])
    _ship_demo()


# What the deploying side runs: JAX and NumPy, no symshape.
_CALLER = """
import sys, numpy as np
from jax import export
exp = export.deserialize(bytearray(open(sys.argv[1], "rb").read()))
print("  called with x: f32[2, 256] ->", exp.call(np.ones((2, 256), np.float32)))
try:
    exp.call(np.ones((2, 300), np.float32))
except ValueError as err:
    print("  called with x: f32[2, 300] ->", str(err.__cause__).split(" error: ")[1].split(". ")[0])
print("  symshape imported by the caller:", "symshape" in sys.modules)
"""


def _ship_demo() -> None:
    import os
    import subprocess
    import tempfile

    import jax
    import numpy as np

    import symshape.jax as sj

    def h(x: jax.Array) -> jax.Array:
        sj.assert_shapes(x, "b, 128*k")  # checked when the artifact is called
        return x.sum(axis=1)

    spec = sj.args_specs((np.zeros((2, 256), np.float32),), ("b, s",))
    exp = jax.export.export(jax.jit(h), platforms=("cpu", "cuda", "tpu"))(*spec)
    print("exported h(x) = x.sum(axis=1) for x: f32[b, s], checked against 'b, 128*k'")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "h.jax")
        with open(path, "wb") as f:
            f.write(exp.serialize())
        print(f"serialized: {os.path.getsize(path)} bytes; a process without symshape loads it:")
        out = subprocess.run([sys.executable, "-c", _CALLER, path], capture_output=True,
                             text=True, timeout=300)
        print(out.stdout.rstrip() or out.stderr.rstrip())


if __name__ == "__main__":
    sys.exit(main())
