"""symshape's shape checks as ``torch._check`` calls on symbolic sizes.

A :class:`~symshape.shapecheck.Program` (the backend-neutral program of a
:class:`~symshape.ShapeCheck`) is interpreted with the ``SymInt`` sizes of the
traced inputs: every op maps to an operation on ``SymInt``/``SymBool`` that
records no guard (``torch.sym_max``, ``torch.sym_ite``, ...), and every
assertion becomes ``torch._check(pred, message)``.  While tracing, torch uses
each check (it knows ``a >= b + 8`` from then on) and drops those it already
knows; the others stay in the exported graph as run-time assertions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from symshape.operators import BINARY, Cmp, Op, kind_table
from symshape.shapecheck import Program
from symshape.shapecheck.program import format_message


def _and(p: Any, q: Any) -> Any:
    if isinstance(p, bool):
        return q if p else False
    if isinstance(q, bool):
        return p if q else False
    return p & q


def _or(p: Any, q: Any) -> Any:
    if isinstance(p, bool):
        return True if p else q
    if isinstance(q, bool):
        return True if q else p
    return p | q


def _poly(coeffs: Sequence[int], v: Any) -> Any:
    acc: Any = 0
    for c in reversed(coeffs):
        acc = acc * v + c
    return acc


def _introot(params: Sequence[int], x: Any) -> Any:
    """The ``introot`` op as a bitwise search with ``torch.sym_ite`` (no guards)."""
    bits, coeffs = params[0], params[1:]
    v: Any = 0
    for b in reversed(range(bits)):
        c = v + (1 << b)
        v = torch.sym_ite(_poly(coeffs, c) <= x, c, v)
    return v


_INT_OPS: dict[str, Any] = {
    **kind_table({
        Op.ADD: lambda x, y: x + y,
        Op.SUB: lambda x, y: x - y,
        Op.MUL: lambda x, y: x * y,
        Op.FLOORDIV: lambda x, y: x // y,
        Op.MOD: lambda x, y: x % y,
        Op.MAX: lambda x, y: torch.sym_max(x, y),
        Op.MIN: lambda x, y: torch.sym_min(x, y),
    }, required=BINARY),
    Cmp.EQ.word: lambda x, y: x == y,
    Cmp.NE.word: lambda x, y: x != y,
    Cmp.GE.word: lambda x, y: x >= y,
    Cmp.GT.word: lambda x, y: x > y,
    "and": _and,
    "or": _or,
}
"""The binary ops of the shape-check programs on symbolic (or concrete) sizes."""


def evaluate(program: Program, sizes: Sequence[Sequence[Any]]) -> list[Any]:
    """The value of every step for the (symbolic or concrete) ``sizes``."""
    vals: list[Any] = []
    for step in program.steps:
        op = step.op
        if op == "dim":
            arg, axis = step.params
            v: Any = sizes[arg][axis]
        elif op == "const":
            v = step.params[0]
        elif op == "not":
            p = vals[step.operands[0]]
            v = (not p) if isinstance(p, bool) else torch.sym_not(p)
        elif op == "introot":
            v = _introot(step.params, vals[step.operands[0]])
        else:
            x, y = (vals[i] for i in step.operands)
            v = _INT_OPS[op](x, y)
        vals.append(v)
    return vals


def emit_checks(program: Program, sizes: Sequence[Sequence[Any]]) -> int:
    """``torch._check`` every assertion of ``program`` on ``sizes``; returns how
    many were not already true as Python booleans."""
    vals = evaluate(program, sizes)
    emitted = 0
    for a in program.assertions:
        pred = vals[a.pred]
        if pred is True:
            continue
        emitted += 1
        inputs = [vals[i] for i in a.inputs]
        msg = a.message

        def message(msg: str = msg, inputs: list[Any] = inputs) -> str:
            return format_message(msg, inputs)

        torch._check(pred, message)
    return emitted


__all__ = ["emit_checks", "evaluate"]
