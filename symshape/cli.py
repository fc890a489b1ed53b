"""The ``symshape`` command line.

Subcommands::

    symshape prove CLAIM [--given C ...] [--json]
    symshape bounds EXPR [--given C ...] [--json]
    symshape simplify EXPR [--given C ...] [--json]
    symshape check SPEC ... --shape 3,8 ... [--given C ...] [--json]
    symshape stablehlo SPEC ... [--dtype f32 ...] [--given C ...]
    symshape repl [--given C ...] [--echo]

Exit status: 0 proved (or success), 1 refuted (or, for ``check``, shapes that do
not match), 2 inconclusive, 3 bad input.  Bad input is reported on stderr with
the parser's caret-marked position and never with a Python traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import IO, TYPE_CHECKING, Any, NoReturn

from symshape.errors import InconclusiveDimensionOperation, ShapeMismatchError, SymshapeError

if TYPE_CHECKING:  # the decision procedure is imported only by the commands that use it
    from symshape.decision import Verdict

EXIT_OK = 0
"""Exit status: the claim is proved, or the command succeeded."""
EXIT_REFUTED = 1
"""Exit status: the claim is refuted (``check``: the shapes do not match the specs)."""
EXIT_INCONCLUSIVE = 2
"""Exit status: the claim holds for some valuations and fails for others, or is undecided."""
EXIT_BAD_INPUT = 3
"""Exit status: malformed input, unsatisfiable constraints or a usage error."""

Bound = float | int


class UsageError(Exception):
    """A command-line usage error (raised instead of argparse's ``sys.exit(2)``)."""


class _ArgumentParser(argparse.ArgumentParser):
    """argparse exits with status 2 on usage errors; here 2 means "inconclusive",
    so usage errors are raised and turned into status 3 by :func:`main`."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.format_usage().rstrip()}\n{self.prog}: error: {message}")


# -- presentation helpers (shared with the REPL) -----------------------------------


def json_bound(b: Bound) -> int | None:
    """A bound for JSON: an int, or ``None`` for an infinite bound."""
    return None if isinstance(b, float) and math.isinf(b) else int(b)


def format_bounds(text: str, lo: Bound, hi: Bound) -> str:
    """``lo <= text <= hi``, leaving out infinite sides."""
    if lo == hi:
        return f"{text} == {lo}"
    has_lo = not math.isinf(lo)
    has_hi = not math.isinf(hi)
    if has_lo and has_hi:
        return f"{lo} <= {text} <= {hi}"
    if has_lo:
        return f"{text} >= {lo}"
    if has_hi:
        return f"{text} <= {hi}"
    return f"{text} is unbounded in both directions"


def format_valuation(env: Mapping[str, int] | None) -> str:
    """``a = 3, b = 1`` (variables sorted by name)."""
    if not env:
        return ""
    return ", ".join(f"{k} = {env[k]}" for k in sorted(env))


def verdict_summary(verdict: Verdict) -> str:
    """One line: the status, with an example valuation when there is one."""
    status = str(verdict.status)
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


def verdict_to_json(claim: str, constraints: Sequence[str], verdict: Verdict
                    ) -> dict[str, Any]:
    """A JSON-serializable description of a verdict.

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
        "explanation": verdict.explain(),
    }


def status_exit_code(status: str) -> int:
    """The exit status for a verdict status."""
    return {"proved": EXIT_OK, "refuted": EXIT_REFUTED,
            "inconclusive": EXIT_INCONCLUSIVE}[str(status)]


# -- subcommands ------------------------------------------------------------------


def _print_json(obj: Any, out: IO[str]) -> None:
    print(json.dumps(obj, indent=2), file=out)


