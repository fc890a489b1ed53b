"""The parsing layer: text -> neutral AST tuples, and its error messages."""

from __future__ import annotations

import ast
import logging
import subprocess
import sys
import time
from functools import partial
from typing import Any

import lark
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import exprgen
from support.threads import run_in_threads
from support.timing import best_seconds

import symshape
from symshape import _fastparse, _larkparse, parsing
from symshape import build as build_mod
from symshape._resources import grammar_text
from symshape.collector import collector_paused
from symshape.errors import ParseError
from symshape.parsing import TextCache, parse_comparison, parse_expr, parse_spec

Node = tuple[Any, ...]


def strip(node: Any) -> Any:
    """The AST without columns: ``("add", 1, x, y)`` -> ``("add", x', y')``."""
    if isinstance(node, tuple):
        return (node[0], *(strip(child) for child in node[2:]))
    return node


def E(text: str) -> Any:
    return strip(parse_expr(text))


def S(text: str) -> Any:
    return tuple(strip(item) for item in parse_spec(text))


def C(text: str) -> Any:
    return tuple((op, strip(x), strip(y)) for op, x, y in parse_comparison(text))


def v(name: str) -> Node:
    return ("var", name)


def i(n: int) -> Node:
    return ("int", n)


def raises(fn: Any, text: Any) -> ParseError:
    with pytest.raises(ParseError) as info:
        fn(text)
    return info.value


# --------------------------------------------------------------------------- node kinds


def test_leaves_with_columns() -> None:
    assert parse_expr("42") == ("int", 1, 42)
    assert parse_expr("  a_1") == ("var", 3, "a_1")
    assert parse_expr("B2") == ("var", 1, "B2")
    assert parse_expr("\ta") == ("var", 2, "a")
    big = "9" * 5000  # more digits than Python's default int/str conversion limit
    node = parse_expr(big)
    assert node[0] == "int" and node[2] == 10 ** 5000 - 1


def test_leaf_values_are_plain_python_objects() -> None:
    node = parse_expr("abc + 12")
    assert type(node[2][2]) is str
    assert type(node[3][2]) is int
    assert type(parse_spec("_, ...")[0][0]) is str
    op = parse_comparison("a >= b")[0][0]
    assert type(op) is str


def test_every_node_kind() -> None:
    assert parse_expr("-a") == ("neg", 1, ("var", 2, "a"))
    assert parse_expr("+a") == ("var", 1, "a")  # unary plus makes no node
    assert parse_expr("a + 2") == ("add", 1, ("var", 1, "a"), ("int", 5, 2))
    assert parse_expr("a - 2") == ("sub", 1, ("var", 1, "a"), ("int", 5, 2))
    assert parse_expr("a * 2") == ("mul", 1, ("var", 1, "a"), ("int", 5, 2))
    assert parse_expr("a // 2") == ("floordiv", 1, ("var", 1, "a"), ("int", 6, 2))
    assert parse_expr("a % 2") == ("mod", 1, ("var", 1, "a"), ("int", 5, 2))
    assert parse_expr("floordiv(a, 2)") == ("floordiv", 1, ("var", 10, "a"), ("int", 13, 2))
    assert parse_expr("mod(a, 2)") == ("mod", 1, ("var", 5, "a"), ("int", 8, 2))
    assert parse_expr("max(a, 2)") == ("max", 1, ("var", 5, "a"), ("int", 8, 2))
    assert parse_expr("min (a, 2)") == ("min", 1, ("var", 6, "a"), ("int", 9, 2))
    assert parse_expr("a^2") == ("pow", 1, ("var", 1, "a"), 2)
    assert parse_expr("a ** 3") == ("pow", 1, ("var", 1, "a"), 3)
    assert parse_expr("a ^ (2)") == ("pow", 1, ("var", 1, "a"), 2)
    assert parse_spec("_, ...") == (("_", 1), ("...", 4))


def test_valid_examples_from_the_spec() -> None:
    assert E("max(a, min(b, 3))") == ("max", v("a"), ("min", v("b"), i(3)))
    assert E("floordiv(a*b, a)") == ("floordiv", ("mul", v("a"), v("b")), v("a"))
    assert E("mod(a + mod(a, 2), 2)") == ("mod", ("add", v("a"), ("mod", v("a"), i(2))), i(2))
    assert E("a - -b") == ("sub", v("a"), ("neg", v("b")))
    assert E("a // 2 % 3") == ("mod", ("floordiv", v("a"), i(2)), i(3))
    assert E("maxi + min_1 + mod2") == ("add", ("add", v("maxi"), v("min_1")), v("mod2"))


def test_columns_point_at_the_start_of_each_node() -> None:
    # A parenthesised operand starts at its "(".
    assert parse_expr("(a + 1) * 2") == (
        "mul", 1, ("add", 1, ("var", 2, "a"), ("int", 6, 1)), ("int", 11, 2))
    assert parse_expr("2 * (a)") == ("mul", 1, ("int", 1, 2), ("var", 5, "a"))
    assert parse_expr("x - max(a, b)")[3][1] == 5
    assert parse_expr("b + -a^2")[3] == ("neg", 5, ("pow", 6, ("var", 6, "a"), 2))


# --------------------------------------------------------------------------- precedence


