"""Valid valuations that show the signs an expression takes, before any decision.

``max``/``min`` ask their scope for the order of two operands while an
expression is built, ``floordiv`` asks for signs (``SymbolicScope.order``
and ``sign``), and the comparison operators whether ``e >= 0``
(``known_ge0``).  Most of those questions have the answer "neither": the
difference takes both signs.  A valid valuation where ``e < 0`` shows that
``e >= 0`` cannot be proved, so the decision procedure (sound: it never
proves what fails at a valid valuation) would answer the same; finding two
such valuations here settles the question without building the decider's
pool or running its tactics.

The valuations tried are the same for every expression and every naming of
the variables: every variable at one value (1, 2, 1000, 2^40); a base where
each variable of the facts is at its propagated lower bound, rounded up to
its divisors; that base with one variable of the question raised (by one
step, and to its upper bound or far); every variable at 2^40 but one at its
base value.  The set of those is the same whatever the names, and the answer
is whether some of them show a sign.  A valuation counts only where every
fact of the scope holds and every divisor, at any depth, is >= 1: inside the
domain of every question (the decider's hypotheses ``den >= 1`` included),
so what is seen here is what the decider would see there.  Values too large
to be cheap count as unknown.  Which valuations are tried changes how often
the decider is skipped, never an answer.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from symshape.algebra.atoms import Factors, FloorDiv, Var, compound_children, fold_atoms
from symshape.algebra.dimexpr import DimExpr
from symshape.algebra.poly import value_at
from symshape.repair import divisor_steps, fact_atoms
from symshape.util import int_mul

#: bits a value may have here: beyond that the valuation is "unknown" (a
#: witness must stay cheap; ``a^100000`` at 1000 is not)
MAX_BITS = 4096

#: the uniform valuations tried (every variable the same value)
UNIFORM = (1, 2, 1000, 1 << 40)

#: steps a variable without an upper bound is raised by, at the far end
#: (beyond the constants questions usually have: ``3347 - w`` < 0 there)
FAR = 1 << 40

#: variables of a question moved one at a time (the valuations stay few)
MAX_MOVED = 8

# A valuation: ("u", "", u) every variable u; ("b", "", 0) the base (see
# SignWitnesses); ("r", x, v) the base with x = v; ("l", x, v) every variable
# the largest uniform value but x = v.
Key = tuple[str, str, int]


def strict_value(e: DimExpr | int, env: dict[str, int], default: int,
                 memo: dict[Any, int | None], shapes: AtomShapes | None = None,
                 shape: ExprShape | None = None) -> int | None:
    """Value of ``e`` where each variable has its value in ``env`` (else
    ``default``), by the algebra's one evaluator (:func:`value_at`); None
    where a divisor at any depth is < 1 (outside the domain of every
    question), or where the value could pass :data:`MAX_BITS` (checked on a
    bound before any arithmetic).  ``memo`` caches the values of atoms at
    that valuation, ``shapes`` what the checks read of each atom, ``shape``
    what they read of ``e`` (``shapes.shape(e)``; given by a caller that
    evaluates ``e`` at many valuations)."""
    if isinstance(e, int):
        return e
    if shape is None:
        shape = (shapes if shapes is not None else AtomShapes()).shape(e)
    top = max(max(env.values(), default=default), default)
    if shape.bits_bound(top.bit_length()) > MAX_BITS:
        return None
    for den in shape.divisors:
        d = value_at(den, env, memo, default)
        if d is None or d < 1:
            return None
    return value_at(e, env, memo, default)


class ExprShape:
    """What :func:`strict_value` checks read of one expression: a bound on
    the bits of its value (``|value| < 2**(a*b + c)`` wherever every
    variable is below ``2**b``) and its symbolic divisors at any depth."""

    __slots__ = ("a", "c", "divisors")

    def __init__(self, a: int, c: int, divisors: tuple[DimExpr, ...]) -> None:
        self.a = a
        self.c = c
        self.divisors = divisors

    def bits_bound(self, b: int) -> int:
        """The bound on the bits of the value where every variable is below ``2**b``."""
        return self.a * b + self.c


class AtomShapes:
    """What :func:`strict_value` reads of an atom besides its value, computed
    once per atom (for the life of the scope that holds this): a bound on
    the bits of its value, and the symbolic divisors at and below it."""

    __slots__ = ("growth", "dens")

    def __init__(self) -> None:
        # (A, B): |value| < 2**(A*b + B) wherever every variable is below 2**b
        self.growth: dict[Any, tuple[int, int]] = {}
        self.dens: dict[Any, tuple[DimExpr, ...]] = {}

    def shape(self, e: DimExpr) -> ExprShape:
        """The :class:`ExprShape` of ``e`` (a quotient is no larger than its
        numerator, ``max(x, 0)`` than ``x``)."""
        a, c = self._linear_bound(e.terms)
        return ExprShape(a, c, self.divisors(e))

    def _linear_bound(self, terms: Any) -> tuple[int, int]:
        a_max = b_max = 0
        for m, c in terms.items():
            a_sum, b_sum = 0, abs(c).bit_length()
            pairs: Factors = m
            for x, k in pairs:
                if type(x) is Var:
                    a_sum += k
                else:
                    g = self.growth.get(x)
                    if g is None:
                        g = fold_atoms(x, self.growth, self._own_growth, compound_children)
                    a_sum += k * g[0]
                    b_sum += k * g[1]
            a_max, b_max = max(a_max, a_sum), max(b_max, b_sum)
        return a_max, b_max + len(terms).bit_length()

    def _own_growth(self, a: Any) -> tuple[int, int]:
        o = a.num if type(a) is FloorDiv else a.arg
        if isinstance(o, int):
            return 0, abs(o).bit_length()
        return self._linear_bound(o.terms)

    def divisors(self, e: DimExpr) -> tuple[DimExpr, ...]:
        """The symbolic divisors of the floordiv atoms of ``e``, at any depth."""
        out: dict[DimExpr, None] = {}
        for m in e.terms:
            pairs: Factors = m
            for x, _ in pairs:
                if type(x) is not Var:
                    below: tuple[DimExpr, ...] = fold_atoms(x, self.dens, self._own_divisors,
                                                            compound_children)
                    out.update(dict.fromkeys(below))
        return tuple(out)

    def _own_divisors(self, a: Any) -> tuple[DimExpr, ...]:
        out: dict[DimExpr, None] = {}
        if type(a) is FloorDiv and isinstance(a.den, DimExpr):
            out[a.den] = None
        for b in compound_children(a):
            out.update(dict.fromkeys(self.dens[b]))
        return tuple(out)


class SignWitnesses:
    """The valid valuations of one scope tried by :meth:`signs` (each checked
    against the scope's facts once, on first use), and the values of atoms
    at each.

    ``bounds`` gives the lower and upper bounds that interval propagation
    gives a variable (``var_lower_bound``, ``var_upper_bound``: the scope,
    whose questions read its intervals first, so they cost nothing new
    here).  Besides the uniform valuations, the valuations tried start from
    a base: every variable of the facts at its lower bound, rounded up to a
    multiple of the constant divisors it is under (``a >= b + 8``, ``mod(s,
    128) == 0``: a = 9, b = 1, s = 128), which often satisfies the facts
    where all ones does not; then each variable of the question raised
    alone, by one step and to its upper bound (or by a thousand steps)."""

    __slots__ = ("_facts", "_bounds", "_valid", "_memos", "_base", "_steps", "_names_of",
                 "_shapes", "_facts_info")

    def __init__(self, facts: Sequence[DimExpr | int], bounds: Any) -> None:
        self._facts = facts
        self._bounds = bounds
        self._valid: dict[Key, bool] = {}
        self._memos: dict[Key, dict[Any, int | None]] = {}
        self._base: dict[str, int] | None = None
        self._steps: dict[str, int] = {}
        self._names_of: dict[Any, frozenset[str]] = {}
        self._shapes = AtomShapes()
        # each fact with its variables at any depth and its shape (see _fact_info)
        self._facts_info: list[tuple[DimExpr | int, frozenset[str], ExprShape | None]] | None \
            = None

    def _env(self, key: Key) -> tuple[dict[str, int], int]:
        """The valuation of ``key``: values, and the value of other variables."""
        kind, x, v = key
        if kind == "u":
            return {}, v
        if kind == "l":
            return {x: v}, UNIFORM[-1]
        env = dict(self._base_env())
        if kind == "r":
            env[x] = v
        return env, 1

    def _sign_at(self, e: DimExpr, key: Key, shape: ExprShape, seen: int) -> int:
        """The sign bit (see :meth:`signs`) of ``e`` (of shape ``shape``) at the
        valuation ``key``; 0 where it is 0, unknown, or a bit in ``seen``
        (nothing new), or where the valuation is not valid.  The value comes
        first: a valuation is checked against every fact only where it
        would show a new sign."""
        memo = self._memos.get(key)
        if memo is None:
            memo = self._memos[key] = {}
        env, default = self._env(key)
        v = strict_value(e, env, default, memo, self._shapes, shape)
        if v is None or v == 0:
            return 0
        bit = 1 if v > 0 else 2
        if seen & bit:
            return 0
        valid = self._valid.get(key)
        if valid is None:
            valid = self._valid[key] = self._is_valid(key, env, default, memo)
        return bit if valid else 0

    def _fact_info(self) -> list[tuple[DimExpr | int, frozenset[str], ExprShape | None]]:
        """Each fact, its variables at any depth, and its shape (None for a
        constant), computed once: every valuation reads them."""
        info = self._facts_info
        if info is None:
            info = self._facts_info = [
                (f, frozenset(), None) if isinstance(f, int) else
                (f, frozenset(self._names(f)), self._shapes.shape(f)) for f in self._facts]
        return info

    def _is_valid(self, key: Key, env: dict[str, int], default: int,
                  memo: dict[Any, int | None]) -> bool:
        """Whether every fact holds at the valuation ``key`` (values in
        ``env``, else ``default``) within the domain of its divisors.

        The base raised in one variable ``x`` (``("r", x, v)``) differs from
        the base only in ``x``: where the base is valid, a fact without ``x``
        at any depth has the value and divisors it has there, so only its
        bit bound (which reads the largest value of the valuation) is
        checked again; the facts with ``x`` are evaluated."""
        shapes = self._shapes
        if key[0] == "r" and self._is_base_valid():
            x = key[1]
            bits = max(max(env.values(), default=default), default).bit_length()
            for f, names, shape in self._fact_info():
                if shape is None:
                    continue  # (a constant: it holds, as it does at the base)
                if x in names:
                    v = strict_value(f, env, default, memo, shapes, shape)
                    if v is None or v < 0:
                        return False
                elif shape.bits_bound(bits) > MAX_BITS:
                    return False
            return True
        return self._all_hold(env, default, memo)

    def _all_hold(self, env: dict[str, int], default: int,
                  memo: dict[Any, int | None]) -> bool:
        """Whether every fact holds, each evaluated, within its domain."""
        shapes = self._shapes
        return all((v := strict_value(f, env, default, memo, shapes, shape)) is not None
                   and v >= 0 for f, _, shape in self._fact_info())

    def _is_base_valid(self) -> bool:
        """Whether the base (see :meth:`_base_env`) is valid."""
        key: Key = ("b", "", 0)
        valid = self._valid.get(key)
        if valid is None:
            memo = self._memos.get(key)
            if memo is None:
                memo = self._memos[key] = {}
            env, default = self._env(key)
            valid = self._valid[key] = self._all_hold(env, default, memo)
        return valid

    def signs(self, e: DimExpr, want: int, names: set[str] | None = None) -> int:
        """Which signs of ``e`` valid valuations show: bit 1 for a value > 0,
        bit 2 for a value < 0.  Stops as soon as every bit of ``want`` is
        shown.  ``names``: :meth:`variables` of ``e``, where the caller has them."""
        seen = 0
        shape = self._shapes.shape(e)
        for key in self._keys(self._names(e) if names is None else names):
            seen |= self._sign_at(e, key, shape, seen)
            if seen & want == want:
                break
        return seen

    def fact_count(self) -> int:
        """How many facts every valid valuation satisfies (each valuation is
        checked against all of them)."""
        return len(self._facts)

    def variables(self, e: DimExpr) -> set[str]:
        """The variables of ``e`` at any depth.  With at most :data:`MAX_MOVED`
        of them, the valuations tried for ``e`` move each one: the set of
        them, and so what they show, is the same for every naming."""
        return self._names(e)

    def showing(self, e: DimExpr, sign: int) -> list[dict[str, int]]:
        """Every valid valuation tried where ``e`` has ``sign`` (1: > 0, 2: <
        0), each with a value for every variable of ``e`` and of the facts."""
        out: list[dict[str, int]] = []
        shape = self._shapes.shape(e)
        variables = self._names(e)
        names = sorted(variables | set(self._base_env()))
        for key in self._keys(variables):
            if self._sign_at(e, key, shape, 3 ^ sign) != sign:
                continue
            env, default = self._env(key)
            out.append({n: env.get(n, default) for n in names})
        return out

    def _keys(self, variables: set[str]) -> Iterator[Key]:
        """The valuations tried for an expression of ``variables``."""
        for u in UNIFORM:
            yield ("u", "", u)
        base = self._base_env()
        if any(v != 1 for v in base.values()):
            yield ("b", "", 0)
        # (a few variables: a question over hundreds would cost hundreds of
        # valuations; which few only decides how often the decider is skipped)
        names = sorted(variables)[:MAX_MOVED]
        for x in names:
            at = base.get(x, 1)
            step = self._steps.get(x, 1)
            yield ("r", x, at + step)
            hi = self._bounds.var_upper_bound(x)
            # (int_mul: a signal may interrupt a product of large values)
            far = at + int_mul(FAR, step) if hi is None else int_mul(hi // step, step)
            if far > at + step:
                yield ("r", x, far)
        for x in names:
            # every variable large but x: ``-a + min(b, w)`` is > 0 there
            yield ("l", x, base.get(x, 1))

    def _names(self, e: DimExpr) -> set[str]:
        """The variables of ``e`` at any depth (those of each atom kept: a
        nest of max/min asks about every level of itself while it is built)."""
        out: set[str] = set()
        for m in e.terms:
            pairs: Factors = m
            for a, _ in pairs:
                if type(a) is Var:
                    out.add(a.name)
                else:
                    out |= self._atom_names(a)
        return out

    def _atom_names(self, a: Any) -> frozenset[str]:
        # (iterative, innermost atoms first: a nest may be thousands deep)
        return fold_atoms(a, self._names_of, self._own_names, compound_children)

    def _own_names(self, a: Any) -> frozenset[str]:
        """The variables of atom ``a`` (those of the atoms below it are known)."""
        names: set[str] = set()
        for o in a.operands:
            if isinstance(o, DimExpr):
                for m in o.terms:
                    pairs: Factors = m
                    for b, _ in pairs:
                        if type(b) is Var:
                            names.add(b.name)
                        else:
                            names |= self._names_of[b]
        return frozenset(names)

    def _base_env(self) -> dict[str, int]:
        """Every variable of the facts at its propagated lower bound, rounded
        up to a multiple of the constant divisors it is under."""
        base = self._base
        if base is None:
            names, atoms = fact_atoms(self._facts)
            self._steps = divisor_steps(atoms, names)
            base = {}
            for x in sorted(names):
                k = self._steps.get(x, 1)
                base[x] = int_mul(-(-self._bounds.var_lower_bound(x) // k), k)
            self._base = base
        return base

    def clear(self) -> None:
        """Forget the values of atoms (validity stays: the facts are fixed)."""
        self._memos.clear()


__all__ = ["FAR", "MAX_BITS", "MAX_MOVED", "UNIFORM", "AtomShapes", "ExprShape",
           "SignWitnesses", "strict_value"]
