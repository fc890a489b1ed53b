"""The cold path, symshape side by side with JAX: every query builds its own scope.

Run: ``python benchmarks/bench_coldpath.py [--quick] [--n N] [--seed S]
[--only corpus,scope,cold,scaling]``.

Real tracing makes a fresh scope per export and a one-off ``symshape prove``
builds its scope from strings, so this measures what the hundredth query on a
warm scope hides.  Four sections, each printed as it runs, then a summary:

1. **One-off queries.**  A deterministic corpus of generated claims (linear,
   floordiv/mod by constants and by symbolic divisors, max/min, products;
   0-10 constraints over 2-8 variables), every claim in text that both
   parsers accept.  Per query, from strings:

   * JAX: ``jax.export.symbolic_shape("<all variables>", constraints=cs)``
     for a fresh scope, ``jax.export.symbolic_shape("lhs, rhs", scope=...)``,
     then ``>= > <= <`` (``==`` as ``>=`` and ``<=``), catching
     ``InconclusiveDimensionOperation``;
   * symshape ``prove``: ``symshape.prove("lhs op rhs", constraints=cs)``;
   * symshape operators: ``symshape.symbolic_shape("lhs, rhs",
     constraints=cs)`` and the same comparisons as JAX.

   Each query is timed in interleaved rounds (the three contenders once per
   round, rotated) and its time is its best round; the table gives the median
   and p90 over queries and the ratios JAX / symshape (> 1: symshape is
   faster).  Later rounds see texts the process has parsed before (what a
   tracing process does); the "first sight" rows time the first call of each
   query instead (in the order JAX, prove, operators: the operators' first
   call may reuse what prove parsed).  A query whose first call took over
   0.25 s in some library is timed by that call alone.  Answers are compared:
   a proof in one library against a refutation (or a counterexample) in the
   other is a bug and printed loudly.
2. **Scope creation** with 1-10 realistic constraints:
   ``symshape.SymbolicScope(cs)`` against ``jax.export.SymbolicScope(cs)``,
   with the same strings at every call and with strings never seen before
   (variables renamed at every call, which defeats every cache keyed by text).
3. **Cold and warm queries** on 4-8 variable scopes: scope and first
   comparison from strings; the same comparison again on the warm scope; a new
   comparison on the warm scope.
4. **Scaling**: 4-32 variables x 1-1000 constraints for scope creation, cold
   query and warm query, variables renamed at every call; JAX cells predicted
   to take longer than the cap are skipped.  symshape's growth factors are
   printed, and a growth from 100 to 1000 constraints above 15x is flagged as
   superlinear (below 100 constraints fixed costs dominate).
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
    interleaved_best,
    percentile,
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


@dataclass
class Timed:
    """Per-query timings and answers of one contender."""

    best: list[float] = field(default_factory=list)
    first: list[float] = field(default_factory=list)
    answers: list[Answer] = field(default_factory=list)


class TimedOut(Exception):
    """A first call that ran past the corpus' time limit per query."""


def _alarm(signum: int, frame: Any) -> None:
    raise TimedOut


def build_corpus(n: int, seed: int, have_jax: bool, limit: float = 2.0
                 ) -> tuple[list[Query], dict[str, Timed], dict[str, int]]:
    """``n`` queries that every contender can run (each run once here: its
    first sight, timed); returns the queries, the first timings and the count
    of rejected candidates by reason.  A candidate whose first call takes
    longer than ``limit`` seconds in any library is rejected (and counted):
    JAX takes up to a minute on a few, which would swamp the rounds."""
    signal.signal(signal.SIGALRM, _alarm)
    rng = random.Random(seed)
    makers = contenders(have_jax)
    timed = {name: Timed() for name in makers}
    rejected: dict[str, int] = {}
    queries: list[Query] = []
    while len(queries) < n:
        q = random_query(rng)
        firsts: dict[str, tuple[float, Answer]] = {}
        for name, make in makers.items():
            fn = make(q)
            t0 = time.perf_counter()
            signal.setitimer(signal.ITIMER_REAL, limit)
            try:
                a = fn()
            except TimedOut:
                key = f"{name}: first call > {limit:g} s"
                rejected[key] = rejected.get(key, 0) + 1
                break
            except Exception as e:  # noqa: BLE001 - either library rejects what it cannot build
                key = f"{name}: {type(e).__name__}"
                rejected[key] = rejected.get(key, 0) + 1
                break
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            firsts[name] = (time.perf_counter() - t0, a)
        else:
            queries.append(q)
            for name, (t, a) in firsts.items():
                timed[name].first.append(t)
                timed[name].answers.append(a)
    return queries, timed, rejected


