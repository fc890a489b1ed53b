"""ShapeCheck: solving dimension variables from concrete shapes, and the assertion program."""

from __future__ import annotations

import itertools
import math
import random
import re
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.shapecheck_cases import brute_force, random_case, shapes_for

import symshape
from symshape import ShapeMismatchError, SymbolicScope, UnsatisfiableConstraintsError
from symshape.errors import ParseError, ScopeMismatchError, SymshapeError
from symshape.shapecheck import Program, ShapeCheck, UnsolvableSpecsError, introot
from symshape.shapecheck.program import MAX_MESSAGE_INPUTS, poly_value

# ---------------------------------------------------------------------------------------
# An independent evaluator of the program (its own op semantics and message formatting)


def _ref_floordiv(x: int, y: int) -> int:
    return math.floor(Fraction(x, y))


def _ref_introot(bits: int, coeffs: Sequence[int], x: int) -> int:
    v = 0
    for b in reversed(range(bits)):
        cand = v + (1 << b)
        if sum(c * cand ** k for k, c in enumerate(coeffs)) <= x:
            v = cand
    return v


def _ref_format(message: str, values: Sequence[int]) -> str:
    out, i = [], 0
    while i < len(message):
        if message.startswith("{{", i):
            out.append("{")
            i += 2
            continue
        m = re.match(r"\{(\d+)\}", message[i:])
        if m:
            out.append(str(values[int(m.group(1))]))
            i += m.end()
            continue
        out.append(message[i])
        i += 1
    return "".join(out)


def ref_run(prog: Program, shapes: Sequence[Sequence[int]]) -> tuple[str, Any]:
    """``("ok", values)`` or ``("error", message)`` by walking the program."""
    vals: dict[int, Any] = {}
    for rid, op, o, params in prog.steps:
        x: Any = vals[o[0]] if o else None
        y: Any = vals[o[1]] if len(o) > 1 else None
        if op == "dim":
            v: Any = shapes[params[0]][params[1]]
        elif op == "const":
            v = params[0]
        elif op == "add":
            v = x + y
        elif op == "sub":
            v = x - y
        elif op == "mul":
            v = x * y
        elif op == "floordiv":
            v = _ref_floordiv(x, y)
        elif op == "mod":
            v = x - y * _ref_floordiv(x, y)
        elif op == "max":
            v = max(x, y)
        elif op == "min":
            v = min(x, y)
        elif op == "eq":
            v = x == y
        elif op == "ne":
            v = x != y
        elif op == "ge":
            v = x >= y
        elif op == "gt":
            v = x > y
        elif op == "and":
            v = bool(x) and bool(y)
        elif op == "or":
            v = bool(x) or bool(y)
        elif op == "not":
            v = not x
        elif op == "introot":
            v = _ref_introot(params[0], params[1:], x)
        else:
            raise AssertionError(op)
        vals[rid] = v
    for a in prog.assertions:
        if not vals[a.pred]:
            return "error", _ref_format(a.message, [vals[i] for i in a.inputs])
    return "ok", {name: vals[i] for name, i in prog.outputs}


def py_run(check: ShapeCheck, shapes: Any) -> tuple[str, Any]:
    try:
        return "ok", check.solve(shapes)
    except ShapeMismatchError as err:
        return "error", str(err)


# ---------------------------------------------------------------------------------------
# Solving


def test_docstring_example_and_solutions() -> None:
    check = ShapeCheck(["b, 2*h + 1", "h"])
    assert check.solve([(3, 9), (4,)]) == {"b": 3, "h": 4}
    assert check.variables == ("b", "h")
    assert check.solutions == {"b": "args[0].shape[0]",
                               "h": "floordiv(args[0].shape[1] - 1, 2)"}
    assert "ShapeCheck(args[0]: (b, 2*h + 1), args[1]: (h,)" in repr(check)


