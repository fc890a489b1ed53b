"""Canonical symbolic dimension expressions.

A :class:`DimExpr` is a polynomial with integer coefficients over *atoms*:

* :class:`Var` -- a dimension variable, an integer >= 1;
* :class:`FloorDiv` -- ``floordiv(num, den)`` where ``den`` is a positive
  constant or an expression proved to be >= 1;
* :class:`Max0` -- ``max(arg, 0)``.

``mod`` and ``min`` are not atoms: ``mod(x, y) = x - y*floordiv(x, y)`` and
``min(x, y) = x + y - max(x, y)``, and ``max(x, y) = y + max(x - y, 0)``.  A
smaller basis means fewer ways to write one value, so more equal values get
identical canonical forms.

Representation: ``_terms`` maps a *monomial* to its non-zero coefficient.  A
monomial is an interned :class:`Mono`, a tuple of ``(atom, exponent)`` pairs
sorted by the atoms' sort keys; the constant monomial is the empty one,
``ONE``.  A value that is constant is always a
plain Python ``int``, never a ``DimExpr``.  Equality is equality of the term
maps (and scope), so it is cheap, never raises and agrees with ``hash``.
"""

from __future__ import annotations

import math
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, Union, cast

import numpy as np

from symshape._mypyc import mypyc_attr
from symshape.echo import clip
from symshape.errors import DivisionByZeroRiskError, ExpressionTooLargeError, UnknownDimensionError
from symshape.parsing import MAX_INT_DIGITS

if TYPE_CHECKING:
    from symshape.scope import SymbolicScope  # only for the public ``DimExpr.scope``


class AlgebraScope(Protocol):
    """What the algebra asks of the scope its expressions belong to.

    This is the one interface between the algebra (this module) and the
    scope (``symshape.scope``, a layer above): the scope's rewrite rules, its
    tables of interned atoms and of normalized divisions, and cheap bounds
    and decisions that ``floordiv``/``mod``/``max``/``min`` use to pick their
    canonical forms.  :class:`symshape.SymbolicScope` implements it.
    """

    #: interned ``FloorDiv``/``Max0`` atoms of the scope, by structural key
    atom_table: dict[Any, Any]
    #: normalized ``floordiv`` results, by the operands' keys
    division_memo: dict[Any, Any]
    #: True when some equality constraint rewrites terms (see ``rewrite_terms``)
    rewrites_terms: bool

    def var(self, name: str) -> DimExpr | int:
        """The expression for variable ``name`` (rewrite rules applied)."""
        ...

    def rewrite_terms(self, terms: Terms) -> Terms:
        """``terms`` with the equality constraints' rewrite rules applied."""
        ...

    def divisibility_rules(self) -> tuple[tuple[Terms, int, Mono], ...]:
        """``(terms of E, K, monomial of floordiv(E, K))`` for each ``mod(E, K) == 0``."""
        ...

    def interval(self, e: DimExpr | int) -> tuple[float | int, float | int]:
        """Cheap, sound interval bounds of ``e``."""
        ...

    def sign(self, e: DimExpr | int) -> int:
        """1 if ``e >= 1`` is proved, -1 if ``e <= -1`` is proved, else 0."""
        ...

    def order(self, e: DimExpr | int) -> int:
        """1 if ``e >= 0`` is proved, -1 if ``e <= 0`` is proved, else 0."""
        ...

    def compare(self, x: DimExpr, other: Any, op: str) -> bool:
        """The comparison ``x op other``, or raise when it is inconclusive."""
        ...

    def raise_mismatch(self, other: DimExpr, op: str, mine: DimExpr | None) -> None:
        """Raise the error for combining expressions of two scopes."""
        ...


# ---------------------------------------------------------------------------
# Atoms


@mypyc_attr(native_class=False)
class Atom:
    """An opaque integer-valued building block of monomials.

    Atoms are interned (variables globally by name, floordivs and maxes per
    scope), so equality and hashing are by identity: that keeps dictionary
    operations on monomials in C, which is most of the arithmetic's cost.
    Create them only through :func:`make_var`, :func:`make_floordiv_atom` and
    :func:`make_max0_atom`.
    """

    # _key: set by Var.__init__; for floordivs and maxes, None until sort_key
    # computes it (it sorts the operands, and many atoms never need it).
    # _digest and _size: memos of symshape.decision.poly, and _shape and
    # _depth, ones of symshape.decision.canon, kept on the atom so that they die with its
    # scope (a global table would keep scopes alive).
    # _m1: the atom's degree-1 monomial (see atom_mono); _monos: the
    # monomials interned in this atom (see mono_of), None until first needed
    # (a variable's table and degree-1 monomial are made with it: variables
    # are shared by threads).
    # The constructors set the lazily filled slots to None: a missing slot
    # costs an exception to test.
    __slots__ = ("_key", "_digest", "_size", "_shape", "_depth", "_m1", "_monos",
                 "__weakref__")
    _key: tuple[Any, ...] | None
    _digest: int
    _size: int
    _m1: Mono | None
    _monos: dict[tuple[tuple[Atom, int], ...], Mono] | None

    @property
    def sort_key(self) -> tuple[Any, ...]:
        """A total order on atoms: variables by name, then floordivs, then maxes."""
        k = self._key
        if k is None:
            _fill_atom_keys(self)
            k = self._key
            assert k is not None
        return k

    def _make_key(self) -> tuple[Any, ...]:
        raise NotImplementedError

    def __lt__(self, other: Atom) -> bool:
        return self.sort_key < other.sort_key

    def evaluate(self, env: Mapping[str, Any]) -> Any:
        """Value of the atom under ``env`` (ints or numpy integer arrays)."""
        raise NotImplementedError

    @property
    def operands(self) -> tuple[DimExpr | int, ...]:
        """The sub-expressions of the atom (empty for a variable)."""
        return ()


