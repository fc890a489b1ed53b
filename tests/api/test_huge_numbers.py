"""Constants beyond float range and beyond Python's int/str digit limit, and
exponents far beyond any shape: answers stay right, texts print, and what is
too large is refused with an ExpressionTooLargeError that points at it.

Interval ends are ints or float infinities; an int beyond 1e308 met with an
infinity in a sum or product raised OverflowError from inside the intervals
(``a >= 2^1100`` in a scope did), and printing a constant of more than 4300
digits raised Python's ValueError about its int/str limit.
"""

from __future__ import annotations

import json
import math
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.oracle import Claim, random_claim
from support.soundness import check_claim, new_stats

import symshape
from symshape import ExpressionTooLargeError, SymbolicScope, bounds, prove
from symshape.algebra.dimexpr import MAX_DEGREE
from symshape.cli import main as cli_main
from symshape.decision import Status
from symshape.parsing import MAX_INT_DIGITS
from symshape.present import format_bounds
from symshape.util import digits_to_int, int_to_digits

BIG = 2 ** 1100  # beyond float range (about 1.8e308)
HUGE = 10 ** 5000 - 1  # beyond Python's default int/str limit (4300 digits)
HUGE_TEXT = "9" * 5000


# ---------------------------------------------------------------------------
# constants beyond float range


@pytest.mark.parametrize(("claim", "constraints", "status"), [
    ("a + 2^1100 >= 1", [], Status.PROVED),
    ("a >= 2^1100", [], Status.INCONCLUSIVE),
    ("a >= 2^1100", ["a >= 2^1100"], Status.PROVED),
    ("a >= 2^1100 + 1", ["a <= 2^1100"], Status.REFUTED),
    ("a*2^1100 >= b", ["b <= 2^1100"], Status.PROVED),
    ("a^40 >= 10^400", ["a >= 10000000000"], Status.PROVED),
    ("a^40 - b >= 1", ["a >= 10000000000"], Status.INCONCLUSIVE),
    ("mod(a, 2^1100) <= a", [], Status.PROVED),
    ("floordiv(a, 2^1100) >= 1", ["a >= 2^1100"], Status.PROVED),
    ("max(a, 2^1100) >= min(b, 2^1101)", [], Status.INCONCLUSIVE),
    ("max(a, 2^1100) >= 2^1100", [], Status.PROVED),
])
def test_constants_beyond_float_range(claim: str, constraints: list[str],
                                      status: Status) -> None:
    v = prove(claim, constraints=constraints)
    assert v.status is status, (claim, constraints, v)
    if v.certificate is not None:
        assert v.certificate.check()
    assert str(v)  # the explanation prints


def test_scope_and_bounds_beyond_float_range() -> None:
    s = SymbolicScope(["a >= 2^1100", "b <= 2^1100 + 5", "c >= a + b"])
    a, b, c = symshape.symbolic_shape("a, b, c", scope=s)
    assert s.var_lower_bound("a") == BIG
    assert s.var_upper_bound("b") == BIG + 5
    assert bounds(a * b) == (BIG, math.inf)
    assert bounds(-a + 1) == (-math.inf, 1 - BIG)
    assert (c >= BIG + 1) is True
    assert (a * b - b >= 0) is True
    assert format_bounds("a", BIG, math.inf) == f"a >= {BIG}"


# ---------------------------------------------------------------------------
# constants beyond the int/str digit limit


def test_int_text_round_trips_beyond_the_str_limit() -> None:
    for n in (0, -7, 10 ** 600, HUGE, -(10 ** 4301) + 3, 3 ** 20000):
        text = int_to_digits(n)
        assert (-1 if text.startswith("-") else 1) * digits_to_int(text.lstrip("-")) == n


def test_expressions_with_huge_constants_print_and_parse_back() -> None:
    (e,) = symshape.symbolic_shape(f"a*b + {HUGE_TEXT}*c - mod(a, {HUGE_TEXT})")
    text = str(e)
    assert HUGE_TEXT in text
    (back,) = symshape.symbolic_shape(text, scope=e.scope)
    assert back == e


def test_verdicts_with_huge_constants_explain_themselves() -> None:
    v = prove("a >= b", constraints=[f"b >= {HUGE_TEXT}"])
    assert v.status is Status.INCONCLUSIVE
    assert HUGE_TEXT in v.explain()  # the witness and counterexample print
    assert HUGE_TEXT in repr(v)
    assert v.counterexample is not None and v.counterexample["b"] >= HUGE


@pytest.mark.parametrize("constraints", [[], [f"a >= {HUGE_TEXT}"], [f"b == {HUGE_TEXT}*a"],
                                         [f"mod(a, {HUGE_TEXT}) == 0"]])
def test_shape_checks_with_huge_constants(constraints: list[str]) -> None:
    check = symshape.ShapeCheck([f"a, {HUGE_TEXT}*b", "b"], constraints=constraints)
    for shape in [(3, 5), (3, 2 * HUGE + 1), (HUGE, HUGE)]:
        with pytest.raises(symshape.ShapeMismatchError) as err:
            check.solve([shape, (2,)])
        assert "Input shapes do not match the specs" in str(err.value)
    if not constraints:
        assert check.solve([(3, 2 * HUGE), (2,)]) == {"a": 3, "b": 2}


