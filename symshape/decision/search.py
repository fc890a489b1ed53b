"""Branch and bound over the linear relaxation, producing refutation trees.

Given facts ``p >= 0`` (polynomials read linearly: every non-constant monomial
is an integer-valued column) and hypotheses, :class:`Search` either refutes
them (a :mod:`certificate` tree whose leaves are simplex conflicts), finds a
model (an integer point whose ``max`` columns agree with their arguments, turned
into a valuation that the caller verifies by exact evaluation), or gives up
(work budget, depth, or a point that is not realizable because of non-linear
columns).

Branching: first a ``max(arg, 0)`` column whose value is neither 0 nor ``arg``
(cases ``m <= 0`` / ``m <= arg``), then the first fractional column (cases
``x <= floor(v)`` / ``x >= floor(v) + 1``).  Columns are ordered canonically
(by structure, not by the variables' names: :mod:`symshape.decision.canon`), so
the search, and its answer, do not depend on the order in which facts were
produced, and a renaming of the variables does not reorder them.

(About 650 lines, one class: the tableau, the branching, the cuts and the
limits on depth, walks and stages all read and change the same search state
at every node; the products a search adds and the simplex are modules of
their own.)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction

from symshape.algebra.atoms import (
    Factors,
    Max0,
    Mono,
    Var,
    atom_mono,
    mono_div,
    nonlinear,
    single_atom,
)
from symshape.decision import canon
from symshape.decision import poly as P
from symshape.decision.fact_kinds import make_combo, make_product, max_cases, split_cases
from symshape.decision.facts import Fact, Leaf, MaxSplit, Node, Split
from symshape.decision.poly import Poly
from symshape.decision.products import extra_products
from symshape.decision.simplex import Budget, BudgetExceeded, Conflict, Simplex


class Refuted:
    """The facts and hypotheses are contradictory; ``tree`` proves it."""

    __slots__ = ("tree",)

    def __init__(self, tree: Node) -> None:
        self.tree = tree


class Model:
    """A verified valuation satisfying the facts and hypotheses."""

    __slots__ = ("env",)

    def __init__(self, env: dict[str, int]) -> None:
        self.env = env


class Unknown:
    """Neither: the budget ran out or a point could not be realized."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason


Result = Refuted | Model | Unknown
#: A case split: its two case facts, the builder of its node from the cases'
#: refutations, the case tried first, and (for a split of a form at a bound,
#: not of a maximum) the form and the bound, which :meth:`Search._walking` tracks.
Choice = tuple[tuple[Fact, Fact], Callable[[Node, Node], Node], int, "tuple[Poly, int] | None"]


# (builders made by module-level functions, since there are no nested
# functions in compiled modules, see docs/architecture.md)
def _split_builder(form: Poly, bound: int, lc: Fact, rc: Fact) -> Callable[[Node, Node], Node]:
    """The builder of a :class:`Split` of ``form`` at ``bound``."""
    return lambda left, right: Split(form, bound, left, right, lc, rc)


def _max_split_builder(atom: Max0, lc: Fact, rc: Fact) -> Callable[[Node, Node], Node]:
    """The builder of a :class:`MaxSplit` of ``atom``."""
    return lambda left, right: MaxSplit(atom, left, right, lc, rc)


def _lattice_form(cols: list[int], row: list[int]) -> dict[int, int]:
    """A lattice coordinate (a row of ``V^-1``) as a form of the columns."""
    return {cols[k]: c for k, c in enumerate(row) if c}


def _ext_gcd(a: int, b: int) -> tuple[int, int, int]:
    """``(g, u, w)`` with ``u*a + w*b == g == gcd(a, b) > 0`` (``b != 0``)."""
    r0, r1, u0, u1, w0, w1 = a, b, 1, 0, 0, 1
    while r1:
        q = r0 // r1
        r0, r1 = r1, r0 - q * r1
        u0, u1 = u1, u0 - q * u1
        w0, w1 = w1, w0 - q * w1
    if r0 < 0:
        r0, u0, w0 = -r0, -u0, -w0
    return r0, u0, w0


