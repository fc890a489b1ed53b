"""Exception types of symshape.

Every error caused by bad input is a :class:`ValueError` subclass, so callers can
catch one type; :class:`InconclusiveDimensionOperation` is separate because it is
not bad input: the question is well formed but cannot be decided.
"""

from __future__ import annotations

from collections.abc import Callable

from symshape.echo import echo


class SymshapeError(ValueError):
    """Base class of all bad-input errors raised by symshape."""


class ArgumentError(SymshapeError, TypeError):
    """An argument of a symshape function has the wrong type or an impossible value.

    The message names the argument (``budget=``, ``constraints=``, ``like=``).  It is
    a :class:`TypeError` as well as a :class:`SymshapeError`, so code that catches
    either keeps working.
    """


class ParseError(SymshapeError):
    """A spec, expression or constraint could not be parsed.

    ``text`` is the input, ``column`` the 1-based column of the offending
    character (or ``None``) and ``expected`` a short description of what would
    have been accepted there. The message echoes the line of ``text`` that holds
    the column, clipped to a window around it, with a caret under the column.
    """

    def __init__(self, message: str, *, text: str = "", column: int | None = None,
                 expected: str = "") -> None:
        self.text = text
        self.column = column
        self.expected = expected
        self.reason = message
        if column is not None and text:
            full = f"{message} at column {column}\n{echo(text, column)}"
        elif text:
            full = f"{message}\n{echo(text)}"
        else:
            full = message
        if expected:
            full += f"\nexpected {expected}"
        super().__init__(full)


class ScopeMismatchError(SymshapeError):
    """Expressions from different :class:`~symshape.SymbolicScope` objects were mixed."""


class UnsatisfiableConstraintsError(SymshapeError):
    """The constraints of a scope admit no valuation."""


class DivisionByZeroRiskError(SymshapeError):
    """A symbolic divisor could not be proved to be non-zero."""


class UnknownDimensionError(SymshapeError, KeyError):
    """A dimension variable has no value in an evaluation environment."""

    def __str__(self) -> str:  # KeyError would repr() the message otherwise
        return str(self.args[0]) if self.args else ""


class UnsolvableSpecsError(SymshapeError):
    """Some dimension variable of a shape check cannot be computed from the input shapes."""


class ShapeMismatchError(SymshapeError):
    """Concrete shapes do not match the symbolic specs they were checked against."""


class LazyText:
    """A message made when first read (then kept).

    The message of an inconclusive comparison shows a valuation where the
    comparison holds and one where it fails, which takes searches to find;
    code that catches the error and goes on (tracing does, all the time)
    never reads it, so it is made only when read.
    """

    __slots__ = ("_make", "_text")

    def __init__(self, make: Callable[[], str]) -> None:
        self._make: Callable[[], str] | None = make
        self._text = ""

    def __str__(self) -> str:
        make = self._make
        if make is not None:
            self._text = make()
            self._make = None
        return self._text

    def __repr__(self) -> str:
        return repr(str(self))

    def __reduce__(self) -> tuple[type[str], tuple[str]]:
        return str, (str(self),)  # a copy is the text (what it makes may not pickle)


class InconclusiveDimensionOperation(Exception):
    """A comparison of symbolic dimensions holds for some valuations and fails for others,
    or symshape could not decide it within its work budget.

    The message may be a :class:`LazyText`: ``str(err)`` makes it on first use.
    """

    def __str__(self) -> str:
        if len(self.args) == 1 and type(self.args[0]) is LazyText:
            self.args = (str(self.args[0]),)
        return super().__str__()


class ExpressionTooLargeError(SymshapeError):
    """An expression (or the work to build it) exceeds symshape's size limits:
    shapes never need it, and it would take unbounded time and memory."""