@pytest.mark.parametrize("text, expected", [
    ("a - b - c", ("sub", ("sub", v("a"), v("b")), v("c"))),
    ("a - (b - c)", ("sub", v("a"), ("sub", v("b"), v("c")))),
    ("a + b * c", ("add", v("a"), ("mul", v("b"), v("c")))),
    ("a * b + c", ("add", ("mul", v("a"), v("b")), v("c"))),
    ("a * b // c % d", ("mod", ("floordiv", ("mul", v("a"), v("b")), v("c")), v("d"))),
    ("a - b * c + d", ("add", ("sub", v("a"), ("mul", v("b"), v("c"))), v("d"))),
    ("2*a^2", ("mul", i(2), ("pow", v("a"), 2))),
    ("-a^2", ("neg", ("pow", v("a"), 2))),
    ("(-a)^2", ("pow", ("neg", v("a")), 2)),
    ("-a * b", ("mul", ("neg", v("a")), v("b"))),
    ("--a", ("neg", ("neg", v("a")))),
    ("-+-a", ("neg", ("neg", v("a")))),
    ("a * -b", ("mul", v("a"), ("neg", v("b")))),
    ("max(a, b)^2", ("pow", ("max", v("a"), v("b")), 2)),
    ("2^3 * a", ("mul", ("pow", i(2), 3), v("a"))),
    ("(a + b) * (a - b)", ("mul", ("add", v("a"), v("b")), ("sub", v("a"), v("b")))),
])
def test_precedence_and_associativity(text: str, expected: Node) -> None:
    assert E(text) == expected


def test_whitespace_anywhere() -> None:
    assert E(" \t a\t+\t2 * b ") == E("a+2*b")
    assert E("max (\ta ,b )") == E("max(a,b)")
    assert S("\t( a ,\t_ , ... )  ") == S("(a,_,...)")
    assert C("16<=a  <=\tb") == C("16 <= a <= b")
    assert E("a\n+ 1") == E("a + 1")  # newlines are whitespace too


# --------------------------------------------------------------------------- specs


@pytest.mark.parametrize("text, expected", [
    ("", ()),
    ("  ", ()),
    ("()", ()),
    ("( )", ()),
    ("a", (v("a"),)),
    ("b,", (v("b"),)),
    ("(b,)", (v("b"),)),
    ("(b, _)", (v("b"), ("_",))),
    ("(b, _,)", (v("b"), ("_",))),
    ("_", (("_",),)),
    ("(_)", (("_",),)),
    ("(...)", (("...",),)),
    ("...", (("...",),)),
    ("_, _", (("_",), ("_",))),
    ("a, 2*h + 1, ...", (v("a"), ("add", ("mul", i(2), v("h")), i(1)), ("...",))),
    ("b, ...,", (v("b"), ("...",))),
])
def test_specs(text: str, expected: tuple[Node, ...]) -> None:
    assert S(text) == expected


def test_spec_parentheses_ambiguity() -> None:
    assert S("(a + 1)") == (("add", v("a"), i(1)),)
    assert S("(a)") == (v("a"),)
    assert S("((a))") == (v("a"),)
    assert S("(a + 1) * 2") == (("mul", ("add", v("a"), i(1)), i(2)),)
    assert S("(a + 1), 2") == (("add", v("a"), i(1)), i(2))
    assert S("(a, b)") == (v("a"), v("b"))
    assert S("(a + 1, b)") == (("add", v("a"), i(1)), v("b"))
    assert S("((a), (b))") == (v("a"), v("b"))
    assert S("(a) * (b)") == (("mul", v("a"), v("b")),)


def test_spec_columns() -> None:
    assert parse_spec("(b, _)") == (("var", 2, "b"), ("_", 5))
    assert parse_spec("a, 2*h, ...") == (
        ("var", 1, "a"), ("mul", 4, ("int", 4, 2), ("var", 6, "h")), ("...", 9))


# --------------------------------------------------------------------------- comparisons


@pytest.mark.parametrize("op", [">=", "<=", "==", ">", "<", "!="])
def test_comparison_operators(op: str) -> None:
    assert C(f"a {op} b + 1") == ((op, v("a"), ("add", v("b"), i(1))),)


def test_comparison_chain_shares_the_middle_node() -> None:
    result = parse_comparison("16 <= a <= b")
    assert result == (("<=", ("int", 1, 16), ("var", 7, "a")),
                      ("<=", ("var", 7, "a"), ("var", 12, "b")))
    assert result[0][2] is result[1][1]
    assert C("a < b == c > 2") == (("<", v("a"), v("b")), ("==", v("b"), v("c")),
                                    (">", v("c"), i(2)))
    assert C("mod(b, 4) == 0") == (("==", ("mod", v("b"), i(4)), i(0)),)


# --------------------------------------------------------------------------- errors


def check_error(fn: Any, text: str, column: int | None = None) -> ParseError:
    err = raises(fn, text)
    assert isinstance(err, ValueError)
    message = str(err)
    assert err.text == text
    if text.strip() and "\n" not in text:
        assert f"\n  {text}\n" in message, message
        caret_line = message.split("\n")[2]
        assert caret_line.strip() == "^", message
        assert err.column is not None
        assert caret_line.index("^") == 2 + err.column - 1
    if column is not None:
        assert err.column == column, message
    return err


@pytest.mark.parametrize("text", [
    "2.5", "a + a a", "a ^ a", "a; a", ")(", "2a", "a@", "'a'", "mod(a)",
    "floordiv(a, b, c)", "-", "a +", "max(a b)", "3 ** -1", "floordiv", "", "   ",
    "a,,b", "a, b", "_", "...", "a ^ 2.5", "a ** -1", "a^2^3", "a / 2", "a = b",
    "max()", "max", "max + 1", "(a", "a)", "a >= b", "a b", "a\u00b7b", "a\x00", "1_000",
    "²a", "₁", "e\u0301", "℘", "a$", "flordiv(a, 2)",
])
def test_parse_expr_errors(text: str) -> None:
    check_error(parse_expr, text)


