"""How answers are shown: the text and JSON of verdicts, bounds, valuations,
errors and progress, shared by the command line and the REPL (which both
build on this module, so neither imports the other's internals)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from typing import IO, TYPE_CHECKING, Any

from symshape.algebra.bounds import Bound, is_finite
from symshape.decision.verdict import BUDGET_RAN_OUT, format_valuation
from symshape.util import int_to_digits

if TYPE_CHECKING:
    from symshape.decision import Verdict

EXIT_OK = 0
"""Exit status: the claim is proved, or the command succeeded."""
EXIT_REFUTED = 1
"""Exit status: the claim is refuted (``check``: the shapes do not match the specs)."""
EXIT_INCONCLUSIVE = 2
"""Exit status: the claim holds for some valuations and fails for others."""
EXIT_BAD_INPUT = 3
"""Exit status: malformed input, unsatisfiable constraints or a usage error."""
EXIT_UNDECIDED = 4
"""Exit status: the work budget or the time limit ran out before the claim was decided."""
EXIT_INTERRUPTED = 130
"""Exit status: interrupted with Ctrl-C (128 + SIGINT, as a shell reports it)."""

PROGRESS_DELAY = 1.0
"""Seconds a decision runs before its progress line appears (quick answers show none)."""

class UsageError(Exception):
    """A command-line usage error (raised instead of argparse's ``sys.exit(2)``).

    ``reason`` is argparse's message alone; ``str()`` adds the usage lines.
    """

    def __init__(self, reason: str, usage: str = "", prog: str = "symshape") -> None:
        self.reason = reason
        super().__init__(f"{usage.rstrip()}\n{prog}: error: {reason}" if usage else reason)


def json_bound(b: Bound) -> int | None:
    """A bound for JSON: an int, or ``None`` for an infinite bound."""
    return int(b) if is_finite(b) else None


def format_bounds(text: str, lo: Bound, hi: Bound, written: str | None = None) -> str:
    """``lo <= text <= hi``, leaving out infinite sides.

    A constant (``lo == hi``) is shown as ``written is always 0``, where
    ``written`` is the expression as the user wrote it (used when the canonical
    ``text`` is the constant itself, which would say nothing), or as the bare
    number when that is what was written (``7``).
    """
    if lo == hi:
        shown = " ".join((written if written is not None and _is_int_text(text)
                          else text).split())
        return _int(lo) if _is_int_text(shown) else f"{shown} is always {_int(lo)}"
    has_lo = is_finite(lo)
    has_hi = is_finite(hi)
    if has_lo and has_hi:
        return f"{_int(lo)} <= {text} <= {_int(hi)}"
    if has_lo:
        return f"{text} >= {_int(lo)}"
    if has_hi:
        return f"{text} <= {_int(hi)}"
    return f"{text} is unbounded in both directions"


def _int(b: Bound) -> str:
    return int_to_digits(int(b))


def _is_int_text(text: str) -> bool:
    body = text.strip()
    return body.lstrip("-").isdigit()


def verdict_suggestions(verdict: Verdict) -> tuple[str, ...]:
    """The constraints suggested to settle an inconclusive or undecided claim
    (weakest first; empty for proved and refuted claims, which need none)."""
    if str(verdict.status) not in ("inconclusive", "undecided"):
        return ()  # computing them costs proofs: only ask when they can help
    return tuple(verdict.suggestions)  # computed on first access


def format_suggestions(suggestions: Sequence[str], how: str = "--given") -> str:
    """The ``Suggested constraints:`` block (empty text when there are none);
    ``how`` is the way to add a constraint (``--given``, or the REPL's ``given``)."""
    if not suggestions:
        return ""
    lines = [f"Suggested constraints (each one, added with {how}, makes the claim proved; "
             "weakest first):"]
    lines += [f"  {c}" for c in suggestions]
    return "\n".join(lines)


def explanation_with_suggestions(verdict: Verdict, how: str = "--given",
                                 suggestions: Sequence[str] | None = None) -> str:
    """``verdict.explain()`` followed by the suggested constraints, if any
    (``suggestions``, or by default the verdict's)."""
    text = verdict.explain()
    if suggestions is None:
        suggestions = verdict_suggestions(verdict)
    block = format_suggestions(suggestions, how)
    # The explanation may come to list them itself: never show them twice.
    if block and "Suggested constraints" not in text:
        text += "\n" + block
    return text


def verdict_summary(verdict: Verdict) -> str:
    """One line: the status, with an example valuation when there is one."""
    status = str(verdict.status)
    if status == "undecided":
        # Never "holds for ...": an undecided claim may well be true everywhere.
        return f"undecided ({verdict.reason or BUDGET_RAN_OUT})"
    if status == "refuted" and verdict.counterexample:
        return (f"refuted: false for every valuation, e.g. "
                f"{format_valuation(verdict.counterexample)}")
    if status == "inconclusive":
        parts = []
        if verdict.witness:
            parts.append(f"holds for {format_valuation(verdict.witness)}")
        if verdict.counterexample:
            parts.append(f"fails for {format_valuation(verdict.counterexample)}")
        if parts:
            return "inconclusive: " + "; ".join(parts)
    return status


def verdict_to_json(claim: str, constraints: Sequence[str], verdict: Verdict,
                    suggestions: Sequence[str] | None = None) -> dict[str, Any]:
    """A JSON-serializable description of a verdict.

    ``suggestions`` are the suggested constraints (by default the verdict's).

    ``certificate`` is ``None`` or an object with ``polarity`` (what it proves:
    ``"proved"`` or ``"refuted"``), ``checked`` (the result of re-verifying it
    independently), ``constraints_used`` and ``steps`` (the proof as text).
    """
    cert = verdict.certificate
    cert_json = None if cert is None else {
        "polarity": cert.polarity,
        "checked": cert.check(),
        "constraints_used": cert.constraints_used(),
        "steps": cert.explain(),
    }
    return {
        "claim": claim,
        "constraints": list(constraints),
        "status": str(verdict.status),
        "counterexample": None if verdict.counterexample is None else dict(
            verdict.counterexample),
        "witness": None if verdict.witness is None else dict(verdict.witness),
        "reason": verdict.reason or None,
        "certificate": cert_json,
        "suggestions": list(verdict_suggestions(verdict) if suggestions is None
                            else suggestions),
        "explanation": verdict.explain(),
    }


def status_exit_code(status: str) -> int:
    """The exit status for a verdict status."""
    return {"proved": EXIT_OK, "refuted": EXIT_REFUTED, "inconclusive": EXIT_INCONCLUSIVE,
            "undecided": EXIT_UNDECIDED}[str(status)]


def error_to_json(err: BaseException, exit_status: int, command: str | None = None
                  ) -> dict[str, Any]:
    """The JSON object ``--json`` prints for an error.

    ``error`` has ``kind`` (the exception's class name, e.g. ``"ParseError"``,
    or ``"UsageError"``), ``message`` (one paragraph, without the caret
    drawing), ``column`` (1-based, or ``null``), ``text`` (the input the column
    refers to, or ``null``), ``expected`` (what would have been accepted there,
    or ``null``) and ``details`` (the full message as printed without
    ``--json``).
    """
    from symshape.errors import ParseError
    full = str(err)
    text: str | None = None
    expected: str | None = None
    if isinstance(err, ParseError):
        message, column = err.reason, err.column
        text = err.text or None
        expected = err.expected or None
    elif isinstance(err, UsageError):
        message, column = err.reason, None
    else:
        message, column, text, expected = full, None, None, None
    if isinstance(err, KeyboardInterrupt):
        message = full = "interrupted"
    return {
        "command": command,
        "error": {"kind": type(err).__name__, "message": message, "column": column,
                  "text": text, "expected": expected, "details": full},
        "exit_status": exit_status,
    }


class ProgressLine:
    """``progress(elapsed, what)`` for the decision procedure: once a decision
    has run for :data:`PROGRESS_DELAY` seconds, a line ``proving a >= b: 1.4 s
    (what is being tried)`` on ``stream``, rewritten in place; :meth:`clear`
    erases it.  Used only when ``stream`` is a terminal (a log gets no
    carriage-return noise)."""

    def __init__(self, stream: IO[str], label: str) -> None:
        self.stream = stream
        self.label = label
        self._width = 0  # length of the line on screen (0: nothing shown)

    def __call__(self, elapsed: float, what: str) -> None:
        if elapsed < PROGRESS_DELAY:
            return
        line = f"{self.label}: {elapsed:.1f} s ({what}; Ctrl-C to stop)"
        width = _terminal_width(self.stream)
        if len(line) > width - 1:
            line = line[:max(width - 4, 10)] + "..."
        pad = " " * max(self._width - len(line), 0)  # cover a longer earlier line
        self.stream.write("\r" + line + pad)
        self.stream.flush()
        self._width = len(line)

    def clear(self) -> None:
        """Erase the line, if one is shown."""
        if self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0


def _terminal_width(stream: IO[str]) -> int:
    try:
        return os.get_terminal_size(stream.fileno()).columns or 80
    except (OSError, ValueError, AttributeError):
        return 80


@contextlib.contextmanager
def progress_line(stream: IO[str], label: str) -> Iterator[ProgressLine | None]:
    """A :class:`ProgressLine` on ``stream`` if it is a terminal, else ``None``;
    the line is erased on leaving (also on Ctrl-C)."""
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    if not tty:
        yield None
        return
    line = ProgressLine(stream, label)
    try:
        yield line
    finally:
        line.clear()


# -- subcommands ------------------------------------------------------------------


__all__ = [
    "EXIT_BAD_INPUT", "EXIT_INCONCLUSIVE", "EXIT_INTERRUPTED", "EXIT_OK", "EXIT_REFUTED",
    "EXIT_UNDECIDED", "PROGRESS_DELAY", "ProgressLine", "UsageError", "error_to_json",
    "explanation_with_suggestions", "format_bounds", "format_suggestions", "format_valuation",
    "json_bound", "progress_line", "status_exit_code", "verdict_suggestions", "verdict_summary",
    "verdict_to_json",
]
