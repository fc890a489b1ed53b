"""The polynomial ring over atoms, and the one evaluator of expressions.

A term map (:data:`Terms`) sends a monomial (:class:`~symshape.algebra.atoms.Mono`)
to its nonzero integer coefficient: it is a polynomial with integer
coefficients over atoms, with no scope attached.  The ring operations here
(:func:`add`, :func:`add_into`, :func:`scale`, :func:`mul`) are shared by the
expressions (``symshape.algebra.dimexpr``, which adds the scope's rules and
the size limits) and the decision procedure (``symshape.decision.poly``).

The one evaluator of expressions is here too: one walk over terms,
monomials and atoms (:func:`evaluate_terms`; nests of atoms innermost first,
each shared atom once, without recursion) and the meaning of each atom kind
(:func:`compute_atom`), in a domain of values (:class:`Domain`: Python's
operators on ints or numpy arrays; :class:`VectorDomain`: lists of ints
over the points of a pool), and for scalar ints the same walk with its
arithmetic written out (:func:`value_at`, the hot path).  The decision
layer's points and pools (``symshape.decision.valuations``) evaluate
through them.

One rule on a zero divisor: a floordiv atom whose divisor is 0 at a
valuation is *undefined* there, and each caller says what that becomes:

* :func:`evaluate_expr` (``DimExpr.evaluate``) raises ``ZeroDivisionError``
  naming the atom; on numpy arrays (grids of valuations, masked by their
  callers) it is 0 at such elements, numpy's ``//``;
* :func:`value_at` (valuations a scope tries, which need not satisfy every
  fact) returns None;
* the decision layer's points and pools use 0 (``undefined=0``): such
  points violate the divisor's domain condition and are rejected, whatever
  the value.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from symshape.algebra.atoms import (
    Atom,
    Factors,
    FloorDiv,
    Max0,
    Mono,
    Var,
    compound_children,
    fold_atoms,
    mono_mul,
    set_atom_evaluator,
)
from symshape.util import int_mul

if TYPE_CHECKING:
    from symshape.algebra.dimexpr import DimExpr

#: A polynomial: monomial -> nonzero coefficient.
Terms = dict[Mono, int]


def add(p: Terms, q: Terms, k: int = 1) -> Terms:
    """``p + k*q`` (a fresh dict)."""
    out = dict(p)
    if k:
        add_into(out, q, k)
    return out


def add_into(acc: Terms, q: Terms, k: int) -> None:
    """``acc += k*q`` in place."""
    for m, c in q.items():
        v = acc.get(m, 0) + k * c
        if v:
            acc[m] = v
        else:
            acc.pop(m, None)


def scale(p: Terms, k: int) -> Terms:
    """``k*p``."""
    if k == 0:
        return {}
    return {m: c * k for m, c in p.items()}


def mul(p: Terms, q: Terms) -> Terms:
    """The polynomial product ``p*q``."""
    out: Terms = {}
    for m1, c1 in p.items():
        for m2, c2 in q.items():
            m = mono_mul(m1, m2)
            v = out.get(m, 0) + c1 * c2
            if v:
                out[m] = v
            else:
                out.pop(m, None)
    return out


# ---------------------------------------------------------------------------
# Evaluation: one walk, one rule for a zero divisor
#
# The walk (:func:`evaluate_terms`) and the meaning of each atom kind
# (:func:`compute_atom`) are written here once; what differs between callers
# is the domain of values (a :class:`Domain`: Python operators, scalar ints,
# or lists of ints over the points of a pool) and what an undefined atom
# becomes for them.  The scalar-int domain, the hot path of scopes and of
# the decision procedure, has the walk's loop and the atoms' meaning written
# out for ints (:func:`value_at`, :func:`_int_atom`), with the same rules;
# tests/algebra/test_one_evaluator.py holds every caller to them.


class Domain:
    """Values under Python's operators (ints, numpy integer arrays, ...):
    the domain of :func:`evaluate_expr`, where an undefined atom (a zero
    divisor) raises ``ZeroDivisionError`` (numpy arrays: 0 there, see
    :meth:`floordiv`).  Subclasses change the values, not the walk."""

    def __init__(self, env: Mapping[str, Any]) -> None:
        self.env = env

    def var(self, a: Var) -> Any:
        """Value of a variable."""
        return a.evaluate(self.env)

    def const(self, c: int) -> Any:
        """Value of an integer operand."""
        return c

    def floordiv(self, a: FloorDiv, n: Any, d: Any) -> Any:
        """Value of the floordiv atom ``a`` with operand values ``n``, ``d``."""
        if type(d) is int and d == 0:
            raise ZeroDivisionError(f"{a} is undefined: its divisor is 0 at this valuation")
        # (numpy arrays: numpy's ``//`` gives 0 where the divisor is 0, as a
        # pool does; an array is a grid of valuations whose caller masks
        # those outside the divisors' domain)
        return n // d

    def max0(self, v: Any) -> Any:
        """``max(v, 0)``."""
        return np.maximum(v, 0) if isinstance(v, np.ndarray) else max(v, 0)

    def power(self, v: Any, k: int) -> Any:
        """``v ** k`` (``k >= 2``)."""
        return v ** k

    def add_term(self, acc: Any, c: int, factors: list[Any]) -> Any:
        """``acc + c * product(factors)`` (``acc`` None: 0)."""
        p: Any = c
        for f in factors:
            p = p * f
        return p if acc is None else acc + p


class VectorDomain(Domain):
    """Lists of ints, one per point of a pool: ``var_values(name)`` gives a
    variable's list; an undefined atom (a zero divisor at a point) has the
    value ``undefined`` at that point.  (Lists lack the arithmetic
    operators: :meth:`power` and :meth:`add_term` stand for them.)"""

    def __init__(self, size: int, var_values: Callable[[str], list[int]], undefined: int
                 ) -> None:
        self.env = {}
        self.size = size
        self.var_values = var_values
        self.undefined = undefined

    def var(self, a: Var) -> Any:
        return self.var_values(a.name)

    def const(self, c: int) -> Any:
        return [c] * self.size

    def power(self, v: Any, k: int) -> Any:
        """``v ** k`` at each point (``k >= 2``)."""
        return [x ** k for x in v]

    def add_term(self, acc: Any, c: int, factors: list[Any]) -> Any:
        """``acc + c * product(factors)`` at each point (``acc`` None: 0)."""
        if not factors:
            return [c] * self.size if acc is None else [s + c for s in acc]
        vals: list[int] = factors[0]
        for f in factors[1:]:
            vals = [x * y for x, y in zip(vals, f, strict=True)]
        if acc is None:
            return list(vals) if c == 1 else [c * v for v in vals]
        if c == 1:
            return [s + v for s, v in zip(acc, vals, strict=True)]
        return [s + c * v for s, v in zip(acc, vals, strict=True)]

    def floordiv(self, a: FloorDiv, n: Any, d: Any) -> Any:
        u = self.undefined
        return [x // y if y else u for x, y in zip(n, d, strict=True)]

    def max0(self, v: Any) -> Any:
        return [x if x > 0 else 0 for x in v]


#: resolves an atom missing from the memo (``None``: :func:`fold_atoms`)
Resolve = Callable[[Atom], Any]


def evaluate_terms(terms: Terms, dom: Domain, memo: dict[Any, Any],
                   resolve: Resolve | None = None) -> Any:
    """Value of the polynomial ``terms`` in the domain ``dom``: the one walk.

    ``memo`` holds the values of atoms (filled as they are computed, each
    shared atom once, innermost first and without recursion, see
    :func:`fold_atoms`); ``resolve`` computes an atom that is not in it
    (by default its fold).  A floordiv whose divisor is 0 is undefined: what
    it becomes is the domain's (see :class:`Domain` and its subclasses)."""
    acc: Any = None
    for m, c in terms.items():
        factors: list[Any] = []
        pairs: Factors = m
        for a, k in pairs:
            if a in memo:
                v = memo[a]
            elif resolve is None:
                v = fold_atoms(a, memo, partial(compute_atom, dom, memo))
            else:
                v = resolve(a)
            factors.append(v if k == 1 else dom.power(v, k))
        acc = dom.add_term(acc, c, factors)
    return dom.const(0) if acc is None else acc


