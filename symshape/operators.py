"""The operator vocabulary of the syntax trees: one enum, with arities and spellings.

:mod:`symshape.parsing` turns text into trees of plain tuples whose first item
is the node's kind (see its docstring). The kinds of the inner nodes are the
operators below, and every module that interprets a tree (the expression
builder, sympy, JAX and torch adapters, the shape-check compilers) takes them
from here, so that an operator is added in one place and a test
(tests/syntax/test_operators.py) fails where an interpreter forgets it.

:class:`Op` is a ``str`` enum: a member *is* its kind string
(``Op.FLOORDIV == "floordiv"``, equal hashes), so tables keyed by members answer
the plain strings found in trees. Trees themselves carry the plain strings
(``Op.FLOORDIV.value``): exact ``str`` objects keep comparisons and lookups on
the hot paths as fast as before, and the parse results unchanged. Reading a
member (``Op.ADD``) costs an attribute lookup on the enum class, so code on a
hot path builds its tables once, at import, with :func:`kind_table` and
:func:`kinds`.

:class:`Cmp` is the same for the comparison operators of comparison texts
(``"16 <= a <= b"``), whose kind in a parsed comparison is their spelling.

This module belongs to the syntax layer and imports nothing from symshape.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import Final, TypeVar

__all__ = ["BINARY", "FUNCTIONS", "ONE_SUBTREE", "Cmp", "Op", "kind_table", "kinds"]

T = TypeVar("T")


class Op(StrEnum):
    """An operator of the syntax trees: the kind of an inner node.

    ``arity`` is the number of operands after the node's column (``pow``'s
    second operand is its exponent, a Python ``int``, not a tree);
    ``symbol`` is its prefix or infix spelling (``None`` if it has none);
    ``function`` its spelling as a call ``name(x, y)`` (``None`` if it has
    none). The function names are the grammar's reserved words.
    """

    _value_: str
    arity: int
    symbol: str | None
    function: str | None

    def __new__(cls, kind: str, arity: int, symbol: str | None,
                function: str | None) -> Op:
        member = str.__new__(cls, kind)
        member._value_ = kind
        member.arity = arity
        member.symbol = symbol
        member.function = function
        return member

    NEG = ("neg", 1, "-", None)
    """``-x`` (unary plus makes no node)."""
    ADD = ("add", 2, "+", None)
    """``x + y``."""
    SUB = ("sub", 2, "-", None)
    """``x - y``."""
    MUL = ("mul", 2, "*", None)
    """``x * y``."""
    FLOORDIV = ("floordiv", 2, "//", "floordiv")
    """``x // y`` or ``floordiv(x, y)``: floor division."""
    MOD = ("mod", 2, "%", "mod")
    """``x % y`` or ``mod(x, y)``: the remainder of floor division."""
    MAX = ("max", 2, None, "max")
    """``max(x, y)``."""
    MIN = ("min", 2, None, "min")
    """``min(x, y)``."""
    POW = ("pow", 2, "^", None)
    """``x ^ n`` or ``x ** n`` with ``n`` a non-negative integer literal."""

    @classmethod
    def of(cls, kind: str) -> Op:
        """The operator of a node's kind (``"max"``); :class:`ValueError` for another
        string."""
        op = cls._value2member_map_.get(kind)
        if op is None:
            raise ValueError(f"{kind!r} is not an operator of the syntax trees")
        return op  # type: ignore[return-value]


class Cmp(StrEnum):
    """A comparison operator, as spelled in comparison texts and in the
    ``(op, left, right)`` links of :func:`symshape.parsing.parse_comparison`.

    ``word`` is its name as a two-letter word (``"ge"``, the name of the
    shape-check programs' ops); ``negated`` the operator of the opposite
    comparison (``a < b`` for ``a >= b``), ``flipped`` the one that compares
    the same with its sides swapped (``b <= a`` for ``a >= b``).
    """

    _value_: str
    word: str

    def __new__(cls, spelling: str, word: str) -> Cmp:
        member = str.__new__(cls, spelling)
        member._value_ = spelling
        member.word = word
        return member

    GE = (">=", "ge")
    LE = ("<=", "le")
    EQ = ("==", "eq")
    NE = ("!=", "ne")
    GT = (">", "gt")
    LT = ("<", "lt")

    @classmethod
    def of(cls, spelling: str) -> Cmp:
        """The comparison spelled ``spelling`` (``">="``); :class:`ValueError` for
        another string."""
        op = cls._value2member_map_.get(spelling)
        if op is None:
            raise ValueError(f"{spelling!r} is not a comparison operator")
        return op  # type: ignore[return-value]

    @property
    def negated(self) -> Cmp:
        """The comparison that holds exactly when this one does not."""
        return _NEGATED[self]

    @property
    def flipped(self) -> Cmp:
        """The comparison of the swapped sides: ``x op y`` is ``y op.flipped x``."""
        return _FLIPPED[self]


_NEGATED: Final = {Cmp.GE: Cmp.LT, Cmp.LT: Cmp.GE, Cmp.LE: Cmp.GT, Cmp.GT: Cmp.LE,
                   Cmp.EQ: Cmp.NE, Cmp.NE: Cmp.EQ}
_FLIPPED: Final = {Cmp.GE: Cmp.LE, Cmp.LE: Cmp.GE, Cmp.GT: Cmp.LT, Cmp.LT: Cmp.GT,
                   Cmp.EQ: Cmp.EQ, Cmp.NE: Cmp.NE}


def kinds(ops: Iterable[Op | Cmp]) -> frozenset[str]:
    """The plain kind strings of ``ops``, for fast membership tests on hot paths."""
    return frozenset(op.value for op in ops)


def kind_table(table: Mapping[Op, T], required: Iterable[Op] = ()) -> dict[str, T]:
    """``table`` keyed by the plain kind strings that trees carry.

    A dict of exact ``str`` keys is looked up faster than one keyed by enum
    members (Python keeps a faster lookup for dicts whose keys are all exact
    strings). Raises :class:`LookupError` naming the operators of
    ``required`` that ``table`` lacks, so that an interpreter which forgets an
    operator fails on import.
    """
    missing = [op.value for op in required if op not in table]
    if missing:
        raise LookupError(f"no implementation of the operators {missing}")
    return {op.value: impl for op, impl in table.items()}


BINARY: Final[tuple[Op, ...]] = (Op.ADD, Op.SUB, Op.MUL, Op.FLOORDIV, Op.MOD, Op.MAX, Op.MIN)
"""The operators of two subtrees: ``(kind, column, x, y)``."""

ONE_SUBTREE: Final[tuple[Op, ...]] = (Op.NEG, Op.POW)
"""The operators of one subtree: ``(kind, column, x)`` and ``(kind, column, x, n)``
(``pow``'s exponent ``n`` is an ``int``)."""

FUNCTIONS: Final[tuple[Op, ...]] = tuple(op for op in Op if op.function is not None)
"""The operators written as calls; their names are reserved words of the grammar."""
