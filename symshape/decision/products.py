"""Products of a search's hypotheses and order facts: degree-2 reasoning
that no linear combination of the facts makes.

Two families, both plain ``product`` facts (``f1 * f2 >= 0`` for ``f1, f2 >= 0``)
that a certificate checks by multiplying its premises:

* **A hypothesis times a symbolic divisor.**  With ``q1 = floordiv(-n, d)``
  and ``q2 = floordiv(n + d - 1, d)`` the axioms give ``d*(q1 + q2) <= d - 1``,
  so ``q1 + q2 <= 0``: dividing by ``d >= 1`` rounds down.  Refuting the
  hypothesis ``q1 + q2 - 1 >= 0`` takes its product with ``d - 1 >= 0``
  (``d*(q1 + q2) >= d + (q1 + q2) - 1``).  This is what ceiling division,
  the division algorithm under ``x == d*q + r`` and ``floordiv(e, d)`` against
  its bounds need.
* **Order facts times each other.**  With ``u >= w + 1``, ``(u - w)^2 >= 1``
  follows from the square of that fact, and ``u^2 >= w^2 + 3`` from its
  products with ``u >= 1`` and ``w >= 1``.  Where a hypothesis has monomials
  of degree 2 in variables, the linear constraints over those variables are
  multiplied with each other and with the variables' bounds.

* **Squares that complete a quadratic hypothesis.**  ``(p + q)^2 >= 4*p*q``
  for linear forms ``p``, ``q`` is ``(p - q)^2 >= 0``: the symmetric
  decomposition (``L*D*L^T``, exact rationals) of the hypothesis's quadratic
  form, with the constant as the last coordinate, gives the squares of
  linear forms, shifts included, that a certificate needs.

* **Facts divided by a positive factor.**  A hypothesis or fact whose
  non-constant terms share a product of variables ``M`` (``M >= 1``) gives
  the sign of its quotient (``factor_quotient``): ``b*h*q - b*h*s - 1 >= 0``
  gives ``q - s - 1 >= 0``.  Not a product, but the same degree-2 reasoning.

All are capped: when a family would exceed its cap, none of it is added, so
what a search sees never depends on an order of the facts (which could
follow the variables' names).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from symshape.algebra.atoms import Atom, Factors, Var, nonlinear
from symshape.decision import canon
from symshape.decision import poly as P
from symshape.decision.fact_kinds import make_factor_quotient, make_product, make_square
from symshape.decision.facts import Fact
from symshape.decision.poly import Poly

#: most hypothesis-times-divisor products per search
DIVISOR_PRODUCTS_MAX = 12
#: most linear order facts multiplied pairwise (with the variables' bounds)
ORDER_FACTS_MAX = 6
#: most atoms of a quadratic hypothesis that :func:`completing_squares` decomposes
SQUARE_ATOMS_MAX = 8
#: most facts and hypotheses divided by a common positive factor per search
FACTOR_QUOTIENTS_MAX = 16


def _linear(p: Poly) -> bool:
    return not any(nonlinear(m) for m in p)


def divisor_products(facts: Sequence[Fact], hyps: Sequence[Fact]) -> list[Fact]:
    """Each linear hypothesis times each ``den - 1 >= 0`` axiom of a symbolic divisor."""
    dens = [f for f in facts if f.kind == "fd_den"]
    if not dens:
        return []
    lin = [h for h in hyps if _linear(h.poly) and len(h.poly) > 1]
    if not lin or len(lin) * len(dens) > DIVISOR_PRODUCTS_MAX:
        return []
    return [make_product(h, d) for h in lin for d in dens]


def order_products(facts: Sequence[Fact], hyps: Sequence[Fact]) -> list[Fact]:
    """Pairwise products of the linear constraints over the variables of the
    hypotheses' degree-2 monomials, and of those constraints with the
    variables' ``v - 1 >= 0`` axioms."""
    quadratic: set[Var] = set()
    for h in hyps:
        for m in h.poly:
            if sum(k for _, k in m) == 2 and all(type(a) is Var for a, _ in m):
                quadratic.update(a for a, _ in m)  # type: ignore[misc]
    if not quadratic:
        return []
    order: list[Fact] = []
    bounds: list[Fact] = []
    for f in facts:
        if f.kind == "var" and f.atom in quadratic:
            bounds.append(f)
        elif f.kind in ("constraint", "implicit") and _linear(f.poly):
            atoms = {m[0][0] for m in f.poly if m}
            # (a bound of one variable is what McCormick products already use)
            if len(atoms) >= 2 and atoms <= quadratic:
                order.append(f)
    if not order or len(order) > ORDER_FACTS_MAX:
        return []
    out = [make_product(f, g) for i, f in enumerate(order) for g in order[i:]]
    out.extend(make_product(f, b) for f in order for b in bounds)
    return out


