"""The cold path, symshape beside JAX: first-sight queries, scope creation, scaling.

Run: ``python benchmarks/bench_coldpath.py [--quick] [--per-family N] [--rounds R]
[--seed S] [--only sight,scope,cold,scaling]`` (the default runs ``sight,scope,cold``;
``scaling`` takes several minutes more).

A one-off ``symshape prove`` and a fresh ``jax.export`` stand where no text has
been seen before, so this measures first sight, and shows what caches keyed by
text give only beside it, labelled as cached.  Sections, each printed as it
runs, then a summary:

1. **First-sight queries.**  Families of generated claims (linear,
   floordiv/mod, max/min, products, symbolic divisors, long chains of
   constraints, ML shape facts, big constants and long sums, deep nests),
   drawn from seeded generators, every claim in text that both parsers accept.
   Each query runs in ``--rounds`` rounds, each library in turn (the order
   alternates), and every call renames the query's variables consistently
   (``x`` -> ``x_17``, a new suffix per call), so no text is ever seen twice in
   the process:

   * JAX: ``jax.export.symbolic_shape("<variables>", constraints=cs)`` for a
     fresh scope, ``jax.export.symbolic_shape("lhs, rhs", scope=...)``, then
     ``>= > <= <`` (``==`` as ``>=`` and ``<=``), its
     ``InconclusiveDimensionOperation`` meaning "gave up";
   * ``symshape.prove("lhs op rhs", constraints=cs)``;
   * symshape's operators: ``symshape.symbolic_shape("lhs, rhs",
     constraints=cs)`` and the same comparisons as JAX.

   Every call is a sample; per family: median, p90, p99 and total, the ratios
   JAX / symshape (> 1: symshape is faster), and the time to a decided answer
   beside the time to give up.  Then each query once more with its last
   round's texts: the CACHED figures.  A query that some library rejects or
   runs past the time limit on is dropped (and counted).  Answers are
   compared: a proof in one library against a refutation (or a
   counterexample) in another is a bug and printed loudly, as is an answer
   that changes under renaming.  Last, the cyclic garbage collector's work
   inside each library's calls (``CollectorLedger``): a collection is paid by
   the call that allocates past the threshold, and walks what every library
   left, so wall time carries a cost that one library's instruction counts
   do not show.
2. **Scope creation** from fresh strings with 1-10 constraints:
   ``symshape.SymbolicScope(cs)`` against ``jax.export.SymbolicScope(cs)``,
   the same statistics, and the cached figure (the same texts again) beside.
3. **Cold and warm queries** on 4-8 variable scopes: scope and first
   comparison from strings; the same comparison again on the warm scope; a new
   comparison on the warm scope.
4. **Scaling** (not in the default run): 4-32 variables x 1-1000 constraints
   for scope creation, cold query and warm query, variables renamed at every
   call; JAX cells predicted to take longer than the cap are skipped.
   symshape's growth factors are printed, and a growth from 100 to 1000
   constraints above 15x is flagged as superlinear.
"""

from __future__ import annotations

import argparse
import functools
import gc
import itertools
import math
import random
import re
import signal
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _harness import (  # noqa: E402
    build_label,
    compare,
    compare_op,
    fmt_time,
    ratio,
)

import symshape  # noqa: E402

Answer = str | None  # "T" proved, "F" refuted, "C" shown contingent, None undecided

# ---------------------------------------------------------------------------
# Deciding a comparison with the operator API of either library


_cmp = compare_op


def decide(x: Any, op: str, y: Any, inconclusive: type[BaseException]) -> Answer:
    """``x op y`` with comparisons that raise ``inconclusive`` when undecided
    (``==`` as ``>=`` and ``<=``: refuted if either is refuted)."""
    def one(o: str) -> bool | None:
        try:
            return _cmp(x, y, o)
        except inconclusive:
            return None

    if op == "==":
        ge = one(">=")
        if ge is False:
            return "F"
        le = one("<=")
        if le is False:
            return "F"
        return "T" if ge and le else None
    r = one(op)
    return None if r is None else ("T" if r else "F")


_STATUS: dict[str, Answer] = {"proved": "T", "refuted": "F", "inconclusive": "C",
                              "undecided": None}


def _jax() -> Any | None:
    try:
        from jax import export
    except ImportError:
        return None
    return export


JAX_EXPORT = _jax()
if JAX_EXPORT is not None:
    from jax._src import core as _jcore
    JAX_INCONCLUSIVE: type[BaseException] = _jcore.InconclusiveDimensionOperation
else:  # pragma: no cover - jax is an optional extra
    JAX_INCONCLUSIVE = symshape.InconclusiveDimensionOperation


def jax_scope(spec: str, constraints: Sequence[str]) -> Any:
    """A fresh JAX scope holding ``constraints`` (via the variables' spec)."""
    assert JAX_EXPORT is not None
    dims = JAX_EXPORT.symbolic_shape(spec, constraints=list(constraints))
    return dims[0].scope


def symshape_scope(spec: str, constraints: Sequence[str]) -> Any:
    """The same for symshape."""
    dims: Any = symshape.symbolic_shape(spec, constraints=list(constraints))
    return dims[0].scope


_CHAIN = re.compile(r"(<=|>=|==)")


def jax_constraints(constraints: Sequence[str]) -> list[str]:
    """``constraints`` with every chain ``a <= b <= c`` split into its links
    (JAX's constraint parser takes one comparison per string)."""
    out: list[str] = []
    for c in constraints:
        parts = _CHAIN.split(c)
        if len(parts) <= 3:
            out.append(c)
            continue
        for i in range(0, len(parts) - 2, 2):
            out.append(f"{parts[i].strip()} {parts[i + 1]} {parts[i + 2].strip()}")
    return out


# ---------------------------------------------------------------------------
# 1. The one-off corpus

POOL = ("b", "s", "h", "w", "c", "k", "n", "m", "t", "d", "e", "f")
FAMILIES = ("linear", "div_const", "div_sym", "maxmin", "product", "mixed")

Poly = dict[tuple[str, ...], int]  # monomial (sorted atom texts) -> coefficient


def _padd(p: Poly, q: Poly, k: int = 1) -> Poly:
    out = dict(p)
    for m, c in q.items():
        out[m] = out.get(m, 0) + k * c
        if out[m] == 0:
            del out[m]
    return out


def _pmul(p: Poly, q: Poly) -> Poly:
    out: Poly = {}
    for (m1, c1), (m2, c2) in itertools.product(p.items(), q.items()):
        m = tuple(sorted(m1 + m2))
        out[m] = out.get(m, 0) + c1 * c2
        if out[m] == 0:
            del out[m]
    return out


def render(p: Poly) -> str:
    """A polynomial over atoms as text without parentheses (JAX's parser has no
    grouping parentheses): ``2*h*w - floordiv(s, 128) + 3``."""
    text = ""
    for m, c in sorted(p.items(), key=lambda mc: (len(mc[0]) == 0, mc[0])):
        mag = abs(c)
        body = "*".join(m)
        piece = (f"{mag}*{body}" if mag != 1 else body) if body else str(mag)
        if not text:
            text = ("-" if c < 0 else "") + piece
        else:
            text += (" - " if c < 0 else " + ") + piece
    return text or "0"


