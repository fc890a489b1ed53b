"""Compiling a :class:`~symshape.shapecheck.program.Program` to a straight-line Python
function, so checking a shape tuple is one call with no interpretation overhead."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from symshape.algebra.dimexpr import as_int
from symshape.errors import ShapeMismatchError
from symshape.operators import Op, kinds
from symshape.shapecheck.program import INFIX, Program, introot

_PY_OP = INFIX
_MAX = Op.MAX.value
_MIN = Op.MIN.value
_MAX_MIN = kinds((Op.MAX, Op.MIN))

CheckFn = Callable[[Sequence[tuple[Any, ...]]], dict[str, int]]


_MAX_INLINE_DEPTH = 40  # keep generated expressions far from the parser's nesting limit
# Tests joined by 'and'/'or' in one generated line: a line with thousands of them
# (a spec of 3,000 dimensions) exhausts the compiler's recursion limit.
_MAX_JOINED = 64
# A constant longer than this is passed to the generated code by name: Python
# cannot write (repr) or read back a literal beyond its int/str digit limit.
_MAX_LITERAL_DIGITS = 600


def compile_program(prog: Program) -> CheckFn:
    """A function from flat shapes (one tuple per argument) to the dimension variables.

    It checks ranks and that every size is an int >= 0, computes only the steps that the
    predicates and outputs need (values used once are inlined), and tests all predicates
    in one condition.  When one is false it reruns the reference interpreter
    :meth:`Program.run`, which raises :class:`~symshape.ShapeMismatchError` with the
    message of the first failing assertion -- so the result is exactly that of
    :meth:`Program.run`, only faster on the common path.
    """
    uses = [0] * len(prog.steps)
    for st in prog.steps:
        # max/min mention an operand twice: never inline their operands
        k = 2 if st.op in _MAX_MIN else 1
        for operand in st.operands:
            uses[operand] += k
    for a in prog.assertions:
        uses[a.pred] += 1
    for _, out_id in prog.outputs:
        uses[out_id] += 2  # the output dict names it: keep it in a variable
    lines = ["def _check(shapes):"]
    env: dict[str, Any] = {}
    ranks = prog.arg_ranks
    n = len(ranks)
    if n:
        lines.append(f"    {', '.join(f's{i}' for i in range(n))}, = shapes")
        rank_tests = [f"len(s{i}) != {r}" for i, r in enumerate(ranks)]
        for k in range(0, n, _MAX_JOINED):
            lines.append(f"    if {' or '.join(rank_tests[k:k + _MAX_JOINED])}:")
            lines.append("        _bad_rank(shapes)")
    dims = []
    for i, r in enumerate(ranks):
        if r:
            ds = [f"d{i}_{j}" for j in range(r)]
            dims += ds
            lines.append(f"    {', '.join(ds)}, = s{i}")
    for k in range(0, len(dims), _MAX_JOINED):
        group = dims[k:k + _MAX_JOINED]
        types = " is ".join(f"type({d})" for d in group)
        lines.append(f"    if not ({types} is int and ({' | '.join(group)}) >= 0):")
        lines.append("        return _slow(shapes)")
    code: list[str] = [""] * len(prog.steps)
    depth = [0] * len(prog.steps)
    for st in prog.steps:
        rid, op, o = st.result, st.op, st.operands
        if op == "dim":
            code[rid] = f"d{st.params[0]}_{st.params[1]}"
            continue
        if op == "const":
            c = st.params[0]
            if c.bit_length() > 3 * _MAX_LITERAL_DIGITS:  # about that many digits
                code[rid] = f"_c{rid}"
                env[code[rid]] = c
            else:
                code[rid] = repr(c) if c >= 0 else f"({c})"
            continue
        if uses[rid] == 0:
            continue  # only the messages use it: the slow path computes it
        xs = [code[i] for i in o]
        if op in _PY_OP:
            expr = f"({xs[0]} {_PY_OP[op]} {xs[1]})"
        elif op == _MAX:
            expr = f"({xs[0]} if {xs[0]} >= {xs[1]} else {xs[1]})"
        elif op == _MIN:
            expr = f"({xs[0]} if {xs[0]} <= {xs[1]} else {xs[1]})"
        elif op == "not":
            expr = f"(not {xs[0]})"
        elif op == "introot":
            env[f"_p{rid}"] = st.params[1:]  # coefficients, possibly beyond any literal
            expr = f"_introot({st.params[0]}, _p{rid}, {xs[0]})"
        else:  # pragma: no cover - validate() rejects unknown ops
            raise ValueError(f"unknown op {op!r}")
        depth[rid] = 1 + max((depth[i] for i in o), default=0)
        if uses[rid] == 1 and depth[rid] < _MAX_INLINE_DEPTH:
            code[rid] = expr
        else:
            lines.append(f"    v{rid} = {expr}")
            code[rid] = f"v{rid}"
            depth[rid] = 0
    preds = [code[a.pred] for a in prog.assertions]
    for k in range(0, len(preds), _MAX_JOINED):
        lines.append(f"    if not ({' and '.join(preds[k:k + _MAX_JOINED])}):")
        lines.append("        _fail(shapes)")
    outs = ", ".join(f"{name!r}: {code[i]}" for name, i in prog.outputs)
    lines.append(f"    return {{{outs}}}")
    source = "\n".join(lines) + "\n"

    def fail(shapes: Sequence[tuple[int, ...]]) -> NoReturn:
        prog.run(shapes)  # raises with the message of the first failing assertion
        raise AssertionError("unreachable: an assertion failed in the compiled check but "
                             "not in the interpreter")  # pragma: no cover

    def bad_rank(shapes: Sequence[tuple[Any, ...]]) -> NoReturn:
        for name, s, spec in zip(prog.arg_names, shapes, prog.arg_shapes, strict=True):
            if len(s) != len(spec):
                raise ShapeMismatchError(
                    f"Rank mismatch for {name}: its spec has rank {len(spec)}, but its shape "
                    f"{tuple(s)} has rank {len(s)}")
        raise AssertionError("unreachable: no rank mismatch")  # pragma: no cover

    def slow(shapes: Sequence[tuple[Any, ...]]) -> dict[str, int]:
        return fn([normalize_shape(name, s) for name, s in zip(prog.arg_names, shapes,
                                                                strict=True)])

    env.update(_fail=fail, _bad_rank=bad_rank, _slow=slow, _introot=introot)
    exec(compile(source, f"<symshape shape check {id(prog):x}>", "exec"), env)
    fn: CheckFn = env["_check"]
    fn.__doc__ = "Generated by symshape.shapecheck:\n" + source
    return fn


def normalize_shape(name: str, shape: Sequence[Any]) -> tuple[int, ...]:
    """``shape`` as a tuple of Python ints >= 0, or a clear ShapeMismatchError."""
    out = []
    for j, d in enumerate(shape):
        where = f"{name}.shape[{j}]"
        if isinstance(d, bool):
            raise ShapeMismatchError(f"{where} is {d!r}, a bool, not an integer dimension size")
        v = as_int(d)
        if v is None:
            if d is None:
                raise ShapeMismatchError(
                    f"{where} is None (unknown); a shape check needs concrete sizes")
            raise ShapeMismatchError(
                f"{where} is {d!r} of type {type(d).__name__}, not an integer: dimension "
                "sizes must be integers")
        if v < 0:
            raise ShapeMismatchError(f"{where} is {v}: dimension sizes must be >= 0")
        out.append(v)
    return tuple(out)


__all__ = ["CheckFn", "compile_program", "normalize_shape"]