def _cmd_prove(args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    from symshape.decision import prove
    verdict = prove(args.claim, constraints=args.given)
    if args.json:
        _print_json(verdict_to_json(args.claim, args.given, verdict), out)
    else:
        print(verdict.explain(), file=out)
    return status_exit_code(verdict.status)


def _cmd_bounds(args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    from symshape.ops import bounds
    from symshape.scope import SymbolicScope
    from symshape.shapes import parse_expr_in_scope
    e = parse_expr_in_scope(args.expr, SymbolicScope(args.given))
    lo, hi = bounds(e)
    if args.json:
        _print_json({"expression": args.expr, "canonical": str(e), "constraints": args.given,
                     "lower": json_bound(lo), "upper": json_bound(hi)}, out)
    else:
        print(format_bounds(str(e), lo, hi), file=out)
    return EXIT_OK


def _cmd_simplify(args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    from symshape.expr import DimExpr
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
    out.write(module if module.endswith("\n") else module + "\n")
    return EXIT_OK


def _cmd_repl(args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    from symshape.repl import run
    return run(constraints=args.given, stdin=sys.stdin, stdout=out, stderr=err,
               echo=args.echo, interactive=args.interactive)


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
               "2 inconclusive, 3 bad input.  Every dimension variable is an integer >= 1.")
    parser.add_argument("--version", action="version", version=f"symshape {__version__}")
    given = _ArgumentParser(add_help=False)
    given.add_argument("--given", "-g", action="append", default=[], metavar="CONSTRAINT",
                       help="a constraint that holds, e.g. 'a >= b + 8', 'mod(b, 4) == 0' or "
                            "'16 <= a <= b' (repeatable)")
    as_json = _ArgumentParser(add_help=False)
    as_json.add_argument("--json", action="store_true", help="print a JSON object")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser("prove", parents=[given, as_json],
                       help="decide whether a claim holds for every valuation",
                       description="Decide a claim such as 'a >= 9' or '16 <= a <= b' for every "
                                   "valuation allowed by the constraints, and explain why.")
    p.add_argument("claim", metavar="CLAIM", help="a comparison, or a chain of them")
    p.set_defaults(func=_cmd_prove)

    p = sub.add_parser("bounds", parents=[given, as_json],
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

    p = sub.add_parser("stablehlo", parents=[given],
                       help="print the StableHLO shape-assertion module for specs",
                       description="Print a StableHLO module whose main function checks "
                                   "arguments of these shapes with shape assertions.")
    p.add_argument("specs", nargs="+", metavar="SPEC", help="a shape spec such as 'b, 2*h'")
    p.add_argument("--dtype", "-t", action="append", default=[], metavar="DTYPE",
                   help="element type, e.g. f32 or i32: one for all specs or one per spec "
                        "(default f32)")
    p.set_defaults(func=_cmd_stablehlo)

    p = sub.add_parser("repl", parents=[given],
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


def _report(err: BaseException, stderr: IO[str]) -> None:
    print(f"symshape: error: {err}", file=stderr)


def main(argv: Sequence[str] | None = None, *, stdout: IO[str] | None = None,
         stderr: IO[str] | None = None) -> int:
    """Run the ``symshape`` command with ``argv`` (default ``sys.argv[1:]``).

    Returns the exit status (see the module docstring); never raises for bad input.
    """
    out = sys.stdout if stdout is None else stdout
    err = sys.stderr if stderr is None else stderr
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except UsageError as exc:
        print(exc, file=err)
        return EXIT_BAD_INPUT
    except SystemExit as exc:  # --help and --version exit 0 through argparse
        return exc.code if isinstance(exc.code, int) else EXIT_OK
    func: Callable[[argparse.Namespace, IO[str], IO[str]], int] = args.func
    try:
        return func(args, out, err)
    except SymshapeError as exc:
        _report(exc, err)
        return EXIT_BAD_INPUT
    except InconclusiveDimensionOperation as exc:
        _report(exc, err)
        return EXIT_INCONCLUSIVE
    except KeyboardInterrupt:
        print("interrupted", file=err)
        return 130
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
    "EXIT_OK",
    "EXIT_REFUTED",
    "build_parser",
    "format_bounds",
    "main",
    "parse_shape",
]
