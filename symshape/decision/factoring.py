"""Facts and factors from the shape of a polynomial, for the linearizer
(:mod:`symshape.decision.linearize`): the squares ``(k*x - l*y)^2 >= 0`` a
claim with ``x^2``, ``y^2`` and ``x*y`` needs, the cofactor of an atom, and
exact division of polynomials (how a non-linear part is factored)."""

from __future__ import annotations

import math

from symshape.algebra.atoms import Atom, Mono, mono_div, mono_mul
from symshape.decision import poly as P
from symshape.decision.fact_kinds import make_square
from symshape.decision.facts import Fact
from symshape.decision.poly import Poly

# At most this many square facts per query.
SQUARES_MAX = 8


def square_facts(p: Poly) -> list[Fact]:
    """``(k*x - l*y)**2 >= 0`` for atoms ``x``, ``y`` whose squares and product
    all occur in ``p`` (with ``k``, ``l`` from the square roots of their
    coefficients, and ``k = l = 1``): what proves ``a^2 + b^2 >= 2*a*b``,
    which no product of bounds gives."""
    squares: dict[Atom, int] = {}
    crosses: list[tuple[Atom, Atom]] = []
    for m, c in p.items():
        if len(m) == 1 and m[0][1] == 2:
            squares[m[0][0]] = abs(c)
        elif len(m) == 2 and m[0][1] == 1 and m[1][1] == 1:
            crosses.append((m[0][0], m[1][0]))
    out: list[Fact] = []
    for x, y in crosses:
        cx, cy = squares.get(x), squares.get(y)
        if cx is None or cy is None:
            continue
        xm, ym = P.atom_mono(x), P.atom_mono(y)
        pairs = [(1, 1)]
        g = math.gcd(cx, cy)
        k, l = math.isqrt(cx // g), math.isqrt(cy // g)
        if (k, l) != (1, 1) and k * k * g == cx and l * l * g == cy:
            pairs.append((k, l))
        bases: list[Poly] = []
        for k, l in pairs:
            bases.append({xm: k, ym: -l})
            # With the shift t that matches p's linear term in x: (b + 1 - 2*c)^2
            # proves (b + 1 + 2*c)^2 >= 8*(b + 1)*c.
            sq = p[mono_of_square(x)]  # the coefficient of x^2: scale * k^2
            scale = sq // (k * k) if sq % (k * k) == 0 else 0
            lin = p.get(xm, 0)
            if scale and lin and lin % (2 * k * scale) == 0:
                t = lin // (2 * k * scale)
                bases.append({xm: k, ym: -l, P.ONE: t})
        out.extend(make_square(b) for b in bases)
        if len(out) >= SQUARES_MAX:
            break
    return out


def mono_of_square(x: Atom) -> Mono:
    """The monomial ``x^2``."""
    return mono_mul(P.atom_mono(x), P.atom_mono(x))



def cofactor(p: Poly, x: Atom) -> Poly:
    """``C`` with ``p = x*C + R``, ``R`` free of ``x`` (content removed)."""
    xm = P.atom_mono(x)
    cof: Poly = {}
    for m, c in p.items():
        if any(a == x for a, _ in m):
            q = mono_div(m, xm)
            assert q is not None
            cof[q] = cof.get(q, 0) + c
    cof = {m: c for m, c in cof.items() if c}
    if not cof:
        return cof
    g = math.gcd(*cof.values())
    return {m: c // g for m, c in cof.items()}


def divide(n: Poly, d: Poly) -> Poly | None:
    """``q`` with ``q*d == n`` exactly (integer coefficients), or None."""
    order = {a: i for i, a in enumerate(sorted(P.atoms_of(n) | P.atoms_of(d),
                                               key=P.atom_digest))}

    def mkey(m: Mono) -> tuple[int, tuple[int, ...]]:
        exps = [0] * len(order)
        for a, k in m:
            exps[order[a]] = k
        return sum(exps), tuple(exps)

    lt = max(d, key=mkey)
    lc = d[lt]
    rest = dict(n)
    quot: Poly = {}
    for _ in range(10 * len(n) + 10):
        if not rest:
            return {m: c for m, c in quot.items() if c}
        lead = max(rest, key=mkey)
        c = rest[lead]
        q = mono_div(lead, lt)
        if q is None or c % lc:
            return None
        qc = c // lc
        quot[q] = quot.get(q, 0) + qc
        rest = P.add(rest, P.mul({q: qc}, d), -1)
    return None


__all__ = ["SQUARES_MAX", "cofactor", "divide", "mono_of_square", "square_facts"]
