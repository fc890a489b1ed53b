"""symshape.sympy: exact conversions to and from sympy, PyTorch's sympy functions included."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.exprgen import build, build_with, evaluate, trees, valuations
from support.paths import ROOT

import symshape
from symshape import SymbolicScope

sympy = pytest.importorskip("sympy")

import symshape.sympy as ss  # noqa: E402

SETTINGS = settings(max_examples=150, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
NAMES = ("a", "b", "c")
REPO = str(ROOT)


def sympy_value(s: Any, env: dict[str, int]) -> int:
    """Value of a sympy expression at ``env`` (sympy's own evaluation)."""
    v = s.subs({ss.symbol(k): n for k, n in env.items()})
    v = v.xreplace({x: sympy.Integer(env[x.name]) for x in v.free_symbols})  # plain symbols
    assert v.is_Integer, (s, env, v)
    return int(v)


def test_core_imports_neither_sympy_nor_torch() -> None:
    code = ("import sys, symshape; a, b = symshape.symbolic_shape('a, b', "
            "constraints=['mod(a, 128) == 0', 'a >= b + 8']); "
            "assert symshape.prove('a >= 128', scope=a.scope).proved; "
            "assert a >= b; symshape.bounds(a // b); "
            "bad = [m for m in ('sympy', 'torch') if m in sys.modules]; assert not bad, bad")
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=120)
    assert res.returncode == 0, res.stderr


def test_symshape_sympy_does_not_import_torch() -> None:
    code = ("import sys, symshape.sympy as ss, symshape; a, = symshape.symbolic_shape('a'); "
            "ss.from_sympy(ss.to_sympy(a // 2)); assert 'torch' not in sys.modules")
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=120)
    assert res.returncode == 0, res.stderr