class _Gen:
    """Random polynomials over atoms for one family (a seeded ``random.Random``)."""

    def __init__(self, rng: random.Random, names: Sequence[str], family: str) -> None:
        self.rng, self.names, self.family = rng, list(names), family

    def var(self) -> Poly:
        return {(self.rng.choice(self.names),): 1}

    def atom(self, depth: int) -> Poly:
        rng, fam = self.rng, self.family
        if depth <= 0 or rng.random() < 0.35:
            return self.var()
        kinds = {"linear": ("var",), "div_const": ("div", "div", "var"),
                 "div_sym": ("sdiv", "sdiv", "div", "var"), "maxmin": ("mm", "mm", "var"),
                 "product": ("var",),
                 "mixed": ("div", "sdiv", "mm", "var")}[fam]
        kind = rng.choice(kinds)
        if kind == "var":
            return self.var()
        inner = self.expr(depth - 1)
        if kind == "div":
            op = rng.choice(("floordiv", "mod"))
            return {(f"{op}({render(inner)}, {rng.choice((2, 3, 4, 8, 16, 128))})",): 1}
        if kind == "sdiv":
            op = rng.choice(("floordiv", "floordiv", "mod"))
            den = rng.choice(self.names)
            if rng.random() < 0.3:
                den = f"{den} + {rng.randint(1, 3)}"
            return {(f"{op}({render(inner)}, {den})",): 1}
        op = rng.choice(("max", "min"))
        other = self.expr(depth - 1)
        return {(f"{op}({render(inner)}, {render(other)})",): 1}

    def expr(self, depth: int) -> Poly:
        rng = self.rng
        p: Poly = {}
        for _ in range(rng.randint(1, 3 if depth >= 1 else 2)):
            term = self.atom(depth)
            if self.family in ("product", "mixed") and rng.random() < 0.5:
                term = _pmul(term, self.atom(0 if depth <= 1 else 1))
            p = _padd(p, term, rng.choice((1, 1, 1, 2, 3, -1, -2)))
        if rng.random() < 0.5:
            p = _padd(p, {(): rng.randint(-8, 16)})
        return p


def ml_constraints(rng: random.Random, names: Sequence[str], n: int) -> list[str]:
    """``n`` realistic, jointly satisfiable constraints over ``names`` (lower
    bounds <= 32, offsets between variables <= 16 and only from an earlier name
    to a later one, upper bounds >= 512, at most one equality per term)."""
    out: list[str] = []
    eq_lhs: set[str] = set()
    for _ in range(50 * n + 50):
        if len(out) >= n:
            break
        i, j = sorted(rng.sample(range(len(names)), 2)) if len(names) > 1 else (0, 0)
        x, y = names[i], names[j]
        r = rng.randrange(10)
        if r == 0:
            c = f"{x} >= {rng.choice((2, 8, 16, 32))}"
        elif r == 1:
            c = f"{x} <= {rng.choice((512, 1024, 4096, 8192))}"
        elif r == 2:
            k = rng.choice((8, 16, 32, 64, 128))
            lhs = f"mod({x}, {k})"
            if any(e.startswith(f"mod({x},") for e in eq_lhs):
                continue
            eq_lhs.add(lhs)
            c = f"{lhs} == 0"
        elif r == 3 and i != j:
            c = f"{x} >= {y} + {rng.choice((0, 1, 8, 16))}"
        elif r == 4 and i != j:
            c = f"max({x}, {y}) <= {rng.choice((4096, 8192))}"
        elif r == 5:
            c = f"2*{x} + 1 <= {rng.choice((1025, 2049, 4097))}"
        elif r == 6 and i != j:
            c = f"{x} + {y} <= {rng.choice((2048, 8192))}"
        elif r == 7:
            c = f"floordiv({x}, {rng.choice((2, 4, 8))}) >= 1"
        elif r == 8 and i != j:
            c = f"min({x}, {y}) >= {rng.choice((1, 2, 4))}"
        elif r == 9 and i != j:
            c = f"{x} >= {y}"
        else:
            continue
        if c not in out:
            out.append(c)
    return out


@dataclass(frozen=True)
class Query:
    """One one-off query: ``lhs op rhs`` under ``constraints``."""

    family: str
    names: tuple[str, ...]
    lhs: str
    op: str
    rhs: str
    constraints: tuple[str, ...]

    @property
    def claim(self) -> str:
        return f"{self.lhs} {self.op} {self.rhs}"

    @property
    def spec(self) -> str:
        return ", ".join(self.names)


def random_query(rng: random.Random) -> Query:
    """One query of the corpus (family, variables and constraints drawn first)."""
    family = rng.choice(FAMILIES)
    names = tuple(rng.sample(POOL, rng.randint(2, 8)))
    n_cons = rng.choice((0, 0, 0, 1, 2, 3, 4, 5, 6, 8, 10))
    constraints = tuple(ml_constraints(rng, names, n_cons))
    g = _Gen(rng, names, family)
    lhs = g.expr(rng.choice((1, 1, 2)))
    mode = rng.random()
    if mode < 0.4:
        rhs = g.expr(rng.randint(0, 1))
    elif mode < 0.8 and lhs:
        # lhs against a part of itself plus a small constant: often decided.
        part = dict(rng.sample(sorted(lhs.items()), max(1, len(lhs) - 1)))
        rhs = _padd(part, {(): rng.randint(-2, 2)})
    else:
        rhs = {(): rng.randint(-4, 64)}
    op = rng.choice((">=", ">=", ">", "<=", "<", "=="))
    return Query(family, names, render(lhs), op, render(rhs), constraints)


def jax_query(q: Query) -> Callable[[], Answer]:
    """JAX's one-off query: fresh scope from strings, parse, compare."""
    assert JAX_EXPORT is not None
    export, cons = JAX_EXPORT, jax_constraints(q.constraints)
    spec, sides, op = q.spec, f"{q.lhs}, {q.rhs}", q.op

    def run() -> Answer:
        scope = export.symbolic_shape(spec, constraints=cons)[0].scope
        x, y = export.symbolic_shape(sides, scope=scope)
        return decide(x, op, y, JAX_INCONCLUSIVE)
    return run


def prove_query(q: Query) -> Callable[[], Answer]:
    """symshape's one-off query: ``symshape.prove(claim, constraints=...)``."""
    claim, cons = q.claim, list(q.constraints)

    def run() -> Answer:
        return _STATUS[str(symshape.prove(claim, constraints=cons).status)]
    return run


def ops_query(q: Query) -> Callable[[], Answer]:
    """symshape's operator path: ``symbolic_shape("lhs, rhs", constraints=...)``
    and the same comparisons as JAX."""
    cons, sides, op = list(q.constraints), f"{q.lhs}, {q.rhs}", q.op
    inc = symshape.InconclusiveDimensionOperation

    def run() -> Answer:
        x, y = symshape.symbolic_shape(sides, constraints=cons)
        return decide(x, op, y, inc)
    return run




# ---------------------------------------------------------------------------
# 1. First sight: one-off queries whose texts no library has seen before

BIG = (2 ** 31, 2 ** 32 + 1, 10 ** 9 + 7, 2 ** 40, 10 ** 12)
SIGHT_FAMILIES = ("linear", "floordiv/mod", "max/min", "products", "sym. divisors",
                  "long chains", "ML facts", "big", "deep")
"""The families of the first-sight table (the first five drawn by ``_Gen``)."""
_GEN_FAMILY = {"linear": "linear", "floordiv/mod": "div_const", "max/min": "maxmin",
               "products": "product", "sym. divisors": "div_sym"}


def _perturb(rng: random.Random, rhs: str) -> str:
    """``rhs`` moved by one now and then: a true fact becomes (mostly) false."""
    if rng.random() < 0.3:
        return f"{rhs} {rng.choice(('+', '-'))} 1"
    return rhs