def test_linear_one_variable_messages() -> None:
    check = ShapeCheck(["b, 2*h + 1", "h"])
    with pytest.raises(ShapeMismatchError, match=re.escape(
            "Input shapes do not match the specs: args[0].shape[1] == 8, but the spec "
            "'2*h + 1' needs an odd value (to solve for 'h'). Specs: args[0].shape = "
            "(b, 2*h + 1), args[1].shape = (h,). Dimension variables solved so far: 'b' = 3 "
            "(from args[0].shape[0]).")):
        check.solve([(3, 8), (4,)])
    with pytest.raises(ShapeMismatchError, match=r"'2\*h \+ 1' then gives 'h' = 0, but "
                       r"dimension variables must be >= 1 \(0 is a valid array size"):
        check.solve([(3, 1), (0,)])
    with pytest.raises(ShapeMismatchError, match=r"args\[0\].shape\[0\] == 0, and its spec 'b' "
                       "then gives 'b' = 0"):
        check.solve([(0, 9), (4,)])
    with pytest.raises(ShapeMismatchError, match=r"args\[1\].shape\[0\] == 5, but its spec 'h' "
                       r"has the value 4 .*'h' = 4 \(from args\[0\].shape\[1\]\)"):
        check.solve([(3, 9), (5,)])


def test_congruence_and_negative_coefficient() -> None:
    check = ShapeCheck(["3*a + 2"])
    assert check.solve([(11,)]) == {"a": 3}
    with pytest.raises(ShapeMismatchError, match="congruent to 2 modulo 3"):
        check.solve([(10,)])
    with pytest.raises(ShapeMismatchError, match="'3\\*a \\+ 2' then gives 'a' = 0"):
        check.solve([(2,)])
    with pytest.raises(ShapeMismatchError, match="'a \\+ 5' needs a value >= 6 "
                       "\\(for 'a' >= 1\\); it gives 'a' = -2"):
        ShapeCheck(["a + 5"]).solve([(3,)])
    dec = ShapeCheck(["n, 20 - n"])
    assert dec.solve([(3, 17)]) == {"n": 3}
    with pytest.raises(ShapeMismatchError, match="has the value 17"):
        dec.solve([(3, 16)])
    dec2 = ShapeCheck(["20 - n"])
    assert dec2.solve([(5,)]) == {"n": 15}
    with pytest.raises(ShapeMismatchError, match="needs a value <= 19"):
        dec2.solve([(21,)])


def test_substitution_chain() -> None:
    check = ShapeCheck(["a + b", "b + c", "c"])
    assert check.solve([(5,), (7,), (3,)]) == {"a": 1, "b": 4, "c": 3}
    with pytest.raises(ShapeMismatchError, match="'a' = -1"):
        check.solve([(3,), (7,), (3,)])


def test_joint_linear_systems() -> None:
    check = ShapeCheck(["a + b", "a + 2*b"])
    assert check.solve([(5,), (7,)]) == {"a": 3, "b": 2}
    assert check.solutions == {"a": "(args[0].shape[0] * 2) - args[1].shape[0]",
                               "b": "args[1].shape[0] - args[0].shape[0]"}
    with pytest.raises(ShapeMismatchError, match=r"the dimensions args\[0\].shape\[0\] == 5, "
                       r"args\[1\].shape\[0\] == 4 with the specs 'a \+ b', 'a \+ 2\*b' give "
                       "'b' = -1, but dimension variables must be >= 1"):
        check.solve([(5,), (4,)])
    # determinant 5: integrality is asserted
    det5 = ShapeCheck(["2*a + b, a + 3*b"])
    assert det5.solve([(7, 11)]) == {"a": 2, "b": 3}
    with pytest.raises(ShapeMismatchError, match=r"give 'a' = \d+/5, which is not an integer"):
        det5.solve([(8, 11)])
    # three unknowns, and an extra consistency equation
    three = ShapeCheck(["a + b + c", "a + b + 2*c", "a + 2*b", "a + b"])
    assert three.solve([(6,), (9,), (5,), (3,)]) == {"a": 1, "b": 2, "c": 3}
    with pytest.raises(ShapeMismatchError, match=r"args\[3\].shape\[0\] == 4, but its spec"):
        three.solve([(6,), (9,), (5,), (4,)])
    # partly determined: c from the difference, then a and b one by one
    part = ShapeCheck(["a + b + c", "a + b + 2*c", "a"])
    assert part.solve([(6,), (9,), (1,)]) == {"a": 1, "b": 2, "c": 3}


