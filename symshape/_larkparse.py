"""The grammar path: parse with lark's LALR parser built from grammar/symshape.lark.

:mod:`symshape.parsing` imports this module only when its fast front end
(:mod:`symshape._fastparse`) does not accept a text: for deep or unusual
valid texts, and for every invalid one, so every error message is written
here, from what the grammar would have accepted where parsing stopped.
Importing lark and building the parser costs tens of milliseconds, paid once
per process and only by processes that need it.

:func:`parse` returns the raw result described in :mod:`symshape._fastparse`
or raises :class:`~symshape.errors.ParseError`.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterator
from functools import lru_cache
from typing import Any, Final

import lark
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.lexer import Lexer, PatternRE, PatternStr, Token

from symshape._fastparse import (
    START_WHAT,
    fast_parser,
    function_name,
    group_operators,
)
from symshape._resources import grammar_text
from symshape.errors import ParseError
from symshape.operators import Op
from symshape.util import digits_to_int

__all__ = ["parse", "parser"]


class _SemanticError(Exception):
    """Raised by transformer callbacks; turned into a ParseError once the text is known."""

    def __init__(self, message: str, column: int, expected: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.column = column
        self.expected = expected


# --------------------------------------------------------------------------- lexer


class _Token(Token):
    """A lark Token that is cheap to create: the lexer sets only ``type``,
    ``value`` and ``start_pos``; the other position fields read as None."""

    __slots__ = ()
    line = column = end_line = end_column = end_pos = None


_new_str = str.__new__


class LarkLexer(Lexer):
    """A single-regex lexer built from the grammar's own terminal definitions.

    Lark's standard lexers track lines and columns and build tokens through a
    slower constructor; this one matches each token together with the
    whitespace before it in one ``re`` call. It follows lark's rules:
    terminals are tried by priority, then by longest possible match; a string
    terminal that a regexp terminal matches entirely is a keyword, recognised
    by value after that regexp matched.
    """

    def __init__(self, conf: Any) -> None:
        terminals = sorted(
            conf.terminals,
            key=lambda t: (-t.priority, -t.pattern.max_width, -len(t.pattern.value), t.name))
        ignore = [t for t in terminals if t.name in conf.ignore]
        regexps = [t for t in terminals if isinstance(t.pattern, PatternRE) and t not in ignore]
        self._keywords: dict[str, dict[str, str]] = {}
        groups = []
        for term in terminals:
            if term in ignore:
                continue
            if isinstance(term.pattern, PatternStr):
                owner = next((r for r in regexps if r.priority == term.priority
                              and re.fullmatch(r.pattern.to_regexp(), term.pattern.value)),
                             None)
                if owner is not None:
                    self._keywords.setdefault(owner.name, {})[term.pattern.value] = term.name
                    continue
            groups.append(f"(?P<{term.name}>{term.pattern.to_regexp()})")
        # Possessive: whitespace is never given back, so a failing match cannot
        # backtrack through the ways of splitting a long run of blanks.
        skip = "|".join(t.pattern.to_regexp() for t in ignore)
        skip = f"(?:{skip})*+" if skip else ""
        self._token = re.compile(f"{skip}(?:{'|'.join(groups)})")
        self._skip = re.compile(skip)

    def lex(self, text: str) -> Iterator[Token]:  # type: ignore[override]
        """Yield the tokens of ``text``; raise UnexpectedCharacters at a bad character."""
        match = self._token.match
        keywords = self._keywords
        new_str = _new_str
        token_class = _Token
        pos = 0
        end = len(text)
        while pos < end:
            m = match(text, pos)
            if m is None:
                skipped = self._skip.match(text, pos)
                pos = skipped.end() if skipped else pos
                if pos == end:
                    return
                raise UnexpectedCharacters(text, pos, 1, pos + 1)
            group: str = m.lastgroup  # type: ignore[assignment]
            value = m.group(group)
            token = new_str(token_class, value)
            token.type = keywords[group].get(value, group) if group in keywords else group
            token.value = value
            token.start_pos = m.start(group)
            yield token
            pos = m.end()


# --------------------------------------------------------------------------- transformer



def _finish(seq: Any) -> Any:
    """Group a flat ``[operand, op, operand, ...]`` by precedence (left-assoc),
    as the fast front end does (:func:`group_operators`)."""
    if type(seq) is not list:
        return seq
    return group_operators(seq, _token_type)


def _token_type(tok: Token) -> str:
    return str(tok.type)


# the kinds of the nodes the transformer makes itself (the binary ones come
# from group_operators and function_name)
_NEG: Final = Op.NEG.value
_POW: Final = Op.POW.value


class _ToAst(lark.Transformer):
    """Builds the AST while the LALR parser reduces (``Lark(transformer=...)``).

    The methods take the children list as is (no ``v_args`` wrapper and no
    filtered tokens), so lark calls them directly. Operands are tuples; a
    ``seq`` of binary operators is a list ``[operand, op_token, operand, ...]``
    until :func:`_finish` groups it. Reductions never recurse, so nesting
    costs no Python stack.
    """

    def int(self, c: list[Any]) -> Any:
        token = c[0]
        return ("int", token.start_pos + 1, digits_to_int(token.value))

    def var(self, c: list[Any]) -> Any:
        token = c[0]
        if not token.value[0].isidentifier():  # '²' and '₁' are word characters
            raise _SemanticError(
                f"invalid name {token.value!r}: a name starts with a letter or '_'",
                token.start_pos + 1, "a name such as 'b' or 'seq_len'")
        return ("var", token.start_pos + 1, token.value)

    def paren(self, c: list[Any]) -> Any:
        x = _finish(c[1])
        return (x[0], c[0].start_pos + 1, *x[2:])

    def pos(self, c: list[Any]) -> Any:
        x = c[1]
        return (x[0], c[0].start_pos + 1, *x[2:])

    def neg(self, c: list[Any]) -> Any:
        return (_NEG, c[0].start_pos + 1, c[1])

    def pow(self, c: list[Any]) -> Any:
        base, exponent = c[0], c[2]
        if exponent[0] != "int":
            raise _SemanticError("the exponent must be a non-negative integer literal",
                                 exponent[1], "a number such as 2")
        return (_POW, base[1], base, exponent[2])

    def call(self, c: list[Any]) -> Any:
        # CALL is the function name and its "(" as one token: "max(", "mod ("
        func = c[0]
        return (function_name(func.value), func.start_pos + 1, _finish(c[1]), _finish(c[3]))

    def call_wrong_arity(self, c: list[Any]) -> Any:
        name = function_name(c[0].value)
        if len(c) == 3:  # name( x )
            given, column = 1, c[2].start_pos + 1
        else:  # name( x , y , more_args )
            given, column = 2 + len(c[5]), c[5][0][1]
        raise _SemanticError(f"{name}() takes 2 arguments ({given} given)", column,
                             f"{name}(x, y)")

    def reserved(self, c: list[Any]) -> Any:
        token = c[0]
        raise _SemanticError(f"{token.value!r} is a function: write {token.value}(x, y)",
                             token.start_pos + 1, "'(' after the function name")

    def more_args(self, c: list[Any]) -> list[Any]:
        if len(c) == 1:
            return [_finish(c[0])]
        c[0].append(_finish(c[2]))
        return c[0]

    def seq(self, c: list[Any]) -> list[Any]:
        first = c[0]
        if type(first) is list:
            first.append(c[1])
            first.append(c[2])
            return first
        return c

    def placeholder(self, c: list[Any]) -> Any:
        token = c[0]
        return (token.value, token.start_pos + 1)

    def items(self, c: list[Any]) -> list[Any]:
        if len(c) == 1:
            return [_finish(c[0])]
        c[0].append(_finish(c[2]))
        return c[0]

    def expr_input(self, c: list[Any]) -> Any:
        return _finish(c[0])

    def spec_input(self, c: list[Any]) -> list[Any]:
        return c[0] if c else []

    def spec_paren(self, c: list[Any]) -> list[Any]:
        # ( ) | ( placeholder ) | ( item , ) | ( item , items ) | ( item , items , )
        if len(c) == 2:
            return []
        first = _finish(c[1])
        if len(c) >= 5:
            return [first, *c[3]]
        return [first]

    def comparison_first(self, c: list[Any]) -> list[Any]:
        op = c[1]
        return [_finish(c[0]), (str(op.value), op.start_pos + 1), _finish(c[2])]

    def comparison_input(self, c: list[Any]) -> list[Any]:
        op = c[1]
        c[0].append((str(op.value), op.start_pos + 1))
        c[0].append(_finish(c[2]))
        return c[0]


@lru_cache(maxsize=1)
def parser() -> lark.Lark:
    """The LALR parser with its transformer, built once on first use."""
    return lark.Lark(
        grammar_text("symshape.lark"),
        parser="lalr",
        lexer=LarkLexer,
        start=list(START_WHAT),
        transformer=_ToAst(),
    )


# --------------------------------------------------------------------------- errors

_OPERAND_WORDS: Final = ("a number", "a name", "'('", "'-'")


def _join_words(words: list[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " or " + words[-1]


def expected_words(expected: set[str]) -> str:
    """Translate a set of lark terminal names into friendly words."""
    words: list[str] = []
    operand = "INT" in expected or "NAME" in expected
    if operand:
        words.extend(_OPERAND_WORDS)
    if "UNDERSCORE" in expected:
        words.append("'_'")
    if "ELLIPSIS" in expected:
        words.append("'...'")
    if expected & {"STAR", "DSLASH", "PERCENT", "POW"} or ("PLUS" in expected and not operand):
        words.append("an operator such as '+'")
    if "CMPOP" in expected:
        words.append("a comparison such as '>='")
    if "LPAR" in expected and not operand:
        words.append("'('")
    if "COMMA" in expected:
        words.append("','")
    if "RPAR" in expected:
        words.append("')'")
    if "$END" in expected:
        words.append("end of input")
    return _join_words(words)


def _accepted(text: str, start: str, pos: int, fallback: Any) -> set[str]:
    """The terminals that would really have been accepted at offset ``pos``.

    LALR merges the look-ahead sets of similar states and may reduce on a bad
    token before noticing the error, so lark's own ``expected`` set can be too
    wide or too narrow. Re-parse the valid prefix and ask the interactive
    parser instead (only on the error path, so the cost does not matter).
    """
    try:
        interactive = parser().parse_interactive(text[:pos], start=start)
        interactive.exhaust_lexer()
        accepted: set[str] = set(interactive.accepts())
    except Exception:  # pragma: no cover - best effort, fall back to lark's set
        accepted = set()
    return accepted or set(fallback or ())


def _end_column(text: str) -> int:
    return len(text.rstrip()) + 1


def _describe_token(token: Token, start: str) -> tuple[str, str]:
    """``(found, hint)`` words for an unexpected token."""
    value = str(token.value)
    kind = token.type
    hint = ""
    if kind == "NAME":
        found = f"unexpected name {value!r}"
    elif kind == "INT":
        shown = value if len(value) <= 20 else value[:10] + "..." + value[-5:]
        found = f"unexpected number {shown}"
    else:
        found = f"unexpected {value!r}"
    if kind in ("UNDERSCORE", "ELLIPSIS"):
        hint = f" ({value!r} may only stand for a whole dimension of a shape spec)"
    elif kind == "CMPOP" and start != "comparison_input":
        hint = " (comparisons are not allowed here)"
    return found, hint


def _describe_character(text: str, pos: int, start: str) -> tuple[str, str]:
    """``(found, hint)`` words for an unexpected character."""
    char = text[pos]
    found = f"unexpected character {char!r}"
    hint = ""
    if char == "." and (text[pos + 1:pos + 2].isdigit() or text[pos - 1:pos].isdigit()):
        hint = " (dimensions are integers; decimal numbers are not allowed)"
    elif char == ".":
        hint = " (did you mean '...'?)"
    elif char == "=" and start == "comparison_input":
        hint = " (use '==' for equality)"
    elif char == "/":
        hint = " (use '//' or floordiv(x, y) for integer division)"
    elif unicodedata.category(char) in ("Mn", "Mc", "Me"):
        hint = (" (a combining mark: names are made of letters, digits and '_'; write "
                "accented letters precomposed, in Unicode NFC form)")
    return found, hint


def _unknown_function(text: str, pos: int, start: str) -> ParseError | None:
    """The error for ``name(`` where ``name`` is not a function, or None.

    ``pos`` is the offset of an unexpected ``(``; the name must end right
    before it (blanks allowed).
    """
    tokens = fast_parser().tokens(text[:pos])
    if not tokens or tokens[-1][0] != "NAME":
        return None
    _, name, offset = tokens[-1]
    known = fast_parser().functions
    if not known:  # pragma: no cover - the grammar has functions
        return None
    nearest = sorted(known, key=lambda f: (-difflib.SequenceMatcher(None, name, f).ratio(),
                                           known.index(f)))
    return ParseError(f"invalid {START_WHAT[start]}: unknown function {name!r}", text=text,
                      column=offset + 1,
                      expected="a known function, nearest first: "
                               + ", ".join(f"{f}(x, y)" for f in nearest))


def _translate(exc: UnexpectedInput, text: str, start: str) -> ParseError:
    """Turn a lark exception into a ParseError with friendly words."""
    if isinstance(exc, UnexpectedCharacters):
        pos = exc.pos_in_stream or 0
        found, hint = _describe_character(text, pos, start)
        accepted = _accepted(text, start, pos, exc.allowed)
    elif isinstance(exc, UnexpectedToken) and exc.token.type != "$END":
        pos = exc.token.start_pos or 0
        if exc.token.type == "LPAR":
            unknown = _unknown_function(text, pos, start)
            if unknown is not None:
                return unknown
        found, hint = _describe_token(exc.token, start)
        accepted = _accepted(text, start, pos, exc.expected)
    else:  # end of input (lark's LALR reports it as UnexpectedToken "$END")
        pos = _end_column(text) - 1
        found, hint = "unexpected end of input", ""
        fallback = exc.expected if isinstance(exc, UnexpectedToken | UnexpectedEOF) else ()
        accepted = _accepted(text, start, len(text), fallback)
        if "CMPOP" in accepted and "$END" not in accepted:  # "a + 1": no operator yet
            found = "expected a comparison such as 'a >= b'"
    return ParseError(f"invalid {START_WHAT[start]}: {found}{hint}", text=text,
                      column=pos + 1, expected=expected_words(accepted))


def parse(text: str, start: str) -> Any:
    """Parse ``text`` with lark; translate every failure into a ParseError."""
    try:
        return parser().parse(text, start=start)
    except UnexpectedInput as exc:
        raise _translate(exc, text, start) from None
    except _SemanticError as exc:
        raise ParseError(f"invalid {START_WHAT[start]}: {exc.message}", text=text,
                         column=exc.column, expected=exc.expected) from None
