"""Valuations the decision procedure evaluates claims at: one :class:`Point`,
or a :class:`Pool` of valid points evaluated all at once.

A variable a point does not fix gets :func:`free_value`, by its colour in the
question (its place, see :func:`symshape.decision.canon.variable_colors`),
never by its name.  Evaluation is the algebra's one evaluator
(:func:`symshape.algebra.poly.evaluate_terms`: a point in its scalar-int
domain, a pool in its domain of lists over the points); where it finds a
divisor 0 (undefined), a point and a pool use 0, since such points violate
the divisor's domain condition and are rejected.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, Final

from symshape.algebra.atoms import Atom, Factors, Var, atom_children, fold_atoms
from symshape.algebra.poly import (
    VectorDomain,
    compute_atom,
    evaluate_terms,
    value_at,
)
from symshape.decision import canon
from symshape.decision.poly import Poly

#: points of the pool of a scope without constraints
POOL_FREE_SEEDS = 10


def free_value(seed: int, color: int) -> int:
    """Deterministic value of an unconstrained variable in pool point ``seed``.

    ``color`` describes the variable's place in the question asked (see
    :func:`symshape.decision.canon.variable_colors`), never its name: a
    renaming of the variables gives them the same values, and variables in
    symmetric places get equal values.  (Not cached: colours are new with
    every question, and the value is a few integer operations.)"""
    if seed == 0:
        return 1
    h = zlib.crc32((color & 0xFFFFFFFFFFFFFFFF).to_bytes(8, "little")) ^ \
        (seed * 0x9E3779B1 & 0xFFFFFFFF)
    h = (h * 2654435761) & 0xFFFFFFFF
    h ^= h >> 15
    if seed % 5 == 4:
        return 50 + h % 1000
    return 1 + h % (2 + 3 * seed)


class Point:
    """A valuation: explicit values, and :func:`free_value` for other variables
    (a points of a pool gets the values of the question's free variables when
    it is taken as evidence, see :meth:`Pool.point`; elsewhere every variable
    outside ``env`` gets the same value).

    Atom values are memoized for the life of the point (shared points, made
    with ``sub=None``, keep no memo); evaluation is iterative, so deep nests of
    ``max``/``floordiv`` cannot hit the recursion limit.
    """

    __slots__ = ("env", "seed", "memo", "default")

    def __init__(self, env: dict[str, int], seed: int, sub: Any) -> None:
        self.env = env
        self.seed = seed
        self.memo: dict[Atom, int] | None = {} if sub is not None else None
        # (``sub``, the atoms below an atom, only says whether to keep a memo:
        # the scalar walk reads variables itself)
        #: The value of a variable outside ``env``.
        self.default = _DEFAULTS[seed] if seed < len(_DEFAULTS) else free_value(seed, 0)

    def var(self, name: str) -> int:
        """Value of a variable."""
        v = self.env.get(name)
        if v is None:
            v = self.default
        return v

    def poly(self, p: Poly, memo: dict[Atom, int] | None = None) -> int:
        """Value of a polynomial."""
        if memo is None:
            memo = self.memo if self.memo is not None else {}
        return value_at(p, self.env, memo, self.default, _UNDEFINED)  # type: ignore[return-value]

    def satisfies(self, polys: Sequence[Poly]) -> bool:
        """Is every polynomial of ``polys`` >= 0 here?  (Where validity is
        checked, for every candidate valuation: one loop, no call per
        polynomial.)"""
        env = self.env
        memo = self.memo if self.memo is not None else {}
        default = self.default
        for p in polys:  # noqa: SIM110 - all() over a generator costs more here
            if value_at(p, env, memo, default, _UNDEFINED) < 0:  # type: ignore[operator]
                return False
        return True

    def report(self, names: Sequence[str]) -> dict[str, int]:
        """The valuation of ``names``."""
        return {n: self.var(n) for n in names}


#: What a floordiv atom whose divisor is 0 is worth at a point (the one
#: evaluator, :mod:`symshape.algebra.poly`, leaves it to its caller): a zero
#: divisor only occurs at points that violate the divisor's domain condition
#: (sample points, or points about to be rejected as invalid), where any
#: value will do.  A pool gives the same value at each such point.
_UNDEFINED = 0


# free_value(seed, 0), the value of a variable a point does not fix, for the
# seeds of pools (a point is made for every candidate valuation).
_DEFAULTS = tuple(free_value(seed, 0) for seed in range(64))

# The pool of a scope without constraints: shared, immutable points.
FREE_POINTS = tuple(Point({}, s, None) for s in range(POOL_FREE_SEEDS))


#: Told of every atom a :class:`Pool` evaluates at its points.  Empty unless
#: something counts that work (the test suite, ``tests/conftest.py``): a
#: compiled class cannot be wrapped from outside, so the counter listens here.
EVALUATION_WATCHERS: Final[list[Callable[[Atom], None]]] = []


class Pool:
    """Valid valuations, evaluated all at once: the value lists of atoms over
    every point are memoized, so a claim costs a few list operations.

    The points give values to the constraints' variables; the other
    variables of a question get :func:`free_value` by their colours in that
    question (:meth:`for_question`), so that what the pool shows does not
    depend on the variables' names.
    """

    __slots__ = ("points", "memo", "_sub", "colors", "_known", "_sigs", "_sigs_of", "_dom")

    def __init__(self, points: Sequence[Point], sub: Any,
                 colors: dict[str, int] | None = None,
                 known: _KnownValues | None = None) -> None:
        self.points = points if isinstance(points, tuple) else tuple(points)
        self.memo: dict[Atom, list[int]] = {}
        self._sub = sub
        self.colors = colors if colors is not None else {}
        # The values of floordiv and max atoms computed for earlier
        # questions (shared by the pools of one base pool, see for_question),
        # and this question's signatures of atoms (see _KnownValues).
        self._known = known
        self._sigs: dict[Atom, int] = {}
        self._sigs_of: object = None  # the generation of ``known`` the numbers are of
        # (the variables' values by a function of the points and colours,
        # not a method: the pool would be in a reference cycle)
        self._dom = VectorDomain(len(self.points), partial(_var_values, self.points, self.colors),
                                 _UNDEFINED)

    def for_question(self, polys: Sequence[Poly], constraint_atoms: bool = False) -> Pool:
        """The same points, for a question about ``polys`` under the scope's
        constraints (``constraint_atoms``: do they have floordiv or max
        atoms?): the free variables valued by their colours in that
        question.  A question with at most one free variable needs no
        colours (any value is the same value), and keeps this pool's memo."""
        bound = self.points[0].env if self.points else {}
        free: set[str] = set()
        only_variables = True
        for p in polys:
            for m in p:
                pairs: Factors = m
                for a, _ in pairs:
                    if type(a) is not Var:
                        only_variables = False
                    elif a.name not in bound:
                        free.add(a.name)
        if len(free) <= 1 and not constraint_atoms and only_variables:
            return self
        # Only the free variables get colours, and they occur in the question
        # alone: every variable of the constraints has a value at every point.
        known = self._known
        if known is None:
            known = self._known = _KnownValues()
        return Pool(self.points, self._sub, canon.place_colors(polys, bound), known)

    def point(self, i: int) -> Point:
        """Point ``i`` with the values of the question's free variables
        written out (what evidence shows)."""
        pt = self.points[i]
        env = dict(pt.env)
        for name, color in self.colors.items():
            if name not in env:
                env[name] = free_value(pt.seed, color)
        return Point(env, pt.seed, atom_children if pt.memo is not None else None)

    def __len__(self) -> int:
        return len(self.points)

    def atom(self, a: Atom) -> list[int]:
        """Values of an atom at every point."""
        v = self.memo.get(a)
        if v is not None:
            return v
        if type(a) is Var:  # (what fold_atoms computes, without its walk)
            v = self.memo[a] = self._compute(a)
            return v
        known = self._known
        if known is None or canon.atom_depth(a) < _KNOWN_DEPTH:
            return fold_atoms(a, self.memo, self._compute, self._sub)
        # A question's pool: the atoms whose variables have the values they
        # had in an earlier question keep the values computed then (a nest
        # of max/min asks about every level while it is built: each level
        # would evaluate the whole nest below it again).
        if known.size() > _KNOWN_MAX:
            known.clear()
        if self._sigs_of is not known.generation:  # (numbers from before a clear mean nothing)
            self._sigs = {}
            self._sigs_of = known.generation
        fold_atoms(a, self._sigs, self._signature, self._sub)
        return fold_atoms(a, self.memo, self._compute_known, self._unknown_children)

    def _signature(self, x: Atom) -> int:
        """What the values of ``x`` at the points depend on, beyond ``x``
        itself: its variables' names and colours (the signatures of the
        atoms below it are in ``_sigs``)."""
        known = self._known
        assert known is not None
        if type(x) is Var:
            return known.intern((x.name, self.colors.get(x.name, 0)))
        sigs = self._sigs
        return known.intern(tuple([sigs[b] for b in self._sub(x)]))

    def _unknown_children(self, x: Atom) -> Any:
        known = self._known
        assert known is not None
        if type(x) is not Var and known.get(x, self._sigs[x]) is not None:
            return ()  # known: its operands need no values
        return self._sub(x)

    def _compute_known(self, x: Atom) -> list[int]:
        known = self._known
        assert known is not None
        if type(x) is Var:
            return self._compute(x)
        sig = self._sigs[x]
        v = known.get(x, sig)
        if v is None:
            v = self._compute(x)
            known.put(x, sig, v)
        return v

    def _compute(self, x: Atom) -> list[int]:
        if EVALUATION_WATCHERS:
            for watch in EVALUATION_WATCHERS:
                watch(x)
        return compute_atom(self._dom, self.memo, x)

    def values(self, p: Poly) -> list[int]:
        """Values of a polynomial at every point."""
        return evaluate_terms(p, self._dom, self.memo, self.atom)


