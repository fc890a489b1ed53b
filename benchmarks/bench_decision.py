"""The decision procedure, side by side with JAX's, on generated claims.

Run: ``python benchmarks/bench_decision.py [--quick] [--n N] [--seed S]
[--per-family M] [--limit SECONDS]`` (exit status 1 if any answer is wrong).

Each claim (``lhs op rhs`` under a few constraints, drawn by the same
generator as the soundness tests, ``tests/support/oracle.py``) is built in a fresh
scope of each library with the operator API, then decided with ``>=``-style
comparisons: ``x >= y`` (and ``> <= <``) directly; ``x == y`` as
``x >= y and x <= y`` (refuted if either is refuted); ``x != y`` as
``x > y or x < y`` (refuted if ``x >= y and x <= y``).  An undecided
comparison raises ``InconclusiveDimensionOperation`` in both libraries.  (JAX's
own ``==`` answers ``False`` whenever the canonical forms differ, which is not
a decision, so it is not used.)

Ground truth comes from brute force over small valuations and z3 (Python floor
semantics written out): *valid* (holds everywhere), *unsat* (fails everywhere),
*contingent*.  A wrong answer is a proof of a claim that is not valid, or a
refutation of a claim that is not unsat.

Times are per claim: the first decision in a fresh scope (building the
expressions is not timed), and the median of repeats of the same decision
(cached).

A second table runs a family-tagged corpus (``FAMILIES`` below: products,
symbolic divisors, clamp chains ``min(max(x, a), b)`` 5-30 levels deep, chains
of 20 constraints over 6-10 variables, ML shape facts, big constants, deep
nesting, and families of true claims symshape should prove: nested floordiv,
``(p + q)^2 >= 4*p*q``, ``p^2 + q^2 >= 2*p*q``, monotonicity of floordiv,
``max(m, f)*min(m, f) == m*f``).  Each query there is one-off and timed whole:
scope, building both sides with the operators, deciding (JAX and symshape),
and ``symshape.prove`` from the claim's text.  Ground truth there evaluates the
claim's trees directly (numpy) over small valuations when there are at most 5
variables, then asks z3 (timeouts: unknown); a proof with a counterexample, a
refutation with a witness, or an answer z3 contradicts is wrong.  Every
symshape query over 1 s is flagged.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import random
import re
import signal
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from _harness import compare_op, fmt_time  # noqa: E402
from support.exprgen import jax_ops  # noqa: E402
from support.ml_families import ML_FAMILIES, renamed  # noqa: E402
from support.oracle import (  # noqa: E402
    Claim,
    Z3Oracle,
    brute_force,
    build,
    constraints_hold,
    evaluate,
    links_of,
    random_claim,
    random_constraints,
    random_tree,
    symshape_ops,
)

import symshape  # noqa: E402

Decide = Callable[[], str]  # "proved" / "refuted" / "inconclusive"


def _decision(cmp: Callable[[Any, Any, str], bool], inconclusive: type[BaseException],
              x: Any, op: str, y: Any) -> str:
    def ge(u: Any, v: Any, o: str) -> bool | None:
        try:
            return cmp(u, v, o)
        except inconclusive:
            return None

    if op in (">=", ">", "<=", "<"):
        r = ge(x, y, op)
        return "inconclusive" if r is None else ("proved" if r else "refuted")
    a, b = ge(x, y, ">="), ge(x, y, "<=")
    if op == "==":
        if a is False or b is False:
            return "refuted"
        return "proved" if a and b else "inconclusive"
    # "!="
    if a and b:
        return "refuted"
    if a is False or b is False or ge(x, y, ">") or ge(x, y, "<"):
        return "proved"
    return "inconclusive"


_cmp = compare_op


def symshape_case(c: Claim) -> Decide | None:
    """A decision closure over freshly built symshape expressions."""
    try:
        scope = symshape.SymbolicScope(c.constraints)
        ops = symshape_ops()
        x = build(c.lhs, scope.var, ops)
        y = build(c.rhs, scope.var, ops)
    except symshape.SymshapeError:
        return None
    if not isinstance(x, symshape.DimExpr) and not isinstance(y, symshape.DimExpr):
        return None
    inc = symshape.InconclusiveDimensionOperation
    return lambda: _decision(_cmp, inc, x, c.op, y)


def jax_case(c: Claim) -> Decide | None:
    """The same with ``jax.export.symbolic_shape`` (None if JAX cannot build it)."""
    from jax import export
    from jax._src import core as jcore
    inc = jcore.InconclusiveDimensionOperation
    try:
        dims = export.symbolic_shape("a, b, c, d", constraints=c.constraints)
        env = dict(zip("abcd", dims, strict=True))
        ops = {"add": lambda u, v: u + v, "sub": lambda u, v: u - v,
               "mul": lambda u, v: u * v, "floordiv": lambda u, v: u // v,
               "mod": lambda u, v: u % v, "max": jcore.max_dim, "min": jcore.min_dim}
        x = build(c.lhs, env.__getitem__, ops)
        y = build(c.rhs, env.__getitem__, ops)
    except Exception:  # noqa: BLE001 - JAX raises many types for what it cannot build
        return None
    if isinstance(x, int) and isinstance(y, int):
        return None
    return lambda: _decision(_cmp, inc, x, c.op, y)


def label(c: Claim) -> str:
    """Ground truth: valid, unsat, contingent or unknown."""
    scope = symshape.SymbolicScope(c.constraints)
    links = links_of(c.text, scope)
    wit, cex = brute_force(scope, links, 6)
    if wit is not None and cex is not None:
        return "contingent"
    z = Z3Oracle(scope, timeout_ms=3000)
    if cex is None:
        v = z.valid(links)
        if v:
            return "valid"
        if v is False and wit is not None:
            return "contingent"
    if wit is None:
        s = z.satisfiable(links)
        if s is False:
            return "unsat"
        if s and cex is not None:
            return "contingent"
    if wit is not None and cex is None and z.valid(links) is False:
        return "contingent"
    return "unknown"


def timed(fn: Decide) -> tuple[str, float]:
    t0 = time.perf_counter()
    r = fn()
    return r, time.perf_counter() - t0


def repeat_time(fn: Decide, n: int = 20) -> float:
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n


def wrong(answer: str, truth: str) -> bool:
    return (answer == "proved" and truth in ("unsat", "contingent")) or \
        (answer == "refuted" and truth in ("valid", "contingent"))


def fmt(us: float) -> str:
    return f"{us * 1e6:9.1f} us"

# ---------------------------------------------------------------------------
# The family-tagged corpus

Tree = tuple[Any, ...]


def _v(name: str) -> Tree:
    return ("var", name)


def _k(k: int) -> Tree:
    return ("int", k)


def _op(kind: str, *args: Tree) -> Tree:
    """A binary node; more than two arguments fold to the left."""
    out = args[0]
    for a in args[1:]:
        out = (kind, out, a)
    return out


def _grid(names: Sequence[str], hi: int) -> dict[str, Any]:
    g = np.array(list(itertools.product(range(1, hi + 1), repeat=len(names))), dtype=np.int64)
    return {n: g[:, i] for i, n in enumerate(names)}


def _values(t: Tree, env: dict[str, Any], size: int) -> Any:
    return np.broadcast_to(np.asarray(evaluate(t, env)), (size,))


def _tight(rng: random.Random, names: Sequence[str], lhs: Tree, rhs: Tree,
           constraints: Sequence[str]) -> Claim:
    """``lhs >= rhs + k`` (or ``<=``) with ``k`` the extreme of ``lhs - rhs`` over
    small valuations, sometimes one off: often true and tight."""
    hi = 6 if len(names) <= 4 else 4
    vals = _values(("sub", lhs, rhs), _grid(names, hi), hi ** len(names))
    if rng.random() < 0.6:
        k = int(vals.min()) - rng.choice((0, 0, 0, 1))
        return Claim(lhs, ">=", _op("add", rhs, _k(k)), tuple(constraints))
    k = int(vals.max()) + rng.choice((0, 0, 1))
    return Claim(lhs, "<=", _op("add", rhs, _k(k)), tuple(constraints))


def _names(rng: random.Random, lo: int, hi: int) -> tuple[str, ...]:
    return ("a", "b", "c", "d")[: rng.randint(lo, hi)]


def _lin(rng: random.Random, names: Sequence[str]) -> Tree:
    """A small positive linear form: ``x``, ``2*x``, ``x + k``, ``x + y``."""
    x, y = _v(rng.choice(names)), _v(rng.choice(names))
    return rng.choice((x, x, _op("mul", _k(2), x), _op("add", x, _k(rng.randint(1, 3))),
                       _op("add", x, y)))


def _divisor(rng: random.Random, names: Sequence[str]) -> Tree:
    """A divisor >= 1 at every valuation: constants, variables, sums, products."""
    x, y = _v(rng.choice(names)), _v(rng.choice(names))
    return rng.choice((x, x, _op("add", x, _k(rng.randint(1, 3))), _op("mul", x, y),
                       _op("mul", _k(2), x), _k(rng.choice((2, 3, 8)))))


def fam_products(rng: random.Random) -> Claim:
    names = _names(rng, 2, 3)
    cons = random_constraints(rng, names)
    lhs = _op("mul", *[_lin(rng, names) for _ in range(rng.randint(2, 3))])
    if rng.random() < 0.3:
        return Claim(lhs, rng.choice((">=", "<=", "==", ">")), random_tree(rng, names, 2),
                     tuple(cons))
    rhs = rng.choice((_k(0), _lin(rng, names), _op("mul", _lin(rng, names), _lin(rng, names))))
    return _tight(rng, names, lhs, rhs, cons)


def fam_symbolic_divisors(rng: random.Random) -> Claim:
    names = _names(rng, 2, 4)
    cons = tuple(random_constraints(rng, names))
    x, d = random_tree(rng, names, 2, allow_mul=False), _divisor(rng, names)
    fd, md = ("floordiv", x, d), ("mod", x, d)
    r = rng.random()
    if r < 0.2:
        return Claim(_op("add", _op("mul", d, fd), md), "==", x, cons)
    if r < 0.3:
        return Claim(md, "<", d, cons)
    if r < 0.4:
        return Claim(("floordiv", _op("add", x, d), d), "==", _op("add", fd, _k(1)), cons)
    return _tight(rng, names, rng.choice((fd, md, _op("add", fd, md))),
                  rng.choice((_k(0), random_tree(rng, names, 1, allow_mul=False))), cons)


def fam_clamp_chain(rng: random.Random) -> Claim:
    """``min(max(... min(max(h, lo1), hi1) ..., lo_n), hi_n)``, 5-30 levels."""
    names = ("h", "w", "a", "b")
    e: Tree = _v("h")
    los: list[Tree] = []
    his: list[Tree] = []
    for _ in range(rng.randint(5, 30)):
        lo = rng.choice((_v("a"), _v("w"), _k(rng.randint(1, 8))))
        hi = rng.choice((_v("b"), _v("w"), _k(rng.randint(16, 4096))))
        los.append(lo)
        his.append(hi)
        e = ("min", ("max", e, lo), hi)
    cons = ("a <= b",) if rng.random() < 0.5 else ()
    r = rng.random()
    if r < 0.3:
        return Claim(e, "<=", _op("max", _v("h"), *dict.fromkeys(his)), cons)
    if r < 0.5:
        return Claim(e, ">=", _op("min", _v("h"), *dict.fromkeys(los)), cons)
    if r < 0.6:
        return Claim(e, ">=", _k(1), cons)
    return Claim(e, rng.choice((">=", "<=", "==")),
                 rng.choice((_v("h"), los[-1], his[-1], _v(rng.choice(names)))), cons)


def fam_chain20(rng: random.Random) -> Claim:
    """20 constraints over 6-10 variables: an ordering chain with offsets, bounds,
    shortcuts and divisibility; claims follow (or just miss) from the chain."""
    nv = rng.randint(6, 10)
    v = [f"x{i}" for i in range(nv)]
    offs = [rng.choice((0, 1, 2, 8)) for _ in range(nv - 1)]
    cons = [f"{v[i]} >= {v[i + 1]} + {offs[i]}" if offs[i] else f"{v[i]} >= {v[i + 1]}"
            for i in range(nv - 1)]
    cons += [f"{v[-1]} >= {rng.choice((1, 2, 16))}", f"{v[0]} <= {rng.choice((4096, 8192))}"]
    mods: set[int] = set()
    while len(cons) < 20:
        i, j = sorted(rng.sample(range(nv), 2))
        r = rng.random()
        if r < 0.4:
            c = f"{v[i]} + {v[j]} <= {rng.choice((8192, 16384))}"
        elif r < 0.6 and i not in mods:
            mods.add(i)
            c = f"mod({v[i]}, {rng.choice((2, 4, 8))}) == 0"
        elif r < 0.8:
            c = f"2*{v[i]} >= {v[j]} + {v[-1]}"
        else:
            c = f"{v[j]} <= {rng.choice((2048, 4096))}"
        if c not in cons:
            cons.append(c)
    i, j = sorted(rng.sample(range(nv), 2))
    gap = sum(offs[i:j])
    r = rng.random()
    if r < 0.35:
        return Claim(_v(v[i]), ">=", _op("add", _v(v[j]), _k(gap + rng.choice((0, 0, 1)))),
                     tuple(cons))
    if r < 0.5:
        return Claim(_v(v[j]), ">", _v(v[i]), tuple(cons))
    if r < 0.7:
        return Claim(("floordiv", _v(v[i]), _k(8)), ">=", ("floordiv", _v(v[j]), _k(8)),
                     tuple(cons))
    k = rng.randrange(nv)
    return Claim(_op("add", _v(v[i]), _v(v[j])), ">=",
                 _op("add", _op("mul", _k(2), _v(v[max(j, k)])), _k(gap)), tuple(cons))


def fam_ml_facts(rng: random.Random) -> Claim:
    """Shape facts of ML code (convolutions, padding, reshapes, heads), some
    perturbed by one so that they fail."""
    k = rng.choice((2, 3, 4, 8, 16, 32, 64, 128))
    b, s, h, kk, p, t = (_v(n) for n in ("b", "s", "h", "k", "p", "t"))
    forms: list[tuple[Tree, str, Tree, tuple[str, ...]]] = [
        (_op("add", ("floordiv", _op("sub", _op("add", h, _op("mul", _k(2), p)), kk), t),
             _k(1)), ">=", _k(1), ("h >= k",)),
        (_op("mul", ("floordiv", _op("add", s, _k(k - 1)), _k(k)), _k(k)), ">=", s, ()),
        (_op("sub", _op("mul", ("floordiv", _op("add", s, _k(k - 1)), _k(k)), _k(k)), s),
         "<=", _k(k - 1), ()),
        (s, "==", _op("mul", _k(k), ("floordiv", s, _k(k))), (f"mod(s, {k}) == 0",)),
        (s, ">=", _k(k), (f"mod(s, {k}) == 0",)),
        (("floordiv", _op("mul", b, s), s), "==", b, ()),
        (("mod", _op("mul", b, s), s), "==", _k(0), ()),
        (h, "==", _op("mul", kk, ("floordiv", h, kk)), ("mod(h, k) == 0",)),
        (_op("add", ("floordiv", h, _k(2)), ("floordiv", _op("add", h, _k(1)), _k(2))), "==",
         h, ()),
        (_op("mul", b, _op("mul", ("floordiv", s, _k(2)), _k(2))), "<=", _op("mul", b, s), ()),
        (("max", b, _k(1)), "==", b, ()),
        (("min", s, _k(4096)), "<=", s, ("s <= 8192",)),
        (_op("mul", b, _op("mul", s, h)), ">=", _op("mul", _k(k), b),
         (f"s >= {k}", "h >= 1")),
    ]
    lhs, op, rhs, cons = rng.choice(forms)
    if rng.random() < 0.3:  # perturbed by one: usually false somewhere
        rhs = _op("add", rhs, _k(rng.choice((-1, 1))))
    return Claim(lhs, op, rhs, cons)


#: At most this many claims that JAX decides and symshape does not are listed.
ONLY_JAX_SHOWN = 10

BIG = (2 ** 31, 2 ** 32 + 1, 10 ** 9 + 7, 2 ** 40)


def fam_big_constants(rng: random.Random) -> Claim:
    names = _names(rng, 1, 3)
    c = rng.choice(BIG)
    a, x = _v(names[0]), random_tree(rng, names, 1, allow_mul=False)
    cons: tuple[str, ...] = ((f"{names[0]} <= {2 * c}",) if rng.random() < 0.5 else ())
    r = rng.random()
    if r < 0.2:
        return Claim(("floordiv", _op("add", _op("mul", a, _k(c)), x), _k(c)), ">=",
                     _op("sub", a, _k(rng.choice((0, 1, 8)))), cons)
    if r < 0.35:
        return Claim(("mod", _op("mul", a, _k(c)), _k(c)), "==", _k(0), cons)
    if r < 0.5:
        return Claim(("floordiv", a, _k(c)), "<=", _k(rng.choice((0, 1, 2))), cons)
    return _tight(rng, names, _op("add", _op("mul", _k(c), a), x), _k(0), cons)


def fam_deep_nesting(rng: random.Random) -> Claim:
    names = _names(rng, 2, 3)
    lhs = random_tree(rng, names, rng.randint(5, 7))
    return _tight(rng, names, lhs, rng.choice((_k(0), random_tree(rng, names, 2))),
                  random_constraints(rng, names))


def fam_div_of_div(rng: random.Random) -> Claim:
    """``floordiv(floordiv(x, y), z) == floordiv(x, y*z)`` (true for y, z >= 1)."""
    names = _names(rng, 2, 4)
    x = rng.choice((_v(rng.choice(names)), _lin(rng, names), random_tree(rng, names, 1)))
    y, z = _divisor(rng, names), _divisor(rng, names)
    return Claim(("floordiv", ("floordiv", x, y), z), "==", ("floordiv", x, _op("mul", y, z)),
                 ())


def fam_amgm(rng: random.Random) -> Claim:
    """``(p + q)^2 >= 4*p*q``."""
    names = _names(rng, 2, 3)
    p, q = _lin(rng, names), _lin(rng, names)
    pq = _op("add", p, q)
    return Claim(_op("mul", pq, pq), ">=", _op("mul", _k(4), _op("mul", p, q)), ())


def fam_sum_squares(rng: random.Random) -> Claim:
    """``p^2 + q^2 >= 2*p*q``."""
    names = _names(rng, 2, 3)
    p, q = _lin(rng, names), _lin(rng, names)
    return Claim(_op("add", _op("mul", p, p), _op("mul", q, q)), ">=",
                 _op("mul", _k(2), _op("mul", p, q)), ())


def fam_floordiv_monotone(rng: random.Random) -> Claim:
    """``floordiv(x, d) <= floordiv(y, d)`` under ``y >= x + k``."""
    x, y = rng.sample(("a", "b", "c"), 2)
    d = rng.choice((_v("d"), _op("add", _v("d"), _k(1)), _k(rng.choice((2, 8, 128)))))
    k = rng.choice((0, 0, 1, 5))
    cons = (f"{y} >= {x} + {k}" if k else f"{y} >= {x}",)
    if rng.random() < 0.3:
        return Claim(("floordiv", _op("add", _v(x), _k(k)), d), "<=", ("floordiv", _v(y), d),
                     cons)
    return Claim(("floordiv", _v(x), d), "<=", ("floordiv", _v(y), d), cons)


def fam_maxmin_product(rng: random.Random) -> Claim:
    """``max(m, f)*min(m, f) == m*f``."""
    names = _names(rng, 2, 3)
    m, f = _lin(rng, names), _lin(rng, names)
    return Claim(_op("mul", ("max", m, f), ("min", m, f)), "==", _op("mul", m, f), ())


FAMILIES: dict[str, Callable[[random.Random], Claim]] = {
    "mixed (oracle)": random_claim,
    "products": fam_products,
    "symbolic divisors": fam_symbolic_divisors,
    "clamp chains 5-30": fam_clamp_chain,
    "20-constraint chains": fam_chain20,
    "ML shape facts": fam_ml_facts,
    "big constants": fam_big_constants,
    "deep nesting": fam_deep_nesting,
    "T: floordiv(floordiv)": fam_div_of_div,
    "T: (p+q)^2 >= 4pq": fam_amgm,
    "T: p^2+q^2 >= 2pq": fam_sum_squares,
    "T: floordiv monotone": fam_floordiv_monotone,
    "T: max*min == m*f": fam_maxmin_product,
    **ML_FAMILIES,
}
"""Family name -> generator of one claim; "T:" marks families of true claims.
Every claim drawn is renamed (fresh random variable names, see
``tests/support/ml_families.py``), so no family's rate depends on names."""

