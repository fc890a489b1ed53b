"""Emitting a :class:`~symshape.shapecheck.program.Program` as StableHLO (MLIR text).

Dimensions are read with ``stablehlo.get_dimension_size`` (``tensor<i32>``) and converted
to ``i64``; all arithmetic is on ``tensor<i64>`` scalars.  ``stablehlo.divide`` and
``stablehlo.remainder`` truncate toward zero, so ``floordiv``/``mod`` correct the result
with compare/select to get Python's floor semantics.  Each assertion becomes

    stablehlo.custom_call @shape_assertion(%pred, %in0, ...) {api_version = 2 : i32,
        error_message = "...", has_side_effect = true} : (tensor<i1>, tensor<i64>...) -> ()

the form JAX emits and checks during shape refinement.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from symshape.errors import SymshapeError
from symshape.operators import Cmp, Op, kind_table, kinds
from symshape.shapecheck.program import Program

_I64 = "tensor<i64>"
_I1 = "tensor<i1>"

# the binary operators: one StableHLO op each, but floor division and its
# remainder, which take a few (StableHLO's divide and remainder truncate)
_ARITH = kind_table({Op.ADD: "add", Op.SUB: "subtract", Op.MUL: "multiply",
                     Op.MAX: "maximum", Op.MIN: "minimum"})
_DIVMOD = kinds((Op.FLOORDIV, Op.MOD))
_CMP = {Cmp.EQ.word: "EQ", Cmp.NE.word: "NE", Cmp.GE.word: "GE", Cmp.GT.word: "GT"}

_NUMPY_TO_MLIR = {
    "float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16",
    "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "ui8", "uint16": "ui16", "uint32": "ui32", "uint64": "ui64",
    "bool": "i1", "complex64": "complex<f32>", "complex128": "complex<f64>",
    "float8_e4m3fn": "f8E4M3FN", "float8_e5m2": "f8E5M2",
}
_MLIR_TYPES = frozenset(_NUMPY_TO_MLIR.values())


def element_type(dtype: Any) -> str:
    """The MLIR element type for ``dtype`` (an MLIR name, a numpy dtype or its name)."""
    if isinstance(dtype, str) and dtype in _MLIR_TYPES:
        return dtype
    name = dtype if isinstance(dtype, str) else getattr(dtype, "name", None)
    if name is None:
        try:
            import numpy as np
            name = np.dtype(dtype).name
        except TypeError:
            name = None
    if name in _NUMPY_TO_MLIR:
        return _NUMPY_TO_MLIR[name]
    raise SymshapeError(f"unsupported dtype {dtype!r}; use one of "
                        f"{sorted(_NUMPY_TO_MLIR)} or an MLIR type such as 'f32'")


_PLAIN = re.compile(r'[ !#-\[\]-~]*')  # printable ASCII but '"' and '\\'


def mlir_string(text: str) -> str:
    """``text`` as an MLIR string literal (quotes, backslashes, non-ASCII escaped)."""
    if _PLAIN.fullmatch(text):
        return f'"{text}"'
    out = ['"']
    for ch in text:
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif " " <= ch <= "~":
            out.append(ch)
        else:
            out.extend(f"\\{b:02X}" for b in ch.encode("utf-8"))
    out.append('"')
    return "".join(out)


def tensor_type(shape: Sequence[int | None], elem: str) -> str:
    """``tensor<?x8xf32>`` for ``shape == (None, 8)``."""
    dims = "".join(("?" if d is None else str(d)) + "x" for d in shape)
    return f"tensor<{dims}{elem}>"


def emit_module(prog: Program, dtypes: Any = None, *, func_name: str = "main",
                public: bool = True, module_name: str = "shape_check") -> str:
    """The MLIR module text with one function computing ``prog``."""
    n = len(prog.arg_shapes)
    if dtypes is None:
        elems = ["f32"] * n
    elif isinstance(dtypes, str) or not isinstance(dtypes, Sequence):
        elems = [element_type(dtypes)] * n
    else:
        if len(dtypes) != n:
            raise SymshapeError(f"dtypes has {len(dtypes)} entries, but the check has {n} "
                                f"argument(s): {', '.join(prog.arg_names)}")
        elems = [element_type(d) for d in dtypes]
    if not func_name.replace("_", "a").isalnum():
        raise SymshapeError(f"func_name must be an identifier, got {func_name!r}")
    arg_types = [tensor_type(s, e) for s, e in zip(prog.arg_shapes, elems, strict=True)]
    body = emit_body(prog, arg_types)
    params = ", ".join(f"%arg{i}: {t}" for i, t in enumerate(arg_types))
    results = ", ".join(_I64 for _ in prog.outputs)
    vis = "public" if public else "private"
    lines = [f"module @{module_name} {{",
             f"  func.func {vis} @{func_name}({params}) -> ({results}) {{"]
    lines += ["    " + ln for ln in body]
    lines += ["  }", "}"]
    return "\n".join(lines) + "\n"


def _check_i64(values: Sequence[int]) -> None:
    for v in values:
        if not -(1 << 63) <= v < (1 << 63):
            raise SymshapeError(f"the constant {v} of the shape check does not fit in int64, "
                                "the integer type of StableHLO dimension arithmetic")


def emit_body(prog: Program, arg_types: Sequence[str]) -> list[str]:
    """The operations of the function body, ending with ``return``."""
    out: list[str] = []
    emit = out.append
    divmods: dict[tuple[str, str], str] = {}  # (x, y) -> prefix of the shared remainder
    for st in prog.steps:
        r = f"%v{st.result}"
        op = st.op
        xs = [f"%v{o}" for o in st.operands]
        if op == "dim":
            arg, axis = st.params
            emit(f"{r}_i32 = stablehlo.get_dimension_size %arg{arg}, dim = {axis} : "
                 f"({arg_types[arg]}) -> tensor<i32>")
            emit(f"{r} = stablehlo.convert {r}_i32 : (tensor<i32>) -> {_I64}")
        elif op == "const":
            _check_i64(st.params)
            emit(f"{r} = stablehlo.constant dense<{st.params[0]}> : {_I64}")
        elif op in _ARITH:
            emit(f"{r} = stablehlo.{_ARITH[op]} {xs[0]}, {xs[1]} : {_I64}")
        elif op in _CMP:
            emit(f"{r} = stablehlo.compare {_CMP[op]}, {xs[0]}, {xs[1]}, SIGNED : "
                 f"({_I64}, {_I64}) -> {_I1}")
        elif op in ("and", "or"):
            emit(f"{r} = stablehlo.{op} {xs[0]}, {xs[1]} : {_I1}")
        elif op == "not":
            # select, not stablehlo.not: shape refinement folds select but not i1 not/xor.
            emit(f"{r}_t = stablehlo.constant dense<true> : {_I1}")
            emit(f"{r}_f = stablehlo.constant dense<false> : {_I1}")
            emit(f"{r} = stablehlo.select {xs[0]}, {r}_f, {r}_t : {_I1}, {_I1}")
        elif op in _DIVMOD:
            key = (xs[0], xs[1])
            pre = divmods.get(key)
            if pre is None:
                pre = divmods[key] = r
                out += _remainder_fix(r, xs[0], xs[1])
            out += _floor_divmod(r, pre, xs[0], xs[1], op)
        elif op == "introot":
            _check_i64(st.params)
            out += _introot(r, xs[0], st.params[0], st.params[1:])
        else:  # pragma: no cover - Program.validate() rejects unknown ops
            raise SymshapeError(f"unknown op {op!r}")
    for a in prog.assertions:
        operands = ", ".join([f"%v{a.pred}", *(f"%v{i}" for i in a.inputs)])
        types = ", ".join([_I1, *(_I64 for _ in a.inputs)])
        emit(f"stablehlo.custom_call @shape_assertion({operands}) {{api_version = 2 : i32, "
             f"error_message = {mlir_string(a.message)}, has_side_effect = true}} : "
             f"({types}) -> ()")
    if prog.outputs:
        vals = ", ".join(f"%v{i}" for _, i in prog.outputs)
        emit(f"return {vals} : {', '.join(_I64 for _ in prog.outputs)}")
    else:
        emit("return")
    return out


def _remainder_fix(p: str, x: str, y: str) -> list[str]:
    """The truncated remainder ``{p}_rem`` of ``x / y`` and ``{p}_fix``: whether it is
    nonzero with a sign different from the divisor's, i.e. whether floor semantics
    differ from truncation."""
    return [
        f"{p}_zero = stablehlo.constant dense<0> : {_I64}",
        f"{p}_rem = stablehlo.remainder {x}, {y} : {_I64}",
        f"{p}_rnz = stablehlo.compare NE, {p}_rem, {p}_zero, SIGNED : ({_I64}, {_I64}) -> {_I1}",
        f"{p}_rneg = stablehlo.compare LT, {p}_rem, {p}_zero, SIGNED : "
        f"({_I64}, {_I64}) -> {_I1}",
        f"{p}_yneg = stablehlo.compare LT, {y}, {p}_zero, SIGNED : ({_I64}, {_I64}) -> {_I1}",
        f"{p}_ynneg = stablehlo.compare GE, {y}, {p}_zero, SIGNED : ({_I64}, {_I64}) -> {_I1}",
        # rneg != yneg, as a select (shape refinement does not fold an i1 xor)
        f"{p}_sdiff = stablehlo.select {p}_rneg, {p}_ynneg, {p}_yneg : {_I1}, {_I1}",
        f"{p}_fix = stablehlo.and {p}_rnz, {p}_sdiff : {_I1}",
    ]


def _floor_divmod(r: str, p: str, x: str, y: str, op: str) -> list[str]:
    """Python's ``//`` (truncated quotient minus one when fixing) or ``%`` (truncated
    remainder plus the divisor when fixing), from the values of :func:`_remainder_fix`."""
    if op == Op.FLOORDIV:
        return [
            f"{r}_quo = stablehlo.divide {x}, {y} : {_I64}",
            f"{r}_one = stablehlo.constant dense<1> : {_I64}",
            f"{r}_down = stablehlo.subtract {r}_quo, {r}_one : {_I64}",
            f"{r} = stablehlo.select {p}_fix, {r}_down, {r}_quo : {_I1}, {_I64}",
        ]
    return [
        f"{r}_up = stablehlo.add {p}_rem, {y} : {_I64}",
        f"{r} = stablehlo.select {p}_fix, {r}_up, {p}_rem : {_I1}, {_I64}",
    ]


def _introot(r: str, x: str, bits: int, coeffs: Sequence[int]) -> list[str]:
    """The ``introot`` op unrolled: ``bits`` rounds of a bitwise binary search (no loop,
    so shape refinement folds it to a constant)."""
    lines = [f"{r}_b{bits} = stablehlo.constant dense<0> : {_I64}"]
    cs = [f"{r}_c{k}" for k in range(len(coeffs))]
    for name, c in zip(cs, coeffs, strict=True):
        lines.append(f"{name} = stablehlo.constant dense<{c}> : {_I64}")
    for b in reversed(range(bits)):
        cur = f"{r}_b{b + 1}"
        t = f"{r}_t{b}"
        lines.append(f"{t}_bit = stablehlo.constant dense<{1 << b}> : {_I64}")
        lines.append(f"{t}_cand = stablehlo.add {cur}, {t}_bit : {_I64}")
        acc = cs[-1]
        for k in range(len(coeffs) - 2, -1, -1):  # Horner
            lines.append(f"{t}_m{k} = stablehlo.multiply {acc}, {t}_cand : {_I64}")
            lines.append(f"{t}_h{k} = stablehlo.add {t}_m{k}, {cs[k]} : {_I64}")
            acc = f"{t}_h{k}"
        lines.append(f"{t}_ok = stablehlo.compare LE, {acc}, {x}, SIGNED : "
                     f"({_I64}, {_I64}) -> {_I1}")
        nxt = f"{r}_b{b}" if b else r
        lines.append(f"{nxt} = stablehlo.select {t}_ok, {t}_cand, {cur} : {_I1}, {_I64}")
    return lines


__all__ = ["element_type", "emit_body", "emit_module", "mlir_string", "tensor_type"]
