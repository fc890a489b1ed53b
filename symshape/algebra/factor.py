"""Common positive factors of term maps, and residues of polynomials.

Canonical forms divide out what every term shares when that factor is
positive at every valuation: a product of variables (each ``>= 1``) is, a
``floordiv`` or ``max`` atom need not be.  So ``floordiv(b*s, 128*b)`` is
``floordiv(s, 128)`` and ``max(k*p, k*q)`` is ``k*q + k*max(p - q, 0)``,
the same canonical form as ``k*max(p, q)``.

:func:`constant_residue` decides whether a polynomial with integer
coefficients takes one value modulo ``k`` at every integer point (``n^2 + n``
is even): a polynomial's residue depends only on the residues of its atoms,
so finitely many evaluations settle it, and the work is capped.
"""

from __future__ import annotations

from itertools import product

from symshape.algebra.atoms import ONE, Atom, Factors, Mono, Var, mono_of
from symshape.algebra.poly import Terms

#: most residue vectors :func:`constant_residue` evaluates (k ** atoms)
RESIDUE_WORK = 1024


def common_variable_factor(*polys: Terms) -> Mono:
    """The largest product of variables that divides every term of every
    polynomial in ``polys`` (``ONE`` when there is none).  Every variable is
    ``>= 1``, so the factor is positive at every valuation."""
    common: dict[Atom, int] | None = None
    for p in polys:
        for m in p:
            if m is ONE:
                return ONE
            here: dict[Atom, int] = {a: k for a, k in m if type(a) is Var}
            if common is None:
                common = here
            else:
                common = {a: min(k, here[a]) for a, k in common.items() if a in here}
            if not common:
                return ONE
    if not common:
        return ONE
    return mono_of(tuple(sorted(common.items(), key=lambda t: t[0].sort_key)))


def divide_terms(p: Terms, factor: Mono) -> Terms:
    """``p / factor``, where ``factor`` is a product of variables dividing every term."""
    drop = dict(factor)
    out: Terms = {}
    for m, c in p.items():
        pairs = []
        factors: Factors = m
        for a, k in factors:
            left = k - drop.get(a, 0)
            if left:
                pairs.append((a, left))
        out[mono_of(tuple(pairs))] = c
    return out


def constant_residue(p: Terms, k: int) -> int | None:
    """``r`` in ``[0, k)`` if ``p == r (mod k)`` at every integer point, else None.

    Only polynomials of degree >= 2 are examined (an affine one is constant
    modulo ``k`` exactly when its non-constant coefficients are multiples of
    ``k``, which the canonical forms already pull out), and only when at most
    :data:`RESIDUE_WORK` residue vectors need evaluating; None otherwise, so
    the answer is sound but not complete.
    """
    if k < 2:
        return None
    atoms: list[Atom] = []
    seen: set[Atom] = set()
    nonlinear = False
    for m in p:
        degree = 0
        pairs: Factors = m
        for a, e in pairs:
            degree += e
            if a not in seen:
                seen.add(a)
                atoms.append(a)
        nonlinear = nonlinear or degree >= 2
    if not nonlinear or k ** len(atoms) > RESIDUE_WORK:
        return None
    index = {a: i for i, a in enumerate(atoms)}
    # (coefficient, [(atom index, exponent)]) with coefficients reduced mod k
    terms = [(c % k, [(index[a], e) for a, e in m]) for m, c in p.items()]
    first: int | None = None
    for point in product(range(k), repeat=len(atoms)):
        total = 0
        for c, factors in terms:
            v = c
            for i, e in factors:
                v = v * pow(point[i], e, k) % k
            total += v
        total %= k
        if first is None:
            first = total
        elif total != first:
            return None
    return first


__all__ = ["RESIDUE_WORK", "common_variable_factor", "constant_residue", "divide_terms"]