@pytest.mark.parametrize("text", [
    "..., 3", "(..., 3)", "_, ..., _", "a,,b", ",", "(,)", ")(", "(a, b", "a, (b, c)",
    "a + _", "((a, b))", "a b", "a, ... 3", "(a, b) * 2", "(a, b), c", "a >= b", "a;b",
    "2.5", "max(a)",
])
def test_parse_spec_errors(text: str) -> None:
    check_error(parse_spec, text)


@pytest.mark.parametrize("text", [
    "a >= ", "a", "", "a != b != c", "a < b != c", "a = b", "a => b", "a >= b, c",
    ">= a", "a >== b", "_ >= 1", "a >= ...",
])
def test_parse_comparison_errors(text: str) -> None:
    check_error(parse_comparison, text)


@pytest.mark.parametrize("fn, text, column, words", [
    (parse_expr, "a@", 2, "unexpected character '@'"),
    (parse_expr, "2a", 2, "unexpected name 'a'"),
    (parse_expr, "a + a a", 7, "unexpected name 'a'"),
    (parse_expr, "a; a", 2, "unexpected character ';'"),
    (parse_expr, "'a'", 1, "unexpected character"),
    (parse_expr, ")(", 1, "unexpected ')'"),
    (parse_expr, "a +", 4, "unexpected end of input"),
    (parse_expr, "a +   ", 4, "unexpected end of input"),
    (parse_expr, "-", 2, "unexpected end of input"),
    (parse_expr, "max(a b)", 7, "unexpected name 'b'"),
    (parse_expr, "2.5", 2, "decimal"),
    (parse_expr, "a ^ a", 5, "exponent must be a non-negative integer literal"),
    (parse_expr, "3 ** -1", 6, "exponent must be a non-negative integer literal"),
    (parse_expr, "a^2^3", 3, "exponent must be a non-negative integer literal"),
    (parse_expr, "mod(a)", 6, "mod() takes 2 arguments (1 given)"),
    (parse_expr, "floordiv(a, b, c)", 16, "floordiv() takes 2 arguments (3 given)"),
    (parse_expr, "max(a, b, c, d)", 11, "max() takes 2 arguments (4 given)"),
    (parse_expr, "floordiv", 1, "'floordiv' is a function"),
    (parse_expr, "2 * max", 5, "'max' is a function"),
    (parse_expr, "_", 1, "unexpected '_'"),
    (parse_expr, "a / 2", 3, "'//'"),
    (parse_spec, "..., 3", 1, "'...' may only appear at the end"),
    (parse_spec, "a, (..., 3)", 5, "unexpected '...'"),
    (parse_spec, "a,,b", 3, "unexpected ','"),
    (parse_spec, "a, b c", 6, "unexpected name 'c'"),
    (parse_comparison, "a", 2, "expected a comparison such as 'a >= b'"),
    (parse_comparison, "a >= ", 5, "unexpected end of input"),
    (parse_comparison, "a != b != c", 3, "'!=' cannot be chained"),
    (parse_comparison, "a = b", 3, "'=='"),
])
def test_error_columns_and_words(fn: Any, text: str, column: int, words: str) -> None:
    err = check_error(fn, text, column)
    assert words in str(err)


@pytest.mark.parametrize("fn, text, expected", [
    (parse_expr, "", "a number, a name, '(' or '-'"),
    (parse_expr, "a +", "a number, a name, '(' or '-'"),
    (parse_expr, "a + a a", "an operator such as '+' or end of input"),
    (parse_expr, "max(a b)", "an operator such as '+', ',' or ')'"),
    (parse_spec, "a + a a", "an operator such as '+', ',' or end of input"),
    (parse_spec, "a, ... 3", "',' or end of input"),
    (parse_spec, "(a, b", "an operator such as '+', ',' or ')'"),
    (parse_spec, "a,,b", "a number, a name, '(', '-', '_', '...' or end of input"),
    (parse_comparison, "a b", "an operator such as '+' or a comparison such as '>='"),
    (parse_comparison, "a", "an operator such as '+' or a comparison such as '>='"),
    (parse_comparison, "a >= b c", "an operator such as '+', a comparison such as '>=' or "
                                   "end of input"),
])
def test_expected_words(fn: Any, text: str, expected: str) -> None:
    err = raises(fn, text)
    assert err.expected == expected
    assert f"expected {expected}" in str(err)


@pytest.mark.parametrize("bad", [3, None, b"a", ["a"], 2.5])
@pytest.mark.parametrize("fn", [parse_expr, parse_spec, parse_comparison])
def test_non_string_input(fn: Any, bad: Any) -> None:
    err = raises(fn, bad)
    assert isinstance(err, ValueError)
    assert "string" in str(err)


def test_errors_are_not_lark_exceptions_and_have_no_context() -> None:
    err = raises(parse_expr, "a@")
    assert not isinstance(err, lark.exceptions.LarkError)
    assert err.__suppress_context__ and err.__cause__ is None


# --------------------------------------------------------------------------- limits


def test_too_long() -> None:
    text = "a, " * 40_000
    err = raises(parse_spec, text)
    assert "too long" in str(err)
    assert "100000" in str(err)


def test_integer_literal_digit_limit() -> None:
    assert parse_expr("7" * parsing.MAX_INT_DIGITS)[2] % 10 == 7
    err = raises(parse_expr, "a + " + "7" * (parsing.MAX_INT_DIGITS + 1))
    assert err.column == 5
    assert "digits" in str(err)


@pytest.mark.parametrize("fn", [parse_expr, parse_spec, parse_comparison])
def test_deep_nesting_fails_fast(fn: Any) -> None:
    cases = [
        "(" * 5000 + "a" + ")" * 5000,
        "(" * 5000,
        "-" * 5000 + "a",
        "a" + "^2" * 5000,
        "-(" * 2000 + "a" + ")" * 2000,
        " // ".join(["a"] * 5000),
        "max(" * 3000 + "a" + ", 1)" * 3000,
    ]
    for text in cases:
        if fn is parse_comparison:
            text = "1 <= " + text
        start = time.perf_counter()
        with collector_paused(), pytest.raises(ParseError):
            fn(text)
        assert time.perf_counter() - start < 2.0, text[:20]


