"""What model code asks (divisibility through products, symbolic divisors,
squares under order facts, factors over max/min, parity, ceiling division,
the division algorithm): decided, with certificates that check, whatever the
variables are called, and sound against brute force and z3."""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.ml_families import ML_FAMILIES, renamed
from support.soundness import check_claim, new_stats

import symshape

# (claim, constraints, the status every naming must get)
CLAIMS: list[tuple[str, tuple[str, ...], str]] = [
    ("mod(b*s, 128*b) == 0", ("mod(s, 128) == 0",), "proved"),
    ("floordiv(b*s, 128*b) == floordiv(s, 128)", ("mod(s, 128) == 0",), "proved"),
    ("mod(a*c*d, 8) == 0", ("mod(a, 2) == 0", "mod(c, 4) == 0"), "proved"),
    ("floordiv(n + k - 1, k) == floordiv(n, k)", ("mod(n, k) == 0",), "proved"),
    ("k*floordiv(n, k) == n", ("mod(n, k) == 0",), "proved"),
    ("floordiv(p*q, p*r) == floordiv(q, r)", (), "proved"),
    ("floordiv(m*x, x) == m", (), "proved"),
    ("(u - v)^2 >= 1", ("u >= v + 1",), "proved"),
    ("u*u > v*v", ("u >= v + 1",), "proved"),
    ("k*max(p, q) == max(k*p, k*q)", (), "proved"),
    ("min(k*p, k*q) == k*min(p, q)", (), "proved"),
    ("min(k*p, k*q) == k*min(p, q) + 1", (), "refuted"),
    ("mod(n^2 + n, 2) == 0", (), "proved"),
    ("mod(n^3 - n, 3) == 0", (), "proved"),
    ("mod(n^2 + n + 1, 2) == 0", (), "refuted"),
    ("-floordiv(-n, d) == floordiv(n + d - 1, d)", (), "proved"),
    ("floordiv(e + 1, d) >= floordiv(e, d)", (), "proved"),
    ("floordiv(e, d) >= floordiv(e, d + 1)", (), "proved"),
    ("floordiv(e, d) >= floordiv(e - 1, d + 1)", (), "proved"),
    ("floordiv(x, d) == q", ("x == d*q + r", "r <= d - 1"), "proved"),
    ("mod(x, d) == r", ("x == d*q + r", "r <= d - 1"), "proved"),
    ("mod(x, d) == r + 1", ("x == d*q + r", "r <= d - 1"), "refuted"),
    ("(p + q)^2 >= 4*p*q", (), "proved"),
    ("a^2 + b^2 + c^2 >= a*b + b*c + c*a", (), "proved"),
]

_NAME = re.compile(r"\b(?!max\b|min\b|mod\b|floordiv\b)[a-z]\b")


def _rename(text: str, mapping: dict[str, str]) -> str:
    return _NAME.sub(lambda m: mapping[m.group()], text)


@pytest.mark.parametrize("claim, constraints, status", CLAIMS, ids=[c[0] for c in CLAIMS])
def test_ml_claims_are_decided_under_every_naming(claim: str, constraints: tuple[str, ...],
                                                  status: str) -> None:
    letters = sorted(set(_NAME.findall(claim + " ".join(constraints))))
    rng = random.Random(claim)
    namings = [dict(zip(letters, letters, strict=True))]
    for _ in range(3):  # random renamings, and one that reverses the names' order
        namings.append(dict(zip(letters, rng.sample([f"v{i}" for i in range(40)],
                                                    len(letters)), strict=True)))
    namings.append(dict(zip(letters, [f"z{9 - i}" for i in range(len(letters))], strict=True)))
    for mapping in namings:
        text = _rename(claim, mapping)
        v = symshape.prove(text, constraints=[_rename(c, mapping) for c in constraints])
        assert v.status == status, (text, v.status, v.reason)
        assert v.certificate is not None and v.certificate.check()
        assert v.explain()


def test_quotient_bounds_against_the_divisor_are_recomputed() -> None:
    """``d - 1 - r >= 0`` bounds ``floordiv(r, d) <= 0``; ``d - r >= 0`` (``r``
    may equal ``d``) bounds nothing, and the rule that checks certificates
    says so."""
    from symshape.decision import poly as P
    from symshape.decision.certificate import CertificateError, Fact, make_fd_bound

    q, = symshape.symbolic_shape("floordiv(r, d)")
    (qm,) = q.terms
    atom = qm[0][0]
    num, den = P.from_expr(atom.num), P.from_expr(atom.den)
    tight = Fact(P.add(P.add(den, P.const(-1)), num, -1), "constraint", note="r <= d - 1")
    assert make_fd_bound("fd_ub", atom, [tight]).poly == {qm: -1}
    loose = Fact(P.add(den, num, -1), "constraint", note="r <= d")
    with pytest.raises(CertificateError):
        make_fd_bound("fd_ub", atom, [loose])
    at_least = Fact(P.add(num, den, -2), "constraint", note="r >= 2*d")
    assert make_fd_bound("fd_lb", atom, [at_least]).poly == {qm: 1, P.ONE: -2}


SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(family=st.sampled_from(sorted(ML_FAMILIES)), seed=st.integers(0, 10 ** 6))
def test_the_families_are_sound(family: str, seed: int) -> None:
    rng = random.Random(seed)
    drawn = ML_FAMILIES[family](rng)
    names = sorted({t for t in re.findall(r"\b[a-z]\w*\b", drawn.text + " ".join(
        drawn.constraints)) if t not in ("max", "min", "mod", "floordiv")})
    stats: Counter[str] = new_stats()
    check_claim(renamed(drawn, rng, names), stats)
