"""symshape deciding inside JAX's tracer: install/uninstall, the patched decisions,
and soundness against brute force."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from support.exprgen import build_with, evaluate, jax_ops, trees

jax = pytest.importorskip("jax")
from jax import export  # noqa: E402
from jax._src import core as jax_core  # noqa: E402  (test-only: the functions symshape patches)
from jax._src.export import shape_poly  # noqa: E402

import symshape.jax as sj  # noqa: E402

Inconclusive = jax_core.InconclusiveDimensionOperation
SETTINGS = settings(max_examples=120, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
NAMES = ("a", "b", "c")


def dims(spec: str, constraints: tuple[str, ...] = ()) -> tuple[Any, ...]:
    return tuple(export.symbolic_shape(spec, scope=export.SymbolicScope(constraints)))


def _originals() -> tuple[Any, ...]:
    return (shape_poly._bounds_decision, shape_poly._DimExpr._divmod,
            jax_core.definitely_equal, shape_poly.solve_dim_vars)


# ---------------------------------------------------------------------------
# Installing and restoring


def test_context_manager_installs_and_restores() -> None:
    orig = _originals()
    b, = dims("b")
    with pytest.raises(Inconclusive):
        _ = b >= b % 3
    assert not sj.is_installed()
    with sj.decisions():
        assert sj.is_installed()
        assert _originals() != orig
        assert b >= b % 3
        assert not b < b % 3
    assert not sj.is_installed()
    assert _originals() == orig
    with pytest.raises(Inconclusive):
        _ = b >= b % 3


def test_restored_on_exceptions_and_nesting() -> None:
    orig = _originals()
    b, = dims("b")
    with pytest.raises(RuntimeError, match="boom"), sj.decisions():
        raise RuntimeError("boom")
    assert _originals() == orig
    with sj.decisions():
        with sj.decisions():
            assert b >= b % 3
        assert sj.is_installed()  # the outer block is still active
        assert b >= b % 3
    assert _originals() == orig


def test_install_uninstall() -> None:
    orig = _originals()
    b, = dims("b")
    sj.install()
    try:
        sj.install()  # idempotent
        assert b >= b % 3
        with sj.decisions():
            pass
        assert sj.is_installed()  # the block does not undo install()
        assert b >= b % 3
    finally:
        sj.uninstall()
    assert _originals() == orig
    with pytest.raises(Inconclusive):
        _ = b >= b % 3
    sj.uninstall()  # idempotent too
    assert _originals() == orig


# ---------------------------------------------------------------------------
# The decisions


def test_comparisons_jax_leaves_inconclusive() -> None:
    a, b = dims("a, b")
    with pytest.raises(Inconclusive):
        _ = a * b >= b
    with sj.decisions():
        assert a * b >= b
        assert b <= a * b
        assert not a * b < b
        assert a * b + 1 > a
        with pytest.raises(Inconclusive):  # genuinely undecided stays undecided
            _ = a >= b


def test_max_min_return_the_jax_operand() -> None:
    a, b = dims("a, b")
    m = jax_core.min_dim(a * b, a)
    assert shape_poly.is_symbolic_dim(m) and "min" in str(m)
    with sj.decisions():
        assert jax_core.min_dim(a * b, a) is a
        assert jax_core.max_dim(a * b, a) is not a
        assert str(jax_core.max_dim(a * b, a)) == str(a * b)
        assert jax_core.max_dim(b % 3, b) is b
    x, = dims("x", ("mod(x, 128) == 0",))
    assert "min" in str(jax_core.min_dim(x, 128))
    with sj.decisions():
        assert jax_core.min_dim(x, 128) == 128
        assert jax_core.max_dim(128, x) is x


def test_definitely_equal() -> None:
    a, = dims("a")
    e = (a + 1) // 2 + a // 2
    assert not jax_core.definitely_equal(e, a)
    with sj.decisions():
        assert jax_core.definitely_equal(e, a)
        assert jax_core.definitely_equal(a, 2 * (a // 2) + a % 2)
        assert not jax_core.definitely_equal(a, a + 1)
        assert not jax_core.definitely_equal(a, 1)  # a == 1 is possible, not certain
        assert jax_core.definitely_equal(3, 3)
    assert not jax_core.definitely_equal(e, a)


def test_divmod_with_divisibility_constraints() -> None:
    a, = dims("a", ("mod(a, 128) == 0",))
    q, r = divmod(a, -128)
    assert shape_poly.is_symbolic_dim(r)
    with sj.decisions():
        q, r = divmod(a, -128)
        assert r == 0 and str(-q) == "floordiv(a, 128)"
        assert jax_core.divide_shape_sizes((a,), (-1, 128)) == q
    b, = dims("b", ("mod(b, 4) == 1",))
    assert shape_poly.is_symbolic_dim(divmod(b, -4)[1])
    with sj.decisions():
        q2, r2 = divmod(b, -4)  # Python: divmod(5, -4) == (-2, -3)
        assert r2 == -3 and str(q2).replace(" ", "") == "floordiv(b,-4)"
    c, d = dims("c, d", ("mod(c, 4) == 0",))
    with sj.decisions():
        assert divmod(c + 8 * d, -4)[1] == 0
        q3, r3 = divmod(4 * c * d + 2 * d, 2 * d)  # JAX divides exactly on its own
        assert (str(q3), r3) == ("2*c + 1", 0)


def test_falls_back_to_jax_for_what_symshape_cannot_read(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A scope that cannot be translated (simulated: every JAX name is a symshape
    # name now, 'α' included) is answered by JAX alone.
    from symshape.jax import plugin

    def untranslatable(_scope: Any) -> Any:
        raise sj.JaxConversionError("not translatable (test)")
    monkeypatch.setattr(plugin, "bridge_for_jax", untranslatable)
    x, y = dims("α, y")
    with sj.decisions():
        assert x + y >= y
        with pytest.raises(Inconclusive):
            _ = x * y >= y
        assert not jax_core.definitely_equal(x, y)


# ---------------------------------------------------------------------------
# Soundness: every answer symshape gives inside JAX holds at every sampled point


def _jax_tree(t: tuple, env: dict[str, Any]) -> Any:
    return build_with(t, env.__getitem__, jax_ops(jax_core))


_GRID = [dict(zip(NAMES, v, strict=True)) for v in itertools.product(range(1, 8), repeat=3)]
_RNG = random.Random(0)
_POINTS = _GRID[::3] + [dict(zip(NAMES, (_RNG.randint(1, 500) for _ in NAMES), strict=True))
                        for _ in range(60)]


def _answer(fn: Any) -> Any:
    try:
        return fn()
    except Inconclusive:
        return "inconclusive"


CONSTRAINT_SETS = [(), ("a >= b + 2",), ("mod(c, 3) == 0",)]


def _valid(p: dict[str, int], constraints: tuple[str, ...]) -> bool:
    if "a >= b + 2" in constraints and not p["a"] >= p["b"] + 2:
        return False
    return not ("mod(c, 3) == 0" in constraints and p["c"] % 3)


def _jax_value(e: Any, p: dict[str, int]) -> int:
    return e if isinstance(e, int) else int(e._evaluate(p))


@pytest.mark.parametrize("constraints", CONSTRAINT_SETS, ids=str)
@SETTINGS
@given(t1=trees(NAMES, max_leaves=5), t2=trees(NAMES, max_leaves=5))
def test_soundness_and_no_regression(constraints: tuple[str, ...], t1: tuple, t2: tuple) -> None:
    js = export.SymbolicScope(constraints)
    env = dict(zip(NAMES, export.symbolic_shape("a, b, c", scope=js), strict=True))
    x, y = _jax_tree(t1, env), _jax_tree(t2, env)
    alone = (_answer(lambda: x >= y), _answer(lambda: jax_core.definitely_equal(x, y)))
    with sj.decisions():
        xs, ys = _jax_tree(t1, env), _jax_tree(t2, env)
        ge = _answer(lambda: xs >= ys)
        eq = _answer(lambda: jax_core.definitely_equal(xs, ys))
        mx = _answer(lambda: jax_core.max_dim(xs, ys))
        divs = [(k, _answer(lambda k=k: divmod(xs, k))) for k in (2, 3, -3)]
    if alone[0] != "inconclusive":
        assert ge == alone[0]  # what JAX decides alone is unchanged
    if alone[1]:
        assert eq
    points = [p for p in _POINTS if _valid(p, constraints)]
    assert len(points) >= 10
    values = [(evaluate(t1, p), evaluate(t2, p)) for p in points]
    if ge is True:
        assert all(u >= v for u, v in values)
    elif ge is False:
        assert all(u < v for u, v in values)
    if eq is True:
        assert all(u == v for u, v in values)
    if mx is xs and xs is not ys:
        assert all(u >= v for u, v in values)
    elif mx is ys and xs is not ys:
        assert all(v >= u for u, v in values)
    for k, qr in divs:
        if qr == "inconclusive":
            continue
        q, r = qr
        for p, (u, _) in zip(points, values, strict=True):
            assert (_jax_value(q, p), _jax_value(r, p)) == divmod(u, k), (k, q, r, p)


# ---------------------------------------------------------------------------
# JAX internals


def test_internals_checks_pass_and_a_moved_internal_is_reported(monkeypatch: Any) -> None:
    from symshape.jax import _internals as jx
    assert jx.problems() == {}  # every internal symshape.jax relies on is where expected
    orig = _originals()
    monkeypatch.setitem(jx._problems, "jax._src.export.shape_poly._bounds_decision", "missing")
    with pytest.raises(sj.JaxInternalsError,
                       match=r"_bounds_decision: missing.*tested with\s+jax 0\.10\.2"), \
            sj.decisions():
        pass
    assert _originals() == orig and not sj.is_installed()
    with pytest.raises(sj.JaxInternalsError):
        sj.install()
    assert _originals() == orig and not sj.is_installed()
    monkeypatch.delitem(jx._problems, "jax._src.export.shape_poly._bounds_decision")
    with sj.decisions():
        assert sj.is_installed()
    assert not sj.is_installed()  # the failed install() left nothing behind
    a, = dims("a")
    assert sj.from_jax(a) is not None  # conversions do not need the patch points


def test_code_mentions_sees_nested_code() -> None:
    from symshape.jax._internals import _code_mentions

    def caller() -> list[Any]:
        return [shape_poly._bounds_decision for _ in range(1)]

    assert _code_mentions(caller, "_bounds_decision")
    assert not _code_mentions(caller, "solve_dim_vars")
