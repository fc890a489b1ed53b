"""A tiny backend-neutral program over the input dimensions, and its reference interpreter.

A :class:`Program` computes the dimension variables of a :class:`~symshape.ShapeCheck`
from the sizes of the input arrays and states the assertions the sizes must satisfy.
It is plain data, so a new backend (JAX ops, StableHLO text, C, ...) is a walk over it:

* ``steps``: a tuple of :class:`Step` in SSA form.  Step ``i`` defines the value with id
  ``step.result`` (ids are ``0, 1, 2, ...`` in order) from the values named by
  ``step.operands`` (ids of earlier steps) and the immediate integers ``step.params``.
* ``assertions``: a tuple of :class:`Assertion` ``(pred, message, inputs)``: ``pred`` is the
  id of a boolean value; ``message`` is a format string with ``{0}``, ``{1}``, ... that
  refer to the integer values ``inputs`` (at most 32, as JAX's ``shape_assertion``
  allows).  A literal ``{`` is written ``{{``; ``}`` is always literal (the rules of
  ``llvm::formatv``, which checks ``@shape_assertion``; use :func:`format_message`, not
  ``str.format``).  The shapes match the specs exactly when every predicate is true;
  the error to report is the message of the *first* false one.
* ``outputs``: ``(name, id)`` pairs, the dimension variables in sorted name order.

Every op is total and side-effect free, so a backend may compute all steps first and
check the assertions afterwards, or interleave them in list order.

=============  ===========  ====================================================
op             operands     value
=============  ===========  ====================================================
``dim``        --           ``params == (arg_index, axis)``: size of that axis of
                            that (flat) argument, an int >= 0
``const``      --           ``params == (value,)``: an int
``add``        ``x, y``     ``x + y``
``sub``        ``x, y``     ``x - y``
``mul``        ``x, y``     ``x * y``
``floordiv``   ``x, y``     ``floor(x / y)`` (Python ``//``).  ``y >= 1`` always: the
                            compiler guards symbolic divisors with ``max(y, 1)``
``mod``        ``x, y``     ``x - y*floordiv(x, y)`` (Python ``%``), same guarantee
``max``        ``x, y``     larger of the two
``min``        ``x, y``     smaller of the two
``eq`` ``ne``  ``x, y``     boolean ``x == y``, ``x != y``
``ge`` ``gt``  ``x, y``     boolean ``x >= y``, ``x > y``
``and`` ``or`` ``p, q``     boolean conjunction, disjunction
``not``        ``p``        boolean negation
``introot``    ``x``        ``params == (bits, c0, c1, ..., cn)``: the largest ``v`` in
                            ``[0, 2**bits - 1]`` with ``v == 0`` or ``p(v) <= x``, where
                            ``p(v) = c0 + c1*v + ... + cn*v**n``
=============  ===========  ====================================================

``introot`` is emitted only for polynomials that are strictly increasing on
``[1, 2**bits - 1]`` and whose Horner evaluation stays below ``2**62`` in absolute value
there, so a backend may compute it in int64 with ``bits`` rounds of a bitwise binary
search: ``v = 0; for b in reversed(range(bits)): c = v + 2**b; v = c if p(c) <= x else v``.

Integer values are meant to fit in int64 (dimension sizes do); the Python interpreter
uses unbounded ints.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

from symshape.errors import ShapeMismatchError
from symshape.operators import BINARY, Cmp, Op, kind_table
from symshape.printing import dim_text

MAX_MESSAGE_INPUTS = 32
"""Most ``inputs`` of one assertion (the limit of JAX's ``shape_assertion``)."""


class Step(NamedTuple):
    """One SSA step: ``result = op(*operands)`` with immediates ``params``."""

    result: int
    op: str
    operands: tuple[int, ...] = ()
    params: tuple[int, ...] = ()


class Assertion(NamedTuple):
    """``pred`` must be true; else the error is ``message.format(*values of inputs)``.

    ``kind`` says what is checked (``"constant"``, ``"divisible"``, ``"root"``,
    ``"nonzero"``, ``"positive"``, ``"agree"``, ``"implicit"`` or ``"constraint"``);
    backends can ignore it.
    """

    pred: int
    message: str
    inputs: tuple[int, ...]
    kind: str = ""


_SPEC = re.compile(r"\{\{|\{(\d+)\}")


def format_message(message: str, values: Sequence[object]) -> str:
    """Substitute ``values`` for ``{0}``, ``{1}``, ... in an assertion message; ``{{`` is a
    literal ``{`` and everything else is literal (as ``llvm::formatv`` does)."""
    def sub(m: re.Match[str]) -> str:
        if m.group(1) is None:
            return "{"
        v = values[int(m.group(1))]
        return dim_text(v) if type(v) is int else str(v)
    return _SPEC.sub(sub, message)


def _floordiv(x: int, y: int) -> int:
    return x // y


def _mod(x: int, y: int) -> int:
    return x % y


def poly_value(coeffs: Sequence[int], v: int) -> int:
    """``c0 + c1*v + ... + cn*v**n`` for ``coeffs == (c0, ..., cn)`` (Horner)."""
    acc = 0
    for c in reversed(coeffs):
        acc = acc * v + c
    return acc


def introot(bits: int, coeffs: Sequence[int], x: int) -> int:
    """The ``introot`` op: the largest ``v`` in ``[0, 2**bits - 1]`` with ``v == 0`` or
    ``p(v) <= x``, for ``p`` increasing on ``[1, 2**bits - 1]`` (see the module docs).

    Computed exactly from a floating-point guess refined by galloping, which gives the
    same answer as the bitwise search because ``p`` is increasing.
    """
    top = (1 << bits) - 1
    if top < 1 or poly_value(coeffs, 1) > x:
        return 0
    lead = coeffs[-1]
    deg = len(coeffs) - 1
    try:
        guess = int((max(x, 0) / lead) ** (1.0 / deg)) if lead > 0 and deg > 0 else 1
    except OverflowError:
        guess = top
    lo = min(max(guess, 1), top)
    # Invariant sought: p(lo) <= x and (lo == top or p(lo + 1) > x).
    step = 1
    while poly_value(coeffs, lo) > x:  # guess too high: gallop down (p(1) <= x stops it)
        lo = max(lo - step, 1)
        step *= 2
    step = 1
    while lo < top:
        nxt = min(lo + step, top)
        if poly_value(coeffs, nxt) <= x:
            lo = nxt
            step *= 2
        elif step == 1:
            break
        else:
            step = 1
    return lo


def _introot_step(params: tuple[int, ...], x: int) -> int:
    return introot(params[0], params[1:], x)


INT_BINARY: Mapping[str, Callable[[int, int], int]] = kind_table({
    Op.ADD: lambda x, y: x + y,
    Op.SUB: lambda x, y: x - y,
    Op.MUL: lambda x, y: x * y,
    Op.FLOORDIV: _floordiv,
    Op.MOD: _mod,
    Op.MAX: lambda x, y: x if x >= y else y,
    Op.MIN: lambda x, y: x if x <= y else y,
}, required=BINARY)
"""Integer binary ops and their Python semantics: the binary operators of the
syntax trees (:data:`symshape.operators.BINARY`), under the same names."""

COMPARE: Mapping[str, Callable[[int, int], bool]] = {
    Cmp.EQ.word: lambda x, y: x == y,
    Cmp.NE.word: lambda x, y: x != y,
    Cmp.GE.word: lambda x, y: x >= y,
    Cmp.GT.word: lambda x, y: x > y,
}
"""Comparisons of two ints, giving booleans, named by :attr:`symshape.operators.Cmp.word`."""

COMPARE_CMP: Mapping[str, Cmp] = {c.word: c for c in Cmp if c.word in COMPARE}
"""The comparison operator of each comparison op."""

INFIX: Mapping[str, str] = {
    **{op.value: op.symbol for op in BINARY if op.symbol is not None},
    **{word: c.value for word, c in COMPARE_CMP.items()},
    "and": "and", "or": "or"}
"""The Python spelling of each op written between its two operands."""

BOOL_BINARY: Mapping[str, Callable[[bool, bool], bool]] = {
    "and": lambda p, q: p and q,
    "or": lambda p, q: p or q,
}
"""Boolean binary ops."""

BOOL_OPS = frozenset(COMPARE) | frozenset(BOOL_BINARY) | {"not"}
"""Ops whose value is a boolean; every other op gives an int."""

ALL_OPS = frozenset(INT_BINARY) | BOOL_OPS | {"dim", "const", "introot"}
"""Every op a :class:`Program` may contain."""


class Program(NamedTuple):
    """The straight-line program of a shape check (see the module docs)."""

    steps: tuple[Step, ...]
    assertions: tuple[Assertion, ...]
    outputs: tuple[tuple[str, int], ...]
    arg_names: tuple[str, ...]
    """Display name of each flat argument, e.g. ``"args[0]['x']"``."""
    arg_shapes: tuple[tuple[int | None, ...], ...]
    """Each flat argument's shape: the constant sizes, ``None`` for symbolic ones.  The
    ranks are checked before the program runs; the constant sizes are checked by
    ``"constant"`` assertions too, so a backend may use fully dynamic types."""

    @property
    def arg_ranks(self) -> tuple[int, ...]:
        """Rank of each flat argument."""
        return tuple(len(s) for s in self.arg_shapes)

    def is_bool(self, value_id: int) -> bool:
        """Whether value ``value_id`` is a boolean (else an int)."""
        return self.steps[value_id].op in BOOL_OPS

    def validate(self) -> None:
        """Check that the program is well formed (SSA order, arities, types).

        Raises:
          ValueError: describing the first problem found.
        """
        arity = {**{op: 2 for op in INT_BINARY}, **{op: 2 for op in COMPARE},
                 **{op: 2 for op in BOOL_BINARY}, "not": 1, "dim": 0, "const": 0,
                 "introot": 1}
        ranks = self.arg_ranks
        is_bool = [st.op in BOOL_OPS for st in self.steps]
        for i, st in enumerate(self.steps):
            if st.result != i:
                raise ValueError(f"step {i} defines id {st.result}; ids must be 0, 1, ...")
            if st.op not in ALL_OPS:
                raise ValueError(f"step {i}: unknown op {st.op!r}")
            if len(st.operands) != arity[st.op]:
                raise ValueError(f"step {i}: {st.op} takes {arity[st.op]} operands")
            for o in st.operands:
                if not 0 <= o < i:
                    raise ValueError(f"step {i}: operand {o} is not an earlier value")
            want_bool = st.op in BOOL_BINARY or st.op == "not"
            for o in st.operands:
                if is_bool[o] != want_bool:
                    raise ValueError(f"step {i}: operand {o} of {st.op} has the wrong type")
            if st.op == "dim":
                arg, axis = st.params
                if not (0 <= arg < len(ranks) and 0 <= axis < ranks[arg]):
                    raise ValueError(f"step {i}: dim{st.params} is out of range")
            elif st.op == "const" and len(st.params) != 1:
                raise ValueError(f"step {i}: const takes one param")
            elif st.op == "introot" and (len(st.params) < 3 or st.params[0] < 1):
                raise ValueError(f"step {i}: introot params must be (bits, c0, ..., cn)")
        for k, a in enumerate(self.assertions):
            if not (0 <= a.pred < len(self.steps) and is_bool[a.pred]):
                raise ValueError(f"assertion {k}: predicate {a.pred} is not a boolean value")
            if len(a.inputs) > MAX_MESSAGE_INPUTS:
                raise ValueError(f"assertion {k} has more than {MAX_MESSAGE_INPUTS} inputs")
            for o in a.inputs:
                if not (0 <= o < len(self.steps)) or is_bool[o]:
                    raise ValueError(f"assertion {k}: input {o} is not an int value")
        for name, o in self.outputs:
            if not (0 <= o < len(self.steps)) or is_bool[o]:
                raise ValueError(f"output {name!r}: {o} is not an int value")

    def evaluate(self, shapes: Sequence[Sequence[int]]) -> list[int | bool]:
        """The value of every step for flat ``shapes`` (one tuple of ints per argument,
        ranks already checked)."""
        vals: list[int | bool] = []
        append = vals.append
        for st in self.steps:
            op = st.op
            o = st.operands
            if op == "dim":
                append(shapes[st.params[0]][st.params[1]])
            elif op == "const":
                append(st.params[0])
            elif op in INT_BINARY:
                append(INT_BINARY[op](vals[o[0]], vals[o[1]]))
            elif op in COMPARE:
                append(COMPARE[op](vals[o[0]], vals[o[1]]))
            elif op in BOOL_BINARY:
                append(BOOL_BINARY[op](bool(vals[o[0]]), bool(vals[o[1]])))
            elif op == "not":
                append(not vals[o[0]])
            else:  # introot
                append(_introot_step(st.params, vals[o[0]]))
        return vals

    def first_failure(self, shapes: Sequence[Sequence[int]]) -> tuple[int, str] | None:
        """``(index, formatted message)`` of the first failing assertion, or ``None``."""
        vals = self.evaluate(shapes)
        for k, a in enumerate(self.assertions):
            if not vals[a.pred]:
                return k, format_message(a.message, [vals[i] for i in a.inputs])
        return None

    def run(self, shapes: Sequence[Sequence[int]]) -> dict[str, int]:
        """Interpret the program: the dimension variables, or ShapeMismatchError.

        This is the reference interpreter; :class:`~symshape.ShapeCheck` compiles the
        program to a faster closure with the same behaviour.
        """
        vals = self.evaluate(shapes)
        for a in self.assertions:
            if not vals[a.pred]:
                raise ShapeMismatchError(
                    format_message(a.message, [vals[i] for i in a.inputs]))
        return {name: int(vals[o]) for name, o in self.outputs}

    def expression(self, value_id: int) -> str:
        """The value ``value_id`` as a readable expression over ``args[i].shape[j]``."""
        memo: dict[int, str] = {}
        # floordiv and mod are written as calls, as in the constraint texts
        infix = {op: sp for op, sp in INFIX.items() if op not in (Op.FLOORDIV, Op.MOD)}

        def rec(i: int) -> str:
            got = memo.get(i)
            if got is not None:
                return got
            st = self.steps[i]
            if st.op == "dim":
                s = f"{self.arg_names[st.params[0]]}.shape[{st.params[1]}]"
            elif st.op == "const":
                s = str(st.params[0])
            elif st.op in infix:
                s = f"({rec(st.operands[0])} {infix[st.op]} {rec(st.operands[1])})"
            elif st.op == "not":
                s = f"not {rec(st.operands[0])}"
            elif st.op == "introot":
                bits, *cs = st.params
                poly = " + ".join(f"{c}*v^{k}" for k, c in enumerate(cs) if c)
                s = f"introot[{poly}]({bare(st.operands[0])})"
            else:
                s = f"{st.op}({bare(st.operands[0])}, {bare(st.operands[1])})"
            memo[i] = s
            return s

        def bare(i: int) -> str:
            text = rec(i)
            return text[1:-1] if self.steps[i].op in infix else text

        return bare(value_id)

    def pretty(self) -> str:
        """A readable listing of the steps, assertions and outputs."""
        lines = []
        for st in self.steps:
            args = ", ".join(f"%{o}" for o in st.operands)
            if st.params:
                args = ", ".join(filter(None, [args, ", ".join(map(str, st.params))]))
            lines.append(f"%{st.result} = {st.op}({args})")
        for a in self.assertions:
            ins = ", ".join(f"%{o}" for o in a.inputs)
            lines.append(f"assert %{a.pred} [{a.kind}] ({ins}): {a.message!r}")
        lines.append("return " + ", ".join(f"{n}=%{o}" for n, o in self.outputs))
        return "\n".join(lines)


__all__ = [
    "ALL_OPS", "BOOL_BINARY", "BOOL_OPS", "COMPARE", "COMPARE_CMP", "INFIX", "INT_BINARY",
    "MAX_MESSAGE_INPUTS",
    "Assertion", "Program", "Step", "format_message", "introot", "poly_value",
]
