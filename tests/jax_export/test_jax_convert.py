"""symshape.jax conversions: to_jax/from_jax, args_specs, shapes(exported)."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.exprgen import build, build_with, evaluate, jax_ops, trees, valuations
from support.paths import ROOT

import symshape
from symshape import ParseError, SymbolicScope, SymshapeError

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from jax import export  # noqa: E402
from jax._src import core as jax_core  # noqa: E402  (test-only: evaluate JAX expressions)

import symshape.jax as sj  # noqa: E402

SETTINGS = settings(max_examples=150, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
NAMES = ("a", "b", "c")
REPO = str(ROOT)


def jax_value(e: Any, env: dict[str, int]) -> int:
    """Value of a JAX dimension with JAX's own evaluator."""
    return e if isinstance(e, int) else int(e._evaluate(env))


def test_import_symshape_does_not_import_jax() -> None:
    code = ("import symshape, symshape.shapecheck, sys; "
            "assert 'jax' not in sys.modules, sorted(m for m in sys.modules if 'jax' in m)")
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr


# ---------------------------------------------------------------------------
# Expressions


@SETTINGS
@given(trees(NAMES), st.lists(valuations(NAMES), min_size=3, max_size=3))
def test_round_trip_and_values(tree: tuple, envs: list[dict[str, int]]) -> None:
    scope = SymbolicScope()
    e = build(tree, scope)
    j = sj.to_jax(e)
    assert sj.from_jax(j) == e
    for env in envs:
        assert jax_value(j, env) == evaluate(tree, env)


CONSTRAINED = ["a >= b + 2", "mod(c, 3) == 0", "b*c <= 200"]


@SETTINGS
@given(trees(NAMES, max_leaves=6), st.lists(valuations(NAMES, hi=30), min_size=4, max_size=4))
def test_round_trip_in_constrained_scope(tree: tuple, envs: list[dict[str, int]]) -> None:
    scope = SymbolicScope(CONSTRAINED)
    e = build(tree, scope)
    j = sj.to_jax(e)
    assert sj.from_jax(j) == e
    for env in envs:
        if env["a"] >= env["b"] + 2 and env["c"] % 3 == 0 and env["b"] * env["c"] <= 200:
            assert jax_value(j, env) == evaluate(tree, env)


def _jax_tree(t: tuple, dims: dict[str, Any]) -> Any:
    """Build a JAX expression with JAX's operator overloading."""
    return build_with(t, dims.__getitem__, jax_ops(jax_core))


@SETTINGS
@given(trees(NAMES), st.lists(valuations(NAMES), min_size=3, max_size=3))
def test_from_jax_of_jax_built_expressions(tree: tuple, envs: list[dict[str, int]]) -> None:
    js = export.SymbolicScope()
    dims = dict(zip(NAMES, export.symbolic_shape(", ".join(NAMES), scope=js), strict=True))
    j = _jax_tree(tree, dims)
    e = sj.from_jax(j)
    for env in envs:
        want = evaluate(tree, env)
        assert jax_value(j, env) == want
        assert (e.evaluate(env) if isinstance(e, symshape.DimExpr) else e) == want
    # and back: JAX may print it differently, but it is the same value
    j2 = sj.to_jax(e)
    for env in envs:
        assert jax_value(j2, env) == evaluate(tree, env)


def test_specific_expressions_keep_their_jax_spelling() -> None:
    s = SymbolicScope(["mod(a, 128) == 0"])
    a, b = s.symbolic_shape("a, b")
    js = sj.to_jax(s)
    cases = {a % 3: "mod(a, 3)", a // 128: "floordiv(a, 128)",
             symshape.min_dim(a * b, b + 300): "min(a*b, b + 300)", a * b - 3: "a*b - 3"}
    for e, text in cases.items():
        j = sj.to_jax(e)
        assert str(j) == text, (e, j)  # JAX prints what symshape prints
        # and it is the expression JAX itself builds from that text
        (jax_own,) = export.symbolic_shape(text, scope=js)
        assert j.scope is js and j == jax_own, (e, j, jax_own)
        assert sj.from_jax(j) == e
    assert sj.to_jax(a % 128) == 0  # JAX applies its own rule from the constraint
    assert sj.to_jax(7) == 7
    assert sj.to_jax((a, 3, b)) == (sj.to_jax(a), 3, sj.to_jax(b))
    assert sj.from_jax(sj.to_jax((a, 3, b))) == (a, 3, b)


