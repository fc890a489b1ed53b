"""Directed valuations (``symshape.decision.probe``) and the repair they use
(``symshape.repair``): the side of a claim the valuation pool missed, found
without a search, and always checked exactly."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.exprgen import build, trees
from support.work import WorkMeter

import symshape
from symshape.decision import probe
from symshape.decision.engine import Decider
from symshape.decision.valuations import Point
from symshape.repair import repaired

CONSTRAINTS = ["b >= 16", "mod(s, 128) == 0", "a >= b + 8"]


def count_searches(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    calls: list[Any] = []
    search = Decider._search_with

    def counting(self: Decider, *args: Any, **kw: Any) -> Any:
        calls.append(args)
        return search(self, *args, **kw)

    monkeypatch.setattr(Decider, "_search_with", counting)
    return calls


def test_a_claim_that_fails_far_out_is_shown_contingent_without_a_search(
        monkeypatch: pytest.MonkeyPatch) -> None:
    calls = count_searches(monkeypatch)
    v = symshape.prove("a + s >= 2*b + 3", constraints=CONSTRAINTS)
    assert v.status is symshape.Status.INCONCLUSIVE
    assert calls == []
    cex = v.counterexample
    assert cex is not None and cex["a"] + cex["s"] < 2 * cex["b"] + 3
    assert cex["a"] >= cex["b"] + 8 and cex["b"] >= 16 and cex["s"] % 128 == 0


def test_a_true_claim_is_still_proved(monkeypatch: pytest.MonkeyPatch) -> None:
    # every directed valuation satisfies it: they are checked, never trusted
    v = symshape.prove("a + s >= b + 100", constraints=CONSTRAINTS)
    assert v.status is symshape.Status.PROVED
    assert v.certificate is not None and v.certificate.check()


def linear(check: dict[str, int], env: dict[str, int]) -> dict[str, int]:
    """The rates of a check's variables (the same at every valuation ``env``)."""
    return {x: c for x, c in check.items() if x != "1"}


def value(env: dict[str, int], check: dict[str, int]) -> int:
    return sum(c * (1 if x == "1" else env[x]) for x, c in check.items())


def test_repair_raises_variables_along_the_failing_checks() -> None:
    checks = [{"a": 1, "b": -1, "1": -8}, {"a": 1, "b": 1, "1": -30}]  # a >= b + 8, a + b >= 30
    assert repaired({"a": 1, "b": 1}, checks, value, linear, str) == {"a": 29, "b": 1}
    # with b raised first (its place comes first in the order)
    fixed = repaired({"a": 1, "b": 1}, checks, value, linear, lambda x: x != "b")
    assert fixed == {"a": 29, "b": 21}  # b to 21 breaks a >= b + 8: a follows
    # a step keeps the values multiples of it
    assert repaired({"a": 8, "b": 8}, checks, value, linear, str, step=8) == {"a": 24, "b": 8}


def test_repair_gives_up_where_raising_cannot_help() -> None:
    checks = [{"a": -1, "1": 5}, {"a": 1, "1": -9}]  # a <= 5 and a >= 9
    assert repaired({"a": 1}, checks, value, linear, str) is None
    assert repaired({"a": 1}, [{"1": -1}], value, linear, str) is None


def test_repair_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    # 60 failing checks, one repaired per round: 60 rounds of up to 60
    # evaluations.  Past the evaluation budget the repair gives up (the caller
    # then runs its own search, which has a work budget).
    import symshape.repair as repair_mod
    n = 60
    checks = [{f"a{i}": 1, "1": -5} for i in range(n)]
    env = {f"a{i}": 1 for i in range(n)}
    assert repaired(env, checks, value, linear, str) == {f"a{i}": 5 for i in range(n)}
    monkeypatch.setattr(repair_mod, "MAX_EVALUATIONS", 100)
    assert repaired(env, checks, value, linear, str) is None


def test_repair_gives_up_when_values_explode() -> None:
    """Raising ``b`` to fix ``b - c - b^4 >= 0`` makes the failing amount the
    fourth power of the last one: a dozen rounds would give values of
    millions of digits (scope creation hung on such constraints)."""
    from symshape.repair import MAX_VALUE_BITS

    widest = [0]

    def value4(env: dict[str, int], check: dict[str, int]) -> int:
        widest[0] = max(widest[0], env["b"].bit_length())
        return env["b"] - env["c"] - env["b"] ** 4

    checks = [{"b": 1, "c": -1}] * 6
    assert repaired({"b": 2, "c": 1}, checks, value4, linear, str) is None
    assert widest[0] <= MAX_VALUE_BITS  # never evaluated beyond the limit
    # values up to the limit stay exact: a >= 2^(MAX_VALUE_BITS - 1) is repaired
    big = 1 << (MAX_VALUE_BITS - 1)
    assert repaired({"a": 1}, [{"a": 1, "1": -big}], value, linear, str) == {"a": big}


