"""The conditions of ``aten._assert_scalar`` nodes of an exported program, read
off the fx graph as symshape claims (never evaluated)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from symshape.algebra.floordiv import floordiv, mod
from symshape.algebra.maxmin import max_expr, min_expr
from symshape.operators import Cmp, Op, kind_table
from symshape.shapes import Dim
from symshape.torch import _internals as ti
from symshape.torch.guards import GuardParseError

# torch's names of the binary operators (the fx graph's targets): those of the
# syntax trees, but sym_max and sym_min
_ARITH: Mapping[str, Callable[[Any, Any], Dim]] = kind_table({
    Op.ADD: lambda x, y: x + y, Op.SUB: lambda x, y: x - y, Op.MUL: lambda x, y: x * y,
    Op.FLOORDIV: floordiv, Op.MOD: mod,
}) | {"sym_max": max_expr, "sym_min": min_expr}
# torch's names of the comparisons are their words (operator.ge is "ge")
_COMPARE: dict[str, Cmp] = {c.word: c for c in Cmp}

DimOf = Callable[[Any, int], Dim]
"""``dim_of(placeholder node, axis)``: the symshape dimension of an input size."""


def assertion_claims(node: Any, dim_of: DimOf, text: str) -> list[str]:
    """The claims (all must hold) of an ``_assert_scalar`` condition ``node``;
    the ``sym_size`` of an input is ``dim_of(input, axis)``.  ``text`` names
    the assertion in errors (:class:`GuardParseError`)."""

    def fail(what: str) -> GuardParseError:
        return GuardParseError(f"cannot read the run-time assertion {text!r}: {what}")

    def value(n: Any) -> Dim:
        if isinstance(n, bool) or not isinstance(n, int | ti.FxNode):
            raise fail(f"unexpected operand {n!r}")
        if isinstance(n, int):
            return n
        name = ti.target_name(n)
        if name == "sym_size":
            axis = n.args[1]
            if not isinstance(axis, int):
                raise fail(f"the axis {axis!r} of a size is not a constant")
            return dim_of(n.args[0], axis)
        if name == Op.NEG:
            return -value(n.args[0])
        if name == Op.POW and isinstance(n.args[1], int):
            return value(n.args[0]) ** n.args[1]
        fn = _ARITH.get(name)
        if fn is None:
            raise fail(f"the operation {name} has no symshape counterpart")
        return fn(value(n.args[0]), value(n.args[1]))

    def claims(n: Any, negate: bool, out: list[str]) -> None:
        name = ti.target_name(n) if isinstance(n, ti.FxNode) else ""
        if name == "and_" and not negate:
            claims(n.args[0], False, out)
            claims(n.args[1], False, out)
            return
        if name == "sym_not":
            claims(n.args[0], not negate, out)
            return
        op = _COMPARE.get(name)
        if op is None:
            raise fail(f"{name or n!r} is not a comparison or a conjunction of comparisons")
        if negate:
            op = op.negated
        out.append(f"{value(n.args[0])} {op.value} {value(n.args[1])}")

    out: list[str] = []
    claims(node, False, out)
    return out


__all__ = ["DimOf", "assertion_claims"]
