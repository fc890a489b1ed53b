"""Real ``jax.export`` on CPU with symshape deciding inside JAX's tracer.

* demonstrations: functions JAX alone rejects (or exports with loose shapes)
  export with the plug-in, and ``exp.call`` matches the plain function for
  every size 1..12;
* specs JAX's solver rejects export with symshape's shape-check plan, whose
  assertions become the exported function's shape assertions;
* no regressions: a sample of cases JAX handles alone gives identical avals
  and results with the plug-in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from jax import export, lax  # noqa: E402

import symshape.jax as sj  # noqa: E402

JAX_BASELINE = jax.__version__ == sj.TESTED_JAX_VERSION  # the "JAX alone" expectations
SIZES = range(1, 13)


def jax_specs(specs: Sequence[str], constraints: Sequence[str] = ()) -> list[Any]:
    scope = export.SymbolicScope(constraints)
    return [jax.ShapeDtypeStruct(export.symbolic_shape(s, scope=scope), np.float32)
            for s in specs]


def fresh(f: Callable[..., Any]) -> Callable[..., Any]:
    """A new function object: jit caches traces per function, and a trace made
    with the plug-in must not be reused by an export without it (or back)."""
    return lambda *args: f(*args)


def export_it(f: Callable[..., Any], specs: Sequence[str], constraints: Sequence[str] = (), *,
              plugin: bool, platforms: Sequence[str] | None = None,
              avals: Sequence[Any] | None = None) -> Any:
    if avals is None:
        avals = jax_specs(specs, constraints)
    exporter = export.export(jax.jit(fresh(f)), platforms=platforms)
    if plugin:
        with sj.decisions():
            return exporter(*avals)
    return exporter(*avals)


def arrays(shapes: Sequence[tuple[int, ...]], seed: int = 0) -> list[np.ndarray]:
    rng = np.random.RandomState(seed)
    return [rng.uniform(-1, 1, size=s).astype(np.float32) for s in shapes]


def check_calls(exp: Any, f: Callable[..., Any],
                shapes_for: Callable[[int], Sequence[tuple[int, ...]]]) -> None:
    for s in SIZES:
        args = arrays(shapes_for(s), seed=s)
        want = f(*args)
        got = exp.call(*args)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-6,
                                   err_msg=f"size {s}: {[a.shape for a in args]}")


# ---------------------------------------------------------------------------
# Demonstrations


@dataclass
class Demo:
    name: str
    f: Callable[..., Any]
    specs: tuple[str, ...]
    shapes_for: Callable[[int], Sequence[tuple[int, ...]]]
    constraints: tuple[str, ...] = ()
    jax_alone: str = ""  # the error JAX gives alone (a substring), or "" when loose
    loose_out: str = ""  # JAX's loose output shape, when it exports
    out_shape: str = ""  # the output shape with the plug-in
    extra: dict[str, Any] = field(default_factory=dict)


DEMOS = [
    Demo("slice_mod3", lambda x: lax.slice_in_dim(x, 0, x.shape[0] % 3), ("b",),
         lambda s: [(s,)], jax_alone="'b' >= 'mod(b, 3)' is inconclusive",
         out_shape="(mod(b, 3),)"),
    Demo("dynamic_slice", lambda x: lax.dynamic_slice_in_dim(x, 0, x.shape[1]), ("a*b, b",),
         lambda s: [((s % 3 + 1) * s, s)], jax_alone="'a*b' >= 'b' is inconclusive",
         out_shape="(b, b)"),
    Demo("reshape_then_slice", lambda x: x.reshape(-1)[: x.shape[0]], ("a, b",),
         lambda s: [(s, 13 - s)], loose_out="(min(a*b, a),)", out_shape="(a,)"),
    Demo("slice_128", lambda x: x[:128], ("a",), lambda s: [(128 * s,)],
         constraints=("mod(a, 128) == 0",), loose_out="(min(a, 128),)", out_shape="(128,)"),
    Demo("reshape_128", lambda x: x.reshape(-1, 128), ("a",), lambda s: [(128 * s,)],
         constraints=("mod(a, 128) == 0",), jax_alone="remainder mod(a, - 128) should be 0",
         out_shape="(floordiv(a, 128), 128)"),
    # Found at JAX's error sites: broadcasting goes through core.definitely_equal,
    # which is structural; reshape's -1 through divide_shape_sizes.
    Demo("even_odd_concat", lambda x: jnp.concatenate([x[::2], x[1::2]]) + x, ("a",),
         lambda s: [(s,)], jax_alone="incompatible shapes for broadcasting",
         out_shape="(floordiv(a + 1, 2) + floordiv(a, 2),)"),
    Demo("halves_concat",
         lambda x: x + jnp.concatenate([x[: x.shape[0] // 2], x[: x.shape[0] // 2],
                                        x[: x.shape[0] % 2]]),
         ("b",), lambda s: [(s,)], jax_alone="incompatible shapes for broadcasting",
         out_shape="(b,)"),
    Demo("window_vs_stride",
         lambda x: lax.reduce_window(x, 0.0, lax.add, (2,), (2,), "VALID")
         + x[::2][: x.shape[0] // 2],
         ("a",), lambda s: [(s,)], jax_alone="incompatible shapes for broadcasting",
         out_shape="(floordiv(a - 2, 2) + 1,)"),
    Demo("strided_conv_vs_slice",
         lambda x: x[: (x.shape[0] - 1) // 2 + 1] + x[::2], ("a",), lambda s: [(s,)],
         jax_alone="incompatible shapes for broadcasting", out_shape="(floordiv(a - 1, 2) + 1,)"),
    Demo("reshape_under_mod4", lambda x: x.reshape(-1, 4)[:, 0] + x[::4], ("a",),
         lambda s: [(4 * s,)], constraints=("mod(a, 4) == 0",),
         jax_alone="remainder mod(a, - 4) should be 0", out_shape="(floordiv(a, 4),)"),
]


def _shape_text(aval: Any) -> str:
    return "(" + ", ".join(str(d) for d in aval.shape) + ("," if len(aval.shape) == 1 else "") \
        + ")"


@pytest.mark.parametrize("demo", DEMOS, ids=lambda d: d.name)
def test_demonstration(demo: Demo) -> None:
    if JAX_BASELINE:
        if demo.jax_alone:
            with pytest.raises(Exception, match=_escape(demo.jax_alone)):
                export_it(demo.f, demo.specs, demo.constraints, plugin=False)
        else:
            loose = export_it(demo.f, demo.specs, demo.constraints, plugin=False)
            assert _shape_text(loose.out_avals[0]) == demo.loose_out
    exp = export_it(demo.f, demo.specs, demo.constraints, plugin=True)
    assert _shape_text(exp.out_avals[0]) == demo.out_shape
    assert not sj.is_installed()
    with sj.decisions():  # "a*b, b" needs symshape's solver when called, too
        check_calls(exp, demo.f, demo.shapes_for)


def _escape(text: str) -> str:
    import re
    return re.escape(text)


# ---------------------------------------------------------------------------
# Specs JAX's solver rejects; symshape's plan solves them


SOLVER_CASES = [
    ("a_and_ab", lambda x, y: y.reshape(x.shape[0], -1) * 2.0, ("a", "a*b"),
     lambda s: [(s,), (s * (s % 4 + 1),)], [[(3,), (7,)], [(2,), (0,)]],
     [r"args\[1\]\.shape\[0\] == 7", r"'b' = 0"]),
    ("linear_system", lambda x, y: x.sum() + y[x.shape[0]:], ("a + b", "a + 2*b"),
     lambda s: [(s + s % 4 + 1,), (s + 2 * (s % 4 + 1),)], [[(5,), (5,)], [(5,), (4,)]],
     [r"'b' = 0", r"'b' = -1"]),
    ("square", lambda x: x * 2.0 + 1.0, ("a*a",),
     lambda s: [(s * s,)], [[(10,)], [(0,)]],
     [r"args\[0\]\.shape\[0\] == 10", r"'a' = 0"]),
    ("with_constraint", lambda x, y: y.reshape(-1, x.shape[0]).sum(0) + x,
     ("a", "a*b"), lambda s: [(s,), (s * (s % 3 + 2),)], [[(3,), (3,)], [(2,), (5,)]],
     [r"b >= 2", r"args\[1\]\.shape\[0\] == 5"], ("b >= 2",)),
]


@pytest.mark.parametrize("case", SOLVER_CASES, ids=lambda c: c[0])
def test_specs_jax_cannot_solve(case: tuple[Any, ...]) -> None:
    _name, f, specs, shapes_for, bad_shapes, messages, *rest = case
    constraints = rest[0] if rest else ()
    if JAX_BASELINE:
        with pytest.raises(ValueError, match="We can only solve linear uni-variate"):
            export_it(f, specs, constraints, plugin=False)
    exp = export_it(f, specs, constraints, plugin=True, platforms=("cpu", "cuda", "tpu"))
    text = exp.mlir_module()
    assert text.count("@shape_assertion") >= 2
    assert "Input shapes do not match the specs" in text  # symshape's messages
    exp = export_it(f, specs, constraints, plugin=True)
    with sj.decisions():
        check_calls(exp, f, shapes_for)
        for shapes, message in zip(bad_shapes, messages, strict=True):
            with pytest.raises(ValueError, match="Input shapes do not match the specs: .*"
                               + message):
                exp.call(*arrays(shapes))


def test_plan_solved_export_called_with_symbolic_shapes() -> None:
    def f(x: Any, y: Any) -> Any:
        return y.reshape(x.shape[0], -1) * 2.0

    inner = export_it(f, ("a", "a*b"), plugin=True)
    with sj.decisions():
        outer = export.export(jax.jit(lambda x, y: inner.call(x, y) + 1.0))(
            *jax_specs(("c", "c*d")))
        assert str(outer.out_avals[0].shape) == "(c, d)"
        x, y = arrays([(2,), (8,)])
        np.testing.assert_allclose(outer.call(x, y), f(x, y) + 1.0, rtol=1e-6)
        with pytest.raises(ValueError, match=r"args\[1\]\.shape\[0\] == e.*"
                                             "could not be checked statically"):
            export.export(jax.jit(lambda x, y: inner.call(x, y)))(*jax_specs(("c", "e")))


def test_solver_fallback_keeps_jax_errors_for_unsolvable_specs() -> None:
    with pytest.raises(ValueError, match="We can only solve linear uni-variate") as err:
        export_it(lambda x: x * 2.0, ("a*b",), plugin=True)
    assert "symshape could not solve them either" in str(err.value)


# ---------------------------------------------------------------------------
# No regressions


def _conv(x: Any) -> Any:
    k = jnp.ones((4, 3, 3), jnp.float32)
    return lax.conv_general_dilated(x, k, (1,), "VALID")


REGRESSION: list[tuple[str, Callable[..., Any], tuple[str, ...], tuple[str, ...],
                       list[list[tuple[int, ...]]]]] = [
    ("sin", jnp.sin, ("b, h",), (), [[(2, 3)], [(5, 1)]]),
    ("add_broadcast", lambda x, y: x + y, ("b, h", "h"), (), [[(2, 3), (3,)], [(4, 1), (1,)]]),
    ("affine", lambda x: x * 2 + 1, ("b",), (), [[(1,)], [(7,)]]),
    ("sum", lambda x: x.sum(axis=0), ("b, h",), (), [[(2, 3)], [(5, 2)]]),
    ("mean", lambda x: x.mean(axis=1), ("b, h",), (), [[(2, 3)], [(5, 2)]]),
    ("max", lambda x: x.max(axis=0), ("b, 4",), (), [[(2, 4)], [(5, 4)]]),
    ("argmax", lambda x: jnp.argmax(x, axis=1), ("b, h",), (), [[(2, 3)], [(5, 2)]]),
    ("concat_self", lambda x: jnp.concatenate([x, x]), ("b, h",), (), [[(2, 3)], [(1, 2)]]),
    ("concat_two", lambda x, y: jnp.concatenate([x, y]), ("a, 3", "b, 3"), (),
     [[(2, 3), (4, 3)], [(1, 3), (1, 3)]]),
    ("flatten", lambda x: x.reshape(-1), ("b, h",), (), [[(2, 3)], [(5, 2)]]),
    ("reshape_pairs", lambda x: x.reshape(x.shape[0], -1, 2), ("b, 2*h",), (),
     [[(2, 4)], [(3, 2)]]),
    ("transpose", lambda x: x.transpose(2, 0, 1), ("b, h, w",), (), [[(2, 3, 4)], [(1, 2, 1)]]),
    ("slice_tail", lambda x: x[1:], ("b",), ("b >= 2",), [[(2,)], [(6,)]]),
    ("stride", lambda x: x[::2], ("b",), (), [[(1,)], [(6,)]]),
    ("slice_cols", lambda x: x[:, :3], ("b, h",), ("h >= 3",), [[(2, 3)], [(1, 5)]]),
    ("dynamic_slice", lambda x: lax.dynamic_slice_in_dim(x, 1, 2), ("b",), ("b >= 3",),
     [[(3,)], [(7,)]]),
    ("dynamic_update", lambda x: lax.dynamic_update_slice_in_dim(x, jnp.ones(2), 1, 0),
     ("b",), ("b >= 3",), [[(3,)], [(6,)]]),
    ("conv", _conv, ("n, 3, w",), ("w >= 3",), [[(1, 3, 3)], [(2, 3, 7)]]),
    ("matmul", lambda x, y: x @ y, ("b, k", "k, n"), (), [[(2, 3), (3, 4)], [(1, 1), (1, 5)]]),
    ("einsum", lambda x, y: jnp.einsum("bij,bjk->bik", x, y), ("b, i, j", "b, j, k"), (),
     [[(2, 3, 4), (2, 4, 5)], [(1, 1, 2), (1, 2, 1)]]),
    ("pad", lambda x: jnp.pad(x, (1, 2)), ("b",), (), [[(1,)], [(5,)]]),
    ("where", lambda x: jnp.where(x > 0, x, 0.0), ("b, h",), (), [[(2, 3)], [(4, 1)]]),
    ("cumsum", lambda x: jnp.cumsum(x), ("b",), (), [[(1,)], [(6,)]]),
    ("top_k", lambda x: lax.top_k(x, 2)[0], ("b, h",), ("h >= 2",), [[(2, 3)], [(1, 2)]]),
    ("argsort", lambda x: jnp.argsort(x), ("b",), (), [[(1,)], [(6,)]]),
    ("sort", lambda x: jnp.sort(x, axis=0), ("b, h",), (), [[(3, 2)], [(1, 4)]]),
    ("broadcast_to", lambda x: jnp.broadcast_to(x[:, None], (x.shape[0], 3)), ("b",), (),
     [[(2,)], [(5,)]]),
    ("repeat", lambda x: jnp.repeat(x, 2), ("b",), (), [[(1,)], [(4,)]]),
    ("softmax", lambda x: jax.nn.softmax(x, axis=-1), ("b, h",), (), [[(2, 3)], [(3, 1)]]),
    ("layernorm", lambda x: (x - x.mean(-1, keepdims=True)) / (x.std(-1, keepdims=True) + 1),
     ("b, h",), (), [[(2, 3)], [(3, 1)]]),
    ("split", lambda x: jnp.split(x, 2)[1], ("2*k",), (), [[(2,)], [(8,)]]),
    ("flip", lambda x: jnp.flip(x, 0), ("b, h",), (), [[(2, 3)], [(1, 1)]]),
    ("reduce_window", lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2,), (1,), "VALID"),
     ("b",), ("b >= 2",), [[(2,)], [(5,)]]),
    ("stack", lambda x: jnp.stack([x, x * 2]), ("b, h",), (), [[(2, 3)], [(1, 1)]]),
    ("second_half", lambda x: x[x.shape[0] // 2:], ("b",), (), [[(1,)], [(7,)]]),
    ("reshape_mod", lambda x: x.reshape(x.shape[0] // 4, 4).sum(1), ("a",), ("mod(a, 4) == 0",),
     [[(4,)], [(12,)]]),
    ("constrained_slice", lambda x, y: x[: y.shape[0]], ("a", "b"), ("a >= b",),
     [[(3,), (2,)], [(5,), (5,)]]),
    ("iota_like", lambda x: x + jnp.arange(x.shape[0], dtype=jnp.float32), ("b",), (),
     [[(1,)], [(5,)]]),
]


@pytest.mark.parametrize("case", REGRESSION, ids=lambda c: c[0])
def test_no_regression(case: tuple[Any, ...]) -> None:
    _name, f, specs, constraints, shape_sets = case
    avals = jax_specs(specs, constraints)  # one scope for both, so avals compare
    alone = export_it(f, specs, plugin=False, avals=avals)
    plugged = export_it(f, specs, plugin=True, avals=avals)
    assert alone.in_avals == plugged.in_avals
    assert alone.out_avals == plugged.out_avals
    assert [str(a) for a in alone.out_avals] == [str(a) for a in plugged.out_avals]
    for shapes in shape_sets:
        args = arrays(shapes)
        want = alone.call(*args)
        got = plugged.call(*args)
        for w, g in zip(jax.tree.leaves(want), jax.tree.leaves(got), strict=True):
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


def test_regression_sample_is_large_enough() -> None:
    assert len(REGRESSION) >= 30
