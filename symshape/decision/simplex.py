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
from typing import Any

Conflict = list[tuple[int, Any]]


class BudgetExceeded(Exception):
    """The work budget of a query is spent."""


class Budget:
    """Counts the work of one query: row updates in pivots, and search nodes.

    Work is counted, not wall-clock time, so answers are reproducible: the
    same query in the same scope always gets the same answer.
    """

    __slots__ = ("work", "nodes", "pivots", "max_work", "max_nodes")

    def __init__(self, max_work: int, max_nodes: int) -> None:
        self.work = 0
        self.nodes = 0
        self.pivots = 0
        self.max_work = max_work
        self.max_nodes = max_nodes

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
        super().__init__(max_work, max_nodes)
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

    def __init__(self, scale: float = 1.0, time_limit: float | None = None,
                 progress: Callable[[float, str], None] | None = None) -> None:
        if not (scale > 0 and math.isfinite(scale)):
            raise ValueError(f"the budget scale must be a positive number, got {scale!r}")
        if time_limit is not None and not time_limit > 0:
            raise ValueError(f"the time limit must be a positive number of seconds, "
                             f"got {time_limit!r}")
        self.scale = scale
        self._start = time.monotonic()
        self.deadline = None if time_limit is None else self._start + time_limit
        self.progress = progress
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
        return Budget(work, nodes)

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
        self.col: list[set[int]] = []  # non-basic variable -> basic rows that use it
        self.trail: list[tuple[int, int, int | None, Any]] = []

    # -- construction ----------------------------------------------------------
    def add_var(self) -> int:
        """A new non-basic variable at value 0, without bounds."""
        v = len(self.lo)
        self.lo.append(None)
        self.hi.append(None)
        self.lo_r.append(None)
        self.hi_r.append(None)
        self.val.append(0)
        self.col.append(set())
        return v

    def add_row(self, coeffs: dict[int, int]) -> int:
        """A new basic variable equal to ``sum(coeffs[k] * x_k)``."""
        s = self.add_var()
        den = 1
        row: dict[int, int] = {}
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
        for k in row:
            self.col[k].add(s)
        self.num[s] = sum(c * self.val[k] for k, c in row.items())
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
        for b in self.col[v]:
            self.num[b] += self.rows[b][1][v] * delta

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
        if v not in self.rows and self.val[v] < b:
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
        if v not in self.rows and self.val[v] > b:
            self._set_nonbasic(v, b)
        return None

    # -- the algorithm ---------------------------------------------------------
    def check(self) -> Conflict | None:
        """Find values within all bounds (``None``) or explain why none exist."""
        rows = self.rows
        lo, hi = self.lo, self.hi
        while True:
            self.budget.spend(1 + len(rows) // 4)
            bad = -1
            below = False
            for b, (den, _) in rows.items():
                if bad != -1 and b > bad:
                    continue
                n = self.num[b]
                lb = lo[b]
                if lb is not None and n < lb * den:
                    bad, below = b, True
                    continue
                ub = hi[b]
                if ub is not None and n > ub * den:
                    bad, below = b, False
            if bad == -1:
                return None
            den, row = rows[bad]
            enter = -1
            for k, c in row.items():
                if enter != -1 and k > enter:
                    continue
                if (c > 0) == below:
                    ok = hi[k] is None or self.val[k] < hi[k]  # type: ignore[operator]
                else:
                    ok = lo[k] is None or self.val[k] > lo[k]  # type: ignore[operator]
                if ok:
                    enter = k
            if enter == -1:
                return self._explain(bad, below)
            target = lo[bad] if below else hi[bad]
            assert target is not None
            self.budget.pivots += 1
            # Work grows with the size of the numbers, not only their count:
            # charge rows of huge coefficients (they can have thousands of
            # digits) per 64 bits, so the budget also bounds big arithmetic.
            bits = (den * max(abs(c) for c in row.values())).bit_length()
            self.budget.spend((2 + len(self.rows) // 8
                               + len(self.col[enter]) * (2 + len(row))) * (1 + bits // 64))
            touched = self._pivot(bad, enter)
            self.val[bad] = target
            val = self.val
            for b in touched:
                self.num[b] = sum(c * val[k] for k, c in rows[b][1].items())

    def _explain(self, b: int, below: bool) -> Conflict:
        den, row = self.rows[b]
        out: Conflict = [(den, self.lo_r[b] if below else self.hi_r[b])]
        for k, c in row.items():
            if (c > 0) == below:
                out.append((abs(c), self.hi_r[k]))
            else:
                out.append((abs(c), self.lo_r[k]))
        return out

    def _pivot(self, b: int, j: int) -> list[int]:
        """Make ``j`` basic and ``b`` non-basic; the rows whose value changed."""
        rows, col = self.rows, self.col
        den_b, row_b = rows.pop(b)
        del self.num[b]
        a = row_b[j]
        for k in row_b:
            col[k].discard(b)
        # a * x_j = den_b * x_b - sum_{k != j} row_b[k] * x_k
        new = {k: -c for k, c in row_b.items() if k != j}
        new[b] = den_b
        d = a
        if d < 0:
            d = -d
            new = {k: -c for k, c in new.items()}
        d, new = _normalize(d, new)
        users = col[j]
        col[j] = set()
        for k in new:
            col[k].add(j)
        for r in users:
            den_r, row_r = rows[r]
            c = row_r.pop(j)
            if d != 1:
                row_r = {k: v * d for k, v in row_r.items()}
            for k, v in new.items():
                nv = row_r.get(k, 0) + c * v
                if nv:
                    if k not in row_r:
                        col[k].add(r)
                    row_r[k] = nv
                elif k in row_r:
                    del row_r[k]
                    col[k].discard(r)
            rows[r] = _normalize(den_r * d, row_r)
        rows[j] = (d, new)
        touched = list(users)
        touched.append(j)
        return touched


__all__ = ["Budget", "BudgetExceeded", "Conflict", "Simplex"]