def atom_value(dom: Domain, memo: dict[Any, Any], a: Atom) -> Any:
    """Value of the atom ``a`` in ``dom``, with the atoms below it (memoized
    in ``memo``)."""
    return fold_atoms(a, memo, partial(compute_atom, dom, memo))


def compute_atom(dom: Domain, memo: dict[Any, Any], a: Atom) -> Any:
    """The meaning of each atom kind, with the atoms of its operands in
    ``memo``: a variable's value, the floor of a quotient (undefined where
    the divisor is 0, see :meth:`Domain.floordiv`), ``max(v, 0)``."""
    t = type(a)
    if t is Var:
        return dom.var(a)  # type: ignore[arg-type]
    if t is FloorDiv:
        num, den = a.num, a.den  # type: ignore[attr-defined]
        return dom.floordiv(
            a,  # type: ignore[arg-type]
            dom.const(num) if isinstance(num, int) else evaluate_terms(num.terms, dom, memo),
            dom.const(den) if isinstance(den, int) else evaluate_terms(den.terms, dom, memo))
    assert t is Max0
    arg = a.arg  # type: ignore[attr-defined]
    return dom.max0(dom.const(arg) if isinstance(arg, int)
                    else evaluate_terms(arg.terms, dom, memo))


def value_at(e: DimExpr | Terms | int, env: dict[str, int], memo: dict[Any, Any],
             default: int = 1, undefined: int | None = None) -> int | None:
    """Value of ``e`` (an expression or its terms) where each variable has its
    value in ``env`` (``default`` when missing): :func:`evaluate_terms` for
    scalar ints, the hot path, with the arithmetic written out (a floordiv
    whose divisor is 0 is ``undefined``, a ``max`` of None is None).

    An undefined atom (a zero divisor) is worth ``undefined``; with the
    default None the value is None: the valuations a scope tries (all ones,
    repaired ones) need not give a value to every atom.  ``memo`` caches
    the values of atoms at ``env``.  Variables are read from ``env``, not
    the memo, and an atom over variables alone is computed without a fold."""
    if isinstance(e, int):
        return e
    # (typed locals: the compiled loop then walks the dict and each monomial's
    # tuple in C, where iterating an untyped value makes an iterator object
    # per monomial, one the garbage collector counts)
    terms: Terms = e if type(e) is dict else e.terms  # type: ignore[union-attr]
    total = 0
    for m, c in terms.items():
        pairs: Factors = m
        p = c
        for a, k in pairs:
            if type(a) is Var:
                x = env.get(a.name, default)
                if x != 1:
                    # (int_mul: a signal may interrupt a product of large values)
                    p = int_mul(p, x if k == 1 else x ** k)
                continue
            if a in memo:
                v = memo[a]
            elif _over_variables(a):
                # (the common atom, ``floordiv(s, 128)``: no walk below it)
                v = memo[a] = _int_atom(env, memo, default, undefined, a)
            else:
                v = fold_atoms(a, memo, partial(_int_atom, env, memo, default, undefined),
                               compound_children)
            if v is None:
                return None
            p = int_mul(p, v if k == 1 else v ** k)
        total += p
    return total


