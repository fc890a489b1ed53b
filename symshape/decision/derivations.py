"""The arithmetic of derived facts, shared by the records that make them and
check them (:mod:`symshape.decision.fact_kinds`): a combination of facts
divided and rounded down, and the bound of a quotient that bounds of its
numerator and divisor give."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from symshape.algebra.atoms import FloorDiv
from symshape.decision import poly as P
from symshape.decision.facts import CertificateError, Fact
from symshape.decision.poly import Poly


def combo_poly(premises: Sequence[Fact], mults: Sequence[int], divisor: int) -> Poly:
    """``floor(sum(mults[i] * premises[i]) / divisor)``, checking divisibility."""
    if len(premises) != len(mults) or not premises:
        raise CertificateError("combination with mismatched multipliers")
    if divisor < 1:
        raise CertificateError(f"combination with divisor {divisor}")
    acc: Poly = {}
    for f, k in zip(premises, mults, strict=True):
        if not isinstance(k, int) or k <= 0:
            raise CertificateError(f"combination multiplier {k!r} is not a positive int")
        P.add_into(acc, f.poly, k)
    if divisor == 1:
        return acc
    out: Poly = {}
    for m, c in acc.items():
        if m:
            if c % divisor:
                raise CertificateError(
                    f"combination is not divisible by {divisor} (coefficient {c})")
            out[m] = c // divisor
        else:
            v = c // divisor  # rounding down is sound: the rest is an integer
            if v:
                out[m] = v
    return out


def fd_bound(kind: str, atom: Any, premises: Sequence[Fact]) -> int:
    """The bound ``t`` of ``floordiv(num, den)`` given by a bound rule.

    ``fd_lb``: from ``num - L >= 0`` (and optionally ``D - den >= 0``) conclude
    ``q >= t``: ``t = L`` if ``L < 0`` (``num/den`` lies in ``[num, 0)``), else
    ``L // D`` (``0`` without ``D``).  ``fd_ub``: from ``U - num >= 0`` (and
    optionally ``den - D >= 0`` if ``U >= 0``, ``D - den >= 0`` if ``U < 0``)
    conclude ``q <= t``: ``t = U // D`` (``D = 1`` without the premise) if
    ``U >= 0``, else ``U // D`` (``-1`` without the premise).  Against a
    symbolic divisor, one premise ``num - t*den >= 0`` gives ``q >= t``
    (``fd_lb``) and ``(t + 1)*den - 1 - num >= 0`` gives ``q <= t`` (``fd_ub``).
    Every rule uses ``den >= 1``, an invariant of floordiv atoms.
    """
    if type(atom) is not FloorDiv:
        raise CertificateError(f"{kind} fact about {type(atom).__name__} atom")
    if isinstance(atom.den, int) and atom.den < 1:
        raise CertificateError("floordiv by a non-positive constant")
    if not 1 <= len(premises) <= 2:
        raise CertificateError(f"{kind} needs one or two premises")
    num = P.operand_poly(atom.num)
    den = P.operand_poly(atom.den)
    p1 = premises[0].poly
    sign = 1 if kind == "fd_lb" else -1
    rest = P.add(p1, num, -sign)  # fd_lb: num - L; fd_ub: U - num
    if not P.is_constant(rest) and len(premises) == 1:
        # Against the divisor: num - t*den >= 0 gives q >= t, and
        # (t + 1)*den - 1 - num >= 0 gives q <= t (num/den < t + 1), as den >= 1.
        t = _multiple_of(P.scale(rest, -1) if kind == "fd_lb" else P.add(rest, P.const(1)),
                         den)
        if t is not None:
            return t if kind == "fd_lb" else t - 1
    if not P.is_constant(rest):
        raise CertificateError(f"{kind}: first premise does not bound the numerator")
    bound = -P.constant(rest) if kind == "fd_lb" else P.constant(rest)
    d_upper: int | None = None  # D with den <= D
    d_lower: int | None = None  # D with den >= D
    if len(premises) == 2:
        p2 = premises[1].poly
        up = P.add(p2, den, 1)  # D - den + den = D
        lo = P.add(p2, den, -1)  # den - D - den = -D
        if P.is_constant(up) and P.constant(up) >= 1:
            d_upper = P.constant(up)
        elif P.is_constant(lo) and -P.constant(lo) >= 1:
            d_lower = -P.constant(lo)
        else:
            raise CertificateError(f"{kind}: second premise does not bound the divisor")
    if kind == "fd_lb":
        if d_lower is not None:
            raise CertificateError("fd_lb: a lower bound of the divisor does not help")
        if bound < 0:
            return bound
        return bound // d_upper if d_upper is not None else 0
    if kind != "fd_ub":
        raise CertificateError(f"unknown floordiv bound rule {kind!r}")
    if bound >= 0:
        if d_upper is not None:
            raise CertificateError("fd_ub: an upper bound of the divisor does not help")
        return bound // (d_lower or 1)
    if d_lower is not None:
        raise CertificateError("fd_ub: a lower bound of the divisor does not help")
    return bound // d_upper if d_upper is not None else -1


def _multiple_of(p: Poly, den: Poly) -> int | None:
    """``c`` with ``p == c*den`` for a non-constant ``den``, else None."""
    if P.is_constant(den) or not p:
        return 0 if not p else None
    m, c = next(iter(den.items()))
    k, r = divmod(p.get(m, 0), c)
    if r or P.scale(den, k) != p:
        return None
    return k


def fd_bound_poly(kind: str, atom: Any, premises: Sequence[Fact]) -> Poly:
    """``q - t`` (``fd_lb``) or ``t - q`` (``fd_ub``), see :func:`fd_bound`."""
    t = fd_bound(kind, atom, premises)
    m = P.atom_mono(atom)
    p = {m: 1, P.ONE: -t} if kind == "fd_lb" else {m: -1, P.ONE: t}
    return {k: v for k, v in p.items() if v}


__all__ = ["combo_poly", "fd_bound", "fd_bound_poly"]