def test_scopes_map_one_to_one() -> None:
    s = SymbolicScope(["a >= b + 8", "mod(a, 16) == 0", "c == d + e"])
    js = sj.to_jax(s)
    assert sj.to_jax(s) is js
    assert sj.from_jax(js) is s
    a, = s.symbolic_shape("a")
    assert sj.to_jax(a).scope is js
    # the JAX scope decides with the translated constraints
    ja, jb = export.symbolic_shape("a, b", scope=js)
    assert ja >= jb + 8
    assert ja % 16 == 0
    # a JAX scope that did not come from symshape gets its own symshape scope
    js2 = export.SymbolicScope(["a >= b + 2", "mod(a, 4) == 0", "x*y == 12"])
    s2 = sj.from_jax(js2)
    assert isinstance(s2, SymbolicScope)
    assert sj.from_jax(js2) is s2 and sj.to_jax(s2) is js2
    a2, b2 = s2.symbolic_shape("a, b")
    assert a2 - b2 >= 2
    x, y = s2.symbolic_shape("x, y")
    assert x * y == 12


def test_equality_constraints_are_oriented_for_jax() -> None:
    # JAX only accepts `k*term == e`; symshape picks an orientation JAX accepts.
    s = SymbolicScope(["a + b == c*d", "2*e == f + 4"])
    js = sj.to_jax(s)
    texts = [c.debug_str for c in js._explicit_constraints]
    assert texts[0].split("==")[0].strip() in ("a", "b", "c*d", "d*c")
    a, b, c, d = s.symbolic_shape("a, b, c, d")
    assert sj.from_jax(sj.to_jax(a + b)) == a + b
    ja, jb, jc, jd = export.symbolic_shape("a, b, c, d", scope=js)
    assert jax_core.definitely_equal(ja + jb, jc * jd)


def test_equalities_jax_cannot_take_are_explained() -> None:
    # JAX takes one rule per left-hand term, and none whose right side contains it:
    # after '2*a == max(a, b)' took the term a, 'a == 1' has no JAX form left.
    s = SymbolicScope(["2*a == max(a, b)", "2*a == a + 1"])
    with pytest.raises(sj.JaxConversionError,
                       match=r"'2\*a == a \+ 1'.*single term.*Tried.*same left-hand-side") as err:
        sj.to_jax(s)
    assert isinstance(err.value, ValueError)
    b, = s.symbolic_shape("b")
    with pytest.raises(sj.JaxConversionError):
        sj.to_jax(b + 1)
    # a self-referential form is never handed to JAX (it would recurse forever)
    js = sj.to_jax(SymbolicScope(["a == a*b"]))
    assert [c.debug_str for c in js._explicit_constraints] == ["a*b == a"]