@pytest.mark.parametrize("constraints", [
    ["b^4 <= b - c"], ["c^2 == c - b"], ["b^4 <= b - c", "d == a"], ["c^2 + b <= c"]])
def test_nonlinear_constraints_are_checked_within_the_budget(
        constraints: list[str], work_meter: WorkMeter) -> None:
    """These hung in the repair of the satisfiability check (see above: its
    values are bounded); the searches stay small too."""
    # all four are unsatisfiable: proving it is allowed, not required
    with work_meter.measure() as span, \
            contextlib.suppress(symshape.UnsatisfiableConstraintsError):
        symshape.SymbolicScope(constraints)
    # measured: at most 5 searches, 4,548 work units, no budget exhausted
    assert span.exhausted == 0 and span.searches <= 10 and span.work <= 20_000, span



# -- monotone directions, roots of equalities, extreme remainders ---------------

def terms_of(text: str, names: str = "a, b, c, d") -> dict[Any, int]:
    """The term map of ``text`` in a fresh scope that also declares ``names``."""
    scope = symshape.SymbolicScope()
    symshape.symbolic_shape(names, scope=scope)
    e = symshape.symbolic_shape(text, scope=scope)[0]
    assert isinstance(e, symshape.DimExpr)
    return dict(e.terms)


def exact(env: dict[str, int], p: dict[Any, int]) -> int:
    return Point(env, 0, None).poly(p)


@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(trees(max_leaves=6), st.lists(st.integers(1, 9), min_size=4, max_size=4),
       st.sampled_from("abcd"))
def test_monotone_signs_are_monotone(t: Any, start: list[int], x: str) -> None:
    """Where ``monotone_signs`` says the expression moves one way in ``x``,
    raising ``x`` never moves it the other way (checked exactly)."""
    scope = symshape.SymbolicScope()
    e = build(t, scope)
    if not isinstance(e, symshape.DimExpr):
        return
    sign = probe.monotone_signs(dict(e.terms)).get(x)
    if sign is None:
        return
    env = dict(zip("abcd", start, strict=True))
    values = []
    for step in range(6):
        env[x] = start["abcd".index(x)] + step
        values.append(int(e.evaluate(env)))
    assert all(sign * (v2 - v1) >= 0 for v1, v2 in zip(values, values[1:], strict=False)), \
        (str(e), x, sign, values)


def test_monotone_signs_look_through_divisions_and_maxima() -> None:
    d = terms_of("3*k + s - floordiv(c + 3, 4) - floordiv(w, n + 1) + max(h - t, 0)",
                 "c, h, k, n, s, t, w")
    # (-floordiv(w, n + 1) grows with n: the numerator w is >= 0)
    assert probe.monotone_signs(d) == {"k": 1, "s": 1, "c": -1, "w": -1, "h": 1, "t": -1,
                                       "n": 1}
    # a variable met both ways is left out; the degree-1 coefficient still
    # makes it movable
    d = terms_of("a - 2*floordiv(a, 3) + floordiv(b, c)")
    assert probe.monotone_signs(d) == {"b": 1, "c": -1}
    assert probe.movable(d) == {"a": 1, "b": 1, "c": -1}
    # so is a divisor's variable where the numerator's sign is not plain
    d = terms_of("floordiv(a - b, c) + floordiv(-a - 1, d)", "a, b, c, d")
    assert probe.monotone_signs(d) == {"b": -1, "d": 1}  # not c


@pytest.mark.parametrize("text, env", [
    ("b - c - 46", {"b": 1, "c": 1}),                      # affine: the secant step
    ("floordiv(n, h + 1) - 35", {"n": 3, "h": 1}),          # monotone: doubling, bisection
    ("3*max(a - 5, 0) + b - 200", {"a": 1, "b": 2}),
])
def test_roots_solve_an_equality_along_one_variable(text: str, env: dict[str, int]) -> None:
    d = terms_of(text, ", ".join(sorted({*env, "a", "b"})))
    found = list(probe.roots(env, d, lambda x: 0, exact))
    assert found, text
    for sol in found:
        assert exact(sol, d) == 0
        assert sum(sol[x] != env[x] for x in env) == 1  # one variable moved


