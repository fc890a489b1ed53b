"""symshape.jax.assert_shapes: symshape's shape checks as JAX shape_assertion operations."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from support.errors import chain_text

import symshape
from symshape import ShapeMismatchError
from symshape.shapecheck import ShapeCheck, introot

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from jax import export  # noqa: E402

import symshape.jax as sj  # noqa: E402
from symshape.jax.ir import _runtime_introot  # noqa: E402

PLATFORMS = ("cpu", "cuda", "tpu")



def messages_in(mlir: str) -> list[str]:
    return re.findall(r'@shape_assertion.*?error_message = "((?:[^"\\]|\\.)*)"', mlir)


def f_pair(x: Any, y: Any) -> Any:
    sj.assert_shapes([x, y], ["n, 2*n", "n"])
    return x.sum(axis=1) * 2.0 + y.sum()


@pytest.fixture(scope="module")
def exported_pair() -> Any:
    specs = sj.args_specs((np.zeros((3, 6), np.float32), np.zeros((3,), np.float32)),
                          ("a, b", "c"))
    return export.export(jax.jit(f_pair), platforms=PLATFORMS)(*specs)


def test_assertions_are_in_the_lowered_module(exported_pair: Any) -> None:
    text = exported_pair.mlir_module()
    ours = [m for m in messages_in(text) if "do not match the specs" in m]
    assert len(ours) == 2
    assert any("args[0].shape[1]" in m and "2*n" in m for m in ours)
    assert any("args[1].shape[0]" in m for m in ours)
    assert all("{0}" in m for m in ours)  # the values are filled in at run time


def test_good_shapes_run(exported_pair: Any) -> None:
    for n in (1, 3, 5):
        x = np.arange(2 * n * n, dtype=np.float32).reshape(n, 2 * n)
        y = np.ones((n,), np.float32)
        np.testing.assert_allclose(exported_pair.call(x, y), f_pair(x, y), rtol=1e-6)


@pytest.mark.parametrize("shapes, expected", [
    (((3, 7), (3,)), r"args\[0\]\.shape\[1\] == 7.*'2\*n' has the value 6"),
    (((3, 6), (4,)), r"args\[1\]\.shape\[0\] == 4.*'n' has the value 3"),
    (((2, 4), (3,)), r"args\[1\]\.shape\[0\] == 3.*'n' has the value 2"),
])
def test_breaking_each_assertion_gives_symshape_message(exported_pair: Any, shapes: Any,
                                                        expected: str) -> None:
    args = [np.ones(s, np.float32) for s in shapes]
    with pytest.raises(ValueError) as err:
        exported_pair.call(*args)
    assert re.search(expected, chain_text(err.value), re.S), chain_text(err.value)


def test_concrete_shapes_are_checked_at_trace_time() -> None:
    x, y = np.ones((2, 4), np.float32), np.ones((2,), np.float32)
    lowered = jax.jit(f_pair).lower(x, y).as_text()
    assert "shape_assertion" not in lowered  # decided statically: nothing to check later
    with pytest.raises(ShapeMismatchError, match=r"args\[0\]\.shape\[1\] == 5"):
        jax.jit(f_pair)(np.ones((2, 5), np.float32), y)
    with pytest.raises(ShapeMismatchError, match="Rank mismatch for args\\[1\\]"):
        jax.jit(f_pair)(x, np.ones((2, 1), np.float32))


def test_statically_decided_assertions_are_dropped_or_raised() -> None:
    def g(x: Any) -> Any:
        sj.assert_shapes([x], ["n, 2*n"])
        return x * 2

    ok = export.export(jax.jit(g))(*sj.args_specs((np.ones((2, 4)),), ("a, 2*a",)))
    assert not [m for m in messages_in(ok.mlir_module()) if "do not match the specs" in m]
    def square(x: Any) -> Any:
        sj.assert_shapes([x], ["n, n"])
        return x * 2

    with pytest.raises(ShapeMismatchError, match=r"args\[0\]\.shape\[1\] == a \+ 1"):
        export.export(jax.jit(square))(*sj.args_specs((np.ones((2, 3)),), ("a, a + 1",)))

    def g4(x: Any) -> Any:
        sj.assert_shapes([x], ["n, 4"])
        return x * 2

    with pytest.raises(ShapeMismatchError, match=r"args\[0\]\.shape\[1\] == 3"):
        export.export(jax.jit(g4))(*sj.args_specs((np.ones((2, 3)),), ("a, 3",)))
    # 2*a == 3 is impossible, but neither JAX nor symshape's bounds see it: checked at run time
    odd = export.export(jax.jit(g))(*sj.args_specs((np.ones((2, 3)),), ("a, 3",)))
    assert [m for m in messages_in(odd.mlir_module()) if "do not match the specs" in m]


def test_statically_decided_with_symshape_decisions() -> None:
    def g(x: Any, y: Any) -> Any:
        sj.assert_shapes([x.reshape(-1), y], ["m", "k"], constraints=["m >= k"])
        return x.sum() + y.sum()

    def constraint_checks(exp: Any) -> list[str]:
        return [m for m in messages_in(exp.mlir_module()) if "m >= k" in m]

    specs = sj.args_specs((np.ones((3, 2)), np.ones((2,))), ("a, b", "b"))
    alone = export.export(jax.jit(lambda x, y: g(x, y)))(*specs)
    assert constraint_checks(alone)  # JAX cannot decide a*b >= b: checked at run time
    with sj.decisions():  # symshape proves it: nothing is left for run time
        exp = export.export(jax.jit(lambda x, y: g(x, y)))(*specs)
    assert not constraint_checks(exp)


def test_runtime_integer_root(tmp_path: Any) -> None:
    def g(x: Any) -> Any:
        sj.assert_shapes([x], ["n*n"])
        return x + 1

    exp = export.export(jax.jit(g))(*sj.args_specs((np.ones((4,)),), ("a",)))
    assert any("no integer" in m or "n^2" in m for m in messages_in(exp.mlir_module()))
    np.testing.assert_allclose(exp.call(np.zeros(9, np.float32)), np.ones(9))
    with pytest.raises(ValueError) as err:
        exp.call(np.zeros(10, np.float32))
    assert "args[0].shape[0] == 10" in chain_text(err.value)


@pytest.mark.parametrize("coeffs", [(0, 0, 1), (0, 1, 1), (-3, 0, 2), (0, 0, 0, 1),
                                    (1, 2, 0, 0, 1)])
def test_runtime_introot_matches_the_program(coeffs: tuple[int, ...]) -> None:
    bits = 31
    fn = jax.jit(lambda v: _runtime_introot(bits, coeffs, v))
    hi = np.iinfo(np.int32).max
    rng = np.random.RandomState(1)
    values = [0, 1, 2, 3, 4, 8, 9, 10, 99, 100, 101, hi, hi - 1]
    values += [int(v) for v in rng.randint(0, hi, size=40)]
    root = introot(bits, coeffs, hi)
    values += [max(0, sum(c * r ** k for k, c in enumerate(coeffs)) + d)
               for r in (root - 1, root) for d in (-1, 0, 1)]
    for v in values:
        v = min(v, hi)
        assert int(fn(np.int32(v))) == introot(bits, coeffs, v), (coeffs, v)


def test_specs_as_dict_and_errors() -> None:
    def g(d: Any) -> Any:
        sj.assert_shapes(d, {"q": "b, h", "k": "b, h"})
        return d["q"] + d["k"]

    ok = {"q": jnp.ones((2, 3)), "k": jnp.ones((2, 3))}
    assert jax.jit(g)(ok).shape == (2, 3)
    with pytest.raises(ShapeMismatchError, match="keys"):
        sj.assert_shapes({"q": jnp.ones((2, 3))}, {"q": "b, h", "k": "b, h"})
    with pytest.raises(symshape.ParseError):
        sj.assert_shapes([jnp.ones(2)], ["b +"])


def test_scope_argument() -> None:
    s = symshape.SymbolicScope(["h >= 2"])
    with pytest.raises(ShapeMismatchError, match="h >= 2"):
        sj.assert_shapes([jnp.ones((1,))], ["h"], scope=s)
    sj.assert_shapes([jnp.ones((2,))], ["h"], scope=s)
    check = ShapeCheck(["h"], scope=s)
    assert check.solve([(3,)]) == {"h": 3}
