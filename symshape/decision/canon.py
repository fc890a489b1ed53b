"""An order of a problem's monomials that does not depend on variable names.

The search (``symshape.decision.search``) adds one simplex column per
monomial and branches on the first column that needs it, so the order of the
columns steers the whole search.  Ordered by digests of the names, renaming
the variables of a claim reorders its columns, and a claim proved within the
work budget under one naming could run out of it under another: an answer
that depended on the names.  The same holds wherever the decision procedure
keeps only the first few of something (the atoms that get product facts in
``linearize``, the variables nudged in the valuation pool) and for the values
the pool gives to free variables (``engine``): all of them use the orders
and colours defined here.

Here each variable gets a *colour* from its place in the problem alone, by
colour refinement (the Weisfeiler-Leman procedure): start with one colour for
all variables, then colour each variable by the facts, terms and atoms it
occurs in, described with the colours of the previous round, until the
colouring stops splitting.  Monomials are ordered by their degree and by a
digest built from colours instead of names; only monomials the refinement
cannot tell apart (variables in symmetric places) fall back to the name
digests, and swapping those is (almost always) a symmetry of the problem.

Digests are tuples of ints hashed with Python's tuple hash, which does not
depend on the process's string-hash seed.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, MutableMapping, Sequence

from symshape.algebra.atoms import (
    Atom,
    Factors,
    FloorDiv,
    Max0,
    Mono,
    Var,
    atom_children,
    fold_atoms,
)
from symshape.algebra.dimexpr import DimExpr
from symshape.decision import poly as P

#: rounds of refinement at most (each round splits colours or ends it)
MAX_ROUNDS = 4


# Digests with every variable alike (the first round of refinement) depend on
# the structure alone, so they are kept on the atoms and monomials themselves
# and serve every problem of the scope.
_SHAPES = P.NoteMemo("shape")  # (of atoms and of monomials: the same field of their notes)
# The nesting depth of an atom (0 for a variable), kept on the atom too.
_ATOM_DEPTHS = P.NoteMemo("depth")


def _depth_of(x: Atom) -> int:
    if type(x) is Var:
        return 0
    return 1 + max((_ATOM_DEPTHS[b] for b in atom_children(x)), default=-1)


def atom_depth(a: Atom) -> int:
    """Nesting depth of ``a``: 0 for a variable, 1 + the deepest atom of its
    operands otherwise."""
    return fold_atoms(a, _ATOM_DEPTHS, _depth_of)


class _Digests:
    """Structural digests of atoms, monomials and polynomials, given colours
    of the variables (memoized; one instance per round).  ``uniform``: every
    variable has colour 0, and the memos are the ones kept on the atoms and
    monomials."""

    def __init__(self, colors: dict[str, int], uniform: bool = False) -> None:
        self.colors = colors
        self.atoms: MutableMapping[Atom, int] = _SHAPES if uniform else {}
        self.monos: MutableMapping[Mono, int] = _SHAPES if uniform else {}

    def atom(self, a: Atom) -> int:
        d = self.atoms.get(a)
        if d is not None:
            return d
        # Iterative over the nesting (deep atoms cannot exhaust the stack).
        stack: list[Atom] = [a]
        while stack:
            x = stack[-1]
            if x in self.atoms:
                stack.pop()
                continue
            if type(x) is Var:
                self.atoms[x] = hash((1, self.colors.get(x.name, 0)))
                stack.pop()
                continue
            pending = [b for o in x.operands if isinstance(o, DimExpr)
                       for m in o.terms for b, _ in m if b not in self.atoms]
            if pending:
                stack.extend(pending)
                continue
            tag = 2 if type(x) is FloorDiv else 3
            assert type(x) in (FloorDiv, Max0)
            self.atoms[x] = hash((tag,) + tuple(self.operand(o) for o in x.operands))
            stack.pop()
        return self.atoms[a]

    def operand(self, o: DimExpr | int) -> int:
        if isinstance(o, int):
            return hash((0, o))
        return self.poly(o.terms)

    def mono(self, m: Mono) -> int:
        d = self.monos.get(m)
        if d is None:
            pairs: Factors = m
            if len(pairs) == 1:  # (the sorted tuple of one pair, without the sort)
                a, k = pairs[0]
                d = hash(((self.atom(a), k),))
            else:
                d = hash(tuple(sorted([(self.atom(a), k) for a, k in pairs])))
            self.monos[m] = d
        return d

    def poly(self, p: P.Poly) -> int:
        return hash(tuple(sorted([(self.mono(m), c) for m, c in p.items()])))


# Where a variable occurs directly: as a factor of monomial ``m`` with
# coefficient ``c``, either in fact number ``i`` (``parent`` None) or in
# operand number ``i`` of the atom ``parent``.
_Place = tuple[Atom | None, int, Mono, int]


def _places(polys: Sequence[P.Poly]) -> dict[str, list[_Place]]:
    """The direct occurrences of every variable of ``polys`` (each atom's
    operands visited once: linear in the size of the problem)."""
    out: dict[str, list[_Place]] = {}
    seen: set[Atom] = set()
    todo: list[Atom] = []
    for i, p in enumerate(polys):
        _visit_places(out, seen, todo, None, i, p)
    while todo:
        a = todo.pop()
        for k, o in enumerate(a.operands):
            if isinstance(o, DimExpr):
                _visit_places(out, seen, todo, a, k, o.terms)
    return out


# (module-level helpers and lambdas: no nested functions in
# compiled modules, see docs/architecture.md)
def _visit_places(out: dict[str, list[_Place]], seen: set[Atom], todo: list[Atom],
                  parent: Atom | None, i: int, terms: P.Poly) -> None:
    """Record the places of ``terms``'s variables; queue its new atoms."""
    for m, c in terms.items():
        pairs: Factors = m
        for a, _ in pairs:
            if type(a) is Var:
                out.setdefault(a.name, []).append((parent, i, m, c))
            elif a not in seen:
                seen.add(a)
                todo.append(a)


