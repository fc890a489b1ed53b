"""The check before a relaxed interval certificate (``IntervalProof.may_close``):
where it says the bound facts of a polynomial's monomials cannot sum to a
positive constant, building those facts (``Linearizer.bound_sum``, which
proves lemmas) indeed gives no such sum.  Were it wrong, a claim the
intervals settle would go on to costlier tactics; the answers of the other
tests would not show it."""

from __future__ import annotations

import random

import pytest
from support.oracle import random_claim

from symshape import SymbolicScope
from symshape.decision import poly as P
from symshape.decision.engine import Decider
from symshape.decision.poly import Poly
from symshape.decision.prove import claim_links
from symshape.errors import UnsatisfiableConstraintsError


def _facts_lower_bound(decider: Decider, p: Poly) -> int | None:
    """The lower bound of ``p`` that the bound facts of its monomials give
    (None where a monomial has no bound fact on the side it needs)."""
    f = decider.lin.bound_sum(p)
    return None if f is None else P.constant(p) - P.constant(f.poly)


def _polys(d: Poly, rng: random.Random) -> list[Poly]:
    """``d``, its negation, shifted by small constants, and sub-sums of its
    terms: what a relaxed certificate asks about (its ``rest``)."""
    out = []
    terms = [(m, c) for m, c in d.items() if m]
    for base in (d, P.scale(d, -1)):
        for k in (-1, 0, 1, 2):
            out.append(P.add(base, P.const(k)))
    for _ in range(3):
        if terms:
            part = dict(rng.sample(terms, rng.randint(1, len(terms))))
            out.append(P.add(part, P.const(rng.randint(-3, 3))))
    return out


def _check(claim: str, constraints: list[str] | tuple[str, ...],
           rng: random.Random) -> tuple[int, int]:
    """Assert the contract on the polynomials of ``claim``; how many were
    rejected by the check, and how many of those had facts on every side."""
    scope = SymbolicScope(list(constraints))
    decider = scope.decider()
    assert isinstance(decider, Decider)
    proof = decider.interval_proof
    links, _ = claim_links(claim, scope)
    rejected = with_facts = 0
    for _, d, _ in links:
        for p in _polys(d, rng):
            if not any(m for m in p) or proof.may_close(p):
                continue
            rejected += 1
            low = _facts_lower_bound(decider, p)
            if low is not None:
                with_facts += 1
                assert low < 1, (claim, constraints, P.to_text(p, scope), low)
    return rejected, with_facts


# Divisions by symbolic divisors: their facts may bound them by 0 beyond
# their intervals, the case the check must allow for.
SYMBOLIC = [
    ("floordiv(b - 1, a) <= 0", ["a >= b"]),
    ("floordiv(b, a) >= 0", []),
    ("floordiv(a - b, c) + 1 >= 1", ["a >= b"]),
    ("mod(a, b) <= b - 1", []),
    ("a*floordiv(b, a) <= b", ["b >= 1"]),
    ("floordiv(t + 2*p - k, s) + 1 >= 2", ["t >= k", "s >= 1", "p <= 3"]),
    ("3*c + floordiv(c - 5, b + 3) + 2 <= 2*b - s", ["b >= 8", "s <= 8192"]),
    ("-2*floordiv(-f - 2*mod(-2*f + 3, 4), f) + 2*k >= -floordiv(-m + 8, k) + 3*mod(k, 4)",
     ["k >= m", "k >= 2", "min(k, f) >= 2", "k + f <= 2048", "k >= 16", "max(m, f) <= 4096"]),
    ("floordiv(a*b, c) * floordiv(c, a) >= floordiv(b, 2)", ["c >= a", "a <= 64"]),
    ("max(floordiv(a, b), 1) * b >= a - b", ["b <= 16"]),
]


@pytest.mark.parametrize(("claim", "constraints"), SYMBOLIC)
def test_a_rejected_sum_has_no_positive_bound_from_facts(
        claim: str, constraints: list[str]) -> None:
    _check(claim, constraints, random.Random(claim))


def test_the_check_keeps_a_bound_only_facts_give() -> None:
    """``floordiv(b - 1, a) <= 0`` under ``a >= b``: the interval of the
    quotient does not show it, its fact (``b - 1 <= a - 1``) does."""
    scope = SymbolicScope(["a >= b"])
    decider = scope.decider()
    assert isinstance(decider, Decider)
    (_, d, _), = claim_links("floordiv(b - 1, a) <= 0", scope)[0]
    rest = P.add(d, P.const(1))  # -q + 1 >= 1 where the claim holds
    assert decider.interval_proof.may_close(rest)
    low = _facts_lower_bound(decider, rest)
    assert low is not None and low >= 1


def test_a_rejected_sum_has_no_positive_bound_on_drawn_claims() -> None:
    rng = random.Random(20261128)
    rejected = with_facts = 0
    for _ in range(250):
        c = random_claim(rng)
        try:
            r, w = _check(c.text, c.constraints, rng)
        except UnsatisfiableConstraintsError:
            continue  # (some drawn constraints contradict each other)
        rejected += r
        with_facts += w
    # The check must have rejected sums whose facts exist (and fell short).
    assert with_facts >= 50, (rejected, with_facts)