@mypyc_attr(native_class=False)
class Var(Atom):
    """A dimension variable (an integer >= 1)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name
        self._key = (0, name)
        # Its degree-1 monomial at once, interned in it (every variable a
        # scope hands out needs it; see mono_of and atom_mono).
        key = ((self, 1),)
        m = Mono(key)
        self._monos = {key: m}
        self._m1 = m

    def __repr__(self) -> str:
        return self.name

    def evaluate(self, env: Mapping[str, Any]) -> Any:
        try:
            return env[self.name]
        except KeyError:
            raise UnknownDimensionError(
                f"no value for dimension variable '{self.name}' "
                f"(given: {sorted(env) if env else 'none'})") from None


@mypyc_attr(native_class=False)
class FloorDiv(Atom):
    """``floordiv(num, den)`` with ``den`` >= 1 (constant or proved)."""

    __slots__ = ("num", "den")

    def __init__(self, num: DimExpr | int, den: DimExpr | int) -> None:
        self.num = num
        self.den = den
        self._key = None
        self._m1 = None
        self._monos = None

    def _make_key(self) -> tuple[Any, ...]:
        return (1, _expr_key(self.num), _expr_key(self.den))

    def __repr__(self) -> str:
        return f"floordiv({self.num}, {self.den})"

    @property
    def operands(self) -> tuple[DimExpr | int, ...]:
        return (self.num, self.den)

    def evaluate(self, env: Mapping[str, Any]) -> Any:
        return _eval_atom(self, env)


@mypyc_attr(native_class=False)
class Max0(Atom):
    """``max(arg, 0)``; ``arg`` has a positive leading coefficient and content 1."""

    __slots__ = ("arg",)

    def __init__(self, arg: DimExpr) -> None:
        self.arg = arg
        self._key = None
        self._m1 = None
        self._monos = None

    def _make_key(self) -> tuple[Any, ...]:
        return (2, _expr_key(self.arg))

    def __repr__(self) -> str:
        return f"max({self.arg}, 0)"

    @property
    def operands(self) -> tuple[DimExpr | int, ...]:
        return (self.arg,)

    def evaluate(self, env: Mapping[str, Any]) -> Any:
        return _eval_atom(self, env)


def atom_children(a: Atom) -> list[Atom]:
    """The atoms of the operands of ``a`` (one level down)."""
    return [b for o in a.operands if isinstance(o, DimExpr) for m in o._terms for b, _ in m]


def compound_children(a: Atom) -> list[Atom]:
    """The floordiv and max atoms of the operands of ``a`` (one level down):
    the children for a :func:`fold_atoms` whose ``compute`` reads variables
    itself (an atom over variables alone then takes its fast path)."""
    return [b for o in a.operands if isinstance(o, DimExpr) for m in o._terms for b, _ in m
            if type(b) is not Var]


V = TypeVar("V")


def fold_atoms(root: Atom, memo: MutableMapping[Atom, V], compute: Callable[[Atom], V],
               children: Callable[[Atom], Iterable[Atom]] = atom_children) -> V:
    """``memo[root]``, first setting ``memo[x] = compute(x)`` for every atom
    ``x`` below ``root`` (``root`` included) that is not in ``memo`` yet.

    Innermost atoms come first, so ``compute(x)`` may read ``memo`` for the
    atoms of ``x``'s operands.  Iterative: a deep nest cannot hit the recursion
    limit; shared sub-expressions are computed once.
    """
    if root in memo:
        return memo[root]
    missing = [b for b in children(root) if b not in memo]
    if not missing:  # the common shallow case, without the stack
        v = memo[root] = compute(root)
        return v
    stack = [root, *missing]
    while stack:
        x = stack[-1]
        if x in memo:
            stack.pop()
            continue
        missing = [b for b in children(x) if b not in memo]
        if missing:
            stack.extend(missing)
            continue
        memo[x] = compute(x)
        stack.pop()
    return memo[root]


class AttrMemo(MutableMapping[Any, Any]):
    """A memo for :func:`fold_atoms` kept in an attribute slot of each atom
    (or of any object with that attribute: monomials carry memos too)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    # An unset slot and None both mean "not computed" (no memo stores None).
    def __contains__(self, a: object) -> bool:
        return getattr(a, self.name, None) is not None

    def __getitem__(self, a: Any) -> Any:
        v = getattr(a, self.name, None)
        if v is None:
            raise KeyError(a)
        return v

    def get(self, a: Any, default: Any = None) -> Any:
        # (Mapping.get goes through __getitem__ and a KeyError on every miss,
        # and a fresh scope's atoms all miss)
        v = getattr(a, self.name, None)
        return default if v is None else v

    def __setitem__(self, a: Any, value: Any) -> None:
        setattr(a, self.name, value)

    def __delitem__(self, a: Any) -> None:
        delattr(a, self.name)

    def __iter__(self) -> Iterator[Any]:
        raise TypeError("an AttrMemo cannot list its atoms")

    def __len__(self) -> int:
        raise TypeError("an AttrMemo cannot count its atoms")


_KEYS = AttrMemo("_key")


def _fill_atom_keys(atom: Atom) -> None:
    """Compute the missing sort keys of ``atom`` and of the atoms nested in it
    (lazily: many atoms never need one)."""
    fold_atoms(atom, _KEYS, lambda a: a._make_key())


# Variables are interned by name while something holds them, and no longer:
# a program that makes scopes with ever new names (a tracer's fresh symbols)
# must not keep every variable it ever saw, nor make each full garbage
# collection walk them.  The table holds weak references whose callback drops
# the entry when its variable dies: an entry left until a later sweep would
# outlive two collections, reach the collector's oldest generation and, one
# per new name, make full collections frequent.  The callback removes only
# an entry that is dead (atomically, in C: it may run in any thread, at any
# allocation); only absent names are inserted without the lock (setdefault),
# and replacing a dead entry takes it, so a live entry is never replaced.
_VARS: dict[str, _VarRef] = {}
_VARS_LOCK = threading.Lock()


@mypyc_attr(native_class=False)
class _VarRef(weakref.ref):
    """The table's weak reference to a variable, with its name (the key)."""

    __slots__ = ("name",)
    name: str


# Deletes ``d[key]`` only if it is a dead reference, atomically (in C): what
# weakref.WeakValueDictionary uses; its pure fallback serves other interpreters.
_remove_dead_weakref: Callable[[dict[str, Any], str], None] = getattr(
    weakref, "_remove_dead_weakref",
    lambda d, key: d.pop(key) if key in d and d[key]() is None else None)


def _var_died(ref: _VarRef) -> None:
    _remove_dead_weakref(_VARS, ref.name)


def _var_ref(v: Var) -> _VarRef:
    r = _VarRef(v, _var_died)
    r.name = v.name
    return r


def make_var(name: str) -> Var:
    """The unique :class:`Var` atom named ``name``."""
    r = _VARS.get(name)
    if r is not None:
        v = r()
        if v is not None:
            return v
    new = Var(name)
    if r is None:
        got = _VARS.setdefault(name, _var_ref(new))()
        if got is not None:  # ours, or one another thread made just now
            return got
    with _VARS_LOCK:  # the entry of a variable that died
        r = _VARS.get(name)
        got = None if r is None else r()
        if got is None:
            _VARS[name] = _var_ref(new)
            got = new
    return got


def live_variable_count() -> int:
    """How many variables are interned and alive (for memory tests)."""
    return sum(r() is not None for r in list(_VARS.values()))


