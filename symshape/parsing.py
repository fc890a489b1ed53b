"""Parse dimension expressions, shape specs and comparisons into a neutral AST.

The AST is made of plain tuples, so it is immutable, hashable and cheap to share
(parse results are cached per text). Every node is a tuple whose first item is
its kind and whose second item is the 1-based column where the node starts in
the input text; an operand written in parentheses or with a unary ``+`` starts
at that ``(`` or ``+``:

* ``("int", col, n)``: non-negative integer literal ``n`` (a Python ``int``).
* ``("var", col, name)``: dimension variable ``name`` (a plain ``str``).
* ``("neg", col, x)``: unary minus. Unary plus produces no node.
* ``("add", col, x, y)``, ``("sub", col, x, y)``, ``("mul", col, x, y)``.
* ``("floordiv", col, x, y)`` for ``floordiv(x, y)`` or ``x // y``;
  ``("mod", col, x, y)`` for ``mod(x, y)`` or ``x % y``;
  ``("max", col, x, y)`` and ``("min", col, x, y)``.
* ``("pow", col, x, n)`` for ``x ^ n`` or ``x ** n``; ``n`` is a Python ``int``:
  the exponent must be a non-negative integer literal, possibly parenthesised.
* ``("_", col)`` and ``("...", col)``: placeholders, only in shape specs.

Precedence and associativity follow Python: ``+ -`` bind loosest, then
``* // %`` (all left-associative), then unary ``-``/``+``, then ``^``/``**``
(right-associative, so ``-a^2`` is ``-(a^2)``; since exponents must be
literals, ``a^2^3`` is an error rather than ``a^8``).

Columns are 1-based character offsets into the whole text (the usual column for
single-line text; newlines are accepted as whitespace).

Every malformed input raises :class:`symshape.errors.ParseError`, a
:class:`ValueError`, with the text, the column and what would have been
accepted there.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from functools import lru_cache
from typing import Any, Final, TypeAlias

import lark
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.lexer import Lexer, PatternRE, PatternStr, Token

from symshape._resources import grammar_text
from symshape.errors import ParseError

__all__ = [
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
    "MAX_TEXT_LENGTH",
    "Comparison",
    "Node",
    "parse_comparison",
    "parse_expr",
    "parse_spec",
]

Node: TypeAlias = tuple[Any, ...]
"""An AST node ``(kind, column, *operands)``; see the module docstring."""

Comparison: TypeAlias = tuple[str, Node, Node]
"""``(op, left, right)`` with ``op`` one of ``">=" "<=" "==" ">" "<" "!="``."""

MAX_TEXT_LENGTH: Final = 100_000
"""Longest accepted input, in characters."""

MAX_DEPTH: Final = 100
"""Deepest accepted parenthesis nesting, and deepest accepted AST (a leaf has depth 1)."""

MAX_INT_DIGITS: Final = 10_000
"""Most digits accepted in one integer literal."""

_CACHE_SIZE: Final = 4096

_START_WHAT: Final = {
    "expr_input": "dimension expression",
    "spec_input": "shape spec",
    "comparison_input": "comparison",
}

_ADD_KINDS: Final = {"PLUS": "add", "MINUS": "sub"}
_MUL_KINDS: Final = {"STAR": "mul", "DSLASH": "floordiv", "PERCENT": "mod"}
_BINARY_KINDS: Final = frozenset({"add", "sub", "mul", "floordiv", "mod", "max", "min"})


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


class _Lexer(Lexer):
    """A single-regex lexer built from the grammar's own terminal definitions.

    Lark's standard lexers track lines and columns and build tokens through a
    slower constructor; this one matches each token together with the
    whitespace before it in one ``re`` call, which makes lexing several times
    faster. It follows lark's rules: terminals are tried by priority, then by
    longest possible match; a string terminal that a regexp terminal matches
    entirely is a keyword, recognised by value after that regexp matched.
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


def _digits_to_int(digits: str) -> int:
    """``int(digits)``, also above ``sys.get_int_max_str_digits()``."""
    if len(digits) <= 600:  # below the smallest limit Python allows (640)
        return int(digits)
    limit = sys.get_int_max_str_digits()
    if limit == 0 or len(digits) <= limit:
        return int(digits)
    chunk = 600
    head = len(digits) % chunk or chunk
    value = int(digits[:head])
    scale = 10 ** chunk
    for i in range(head, len(digits), chunk):
        value = value * scale + int(digits[i:i + chunk])
    return value


def _function_name(call_token: str) -> str:
    """``"max"`` from the CALL token ``"max("`` or ``"max ("``."""
    return call_token.rstrip("( \t\f\r\n")


