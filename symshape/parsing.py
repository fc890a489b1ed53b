"""Parse dimension expressions, shape specs and comparisons into a neutral AST.

The AST is made of plain tuples, so it is immutable, hashable and cheap to share
(the trees of texts parsed again are cached). Every node is a tuple whose first item is
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

The operators' kinds, arities and spellings are :class:`symshape.operators.Op`
(the trees carry their plain strings).
* ``("_", col)`` and ``("...", col)``: placeholders, only in shape specs.

Precedence and associativity follow Python: ``+ -`` bind loosest, then
``* // %`` (all left-associative), then unary ``-``/``+``, then ``^``/``**``
(right-associative, so ``-a^2`` is ``-(a^2)``; since exponents must be
literals, ``a^2^3`` is an error rather than ``a^8``).

Names are what JAX accepts (Python's tokenizer): a letter or ``_`` followed by
letters, digits and ``_`` in the Unicode sense (``α``, ``seq_len``, ``x₁``);
``_`` alone is the placeholder, and ``floordiv``, ``mod``, ``max``, ``min`` are
reserved. Names are kept as written (no Unicode normalization), as JAX does.

Columns are 1-based character offsets into the whole text (the usual column for
single-line text; newlines are accepted as whitespace).

Texts are parsed by a fast hand-written front end (:mod:`symshape._fastparse`)
when it accepts them, else by lark's LALR parser built from
grammar/symshape.lark (:mod:`symshape._larkparse`, imported only then), which
also writes every error message. Both give identical results; neither recurses,
so deep nesting costs no Python stack. Nesting is limited (``MAX_DEPTH``):
parentheses and function calls, and the levels of the expression where sums and
products count as one level however many terms they have.

Every malformed input raises :class:`symshape.errors.ParseError`, a
:class:`ValueError`, with the text, the column and what would have been
accepted there.
"""

from __future__ import annotations

import re
from typing import Any, Final, TypeAlias

from symshape._fastparse import START_WHAT, fast_parser
from symshape.errors import ParseError
from symshape.operators import BINARY, ONE_SUBTREE, Op, kinds
from symshape.util import TextCache

__all__ = [
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
    "MAX_TEXT_LENGTH",
    "Comparison",
    "Node",
    "is_name",
    "parse_comparison",
    "parse_expr",
    "parse_spec",
    "share_subtrees",
]

Node: TypeAlias = tuple[Any, ...]
"""An AST node ``(kind, column, *operands)``; see the module docstring."""

Comparison: TypeAlias = tuple[str, Node, Node]
"""``(op, left, right)`` with ``op`` one of ``">=" "<=" "==" ">" "<" "!="``
(the spellings of :class:`symshape.operators.Cmp`)."""

MAX_TEXT_LENGTH: Final = 100_000
"""Longest accepted input, in characters."""

MAX_DEPTH: Final = 1000
"""Deepest accepted nesting: of parentheses and function calls, and of the
expression's levels, where a sum or product is one level however many terms
it has (``a + b + c`` is 2 levels, ``max(max(a, b), c)`` 3, ``-(-a)`` 3)."""

MAX_INT_DIGITS: Final = 10_000
"""Most digits accepted in one integer literal."""

_CACHE_SIZE: Final = 2048  # texts per generation of a TextCache

# Sums and products of sums and products form one level (the algebra keeps them
# as one flat polynomial); every other node kind nests.
_FLAT: Final = kinds((Op.ADD, Op.SUB, Op.MUL))
_BINARY_KINDS: Final = kinds(BINARY)
_NEG: Final = Op.NEG.value
_POW: Final = Op.POW.value
_ONE_SUBTREE: Final = kinds(ONE_SUBTREE)
_LONG_INT: Final = re.compile(f"[0-9]{{{MAX_INT_DIGITS + 1},}}")


# --------------------------------------------------------------------------- limits


def _check_text(text: str, start: str) -> None:
    """Cheap checks of the raw text, before parsing."""
    what = START_WHAT[start]
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
        for offset, char in enumerate(text):
            if char == "(":
                depth += 1
                if depth > MAX_DEPTH:
                    raise ParseError(
                        f"invalid {what}: nested too deeply, more than {MAX_DEPTH} levels "
                        "of parentheses and function calls", text=text, column=offset + 1)
            elif char == ")" and depth:
                depth -= 1


def _too_deep(node: Node) -> Node | None:
    """The first node found more than MAX_DEPTH levels deep, or None (iterative).

    A node nests one level below its parent, except a sum, difference or
    product below another one (see MAX_DEPTH).
    """
    stack = [(node, 1)]
    while stack:
        current, depth = stack.pop()
        if depth > MAX_DEPTH:
            return current
        kind = current[0]
        if kind in _BINARY_KINDS:
            flat = kind in _FLAT
            for child in (current[3], current[2]):
                stack.append((child, depth if flat and child[0] in _FLAT else depth + 1))
        elif kind in _ONE_SUBTREE:
            stack.append((current[2], depth + 1))
    return None


def _check_depth(roots: list[Node], text: str, start: str) -> None:
    # Every level beyond the first consumes at least one character of text
    # ('-', '^', '//', '%' or a call), so a short text cannot be too deep.
    if len(text) <= MAX_DEPTH:
        return
    for root in roots:
        deep = _too_deep(root)
        if deep is not None:
            raise ParseError(
                f"invalid {START_WHAT[start]}: nested too deeply, more than {MAX_DEPTH} "
                "levels (sums and products count as one level)", text=text, column=deep[1])


def _run(text: str, start: str) -> Any:
    """Check limits, then parse: the fast front end, else the grammar path."""
    _check_text(text, start)
    raw = fast_parser().parse(text, start)
    if raw is None:
        from symshape import _larkparse  # lark is imported only when needed
        raw = _larkparse.parse(text, start)
    return raw


