"""Building a :class:`~symshape.shapecheck.program.Program`: hash-consed steps with
constant folding, DimExpr compilation and assertion messages."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from symshape.algebra.atoms import FloorDiv, Max0, Var
from symshape.algebra.dimexpr import DimExpr
from symshape.printing import dim_text
from symshape.shapecheck.program import (
    BOOL_BINARY,
    COMPARE,
    INT_BINARY,
    MAX_MESSAGE_INPUTS,
    Assertion,
    Program,
    Step,
    introot,
)

Piece = str | int | tuple[str, int]
"""A message piece: literal text, or a value id (``int``), or ``("id", value_id)``."""


def escape_braces(text: str) -> str:
    """Literal message text with ``{`` doubled (see the message rules of the program)."""
    return text.replace("{", "{{")


class ProgramBuilder:
    """Accumulates steps and assertions; identical steps are shared, constants folded."""

    def __init__(self, arg_names: Sequence[str],
                 arg_shapes: Sequence[tuple[int | None, ...]]) -> None:
        self.arg_names = tuple(arg_names)
        self.arg_shapes = tuple(arg_shapes)
        self.steps: list[Step] = []
        self.assertions: list[Assertion] = []
        self._memo: dict[tuple[str, tuple[int, ...], tuple[int, ...]], int] = {}
        self._const_of: dict[int, int | bool] = {}  # value id -> constant value

    # -- steps -------------------------------------------------------------------
    def _emit(self, op: str, operands: tuple[int, ...] = (), params: tuple[int, ...] = ()
              ) -> int:
        key = (op, operands, params)
        got = self._memo.get(key)
        if got is not None:
            return got
        rid = len(self.steps)
        self.steps.append(Step(rid, op, operands, params))
        self._memo[key] = rid
        return rid

    def const(self, value: int) -> int:
        """An int constant."""
        rid = self._emit("const", (), (int(value),))
        self._const_of[rid] = int(value)
        return rid

    def true(self) -> int:
        """The boolean ``True`` (``0 == 0``)."""
        z = self.const(0)
        rid = self._emit("eq", (z, z))
        self._const_of[rid] = True
        return rid

    def false(self) -> int:
        """The boolean ``False`` (``not True``)."""
        rid = self._emit("not", (self.true(),))
        self._const_of[rid] = False
        return rid

    def dim(self, arg: int, axis: int) -> int:
        """Size of ``axis`` of flat argument ``arg``."""
        return self._emit("dim", (), (arg, axis))

    def const_value(self, vid: int) -> int | bool | None:
        """The constant value of ``vid``, or ``None`` if it depends on the inputs."""
        return self._const_of.get(vid)

    def op(self, name: str, *operands: int) -> int:
        """A binary/unary op, folded when its operands are constants or trivial."""
        cs = [self._const_of.get(o) for o in operands]
        if all(c is not None for c in cs):
            if name in INT_BINARY:
                return self.const(INT_BINARY[name](cs[0], cs[1]))  # type: ignore[arg-type]
            if name in COMPARE:
                v: bool = COMPARE[name](cs[0], cs[1])  # type: ignore[arg-type]
            elif name in BOOL_BINARY:
                v = BOOL_BINARY[name](cs[0], cs[1])  # type: ignore[arg-type]
            else:
                v = not cs[0]
            return self.true() if v else self.false()
        simplified = self._simplify(name, operands, cs)
        if simplified is not None:
            return simplified
        if name in ("add", "mul", "max", "min", "eq", "ne", "and", "or") \
                and operands[0] > operands[1]:
            operands = (operands[1], operands[0])  # commutative: one canonical order
        return self._emit(name, operands)

    def _simplify(self, name: str, operands: tuple[int, ...],
                  cs: list[int | bool | None]) -> int | None:
        x = operands[0]
        y = operands[1] if len(operands) > 1 else -1
        cx = cs[0]
        cy = cs[1] if len(cs) > 1 else None
        if name == "add":
            if cx == 0:
                return y
            if cy == 0:
                return x
            if isinstance(cy, int) and cy < 0:
                return self.op("sub", x, self.const(-cy))
        elif name == "sub":
            if cy == 0:
                return x
            if x == y:
                return self.const(0)
            if isinstance(cy, int) and cy < 0:
                return self.op("add", x, self.const(-cy))
        elif name == "mul":
            if cx == 1:
                return y
            if cy == 1:
                return x
            if cx == 0 or cy == 0:
                return self.const(0)
        elif name in ("floordiv", "mod") and (cy == 1 or cx == 0):
            # divisors are >= 1 (see expr()), so 0 // y == 0 % y == 0
            return x if name == "floordiv" and cy == 1 else self.const(0)
        elif name in ("max", "min", "eq", "ge") and x == y:
            return x if name in ("max", "min") else self.true()
        elif name in ("ne", "gt") and x == y:
            return self.false()
        elif name == "and":
            if cx is True:
                return y
            if cy is True:
                return x
        return None

    def introot(self, bits: int, coeffs: Sequence[int], x: int) -> int:
        """The ``introot`` op (see the program docs)."""
        cx = self._const_of.get(x)
        if cx is not None:
            return self.const(introot(bits, coeffs, int(cx)))
        return self._emit("introot", (x,), (bits, *coeffs))

    # -- expressions -------------------------------------------------------------
    def expr(self, e: DimExpr | int, env: Mapping[str, int]) -> int:
        """Compile ``e`` with variable values from ``env`` (name -> value id).

        A symbolic divisor is guarded with ``max(divisor, 1)``: the scope ensures it is
        >= 1 for every valuation that passes the assertions, and the guard keeps the
        program total for the others.
        """
        if isinstance(e, int):
            return self.const(e)
        total: int | None = None
        # Positive terms first, so the sum starts without a negation.
        for mono, coeff in sorted(e.sorted_terms(), key=lambda t: t[1] < 0):
            term: int | None = None
            for atom, k in mono:
                av = self._atom(atom, env)
                for _ in range(k):
                    term = av if term is None else self.op("mul", term, av)
            if term is None:  # the constant term
                term_c = self.const(abs(coeff))
            else:
                term_c = self.op("mul", term, self.const(abs(coeff)))
            if total is None:
                total = term_c if coeff > 0 else self.op("sub", self.const(0), term_c)
            else:
                total = self.op("add" if coeff > 0 else "sub", total, term_c)
        assert total is not None  # a DimExpr has at least one term
        return total

    def _atom(self, atom: object, env: Mapping[str, int]) -> int:
        if type(atom) is Var:
            return env[atom.name]
        if type(atom) is FloorDiv:
            num = self.expr(atom.num, env)
            if isinstance(atom.den, int):
                return self.op("floordiv", num, self.const(atom.den))
            den = self.op("max", self.expr(atom.den, env), self.const(1))
            return self.op("floordiv", num, den)
        assert type(atom) is Max0
        return self.op("max", self.expr(atom.arg, env), self.const(0))

    # -- assertions --------------------------------------------------------------
    def assert_(self, pred: int, pieces: Sequence[Piece], kind: str) -> bool:
        """Add an assertion; returns False if ``pred`` folded to the constant False
        (the assertion is kept: it fails for every input), True otherwise.

        ``pieces`` are literal text (``str``) and value ids (``int``); repeated ids share
        a format specifier, and ids past the 32nd distinct one print as ``N/A``.
        """
        c = self._const_of.get(pred)
        if c is True:
            return True
        message, inputs = self.format(pieces)
        self.assertions.append(Assertion(pred, message, inputs, kind))
        return c is not False

    def format(self, pieces: Sequence[Piece]) -> tuple[str, tuple[int, ...]]:
        """The format string and input ids of a message made of ``pieces``."""
        spec: dict[int, str] = {}
        inputs: list[int] = []
        out: list[str] = []
        for p in pieces:
            if isinstance(p, str):
                out.append(escape_braces(p) if "{" in p else p)
                continue
            vid = p if isinstance(p, int) else p[1]
            cval = self._const_of.get(vid)
            if cval is not None and not isinstance(cval, bool):
                out.append(dim_text(cval))  # constants go into the text
                continue
            s = spec.get(vid)
            if s is None:
                if len(inputs) >= MAX_MESSAGE_INPUTS:
                    out.append("N/A")
                    continue
                s = spec[vid] = "{" + str(len(inputs)) + "}"
                inputs.append(vid)
            out.append(s)
        return "".join(out), tuple(inputs)

    def build(self, outputs: Sequence[tuple[str, int]]) -> Program:
        """The finished program."""
        prog = Program(tuple(self.steps), tuple(self.assertions), tuple(outputs),
                       self.arg_names, self.arg_shapes)
        prog.validate()
        return prog


__all__ = ["Piece", "ProgramBuilder", "escape_braces"]
