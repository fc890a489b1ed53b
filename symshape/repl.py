"""``symshape repl``: an interactive session that builds up a scope step by step.

A :class:`Session` holds the constraints declared so far and answers one line
at a time; :func:`run` drives a session from a stream.  With a terminal it
prompts and offers line editing and history (``readline``, history in
``~/.symshape_history`` or ``$SYMSHAPE_HISTORY``); with piped input it prints
only the answers, so sessions can be scripted.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

from symshape.errors import InconclusiveDimensionOperation, SymshapeError
from symshape.operators import Cmp
from symshape.present import (
    explanation_with_suggestions,
    format_bounds,
    progress_line,
    verdict_suggestions,
    verdict_summary,
)

if TYPE_CHECKING:
    from symshape.decision import Verdict

PROMPT = "symshape> "

HELP = """\
Commands:
  given C          add the constraint C, e.g. given a >= b + 8  (chains: 16 <= a <= b)
  CLAIM            decide a comparison for every valuation, e.g. a >= 9
  prove CLAIM      the same (use it when a claim starts with a command word)
  why              explain the last answer (certificate, counterexample or witness,
                   and the constraints that would settle an inconclusive claim)
  bounds E         lower and upper bounds of the expression E
  simplify E       the canonical form of E
  constraints      list the constraints, numbered
  forget N|C|all   drop constraint number N, the constraint written C, or all
  help             this text
  quit             leave (also exit, or end of input)
