"""The scope's cheap answers before its decider: sign witnesses and swept repairs.

``max``/``min`` ask ``SymbolicScope.order`` and ``floordiv`` asks
``SymbolicScope.sign`` while expressions are built; valid valuations that
show both signs (``symshape.witness``) answer "neither" without the decider.
The decider is sound, so those answers are the ones it would give: the
canonical forms must be exactly those built with the witnesses switched off.
A scope's satisfiability check sweeps its repair (``symshape.repair.swept``),
which settles chains of offsets that the first-check-first repair ran out of
rounds on.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import pytest

import symshape
from symshape import witness
from symshape.algebra.floordiv import floordiv, mod
from symshape.algebra.maxmin import max_expr, min_expr
from symshape.algebra.poly import value_at
from symshape.repair import shown_to_hold, swept

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from support.exprgen import build  # noqa: E402
from support.oracle import random_claim  # noqa: E402


def _forms(seed: int, n: int) -> list[str]:
    """The canonical strings of the sides of ``n`` random claims, and of their
    max, min, floordiv and mod (or the error each raises)."""
    rng = random.Random(seed)
    out: list[str] = []
    for _ in range(n):
        claim = random_claim(rng)
        try:
            scope = symshape.SymbolicScope(claim.constraints)
            x, y = build(claim.lhs, scope), build(claim.rhs, scope)
        except symshape.SymshapeError as e:
            out.append(f"!{type(e).__name__}")
            continue
        for op in (max_expr, min_expr, floordiv, mod):
            try:
                out.append(str(op(x, y)))
            except (symshape.SymshapeError, ZeroDivisionError) as e:
                out.append(f"!{type(e).__name__}: {e}")
        out.append(f"{x} ; {y}")
    return out


def test_witnesses_change_no_canonical_form(monkeypatch: pytest.MonkeyPatch) -> None:
    # (patched on the scope, an ordinary class in both builds: the compiled
    # witness class takes no patch)
    witnessed = symshape.SymbolicScope._witnessed
    settled: list[int] = []

    def counted(self: symshape.SymbolicScope, e: Any, want: int) -> int:
        got = witnessed(self, e, want)
        if got & want == want:
            settled.append(want)
        return got
    monkeypatch.setattr(symshape.SymbolicScope, "_witnessed", counted)
    with_witnesses = _forms(7, 150)
    assert len(settled) > 20  # (the witnesses answered questions here)
    monkeypatch.setattr(symshape.SymbolicScope, "_witnessed", lambda self, e, want: 0)
    assert _forms(7, 150) == with_witnesses


def test_neither_order_is_answered_without_the_decider() -> None:
    scope = symshape.SymbolicScope(["c + d <= 2048", "c >= e", "mod(n, 8) == 0"])
    c, d = scope.var("c"), scope.var("d")
    m = max_expr(5 * c, 3 * d)
    assert str(m) == "max(5*c, 3*d)"
    assert scope._decider_obj is None  # (the pool was never built)
    # what the decider answers is unchanged: c + d <= 2048 orders these
    assert max_expr(c + d, 4096) == 4096


def test_a_witness_needs_every_divisor_at_least_one() -> None:
    # (strict_value reads no fact: the valuations below break this one on purpose;
    # the value is the one evaluator's, the checks of the domain and of size its own)
    scope = symshape.SymbolicScope(["b >= a + 1"])
    a, b = scope.var("a"), scope.var("b")
    e = floordiv(a, b - a) - 1
    assert witness.strict_value(e, {"a": 1, "b": 1}, 1, {}) is None  # divisor 0
    assert witness.strict_value(e, {"a": 2, "b": 1}, 1, {}) is None  # divisor -1
    assert witness.strict_value(e, {"a": 1, "b": 3}, 1, {}) == -1
    assert witness.strict_value(a ** 600, {"a": 1000}, 1, {}) is None  # too large to be cheap


def _full_check(w: Any, key: Any) -> bool:
    """Every fact holds at ``key`` within its domain, each evaluated afresh."""
    env, default = w._env(key)
    return all((v := witness.strict_value(f, env, default, {})) is not None and v >= 0
               for f in w._facts)


def _every_valuation_checked(scope: symshape.SymbolicScope, e: Any) -> Any:
    """The witnesses of ``scope`` once every valuation tried for ``e`` where
    ``e`` is not 0 has been checked against the facts (an answer checks one
    only where it would show a new sign)."""
    w: Any = scope.sign_witnesses()
    shape = w._shapes.shape(e)
    for key in w._keys(w.variables(e)):
        w._sign_at(e, key, shape, 0)
    return w


@pytest.mark.parametrize(("constraints", "question"), [
    # a fact without the raised variable, too large to evaluate once the
    # largest value of the valuation is far (its bit bound is checked again)
    (["c^120 >= c", "x >= 3"], "x - 5"),
    (["a >= b + 8", "mod(a, 4) == 0", "x <= 4096"], "a + x - 2*b - 40"),
    (["floordiv(s, 3) >= 2", "n >= 3", "mod(t, 8) == 0"], "t - s + n"),
])
def test_the_raised_base_is_valid_exactly_where_every_fact_holds(
        constraints: list[str], question: str) -> None:
    """The base raised in one variable re-evaluates only the facts with that
    variable: its validity is the full check's, wherever the base is valid."""
    scope = symshape.SymbolicScope(constraints)
    (e,) = symshape.symbolic_shape(question, scope=scope)
    w: Any = _every_valuation_checked(scope, e)
    raised = [key for key in w._valid if key[0] == "r"]
    assert raised and w._valid[("b", "", 0)]
    for key in w._valid:
        assert w._valid[key] == _full_check(w, key), key


