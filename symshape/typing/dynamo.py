"""Checked calls while TorchDynamo traces (``torch.compile``, strict ``torch.export``).

Dynamo interprets the Python it traces, and building a plan (parsing, solving)
is far beyond what it can follow; it also shows every size as an int, static
or not.  So the plan's program is reached through a function that dynamo calls
as it is and whose result it takes as a constant
(``torch.compiler.assume_constant_result``), given only constants: the
checker's key, the arrays' names, the ids of their specs and their ranks.
Dynamo then traces the program's values over the sizes
(:func:`symshape.torch.checks.evaluate`), and each assertion that is not
plainly true becomes ``torch._check(pred, message)``: a failure while tracing
for static sizes, a guard or run-time assertion for symbolic ones.  The message
is the assertion's text without its values (dynamo keeps only messages made of
constants).  A broadcastable dimension (``#c``) is not taken to be 1 here.

Nothing here imports torch: it is used only when torch is already imported.
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from symshape.errors import SymshapeError
from symshape.shapecheck.program import Program, format_message
from symshape.typing.plan import readable

if TYPE_CHECKING:
    from symshape.typing.decorator import Checker

# By a string: dynamo may take an int from a closure to be a dynamic size.
_CHECKERS: weakref.WeakValueDictionary[str, Checker] = weakref.WeakValueDictionary()
_MARKED: dict[str, Callable[..., Any]] = {}


def tracing() -> bool:
    """Whether TorchDynamo is tracing the caller (False when torch is not imported).

    Outside a trace, it marks the functions that dynamo must call as they are
    (marking them while dynamo traces is not possible)."""
    torch = sys.modules.get("torch")
    if torch is None:
        return False
    if torch.compiler.is_dynamo_compiling():
        return True
    if not _MARKED:
        _mark(torch)
    return False


def _mark(torch: Any) -> None:
    _MARKED["program"] = torch.compiler.assume_constant_result(_program)


def register(checker: Checker) -> str:
    """The key by which the marked function finds ``checker``."""
    key = f"{checker.name}@{id(checker):x}"
    _CHECKERS[key] = checker
    torch = sys.modules.get("torch")
    if torch is not None and not _MARKED:
        _mark(torch)
    return key


def _program(number: str, with_return: bool, n_args: int, names: tuple[str, ...],
             spec_ids: tuple[int, ...], ranks: tuple[int, ...]
             ) -> tuple[Program, tuple[str, ...]] | None:
    """The program of the plan and the message of each assertion (without values)."""
    checker = _CHECKERS[number]
    shapes = [(None,) * r for r in ranks]  # no size is known to be 1
    triples = [(n, checker.spec_by_id[i], sh) for n, i, sh in zip(names, spec_ids, shapes,
                                                                  strict=True)]
    if with_return:
        plan = checker.all_plans.get(triples, checker.checked_before(triples[:n_args]))
    else:
        plan = checker.arg_plans.get(triples)
    if plan.check is None:
        return None
    program = plan.check.program
    return program, tuple(readable(format_message(a.message, ["?"] * len(a.inputs)), names)
                          for a in program.assertions)


def _marked(name: str) -> Callable[..., Any]:
    got = _MARKED.get(name)
    if got is None:
        raise SymshapeError(
            "symshape.typing meets TorchDynamo before torch was imported: import torch "
            "before decorating the functions that torch.compile or torch.export trace, or "
            "call one of them once outside a trace")
    return got


def check(number: str, triples: list[tuple[str, Any, tuple[Any, ...]]], n_args: int,
          with_return: bool) -> None:
    """Check ``(name, spec, shape)`` of the arrays while dynamo traces (see the module
    docs); ``n_args`` of them are arguments, the rest the return value's."""
    names = tuple(n for n, _, _ in triples)
    spec_ids = tuple(id(s) for _, s, _ in triples)
    shapes = tuple(sh for _, _, sh in triples)
    ranks = tuple(len(sh) for sh in shapes)
    got = _marked("program")(number, with_return, n_args, names, spec_ids, ranks)
    if got is None:
        return
    program, messages = got
    from symshape.torch.checks import evaluate
    torch = sys.modules["torch"]
    values = evaluate(program, shapes)
    # Strict torch.export cannot keep a message function in its graph (torch 2.13).
    exporting = torch.compiler.is_exporting()
    for a, message in zip(program.assertions, messages, strict=True):
        pred = values[a.pred]
        if pred is True:
            continue
        if exporting and pred is not False:  # a constant False fails at once: keep words
            torch._check(pred)
        else:
            torch._check(pred, lambda message=message: message)




def check_dtypes(checker: Checker, found: list[tuple[str, Any, Any]], when: str) -> None:
    """Check the dtypes of the arrays while dynamo traces.

    Dtypes are static in a trace, so dynamo follows the check as Python; a
    mismatch is a ``torch._check`` on a constant False, which fails the
    compilation with the message (an exception raised here would reach the
    user as dynamo's own report, without it)."""
    why = checker.dtype_problem(found, when)
    if why is not None:
        torch = sys.modules["torch"]
        torch._check(False, lambda: why)


__all__ = ["check", "check_dtypes", "register", "tracing"]