def _int_atom(env: dict[str, int], memo: dict[Any, Any], default: int,
              undefined: int | None, a: Atom) -> Any:
    """:func:`compute_atom` in the scalar-int domain (the hot path):
    the operands, ``floordiv`` and ``max0`` of :func:`value_at` written out."""
    t = type(a)
    if t is Var:
        return env.get(a.name, default)  # type: ignore[attr-defined]
    if t is FloorDiv:
        n = value_at(a.num, env, memo, default, undefined)  # type: ignore[attr-defined]
        d = value_at(a.den, env, memo, default, undefined)  # type: ignore[attr-defined]
        return undefined if n is None or d is None or d == 0 else n // d
    v = value_at(a.arg, env, memo, default, undefined)  # type: ignore[attr-defined]
    return None if v is None else (v if v > 0 else 0)


def _over_variables(a: Atom) -> bool:
    """Are the operands of ``a`` constants or polynomials in variables only
    (``not compound_children(a)``, without building the list)?"""
    if type(a) is FloorDiv:
        return _of_variables_only(a.num) and _of_variables_only(a.den)
    return _of_variables_only(a.arg)  # type: ignore[attr-defined]


def _of_variables_only(o: DimExpr | int) -> bool:
    if not isinstance(o, int):
        for m in o.terms:
            pairs: Factors = m
            for b, _ in pairs:
                if type(b) is not Var:
                    return False
    return True


def evaluate_expr(e: DimExpr | int, env: Mapping[str, Any], memo: dict[Atom, Any] | None = None
                  ) -> Any:
    """Value of ``e`` under ``env`` (ints, or numpy integer arrays: anything
    with Python's operators); ``memo`` holds the values of atoms.  Raises
    ``ZeroDivisionError`` naming the atom where an int divisor is 0; numpy
    arrays (grids of valuations, which their callers mask) get numpy's 0
    there."""
    if isinstance(e, int):
        return e
    return evaluate_terms(e.terms, Domain(env), {} if memo is None else memo)


def evaluate_atom(a: Atom, env: Mapping[str, Any]) -> Any:
    """Value of the atom ``a`` under ``env`` (each nested atom evaluated once)."""
    return atom_value(Domain(env), {}, a)


set_atom_evaluator(evaluate_atom)

__all__ = ["Domain", "Terms", "VectorDomain", "add", "add_into", "atom_value",
           "compute_atom", "evaluate_atom", "evaluate_expr", "evaluate_terms", "mul", "scale",
           "value_at"]