def place_colors(polys: Sequence[P.Poly], skip: Container[str] = ()) -> dict[str, int]:
    """Cheap colours from each variable's direct places alone (the kind of
    atom or fact it sits in, the operand, its coefficient and the size of its
    monomial): no digests of atoms, no refinement.  What the valuation pool
    needs to give different variables different values.  The variables in
    ``skip`` get none (a colour depends on the variable's own places only)."""
    return {name: hash(tuple(sorted(
        (-1 if parent is None else 2 if type(parent) is FloorDiv else 3,
         -1 if parent is None else i, c, len(m), sum(k for _, k in m))
        for parent, i, m, c in where)))
        for name, where in _places(polys).items() if name not in skip}


class PlaceColorOrder:
    """``name -> colour`` of :func:`place_colors` (0 for a variable without
    places), computed on the first call: a directed valuation asks for it
    only when it has to choose between variables, and most never do."""

    __slots__ = ("_polys", "_colors")

    def __init__(self, polys: Sequence[P.Poly]) -> None:
        self._polys = polys
        self._colors: dict[str, int] | None = None

    @property
    def computed(self) -> bool:
        """Have the colours been computed (has anyone asked)?"""
        return self._colors is not None

    def __call__(self, name: str) -> int:
        colors = self._colors
        if colors is None:
            colors = self._colors = place_colors(self._polys)
        return colors.get(name, 0)


def variable_colors(polys: Sequence[P.Poly], rounds: int = MAX_ROUNDS) -> dict[str, int]:
    """Colours of the variables of ``polys`` that depend only on the structure
    of the problem (a renaming of the variables renames the keys, nothing
    else), after at most ``rounds`` rounds of refinement."""
    places = _places(polys)
    colors = dict.fromkeys(places, 0)
    n_classes = 1
    for r in range(rounds):
        dg = _Digests(colors, uniform=r == 0)  # round 0: every colour is 0
        poly_d = [dg.poly(p) for p in polys]
        new = {}
        for name, where in places.items():
            sig = sorted((poly_d[i] if parent is None else dg.atom(parent),
                          -1 if parent is None else i,
                          dg.mono(m), c) for parent, i, m, c in where)
            new[name] = hash((colors[name], tuple(sig)))
        k = len(set(new.values()))
        colors = new
        if k == n_classes or k == len(colors):
            break  # stable, or every variable told apart
        n_classes = k
    return colors


def column_order(polys: Sequence[P.Poly]) -> Callable[[Mono], tuple[int, int, int, int]]:
    """A sort key for monomials, with the variables coloured by their places
    in ``polys``: degree; then the deepest atoms first (the search branches on
    the first fractional column, and a quotient such as ``floordiv(c, 56)``
    settles more than its numerator ``c`` does); then a digest built from the
    colours; then (only to break the remaining ties) the name-based digest
    of :func:`symshape.decision.poly.column_key`.  One round of refinement:
    the search sets up a tableau for every hypothesis set, and the first
    round already tells apart the variables of a question's roles.
    :func:`sort_columns` sorts by it at less cost."""
    dg = _Digests(variable_colors(polys, rounds=1))
    return lambda m: _column_key(dg, m)


def _column_key(dg: _Digests, m: Mono) -> tuple[int, int, int, int]:
    degree, named = P.column_key(m)
    return degree, -_mono_depth(m), dg.mono(m), named


def _mono_depth(m: Mono) -> int:
    depth = 0
    pairs: Factors = m
    for a, _ in pairs:
        if type(a) is not Var:  # (a variable's depth is 0)
            n = a.memo  # (the memo of _ATOM_DEPTHS, read inline)
            d = None if n is None else n.depth
            if d is None:
                d = atom_depth(a)
            if d > depth:
                depth = d
    return depth


def sort_columns(monos: Iterable[Mono], polys: Sequence[P.Poly]) -> list[Mono]:
    """``sorted(monos, key=column_order(polys))``, with the colours and the
    coloured digests computed only for monomials that degree and depth leave
    tied (the colours cost more than the rest of a tableau's set-up)."""
    # (monomials themselves are never compared: their tuple order would ask
    # for the atoms' sort keys)
    cheap = {m: (sum(k for _, k in m), -_mono_depth(m)) for m in monos}  # degree, depth
    ranked = sorted(cheap, key=cheap.__getitem__)
    out: list[Mono] = []
    dg: _Digests | None = None
    i, n = 0, len(ranked)
    while i < n:
        j = i + 1
        while j < n and cheap[ranked[j]] == cheap[ranked[i]]:
            j += 1
        if j - i == 1:
            out.append(ranked[i])
        else:
            if dg is None:
                dg = _Digests(variable_colors(polys, rounds=1))
            digests = dg
            out.extend(sorted(ranked[i:j], key=lambda m: (digests.mono(m), P.mono_digest(m))))
        i = j
    return out


def atom_order(polys: Sequence[P.Poly]) -> Callable[[Atom], tuple[int, int]]:
    """A sort key for the atoms of ``polys``: a digest built from the
    variables' colours, then the name-based digest (to break ties)."""
    dg = _Digests(variable_colors(polys))
    return lambda a: (dg.atom(a), P.atom_digest(a))


__all__ = ["PlaceColorOrder", "atom_depth", "atom_order", "column_order", "place_colors",
           "sort_columns", "variable_colors"]
