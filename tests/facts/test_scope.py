"""symbolic_shape, scopes, constraints and comparisons (the bounds layer)."""

from __future__ import annotations

import math
import sys

import pytest
from support.work import WorkMeter

import symshape
from symshape import (
    DimExpr,
    InconclusiveDimensionOperation,
    ParseError,
    ScopeMismatchError,
    SymbolicScope,
    UnsatisfiableConstraintsError,
    symbolic_shape,
)
from symshape.algebra.floordiv import floordiv, mod
from symshape.repair import repaired_facts


def test_symbolic_shape_basic_forms() -> None:
    a, b = symbolic_shape("a, b")
    assert symbolic_shape("(a, b)", scope=a.scope) == (a, b)
    assert symbolic_shape("a, b,", scope=a.scope) == (a, b)
    assert symbolic_shape("", scope=a.scope) == ()
    assert symbolic_shape("3, a", scope=a.scope) == (3, a)
    (e,) = symbolic_shape("2*h + 1")
    assert str(e) == "2*h + 1"


def test_placeholders_and_like() -> None:
    assert symbolic_shape("_, b, ...", like=(2, None, 4, 5))[0] == 2
    shape = symbolic_shape("_, b, ...", like=(2, None, 4, 5))
    assert shape[0] == 2 and shape[2:] == (4, 5) and str(shape[1]) == "b"
    assert symbolic_shape(None, like=(1, 2)) == (1, 2)
    assert symbolic_shape("...", like=()) == ()
    with pytest.raises(ParseError, match="like"):
        symbolic_shape("_, a")
    with pytest.raises(ParseError, match="like"):
        symbolic_shape("a, ...")
    with pytest.raises(ParseError, match="constant 3"):
        symbolic_shape("3, a", like=(4, 5))
    with pytest.raises(ParseError, match="rank"):
        symbolic_shape("a, b", like=(4,))
    with pytest.raises(ParseError):
        symbolic_shape("_", like=(None,))


@pytest.mark.parametrize("bad", [
    "2.5", "a + a a", "a ^ a", "a; a", ")(", "2a", "a@", "'a'", "mod(a)",
    "floordiv(a, b, c)", "..., 3", "a,,b", "-", "a +", "max(a b)",
])
def test_parse_errors_are_valueerrors_with_caret(bad: str) -> None:
    with pytest.raises(ParseError) as info:
        symbolic_shape(bad)
    assert isinstance(info.value, ValueError)
    assert bad in str(info.value)


def test_scope_and_constraints_are_exclusive() -> None:
    scope = SymbolicScope(["a >= 2"])
    with pytest.raises(ValueError, match="either scope= or constraints="):
        symbolic_shape("a", scope=scope, constraints=["a >= 3"])
    with pytest.raises(ValueError, match="sequence of strings"):
        SymbolicScope("a >= 2")  # type: ignore[arg-type]


def test_mixing_scopes_is_an_error_naming_both() -> None:
    (a1,) = symbolic_shape("a", constraints=["a >= 2"])
    (a2,) = symbolic_shape("a")
    with pytest.raises(ScopeMismatchError) as info:
        _ = a1 + a2
    msg = str(info.value)
    assert "a >= 2" in msg and "no constraints" in msg and "test_scope.py" in msg
    with pytest.raises(ScopeMismatchError):
        _ = a1 >= a2
    with pytest.raises(ScopeMismatchError):
        symshape.max_dim(a1, a2)