def test_spellings() -> None:
    a, b = symshape.symbolic_shape("a, b")
    x, y = ss.symbol("a"), ss.symbol("b")
    assert ss.to_sympy(a % 4) == sympy.Mod(x, 4)
    assert ss.to_sympy(symshape.max_dim(a, 2 * b)) == sympy.Max(x, 2 * y)
    assert ss.to_sympy(symshape.min_dim(a, b)) == sympy.Min(x, y)
    assert ss.to_sympy(a // b + a * b ** 2) == sympy.floor(x / y) + x * y ** 2
    assert ss.to_sympy(7) == sympy.Integer(7)
    assert ss.to_sympy((a, 3)) == (x, sympy.Integer(3))
    assert ss.symbol("a").is_integer and ss.symbol("a").is_positive


@SETTINGS
@given(trees(NAMES), st.lists(valuations(NAMES), min_size=3, max_size=3))
def test_round_trip(t: Any, envs: list[dict[str, int]]) -> None:
    scope = SymbolicScope()
    e = build(t, scope)
    s = ss.to_sympy(e)
    back = ss.from_sympy(s, scope)
    # The canonical form comes back unless sympy simplified with the variables'
    # positivity (floor(-1/(a + 1)) is -1); the value always does.
    for env in envs:
        want = evaluate(t, env)
        assert sympy_value(s, env) == want
        assert (back if isinstance(back, int) else back.evaluate(env)) == want


@pytest.mark.parametrize("text", [
    "a", "2*a*b - 3", "mod(a, 4)", "max(a, 2*b) + 1", "min(a, b*c)", "floordiv(a*b, c + 1)",
    "mod(a + b, c)", "a^3 - floordiv(a, 3)*b", "max(floordiv(a, 2), b) - min(a, 7)",
])
def test_round_trip_is_identity(text: str) -> None:
    scope = SymbolicScope()
    e = symshape.symbolic_shape(text, scope=scope)[0]
    assert ss.from_sympy(ss.to_sympy(e), scope) == e


def _sympy_ops() -> dict[str, Any]:
    return {"add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y,
            "floordiv": lambda x, y: sympy.floor(sympy.Integer(1) * x / y),
            "mod": sympy.Mod, "max": sympy.Max, "min": sympy.Min}


@SETTINGS
@given(trees(NAMES), st.lists(valuations(NAMES), min_size=3, max_size=3))
def test_from_plain_sympy(t: Any, envs: list[dict[str, int]]) -> None:
    s = build_with(t, ss.symbol, _sympy_ops())
    e = ss.from_sympy(s)
    for env in envs:
        want = evaluate(t, env)
        assert sympy_value(sympy.sympify(s), env) == want
        assert (e if isinstance(e, int) else e.evaluate(env)) == want


@SETTINGS
@given(trees(NAMES), st.lists(valuations(NAMES), min_size=2, max_size=2))
def test_from_plain_symbols_without_assumptions(t: Any, envs: list[dict[str, int]]) -> None:
    plain = {n: sympy.Symbol(n) for n in NAMES}
    s = build_with(t, plain.__getitem__, _sympy_ops())
    e = ss.from_sympy(s)
    for env in envs:
        assert (e if isinstance(e, int) else e.evaluate(env)) == evaluate(t, env)


@SETTINGS
@given(trees(NAMES), valuations(NAMES))
def test_structural_conversion(t: Any, env: dict[str, int]) -> None:
    """Text beyond the parser's limits is converted atom by atom (same values)."""
    scope = SymbolicScope()
    e = build(t, scope)
    s = ss._structural(e)
    back = ss.from_sympy(s, scope)
    want = evaluate(t, env)
    assert sympy_value(s, env) == want
    assert (back if isinstance(back, int) else back.evaluate(env)) == want


def test_too_long_text_uses_the_structural_conversion(monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = symshape.symbolic_shape("a, b")
    e = symshape.max_dim(a, b) + a // 3

    def refuse(text: str) -> Any:
        raise symshape.ParseError("too long", text=text)
    monkeypatch.setattr(ss.parsing, "parse_expr", refuse)
    s = ss.to_sympy(e)
    assert s == sympy.Max(0, ss.symbol("a") - ss.symbol("b")) + ss.symbol("b") + \
        sympy.floor(ss.symbol("a") / 3)
    assert ss.from_sympy(s, a.scope) == e


def test_ceiling_abs_and_fractions_inside_floor() -> None:
    x, y = ss.symbol("a"), ss.symbol("b")
    for s in (sympy.ceiling(x / 3), sympy.floor((x + 1) / 2), sympy.Abs(x - 2 * y),
              sympy.floor(x / (y + 1)), sympy.ceiling((2 * x + y) / (y + 2)), x ** 3 - y):
        e = ss.from_sympy(s)
        for env in ({"a": 1, "b": 1}, {"a": 7, "b": 3}, {"a": 10, "b": 12}):
            assert e.evaluate(env) == sympy_value(s, env), s


def test_symbols_mapping() -> None:
    b, = symshape.symbolic_shape("b", constraints=["b >= 4"])
    s0 = sympy.Symbol("s0", integer=True, positive=True)
    e = ss.from_sympy(sympy.floor(s0 / 2) + 1, symbols={"s0": 2 * b})
    assert e == b + 1 and e.scope is b.scope


@pytest.mark.parametrize("bad, words", [
    ("a/2", "fraction"),
    ("Piecewise((a, a > 2), (1, True))", "Piecewise"),
    ("a**b", "exponent"),
    ("sin(a)", "sin"),
    ("3/2", "not an integer"),
])
def test_unrepresentable_sympy_is_named(bad: str, words: str) -> None:
    with pytest.raises(ss.SympyConversionError, match=words):
        ss.from_sympy(sympy.sympify(bad, locals={"a": ss.symbol("a"), "b": ss.symbol("b")}))


def test_bad_symbol_names() -> None:
    with pytest.raises(ss.SympyConversionError, match="'_x' is not a symshape"):
        ss.from_sympy(sympy.Symbol("_x") + 1)
    assert ss.from_sympy(sympy.Symbol("_x") + 1, symbols={"_x": 4}) == 5


def test_claims() -> None:
    a, b = ss.symbol("a"), ss.symbol("b")
    cond = sympy.And(sympy.Ne(a % 3, 0), a <= 100, sympy.Not(sympy.Eq(a, b)))
    assert sorted(ss.claims_from_sympy(cond)) == ["a != b", "a <= 100", "mod(a, 3) != 0"]
    assert ss.claims_from_sympy(sympy.true) == []
    with pytest.raises(ss.SympyConversionError, match="conjunction"):
        ss.claims_from_sympy(sympy.Or(a > 2, b > 2))


# -- PyTorch's sympy functions ---------------------------------------------------------


@pytest.fixture(scope="module")
def F() -> Any:
    return pytest.importorskip("torch.utils._sympy.functions")


def test_torch_functions(F: Any) -> None:
    x, y = sympy.symbols("s0 s1", integer=True, positive=True)
    cases = [
        (F.FloorDiv(x, 3), lambda p, q: p // 3),
        (F.FloorDiv(x + y, y), lambda p, q: (p + q) // q),
        (F.CleanDiv(4 * x, 4), lambda p, q: p),
        (F.CeilDiv(x, 4), lambda p, q: -(-p // 4)),
        (F.CeilDiv(x * y, y + 1), lambda p, q: -(-(p * q) // (q + 1))),
        (F.ModularIndexing(x, 2, 5), lambda p, q: (p // 2) % 5),
        (F.ModularIndexing(x + y, y, 3), lambda p, q: ((p + q) // q) % 3),
        (F.PythonMod(x, y), lambda p, q: p % q),
        (F.Mod(x, 7), lambda p, q: p % 7),
        (F.Max(x, y, 3), lambda p, q: max(p, q, 3)),
        (F.Min(x, 2 * y), lambda p, q: min(p, 2 * q)),
        (F.PowByNatural(x, 3), lambda p, q: p ** 3),
        (F.Identity(x + 1), lambda p, q: p + 1),
        (F.LShift(x, 2), lambda p, q: p << 2),
        (F.RShift(x, 1), lambda p, q: p >> 1),
        (F.FloorToInt(F.IntTrueDiv(x, 3)), lambda p, q: p // 3),
        (F.CeilToInt(F.IntTrueDiv(x, y)), lambda p, q: -(-p // q)),
    ]
    for s, fn in cases:
        e = ss.from_sympy(s)
        for p, q in ((1, 1), (5, 2), (17, 4), (64, 9)):
            got = e if isinstance(e, int) else e.evaluate({"s0": p, "s1": q})
            assert got == fn(p, q), (s, p, q)


@SETTINGS
@given(trees(NAMES, symbolic_divisors=True), st.lists(valuations(NAMES), min_size=3,
                                                      max_size=3))
def test_from_torch_sympy(t: Any, envs: list[dict[str, int]]) -> None:
    F = pytest.importorskip("torch.utils._sympy.functions")
    # Operands as torch's own expressions hold them: sympy Integers, not Python ints (the
    # Max and Min of torch <= 2.10 fail on a Python int operand, inside torch).
    def torch_op(f: Any) -> Any:
        return lambda x, y: f(sympy.sympify(x), sympy.sympify(y))

    ops = {"add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y,
           "floordiv": torch_op(F.FloorDiv), "mod": torch_op(F.PythonMod),
           "max": torch_op(F.Max), "min": torch_op(F.Min)}
    s = build_with(t, ss.symbol, ops)
    e = ss.from_sympy(s)
    for env in envs:
        assert (e if isinstance(e, int) else e.evaluate(env)) == evaluate(t, env)


@pytest.mark.parametrize("name", ["IntTrueDiv", "FloatTrueDiv", "TruncToInt", "Where"])
def test_unrepresentable_torch_functions_are_named(F: Any, name: str) -> None:
    x, y = sympy.symbols("s0 s1", integer=True, positive=True)
    fn = getattr(F, name)
    s = fn(sympy.Eq(x, y), x, y) if name == "Where" else \
        fn(x) if name == "TruncToInt" else fn(x, y)
    with pytest.raises(ss.SympyConversionError, match=name if name != "TruncToInt"
                       else "TruncToInt|IntTrueDiv|function"):
        ss.from_sympy(s)
