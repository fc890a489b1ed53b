"""The ``symshape`` command line.

Subcommands::

    symshape prove CLAIM [--given C ...] [--budget X] [--time-limit S] [--json]
    symshape bounds EXPR [--given C ...] [--budget X] [--time-limit S] [--json]
    symshape simplify EXPR [--given C ...] [--json]
    symshape check SPEC ... --shape 3,8 ... [--given C ...] [--json]
    symshape stablehlo SPEC ... [--dtype f32 ...] [--given C ...] [--json]
    symshape repl [--given C ...] [--echo]

Exit status:

* 0 -- proved (or, for the other commands, success);
* 1 -- refuted (for ``check``: shapes that do not match the specs);
* 2 -- inconclusive: the claim holds for some valuations and fails for others
  (both are shown);
* 3 -- bad input: a parse error, unsatisfiable constraints or a usage error;
* 4 -- undecided: the work budget (``--budget``) or the time limit
  (``--time-limit``) ran out before the claim was decided.  Not evidence either
  way; a larger budget or a constraint may settle it.

Bad input is reported on stderr with the parser's caret-marked position and
never with a Python traceback; with ``--json`` it is a JSON object on stdout
instead (``{"error": {"kind", "message", "column", ...}, "exit_status"}``),
with the same exit status.  On a terminal (stderr a TTY), a decision that takes
longer than a second shows a progress line on stderr, erased when it ends.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import IO, TYPE_CHECKING, Any, NoReturn

from symshape.errors import InconclusiveDimensionOperation, ShapeMismatchError, SymshapeError
from symshape.present import (
    EXIT_BAD_INPUT,
    EXIT_INCONCLUSIVE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_REFUTED,
    EXIT_UNDECIDED,
    PROGRESS_DELAY,
    ProgressLine,
    UsageError,
    error_to_json,
    explanation_with_suggestions,
    format_bounds,
    format_suggestions,
    format_valuation,
    json_bound,
    progress_line,
    status_exit_code,
    verdict_suggestions,
    verdict_to_json,
)
from symshape.repl import run as run_repl

if TYPE_CHECKING:  # the decision procedure is imported only by the commands that use it
    pass

class _ArgumentParser(argparse.ArgumentParser):
    """argparse exits with status 2 on usage errors; here 2 means "inconclusive",
    so usage errors are raised and turned into status 3 by :func:`main`."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message, self.format_usage(), self.prog)


def _print_json(obj: Any, out: IO[str]) -> None:
    # JSON numbers have no size limit, but json writes ints with int.__repr__,
    # which Python refuses beyond 4300 digits by default: lift the limit for
    # this one call (constants may have up to parsing.MAX_INT_DIGITS digits,
    # and values at valuations more).
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        text = json.dumps(obj, indent=2)
    finally:
        sys.set_int_max_str_digits(limit)
    print(text, file=out)


def _limits(args: argparse.Namespace, progress: ProgressLine | None) -> dict[str, Any]:
    """The keyword arguments of prove/bounds for ``--budget`` and ``--time-limit``."""
    return {"budget": args.budget, "time_limit": args.time_limit, "progress": progress}


def _undecided_hint(verdict: Any) -> str:
    """What may settle an undecided claim, in the command's terms: more
    ``--budget`` only where the budget ran out."""
    from symshape.decision.verdict import undecided_advice
    advice = undecided_advice(verdict.reason, budget="a larger --budget (e.g. --budget 4)",
                              time_limit="a longer --time-limit")
    return advice[0].upper() + advice[1:]