_IDENT = re.compile(r"\b(?!max\b|min\b|mod\b|floordiv\b)([A-Za-z_]\w*)\b")


def claim_names(c: Claim) -> list[str]:
    """The variables of a claim's trees and constraints, sorted."""
    names: set[str] = set()

    def walk(t: Tree) -> None:
        if t[0] == "var":
            names.add(t[1])
        elif t[0] != "int":
            walk(t[1])
            walk(t[2])
    walk(c.lhs)
    walk(c.rhs)
    for text in c.constraints:
        names |= set(_IDENT.findall(text))
    return sorted(names)


class TimedOut(Exception):
    """A query or a ground-truth computation past its time limit."""


def _alarm(signum: int, frame: Any) -> None:
    raise TimedOut


def limited(fn: Callable[[], Any], limit: float) -> tuple[Any, float]:
    """``(fn(), seconds)``, or ``("timeout", limit)`` / ``("error: X", s)``."""
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    t0 = time.perf_counter()
    try:
        out = fn()
    except TimedOut:
        return "timeout", time.perf_counter() - t0
    except Exception as e:  # noqa: BLE001 - counted and reported
        return f"error: {type(e).__name__}", time.perf_counter() - t0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return out, time.perf_counter() - t0


def family_symshape(c: Claim) -> str:
    """One-off: scope, both sides with the operators, decision."""
    scope = symshape.SymbolicScope(list(c.constraints))
    ops = symshape_ops()
    x, y = build(c.lhs, scope.var, ops), build(c.rhs, scope.var, ops)
    return _decision(_cmp, symshape.InconclusiveDimensionOperation, x, c.op, y)