def _chain_query(rng: random.Random) -> tuple[tuple[str, ...], str, str, str, list[str]]:
    """An ordering chain with offsets over 6-12 variables, bounds, sums and
    divisibility (10-24 constraints); the claim follows from the chain or just
    misses."""
    nv = rng.randint(6, 12)
    v = [f"x{i}" for i in range(nv)]
    offs = [rng.choice((0, 1, 2, 8)) for _ in range(nv - 1)]
    cons = [f"{v[i]} >= {v[i + 1]} + {offs[i]}" if offs[i] else f"{v[i]} >= {v[i + 1]}"
            for i in range(nv - 1)]
    cons += [f"{v[-1]} >= {rng.choice((1, 2, 16))}", f"{v[0]} <= {rng.choice((4096, 8192))}"]
    mods: set[int] = set()
    for _ in range(rng.randint(2, 12)):
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
        lhs, op, rhs = v[i], ">=", f"{v[j]} + {gap + rng.choice((0, 0, 1))}"
    elif r < 0.5:
        lhs, op, rhs = v[j], ">", v[i]
    elif r < 0.7:
        lhs, op, rhs = f"floordiv({v[i]}, 8)", ">=", f"floordiv({v[j]}, 8)"
    else:
        k = rng.randrange(nv)
        lhs, op, rhs = f"{v[i]} + {v[j]}", ">=", f"2*{v[max(j, k)]} + {gap}"
    return tuple(v), lhs, op, rhs, cons


def _ml_query(rng: random.Random) -> tuple[tuple[str, ...], str, str, str, list[str]]:
    """Shape facts of ML code: convolutions, padding, strides, reshapes, heads,
    some perturbed by one."""
    k = rng.choice((2, 3, 4, 8, 16, 32, 64, 128))
    c = rng.choice((1, 2, 3, 4))
    forms: list[tuple[str, str, str, list[str]]] = [
        ("floordiv(t + 2*p - k, s) + 1", ">=", "1", ["t >= k", "s >= 1"]),
        ("floordiv(t + 2*p - k, s) + 1", "<=", "t + 2*p", ["t >= k", "s >= 1"]),
        (f"floordiv(t + 2*p - k, {c}) + 1", ">=", "1", ["t >= k", "k >= 1"]),
        (f"floordiv(t - k, {c}) + 1", "<=", "t", ["t >= k", "k >= 1"]),
        (f"{k}*floordiv(s + {k - 1}, {k})", ">=", "s", []),
        (f"{k}*floordiv(s + {k - 1}, {k}) - s", "<=", str(k - 1), []),
        ("s", "==", f"{k}*floordiv(s, {k})", [f"mod(s, {k}) == 0"]),
        ("s", ">=", str(k), [f"mod(s, {k}) == 0"]),
        (f"floordiv(s, {k})", ">=", "1", [f"mod(s, {k}) == 0"]),
        ("floordiv(b*s, s)", "==", "b", []),
        ("mod(b*s, s)", "==", "0", []),
        ("h", "==", "n*floordiv(h, n)", ["mod(h, n) == 0"]),
        ("floordiv(h, 2) + floordiv(h + 1, 2)", "==", "h", []),
        ("b*h*floordiv(s, n)", "<=", "b*h*s", ["n >= 1"]),
        ("floordiv(s, n)*n", "==", "s", ["mod(s, n) == 0", "n >= 2"]),
        ("b*s*h", ">=", f"{k}*b", [f"s >= {k}", "h >= 1"]),
        ("b*s", "==", "b*n*floordiv(s, n)", ["mod(s, n) == 0"]),
        (f"max(s - {k}, 0) + min(s, {k})", "==", "s", []),
        ("floordiv(t + p, s)", ">=", "floordiv(t, s)", ["s >= 1"]),
        (f"s + {k} - 1 - mod(s + {k} - 1, {k})", ">=", "s", []),
    ]
    lhs, op, rhs, cons = rng.choice(forms)
    extra = [f"mod(b, {rng.choice((8, 16))}) == 0", f"t <= {rng.choice((4096, 8192))}",
             f"p <= {rng.choice((3, 8))}", f"b >= {rng.choice((1, 2, 8))}"]
    cons = cons + rng.sample(extra, rng.randint(0, 2))
    names = tuple(sorted(set(_NAME.findall(" ".join([lhs, rhs, *cons])))))
    return names, lhs, op, _perturb(rng, rhs), cons


def _big_query(rng: random.Random) -> tuple[tuple[str, ...], str, str, str, list[str]]:
    """Big constants (up to 10^12) and long sums (20-40 terms over 6-10
    variables)."""
    if rng.random() < 0.5:
        c = rng.choice(BIG)
        r = rng.random()
        cons = [f"a <= {2 * c}"] if rng.random() < 0.5 else []
        if r < 0.3:
            lhs, op, rhs = f"floordiv({c}*a + b, {c})", ">=", f"a - {rng.choice((0, 1, 8))}"
        elif r < 0.5:
            lhs, op, rhs = f"mod({c}*a, {c})", "==", "0"
        elif r < 0.75:
            lhs, op, rhs = f"{c}*a + {c}*b", ">=", f"{2 * c}"
        else:
            lhs, op, rhs = f"floordiv(a + {c}, {c // 3})", "<=", f"a + {c}"
        names = ("a", "b")
        return names, lhs, op, _perturb(rng, rhs), cons
    nv = rng.randint(6, 10)
    v = [f"y{i}" for i in range(nv)]
    terms = [f"{rng.randint(1, 9)}*{rng.choice(v)}" for _ in range(rng.randint(20, 40))]
    lhs = " + ".join(terms)
    total = sum(int(t.split("*")[0]) for t in terms)
    rhs = rng.choice((str(total), f"{rng.choice(v)}", f"{total // 2}*{rng.choice(v)}"))
    cons = [f"{v[i]} >= {v[i + 1]}" for i in range(rng.randint(0, nv - 1))]
    return tuple(v), lhs, rng.choice((">=", ">=", "<=", ">")), _perturb(rng, rhs), cons


def _deep_query(rng: random.Random) -> tuple[tuple[str, ...], str, str, str, list[str]]:
    """Clamp chains ``min(max(... h ..., lo), hi)`` 5-25 levels deep, and
    nested floordiv 3-8 levels deep."""
    if rng.random() < 0.6:
        e = "h"
        los, his = [], []
        for _ in range(rng.randint(5, 25)):
            lo = rng.choice(("a", "w", str(rng.randint(1, 8))))
            hi = rng.choice(("b", "w", str(rng.randint(16, 4096))))
            los.append(lo)
            his.append(hi)
            e = f"min(max({e}, {lo}), {hi})"
        cons = ["a <= b"] if rng.random() < 0.5 else []
        r = rng.random()
        if r < 0.3:
            rhs, op = f"max(h, {his[-1]})", "<="
        elif r < 0.6:
            rhs, op = "1", ">="
        else:
            rhs, op = rng.choice(("h", los[-1], his[-1], "a")), rng.choice((">=", "<="))
        return ("h", "w", "a", "b"), e, op, rhs, cons
    e, ks = "n", []
    for _ in range(rng.randint(3, 8)):
        k = rng.choice((2, 3, 4, 8))
        ks.append(k)
        e = f"floordiv({e}, {k})"
    prod = math.prod(ks)
    r = rng.random()
    if r < 0.5:
        return ("n",), e, "==", _perturb(rng, f"floordiv(n, {prod})"), []
    return ("n", "m"), f"{prod}*{e}", "<=", _perturb(rng, "n"), ["n >= m"]


def sight_query(rng: random.Random, family: str) -> Query:
    """One query of ``family`` (see :data:`SIGHT_FAMILIES`)."""
    if family in _GEN_FAMILY:
        for _ in range(100):
            q = random_query(rng)
            if q.family == _GEN_FAMILY[family]:
                return q
        raise AssertionError(family)
    make = {"long chains": _chain_query, "ML facts": _ml_query, "big": _big_query,
            "deep": _deep_query}[family]
    names, lhs, op, rhs, cons = make(rng)
    return Query(family, names, lhs, op, rhs, tuple(cons))


