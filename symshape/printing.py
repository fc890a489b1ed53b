"""Readable, canonical text for dimension expressions.

The canonical form has no ``mod`` or ``min`` atoms and keeps ``max`` as
``max(d, 0)``.  Printing recovers the familiar spellings where the terms allow
it: ``x - k*floordiv(x, k)`` prints as ``mod(x, k)``, ``y + max(x - y, 0)`` as
``max(x, y)`` and ``x - max(x - y, 0)`` as ``min(x, y)``.  The output re-parses
to an equal expression in the same scope.
"""

from __future__ import annotations

import threading

from symshape.algebra.atoms import (
    ONE,
    Atom,
    FloorDiv,
    Max0,
    Mono,
    Var,
    atom_mono,
    fold_atoms,
    mono_key,
    mono_mul,
    mono_of,
)
from symshape.algebra.dimexpr import DimExpr, set_printer
from symshape.algebra.poly import Terms
from symshape.util import int_to_digits

# Texts of the atoms of the expression being printed, filled innermost first
# (see expr_to_str), so that printing a deep nest recurses one level at a time.
_PRINTING = threading.local()


def dim_text(e: DimExpr | int) -> str:
    """The text of an expression or an int (of any size: ``str`` refuses
    ints of over 4300 digits by default)."""
    return int_to_digits(e) if isinstance(e, int) else _expr_text(e)



def _atom_text(a: Atom) -> str:
    memo: dict[Atom, str] | None = getattr(_PRINTING, "atoms", None)
    if memo is not None:
        text = memo.get(a)
        if text is not None:
            return text
    return _new_atom_text(a)


def _new_atom_text(a: Atom) -> str:
    t = type(a)
    if t is FloorDiv:
        return f"floordiv({dim_text(a.num)}, {dim_text(a.den)})"  # type: ignore[attr-defined]
    if t is Max0:
        return f"max({dim_text(a.arg)}, 0)"  # type: ignore[attr-defined]
    return a.name  # type: ignore[attr-defined]


def _mono_text(m: Mono) -> str:
    parts = []
    for a, k in m:
        s = _atom_text(a)
        parts.append(s if k == 1 else f"{s}^{k}")
    return "*".join(parts)


def _contains(terms: Terms, sub: Terms, scale: int) -> bool:
    return all(terms.get(m) == c * scale for m, c in sub.items())


def _remove(terms: Terms, sub: Terms, scale: int) -> None:
    for m in sub:
        del terms[m]
    del scale


def _symbolic_mod(m: Mono, c: int, remaining: Terms) -> tuple[int, str] | None:
    """Find ``t*(x - y*floordiv(x, y))`` for a symbolic ``y`` whose product with
    the floordiv gives the term ``c*m``; remove its terms and return ``(t, text)``."""
    for a, k in m:
        if type(a) is not FloorDiv or k != 1 or isinstance(a.den, int):
            continue
        rest = tuple(p for p in m if p[0] is not a)
        den_c = a.den.terms.get(mono_of(rest))
        if not den_c or c % den_c:
            continue
        t = -c // den_c
        prod: Terms = {}
        for dm, dc in a.den.terms.items():
            pm = mono_mul(dm, atom_mono(a))
            prod[pm] = prod.get(pm, 0) - dc
        num_terms: Terms = {ONE: a.num} if isinstance(a.num, int) else dict(a.num.terms)
        if any(pm in num_terms for pm in prod):
            continue
        if not (_contains(remaining, prod, t) and _contains(remaining, num_terms, t)):
            continue
        _remove(remaining, prod, t)
        _remove(remaining, num_terms, t)
        return t, f"mod({dim_text(a.num)}, {dim_text(a.den)})"
    return None


def _outer_max(e: DimExpr) -> str | None:
    """``max(y + d, y)`` for ``e == y + max(d, 0)`` (or ``min(x, x - d)`` for
    ``e == x - max(d, 0)``) when ``d`` mentions another floordiv or max atom of
    ``e``: a clamp such as ``min(max(t, a), b)``, whose canonical form holds
    ``max(t - a, 0)`` both as a term and inside the other ``max``.  Printing
    the term-by-term form would repeat the shared part at every level of a
    nest (exponential text); printed this way each part appears once.
    """
    tops = {a for m in e.terms for a, _ in m if type(a) is not Var}
    if len(tops) < 2:
        return None
    best: tuple[int, Max0] | None = None
    # In canonical term order: a tie goes the same way however ``e`` was built.
    for m, c in sorted(e.terms.items(), key=lambda t: mono_key(t[0])):
        if abs(c) != 1 or len(m) != 1 or m[0][1] != 1 or type(m[0][0]) is not Max0:
            continue
        a = m[0][0]
        shared = sum(1 for b in a.arg.atoms() if b in tops and b is not a)
        # the outermost: the one whose argument holds most of the others
        if shared and (best is None or shared > best[0]):
            best = (shared, a)
    if best is None:
        return None
    a = best[1]
    c = e.terms[atom_mono(a)]
    rest = e - c * DimExpr.make({atom_mono(a): 1}, e.scope)
    if c > 0:
        return f"max({dim_text(rest + a.arg)}, {dim_text(rest)})"
    return f"min({dim_text(rest)}, {dim_text(rest - a.arg)})"


