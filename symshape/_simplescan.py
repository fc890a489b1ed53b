"""A one-pass reader of the simple comparisons, the shortcut of the fast
front end (:mod:`symshape._fastparse`).

Most constraints and claims are comparisons of linear forms in names and
small integers, perhaps with a call of two such forms (``b >= 16``, ``a >= b
+ 8``, ``mod(s, 128) == 0``), and a one-off query parses each of its texts
once.  The language read here: ``side CMP side (CMP side)*`` with ``side =
term ((+|-) term)*``, ``term = INT | NAME | INT*NAME | call | INT*call`` and
``call = FUNCTION(inner, inner)``, where an ``inner`` side has no calls; a
NAME is ASCII and neither a function's name nor ``_`` alone, an INT has at
most 18 digits, CMP is not ``!=``, and blanks may stand between any two
tokens.  Anything else (parentheses, unary signs, powers, ``//`` and ``%``,
other products, nested calls, non-ASCII text) is left to the general
tokenizer and parser.

One pass over the text's bytes builds the nodes as it goes: a regexp that
checks the text and a ``findall`` that splits it (the previous shortcut) cost
about ten times as much, a thousand instructions per character.  The result
is exactly the general parser's and lark's
(tests/facts/test_first_sight_scope.py compares all three on generated texts).

The blank characters and the functions' names come from the grammar, through
:class:`symshape._fastparse.FastParser`: nothing here repeats the grammar.
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["SimpleScanner"]

_ZERO: Final = 48  # '0'
_NINE: Final = 57
_PLUS: Final = 43
_MINUS: Final = 45
_STAR: Final = 42
_COMMA: Final = 44
_OPEN: Final = 40
_CLOSE: Final = 41
_LESS: Final = 60
_EQUAL: Final = 61
_GREATER: Final = 62
_MAX_DIGITS: Final = 18  # (int() of so few digits is digits_to_int's value)


def _name_start(c: int) -> bool:
    return (97 <= c <= 122) or (65 <= c <= 90) or c == 95


def _name_char(c: int) -> bool:
    return (97 <= c <= 122) or (65 <= c <= 90) or (48 <= c <= 57) or c == 95


class SimpleScanner:
    """Reads a simple comparison into the fast front end's raw result
    (``[node, (op, column), node, ...]``), or returns None for any other
    text (the general parser then reads it)."""

    def __init__(self, blanks: str, functions: dict[str, str], add: str, sub: str,
                 mul: str) -> None:
        """``blanks``: the ASCII characters of the grammar's ignored blank;
        ``functions``: each function's name -> the kind of its node;
        ``add``, ``sub``, ``mul``: the kinds of the operators' nodes."""
        self.blank = [False] * 128
        for ch in blanks:
            self.blank[ord(ch)] = True
        self.functions = dict(functions)
        self.add = add
        self.sub = sub
        self.mul = mul

    def scan(self, text: str) -> list[Any] | None:
        """The raw result of ``text``, or None where it is not simple."""
        if not text.isascii():
            return None
        return _Scan(self, text).comparison()


class _Scan:
    """One text being read: its bytes and the position in them."""

    def __init__(self, sc: SimpleScanner, text: str) -> None:
        self.sc = sc
        self.text = text
        self.b = text.encode("ascii")
        self.n = len(self.b)
        self.i = 0

    def peek(self) -> int:
        """The byte at the position (-1 at the end)."""
        return self.b[self.i] if self.i < self.n else -1

    def skip_blank(self) -> None:
        b, n, blank = self.b, self.n, self.sc.blank
        i = self.i
        while i < n and blank[b[i]]:
            i += 1
        self.i = i

    def expect(self, byte: int) -> bool:
        """Past blanks, ``byte`` and the blanks after it; False where it is
        not there."""
        self.skip_blank()
        if self.peek() != byte:
            return False
        self.i += 1
        self.skip_blank()
        return True

    def comparison(self) -> list[Any] | None:
        self.skip_blank()
        node = self.side(True)
        if node is None:
            return None
        items: list[Any] = [node]
        while True:
            self.skip_blank()
            op = self.comparator()
            if op is None:
                break
            items.append(op)
            self.skip_blank()
            node = self.side(True)
            if node is None:
                return None
            items.append(node)
        if len(items) < 3 or self.i != self.n:
            return None
        return items

    def comparator(self) -> tuple[str, int] | None:
        """``(op, column)`` for ``>= <= == > <`` at the position (not ``!=``)."""
        i = self.i
        c = self.peek()
        nxt = self.b[i + 1] if i + 1 < self.n else -1
        if nxt == _EQUAL and c in (_GREATER, _LESS, _EQUAL):
            self.i = i + 2
            return (">=" if c == _GREATER else "<=" if c == _LESS else "=="), i + 1
        if c == _GREATER:
            self.i = i + 1
            return ">", i + 1
        if c == _LESS:
            self.i = i + 1
            return "<", i + 1
        return None

    def side(self, calls: bool) -> Any:
        """``term ((+|-) term)*``; inside a call (``calls`` False) a term is
        ``INT``, ``NAME`` or ``INT*NAME``."""
        node = self.term(calls)
        if node is None:
            return None
        while True:
            start = self.i
            self.skip_blank()
            c = self.peek()
            if c != _PLUS and c != _MINUS:
                self.i = start  # (the blanks belong to what follows)
                return node
            self.i += 1
            self.skip_blank()
            term = self.term(calls)
            if term is None:
                return None
            node = (self.sc.add if c == _PLUS else self.sc.sub, node[1], node, term)

    def term(self, calls: bool) -> Any:
        c = self.peek()
        col = self.i + 1
        if _ZERO <= c <= _NINE:
            value = self.integer()
            if value is None:
                return None
            number = ("int", col, value)
            start = self.i
            if not self.expect(_STAR):
                self.i = start  # (the blanks belong to what follows)
                return number
            right = self.name_or_call(calls)
            if right is None:
                return None
            return (self.sc.mul, col, number, right)
        return self.name_or_call(calls)

    def integer(self) -> int | None:
        b, n = self.b, self.n
        start = i = self.i
        while i < n and _ZERO <= b[i] <= _NINE:
            i += 1
        if i - start > _MAX_DIGITS:
            return None
        self.i = i
        return int(self.text[start:i])

    def name_or_call(self, calls: bool) -> Any:
        """A name, or (where ``calls``) a call ``f(inner, inner)`` of a function
        ``f``; None for anything else (a function's name alone, ``_``)."""
        b, n = self.b, self.n
        start = i = self.i
        if i >= n or not _name_start(b[i]):
            return None
        i += 1
        while i < n and _name_char(b[i]):
            i += 1
        word = self.text[start:i]
        self.i = i
        kind = self.sc.functions.get(word)
        if kind is None:
            if word == "_":
                return None
            return ("var", start + 1, word)
        if not calls or not self.expect(_OPEN):
            return None
        x = self.side(False)
        if x is None or not self.expect(_COMMA):
            return None
        y = self.side(False)
        if y is None or not self.expect(_CLOSE):
            return None
        return (kind, start + 1, x, y)