@pytest.mark.parametrize("seed", range(40))
def test_valid_witness_valuations_satisfy_every_fact(seed: int) -> None:
    """Every valuation tried is valid exactly where the full check says so,
    and a valid one satisfies every fact (evaluated at every variable)."""
    rng = random.Random(seed)
    claim = random_claim(rng)
    try:
        scope = symshape.SymbolicScope(claim.constraints)
        e = build(claim.lhs, scope) - build(claim.rhs, scope)
    except symshape.SymshapeError:
        return
    if isinstance(e, int):
        return
    w: Any = _every_valuation_checked(scope, e)
    assert w is not None
    for key, valid in w._valid.items():
        assert valid == _full_check(w, key), key
        if valid:
            env, default = w._env(key)
            full = {name: env.get(name, default) for name in scope_names(scope, e)}
            for f, _ in scope.facts():
                v = value_at(f, full, {})
                assert v is not None and v >= 0, (key, str(f))


def scope_names(scope: symshape.SymbolicScope, e: Any) -> set[str]:
    names: set[str] = set(e.free_vars) if hasattr(e, "free_vars") else set()
    for f, _ in scope.facts():
        if not isinstance(f, int):
            names |= set(f.free_vars)
    return names


def test_chains_of_offsets_are_shown_satisfiable_by_the_sweep() -> None:
    n = 16
    texts = [f"x{i} >= x{i + 1} + {1 + i % 5}" for i in range(n)] + [f"x{n} >= 16", "x0 <= 8192",
                                                                   "mod(x3, 8) == 0"]
    scope = symshape.SymbolicScope(texts)
    checks = [(c.diff, 0 if c.op == "==" else 1) for c in scope.constraints]
    assert shown_to_hold(checks)
    assert scope._decider_obj is None


def test_the_sweep_reports_checks_it_cannot_fix() -> None:
    scope = symshape.SymbolicScope()
    a, b = scope.var("a"), scope.var("b")

    def value(env: dict[str, int], check: tuple[Any, int]) -> int | None:
        v = value_at(check[0], env, {})
        return None if v is None else check[1] * v

    def rates(check: tuple[Any, int], env: dict[str, int]) -> dict[str, int]:
        f, sign = check
        return {str(m[0][0]): sign * c for m, c in f.terms.items()
                if len(m) == 1 and m[0][1] == 1} if not isinstance(f, int) else {}

    # a - b >= 3 and b - a >= 0: each raise breaks the other, until the sweeps run out
    assert not swept({"a": 1, "b": 1}, [(a - b - 3, 1), (b - a, 1)], value, rates)
    assert swept({"a": 1, "b": 1}, [(a - b - 3, 1), (b - 2, 1)], value, rates)
    # nothing to raise
    assert not swept({"a": 1}, [(-a, 1)], value, rates)


def test_a_deep_nest_is_walked_without_recursion() -> None:
    text = "a"
    for k in range(450):
        text = f"max(min({text}, b + {k}), c)" if k % 2 else f"min(max({text}, c + {k}), b)"
    (e,) = symshape.symbolic_shape(text)
    scope = e.scope
    assert scope._witnessed(e + 1, 1) == 1  # (every operand is >= 1)