def test_long_unary_plus_chain_is_harmless() -> None:
    # Unary plus makes no node, so the AST stays shallow.
    assert parse_expr("+" * 5000 + "a") == ("var", 1, "a")


LIMIT = parsing.MAX_DEPTH


def test_depth_limits_and_messages() -> None:
    err = raises(parse_expr, "(" * (LIMIT + 1) + "a" + ")" * (LIMIT + 1))
    assert f"nested too deeply, more than {LIMIT} levels of parentheses" in str(err)
    assert err.column == LIMIT + 1
    parse_expr("(" * LIMIT + "a" + ")" * LIMIT)  # exactly at the limit is fine
    parse_expr("-" * (LIMIT - 1) + "a")  # AST depth LIMIT
    err = raises(parse_expr, "-" * LIMIT + "a")  # AST depth LIMIT + 1
    assert "nested too deeply" in str(err)
    assert err.column == LIMIT + 1  # the name 'a', one level too deep
    err = raises(parse_expr, "-" * 5000 + "a")
    assert "nested too deeply" in str(err)
    parse_spec(", ".join(["a"] * 1000))  # many dimensions are fine: each is shallow


@pytest.mark.parametrize("fn", [parse_expr, parse_spec, parse_comparison])
def test_flat_sums_and_products_are_not_nesting(fn: Any) -> None:
    """Issue 11: a sum of 101 terms was "nested too deeply, more than 100 levels".

    Each text parses in well under 0.1 s here; the bound of 1 s catches a parser
    that went quadratic, and the best of three renamed copies keeps one stalled
    run (CI once took 1.05 s on a copy that takes 0.03 s) from failing it."""
    for template in (lambda v: " + ".join(f"{v}{k}" for k in range(5000)),
                     lambda v: " - ".join([v] * 5000),
                     lambda v: "*".join(f"{v}{k}" for k in range(3000)),
                     lambda v: " + ".join(f"{k}*{v}{k}*(w + {k}) - {v}{k}" for k in range(1500)),
                     lambda v: "(" + " + ".join(f"({v}{k} + 1)*({v}{k} - 1)"
                                                for k in range(1000)) + ")"):
        prefix = "1 <= " if fn is parse_comparison else ""
        texts = [prefix + template(name) for name in ("v", "u", "x")]
        assert best_seconds([lambda text=text: fn(text) for text in texts]) < 1.0


def max_chain(depth: int) -> str:
    text = "a"
    for k in range(depth):
        text = f"max({text}, b + {k})"
    return text


def test_real_nesting_past_100_levels_parses_without_recursion() -> None:
    """A 200-deep max(max(...), b + i) chain (code that folds max_dim over layers),
    parsed with a recursion limit far below its depth: nothing recurses."""
    text = max_chain(200)
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(120)
    try:
        node = parsing._parse_expr_uncached(text)
        spec = parsing._parse_spec_uncached(f"{text}, c")
        chain = parsing._parse_comparison_uncached(f"{text} >= a")
    finally:
        sys.setrecursionlimit(old)
    assert spec[0][0] == node[0] == chain[0][1][0] == "max"
    depth = 0
    while node[0] == "max":
        assert node[3] == ("add", node[3][1], ("var", node[3][1], "b"),
                           ("int", node[3][3][1], 199 - depth))
        node = node[2]
        depth += 1
    assert depth == 200 and node == ("var", 4 * 200 + 1, "a")


def test_nesting_limit_counts_function_nesting() -> None:
    parse_expr(max_chain(LIMIT - 2))  # max levels, the sum 'b + k' and its leaves
    err = raises(parse_expr, max_chain(LIMIT + 1))
    assert "nested too deeply" in str(err) and f"more than {LIMIT} levels" in str(err)
    assert err.column == 4 * (LIMIT + 1)  # the '(' beyond the limit: max(max(...
    err = raises(parse_expr, " // ".join(["a"] * (LIMIT + 5)))  # floordiv nests
    assert "nested too deeply" in str(err)


# --------------------------------------------------------------------------- caching etc.


def test_cached_results_are_shared() -> None:
    """A text parsed again gets one shared tree (from its second parse on)."""
    for parse, text in ((parse_spec, "a, 2*b + 1, ..."), (parse_expr, "a + 1"),
                        (parse_comparison, "a >= 1")):
        first = parse(text)  # type: ignore[operator]
        again = parse(text)  # type: ignore[operator]
        assert again == first and parse(text) is again  # type: ignore[operator]


def test_the_token_kinds_remembered_stay_bounded() -> None:
    fast = _fastparse.fast_parser()
    for i in range(3 * _fastparse._KINDS_KEPT):
        assert fast.tokens(f"a + {i}") == [("NAME", "a", 0), ("PLUS", "+", 2),
                                            ("INT", str(i), 4)]
        assert len(fast._kind_of) <= _fastparse._KINDS_KEPT


def test_text_cache_keeps_trees_of_texts_seen_again_and_stays_bounded() -> None:
    calls: list[str] = []

    def parse(text: str) -> tuple[str]:
        calls.append(text)
        return (text,)

    cache = TextCache(parse, 4)
    assert cache("x") == ("x",) and cache("x") == ("x",)
    assert calls == ["x", "x"]  # a text is only noted the first time
    assert cache("x") is cache("x") and calls == ["x", "x"]
    for i in range(20):  # many new texts: at most 2 * size remembered
        cache(f"t{i}")
        assert len(cache.table._new) + len(cache.table._old) <= 8
    calls.clear()
    cache("x")
    assert calls == ["x"]  # dropped with the older generation
    cache.clear()
    assert not cache.table._new and not cache.table._old

    def fail(text: str) -> tuple[str]:
        raise ParseError("bad", text=text, column=1)

    failing = TextCache(fail, 4)
    for _ in range(3):  # an error is never remembered
        with pytest.raises(ParseError):
            failing("?")


