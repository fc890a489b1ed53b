"""The polynomial ring over atoms, and the one evaluator of expressions.

A term map (:data:`Terms`) sends a monomial (:class:`~symshape.algebra.atoms.Mono`)
to its nonzero integer coefficient: it is a polynomial with integer
coefficients over atoms, with no scope attached.  The ring operations here
(:func:`add`, :func:`add_into`, :func:`scale`, :func:`mul`) are shared by the
expressions (``symshape.algebra.dimexpr``, which adds the scope's rules and
the size limits) and the decision procedure (``symshape.decision.poly``).

Evaluation (:func:`evaluate_expr`, :func:`value_at`) walks nests of atoms
innermost first, each shared atom once, without recursion.  On a zero
divisor, :func:`evaluate_expr` raises ``ZeroDivisionError`` (Python's ``//``;
numpy arrays follow numpy's rules), and :func:`value_at`, which the scope
uses at valuations that need not satisfy every fact, returns ``None``.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from symshape.algebra.atoms import (
    Atom,
    FloorDiv,
    Mono,
    Var,
    compound_children,
    fold_atoms,
    mono_mul,
    set_atom_evaluator,
)

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
# Evaluation


def evaluate_expr(e: DimExpr | int, env: Mapping[str, Any], memo: dict[Atom, Any] | None = None
          ) -> Any:
    """Value of ``e`` under ``env``; ``memo`` holds the values of atoms, so a
    nest that shares sub-expressions (a clamp chain) costs one evaluation per
    atom, and no recursion (innermost atoms first, see :func:`fold_atoms`)."""
    if isinstance(e, int):
        return e
    if memo is None:
        memo = {}
    total: Any = 0
    for m, c in e.terms.items():
        v: Any = c
        for a, k in m:
            av = memo[a] if a in memo else fold_atoms(a, memo, partial(_atom_value, env, memo))
            v = v * (av if k == 1 else av ** k)
        total = total + v
    return total


def value_at(e: DimExpr | int, env: Mapping[str, int], memo: dict[Any, int | None]
             ) -> int | None:
    """Value of ``e`` where each variable has its value in ``env`` (1 when
    missing), None where a divisor is 0 there: the valuations a scope tries
    (all ones, repaired ones) need not give a value to every atom.
    ``memo`` caches the values of atoms at ``env``."""
    if isinstance(e, int):
        return e
    total = 0
    for m, c in e.terms.items():
        p = c
        for a, k in m:
            if type(a) is Var:
                x = env.get(a.name, 1)
                if x != 1:
                    p *= x if k == 1 else x ** k
                continue
            if a in memo:
                v = memo[a]
            elif _over_variables(a):
                # (the common atom, ``floordiv(s, 128)``: no walk below it)
                v = memo[a] = _atom_at(env, memo, a)
            else:
                v = fold_atoms(a, memo, partial(_atom_at, env, memo), compound_children)
            if v is None:
                return None
            p *= v if k == 1 else v ** k
        total += p
    return total


def _over_variables(a: Atom) -> bool:
    """Are the operands of ``a`` constants or polynomials in variables only
    (``not compound_children(a)``, without building the list)?"""
    if type(a) is FloorDiv:
        return _of_variables_only(a.num) and _of_variables_only(a.den)
    return _of_variables_only(a.arg)  # type: ignore[attr-defined]


def _of_variables_only(o: DimExpr | int) -> bool:
    if not isinstance(o, int):
        for m in o.terms:
            for b, _ in m:
                if type(b) is not Var:
                    return False
    return True


def _atom_at(env: Mapping[str, int], memo: dict[Any, int | None], a: Atom) -> int | None:
    """Value of a floordiv or max atom at ``env`` (see :func:`value_at`); the
    atoms of its operands are in ``memo``."""
    if type(a) is FloorDiv:
        num = value_at(a.num, env, memo)
        den = value_at(a.den, env, memo)
        if num is None or den is None or den == 0:
            return None
        return num // den
    v = value_at(a.arg, env, memo)  # type: ignore[attr-defined]
    return None if v is None else max(v, 0)


def evaluate_atom(a: Atom, env: Mapping[str, Any]) -> Any:
    """Value of the atom ``a`` under ``env`` (each nested atom evaluated once)."""
    memo: dict[Atom, Any] = {}
    return fold_atoms(a, memo, partial(_atom_value, env, memo))


def _atom_value(env: Mapping[str, Any], memo: dict[Atom, Any], a: Atom) -> Any:
    """Value of one atom; the atoms of its operands are in ``memo``."""
    t = type(a)
    if t is Var:
        return a.evaluate(env)
    if t is FloorDiv:
        return evaluate_expr(a.num, env, memo) // evaluate_expr(a.den, env, memo)  # type: ignore[attr-defined]
    v = evaluate_expr(a.arg, env, memo)  # type: ignore[attr-defined]
    return np.maximum(v, 0) if isinstance(v, np.ndarray) else max(v, 0)


set_atom_evaluator(evaluate_atom)

__all__ = ["Terms", "add", "add_into", "evaluate_atom", "evaluate_expr", "mul", "scale",
           "value_at"]