def expr_to_str(e: DimExpr) -> str:
    """Canonical text of ``e``: leading terms first, constant last.

    The texts of the atoms are made innermost first (without recursion), so
    a nest as deep as the parser accepts prints without reaching Python's
    recursion limit.
    """
    if getattr(_PRINTING, "atoms", None) is not None:
        return _expr_text(e)  # inside a print already under way
    memo: dict[Atom, str] = {}
    _PRINTING.atoms = memo
    try:
        for m in e.terms:
            for a, _ in m:
                if type(a) is not Var:
                    fold_atoms(a, memo, _new_atom_text)
        return _expr_text(e)
    finally:
        _PRINTING.atoms = None


def _expr_text(e: DimExpr) -> str:
    if len(e.terms) == 1:
        # A single term (a variable, an atom): each mod/max/min spelling below
        # needs terms besides the one it starts from, so none applies.
        for m, c in e.terms.items():
            return _join([(c, _mono_text(m) if m else "")])
    outer = _outer_max(e)
    if outer is not None:
        return outer
    remaining: Terms = dict(e.terms)
    # (sort key, coefficient, text) of the printed terms
    out: list[tuple[tuple[object, ...], int, str]] = []
    for m, c in sorted(e.terms.items(), key=lambda t: mono_key(t[0])):
        if m not in remaining or not m:
            continue
        if len(m) > 1 or m[0][1] != 1:
            found = _symbolic_mod(m, c, remaining)
            if found is not None:
                out.append((mono_key(m), found[0], found[1]))
            continue
        a = m[0][0]
        if type(a) is FloorDiv and isinstance(a.den, int) and c % a.den == 0 and \
                isinstance(a.num, DimExpr):
            t = -c // a.den
            num_terms = a.num.terms
            if m not in num_terms and _contains(remaining, num_terms, t):
                del remaining[m]
                _remove(remaining, num_terms, t)
                out.append((mono_key(m), t, f"mod({dim_text(a.num)}, {dim_text(a.den)})"))
        elif type(a) is Max0:
            d = a.arg.terms
            if c > 0:
                # y + max(d, 0) == max(y + d, y) with y the negated negative part of d
                neg = {mm: -cc for mm, cc in d.items() if cc < 0}
                if neg and m not in neg and _contains(remaining, neg, c):
                    del remaining[m]
                    _remove(remaining, neg, c)
                    y = DimExpr.make(neg, e.scope)
                    x = y + a.arg
                    out.append((mono_key(m), c, f"max({dim_text(x)}, {dim_text(y)})"))
            else:
                # x - max(d, 0) == min(x, x - d) with x the positive part of d
                pos = {mm: cc for mm, cc in d.items() if cc > 0}
                if pos and m not in pos and _contains(remaining, pos, -c):
                    del remaining[m]
                    _remove(remaining, pos, -c)
                    x = DimExpr.make(pos, e.scope)
                    y = x - a.arg
                    out.append((mono_key(m), -c, f"min({dim_text(x)}, {dim_text(y)})"))
    for m, c in remaining.items():
        out.append((mono_key(m), c, _mono_text(m) if m else ""))
    out.sort(key=lambda t: t[0])
    return _join([(c, body) for _, c, body in out])


def _join(out: list[tuple[int, str]]) -> str:
    """Text of the ``(coefficient, monomial text)`` terms, in order."""
    pieces: list[str] = []
    for i, (c, body) in enumerate(out):
        if not body:
            term = int_to_digits(abs(c))
        elif abs(c) == 1:
            term = body
        else:
            term = f"{int_to_digits(abs(c))}*{body}"
        if i == 0:
            pieces.append(f"-{term}" if c < 0 else term)
        else:
            pieces.append(f" - {term}" if c < 0 else f" + {term}")
    return "".join(pieces) if pieces else "0"


set_printer(expr_to_str)

__all__ = ["expr_to_str"]