@pytest.mark.parametrize("module", [_larkparse, _fastparse])
def test_grammar_comes_from_resources(module: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both front ends read grammar/symshape.lark through symshape._resources."""
    calls: list[str] = []
    real = module.grammar_text

    def spy(name: str) -> str:
        calls.append(name)
        return real(name)

    monkeypatch.setattr(module, "grammar_text", spy)
    built = module.parser if module is _larkparse else module.fast_parser
    built.cache_clear()
    try:
        if module is _larkparse:
            assert _larkparse.parse("a + 1", "expr_input")[0] == "add"
        else:
            assert _fastparse.fast_parser().parse("a + 1", "expr_input")[0] == "add"
    finally:
        built.cache_clear()
    assert calls == ["symshape.lark"]


def test_grammar_has_no_lalr_conflicts() -> None:
    records: list[logging.LogRecord] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Collect(level=logging.DEBUG)
    old_level = lark.logger.level
    lark.logger.addHandler(handler)
    lark.logger.setLevel(logging.DEBUG)
    try:
        lark.Lark(grammar_text("symshape.lark"), parser="lalr", lexer=_larkparse.LarkLexer,
                  start=list(_fastparse.START_WHAT), debug=True)
    finally:
        lark.logger.removeHandler(handler)
        lark.logger.setLevel(old_level)
    assert not [r for r in records if "conflict" in r.getMessage().lower()]


def test_parallel_parsing() -> None:
    texts = [f"a{n}, {n}*b + {n}, max(a{n}, {n})" for n in range(200)]
    expected = [parsing._parse_spec_uncached(t) for t in texts]

    def work(_: int) -> None:
        for _ in range(3):
            for text, want in zip(texts, expected, strict=True):
                assert parsing._parse_spec_uncached(text) == want

    run_in_threads(work, 4)


def test_speed_of_uncached_parse() -> None:
    text = "a, b, max(a, b), min(max(a, b), b), floordiv(a, 2), mod(b, floordiv(a, 2))"
    parsing._parse_spec_uncached(text)
    best = min(_timeit(lambda: parsing._parse_spec_uncached(text)) for _ in range(5))
    assert best < 1e-3  # about 0.1 ms on a slow machine; generous bound for CI


def _timeit(fn: Any, number: int = 200) -> float:
    start = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - start) / number


# --------------------------------------------------------------------------- fuzzing

FUZZ_ALPHABET = "ab1 ()+-*/%^,_.<>=!@;'\t"
FUZZ_SETTINGS = settings(max_examples=400, deadline=None,
                         suppress_health_check=[HealthCheck.too_slow])


def only_parse_errors(text: str) -> None:
    for fn in (parse_spec, parse_expr, parse_comparison):
        try:
            fn(text)
        except ParseError as err:
            assert err.column is None or 1 <= err.column <= len(text) + 1
            str(err)


@FUZZ_SETTINGS
@given(st.text(alphabet=FUZZ_ALPHABET, max_size=40))
def test_fuzz_small_alphabet(text: str) -> None:
    only_parse_errors(text)


@FUZZ_SETTINGS
@given(st.text(st.characters(codec="utf-8"), max_size=40))
def test_fuzz_any_text(text: str) -> None:
    only_parse_errors(text)


TOKENS = ["a", "b", "12", "0", "max(", "min(", "mod(", "floordiv(", "(", ")", ",", "+", "-",
          "*", "//", "%", "^", "**", "_", "...", ">=", "<=", "==", "!=", "<", ">", " "]


@FUZZ_SETTINGS
@given(st.lists(st.sampled_from(TOKENS), max_size=25))
def test_fuzz_token_soup(tokens: list[str]) -> None:
    only_parse_errors("".join(tokens))
    only_parse_errors(" ".join(tokens))


# --------------------------------------------------------------------------- round trips

NAMES = st.sampled_from(["a", "b", "c1", "B2", "x_y", "maxi", "mod_"])
def depth(tree: Any) -> int:
    if tree[0] in ("var", "int"):
        return 1
    return 1 + max(depth(child) for child in tree[1:] if isinstance(child, tuple))


TREES = exprgen.syntax_trees(NAMES, 10 ** 30, ("neg",), max_leaves=25).filter(
    lambda t: depth(t) <= 40)


def render_full(tree: Any, data: st.DataObject) -> str:
    """Fully parenthesised text, with random choices of equivalent spellings."""
    kind = tree[0]
    if kind == "var":
        return str(tree[1])
    if kind == "int":
        return str(tree[1])
    if kind == "neg":
        return f"(-{render_full(tree[1], data)})"
    if kind == "pow":
        op = data.draw(st.sampled_from(["^", "**", " ^ ", " ** "]))
        exponent = data.draw(st.sampled_from([str(tree[2]), f"({tree[2]})"]))
        return f"({render_full(tree[1], data)}{op}{exponent})"
    x, y = render_full(tree[1], data), render_full(tree[2], data)
    infix = {"add": "+", "sub": "-", "mul": "*", "floordiv": "//", "mod": "%"}
    if kind in ("floordiv", "mod") and data.draw(st.booleans()):
        return f"{kind}({x}, {y})"
    if kind in infix:
        return f"({x} {infix[kind]} {y})"
    return f"{kind}({x},{y})"


PRECEDENCE = {"add": 1, "sub": 1, "mul": 2, "floordiv": 2, "mod": 2, "neg": 3, "pow": 4}


def render_minimal(tree: Any) -> str:
    """Text with only the parentheses that Python-like precedence needs."""
    kind = tree[0]
    if kind in ("var", "int"):
        return str(tree[1])
    if kind in ("max", "min"):
        return f"{kind}({render_minimal(tree[1])}, {render_minimal(tree[2])})"

    def wrapped(child: Any, needs: bool) -> str:
        text = render_minimal(child)
        return f"({text})" if needs else text

    level = PRECEDENCE[kind]
    if kind == "neg":
        return "-" + wrapped(tree[1], PRECEDENCE.get(tree[1][0], 9) < level)
    if kind == "pow":
        base = tree[1]
        return wrapped(base, base[0] not in ("var", "int", "max", "min")) + f"^{tree[2]}"
    op = {"add": "+", "sub": "-", "mul": "*", "floordiv": "//", "mod": "%"}[kind]
    left = wrapped(tree[1], PRECEDENCE.get(tree[1][0], 9) < level)
    right = wrapped(tree[2], PRECEDENCE.get(tree[2][0], 9) <= level)
    return f"{left} {op} {right}"


def python_ast(text: str) -> Any:
    """What Python makes of ``text`` (``^`` read as ``**``), in our stripped format."""
    ops = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.FloorDiv: "floordiv",
           ast.Mod: "mod"}

    def convert(node: ast.AST) -> Any:
        if isinstance(node, ast.Name):
            return ("var", node.id)
        if isinstance(node, ast.Constant):
            return ("int", node.value)
        if isinstance(node, ast.UnaryOp):
            inner = convert(node.operand)
            return ("neg", inner) if isinstance(node.op, ast.USub) else inner
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            exponent = node.right
            assert isinstance(exponent, ast.Constant)
            return ("pow", convert(node.left), exponent.value)
        if isinstance(node, ast.BinOp):
            return (ops[type(node.op)], convert(node.left), convert(node.right))
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        return (node.func.id, *(convert(arg) for arg in node.args))

    return convert(ast.parse(text.replace("^", "**"), mode="eval").body)


@settings(max_examples=300, deadline=None)
@given(TREES, st.data())
def test_round_trip_fully_parenthesised(tree: Any, data: st.DataObject) -> None:
    text = render_full(tree, data)
    assert E(text) == tree
    assert S(text) == (tree,)
    assert S(f"({text}, _)") == (tree, ("_",))
    assert C(f"{text} >= {text}") == ((">=", tree, tree),)


@settings(max_examples=300, deadline=None)
@given(TREES)
def test_round_trip_minimal_parentheses_agrees_with_python(tree: Any) -> None:
    text = render_minimal(tree)
    assert E(text) == tree, text
    assert python_ast(text) == tree, text


def test_parsed_specs_share_repeated_subtrees() -> None:
    """Repeated sub-expressions are one node object (built once), while every
    dimension keeps its own column for error messages."""
    nodes = parsing.parse_spec("a, b, max(a, b), min(max(a, b), b), max(a, b)")
    assert nodes[3][2] is nodes[2]  # the max inside min is the third dimension
    assert nodes[0] is nodes[2][2]  # 'a' everywhere is one node
    assert nodes[4][1] != nodes[2][1] and nodes[4][2:] == nodes[2][2:]
    dims = symshape.symbolic_shape("a, b, max(a, b), min(max(a, b), b), max(a, b)")
    assert dims[2] == dims[4] and dims[3] == dims[1]
    with pytest.raises(ParseError) as info:
        symshape.symbolic_shape("2, 2", like=(2, 3))
    assert info.value.column == 4


# --------------------------------------------------------------------------- issue 11


def cli(*argv: str) -> subprocess.CompletedProcess[str]:
    """``symshape ARGV`` as a user runs it."""
    return subprocess.run([sys.executable, "-m", "symshape", *argv], capture_output=True,
                          text=True, timeout=120)


def test_cli_simplifies_a_flat_sum_of_many_terms() -> None:
    text = " + ".join(f"v{k}" for k in range(101))
    p = cli("simplify", text)
    assert p.returncode == 0, p.stderr
    assert "nested too deeply" not in p.stderr
    assert "v100" in p.stdout and "v0" in p.stdout


@pytest.mark.parametrize("text, name, column, nearest", [
    ("flordiv(a, 2)", "flordiv", 1, "floordiv"),
    ("ceildiv(n, 128)", "ceildiv", 1, "floordiv"),
    ("2*h + maxx (a, b)", "maxx", 7, "max"),
    ("b >= Min(a, 1)", "Min", 6, "min"),
    ("a, modulo(b, 4)", "modulo", 4, "mod"),
])
def test_unknown_functions_are_named_with_the_known_ones(text: str, name: str, column: int,
                                                          nearest: str) -> None:
    fn = parse_comparison if ">=" in text else parse_spec if "," in text else parse_expr
    if "(a, b)" in text:
        fn = parse_expr
    err = check_error(fn, text, column)
    assert f"unknown function {name!r}" in str(err)
    assert err.expected.startswith(f"a known function, nearest first: {nearest}(x, y), ")
    for known in ("floordiv", "mod", "max", "min"):
        assert f"{known}(x, y)" in err.expected
    assert "unexpected '('" not in str(err)


def test_unknown_function_from_the_cli() -> None:
    p = cli("simplify", "flordiv(a, 2)")
    assert p.returncode != 0
    assert "unknown function 'flordiv' at column 1" in p.stderr
    assert "\n  flordiv(a, 2)\n  ^\n" in p.stderr
    assert "nearest first: floordiv(x, y)," in p.stderr
    assert "Traceback" not in p.stderr


@pytest.mark.parametrize("name", ["α", "σ_1", "x₁", "a²", "_b", "__", "_1", "日本", "ℓ", "é",
                                  "ﬁ", "ａ", "maxα", "max_1", "if", "None"])
def test_unicode_names_as_jax_accepts_them(name: str) -> None:
    assert parse_expr(name) == ("var", 1, name)
    assert parse_expr(f"2*{name} + 1")[2][3] == ("var", 3, name)
    assert parsing.is_name(name)
    dims = symshape.symbolic_shape(f"{name}, 2*{name}")
    assert str(dims[0]) == name and str(dims[1]) == f"2*{name}"


@pytest.mark.parametrize("text, column, words", [
    ("²a", 1, "invalid name '²a': a name starts with a letter or '_'"),
    ("b + ₁", 5, "invalid name '₁'"),
    ("e\u0301", 2, "combining mark"),
    ("x\u0304 + 1", 2, "combining mark"),
    ("a·b", 2, "unexpected character '·'"),
    ("℘", 1, "unexpected character '℘'"),
    ("a$", 2, "unexpected character '$'"),
])
def test_names_jax_rejects_are_rejected_clearly(text: str, column: int, words: str) -> None:
    err = check_error(parse_expr, text, column)
    assert words in str(err)
    assert not parsing.is_name(text)


@pytest.mark.parametrize("text", ["_", "max", "floordiv", "", "a b", "1a", "a+b", " a", 3])
def test_is_name_rejects(text: Any) -> None:
    assert not parsing.is_name(text)


CANDIDATE_NAMES = ["α", "_a", "a_", "x1", "ℌ", "a²", "²a", "ﬁ", "e\u0301", "é", "٣a", "a٣",
                   "ⅷ", "℘", "a·b", "·a", "__", "_1", "a\u200d", "if", "None", "Ab_9", "ａ",
                   "x\u0304", "σ_1", "日本", "a$", "a.b", "ℓ", "ᵢ", "aᵢ", "a₁", "₁", "A\u00b7",
                   "Ⅻx", "a\u2118", "\u212e", "\u309b", "a\u309b", "a\u0e33", "ß", "ǅ",
                   "a\u0660", "\u0e33", "a-b"]


def test_names_agree_with_jax() -> None:
    """Exactly the names JAX's shape parser accepts (a single-variable spec)."""
    export = pytest.importorskip("jax.export")
    for name in CANDIDATE_NAMES:
        try:
            dims = export.symbolic_shape(name)
            jax_ok = len(dims) == 1 and str(dims[0]) == name
        except ValueError:
            jax_ok = False
        assert parsing.is_name(name) == jax_ok, name
        try:
            ours = parse_spec(name)
            ok = ours == (("var", 1, name),)
        except ParseError:
            ok = False
        assert ok == jax_ok, name


def test_cli_accepts_unicode_names() -> None:
    p = cli("simplify", "α + 2*α")
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "3*α"


def test_error_echo_is_clipped_around_the_column() -> None:
    """Issue 11: the error echoed the whole 10 KB input."""
    text = " + ".join(f"v{k}" for k in range(1000)) + " + @ + " + " + ".join(
        f"w{k}" for k in range(1000))
    err = raises(parse_expr, text)
    assert err.text == text and err.column == text.index("@") + 1
    lines = str(err).split("\n")
    assert len(str(err)) < 400
    shown, caret = lines[1], lines[2]
    assert shown.startswith("  ...") and shown.endswith("...")
    assert caret.strip() == "^" and shown[caret.index("^")] == "@"
    p = cli("simplify", text)
    assert p.returncode != 0 and len(p.stderr) < 600, p.stderr
    assert "unexpected character '@'" in p.stderr


def test_deep_nesting_limit_error_is_clipped_and_names_what() -> None:
    text = "max(" * (LIMIT + 5) + "a" + ", 1)" * (LIMIT + 5)
    err = raises(parse_expr, text)
    message = str(err)
    assert len(message) < 500
    assert f"more than {LIMIT} levels of parentheses and function calls" in message
    shown, caret = message.split("\n")[1:3]
    assert shown[caret.index("^")] == "("


def _stack_depth() -> int:
    frame, depth = sys._getframe(1), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1  # type: ignore[assignment]
    return depth


def test_building_walks_the_tree_without_recursion(monkeypatch: pytest.MonkeyPatch) -> None:
    """build.build combines every node from the same stack depth, however deep the
    tree (the algebra below it is another matter: see the max-chain timings);
    short texts, which recurse, are made to take the iterative walk here."""
    if "symshape.build" in symshape.compiled_modules():
        # Compiled functions have no Python frames, and call each other
        # directly (the spy is never called): the walk is checked on the pure
        # source (test_compiled_core runs this module there).
        pytest.skip("symshape.build runs compiled")
    monkeypatch.setattr(build_mod, "_SHALLOW_TEXT", -1)
    depths: list[int] = []
    real = build_mod._combine

    def spy(node: Node, args: list[Any], text: str) -> Any:
        depths.append(_stack_depth())
        return real(node, args, text)

    monkeypatch.setattr(build_mod, "_combine", spy)
    scope = symshape.SymbolicScope()
    neg = build_mod.build(parse_expr("-" * 999 + "a"), scope)
    assert str(neg) == "-a"
    chain = build_mod.build(parse_expr(max_chain(12)), scope)
    assert isinstance(chain, symshape.DimExpr)
    assert chain.evaluate({"a": 1000, "b": 1}) == 1000
    assert chain.evaluate({"a": 1, "b": 5}) == 5 + 11
    flat = build_mod.build(parse_expr(" + ".join(f"(v{k} - 1)" for k in range(3000))), scope)
    assert isinstance(flat, symshape.DimExpr)
    assert flat.evaluate({f"v{k}": 2 for k in range(3000)}) == 3000
    assert len(depths) > 4000 and len(set(depths)) == 1


def test_long_flat_sums_build_in_linear_time() -> None:
    """Adding one operand at a time copied the growing term map: quadratic."""
    scope = symshape.SymbolicScope()
    times = []
    for n in (1000, 8000):
        text = " + ".join(f"v{k}" for k in range(n))
        node = parse_expr(text)
        times.append(best_seconds([partial(build_mod.build, node, scope, text)] * 3))
        built = build_mod.build(node, scope, text)
        assert isinstance(built, symshape.DimExpr) and len(built.terms) == n
    assert times[1] < 24 * times[0] + 0.05, times  # 8x the terms: not 64x the time


SUM_OPERANDS = ["a", "b", "c", "2*a", "-a", "a*b", "floordiv(a, 2)", "a + 1", "-b - 3", "0",
                "1", "7", "-2", "mod(n, 128)", "64*floordiv(n, 128)", "n", "max(a, b)",
                # the linear terms a sum reads off its nodes (see build._is_linear_term)
                "a*3", "0*b", "n*0", "5*n", "12345678901234567890*b", "c*1"]
#: scopes without rewrite rules, with rules on terms, and with rules on variables
SUM_SCOPES = [[], ["mod(n, 128) == 0"], ["a == 2*b + 1"], ["b == 3"]]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["+", "-"]), st.sampled_from(SUM_OPERANDS)),
                min_size=1, max_size=30),
       st.sampled_from(SUM_OPERANDS), st.sampled_from(SUM_SCOPES), st.booleans())