_LABEL = {"jax": "JAX", "prove": "symshape.prove", "ops": "symshape operators"}


def renamed_query(q: Query, i: int) -> Query:
    """``q`` with every variable ``x`` renamed ``x_i`` (texts no cache has seen)."""
    lhs, rhs, *cons = renamer([q.lhs, q.rhs, *q.constraints])(i)
    return Query(q.family, tuple(f"{n}_{i}" for n in q.names), lhs, q.op, rhs, tuple(cons))


def contenders(have_jax: bool) -> dict[str, Callable[[Query], Callable[[], Answer]]]:
    """The libraries timed (each makes a closure that runs one query)."""
    out: dict[str, Callable[[Query], Callable[[], Answer]]] = {}
    if have_jax:
        out["jax"] = jax_query
    out["prove"] = prove_query
    out["ops"] = ops_query
    return out


class TimedOut(Exception):
    """A call that ran past the time limit per query."""


def _alarm(signum: int, frame: Any) -> None:
    raise TimedOut


def _timed_call(fn: Callable[[], Answer], limit: float) -> tuple[float, Answer | str]:
    """Seconds and answer of ``fn()``; the answer is ``"timeout"`` past ``limit``
    seconds, or ``"error: X"`` for an exception."""
    signal.setitimer(signal.ITIMER_REAL, limit)
    t0 = time.perf_counter()
    try:
        a: Answer | str = fn()
    except TimedOut:
        a = "timeout"
    except Exception as e:  # noqa: BLE001 - either library rejects what it cannot build
        a = f"error: {type(e).__name__}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return time.perf_counter() - t0, a


class CollectorLedger:
    """The cyclic garbage collector's work inside each library's timed calls.

    A collection runs inside whichever call allocates past the collector's
    threshold, and walks every young object, whichever library left it: a
    library that leaves reference cycles behind (garbage only the collector
    frees) makes collections come sooner for every library, and a call that
    allocates many container objects at once is more likely to set one off.
    Both show in wall time, not in instruction counts of one library alone,
    so the first-sight section reports them: per library, the collections
    that ran inside its calls and their time, and the young objects one call
    leaves to the collector (the net growth of the youngest generation's
    count over the calls that ran no collection)."""

    def __init__(self) -> None:
        self.label = ""
        self.collections: dict[str, list[int]] = {}  # label -> per generation
        self.seconds: dict[str, float] = {}
        self.left: dict[str, list[int]] = {}  # label -> young objects left per call
        self._started = 0.0
        self._ran = False

    def _callback(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            return
        self._ran = True
        if self.label:
            per_gen = self.collections.setdefault(self.label, [0, 0, 0])
            per_gen[info["generation"]] += 1
            self.seconds[self.label] = (self.seconds.get(self.label, 0.0)
                                        + time.perf_counter() - self._started)

    def __enter__(self) -> CollectorLedger:
        gc.callbacks.append(self._callback)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self._callback)

    def call(self, label: str, fn: Callable[[], Answer], limit: float
             ) -> tuple[float, Answer | str]:
        """:func:`_timed_call` of ``fn``, its collections booked to ``label``."""
        self.label, self._ran = label, False
        count = gc.get_count()[0]
        try:
            return _timed_call(fn, limit)
        finally:
            self.label = ""
            if not self._ran:
                self.left.setdefault(label, []).append(gc.get_count()[0] - count)


@dataclass
class Sample:
    """One timed call: the query's index, its family, seconds, answer."""

    query: int
    family: str
    seconds: float
    answer: Answer


@dataclass
class SightRun:
    """Everything the first-sight section measured."""

    queries: list[Query] = field(default_factory=list)
    first: dict[str, list[Sample]] = field(default_factory=dict)
    cached: dict[str, list[Sample]] = field(default_factory=dict)
    rejected: dict[str, int] = field(default_factory=dict)
    unstable: list[str] = field(default_factory=list)
    collector: CollectorLedger = field(default_factory=CollectorLedger)


def _rank(ordered: Sequence[float], q: float) -> float:
    """The ``q``-quantile of sorted values by the nearest rank (never below the
    median for q >= 0.5, even with few values)."""
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def _stats(ts: Sequence[float]) -> tuple[float, float, float, float]:
    """Median, p90, p99 (nearest rank) and total of ``ts``."""
    if not ts:
        return math.nan, math.nan, math.nan, math.nan
    ordered = sorted(ts)
    return (statistics.median(ordered), _rank(ordered, 0.9), _rank(ordered, 0.99),
            math.fsum(ordered))


def _fmt_opt(t: float) -> str:
    return "-" if t != t else fmt_time(t)


def run_first_sight(per_family: int, seed: int, rounds: int, have_jax: bool,
                    limit: float) -> SightRun:
    """Draw ``per_family`` queries of every family and time each in ``rounds``
    first-sight rounds (variables renamed per round and per library, order
    alternating), then once more with the last round's texts (cached)."""
    signal.signal(signal.SIGALRM, _alarm)
    makers = contenders(have_jax)
    out = SightRun(first={n: [] for n in makers}, cached={n: [] for n in makers})
    fresh = itertools.count(1)
    with out.collector:
        _first_sight_rounds(out, makers, per_family, seed, rounds, limit, fresh)
    return out


def _first_sight_rounds(out: SightRun, makers: dict[str, Callable[[Query], Callable[[], Answer]]],
                        per_family: int, seed: int, rounds: int, limit: float,
                        fresh: Iterator[int]) -> None:
    """The rounds of :func:`run_first_sight`, filling ``out``."""
    for family in SIGHT_FAMILIES:
        rng = random.Random(f"{seed}:{family}")
        made = tries = 0
        while made < per_family and tries < 20 * per_family:
            tries += 1
            q = sight_query(rng, family)
            idx = len(out.queries)
            taken: dict[str, list[tuple[float, Answer | str]]] = {n: [] for n in makers}
            last: dict[str, Query] = {}
            bad = ""
            for r in range(rounds):
                names = list(makers)
                if (idx + r) % 2:
                    names.reverse()
                for name in names:
                    qi = renamed_query(q, next(fresh))
                    last[name] = qi
                    dt, a = out.collector.call(name, makers[name](qi), limit)
                    if a == "timeout" or (isinstance(a, str) and a.startswith("error")):
                        bad = f"{name}: {a if a == 'timeout' else a[7:]}"
                        break
                    taken[name].append((dt, a))
                if bad:
                    break
            if bad:
                out.rejected[bad] = out.rejected.get(bad, 0) + 1
                continue
            made += 1
            out.queries.append(q)
            for name, got in taken.items():
                answers = {a for _, a in got}
                if len(answers) > 1:
                    out.unstable.append(f"{name} answered {sorted(map(str, answers))} for "
                                        f"renamings of {q.claim} under {list(q.constraints)}")
                for dt, a in got:
                    out.first[name].append(Sample(idx, family, dt, a))
            for name in (reversed(list(makers)) if idx % 2 else makers):
                dt, a = out.collector.call(f"{name} cached", makers[name](last[name]), limit)
                out.cached[name].append(Sample(idx, family, dt,
                                               a if not isinstance(a, str) or a in "TFC"
                                               else None))


def _decided(name: str, a: Answer) -> bool:
    """A definite answer: proved or refuted (for prove also shown contingent,
    with a witness and a counterexample)."""
    return a in ("T", "F") or (name == "prove" and a == "C")


def _sample_decided(name: str, want: bool, s: Sample) -> bool:
    return _decided(name, s.answer) is want


