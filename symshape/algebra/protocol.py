"""The one interface between the algebra and the scope its expressions belong to.

Some canonical forms depend on the scope's facts (``max(b, 2)`` is ``b`` only
where ``b >= 2`` is a fact), so the algebra asks the scope for what it needs
through :class:`AlgebraScope`; it never names the scope class, which lives a
layer above (``symshape.scope``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from symshape.algebra.atoms import Mono
    from symshape.algebra.dimexpr import DimExpr
    from symshape.algebra.poly import Terms


class AlgebraScope(Protocol):
    """What the algebra asks of the scope its expressions belong to.

    This is the one interface between the algebra (``symshape.algebra``) and the
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


__all__ = ["AlgebraScope"]