Every dimension variable is an integer >= 1; // and mod round toward -infinity.
Answers: proved, refuted, inconclusive (holds for some valuations, fails for
others; a hint names a constraint that settles it) or undecided (the work
budget ran out)."""

_COMMANDS = ("given", "prove", "why", "bounds", "simplify", "constraints", "forget", "help",
             "quit", "exit")
_NO_ARGUMENT = ("why", "constraints", "help", "quit", "exit")


def _squash(text: str) -> str:
    """``text`` without whitespace, to compare constraints as written."""
    return re.sub(r"\s+", "", text)


def _normal_form(text: str) -> tuple[str, ...]:
    """A canonical form of the constraint ``text``, to recognize it however it
    is written: each link of the chain as ``diff >= 0`` or ``diff == 0`` (the
    sign of an equality's ``diff`` fixed), in canonical form, sorted.

    The links are built in a scope without constraints: the session's scope
    would rewrite a constraint with its own equalities (``mod(s, 128) == 0``
    becomes ``0 == 0`` there), so every equality would look alike.

    Raises:
      SymshapeError: if ``text`` is not a well-formed constraint.
    """
    from symshape.scope import SymbolicScope
    from symshape.shapes import parse_comparison_in_scope
    forms = []
    for spelling, lhs, rhs in parse_comparison_in_scope(text, SymbolicScope()):
        op = Cmp.of(spelling)
        if op in (Cmp.LE, Cmp.LT):
            lhs, rhs, op = rhs, lhs, op.flipped
        if op is Cmp.GT:
            rhs, op = rhs + 1, Cmp.GE
        diff = lhs - rhs
        if op is Cmp.EQ:
            forms.append("== " + min(str(diff), str(-diff)))
        else:
            forms.append(f"{op.value} {diff}")
    return tuple(sorted(forms))


@dataclass
class Reply:
    """The answer to one line: ``output`` for stdout, ``error`` for stderr (each
    empty or without a trailing newline), and whether the session ends."""

    output: str = ""
    error: str = ""
    done: bool = False


class Session:
    """The state of an interactive session: its constraints and its last answer.

    Args:
      constraints: constraints to start with (as for ``--given``).
      budget: a scale of the default work budget of each decision (``--budget``).
      time_limit: seconds after which a decision gives up (``--time-limit``).

    Raises:
      SymshapeError: if the starting constraints are malformed or unsatisfiable.
    """

    def __init__(self, constraints: Iterable[str] = (), *, budget: float = 1.0,
                 time_limit: float | None = None) -> None:
        from symshape.scope import SymbolicScope
        self.budget = budget
        self.time_limit = time_limit
        self._constraints: list[str] = list(constraints)
        self._scope = SymbolicScope(self._constraints)
        self._last_verdict: Verdict | None = None
        self._last_suggestions: tuple[str, ...] = ()
        self.progress_stream: IO[str] | None = None
        """Where a slow decision shows its progress line (a terminal), or None."""

    @property
    def constraints(self) -> tuple[str, ...]:
        """The constraints in force, in the order they were given."""
        return tuple(self._constraints)

    def execute(self, line: str) -> Reply:
        """Answer one input line."""
        text = line.strip()
        if not text or text.startswith("#"):
            return Reply()
        word, rest = (text.split(None, 1) + [""])[:2]
        try:
            if text in ("quit", "exit"):
                return Reply(done=True)
            if text == "help":
                return Reply(HELP)
            if text == "why":
                return self._why()
            if text == "constraints":
                return Reply(self._listing())
            if rest and word == "given":
                return self._given(rest)
            if rest and word == "forget":
                return self._forget(rest)
            if rest and word == "bounds":
                return self._bounds(rest)
            if rest and word == "simplify":
                return self._simplify(rest)
            if rest and word == "prove":
                return self._prove(rest)
            if word in _NO_ARGUMENT and rest:
                return Reply(error=f"error: '{word}' takes no argument ({rest!r} is left "
                                   f"over); to decide a claim about a variable named "
                                   f"'{word}', write: prove {text}")
            if word in _COMMANDS:
                return Reply(error=f"error: '{word}' needs an argument; type help")
            return self._prove(text)
        except SymshapeError as err:
            return Reply(error=f"error: {err}")
        except InconclusiveDimensionOperation as err:
            return Reply(error=f"inconclusive: {err}")

    # -- commands -----------------------------------------------------------------
    def _set(self, constraints: list[str]) -> None:
        from symshape.scope import SymbolicScope
        scope = SymbolicScope(constraints)  # raises for bad or unsatisfiable input
        self._constraints, self._scope = constraints, scope

    def _given(self, text: str) -> Reply:
        from symshape.decision import prove
        if any(_squash(c) == _squash(text) for c in self._constraints):
            return Reply(f"already given: {text}")
        old_scope, had_any = self._scope, bool(self._constraints)
        self._set(self._constraints + [text])  # validates first: bad input is not added
        implied = had_any and bool(prove(text, scope=old_scope))
        n = len(self._constraints)
        note = "  (already implied by the others)" if implied else ""
        return Reply(f"[{n}] {text}{note}")

    def _forget(self, what: str) -> Reply:
        if what == "all":
            self._set([])
            return Reply("forgot all constraints")
        if not self._constraints:
            return Reply(error="error: there are no constraints to forget")
        if what.isdigit():
            i = int(what)
            if not 1 <= i <= len(self._constraints):
                return Reply(error=f"error: no constraint number {i} (the constraints are "
                                   f"numbered 1 to {len(self._constraints)}; 'constraints' "
                                   "lists them)")
            index = i - 1
        else:
            found = self._find(what)
            if found is None:
                return Reply(error=f"error: no constraint {what!r} among the constraints; "
                                   "'constraints' lists them")
            index = found
        dropped = self._constraints[index]
        self._set(self._constraints[:index] + self._constraints[index + 1:])
        return Reply(f"forgot {dropped}")

    def _find(self, what: str) -> int | None:
        """The index of the constraint ``what`` denotes: written the same up to
        spaces, or the same once normalized (``mod(s, 128)==0`` and
        ``s % 128 == 0``, ``a >= b`` and ``b <= a``)."""
        for k, c in enumerate(self._constraints):
            if _squash(c) == _squash(what):
                return k
        wanted = _normal_form(what)  # raises, with the parser's caret, for bad input
        for k, c in enumerate(self._constraints):
            if _normal_form(c) == wanted:
                return k
        return None

    def _listing(self) -> str:
        if not self._constraints:
            return "no constraints (every variable is >= 1)"
        return "\n".join(f"[{i}] {c}" for i, c in enumerate(self._constraints, start=1))

    def _bounds(self, text: str) -> Reply:
        from symshape.ops import bounds
        from symshape.shapes import parse_expr_in_scope
        e = parse_expr_in_scope(text, self._scope)
        with self._progress(f"bounding {' '.join(text.split())}") as line:
            lo, hi = bounds(e, budget=self.budget, time_limit=self.time_limit, progress=line)
        return Reply(format_bounds(str(e), lo, hi, written=text))

    def _progress(self, label: str) -> contextlib.AbstractContextManager[Any]:
        if self.progress_stream is None:
            return contextlib.nullcontext(None)
        return progress_line(self.progress_stream, label)

    def _simplify(self, text: str) -> Reply:
        from symshape.shapes import parse_expr_in_scope
        return Reply(str(parse_expr_in_scope(text, self._scope)))

    def _prove(self, claim: str) -> Reply:
        from symshape import parsing
        from symshape.decision import prove
        from symshape.errors import ParseError
        try:
            parsing.parse_comparison(claim)
        except ParseError as not_a_comparison:
            try:
                parsing.parse_expr(claim)
            except ParseError:
                raise not_a_comparison from None  # the caret of the comparison's parse
            return Reply(error=f"error: {claim!r} is an expression, not a claim: compare it "
                               f"(e.g. {claim} >= 1), or ask 'simplify {claim}' or "
                               f"'bounds {claim}'")
        start = time.monotonic()
        with self._progress(f"proving {' '.join(claim.split())}") as line:
            verdict = prove(claim, scope=self._scope, budget=self.budget,
                            time_limit=self.time_limit, progress=line)
            # More proofs (computed now: keep the line up), unless the time is spent.
            out_of_time = self.time_limit is not None and \
                time.monotonic() - start >= self.time_limit
            suggestions = () if out_of_time else verdict_suggestions(verdict)
        self._last_verdict = verdict
        self._last_suggestions = suggestions
        summary = verdict_summary(verdict)
        if suggestions:
            more = len(suggestions) - 1
            others = f" (or {more} other{'s' if more > 1 else ''}: why)" if more else \
                " (why for more)"
            summary += f"\nhint: add '{suggestions[0]}' to settle it{others}"
        return Reply(summary)

    def _why(self) -> Reply:
        if self._last_verdict is None:
            return Reply(error="error: no claim asked yet; 'why' explains the last answer")
        return Reply(explanation_with_suggestions(self._last_verdict, how="given",
                                                  suggestions=self._last_suggestions))


# -- the read-eval-print loop -------------------------------------------------------


def _history_path() -> str:
    return os.environ.get("SYMSHAPE_HISTORY") or os.path.join(
        os.path.expanduser("~"), ".symshape_history")


def _setup_readline() -> Any:
    """Enable line editing, history and command completion; ``None`` where the
    platform has no readline (the session then works without them)."""
    try:
        import readline
    except ImportError:
        return None
    with contextlib.suppress(OSError, ValueError):  # no history yet, or unreadable
        readline.read_history_file(_history_path())
    readline.set_history_length(1000)

    def complete(prefix: str, state: int) -> str | None:
        hits = [c + " " for c in _COMMANDS if c.startswith(prefix)]
        return hits[state] if state < len(hits) else None

    readline.set_completer(complete)
    readline.parse_and_bind("tab: complete")
    return readline


def _save_history(readline: Any) -> None:
    with contextlib.suppress(OSError):  # read-only home and the like: a convenience
        readline.write_history_file(_history_path())


def _read_lines(stdin: IO[str], stdout: IO[str], prompt: str) -> Iterator[str]:
    """Lines of ``stdin``; with a ``prompt``, each is asked for after printing it."""
    if prompt and stdin is sys.stdin:
        # input() is what readline's line editing hooks into.
        while True:
            try:
                yield input(prompt)
            except EOFError:
                print(file=stdout)
                return
            except KeyboardInterrupt:  # Ctrl-C drops the current line, like Python's REPL
                print("\nKeyboardInterrupt", file=stdout)
    while True:
        if prompt:
            stdout.write(prompt)
            stdout.flush()
        line = stdin.readline()
        if not line:
            if prompt:
                print(file=stdout)
            return
        yield line


def run(*, constraints: Iterable[str] = (), stdin: IO[str] | None = None,
        stdout: IO[str] | None = None, stderr: IO[str] | None = None, echo: bool = False,
        interactive: bool | None = None, budget: float = 1.0,
        time_limit: float | None = None) -> int:
    """Run a session until ``quit`` or end of input; return the exit status.

    Args:
      constraints: constraints to start with.
      stdin: the input stream (default ``sys.stdin``).
      stdout: where answers go (default ``sys.stdout``).
      stderr: where errors go (default ``sys.stderr``).
      echo: print each input line, after ``> ``, before its answer.
      interactive: prompt and use readline; by default when stdin is a terminal.
      budget: a scale of the default work budget of each decision.
      time_limit: seconds after which a decision gives up (undecided).

    Returns:
      0, or 3 when a non-interactive session met bad input (so a script fails).
    """
    stdin = sys.stdin if stdin is None else stdin
    stdout = sys.stdout if stdout is None else stdout
    stderr = sys.stderr if stderr is None else stderr
    if interactive is None:
        interactive = stdin.isatty()
    try:
        session = Session(constraints, budget=budget, time_limit=time_limit)
    except SymshapeError as err:
        print(f"symshape: error: {err}", file=stderr)
        return 3
    readline = None
    if interactive:
        from symshape import __version__
        print(f"symshape {__version__}: ask whether claims about dimensions always hold. "
              "Type help for the commands, quit to leave.", file=stdout)
        if session.constraints:
            print(session.execute("constraints").output, file=stdout)
        # input() reads sys.stdin, so line editing only applies to the real stdin.
        if stdin is sys.stdin:
            readline = _setup_readline()
    had_error = False
    if interactive:
        with contextlib.suppress(AttributeError, ValueError):
            if stderr.isatty():
                session.progress_stream = stderr
    try:
        for line in _read_lines(stdin, stdout, PROMPT if interactive else ""):
            if echo:
                print("> " + line.rstrip("\n"), file=stdout)
                stdout.flush()  # shown while a slow answer is computed
            try:
                reply = session.execute(line)
            except KeyboardInterrupt:
                if not interactive:
                    raise  # a script is stopped as a whole
                # A person gave up on a slow question: keep the session.
                reply = Reply(error="interrupted")
            if reply.output:
                print(reply.output, file=stdout)
            # stdout is buffered on a pipe and stderr is not: flush before each
            # error so that a merged transcript shows the echoed line first.
            stdout.flush()
            if reply.error:
                had_error = True
                print(reply.error, file=stderr)
                stderr.flush()
            if reply.done:
                break
    finally:
        if readline is not None:
            _save_history(readline)
    return 3 if had_error and not interactive else 0


__all__ = ["HELP", "PROMPT", "Reply", "Session", "run"]