def make_floordiv_atom(num: DimExpr | int, den: DimExpr | int,
                       scope: AlgebraScope) -> FloorDiv:
    """The unique :class:`FloorDiv` atom of ``scope`` with these (normalized) operands."""
    key = ("fd", num, den)
    a = scope.atom_table.get(key)
    if a is None:
        a = scope.atom_table.setdefault(key, FloorDiv(num, den))
    return a


def make_max0_atom(arg: DimExpr, scope: AlgebraScope) -> Max0:
    """The unique :class:`Max0` atom of ``scope`` for the (normalized) ``arg``."""
    key = ("max0", arg)
    a = scope.atom_table.get(key)
    if a is None:
        a = scope.atom_table.setdefault(key, Max0(arg))
    return a


@mypyc_attr(native_class=False)
class Mono(tuple[tuple[Atom, int], ...]):
    """A monomial: ``(atom, exponent)`` pairs in atom-key order, interned.

    There is one object per monomial value, so hashing and equality are by
    identity, in C.  Every term map is keyed by monomials, and hashing a
    nested tuple again on each dictionary operation was the largest single
    cost of arithmetic.  Never build one directly: use :func:`mono_of`,
    :func:`atom_mono`, :func:`mono_mul` or :func:`mono_div` (a plain tuple
    would silently miss in every term map; mypy flags one where a ``Mono`` is
    expected).
    """

    # No __slots__: each monomial may carry ``_products``, a memo of
    # mono_mul, ``_sort_key``, the memo of mono_key, and ``_digest``, the
    # memo of symshape.decision.poly.mono_digest.  Interned monomials are
    # few, so the per-object dict is cheap.
    _products: dict[Mono, Mono] | None = None
    _sort_key: tuple[Any, ...] | None = None
    _digest: int | None = None
    __hash__ = object.__hash__
    __eq__ = object.__eq__
    __ne__ = object.__ne__


# A monomial is interned in one of its atoms (``_monos``): the first floordiv
# or max atom, else the first variable.  It dies with that atom (a floordiv's
# with its scope, a variable's when nothing holds the variable), and while
# the monomial lives it holds that atom, so the table lives too: an interned
# value is never dropped while an expression may still hold it.
def mono_of(pairs: tuple[tuple[Atom, int], ...]) -> Mono:
    """The interned monomial of ``(atom, exponent)`` pairs already in atom-key order."""
    key = pairs if type(pairs) is tuple else tuple(pairs)  # a Mono hashes by identity
    if not key:
        return ONE
    owner = key[0][0]
    if type(owner) is Var:
        for a, _ in key:
            if type(a) is not Var:
                owner = a
                break
    table = owner._monos
    if table is None:  # a floordiv or max atom's first monomial
        table = owner._monos = {}
    m = table.get(key)
    if m is None:
        m = table.setdefault(key, Mono(key))  # setdefault: one winner across threads
    return m


def release_atoms(atoms: Iterable[Atom]) -> None:
    """Drop the monomial memos of floordiv and max atoms whose scope is being
    released (see ``SymbolicScope.release``): an atom's interned monomials
    hold the atom, and their product memos hold each other, reference cycles
    that only the cycle collector would free.  The atoms must not be used
    afterwards."""
    for a in atoms:
        if type(a) is not Var:
            monos = a._monos
            if monos is not None:
                for m in monos.values():
                    m._products = None
            a._m1 = None
            a._monos = None


def atom_mono(a: Atom) -> Mono:
    """The degree-1 monomial of an atom."""
    m = a._m1
    if m is None:
        m = a._m1 = mono_of(((a, 1),))
    return m


Terms = dict[Mono, int]
DimLike = Union["DimExpr", int]

# An end of an interval: an int, or -math.inf / math.inf (the only floats).
Bound = int | float


def is_finite(b: Bound) -> bool:
    """Is the interval end ``b`` finite?  Decided by type, never by converting
    to float (``math.isfinite`` overflows on ints beyond 1e308)."""
    return type(b) is not float


def bound_add(x: Bound, y: Bound) -> Bound:
    """``x + y`` for interval ends of the same side: an infinite one wins
    (adding a float infinity to an int beyond 1e308 would overflow)."""
    if type(x) is float:
        return x
    if type(y) is float:
        return y
    return x + y


def bound_mul(x: Bound, y: Bound) -> Bound:
    """``x * y`` for interval ends, with ``0 * inf == 0`` (the zero side
    really is zero) and no float conversion of large ints."""
    if x == 0 or y == 0:
        return 0
    if type(x) is float or type(y) is float:
        return math.inf if (x > 0) == (y > 0) else -math.inf
    return x * y


ONE: Mono = Mono(())


def _expr_key(e: DimExpr | int) -> tuple[Any, ...]:
    return (0, e) if isinstance(e, int) else e.sort_key


def _compute_mono_key(m: Mono) -> tuple[Any, ...]:
    # One flat tuple: (-degree, atom key fields..., -exponent, ...).  Each atom
    # key's length is fixed by its leading tag, so flattening is injective and
    # the order is the lexicographic one over (atom, exponent) pairs; flat
    # tuples compare several times faster than nested ones, and comparing
    # leading monomials is the core of every addition.
    key: list[Any] = [-sum(e for _, e in m)]
    for a, e in m:
        key.extend(a.sort_key)
        key.append(-e)
    return tuple(key)


def mono_key(m: Mono) -> tuple[Any, ...]:
    """Graded-lex order key of a monomial (smaller key = leading)."""
    # (kept on the monomial, so that it dies with it)
    k = m._sort_key
    if k is None:
        k = m._sort_key = _compute_mono_key(m)
    return k


_PRODUCTS_MAX = 512  # per monomial; a memo, so dropping it loses nothing


def mono_mul(m1: Mono, m2: Mono) -> Mono:
    """Product of two monomials."""
    if not m1:
        return m2
    if not m2:
        return m1
    # The memo lives on a factor with a floordiv or max atom when there is one,
    # so that it dies with that atom's scope.  Atoms are in key order,
    # variables first: the last atom tells.
    if type(m2[-1][0]) is Var:
        owner, other = m1, m2
    else:
        owner, other = m2, m1
    memo = owner._products
    if memo is None:
        memo = owner._products = {}
    else:
        m = memo.get(other)
        if m is not None:
            return m
        if len(memo) >= _PRODUCTS_MAX:
            memo.clear()
    m = memo[other] = _mono_mul(m1, m2)
    return m