def test_products_with_known_factors() -> None:
    check = ShapeCheck(["a*b", "a"])
    assert check.solve([(6,), (3,)]) == {"a": 3, "b": 2}
    assert check.solutions["b"] == "floordiv(args[0].shape[0], max(args[1].shape[0], 1))"
    with pytest.raises(ShapeMismatchError, match=r"args\[0\].shape\[0\] == 7, but the spec "
                       r"'a\*b' needs a multiple of 3 \(the value of 'a'\)"):
        check.solve([(7,), (3,)])
    with pytest.raises(ShapeMismatchError, match="'a' = 0"):
        check.solve([(6,), (0,)])  # the divisor's own check comes first
    with pytest.raises(ShapeMismatchError, match="'b' = 0"):
        check.solve([(0,), (3,)])
    three = ShapeCheck(["a*b*c + a", "a", "b"])
    assert three.solve([(2 * 3 * 4 + 2,), (2,), (3,)]) == {"a": 2, "b": 3, "c": 4}


def test_polynomials() -> None:
    sq = ShapeCheck(["a*a"])
    assert sq.solve([(49,)]) == {"a": 7}
    assert sq.solve([(1,)]) == {"a": 1}
    with pytest.raises(ShapeMismatchError, match=r"has that value for no integer 'a' \(the "
                       r"closest, 'a' = 3, gives 9\)"):
        sq.solve([(10,)])
    with pytest.raises(ShapeMismatchError, match="'a' = 0"):
        sq.solve([(0,)])
    tri = ShapeCheck(["a*(a + 1), b", "b*a^2 + 1"])
    assert tri.solve([(12, 5), (5 * 9 + 1,)]) == {"a": 3, "b": 5}
    with pytest.raises(ShapeMismatchError, match="no integer 'a'"):
        tri.solve([(13, 5), (46,)])
    with pytest.raises(ShapeMismatchError, match="has the value 46"):
        tri.solve([(12, 5), (47,)])
    scaled = ShapeCheck(["b", "b*a^2 + 1"])
    assert scaled.solve([(5,), (46,)]) == {"a": 3, "b": 5}
    with pytest.raises(ShapeMismatchError, match=r"needs a value congruent to 1 modulo 5 "
                       r"\(the value of 'b'\)"):
        scaled.solve([(5,), (47,)])
    cube = ShapeCheck(["a^3 + 2*a + 7"])
    for a in (1, 2, 10, 1000):
        assert cube.solve([(a ** 3 + 2 * a + 7,)]) == {"a": a}
    big = ShapeCheck(["a*a"])
    assert big.solve([((2 ** 31 - 1) ** 2,)]) == {"a": 2 ** 31 - 1}
    with pytest.raises(ShapeMismatchError):
        big.solve([(2 ** 62 + 1,)])


def test_introot_matches_bitwise_search() -> None:
    rng = random.Random(0)
    for _ in range(300):
        deg = rng.randint(2, 4)
        coeffs = [rng.randint(0, 5) for _ in range(deg)] + [rng.randint(1, 4)]
        bits = rng.randint(1, 12)
        x = rng.randint(-5, poly_value(coeffs, (1 << bits) + 3))
        assert introot(bits, coeffs, x) == _ref_introot(bits, coeffs, x), (coeffs, bits, x)


@pytest.mark.parametrize(("specs", "needle"), [
    (["a, floordiv(b, 2)"], "'b' occurs under floordiv/mod/max/min in every spec that "
                            "contains it ('floordiv(b, 2)' for args[0].shape[1])"),
    (["a*b"], "'a' occurs only in equations that cannot be solved"),
    (["max(a, b), a"], "'b' occurs under floordiv/mod/max/min in every spec"),
    (["a*a - 3*a"], "'a' occurs only in equations that cannot be solved"),
])
def test_unsolvable_is_reported_at_build_time(specs: list[str], needle: str) -> None:
    with pytest.raises(UnsolvableSpecsError) as info:
        ShapeCheck(specs)
    assert isinstance(info.value, ValueError)
    assert needle in str(info.value)
    assert "Specs: args[0].shape = " in str(info.value)


