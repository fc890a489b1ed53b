"""Small utilities every layer uses: integers to and from their digits
without Python's limit on digits, a product of integers that a signal may
interrupt, and bounded caches of recent entries.

Part of the compiled core (``hatch_build.COMPILED``): the scope's and the
parser's caches run here on every query.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, Final, Generic, TypeVar

__all__ = ["RecentTable", "TextCache", "digits_to_int", "int_mul", "int_to_digits"]

_DIGIT: Final = 1 << 30  # CPython's digit: a one-digit product never checks for signals


def int_mul(a: int, b: int) -> int:
    """``a * b``, where a signal handler that raises during the product
    raises here.

    CPython's product of ints of more than one digit runs pending signal
    handlers, and in the compiled core a failed product of two typed ints
    aborts the process ("fatal: out of memory": mypyc treats any failure
    of that operation as one).  One-digit operands are multiplied without
    that check; larger ones go through the generic product, whose error is
    an exception.  For the evaluators that meet large values (valuations
    at 2^40, big constants)."""
    if -_DIGIT < a < _DIGIT and -_DIGIT < b < _DIGIT:
        return a * b
    return _generic_mul(a, b)


def _generic_mul(a: Any, b: Any) -> Any:
    return a * b

_CHUNK: Final = 10 ** 600  # digits below the smallest limit Python allows (640)


def int_to_digits(n: int) -> str:
    """``str(n)``, also above ``sys.get_int_max_str_digits()`` (the inverse
    of :func:`digits_to_int`: printing a constant that was read must work)."""
    if -_CHUNK < n < _CHUNK:
        return str(n)
    limit = sys.get_int_max_str_digits()
    if limit == 0 or n.bit_length() * 0.30103 < limit - 1:
        return str(n)
    sign, n = ("-", -n) if n < 0 else ("", n)
    parts: list[str] = []
    while n >= _CHUNK:
        n, r = divmod(n, _CHUNK)
        parts.append(f"{r:0600d}")
    parts.append(str(n))
    return sign + "".join(reversed(parts))


def digits_to_int(digits: str) -> int:
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


K = TypeVar("K")
V = TypeVar("V")
_ABSENT: Final[Any] = object()  # no entry


class RecentTable(Generic[K, V]):
    """The entries put most recently: between ``size`` and ``2 * size`` of
    them.  Two generations of plain dicts: a hit in the older one moves the
    entry to the newer one, and when the newer one is full it becomes the
    older one (the oldest entries are dropped at once, in O(1), where
    dropping them one by one from the front of a dict slows every later
    drop).  No lock: a race between threads at worst drops an entry, which a
    cache only recomputes."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._new: dict[K, V] = {}
        self._old: dict[K, V] = {}

    def get(self, key: K, default: Any = None) -> Any:
        """The entry of ``key``, or ``default``."""
        got = self._new.get(key, _ABSENT)
        if got is _ABSENT:
            got = self._old.get(key, _ABSENT)
            if got is _ABSENT:
                return default
            self.put(key, got)  # keep it among the recent entries
        return got

    def put(self, key: K, value: V) -> None:
        """Set the entry of ``key``."""
        new = self._new
        new[key] = value
        if len(new) >= self._size:
            self._old = new
            self._new = {}

    def clear(self) -> None:
        """Drop every entry."""
        self._new = {}
        self._old = {}


class TextCache:  # (holds its table: a compiled subclass of a generic class crashed at import)
    """``parse(text)`` remembered for texts parsed at least twice, among the
    texts parsed most recently (a :class:`RecentTable` of ``size``).

    Not ``functools.lru_cache``, which keeps every text's result: with new
    texts at every call (a fresh export per model, variables named anew),
    parse trees (tuples the garbage collector tracks until it has looked at
    them once per level of nesting) live long enough to reach its oldest
    generation, where each one counts toward the next full collection.  Here a
    text is remembered first by itself (a string, which the collector never
    tracks), and its result only when it comes back.  Exceptions are not
    remembered (a malformed text is parsed again, and raises again).
    """

    def __init__(self, parse: Callable[[str], Any], size: int) -> None:
        self._parse = parse
        self.table: RecentTable[str, Any] = RecentTable(size)  # text -> result; None: seen once

    def __call__(self, text: str) -> Any:
        got = self.table.get(text, _ABSENT)
        if got is not None and got is not _ABSENT:
            return got
        result = self._parse(text)
        self.table.put(text, result if got is None else None)  # its result the second time
        return result

    def clear(self) -> None:
        """Forget every text."""
        self.table.clear()
