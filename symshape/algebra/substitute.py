"""Expressions rebuilt elsewhere: with variables replaced (:func:`substitute`),
or copied unchanged into another scope (:class:`ScopeCopier`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from symshape.algebra.atoms import (
    Atom,
    Factors,
    FloorDiv,
    Max0,
    Mono,
    Var,
    adopt_sort_key,
    compound_children,
    fold_atoms,
    make_floordiv_atom,
    make_max0_atom,
    mono_of,
)
from symshape.algebra.dimexpr import DimExpr, mul_any
from symshape.algebra.floordiv import floordiv
from symshape.algebra.maxmin import max_expr

if TYPE_CHECKING:
    from symshape.algebra.protocol import AlgebraScope


def substitute(e: DimExpr | int, env: Mapping[str, DimExpr | int],
               scope: AlgebraScope | None = None) -> DimExpr | int:
    """Replace variables by expressions (or ints) and renormalize.

    ``scope`` is the scope of the result (default: the scope of ``e``); the
    replacements must belong to it.
    """
    if isinstance(e, int):
        return e
    target = scope if scope is not None else e.scope
    return _Substitution(env, target).expr(e)


class _Substitution:
    """One substitution, with a cache of the values of atoms (a class:
    no nested functions in compiled modules, see
    docs/architecture.md)."""

    __slots__ = ("env", "target", "cache")

    def __init__(self, env: Mapping[str, DimExpr | int], target: AlgebraScope) -> None:
        self.env = env
        self.target = target
        self.cache: dict[Atom, DimExpr | int] = {}

    def atom(self, a: Atom) -> DimExpr | int:
        """The value of an atom."""
        v = self.cache.get(a)
        if v is not None:
            return v
        if type(a) is Var:
            v = self.env[a.name] if a.name in self.env else self.target.var(a.name)
        elif type(a) is FloorDiv:
            v = floordiv(self.expr(a.num), self.expr(a.den))
        else:
            assert type(a) is Max0
            v = max_expr(self.expr(a.arg), 0)
        self.cache[a] = v
        return v

    def expr(self, x: DimExpr | int) -> DimExpr | int:
        """The value of an expression."""
        if isinstance(x, int):
            return x
        target = self.target
        total: DimExpr | int = 0
        for m, c in x.terms.items():
            v: DimExpr | int = c
            pairs: Factors = m
            for a, k in pairs:
                av = self.atom(a)
                for _ in range(k):
                    v = mul_any(v, av, target) if isinstance(av, DimExpr) else v * av
            total = total + v
        return total


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
        terms = e.terms
        for m in terms:
            pairs: Factors = m
            for a, _ in pairs:
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
            pairs: Factors = m
            for a, _ in pairs:
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
        adopt_sort_key(new, a)
        return new


__all__ = ["ScopeCopier", "substitute"]
