"""Integer polynomials over the monomials of canonical expressions.

The decision procedure works on its own representation instead of building
``DimExpr`` objects: building a ``max`` or a symbolic ``floordiv`` calls back
into the scope's decision procedure, which would recurse.  A :data:`Poly` maps
an interned monomial (:class:`symshape.algebra.atoms.Mono`) to a non-zero ``int``
coefficient; the constant monomial is :data:`ONE`, the empty one.  Read
linearly, every non-constant monomial is a "column" of a linear program; read
as polynomials, products of facts stay exact, which keeps certificates
checkable.  The ring itself (``add``, ``add_into``, ``scale``, ``mul``) is
the algebra's (:mod:`symshape.algebra.poly`), the one copy shared with the
expressions; this module adds what the decision procedure needs on top:
stable digests, canonical keys, sizes and text.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, MutableMapping
from typing import Any

from symshape.algebra.atoms import (
    ONE,
    Atom,
    Factors,
    FloorDiv,
    Mono,
    Var,
    atom_mono,
    fold_atoms,
    make_var,
    single_atom,
)
from symshape.algebra.dimexpr import DimExpr
from symshape.algebra.poly import Terms, add, add_into, mul, scale
from symshape.util import int_to_digits

Poly = Terms


def from_expr(e: DimExpr | int) -> Poly:
    """The polynomial of an expression or constant (a fresh dict)."""
    if isinstance(e, int):
        return {ONE: e} if e else {}
    return dict(e.terms)


def const(c: int) -> Poly:
    """The constant polynomial ``c``."""
    return {ONE: c} if c else {}


def var_mono(name: str) -> Mono:
    """The degree-1 monomial of the dimension variable ``name``."""
    return atom_mono(make_var(name))


def mono(m: Mono, c: int = 1) -> Poly:
    """``c * m``."""
    return {m: c} if c else {}


def constant(p: Poly) -> int:
    """The constant term."""
    return p.get(ONE, 0)


def is_constant(p: Poly) -> bool:
    """True if ``p`` has no non-constant monomial."""
    return not p or (len(p) == 1 and ONE in p)


def linear_part(p: Poly) -> Poly:
    """``p`` without its constant term."""
    if ONE not in p:
        return p
    return {m: c for m, c in p.items() if m}


class Notes:
    """What the decision procedure derives from the structure of one atom or
    monomial alone: its digest (:func:`atom_digest`, :func:`mono_digest`),
    tree size (:func:`tree_size`), whether a symbolic divisor occurs in it
    (:func:`has_symbolic_divisor`), structural digest with every variable
    alike and nesting depth (``symshape.decision.canon``).  Kept in the
    object's public ``memo`` slot (see :attr:`symshape.algebra.atoms.Atom.memo`),
    so that it dies with the atom's scope; each field None until computed."""

    __slots__ = ("digest", "size", "shape", "depth", "divides")

    def __init__(self) -> None:
        self.digest: int | None = None
        self.size: int | None = None
        self.shape: int | None = None
        self.depth: int | None = None
        self.divides: bool | None = None  # see has_symbolic_divisor


def notes(x: Atom | Mono) -> Notes:
    """The :class:`Notes` of an atom or monomial (made on first use)."""
    n: Notes | None = x.memo
    if n is None:
        n = x.memo = Notes()
    return n


class NoteMemo(MutableMapping[Any, Any]):
    """One field of the :class:`Notes` of atoms (or monomials), as the memo
    of :func:`symshape.algebra.atoms.fold_atoms` (a mapping; None in a field
    means "not computed")."""

    __slots__ = ("field",)

    def __init__(self, field: str) -> None:
        self.field = field  # (a name of a field of Notes)

    def __contains__(self, x: object) -> bool:
        n = getattr(x, "memo", None)
        return n is not None and getattr(n, self.field) is not None

    def __getitem__(self, x: Any) -> Any:
        n = x.memo
        v = None if n is None else getattr(n, self.field)
        if v is None:
            raise KeyError(x)
        return v

    def get(self, x: Any, default: Any = None) -> Any:
        # (Mapping.get goes through __getitem__ and a KeyError on every miss)
        n = x.memo
        v = None if n is None else getattr(n, self.field)
        return default if v is None else v

    def __setitem__(self, x: Any, value: Any) -> None:
        setattr(notes(x), self.field, value)

    def __delitem__(self, x: Any) -> None:
        n = x.memo
        if n is None or getattr(n, self.field) is None:
            raise KeyError(x)
        setattr(n, self.field, None)

    def __iter__(self) -> Iterator[Any]:
        raise TypeError("a NoteMemo cannot list its atoms")

    def __len__(self) -> int:
        raise TypeError("a NoteMemo cannot count its atoms")


_DIGESTS = NoteMemo("digest")


def _h(data: bytes) -> int:
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "big")


def _poly_bytes(e: DimExpr | int) -> bytes:
    if isinstance(e, int):
        return b"i" + int_to_digits(e).encode()
    parts = sorted((mono_digest(m), c) for m, c in e.terms.items())
    return b"p" + b";".join(b"%d*" % d + int_to_digits(c).encode() for d, c in parts)