def test_roots_give_up_within_their_budget() -> None:
    d = terms_of("2*a - 2*b - 1")  # odd: never zero
    calls = []

    def counting(env: dict[str, int], p: dict[Any, int]) -> int:
        calls.append(1)
        return exact(env, p)
    assert list(probe.roots({"a": 1, "b": 1}, d, lambda x: 0, counting)) == []
    assert len(calls) <= 1 + probe.MAX_PUSHED * probe.ROOT_EVALUATIONS


def test_quotient_moves_raise_the_divisor_past_the_numerator() -> None:
    d = terms_of("f + 5 - d*floordiv(f + 5, d) - 9", "d, f")  # mod(f + 5, d) - 9
    moved = list(probe.quotient_moves({"d": 2, "f": 7}, d, lambda x: 0, exact))
    assert moved == [{"d": 13, "f": 7}]  # d = f + 6: the remainder is 12
    assert exact(moved[0], d) == 3


def test_residue_moves_reach_the_extreme_remainders() -> None:
    d = terms_of("f + 8 - 128*floordiv(f + 11, 128)", "f")  # mod(f + 11, 128) - 3
    moved = list(probe.residue_moves({"f": 1}, d, lambda x: 0, exact))
    assert sorted((m["f"] + 11) % 128 for m in moved) == [0, 127]
    assert all(m["f"] > 1 for m in moved)


@pytest.mark.parametrize("claim, constraints", [
    ("b - c + 14 == 60", ["b >= f", "b <= 1024"]),
    ("floordiv(n, h + 1) + 14 == 49", ["n >= h + 16"]),
    ("mod(f + 11, 128) > 2", ["f <= 8192"]),
    ("k - floordiv(c + 3, 4) >= 0", []),
    # t pushed no further than its bound 1024 (4096 could never be repaired)
    ("3*h*w + t >= 2*t", ["t <= 1024", "min(h, w) >= 4", "mod(h, 8) == 0"]),
    # d raised past f + 5: the quotient is 0, and mod(f + 5, d) is f + 5
    ("k + mod(f + 5, d) > 3*k + 2*n", ["d >= n + 1", "f >= k", "min(d, f) >= 2"]),
])
def test_contingent_claims_are_shown_without_a_search(
        monkeypatch: pytest.MonkeyPatch, claim: str, constraints: list[str]) -> None:
    calls = count_searches(monkeypatch)
    v = symshape.prove(claim, constraints=constraints)
    assert v.status is symshape.Status.INCONCLUSIVE
    assert calls == []


ORDER_SCOPES = ([], ["a >= b + 2"], ["c <= 9", "mod(d, 4) == 0"], ["b >= 3", "a*b <= 60"])
ORDER_COUNT = [0]


@settings(max_examples=120, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(trees(max_leaves=5), trees(max_leaves=5), st.sampled_from(ORDER_SCOPES))
def test_order_asks_the_second_direction_only_when_it_can_hold(
        x: Any, y: Any, constraints: list[str]) -> None:
    """``decide_order`` skips ``e <= 0`` when a valid pool point has ``e > 0``:
    its answer is the one of asking both directions, in a fresh scope."""
    # Texts never seen before: no template, so no answers shared between the two.
    ORDER_COUNT[0] += 1
    texts = [*constraints, f"z{ORDER_COUNT[0]} >= 1"]
    s1 = symshape.SymbolicScope(texts)
    e1 = build(x, s1) - build(y, s1)
    if not isinstance(e1, symshape.DimExpr):
        return
    d1 = s1.decider()
    assert d1 is not None
    got = d1.decide_order(e1)
    s2 = symshape.SymbolicScope(texts)
    e2 = build(x, s2) - build(y, s2)
    assert isinstance(e2, symshape.DimExpr)
    d2 = s2.decider()
    assert d2 is not None
    ge = d2.decide_ge0(e2)
    want = 1 if ge is True else -1 if ge is False or d2.decide_ge0(-e2) is True else 0
    assert got == want, (str(e1), constraints)


def test_order_reads_the_pool_only_where_the_question_is_defined() -> None:
    # e >= b + 6 wherever b - 1 >= 1; at the pool's b = 1 the divisor is 0, the
    # quotient reads 0 and e is 1 - a < 0: that point is no valuation of e, and
    # must not stop max(e, 0) from simplifying to e.
    a, b = symshape.symbolic_shape("a, b")
    e = (b - 1) * ((a + 5) // (b - 1)) - a + 2 * b - 1
    assert symshape.max_dim(e, 0) == e
    assert symshape.min_dim(e, 0) == 0