def contenders(have_jax: bool) -> dict[str, Callable[[Query], Callable[[], Answer]]]:
    out: dict[str, Callable[[Query], Callable[[], Answer]]] = {}
    if have_jax:
        out["jax"] = jax_query
    out["prove"] = prove_query
    out["ops"] = ops_query
    return out


def contradiction(a: Answer, b: Answer) -> bool:
    """A proof against a refutation, or either against a contingency shown by a
    witness and a counterexample."""
    return {a, b} in ({"T", "F"}, {"T", "C"}, {"F", "C"})


def section_corpus(n: int, seed: int, rounds: int, have_jax: bool,
                   summary: list[str]) -> None:
    print(f"\n== 1. one-off queries: {n} generated claims (seed {seed}), each from strings "
          f"in a fresh scope; best of {rounds} interleaved rounds ==")
    t_start = time.perf_counter()
    queries, timed, rejected = build_corpus(n, seed, have_jax)
    makers = contenders(have_jax)
    gc.collect()
    unstable = n_slow = 0
    for i, q in enumerate(queries):
        fns = {name: make(q) for name, make in makers.items()}
        answers: dict[str, Answer] = {}

        def record(name: str, fn: Callable[[], Answer],
                   answers: dict[str, Answer] = answers) -> Callable[[], None]:
            def call() -> None:
                answers[name] = fn()
            return call
        # A query that took a quarter of a second somewhere is timed by its
        # first call alone (JAX takes seconds on a few: rounds would swamp the run).
        slow = max(timed[name].first[i] for name in fns) > 0.25
        n_slow += slow
        best = interleaved_best({name: record(name, fn) for name, fn in fns.items()},
                                rounds=0 if slow else rounds)
        if slow:
            answers = {name: timed[name].answers[i] for name in fns}
        for name, t in best.items():
            timed[name].best.append(min(t, timed[name].first[i]) if slow else t)
            if answers[name] != timed[name].answers[i]:
                unstable += 1
                print(f"  !! {name} answered {timed[name].answers[i]} then {answers[name]}: "
                      f"{q.claim} under {list(q.constraints)}")
    if n_slow:
        print(f"  {n_slow} queries over 0.25 s somewhere were timed by their first call alone")
    n_cons = [len(q.constraints) for q in queries]
    n_vars = [len(q.names) for q in queries]
    print(f"  {len(queries)} queries: {min(n_vars)}-{max(n_vars)} variables, "
          f"{min(n_cons)}-{max(n_cons)} constraints ({sum(c > 0 for c in n_cons)} with "
          f"constraints); families " + ", ".join(
              f"{f} {sum(q.family == f for q in queries)}" for f in FAMILIES))
    if rejected:
        print("  candidates rejected (not buildable by every contender): "
              + ", ".join(f"{k} {v}" for k, v in sorted(rejected.items())))
    head = f"  {'':34}{'median':>11}{'p90':>11}{'max':>11}"
    print(head)
    label = {"jax": "JAX (scope + parse + compare)", "prove": "symshape.prove",
             "ops": "symshape operators"}
    for kind in ("best", "first"):
        for name, tm in timed.items():
            ts = getattr(tm, kind)
            tag = label[name] + (" [first sight]" if kind == "first" else "")
            print(f"  {tag:34}{fmt_time(statistics.median(ts)):>11}"
                  f"{fmt_time(percentile(ts, 0.9)):>11}{fmt_time(max(ts)):>11}")
    if have_jax:
        jb = timed["jax"]
        for name in ("prove", "ops"):
            sb = timed[name]
            per_q = [j / s for j, s in zip(jb.best, sb.best, strict=True)]
            med = ratio(statistics.median(jb.best), statistics.median(sb.best))
            p90 = ratio(percentile(jb.best, 0.9), percentile(sb.best, 0.9))
            med1 = ratio(statistics.median(jb.first), statistics.median(sb.first))
            p901 = ratio(percentile(jb.first, 0.9), percentile(sb.first, 0.9))
            line = (f"JAX / {label[name]}: median {med}, p90 {p90}, per-query ratio median "
                    f"{statistics.median(per_q):.2f}x (first sight: median {med1}, p90 {p901})")
            print("  " + line)
            summary.append(f"one-off ({len(queries)} q), {line}")
        print(f"  {'family':10}{'n':>5}{'jax med.':>11}{'prove med.':>12}{'ratio':>8}"
              f"{'ops med.':>11}{'ratio':>8}")
        for fam in FAMILIES:
            idx = [i for i, q in enumerate(queries) if q.family == fam]
            if not idx:
                continue
            fm = {name: statistics.median([timed[name].best[i] for i in idx]) for name in timed}
            print(f"  {fam:10}{len(idx):5d}{fmt_time(fm['jax']):>11}{fmt_time(fm['prove']):>12}"
                  f"{ratio(fm['jax'], fm['prove']):>8}{fmt_time(fm['ops']):>11}"
                  f"{ratio(fm['jax'], fm['ops']):>8}")
    # agreement
    pa = timed["prove"].answers
    oa = timed["ops"].answers
    shown = sum(a == "C" for a in pa)
    print(f"  symshape.prove: proved {pa.count('T')}, refuted {pa.count('F')}, shown "
          f"contingent {shown}, undecided {pa.count(None)}; operators: proved {oa.count('T')}, "
          f"refuted {oa.count('F')}, undecided {oa.count(None)}")
    bugs: list[str] = []
    for i, q in enumerate(queries):
        if contradiction(pa[i], oa[i]):
            bugs.append(f"prove {pa[i]} vs operators {oa[i]}: {q.claim} under "
                        f"{list(q.constraints)}")
    if have_jax:
        ja = timed["jax"].answers
        both = sum(j in ("T", "F") and p in ("T", "F") for j, p in zip(ja, pa, strict=True))
        only_s = sum(j not in ("T", "F") and p in ("T", "F") for j, p in zip(ja, pa, strict=True))
        only_j = sum(j in ("T", "F") and p not in ("T", "F") for j, p in zip(ja, pa, strict=True))
        ops_only_j = sum(j in ("T", "F") and o is None for j, o in zip(ja, oa, strict=True))
        print(f"  JAX: proved {ja.count('T')}, refuted {ja.count('F')}, undecided "
              f"{ja.count(None)}")
        agree = (f"agreement: decided by both {both}, only symshape.prove {only_s}, only JAX "
                 f"{only_j} (operators miss {ops_only_j} of JAX's decisions)")
        print("  " + agree)
        summary.append(agree)
        missed = [i for i, (j, p) in enumerate(zip(ja, pa, strict=True))
                  if j in ("T", "F") and p not in ("T", "F")]
        for i in missed[:5]:
            print(f"  decided by JAX ({ja[i]}) but not by prove ({pa[i]}): {queries[i].claim!r}"
                  f" under {list(queries[i].constraints)}")
        for i, q in enumerate(queries):
            for name, a in (("prove", pa[i]), ("operators", oa[i])):
                if contradiction(ja[i], a):
                    bugs.append(f"JAX {ja[i]} vs symshape {name} {a}: {q.claim} under "
                                f"{list(q.constraints)}")
    if bugs or unstable:
        print("\n" + "!" * 78)
        print(f"!! {len(bugs)} CONTRADICTIONS (a proof against a refutation or a "
              f"counterexample): one library is WRONG")
        for b in bugs:
            print("!!   " + b)
        if unstable:
            print(f"!! {unstable} answers changed between rounds (nondeterminism)")
        print("!" * 78)
    summary.append(f"contradictions: {len(bugs)}, answers that changed between rounds: "
                   f"{unstable}")
    for name in ("prove", "ops"):
        took = timed[name].best
        slowest = sorted(range(len(queries)), key=took.__getitem__, reverse=True)[:3]
        print(f"  slowest {label[name]} queries: " + "; ".join(
            f"{fmt_time(timed[name].best[i])} {queries[i].claim[:300]!r} "
            f"({len(queries[i].constraints)} constraints)" for i in slowest))
    print(f"  (section wall time {time.perf_counter() - t_start:.1f} s)")


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


