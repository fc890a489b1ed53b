"""Ground truth for decision tests: z3, brute force, and a random claim generator.

* :class:`Z3Oracle` encodes canonical expressions in z3 with Python's floor
  semantics made explicit (``q = floordiv(num, den)`` is a fresh integer with
  ``den*q <= num <= den*q + den - 1``, ``den >= 1``; ``max(x, 0)`` is an
  ``If``), variables are integers ``>= 1``, and the scope's constraints are
  asserted.  Answers are ``True``/``False``/``None`` (unknown or timeout).
* :func:`brute_force` evaluates a claim over every valuation of small values
  that satisfies the constraints (vectorized with numpy).
* :func:`random_claim` draws a claim (text, constraint texts) from a
  ``random.Random``; the soundness test feeds it hypothesis' randoms, the
  benchmark a seeded ``random.Random``.

Shared by ``tests/test_decision*.py`` and ``benchmarks/bench_decision.py``.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import symshape
from support.exprgen import OPS, Tree, evaluate, render
from support.exprgen import build_with as build
from symshape.algebra.atoms import FloorDiv, Max0, Var
from symshape.algebra.dimexpr import DimExpr

# A claim link: (op, d) meaning ``d op 0`` with op in ">=", "==", "!=".
Link = tuple[str, Any]


def links_of(claim: str, scope: symshape.SymbolicScope) -> list[Link]:
    """Parse ``claim`` into links ``(op, d)`` meaning ``d op 0``."""
    from symshape.shapes import parse_comparison_in_scope
    out: list[Link] = []
    for op, lhs, rhs in parse_comparison_in_scope(claim, scope):
        if op == ">=":
            out.append((">=", lhs - rhs))
        elif op == ">":
            out.append((">=", lhs - rhs - 1))
        elif op == "<=":
            out.append((">=", rhs - lhs))
        elif op == "<":
            out.append((">=", rhs - lhs - 1))
        else:
            out.append((op, lhs - rhs))
    return out


def scope_vars(scope: symshape.SymbolicScope, extra: Sequence[Any] = ()) -> list[str]:
    """Names of the variables of the scope's constraints and of ``extra`` expressions."""
    names: set[str] = set()
    for c in scope.constraints:
        if isinstance(c.diff, DimExpr):
            names |= c.diff.free_vars
    for e, _ in scope._implicit:
        if isinstance(e, DimExpr):
            names |= e.free_vars
    for e in extra:
        if isinstance(e, DimExpr):
            names |= e.free_vars
    return sorted(names)


def holds(op: str, v: Any) -> Any:
    """Truth of ``v op 0`` (works elementwise on arrays)."""
    if op == ">=":
        return v >= 0
    if op == "==":
        return v == 0
    return v != 0


def constraints_hold(scope: symshape.SymbolicScope, env: dict[str, Any]) -> Any:
    """Every constraint and implicit fact at ``env`` (elementwise for arrays)."""
    ok: Any = True
    for c in scope.constraints:
        v = c.diff if isinstance(c.diff, int) else c.diff.evaluate(env)
        ok = ok & ((v == 0) if c.op == "==" else (v >= 0))
    for e, _ in scope._implicit:
        v = e if isinstance(e, int) else e.evaluate(env)
        ok = ok & (v >= 0)
    for x in env.values():
        ok = ok & (np.asarray(x) >= 1)
    return ok


def claim_holds(links: Sequence[Link], env: dict[str, Any]) -> Any:
    """Truth of the conjunction of ``links`` at ``env``."""
    ok: Any = True
    for op, d in links:
        v = d if isinstance(d, int) else d.evaluate(env)
        ok = ok & holds(op, v)
    return ok