def test_explaining_huge_evidence_stays_within_its_budget(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Minimizing a witness over 5,000-digit values bisected 50,000 times (a minute)
    # before its evaluations had a budget; now it stops there with a verified valuation.
    from symshape.decision import minimize
    spent: list[int] = []
    check = minimize.Minimizer._ok

    def counted(self: minimize.Minimizer, env: dict[str, int]) -> bool:
        spent.append(max(v.bit_length() for v in env.values()))
        return check(self, env)

    monkeypatch.setattr(minimize.Minimizer, "_ok", counted)
    v = prove(f"a >= {HUGE_TEXT}", constraints=[f"b == {HUGE_TEXT}*a"])
    assert v.status is Status.INCONCLUSIVE
    text = v.explain()
    assert v.witness is not None and v.witness["a"] >= HUGE and HUGE_TEXT[:50] in text
    assert v.counterexample is not None
    # An evaluation at 5,000-digit values costs 65 units of the budget: a few hundred
    # of them for the witness and the counterexample, not 50,000.
    huge = [bits for bits in spent if bits > 10_000]
    assert 0 < len(huge) <= 2 * minimize.EVALUATION_CAP // 64


def test_cli_json_with_huge_values(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli_main(["prove", "a >= 2^20000", "--json"])
    out = json.loads(capsys.readouterr().out, parse_int=digits_to_int)
    assert code == 2 and out["status"] == "inconclusive"
    assert 2 ** 20000 in out["witness"].values()


# ---------------------------------------------------------------------------
# exponents and degrees


def _refused(text: str) -> ExpressionTooLargeError:
    with pytest.raises(ExpressionTooLargeError) as info:
        symshape.symbolic_shape(text)
    # Refused before doing the work: by the checks of the size a result would
    # have (a hang here would never reach them), not by running out of room.
    assert "above the limit" in str(info.value) or "more than" in str(info.value), info.value
    assert isinstance(info.value, ValueError)
    return info.value


def test_huge_exponents_are_refused_with_their_column() -> None:
    err = _refused("b + 2^10000000000000000000000")
    assert "constant too large" in str(err) and "column 5" in str(err)
    err = _refused(f"a^{MAX_DEGREE + 1}")
    assert f"degree {MAX_DEGREE + 1}" in str(err)
    _refused("(a*b)^501")
    _refused("a^999999999999999999999")
    _refused(f"7^{MAX_INT_DIGITS * 2}")
    (a,) = symshape.symbolic_shape("a")
    with pytest.raises(ExpressionTooLargeError):
        a ** (10 ** 20)
    with pytest.raises(ExpressionTooLargeError):
        (a ** 600) * (a ** 600)


def test_degree_at_the_limit_is_decided_without_recursion() -> None:
    assert prove(f"a^{MAX_DEGREE} >= a").status is Status.PROVED
    assert prove(f"(a*b)^{MAX_DEGREE // 2} >= 1").status is Status.PROVED
    (a,) = symshape.symbolic_shape("a")
    assert bounds(a ** MAX_DEGREE) == (1, math.inf)
    assert symshape.symbolic_shape("1^100000000000, (-1)^100000000001") == (1, -1)


# ---------------------------------------------------------------------------
# no wrong answers with huge constants (brute force in Python ints, and z3)

def _with_huge_constants(c: Claim, rng: random.Random) -> Any:
    """``c`` with about half its constants scaled by BIG (the constraints keep
    theirs, so small valuations still satisfy them), and sometimes a huge
    bound on a variable."""
    def scale(t: Any) -> Any:
        if t[0] == "int":
            return ("int", t[1] * BIG if rng.random() < 0.5 else t[1])
        if t[0] == "var":
            return t
        return (t[0], *(scale(x) if isinstance(x, tuple) else x for x in t[1:]))
    constraints = c.constraints
    if rng.random() < 0.3:
        constraints += (f"a <= {BIG}",)
    return Claim(scale(c.lhs), c.op, scale(c.rhs), constraints)


@settings(max_examples=150, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(st.randoms(use_true_random=False))
def test_no_wrong_answers_with_huge_constants(rng: random.Random) -> None:
    stats: Counter[str] = new_stats()
    check_claim(_with_huge_constants(random_claim(rng), rng), stats, exact=True)


def test_huge_constant_claims_meet_every_answer() -> None:
    """The property above is not vacuous: a seeded batch gets proved,
    refuted and inconclusive answers, all checked."""
    rng = random.Random(2026)
    stats = new_stats()
    for _ in range(60):
        check_claim(_with_huge_constants(random_claim(rng), rng), stats, exact=True)
    assert stats["proved"] > 0 and stats["refuted"] > 0 and stats["inconclusive"] > 0, stats


def test_int_mul_is_the_product_at_every_size() -> None:
    """``util.int_mul`` (the evaluators' product, safe against a raising
    signal handler in the compiled core) is ``*`` for one-digit, multi-digit,
    negative and huge operands."""
    from symshape.util import int_mul

    values = [0, 1, -1, 7, (1 << 30) - 1, 1 << 30, -(1 << 30), 1 << 40, -(3 ** 200), 10 ** 5000]
    for a in values:
        for b in values:
            assert int_mul(a, b) == a * b, (a, b)
