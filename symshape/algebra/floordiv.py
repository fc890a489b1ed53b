"""The canonical forms of ``floordiv`` and ``mod`` (Python's ``//`` and ``%``).

``floordiv(x, y)`` pulls out of ``x`` what ``y`` divides (constant
coefficients by a constant divisor, an exact polynomial quotient by a
symbolic one), divides out common content, merges nested divisions, and
asks the scope (``symshape.algebra.protocol.AlgebraScope``) for bounds that
make the quotient a constant and for the sign of a symbolic divisor;
``mod(x, y)`` is ``x - y*floordiv(x, y)``.  What is left is an interned
``FloorDiv`` atom of the scope.  Results are memoized per scope.

Importing this module installs ``floordiv`` and ``mod`` as the operators
``//``, ``%`` and ``divmod`` of :class:`~symshape.algebra.dimexpr.DimExpr`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from symshape.algebra.atoms import (
    ONE,
    FloorDiv,
    Mono,
    atom_mono,
    make_floordiv_atom,
    mono_div,
    mono_key,
    mono_mul,
)
from symshape.algebra.bounds import is_finite
from symshape.algebra.dimexpr import DimExpr, DimLike, check_dim, mul_any, scope_of, set_division
from symshape.algebra.factor import common_variable_factor, constant_residue, divide_terms
from symshape.algebra.poly import Terms
from symshape.errors import DivisionByZeroRiskError

if TYPE_CHECKING:
    from symshape.algebra.protocol import AlgebraScope


def floordiv(x: DimLike, y: DimLike) -> DimExpr | int:
    """``floor(x / y)`` with Python semantics, in canonical form."""
    x = check_dim(x, "floordiv")
    y = check_dim(y, "floordiv")
    scope = scope_of(x, y)
    if scope is None:
        assert isinstance(x, int) and isinstance(y, int)
        return x // y
    if isinstance(y, int):
        if y == 0:
            raise ZeroDivisionError(f"floordiv({x}, 0): division by zero")
        if y < 0:
            return floordiv(-x, -y)
        if y == 1:
            return x
        assert isinstance(x, DimExpr)
        ckey = (x, y)
        cached = scope.division_memo.get(ckey)
        if cached is None:
            cached = scope.division_memo[ckey] = _floordiv_const(x, y, scope)
        return cached
    key = (x, y)
    cached = scope.division_memo.get(key)
    if cached is None:
        cached = scope.division_memo[key] = _floordiv_sym(x, y, scope)
    return cached


def _split_coefficients(terms: Terms, k: int) -> tuple[Terms, Terms]:
    """Split ``terms`` into ``k*quot + rem``: non-constant remainder coefficients
    in ``(-k/2, k/2]``, constant remainder in ``[0, k)``."""
    quot: Terms = {}
    rem: Terms = {}
    half = k // 2
    for m, c in terms.items():
        q, r = divmod(c, k)
        if m and r > half:
            q, r = q + 1, r - k
        if q:
            quot[m] = q
        if r:
            rem[m] = r
    return quot, rem


def _floordiv_const(x: DimExpr, k: int, scope: AlgebraScope) -> DimExpr | int:
    """``floordiv(x, k)`` for a constant ``k >= 2``.

    ``x == k*P + R + c``: ``P`` is pulled out (integer valued), ``R`` keeps
    coefficients in ``(-k/2, k/2]`` and ``0 <= c < k``.  A part ``c*E`` of
    ``x`` that the scope's equalities make a multiple of ``k`` (``E ==
    K*floordiv(E, K)`` with ``k | c*K``) is pulled out as ``(c*K/k)*floordiv(E, K)``.
    """
    rules = scope.divisibility_rules()
    for e_terms, big_k, fd_mono in rules:
        c = _scale_in(x.terms, e_terms)
        if c and (c * big_k) % k == 0:
            rest = {m: v for m, v in x.terms.items() if m not in e_terms}
            return DimExpr.make({fd_mono: c * big_k // k}, scope) + \
                floordiv(DimExpr.make(rest, scope), k)
    for e_terms, big_k, fd_mono in rules:
        if len(e_terms) == 1:
            # Multiples of a one-term E: c*g*E == (c*K)*g*floordiv(E, K)
            # (b*s == 128*b*floordiv(s, 128) under mod(s, 128) == 0).
            split = _multiples_of_term(x.terms, e_terms, big_k, fd_mono, k)
            if split is not None:
                multiples, others = split
                return DimExpr.make(multiples, scope) + floordiv(DimExpr.make(others, scope), k)
    quot, rem = _split_coefficients(x.terms, k)
    const = rem.pop(ONE, 0)
    pulled: DimExpr | int = DimExpr.make(quot, scope) if quot else 0
    if not rem:
        return pulled  # floordiv(c, k) == 0 for 0 <= c < k
    if quot:
        # A numerator whose interval lies within one multiple of k is that
        # multiple: pulling terms out would write ``mod(a, 4)`` (``a -
        # 4*floordiv(a, 4)``, in [0, 3]) over 8 as ``floordiv(a +
        # 4*floordiv(a, 4), 8) - floordiv(a, 4)``, whose parts the intervals
        # no longer bound together.  (Without terms pulled out, the atom's
        # own numerator is checked so below.)
        lb, ub = scope.interval(x)
        if is_finite(lb) and is_finite(ub) and lb // k == ub // k:
            return int(lb // k)
    # Content: floordiv(g*R + c, g*k') == floordiv(R + c // g, k')
    g = k
    for c in rem.values():
        g = math.gcd(g, c)
        if g == 1:
            break
    if g > 1:
        rem = {m: c // g for m, c in rem.items()}
        const //= g
        k //= g
        if k == 1:
            return pulled + DimExpr.make(rem, scope) + const
    # (one term needs no sort key: a new variable's costs more than the rest)
    lead = next(iter(rem)) if len(rem) == 1 else min(rem, key=mono_key)
    if rem[lead] < 0:
        # floordiv(y, k) == -floordiv(-y + k - 1, k): keep the leading sign positive.
        flipped = {m: -c for m, c in rem.items()}
        if k - 1 - const:
            flipped[ONE] = k - 1 - const
        return pulled - _floordiv_const_atom(flipped, k, scope)
    if const:
        rem[ONE] = const
    # (nothing pulled out, no content divided and no rule to apply: the
    # numerator is x itself)
    same = x if not quot and g == 1 and not scope.rewrites_terms else None
    atom = _floordiv_const_atom(rem, k, scope, same, reduced=True)
    return atom if type(pulled) is int and pulled == 0 else pulled + atom


def _multiples_of_term(terms: Terms, e_terms: Terms, big_k: int, fd_mono: Mono, k: int
                       ) -> tuple[Terms, Terms] | None:
    """``(pulled, rest)`` with ``terms == k*pulled + rest`` where the terms of
    ``pulled`` are monomial multiples of ``E == big_k*fd`` (``E`` one term,
    ``fd`` the monomial of ``floordiv(E, big_k)``); None when no term is one."""
    (e_mono, e_c), = e_terms.items()
    pulled: Terms = {}
    rest: Terms = {}
    for m, c in terms.items():
        g = mono_div(m, e_mono)
        if g is not None and c % e_c == 0 and (c // e_c * big_k) % k == 0:
            pm = mono_mul(g, fd_mono)
            pulled[pm] = pulled.get(pm, 0) + c // e_c * big_k // k
        else:
            rest[m] = c
    if not pulled:
        return None
    return {m: c for m, c in pulled.items() if c}, rest


def _scale_in(terms: Terms, part: Terms) -> int:
    """``c`` such that ``terms`` holds ``c*part`` (every term of ``part``
    scaled by the same ``c``), or 0."""
    c = 0
    for m, v in part.items():
        have = terms.get(m)
        if have is None or have % v:
            return 0
        if c == 0:
            c = have // v
        elif have != c * v:
            return 0
    return c


def _floordiv_const_atom(terms: Terms, k: int, scope: AlgebraScope,
                         same: DimExpr | None = None, reduced: bool = False
                         ) -> DimExpr | int:
    """``floordiv(R, k)`` for normalized ``R`` (no further splitting);
    ``same``, if given, is an expression whose terms are ``terms``;
    ``reduced``: the coefficients are known to be reduced already."""
    if not reduced:
        # Reduce coefficients again (the sign flip may have produced -k/2).
        quot, terms = _split_coefficients(terms, k)
        if quot:
            num0 = DimExpr.make(terms, scope) if terms else 0
            return DimExpr.make(quot, scope) + floordiv(num0, k)
    num = same if same is not None else DimExpr.make(terms, scope)
    if isinstance(num, int):
        return num // k
    nested = _merge_nested_floordiv(num, k, scope)
    if nested is not None:
        return nested
    lb, ub = scope.interval(num)
    if lb >= 0 and ub < k:
        return 0
    if is_finite(lb) and is_finite(ub) and lb // k == ub // k:
        return int(lb // k)
    return DimExpr.make({atom_mono(make_floordiv_atom(num, k, scope)): 1}, scope)


def _floordiv_sym(x: DimExpr | int, y: DimExpr, scope: AlgebraScope) -> DimExpr | int:
    """``floordiv(x, y)`` for a symbolic divisor ``y``."""
    sign = scope.sign(y)
    if sign == 0 and scope.interval(y)[0] >= 0:
        # A divisor that is >= 0 but may be 0 (JAX accepts `mod(b, floordiv(a, 2))`):
        # the expression only has a value where the divisor is >= 1.  That is a
        # hypothesis of every query that mentions the atom (its ``den >= 1``
        # axiom), as JAX treats it; it never becomes a fact of the scope, so
        # building this expression changes no other answer.
        sign = 1
    if sign == 0:
        lb, ub = scope.interval(y)
        raise DivisionByZeroRiskError(
            f"division by '{y}', which may be zero or change sign (its bounds are "
            f"[{lb}, {ub}]); add a constraint such as '{y} >= 1' to the scope")
    if sign < 0:
        return floordiv(-x, -y)
    # Common content: floordiv(g*x', g*y') == floordiv(x', y').
    g = 0
    for c in (x.terms.values() if isinstance(x, DimExpr) else (x,)):
        g = math.gcd(g, c)
    if g != 1:
        for c in y.terms.values():
            g = math.gcd(g, c)
            if g == 1:
                break
        if g > 1:
            return floordiv(x // g if isinstance(x, int) else
                            DimExpr.make({m: c // g for m, c in x.terms.items()}, scope),
                            DimExpr.make({m: c // g for m, c in y.terms.items()}, scope))
    # A common product of variables (positive): floordiv(b*s, 128*b) == floordiv(s, 128).
    if isinstance(x, DimExpr):
        common = common_variable_factor(x.terms, y.terms)
        if common is not ONE:
            return floordiv(DimExpr.make(divide_terms(x.terms, common), scope),
                            DimExpr.make(divide_terms(y.terms, common), scope))
    # Exact polynomial division pulls out the integer-valued quotient:
    # floordiv(q*y + r, y) == q + floordiv(r, y).
    quot, rem = poly_divmod(x, y, scope)
    if isinstance(rem, int) and rem == 0:
        return quot
    if (rem if isinstance(rem, int) else rem.leading_coefficient) < 0:
        # Keep the leading sign positive, as for a constant divisor:
        # floordiv(R, y) == -1 - floordiv(-R - 1, y) for y >= 1, so that
        # -floordiv(-n, d) and floordiv(n + d - 1, d) are both 1 + floordiv(n - 1, d).
        # (-R - 1 has a positive leading coefficient: no term of R is divisible
        # by y's leading term, so this does not recur.)
        return quot - 1 - floordiv(-rem - 1, y)
    if isinstance(rem, int):
        atom: DimExpr | int = _floordiv_sym_atom(rem, y, scope)
    else:
        atom = _floordiv_sym_atom(rem, y, scope)
    return quot + atom


def _merge_nested_floordiv(num: DimExpr, den: DimExpr | int,
                           scope: AlgebraScope) -> DimExpr | int | None:
    """``floordiv(floordiv(x, k1) + R, k2) == floordiv(x + k1*R, k1*k2)`` for
    divisors ``k1, k2 >= 1`` (constant or symbolic) and an integer ``R``; and
    with ``-floordiv(x, k1) == floordiv(k1 - 1 - x, k1)`` the same for a
    quotient with coefficient -1 (the canonical ``floordiv(2*b, 3)`` is
    ``b - floordiv(b + 2, 3)``).  None when ``num`` has no such term.  The
    leading such term is used, so the result does not depend on how ``num``
    was built."""
    found = [(m, c) for m, c in num.terms.items()
             if (c == 1 or c == -1) and len(m) == 1 and m[0][1] == 1
             and type(m[0][0]) is FloorDiv]
    if not found:
        return None
    m, c = min(found, key=lambda t: mono_key(t[0])) if len(found) > 1 else found[0]
    a = m[0][0]
    assert isinstance(a, FloorDiv)
    rest = num - DimExpr.make({m: c}, scope)
    inner = a.num if c == 1 else a.den - 1 - a.num
    return floordiv(inner + mul_any(a.den, rest, scope), mul_any(a.den, den, scope))


def _floordiv_sym_atom(num: DimExpr | int, den: DimExpr, scope: AlgebraScope) -> DimExpr | int:
    if isinstance(num, DimExpr):
        nested = _merge_nested_floordiv(num, den, scope)
        if nested is not None:
            return nested
    nlb, nub = scope.interval(num)
    dlb, _ = scope.interval(den)
    if nlb >= 0 and nub < dlb:
        return 0
    return DimExpr.make({atom_mono(make_floordiv_atom(num, den, scope)): 1}, scope)


def poly_divmod(x: DimExpr | int, y: DimExpr,
                scope: AlgebraScope) -> tuple[DimExpr | int, DimExpr | int]:
    """Multivariate division by leading terms: ``x == q*y + r`` with integer
    coefficients, where no term of ``r`` is divisible by ``y``'s leading term."""
    if isinstance(x, int):
        return 0, x
    if len(y.terms) == 1:
        # A one-term divisor divides only terms that contain its atoms: when
        # some atom occurs nowhere in x, there is nothing to pull out.
        (ym,) = y.terms
        for a, _ in ym:
            if not any(b is a for m in x.terms for b, _ in m):
                return 0, x
    lead_m, lead_c = y.sorted_terms()[0]
    rem = dict(x.terms)
    quot: Terms = {}
    out_rem: Terms = {}
    ysorted = y.sorted_terms()
    for _ in range(10_000):  # termination is guaranteed; this bounds pathological sizes
        if not rem:
            break
        if len(rem) == 1:  # no sort keys needed to find the leading term
            (m, c), = rem.items()
        else:
            m, c = min(rem.items(), key=lambda t: mono_key(t[0]))
        qm = mono_div(m, lead_m)
        if qm is None or c % lead_c:
            out_rem[m] = c
            del rem[m]
            continue
        qc = c // lead_c
        quot[qm] = quot.get(qm, 0) + qc
        for ym, yc in ysorted:
            pm = mono_mul(qm, ym)
            v = rem.get(pm, 0) - qc * yc
            if v:
                rem[pm] = v
            else:
                rem.pop(pm, None)
    else:
        return 0, x
    quot = {m: c for m, c in quot.items() if c}
    return DimExpr.make(quot, scope), DimExpr.make(out_rem, scope)