def _mono_mul(m1: Mono, m2: Mono) -> Mono:
    if len(m1) == 1 and len(m2) == 1:
        (a1, k1), = m1
        (a2, k2), = m2
        if a1 is a2:
            return mono_of(((a1, k1 + k2),))
        key1 = a1._key  # the slots directly (hot); sort_key fills missing keys
        key2 = a2._key
        if key1 is None or key2 is None:
            key1 = a1.sort_key
            key2 = a2.sort_key
        return mono_of((m1[0], m2[0]) if key1 < key2 else (m2[0], m1[0]))
    acc: dict[Atom, int] = dict(m1)
    for a, k in m2:
        acc[a] = acc.get(a, 0) + k
    return _sorted_mono(acc)


def _sorted_mono(acc: dict[Atom, int]) -> Mono:
    """The monomial of the ``atom -> exponent`` map, atoms in key order."""
    for a in acc:
        if a._key is None:
            _fill_atom_keys(a)
    return mono_of(tuple(sorted(acc.items(), key=_pair_key)))


def _pair_key(p: tuple[Atom, int]) -> tuple[Any, ...]:
    return p[0]._key  # type: ignore[return-value]  # filled by the caller


def mono_div(m: Mono, d: Mono) -> Mono | None:
    """``m / d`` if ``d`` divides ``m``, else ``None``."""
    acc = dict(m)
    for a, k in d:
        have = acc.get(a, 0)
        if have < k:
            return None
        if have == k:
            del acc[a]
        else:
            acc[a] = have - k
    return _sorted_mono(acc)


# ---------------------------------------------------------------------------
# Expressions


class DimExpr:
    """A symbolic dimension expression in canonical form.

    Build them with :func:`symshape.symbolic_shape`; combine them with ``+ - *
    // % divmod **`` and Python ints.  Comparisons ``>= > <= <`` return a
    ``bool`` when decided for every valuation allowed by the scope and raise
    :class:`~symshape.InconclusiveDimensionOperation` otherwise; ``==`` is
    identity of canonical forms.
    """

    __slots__ = ("_terms", "_scope", "_hash", "_lead", "_sorted", "_key", "__weakref__")
    __array_priority__ = 1000  # numpy scalars defer to our reflected operators

    _terms: Terms
    _scope: AlgebraScope
    _hash: int
    _lead: tuple[tuple[Any, ...], Mono] | None
    _sorted: tuple[tuple[Mono, int], ...] | None
    _key: tuple[Any, ...] | None

    def __init__(self, terms: Terms, scope: AlgebraScope) -> None:
        # Use make() instead: it returns an int for constant results.
        self._terms = terms
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
        e = _new(DimExpr)
        e._terms = terms
        e._scope = scope
        e._hash = -1
        e._lead = lead
        return e

    @property
    def scope(self) -> SymbolicScope:
        """The :class:`~symshape.SymbolicScope` the expression belongs to."""
        return cast("SymbolicScope", self._scope)

    @property
    def terms(self) -> Terms:
        """The monomial -> coefficient map (do not mutate)."""
        return self._terms

    def sorted_terms(self) -> tuple[tuple[Mono, int], ...]:
        """Terms in canonical order: leading (highest degree, then lex) first."""
        # getattr with a default: new expressions miss, and a raise costs more.
        st: tuple[tuple[Mono, int], ...] | None = getattr(self, "_sorted", None)
        if st is None:
            items = self._terms.items()
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
        terms = self._terms
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
        return self._terms.get(ONE, 0)

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
            for m in e._terms:
                for a, _ in m:
                    if a in out:
                        continue
                    out.add(a)
                    if recursive:
                        stack.extend(o for o in a.operands if isinstance(o, DimExpr))
        return out

    def is_linear(self) -> bool:
        """True if every monomial has degree <= 1."""
        return all(len(m) <= 1 and (not m or m[0][1] == 1) for m in self._terms)

    # -- hashing and equality -------------------------------------------------
    def __hash__(self) -> int:
        h = self._hash
        if h == -1:
            # Order-independent (equal term maps may differ in order): a sum
            # over the terms, without the set a frozenset hash would build
            # (most expressions are hashed once, as keys of the scope's memos).
            acc = 0
            for m, c in self._terms.items():
                acc += hash(m) ^ (c * 0x9E3779B1)
            h = self._hash = hash(acc)  # (never -1)
        return h

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if isinstance(other, DimExpr):
            return (self._scope is other._scope and hash(self) == hash(other)
                    and self._terms == other._terms)
        return False  # a DimExpr is never a constant: constants are ints

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    # -- arithmetic -------------------------------------------------------------
    @staticmethod
    def _has_max_power(terms: Terms) -> bool:
        """Does a monomial hold a ``max`` atom with exponent >= 2?"""
        for m in terms:
            for a, k in m:
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
            out = self._terms.copy()
            for m, c in other._terms.items():
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
            e = _new(DimExpr)
            e._terms = out
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
            out = self._terms.copy()
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
        return _add(self._terms, o, 1, self._scope)

    def __radd__(self, other: Any) -> DimExpr | int:
        return self.__add__(other)

    def __sub__(self, other: Any) -> DimExpr | int:
        if type(other) is DimExpr and other._scope is self._scope:
            out = self._terms.copy()
            for m, c in other._terms.items():
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
            out = self._terms.copy()
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
        return _add(self._terms, o, -1, self._scope)

    def __rsub__(self, other: Any) -> DimExpr | int:
        o = self._coerce(other, "-")
        if o is None:
            return NotImplemented
        return _add(_neg_terms(self._terms), o, 1, self._scope)

    def __neg__(self) -> DimExpr | int:
        return _wrap(_neg_terms(self._terms), self._scope, self._lead)

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
            for m, c in self._terms.items():
                out[m] = c * other
            scope = self._scope
            if scope.rewrites_terms:
                return DimExpr.make(out, scope)
            # _wrap inlined (the hottest path).  Scaling a non-constant
            # expression by a nonzero int keeps it non-constant and keeps the
            # leading monomial.
            e = _new(DimExpr)
            e._terms = out
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
        return floordiv(self, o)

    def __rfloordiv__(self, other: Any) -> DimExpr | int:
        o = self._coerce(other, "//")
        if o is None:
            return NotImplemented
        return floordiv(o, self)

    def __mod__(self, other: Any) -> DimExpr | int:
        o = self._coerce(other, "%")
        if o is None:
            return NotImplemented
        return mod(self, o)

    def __rmod__(self, other: Any) -> DimExpr | int:
        o = self._coerce(other, "%")
        if o is None:
            return NotImplemented
        return mod(o, self)

    def __divmod__(self, other: Any) -> tuple[DimExpr | int, DimExpr | int]:
        o = self._coerce(other, "divmod")
        if o is None:
            return NotImplemented
        return floordiv(self, o), mod(self, o)

    def __rdivmod__(self, other: Any) -> tuple[DimExpr | int, DimExpr | int]:
        o = self._coerce(other, "divmod")
        if o is None:
            return NotImplemented
        return floordiv(o, self), mod(o, self)

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
        v = _eval(self, env)
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
    if len(e._terms) != 1:
        return False
    for a, _ in next(iter(e._terms)):  # noqa: SIM110 (a loop: no generator object)
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
    m = next(iter(e._terms))
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