def test_constraint_on_variable_of_no_spec() -> None:
    with pytest.raises(UnsolvableSpecsError, match="'c >= 2' mentions the dimension variable"):
        ShapeCheck(["a"], constraints=["c >= 2"])


# ---------------------------------------------------------------------------------------
# Constraints and scopes


def test_explicit_constraints_are_checked_last() -> None:
    check = ShapeCheck(["a, b"], constraints=["a >= b + 1", "16 <= a <= 64"])
    assert check.solve([(20, 3)]) == {"a": 20, "b": 3}
    with pytest.raises(ShapeMismatchError, match=r"the constraint 'a >= b \+ 1' of the scope "
                       r"does not hold: 'a' == 20 and 'b \+ 1' == 21"):
        check.solve([(20, 20)])
    with pytest.raises(ShapeMismatchError, match=r"'a >= 16' \(from '16 <= a <= 64'\)"):
        check.solve([(10, 3)])
    with pytest.raises(ShapeMismatchError, match=r"'64 >= a' \(from '16 <= a <= 64'\)"):
        check.solve([(65, 3)])
    kinds = [a.kind for a in check.program.assertions]
    assert kinds[-3:] == ["constraint"] * 3


def test_equality_constraints_rewrite_variables() -> None:
    check = ShapeCheck(["b"], constraints=["a == b - 5"])
    assert check.solve([(6,)]) == {"a": 1, "b": 6}
    with pytest.raises(ShapeMismatchError, match=r"the scope requires a >= 1, with a == b - 5"):
        check.solve([(5,)])
    odd = ShapeCheck(["a, b"], constraints=["a == 2*b - 1"])
    assert odd.solve([(5, 3)]) == {"a": 5, "b": 3}
    with pytest.raises(ShapeMismatchError):
        odd.solve([(5, 4)])
    with pytest.raises(ShapeMismatchError, match="odd value"):
        odd.solve([(4, 2)])


def test_domain_conditions_of_symbolic_divisors() -> None:
    check = ShapeCheck(["a, mod(b, floordiv(a, 2))", "b"])
    assert check.solve([(5, 1), (3,)]) == {"a": 5, "b": 3}
    with pytest.raises(ShapeMismatchError, match=r"divisor 'floordiv\(a, 2\)' of floordiv/mod "
                       "is >= 1"):
        check.solve([(1, 0), (3,)])


def test_tuple_specs_and_scopes() -> None:
    scope = SymbolicScope(["a >= 2"])
    a, b = scope.symbolic_shape("a, b")
    check = ShapeCheck([(a, 3), "a*b"], scope=scope)
    assert check.scope is scope
    assert check.solve([(2, 3), (10,)]) == {"a": 2, "b": 5}
    assert ShapeCheck([(a, b)]).scope is scope  # the scope of the tuple specs
    with pytest.raises(ShapeMismatchError, match="'a' == 1"):
        check.solve([(1, 3), (10,)])
    other = symshape.symbolic_shape("c")[0]
    with pytest.raises(ScopeMismatchError, match="different scopes"):
        ShapeCheck([(a,), (other,)])
    with pytest.raises(ScopeMismatchError):
        ShapeCheck([(a,)], scope=SymbolicScope())
    with pytest.raises(SymshapeError, match="constraints= cannot be added"):
        ShapeCheck([(a,)], constraints=["a >= 3"])
    with pytest.raises(SymshapeError, match="either scope= or constraints="):
        ShapeCheck(["a"], constraints=["a >= 3"], scope=scope)
    with pytest.raises(SymshapeError, match="not an int or a symbolic dimension"):
        ShapeCheck([(a, 2.5)])
    with pytest.raises(SymshapeError, match="must be a sequence of strings"):
        ShapeCheck(["a"], constraints="a >= 2")


