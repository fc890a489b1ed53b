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

Both are capped: when a family would exceed its cap, none of it is added, so
what a search sees never depends on an order of the facts (which could
follow the variables' names).
"""

from __future__ import annotations

from collections.abc import Sequence

from symshape.algebra.atoms import Var
from symshape.decision.certificate import Fact, make_product
from symshape.decision.poly import Poly

#: most hypothesis-times-divisor products per search
DIVISOR_PRODUCTS_MAX = 12
#: most linear order facts multiplied pairwise (with the variables' bounds)
ORDER_FACTS_MAX = 6


def _linear(p: Poly) -> bool:
    return all(len(m) <= 1 and (not m or m[0][1] == 1) for m in p)


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


def extra_products(facts: Sequence[Fact], hyps: Sequence[Fact]) -> list[Fact]:
    """The products above for one search over ``facts`` and ``hyps``."""
    return divisor_products(facts, hyps) + order_products(facts, hyps)


__all__ = ["DIVISOR_PRODUCTS_MAX", "ORDER_FACTS_MAX", "divisor_products", "extra_products",
           "order_products"]