def test_conversion_errors_say_which_part() -> None:
    js = export.SymbolicScope()
    a, b = export.symbolic_shape("a, b", scope=js)
    with pytest.raises(sj.JaxConversionError, match=r"floordiv\(a, b - 3\)") as err:
        sj.from_jax(a // (b - 3))
    assert isinstance(err.value, ValueError)
    # Unicode names are names in both libraries (JAX accepts them, so does symshape)
    alpha, = export.symbolic_shape("α", scope=export.SymbolicScope())
    assert str(sj.from_jax(alpha)) == "α"
    # the failure is remembered, not a broken half-converted cache
    with pytest.raises(sj.JaxConversionError):
        sj.from_jax(a // (b - 3))
    assert sj.from_jax(a // b) == sj.from_jax(js).symbolic_shape("floordiv(a, b)")[0]


def test_to_jax_rejects_other_types() -> None:
    with pytest.raises(TypeError):
        sj.to_jax("a")
    with pytest.raises(TypeError):
        sj.from_jax(1.5)


def test_mixed_scopes_in_one_shape_are_rejected() -> None:
    a, = symshape.symbolic_shape("a")
    b, = symshape.symbolic_shape("b")
    with pytest.raises(sj.JaxConversionError, match="different scopes"):
        sj.to_jax((a, b))


# ---------------------------------------------------------------------------
# args_specs and shapes


def test_args_specs_like_jax() -> None:
    args = (np.zeros((4, 6, 3), np.float32), {"w": np.zeros((6,), np.int32),
                                             "z": jax.ShapeDtypeStruct((2, 5), jnp.bfloat16)})
    specs = sj.args_specs(args, ("b, 2*h, _", {"w": "2*h", "z": None}),
                          constraints=["h >= 2"])
    x, d = specs
    assert x.dtype == np.float32 and d["w"].dtype == np.int32 and d["z"].dtype == jnp.bfloat16
    assert d["z"].shape == (2, 5)
    assert x.shape[2] == 3
    b, two_h = x.shape[:2]
    assert str(b) == "b" and str(two_h) == "2*h"
    assert two_h.scope is b.scope is d["w"].shape[0].scope
    assert b.scope._explicit_constraints[0].debug_str == "h >= 2"
    # a single string applies to every argument
    one = sj.args_specs([np.zeros((2, 3)), np.zeros((5, 3))], "n, ...")
    assert str(one[0].shape[0]) == "n" and one[1].shape[1] == 3
    # a prefix: one spec for a whole subtree
    pre = sj.args_specs({"p": (np.zeros((2, 3)), np.zeros((2, 4)))}, {"p": "k, _"})
    assert [str(s.shape[0]) for s in pre["p"]] == ["k", "k"]


def test_args_specs_scope_and_export() -> None:
    s = SymbolicScope(["mod(n, 8) == 0"])
    specs = sj.args_specs((np.zeros((16, 3), np.float32),), ("n, _",), scope=s)
    assert specs[0].shape[0].scope is sj.to_jax(s)
    exp = export.export(jax.jit(lambda x: jnp.sin(x).sum(axis=0)))(*specs)
    ins, outs = sj.shapes(exp)
    n, = s.symbolic_shape("n")
    assert ins == ((n, 3),) and outs == ((3,),)
    np.testing.assert_allclose(exp.call(np.ones((8, 3), np.float32)), np.sin(1.0) * 8 * np.ones(3),
                               rtol=1e-6)


def test_args_specs_errors_name_the_argument() -> None:
    args = (np.zeros((4, 6)), np.zeros((3,)))
    with pytest.raises(ParseError, match=r"args\[1\]") as err:
        sj.args_specs(args, ("a, b", "a +"))
    assert err.value.column is not None
    with pytest.raises(ParseError, match=r"args\[0\].*rank"):
        sj.args_specs(args, ("a, b, c", "a"))
    with pytest.raises(ParseError, match=r"args\[0\].*constant 5"):
        sj.args_specs(args, ("a, 5", "a"))
    with pytest.raises(SymshapeError, match="prefix"):
        sj.args_specs(args, ("a, b", "a", "c"))
    with pytest.raises(SymshapeError, match="string or None"):
        sj.args_specs(args, ("a, b", 3))
    with pytest.raises(SymshapeError, match="either scope= or constraints="):
        sj.args_specs(args, "a, ...", constraints=["a >= 2"], scope=SymbolicScope())


def test_shapes_of_an_export_with_a_jax_made_scope() -> None:
    js = export.SymbolicScope(["a >= b"])
    spec = jax.ShapeDtypeStruct(export.symbolic_shape("a, 2*b", scope=js), np.float32)
    exp = export.export(jax.jit(lambda x: x.reshape(-1)))(spec)
    ins, outs = sj.shapes(exp)
    a, b = sj.from_jax(js).symbolic_shape("a, b")
    assert ins == ((a, 2 * b),) and outs == ((2 * a * b,),)
    assert a >= b  # the constraint was translated