def _var_values(points: tuple[Point, ...], colors: dict[str, int], name: str) -> list[int]:
    """Values of a variable at the points of a pool with these colours."""
    color = colors.get(name, 0)
    return [pt.env[name] if name in pt.env else free_value(pt.seed, color) for pt in points]


#: atoms whose values a base pool keeps for later questions (then it starts over)
_KNOWN_MAX = 20_000
#: the nesting depth from which an atom's values are looked for among those
#: kept (below it, computing them again costs less than the signatures)
_KNOWN_DEPTH = 4


class _KnownValues:
    """Values of floordiv and max atoms at the points of one base pool, kept
    across the questions asked of it, each with the signature it was
    computed at: an interned number for the names and colours of the
    variables below the atom (exact, not a hash: equal numbers mean equal
    names and colours, so equal values)."""

    __slots__ = ("values", "ids", "generation")

    def __init__(self) -> None:
        self.values: dict[Atom, tuple[int, list[int]]] = {}
        self.ids: dict[tuple[Any, ...], int] = {}
        self.generation = object()  # new at every clear

    def intern(self, key: tuple[Any, ...]) -> int:
        """The number of ``key`` (a new one for a key not seen before)."""
        ids = self.ids
        i = ids.get(key)
        if i is None:
            i = ids[key] = len(ids)
        return i

    def get(self, a: Atom, sig: int) -> list[int] | None:
        got = self.values.get(a)
        return got[1] if got is not None and got[0] == sig else None

    def put(self, a: Atom, sig: int, values: list[int]) -> None:
        self.values[a] = (sig, values)

    def size(self) -> int:
        return len(self.values) + len(self.ids)

    def clear(self) -> None:
        self.values.clear()
        self.ids.clear()
        self.generation = object()


__all__ = ["FREE_POINTS", "POOL_FREE_SEEDS", "Point", "Pool", "free_value"]
