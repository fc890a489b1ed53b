"""Atoms and their monomials: the building blocks of every expression.

An atom is an opaque integer-valued unknown: a dimension variable
(:class:`Var`), ``floordiv(num, den)`` (:class:`FloorDiv`) or ``max(arg, 0)``
(:class:`Max0`), the last two with expressions as operands.  Atoms are
interned (variables globally by name, the others per scope), and so are
monomials (:class:`Mono`, products of atoms), so that equality and hashing
are by identity.  This module also orders them (sort keys: the canonical
order of terms), multiplies and divides monomials, and walks nests of atoms
without recursion (:func:`fold_atoms`).  No scope is needed here: the scope
only owns the tables that compound atoms are interned in.

(About 640 lines: atoms and monomials share one lifetime rule, a monomial
interned in its youngest atom and dying with it, which the interning, the
product memos and the release of a scope's atoms all keep; split, each half
would reach into the other's private slots.)
"""

from __future__ import annotations

import itertools
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping
from typing import TYPE_CHECKING, Any, TypeVar

from symshape._mypyc import mypyc_attr
from symshape.errors import UnknownDimensionError

if TYPE_CHECKING:
    from symshape.algebra.dimexpr import DimExpr
    from symshape.algebra.protocol import AlgebraScope


# The order in which atoms are created.  A memo or table kept on an object
# may hold only what is older than the object itself (see mono_of and
# mono_mul): then whatever a live atom holds was alive when that atom was
# made, so a long-lived variable (one a cached scope holds) never keeps the
# ever new variables it meets later (a tracer's fresh symbols), however many.
# (next() on a count is atomic: threads never get the same serial)
_SERIALS: Iterator[int] = itertools.count()


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
    # memo: public, see below.
    # _serial: the atom's place in the order of creation (see _SERIALS): a
    # monomial is interned in its youngest atom (see mono_of).
    # _m1: the atom's degree-1 monomial (see atom_mono); _monos: the
    # monomials interned in this atom (see mono_of), None until first needed
    # (a variable's table and degree-1 monomial are made with it: variables
    # are shared by threads).
    # The constructors set the lazily filled slots to None: a missing slot
    # costs an exception to test.
    __slots__ = ("_key", "memo", "_serial", "_m1", "_monos", "__weakref__")
    _key: tuple[Any, ...] | None
    #: One object the layers above keep what they derive from the atom's
    #: structure alone in (the decision procedure's digests, sizes, depths),
    #: so that it dies with the atom and its scope (a global table keyed by
    #: atoms would keep scopes alive); None until one is stored.  The algebra
    #: never reads it.  Monomials have the same attribute.
    memo: Any
    _serial: int
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
        self.memo = None
        self._serial = next(_SERIALS)
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
        self.memo = None
        self._serial = next(_SERIALS)
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
        return _ATOM_EVALUATOR[0](self, env)


@mypyc_attr(native_class=False)
class Max0(Atom):
    """``max(arg, 0)``; ``arg`` has a positive leading coefficient and content 1."""

    __slots__ = ("arg",)

    def __init__(self, arg: DimExpr) -> None:
        self.arg = arg
        self._key = None
        self.memo = None
        self._serial = next(_SERIALS)
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
        return _ATOM_EVALUATOR[0](self, env)


def atom_children(a: Atom) -> list[Atom]:
    """The atoms of the operands of ``a`` (one level down)."""
    return _children(a, True)


def compound_children(a: Atom) -> list[Atom]:
    """The floordiv and max atoms of the operands of ``a`` (one level down):
    the children for a :func:`fold_atoms` whose ``compute`` reads variables
    itself (an atom over variables alone then takes its fast path)."""
    return _children(a, False)


def _children(a: Atom, variables: bool) -> list[Atom]:
    """The atoms of the operands of ``a``, its variables among them if asked."""
    out: list[Atom] = []
    for o in a.operands:
        if not isinstance(o, int):
            for m in o.terms:
                pairs: Factors = m
                for b, _ in pairs:
                    if variables or type(b) is not Var:
                        out.append(b)
    return out


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


class _AttrMemo(MutableMapping[Any, Any]):
    """A memo for :func:`fold_atoms` kept in an attribute slot of each atom
    (the sort keys)."""

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
        raise TypeError("an _AttrMemo cannot list its atoms")

    def __len__(self) -> int:
        raise TypeError("an _AttrMemo cannot count its atoms")


_KEYS = _AttrMemo("_key")


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


#: The ``(atom, exponent)`` pairs of a monomial, as a plain tuple type.  A
#: compiled loop over a :class:`Mono` goes through a generic iterator (an
#: object per loop, which the garbage collector counts), since the compiler
#: knows nothing of a tuple subclass; bound to a local of this type first
#: (``pairs: Factors = m``), it walks the tuple in C.  Worth it in hot loops.
Factors = tuple[tuple[Atom, int], ...]


def single_atom(m: Factors) -> Atom | None:
    """The atom of a monomial that is one atom to the first power, else None.

    (A compiled ``len(m)`` or ``m[0]`` on a :class:`Mono` is a generic call of
    its ``__len__`` or ``__getitem__``; here, typed as a plain tuple, both
    are C operations.)"""
    if len(m) == 1:
        a, k = m[0]
        if k == 1:
            return a
    return None


