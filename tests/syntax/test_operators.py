"""The operator vocabulary (symshape.operators): what the trees carry, and that
every interpreter of the trees handles every operator of it.

An interpreter that keys its table with ``kind_table(..., required=...)``
fails on import when it lacks an operator; the tests below also check each
table against the vocabulary, and run every operator through the
interpreters a user reaches (expressions, sympy, shape-check programs), so
that adding an operator to :class:`Op` fails here until each one handles it.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path
from typing import Any

import pytest
from support.paths import ROOT

from symshape import parsing, symbolic_shape
from symshape.errors import ParseError
from symshape.operators import BINARY, FUNCTIONS, ONE_SUBTREE, Cmp, Op, kind_table, kinds

# One text per operator, and its value at a = 17, b = 5 in Python.
TEXTS: dict[Op, tuple[str, int]] = {
    Op.NEG: ("-a", -17),
    Op.ADD: ("a + b", 22),
    Op.SUB: ("a - b", 12),
    Op.MUL: ("a * b", 85),
    Op.FLOORDIV: ("a // b", 3),
    Op.MOD: ("a % b", 2),
    Op.MAX: ("max(a, b)", 17),
    Op.MIN: ("min(a, b)", 5),
    Op.POW: ("a ^ 2", 289),
}
VALUES = {"a": 17, "b": 5}


def test_every_operator_has_a_text_here() -> None:
    assert set(TEXTS) == set(Op)


def test_members_are_the_kind_strings() -> None:
    for op in Op:
        assert op == op.value and hash(op) == hash(op.value)
        assert type(op.value) is str
        assert {op.value: 1}[op] == 1 and {op: 1}[op.value] == 1
    assert {op.arity for op in BINARY} == {2} and Op.NEG.arity == 1
    assert set(BINARY) | set(ONE_SUBTREE) == set(Op)
    assert {op.function for op in FUNCTIONS} == {"floordiv", "mod", "max", "min"}
    for op in Op:
        assert Op.of(op.value) is op
    for c in Cmp:
        assert Cmp.of(c.value) is c
    with pytest.raises(ValueError):
        Op.of("var")
    with pytest.raises(ValueError):
        Cmp.of("=<")
    for c in Cmp:
        assert c.negated.negated is c and c.flipped.flipped is c
        assert c.negated != c and type(c.value) is str


def test_comparisons_negate_and_flip_as_python_compares() -> None:
    ops = {Cmp.GE: int.__ge__, Cmp.LE: int.__le__, Cmp.EQ: int.__eq__, Cmp.NE: int.__ne__,
           Cmp.GT: int.__gt__, Cmp.LT: int.__lt__}
    assert set(ops) == set(Cmp)
    for c, f in ops.items():
        for x in range(-2, 3):
            for y in range(-2, 3):
                assert ops[c.negated](x, y) == (not f(x, y))
                assert ops[c.flipped](y, x) == f(x, y)


@pytest.mark.parametrize("op", list(Op))
def test_trees_carry_the_plain_kind_of_every_operator(op: Op) -> None:
    text, _ = TEXTS[op]
    for written in (text, f"({text})", f"b + ({text})"):
        node = parsing.parse_expr(written)
        if written.startswith("b + "):
            node = node[3]
        assert node[0] == op and type(node[0]) is str
        assert len(node) == 2 + op.arity
    if op.function is not None and op.symbol is not None:  # both spellings, one kind
        call = parsing.parse_expr(f"{op.function}(a, b)")
        infix = parsing.parse_expr(f"a {op.symbol} b")
        assert call[0] == infix[0] == op and call[2:] != infix[2:]  # (columns differ)


def test_the_grammar_reserves_exactly_the_function_names() -> None:
    from symshape._fastparse import fast_parser  # the grammar's CALL terminal, as read

    assert set(fast_parser().functions) == {op.function for op in FUNCTIONS}
    for op in FUNCTIONS:
        with pytest.raises(ParseError, match="is a function"):
            parsing.parse_expr(str(op.function))  # a reserved word is not a name


@pytest.mark.parametrize("op", list(Op))
def test_every_operator_is_built_as_python_computes(op: Op) -> None:
    text, want = TEXTS[op]
    (e,) = symbolic_shape(text)
    assert e.evaluate(VALUES) == want


@pytest.mark.parametrize("op", list(Op))
def test_every_operator_goes_to_sympy_and_back(op: Op) -> None:
    ss = pytest.importorskip("symshape.sympy")
    text, want = TEXTS[op]
    (e,) = symbolic_shape(text)
    s = ss.to_sympy(e)
    assert int(s.subs({ss.symbol(k): v for k, v in VALUES.items()})) == want
    assert str(ss.from_sympy(s, e.scope)) == str(e)


@pytest.mark.parametrize("op", list(Op))
def test_every_operator_is_checked_by_a_shape_check(op: Op) -> None:
    from symshape import ShapeCheck
    from symshape.errors import ShapeMismatchError

    text, want = TEXTS[op]
    if want < 0:
        text, want = f"a + ({text})", 0
    check = ShapeCheck([f"a, b, {text}"], constraints=["b >= 1"])
    sizes = [(17, 5, want)]
    assert check.solve(sizes) == VALUES
    assert check.program.run(sizes) == VALUES
    for wrong in (check.solve, check.program.run):
        with pytest.raises(ShapeMismatchError):
            wrong([(17, 5, want + 1)])
    assert "@shape_assertion" in check.to_stablehlo()


def _imports_of(path: Path) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            out.add("." * node.level + (node.module or ""))
    return out


def test_the_vocabulary_imports_nothing_of_symshape() -> None:
    imports = _imports_of(ROOT / "symshape" / "operators.py")
    assert not {m for m in imports if m.startswith(("symshape", "."))}


# Every table from operators to implementations, with the operators it must cover.
TABLES = [
    ("symshape.build", "_BINARY", BINARY),
    ("symshape.sympy", "_FROM_BINARY", BINARY),
    ("symshape.shapecheck.program", "INT_BINARY", BINARY),
    ("symshape.jax.convert", "_BUILD", FUNCTIONS),
    ("symshape.jax.ir", "_RUNTIME_OPS", BINARY),
    ("symshape.torch.checks", "_INT_OPS", BINARY),
    ("symshape.torch.fxread", "_ARITH", (Op.ADD, Op.SUB, Op.MUL, Op.FLOORDIV, Op.MOD)),
]


@pytest.mark.parametrize(("module", "name", "required"), TABLES,
                         ids=[f"{m}.{n}" for m, n, _ in TABLES])
def test_every_interpreter_handles_every_operator(module: str, name: str,
                                                  required: tuple[Op, ...]) -> None:
    for adapter in ("sympy", "jax", "torch"):
        if f".{adapter}" in module:
            pytest.importorskip(adapter)
    table: Any = getattr(importlib.import_module(module), name)
    assert kinds(required) <= set(table)
    assert all(type(k) is str for k in table)  # plain keys: the fast dict lookup


def test_stablehlo_and_python_compilers_handle_every_binary_operator() -> None:
    stablehlo = importlib.import_module("symshape.shapecheck.stablehlo")
    pycompile = importlib.import_module("symshape.shapecheck.pycompile")
    assert set(stablehlo._ARITH) | stablehlo._DIVMOD == kinds(BINARY)
    assert set(pycompile._PY_OP) | kinds((Op.MAX, Op.MIN)) >= kinds(BINARY)


def test_a_table_missing_an_operator_fails() -> None:
    with pytest.raises(LookupError, match="'mod'"):
        kind_table({op: op.arity for op in BINARY if op is not Op.MOD}, required=BINARY)
    table = kind_table({Op.ADD: 1}, required=(Op.ADD,))
    assert table == {"add": 1} and type(next(iter(table))) is str