def brute_force(scope: symshape.SymbolicScope, links: Sequence[Link], hi: int = 6,
                exact: bool = False
                ) -> tuple[dict[str, int] | None, dict[str, int] | None]:
    """``(witness, counterexample)`` over valuations in ``1..hi`` satisfying the
    constraints: a valuation where the claim holds / fails (or None).
    ``exact``: evaluate in Python ints, for constants that int64 cannot hold."""
    names = scope_vars(scope, [d for _, d in links])
    if not names:
        env0: dict[str, Any] = {}
        if not bool(constraints_hold(scope, env0)):
            return None, None
        ok = bool(claim_holds(links, env0))
        return ({}, None) if ok else (None, {})
    if exact:  # one valuation at a time (evaluate() on arrays works in int64)
        wit = cex = None
        for vals in itertools.product(range(1, hi + 1), repeat=len(names)):
            point = dict(zip(names, vals, strict=True))
            if not bool(constraints_hold(scope, point)):
                continue
            if bool(claim_holds(links, point)):
                wit = wit or point
            else:
                cex = cex or point
        return wit, cex
    grid = np.array(list(itertools.product(range(1, hi + 1), repeat=len(names))),
                    dtype=np.int64)
    env = {n: grid[:, i] for i, n in enumerate(names)}
    valid = np.broadcast_to(np.asarray(constraints_hold(scope, env)), (len(grid),))
    truth = np.broadcast_to(np.asarray(claim_holds(links, env)), (len(grid),))
    w = np.nonzero(valid & truth)[0]
    f = np.nonzero(valid & ~truth)[0]
    wit = {n: int(grid[w[0], i]) for i, n in enumerate(names)} if len(w) else None
    cex = {n: int(grid[f[0], i]) for i, n in enumerate(names)} if len(f) else None
    return wit, cex


def check_valuation(scope: symshape.SymbolicScope, links: Sequence[Link],
                    env: dict[str, int], claim_should_hold: bool) -> bool:
    """True if ``env`` is valid for the scope and the claim's truth is as stated."""
    names = scope_vars(scope, [d for _, d in links])
    if any(n not in env for n in names):
        return False
    if any(int(v) < 1 for v in env.values()):
        return False
    if not bool(constraints_hold(scope, env)):
        return False
    return bool(claim_holds(links, env)) == claim_should_hold


class Z3Oracle:
    """z3 encoding of a scope's constraints and of claims."""

    def __init__(self, scope: symshape.SymbolicScope, timeout_ms: int = 3000) -> None:
        import z3
        self.z3 = z3
        self.scope = scope
        self.timeout_ms = timeout_ms
        self.vars: dict[str, Any] = {}
        self.atoms: dict[Any, Any] = {}
        self.side: list[Any] = []  # definitions of floordiv quotients
        self.base = [self._fact(c.diff, c.op) for c in scope.constraints]
        self.base += [self.expr(e) >= 0 for e, _ in scope._implicit]

    def _fact(self, d: Any, op: str) -> Any:
        x = self.expr(d)
        return x == 0 if op == "==" else x >= 0

    def var(self, name: str) -> Any:
        v = self.vars.get(name)
        if v is None:
            v = self.vars[name] = self.z3.Int(name)
            self.side.append(v >= 1)
        return v

    def expr(self, e: Any) -> Any:
        """z3 term of an expression (ints stay ints)."""
        z3 = self.z3
        if isinstance(e, int):
            return z3.IntVal(e)
        total = z3.IntVal(0)
        for m, c in e.sorted_terms():
            t: Any = z3.IntVal(c)
            for a, k in m:
                x = self.atom(a)
                for _ in range(k):
                    t = t * x
            total = total + t
        return total

    def atom(self, a: Any) -> Any:
        z = self.atoms.get(a)
        if z is not None:
            return z
        z3 = self.z3
        if type(a) is Var:
            z = self.var(a.name)
        elif type(a) is FloorDiv:
            num = self.expr(a.num)
            den = self.expr(a.den)
            z = z3.Int(f"q{len(self.atoms)}")
            # Python floor division for a positive divisor, written out.
            self.side.extend([den >= 1, den * z <= num, num <= den * z + den - 1])
        else:
            assert type(a) is Max0
            arg = self.expr(a.arg)
            z = z3.If(arg >= 0, arg, 0)
        self.atoms[a] = z
        return z

    def _solve(self, goal: Any) -> Any:
        z3 = self.z3
        s = z3.Solver()
        s.set("timeout", self.timeout_ms)
        s.add(*self.base)
        s.add(goal)
        s.add(*self.side)  # after goal: encoding the goal may add definitions
        return s.check(), s

    def _claim(self, links: Sequence[Link]) -> Any:
        z3 = self.z3
        parts = []
        for op, d in links:
            x = self.expr(d)
            parts.append(x >= 0 if op == ">=" else (x == 0 if op == "==" else x != 0))
        return z3.And(*parts) if parts else z3.BoolVal(True)

    def valid(self, links: Sequence[Link]) -> bool | None:
        """Claim holds at every valid valuation? (None: unknown)"""
        r, _ = self._solve(self.z3.Not(self._claim(links)))
        if r == self.z3.unsat:
            return True
        if r == self.z3.sat:
            return False
        return None

    def satisfiable(self, links: Sequence[Link]) -> bool | None:
        """Claim holds at some valid valuation? (None: unknown)"""
        r, _ = self._solve(self._claim(links))
        if r == self.z3.unsat:
            return False
        if r == self.z3.sat:
            return True
        return None

    def constraints_satisfiable(self) -> bool | None:
        """Do the constraints admit a valuation?"""
        return self.satisfiable([])


