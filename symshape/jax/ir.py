"""Run a shape-check :class:`~symshape.shapecheck.program.Program` on JAX values.

A value of the program is, while we run it, the most static thing we can
keep: a Python ``int``/``bool``, a JAX symbolic dimension (folded with JAX's
own symbolic arithmetic, comparisons decided by JAX's decision procedure --
symshape's when :func:`symshape.jax.decisions` is active), or a traced JAX
array of JAX's dimension dtype.  Only what cannot be decided statically
becomes runtime code, so the lowered module checks exactly what the trace
could not.

Assertions whose predicate is statically true are dropped, statically false
ones raise :class:`~symshape.ShapeMismatchError` at once, and the others
become JAX ``shape_assertion`` operations (``stablehlo.custom_call
@shape_assertion``), which JAX checks when the exported module is called.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax

from symshape.errors import ShapeMismatchError
from symshape.jax import _internals as jx
from symshape.operators import BINARY, Op, kind_table, kinds
from symshape.shapecheck.program import COMPARE, INT_BINARY, Program, format_message, poly_value
from symshape.shapecheck.program import introot as _py_introot

DimValue = Callable[[int, int], Any]
"""``dim_value(arg_index, axis)``: the size of that axis (int, JAX dimension or JAX value)."""


# The binary operators on runtime (traced) integer values.
_RUNTIME_OPS: dict[str, Callable[[Any, Any], Any]] = kind_table({
    Op.ADD: lambda x, y: x + y,
    Op.SUB: lambda x, y: x - y,
    Op.MUL: lambda x, y: x * y,
    Op.FLOORDIV: lambda x, y: jnp.floor_divide(x, y),
    Op.MOD: lambda x, y: jnp.remainder(x, y),
    Op.MAX: lambda x, y: lax.max(x, y),
    Op.MIN: lambda x, y: lax.min(x, y),
}, required=BINARY)
_MAX = Op.MAX.value
_MIN = Op.MIN.value
_FLOORDIV = Op.FLOORDIV.value
_DIVMOD = kinds((Op.FLOORDIV, Op.MOD))


class NeedsRuntime(Exception):
    """A value could not be computed statically where runtime code is not allowed."""


def _is_runtime(v: Any) -> bool:
    return not isinstance(v, int | bool | np.integer | np.bool_) and not jx.is_jax_dim_expr(v)


class Runner:
    """Evaluates the steps of one program once (memoized), on one set of dims.

    ``allow_runtime``: if False (checking concrete or symbolic shapes at trace
    time), a value that needs runtime code raises :class:`NeedsRuntime`.
    """

    def __init__(self, program: Program, dim_value: DimValue, *, allow_runtime: bool) -> None:
        self.program = program
        self.dim_value = dim_value
        self.allow_runtime = allow_runtime
        self.vals: list[Any] = []

    # -- values ---------------------------------------------------------------
    def value(self, vid: int) -> Any:
        """The value of step ``vid`` (evaluating the steps up to it)."""
        while len(self.vals) <= vid:
            self.vals.append(self._step(len(self.vals)))
        return self.vals[vid]

    def _runtime(self, v: Any) -> Any:
        """``v`` as a JAX array of the dimension dtype (or bool)."""
        if not self.allow_runtime:
            raise NeedsRuntime
        if _is_runtime(v):
            return v
        if isinstance(v, bool | np.bool_):
            return jnp.asarray(bool(v))
        if jx.is_jax_dim_expr(v):
            return jx.dimension_as_value(v)
        return jx.dim_constant(int(v))

    def _step(self, i: int) -> Any:
        st = self.program.steps[i]
        op = st.op
        if op == "dim":
            return self.dim_value(st.params[0], st.params[1])
        if op == "const":
            return st.params[0]
        args = [self.vals[o] for o in st.operands]
        if op == "introot":
            return self._introot(st.params, args[0])
        if op in INT_BINARY:
            return self.int_op(op, args[0], args[1])
        if op in COMPARE:
            return self._compare(op, args[0], args[1])
        if op == "not":
            p = args[0]
            return (not p) if isinstance(p, bool | np.bool_) else lax.bitwise_not(p)
        return self._bool_op(op, args[0], args[1])

    def int_op(self, op: str, x: Any, y: Any) -> Any:
        """``x op y`` on dimension values (``add``, ``mul``, ``floordiv``,
        ``max``, ...): folded when both are known while tracing, emitted as
        integer ops on runtime values otherwise."""
        if not (_is_runtime(x) or _is_runtime(y)):
            if op == _MAX:
                return jx.max_dim(x, y) if jx.is_jax_dim_expr(x) or jx.is_jax_dim_expr(y) \
                    else max(int(x), int(y))
            if op == _MIN:
                return jx.min_dim(x, y) if jx.is_jax_dim_expr(x) or jx.is_jax_dim_expr(y) \
                    else min(int(x), int(y))
            if op in _DIVMOD and jx.is_jax_dim_expr(y):
                # JAX folds floordiv/mod by a symbolic divisor only when exact; keep
                # it symbolic (JAX's factor) -- the program guarantees y >= 1.
                return x // y if op == _FLOORDIV else x % y
            return INT_BINARY[op](x, y)
        return _RUNTIME_OPS[op](self._runtime(x), self._runtime(y))

    def _compare(self, op: str, x: Any, y: Any) -> Any:
        if not (_is_runtime(x) or _is_runtime(y)):
            if not (jx.is_jax_dim_expr(x) or jx.is_jax_dim_expr(y)):
                return COMPARE[op](int(x), int(y))
            decided = _decide(op, x, y)
            if decided is not None:
                return decided
        xr, yr = self._runtime(x), self._runtime(y)
        return {"eq": lax.eq, "ne": lax.ne, "ge": lax.ge, "gt": lax.gt}[op](xr, yr)

    def _bool_op(self, op: str, p: Any, q: Any) -> Any:
        static_p = isinstance(p, bool | np.bool_)
        static_q = isinstance(q, bool | np.bool_)
        if op == "and":
            if (static_p and not p) or (static_q and not q):
                return False
            if static_p:
                return q
            if static_q:
                return p
            return lax.bitwise_and(p, q)
        if (static_p and p) or (static_q and q):
            return True
        if static_p:
            return q
        if static_q:
            return p
        return lax.bitwise_or(p, q)

    def _introot(self, params: tuple[int, ...], x: Any) -> Any:
        bits, coeffs = params[0], params[1:]
        if isinstance(x, int | np.integer):
            return _py_introot(bits, coeffs, int(x))
        return _runtime_introot(bits, coeffs, self._runtime(x))

    # -- assertions -------------------------------------------------------------
    def message(self, k: int) -> str:
        """The formatted message of assertion ``k`` (values shown statically)."""
        a = self.program.assertions[k]
        shown = []
        for i in a.inputs:
            try:
                v = self.value(i)
            except NeedsRuntime:
                v = None
            shown.append("?" if v is None or _is_runtime(v) else str(v))
        return format_message(a.message, shown)

    def check_statically(self) -> None:
        """Raise ShapeMismatchError for the first assertion that fails (or cannot be
        decided without runtime code, when runtime code is not allowed)."""
        for k, a in enumerate(self.program.assertions):
            try:
                p = self.value(a.pred)
            except NeedsRuntime:
                raise ShapeMismatchError(
                    self.message(k) + " (this could not be checked statically)") from None
            if isinstance(p, bool | np.bool_) and not p:
                raise ShapeMismatchError(self.message(k))

    def emit_assertions(self) -> None:
        """Drop statically true assertions, raise for statically false ones and emit
        ``shape_assertion`` operations for the rest."""
        for k, a in enumerate(self.program.assertions):
            p = self.value(a.pred)
            if isinstance(p, bool | np.bool_):
                if not p:
                    raise ShapeMismatchError(self.message(k))
                continue
            inputs = [self._runtime(self.value(i)) for i in a.inputs]
            jx.shape_assertion(p, *inputs, error_message=a.message)


def _decide(op: str, x: Any, y: Any) -> bool | None:
    """Decide a comparison of (possibly symbolic) JAX dimensions, or None."""
    inconclusive = jx.InconclusiveDimensionOperation
    try:
        if op == "ge":
            return bool(x >= y)
        if op == "gt":
            return bool(x > y)
    except inconclusive:
        return None
    # eq/ne: JAX's == answers False when it does not know; decide both directions.
    if jx.definitely_equal(x, y):
        return op == "eq"
    try:
        if x - y >= 1 or y - x >= 1:
            return op == "ne"
    except inconclusive:
        return None
    return None


def _wrap(c: int, width: int) -> int:
    """``c`` modulo ``2**width`` as a signed integer (two's complement)."""
    c &= (1 << width) - 1
    return c - (1 << width) if c >> (width - 1) else c


def _runtime_introot(bits: int, coeffs: Sequence[int], x: Any) -> Any:
    """The ``introot`` op on a runtime value of the dimension dtype.

    A bitwise binary search as the program docs describe, restricted to the
    candidates ``c`` whose ``p(c)`` fits in the dtype (the answer is among
    them since ``x`` does).  For those, computing ``p(c)`` with wrapping
    integer arithmetic gives the exact value even if a Horner step overflows.
    """
    dtype = x.dtype
    hi = int(np.iinfo(dtype).max)
    top = (1 << bits) - 1
    if poly_value(coeffs, 1) > hi:
        return jnp.zeros((), dtype)
    # cap: the largest c in [1, top] with p(c) <= hi (p is increasing there).
    cap = _py_introot(bits, coeffs, hi)
    nbits = max(cap.bit_length(), 1)
    width = np.iinfo(dtype).bits
    v = jnp.zeros((), dtype)
    for b in reversed(range(nbits)):
        cand = v + jnp.asarray(1 << b, dtype)
        acc = jnp.zeros((), dtype)
        for c in reversed(coeffs):
            acc = acc * cand + jnp.asarray(_wrap(c, width), dtype)
        ok = lax.bitwise_and(lax.le(cand, jnp.asarray(min(cap, top), dtype)), lax.le(acc, x))
        v = lax.select(ok, cand, v)
    return v


__all__ = ["NeedsRuntime", "Runner"]