def family_prove(c: Claim) -> str:
    """One-off ``symshape.prove`` from the claim's text."""
    return str(symshape.prove(c.text, constraints=list(c.constraints)).status)


_CHAIN = re.compile(r"(<=|>=|==)")


def family_jax(c: Claim) -> str:
    """One-off with JAX: scope, both sides with the operators, decision."""
    from jax import export
    from jax._src import core as jcore
    names = claim_names(c)
    dims = export.symbolic_shape(", ".join(names), constraints=list(c.constraints))
    env = dict(zip(names, dims, strict=True))
    ops = jax_ops(jcore)
    x, y = build(c.lhs, env.__getitem__, ops), build(c.rhs, env.__getitem__, ops)
    return _decision(_cmp, jcore.InconclusiveDimensionOperation, x, c.op, y)


class Truth:
    """What is known of a claim: a valuation where it holds / fails (small
    valuations, direct evaluation), and z3's validity / satisfiability."""

    def __init__(self, wit: bool = False, cex: bool = False, valid: bool | None = None,
                 sat: bool | None = None) -> None:
        self.wit, self.cex, self.valid, self.sat = wit, cex, valid, sat

    @property
    def label(self) -> str:
        if (self.wit or self.sat) and (self.cex or self.valid is False):
            return "contingent"
        if self.valid:
            return "valid"
        if self.sat is False:
            return "unsat"
        return "unknown"

    def wrong(self, answer: str) -> bool:
        """Is ``answer`` contradicted?  (``inconclusive`` from ``prove`` shows a
        witness and a counterexample: wrong for a valid or an unsat claim.)"""
        if answer == "proved":
            return self.cex or self.valid is False
        if answer == "refuted":
            return self.wit or self.sat is True
        if answer == "shown":
            return self.valid is True or self.sat is False
        return False


