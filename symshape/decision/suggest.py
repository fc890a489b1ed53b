"""Suggested constraints: what would settle a claim that is not proved.

For an inconclusive or undecided claim, :func:`suggestions_for_verdict` finds
the weakest *simple* constraints over the claim's own variables under which
the claim is proved:

* one-variable bounds, ``h >= 3`` or ``s <= 8192``: the tightest threshold that
  works, found by a search on the bound that starts above the verdict's
  counterexample (every weaker bound admits it) and the scope's bounds;
* divisibility, ``mod(n, 128) == 0``, for a constant divisor of the claim (and
  the smallest divisor of it that still works);
* relations between two variables, ``a >= b``, ``a >= b + 2``, ``a + 1 >= b``;
* the claim itself, when it can be a constraint (what JAX's documentation
  advises), after the simpler ones, and only if none of them is equivalent to it;
  a chain without the links the scope proves (``b <= c`` for ``a <= b <= c``
  under ``a <= b``).

No suggestion implies another (a weaker one settles the claim too), except
that every one implies the claim itself and what is equivalent to it.

Every suggestion was checked twice: the claim is proved in a new scope with
the scope's constraints plus the suggestion, and a concrete valuation was
exhibited that satisfies the scope's constraints and the suggestion (checked
exactly, by pinning every variable to its value), so no suggestion contradicts
the scope.  The work is bounded: at most :data:`MAX_PROOFS` candidate proofs,
plus two checks per suggestion kept.  The answer depends only on the claim, the
constraints and the verdict's valuations, never on the history of queries, and
the order of the suggestions never on the variables' names.
"""

from __future__ import annotations

import contextlib
import math
import re
import time
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from symshape.algebra.atoms import FloorDiv
from symshape.algebra.dimexpr import DimExpr
from symshape.build import parse_comparison_in_scope
from symshape.decision.verdict import Status, Verdict
from symshape.errors import SymshapeError
from symshape.scope import SymbolicScope
from symshape.util import digits_to_int, int_to_digits


class Prover(Protocol):
    """The signature of :func:`symshape.prove` that suggestions use."""

    def __call__(self, claim: str, *, constraints: Iterable[str] = (),
                 budget: float = 1.0, time_limit: float | None = None) -> Verdict: ...


MAX_PROOFS = 64
"""Candidate proofs per claim (each with the budget ``prove`` was called with)."""
MAX_SUGGESTIONS = 8
"""At most this many suggestions are returned (the weakest first)."""
BIG = 2**40
"""The largest threshold tried for a lower bound or a relation: a bound that
only works beyond it is not suggested."""
_MAX_DIVISORS = 4  # distinct constant divisors of the claim tried (the smallest)
_MAX_HINT_CONSTANTS = 6  # constants of the claim used as first guesses of a threshold

_LOWER, _UPPER, _DIVISIBILITY, _RELATION, _CLAIM = range(5)  # also the order shown

_IDENT = re.compile(r"[^\W\d]\w*")
_INT = re.compile(r"(?<![\w.])\d+(?![\w.])")


class _OutOfProofs(Exception):
    """The budget of candidate proofs is spent."""


@dataclass(frozen=True)
class _Form:
    """A linear form ``t = sum(c * var)`` over the claim's variables whose
    threshold ``t >= k`` is searched; ``text(k)`` is that constraint."""

    kind: int
    terms: tuple[tuple[str, int], ...]

    def value(self, env: dict[str, int] | None) -> int | None:
        if env is None or any(v not in env for v, _ in self.terms):
            return None
        return sum(c * env[v] for v, c in self.terms)

    def text(self, k: int) -> str:
        if self.kind == _LOWER:
            return f"{self.terms[0][0]} >= {int_to_digits(k)}"
        if self.kind == _UPPER:
            return f"{self.terms[0][0]} <= {int_to_digits(-k)}"
        u, v = self.terms[0][0], self.terms[1][0]
        if k > 0:
            return f"{u} >= {v} + {int_to_digits(k)}"
        if k < 0:
            return f"{u} + {int_to_digits(-k)} >= {v}"
        return f"{u} >= {v}"