def _finish(seq: Any) -> Node:
    """Group a flat ``[operand, op, operand, ...]`` by precedence (left-assoc)."""
    if type(seq) is not list:
        return seq
    total: Node | None = None
    total_kind = ""
    term: Node = seq[0]
    for i in range(1, len(seq), 2):
        op_type = seq[i].type
        right = seq[i + 1]
        if op_type in _MUL_KINDS:
            term = (_MUL_KINDS[op_type], term[1], term, right)
        else:
            if total is not None:
                term = (total_kind, total[1], total, term)
            total = term
            total_kind = _ADD_KINDS[op_type]
            term = right
    if total is not None:
        term = (total_kind, total[1], total, term)
    return term


class _ToAst(lark.Transformer):
    """Builds the AST while the LALR parser reduces (``Lark(transformer=...)``).

    The methods take the children list as is (no ``v_args`` wrapper and no
    filtered tokens), so lark calls them directly: this is the parser's hot
    path. Operands are tuples; a ``seq`` of binary operators is a list
    ``[operand, op_token, operand, ...]`` until :func:`_finish` groups it.
    """

    def int(self, c: list[Any]) -> Node:
        token = c[0]
        return ("int", token.start_pos + 1, _digits_to_int(token.value))

    def var(self, c: list[Any]) -> Node:
        token = c[0]
        return ("var", token.start_pos + 1, token.value)

    def paren(self, c: list[Any]) -> Node:
        x = _finish(c[1])
        return (x[0], c[0].start_pos + 1, *x[2:])

    def pos(self, c: list[Any]) -> Node:
        x = c[1]
        return (x[0], c[0].start_pos + 1, *x[2:])

    def neg(self, c: list[Any]) -> Node:
        return ("neg", c[0].start_pos + 1, c[1])

    def pow(self, c: list[Any]) -> Node:
        base, exponent = c[0], c[2]
        if exponent[0] != "int":
            raise _SemanticError("the exponent must be a non-negative integer literal",
                                 exponent[1], "a number such as 2")
        return ("pow", base[1], base, exponent[2])

    def call(self, c: list[Any]) -> Node:
        # CALL is the function name and its "(" as one token: "max(", "mod ("
        func = c[0]
        return (_function_name(func.value), func.start_pos + 1, _finish(c[1]), _finish(c[3]))

    def call_wrong_arity(self, c: list[Any]) -> Node:
        name = _function_name(c[0].value)
        if len(c) == 3:  # name( x )
            given, column = 1, c[2].start_pos + 1
        else:  # name( x , y , more_args )
            given, column = 2 + len(c[5]), c[5][0][1]
        raise _SemanticError(f"{name}() takes 2 arguments ({given} given)", column,
                             f"{name}(x, y)")

    def reserved(self, c: list[Any]) -> Node:
        token = c[0]
        raise _SemanticError(f"{token.value!r} is a function: write {token.value}(x, y)",
                             token.start_pos + 1, "'(' after the function name")

    def more_args(self, c: list[Any]) -> list[Node]:
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

    def placeholder(self, c: list[Any]) -> Node:
        token = c[0]
        return (token.value, token.start_pos + 1)

    def items(self, c: list[Any]) -> list[Node]:
        if len(c) == 1:
            return [_finish(c[0])]
        c[0].append(_finish(c[2]))
        return c[0]

    def expr_input(self, c: list[Any]) -> Node:
        return _finish(c[0])

    def spec_input(self, c: list[Any]) -> list[Node]:
        return c[0] if c else []

    def spec_paren(self, c: list[Any]) -> list[Node]:
        # ( ) | ( placeholder ) | ( item , ) | ( item , items ) | ( item , items , )
        if len(c) == 2:
            return []
        first = _finish(c[1])
        if len(c) >= 5:
            return [first, *c[3]]
        return [first]

    def comparison_first(self, c: list[Any]) -> list[Any]:
        return [_finish(c[0]), c[1], _finish(c[2])]

    def comparison_input(self, c: list[Any]) -> list[Any]:
        c[0].append(c[1])
        c[0].append(_finish(c[2]))
        return c[0]


@lru_cache(maxsize=1)
def _parser() -> lark.Lark:
    """The LALR parser with its transformer, built once on first use."""
    return lark.Lark(
        grammar_text("symshape.lark"),
        parser="lalr",
        lexer=_Lexer,
        start=list(_START_WHAT),
        transformer=_ToAst(),
    )


# --------------------------------------------------------------------------- errors

_OPERAND_WORDS: Final = ("a number", "a name", "'('", "'-'")