def test_equality_constraints_rewrite() -> None:
    a, b = symbolic_shape("a, b", constraints=["b == 2*a"])
    assert str(b) == "2*a"
    assert b == 2 * a
    (x,) = symbolic_shape("a", constraints=["mod(a, 128) == 0"])
    assert 128 * (x // 128) == x
    assert x % 128 == 0
    a, d = symbolic_shape("a, d", constraints=["4*d == a - 1"])
    assert 4 * d == a - 1
    assert 8 * d == 2 * a - 2


@pytest.mark.parametrize("cs", [
    ["a <= 0"], ["a == a + 1"], ["a >= 5", "a <= 4"], ["a > b", "b > a"], ["a < 1"],
    ["a + b == 1"], ["a >= b + 1", "b >= a"],
])
def test_unsatisfiable_constraints(cs: list[str]) -> None:
    with pytest.raises(UnsatisfiableConstraintsError) as info:
        SymbolicScope(cs)
    assert isinstance(info.value, ValueError)


def test_strict_and_chained_constraints() -> None:
    a, b = symbolic_shape("a, b", constraints=["16 <= a < b"])
    assert a >= 16
    assert b >= 17
    assert b > a
    lo, hi = symshape.bounds(b - a)
    assert lo == 1 and hi == math.inf


def test_constraints_are_immutable() -> None:
    s = SymbolicScope(["a > b", "mod(c, 4) == 0"])
    first, second = s.constraints
    assert (first.text, first.op, str(first.lhs), str(first.rhs)) == ("a > b", ">=", "a", "b + 1")
    assert (second.op, str(second.diff)) == ("==", "mod(c, 4)")
    for name in ("text", "op", "diff", "lhs", "rhs"):
        with pytest.raises(AttributeError):
            setattr(first, name, 0)
    with pytest.raises(AttributeError):
        first.extra = 1  # type: ignore[attr-defined]
    assert first.text == "a > b" and str(first.diff) == "a - b - 1"


def test_comparisons_decide_or_raise() -> None:
    a, b = symbolic_shape("a, b")
    assert a >= 1 and a > 0 and not (a < 1) and (a <= 0) is False
    assert a + b >= a
    assert 2 * a >= a + 1
    assert (a >= a + 1) is False
    assert symshape.max_dim(a, b) >= a
    assert symshape.min_dim(a, b) <= b
    with pytest.raises(InconclusiveDimensionOperation) as info:
        _ = a >= b
    assert "'a' >= 'b'" in str(info.value)
    with pytest.raises(InconclusiveDimensionOperation):
        _ = a >= 2


def test_inconclusive_message_names_constraints() -> None:
    a, b = symbolic_shape("a, b", constraints=["a >= 4"])
    with pytest.raises(InconclusiveDimensionOperation, match="a >= 4"):
        _ = a >= b


def test_max_min_dim_simplify() -> None:
    a, b = symbolic_shape("a, b")
    assert symshape.max_dim(a, a + 1) == a + 1
    assert symshape.min_dim(a, a + b) == a
    assert symshape.max_dim(a, 0) == a
    assert symshape.max_dim(3, 5) == 5 and symshape.min_dim(3, 5) == 3
    m = symshape.max_dim(a, b)
    assert str(m) == "max(a, b)"
    (x,) = symbolic_shape("a", constraints=["a >= 128"])
    assert symshape.min_dim(x, 128) == 128


def test_bounds_layer() -> None:
    a, b = symbolic_shape("a, b", constraints=["a >= b + 8"])
    assert symshape.bounds(a) == (9, math.inf)
    assert symshape.bounds(a % 5) == (0, 4)
    assert symshape.bounds(-a) == (-math.inf, -9)
    assert symshape.bounds(7) == (7, 7)
    assert a >= 9
    assert symshape.is_symbolic_dim(a) and not symshape.is_symbolic_dim(3)


def test_bool_of_dimension() -> None:
    (a,) = symbolic_shape("a")
    assert bool(a)
    assert bool(a - 1 + 1)
    with pytest.raises(InconclusiveDimensionOperation):
        bool(a - 1)


def test_int_conversion_is_refused() -> None:
    (a,) = symbolic_shape("a")
    with pytest.raises(TypeError):
        int(a)
    with pytest.raises(TypeError):
        range(a)  # type: ignore[call-overload]


def test_scope_repr_mentions_constraints_and_location() -> None:
    scope = SymbolicScope(["a >= b + 8", "mod(b, 4) == 0"])
    text = str(scope)
    assert "a >= b + 8" in text and "mod(b, 4) == 0" in text and "test_scope.py" in text
    assert scope.constraint_texts == ("a >= b + 8", "mod(b, 4) == 0")


def test_symbolic_divisor_domain_condition_is_a_hypothesis_of_the_query() -> None:
    # JAX accepts a divisor that may be 0 for some valuations: the expression is
    # defined where the divisor is >= 1, a hypothesis of each query that
    # mentions it, never a fact of the scope.
    shape = symbolic_shape("a, b, mod(b, floordiv(a, 2))")
    a, r = shape[0], shape[2]
    assert isinstance(a, DimExpr) and isinstance(r, DimExpr)
    with pytest.raises(InconclusiveDimensionOperation):
        _ = a >= 2  # does not mention the division
    assert (r >= 0) is True
    assert (r <= floordiv(a, 2) - 1) is True  # uses floordiv(a, 2) >= 1
    assert symshape.prove("mod(b, floordiv(a, 2)) < floordiv(a, 2)").proved


def test_building_a_division_changes_no_other_answer() -> None:
    """The determinism bug of the first engine: a division by a possibly-zero
    divisor recorded ``divisor >= 1`` for the whole scope, so answers, canonical
    forms and shape checks changed after it was merely built."""
    s = SymbolicScope()
    a, b = symbolic_shape("a, b", scope=s)
    half = floordiv(a, 2)
    m1 = symshape.max_dim(b, 2)
    for _ in range(2):  # the second time from the cache
        with pytest.raises(InconclusiveDimensionOperation):
            _ = half >= 1
        with pytest.raises(InconclusiveDimensionOperation):
            _ = b >= 2
    _ = a // (b - 1)
    _ = mod(b, half)
    assert symshape.prove("a // (b - 1) >= 0", scope=s).proved
    m2 = symshape.max_dim(b, 2)
    assert m1 == m2 and str(m2) == "max(b, 2)"
    with pytest.raises(InconclusiveDimensionOperation):
        _ = half >= 1
    with pytest.raises(InconclusiveDimensionOperation):
        _ = b >= 2
    assert (a * b >= a) is True
    assert symshape.ShapeCheck(["a, b"], scope=s).solve([(3, 1)]) == {"a": 3, "b": 1}


def test_proved_numerators_answer_quotient_comparisons_without_a_search(
        work_meter: WorkMeter) -> None:
    """Once ``N >= 0`` is proved, ``floordiv(N, k) >= 0`` needs no new search
    (the pattern of ``canonicalize_slice``: the numerator's answer is cached);
    the canonical forms do not change."""
    a, b = symbolic_shape("a, b")
    # (a*b >= a takes a product fact: the intervals of its terms cannot show it;
    # canonicalize_slice's own numerator is settled by the intervals, see
    # tests/facts/test_intervals.py)
    n = a * b - a + 3
    before = str(n // 4)
    with work_meter.measure() as first:
        assert (n // 4 >= 0) is True  # decided by the procedure
    assert first.searches
    a.scope.clear_caches()
    assert symshape.max_dim(0, n) == n  # proves n >= 0
    with work_meter.measure() as again:
        assert (n // 4 >= 0) is True
        assert (0 <= n // 4) is True  # noqa: SIM300 (the reflected operator)
        assert symshape.max_dim(n // 4, 0) == n // 4
        assert symshape.max_dim(0, n // 4) == n // 4  # the other direction of max_dim
    assert not again.searches
    assert str(n // 4) == before
    # Unproved numerators are not trusted: mod(a, 3) - 1 can be negative.
    m = (a % 3 - 1) // 2
    with pytest.raises(InconclusiveDimensionOperation):
        _ = m >= 0


def test_constraints_seen_to_hold_by_repairing_a_cheap_valuation() -> None:
    # Neither the propagated lower bounds, nor those rounded up to multiples of
    # 8, nor all twos satisfy these; raising variables along the failing facts
    # does, so no decision procedure is built to see that they can hold.
    s = SymbolicScope(["a + b >= 8", "mod(c, 8) == 0", "c >= d + 2", "d >= 3"])
    assert s._decider_obj is None
    env = {"a": 8, "b": 8, "c": 8, "d": 8}
    fixed = repaired_facts(env, 8, [f for f, _ in s.facts()])
    assert fixed == {"a": 8, "b": 8, "c": 16, "d": 8}
    # contradictory constraints still raise (no repair can satisfy them)
    with pytest.raises(symshape.UnsatisfiableConstraintsError):
        SymbolicScope(["a + b >= 8", "a + b <= 7"])


def test_scopes_say_where_they_were_created() -> None:
    scope = symshape.SymbolicScope(["a >= 1"]); line = sys._getframe().f_lineno  # noqa: E702
    assert scope.created_at == f"{__file__}:{line}"
    assert str(scope).endswith(f"created at {__file__}:{line}")
    (x,) = symshape.symbolic_shape("a"); line = sys._getframe().f_lineno  # noqa: E702
    assert isinstance(x, symshape.DimExpr)
    assert x.scope.created_at == f"{__file__}:{line}"  # the caller, not the package