def nonlinear(m: Factors) -> bool:
    """Is the monomial of degree 2 or more (a product, or a power)?"""
    return len(m) > 1 or (len(m) == 1 and m[0][1] > 1)


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

    # No __slots__ (a tuple subclass cannot have them): each monomial may
    # carry ``_products``, a memo of mono_mul, ``_sort_key``, the memo of
    # mono_key, and ``memo``, the public slot of the layers above (see
    # Atom.memo).  Interned monomials are few, so the per-object dict is cheap.
    _products: dict[Mono, Mono] | None = None
    _sort_key: tuple[Any, ...] | None = None
    #: What the layers above derive from the monomial alone (see Atom.memo).
    memo: Any = None
    __hash__ = object.__hash__
    __eq__ = object.__eq__
    __ne__ = object.__ne__


# A monomial is interned in its youngest atom (``_monos``; see _SERIALS),
# and dies with it: a floordiv's or max's with its scope, a variable's when
# nothing holds the variable.  While the monomial lives it holds that atom,
# so the table lives too: an interned value is never dropped while an
# expression may still hold it.  An older atom never holds it: a variable a
# cached scope keeps alive does not keep the monomials it forms with
# variables made after it, nor those variables.
def mono_of(pairs: tuple[tuple[Atom, int], ...]) -> Mono:
    """The interned monomial of ``(atom, exponent)`` pairs already in atom-key order."""
    key = pairs if type(pairs) is tuple else tuple(pairs)  # a Mono hashes by identity
    if not key:
        return ONE
    owner = key[0][0]
    if len(key) > 1:
        serial = owner._serial
        for a, _ in key:
            if a._serial > serial:
                owner = a
                serial = a._serial
    table = owner._monos
    if table is None:  # a floordiv or max atom's first monomial
        table = owner._monos = {}
    m = table.get(key)
    if m is None:
        m = table.setdefault(key, Mono(key))  # setdefault: one winner across threads
    return m


def _youngest(m: Mono) -> int:
    """The serial of the youngest atom of a non-constant monomial."""
    pairs: Factors = m
    if len(pairs) == 1:
        return pairs[0][0]._serial
    return max([a._serial for a, _ in pairs])


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


#: The constant monomial: the empty product, the key of an expression's constant term.
ONE: Mono = Mono(())


def _expr_key(e: DimExpr | int) -> tuple[Any, ...]:
    return (0, e) if isinstance(e, int) else e.sort_key


def _compute_mono_key(m: Mono) -> tuple[Any, ...]:
    # One flat tuple: (-degree, atom key fields..., -exponent, ...).  Each atom
    # key's length is fixed by its leading tag, so flattening is injective and
    # the order is the lexicographic one over (atom, exponent) pairs; flat
    # tuples compare several times faster than nested ones, and comparing
    # leading monomials is the core of every addition.
    pairs: Factors = m
    degree = 0
    for _, e in pairs:
        degree += e
    key: list[Any] = [-degree]
    for a, e in pairs:
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
    # The memo lives on the factor with the younger youngest atom: the
    # product is interned in that atom, and the other factor is older, so
    # the memo holds nothing younger than its owner (see _SERIALS) and dies
    # with it (a floordiv's or max's with its scope).  It is looked up on
    # both factors (cheaper than telling which one is younger).
    memo = m1._products
    if memo is not None:
        m = memo.get(m2)
        if m is not None:
            return m
    memo = m2._products
    if memo is not None:
        m = memo.get(m1)
        if m is not None:
            return m
    if _youngest(m1) >= _youngest(m2):
        owner, other = m1, m2
    else:
        owner, other = m2, m1
    memo = owner._products
    if memo is None:
        memo = owner._products = {}
    elif len(memo) >= _PRODUCTS_MAX:
        memo.clear()
    m = memo[other] = _mono_mul(m1, m2)
    return m


def _mono_mul(m1: Mono, m2: Mono) -> Mono:
    f1: Factors = m1
    f2: Factors = m2
    if len(f1) == 1 and len(f2) == 1:
        p1 = f1[0]
        p2 = f2[0]
        a1, k1 = p1
        a2, k2 = p2
        if a1 is a2:
            return mono_of(((a1, k1 + k2),))
        key1 = a1._key  # the slots directly (hot); sort_key fills missing keys
        key2 = a2._key
        if key1 is None or key2 is None:
            key1 = a1.sort_key
            key2 = a2.sort_key
        return mono_of((p1, p2) if key1 < key2 else (p2, p1))
    acc: dict[Atom, int] = dict(f1)
    for a, k in f2:
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


def adopt_sort_key(new: Atom, original: Atom) -> None:
    """Give ``new``, a copy of ``original`` in another scope, the original's
    sort key (structural: the same for the copy) unless it has one."""
    if new._key is None:
        new._key = original._key


# The value of a floordiv or max atom is defined by its operands' values, so
# its ``evaluate`` is the evaluator of expressions (symshape.algebra.poly,
# which builds on this module), installed here when that module is imported.
def _no_evaluator(a: Atom, env: Mapping[str, Any]) -> Any:
    raise RuntimeError("symshape.algebra.poly is not imported")


_ATOM_EVALUATOR: list[Callable[[Atom, Mapping[str, Any]], Any]] = [_no_evaluator]


def set_atom_evaluator(evaluate: Callable[[Atom, Mapping[str, Any]], Any]) -> None:
    """Install the evaluator of compound atoms (see :mod:`symshape.algebra.poly`)."""
    _ATOM_EVALUATOR[0] = evaluate


__all__ = [
    "ONE", "Atom", "Factors", "FloorDiv", "Max0", "Mono", "Var", "adopt_sort_key",
    "atom_children", "atom_mono", "compound_children", "fold_atoms", "live_variable_count",
    "make_floordiv_atom", "make_max0_atom", "make_var", "mono_div", "mono_key", "mono_mul",
    "mono_of", "nonlinear", "release_atoms", "set_atom_evaluator", "single_atom",
]
