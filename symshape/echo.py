"""Echo a piece of input text under an error message, with a caret under one column.

Inputs can be long (a generated 10 KB constraint) or span lines, so the echo
shows only the line that holds the column, clipped to a window around it, with
``...`` where text was cut; the caret stays under the right character, also
after wide (East Asian) characters, combining marks and tabs.
"""

from __future__ import annotations

import unicodedata
from typing import Final

__all__ = ["ECHO_WIDTH", "clip", "echo"]

ECHO_WIDTH: Final = 76
"""Most characters of input shown in one echo line (not counting the ``...`` marks)."""

_BEFORE: Final = 40  # characters kept before the column when a line is clipped
_CUT: Final = "..."


def clip(text: str, width: int = 80) -> str:
    """``text`` for a message, cut to ``width`` characters with ``...``."""
    return text if len(text) <= width else text[:width - len(_CUT)] + _CUT


def _width(char: str) -> int:
    """Terminal columns taken by ``char``."""
    if char < "\u0300":  # ASCII and Latin-1: the common case, one column each
        return 1
    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def _printable(text: str) -> str:
    """``text`` with tabs and the other blanks that move a terminal's cursor
    (``\\r``, ``\\f``, ``\\v``) shown as one space each."""
    return text.translate(_BLANKS)


_BLANKS: Final = str.maketrans("\t\r\f\v", "    ")


def echo(text: str, column: int | None = None, *, indent: str = "  ") -> str:
    """The lines that show ``text`` under an error message.

    ``column`` is a 1-based character offset into the whole ``text`` (or None
    for no caret). Returns one line (the text) or two (the text and a caret
    line), each starting with ``indent``. A text with newlines shows only the
    line holding the column, prefixed with its line number.
    """
    offset = None if column is None else max(0, min(column - 1, len(text)))
    label = ""
    line_start = 0
    if "\n" in text:
        at = offset if offset is not None else 0
        line_start = text.rfind("\n", 0, at) + 1
        line_end = text.find("\n", at)
        line = text[line_start:line_end if line_end >= 0 else len(text)]
        label = f"line {text.count(chr(10), 0, line_start) + 1}: "
    else:
        line = text
    rel = None if offset is None else offset - line_start
    start, end = 0, len(line)
    if len(line) > ECHO_WIDTH:
        anchor = rel if rel is not None else 0
        start = max(0, min(anchor - _BEFORE, len(line) - ECHO_WIDTH))
        end = start + ECHO_WIDTH
    shown = (_CUT if start > 0 else "") + _printable(line[start:end]) \
        + (_CUT if end < len(line) else "")
    out = f"{indent}{label}{shown}"
    if rel is None:
        return out
    before = (_CUT if start > 0 else "") + line[start:start + max(0, rel - start)]
    pad = len(label) + sum(_width(c) for c in before)
    return f"{out}\n{indent}{' ' * pad}^"