def _fresh_scope(new: Callable[[list[str]], object], ren: Callable[[int], list[str]],
                 counter: Iterator[int]) -> Callable[[], object]:
    """A scope from renamed constraints at every call."""
    return lambda: new(ren(next(counter)))


def section_scope(quick: bool, have_jax: bool, summary: list[str]) -> None:
    print("\n== 2. scope creation with 1-10 constraints: symshape.SymbolicScope(cs) vs "
          "jax.export.SymbolicScope(cs) ==")
    print("  (" + "; ".join(ML_CONSTRAINTS) + "; JAX gets chains split)")
    min_time, rounds = (0.02, 5) if quick else (0.1, 7)
    print(f"  {'k':>3}{'jax same':>12}{'symshape':>12}{'ratio':>8}"
          f"{'jax fresh':>12}{'symshape':>12}{'ratio':>8}   (fresh: variables renamed per call)")
    ratios_same: list[float] = []
    ratios_fresh: list[float] = []
    for k in range(1, 11):
        cs = list(ML_CONSTRAINTS[:k])
        jcs = jax_constraints(cs)
        ren_s, ren_j = renamer(cs), renamer(jcs)
        counter = itertools.count()
        fns: dict[str, Callable[[], object]] = {
            "symshape": functools.partial(symshape.SymbolicScope, cs),
            "symshape_fresh": _fresh_scope(symshape.SymbolicScope, ren_s, counter),
        }
        if have_jax:
            assert JAX_EXPORT is not None
            fns["jax"] = functools.partial(JAX_EXPORT.SymbolicScope, jcs)
            fns["jax_fresh"] = _fresh_scope(JAX_EXPORT.SymbolicScope, ren_j, counter)
        t = compare(fns, min_time=min_time, rounds=rounds)
        tj, tjf = t.get("jax"), t.get("jax_fresh")
        print(f"  {k:3d}{fmt_time(tj) if tj else '-':>12}{fmt_time(t['symshape']):>12}"
              f"{ratio(tj, t['symshape']):>8}{fmt_time(tjf) if tjf else '-':>12}"
              f"{fmt_time(t['symshape_fresh']):>12}{ratio(tjf, t['symshape_fresh']):>8}")
        if tj and tjf:
            ratios_same.append(tj / t["symshape"])
            ratios_fresh.append(tjf / t["symshape_fresh"])
    if ratios_same:
        line = (f"scope creation, 1-10 constraints, JAX / symshape: same strings "
                f"{min(ratios_same):.1f}x-{max(ratios_same):.1f}x, fresh strings "
                f"{min(ratios_fresh):.1f}x-{max(ratios_fresh):.1f}x")
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
                    help="about 2 minutes: 200 queries, 2 rounds, short batches, 2 s JAX cap")
    ap.add_argument("--n", type=int, default=None, help="queries in the corpus (default 1600)")
    ap.add_argument("--rounds", type=int, default=None, help="rounds per query (default 5)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--cap", type=float, default=None,
                    help="skip JAX scaling cells predicted to exceed this many seconds")
    ap.add_argument("--only", default="corpus,scope,cold,scaling",
                    help="comma-separated sections to run")
    args = ap.parse_args(argv)
    n = args.n if args.n is not None else (200 if args.quick else 1600)
    rounds = args.rounds if args.rounds is not None else (2 if args.quick else 5)
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
    if "corpus" in sections:
        section_corpus(n, args.seed, rounds, have_jax, summary)
    if "scope" in sections:
        section_scope(args.quick, have_jax, summary)
    if "cold" in sections:
        section_cold(args.quick, have_jax, summary)
    if "scaling" in sections:
        section_scaling(args.quick, have_jax, cap, summary)
    print("\n== summary (JAX / symshape; targets of issue 10: one-off median and p90 >= 5x, "
          "scope creation >= 3x) ==")
    for line in summary:
        print("  " + line)
    print(f"  (total wall time {time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