def completing_squares(hyps: Sequence[Fact]) -> list[Fact]:
    """Squares of the linear forms of the ``L*D*L^T`` decomposition of each
    quadratic hypothesis's negation, where its quadratic part is positive
    semidefinite (else none)."""
    out: list[Fact] = []
    for h in hyps:
        out.extend(_squares_of(P.scale(h.poly, -1)))
    return out


def _squares_of(q: Poly) -> list[Fact]:
    atoms: list[Atom] = []
    seen: set[Atom] = set()
    quadratic = False
    for m in q:
        degree = sum(k for _, k in m)
        if degree > 2:
            return []
        quadratic = quadratic or degree == 2
        pairs: Factors = m
        for a, _ in pairs:
            if a not in seen:
                seen.add(a)
                atoms.append(a)
    if not quadratic or len(atoms) > SQUARE_ATOMS_MAX:
        return []
    # Coordinates in an order that ignores the variables' names (the
    # decomposition, and so the squares, depend on it); the constant last.
    order = canon.atom_order([q])
    atoms.sort(key=order)
    n = len(atoms)
    index = {a: i for i, a in enumerate(atoms)}
    mat = [[Fraction(0)] * (n + 1) for _ in range(n + 1)]
    for m, c in q.items():
        if not m:
            mat[n][n] += c
        elif len(m) == 1 and m[0][1] == 2:
            i = index[m[0][0]]
            mat[i][i] += c
        else:
            i = index[m[0][0]]
            j = index[m[1][0]] if len(m) == 2 else n
            mat[i][j] += Fraction(c, 2)
            mat[j][i] += Fraction(c, 2)
    bases: list[Poly] = []
    monos = [P.atom_mono(a) for a in atoms] + [P.ONE]
    for k in range(n):
        pivot = mat[k][k]
        if pivot < 0:
            return []  # not positive semidefinite: no decomposition helps
        if pivot == 0:
            if any(mat[k][j] for j in range(k + 1, n)):
                return []
            continue
        row = [mat[k][j] / pivot for j in range(n + 1)]
        scale = math.lcm(*(r.denominator for r in row[k:]))
        bases.append({monos[j]: int(row[j] * scale) for j in range(k, n + 1) if row[j]})
        for i in range(k + 1, n + 1):
            f = mat[i][k]
            if f:
                for j in range(k, n + 1):
                    mat[i][j] -= f * row[j]
    return [make_square(b) for b in bases]


def factor_quotients(facts: Sequence[Fact], hyps: Sequence[Fact]) -> list[Fact]:
    """Each hypothesis and fact of degree 2 or more, divided by the product of
    variables that divides its non-constant terms (where there is one)."""
    out = []
    for f in (*hyps, *facts):
        if f.kind == "factor_quotient" or all(len(m) <= 1 for m in f.poly):
            continue  # (a term of one atom has no factor left to divide by)
        q = make_factor_quotient(f)
        if q is not None:
            out.append(q)
    return out if len(out) <= FACTOR_QUOTIENTS_MAX else []


def extra_products(facts: Sequence[Fact], hyps: Sequence[Fact]) -> list[Fact]:
    """The products above for one search over ``facts`` and ``hyps``."""
    return divisor_products(facts, hyps) + order_products(facts, hyps) + \
        completing_squares(hyps) + factor_quotients(facts, hyps)


__all__ = ["DIVISOR_PRODUCTS_MAX", "FACTOR_QUOTIENTS_MAX", "ORDER_FACTS_MAX", "SQUARE_ATOMS_MAX",
           "completing_squares", "divisor_products", "extra_products", "factor_quotients",
           "order_products"]