def _require_str(text: object, what: str) -> str:
    if not isinstance(text, str):
        raise ParseError(f"a {what} must be given as a string, got {type(text).__name__}")
    return text


def _empty_error(what: str, text: str) -> ParseError:
    if what == "comparison":
        return ParseError("invalid comparison: empty text, expected a comparison such as "
                          "'a >= b'", text=text, column=1, expected=_OPERAND_EXPECTED)
    return ParseError(f"invalid {what}: empty expression", text=text, column=1,
                      expected=_OPERAND_EXPECTED)


_OPERAND_EXPECTED: Final = "a number, a name, '(' or '-'"


# --------------------------------------------------------------------------- uncached


def _parse_expr_uncached(text: str) -> Node:
    if not text.strip():
        raise _empty_error("dimension expression", text)
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
    memoize by node identity. Runs once per text (the parse is cached), without
    recursion.
    """
    done: list[Node] = []  # shared versions of the finished subtrees, in order
    stack: list[tuple[Node, bool]] = [(node, False)]
    while stack:
        current, children_done = stack.pop()
        kind = current[0]
        if kind == "int" or kind == "var":
            done.append(table.setdefault((kind, current[2]), current))
            continue
        if len(current) == 2:  # placeholders
            done.append(current)
            continue
        if not children_done:
            stack.append((current, True))
            if len(current) == 4 and kind != _POW:
                stack.append((current[3], False))
            stack.append((current[2], False))
            continue
        key: tuple[Any, ...]
        if kind == _NEG:
            x = done.pop()
            new: Node = (kind, current[1], x)
            key = (kind, id(x))
        elif kind == _POW:
            x = done.pop()
            new = (kind, current[1], x, current[3])
            key = (kind, id(x), current[3])
        else:  # binary operators and functions
            y = done.pop()
            x = done.pop()
            new = (kind, current[1], x, y)
            key = (kind, id(x), id(y))
        done.append(table.setdefault(key, new))
    return done[0]


def _parse_comparison_uncached(text: str) -> tuple[Comparison, ...]:
    if not text.strip():
        raise _empty_error("comparison", text)
    chain: list[Any] = _run(text, "comparison_input")  # [x, (op, col), y, (op, col), ...]
    ops = chain[1::2]
    if len(ops) > 1:
        for op, column in ops:
            if op == "!=":
                raise ParseError("invalid comparison: '!=' cannot be chained; write "
                                 "separate comparisons", text=text, column=column)
    _check_depth(chain[::2], text, "comparison_input")
    if len(chain) == 3:  # (the common case: one comparison, no generator)
        return ((chain[1][0], chain[0], chain[2]),)
    return tuple((chain[i][0], chain[i - 1], chain[i + 1]) for i in range(1, len(chain), 2))


_parse_expr_cached = TextCache(_parse_expr_uncached, _CACHE_SIZE)
_parse_spec_cached = TextCache(_parse_spec_uncached, _CACHE_SIZE)
_parse_comparison_cached = TextCache(_parse_comparison_uncached, _CACHE_SIZE)


# --------------------------------------------------------------------------- public


def is_name(text: object) -> bool:
    """Whether ``text`` is a dimension variable name of the grammar.

    True for what JAX accepts as a name (``b``, ``seq_len``, ``α``, ``_b``),
    False for reserved words (``max``), the placeholder ``_`` and anything else.
    """
    if not isinstance(text, str):
        return False
    try:
        node = parse_expr(text)
    except ParseError:
        return False
    return node[0] == "var" and node[2] == text


def parse_expr(text: object) -> Node:
    """Parse one dimension expression, such as ``"2*h + 1"`` or ``"max(a, b) // 2"``.

    Returns the AST node described in the module docstring. Raises
    :class:`~symshape.errors.ParseError` for malformed input, including empty
    text, ``_`` and ``...`` (only allowed in shape specs), and for non-string
    input. The results of texts parsed again are cached.
    """
    return _parse_expr_cached(_require_str(text, "dimension expression"))


def parse_spec(text: object) -> tuple[Node, ...]:
    """Parse a shape spec into one AST node per dimension.

    A spec is a comma-separated list of dimension expressions and the
    placeholders ``_`` (anywhere) and ``...`` (only as the last item),
    optionally in parentheses and optionally with a trailing comma:
    ``"b, 2*h + 1, ..."``, ``"(b, _)"``, ``"b,"``. ``""`` and ``"()"`` have
    rank 0. Parentheses around a single expression belong to the expression:
    ``"(a + 1)"`` and ``"(a + 1) * 2"`` have rank 1 like ``"(a,)"``, while
    ``"(a, b)"`` has rank 2.

    Raises :class:`~symshape.errors.ParseError` for malformed or non-string
    input. The results of texts parsed again are cached.
    """
    return _parse_spec_cached(_require_str(text, "shape spec"))


def parse_comparison(text: object) -> tuple[Comparison, ...]:
    """Parse a comparison or a chain of comparisons, such as ``"16 <= a <= b"``.

    Returns one ``(op, left, right)`` triple per operator, in order, with
    ``op`` one of ``">=" "<=" "==" ">" "<" "!="`` as written; consecutive
    triples of a chain share the middle node, so ``"16 <= a <= b"`` gives
    ``(("<=", <16>, <a>), ("<=", <a>, <b>))``. A chain may not contain ``!=``,
    and text without a comparison operator is an error.

    Raises :class:`~symshape.errors.ParseError` for malformed or non-string
    input. The results of texts parsed again are cached.
    """
    return _parse_comparison_cached(_require_str(text, "comparison"))