def section_first_sight(per_family: int, seed: int, rounds: int, have_jax: bool,
                        limit: float, summary: list[str]) -> None:
    print(f"\n== 1. first-sight queries: {per_family} generated queries per family (seed "
          f"{seed}), {rounds} rounds each; every call's texts are new to the process (variables "
          f"renamed per round and per library), libraries interleaved per query in "
          f"alternating order ==")
    print("  JAX: symbolic_shape(vars, constraints=cs) + symbolic_shape(sides, scope=...) + "
          "comparisons; symshape.prove(claim, constraints=cs); symshape operators: "
          "symbolic_shape(sides, constraints=cs) + comparisons")
    t_start = time.perf_counter()
    run = run_first_sight(per_family, seed, rounds, have_jax, limit)
    if run.rejected:
        print("  queries dropped (an exception or a call over "
              f"{limit:g} s in some library): "
              + ", ".join(f"{k} {v}" for k, v in sorted(run.rejected.items())))
        for k, v in run.rejected.items():
            if k.startswith(("prove", "ops")) and "timeout" in k:
                print(f"  !! symshape ran past {limit:g} s on {v} queries")
    libs = list(run.first)
    sym = [n for n in libs if n != "jax"]
    fams = [f for f in SIGHT_FAMILIES if any(s.family == f for s in run.first[libs[0]])]

    def times(store: dict[str, list[Sample]], name: str, fam: str | None,
              pick: Callable[[Sample], bool] = lambda s: True) -> list[float]:
        return [s.seconds for s in store[name] if (fam is None or s.family == fam) and pick(s)]

    for name in sym:
        print(f"\n  {_LABEL[name]} vs JAX, first sight (per call; ratio = JAX / symshape, "
              f"> 1: symshape is faster)")
        head = (f"  {'family':14}{'calls':>6}" + "".join(
            f"{lib + ' ' + k:>13}" for lib in (("jax", name) if have_jax else (name,))
            for k in ("med", "p90", "p99", "total")))
        if have_jax:
            head += f"{'ratio med':>10}{'p90':>7}{'p99':>7}{'total':>7}"
        print(head)
        for fam in [*fams, None]:
            ts = times(run.first, name, fam)
            row = f"  {fam or 'all':14}{len(ts):6d}"
            st = _stats(ts)
            if have_jax:
                jt = _stats(times(run.first, "jax", fam))
                row += "".join(f"{fmt_time(x):>13}" for x in jt)
            row += "".join(f"{fmt_time(x):>13}" for x in st)
            if have_jax:
                row += "".join(f"{ratio(j, s):>{w}}" for j, s, w in zip(jt, st, (10, 7, 7, 7),
                                                                        strict=True))
                if fam is None:
                    summary.append(f"first sight, {_LABEL[name]}: JAX / symshape median "
                                   f"{ratio(jt[0], st[0])}, p90 {ratio(jt[1], st[1])}, p99 "
                                   f"{ratio(jt[2], st[2])}, total {ratio(jt[3], st[3])} "
                                   f"(target: median and p90 >= 5x)")
            print(row)
        if have_jax:
            worst = min(fams, key=lambda f: _stats(times(run.first, "jax", f))[0]
                        / _stats(times(run.first, name, f))[0])
            jm, sm = _stats(times(run.first, "jax", worst))[0], \
                _stats(times(run.first, name, worst))[0]
            summary.append(f"first sight, {_LABEL[name]}: worst family median {worst} "
                           f"{ratio(jm, sm)}")
    print("\n  time to a decided answer / time to give up (first sight; decided: proved or "
          "refuted, for prove also shown contingent; give up: undecided / inconclusive)")
    print(f"  {'':14}" + "".join(f"{_LABEL[n]:^57}" for n in libs))
    print(f"  {'family':14}" + "".join(
        f"{'decided':>8}{'med':>10}{'p90':>10}{'gave up':>9}{'med':>10}{'p90':>10}"
        for _ in libs))
    for fam in [*fams, None]:
        row = f"  {fam or 'all':14}"
        for n in libs:
            dec = times(run.first, n, fam, functools.partial(_sample_decided, n, True))
            gup = times(run.first, n, fam, functools.partial(_sample_decided, n, False))
            d, g = _stats(dec), _stats(gup)
            row += f"{len(dec):>8}{_fmt_opt(d[0]):>10}{_fmt_opt(d[1]):>10}" \
                   f"{len(gup):>9}{_fmt_opt(g[0]):>10}{_fmt_opt(g[1]):>10}"
        print(row)
        if fam is None:
            for n in sym:
                g = _stats(times(run.first, n, None, functools.partial(_sample_decided, n, False)))
                line = f"first sight, {_LABEL[n]} gives up in median {_fmt_opt(g[0])}, p90 " \
                       f"{_fmt_opt(g[1])}"
                if have_jax:
                    jg = _stats(times(run.first, "jax", None,
                                      functools.partial(_sample_decided, "jax", False)))
                    line += (f" (JAX: {_fmt_opt(jg[0])}, p90 {_fmt_opt(jg[1])}; JAX / symshape "
                             f"median {ratio(jg[0], g[0])}, p90 {ratio(jg[1], g[1])})")
                summary.append(line)
    print("\n  CACHED (the last round's texts again: every cache keyed by text answers; not "
          "first sight)")
    print(f"  {'family':14}" + "".join(f"{_LABEL[n] + ' med':>26}{'p90':>10}" for n in libs)
          + ("".join(f"{'ratio ' + n:>12}" for n in sym) if have_jax else ""))
    for fam in [*fams, None]:
        row = f"  {fam or 'all':14}"
        st_c = {n: _stats(times(run.cached, n, fam)) for n in libs}
        for n in libs:
            row += f"{fmt_time(st_c[n][0]):>26}{fmt_time(st_c[n][1]):>10}"
        if have_jax:
            row += "".join(f"{ratio(st_c['jax'][0], st_c[n][0]):>12}" for n in sym)
            if fam is None:
                summary.append("cached (same texts again), JAX / symshape median: " + ", ".join(
                    f"{_LABEL[n]} {ratio(st_c['jax'][0], st_c[n][0])}" for n in sym))
        print(row)
    _report_collector(run, libs, summary)
    _check_answers(run, have_jax, summary)
    print(f"  (section wall time {time.perf_counter() - t_start:.1f} s)")


def _report_collector(run: SightRun, libs: Sequence[str], summary: list[str]) -> None:
    """The garbage collector's work inside each library's first-sight calls."""
    ledger = run.collector
    print("\n  the cyclic garbage collector inside the first-sight calls (a collection runs in "
          "the call that allocates past its threshold and walks what every library left; "
          "left per call: young objects a call leaves to the collector, median and mean)")
    parts = []
    for n in libs:
        calls = len(run.first[n])
        gens = ledger.collections.get(n, [0, 0, 0])
        secs = ledger.seconds.get(n, 0.0)
        left = sorted(ledger.left.get(n, [])) or [0]
        share = secs / max(math.fsum(s.seconds for s in run.first[n]), 1e-12)
        print(f"  {_LABEL[n]:20} {calls:5} calls: collections of generation 0/1/2 "
              f"{gens[0]}/{gens[1]}/{gens[2]}, {fmt_time(secs)} ({share:.0%} of its time); "
              f"left per call {statistics.median(left):.0f}, {statistics.fmean(left):.0f}")
        parts.append(f"{_LABEL[n]} {fmt_time(secs)} ({share:.0%}), leaves "
                     f"{statistics.fmean(left):.0f} per call")
    summary.append("first sight, time in the garbage collector: " + "; ".join(parts))