def add_into(out: Terms, x: DimExpr | int, sign: int) -> None:
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
    for m, c in x._terms.items():
        c = get(m, 0) + sign * c
        if c:
            out[m] = c
        else:
            del out[m]


def _add(terms: Terms, other: DimExpr | int, sign: int, scope: AlgebraScope) -> DimExpr | int:
    out = dict(terms)
    add_into(out, other, sign)
    return DimExpr.make(out, scope)

def _mul(e: DimExpr, other: DimExpr | int, scope: AlgebraScope) -> DimExpr | int:
    if type(other) is int:
        if other == 0:
            return 0
        if other == 1:
            return e
        return DimExpr.make({m: c * other for m, c in e._terms.items()}, scope)
    assert isinstance(other, DimExpr)
    pairs = len(e._terms) * len(other._terms)
    # Repeated squaring of a monomial doubles its degree at no cost; a product
    # with more terms is bounded by MAX_PRODUCT_PAIRS (its terms grow too).
    if pairs == 1 and degree(e) + degree(other) > MAX_DEGREE:
        raise ExpressionTooLargeError(
            f"expression too large: the product of ({clip(str(e))}) and "
            f"({clip(str(other))}) has degree {degree(e) + degree(other)}, above the limit "
            f"of {MAX_DEGREE}")
    if pairs > MAX_PRODUCT_PAIRS:
        raise ExpressionTooLargeError(
            f"expression too large: multiplying a {len(e._terms)}-term expression by a "
            f"{len(other._terms)}-term one combines {pairs} pairs of terms (the limit is "
            f"{MAX_PRODUCT_PAIRS}); dimension expressions of real shapes are far smaller")
    out: Terms = {}
    for m1, c1 in e._terms.items():
        for m2, c2 in other._terms.items():
            m = mono_mul(m1, m2)
            c = out.get(m, 0) + c1 * c2
            if c:
                out[m] = c
            else:
                del out[m]
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
            part = _mul_any(part, DimExpr.make({atom_mono(a): 1}, scope), scope)
            part = _mul_any(part, a.arg ** (k - 1), scope)
        total = total + part
    return total + DimExpr.make(plain, scope) if plain else total


# The printer lives in :mod:`symshape.printing`, which builds on this module and
# installs itself here when imported (the package imports it), so that the
# algebra never imports its presentation.  Until then, the raw term map.
_PRINTER: list[Callable[[DimExpr], str]] = [lambda e: f"DimExpr({e._terms!r})"]


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
            result = _mul_any(result, base, x._scope)
        p >>= 1
        if p:
            base = _mul_any(base, base, x._scope)
    return result


def _short_int(n: int) -> str:
    """``n`` in decimal, or its digit count when too long to show (and to
    convert: Python refuses ints of over 4300 digits by default)."""
    if n.bit_length() <= 200:
        return str(n)
    return f"<an integer of about {int(n.bit_length() * 0.30103) + 1} digits>"


def _mul_any(x: DimExpr | int, y: DimExpr | int, scope: AlgebraScope) -> DimExpr | int:
    if isinstance(x, DimExpr):
        return _mul(x, y, scope)
    if isinstance(y, DimExpr):
        return _mul(y, x, scope)
    return x * y


def _eval(e: DimExpr | int, env: Mapping[str, Any], memo: dict[Atom, Any] | None = None
          ) -> Any:
    """Value of ``e`` under ``env``; ``memo`` holds the values of atoms, so a
    nest that shares sub-expressions (a clamp chain) costs one evaluation per
    atom, and no recursion (innermost atoms first, see :func:`fold_atoms`)."""
    if type(e) is int:
        return e
    assert isinstance(e, DimExpr)
    if memo is None:
        memo = {}
    total: Any = 0
    for m, c in e._terms.items():
        v: Any = c
        for a, k in m:
            av = memo[a] if a in memo else fold_atoms(a, memo, partial(_atom_value, env, memo))
            v = v * (av if k == 1 else av ** k)
        total = total + v
    return total


def value_at(e: DimExpr | int, env: Mapping[str, int], memo: dict[Any, int | None]
             ) -> int | None:
    """Value of ``e`` where each variable has its value in ``env`` (1 when
    missing), None where a divisor is 0 there: the valuations a scope tries
    (all ones, repaired ones) need not give a value to every atom.
    ``memo`` caches the values of atoms at ``env``."""
    if type(e) is int:
        return e
    assert isinstance(e, DimExpr)
    total = 0
    for m, c in e._terms.items():
        p = c
        for a, k in m:
            if type(a) is Var:
                x = env.get(a.name, 1)
                if x != 1:
                    p *= x if k == 1 else x ** k
                continue
            if a in memo:
                v = memo[a]
            elif _over_variables(a):
                # (the common atom, ``floordiv(s, 128)``: no walk below it)
                v = memo[a] = _atom_at(env, memo, a)
            else:
                v = fold_atoms(a, memo, partial(_atom_at, env, memo), compound_children)
            if v is None:
                return None
            p *= v if k == 1 else v ** k
        total += p
    return total


def _over_variables(a: Atom) -> bool:
    """Are the operands of ``a`` constants or polynomials in variables only
    (``not compound_children(a)``, without building the list)?"""
    if type(a) is FloorDiv:
        return _of_variables_only(a.num) and _of_variables_only(a.den)
    return _of_variables_only(a.arg)  # type: ignore[attr-defined]


def _of_variables_only(o: DimExpr | int) -> bool:
    if type(o) is not int:
        assert isinstance(o, DimExpr)
        for m in o._terms:
            for b, _ in m:
                if type(b) is not Var:
                    return False
    return True


def _atom_at(env: Mapping[str, int], memo: dict[Any, int | None], a: Atom) -> int | None:
    """Value of a floordiv or max atom at ``env`` (see :func:`value_at`); the
    atoms of its operands are in ``memo``."""
    if type(a) is FloorDiv:
        num = value_at(a.num, env, memo)
        den = value_at(a.den, env, memo)
        if num is None or den is None or den == 0:
            return None
        return num // den
    v = value_at(a.arg, env, memo)  # type: ignore[attr-defined]
    return None if v is None else max(v, 0)