def test_long_sums_are_exactly_the_repeated_additions(
        rest: list[tuple[str, str]], first: str, constraints: list[str], bare: bool) -> None:
    """The one-pass sum gives the same canonical terms, in the same order, as
    ``+`` and ``-`` one operand at a time (with and without rewrite rules),
    its operands written bare or in parentheses."""
    scope = symshape.SymbolicScope(constraints)
    if bare:  # (a bare "-b - 3" after "-" would be another sum: those stay wrapped)
        text = first if " " not in first else f"({first})"
        text += "".join(f" {op} {x if ' ' not in x and not x.startswith('-') else f'({x})'}"
                        for op, x in rest)
    else:
        text = f"({first})" + "".join(f" {op} ({x})" for op, x in rest)
    text = f"({first})" + "".join(f" {op} ({x})" for op, x in rest)
    built = build_mod.build(parse_expr(text), scope, text)
    expected = build_mod.build(parse_expr(first), scope)
    for op, x in rest:
        y = build_mod.build(parse_expr(x), scope)
        expected = expected + y if op == "+" else expected - y
    assert type(built) is type(expected)
    if isinstance(built, symshape.DimExpr):
        assert list(built.terms.items()) == list(expected.terms.items())  # type: ignore[union-attr]
    else:
        assert built == expected