def _holds(op: str, x: Any, y: Any) -> Any:
    return {">=": x >= y, ">": x > y, "<=": x <= y, "<": x < y, "==": x == y,
            "!=": x != y}[op]


def family_truth(c: Claim, limit: float) -> Truth:
    """Ground truth of a claim of the family corpus (see the module's docstring)."""
    t = Truth()
    names = claim_names(c)
    scope = symshape.SymbolicScope(list(c.constraints))
    if len(names) <= 5:
        hi = 6 if len(names) <= 4 else 5
        env = _grid(names, hi)
        size = hi ** len(names)
        ok = np.broadcast_to(np.asarray(constraints_hold(scope, env)), (size,))
        holds = np.broadcast_to(np.asarray(_holds(c.op, evaluate(c.lhs, env),
                                                  evaluate(c.rhs, env))), (size,))
        t.wit, t.cex = bool(np.any(ok & holds)), bool(np.any(ok & ~holds))
        if t.wit and t.cex:
            return t

    def ask() -> tuple[bool | None, bool | None]:
        links = links_of(c.text, scope)
        z = Z3Oracle(scope, timeout_ms=3000)
        return (None if t.cex else z.valid(links)), (None if t.wit else z.satisfiable(links))
    res, _ = limited(ask, limit)
    if isinstance(res, tuple):
        t.valid, t.sat = res
    return t


