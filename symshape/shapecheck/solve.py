"""Solving the dimension variables of shape specs from the actual dimension sizes.

Each symbolic dimension ``e`` of a spec, with actual size ``d``, is an equation
``e == d``.  The solver expresses every dimension variable as a program over the sizes
(see :mod:`symshape.shapecheck.program`), repeating until no variable is left:

1. equations linear in one unknown with a constant coefficient (``2*h + 1``), as JAX;
2. linear in one unknown with a known symbolic coefficient that the scope proves >= 1
   (``a*b`` once ``a`` is known);
3. jointly linear systems with constant coefficients (``a + b``, ``a + 2*b``): exact
   rational elimination, the integrality of each determined variable asserted;
4. one-unknown polynomials: ``K*v^k`` (divide, then an exact integer root) or
   polynomials with constant coefficients increasing for ``v >= 1`` (``a*(a + 1)``),
   through the ``introot`` op with an assertion that the root is exact.

Every method computes the unique value a valid input forces, so the order only affects
which message an invalid input gets.  An equation is *consumed* only when the solved
values satisfy it by construction; every other equation becomes an assertion once its
variables are known, and so do the scope's implicit facts and explicit constraints.
Any input that passes all the assertions therefore satisfies every equation and
constraint, and any valid input passes them.

(Over 600 lines for a reason: one solver class, whose tactics -- linear
equations, products, pure powers, roots of increasing polynomials,
divisions -- share the pending equations and the program being built, and
run in one loop until no equation moves.)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from symshape.algebra.atoms import Atom, FloorDiv, Mono, Var, mono_of
from symshape.algebra.dimexpr import DimExpr
from symshape.algebra.substitute import substitute
from symshape.errors import UnsatisfiableConstraintsError, UnsolvableSpecsError
from symshape.printing import dim_text
from symshape.scope import SymbolicScope
from symshape.shapecheck.builder import Piece, ProgramBuilder
from symshape.shapecheck.program import Program

_HEADER = "Input shapes do not match the specs: "
_ZERO_NOTE = ("dimension variables must be >= 1 (0 is a valid array size, but not a valid "
              "value of a dimension variable)")
_INT_LIMIT = 1 << 62


# At most this many specs and solved variables are listed in each message.
_MAX_LISTED = 8


@dataclass
class _Eq:
    """The equation ``spec == size of args[arg].shape[axis]``."""

    arg: int
    axis: int
    where: str
    spec: DimExpr
    text: str
    dim: int
    vars: frozenset[str] = frozenset()


@dataclass
class _Split:
    """An equation split by the unknowns: ``sum(coeffs[u] * u) + known == size``, where
    ``u`` is a tuple of ``(unknown variable, exponent)`` and ``coeffs[u]`` is known."""

    known: DimExpr | int
    coeffs: dict[tuple[tuple[str, int], ...], DimExpr | int]
    unknowns: set[str]
    blocked: bool  # an unknown occurs inside floordiv/max: not solvable now


def _atom_vars(atom: object, cache: dict[object, frozenset[str]]) -> frozenset[str]:
    got = cache.get(atom)
    if got is None:
        if type(atom) is Var:
            got = frozenset((atom.name,))
        else:
            acc: set[str] = set()
            for o in atom.operands:  # type: ignore[attr-defined]
                if isinstance(o, DimExpr):
                    acc |= o.free_vars
            got = frozenset(acc)
        cache[atom] = got
    return got


def _increasing_from_one(coeffs: Sequence[int]) -> bool:
    """Sufficient test that ``p(v+1) - p(v) >= 1`` for every integer ``v >= 1``.

    ``q(w) = p(w+2) - p(w+1)`` expanded around ``w = 0`` must have non-negative
    coefficients and ``q(0) >= 1``.  Without negative coefficients (past the
    constant) it holds at once: each term with a positive coefficient grows.
    """
    if all(c >= 0 for c in coeffs[1:]) and any(c >= 1 for c in coeffs[1:]):
        return True

    def shifted(cs: Sequence[int], s: int) -> list[int]:
        # Coefficients of p(w + s), by Horner's scheme repeated: k^2/2 products by
        # the small s (binomial coefficients times powers cost a minute at degree 1,000).
        out = list(cs)
        for i in range(len(out) - 1):
            for j in range(len(out) - 2, i - 1, -1):
                out[j] += s * out[j + 1]
        return out

    a = shifted(coeffs, 2)
    b = shifted(coeffs, 1)
    q = [x - y for x, y in zip(a, b, strict=True)]
    return q[0] >= 1 and all(c >= 0 for c in q[1:])


def _safe_bits(coeffs: Sequence[int]) -> int:
    """Largest ``bits <= 62`` with ``sum |c_k| * (2**bits - 1)**k < 2**62``, so Horner
    evaluation at any ``v < 2**bits`` stays within int64."""
    bits = 1
    while bits < 62:
        v = (1 << (bits + 1)) - 1
        if sum(abs(c) * v ** k for k, c in enumerate(coeffs)) >= _INT_LIMIT:
            break
        bits += 1
    return bits


class Solver:
    """Builds the :class:`Program` of a shape check.

    Args:
      scope: the scope of every spec.
      arg_names: display name of each flat argument (``args[0]['x']``).
      specs: the parsed spec of each flat argument; ``None`` is a dimension of any
        size (a placeholder, filled from the shape being checked: not checked).
      spec_texts: how each spec is shown in messages (``(n, 2*h + 1)``).
    """

    def __init__(self, scope: SymbolicScope, arg_names: Sequence[str],
                 specs: Sequence[tuple[DimExpr | int | None, ...]],
                 spec_texts: Sequence[str]) -> None:
        self.scope = scope
        self.names = list(arg_names)
        self.specs = list(specs)
        self.b = ProgramBuilder(arg_names, [tuple(d if isinstance(d, int) else None
                                                   for d in s) for s in specs])
        self.known: dict[str, int] = {}
        self.solved: list[tuple[str, int, str]] = []  # (var, value id, where from)
        self.pending: list[_Eq] = []
        self._atom_cache: dict[object, frozenset[str]] = {}
        shown = [f"{n}.shape = {t}" for n, t, s in zip(arg_names, spec_texts, specs, strict=True)
                 if any(isinstance(d, DimExpr) for d in s)]
        if len(shown) > _MAX_LISTED:
            # Every assertion carries this note: listing thousands of specs in
            # each would make the messages (and the emitted module) quadratic.
            shown = shown[:_MAX_LISTED] + [f"... ({len(shown) - _MAX_LISTED} more)"]
        self._specs_note = " Specs: " + ", ".join(shown) + "." if shown else ""
        self._facts: list[tuple[DimExpr, str, frozenset[str]]] = []

    # -- messages ----------------------------------------------------------------
    def _trailer(self, exclude: str = "") -> list[Piece]:
        pieces: list[Piece] = [self._specs_note]
        shown = [(v, i, w) for v, i, w in self.solved if v != exclude]
        if shown:
            more = len(shown) - _MAX_LISTED
            if more > 0:
                shown = shown[-_MAX_LISTED:]  # the most recent ones
            pieces.append(" Dimension variables solved so far: ")
            for k, (v, vid, where) in enumerate(shown):
                pieces += [", " if k else "", f"'{v}' = ", vid, f" (from {where})"]
            pieces.append(f" (and {more} earlier)." if more > 0 else ".")
        return pieces

    def _assert(self, pred: int, pieces: list[Piece], kind: str, exclude: str = "") -> None:
        if not self.b.assert_(pred, [_HEADER, *pieces, *self._trailer(exclude)], kind):
            msg = self.b.assertions[-1].message.replace("{{", "{")
            raise UnsatisfiableConstraintsError(
                "the specs contradict the constraints: no input shapes can match them. "
                f"The check that always fails: {msg}")

    # -- driver ------------------------------------------------------------------
    def run(self) -> Program:
        """Solve every variable and return the program."""
        b = self.b
        for arg, spec in enumerate(self.specs):
            for axis, e in enumerate(spec):
                if e is None:
                    continue  # a placeholder: any size will do
                where = f"{self.names[arg]}.shape[{axis}]"
                d = b.dim(arg, axis)
                if isinstance(e, int):
                    if e < 0:
                        raise UnsatisfiableConstraintsError(
                            f"the spec of {where} is the negative constant {e}: no array "
                            "can match it")
                    self._assert(b.op("eq", d, b.const(e)),
                                 [f"{where} == ", d, f", but the spec requires the constant {e}."],
                                 "constant")
                    continue
                if self.scope.known_ge0(e) is False:
                    raise UnsatisfiableConstraintsError(
                        f"the spec '{e}' of {where} is negative for every valuation allowed "
                        f"by the constraints {list(self.scope.constraint_texts)}: no array "
                        "can match it")
                self.pending.append(_Eq(arg, axis, where, e, str(e), d, frozenset(e.free_vars)))
        # Implicit facts of the scope (>= 1 of rewritten variables), and where
        # the specs are defined: each symbolic divisor in them is >= 1.
        conditions = list(self.scope.implicit_facts)
        seen: set[Atom] = set()
        for eq in self.pending:
            for atom in sorted(eq.spec.atoms(recursive=True) - seen, key=lambda a: a.sort_key):
                seen.add(atom)
                if type(atom) is FloorDiv and isinstance(atom.den, DimExpr):
                    conditions.append(
                        (atom.den - 1, f"divisor '{atom.den}' of floordiv/mod is >= 1"))
        for fact, reason in conditions:
            f = substitute(fact, {})
            if isinstance(f, DimExpr):
                self._facts.append((f, str(reason), frozenset(f.free_vars)))
            elif f < 0:
                raise UnsatisfiableConstraintsError(f"the scope's condition {reason} is false")
        wanted: set[str] = set()
        for eq in self.pending:
            wanted |= eq.vars
        self._flush()
        methods = (self._solve_linear_const, self._solve_linear_symbolic,
                   self._solve_joint_linear, self._solve_polynomial)
        while wanted - set(self.known):
            if not any(m() for m in methods):
                self._report_unsolvable(wanted - set(self.known))
        self._flush()
        self._constraints()
        return b.build(self._outputs())

    def _flush(self) -> None:
        """Assert the facts and equations whose variables are all known."""
        b = self.b
        keep_facts = []
        for f, reason, fvars in self._facts:
            if fvars <= self.known.keys():
                v = b.expr(f, self.known)
                self._assert(b.op("ge", v, b.const(0)),
                             [f"the scope requires {reason}, but '{f}' == ", v, " < 0."],
                             "implicit")
            else:
                keep_facts.append((f, reason, fvars))
        self._facts = keep_facts
        keep = []
        for eq in self.pending:
            if eq.vars <= self.known.keys():
                v = b.expr(eq.spec, self.known)
                self._assert(b.op("eq", eq.dim, v),
                             [f"{eq.where} == ", eq.dim, f", but its spec '{eq.text}' has the "
                              "value ", v, " for the dimension variables solved so far."],
                             "agree")
            else:
                keep.append(eq)
        self.pending = keep

    def _split(self, eq: _Eq) -> _Split:
        known_terms: dict[Mono, int] = {}
        coeffs: dict[tuple[tuple[str, int], ...], DimExpr | int] = {}
        unknowns: set[str] = set()
        blocked = False
        scope = self.scope
        for mono, c in eq.spec.terms.items():
            kpart: list[tuple[Atom, int]] = []
            upart: list[tuple[str, int]] = []
            for atom, k in mono:
                vs = _atom_vars(atom, self._atom_cache)
                if vs <= self.known.keys():
                    kpart.append((atom, k))
                elif type(atom) is Var:
                    upart.append((atom.name, k))
                    unknowns.add(atom.name)
                else:
                    blocked = True
                    unknowns |= vs - self.known.keys()
            if not upart:
                known_terms[mono] = c
                continue
            factor = DimExpr.make({mono_of(tuple(kpart)): c}, scope)
            key = tuple(upart)
            coeffs[key] = coeffs.get(key, 0) + factor
        known = DimExpr.make(known_terms, scope) if known_terms else 0
        coeffs = {k: v for k, v in coeffs.items() if not (isinstance(v, int) and v == 0)}
        return _Split(known, coeffs, unknowns, blocked)

    # -- solved variables --------------------------------------------------------
    def _define(self, var: str, value: int, where: str, zero_pieces: list[Piece],
                pos_pieces: list[Piece]) -> None:
        b = self.b
        self._assert(b.op("ne", value, b.const(0)), zero_pieces, "nonzero", exclude=var)
        if b.steps[value].op != "dim":  # a size is >= 0: != 0 is enough
            self._assert(b.op("ge", value, b.const(1)), pos_pieces, "positive", exclude=var)
        self.known[var] = value
        self.solved.append((var, value, where))
        self._flush()

    def _divide(self, eq: _Eq, var: str, num: int, den: int, den_text: str, kv: int) -> int:
        """``num // den`` with an assertion that the division is exact (``den >= 1``);
        ``num`` is ``size - kv`` or ``kv - size``, so the size must be ``kv`` modulo ``den``."""
        b = self.b
        need = b.op("mod", kv, den)
        cneed = b.const_value(need)
        if cneed == 0:
            what: list[Piece] = ["a multiple of ", den, den_text]
        elif b.const_value(den) == 2 and cneed is not None:
            what = ["an odd value" if cneed else "an even value"]
        else:
            what = ["a value congruent to ", need, " modulo ", den, den_text]
        self._assert(b.op("eq", b.op("mod", num, den), b.const(0)),
                     [f"{eq.where} == ", eq.dim, f", but the spec '{eq.text}' needs ", *what,
                      f" (to solve for '{var}')."],
                     "divisible", exclude=var)
        return b.op("floordiv", num, den)

    def _linear_one(self, eq: _Eq, var: str, coeff: DimExpr | int, known: DimExpr | int,
                    ) -> None:
        """Solve ``coeff*var + known == size`` (``coeff`` a nonzero constant, or proved
        >= 1 or <= -1)."""
        b = self.b
        d = eq.dim
        kv = b.expr(known, self.known)
        positive = self._proved_sign(coeff) > 0
        num = b.op("sub", d, kv) if positive else b.op("sub", kv, d)
        c = coeff if positive else -coeff
        if isinstance(c, int):
            den = b.const(c)
            den_text = ""
        else:
            den = b.op("max", b.expr(c, self.known), b.const(1))
            den_text = f" (the value of '{c}')"
        value = num if b.const_value(den) == 1 else \
            self._divide(eq, var, num, den, den_text, kv)
        # The spec's value at var == 1: the least (or, decreasing, the largest) allowed.
        bound = b.expr(coeff + known, self.known)
        self._define(
            var, value, eq.where,
            [f"{eq.where} == ", d, f", and its spec '{eq.text}' then gives '{var}' = 0, but "
             f"{_ZERO_NOTE}."],
            [f"{eq.where} == ", d, f", but the spec '{eq.text}' needs a value "
             f"{'>=' if positive else '<='} ", bound, f" (for '{var}' >= 1); it gives "
             f"'{var}' = ", value, "."])

    def _solve_linear_const(self) -> bool:
        progress = False
        for eq in list(self.pending):
            if eq not in self.pending:
                continue  # asserted by a flush after an earlier solution
            s = self._split(eq)
            if s.blocked or len(s.unknowns) != 1 or len(s.coeffs) != 1:
                continue
            (key, coeff), = s.coeffs.items()
            if len(key) != 1 or key[0][1] != 1 or not isinstance(coeff, int):
                continue
            self.pending.remove(eq)
            self._linear_one(eq, key[0][0], coeff, s.known)
            progress = True
        return progress

    def _proved_sign(self, c: DimExpr | int) -> int:
        if isinstance(c, int):
            return (c > 0) - (c < 0)
        if self.scope.known_ge0(c - 1) is True:
            return 1
        if self.scope.known_ge0(-c - 1) is True:
            return -1
        return 0

    def _solve_linear_symbolic(self) -> bool:
        for eq in list(self.pending):
            s = self._split(eq)
            if s.blocked or len(s.unknowns) != 1 or len(s.coeffs) != 1:
                continue
            (key, coeff), = s.coeffs.items()
            if len(key) != 1 or key[0][1] != 1 or self._proved_sign(coeff) == 0:
                continue
            self.pending.remove(eq)
            self._linear_one(eq, key[0][0], coeff, s.known)
            return True
        return False

    def _solve_joint_linear(self) -> bool:
        rows: list[tuple[_Eq, _Split]] = []
        for eq in self.pending:
            s = self._split(eq)
            if s.blocked or len(s.unknowns) < 2:
                continue
            if all(len(k) == 1 and k[0][1] == 1 and isinstance(c, int)
                   for k, c in s.coeffs.items()):
                rows.append((eq, s))
        if not rows:
            return False
        variables = sorted({v for _, s in rows for v in s.unknowns})
        col = {v: i for i, v in enumerate(variables)}
        n = len(variables)
        # Greedy basis of independent equations, in order.
        basis: list[tuple[_Eq, _Split, list[Fraction]]] = []
        echelon: list[tuple[int, list[Fraction]]] = []  # (pivot column, row)
        for eq, s in rows:
            vec = [Fraction(0)] * n
            for k, c in s.coeffs.items():
                vec[col[k[0][0]]] = Fraction(int(c))
            r = list(vec)
            for p, prow in echelon:
                if r[p]:
                    f = r[p] / prow[p]
                    r = [x - f * y for x, y in zip(r, prow, strict=True)]
            piv = next((i for i, x in enumerate(r) if x), None)
            if piv is None:
                continue
            echelon.append((piv, r))
            basis.append((eq, s, vec))
        m = len(basis)
        # Reduced row echelon form of [A | I] over the rationals.
        aug = [list(vec) + [Fraction(int(i == j)) for j in range(m)]
               for i, (_, _, vec) in enumerate(basis)]
        r0 = 0
        for c in range(n):
            piv = next((i for i in range(r0, m) if aug[i][c]), None)
            if piv is None:
                continue
            aug[r0], aug[piv] = aug[piv], aug[r0]
            pv = aug[r0][c]
            aug[r0] = [x / pv for x in aug[r0]]
            for i in range(m):
                if i != r0 and aug[i][c]:
                    f = aug[i][c]
                    aug[i] = [x - f * y for x, y in zip(aug[i], aug[r0], strict=True)]
            r0 += 1
        determined: dict[str, list[Fraction]] = {}
        for row in aug:
            nz = [i for i in range(n) if row[i]]
            if len(nz) == 1:
                determined[variables[nz[0]]] = row[n:]
        if not determined:
            return False
        b = self.b
        nums = [b.op("sub", eq.dim, b.expr(s.known, self.known)) for eq, s, _ in basis]
        for eq, s, _ in basis:
            if s.unknowns <= determined.keys():
                self.pending.remove(eq)  # holds by construction of the solution
        for var in sorted(determined, key=col.__getitem__):
            q = determined[var]
            lcm = math.lcm(*(x.denominator for x in q))
            # positive parts first, so the sum starts without a negation
            parts = sorted(((int(x * lcm), j) for j, x in enumerate(q) if x),
                           key=lambda p: p[0] < 0)
            num: int | None = None
            for a, j in parts:
                t = b.op("mul", nums[j], b.const(abs(a)))
                if num is None:
                    num = t if a > 0 else b.op("sub", b.const(0), t)
                else:
                    num = b.op("add" if a > 0 else "sub", num, t)
            assert num is not None
            used = [basis[j][0] for j in sorted(j for _, j in parts)]
            dims: list[Piece] = []
            for pos, e in enumerate(used):
                dims += [", " if pos else "", f"{e.where} == ", e.dim]
            texts = ", ".join(f"'{e.text}'" for e in used)
            src = " and ".join(e.where for e in used)
            if lcm > 1:
                self._assert(b.op("eq", b.op("mod", num, b.const(lcm)), b.const(0)),
                             ["the dimensions ", *dims, f" with the specs {texts} give "
                              f"'{var}' = ", num, f"/{dim_text(lcm)}, which is not an integer."],
                             "divisible", exclude=var)
                value = b.op("floordiv", num, b.const(lcm))
            else:
                value = num
            self._define(
                var, value, src,
                ["the dimensions ", *dims, f" with the specs {texts} give '{var}' = 0, but "
                 f"{_ZERO_NOTE}."],
                ["the dimensions ", *dims, f" with the specs {texts} give '{var}' = ", value,
                 ", but dimension variables must be >= 1."])
        return True

    def _solve_polynomial(self) -> bool:
        for eq in list(self.pending):
            s = self._split(eq)
            if s.blocked or len(s.unknowns) != 1:
                continue
            if not all(len(k) == 1 for k in s.coeffs):
                continue
            var = next(iter(s.unknowns))
            by_deg = {k[0][1]: c for k, c in s.coeffs.items()}
            if len(by_deg) == 1:
                (deg, c), = by_deg.items()
                if self._proved_sign(c) == 0:
                    continue
                self.pending.remove(eq)
                self._pure_power(eq, var, deg, c, s.known)
                return True
            if not all(isinstance(c, int) for c in by_deg.values()):
                continue
            deg = max(by_deg)
            coeffs = [int(by_deg.get(k, 0)) for k in range(deg + 1)]
            sign = 1 if coeffs[-1] > 0 else -1
            coeffs = [sign * c for c in coeffs]
            if not _increasing_from_one(coeffs):
                continue
            self.pending.remove(eq)
            b = self.b
            kv = b.expr(s.known, self.known)
            x = b.op("sub", eq.dim, kv) if sign > 0 else b.op("sub", kv, eq.dim)
            self._root(eq, var, coeffs, x, sign, kv)
            return True
        return False

    def _pure_power(self, eq: _Eq, var: str, deg: int, c: DimExpr | int,
                    known: DimExpr | int) -> None:
        """``c*var^deg + known == size``: divide by ``c``, then take the exact root."""
        b = self.b
        kv = b.expr(known, self.known)
        sign = self._proved_sign(c)
        num = b.op("sub", eq.dim, kv) if sign > 0 else b.op("sub", kv, eq.dim)
        cc = c if sign > 0 else -c
        if isinstance(cc, int):
            den = b.const(cc)
            den_text = ""
        else:
            den = b.op("max", b.expr(cc, self.known), b.const(1))
            den_text = f" (the value of '{cc}')"
        x = num if b.const_value(den) == 1 else self._divide(eq, var, num, den, den_text, kv)
        self._root(eq, var, [0] * deg + [1], x, sign, kv, scale=den)

    def _root(self, eq: _Eq, var: str, coeffs: list[int], x: int, sign: int, kv: int,
              scale: int | None = None) -> None:
        """``var`` = the exact root of ``p(var) == x`` for increasing ``p``."""
        b = self.b
        bits = _safe_bits(coeffs)
        v = b.introot(bits, coeffs, x)
        pv: int | None = None  # p(v) by Horner in the program
        for c in reversed(coeffs):
            pv = b.const(c) if pv is None else b.op("add", b.op("mul", pv, v), b.const(c))
        assert pv is not None
        # The spec's value at the candidate root, for the message.
        at = pv if scale is None else b.op("mul", pv, scale)
        at = b.op("add", kv, at) if sign > 0 else b.op("sub", kv, at)
        self._assert(b.op("eq", pv, x),
                     [f"{eq.where} == ", eq.dim, f", but the spec '{eq.text}' has that value "
                      f"for no integer '{var}' (the closest, '{var}' = ", v, ", gives ", at,
                      ")."],
                     "root", exclude=var)
        self._define(
            var, v, eq.where,
            [f"{eq.where} == ", eq.dim, f", and its spec '{eq.text}' then gives '{var}' = 0, "
             f"but {_ZERO_NOTE}."],
            [f"{eq.where} == ", eq.dim, f", but the spec '{eq.text}' gives '{var}' = ", v,
             ", and dimension variables must be >= 1."])

    # -- the end -----------------------------------------------------------------
    def _report_unsolvable(self, unknown: set[str]) -> None:
        parts = []
        for var in sorted(unknown):
            locs, blocked = [], True
            for eq in self.pending:
                if var not in eq.vars:
                    continue
                locs.append(f"'{eq.text}' for {eq.where}")
                # under an atom (floordiv, max) somewhere in this equation?
                blocked &= any(type(a) is not Var and var in _atom_vars(a, self._atom_cache)
                               for m in eq.spec.terms for a, _ in m)
            if blocked:
                parts.append(f"'{var}' occurs under floordiv/mod/max/min in every spec that "
                             f"contains it ({'; '.join(locs)})")
            else:
                parts.append(f"'{var}' occurs only in equations that cannot be solved with "
                             f"what is known ({'; '.join(locs)})")
        names = ", ".join(f"'{v}'" for v in sorted(unknown))
        solved = ", ".join(f"'{v}'" for v, _, _ in self.solved)
        raise UnsolvableSpecsError(
            f"Cannot solve for the dimension variables {names} from the input shapes: "
            + "; ".join(parts) + ". symshape solves equations linear in one or several "
            "variables, products whose other factors are known, and increasing polynomials "
            "in one variable; give each variable a dimension from which it can be computed "
            "(e.g. a dimension whose spec is the variable itself)."
            + (f" Solved: {solved}." if solved else "") + self._specs_note)

    def _rule_env(self) -> dict[str, int]:
        """The known variables plus the variables that equalities of the scope rewrote
        away (``a`` for ``a == b - 5``), as value ids."""
        env = dict(self.known)
        for name, rule in self.scope.variable_rules.items():
            e = substitute(rule, {})
            if isinstance(e, int) or e.free_vars <= self.known.keys():
                env[name] = self.b.expr(e, self.known)
        return env

    def _constraints(self) -> None:
        """Assert every explicit constraint as written.

        The constraints are compiled literally, not re-canonicalized: the scope's rewrite
        rules come from its equalities (``mod(a, 2) == 0`` rewrites ``2*floordiv(a, 2)``
        to ``a``), so rewriting a constraint with them could make it look trivially true
        while the shapes violate it.
        """
        b = self.b
        env = self._rule_env()
        for c in self.scope.constraints:
            missing: set[str] = set()
            for side in (c.lhs, c.rhs):
                if isinstance(side, DimExpr):
                    missing |= side.free_vars - env.keys()
            if missing:
                raise UnsolvableSpecsError(
                    f"the constraint {c.text!r} mentions the dimension variable(s) "
                    f"{', '.join(repr(v) for v in sorted(missing))}, which occur in no spec: "
                    "their values cannot be computed from the input shapes, so the constraint "
                    f"cannot be checked.{self._specs_note}")
            lhs = b.expr(c.lhs, env)
            rhs = b.expr(c.rhs, env)
            link = f" (from '{c.text}')" if str(c) != c.text else ""
            shown = f"'{c}'{link}"
            values: list[Piece] = []
            for side, vid in ((c.lhs, lhs), (c.rhs, rhs)):
                if isinstance(side, DimExpr):  # a constant side shows itself
                    values += [" and " if values else "", f"'{side}' == ", vid]
            self._assert(b.op("eq" if c.op == "==" else "ge", lhs, rhs),
                         [f"the constraint {shown} of the scope does not hold: ", *values, "."],
                         "constraint")

    def _outputs(self) -> list[tuple[str, int]]:
        return sorted(self._rule_env().items())


__all__ = ["Solver", "UnsolvableSpecsError"]