def test_an_expression_too_large_to_build_is_a_clear_error_with_its_column() -> None:
    """``(a+...+h)^10`` has tens of thousands of terms: building it is refused
    (bounded work), as a ValueError that points at the power in the text."""
    text = "(a+b+c+d+e+f+g+h)^10 >= a"
    with pytest.raises(symshape.ExpressionTooLargeError) as info:
        symshape.prove(text)
    assert isinstance(info.value, ValueError)
    assert "at column 1 of" in str(info.value) and text in str(info.value)
    x = sum(symshape.symbolic_shape("a, b, c, d, e, f, g, h"))
    with pytest.raises(symshape.ExpressionTooLargeError):
        _ = x ** 10
    assert len((x ** 2).terms) == 36  # sizes of real shapes are untouched


def test_a_deep_nest_prints_and_reparses() -> None:
    """Printing recursed once per level and raised RecursionError at about
    250 levels of max; atom texts are now made innermost first."""
    text = "a"
    for k in range(400):
        text = f"max({text}, b + {k})"
    (e,) = symshape.symbolic_shape(text)
    printed = str(e)
    assert printed.count("max(") == 400
    scope = e.scope
    assert scope.symbolic_shape(printed)[0] == e


@settings(max_examples=150, deadline=None)
@given(exprgen.trees(max_leaves=10), st.booleans())
def test_short_texts_build_as_the_iterative_walk_does(tree: exprgen.Tree, rules: bool) -> None:
    """A short text is built by recursion (faster); it gives the iterative
    walk's expression, with its terms in the same order."""
    text = exprgen.render(tree)
    scope = symshape.SymbolicScope(["mod(c, 4) == 0"] if rules else [])
    node = parse_expr(text)
    assert len(text) <= build_mod._SHALLOW_TEXT
    shallow = build_mod.build(node, scope, text)
    # the same tree with a text too long to recurse: the iterative walk
    iterative = build_mod.build(node, scope, text + " " * build_mod._SHALLOW_TEXT)
    assert type(shallow) is type(iterative)
    if isinstance(shallow, symshape.DimExpr):
        assert list(shallow.terms.items()) == list(iterative.terms.items())
    else:
        assert shallow == iterative


def test_recursive_build_near_the_recursion_limit_falls_back() -> None:
    """A caller already close to the recursion limit still gets its
    expression: the recursive walk gives way to the iterative one."""
    text = "-" * 100 + "(a + 1)"
    assert len(text) <= build_mod._SHALLOW_TEXT
    scope = symshape.SymbolicScope()
    node = parse_expr(text)
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(_stack_depth() + 40)
    try:
        built = build_mod.build(node, scope, text)
    finally:
        sys.setrecursionlimit(old)
    assert str(built) == "a + 1"
