"""The fast front end (symshape._fastparse) against the grammar path (lark).

The fast front end must give exactly the grammar's results: for every text and
start symbol, either both paths return the same raw result, or the fast one
gives up (returns None) and lark raises a ParseError. It must also read its
tokens from grammar/symshape.lark, so the two cannot silently diverge.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import Any

import lark
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.exprgen import syntax_trees

from symshape import _fastparse, _larkparse, parsing
from symshape._resources import grammar_text
from symshape.echo import ECHO_WIDTH, echo
from symshape.errors import ParseError

STARTS = list(_fastparse.START_WHAT)
FAST = _fastparse.fast_parser()
ERROR = "error"


def lark_result(text: str, start: str) -> Any:
    try:
        return _larkparse.parse(text, start)
    except ParseError:
        return ERROR


def same(x: Any, y: Any) -> bool:
    """``x == y`` for nested tuples and lists, without recursion (deep ASTs)."""
    stack = [(x, y)]
    while stack:
        a, b = stack.pop()
        if type(a) is not type(b):
            return False
        if isinstance(a, tuple | list):
            if len(a) != len(b):
                return False
            stack.extend(zip(a, b, strict=True))
        elif a != b:
            return False
    return True


def check_same(text: str) -> list[bool]:
    """Both paths agree on ``text`` for every start symbol; which accepted it."""
    accepted = []
    for start in STARTS:
        fast = FAST.parse(text, start)
        slow = lark_result(text, start)
        if fast is None:
            assert slow == ERROR, (text, start, slow)
        else:
            assert same(fast, slow), (text, start)
        accepted.append(fast is not None)
    return accepted


# --------------------------------------------------------------------------- grammar


def lark_terminals() -> dict[str, Any]:
    parser = lark.Lark(grammar_text("symshape.lark"), parser="lalr",
                       lexer=_larkparse.LarkLexer, start=STARTS)
    return {t.name: t for t in parser.terminals}


def test_fast_front_end_is_on_for_the_shipped_grammar() -> None:
    assert FAST.enabled
    assert FAST.functions == ("floordiv", "mod", "max", "min")


def test_terminals_are_read_from_the_grammar_file() -> None:
    """The fast tokenizer's terminals are the grammar's: same names, priorities and
    patterns (compared by what they match), and the rules of _fastparse handle
    exactly those terminals."""
    table = _fastparse.read_terminals(grammar_text("symshape.lark"))
    assert table is not None
    mine = {t.name: t for t in table[0]}
    theirs = lark_terminals()
    assert set(mine) == set(theirs) == _fastparse.KNOWN_TERMINALS
    assert table[1] == {"WS"}
    samples = ["a", "_", "_a", "α", "x₁", "²a", "max", "max(", "max (", "maxi", "max_1",
               "floordiv(", "mod\t(", "12", "0", "...", "**", "^", "//", "%", "+", "-", "*",
               ">=", "<=", "==", "!=", ">", "<", "(", ")", ",", " ", " \t\n", "=", "/",
               ".", "a b", "1a", "é", "ｍａｘ"]
    for name, term in theirs.items():
        assert mine[name].priority == term.priority, name
        for sample in samples:
            want = re.fullmatch(term.pattern.to_regexp(), sample) is not None
            got = re.fullmatch(mine[name].regexp, sample) is not None
            assert got == want, (name, sample)


def test_a_grammar_the_rules_do_not_cover_turns_the_fast_path_off() -> None:
    grammar = grammar_text("symshape.lark")
    assert _fastparse.FastParser(grammar).enabled
    extra = grammar + '\nARROW: "->"\n'
    assert not _fastparse.FastParser(extra).enabled
    flagged = grammar.replace("NAME: /[^\\W\\d]\\w*/", "NAME: /[a-z]+/i")
    assert flagged != grammar
    assert not _fastparse.FastParser(flagged).enabled
    for start in STARTS:
        assert _fastparse.FastParser(extra).parse("a", start) is None


TOKEN_SOUP = ["a", "b", "α", "_b", "x₁", "²", "e\u0301", "12", "0", "007", "max(", "min (",
              "mod(", "floordiv(", "max", "maxi", "Max(", "flordiv(", "(", ")", ",", "+",
              "-", "*", "//", "/", "%", "^", "**", "_", "...", ".", ">=", "<=", "==", "!=",
              "<", ">", "=", " ", "\t", "\n", "@", "·"]


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(TOKEN_SOUP), max_size=20))
def test_tokens_agree_with_the_lark_lexer(tokens: list[str]) -> None:
    text = "".join(tokens)
    fast = FAST.tokens(text)
    lexer = _larkparse.LarkLexer(_larkparse.parser().lexer_conf)
    try:
        slow = [(t.type, t.value, t.start_pos) for t in lexer.lex(text)]
    except lark.exceptions.UnexpectedCharacters:
        slow = None
    if fast is None:  # a lexing error, or a name starting with '²' (rejected by name)
        assert slow is None or any(kind == "NAME" and not value[0].isidentifier()
                                   for kind, value, _ in slow), (text, slow)
    else:
        assert fast == slow, text


# --------------------------------------------------------------------------- differential

NAMES = st.sampled_from(["a", "b", "c1", "B2", "x_y", "maxi", "mod_", "α", "_b", "x₁", "日本",
                         "max_1", "ｍａｘ"])
TREES = syntax_trees(NAMES, 10 ** 25, ("neg", "pos"), max_leaves=20)
BLANK = st.sampled_from(["", "", "", " ", "  ", "\t", "\n"])


def render(tree: Any, data: st.DataObject) -> str:
    """A text for ``tree``, with random spellings, blanks and redundant parentheses."""
    def b() -> str:
        return data.draw(BLANK)

    def paren(text: str) -> str:
        return f"({b()}{text}{b()})"

    kind = tree[0]
    if kind in ("var", "int"):
        text = str(tree[1])
    elif kind == "neg":
        text = f"-{b()}{paren(render(tree[1], data))}"
    elif kind == "pos":
        text = f"+{b()}{render(tree[1], data)}"
    elif kind == "pow":
        op = data.draw(st.sampled_from(["^", "**"]))
        exponent = data.draw(st.sampled_from([str(tree[2]), f"({tree[2]})", f"+{tree[2]}",
                                              f"(+({tree[2]}))"]))
        text = f"{paren(render(tree[1], data))}{b()}{op}{b()}{exponent}"
    else:
        x, y = render(tree[1], data), render(tree[2], data)
        infix = {"add": "+", "sub": "-", "mul": "*", "floordiv": "//", "mod": "%"}
        if kind in infix and data.draw(st.booleans()):
            text = f"{paren(x)}{b()}{infix[kind]}{b()}{paren(y)}"
        else:
            text = f"{kind}{data.draw(st.sampled_from(['', ' ']))}({b()}{x},{b()}{y}{b()})"
    if data.draw(st.integers(0, 5)) == 0:
        text = paren(text)
    return text


def flat(texts: list[str], data: st.DataObject) -> str:
    """Operands joined by random binary operators, with no parentheses (precedence)."""
    ops = st.sampled_from([" + ", " - ", "*", " // ", " % ", "+", "-"])
    out = texts[0]
    for text in texts[1:]:
        out += data.draw(ops) + text
    return out


@st.composite
def valid_texts(draw: st.DrawFn) -> str:
    data = draw(st.data())
    operands = draw(st.lists(TREES, min_size=1, max_size=4))
    expr = flat([render(t, data) for t in operands], data)
    shape = draw(st.sampled_from(["expr", "spec", "paren_spec", "comparison"]))
    if shape == "expr":
        return expr
    if shape == "comparison":
        more = draw(st.lists(st.tuples(st.sampled_from([">=", "<=", "==", ">", "<", "!="]),
                                       TREES), min_size=1, max_size=3))
        return expr + "".join(f" {op} {render(t, data)}" for op, t in more)
    items = [expr] + [draw(st.sampled_from(["_", "..."])) if draw(st.booleans())
                      else render(draw(TREES), data) for _ in range(draw(st.integers(0, 3)))]
    body = ", ".join(items) + draw(st.sampled_from(["", ",", " ,"]))
    return f"({body})" if shape == "paren_spec" else body


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(valid_texts())
def test_fast_path_agrees_with_lark_on_generated_valid_texts(text: str) -> None:
    accepted = check_same(text)
    # the language of valid texts is the fast path's own: it accepts each one
    # that lark accepts, for at least one start symbol (check_same: same result)
    assert any(accepted) or all(lark_result(text, s) == ERROR for s in STARTS), text


@st.composite
def mutated_texts(draw: st.DrawFn) -> str:
    """A valid text with a token deleted, inserted, duplicated or swapped."""
    text = draw(valid_texts())
    pieces = re.findall(r"\s+|\w+|\.\.\.|\*\*|//|[<>=!]=|.", text, flags=re.S)
    pos = draw(st.integers(0, len(pieces)))
    edit = draw(st.sampled_from(["delete", "insert", "duplicate", "swap"]))
    if edit == "insert" or not pieces:
        pieces.insert(pos, draw(st.sampled_from(TOKEN_SOUP)))
    elif edit == "delete":
        del pieces[min(pos, len(pieces) - 1)]
    elif edit == "duplicate":
        k = min(pos, len(pieces) - 1)
        pieces.insert(k, pieces[k])
    else:
        k = min(pos, len(pieces) - 2)
        if k >= 0:
            pieces[k], pieces[k + 1] = pieces[k + 1], pieces[k]
    return "".join(pieces)


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_texts())
def test_fast_path_agrees_with_lark_on_mutated_texts(text: str) -> None:
    check_same(text)


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(TOKEN_SOUP), max_size=16))
def test_fast_path_agrees_with_lark_on_token_soup(tokens: list[str]) -> None:
    check_same("".join(tokens))
    check_same(" ".join(tokens))


@pytest.mark.parametrize("text", [
    "", " ", "()", "( )", "(_)", "(_,)", "(...)", "(a)", "(a,)", "(a, b)", "(a, b,)",
    "(a)*2, b", "(a + 1)", "(_, ...)", "((a))", "((a, b))", "(a, b) * 2", "(), a", "(_) + 1",
    "a, b,", "a,,", ",", "-a^2", "+a^2", "a^+2", "a^(+(2))", "a^(2)^3", "(a^2)^3", "a^2^3",
    "2^-1", "max(a, b, c)", "max(a)", "max()", "max", "mod (a, 2)", "a >= b >= c",
    "a != b != c", "a >= b, c", "a >= ", "--a", "-+-a", "+(a)", "_a + __", "a(b)",
    "ceildiv(n, 128)",
    "1 <= 2", "16 <= a <= b", "α >= β", "²a", "a²", "x₁ + 1", "(a, (b))", "(a, _ + 1)",
    "(-a, b)", "-(a, b)", "(+a)", "max(a, b)(c)", "a b", "3 ** (+4)", "a ** (2 + 0)",
])
def test_fast_path_agrees_with_lark_on_edge_cases(text: str) -> None:
    check_same(text)


@pytest.mark.parametrize("text", [
    "(" * 900 + "a" + ")" * 900,
    "max(" * 400 + "a" + ", 1)" * 400,
    "-" * 3000 + "a",
    " + ".join(f"v{k}" for k in range(3000)),
    "(" * 300 + "a, b)",
])
def test_fast_path_agrees_with_lark_on_deep_and_long_texts(text: str) -> None:
    check_same(text)


def test_whole_pipeline_is_the_same_without_the_fast_path(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """parse_expr/spec/comparison give the same results and the same errors when
    the fast front end is switched off (lark only)."""
    texts = ["a, 2*h + 1, ...", "max(a, b), min(max(a, b), b), max(a, b)", "16 <= a <= b",
             "floordiv(t, 128)*128 + mod(t, 128) >= t", "a != b != c", "..., a", "a@",
             "(a, b)", "2*h + 1", "-" * 1200 + "a", "a // " * 1200 + "a"]
    fns = [parsing._parse_expr_uncached, parsing._parse_spec_uncached,
           parsing._parse_comparison_uncached]

    def outcomes() -> list[Any]:
        out: list[Any] = []
        for text in texts:
            for fn in fns:
                try:
                    out.append(fn(text))
                except ParseError as err:
                    out.append((str(err), err.column))
        return out

    with_fast = outcomes()
    off = _fastparse.FastParser(grammar_text("symshape.lark") + '\nARROW: "->"\n')
    assert not off.enabled
    monkeypatch.setattr(parsing, "fast_parser", lambda: off)
    assert outcomes() == with_fast


# --------------------------------------------------------------------------- cold path


def test_typical_texts_never_import_lark() -> None:
    """A one-off query parses with the fast front end only: importing lark and
    building the LALR parser (about 0.1 s) is left to processes that meet an error."""
    code = ("import sys, symshape; "
            "symshape.prove('a >= 128', constraints=['mod(a, 128) == 0']); "
            "symshape.symbolic_shape('b, 2*h + 1, max(b, h)'); "
            "print(json.dumps(['lark' in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", "import json; " + code],
                         capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == [False]
    code = "import sys, symshape\ntry: symshape.symbolic_shape('a +')\nexcept ValueError: pass\n" \
           "print('lark' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "True"


# --------------------------------------------------------------------------- echo


def test_echo_short_text_is_unchanged() -> None:
    assert echo("a + b", 5) == "  a + b\n      ^"
    assert echo("a + b") == "  a + b"


def test_echo_clips_long_lines_around_the_column() -> None:
    text = " + ".join(f"v{k}" for k in range(3000))
    column = text.index("v1500") + 1
    shown, caret = echo(text, column).split("\n")
    assert len(shown) <= 2 + ECHO_WIDTH + 6
    assert shown.startswith("  ...") and shown.endswith("...")
    assert shown[caret.index("^"):].startswith("v1500")
    start = echo(text, 1).split("\n")
    assert not start[0].startswith("  ...") and start[0].endswith("...")
    assert start[1] == "  ^"
    end = echo(text, len(text) + 1).split("\n")
    assert end[0].startswith("  ...") and not end[0].endswith("...")
    assert end[1].index("^") == len(end[0])


def test_echo_caret_after_wide_characters_and_tabs() -> None:
    text = "日本 +\tα + @"
    shown, caret = echo(text, text.index("@") + 1).split("\n")
    assert "\t" not in shown
    # '日本' take two terminal columns each
    assert caret.index("^") == 2 + len(text.index("@") * "x") + 2


def test_echo_shows_the_line_holding_the_column() -> None:
    text = "a +\nb +\n  c @ d"
    lines = echo(text, text.index("@") + 1).split("\n")
    assert lines[0] == "  line 3:   c @ d"
    assert lines[0][lines[1].index("^")] == "@"