@pytest.mark.parametrize(("specs", "error", "needle"), [
    (["a, 2a"], ParseError, "in the spec of args[0]"),
    ([None], SymshapeError, "args[0]: the spec None (any shape) cannot be used"),
    ("a, b", SymshapeError, "for one argument write ['a, b']"),
    ((3, 4), SymshapeError, "looks like a single shape"),
    ([3.5], SymshapeError, "a spec must be a string or a tuple"),
    ([{1: "a", "x": "b"}], SymshapeError, "dict keys must be sortable"),
    (["a - a - 1"], UnsatisfiableConstraintsError, "negative constant -1"),
])
def test_bad_specs(specs: Any, error: type[Exception], needle: str) -> None:
    with pytest.raises(error) as info:
        ShapeCheck(specs)
    assert isinstance(info.value, ValueError)
    assert needle in str(info.value)


def test_contradiction_with_constraints() -> None:
    with pytest.raises(UnsatisfiableConstraintsError, match="the spec 'a - b' of args"):
        ShapeCheck(["a, b, a - b"], constraints=["b >= a + 1"])


# ---------------------------------------------------------------------------------------
# Concrete shapes: structure, ranks, bad sizes


def test_pytrees_and_arrays() -> None:
    check = ShapeCheck([{"x": "a, b", "y": ["b", {"z": "a*b"}]}])
    assert check.arg_names == ("args[0]['x']", "args[0]['y'][0]", "args[0]['y'][1]['z']")
    good = [{"x": (2, 3), "y": [(3,), {"z": (6,)}]}]
    assert check.solve(good) == {"a": 2, "b": 3}
    assert check.solve([(2, 3), (3,), (6,)]) == {"a": 2, "b": 3}  # flat
    arrays = [{"x": np.zeros((2, 3)), "y": [np.zeros(3), {"z": np.zeros(6)}]}]
    assert check.solve(arrays) == {"a": 2, "b": 3}
    with pytest.raises(ShapeMismatchError, match=r"args\[0\]\['y'\]\[1\]\['z'\].shape\[0\] == 7"):
        check.solve([{"x": (2, 3), "y": [(3,), {"z": (7,)}]}])
    with pytest.raises(ShapeMismatchError, match="do not have the structure of the specs"):
        check.solve([{"x": (2, 3), "y": [(3,)]}])
    with pytest.raises(ShapeMismatchError, match="expected a shape"):
        check.solve([(2, 3), (3,), 6])
    named = ShapeCheck({"w": "n, k", "x": "b, n"})
    assert named.solve({"x": (4, 5), "w": (5, 6)}) == {"b": 4, "k": 6, "n": 5}
    assert named.arg_names == ("args['w']", "args['x']")


def test_bad_concrete_shapes_get_their_own_messages() -> None:
    check = ShapeCheck(["a, 8", "a"])
    assert check.solve([[3, 8], [3]]) == {"a": 3}
    assert check.solve([(np.int64(3), np.int32(8)), (3,)]) == {"a": 3}
    cases = [
        ([(3, 8, 1), (3,)], r"Rank mismatch for args\[0\]: its spec has rank 2, but its shape "
                            r"\(3, 8, 1\) has rank 3"),
        ([(3, 7), (3,)], r"args\[0\].shape\[1\] == 7, but the spec requires the constant 8"),
        ([(3, 8.0), (3,)], r"args\[0\].shape\[1\] is 8.0 of type float, not an integer"),
        ([(3, 8), (-3,)], r"args\[1\].shape\[0\] is -3: dimension sizes must be >= 0"),
        ([(True, 8), (3,)], r"args\[0\].shape\[0\] is True, a bool"),
        ([(None, 8), (3,)], r"args\[0\].shape\[0\] is None \(unknown\)"),
        ([(3, 8)], r"expected a sequence of 2 item"),
        ([(0, 8), (0,)], r"'a' = 0, but dimension variables must be >= 1 \(0 is a valid array "
                         "size, but not a valid value of a dimension variable\\)"),
    ]
    for shapes, needle in cases:
        with pytest.raises(ShapeMismatchError, match=needle):
            check.solve(shapes)


def test_no_arguments_and_scalars() -> None:
    assert ShapeCheck([]).solve([]) == {}
    check = ShapeCheck(["", (), "a"])
    assert check.solve([(), np.float32(1.0), (4,)]) == {"a": 4}
    with pytest.raises(ShapeMismatchError, match="Rank mismatch for args\\[0\\]"):
        check.solve([(1,), (), (4,)])


# ---------------------------------------------------------------------------------------
# The program