def _rate(got: int, n: int) -> str:
    return f"{got}/{n} ({100 * got / n:.0f}%)" if n else "-"


def run_families(per_family: int, seed: int, have_jax: bool, limit: float) -> int:
    """The family table; returns the number of wrong answers."""
    libs: dict[str, Callable[[Claim], str]] = {"symshape": family_symshape,
                                               "prove": family_prove}
    if have_jax:
        libs["jax"] = family_jax
    print(f"\nfamily corpus: {per_family} claims per family (seed {seed}), one-off queries "
          f"(scope + build + decide), {limit:g} s limit per query")
    t_start = time.perf_counter()
    rows: list[tuple[str, Claim, dict[str, tuple[str, float]]]] = []
    for fam, gen in FAMILIES.items():
        rng = random.Random(f"{seed}:{fam}")
        made = 0
        while made < per_family:
            drawn = gen(rng)
            c = renamed(drawn, rng, claim_names(drawn))
            try:  # contradictory generated constraints: not a query
                symshape.SymbolicScope(list(c.constraints))
            except symshape.UnsatisfiableConstraintsError:
                continue
            made += 1
            res = {lib: limited(functools.partial(fn, c), limit) for lib, fn in libs.items()}
            if res["symshape"][0].startswith("error") or res["prove"][0].startswith("error"):
                print(f"  !! symshape failed on {c.text} under {list(c.constraints)}: "
                      f"{res['symshape'][0]} / {res['prove'][0]}")
            rows.append((fam, c, res))
    truths = [family_truth(c, 4 * limit) for _, c, _ in rows]
    head = (f"{'family':23}{'n':>4} {'valid/unsat/cont/unk':>21}  "
            + "".join(f"{lib + ' P/R/U':>17}" for lib in libs)
            + f"{'wrong':>9}  " + "".join(f"{'max ' + lib:>13}" for lib in libs))
    print(head)
    print("-" * len(head))
    total_wrong = 0
    slow: list[str] = []
    summary: dict[str, list[int]] = {lib: [0, 0] for lib in libs}
    rates: dict[str, dict[str, tuple[int, int]]] = {lib: {} for lib in libs}
    for fam in FAMILIES:
        idx = [i for i, (f, _, _) in enumerate(rows) if f == fam]
        labels = [truths[i].label for i in idx]
        line = (f"{fam:23}{len(idx):4d} " + "{:>21}  ".format(
            "/".join(str(labels.count(k)) for k in ("valid", "unsat", "contingent", "unknown"))))
        wrong_n = []
        for lib in libs:
            ans = [rows[i][2][lib][0] for i in idx]
            p, r = ans.count("proved"), ans.count("refuted")
            shown = ans.count("inconclusive") if lib == "prove" else 0
            other = len(ans) - p - r - shown
            cell = f"{p}/{r}/{other}" + (f" +{shown}C" if lib == "prove" else "")
            line += f"{cell:>17}"
            w = 0
            for i in idx:
                a = rows[i][2][lib][0]
                a = "shown" if (lib == "prove" and a == "inconclusive") else a
                if truths[i].wrong(a):
                    w += 1
                    print(f"  !! WRONG ({lib}): {a} for {rows[i][1].text} under "
                          f"{list(rows[i][1].constraints)}, truth {truths[i].label}")
            wrong_n.append(w)
            summary[lib][0] += p + r
            summary[lib][1] += len(ans)
            decidable = [i for i in idx if truths[i].label in ("valid", "unsat")]
            got = sum(rows[i][2][lib][0] == ("proved" if truths[i].label == "valid"
                                             else "refuted") for i in decidable)
            rates[lib][fam] = (got, len(decidable))
        total_wrong += sum(wrong_n)
        line += f"{'/'.join(map(str, wrong_n)):>9}  "
        for lib in libs:
            took = {i: rows[i][2][lib][1] for i in idx}
            i_max = max(took, key=took.__getitem__)
            a_max, dt = rows[i_max][2][lib]
            line += f"{fmt_time(dt):>13}"
            if lib != "jax" and (dt > 1.0 or a_max == "timeout"):
                slow.append(f"{lib} {dt:.2f} s ({a_max}) [{fam}]: {rows[i_max][1].text[:160]}")
        print(line)
    not_proved = [(fam, c, res["prove"][0]) for fam, c, res in rows
                  if fam.startswith("T:") and res["prove"][0] != "proved"]
    for fam, c, a in not_proved[:8]:
        print(f"  true claim not proved by prove ({a}) [{fam}]: {c.text}")
    print("(P/R/U: proved / refuted / other (undecided, timeout, not buildable); +C: shown "
          "contingent by prove; wrong: " + "/".join(libs) + ")")
    print("decided (proved + refuted): " + ", ".join(
        f"{lib} {d}/{n} ({100 * d / max(n, 1):.0f}%)" for lib, (d, n) in summary.items()))
    print("\ndecided of the decidable claims (valid or unsat), per family:")
    print(f"{'family':26}" + "".join(f"{lib:>16}" for lib in libs))
    for fam in FAMILIES:
        print(f"{fam:26}" + "".join(
            f"{_rate(*rates[lib].get(fam, (0, 0))):>16}" for lib in libs))
    print(f"{'overall':26}" + "".join("{:>16}".format(_rate(
        sum(g for g, _ in rates[lib].values()), sum(n for _, n in rates[lib].values())))
        for lib in libs))
    print("timeouts: " + ", ".join(
        f"{lib} {sum(res[lib][0] == 'timeout' for _, _, res in rows)}" for lib in libs)
          + "; not buildable: " + ", ".join(
        f"{lib} {sum(res[lib][0].startswith('error') for _, _, res in rows)}" for lib in libs))
    if slow:
        print("!! symshape queries over 1 s:")
        for line in slow:
            print("!!   " + line)
    else:
        print("every symshape query finished under 1 s")
    print(f"wrong answers: {total_wrong}  (family corpus wall time "
          f"{time.perf_counter() - t_start:.1f} s)")
    return total_wrong



