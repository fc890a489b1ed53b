"""symshape.typing with JAX: a small model checked eagerly, under jax.jit (once per
trace) and under jax.export (proved, refuted at once, or checked at run time by the
artifact, also when it is deserialized in another process)."""
# Linters read the strings in Shaped[T, "b, d"] as forward references (as with
# jaxtyping's annotations); they are shape specs.
# ruff: noqa: F722, F821, UP037

from __future__ import annotations

import re
import subprocess
import sys
import warnings
from typing import Any

import pytest
from support.errors import chain_text

from symshape import ShapeMismatchError
from symshape.typing import Shaped, UnsettledShapeWarning, shapecheck

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from jax import export  # noqa: E402

A = jax.Array


@shapecheck
def mlp(x: Shaped[A, "b, d"], w1: Shaped[A, "d, 4*d"], w2: Shaped[A, "4*d, d"]
        ) -> Shaped[A, "b, d"]:
    return jax.nn.relu(x @ w1) @ w2


@shapecheck(constraints=["mod(s, 128) == 0"])
def attention(x: Shaped[A, "b, s, d"], w: Shaped[A, "d, 4*d"], mask: Shaped[A, "s, s"]
              ) -> Shaped[A, "b, s, d"]:
    q, k, v, _ = jnp.split(x @ w, 4, axis=-1)
    scores = q @ jnp.swapaxes(k, 1, 2) / jnp.sqrt(x.shape[-1]) + mask
    return jax.nn.softmax(scores, axis=-1) @ v


def z(*shape: Any) -> Any:
    return jnp.zeros(shape, jnp.float32)


def sds(*shape: Any) -> Any:
    return jax.ShapeDtypeStruct(shape, jnp.float32)



def our_assertions(mlir: str) -> list[str]:
    return [m for m in re.findall(r'error_message = "((?:[^"\\]|\\.)*)"', mlir)
            if m.startswith("Input shapes do not match the specs")]


def test_eager_and_jitted_calls() -> None:
    args = (z(2, 128, 8), z(8, 32), z(128, 128))
    assert attention(*args).shape == (2, 128, 8)
    assert jax.jit(attention)(*args).shape == (2, 128, 8)
    assert jax.jit(mlp)(z(3, 8), z(8, 32), z(32, 8)).shape == (3, 8)
    with pytest.raises(ShapeMismatchError, match=r"mod\(s, 128\) == 0"):
        jax.jit(attention)(z(2, 64, 8), z(8, 32), z(64, 64))
    with pytest.raises(ShapeMismatchError, match=r"w2.shape\[0\] == 33"):
        jax.jit(mlp)(z(3, 8), z(8, 32), z(33, 8))
    with pytest.raises(ShapeMismatchError, match=r"mask.shape\[0\] == 64"):
        attention(z(2, 128, 8), z(8, 32), z(64, 128))


def test_checked_once_per_trace_and_never_in_the_compiled_function() -> None:
    @shapecheck
    def f(x: Shaped[A, "b, 2*h"]) -> Shaped[A, "b, h"]:
        return x[:, ::2]

    checker = f.__symshape_checker__  # type: ignore[attr-defined]
    calls = []
    original = checker.check

    def counting(*a: Any, **k: Any) -> Any:
        calls.append(1)
        return original(*a, **k)

    checker.check = counting
    jf = jax.jit(f)
    for _ in range(3):
        jf(z(2, 6))
    assert len(calls) == 2  # the arguments and the result, in the one trace
    jf(z(4, 6))  # a new shape: a new trace, checked again
    assert len(calls) == 4


def test_export_proves_refutes_or_checks_at_run_time() -> None:
    b, s, d = export.symbolic_shape("b, s, d")
    # What the symbolic shapes imply is proved and dropped; mod(s, 128) == 0 is not
    # implied, so it ships in the artifact as a run-time check with symshape's message,
    # and a warning says which constraint of the export would settle it.
    with pytest.warns(UnsettledShapeWarning, match=r"in the call of attention: the "
                      r"constraint 'mod\(s, 128\) == 0' is not implied by the export's shapes "
                      r"\(it fails e.g. for \{'s': 1\}\).* would settle it: "
                      r"'mod\(s, 128\) == 0'$"):
        exp = export.export(jax.jit(attention))(sds(b, s, d), sds(d, 4 * d), sds(s, s))
    ours = our_assertions(exp.mlir_module())
    assert len(ours) == 1 and "mod(s, 128) == 0" in ours[0]
    assert exp.call(z(2, 128, 8), z(8, 32), z(128, 128)).shape == (2, 128, 8)
    with pytest.raises(Exception) as err:
        exp.call(z(2, 96, 8), z(8, 32), z(96, 96))
    assert "the constraint 'mod(s, 128) == 0' of the scope does not hold" in \
        chain_text(err.value)

    # Shapes that imply the constraint: nothing left to check at run time.
    b, k, d = export.symbolic_shape("b, k, d")
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnsettledShapeWarning)
        exp = export.export(jax.jit(attention))(sds(b, 128 * k, d), sds(d, 4 * d),
                                                sds(128 * k, 128 * k))
    assert our_assertions(exp.mlir_module()) == []
    # The export's own constraints settle it too.
    b, s, d = export.symbolic_shape("b, s, d", constraints=["s >= 1000"])
    with pytest.warns(UnsettledShapeWarning, match=r"fails e.g. for \{'s': 1000\}"):
        export.export(jax.jit(attention))(sds(b, s, d), sds(d, 4 * d), sds(s, s))

    # A rule that fails for every shape is refuted while exporting.
    b, s, d = export.symbolic_shape("b, s, d")
    with pytest.raises(ShapeMismatchError, match=r"w.shape\[1\] == 3\*d"):
        export.export(jax.jit(attention))(sds(b, s, d), sds(d, 3 * d), sds(s, s))