def _cmd_prove(args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    from symshape.decision import prove
    start = time.monotonic()
    with progress_line(err, f"proving {' '.join(args.claim.split())}") as line:
        verdict = prove(args.claim, constraints=args.given, **_limits(args, line))
        # The suggestions cost more proofs (computed on first access): keep the
        # line up meanwhile, and skip them once the time limit is spent.
        out_of_time = args.time_limit is not None and \
            time.monotonic() - start >= args.time_limit
        suggestions = () if out_of_time else verdict_suggestions(verdict)
    if args.json:
        _print_json(verdict_to_json(args.claim, args.given, verdict, suggestions), out)
    else:
        text = explanation_with_suggestions(verdict, suggestions=suggestions)
        if out_of_time and str(verdict.status) in ("inconclusive", "undecided"):
            text += "\nNo constraints are suggested: the time limit ran out."
        if str(verdict.status) == "undecided":
            text += "\n" + _undecided_hint(verdict)
        print(text, file=out)
    return status_exit_code(verdict.status)


def _cmd_bounds(args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    from symshape.ops import bounds
    from symshape.scope import SymbolicScope
    from symshape.shapes import parse_expr_in_scope
    e = parse_expr_in_scope(args.expr, SymbolicScope(args.given))
    with progress_line(err, f"bounding {' '.join(args.expr.split())}") as line:
        lo, hi = bounds(e, **_limits(args, line))
    if args.json:
        _print_json({"expression": args.expr, "canonical": str(e), "constraints": args.given,
                     "lower": json_bound(lo), "upper": json_bound(hi),
                     "constant": lo == hi, "value": int(lo) if lo == hi else None}, out)
    else:
        print(format_bounds(str(e), lo, hi, written=args.expr), file=out)
    return EXIT_OK


def _cmd_simplify(args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    from symshape.algebra.dimexpr import DimExpr
    from symshape.scope import SymbolicScope
    from symshape.shapes import parse_expr_in_scope
    e = parse_expr_in_scope(args.expr, SymbolicScope(args.given))
    if args.json:
        free = sorted(e.free_vars) if isinstance(e, DimExpr) else []
        _print_json({"expression": args.expr, "canonical": str(e), "constraints": args.given,
                     "constant": isinstance(e, int), "variables": free}, out)
    else:
        print(e, file=out)
    return EXIT_OK


def parse_shape(text: str) -> tuple[int, ...]:
    """``"3,8"`` -> ``(3, 8)``; ``""`` or ``"()"`` is the rank-0 shape."""
    body = text.strip()
    if body.startswith("(") and body.endswith(")"):
        body = body[1:-1]
    items = [s.strip() for s in body.split(",")]
    if items and items[-1] == "" and len(items) > 1:
        items.pop()  # "3," is the rank-1 shape (3,)
    if items == [""]:
        return ()
    dims = []
    for i, s in enumerate(items):
        if not s.isdigit():
            raise SymshapeError(
                f"invalid --shape {text!r}: dimension {i} is {s!r}, expected a "
                "non-negative integer (write shapes as comma-separated integers, e.g. 3,8)")
        dims.append(int(s))
    return tuple(dims)


def _cmd_check(args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    from symshape.shapecheck import ShapeCheck
    shapes = [parse_shape(s) for s in args.shape]
    if len(shapes) != len(args.specs):
        raise SymshapeError(
            f"{len(args.specs)} spec(s) but {len(shapes)} --shape option(s): give one "
            "--shape per spec, in the same order")
    check = ShapeCheck(args.specs, constraints=args.given)
    try:
        values = check.solve(shapes)
    except ShapeMismatchError as err:
        if args.json:
            _print_json({"specs": args.specs, "shapes": [list(s) for s in shapes],
                         "constraints": args.given, "ok": False, "error": str(err)}, out)
        else:  # the answer to the question asked, so stdout, like "refuted"
            print(err, file=out)
        return EXIT_REFUTED
    if args.json:
        _print_json({"specs": args.specs, "shapes": [list(s) for s in shapes],
                     "constraints": args.given, "ok": True, "values": dict(values)}, out)
    elif values:
        for name, v in values.items():
            print(f"{name} = {v}", file=out)
    else:
        print("ok (no dimension variables)", file=out)
    return EXIT_OK


def _cmd_stablehlo(args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    from symshape.shapecheck import ShapeCheck
    dtypes: list[str] = args.dtype or ["f32"]
    if len(dtypes) == 1:
        dtypes = dtypes * len(args.specs)
    elif len(dtypes) != len(args.specs):
        raise SymshapeError(
            f"{len(args.specs)} spec(s) but {len(dtypes)} --dtype option(s): give one "
            "--dtype for all specs or one per spec")
    check = ShapeCheck(args.specs, constraints=args.given)
    module = check.to_stablehlo(dtypes=dtypes)
    if args.json:
        _print_json({"specs": args.specs, "dtypes": dtypes, "constraints": args.given,
                     "variables": list(check.variables), "module": module}, out)
    else:
        out.write(module if module.endswith("\n") else module + "\n")
    return EXIT_OK


def _cmd_repl(args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    return run_repl(constraints=args.given, stdin=sys.stdin, stdout=out, stderr=err,
               echo=args.echo, interactive=args.interactive, budget=args.budget,
               time_limit=args.time_limit)


# -- argument parsing -------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``symshape`` command."""
    from symshape import __version__
    parser = _ArgumentParser(
        prog="symshape",
        description="Ask questions about symbolic tensor shapes: is a claim always true "
                    "under some constraints, what are an expression's bounds, do concrete "
                    "shapes match symbolic specs.",
        epilog="Exit status: 0 proved/success, 1 refuted (check: mismatch), "
               "2 inconclusive (holds for some valuations, fails for others), 3 bad input, "
               "4 undecided (the work budget or time limit ran out).  Every dimension "
               "variable is an integer >= 1.")
    parser.add_argument("--version", action="version", version=f"symshape {__version__}")
    given = _ArgumentParser(add_help=False)
    given.add_argument("--given", "-g", action="append", default=[], metavar="CONSTRAINT",
                       help="a constraint that holds, e.g. 'a >= b + 8', 'mod(b, 4) == 0' or "
                            "'16 <= a <= b' (repeatable)")
    as_json = _ArgumentParser(add_help=False)
    as_json.add_argument("--json", action="store_true",
                         help="print a JSON object (errors too, with the same exit status)")
    limits = _ArgumentParser(add_help=False)
    limits.add_argument("--budget", type=_positive_float, default=1.0, metavar="X",
                        help="multiply the default work budget by X (e.g. 4); the answer "
                             "is reproducible for a given budget (default 1)")
    limits.add_argument("--time-limit", type=_positive_float, default=None,
                        metavar="SECONDS",
                        help="give up a decision after this many seconds (a claim: exit "
                             "status 4, undecided; bounds: the bounds found so far, always "
                             "sound)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("prove", parents=[given, limits, as_json],
                       help="decide whether a claim holds for every valuation",
                       description="Decide a claim such as 'a >= 9' or '16 <= a <= b' for every "
                                   "valuation allowed by the constraints, and explain why.")
    p.add_argument("claim", metavar="CLAIM", help="a comparison, or a chain of them")
    p.set_defaults(func=_cmd_prove)

    p = sub.add_parser("bounds", parents=[given, limits, as_json],
                       help="lower and upper bounds of an expression",
                       description="Print sound bounds of a dimension expression (tight for "
                                   "the linear fragment).")
    p.add_argument("expr", metavar="EXPR", help="a dimension expression")
    p.set_defaults(func=_cmd_bounds)

    p = sub.add_parser("simplify", parents=[given, as_json],
                       help="the canonical form of an expression",
                       description="Print the canonical form of a dimension expression.")
    p.add_argument("expr", metavar="EXPR", help="a dimension expression")
    p.set_defaults(func=_cmd_simplify)

    p = sub.add_parser("check", parents=[given, as_json],
                       help="match concrete shapes against symbolic specs",
                       description="Solve the dimension variables of the specs from concrete "
                                   "shapes, or print why the shapes do not match.")
    p.add_argument("specs", nargs="+", metavar="SPEC", help="a shape spec such as 'b, 2*h'")
    p.add_argument("--shape", "-s", action="append", default=[], required=True,
                   metavar="DIMS", help="a concrete shape such as 3,8, one per spec in order")
    p.set_defaults(func=_cmd_check)

    p = sub.add_parser("stablehlo", parents=[given, as_json],
                       help="print the StableHLO shape-assertion module for specs",
                       description="Print a StableHLO module whose main function checks "
                                   "arguments of these shapes with shape assertions.")
    p.add_argument("specs", nargs="+", metavar="SPEC", help="a shape spec such as 'b, 2*h'")
    p.add_argument("--dtype", "-t", action="append", default=[], metavar="DTYPE",
                   help="element type, e.g. f32 or i32: one for all specs or one per spec "
                        "(default f32)")
    p.set_defaults(func=_cmd_stablehlo)

    p = sub.add_parser("repl", parents=[given, limits],
                       help="an interactive session that builds up constraints step by step",
                       description="Interactive session: 'given C' adds a constraint, a "
                                   "comparison is a claim to prove, 'why' explains the last "
                                   "answer, 'help' lists the commands.")
    p.add_argument("--echo", action="store_true",
                   help="print each input line (after '> ') before its answer, for transcripts")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--interactive", dest="interactive", action="store_true", default=None,
                      help="prompt and use line editing even if stdin is not a terminal")
    mode.add_argument("--batch", dest="interactive", action="store_false",
                      help="no prompts, even if stdin is a terminal")
    p.set_defaults(func=_cmd_repl)
    return parser


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def _wants_json(argv: Sequence[str]) -> bool:
    """Whether ``--json`` is among the options (before a ``--``), for errors met
    before or while parsing the arguments."""
    for a in argv:
        if a == "--":
            return False
        if a == "--json":
            return True
    return False


def main(argv: Sequence[str] | None = None, *, stdout: IO[str] | None = None,
         stderr: IO[str] | None = None) -> int:
    """Run the ``symshape`` command with ``argv`` (default ``sys.argv[1:]``).

    Returns the exit status (see the module docstring); never raises for bad input.
    """
    out = sys.stdout if stdout is None else stdout
    err = sys.stderr if stderr is None else stderr
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    command = next((a for a in argv if not a.startswith("-")), None)

    def report(exc: BaseException, status: int, as_json: bool) -> int:
        if as_json:
            _print_json(error_to_json(exc, status, command), out)
        elif isinstance(exc, UsageError):
            print(exc, file=err)
        elif isinstance(exc, KeyboardInterrupt):
            print("interrupted", file=err)
        else:
            print(f"symshape: error: {exc}", file=err)
        return status

    try:
        args = parser.parse_args(argv)
    except UsageError as exc:
        return report(exc, EXIT_BAD_INPUT, _wants_json(argv))
    except SystemExit as exc:  # --help and --version exit 0 through argparse
        return exc.code if isinstance(exc.code, int) else EXIT_OK
    func: Callable[[argparse.Namespace, IO[str], IO[str]], int] = args.func
    as_json = bool(getattr(args, "json", False))
    try:
        return func(args, out, err)
    except SymshapeError as exc:
        return report(exc, EXIT_BAD_INPUT, as_json)
    except InconclusiveDimensionOperation as exc:
        return report(exc, EXIT_INCONCLUSIVE, as_json)
    except KeyboardInterrupt as exc:
        return report(exc, EXIT_INTERRUPTED, as_json)
    except BrokenPipeError:
        # The reader went away (``symshape prove ... | head``): stop quietly, and keep
        # the interpreter from failing again when it flushes stdout at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        with contextlib.suppress(OSError, ValueError):
            os.dup2(devnull, sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, as a shell reports a process killed by it


__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_INCONCLUSIVE",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_REFUTED",
    "EXIT_UNDECIDED",
    "PROGRESS_DELAY",
    "ProgressLine",
    "UsageError",
    "build_parser",
    "error_to_json",
    "format_bounds",
    "format_suggestions",
    "format_valuation",
    "main",
    "parse_shape",
    "progress_line",
    "status_exit_code",
]


if __name__ == "__main__":  # python -m symshape.cli (python -m symshape runs it too)
    sys.exit(main())
