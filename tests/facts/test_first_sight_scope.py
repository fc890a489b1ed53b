"""Scopes built from constraint texts seen for the first time.

A scope parses each of its constraint texts once; the simple comparisons that
make up most constraints (``b >= 16``, ``a >= b + 8``, ``16 <= t <= 512``,
``mod(s, 128) == 0``, ``max(h, w) <= 4096``) take a shortcut in the fast front
end (``symshape._simplescan``).  The shortcut must give exactly what
the general parser gives, and what lark gives, for every text it takes, and
leave every other text to them.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

import symshape
from symshape import _fastparse, _larkparse
from symshape.errors import ParseError

FAST = _fastparse.fast_parser()
START = "comparison_input"

# Pieces of text, valid and invalid, near the edges of the shortcut's language.
PIECES = ("a", "b", "x_1", "_c", "_", "max", "max_1", "mod(", "max (", "minx", "α", "bα", "2", "16",
          "007", "1234567890123456789", "123456789012345678", " ", "  ", "\t", "\n", "\x0b",
          "\r", "+", "-", "*", "**", "^", ">=", "<=", "==", ">", "<", "!=", "=", "=>", "<>", "(",
          ")", ",", "3*", "//", "%", "1a", "floordiv", "min (", ", ")


def _agree(text: str) -> bool:
    """Both front ends agree on ``text``; True when the shortcut took it."""
    took = FAST.is_simple(text)
    fast, general = FAST.parse(text, START), FAST.parse_tokens(text, START)
    assert fast == general, text
    if took:
        assert general is not None, text
        assert _larkparse.parse(text, START) == general, text
    return took


def _term(rng: random.Random, calls: bool) -> str:
    name = rng.choice(("b", "seq_len", "x1", "_h", "minimum", "Max", "mod_2"))
    if calls and rng.random() < 0.3:
        fn = rng.choice(("floordiv", "mod", "max", "min"))
        name = f"{fn}{rng.choice(('', ' '))}({_side(rng, False)},{rng.choice(('', ' '))}" \
               f"{_side(rng, False)}{rng.choice(('', ' '))})"
    r = rng.random()
    if r < 0.4:
        return name
    if r < 0.7:
        return str(rng.randint(0, 10 ** rng.randint(1, 18) - 1))
    return f"{rng.randint(0, 999)}{rng.choice(('', ' ', '  '))}*{rng.choice(('', ' '))}{name}"


def _side(rng: random.Random, calls: bool = True) -> str:
    out = _term(rng, calls)
    for _ in range(rng.randint(0, 4)):
        out += f"{rng.choice(('', ' ', chr(9)))}{rng.choice('+-')}{rng.choice(('', ' '))}"
        out += _term(rng, calls)
    return out


def test_the_shortcut_parses_simple_comparisons_as_the_general_parser() -> None:
    rng = random.Random(31)
    for _ in range(3000):
        text = _side(rng)
        for _ in range(rng.randint(1, 3)):
            text += f" {rng.choice(('>=', '<=', '==', '>', '<'))} {_side(rng)}"
        assert _agree(rng.choice(("", " ", "\n")) + text + rng.choice(("", " ")))


def test_the_shortcut_leaves_everything_else_to_the_general_parser() -> None:
    rng = random.Random(7)
    took = 0
    for _ in range(30_000):
        took += _agree("".join(rng.choice(PIECES) for _ in range(rng.randint(1, 9))))
    assert took > 50  # the shortcut was exercised, not only bypassed
    for text in ("max >= 1", "_ >= 1", "a != b", "a >= -b", "bα >= 1", "a >= b*2", "a >= 2*3",
                 "a >= 1234567890123456789", "a > = b", "(a) >= b", "a >= b + 1 )",
                 "mod(mod(a, 2), 3) >= 0", "max(a, b, c) >= 1", "max(a) >= 1", "mod(a, 2)*3 >= 0",
                 "a // 2 >= 1", "a % 2 == 0", "maxi(a, b) >= 1", "a => b", "a <> b",
                 "2a >= 1", "a >= 1 ==", "max(2*min, a) >= 1", "a\x0b>= 1", "a >= 1 b"):
        assert not FAST.is_simple(text), text


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=12))
def test_generated_texts_agree(pieces: list[str]) -> None:
    _agree("".join(pieces))


def test_errors_still_come_from_the_grammar() -> None:
    for text in ("a >= ", "max >= 1", "a >= b +"):
        try:
            symshape.SymbolicScope([text])
        except ParseError as err:
            assert "column" in str(err) or "expected" in str(err).lower(), str(err)
        else:
            raise AssertionError(text)


def test_scopes_from_fresh_texts_hold_the_same_facts_as_from_general_trees() -> None:
    # The same constraints under two sets of names: the facts correspond term
    # for term (the shortcut changes how a text is read, not what it means).
    texts = ["b >= 16", "a >= b + 8", "2*h + 1 <= 1024", "16 <= t <= 512", "h >= w",
             "x + y <= 2048", "3*x - 2*y + 1 == z"]
    one = symshape.SymbolicScope(texts)
    two = symshape.SymbolicScope([t.replace("b", "bb").replace("h", "hh") for t in texts])
    assert [str(f) for f, _ in one.facts()] == \
        [str(f).replace("bb", "b").replace("hh", "h") for f, _ in two.facts()]
    assert [str(c) for c in one.constraints] == \
        [str(c).replace("bb", "b").replace("hh", "h") for c in two.constraints]