def test_the_exported_mlp_checks_its_result() -> None:
    @shapecheck
    def wrong(x: Shaped[A, "b, d"]) -> Shaped[A, "b, 2*d"]:
        return jnp.concatenate([x, x, x], axis=1)

    b, d = export.symbolic_shape("b, d")
    with pytest.raises(ShapeMismatchError, match=r"the value returned by .*wrong: .*"
                                                 r"return.shape\[1\] == 3\*d"):
        export.export(jax.jit(wrong))(sds(b, d))
    exp = export.export(jax.jit(mlp))(sds(b, d), sds(d, 4 * d), sds(4 * d, d))
    assert our_assertions(exp.mlir_module()) == []
    assert exp.call(z(3, 8), z(8, 32), z(32, 8)).shape == (3, 8)


def test_the_artifact_checks_in_another_process(tmp_path: Any) -> None:
    b, s, d = export.symbolic_shape("b, s, d")
    with pytest.warns(UnsettledShapeWarning):
        exp = export.export(jax.jit(attention))(sds(b, s, d), sds(d, 4 * d), sds(s, s))
    path = tmp_path / "attention.bin"
    path.write_bytes(exp.serialize())
    code = (
        "import sys, jax.numpy as jnp\n"
        "from jax import export\n"
        f"exp = export.deserialize(open({str(path)!r}, 'rb').read())\n"
        "z = lambda *s: jnp.zeros(s, jnp.float32)\n"
        "print(exp.call(z(1, 256, 4), z(4, 16), z(256, 256)).shape)\n"
        "try:\n"
        "    exp.call(z(1, 100, 4), z(4, 16), z(100, 100))\n"
        "except Exception as e:\n"
        "    while e is not None:\n"
        "        print(e)\n"
        "        e = e.__cause__ or e.__context__\n"
        "print('symshape imported:', 'symshape' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert "(1, 256, 4)" in out.stdout
    assert "the constraint 'mod(s, 128) == 0' of the scope does not hold: " \
           "'mod(s, 128)' == 100" in out.stdout
    assert "symshape imported: False" in out.stdout


def test_jaxtyping_syntax_under_export() -> None:
    @shapecheck
    def f(x: Shaped[A, "*batch c"], y: Shaped[A, "*batch #c"]) -> Shaped[A, "*batch c"]:
        return x + y

    b, c = export.symbolic_shape("b, c")
    exp = export.export(jax.jit(f))(sds(b, 3, c), sds(b, 3, 1))
    assert exp.call(z(2, 3, 5), z(2, 3, 1)).shape == (2, 3, 5)
    with pytest.raises(ShapeMismatchError, match=r"'\*batch' covers 1 dimension"):
        export.export(jax.jit(f))(sds(b, 3, c), sds(3, 1))


def test_the_warning_states_the_constraint_in_the_exports_variables() -> None:
    @shapecheck(constraints=["n >= 2*m"])
    def f(x: Shaped[A, "n"], y: Shaped[A, "m"]) -> None:
        return None

    p, q = export.symbolic_shape("p, q")
    with pytest.warns(UnsettledShapeWarning, match=r"'n >= 2\*m', which is '\(3\*p\) >= 2\*q' "
                                                   r"for the export's shapes, .* would settle it: "
                                                   r"'p >= q' or '\(3\*p\) >= 2\*q'"):
        export.export(jax.jit(f))(sds(3 * p), sds(q))
    p, q = export.symbolic_shape("p, q", constraints=["p >= q"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnsettledShapeWarning)
        export.export(jax.jit(f))(sds(3 * p), sds(q))  # 3*p >= 2*q follows from p >= q