def _check_answers(run: SightRun, have_jax: bool, summary: list[str]) -> None:
    """Counts of answers, agreement, and contradictions between libraries."""
    per_q: dict[str, dict[int, Answer]] = {
        n: {s.query: s.answer for s in samples} for n, samples in run.first.items()}
    qs = range(len(run.queries))
    for n, got in per_q.items():
        a = [got[i] for i in qs]
        print(f"  {_LABEL[n]}: proved {a.count('T')}, refuted {a.count('F')}"
              + (f", shown contingent {a.count('C')}" if n == "prove" else "")
              + f", undecided {a.count(None)}")
    bugs: list[str] = []
    names = list(per_q)
    for i in qs:
        for x, y in itertools.combinations(names, 2):
            if contradiction(per_q[x][i], per_q[y][i]):
                q = run.queries[i]
                bugs.append(f"{x} {per_q[x][i]} vs {y} {per_q[y][i]}: {q.claim} under "
                            f"{list(q.constraints)}")
    if have_jax:
        pa, ja = per_q["prove"], per_q["jax"]
        dec = ("T", "F")
        both = sum(ja[i] in dec and pa[i] in dec for i in qs)
        agree = (f"first sight agreement: decided by both {both}, only symshape.prove "
                 f"{sum(ja[i] not in dec and pa[i] in dec for i in qs)}, "
                 f"only JAX {sum(ja[i] in dec and pa[i] not in dec for i in qs)}")
        print("  " + agree)
        summary.append(agree)
    if bugs or run.unstable:
        print("\n" + "!" * 78)
        print(f"!! {len(bugs)} CONTRADICTIONS (a proof against a refutation or a "
              f"counterexample): one library is WRONG")
        for b in bugs:
            print("!!   " + b)
        for u in run.unstable:
            print("!!   answers changed under renaming: " + u)
        print("!" * 78)
    summary.append(f"contradictions: {len(bugs)}, answers that changed under renaming: "
                   f"{len(run.unstable)}")


def contradiction(a: Answer, b: Answer) -> bool:
    """A proof against a refutation, or either against a contingency shown by a
    witness and a counterexample."""
    return {a, b} in ({"T", "F"}, {"T", "C"}, {"F", "C"})


# ---------------------------------------------------------------------------
# 2. Scope creation

ML_CONSTRAINTS = (
    "b >= 16",
    "mod(s, 128) == 0",
    "a >= b + 8",
    "max(h, w) <= 4096",
    "2*h + 1 <= 1024",
    "16 <= t <= 512",
    "s <= 8192",
    "mod(c, 8) == 0",
    "h >= w",
    "floordiv(s, 128) >= 2",
)
_NAME = re.compile(r"\b(?!max\b|min\b|mod\b|floordiv\b)([A-Za-z_]\w*)\b")


def renamer(texts: Sequence[str]) -> Callable[[int], list[str]]:
    """``f(i)``: ``texts`` with every variable ``x`` renamed ``x_i`` (text
    never seen before, so no cache keyed by text answers)."""
    templates = [_NAME.sub(lambda m: m.group(1) + "_%(i)d", t.replace("%", "%%"))
                 for t in texts]

    def f(i: int) -> list[str]:
        d = {"i": i}
        return [t % d for t in templates]
    return f


def scope_instances(rng: random.Random, k: int, n: int) -> list[list[str]]:
    """``n`` lists of ``k`` constraints: half the fixed ML list's first ``k``,
    half drawn by :func:`ml_constraints` over 4-8 variables (different
    structures, not only different names)."""
    out: list[list[str]] = []
    for i in range(n):
        if i % 2 == 0:
            out.append(list(ML_CONSTRAINTS[:k]))
            continue
        names = rng.sample(POOL, rng.randint(4, 8))
        cs = ml_constraints(rng, names, k)
        while len(cs) < k:  # (few shapes over few names: pad with bounds)
            cs.append(f"{names[len(cs) % len(names)]} <= {10_000 + len(cs)}")
        out.append(cs)
    return out


def section_scope(quick: bool, have_jax: bool, summary: list[str], seed: int) -> None:
    n = 30 if quick else 300
    print(f"\n== 2. scope creation from fresh strings, 1-10 constraints: "
          f"symshape.SymbolicScope(cs) vs jax.export.SymbolicScope(cs); {n} lists per k (half "
          f"the ML list below, half drawn), variables renamed at every call, order alternating ==")
    print("  (ML list: " + "; ".join(ML_CONSTRAINTS) + "; JAX gets chains split)")
    libs: dict[str, Callable[[list[str]], object]] = {"symshape": symshape.SymbolicScope}
    if have_jax:
        assert JAX_EXPORT is not None
        libs["jax"] = JAX_EXPORT.SymbolicScope
    head = f"  {'k':>3}" + "".join(f"{lib + ' ' + s:>14}" for lib in libs
                                   for s in ("med", "p90", "p99"))
    if have_jax:
        head += f"{'ratio med':>10}{'p90':>7}{'p99':>7}{'total':>7}{'cached sym':>12}" \
                f"{'jax':>10}{'ratio':>7}"
    print(head)
    fresh = itertools.count(1)
    r_med: list[float] = []
    r_p90: list[float] = []
    r_cached: list[float] = []
    rng = random.Random(f"{seed}:scope")
    for k in range(1, 11):
        firsts: dict[str, list[float]] = {lib: [] for lib in libs}
        cached: dict[str, list[float]] = {lib: [] for lib in libs}
        gc.collect()
        for j, cs in enumerate(scope_instances(rng, k, n)):
            order = list(libs) if j % 2 else list(reversed(libs))
            for lib in order:
                texts = renamer(jax_constraints(cs) if lib == "jax" else cs)(next(fresh))
                t0 = time.perf_counter()
                libs[lib](texts)
                firsts[lib].append(time.perf_counter() - t0)
                if j % 10 == 0:  # the same texts twice more: the second is cached
                    libs[lib](texts)
                    t0 = time.perf_counter()
                    libs[lib](texts)
                    cached[lib].append(time.perf_counter() - t0)
        st = {lib: _stats(firsts[lib]) for lib in libs}
        row = f"  {k:3d}" + "".join(f"{fmt_time(x):>14}" for lib in libs for x in st[lib][:3])
        if have_jax:
            j_, s_ = st["jax"], st["symshape"]
            cj, cs_ = statistics.median(cached["jax"]), statistics.median(cached["symshape"])
            row += "".join(f"{ratio(a, b):>{w}}" for a, b, w in zip(j_, s_, (10, 7, 7, 7),
                                                                   strict=True))
            row += f"{fmt_time(cs_):>12}{fmt_time(cj):>10}{ratio(cj, cs_):>7}"
            r_med.append(j_[0] / s_[0])
            r_p90.append(j_[1] / s_[1])
            r_cached.append(cj / cs_)
        print(row, flush=True)
    print("  (cached: the same texts a third time in the process: symshape copies a "
          "template scope kept the second time)")
    if r_med:
        line = (f"scope creation from fresh strings, 1-10 constraints, JAX / symshape: median "
                f"{min(r_med):.1f}x-{max(r_med):.1f}x, p90 {min(r_p90):.1f}x-{max(r_p90):.1f}x "
                f"(target >= 3x); CACHED (same texts) {min(r_cached):.1f}x-"
                f"{max(r_cached):.1f}x")
        print("  " + line)
        summary.append(line)


# ---------------------------------------------------------------------------
# 3. Cold and warm queries on 4-8 variables

COLD_NAMES = ("b", "s", "h", "w", "c", "t", "k", "n")


