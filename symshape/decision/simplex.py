"""Exact simplex over bounded variables, with explanations of infeasibility.

This is the "general simplex" of Dutertre and de Moura (CAV 2006), as used in
SMT solvers: every variable may have a lower and an upper bound, the tableau
expresses the basic variables as linear combinations of the non-basic ones, and
:meth:`Simplex.check` restores all bounds by pivoting, using Bland's rule
(smallest violated basic variable, smallest eligible non-basic variable), so it
terminates.  When a violated row cannot be repaired, the row and the bounds of
its variables are a Farkas certificate of infeasibility: the conflict
explanation lists positive integer multipliers of the bound *reasons* whose sum
is a negative constant.

Arithmetic is exact and integer-only: a row is ``den * x_b = sum(c_k * x_k)``
with integer coefficients normalized by their gcd, non-basic variables always
sit at integer values (a bound, or 0), and the value of a basic variable is the
fraction ``num / den``.  Bounds are asserted and retracted with a trail, which
is what branch and bound needs.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from fractions import Fraction
from typing import Any, Final

from symshape import arguments

Conflict = list[tuple[int, Any]]


class BudgetExceeded(Exception):
    """The work budget of a query is spent."""


#: Nested case splits of one search at the default budget.  The search is
#: depth first: a branch that runs this deep ends it as undecided, so the
#: depth bounds the time to give up on a claim the splits do not settle (an
#: integer column split again and again).  On the decision benchmarks'
#: corpora (600 generated claims and 20 families) no claim decided with 60
#: needed more than 30, and the searches that reach 30 give up in half the
#: time.
BASE_DEPTH = 30
#: the depth no budget goes past
MAX_DEPTH = 120


def search_depth(scale: float) -> int:
    """The depth of case splits a budget ``scale`` allows: the default's
    :data:`BASE_DEPTH`, deeper by 15 for each doubling of the budget (a user
    who asks for more gets a deeper case analysis too), at most
    :data:`MAX_DEPTH`."""
    if scale <= 1:
        return BASE_DEPTH
    return min(MAX_DEPTH, BASE_DEPTH + int(15 * math.log2(scale)))


#: Splits in a row of one form, each one integer further, that a search path
#: may take at the default budget (see ``Search._walking``).  Such a walk
#: closes one case per step and splits the other again: unless the bound it
#: walks towards is a few steps away, it only ends at the depth limit, having
#: spent the query's time on a give-up.
BASE_WALK = 6


def walk_limit(scale: float) -> int:
    """The unit steps in a row a budget ``scale`` allows: the default's
    :data:`BASE_WALK`, longer by 4 for each doubling of the budget (a user
    who asks for more gets the longer walk; the depth still bounds it)."""
    if scale <= 1:
        return BASE_WALK
    return min(MAX_DEPTH, BASE_WALK + int(4 * math.log2(scale)))


#: A staged budget's first stage is this fraction (1/4) of its work.  A search
#: that closed no case split (both cases refuted) in it has found nothing
#: that more of the same search would build on: on the benchmark corpora
#: (the decision benchmark's 3,000 claims and 1,200 family queries, the cold
#: path's 270) no claim decided needed more than this share of the
#: comparisons' budget, and the searches that run out of it and close
#: nothing give up in a quarter of the time.
FIRST_STAGE = 4


#: Told of every :class:`Budget` made.  Empty unless something measures the
#: engine's work (the test suite's work meter, ``tests/conftest.py``): a
#: compiled class cannot be wrapped from outside, so the meter listens here.
BUDGET_WATCHERS: Final[list[Callable[[Budget], None]]] = []
#: Told of every :class:`Simplex` tableau made (as :data:`BUDGET_WATCHERS`).
TABLEAU_WATCHERS: Final[list[Callable[[Simplex], None]]] = []


class Budget:
    """Counts the work of one query: row updates in pivots, and search nodes.

    Work is counted, not wall-clock time, so answers are reproducible: the
    same query in the same scope always gets the same answer.
    """

    __slots__ = ("work", "nodes", "pivots", "max_work", "max_nodes", "max_depth", "max_walk",
                 "stage_work")

    def __init__(self, max_work: int, max_nodes: int, max_depth: int = BASE_DEPTH,
                 max_walk: int = BASE_WALK) -> None:
        self.work = 0
        self.nodes = 0
        self.pivots = 0
        self.max_work = max_work
        self.max_nodes = max_nodes
        #: nested case splits of one search at most (see :func:`search_depth`)
        self.max_depth = max_depth
        #: unit steps in a row of one split form on a path (see :func:`walk_limit`)
        self.max_walk = max_walk
        #: the work after which a search that has closed no case split gives up
        #: (None: no such first stage; see :meth:`staged`)
        self.stage_work: int | None = None
        if BUDGET_WATCHERS:
            for watch in BUDGET_WATCHERS:
                watch(self)

    def staged(self) -> Budget:
        """This budget in two stages: past a :data:`FIRST_STAGE` share of its
        work, a search goes on only if it has closed a case split by then
        (see ``Search._node``).  Returns itself."""
        self.stage_work = self.max_work // FIRST_STAGE
        return self

    def spend(self, units: int) -> None:
        """Spend ``units`` of work (one unit is about one row update)."""
        self.work += units
        if self.work > self.max_work:
            raise BudgetExceeded("work budget")

    def node(self) -> None:
        """Spend one search node."""
        self.nodes += 1
        self.spend(4)
        if self.nodes > self.max_nodes:
            raise BudgetExceeded("node budget")


class TimedBudget(Budget):
    """A :class:`Budget` that also stops at a wall-clock deadline and reports
    progress.  Only queries that ask for a time limit or a progress line use
    it (an answer that depends on the clock is not reproducible), so the
    default path never reads the clock."""

    __slots__ = ("limits",)

    def __init__(self, max_work: int, max_nodes: int, limits: Limits) -> None:
        super().__init__(max_work, max_nodes, search_depth(limits.scale),
                         walk_limit(limits.scale))
        self.limits = limits

    def node(self) -> None:
        """Spend one search node; check the deadline and report progress."""
        super().node()
        self.limits.tick()


class Limits:
    """What a user asked of one query: a scale of the default work budgets,
    an optional time limit in seconds, and an optional progress callback
    ``progress(elapsed_seconds, what)`` (called at most every 0.2 s)."""

    __slots__ = ("scale", "deadline", "progress", "what", "_start", "_next_report")

    # (The arguments are the user's, checked here: typed as anything, since the
    # compiled build checks annotations before the body runs.)
    def __init__(self, scale: object = 1.0, time_limit: object = None,
                 progress: object = None) -> None:
        self.scale = arguments.budget(scale)
        limit = arguments.time_limit(time_limit)
        self._start = time.monotonic()
        self.deadline = None if limit is None else self._start + limit
        self.progress = arguments.callback(progress, "progress")
        self.what = "deciding"
        self._next_report = self._start + 0.2

    @property
    def timed(self) -> bool:
        """Does this query need the clock (a time limit or progress reports)?"""
        return self.deadline is not None or self.progress is not None

    def budget(self, base: tuple[int, int]) -> Budget:
        """A fresh budget for one search: ``base`` scaled, with the clock if needed."""
        work, nodes = max(1, int(base[0] * self.scale)), max(1, int(base[1] * self.scale))
        if self.timed:
            return TimedBudget(work, nodes, self)
        return Budget(work, nodes, search_depth(self.scale), walk_limit(self.scale))

    def tick(self) -> None:
        """Raise :class:`BudgetExceeded` past the deadline; report progress."""
        now = time.monotonic()
        if self.deadline is not None and now > self.deadline:
            raise BudgetExceeded("time limit")
        if self.progress is not None and now >= self._next_report:
            self._next_report = now + 0.2
            self.progress(now - self._start, self.what)


DEFAULT_LIMITS = Limits()


def _normalize(den: int, row: dict[int, int]) -> tuple[int, dict[int, int]]:
    g = math.gcd(den, *row.values())
    if g > 1:
        return den // g, {k: c // g for k, c in row.items()}
    return den, row


class Simplex:
    """A tableau over ``n`` variables with optional integer bounds.

    Rows are added with :meth:`add_row` before any bound is asserted.
    """

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.lo: list[int | None] = []
        self.hi: list[int | None] = []
        self.lo_r: list[Any] = []
        self.hi_r: list[Any] = []
        self.val: list[int] = []  # values of non-basic variables
        self.rows: dict[int, tuple[int, dict[int, int]]] = {}
        self.num: dict[int, int] = {}  # basic variable -> numerator of its value
        self.trail: list[tuple[int, int, int | None, Any]] = []
        # Basic variables that may be out of bounds: every basic variable not
        # in it is within its bounds, so check() scans only these rows, not
        # the whole tableau (a superset is fine; it is pruned by each scan).
        self.dirty: set[int] = set()
        if TABLEAU_WATCHERS:
            for watch in TABLEAU_WATCHERS:
                watch(self)

    # -- construction ----------------------------------------------------------
    def add_var(self) -> int:
        """A new non-basic variable at value 0, without bounds."""
        v = len(self.lo)
        self.lo.append(None)
        self.hi.append(None)
        self.lo_r.append(None)
        self.hi_r.append(None)
        self.val.append(0)
        return v

    def add_vars(self, n: int) -> None:
        """``n`` new non-basic variables, as :meth:`add_var` (in one go)."""
        self.lo.extend([None] * n)
        self.hi.extend([None] * n)
        self.lo_r.extend([None] * n)
        self.hi_r.extend([None] * n)
        self.val.extend([0] * n)

    def add_row(self, coeffs: dict[int, int]) -> int:
        """A new basic variable equal to ``sum(coeffs[k] * x_k)``."""
        s = self.add_var()
        rows = self.rows
        if rows.keys().isdisjoint(coeffs):
            # Over non-basic variables only (always so before the first
            # pivot): the row is the coefficients, in their order, with
            # denominator 1 (a gcd with 1 is 1: nothing to normalize).
            row = {k: c for k, c in coeffs.items() if c}
            rows[s] = (1, row)
            val = self.val
            self.num[s] = sum([c * val[k] for k, c in row.items()])
            self.dirty.add(s)
            return s
        den = 1
        row = {}
        for k, c in coeffs.items():
            r = self.rows.get(k)
            if r is None:
                row[k] = row.get(k, 0) + c * den
                continue
            # substitute a basic variable: den_k * x_k = sum(r_j x_j)
            dk, rk = r
            row = {j: v * dk for j, v in row.items()}
            den *= dk
            for j, v in rk.items():
                row[j] = row.get(j, 0) + c * v * (den // dk)
        row = {k: c for k, c in row.items() if c}
        den, row = _normalize(den, row)
        self.rows[s] = (den, row)
        val = self.val
        self.num[s] = sum([c * val[k] for k, c in row.items()])
        self.dirty.add(s)
        return s

    # -- values ----------------------------------------------------------------
    def value(self, v: int) -> Fraction:
        """Current value of variable ``v``."""
        r = self.rows.get(v)
        if r is None:
            return Fraction(self.val[v])
        return Fraction(self.num[v], r[0])

    def parts(self, v: int) -> tuple[int, int]:
        """Current value of ``v`` as ``(numerator, denominator)``, denominator > 0."""
        r = self.rows.get(v)
        if r is None:
            return self.val[v], 1
        return self.num[v], r[0]

    def _set_nonbasic(self, v: int, x: int) -> None:
        delta = x - self.val[v]
        if not delta:
            return
        self.val[v] = x
        num, dirty = self.num, self.dirty
        for b, (_, row) in self.rows.items():
            c = row.get(v)
            if c is not None:
                num[b] += c * delta
                dirty.add(b)  # its value moved

    # -- bounds ----------------------------------------------------------------
    def mark(self) -> int:
        """A trail position to :meth:`undo` to."""
        return len(self.trail)

    def undo(self, mark: int) -> None:
        """Retract the bounds asserted since ``mark``."""
        while len(self.trail) > mark:
            v, which, old, reason = self.trail.pop()
            if which == 0:
                self.lo[v], self.lo_r[v] = old, reason
            else:
                self.hi[v], self.hi_r[v] = old, reason

    def assert_lower(self, v: int, b: int, reason: Any) -> Conflict | None:
        """Assert ``x_v >= b``; a conflict if it contradicts the upper bound."""
        lo = self.lo[v]
        if lo is not None and lo >= b:
            return None
        hi = self.hi[v]
        if hi is not None and b > hi:
            return [(1, reason), (1, self.hi_r[v])]
        self.trail.append((v, 0, lo, self.lo_r[v]))
        self.lo[v] = b
        self.lo_r[v] = reason
        if v in self.rows:
            self.dirty.add(v)
        elif self.val[v] < b:
            self._set_nonbasic(v, b)
        return None

    def assert_upper(self, v: int, b: int, reason: Any) -> Conflict | None:
        """Assert ``x_v <= b``; a conflict if it contradicts the lower bound."""
        hi = self.hi[v]
        if hi is not None and hi <= b:
            return None
        lo = self.lo[v]
        if lo is not None and b < lo:
            return [(1, reason), (1, self.lo_r[v])]
        self.trail.append((v, 1, hi, self.hi_r[v]))
        self.hi[v] = b
        self.hi_r[v] = reason
        if v in self.rows:
            self.dirty.add(v)
        elif self.val[v] > b:
            self._set_nonbasic(v, b)
        return None

    # -- the algorithm ---------------------------------------------------------
    def check(self) -> Conflict | None:
        """Find values within all bounds (``None``) or explain why none exist."""
        rows, num, val = self.rows, self.num, self.val
        lo, hi = self.lo, self.hi
        dirty = self.dirty
        budget = self.budget
        while True:
            budget.spend(1 + len(rows) // 4)
            # Bland's rule: the smallest violated basic variable.  Rows not in
            # ``dirty`` are within their bounds, so only those are scanned;
            # the ones found within bounds leave the set.
            bad = -1
            below = False
            violated: list[int] = []
            for b in dirty:
                n = num[b]
                den = rows[b][0]
                lb = lo[b]
                if lb is not None and n < lb * den:
                    violated.append(b)
                    if bad == -1 or b < bad:
                        bad, below = b, True
                    continue
                ub = hi[b]
                if ub is not None and n > ub * den:
                    violated.append(b)
                    if bad == -1 or b < bad:
                        bad, below = b, False
            dirty.clear()
            if bad == -1:
                return None
            dirty.update(violated)
            den, row = rows[bad]
            # Bland's rule: the smallest non-basic variable that can move
            enter = -1
            for k, c in row.items():
                if enter != -1 and k > enter:
                    continue
                if (c > 0) == below:
                    ub = hi[k]
                    ok = ub is None or val[k] < ub
                else:
                    lb = lo[k]
                    ok = lb is None or val[k] > lb
                if ok:
                    enter = k
            if enter == -1:
                return self._explain(bad, below)
            target = lo[bad] if below else hi[bad]
            assert target is not None
            budget.pivots += 1
            # Work grows with the size of the numbers, not only their count:
            # charge rows of huge coefficients (they can have thousands of
            # digits) per 64 bits, so the budget also bounds big arithmetic.
            bits = (den * max(map(abs, row.values()))).bit_length()
            # the rows that use ``enter`` (``bad`` among them); found by a
            # scan of the rows: cheaper than keeping an index of the columns
            # up to date through every fill-in and cancellation of a pivot
            users = [r for r, rr in rows.items() if enter in rr[1]]
            budget.spend((2 + len(rows) // 8
                          + len(users) * (2 + len(row))) * (1 + bits // 64))
            users.remove(bad)
            self._pivot(bad, enter, target, users)

    def _explain(self, b: int, below: bool) -> Conflict:
        den, row = self.rows[b]
        out: Conflict = [(den, self.lo_r[b] if below else self.hi_r[b])]
        for k, c in row.items():
            if (c > 0) == below:
                out.append((abs(c), self.hi_r[k]))
            else:
                out.append((abs(c), self.lo_r[k]))
        return out

    def _pivot(self, b: int, j: int, target: int, users: list[int]) -> None:
        """Make ``j`` basic and ``b`` non-basic at value ``target``; ``users``
        are the other rows that use ``j``.

        The values of the rows that change are updated exactly from their old
        numerators (no re-summing of rows), and those rows become dirty.
        """
        rows, num, val = self.rows, self.num, self.val
        dirty = self.dirty
        gcd = math.gcd
        den_b, row_b = rows.pop(b)
        del num[b]
        dirty.discard(b)
        a = row_b[j]
        # a * x_j = den_b * x_b - sum_{k != j} row_b[k] * x_k, written with
        # d = |a| > 0 (the row keeps row_b's order, then b: conflicts list
        # their reasons in row order, so the order is part of the answer).
        if a > 0:
            new = {k: -c for k, c in row_b.items() if k != j}
            new[b] = den_b
            d = a
        else:
            new = {k: c for k, c in row_b.items() if k != j}
            new[b] = -den_b
            d = -a
        if d != 1:
            d, new = _normalize(d, new)
        val_j = val[j]
        val[b] = target
        # s_j = d * x_j at the new point (b now sits at ``target``)
        s_j = sum([v * val[k] for k, v in new.items()])
        for r in users:
            den_r, row_r = rows[r]
            c = row_r.pop(j)
            # den_r * x_r = sum(row_r) + c * x_j, and d * x_j = sum(new):
            # d * den_r * x_r = d * sum(row_r) + c * sum(new), divided at once
            # by h = gcd(d, c): den * x_r = e * sum(row_r) + f * sum(new).
            if d == 1:
                e, f, den = 1, c, den_r
            else:
                h = gcd(d, c)
                e, f = d // h, c // h
                den = den_r * e
            n = e * (num[r] - c * val_j) + f * s_j
            if e != 1:
                for k in row_r:
                    row_r[k] *= e
            for k, v in new.items():
                if k in row_r:
                    old = row_r[k] + f * v
                    if old:
                        row_r[k] = old
                    else:
                        del row_r[k]
                else:
                    row_r[k] = f * v  # f and v are non-zero
            if den != 1:
                g = gcd(den, *row_r.values())
                if g > 1:
                    den //= g
                    n //= g
                    for k in row_r:
                        row_r[k] //= g
            if den != den_r:
                rows[r] = (den, row_r)  # else the tuple already holds row_r, updated in place
            num[r] = n
        rows[j] = (d, new)
        num[j] = s_j
        dirty.update(users)
        dirty.add(j)


__all__ = ["BASE_DEPTH", "BASE_WALK", "FIRST_STAGE", "MAX_DEPTH", "Budget", "BudgetExceeded",
           "Conflict", "Simplex", "search_depth", "walk_limit"]