def mod(x: DimLike, y: DimLike) -> DimExpr | int:
    """``x - y*floordiv(x, y)`` (Python's ``%``), in canonical form."""
    x = check_dim(x, "mod")
    y = check_dim(y, "mod")
    if isinstance(x, int) and isinstance(y, int):
        if y == 0:
            raise ZeroDivisionError(f"mod({x}, 0): division by zero")
        return x % y
    if isinstance(y, DimExpr) and isinstance(x, DimExpr):
        # mod(g*x', g*y') == g*mod(x', y') for a product of variables g (> 0)
        common = common_variable_factor(x.terms, y.terms)
        if common is not ONE:
            scope = scope_of(x, y)
            assert scope is not None  # (both are expressions)
            inner = mod(DimExpr.make(divide_terms(x.terms, common), scope),
                        DimExpr.make(divide_terms(y.terms, common), scope))
            return mul_any(DimExpr.make({common: 1}, scope), inner, scope)
    if isinstance(y, int) and isinstance(x, DimExpr) and y >= 2:
        # A polynomial constant modulo y (n^2 + n is even): its residue.
        r = constant_residue(x.terms, y)
        if r is not None:
            return r
    q = floordiv(x, y)
    return x - mul_any(y, q, scope_of(x, y))  # type: ignore[arg-type]


set_division(floordiv, mod)

__all__ = ["floordiv", "mod", "poly_divmod"]