def _join_words(words: list[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " or " + words[-1]


def _expected_words(expected: set[str]) -> str:
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
        interactive = _parser().parse_interactive(text[:pos], start=start)
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
    return found, hint


def _translate(exc: UnexpectedInput, text: str, start: str) -> ParseError:
    """Turn a lark exception into a ParseError with friendly words."""
    if isinstance(exc, UnexpectedCharacters):
        pos = exc.pos_in_stream or 0
        found, hint = _describe_character(text, pos, start)
        accepted = _accepted(text, start, pos, exc.allowed)
    elif isinstance(exc, UnexpectedToken) and exc.token.type != "$END":
        pos = exc.token.start_pos or 0
        found, hint = _describe_token(exc.token, start)
        accepted = _accepted(text, start, pos, exc.expected)
    else:  # end of input (lark's LALR reports it as UnexpectedToken "$END")
        pos = _end_column(text) - 1
        found, hint = "unexpected end of input", ""
        fallback = exc.expected if isinstance(exc, UnexpectedToken | UnexpectedEOF) else ()
        accepted = _accepted(text, start, len(text), fallback)
        if "CMPOP" in accepted and "$END" not in accepted:  # "a + 1": no operator yet
            found = "expected a comparison such as 'a >= b'"
    return ParseError(f"invalid {_START_WHAT[start]}: {found}{hint}", text=text,
                      column=pos + 1, expected=_expected_words(accepted))


# --------------------------------------------------------------------------- limits

_LONG_INT: Final = re.compile(f"[0-9]{{{MAX_INT_DIGITS + 1},}}")
_PARENS: Final = re.compile(r"[()]")


def _check_text(text: str, start: str) -> None:
    """Cheap checks of the raw text, before running lark."""
    what = _START_WHAT[start]
    if len(text) > MAX_TEXT_LENGTH:
        raise ParseError(f"{what} too long ({len(text)} characters, at most "
                         f"{MAX_TEXT_LENGTH})", text=text[:60] + "...")
    if len(text) > MAX_INT_DIGITS:
        match = _LONG_INT.search(text)
        if match:
            raise ParseError(
                f"invalid {what}: integer literal with {match.end() - match.start()} digits, "
                f"more than {MAX_INT_DIGITS}", text=text, column=match.start() + 1)
    if text.count("(") > MAX_DEPTH:
        depth = 0
        for match in _PARENS.finditer(text):
            if match.group() == "(":
                depth += 1
                if depth > MAX_DEPTH:
                    raise ParseError(
                        f"invalid {what}: expression nested too deeply, more than "
                        f"{MAX_DEPTH} levels", text=text, column=match.start() + 1)
            elif depth:
                depth -= 1


def _too_deep(node: Node) -> Node | None:
    """The first node found deeper than MAX_DEPTH, or None (iterative, no recursion)."""
    stack = [(node, 1)]
    while stack:
        current, depth = stack.pop()
        if depth > MAX_DEPTH:
            return current
        kind = current[0]
        if kind in _BINARY_KINDS:
            stack.append((current[3], depth + 1))
            stack.append((current[2], depth + 1))
        elif kind == "neg" or kind == "pow":
            stack.append((current[2], depth + 1))
    return None


def _check_depth(roots: list[Node], text: str, start: str) -> None:
    # Every AST level beyond the first consumes at least one operator character,
    # so a text of at most MAX_DEPTH characters cannot be too deep.
    if len(text) <= MAX_DEPTH:
        return
    for root in roots:
        deep = _too_deep(root)
        if deep is not None:
            raise ParseError(
                f"invalid {_START_WHAT[start]}: expression nested too deeply, more than "
                f"{MAX_DEPTH} levels", text=text, column=deep[1])


def _run(text: str, start: str) -> Any:
    """Check limits, parse with lark and translate every parse failure."""
    _check_text(text, start)
    try:
        return _parser().parse(text, start=start)
    except UnexpectedInput as exc:
        raise _translate(exc, text, start) from None
    except _SemanticError as exc:
        raise ParseError(f"invalid {_START_WHAT[start]}: {exc.message}", text=text,
                         column=exc.column, expected=exc.expected) from None


def _require_str(text: object, what: str) -> str:
    if not isinstance(text, str):
        raise ParseError(f"a {what} must be given as a string, got {type(text).__name__}")
    return text


# --------------------------------------------------------------------------- uncached


def _parse_expr_uncached(text: str) -> Node:
    if not text.strip():
        raise ParseError("invalid dimension expression: empty expression", text=text,
                         column=1, expected=_expected_words({"INT"}))
    node: Node = _run(text, "expr_input")
    _check_depth([node], text, "expr_input")
    return node


def _parse_spec_uncached(text: str) -> tuple[Node, ...]:
    items: list[Node] = _run(text, "spec_input")
    for item in items[:-1]:
        if item[0] == "...":
            raise ParseError("invalid shape spec: '...' may only appear at the end", text=text,
                             column=item[1], expected="nothing after '...'")
    _check_depth(items, text, "spec_input")
    table: dict[tuple[Any, ...], Node] = {}
    out = []
    for item in items:
        shared = share_subtrees(item, table)
        # a dimension keeps its own column (errors about it point at it)
        out.append(shared if shared[1] == item[1] else (shared[0], item[1], *shared[2:]))
    return tuple(out)


def share_subtrees(node: Node, table: dict[tuple[Any, ...], Node]) -> Node:
    """``node`` with every subtree that repeats an earlier one (ignoring columns)
    replaced by that earlier node object.

    Specs repeat sub-expressions (``max(a, b)`` in ``"a, b, max(a, b),
    min(max(a, b), b)"``); with shared nodes, whoever builds the expressions can
    memoize by node identity.  Runs once per text (the parse is cached); the
    depth is already checked, so the recursion is bounded.
    """
    kind = node[0]
    if kind in ("int", "var"):
        key: tuple[Any, ...] = (kind, node[2])
    elif kind == "neg":
        node = (kind, node[1], share_subtrees(node[2], table))
        key = (kind, id(node[2]))
    elif kind == "pow":
        node = (kind, node[1], share_subtrees(node[2], table), node[3])
        key = (kind, id(node[2]), node[3])
    elif len(node) == 4:  # binary operators and functions
        node = (kind, node[1], share_subtrees(node[2], table), share_subtrees(node[3], table))
        key = (kind, id(node[2]), id(node[3]))
    else:  # placeholders
        return node
    return table.setdefault(key, node)


def _parse_comparison_uncached(text: str) -> tuple[Comparison, ...]:
    if not text.strip():
        raise ParseError("invalid comparison: empty text, expected a comparison such as "
                         "'a >= b'", text=text, column=1, expected=_expected_words({"INT"}))
    chain: list[Any] = _run(text, "comparison_input")  # [x, op, y, op, z, ...]
    ops = chain[1::2]
    if len(ops) > 1:
        for op in ops:
            if op.value == "!=":
                raise ParseError("invalid comparison: '!=' cannot be chained; write "
                                 "separate comparisons", text=text, column=op.start_pos + 1)
    _check_depth(chain[::2], text, "comparison_input")
    return tuple((str(chain[i].value), chain[i - 1], chain[i + 1])
                 for i in range(1, len(chain), 2))


_parse_expr_cached = lru_cache(maxsize=_CACHE_SIZE)(_parse_expr_uncached)
_parse_spec_cached = lru_cache(maxsize=_CACHE_SIZE)(_parse_spec_uncached)
_parse_comparison_cached = lru_cache(maxsize=_CACHE_SIZE)(_parse_comparison_uncached)


# --------------------------------------------------------------------------- public


def parse_expr(text: str) -> Node:
    """Parse one dimension expression, such as ``"2*h + 1"`` or ``"max(a, b) // 2"``.

    Returns the AST node described in the module docstring. Raises
    :class:`~symshape.errors.ParseError` for malformed input, including empty
    text, ``_`` and ``...`` (only allowed in shape specs), and for non-string
    input. Results are cached per text.
    """
    return _parse_expr_cached(_require_str(text, "dimension expression"))


def parse_spec(text: str) -> tuple[Node, ...]:
    """Parse a shape spec into one AST node per dimension.

    A spec is a comma-separated list of dimension expressions and the
    placeholders ``_`` (anywhere) and ``...`` (only as the last item),
    optionally in parentheses and optionally with a trailing comma:
    ``"b, 2*h + 1, ..."``, ``"(b, _)"``, ``"b,"``. ``""`` and ``"()"`` have
    rank 0. Parentheses around a single expression belong to the expression:
    ``"(a + 1)"`` and ``"(a + 1) * 2"`` have rank 1 like ``"(a,)"``, while
    ``"(a, b)"`` has rank 2.

    Raises :class:`~symshape.errors.ParseError` for malformed or non-string
    input. Results are cached per text.
    """
    return _parse_spec_cached(_require_str(text, "shape spec"))


def parse_comparison(text: str) -> tuple[Comparison, ...]:
    """Parse a comparison or a chain of comparisons, such as ``"16 <= a <= b"``.

    Returns one ``(op, left, right)`` triple per operator, in order, with
    ``op`` one of ``">=" "<=" "==" ">" "<" "!="`` as written; consecutive
    triples of a chain share the middle node, so ``"16 <= a <= b"`` gives
    ``(("<=", <16>, <a>), ("<=", <a>, <b>))``. A chain may not contain ``!=``,
    and text without a comparison operator is an error.

    Raises :class:`~symshape.errors.ParseError` for malformed or non-string
    input. Results are cached per text.
    """
    return _parse_comparison_cached(_require_str(text, "comparison"))
