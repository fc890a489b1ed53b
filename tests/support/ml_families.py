"""Families of claims that model code asks (issue 29), for the decision tests
and ``benchmarks/bench_decision.py``.

Each generator draws one :class:`Claim` from a seeded ``random.Random``: many
instances per family (constants, divisors, factors and shapes vary), true
ones and ones perturbed by a constant so that they fail somewhere or
everywhere.  :func:`renamed` gives every variable of a claim a fresh random
name, so that a family's rate cannot depend on the names it was written with.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from typing import Any

from support.oracle import Claim

Tree = tuple[Any, ...]


def v(name: str) -> Tree:
    """A variable leaf."""
    return ("var", name)


def k(value: int) -> Tree:
    """A constant leaf."""
    return ("int", value)


def op(kind: str, *args: Tree) -> Tree:
    """A binary node; more than two arguments fold to the left."""
    out = args[0]
    for a in args[1:]:
        out = (kind, out, a)
    return out


def _perturb(rng: random.Random, rhs: Tree, p: float = 0.3) -> Tree:
    return op("add", rhs, k(rng.choice((-1, 1, 2)))) if rng.random() < p else rhs


def _pos_factor(rng: random.Random, names: Sequence[str]) -> Tree:
    """A factor >= 1: a variable, a product of two, or a variable times a constant."""
    x, y = v(rng.choice(names)), v(rng.choice(names))
    return rng.choice((x, x, op("mul", x, y), op("mul", k(rng.choice((2, 3))), x)))


def fam_divisibility_products(rng: random.Random) -> Claim:
    """Divisibility through products and the batched reshape:
    ``mod(a*c*d, m1*m2) == 0`` from ``mod(a, m1) == 0``, ``mod(c, m2) == 0``;
    ``mod(b*s, K*b) == 0`` and ``floordiv(b*s, K*b) == floordiv(s, K)`` from
    ``mod(s, K) == 0``."""
    m1, m2 = rng.choice((2, 3, 4, 8)), rng.choice((2, 4, 16, 128))
    a, c, d, b, s = (v(n) for n in ("a", "c", "d", "b", "s"))
    r = rng.random()
    if r < 0.35:
        return Claim(("mod", op("mul", a, c, d), k(m1 * m2)), "==", _perturb(rng, k(0)),
                     (f"mod(a, {m1}) == 0", f"mod(c, {m2}) == 0"))
    if r < 0.65:
        big = m1 * m2
        return Claim(("mod", op("mul", b, s), op("mul", k(big), b)), "==",
                     _perturb(rng, k(0)), (f"mod(s, {big}) == 0",))
    if r < 0.85:
        return Claim(("floordiv", op("mul", b, s), op("mul", k(m2), b)), "==",
                     _perturb(rng, ("floordiv", s, k(m2))), (f"mod(s, {m2}) == 0",))
    return Claim(op("mul", k(m2), ("floordiv", op("mul", b, s), k(m2))), "==",
                 _perturb(rng, op("mul", b, s)), (f"mod(s, {m2}) == 0",))


def fam_cancellation(rng: random.Random) -> Claim:
    """Common positive factors in quotients and remainders:
    ``floordiv(p*q, p*r) == floordiv(q, r)``, ``floordiv(m*x, x) == m``,
    ``mod(g*x, g*y) == g*mod(x, y)``."""
    names = ("p", "q", "r", "x")
    g = _pos_factor(rng, names)
    q, r_ = v(rng.choice(("q", "x"))), rng.choice((v("r"), op("add", v("r"), k(1))))
    pick = rng.random()
    if pick < 0.4:
        return Claim(("floordiv", op("mul", g, q), op("mul", g, r_)), "==",
                     _perturb(rng, ("floordiv", q, r_)), ())
    if pick < 0.6:
        return Claim(("floordiv", op("mul", v("m"), g), g), "==", _perturb(rng, v("m")), ())
    return Claim(("mod", op("mul", g, q), op("mul", g, r_)), "==",
                 _perturb(rng, op("mul", g, ("mod", q, r_))), ())


def fam_squares_under_order(rng: random.Random) -> Claim:
    """Squares and products of differences under order facts: with
    ``u >= v + c``, ``(u - v)^2 >= c^2``, ``u*u >= v*v + ...``, and products of
    bounded factors against their bounds."""
    c = rng.choice((1, 1, 2, 3))
    u, w = v("u"), v("w")
    cons = (f"u >= w + {c}",)
    pick = rng.random()
    diff = op("sub", u, w)
    if pick < 0.35:
        return Claim(op("mul", diff, diff), ">=", _perturb(rng, k(c * c), 0.25), cons)
    if pick < 0.65:
        # u^2 - w^2 = (u - w)(u + w) >= c*(2w + c) >= c*(c + 2)
        return Claim(op("mul", u, u), ">=", _perturb(rng, op("add", op("mul", w, w),
                                                            k(c * (c + 2))), 0.25), cons)
    a_hi, b_hi = rng.randint(2, 40), rng.randint(2, 40)
    return Claim(op("mul", v("a"), v("b")), "<=", _perturb(rng, k(a_hi * b_hi), 0.3),
                 (f"a <= {a_hi}", f"b <= {b_hi}"))


def fam_factors_over_maxmin(rng: random.Random) -> Claim:
    """Positive factors over ``max``/``min``: ``k*max(p, q) == max(k*p, k*q)``
    and ``min(k*p, k*q) == k*min(p, q)`` for ``k >= 1``, and refuted negations."""
    names = ("k", "n", "p", "q")
    g = _pos_factor(rng, names)
    p = rng.choice((v("p"), op("add", v("p"), k(rng.randint(1, 4)))))
    q = rng.choice((v("q"), op("mul", k(2), v("q"))))
    kind = rng.choice(("max", "min"))
    lhs = op("mul", g, (kind, p, q))
    rhs = (kind, op("mul", g, p), op("mul", g, q))
    if rng.random() < 0.3:
        return Claim(lhs, "==", op("add", rhs, k(rng.choice((1, -1)))), ())
    return Claim(lhs, "==", rhs, ())


def fam_parity(rng: random.Random) -> Claim:
    """Small moduli of polynomials: ``mod(n^2 + n, 2) == 0``,
    ``mod(n^3 - n, 3) == 0``, ``mod(n*(n + 1)*(n + 2), 6) == 0``."""
    n, m = v("n"), v("m")
    x = rng.choice((n, op("add", n, m), op("mul", k(2), n), op("add", n, k(rng.randint(1, 5)))))
    forms = [
        (op("add", op("mul", x, x), x), 2),
        (op("sub", op("mul", x, x, x), x), 3),
        (op("mul", x, op("add", x, k(1)), op("add", x, k(2))), 6),
        (op("mul", x, op("add", x, k(1))), 2),
        (op("add", op("mul", k(4), x, x), op("mul", k(4), x)), 8),
    ]
    e, mod_k = rng.choice(forms)
    if rng.random() < 0.3:
        e = op("add", e, k(rng.randint(1, mod_k - 1)))
    return Claim(("mod", e, k(mod_k)), "==", k(0), ())


def fam_ceiling_division(rng: random.Random) -> Claim:
    """Quotients by symbolic divisors with negated or shifted operands:
    ``-floordiv(-n, d) == floordiv(n + d - 1, d)``, antitonicity in the
    divisor, ``floordiv(e, d)`` against ``floordiv(e - c, d + c')``."""
    n, d = v("n"), rng.choice((v("d"), op("add", v("d"), k(1)), op("mul", v("d"), v("t"))))
    pick = rng.random()
    c1, c2 = rng.randint(0, 3), rng.randint(1, 3)
    if pick < 0.35:
        lhs = op("sub", k(0), ("floordiv", op("sub", k(0), n), d))
        return Claim(lhs, "==", _perturb(rng, ("floordiv", op("add", n, op("sub", d, k(1))), d),
                                         0.25), ())
    if pick < 0.7:
        return Claim(("floordiv", n, d), ">=", ("floordiv", op("sub", n, k(c1)),
                                                 op("add", d, k(c2))), ())
    return Claim(("floordiv", op("add", n, k(c1)), d), rng.choice((">=", "<")),
                 ("floordiv", n, op("add", d, k(c2))), ())


def fam_division_algorithm(rng: random.Random) -> Claim:
    """The division algorithm under ``x == d*q + r``, ``r <= d - 1``:
    ``floordiv(x, d) == q`` and ``mod(x, d) == r``."""
    cons = ("x == d*q + r", "r <= d - 1")
    if rng.random() < 0.5:
        return Claim(("floordiv", v("x"), v("d")), "==", _perturb(rng, v("q")), cons)
    return Claim(("mod", v("x"), v("d")), "==", _perturb(rng, v("r")), cons)


ML_FAMILIES: dict[str, Callable[[random.Random], Claim]] = {
    "divisibility x products": fam_divisibility_products,
    "common factors": fam_cancellation,
    "squares under order": fam_squares_under_order,
    "factors over max/min": fam_factors_over_maxmin,
    "parity of polynomials": fam_parity,
    "ceiling division": fam_ceiling_division,
    "division algorithm": fam_division_algorithm,
}
"""The families of issue 29, by name."""

_KEYWORDS = frozenset(("max", "min", "mod", "floordiv"))
_IDENT = re.compile(r"\b[A-Za-z_]\w*\b")
_STEMS = ("n", "s", "len", "dim", "x", "k", "b", "h", "t", "q", "w", "z", "a")


def _rename_tree(t: Tree, names: dict[str, str]) -> Tree:
    if t[0] == "var":
        return ("var", names[t[1]])
    if t[0] == "int":
        return t
    return (t[0], *(_rename_tree(x, names) for x in t[1:]))


def renamed(c: Claim, rng: random.Random, variables: Sequence[str]) -> Claim:
    """``c`` with every variable renamed to a fresh random name (the same
    renaming in the claim and its constraints)."""
    fresh: dict[str, str] = {}
    taken: set[str] = set()
    for name in variables:
        while True:
            new = f"{rng.choice(_STEMS)}{rng.randint(0, 99)}"
            if new not in taken and new not in _KEYWORDS:
                break
        taken.add(new)
        fresh[name] = new
    cons = tuple(_IDENT.sub(lambda m: fresh.get(m.group(), m.group()), text)
                 for text in c.constraints)
    return Claim(_rename_tree(c.lhs, fresh), c.op, _rename_tree(c.rhs, fresh), cons)


__all__ = ["ML_FAMILIES", "k", "op", "renamed", "v"]