class Search:
    """One refutation / model search over ``facts`` plus ``hyps``.

    ``accept(env)`` verifies a candidate valuation (every constraint and
    hypothesis, by exact evaluation); without it no model is ever reported.
    """

    def __init__(self, facts: Sequence[Fact], hyps: Sequence[Fact], budget: Budget,
                 accept: Callable[[dict[str, int]], bool] | None = None,
                 max_depth: int | None = None) -> None:
        self.facts = list(facts) + list(hyps) + extra_products(facts, hyps)
        self.budget = budget
        self.accept = accept
        # (the budget's depth, which grows with the budget's scale)
        self.max_depth = budget.max_depth if max_depth is None else max_depth
        self.sx = Simplex(budget)
        self.col_of: dict[Mono, int] = {}
        self.monos: list[Mono] = []
        self.slack_of: dict[tuple[tuple[int, int], ...], int] = {}
        self.form_of: dict[int, dict[int, int]] = {}  # slack -> its form over columns
        self.max_cols: list[tuple[int, Max0, Poly]] = []
        self.var_cols: list[tuple[int, str]] = []
        # product columns: (column, monomial, [(factor atom column, rest column)])
        self.products: list[tuple[int, Mono, list[tuple[int, int]]]] = []
        self._init_conflict: Conflict | None = None
        self._cuts_seen: dict[tuple[int, int], tuple[Fact, Fact]] = {}
        self._cut_trail: list[tuple[int, int]] = []
        # fixed variables -> their lattice (see _lattice_split)
        self._lattices: dict[tuple[int, ...], _Lattice] = {}
        # On the current path: the form of each split -> the bound it was
        # last split at, and how many splits in a row moved it by one (see
        # _walking); restored on the way out of a node, like the cuts.
        self._walks: dict[tuple[tuple[int, int], ...], tuple[int, int]] = {}
        self.max_walk = budget.max_walk
        # case splits whose both cases were refuted (the progress a staged
        # budget looks for, see Budget.staged)
        self.closed_splits = 0

    # -- setup -------------------------------------------------------------------
    def _setup(self) -> None:
        monos: set[Mono] = set()
        for f in self.facts:
            for m in f.poly:
                if m:
                    monos.add(m)
        # Columns in an order that ignores the variables' names: the search
        # branches on the first column that needs it, so a renaming must not
        # reorder them (see symshape.decision.canon).  The roles of the
        # variables come from the question and the constraints; the facts
        # derived from them would only cost time here.
        polys = [f.poly for f in self.facts if f.kind in ("hyp", "constraint", "implicit")]
        ordered = canon.sort_columns(monos, polys)
        first = len(self.sx.lo)
        self.sx.add_vars(len(ordered))
        for j, m in enumerate(ordered, first):
            self.col_of[m] = j
            self.monos.append(m)
            a = single_atom(m)
            if a is not None:
                if type(a) is Var:
                    self.var_cols.append((j, a.name))
                elif type(a) is Max0:
                    arg = P.from_expr(a.arg)
                    if all(mm in self.col_of or mm in monos for mm in arg if mm):
                        self.max_cols.append((j, a, arg))
        for m in self.monos:
            if nonlinear(m):
                splits = []
                pairs: Factors = m
                for x, _ in pairs:
                    rest = mono_div(m, atom_mono(x))
                    xj = self.col_of.get(atom_mono(x))
                    rj = self.col_of.get(rest) if rest else None
                    if xj is not None and rj is not None:
                        splits.append((xj, rj))
                if splits:
                    self.products.append((self.col_of[m], m, splits))
        # Rows in the order of their forms over the columns, which ignores the
        # names as the columns' order does: the facts arrive sorted by keys
        # built from names, and the simplex's pivots (and so the search's
        # path) follow the order of its rows.
        col_of = self.col_of
        self.facts.sort(key=lambda f: sorted((col_of[m] if m else -1, c)
                                             for m, c in f.poly.items()))
        for f in self.facts:
            c = self.assert_fact(f)
            if c is not None:
                self._init_conflict = c
                return

    def _form(self, p: Poly) -> tuple[int, int, tuple[tuple[int, int], ...], int]:
        """``p == sign*g*L + k`` with ``L`` primitive, its first coefficient positive."""
        col_of = self.col_of
        items = [(col_of[m], c) for m, c in p.items() if m]
        items.sort()
        g = math.gcd(*[c for _, c in items])
        sign = 1 if items[0][1] > 0 else -1
        q = sign * g
        # most facts are primitive with a positive first coefficient: no division
        form = tuple(items) if q == 1 else tuple([(j, c // q) for j, c in items])
        return sign, g, form, p.get(P.ONE, 0)

    def _var_for(self, form: tuple[tuple[int, int], ...]) -> int:
        if len(form) == 1:
            return form[0][0]
        s = self.slack_of.get(form)
        if s is None:
            coeffs = dict(form)  # add_row only reads it: one dict serves both
            s = self.sx.add_row(coeffs)
            self.slack_of[form] = s
            self.form_of[s] = coeffs
        return s

    def assert_fact(self, f: Fact) -> Conflict | None:
        """Assert ``f.poly >= 0`` as a bound on a column or slack."""
        p = f.poly
        if not p or (len(p) == 1 and P.ONE in p):  # a constant
            if p.get(P.ONE, 0) < 0:
                return [(1, f)]
            return None
        sign, g, form, k = self._form(p)
        v = self._var_for(form)
        reason = f if g == 1 else make_combo([f], [1], g)
        # sign*g*L + k >= 0
        if sign > 0:
            return self.sx.assert_lower(v, -(k // g), reason)
        return self.sx.assert_upper(v, k // g, reason)

    # -- search ------------------------------------------------------------------
    def run(self) -> Result:
        """Refute, find a model, or give up."""
        try:
            self._setup()
            if self._init_conflict is not None:
                return Refuted(Leaf(self._init_conflict))
            return self._node(0)
        except BudgetExceeded as e:
            return Unknown(str(e))

    def _node(self, depth: int) -> Result:
        budget = self.budget
        budget.node()
        budget.spend(10 + len(self.monos) + len(self.max_cols) + 4 * len(self.products))
        if budget.stage_work is not None and budget.work > budget.stage_work:
            # The end of a staged budget's first stage: go on with the whole
            # budget only if a case split has closed (the search is making
            # progress), else give up now (see Budget.staged).
            if not self.closed_splits:
                raise BudgetExceeded("work budget (its first stage closed no case)")
            budget.stage_work = None
        mark = len(self._cut_trail)
        try:
            return self._node_body(depth)
        finally:
            # cuts are valid in this branch only: forget them on the way out
            while len(self._cut_trail) > mark:
                del self._cuts_seen[self._cut_trail.pop()]

    def _node_body(self, depth: int) -> Result:
        rounds = 0
        while True:
            conflict = self.sx.check()
            if conflict is not None:
                return Refuted(Leaf(conflict))
            choice = self._choose()
            if choice is None:
                bad = self._inconsistent_product()
                if bad is None:
                    return self._realize()
                if rounds < 4:
                    cut = self._local_mccormick(bad)
                    if isinstance(cut, list):
                        return Refuted(Leaf(cut))
                    if cut:
                        rounds += 1
                        continue
                choice = self._spatial_split(bad)
                if choice is None:
                    return self._realize()
            break
        if depth >= self.max_depth:
            return Unknown("search depth")
        cases, build, first, walk = choice
        step = None if walk is None else self._walking(*walk)
        subs: list[Node | None] = [None, None]
        try:
            if step is not None and step[1][1] > self.max_walk:
                return Unknown("search depth (a walk of one-step splits)")
            for i in ((0, 1) if first == 0 else (1, 0)):
                mark = self.sx.mark()
                c = self.assert_fact(cases[i])
                sub = Refuted(Leaf(c)) if c is not None else self._node(depth + 1)
                self.sx.undo(mark)
                if not isinstance(sub, Refuted):
                    return sub
                subs[i] = sub.tree
        finally:
            if step is not None:
                key, _, old = step
                if old is None:
                    del self._walks[key]
                else:
                    self._walks[key] = old
        left, right = subs
        assert left is not None and right is not None
        self.closed_splits += 1
        return Refuted(build(left, right))

    def _walking(self, form: Poly, bound: int
                 ) -> tuple[tuple[tuple[int, int], ...], tuple[int, int],
                            tuple[int, int] | None]:
        """Record on the path a split of ``form`` at ``bound``: its key, its
        new ``(bound, run)`` and the entry it replaces.  ``run`` counts the
        splits of the form in a row on this path whose bound moved by one: a
        search that walks a column one integer at a time (the case on one
        side closes at once, the other splits the same form again one
        further) learns nothing from each step and would walk until its
        depth runs out, so :meth:`_node_body` stops it past
        :attr:`Budget.max_walk` steps (see :func:`~symshape.decision.simplex.walk_limit`)."""
        col_of = self.col_of
        key = tuple(sorted((col_of[m], c) for m, c in form.items() if m))
        old = self._walks.get(key)
        run = old[1] + 1 if old is not None and abs(old[0] - bound) == 1 else 1
        new = (bound, run)
        self._walks[key] = new
        return key, new, old

    # -- non-linear columns ----------------------------------------------------------
    def _inconsistent_product(self) -> tuple[int, Mono, list[tuple[int, int]]] | None:
        """The first product column whose value is not the product of its factors."""
        parts = self.sx.parts
        for j, m, splits in self.products:
            n, d = parts(j)  # the point is integral here
            v = n // d
            for xj, rj in splits:
                (nx, dx), (nr, dr) = parts(xj), parts(rj)
                if (nx // dx) * (nr // dr) != v:
                    return j, m, splits
        return None

    def _local_mccormick(self, bad: tuple[int, Mono, list[tuple[int, int]]]
                         ) -> Conflict | bool:
        """Products of the current bounds of the factors (valid in this branch).
        True if one was added, a conflict if one contradicts the bounds."""
        sx = self.sx
        added = False
        _, _, splits = bad
        for xj, rj in splits:
            lx, ux = sx.lo_r[xj], sx.hi_r[xj]
            lr, ur = sx.lo_r[rj], sx.hi_r[rj]
            for f1, f2 in ((lx, lr), (ux, ur), (lx, ur), (ux, lr)):
                if f1 is None or f2 is None:
                    continue
                k = (id(f1), id(f2))
                if k in self._cuts_seen:
                    continue
                self._cuts_seen[k] = (f1, f2)
                self._cut_trail.append(k)
                f = make_product(f1, f2)
                c = self.assert_fact(f)
                if c is not None:
                    return c
                added = True
        return added

    def _spatial_split(self, bad: tuple[int, Mono, list[tuple[int, int]]]) -> Choice | None:
        """Split the range of a factor so that McCormick becomes exact."""
        sx = self.sx
        _, _, splits = bad
        # (widths stay ints, None for unbounded: in the compiled module a
        # variable declared float converts every int put in it, and a huge
        # bound overflows the conversion)
        best: tuple[int | None, int] | None = None
        for xj, rj in splits:
            for j in (xj, rj):
                lo, hi = sx.lo[j], sx.hi[j]
                if lo is not None and hi is not None and lo == hi:
                    continue
                width = None if lo is None or hi is None else hi - lo
                if best is None or (width is not None and (best[0] is None or width < best[0])):
                    best = (width, j)
        if best is None:
            return None
        j = best[1]
        v = sx.value(j)
        fl = math.floor(v)
        if sx.hi[j] is not None and fl >= sx.hi[j]:  # type: ignore[operator]
            fl -= 1  # right case fixes the column at its upper bound
        form: Poly = {self.monos[j]: 1}
        lc, rc = split_cases(form, fl)
        return (lc, rc), _split_builder(form, fl, lc, rc), 0, (form, fl)

    def _value(self, p: Poly) -> Fraction:
        # in integers over a common denominator, then one Fraction
        col_of, parts = self.col_of, self.sx.parts
        terms = [(c, parts(col_of[m])) for m, c in p.items() if m]
        den = math.lcm(*[d for _, (_, d) in terms])
        return Fraction(P.constant(p) * den + sum([c * n * (den // d) for c, (n, d) in terms]),
                        den)

    def _int_value(self, p: Poly) -> int | None:
        """Value of ``p`` if every column in it is at an integer value."""
        total = P.constant(p)
        parts = self.sx.parts
        for m, c in p.items():
            if m:
                n, d = parts(self.col_of[m])
                if n % d:
                    return None
                total += c * (n // d)
        return total

    def _choose(self) -> Choice | None:
        sx = self.sx
        for j, atom, arg in self.max_cols:
            n, d = sx.parts(j)
            iv = self._int_value(arg) if n % d == 0 else None
            if iv is not None:
                if n // d == max(iv, 0):
                    continue
                av: Fraction = Fraction(iv)
            else:
                av = self._value(arg)
                if Fraction(n, d) == max(av, 0):
                    continue
            lc, rc = max_cases(atom)
            # explore first the case closer to the current point
            first = 0 if av <= 0 else 1
            return (lc, rc), _max_split_builder(atom, lc, rc), first, None
        frac = -1
        rows, num = sx.rows, sx.num
        for j in range(len(self.monos)):
            r = rows.get(j)
            # non-basic columns sit at integers; a basic one is num / den
            if r is not None and num[j] % r[0]:
                frac = j
                break
        if frac == -1:
            return None
        lattice = self._lattice_split()
        if lattice is not None:
            form, value = lattice
        else:
            form, value = {frac: 1}, sx.value(frac)
        fl = math.floor(value)
        poly: Poly = {self.monos[k]: c for k, c in form.items()}
        lc, rc = split_cases(poly, fl)
        first = 0 if value - fl <= Fraction(1, 2) else 1
        return (lc, rc), _split_builder(poly, fl, lc, rc), first, (poly, fl)

    # -- integer reasoning with equalities ------------------------------------------
    def _lattice_split(self) -> tuple[dict[int, int], Fraction] | None:
        """With equalities at this node (variables fixed by their bounds), branch
        in the coordinates of the integer lattice they define, not on columns.

        A unimodular change of variables ``x = V z`` puts the equalities in
        triangular form; ``z = V^-1 x`` are integer forms of the columns.  A
        fractional ``z_i`` that the equalities determine shows that they have
        no integer solution; a bounded form whose coefficients in the free
        coordinates share a factor ``g`` is an integer form times ``g``, so it
        must move in steps of ``g``.  Splitting on such integer forms makes
        both branches infeasible for the LP, where branching on columns could
        go on forever (e.g. ``2*x - 6*y == 5``).
        """
        sx = self.sx
        lo_l, hi_l = sx.lo, sx.hi
        fixed = tuple([v for v, lo in enumerate(lo_l) if lo is not None and lo == hi_l[v]])
        if not fixed:
            return None
        # The change of variables depends only on which variables are fixed
        # (not on their values, nor on the point): the same set recurs across
        # the nodes of a search, so it is computed once per set.  Its work is
        # charged every time, so budgets and answers do not depend on it.
        lat = self._lattices.get(fixed)
        if lat is None:
            ncols = len(self.monos)
            eqs = [{v: 1} if v < ncols else self.form_of[v] for v in fixed]
            cols = sorted({j for e in eqs for j in e})
            m = len(cols)
            self.budget.spend(len(eqs) * m * m // 4 + m)  # before the work
            lattices = self._lattices
            if len(lattices) >= _LATTICES_KEPT:  # bounded memory: the oldest goes
                del lattices[next(iter(lattices))]
            lat = lattices[fixed] = _Lattice(eqs, cols)
        else:
            cols = lat.cols
            m = len(cols)
            self.budget.spend(len(fixed) * m * m // 4 + m)
        pos, vinv, vmat, rank = lat.pos, lat.vinv, lat.vmat, lat.rank
        for v in range(lat.known, len(lo_l)):  # variables new to this lattice
            if lat.step(self._eq_form(v)) > 1:
                lat.steps.append(v)
        lat.known = len(lo_l)
        # The point in integers scaled by the common denominator ``scale``:
        # exact, without a Fraction per product.
        parts = [sx.parts(j) for j in cols]
        scale = math.lcm(*[d for _, d in parts])
        point = [n * (scale // d) for n, d in parts]

        zs = [sum([c * x for c, x in zip(vi, point, strict=True)]) for vi in vinv]
        for i in range(rank):  # determined by the equalities
            if zs[i] % scale:
                return _lattice_form(cols, vinv[i]), Fraction(zs[i], scale)
        # bounded forms that move in steps of g > 1 on the lattice (only the
        # variables whose step is > 1 can, in increasing order)
        for v in lat.steps:
            lo, hi = lo_l[v], hi_l[v]
            if lo is None:
                if hi is None:
                    continue
            elif lo == hi:
                continue
            g = lat.step(self._eq_form(v))
            form = self._eq_form(v)
            assert form is not None
            inside = [(pos[j], c) for j, c in form.items() if j in pos]
            coef = [sum([c * vmat[k][i] for k, c in inside]) for i in range(m)]
            # value = (form(x) - const) / g, with const = cz / scale and
            # form(x) = fn / fd, in integers; one Fraction if it is returned.
            cz = sum([coef[i] * zs[i] for i in range(rank)])
            fn, fd = self._form_parts(form)
            vn, vd = fn * scale - cz * fd, fd * scale * g
            if vn % vd == 0:
                continue
            value = Fraction(vn, vd)
            out: dict[int, int] = {}
            for i in range(rank, m):
                if coef[i]:
                    for j, c in _lattice_form(cols, vinv[i]).items():
                        out[j] = out.get(j, 0) + (coef[i] // g) * c
            for j, c in form.items():
                if j not in pos:
                    out[j] = out.get(j, 0) + c // g
            out = {j: c for j, c in out.items() if c}
            if out:
                return out, value
        for i in range(rank, m):  # free lattice coordinates
            if zs[i] % scale:
                return _lattice_form(cols, vinv[i]), Fraction(zs[i], scale)
        return None

    def _eq_form(self, v: int) -> dict[int, int] | None:
        """The form over columns that variable ``v`` stands for (a column is
        itself; a slack its row), or None if unknown."""
        if v < len(self.monos):
            return {v: 1}
        return self.form_of.get(v)

    def _form_parts(self, form: dict[int, int]) -> tuple[int, int]:
        """The value of ``form`` at the current point as ``(numerator,
        denominator)`` (not reduced; denominator > 0), in exact integers."""
        parts = [self.sx.parts(j) for j in form]
        den = math.lcm(*[d for _, d in parts])
        return sum([c * n * (den // d)
                    for c, (n, d) in zip(form.values(), parts, strict=True)]), den

    def _realize(self) -> Result:
        if self.accept is None:
            return Unknown("model (not verified)")
        env = {}
        for j, name in self.var_cols:
            n, d = self.sx.parts(j)
            env[name] = n // d
        if self.accept(env):
            return Model(env)
        return Unknown("point not realizable (non-linear terms)")


_LATTICES_KEPT = 64
"""Lattices a search keeps (see ``Search._lattice_split``): searches of the
benchmark corpora meet at most about 30 distinct sets of fixed variables."""


class _Lattice:
    """The integer lattice of the equalities of a set of fixed variables.

    A unimodular change of variables ``x = V z`` (``vmat`` is ``V`` and
    ``vinv`` is ``V^-1``, over the columns ``cols`` of the equalities) puts the
    equalities in triangular form: ``z_0 .. z_{rank-1}`` are determined by
    them, the others are free.  ``steps`` lists, in increasing order, the
    variables below ``known`` whose form has a :meth:`step` > 1 (few do).
    """

    __slots__ = ("cols", "pos", "vinv", "vmat", "rank", "steps", "known")

    def __init__(self, eqs: Sequence[dict[int, int]], cols: list[int]) -> None:
        """The lattice of ``eqs`` (forms over columns), whose columns are
        ``cols`` (sorted)."""
        m = len(cols)
        a = [[e.get(j, 0) for j in cols] for e in eqs]
        vinv = [[int(i == k) for k in range(m)] for i in range(m)]
        vmat = [[int(i == k) for k in range(m)] for i in range(m)]
        piv = 0
        for row in a:
            if piv >= m:
                break
            for j in range(piv + 1, m):
                b = row[j]
                if not b:
                    continue
                x = row[piv]
                g, u, w = _ext_gcd(x, b)  # u*x + w*b == g
                bx, xg = b // g, x // g
                for r in a:  # columns piv, j <- (u*c_piv + w*c_j, -bx*c_piv + xg*c_j)
                    cp, cj = r[piv], r[j]
                    r[piv], r[j] = u * cp + w * cj, -bx * cp + xg * cj
                for r in vmat:
                    cp, cj = r[piv], r[j]
                    r[piv], r[j] = u * cp + w * cj, -bx * cp + xg * cj
                rp, rj = vinv[piv], vinv[j]
                vinv[piv] = [xg * p + bx * q for p, q in zip(rp, rj, strict=True)]
                vinv[j] = [-w * p + u * q for p, q in zip(rp, rj, strict=True)]
            if row[piv]:
                piv += 1
        self.cols = cols
        self.pos = {j: i for i, j in enumerate(cols)}
        self.vinv = vinv
        self.vmat = vmat
        self.rank = piv
        self.steps: list[int] = []
        self.known = 0

    def step(self, form: dict[int, int] | None) -> int:
        """``g``: the gcd of the coefficients of ``form`` in the free
        coordinates and outside the equalities' columns (0 or 1: none; most
        forms give 1 at once), which depends on the form and the lattice only."""
        if form is None:
            return 0
        pos, vmat = self.pos, self.vmat
        inside = [(pos[j], c) for j, c in form.items() if j in pos]  # sparse
        if not inside:
            return 0
        g = 0
        for j, c in form.items():
            if j not in pos:
                g = math.gcd(g, c)
        for i in range(self.rank, len(self.cols)):
            if g == 1:
                break
            g = math.gcd(g, sum([c * vmat[k][i] for k, c in inside]))
        return g


# Work units per monomial of a query that the setup of a search costs before
# the search counts anything (facts of products, rows of the tableau): a claim
# too large for its budget is undecided at once instead of after minutes.
SETUP_COST = 64


def too_large(polys: Sequence[Poly], budget: Budget) -> bool:
    """Would setting up a search for ``polys`` alone exceed ``budget``?"""
    return sum(len(p) for p in polys) * SETUP_COST > budget.max_work


__all__ = ["SETUP_COST", "Model", "Refuted", "Result", "Search", "Unknown",
           "too_large"]