def test_program_is_well_formed_and_documented_ops_only() -> None:
    check = ShapeCheck(["a*(a + 1), b, 2*c + b", "max(a, b), mod(c, 3)"],
                       constraints=["b <= 100"])
    prog = check.program
    prog.validate()
    assert [s.result for s in prog.steps] == list(range(len(prog.steps)))
    assert {s.op for s in prog.steps} <= symshape.shapecheck.ALL_OPS
    assert [name for name, _ in prog.outputs] == ["a", "b", "c"]
    for a in prog.assertions:
        assert len(a.inputs) <= MAX_MESSAGE_INPUTS
        assert prog.is_bool(a.pred)
    text = prog.pretty()
    assert "introot" in text and "assert" in text and text.endswith("c=%" + str(
        dict(prog.outputs)["c"]))
    shapes = [(12, 5, 13), (5, 1)]
    assert prog.run(shapes) == check.solve(shapes) == {"a": 3, "b": 5, "c": 4}
    assert prog.first_failure(shapes) is None
    k, msg = prog.first_failure([(12, 5, 13), (5, 2)])  # type: ignore[misc]
    assert prog.assertions[k].kind == "agree" and "mod(c, 3)" in msg


def test_program_validate_rejects_malformed() -> None:
    prog = ShapeCheck(["a + 1"]).program
    steps = list(prog.steps)
    bad = prog._replace(steps=tuple(steps[:1] + [steps[1]._replace(result=7)] + steps[2:]))
    with pytest.raises(ValueError, match="ids must be"):
        bad.validate()
    forward = prog._replace(steps=(prog.steps[0]._replace(op="add", operands=(0, 1)),
                                   *prog.steps[1:]))
    with pytest.raises(ValueError, match="not an earlier value"):
        forward.validate()


def test_message_inputs_are_capped_at_32() -> None:
    names = [f"v{i}" for i in range(40)]
    check = ShapeCheck([", ".join(names), " + ".join(names)])
    for a in check.program.assertions:
        assert len(a.inputs) <= MAX_MESSAGE_INPUTS
    last = check.program.assertions[-1]
    # only the most recent solved variables are listed, so no value is lost
    assert "N/A" not in last.message and "(and 32 earlier)" in last.message
    shapes = [tuple(range(1, 41)), (sum(range(1, 41)) + 1,)]
    with pytest.raises(ShapeMismatchError, match=r"'v39' = 40 \(from args\[0\]\.shape\[39\]\)"):
        check.solve(shapes)
    assert ref_run(check.program, shapes) == py_run(check, shapes)


def test_braces_in_names_are_literal() -> None:
    check = ShapeCheck({"{x}": "a, a", "y}": "b"})
    with pytest.raises(ShapeMismatchError) as info:
        check.solve({"{x}": (2, 3), "y}": (4,)})
    assert "args['{x}'].shape[1] == 3" in str(info.value)
    assert "args['y}'].shape = (b,)" in str(info.value)


def test_compiled_closure_is_straight_line() -> None:
    check = ShapeCheck(["b, 2*h + 1", "h"])
    source = check._check.__doc__ or ""
    assert "for " not in source and "while " not in source
    assert "def _check(shapes):" in source


# ---------------------------------------------------------------------------------------
# Property test: Python backend == independent program evaluator == brute force


def check_case(seed: int) -> bool:
    """Build a random check and compare all evaluators on random shapes; False if the
    random specs are not solvable."""
    rng = random.Random(seed)
    specs, constraints = random_case(rng)
    try:
        check = ShapeCheck(specs, constraints=constraints)
    except UnsolvableSpecsError as err:
        assert "Cannot solve" in str(err) or "mentions the dimension variable" in str(err)
        return False
    except UnsatisfiableConstraintsError:
        return False
    check.program.validate()
    for _ in range(4):
        shapes = shapes_for(check, rng)
        got = py_run(check, shapes)
        assert ref_run(check.program, shapes) == got, (specs, constraints, shapes)
        try:
            assert ("ok", check.program.run(shapes)) == got
        except ShapeMismatchError as err:
            assert ("error", str(err)) == got
        sols = brute_force(check, shapes)
        if got[0] == "ok":
            assert len(sols) == 1, (specs, constraints, shapes, sols)
            values: dict[str, int] = got[1]  # type: ignore[assignment]
            assert {k: v for k, v in values.items() if k in sols[0]} == sols[0]
            assert set(sols[0]) <= set(values)
        else:
            assert sols == [], (specs, constraints, shapes, got, sols)
    return True