def cold_case(nv: int) -> tuple[list[str], str, str, str]:
    """Constraints, variables' spec, and the two sides of a true claim ``lhs >= rhs``
    over ``nv`` variables."""
    v = COLD_NAMES[:nv]
    cs = [f"{v[0]} >= 16", f"mod({v[1]}, 128) == 0", f"{v[2]} >= {v[3]} + 8",
          f"max({v[2]}, {v[3]}) <= 4096", f"2*{v[3]} + 1 <= 1024"]
    if nv >= 6:
        cs.append(f"16 <= {v[5]} <= 512")
    if nv >= 8:
        cs.append(f"mod({v[6]}, 8) == 0")
    lhs = " + ".join(["2*" + v[0], "2*" + v[1]] + list(v[2:]))
    rhs = f"max({v[0]}, {v[1]}) + min({v[2]}, {v[3]}) + floordiv({v[-1]}, 4)"
    return cs, ", ".join(v), lhs, rhs


def section_cold(quick: bool, have_jax: bool, summary: list[str]) -> None:
    print("\n== 3. cold first query (scope + parse + first comparison, from strings) and "
          "warm queries ==")
    min_time, rounds = (0.02, 5) if quick else (0.1, 7)
    libs: dict[str, tuple[Callable[[str, Sequence[str]], Any], Callable[..., Any]]] = {
        "symshape": (symshape_scope, symshape.symbolic_shape)}
    if have_jax:
        assert JAX_EXPORT is not None
        libs["jax"] = (jax_scope, JAX_EXPORT.symbolic_shape)
    print(f"  {'vars':>4}{'':2}{'cold jax':>11}{'symshape':>11}{'ratio':>7}"
          f"{'fresh jax':>11}{'symshape':>11}{'ratio':>7}"
          f"{'warm same':>11}{'symshape':>11}{'ratio':>7}{'warm new':>11}{'symshape':>11}"
          f"{'ratio':>7}")
    cold_r: list[float] = []
    for nv in range(4, 9):
        cs, spec, lhs, rhs = cold_case(nv)
        fns: dict[str, Callable[[], object]] = {}
        counter = itertools.count()
        for lib, (mk_scope, shape) in libs.items():
            inc = JAX_INCONCLUSIVE if lib == "jax" else symshape.InconclusiveDimensionOperation
            lib_cs = jax_constraints(cs) if lib == "jax" else cs
            ren = renamer([spec, f"{lhs}, {rhs}", *lib_cs])

            def cold(mk_scope: Any = mk_scope, shape: Any = shape, lib_cs: Any = lib_cs,
                     inc: Any = inc, spec: str = spec, sides: str = f"{lhs}, {rhs}"
                     ) -> Answer:
                sc = mk_scope(spec, lib_cs)
                x, y = shape(sides, scope=sc)
                return decide(x, ">=", y, inc)

            def fresh(mk_scope: Any = mk_scope, shape: Any = shape, ren: Any = ren,
                      inc: Any = inc, counter: Any = counter) -> Answer:
                sp, sides, *c = ren(next(counter))
                sc = mk_scope(sp, c)
                x, y = shape(sides, scope=sc)
                return decide(x, ">=", y, inc)

            sc = mk_scope(spec, lib_cs)
            x, y = shape(f"{lhs}, {rhs}", scope=sc)
            assert decide(x, ">=", y, inc) == "T", (lib, nv)
            warm_counter = itertools.count()

            def warm_same(x: Any = x, y: Any = y) -> bool:
                return bool(x >= y)

            def warm_new(x: Any = x, y: Any = y, c: Any = warm_counter) -> bool:
                return bool(x >= y - next(c))

            fns[f"{lib}:cold"] = cold
            fns[f"{lib}:fresh"] = fresh
            fns[f"{lib}:warm_same"] = warm_same
            fns[f"{lib}:warm_new"] = warm_new
        t = compare(fns, min_time=min_time, rounds=rounds)
        row = f"  {nv:4d}  "
        for kind in ("cold", "fresh", "warm_same", "warm_new"):
            tj, ts = t.get(f"jax:{kind}"), t[f"symshape:{kind}"]
            row += f"{fmt_time(tj) if tj else '-':>11}{fmt_time(ts):>11}{ratio(tj, ts):>7}"
            if kind == "fresh" and tj:
                cold_r.append(tj / ts)
        print(row)
    print("  (cold: the same strings at every call; fresh: variables renamed per call; warm "
          "same: x >= y again;\n   warm new: x >= y - i for a new i at every call)")
    if cold_r:
        line = (f"cold first query, 4-8 variables (fresh strings), JAX / symshape: "
                f"{min(cold_r):.1f}x-{max(cold_r):.1f}x")
        print("  " + line)
        summary.append(line)


# ---------------------------------------------------------------------------
# 4. Scaling


def scaling_constraints(nv: int, n: int) -> list[str]:
    """``n`` distinct satisfiable constraints over ``v0 .. v{nv-1}`` (all values
    at their lower bounds, rounded up to a multiple of 8, satisfy them)."""
    v = [f"v{i}" for i in range(nv)]
    out: list[str] = []
    has_mod: set[int] = set()
    i = 0
    while len(out) < n:
        p, q = i % nv, (i * 7 + 3) % nv
        p, q = min(p, q), max(p, q)
        x, y = v[p], v[q]
        t = i % 8
        if t == 0 or (t in (2, 6) and p == q):
            c = f"{x} >= {1 + i % 32}"
        elif t == 1:
            c = f"{x} <= {2048 + i}"
        elif t == 2:
            c = f"{x} >= {y} + {i % 4}"
        elif t == 3:
            c = f"max({x}, {y}) <= {4096 + i}"
        elif t == 4:
            c = f"2*{x} + {y} <= {8192 + i}"
        elif t == 5 and p not in has_mod:
            has_mod.add(p)
            c = f"mod({x}, {(2, 4, 8)[i % 3]}) == 0"
        elif t == 6:
            c = f"{x} + {y} >= {2 + i % 16}"
        else:
            c = f"floordiv({x}, 2) + {y} <= {5000 + i}"
        i += 1
        if c not in out:
            out.append(c)
    return out


def scaling_claim(nv: int) -> tuple[str, str, str]:
    """Spec of the variables and the two sides of a true claim ``lhs >= rhs``."""
    v = [f"v{i}" for i in range(nv)]
    return ", ".join(v), " + ".join(v), "max(v0, v1) + floordiv(v2, 2)"