# ---------------------------------------------------------------------------
# Random claims

OPS2 = ("add", "sub", "mul", "max", "min")


def random_tree(rng: random.Random, names: Sequence[str], depth: int,
                allow_mul: bool = True, symbolic_div: bool = True) -> Tree:
    """A random expression tree (tuples ``("var", n)``, ``("int", k)``, ``(op, x, y)``)."""
    if depth <= 0 or rng.random() < 0.3:
        if rng.random() < 0.75:
            return ("var", rng.choice(names))
        return ("int", rng.randint(-4, 6))
    r = rng.random()
    if r < 0.25:
        k = rng.choice((2, 2, 3, 4, 5, 8, 16))
        if symbolic_div and rng.random() < 0.3:
            den: Tree = ("var", rng.choice(names))
            if rng.random() < 0.3:
                den = ("add", den, ("int", rng.randint(1, 3)))
        else:
            den = ("int", k)
        return (rng.choice(("floordiv", "mod")), random_tree(rng, names, depth - 1,
                                                             allow_mul, symbolic_div), den)
    ops = OPS2 if allow_mul and rng.random() < 0.5 else ("add", "sub", "max", "min", "add")
    op = rng.choice(ops)
    if op == "mul" and rng.random() < 0.6:
        return ("mul", ("int", rng.randint(-3, 4)), random_tree(rng, names, depth - 1,
                                                                allow_mul, symbolic_div))
    return (op, random_tree(rng, names, depth - 1, allow_mul, symbolic_div),
            random_tree(rng, names, depth - 1, allow_mul, symbolic_div))


def _linear_constraint(rng: random.Random, names: Sequence[str]) -> str:
    """``sum(k_i * atom_i) >= c`` with atoms variables, max/min of two variables,
    floordiv/mod by constants (a syntax both symshape and JAX parse)."""
    pieces = []
    for _ in range(rng.randint(1, 3)):
        x, y = rng.choice(names), rng.choice(names)
        atom = rng.choice((x, x, f"max({x}, {y})", f"min({x}, {y})",
                           f"floordiv({x}, {rng.choice((2, 3, 4))})",
                           f"mod({x}, {rng.choice((2, 3, 4))})"))
        k = rng.choice((1, 1, 1, 2, 3, -1, -1, -2))
        pieces.append((k, atom))
    text = ""
    for i, (k, atom) in enumerate(pieces):
        mag = "" if abs(k) == 1 else f"{abs(k)}*"
        if i == 0:
            text = ("-" if k < 0 else "") + mag + atom
        else:
            text += (" - " if k < 0 else " + ") + mag + atom
    return f"{text} >= {rng.randint(-3, 3)}"


