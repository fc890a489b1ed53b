"""Exact conversion between symshape expressions and sympy.

Install with the optional extra ``symshape[sympy]``.  ``import symshape`` never
imports sympy; this module does (and never imports torch, although it reads
PyTorch's own sympy functions).

* :func:`to_sympy` gives the sympy expression of a dimension: variables become
  ``Symbol(name, integer=True, positive=True)``, ``floordiv(x, y)`` becomes
  ``floor(x/y)``, ``mod`` ``Mod``, ``max``/``min`` ``Max``/``Min``.
* :func:`from_sympy` reads a sympy expression back in a
  :class:`~symshape.SymbolicScope`, renormalized to symshape's canonical form.
  It covers plain sympy (``floor``, ``ceiling``, ``Mod``, ``Max``, ``Min``,
  ``Abs``, integer powers) and PyTorch's functions of
  ``torch.utils._sympy.functions`` (``FloorDiv``, ``CleanDiv``, ``CeilDiv``,
  ``Mod``, ``PythonMod``, ``ModularIndexing``, ``Max``, ``Min``,
  ``PowByNatural``, ``Identity``, ``LShift``/``RShift`` by constants,
  ``FloorToInt``/``CeilToInt`` of an ``IntTrueDiv``).  Anything else (true
  division, rational coefficients, ``Piecewise``, symbolic exponents ...)
  raises :class:`SympyConversionError` naming the function.
* :func:`claims_from_sympy` turns a sympy condition (``Eq``, ``Ne``, ``Ge``,
  ... and their conjunctions) into claim texts for :func:`symshape.prove`.

Both directions are exact: the two expressions have the same value at every
valuation, and ``from_sympy(to_sympy(e), scope=e.scope) == e`` unless sympy
simplified the expression with the variables' positivity (``floor(-1/(a + 1))``
is ``-1``).  PyTorch's ``Mod``
and ``ModularIndexing`` are defined by PyTorch for non-negative operands only;
they are read with Python's ``%``, which is what PyTorch's own Python printer
and value-range analysis use, and agrees with C's ``%`` there.  ``FloorToInt``
and ``CeilToInt`` of ``IntTrueDiv(a, b)`` are read as exact integer divisions
(PyTorch computes them in floating point, which agrees for sizes below 2**53).

>>> import symshape, symshape.sympy as ss
>>> a, b = symshape.symbolic_shape("a, b")
>>> ss.to_sympy(symshape.max_dim(a, 2 * b)) + ss.to_sympy(a % 4)
Mod(a, 4) + Max(a, 2*b)
>>> ss.from_sympy(ss.to_sympy(a // b), scope=a.scope) == a // b
True
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import sympy

from symshape import parsing
from symshape.algebra.atoms import FloorDiv, Max0, Var
from symshape.algebra.dimexpr import DimExpr
from symshape.algebra.floordiv import floordiv, mod
from symshape.algebra.maxmin import max_expr, min_expr
from symshape.errors import ParseError, SymshapeError
from symshape.operators import BINARY, FUNCTIONS, Cmp, Op, kind_table
from symshape.scope import SymbolicScope

Dim = DimExpr | int

_NAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
_RESERVED = frozenset(op.function for op in FUNCTIONS)
_TORCH_MODULE = "torch.utils._sympy"


class SympyConversionError(SymshapeError):
    """A sympy expression has no exact symshape counterpart (or the reverse)."""


# ---------------------------------------------------------------------------
# symshape -> sympy

_SYMBOLS: dict[str, sympy.Symbol] = {}


def symbol(name: str) -> sympy.Symbol:
    """The sympy symbol of dimension variable ``name``: an integer >= 1."""
    s = _SYMBOLS.get(name)
    if s is None:
        s = _SYMBOLS.setdefault(name, sympy.Symbol(name, integer=True, positive=True))
    return s


def to_sympy(e: Any) -> Any:
    """The sympy expression of a dimension (an ``int`` or a
    :class:`~symshape.DimExpr`), or a tuple of them for a shape.

    ``mod``, ``max`` and ``min`` keep their familiar spellings where symshape's
    canonical text has them (``Mod(a, 4)``, ``Max(a, b)``); the value is the
    same at every valuation.

    Raises:
      TypeError: for anything that is not a dimension or a shape.
    """
    if isinstance(e, tuple):
        return tuple(to_sympy(d) for d in e)
    if isinstance(e, bool) or not isinstance(e, int | DimExpr):
        raise TypeError(f"to_sympy expects an int, a symbolic dimension or a shape, got {e!r}")
    if isinstance(e, int):
        return sympy.Integer(e)
    try:
        # The canonical text re-parses to an equal expression (symshape.printing),
        # and its AST has the mod/max/min spellings the term map lost.
        node = parsing.parse_expr(str(e))
    except ParseError:  # beyond the parser's size or depth limits
        return _structural(e)
    return _from_node(node)


def _from_node(node: tuple[Any, ...]) -> Any:
    kind = node[0]
    if kind == "int":
        return sympy.Integer(node[2])
    if kind == "var":
        return symbol(node[2])
    if kind == Op.NEG:
        return -_from_node(node[2])
    if kind == Op.POW:
        return _from_node(node[2]) ** node[3]
    build = _FROM_BINARY.get(kind)
    if build is None:
        raise SympyConversionError(f"unexpected node {kind!r} in a dimension expression")
    return build(_from_node(node[2]), _from_node(node[3]))


_FROM_BINARY: dict[str, Callable[[Any, Any], Any]] = kind_table({
    Op.ADD: lambda x, y: x + y,
    Op.SUB: lambda x, y: x - y,
    Op.MUL: lambda x, y: x * y,
    Op.FLOORDIV: lambda x, y: sympy.floor(x / y),
    Op.MOD: lambda x, y: sympy.Mod(x, y),
    Op.MAX: lambda x, y: sympy.Max(x, y),
    Op.MIN: lambda x, y: sympy.Min(x, y),
}, required=BINARY)
"""The sympy expression of each binary operator of the syntax trees."""


def _structural(e: Dim) -> Any:
    """The sympy expression of ``e`` built from its atoms (no spelling recovery)."""
    if isinstance(e, int):
        return sympy.Integer(e)
    total: Any = sympy.Integer(0)
    for m, c in e.terms.items():
        term: Any = sympy.Integer(c)
        for atom, k in m:
            if isinstance(atom, Var):
                v: Any = symbol(atom.name)
            elif isinstance(atom, FloorDiv):
                v = sympy.floor(_structural(atom.num) / _structural(atom.den))
            else:
                assert isinstance(atom, Max0)
                v = sympy.Max(_structural(atom.arg), 0)
            term = term * v ** k
        total = total + term
    return total


# ---------------------------------------------------------------------------
# sympy -> symshape


def _scope_for(scope: SymbolicScope | None,
               symbols: Mapping[str, Dim] | None) -> SymbolicScope:
    for v in (symbols or {}).values():
        if isinstance(v, DimExpr):
            if scope is None:
                return v.scope
            break
    return scope if scope is not None else SymbolicScope()


class _Reader:
    """Walks one sympy expression into one scope (memoizing shared sub-trees)."""

    def __init__(self, scope: SymbolicScope, symbols: Mapping[str, Dim] | None,
                 text: str) -> None:
        self.scope = scope
        self.symbols = dict(symbols or {})
        self.text = text
        self.memo: dict[Any, Dim] = {}

    def fail(self, what: str) -> SympyConversionError:
        return SympyConversionError(f"cannot convert {self.text!r} to a symshape expression: "
                                    f"{what}")

    def read(self, x: Any) -> Dim:
        got = self.memo.get(x)
        if got is None:
            got = self.memo[x] = self._read(x)
        return got

    def _read(self, x: Any) -> Dim:
        if isinstance(x, bool):
            raise self.fail(f"{x!r} is a truth value, not an integer")
        if isinstance(x, int):
            return x
        if not isinstance(x, sympy.Basic):
            raise self.fail(f"{x!r} is not a sympy expression")
        if x.is_Integer:
            return int(x)
        if x.is_Number:
            raise self.fail(f"the number {x} is not an integer")
        if isinstance(x, sympy.Symbol):
            return self.variable(x.name)
        cls = type(x)
        if cls.__module__.startswith(_TORCH_MODULE):
            return self.torch_function(cls.__name__, x)
        if isinstance(x, sympy.Add):
            total: Dim = 0
            for a in x.args:
                total = total + self.read(a)
            return total
        if isinstance(x, sympy.Mul):
            for a in x.args:
                if (a.is_Rational and not a.is_Integer) or \
                        (isinstance(a, sympy.Pow) and a.exp.is_negative):
                    raise self.fail(
                        f"'{x}' is a fraction; symshape expressions are integer-valued "
                        "polynomials (write floor(...) for an integer division)")
            prod: Dim = 1
            for a in x.args:
                prod = prod * self.read(a)
            return prod
        if isinstance(x, sympy.Pow):
            return self.power(x.base, x.exp, "power")
        if isinstance(x, sympy.floor):
            num, den = self.fraction(x.args[0])
            return self.divide(num, den, "floor")
        if isinstance(x, sympy.ceiling):
            num, den = self.fraction(x.args[0])
            return -self.divide(-num, den, "ceiling")
        if isinstance(x, sympy.Mod):
            return self.binary(mod, x.args[0], x.args[1], "Mod")
        if isinstance(x, sympy.Max):
            return self.fold(max_expr, x.args)
        if isinstance(x, sympy.Min):
            return self.fold(min_expr, x.args)
        if isinstance(x, sympy.Abs):
            v = self.read(x.args[0])
            return max_expr(v, -v)
        name = getattr(cls, "__name__", repr(cls))
        raise self.fail(f"the function {name} has no symshape counterpart "
                        "(supported: + - *, integer powers, floor, ceiling, Mod, Max, Min, Abs "
                        "and PyTorch's FloorDiv, CleanDiv, CeilDiv, Mod, PythonMod, "
                        "ModularIndexing, Max, Min, PowByNatural, Identity)")

    def variable(self, name: str) -> Dim:
        v = self.symbols.get(name)
        if v is not None:
            return v
        if not _NAME_RE.match(name) or name in _RESERVED:
            raise self.fail(f"the symbol name {name!r} is not a symshape dimension variable "
                            "name (letters, digits and '_', starting with a letter); pass "
                            "symbols={...} to map it")
        return self.scope.var(name)

    def power(self, base: Any, exp: Any, what: str) -> Dim:
        if not (isinstance(exp, int) or getattr(exp, "is_Integer", False)) or int(exp) < 0:
            raise self.fail(f"the {what} '{base}**{exp}' has an exponent that is not a "
                            "non-negative integer constant")
        b = self.read(base)
        return b ** int(exp) if isinstance(b, DimExpr) else int(b) ** int(exp)

    def fraction(self, arg: Any) -> tuple[Dim, Dim]:
        """Numerator and denominator of ``arg`` as integer expressions."""
        if isinstance(arg, sympy.Basic) and not arg.is_Atom:
            inner = type(arg).__module__.startswith(_TORCH_MODULE) and \
                type(arg).__name__ == "IntTrueDiv"
            if inner:
                return self.read(arg.args[0]), self.read(arg.args[1])
            num, den = sympy.fraction(sympy.together(arg))
        else:
            num, den = sympy.fraction(arg) if isinstance(arg, sympy.Basic) else (arg, 1)
        return self.read(num), self.read(den)

    def divide(self, num: Dim, den: Dim, what: str) -> Dim:
        try:
            return floordiv(num, den)
        except ZeroDivisionError:
            raise self.fail(f"division by zero in {what}") from None
        except SymshapeError as err:
            raise type(err)(f"in {self.text!r}: {err}") from None

    def binary(self, fn: Callable[[Dim, Dim], Dim], x: Any, y: Any, what: str) -> Dim:
        try:
            return fn(self.read(x), self.read(y))
        except ZeroDivisionError:
            raise self.fail(f"division by zero in {what}") from None
        except SymshapeError as err:
            if isinstance(err, SympyConversionError):
                raise
            raise type(err)(f"in {self.text!r}: {err}") from None

    def fold(self, fn: Callable[[Dim, Dim], Dim], args: Iterable[Any]) -> Dim:
        vals = [self.read(a) for a in args]
        acc = vals[0]
        for v in vals[1:]:
            acc = fn(acc, v)
        return acc

    def torch_function(self, name: str, x: Any) -> Dim:
        args = x.args
        if name in ("FloorDiv", "CleanDiv"):
            return self.binary(floordiv, args[0], args[1], name)
        if name == "CeilDiv":  # CeilDiv(a, b) == -floordiv(-a, b)
            return -self.binary(lambda p, q: floordiv(-p, q), args[0], args[1], name)
        if name in ("Mod", "PythonMod"):
            return self.binary(mod, args[0], args[1], name)
        if name == "ModularIndexing":
            q = self.binary(floordiv, args[0], args[1], name)
            try:
                return mod(q, self.read(args[2]))
            except ZeroDivisionError:
                raise self.fail("modulus zero in ModularIndexing") from None
        if name == "Max":
            return self.fold(max_expr, args)
        if name == "Min":
            return self.fold(min_expr, args)
        if name == "PowByNatural":
            return self.power(args[0], args[1], name)
        if name == "Identity":
            return self.read(args[0])
        if name in ("LShift", "RShift"):
            shift = args[1]
            if not getattr(shift, "is_Integer", False) or int(shift) < 0:
                raise self.fail(f"{name} by '{shift}', not a non-negative integer constant")
            base = self.read(args[0])
            k = 2 ** int(shift)
            return base * k if name == "LShift" else floordiv(base, k)
        if name in ("FloorToInt", "CeilToInt"):
            arg = args[0]
            if type(arg).__name__ != "IntTrueDiv":
                raise self.fail(f"{name} of '{arg}', which is not an integer division")
            num, den = self.fraction(arg)
            if name == "FloorToInt":
                return self.divide(num, den, name)
            return -self.divide(-num, den, name)
        raise self.fail(f"PyTorch's function {name} has no symshape counterpart "
                        "(supported: FloorDiv, CleanDiv, CeilDiv, Mod, PythonMod, "
                        "ModularIndexing, Max, Min, PowByNatural, Identity, LShift/RShift "
                        "by constants, FloorToInt/CeilToInt of IntTrueDiv)")


def from_sympy(expr: Any, scope: SymbolicScope | None = None, *,
               symbols: Mapping[str, Dim] | None = None) -> Dim:
    """The symshape dimension of a sympy expression, in canonical form.

    Args:
      expr: a sympy expression (or an int) with integer value: see the module
        documentation for the functions understood.
      scope: the :class:`~symshape.SymbolicScope` to build it in (default: the
        scope of the expressions in ``symbols``, else a new scope).
      symbols: symbol name -> symshape dimension to substitute (for example
        PyTorch's ``s0`` -> the spec variable ``b``).  Other symbols become the
        dimension variables of the same name.

    Raises:
      SympyConversionError: for a function or value with no exact symshape
        counterpart, naming it.
      DivisionByZeroRiskError: for a symbolic divisor not proved non-zero.
    """
    sc = _scope_for(scope, symbols)
    return _Reader(sc, symbols, str(expr)).read(expr)


_RELATIONS: dict[str, Cmp] = {
    "Equality": Cmp.EQ, "Unequality": Cmp.NE, "GreaterThan": Cmp.GE,
    "StrictGreaterThan": Cmp.GT, "LessThan": Cmp.LE, "StrictLessThan": Cmp.LT,
}


def claims_from_sympy(cond: Any, scope: SymbolicScope | None = None, *,
                      symbols: Mapping[str, Dim] | None = None) -> list[str]:
    """The claims (texts for :func:`symshape.prove`) whose conjunction is ``cond``.

    ``cond`` is a sympy relation (``Eq``, ``Ne``, ``Ge``, ``Gt``, ``Le``,
    ``Lt``), a conjunction ``And`` of them, a ``Not`` of a relation, or
    ``true`` (no claim).  The sides are read with :func:`from_sympy`.

    Raises:
      SympyConversionError: for a disjunction or anything else that is not a
        conjunction of comparisons.
    """
    sc = _scope_for(scope, symbols)
    reader = _Reader(sc, symbols, str(cond))
    out: list[str] = []

    def walk(c: Any, negate: bool) -> None:
        if c is sympy.true or c is sympy.false:
            if (c is sympy.true) == negate:
                out.append("0 >= 1")
            return
        if isinstance(c, sympy.And) and not negate:
            for a in c.args:
                walk(a, False)
            return
        if isinstance(c, sympy.Not):
            walk(c.args[0], not negate)
            return
        op = _RELATIONS.get(type(c).__name__)
        if op is None or not isinstance(c, sympy.core.relational.Relational):
            raise reader.fail(f"'{c}' is not a comparison or a conjunction of comparisons")
        if negate:
            op = op.negated
        lhs = reader.read(c.args[0])
        rhs = reader.read(c.args[1])
        out.append(f"{lhs} {op.value} {rhs}")

    walk(cond, False)
    return out


__all__ = ["SympyConversionError", "claims_from_sympy", "from_sympy", "symbol", "to_sympy"]