def _best_within(fn: Callable[[], object], budget: float, max_reps: int) -> float:
    """Best time of ``fn`` over up to ``max_reps`` calls in about ``budget`` seconds
    (at least one call)."""
    best = float("inf")
    t_end = time.perf_counter() + budget
    for _ in range(max_reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
        if time.perf_counter() >= t_end:
            break
    return best


def section_scaling(quick: bool, have_jax: bool, cap: float, summary: list[str]) -> None:
    vars_list, cons_list = (4, 8, 16, 32), (1, 10, 100, 1000)
    budget, reps = (0.3, 3) if quick else (1.0, 5)
    print(f"\n== 4. scaling: variables x constraints, from strings with variables renamed "
          f"per call (best of <= {reps} calls); JAX cells predicted over {cap:.0f} s are "
          f"skipped ==")
    kinds = ("scope", "cold", "warm")
    res: dict[tuple[str, str, int, int], float | None] = {}
    print(f"  {'vars':>4}{'cons':>6}  " + "".join(
        f"{k + ' jax':>14}{'symshape':>11}{'ratio':>8}" for k in kinds))
    for nv in vars_list:
        spec, lhs, rhs = scaling_claim(nv)
        prev_jax: dict[str, list[tuple[int, float]]] = {}
        skipped: set[str] = set()
        for nc in cons_list:
            cs = scaling_constraints(nv, nc)
            row = f"  {nv:4d}{nc:6d}  "
            for kind in kinds:
                cells: dict[str, float | None] = {}
                for lib in ("jax", "symshape"):
                    if lib == "jax" and not have_jax:
                        cells[lib] = None
                        continue
                    # A warm JAX query needs a cold one first: skipped with it.
                    probe = "cold" if kind == "warm" else kind
                    if lib == "jax" and (probe in skipped or (
                            probe in prev_jax and _predict(prev_jax[probe], nc) > cap)):
                        skipped.add(probe)
                        cells[lib] = None
                        continue
                    lib_cs = jax_constraints(cs) if lib == "jax" else cs
                    cells[lib] = _measure(lib, kind, spec, lhs, rhs, lib_cs, budget, reps)
                    if lib == "jax":
                        t_cell = cells[lib]
                        assert t_cell is not None
                        prev_jax[kind] = prev_jax.get(kind, []) + [(nc, t_cell)]
                tj, ts = cells["jax"], cells["symshape"]
                res[("jax", kind, nv, nc)], res[("symshape", kind, nv, nc)] = tj, ts
                jtxt = fmt_time(tj) if tj is not None else (
                    f"skip(>{cap:.0f}s)" if have_jax else "-")
                row += f"{jtxt:>14}{fmt_time(ts) if ts else '-':>11}{ratio(tj, ts):>8}"
            print(row, flush=True)
    # growth factors of symshape
    print("  symshape growth factors (time at 10x the constraints / time; linear is <= 10x):")
    worst = 0.0
    for kind in kinds:
        parts = []
        for nv in vars_list:
            fs = []
            for n0, n1 in itertools.pairwise(cons_list):
                t0, t1 = res[("symshape", kind, nv, n0)], res[("symshape", kind, nv, n1)]
                assert t0 and t1
                fs.append(t1 / t0)
            worst = max(worst, fs[-1])
            parts.append(f"{nv}v " + "/".join(f"{f:.1f}" for f in fs))
        print(f"    {kind:6} " + ", ".join(parts))
    vf = []
    for kind in kinds:
        for nc in cons_list:
            t4, t32 = res[("symshape", kind, 4, nc)], res[("symshape", kind, 32, nc)]
            assert t4 and t32
            vf.append(t32 / t4)
    print(f"  symshape growth from 4 to 32 variables (8x): {min(vf):.1f}x-{max(vf):.1f}x")
    # Below 100 constraints fixed costs and noise dominate: judge 100 -> 1000.
    flag = "SUPERLINEAR GROWTH" if worst > 15 else "no superlinear blow-up"
    line = (f"scaling: symshape worst growth from 100 to 1000 constraints {worst:.1f}x "
            f"({flag}); per 8x variables up to {max(vf):.1f}x")
    print("  " + line)
    summary.append(line)
    for kind in kinds:
        rs = [tj / ts for nv in vars_list for nc in cons_list
              if (tj := res[("jax", kind, nv, nc)]) and (ts := res[("symshape", kind, nv, nc)])]
        if rs:
            n_skip = len(vars_list) * len(cons_list) - len(rs)
            summary.append(f"scaling {kind}: JAX / symshape {min(rs):.1f}x-{max(rs):.1f}x "
                           f"over {len(rs)} cells ({n_skip} JAX cells skipped)")


def _predict(history: list[tuple[int, float]], n: int) -> float:
    """JAX's time at ``n`` constraints from its last cells: quadratic growth, or
    the last observed growth if faster."""
    n1, t1 = history[-1]
    growth = (n / n1) ** 2
    if len(history) >= 2:
        n0, t0 = history[-2]
        growth = max(growth, (t1 / t0) ** (math.log(n / n1) / math.log(n1 / n0)))
    return t1 * growth


def _measure(lib: str, kind: str, spec: str, lhs: str, rhs: str, cs: Sequence[str],
             budget: float, reps: int) -> float:
    """One cell of the scaling table (names renamed per call)."""
    ren = renamer([spec, f"{lhs}, {rhs}", *cs])
    counter = itertools.count()
    if lib == "jax":
        assert JAX_EXPORT is not None
        mk_scope: Callable[[str, Sequence[str]], Any] = jax_scope
        shape: Callable[..., Any] = JAX_EXPORT.symbolic_shape
        new_scope: Callable[[Sequence[str]], Any] = JAX_EXPORT.SymbolicScope
        inc = JAX_INCONCLUSIVE
    else:
        mk_scope, shape, new_scope = symshape_scope, symshape.symbolic_shape, symshape.SymbolicScope
        inc = symshape.InconclusiveDimensionOperation

    def texts() -> tuple[str, str, list[str]]:
        sp, sides, *c = ren(next(counter))
        return sp, sides, c

    if kind == "scope":
        pre = [texts()[2] for _ in range(reps)]
        it = iter(pre)
        return _best_within(lambda: new_scope(next(it)), budget, reps)
    if kind == "cold":
        pre_t = [texts() for _ in range(reps)]
        it_t = iter(pre_t)

        def cold() -> Answer:
            sp, sides, c = next(it_t)
            sc = mk_scope(sp, c)
            x, y = shape(sides, scope=sc)
            return decide(x, ">=", y, inc)
        return _best_within(cold, budget, reps)
    sp, sides, c = texts()
    sc = mk_scope(sp, c)
    x, y = shape(sides, scope=sc)
    decide(x, ">=", y, inc)
    return _best_within(lambda: decide(x, ">=", y, inc), budget, 20 * reps)


# ---------------------------------------------------------------------------



def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true",
                    help="a short run for tests: 4 queries per family, short scope section")
    ap.add_argument("--per-family", type=int, default=None,
                    help="first-sight queries per family (default 30)")
    ap.add_argument("--rounds", type=int, default=None,
                    help="first-sight rounds per query (default 2)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--limit", type=float, default=1.0,
                    help="seconds per call past which a first-sight query is dropped")
    ap.add_argument("--cap", type=float, default=None,
                    help="skip JAX scaling cells predicted to exceed this many seconds")
    ap.add_argument("--only", default="sight,scope,cold",
                    help="comma-separated sections: sight, scope, cold, scaling")
    args = ap.parse_args(argv)
    per_family = args.per_family if args.per_family is not None else (4 if args.quick else 30)
    rounds = args.rounds if args.rounds is not None else 2
    cap = args.cap if args.cap is not None else (2.0 if args.quick else 20.0)
    have_jax = JAX_EXPORT is not None
    jax_version = "not installed"
    if have_jax:
        import jax
        jax_version = jax.__version__
    print(f"symshape {symshape.__version__} ({build_label()}) vs jax {jax_version}: the cold path "
          f"({'quick' if args.quick else 'full'} mode); ratios are JAX / symshape (> 1: "
          f"symshape is faster)")
    t0 = time.perf_counter()
    summary: list[str] = []
    sections = {s.strip() for s in args.only.split(",")}
    unknown = sections - {"sight", "scope", "cold", "scaling"}
    if unknown:
        ap.error(f"unknown section(s): {', '.join(sorted(unknown))}")
    if "sight" in sections:
        section_first_sight(per_family, args.seed, rounds, have_jax, args.limit, summary)
    if "scope" in sections:
        section_scope(args.quick, have_jax, summary, args.seed)
    if "cold" in sections:
        section_cold(args.quick, have_jax, summary)
    if "scaling" in sections:
        section_scaling(args.quick, have_jax, cap, summary)
    print("\n== summary (JAX / symshape; targets of issue 31: first-sight median and p90 >= 5x "
          "overall and per family, scope creation from fresh strings >= 3x, giving up in a "
          "few ms) ==")
    for line in summary:
        print("  " + line)
    print(f"  (total wall time {time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
