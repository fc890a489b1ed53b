"""Canonical symbolic dimension expressions: :class:`DimExpr` and its arithmetic.

A :class:`DimExpr` is a polynomial with integer coefficients over *atoms*
(``symshape.algebra.atoms``):

* ``Var`` -- a dimension variable, an integer >= 1;
* ``FloorDiv`` -- ``floordiv(num, den)`` where ``den`` is a positive
  constant or an expression proved to be >= 1;
* ``Max0`` -- ``max(arg, 0)``.

``mod`` and ``min`` are not atoms: ``mod(x, y) = x - y*floordiv(x, y)`` and
``min(x, y) = x + y - max(x, y)``, and ``max(x, y) = y + max(x - y, 0)``.  A
smaller basis means fewer ways to write one value, so more equal values get
identical canonical forms.  Their canonical forms are one module each:
``symshape.algebra.floordiv`` (``floordiv``, ``mod``) and
``symshape.algebra.maxmin`` (``max``, ``min``).

Representation: ``terms`` maps a *monomial* to its non-zero coefficient.  A
monomial is an interned ``Mono``, a tuple of ``(atom, exponent)`` pairs
sorted by the atoms' sort keys; the constant monomial is the empty one,
``ONE``.  A value that is constant is always a plain Python ``int``, never a
``DimExpr``.  Equality is equality of the term maps (and scope), so it is
cheap, never raises and agrees with ``hash``.

(Over 600 lines for a reason: the class's operators carry inlined fast paths
of the ring for the common cases of shape arithmetic, and the helpers they
share (leads, products, powers, size limits) belong with them; mypyc compiles
a native class's methods in the module that defines it.)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final, Union, cast

import numpy as np

from symshape.algebra.atoms import (
    ONE,
    Atom,
    Factors,
    Max0,
    Mono,
    Var,
    atom_mono,
    mono_key,
    mono_of,
    nonlinear,
)
from symshape.algebra.poly import Terms, evaluate_expr, mul
from symshape.echo import clip
from symshape.errors import ArgumentError, ExpressionTooLargeError
from symshape.parsing import MAX_INT_DIGITS

if TYPE_CHECKING:
    from symshape.algebra.protocol import AlgebraScope
    from symshape.scope import SymbolicScope  # only for the public ``DimExpr.scope``

DimLike = Union["DimExpr", int]


class DimExpr:
    """A symbolic dimension expression in canonical form.

    Build them with :func:`symshape.symbolic_shape`; combine them with ``+ - *
    // % divmod **`` and Python ints.  Comparisons ``>= > <= <`` return a
    ``bool`` when decided for every valuation allowed by the scope and raise
    :class:`~symshape.InconclusiveDimensionOperation` otherwise; ``==`` is
    identity of canonical forms.
    """

    __slots__ = ("terms", "_scope", "_hash", "_lead", "_sorted", "_key", "__weakref__")
    __array_priority__ = 1000  # numpy scalars defer to our reflected operators

    terms: Terms
    """The polynomial: monomial -> nonzero coefficient (read only: never mutate it)."""
    _scope: AlgebraScope
    _hash: int
    _lead: tuple[tuple[Any, ...], Mono] | None
    _sorted: tuple[tuple[Mono, int], ...] | None
    _key: tuple[Any, ...] | None

    def __init__(self, terms: Terms, scope: AlgebraScope) -> None:
        # Use make() instead: it returns an int for constant results.
        self.terms = terms
        self._scope = scope
        self._hash = -1  # computed on first use (hash() never returns -1)
        # The leading monomial with its sort key, (mono_key(m), m): None until
        # computed (or inherited from the operands by the arithmetic fast
        # paths, see _sum_lead).
        self._lead = None
        # _sorted and _key are computed on first use.  The arithmetic's fast
        # paths allocate without __init__ in pure Python, leaving these slots
        # unset (readers use getattr with a default); the compiled build
        # allocates through here, and sets them, because there a read of an
        # unset attribute raises inside getattr, which costs about a
        # microsecond.
        self._sorted = None
        self._key = None

    # -- construction helpers ------------------------------------------------
    @staticmethod
    def make(terms: Terms, scope: AlgebraScope,
             lead: tuple[tuple[Any, ...], Mono] | None = None) -> DimExpr | int:
        """Wrap a term map (zero coefficients already dropped), applying scope rules.

        ``lead`` is ``(mono_key(m), m)`` for the leading monomial ``m`` of
        ``terms`` when the caller knows it (None: computed on first use); rules
        that rewrite the terms drop it.
        """
        if scope.rewrites_terms and terms:
            rewritten = scope.rewrite_terms(terms)
            if rewritten is not terms:
                terms, lead = rewritten, None
        n = len(terms)
        if n <= 1:
            if n == 0:
                return 0
            if ONE in terms:
                return terms[ONE]
        e = DimExpr(terms, scope) if _COMPILED else _new(DimExpr)
        e.terms = terms
        e._scope = scope
        e._hash = -1
        e._lead = lead
        return e

    @property
    def scope(self) -> SymbolicScope:
        """The :class:`~symshape.SymbolicScope` the expression belongs to."""
        return cast("SymbolicScope", self._scope)

    def sorted_terms(self) -> tuple[tuple[Mono, int], ...]:
        """Terms in canonical order: leading (highest degree, then lex) first."""
        # getattr with a default: new expressions miss, and a raise costs more.
        st: tuple[tuple[Mono, int], ...] | None = getattr(self, "_sorted", None)
        if st is None:
            items = self.terms.items()
            # One term needs no sort keys (sorted() would still compute them).
            st = self._sorted = tuple(items) if len(items) == 1 else \
                tuple(sorted(items, key=lambda t: mono_key(t[0])))
        return st

    @property
    def sort_key(self) -> tuple[Any, ...]:
        """A key giving a total order on expressions (used to order atoms)."""
        k: tuple[Any, ...] | None = getattr(self, "_key", None)  # as in sorted_terms
        if k is None:
            k = self._key = (1,) + tuple((mono_key(m), c) for m, c in self.sorted_terms())
        return k

    @property
    def leading_term(self) -> tuple[Mono, int]:
        """The leading ``(monomial, coefficient)``: highest degree, then lex."""
        terms = self.terms
        lead = self._lead
        if lead is None:
            m = min(terms, key=mono_key)
            self._lead = (mono_key(m), m)
            return m, terms[m]
        m = lead[1]
        return m, terms[m]

    @property
    def leading_coefficient(self) -> int:
        """Coefficient of the leading term."""
        return self.leading_term[1]

    @property
    def constant(self) -> int:
        """The constant term."""
        return self.terms.get(ONE, 0)

    @property
    def free_vars(self) -> set[str]:
        """Names of the dimension variables the expression depends on."""
        out: set[str] = set()
        for a in self.atoms(recursive=True):
            if type(a) is Var:
                out.add(a.name)
        return out

    def atoms(self, recursive: bool = False) -> set[Atom]:
        """Atoms of the top-level monomials (and, if ``recursive``, nested ones)."""
        out: set[Atom] = set()
        stack: list[DimExpr] = [self]
        while stack:
            e = stack.pop()
            for m in e.terms:
                pairs: Factors = m
                for a, _ in pairs:
                    if a in out:
                        continue
                    out.add(a)
                    if recursive:
                        stack.extend(o for o in a.operands if isinstance(o, DimExpr))
        return out

    def is_linear(self) -> bool:
        """True if every monomial has degree <= 1."""
        return not any(nonlinear(m) for m in self.terms)

    # -- hashing and equality -------------------------------------------------
    def __hash__(self) -> int:
        h = self._hash
        if h == -1:
            # Order-independent (equal term maps may differ in order): a sum
            # over the terms, without the set a frozenset hash would build
            # (most expressions are hashed once, as keys of the scope's memos).
            # (The multiplier fits one digit of a Python int: a product of
            # one-digit ints is computed without CPython's long multiplication,
            # which checks for signals, and compiled code aborts where an int
            # operation fails, as it does when a signal handler raises there.)
            acc = 0
            for m, c in self.terms.items():
                acc += hash(m) ^ (c * 0x3E3779B1)
            h = self._hash = hash(acc)  # (never -1)
        return h

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if isinstance(other, DimExpr):
            return (self._scope is other._scope and hash(self) == hash(other)
                    and self.terms == other.terms)
        return False  # a DimExpr is never a constant: constants are ints

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    # -- arithmetic -------------------------------------------------------------
    @staticmethod
    def _has_max_power(terms: Terms) -> bool:
        """Does a monomial hold a ``max`` atom with exponent >= 2?"""
        for m in terms:
            pairs: Factors = m
            for a, k in pairs:
                if k >= 2 and type(a) is Max0:
                    return True
        return False

    def _coerce(self, other: Any, op: str) -> DimExpr | int | None:
        if isinstance(other, DimExpr):
            if other._scope is not self._scope:
                self._scope.raise_mismatch(other, op, self)
            return other
        return as_int(other)

    def __add__(self, other: Any) -> DimExpr | int:
        # Fast paths (the common cases of shape arithmetic); the term maps are
        # built in the same order as _add builds them.
        scope = self._scope
        if type(other) is DimExpr and other._scope is scope:
            out = self.terms.copy()
            for m, c in other.terms.items():
                if m in out:  # (cheaper than out.get for the few terms of a shape)
                    c += out[m]
                    if not c:
                        del out[m]
                        continue
                out[m] = c
            if scope.rewrites_terms:
                return DimExpr.make(out, scope)
            # _wrap inlined (the hottest path)
            n = len(out)
            if n <= 1:
                if n == 0:
                    return 0
                if ONE in out:
                    return out[ONE]
            e = DimExpr(out, scope) if _COMPILED else _new(DimExpr)
            e.terms = out
            e._scope = scope
            e._hash = -1
            # _sum_lead inlined for the common case where both leads are known
            l1 = self._lead
            l2 = other._lead
            if l1 is not None and l2 is not None:
                k1 = l1[0]
                k2 = l2[0]
                if k1 is k2 or k1 == k2:
                    e._lead = l1 if l1[1] in out else None
                else:
                    e._lead = l1 if k1 < k2 else l2
            else:
                e._lead = _sum_lead(self, other, out)
            return e
        if type(other) is int:
            out = self.terms.copy()
            if other:
                c = out.get(ONE, 0) + other
                if c:
                    out[ONE] = c
                else:
                    del out[ONE]
            # The leading monomial of a non-constant expression is never ONE.
            return _wrap(out, self._scope, self._lead)
        o = self._coerce(other, "+")
        if o is None:
            return NotImplemented
        return _add(self.terms, o, 1, self._scope)

    def __radd__(self, other: Any) -> DimExpr | int:
        return self.__add__(other)

    def __sub__(self, other: Any) -> DimExpr | int:
        if type(other) is DimExpr and other._scope is self._scope:
            out = self.terms.copy()
            for m, c in other.terms.items():
                if m in out:  # (as in __add__)
                    c = out[m] - c
                    if not c:
                        del out[m]
                        continue
                    out[m] = c
                else:
                    out[m] = -c
            return _wrap(out, self._scope, _sum_lead(self, other, out))
        if type(other) is int:
            out = self.terms.copy()
            if other:
                c = out.get(ONE, 0) - other
                if c:
                    out[ONE] = c
                else:
                    del out[ONE]
            return _wrap(out, self._scope, self._lead)
        o = self._coerce(other, "-")
        if o is None:
            return NotImplemented
        return _add(self.terms, o, -1, self._scope)

    def __rsub__(self, other: Any) -> DimExpr | int:
        o = self._coerce(other, "-")
        if o is None:
            return NotImplemented
        return _add(_neg_terms(self.terms), o, 1, self._scope)

    def __neg__(self) -> DimExpr | int:
        return _wrap(_neg_terms(self.terms), self._scope, self._lead)

    def __pos__(self) -> DimExpr:
        return self

    def __mul__(self, other: Any) -> DimExpr | int:
        if type(other) is int:
            if other == 1:
                return self
            if other == 0:
                return 0
            # A loop, not a comprehension: cheaper for the few terms of a shape.
            out: Terms = {}
            for m, c in self.terms.items():
                out[m] = c * other
            scope = self._scope
            if scope.rewrites_terms:
                return DimExpr.make(out, scope)
            # _wrap inlined (the hottest path).  Scaling a non-constant
            # expression by a nonzero int keeps it non-constant and keeps the
            # leading monomial.
            e = DimExpr(out, scope) if _COMPILED else _new(DimExpr)
            e.terms = out
            e._scope = scope
            e._hash = -1
            e._lead = self._lead
            return e
        o = self._coerce(other, "*")
        if o is None:
            return NotImplemented
        return _mul(self, o, self._scope)

    def __rmul__(self, other: Any) -> DimExpr | int:
        return self.__mul__(other)

    def __pow__(self, power: Any, modulo: Any = None) -> DimExpr | int:
        if modulo is not None:
            return NotImplemented
        p = as_int(power)
        if p is None:
            raise TypeError(f"exponent of a dimension expression must be a non-negative int, "
                            f"got {power!r}")
        if p < 0:
            raise ValueError(f"negative exponent {p} of dimension expression '{self}'")
        return dim_power(self, p)

    def __floordiv__(self, other: Any) -> DimExpr | int:
        o = self._coerce(other, "//")
        if o is None:
            return NotImplemented
        return _FLOORDIV[0](self, o)

    def __rfloordiv__(self, other: Any) -> DimExpr | int:
        o = self._coerce(other, "//")
        if o is None:
            return NotImplemented
        return _FLOORDIV[0](o, self)

    def __mod__(self, other: Any) -> DimExpr | int:
        o = self._coerce(other, "%")
        if o is None:
            return NotImplemented
        return _MOD[0](self, o)

    def __rmod__(self, other: Any) -> DimExpr | int:
        o = self._coerce(other, "%")
        if o is None:
            return NotImplemented
        return _MOD[0](o, self)

    def __divmod__(self, other: Any) -> tuple[DimExpr | int, DimExpr | int]:
        o = self._coerce(other, "divmod")
        if o is None:
            return NotImplemented
        return _FLOORDIV[0](self, o), _MOD[0](self, o)

    def __rdivmod__(self, other: Any) -> tuple[DimExpr | int, DimExpr | int]:
        o = self._coerce(other, "divmod")
        if o is None:
            return NotImplemented
        return _FLOORDIV[0](o, self), _MOD[0](o, self)

    def __truediv__(self, other: Any) -> Any:
        raise TypeError(f"true division '/' of dimension expression '{self}' by {other!r} is "
                        "not supported: dimensions are integers, use '//' (floor division)")

    def __rtruediv__(self, other: Any) -> Any:
        raise TypeError(f"true division '/' of {other!r} by dimension expression '{self}' is "
                        "not supported: dimensions are integers, use '//' (floor division)")

    # -- comparisons ----------------------------------------------------------
    def __ge__(self, other: Any) -> bool:
        return self._scope.compare(self, other, ">=")

    def __gt__(self, other: Any) -> bool:
        return self._scope.compare(self, other, ">")

    def __le__(self, other: Any) -> bool:
        return self._scope.compare(self, other, "<=")

    def __lt__(self, other: Any) -> bool:
        return self._scope.compare(self, other, "<")

    def __bool__(self) -> bool:
        # A dimension variable is >= 1, so a nonzero test is a comparison.
        return self._scope.compare(self, 0, "!=")

    def __int__(self) -> int:
        raise TypeError(f"symbolic dimension '{self}' has no concrete int value; "
                        "use evaluate() with values for its variables")

    def __index__(self) -> int:
        return self.__int__()

    # -- evaluation and printing ---------------------------------------------
    def evaluate(self, env: Mapping[str, Any]) -> Any:
        """Value under ``env`` (a mapping of variable names to ints).

        Values may also be numpy integer arrays of a common shape; then the
        result is an ``int64`` array computed elementwise with floor semantics.
        """
        arrays = any(isinstance(v, np.ndarray) for v in env.values())
        if arrays:
            env = {k: np.asarray(v, dtype=np.int64) for k, v in env.items()}
        v = evaluate_expr(self, env)
        if arrays:
            return np.asarray(v, dtype=np.int64)
        return int(v)

    def __str__(self) -> str:
        return _PRINTER[0](self)

    def __repr__(self) -> str:
        return str(self)

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __reduce__(self) -> Any:
        raise TypeError("DimExpr objects are tied to their scope and cannot be pickled; "
                        "pickle str(e) and the scope's constraints instead")


def as_int(x: Any) -> int | None:
    """Convert ints, numpy integer scalars and 0-d integer arrays; else ``None``."""
    if type(x) is int:
        return x
    if isinstance(x, bool):
        return int(x)
    if isinstance(x, int | np.integer):
        return int(x)
    if isinstance(x, np.ndarray) and x.ndim == 0 and np.issubdtype(x.dtype, np.integer):
        return int(x)
    return None


def _neg_terms(t: Terms) -> Terms:
    return {m: -c for m, c in t.items()}


_wrap = DimExpr.make  # the name the arithmetic's fast paths use


_Lead = tuple[tuple[Any, ...], Mono]


def _of_variables(e: DimExpr) -> bool:
    """Is ``e`` one term of variables (see :func:`_single_lead`)?"""
    if len(e.terms) != 1:
        return False
    for a, _ in next(iter(e.terms)):  # noqa: SIM110 (a loop: no generator object)
        if type(a) is not Var:
            return False
    return True


def _single_lead(e: DimExpr) -> _Lead | None:
    """The leading ``(key, monomial)`` of ``e`` if it is one term of variables.

    Only then is the key cheap: a floordiv or max atom would need its sort
    key computed, a walk over its operands that most expressions never need.
    """
    return _variables_lead(e) if _of_variables(e) else None


def _variables_lead(e: DimExpr) -> _Lead:
    """The leading ``(key, monomial)`` of ``e``, one term of variables."""
    m = next(iter(e.terms))
    lead = e._lead = (mono_key(m), m)
    return lead


def _sum_lead(x: DimExpr, y: DimExpr, out: Terms) -> _Lead | None:
    """Leading ``(key, monomial)`` of ``out = x +- y`` from those of ``x`` and
    ``y``, when they settle it (else None).  The smaller key cannot occur in
    the other operand, so it survives and leads; equal leads lead unless they
    cancel."""
    l1 = x._lead
    l2 = y._lead
    # (neither key is computed unless both leads can be known)
    if l1 is None and not _of_variables(x) or l2 is None and not _of_variables(y):
        return None
    if l1 is None:
        l1 = _variables_lead(x)
    if l2 is None:
        l2 = _variables_lead(y)
    k1 = l1[0]
    k2 = l2[0]
    if k1 is k2 or k1 == k2:
        return l1 if l1[1] in out else None
    return l1 if k1 < k2 else l2


def add_expr_into(out: Terms, x: DimExpr | int, sign: int) -> None:
    """``out += sign*x`` on a term map in place (zero coefficients dropped)."""
    if type(x) is int:
        if x:
            c = out.get(ONE, 0) + sign * x
            if c:
                out[ONE] = c
            else:
                del out[ONE]
        return
    assert isinstance(x, DimExpr)
    get = out.get
    for m, c in x.terms.items():
        c = get(m, 0) + sign * c
        if c:
            out[m] = c
        else:
            del out[m]


def _add(terms: Terms, other: DimExpr | int, sign: int, scope: AlgebraScope) -> DimExpr | int:
    out = dict(terms)
    add_expr_into(out, other, sign)
    return DimExpr.make(out, scope)

def _mul(e: DimExpr, other: DimExpr | int, scope: AlgebraScope) -> DimExpr | int:
    if type(other) is int:
        if other == 0:
            return 0
        if other == 1:
            return e
        return DimExpr.make({m: c * other for m, c in e.terms.items()}, scope)
    assert isinstance(other, DimExpr)
    pairs = len(e.terms) * len(other.terms)
    # Repeated squaring of a monomial doubles its degree at no cost; a product
    # with more terms is bounded by MAX_PRODUCT_PAIRS (its terms grow too).
    if pairs == 1 and degree(e) + degree(other) > MAX_DEGREE:
        raise ExpressionTooLargeError(
            f"expression too large: the product of ({clip(str(e))}) and "
            f"({clip(str(other))}) has degree {degree(e) + degree(other)}, above the limit "
            f"of {MAX_DEGREE}")
    if pairs > MAX_PRODUCT_PAIRS:
        raise ExpressionTooLargeError(
            f"expression too large: multiplying a {len(e.terms)}-term expression by a "
            f"{len(other.terms)}-term one combines {pairs} pairs of terms (the limit is "
            f"{MAX_PRODUCT_PAIRS}); dimension expressions of real shapes are far smaller")
    out = mul(e.terms, other.terms)
    if e._has_max_power(out):
        return _reduce_max_powers(out, scope)
    return DimExpr.make(out, scope)


def _reduce_max_powers(terms: Terms, scope: AlgebraScope) -> DimExpr | int:
    """Rewrite ``max(d, 0)**k`` as ``max(d, 0)*d**(k-1)`` in every monomial
    (equal: both are 0 where ``d <= 0``, and ``d**k`` elsewhere).  One
    canonical spelling of powers of a max makes ``max(m, f)*min(m, f)`` equal
    to ``m*f``."""
    total: DimExpr | int = 0
    plain: Terms = {}
    for m, c in terms.items():
        high = [(a, k) for a, k in m if k >= 2 and type(a) is Max0]
        if not high:
            plain[m] = c
            continue
        rest: Terms = {mono_of(tuple((a, k) for a, k in m if not (k >= 2 and type(a) is Max0))): c}
        part: DimExpr | int = DimExpr.make(rest, scope)
        for a, k in high:
            assert isinstance(a, Max0)
            part = mul_any(part, DimExpr.make({atom_mono(a): 1}, scope), scope)
            part = mul_any(part, a.arg ** (k - 1), scope)
        total = total + part
    return total + DimExpr.make(plain, scope) if plain else total


# The printer lives in :mod:`symshape.printing`, which builds on this module and
# installs itself here when imported (the package imports it), so that the
# algebra never imports its presentation.  Until then, the raw term map.
_PRINTER: list[Callable[[DimExpr], str]] = [lambda e: f"DimExpr({e.terms!r})"]


def set_printer(printer: Callable[[DimExpr], str]) -> None:
    """Install the function that spells expressions (see :mod:`symshape.printing`)."""
    _PRINTER[0] = printer


# Multiplying expressions costs one step per pair of terms: bound it, so that
# building an expression (``(a + ... + h)**10``) cannot run for minutes.
MAX_PRODUCT_PAIRS = 100_000


# Degrees and constants are bounded so that every query stays cheap: a
# valuation's value of a degree-1000 monomial already has thousands of digits,
# and ``a**10**20`` or ``2**10**20`` would never finish.  Real shapes use
# degree 2 or 3 and constants far below 2**64.
MAX_DEGREE = 1000
# A constant power may have as many digits as one integer literal.
_MAX_CONSTANT_BITS = MAX_INT_DIGITS * 3322 // 1000 + 1  # 10**k has at most k*log2(10)+1 bits


def degree(e: DimExpr | int) -> int:
    """The total degree of ``e`` (of its leading monomial; 0 for constants)."""
    if isinstance(e, int):
        return 0
    lead = e._lead
    if lead is None:
        e.leading_term  # noqa: B018 - computes and keeps the lead
        lead = e._lead
        assert lead is not None
    return -lead[0][0]  # a monomial's sort key starts with minus its degree


def dim_power(x: DimExpr | int, p: int) -> DimExpr | int:
    """``x ** p`` for an int ``p >= 0``, refusing results beyond the size
    limits (:data:`MAX_DEGREE`; ``MAX_INT_DIGITS`` digits for an int) before
    any work."""
    if isinstance(x, int):
        # (|x| has at least bit_length - 1 bits of magnitude: refused before
        # computing when surely too large, checked exactly after otherwise)
        if p > 1 and abs(x) > 1 and ((abs(x).bit_length() - 1) * p >= _MAX_CONSTANT_BITS
                                     or (x ** p).bit_length() > _MAX_CONSTANT_BITS):
            raise ExpressionTooLargeError(
                f"constant too large: {_short_int(x)}**{_short_int(p)} has more than "
                f"{MAX_INT_DIGITS} digits")
        return x ** p
    if p > 1 and degree(x) * p > MAX_DEGREE:
        raise ExpressionTooLargeError(
            f"expression too large: ({clip(str(x))})**{_short_int(p)} has degree "
            f"{_short_int(degree(x) * p)}, above the limit of {MAX_DEGREE}")
    result: DimExpr | int = 1
    base: DimExpr | int = x
    while p:
        if p & 1:
            result = mul_any(result, base, x._scope)
        p >>= 1
        if p:
            base = mul_any(base, base, x._scope)
    return result


def _short_int(n: int) -> str:
    """``n`` in decimal, or its digit count when too long to show (and to
    convert: Python refuses ints of over 4300 digits by default)."""
    if n.bit_length() <= 200:
        return str(n)
    return f"<an integer of about {int(n.bit_length() * 0.30103) + 1} digits>"


def mul_any(x: DimExpr | int, y: DimExpr | int, scope: AlgebraScope) -> DimExpr | int:
    if isinstance(x, DimExpr):
        return _mul(x, y, scope)
    if isinstance(y, DimExpr):
        return _mul(y, x, scope)
    return x * y


def scope_of(*xs: Any) -> AlgebraScope | None:
    scope = None
    for x in xs:
        if isinstance(x, DimExpr):
            if scope is None:
                scope = x._scope
            elif x._scope is not scope:
                scope.raise_mismatch(x, "combining", None)
    return scope


def check_dim(x: Any, what: str) -> DimExpr | int:
    """``x`` as a dimension (a DimExpr or an int); an ArgumentError (a TypeError too)
    naming ``what`` otherwise."""
    if isinstance(x, DimExpr):
        return x
    v = as_int(x)
    if v is None:
        raise ArgumentError(f"{what}: expected an int or a symbolic dimension, got "
                            f"{type(x).__name__} {x!r:.80}")
    return v


def comparison_difference(op: str, lhs: DimLike, rhs: DimLike) -> tuple[str, DimExpr | int]:
    """``lhs op rhs`` as ``d >= 0``, ``d == 0`` or ``d != 0``: the kind (``">="``,
    ``"=="`` or ``"!="``) and ``d``, over the integers (``a > b`` is
    ``a - b - 1 >= 0``).  The one reading of the six comparison operators."""
    if type(rhs) is int and rhs == 0 and op in (">=", "==", "!="):
        return op, lhs  # (no copy of an expression compared with 0)
    if op == ">=":
        return ">=", lhs - rhs
    if op == ">":
        return ">=", lhs - rhs - 1
    if op == "<=":
        return ">=", rhs - lhs
    if op == "<":
        return ">=", rhs - lhs - 1
    if op in ("==", "!="):
        return op, lhs - rhs
    raise ValueError(f"unknown comparison operator {op!r}")


def is_symbolic_dim(x: Any) -> bool:
    """True if ``x`` is a symbolic dimension expression (not a constant)."""
    return isinstance(x, DimExpr)


# floordiv and mod have their canonical forms in symshape.algebra.floordiv,
# which builds on this module and installs them here when imported (every
# expression belongs to a scope, and symshape.scope imports it through
# symshape.build and symshape.algebra.substitute), so that the operators
# ``//``, ``%`` and ``divmod`` reach them.
def _no_division(x: DimLike, y: DimLike) -> DimExpr | int:
    raise RuntimeError("symshape.algebra.floordiv is not imported")


_FLOORDIV: list[Callable[[DimLike, DimLike], DimExpr | int]] = [_no_division]
_MOD: list[Callable[[DimLike, DimLike], DimExpr | int]] = [_no_division]


def set_division(floordiv: Callable[[DimLike, DimLike], DimExpr | int],
                 mod: Callable[[DimLike, DimLike], DimExpr | int]) -> None:
    """Install the canonical forms of ``floordiv`` and ``mod`` (see
    :mod:`symshape.algebra.floordiv`)."""
    _FLOORDIV[0] = floordiv
    _MOD[0] = mod


__all__ = [
    "MAX_DEGREE", "MAX_PRODUCT_PAIRS", "DimExpr", "DimLike", "add_expr_into", "as_int",
    "check_dim", "comparison_difference", "degree", "dim_power", "is_symbolic_dim", "mul_any",
    "scope_of", "set_division", "set_printer",
]


def _is_compiled() -> bool:
    """Whether this module runs compiled by mypyc (which refuses to allocate
    its classes without their constructor)."""
    try:
        object.__new__(DimExpr)
    except TypeError:
        return True
    return False


# The arithmetic's fast paths allocate an expression and set its slots.  In
# pure Python, object.__new__ skips __init__ (the cheapest allocation in
# CPython); the compiled build calls the constructor itself, a C call (it
# cannot allocate its classes otherwise, and a call through a variable would
# be a generic call, several times the cost).
_COMPILED: Final = _is_compiled()
_new: Callable[[type[DimExpr]], DimExpr] = object.__new__  # (pure Python only)
if not _COMPILED:
    # mypyc needs the reflected operators written as methods; in pure Python
    # the aliases save a call per ``2*h`` or ``1 + h`` (about 30 ns, 8%).
    DimExpr.__radd__ = DimExpr.__add__  # type: ignore[method-assign]
    DimExpr.__rmul__ = DimExpr.__mul__  # type: ignore[method-assign]
    DimExpr.__index__ = DimExpr.__int__  # type: ignore[method-assign, assignment]