def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true",
                    help="300 claims and 12 per family instead of 3000 and 60")
    ap.add_argument("--n", type=int, default=None, help="number of generated claims")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--per-family", type=int, default=None,
                    help="claims per family of the family corpus (0: skip it)")
    ap.add_argument("--limit", type=float, default=None,
                    help="seconds per family query (default 10, 3 with --quick)")
    args = ap.parse_args(argv)
    per_family = args.per_family if args.per_family is not None else (12 if args.quick else 60)
    limit = args.limit if args.limit is not None else (3.0 if args.quick else 10.0)
    n = args.n if args.n is not None else (300 if args.quick else 3000)
    try:
        import jax  # noqa: F401
        have_jax = True
    except ImportError:
        have_jax = False
        print("jax is not installed: symshape only")

    wrong_total = run_claims(n, args.seed, have_jax) if n else 0
    if per_family:
        wrong_total += run_families(per_family, args.seed, have_jax, limit)
    return 1 if wrong_total else 0


def run_claims(n: int, seed: int, have_jax: bool) -> int:
    """The table of generated claims; returns the number of wrong answers."""
    rng = random.Random(seed)
    rows: dict[str, dict[str, Any]] = {
        lib: {"times": [], "cached": [], "proved": 0, "refuted": 0, "inconclusive": 0,
              "wrong": 0, "answers": []}
        for lib in (("symshape", "jax") if have_jax else ("symshape",))}
    t_start = time.perf_counter()
    # 1. claims that both libraries can build
    claims: list[Claim] = []
    while len(claims) < n:
        c = random_claim(rng)
        if symshape_case(c) is None or (have_jax and jax_case(c) is None):
            continue
        claims.append(c)
    # 2. timing (ground truth is computed afterwards: running z3 between the
    # timed calls would disturb them)
    for c in claims:
        for lib, make in (("symshape", symshape_case), ("jax", jax_case)):
            if lib not in rows:
                continue
            fn = make(c)
            assert fn is not None
            r, dt = timed(fn)
            row = rows[lib]
            row["times"].append(dt)
            row["cached"].append(repeat_time(fn, 5))
            row[r] += 1
            row["answers"].append(r)
    # 3. ground truth
    truths = [label(c) for c in claims]
    n_used = len(claims)
    for row in rows.values():
        row["wrong"] = sum(wrong(r, t) for r, t in zip(row["answers"], truths, strict=True))
    superset_miss = extra = 0
    only_jax: list[str] = []  # the claims JAX decides and symshape does not
    if have_jax:
        for c, rs, rj in zip(claims, rows["symshape"]["answers"], rows["jax"]["answers"],
                             strict=True):
            superset_miss += rj != "inconclusive" and rs == "inconclusive"
            extra += rj == "inconclusive" and rs != "inconclusive"
            if rj != "inconclusive" and rs == "inconclusive":
                only_jax.append(f"{rj} by JAX: {c.text}  (constraints: "
                                f"{'; '.join(c.constraints) or 'none'})")

    print(f"{n_used} claims (seed {seed}); ground truth: "
          + ", ".join(f"{k} {truths.count(k)}" for k in ("valid", "unsat", "contingent",
                                                          "unknown")))
    head = (f"{'library':10} {'proved':>7} {'refuted':>8} {'inconcl.':>9} {'wrong':>6} "
            f"{'median':>12} {'p90':>12} {'cached med.':>12}")
    print(head)
    print("-" * len(head))
    for lib, row in rows.items():
        ts = sorted(row["times"])
        med = statistics.median(ts)
        p90 = ts[int(0.9 * (len(ts) - 1))]
        cached = statistics.median(row["cached"])
        print(f"{lib:10} {row['proved']:7d} {row['refuted']:8d} {row['inconclusive']:9d} "
              f"{row['wrong']:6d} {fmt(med):>12} {fmt(p90):>12} {fmt(cached):>12}")
    if have_jax:
        s_med = statistics.median(rows["symshape"]["times"])
        j_med = statistics.median(rows["jax"]["times"])
        print(f"\nmedian speed-up (JAX / symshape): {j_med / s_med:.1f}x")
        print(f"decided by JAX but not by symshape: {superset_miss}")
        for line in only_jax[:ONLY_JAX_SHOWN]:
            print(f"  {line}")
        print(f"decided by symshape but not by JAX: {extra}")
    print(f"(total wall time {time.perf_counter() - t_start:.1f} s, including ground truth)")
    return sum(row["wrong"] for row in rows.values())


if __name__ == "__main__":
    raise SystemExit(main())