def _eval_atom(a: Atom, env: Mapping[str, Any]) -> Any:
    """Value of the atom ``a`` under ``env`` (each nested atom evaluated once)."""
    memo: dict[Atom, Any] = {}
    return fold_atoms(a, memo, partial(_atom_value, env, memo))


def _atom_value(env: Mapping[str, Any], memo: dict[Atom, Any], a: Atom) -> Any:
    """Value of one atom; the atoms of its operands are in ``memo``."""
    t = type(a)
    if t is Var:
        return a.evaluate(env)
    if t is FloorDiv:
        return _eval(a.num, env, memo) // _eval(a.den, env, memo)  # type: ignore[attr-defined]
    v = _eval(a.arg, env, memo)  # type: ignore[attr-defined]
    return np.maximum(v, 0) if isinstance(v, np.ndarray) else max(v, 0)


# ---------------------------------------------------------------------------
# Scope-aware constructors for floordiv, mod, max, min


def _scope_of(*xs: Any) -> AlgebraScope | None:
    scope = None
    for x in xs:
        if isinstance(x, DimExpr):
            if scope is None:
                scope = x._scope
            elif x._scope is not scope:
                scope.raise_mismatch(x, "combining", None)
    return scope


def check_dim(x: Any, what: str) -> DimExpr | int:
    """``x`` as a dimension (a DimExpr or an int); TypeError naming ``what`` otherwise."""
    if isinstance(x, DimExpr):
        return x
    v = as_int(x)
    if v is None:
        raise TypeError(f"{what}: expected an int or a symbolic dimension, got {x!r}")
    return v


def floordiv(x: DimLike, y: DimLike) -> DimExpr | int:
    """``floor(x / y)`` with Python semantics, in canonical form."""
    x = check_dim(x, "floordiv")
    y = check_dim(y, "floordiv")
    scope = _scope_of(x, y)
    if scope is None:
        assert isinstance(x, int) and isinstance(y, int)
        return x // y
    if isinstance(y, int):
        if y == 0:
            raise ZeroDivisionError(f"floordiv({x}, 0): division by zero")
        if y < 0:
            return floordiv(-x, -y)
        if y == 1:
            return x
        assert isinstance(x, DimExpr)
        ckey = (x, y)
        cached = scope.division_memo.get(ckey)
        if cached is None:
            cached = scope.division_memo[ckey] = _floordiv_const(x, y, scope)
        return cached
    key = (x, y)
    cached = scope.division_memo.get(key)
    if cached is None:
        cached = scope.division_memo[key] = _floordiv_sym(x, y, scope)
    return cached


def _split_coefficients(terms: Terms, k: int) -> tuple[Terms, Terms]:
    """Split ``terms`` into ``k*quot + rem``: non-constant remainder coefficients
    in ``(-k/2, k/2]``, constant remainder in ``[0, k)``."""
    quot: Terms = {}
    rem: Terms = {}
    half = k // 2
    for m, c in terms.items():
        q, r = divmod(c, k)
        if m and r > half:
            q, r = q + 1, r - k
        if q:
            quot[m] = q
        if r:
            rem[m] = r
    return quot, rem