def random_constraints(rng: random.Random, names: Sequence[str]) -> list[str]:
    """A few constraints that are usually satisfiable (no chains, so that
    JAX parses them too)."""
    out: list[str] = []
    n = rng.choice((0, 0, 1, 1, 2, 3))
    for _ in range(n):
        x = rng.choice(names)
        y = rng.choice(names)
        r = rng.random()
        if r < 0.25:
            out.append(f"{x} >= {rng.randint(2, 20)}")
        elif r < 0.4:
            out.append(f"{x} <= {rng.randint(2, 30)}")
        elif r < 0.6 and x != y:
            out.append(f"{x} >= {y} + {rng.randint(0, 8)}")
        elif r < 0.7:
            out.append(f"mod({x}, {rng.choice((2, 3, 4, 8))}) == 0")
        elif r < 0.8 and x != y:
            out.append(f"{x} + {y} <= {rng.randint(4, 40)}")
        elif r < 0.9:
            out.append(f"{x} >= {rng.randint(2, 6)}")
            out.append(f"{x} <= {rng.randint(8, 40)}")
        else:
            out.append(_linear_constraint(rng, names))
    return out


def _grid(names: Sequence[str], hi: int) -> dict[str, Any]:
    g = np.array(list(itertools.product(range(1, hi + 1), repeat=len(names))), dtype=np.int64)
    return {n: g[:, i] for i, n in enumerate(names)}


@dataclass(frozen=True)
class Claim:
    """``lhs op rhs`` under ``constraints`` (trees, so that any library can build it)."""

    lhs: Tree
    op: str
    rhs: Tree
    constraints: tuple[str, ...]

    @property
    def text(self) -> str:
        """The claim in the symshape syntax."""
        return f"{render(self.lhs)} {self.op} {render(self.rhs)}"


def _int(k: int) -> Tree:
    return ("int", k)


def random_claim(rng: random.Random, max_vars: int = 4) -> Claim:
    """A mix of random comparisons (mostly undecided), claims tight at small
    valuations (often true, and needing real reasoning), and identities."""
    names = ("a", "b", "c", "d")[: rng.randint(1, max_vars)]
    constraints = tuple(random_constraints(rng, names))
    mode = rng.random()
    lhs = random_tree(rng, names, rng.randint(1, 3))
    if mode < 0.3:
        rhs = random_tree(rng, names, rng.randint(0, 2))
        op = rng.choice((">=", ">", "<=", "<", "==", "!="))
        return Claim(lhs, op, rhs, constraints)
    if mode < 0.85:
        # Compare with the extreme value over a small grid (often the true one).
        rhs = random_tree(rng, names, rng.randint(0, 1)) if rng.random() < 0.3 else _int(0)
        env = _grid(names, 6)
        vals = np.broadcast_to(np.asarray(evaluate(("sub", lhs, rhs), env)),
                               (6 ** len(names),))
        if rng.random() < 0.6:
            k = int(vals.min()) - rng.choice((0, 0, 0, 1))
            return Claim(lhs, ">=", ("add", rhs, _int(k)), constraints)
        k = int(vals.max()) + rng.choice((0, 0, 1))
        return Claim(lhs, "<=", ("add", rhs, _int(k)), constraints)
    # identities and near-identities
    x = random_tree(rng, names, 2, allow_mul=False)
    k = rng.choice((2, 3, 4, 8))
    j = rng.randint(0, k - 1)
    fd: Tree = ("floordiv", x, _int(k))
    forms = [
        Claim(("add", ("mul", _int(k), fd), ("mod", x, _int(k))), "==", x, constraints),
        Claim(("floordiv", ("add", x, _int(j)), _int(k)), "<=", ("add", fd, _int(1)),
              constraints),
        Claim(("max", x, lhs), ">=", ("min", x, lhs), constraints),
        Claim(("mul", fd, _int(k)), "<=", x, constraints),
        Claim(("mod", x, _int(k)), "!=", _int(k), constraints),
        Claim(("add", ("min", x, lhs), ("max", x, lhs)), "==", ("add", x, lhs), constraints),
    ]
    return rng.choice(forms)


_SYMSHAPE_OPS: dict[str, Any] = {}


def symshape_ops() -> dict[str, Any]:
    """Binary operations of symshape for :func:`build`."""
    return dict(OPS)


__all__ = [
    "Claim", "Z3Oracle", "brute_force", "build", "check_valuation", "claim_holds",
    "constraints_hold", "evaluate", "links_of", "random_claim", "random_constraints",
    "random_tree", "render", "scope_vars", "symshape_ops",
]