def _digest_of(x: Atom) -> int:
    """Digest of ``x`` (the digests of its operands' atoms are known)."""
    if type(x) is Var:
        return _h(b"v" + x.name.encode())
    return _h(type(x).__name__.encode() + b"(" + b",".join(
        _poly_bytes(o) for o in x.operands) + b")")


def atom_digest(a: Atom) -> int:
    """A stable 64-bit digest of an atom's structure (same in every process;
    iterative, so deep nests cannot hit the recursion limit)."""
    n = a.memo
    if n is not None:
        d = n.digest
        if d is not None:
            return d
    return fold_atoms(a, _DIGESTS, _digest_of)


_DIVIDES = NoteMemo("divides")


def _divides(x: Atom) -> bool:
    if type(x) is Var:
        return False
    if type(x) is FloorDiv and isinstance(x.den, DimExpr):
        return True
    return any(_DIVIDES[b] for o in x.operands if isinstance(o, DimExpr)
               for m in o.terms for b, _ in m)


def has_symbolic_divisor(a: Atom) -> bool:
    """Is ``a``, or an atom nested in it, a ``floordiv`` by an expression
    (memoized per atom, iterative)?"""
    n = a.memo
    if n is not None:
        d = n.divides
        if d is not None:
            return d
    return bool(fold_atoms(a, _DIVIDES, _divides))


def mono_digest(m: Mono) -> int:
    """A stable digest of a monomial (0 for the constant monomial)."""
    if not m:
        return 0
    one = single_atom(m)
    if one is not None:
        return atom_digest(one)
    n = m.memo  # (monomials are interned: the digest is kept on the object)
    d = None if n is None else n.digest
    if d is None:
        parts = sorted((atom_digest(a), k) for a, k in m)
        d = notes(m).digest = _h(b"*".join(b"%d^%d" % (x, k) for x, k in parts))
    return d


def key(p: Poly) -> tuple[Any, ...]:
    """A canonical, totally ordered key of ``p``: flat (independent of dict
    order and of the nesting depth of its atoms)."""
    return tuple(sorted((mono_digest(m), c) for m, c in p.items()))


def column_key(m: Mono) -> tuple[int, int]:
    """Canonical order of monomials as columns: degree, then digest."""
    return sum(k for _, k in m), mono_digest(m)


def hkey(p: Poly) -> frozenset[tuple[Mono, int]]:
    """A cheap hashable key of ``p`` for dicts and sets (atoms cache their
    hashes; the ordering :func:`key` of deeply nested atoms is costly to hash)."""
    return frozenset(p.items())


def degree(p: Poly) -> int:
    """Total degree (0 for constants and the zero polynomial)."""
    return max((sum(k for _, k in m) for m in p), default=0)


_SIZES = NoteMemo("size")
TEXT_LIMIT = 3000


def tree_size(p: Poly, cap: int = TEXT_LIMIT) -> int:
    """Size of ``p`` written out as a tree (shared sub-expressions counted every
    time they occur), saturating at ``cap``; memoized per atom, iterative."""
    total = 0
    for m in p:
        pairs: Factors = m
        for a, _ in pairs:
            total += min(fold_atoms(a, _SIZES, _size_of), cap)
            if total >= cap:
                return cap
    return total + len(p)


def _size_of(x: Atom) -> int:
    """Tree size of ``x`` (the sizes of its operands' atoms are known),
    saturating at TEXT_LIMIT so that the numbers stay small."""
    size = 1
    for o in x.operands:
        if isinstance(o, DimExpr):
            size += len(o.terms)
            for m in o.terms:
                pairs: Factors = m
                for b, _ in pairs:
                    size += b.memo.size  # (known: see tree_size)
    return min(size, TEXT_LIMIT)


def to_text(p: Poly, scope: Any) -> str:
    """Readable text of ``p`` (reuses the expression printer); a placeholder for
    expressions too large to print (deep nests of shared sub-expressions)."""
    if is_constant(p):
        return str(constant(p))
    if tree_size(p) >= TEXT_LIMIT:
        return f"<expression with {len(p)} terms, too large to print>"
    return str(DimExpr(dict(p), scope))


def mono_text(m: Mono, scope: Any) -> str:
    """Readable text of a monomial."""
    return to_text({m: 1}, scope)


def atoms_of(p: Poly) -> set[Atom]:
    """Top-level atoms of the monomials of ``p``."""
    return {a for m in p for a, _ in m}


def operand_poly(x: DimExpr | int) -> Poly:
    """Polynomial of an atom operand (a ``DimExpr`` or an ``int``)."""
    return from_expr(x)


__all__ = [
    "ONE", "NoteMemo", "Notes", "Poly", "add", "add_into", "atom_digest", "atom_mono", "atoms_of",
    "column_key", "const", "constant", "degree", "from_expr", "has_symbolic_divisor", "hkey",
    "is_constant", "key", "linear_part", "mono", "mono_digest", "mono_text", "mul", "notes",
    "operand_poly", "scale", "to_text", "tree_size",
]