@dataclass(frozen=True)
class _Found:
    """A suggestion: ``text``, of ``kind``, about the variables ``names``, with
    its threshold or divisor ``k``."""

    text: str
    kind: int
    key: tuple[int, ...]  # order within the kind (weakest first), name independent
    names: tuple[str, ...]
    k: int = 0

    def moved(self, env: dict[str, int]) -> list[dict[str, int]]:
        """Valuations near ``env`` that satisfy the suggestion itself (candidate
        models of the scope plus the suggestion)."""
        n, k = self.names[0], self.k
        if n not in env:
            return []
        if self.kind == _LOWER:
            return [{**env, n: max(env[n], k)}]
        if self.kind == _UPPER:
            return [{**env, n: min(env[n], k)}]
        if self.kind == _DIVISIBILITY:
            return [{**env, n: k * -(-env[n] // k)}, {**env, n: k * env[n]}]
        if self.kind == _RELATION and self.names[1] in env:
            m = self.names[1]
            out = [{**env, n: max(env[n], env[m] + k)}]
            if env[n] - k >= 1:
                out.append({**env, m: min(env[m], env[n] - k)})
            return out
        return []


class _Suggester:
    """The search for one verdict: counts candidate proofs and memoizes them."""

    def __init__(self, verdict: Verdict, budget: float, max_proofs: int,
                 prove: Prover, deadline: float | None = None) -> None:
        self.prove = prove
        # time.monotonic() past which no proof starts (the time limit of the
        # prove() call whose verdict this is); each proof gets what is left.
        self.deadline = deadline
        self.claim = verdict.claim
        self.constraints = tuple(verdict.constraints)
        self.verdict = verdict
        self.budget = budget
        self.left = max_proofs
        self._memo: dict[tuple[str, tuple[str, ...]], bool] = {}

    # -- proofs -----------------------------------------------------------------
    def _prove(self, target: str, extra: tuple[str, ...], counted: bool) -> bool:
        """Is ``target`` proved under the constraints plus ``extra``?  (The
        valuations of a failed attempt are not read: minimizing them costs more
        than the attempt.)"""
        key = (target, extra)
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        left = self._time_left()
        if left is not None and left <= 0:
            if counted:
                raise _OutOfProofs
            return False  # not shown within the time limit
        if counted:
            if self.left <= 0:
                raise _OutOfProofs
            self.left -= 1
        try:
            out = self.prove(target, constraints=[*self.constraints, *extra],
                             budget=self.budget, time_limit=left).status is Status.PROVED
        except SymshapeError:  # an unsatisfiable scope, or a claim that is no constraint
            out = False
        self._memo[key] = out
        return out

    def _time_left(self) -> float | None:
        """Seconds left before the deadline (None: no time limit)."""
        return None if self.deadline is None else self.deadline - time.monotonic()

    def works(self, constraint: str) -> bool:
        """Does ``constraint`` make the claim proved (a counted candidate proof)?"""
        return self._prove(self.claim, (constraint,), counted=True)

    def implies(self, premise: str, conclusion: str) -> bool:
        """Does ``premise`` (with the scope) prove ``conclusion``?  Not counted:
        asked at most twice per pair of suggestions (sharing a variable)."""
        return self._prove(conclusion, (premise,), counted=False)

    def holds(self, claim: str) -> bool:
        """Does the scope alone prove ``claim`` (a link of a chain)?  Not counted."""
        return self._prove(claim, (), counted=False)

    # -- valuations -------------------------------------------------------------
    def satisfies(self, env: dict[str, int] | None, texts: Sequence[str]) -> bool:
        """Exactly: does ``env`` satisfy the scope's constraints and ``texts``?
        Every variable is pinned to its value, so each constraint folds to a
        constant comparison, and a false one makes the scope unsatisfiable."""
        if env is None:
            return False
        needed = set().union(*(_variables(t) for t in (*self.constraints, *texts)))
        if not needed <= set(env) or any(env[v] < 1 for v in needed):
            return False
        pins = [f"{v} == {int_to_digits(env[v])}" for v in sorted(needed)]
        try:
            SymbolicScope([*pins, *self.constraints, *texts])
        except SymshapeError:
            return False
        return True

    def has_model(self, found: _Found) -> bool:
        """A valuation exhibited that satisfies the scope and the suggestion:
        the verdict's witness, or its witness or counterexample moved into the
        suggestion (``v >= k``: ``v`` raised to ``k``, ...), or else a model of
        the new scope (the counterexample of ``v <= 0``, false everywhere)."""
        text = found.text
        for base in (self.verdict.witness, self.verdict.counterexample):
            if base is None:
                continue
            for env in (base, *found.moved(base)):
                if self.satisfies(env, [text]):
                    return True
        left = self._time_left()
        if left is not None and left <= 0:
            return False  # no model shown within the time limit: not suggested
        try:
            v = self.prove(f"{found.names[0]} <= 0", constraints=[*self.constraints, text],
                           budget=self.budget, time_limit=left)
        except SymshapeError:  # UnsatisfiableConstraintsError: it contradicts the scope
            return False
        return self.satisfies(v.counterexample, [text])

    # -- threshold search ---------------------------------------------------------
    def threshold(self, form: _Form, known_fail: int | None, strongest: int,
                  hints: Sequence[int]) -> int | None:
        """The least ``k <= strongest`` such that ``form.text(k)`` makes the
        claim proved, or None (also when the proofs ran out before the least
        one was found: a stronger bound than needed is not suggested).  Every
        ``k <= known_fail`` is known to fail, and so is every ``k`` up to the
        form's value at the verdict's counterexample (which satisfies it)."""
        fail = known_fail
        seen = form.value(self.verdict.counterexample)
        if seen is not None:
            fail = seen if fail is None else max(fail, seen)
        if fail is not None and fail >= strongest:
            return None
        try:
            # The strongest bound first: if it does not work, no bound does.
            if not self.works(form.text(strongest)):
                return None
            work = strongest
            if fail is None:  # nothing known below: from 0 downwards
                k, step = min(0, work - 1), 1
                while fail is None:
                    if k < -BIG:
                        return None
                    if self.works(form.text(k)):
                        work, k, step = k, k - step, step * 2
                    else:
                        fail = k
            # Constants of the claim are likely thresholds (b >= 16, h >= 3).
            for k in hints:
                if fail < k < work:
                    if self.works(form.text(k)):
                        work = k
                        break
                    fail = k
            while work - fail > 1:
                mid = _split(fail, work)
                if self.works(form.text(mid)):
                    work = mid
                else:
                    fail = mid
        except _OutOfProofs:
            return None
        return work

    def divisor(self, name: str, m: int) -> int | None:
        """The smallest divisor ``d`` of ``m`` (reached by removing prime factors
        one at a time) with ``mod(name, d) == 0`` making the claim proved."""
        try:
            if not self.works(_mod_text(name, m)):
                return None
        except _OutOfProofs:
            return None
        d = m
        try:
            shrunk = True
            while shrunk:
                shrunk = False
                for p in _prime_factors(d):
                    if d // p >= 2 and self.works(_mod_text(name, d // p)):
                        d //= p
                        shrunk = True
                        break
        except _OutOfProofs:
            pass
        return d


def _split(lo: int, hi: int) -> int:
    """A threshold strictly between ``lo`` and ``hi`` (``hi - lo >= 2``) to try
    next: the geometric mean while they differ by orders of magnitude (so that
    a threshold of 64 between 1 and 2**40 costs about 6 + 6 proofs, not 40),
    then the midpoint."""
    if lo >= 0 and hi > 4 * max(lo, 1):
        mid = math.isqrt(max(lo, 1) * hi)
    elif hi <= 0 and -lo > 4 * max(-hi, 1):
        mid = -math.isqrt(max(-hi, 1) * -lo)
    elif lo < 0 < hi:
        mid = 0
    else:
        mid = (lo + hi) // 2
    return min(max(mid, lo + 1), hi - 1)


def _mod_text(name: str, d: int) -> str:
    return f"mod({name}, {int_to_digits(d)}) == 0"


def _prime_factors(n: int) -> list[int]:
    """The prime factors of ``n`` (ascending) found by trial division below
    10**5, then the remaining cofactor, if any."""
    out: list[int] = []
    p = 2
    while p * p <= n and p < 100_000:
        if n % p == 0:
            out.append(p)
            while n % p == 0:
                n //= p
        p += 1
    if n > 1:
        out.append(n)
    return out


def _variables(text: str) -> set[str]:
    """The identifiers of ``text`` that are not function names."""
    out: set[str] = set()
    for m in _IDENT.finditer(text):
        rest = text[m.end():].lstrip()
        if not rest.startswith("("):
            out.add(m.group())
    return out


def _first_positions(text: str, names: Iterable[str]) -> dict[str, int]:
    """Where each name first occurs in ``text`` (an order that renaming keeps)."""
    pos: dict[str, int] = {}
    for m in _IDENT.finditer(text):
        if m.group() in names and m.group() not in pos:
            pos[m.group()] = m.start()
    return pos


def _claim_parts(claim: str) -> tuple[list[str], list[int]]:
    """The claim's variables (in order of first occurrence) and its constant
    divisors (ascending), read from the claim parsed without constraints."""
    names: set[str] = set()
    divisors: set[int] = set()
    for _op, lhs, rhs in parse_comparison_in_scope(claim, SymbolicScope()):
        for side in (lhs, rhs):
            if isinstance(side, DimExpr):
                names |= side.free_vars
                for a in side.atoms(recursive=True):
                    if isinstance(a, FloorDiv) and isinstance(a.den, int) and a.den >= 2:
                        divisors.add(a.den)
    pos = _first_positions(claim, names)
    order = sorted(names, key=lambda n: (pos.get(n, len(claim)), n))
    return order, sorted(divisors)[:_MAX_DIVISORS]


def _hints(claim: str) -> list[int]:
    """Constants of the claim and their neighbours: first guesses of a threshold."""
    consts: list[int] = []
    for m in _INT.finditer(claim):
        c = digits_to_int(m.group())
        if c not in consts:
            consts.append(c)
    consts = sorted(consts)[:_MAX_HINT_CONSTANTS]
    return sorted({c + d for c in consts for d in (-1, 0, 1)})


def _finite(b: float | int) -> int | None:
    return int(b) if not (isinstance(b, float) and math.isinf(b)) else None


def suggestions_for_verdict(verdict: Verdict, *, prove: Prover, budget: float = 1.0,
                            max_proofs: int = MAX_PROOFS,
                            deadline: float | None = None) -> tuple[str, ...]:
    """Constraints, weakest first, each of which added to the verdict's scope
    makes its claim proved (checked), none contradicting the scope (a valuation
    satisfying both was exhibited).  Empty for a proved or refuted claim.

    Args:
      verdict: the verdict of :func:`symshape.prove`.
      prove: :func:`symshape.prove` (passed in: this module sits below it).
      budget: the budget scale of each candidate proof.
      max_proofs: the number of candidate proofs allowed.
      deadline: ``time.monotonic()`` past which no candidate proof starts
        (each gets the time left as its time limit); None for no limit.
    """
    if verdict.status not in (Status.INCONCLUSIVE, Status.UNDECIDED):
        return ()
    s = _Suggester(verdict, budget, max_proofs, prove, deadline)
    try:
        names, divisors = _claim_parts(verdict.claim)
        scope = SymbolicScope(verdict.constraints)
    except SymshapeError:
        return ()
    if not names:
        return ()
    occ = {n: i for i, n in enumerate(names)}
    found: list[_Found] = []

    claim_ok = False
    with contextlib.suppress(_OutOfProofs):
        claim_ok = s.works(verdict.claim)
    hints = _hints(verdict.claim)

    def bounds(terms: tuple[tuple[str, int], ...]) -> tuple[int | None, int | None]:
        """The scope's bounds of the form (None: unbounded)."""
        e: DimExpr | int = 0
        for v, c in terms:
            e = e + c * scope.var(v)
        if isinstance(e, int):
            return e, e
        lo, hi = scope.bounds(e)
        return _finite(lo), _finite(hi)

    # One-variable bounds.
    for n in names:
        lo, hi = bounds(((n, 1),))
        lo = 1 if lo is None else max(lo, 1)
        if hi is not None and hi <= lo:
            continue  # the scope fixes the variable: no bound on it can help
        form = _Form(_LOWER, ((n, 1),))
        k = s.threshold(form, lo, hi if hi is not None else BIG, hints)
        if k is not None:
            found.append(_Found(form.text(k), _LOWER, (k - lo, occ[n]), (n,), k))
        form = _Form(_UPPER, ((n, -1),))
        k = s.threshold(form, -hi if hi is not None else None, -lo, sorted(-h for h in hints))
        if k is not None:
            found.append(_Found(form.text(k), _UPPER, (k, occ[n]), (n,), -k))
    # Divisibility by a constant divisor of the claim.
    for n in names:
        kept: list[int] = []
        for m in divisors:
            d = s.divisor(n, m)
            if d is not None and not any(d % e == 0 for e in kept):
                kept = [e for e in kept if e % d != 0] + [d]
        for d in kept:
            found.append(_Found(_mod_text(n, d), _DIVISIBILITY, (d, occ[n]), (n,), d))
    # Relations between two variables.
    rel_hints = sorted({h for x in hints for h in (x, -x)})
    for u in names:
        for v in names:
            if u == v:
                continue
            terms = ((u, 1), (v, -1))
            lo, hi = bounds(terms)
            form = _Form(_RELATION, terms)
            k = s.threshold(form, lo, hi if hi is not None else BIG, rel_hints)
            if k is not None:
                found.append(_Found(form.text(k), _RELATION, (k, occ[u], occ[v]), (u, v), k))
    if claim_ok:
        found.append(_Found(_open_links(verdict.claim, s), _CLAIM, (), tuple(names)))

    found.sort(key=lambda f: (f.kind, f.key))
    out: list[str] = []
    shown: list[_Found] = []
    for f in found:
        if len(out) >= MAX_SUGGESTIONS:
            break
        if f.text in out or not s.has_model(f):
            continue
        # No suggestion implies another: the weaker one settles the claim too
        # (of two equivalent ones, the first is kept).  Every suggestion
        # implies the claim itself, so the claim and what is equivalent to it
        # remove none: the claim comes last, when no simpler one says it.
        related = [g for g in shown if set(f.names) & set(g.names)]
        if any(s.implies(f.text, g.text) for g in related):
            continue
        says_claim = f.kind == _CLAIM or s.implies(verdict.claim, f.text)
        stronger = set() if says_claim else \
            {g.text for g in related if s.implies(g.text, f.text)}
        out = [t for t in out if t not in stronger]
        shown = [g for g in shown if g.text not in stronger]
        out.append(f.text)
        shown.append(f)
    return tuple(out)


def _open_links(claim: str, s: _Suggester) -> str:
    """The claim as a constraint: a chain (``a <= b <= c``) without the links
    the scope already proves, when those left are consecutive (``b <= c``)."""
    try:
        links = parse_comparison_in_scope(claim, SymbolicScope())
    except SymshapeError:
        return claim
    if len(links) < 2:
        return claim
    open_ = [i for i, (op, lhs, rhs) in enumerate(links)
             if not s.holds(f"{lhs} {op} {rhs}")]
    if not open_ or len(open_) == len(links) or open_ != list(range(open_[0], open_[-1] + 1)):
        return claim
    first = links[open_[0]]
    text = f"{first[1]} {first[0]} {first[2]}"
    for i in open_[1:]:
        text += f" {links[i][0]} {links[i][2]}"
    return text


def with_suggestions(verdict: Verdict, prove: Prover, budget: float = 1.0,
                     deadline: float | None = None) -> Verdict:
    """``verdict`` whose ``suggestions`` are computed (by
    :func:`suggestions_for_verdict`, within ``deadline``) when first read:
    nothing is computed here."""
    ref: weakref.ref[Verdict] | None = None

    def compute() -> tuple[str, ...]:
        # The verdict itself, not the one it was copied from, so that the
        # valuations it has already computed are reused.
        v = ref() if ref is not None else None
        return suggestions_for_verdict(v, prove=prove, budget=budget, deadline=deadline) \
            if v is not None else ()

    out = verdict.with_suggestions(compute)
    ref = weakref.ref(out)
    return out


__all__ = ["BIG", "MAX_PROOFS", "MAX_SUGGESTIONS", "suggestions_for_verdict", "with_suggestions"]
