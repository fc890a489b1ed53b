"""Reshapes that model code writes, exported with the real ``jax.export`` under
``symshape.jax.decisions()``: the batched ``reshape(b, -1, 128)`` of a sequence
whose length is a multiple of 128, and friends.  JAX alone cannot divide
``b*s`` by ``128*b``; symshape cancels the common factor ``b``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
from jax import export  # noqa: E402

import symshape.jax as sj  # noqa: E402

CASES: list[tuple[str, str, tuple[str, ...], Callable[[Any], Any], tuple[int, ...], str]] = [
    # (name, spec, constraints, function, a good shape, the output shape's text)
    ("batched rows of 128", "b, s", ("mod(s, 128) == 0",),
     lambda x: x.reshape(x.shape[0], -1, 128), (3, 384), "(b, floordiv(s, 128), 128)"),
    ("heads of a batch", "b, t, 64*h", (),
     lambda x: x.reshape(x.shape[0], x.shape[1], -1, 64), (2, 5, 128), "(b, t, h, 64)"),
    ("blocks of a batch of sequences", "b, s, d", ("mod(s, 16) == 0",),
     lambda x: x.reshape(x.shape[0], -1, 16, x.shape[2]), (2, 48, 3),
     "(b, floordiv(s, 16), 16, d)"),
]


def _export(spec: str, constraints: tuple[str, ...], fn: Callable[[Any], Any]) -> Any:
    arg, = sj.args_specs([np.zeros((1,) * len(spec.split(",")), np.float32)], [spec],
                         constraints=list(constraints))
    with sj.decisions():
        return export.export(jax.jit(fn))(arg)


@pytest.mark.parametrize("name, spec, constraints, fn, good, out", CASES,
                         ids=[c[0] for c in CASES])
def test_the_reshape_exports_and_runs(name: str, spec: str, constraints: tuple[str, ...],
                                      fn: Callable[[Any], Any], good: tuple[int, ...],
                                      out: str) -> None:
    exp = _export(spec, constraints, fn)
    assert str(tuple(exp.out_avals[0].shape)).replace("'", "") == out
    x = np.arange(np.prod(good), dtype=np.float32).reshape(good)
    np.testing.assert_array_equal(exp.call(x), fn(x))


def test_the_batched_reshape_fails_in_jax_alone() -> None:
    """What the decisions add: JAX's own procedure cannot divide ``b*s`` by
    ``128*b``, although ``s`` is a multiple of 128."""
    arg, = sj.args_specs([np.zeros((1, 1), np.float32)], ["b, s"],
                         constraints=["mod(s, 128) == 0"])
    with pytest.raises(Exception, match="(?i)divisible|not divisible|cannot divide|reshape"):
        export.export(jax.jit(lambda x: x.reshape(x.shape[0], -1, 128)))(arg)


def test_a_bad_length_fails_in_the_words_of_the_constraint() -> None:
    exp = _export("b, s", ("mod(s, 128) == 0",), lambda x: x.reshape(x.shape[0], -1, 128))
    with pytest.raises(ValueError, match=r"floordiv\(s, 128\)"):
        exp.call(np.zeros((3, 100), np.float32))
    with pytest.raises(ValueError):
        exp.call(np.zeros((3, 384, 1), np.float32))
    assert exp.call(np.zeros((1, 128), np.float32)).shape == (1, 1, 128)


def test_the_artifact_serializes_and_runs_after_a_round_trip() -> None:
    exp = _export("b, s", ("mod(s, 128) == 0",), lambda x: x.reshape(x.shape[0], -1, 128))
    back = export.deserialize(exp.serialize())
    x = np.ones((2, 256), np.float32)
    assert back.call(x).shape == (2, 2, 128)
    with pytest.raises(ValueError):
        back.call(np.ones((2, 200), np.float32))