def _floordiv_const(x: DimExpr, k: int, scope: AlgebraScope) -> DimExpr | int:
    """``floordiv(x, k)`` for a constant ``k >= 2``.

    ``x == k*P + R + c``: ``P`` is pulled out (integer valued), ``R`` keeps
    coefficients in ``(-k/2, k/2]`` and ``0 <= c < k``.  A part ``c*E`` of
    ``x`` that the scope's equalities make a multiple of ``k`` (``E ==
    K*floordiv(E, K)`` with ``k | c*K``) is pulled out as ``(c*K/k)*floordiv(E, K)``.
    """
    for e_terms, big_k, fd_mono in scope.divisibility_rules():
        c = _scale_in(x._terms, e_terms)
        if c and (c * big_k) % k == 0:
            rest = {m: v for m, v in x._terms.items() if m not in e_terms}
            return DimExpr.make({fd_mono: c * big_k // k}, scope) + \
                floordiv(DimExpr.make(rest, scope), k)
    quot, rem = _split_coefficients(x._terms, k)
    const = rem.pop(ONE, 0)
    pulled: DimExpr | int = DimExpr.make(quot, scope) if quot else 0
    if not rem:
        return pulled  # floordiv(c, k) == 0 for 0 <= c < k
    # Content: floordiv(g*R + c, g*k') == floordiv(R + c // g, k')
    g = k
    for c in rem.values():
        g = math.gcd(g, c)
        if g == 1:
            break
    if g > 1:
        rem = {m: c // g for m, c in rem.items()}
        const //= g
        k //= g
        if k == 1:
            return pulled + DimExpr.make(rem, scope) + const
    # (one term needs no sort key: a new variable's costs more than the rest)
    lead = next(iter(rem)) if len(rem) == 1 else min(rem, key=mono_key)
    if rem[lead] < 0:
        # floordiv(y, k) == -floordiv(-y + k - 1, k): keep the leading sign positive.
        flipped = {m: -c for m, c in rem.items()}
        if k - 1 - const:
            flipped[ONE] = k - 1 - const
        return pulled - _floordiv_const_atom(flipped, k, scope)
    if const:
        rem[ONE] = const
    # (nothing pulled out, no content divided and no rule to apply: the
    # numerator is x itself)
    same = x if not quot and g == 1 and not scope.rewrites_terms else None
    atom = _floordiv_const_atom(rem, k, scope, same, reduced=True)
    return atom if type(pulled) is int and pulled == 0 else pulled + atom


def _scale_in(terms: Terms, part: Terms) -> int:
    """``c`` such that ``terms`` holds ``c*part`` (every term of ``part``
    scaled by the same ``c``), or 0."""
    c = 0
    for m, v in part.items():
        have = terms.get(m)
        if have is None or have % v:
            return 0
        if c == 0:
            c = have // v
        elif have != c * v:
            return 0
    return c


def _floordiv_const_atom(terms: Terms, k: int, scope: AlgebraScope,
                         same: DimExpr | None = None, reduced: bool = False
                         ) -> DimExpr | int:
    """``floordiv(R, k)`` for normalized ``R`` (no further splitting);
    ``same``, if given, is an expression whose terms are ``terms``;
    ``reduced``: the coefficients are known to be reduced already."""
    if not reduced:
        # Reduce coefficients again (the sign flip may have produced -k/2).
        quot, terms = _split_coefficients(terms, k)
        if quot:
            num0 = DimExpr.make(terms, scope) if terms else 0
            return DimExpr.make(quot, scope) + floordiv(num0, k)
    num = same if same is not None else DimExpr.make(terms, scope)
    if isinstance(num, int):
        return num // k
    nested = _merge_nested_floordiv(num, k, scope)
    if nested is not None:
        return nested
    lb, ub = scope.interval(num)
    if lb >= 0 and ub < k:
        return 0
    if is_finite(lb) and is_finite(ub) and lb // k == ub // k:
        return int(lb // k)
    return DimExpr.make({atom_mono(make_floordiv_atom(num, k, scope)): 1}, scope)


def _floordiv_sym(x: DimExpr | int, y: DimExpr, scope: AlgebraScope) -> DimExpr | int:
    """``floordiv(x, y)`` for a symbolic divisor ``y``."""
    sign = scope.sign(y)
    if sign == 0 and scope.interval(y)[0] >= 0:
        # A divisor that is >= 0 but may be 0 (JAX accepts `mod(b, floordiv(a, 2))`):
        # the expression only has a value where the divisor is >= 1.  That is a
        # hypothesis of every query that mentions the atom (its ``den >= 1``
        # axiom), as JAX treats it; it never becomes a fact of the scope, so
        # building this expression changes no other answer.
        sign = 1
    if sign == 0:
        lb, ub = scope.interval(y)
        raise DivisionByZeroRiskError(
            f"division by '{y}', which may be zero or change sign (its bounds are "
            f"[{lb}, {ub}]); add a constraint such as '{y} >= 1' to the scope")
    if sign < 0:
        return floordiv(-x, -y)
    # Common content: floordiv(g*x', g*y') == floordiv(x', y').
    g = 0
    for c in (x._terms.values() if isinstance(x, DimExpr) else (x,)):
        g = math.gcd(g, c)
    if g != 1:
        for c in y._terms.values():
            g = math.gcd(g, c)
            if g == 1:
                break
        if g > 1:
            return floordiv(x // g if isinstance(x, int) else
                            DimExpr.make({m: c // g for m, c in x._terms.items()}, scope),
                            DimExpr.make({m: c // g for m, c in y._terms.items()}, scope))
    # Exact polynomial division pulls out the integer-valued quotient:
    # floordiv(q*y + r, y) == q + floordiv(r, y).
    quot, rem = poly_divmod(x, y, scope)
    if isinstance(rem, int) and rem == 0:
        return quot
    if isinstance(rem, int):
        atom: DimExpr | int = _floordiv_sym_atom(rem, y, scope)
    else:
        atom = _floordiv_sym_atom(rem, y, scope)
    return quot + atom


def _merge_nested_floordiv(num: DimExpr, den: DimExpr | int,
                           scope: AlgebraScope) -> DimExpr | int | None:
    """``floordiv(floordiv(x, k1) + R, k2) == floordiv(x + k1*R, k1*k2)`` for
    divisors ``k1, k2 >= 1`` (constant or symbolic) and an integer ``R``; and
    with ``-floordiv(x, k1) == floordiv(k1 - 1 - x, k1)`` the same for a
    quotient with coefficient -1 (the canonical ``floordiv(2*b, 3)`` is
    ``b - floordiv(b + 2, 3)``).  None when ``num`` has no such term.  The
    leading such term is used, so the result does not depend on how ``num``
    was built."""
    found = [(m, c) for m, c in num._terms.items()
             if (c == 1 or c == -1) and len(m) == 1 and m[0][1] == 1
             and type(m[0][0]) is FloorDiv]
    if not found:
        return None
    m, c = min(found, key=lambda t: mono_key(t[0])) if len(found) > 1 else found[0]
    a = m[0][0]
    assert isinstance(a, FloorDiv)
    rest = num - DimExpr.make({m: c}, scope)
    inner = a.num if c == 1 else a.den - 1 - a.num
    return floordiv(inner + _mul_any(a.den, rest, scope), _mul_any(a.den, den, scope))


def _floordiv_sym_atom(num: DimExpr | int, den: DimExpr, scope: AlgebraScope) -> DimExpr | int:
    if isinstance(num, DimExpr):
        nested = _merge_nested_floordiv(num, den, scope)
        if nested is not None:
            return nested
    nlb, nub = scope.interval(num)
    dlb, _ = scope.interval(den)
    if nlb >= 0 and nub < dlb:
        return 0
    return DimExpr.make({atom_mono(make_floordiv_atom(num, den, scope)): 1}, scope)


def poly_divmod(x: DimExpr | int, y: DimExpr,
                scope: AlgebraScope) -> tuple[DimExpr | int, DimExpr | int]:
    """Multivariate division by leading terms: ``x == q*y + r`` with integer
    coefficients, where no term of ``r`` is divisible by ``y``'s leading term."""
    if isinstance(x, int):
        return 0, x
    if len(y._terms) == 1:
        # A one-term divisor divides only terms that contain its atoms: when
        # some atom occurs nowhere in x, there is nothing to pull out.
        (ym,) = y._terms
        for a, _ in ym:
            if not any(b is a for m in x._terms for b, _ in m):
                return 0, x
    lead_m, lead_c = y.sorted_terms()[0]
    rem = dict(x._terms)
    quot: Terms = {}
    out_rem: Terms = {}
    ysorted = y.sorted_terms()
    for _ in range(10_000):  # termination is guaranteed; this bounds pathological sizes
        if not rem:
            break
        if len(rem) == 1:  # no sort keys needed to find the leading term
            (m, c), = rem.items()
        else:
            m, c = min(rem.items(), key=lambda t: mono_key(t[0]))
        qm = mono_div(m, lead_m)
        if qm is None or c % lead_c:
            out_rem[m] = c
            del rem[m]
            continue
        qc = c // lead_c
        quot[qm] = quot.get(qm, 0) + qc
        for ym, yc in ysorted:
            pm = mono_mul(qm, ym)
            v = rem.get(pm, 0) - qc * yc
            if v:
                rem[pm] = v
            else:
                rem.pop(pm, None)
    else:
        return 0, x
    quot = {m: c for m, c in quot.items() if c}
    return DimExpr.make(quot, scope), DimExpr.make(out_rem, scope)


def mod(x: DimLike, y: DimLike) -> DimExpr | int:
    """``x - y*floordiv(x, y)`` (Python's ``%``), in canonical form."""
    x = check_dim(x, "mod")
    y = check_dim(y, "mod")
    if isinstance(x, int) and isinstance(y, int):
        if y == 0:
            raise ZeroDivisionError(f"mod({x}, 0): division by zero")
        return x % y
    q = floordiv(x, y)
    return x - _mul_any(y, q, _scope_of(x, y))  # type: ignore[arg-type]


def max_expr(x: DimLike, y: DimLike) -> DimExpr | int:
    """``max(x, y)`` in canonical form, simplified when the order is decided by
    the scope's bounds."""
    x = check_dim(x, "max")
    y = check_dim(y, "max")
    scope = _scope_of(x, y)
    if scope is None:
        return max(x, y)
    d = x - y
    if isinstance(d, int):
        return x if d >= 0 else y
    order = scope.order(d)
    if order > 0:
        return x
    if order < 0:
        return y
    return y + _max0(d, scope)


def _max0(d: DimExpr, scope: AlgebraScope) -> DimExpr | int:
    """``max(d, 0)`` with ``d`` normalized: positive leading coefficient, content 1."""
    if d.leading_coefficient < 0:
        # max(d, 0) == d + max(-d, 0)
        return d + _max0(-d, scope)  # type: ignore[arg-type]
    g = 0
    for c in d._terms.values():
        g = math.gcd(g, c)
        if g == 1:
            break
    if g > 1:
        inner = DimExpr({m: c // g for m, c in d._terms.items()}, scope)
        return DimExpr.make({atom_mono(make_max0_atom(inner, scope)): g}, scope)
    return DimExpr.make({atom_mono(make_max0_atom(d, scope)): 1}, scope)


def min_expr(x: DimLike, y: DimLike) -> DimExpr | int:
    """``min(x, y)`` in canonical form (``x + y - max(x, y)``)."""
    x = check_dim(x, "min")
    y = check_dim(y, "min")
    if isinstance(x, int) and isinstance(y, int):
        return min(x, y)
    return x + y - max_expr(x, y)


def substitute(e: DimExpr | int, env: Mapping[str, DimExpr | int],
               scope: AlgebraScope | None = None) -> DimExpr | int:
    """Replace variables by expressions (or ints) and renormalize.

    ``scope`` is the scope of the result (default: the scope of ``e``); the
    replacements must belong to it.
    """
    if isinstance(e, int):
        return e
    target = scope if scope is not None else e._scope
    cache: dict[Atom, DimExpr | int] = {}

    def atom_value(a: Atom) -> DimExpr | int:
        v = cache.get(a)
        if v is not None:
            return v
        if type(a) is Var:
            v = env[a.name] if a.name in env else target.var(a.name)
        elif type(a) is FloorDiv:
            v = floordiv(rec(a.num), rec(a.den))
        else:
            assert type(a) is Max0
            v = max_expr(rec(a.arg), 0)
        cache[a] = v
        return v

    def rec(x: DimExpr | int) -> DimExpr | int:
        if isinstance(x, int):
            return x
        total: DimExpr | int = 0
        for m, c in x._terms.items():
            v: DimExpr | int = c
            for a, k in m:
                av = atom_value(a)
                for _ in range(k):
                    v = _mul_any(v, av, target) if isinstance(av, DimExpr) else v * av
            total = total + v
        return total

    return rec(e)


class ScopeCopier:
    """Copies expressions of one scope into another, unchanged.

    The copy has the same terms over the same variables; each ``floordiv``
    and ``max`` atom is interned in the target scope with copied operands.
    No rule of the target scope is applied: the expressions are already in
    the canonical form of a scope with the same facts (this is how a scope
    reuses the constraints another scope with the same texts normalized, see
    ``symshape.scope``).  One copier keeps one atom map, so shared
    sub-expressions stay shared.
    """

    def __init__(self, target: AlgebraScope) -> None:
        self.target = target
        self.atoms: dict[Atom, Atom] = {}
        self.monos: dict[Mono, Mono] = {}

    def expr(self, e: DimExpr | int) -> DimExpr | int:
        """``e`` as an expression of the target scope."""
        if type(e) is int:
            return e
        assert isinstance(e, DimExpr)
        terms = e._terms
        for m in terms:
            for a, _ in m:
                if type(a) is not Var:
                    # rebuild the term map only when an atom must be copied
                    terms = {self.mono(m2): c for m2, c in terms.items()}
                    break
            else:
                continue
            break
        return DimExpr(terms, self.target)

    def mono(self, m: Mono) -> Mono:
        """``m`` with its compound atoms copied (atom order is kept: a copied
        atom has the sort key of the original)."""
        got = self.monos.get(m)
        if got is None:
            got = m
            for a, _ in m:
                if type(a) is not Var:
                    got = mono_of(tuple((self.atom(b), k) for b, k in m))
                    break
            self.monos[m] = got
        return got

    def atom(self, a: Atom) -> Atom:
        """``a`` as an atom of the target scope."""
        if type(a) is Var:
            return a
        got = self.atoms.get(a)
        if got is not None:
            return got
        return fold_atoms(a, self.atoms, self._copy_atom, compound_children)

    def _copy_atom(self, a: Atom) -> Atom:
        if type(a) is Var:
            return a
        if type(a) is FloorDiv:
            new: Atom = make_floordiv_atom(self.expr(a.num), self.expr(a.den), self.target)
        else:
            assert type(a) is Max0
            arg = self.expr(a.arg)
            assert isinstance(arg, DimExpr)
            new = make_max0_atom(arg, self.target)
        if new._key is None:
            new._key = a._key  # structural: the same for the copy
        return new


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


__all__ = [
    "ScopeCopier",
    "Atom", "DimExpr", "FloorDiv", "Max0", "Mono", "Terms", "Var", "add_into", "atom_mono",
    "check_dim",
    "comparison_difference",
    "floordiv", "is_symbolic_dim", "make_floordiv_atom", "make_max0_atom", "make_var",
    "max_expr", "min_expr", "mod", "mono_key", "mono_mul", "mono_of", "poly_divmod",
    "release_atoms", "substitute", "value_at",
]


def _alloc_via_init(cls: type[DimExpr]) -> DimExpr:
    return cls(_EMPTY_TERMS, cast(Any, None))


_EMPTY_TERMS: Terms = {}


def _is_compiled() -> bool:
    """Whether this module runs compiled by mypyc (which refuses to allocate
    its classes without their constructor)."""
    try:
        object.__new__(DimExpr)
    except TypeError:
        return True
    return False


# Allocates an expression whose slots the arithmetic fast paths then set:
# object.__new__ skips __init__ (the cheapest allocation in CPython); the
# compiled build's constructor is cheap anyway.
_new: Callable[[type[DimExpr]], DimExpr]
if _is_compiled():
    _new = _alloc_via_init
else:
    _new = object.__new__
    # mypyc needs the reflected operators written as methods; in pure Python
    # the aliases save a call per ``2*h`` or ``1 + h`` (about 30 ns, 8%).
    DimExpr.__radd__ = DimExpr.__add__  # type: ignore[method-assign]
    DimExpr.__rmul__ = DimExpr.__mul__  # type: ignore[method-assign]
    DimExpr.__index__ = DimExpr.__int__  # type: ignore[method-assign, assignment]