@settings(max_examples=500, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2 ** 32 - 1))
def test_backends_agree_with_brute_force(seed: int) -> None:
    check_case(seed)


def test_random_cases_are_mostly_solvable() -> None:
    solved = sum(check_case(seed) for seed in range(60))
    assert solved >= 30  # the property test exercises real checks


def test_valid_shapes_give_back_the_valuation() -> None:
    specs = ["b, 2*h + 1, w, 8", "b, h, w*h", "h*(h + 1), b + w"]
    check = ShapeCheck(specs)
    for b, h, w in itertools.product(range(1, 5), repeat=3):
        shapes = [(b, 2 * h + 1, w, 8), (b, h, w * h), (h * (h + 1), b + w)]
        assert check.solve(shapes) == {"b": b, "h": h, "w": w}


def test_messages_stay_small_with_many_arguments() -> None:
    """Each message lists a bounded number of specs and solved variables, so the
    program (and its StableHLO text) grows linearly with the number of arguments."""
    sizes = {}
    for n in (50, 400):
        check = ShapeCheck([f"a{i}" for i in range(n)])
        longest = max(len(a.message) for a in check.program.assertions)
        assert longest < 1500, longest
        sizes[n] = len(check.to_stablehlo())
        with pytest.raises(ShapeMismatchError) as info:
            check.solve([(i + 1,) for i in range(n - 1)] + [(0,)])
        assert f"args[{n - 1}].shape[0] == 0" in str(info.value)
        assert "more)" in str(info.value) and "earlier)" in str(info.value)
    assert sizes[400] < 12 * sizes[50]  # 8x the arguments: about 8x the text


def test_builder_prints_values_past_the_32nd_as_not_available() -> None:
    """The cap on message inputs holds for any message the builder is given."""
    from symshape.shapecheck.builder import ProgramBuilder
    b = ProgramBuilder(["args[0]"], [(None,) * 40])
    dims = [b.dim(0, i) for i in range(40)]
    pieces: list[Any] = ["sizes:"]
    for d in dims:
        pieces += [" ", d]
    b.assert_(b.op("ge", dims[0], b.const(1)), pieces, "explicit")
    (a,) = b.assertions
    assert len(a.inputs) == MAX_MESSAGE_INPUTS
    assert a.message.count("N/A") == 40 - MAX_MESSAGE_INPUTS


@pytest.mark.parametrize("spec, value", [("a^999 + a", 1), ("a^999 - a", 1),
                                         ("(a^1000 + 1) * (a^1000 + 1)", 1)])
def test_specs_of_high_degree_are_solved(spec: str, value: int) -> None:
    """Solving needs the spec to grow with its variable: tested by Taylor shifts, which
    took 9 s (binomials) at degree 999, or forever after an expansion to degree 2,000."""
    check = ShapeCheck([spec])
    size = symshape.symbolic_shape(spec)[0].evaluate({"a": value})
    assert check.solve([(size,)]) == {"a": value}
    with pytest.raises(ShapeMismatchError):
        check.solve([(size + 1,)])


@pytest.mark.parametrize("specs, shapes", [
    ([", ".join(["a"] * 3000)], [(5,) * 3000]),  # one argument of 3,000 dimensions
    (["a"] * 3000, [(5,)] * 3000),  # 3,000 arguments
])
def test_thousands_of_dimensions_compile(specs: list[str], shapes: list[tuple[int, ...]]
                                         ) -> None:
    """The generated check joins its tests in groups: one condition over 3,000 of them
    exhausted the compiler's recursion limit."""
    check = ShapeCheck(specs)
    assert check.solve(shapes) == {"a": 5}
    bad = [*shapes[:-1], (*shapes[-1][:-1], 4)]
    with pytest.raises(ShapeMismatchError, match="== 4"):
        check.solve(bad)
