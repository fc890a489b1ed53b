"""``symshape.torch.explain``: torch.export's guards, decided by symshape.

Each guard, range constraint or run-time assertion of an export (or each
complaint of a failed export) becomes symshape claims over the specs'
variables, decided under the specs' constraints: implied ones come with a
proof, the others with a counterexample and constraints that would settle
them, in symshape's syntax and as ``torch.export.Dim`` arguments.

(Over 600 lines for a reason: the guards torch keeps, read back, decided and
worded for one exported program; reading, deciding and wording share the
program's symbols and the specs' scope, and the text is one report.)
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from symshape.algebra.atoms import FloorDiv
from symshape.algebra.dimexpr import DimExpr
from symshape.decision import Verdict, prove
from symshape.decision.verdict import format_valuation
from symshape.errors import SymshapeError
from symshape.operators import FUNCTIONS
from symshape.scope import SymbolicScope
from symshape.shapes import Dim, parse_comparison_in_scope
from symshape.torch import _internals as ti
from symshape.torch.fxread import assertion_claims
from symshape.torch.guards import (
    GuardParseError,
    Reader,
    SourceKey,
    Violation,
    parse_violations,
    source_key,
    suggested_fixes,
)
from symshape.torch.specs import ExportSpecs

_IDENT = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")


@dataclass(frozen=True)
class Suggestion:
    """Constraints that settle a guard, and what they mean for the ``Dim``s."""

    constraints: tuple[str, ...]
    """symshape constraints to add (all of them)."""
    dims: tuple[str, ...] = ()
    """The ``Dim`` changes they amount to (``b = Dim('b', min=2, max=100)``), or a
    note that ``Dim``s cannot express them."""

    def __str__(self) -> str:
        text = "; ".join(self.constraints)
        return text + (f"   [torch: {'; '.join(self.dims)}]" if self.dims else "")


@dataclass(frozen=True)
class GuardReport:
    """One guard (or complaint) of torch.export, decided by symshape."""

    kind: str
    """``"guard"``, ``"range"``, ``"runtime assertion"``, ``"specialized"``,
    ``"equal"``, ``"related"``, ``"inferred"`` or ``"unknown"``."""
    torch_text: str
    """What torch wrote."""
    claims: tuple[str, ...] = ()
    """The guard as symshape claims over the specs' variables (all must hold)."""
    verdicts: tuple[Verdict, ...] = ()
    """symshape's verdict on each claim, under the specs' constraints."""
    suggestions: tuple[Suggestion, ...] = ()
    """For a guard not implied: constraints that settle it, best first, each
    checked by the prover (and true at the example arguments, when known)."""
    error: str = ""
    """Why the guard could not be read, if it could not."""

    @property
    def implied(self) -> bool:
        """True if every claim is proved from the constraints."""
        return bool(self.verdicts) and all(v.proved for v in self.verdicts) and not self.error

    def explain(self, proofs: bool = False) -> str:
        """A readable account of the guard and its decision (with the proofs of
        the implied claims if ``proofs``)."""
        head = "implied" if self.implied else ("not understood" if self.error else
                                                "NOT implied")
        lines = [f"[{head}] {self.kind}: {self.torch_text}"]
        if self.error:
            lines.append(f"  {self.error}")
        if self.implied and not proofs:
            lines[0] += "   (" + "; ".join(v.claim for v in self.verdicts) + ": proved)"
            return lines[0]
        for v in self.verdicts:
            lines.append(f"  claim {v.claim}: {v.status.value}")
            if v.proved:
                if proofs:
                    assert v.certificate is not None
                    lines.extend("    " + s for s in v.certificate.explain().splitlines())
            else:
                if v.witness is not None:
                    lines.append(f"    holds for {format_valuation(v.witness)}")
                if v.counterexample is not None:
                    lines.append(f"    fails for {format_valuation(v.counterexample)}")
        if self.suggestions:
            lines.append("  settle it with:")
            lines.extend(f"    {s}" for s in self.suggestions)
        return "\n".join(lines)


@dataclass(frozen=True)
class Explanation:
    """symshape's account of an export's guards (see :func:`explain`)."""

    reports: tuple[GuardReport, ...]
    constraints: tuple[str, ...]
    """The constraints the guards were decided under."""
    torch_fixes: tuple[str, ...] = field(default=())
    """torch's own "Suggested fixes", for comparison."""

    @property
    def implied(self) -> tuple[GuardReport, ...]:
        """The guards the constraints imply."""
        return tuple(r for r in self.reports if r.implied)

    @property
    def not_implied(self) -> tuple[GuardReport, ...]:
        """The guards the constraints do not imply (or that could not be read)."""
        return tuple(r for r in self.reports if not r.implied)

    suggested_constraints: tuple[str, ...] = field(default=())
    """Constraints that, added to the specs' constraints, settle every guard not
    implied that has a suggestion: few of them, chosen among the suggestions
    (the one that settles the most guards first), checked together by the prover."""

    def explain(self, proofs: bool = False) -> str:
        """The whole account; ``proofs`` adds the proofs of the implied guards."""
        n, k = len(self.reports), len(self.implied)
        cons = "; ".join(self.constraints) or "none"
        lines = [f"{n} torch guard(s): {k} implied by the constraints, {n - k} not.",
                 f"Constraints: {cons} (every variable is an integer >= 1)"]
        for r in self.reports:
            lines.append(r.explain(proofs))
        if self.suggested_constraints:
            lines.append("Add the constraints: " + "; ".join(self.suggested_constraints))
        if self.torch_fixes:
            lines.append("torch suggested: " + "; ".join(self.torch_fixes))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.explain()


def _settles(extra: Sequence[str], reports: Sequence[GuardReport],
             scope: SymbolicScope) -> list[bool]:
    """Which ``reports`` are implied once ``extra`` is added to ``scope``."""
    out = []
    for r in reports:
        try:
            sc = _sub_scope(scope, extra, r.claims)
            out.append(all(prove(c, scope=sc).proved for c in r.claims))
        except SymshapeError:
            out.append(False)
    return out


def _cover(reports: Sequence[GuardReport], scope: SymbolicScope,
           budget: int = 200) -> tuple[str, ...]:
    """Few constraints that settle every report with a suggestion.

    Greedy set cover over the reports' suggestions when that takes at most
    ``budget`` decisions (constraints that pin a variable to one value only when
    nothing else settles a report; ties go to the shorter text), then dropping
    the constraints the others make redundant; else, and as a fallback, each
    report's first suggestion.
    """
    todo = [r for r in reports if r.suggestions]
    if not todo:
        return ()
    fallback: list[str] = []
    for r in todo:
        fallback.extend(c for c in r.suggestions[0].constraints if c not in fallback)
    cands: list[tuple[str, ...]] = []
    for r in todo:
        cands.extend(s.constraints for s in r.suggestions if s.constraints not in cands)
    if len(todo) == 1 or len(cands) * len(todo) > budget:
        return _without_redundant(fallback, todo, scope)
    base = _sub_scope(scope, (), [c for r in todo for c in r.claims])
    covers = {c: _settles(c, todo, scope) for c in cands}
    pinned = {c: _pins(base, c) for c in cands}
    chosen: list[str] = []
    left = set(range(len(todo)))
    while left:
        best = max(cands, key=lambda c: (-pinned[c], sum(1 for i in left if covers[c][i]),
                                         -len(" ".join(c))))
        if not any(covers[best][i] for i in left):
            best = max(cands, key=lambda c: sum(1 for i in left if covers[c][i]))
        gained = {i for i in left if covers[best][i]}
        if not gained:
            return _without_redundant(fallback, todo, scope)
        chosen.extend(c for c in best if c not in chosen)
        left -= gained
    if not all(_settles(chosen, todo, scope)):
        return _without_redundant(fallback, todo, scope)
    return _without_redundant(chosen, todo, scope)


def _without_redundant(chosen: Sequence[str], todo: Sequence[GuardReport],
                       scope: SymbolicScope) -> tuple[str, ...]:
    """``chosen`` without the constraints that the others already settle the
    reports with (a constraint implied by the others among them)."""
    out = list(chosen)
    for c in list(out):
        rest = [x for x in out if x != c]
        if rest and all(_settles(rest, todo, scope)):
            out = rest
    return tuple(out)


# -- context: how torch's names and sources map to symshape ---------------------------


class _Context:
    """The scope, and how sources and names resolve to symshape expressions."""

    def __init__(self, scope: SymbolicScope, specs: ExportSpecs | None,
                 sources: dict[SourceKey, Dim], names: dict[str, Dim]) -> None:
        self.scope = scope
        self.specs = specs
        self.sources = sources
        self.names = names

    def source(self, key: SourceKey) -> Dim:
        # A dict subclass may make up missing sources (see _message_context).
        got = self.sources[key] if hasattr(self.sources, "__missing__") else \
            self.sources.get(key)
        if got is None:
            known = ", ".join(_source_text(k) for k in self.sources) or "none"
            raise GuardParseError(f"unknown input size {_source_text(key)} (known: {known})")
        return got

    def name(self, ident: str) -> Dim:
        got = self.names.get(ident)
        if got is not None:
            return got
        if _IDENT.match(ident):
            return self.scope.var(ident)
        raise GuardParseError(f"unknown name {ident!r}")

    def reader(self, extra: dict[str, Dim] | None = None) -> Reader:
        if not extra:
            return Reader(self.source, self.name)
        return Reader(self.source, lambda i: extra[i] if i in extra else self.name(i))


def _source_text(key: SourceKey) -> str:
    path, axis = key
    return f"L[{path[0]!r}]" + "".join(f"[{k!r}]" for k in path[1:]) + f".size()[{axis}]"


def _spec_context(specs: ExportSpecs) -> _Context:
    sources: dict[SourceKey, Dim] = {}
    for d in specs.inputs:
        path = specs.tensor_paths[d.leaf]
        head = specs.arg_names[path[0]] if isinstance(path[0], int) else path[0]
        sources[((head, *path[1:]), d.axis)] = d.expr
        sources[(("args", *path), d.axis)] = d.expr
    names: dict[str, Dim] = {name: r.expr for name, r in specs.roots.items()}
    return _Context(specs.scope, specs, sources, names)


def _var_name(dim_name: str) -> str:
    return dim_name if _IDENT.match(dim_name) else "v" + re.sub(r"\W", "_", dim_name)


def _message_context(violations: Sequence[Violation]) -> _Context:
    """Variables, sources and constraints read off the message alone (hand-written
    ``Dim``s): each ``Dim`` is a variable, its specified range a constraint."""
    scratch = SymbolicScope()
    pairs = [(n, s) for v in violations for n, s in v.names if s]
    src_names: dict[SourceKey, str] = {}
    for n, s in pairs:
        key = source_key(Reader(lambda k: 0, lambda i: 0).parse(s))
        if key is not None and _IDENT.match(n.lstrip("_")):
            src_names.setdefault(key, _var_name(n))
    ranges: list[str] = []
    bounded_below: set[str] = set()
    for v in violations:
        if not v.range or not v.names:
            continue
        name = v.names[0][0]
        if not _IDENT.match(name.lstrip("_")):
            continue
        var = _var_name(name)

        def as_var(ident: str, var: str = var) -> Dim:
            return scratch.var(var)
        r = Reader(lambda k: 0, as_var)
        try:
            claims = r.claims(v.range)
        except SymshapeError:
            continue
        for c in claims:
            if c not in ranges:
                ranges.append(c)
        if re.match(r"^\s*-?\d+\s*<=", v.range):
            bounded_below.add(var)
    for var in sorted(set(src_names.values()) - bounded_below):
        ranges.append(f"{var} >= 2")  # torch's default range of a dynamic size
    scope = SymbolicScope(ranges)
    sources = {k: scope.var(n) for k, n in src_names.items()}
    names = {n: scope.var(_var_name(n)) for n, _ in pairs if _IDENT.match(n.lstrip("_"))}

    class _Auto(dict[SourceKey, Dim]):
        def __missing__(self, key: SourceKey) -> Dim:
            path, axis = key
            base = "_".join(str(p) for p in path)
            var = self[key] = scope.var(_var_name(f"{base}_size{axis}"))
            return var

    return _Context(scope, None, _Auto(sources), names)


# -- deciding and suggesting ------------------------------------------------------------


_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_FUNCTIONS = frozenset(op.function for op in FUNCTIONS)  # reserved words, not names


def _names(text: str) -> set[str]:
    return set(_WORD.findall(text)) - _FUNCTIONS


def _sub_scope(scope: SymbolicScope, extra: Sequence[str], about: Iterable[str]
               ) -> SymbolicScope:
    """The scope's constraints plus ``extra``, keeping only the constraints
    connected (through shared variables) to the texts ``about`` and ``extra``.

    The others constrain other variables only, so they cannot change what is
    provable about these (the whole set is satisfiable, as the scope is); a
    model with many dims otherwise pays for all of them in every check.
    """
    texts = [*scope.constraint_texts, *extra]
    names = set().union(*(_names(t) for t in (*about, *extra)))
    keep: list[str] = []
    rest = list(texts)
    grew = True
    while grew:
        grew = False
        for t in list(rest):
            ns = _names(t)
            if ns & names or not ns:
                keep.append(t)
                rest.remove(t)
                names |= ns
                grew = True
    return SymbolicScope([t for t in texts if t in keep])


def _decide(claims: Sequence[str], scope: SymbolicScope) -> tuple[Verdict, ...]:
    # In the part of the scope about the claim: the same answer, valuations of
    # the claim's variables only, and no work on the others.
    return tuple(prove(c, scope=_sub_scope(scope, (), [c])) for c in claims)


def _sides(claim: str, scope: SymbolicScope) -> tuple[str, Dim, Dim] | None:
    try:
        links = parse_comparison_in_scope(claim, scope)
    except SymshapeError:
        return None
    return links[0] if len(links) == 1 else None


_FLIP = {">=": "<=", "<=": ">=", ">": "<", "<": ">", "==": "==", "!=": "!="}


def _moved(d: Dim, op: str, k: int = 0) -> str:
    """``d op k`` with the constant of ``d`` moved to the right, written with a
    positive leading term when the sign can be flipped."""
    texts = []
    for sign in (1, -1):
        e, o, kk = (d, op, k) if sign == 1 else (-d, _FLIP[op], -k)
        c = e.constant if isinstance(e, DimExpr) else e
        texts.append(f"{e - c} {o} {kk - c}")
    return texts[0] if not texts[0].startswith("-") or texts[1].startswith("-") else texts[1]


def _candidates(claim: str, verdict: Verdict, scope: SymbolicScope) -> list[tuple[str, ...]]:
    """Constraint sets that may settle ``claim``, best first (not yet checked)."""
    out: list[tuple[str, ...]] = [(s,) for s in verdict.suggestions]
    sides = _sides(claim, scope)
    if sides is None:
        return out + [(claim,)]
    op, lhs, rhs = sides
    d = lhs - rhs
    if op == "!=":
        out.append((_moved(d, ">=", 1),))
        out.append((_moved(d, "<=", -1),))
    elif op in (">=", ">", "<=", "<", "=="):
        out.append((_moved(d, op),))
    # Divisibility: mod(v, m) == r for the constant divisors of the claim.
    vars_: set[str] = set()
    dens: set[int] = set()
    if isinstance(d, DimExpr):
        vars_ = d.free_vars
        for a in d.atoms(recursive=True):
            if isinstance(a, FloorDiv) and isinstance(a.den, int) and 2 <= a.den <= 64:
                dens.add(a.den)
    if len(vars_) == 1:
        (v,) = vars_
        for den in sorted(dens):
            out.extend((f"mod({v}, {den}) == {r}",) for r in range(den))
    return out


_BOUND = re.compile(r"^([A-Za-z][A-Za-z0-9_]*) (>=|<=|==) (-?\d+)$")
_RESIDUE = re.compile(r"^mod\(([A-Za-z][A-Za-z0-9_]*), (\d+)\) == (\d+)$")


def _pins(scope: SymbolicScope, extra: Sequence[str]) -> int:
    """How many variables the bounds ``v >= k``, ``v <= k``, ``v == k`` among
    ``extra`` pin to a single value, given their bounds in ``scope`` (cheap: no
    other constraint is looked at, so a pin through them goes unnoticed, which
    only affects the order of suggestions)."""
    ranges: dict[str, list[float]] = {}
    for c in extra:
        m = _BOUND.match(c)
        if m is None:
            continue
        v, op, k = m.group(1), m.group(2), int(m.group(3))
        if v not in ranges:
            e = scope.var(v)
            if isinstance(e, int) or e.free_vars != {v}:
                continue
            ranges[v] = list(scope.bounds(e))
        r = ranges[v]
        if op in (">=", "=="):
            r[0] = max(r[0], k)
        if op in ("<=", "=="):
            r[1] = min(r[1], k)
    return sum(1 for lo, hi in ranges.values() if lo >= hi)


def _holds_at(constraints: Sequence[str], example: dict[str, int]) -> bool:
    if not example:
        return True
    at = SymbolicScope([f"{k} == {v}" for k, v in sorted(example.items())])
    try:
        return all(prove(c, scope=at).proved for c in constraints)
    except SymshapeError:
        return False


def _dim_changes(specs: ExportSpecs | None, scope: SymbolicScope,
                 extra: Sequence[str]) -> tuple[str, ...]:
    """The ``Dim`` changes that adding ``extra`` amounts to, exactly (the new
    ``Dim``s say what ``extra`` says), or :data:`NOT_BY_DIMS`."""
    if specs is None:
        if not all(_BOUND.match(c) or _derived_equality(c) or _RESIDUE.match(c)
                   for c in extra):
            return (NOT_BY_DIMS,)
        new_scope = _sub_scope(scope, extra, ())
        scope = _sub_scope(scope, (), extra)
        out = []
        residues = {g.group(1): (int(g.group(2)), int(g.group(3)))
                    for c in extra if (g := _RESIDUE.match(c))}
        for v in sorted(set().union(*(_names(c) for c in extra))):
            e = new_scope.var(v)
            if isinstance(e, int):
                out.append(f"{v}: static {e}")
                continue
            if e.free_vars != {v}:
                out.append(f"{v} = {e}")
                continue
            lo, hi = new_scope.bounds(e)
            if v in residues:  # v = m*_v + r, a derived dim of a root _v
                k, res = residues[v]
                mx = "" if hi == float("inf") else f", max={(int(hi) - res) // k}"
                out.append(f"_{v} = Dim('_{v}', min={-(-(int(lo) - res) // k)}{mx})")
                out.append(f"{v} = {k}*_{v}" + (f" + {res}" if res else ""))
                continue
            if (lo, hi) != scope.bounds(scope.var(v)):
                mx = "" if hi == float("inf") else f", max={int(hi)}"
                out.append(f"{v} = Dim({v!r}, min={int(lo)}{mx})")
        return tuple(out)
    try:
        new = specs.with_constraints(extra)
    except SymshapeError:
        return ()
    if any(c in new.unexpressed for c in extra):
        return (NOT_BY_DIMS,)
    out = []
    for name, r in new.roots.items():
        old = specs.roots.get(name)
        if old is None or (old.min, old.max) != (r.min, r.max):
            out.append(f"{name} = {r.dim_text()}")
        if r.modulus > 1 and (old is None or old.modulus != r.modulus):
            out.append(f"{r.var} = {r.modulus}*{name}" + (f" + {r.residue}" if r.residue else ""))
    for name, r in specs.roots.items():
        if name not in new.roots and r.var not in {x.var for x in new.roots.values()}:
            e = new.scope.var(r.var)
            out.append(f"{r.var}: static {e}" if isinstance(e, int) else
                       f"{r.var} = {e} (no Dim of its own)")
    return tuple(out)


NOT_BY_DIMS = "not expressible by Dims: symshape.torch.export enforces it at run time"
"""The torch translation of a constraint that ``Dim`` ranges and derived dims
cannot state."""


def _derived_equality(text: str) -> bool:
    """Is ``text`` ``u == c*v + d`` (or its mirror) with ``c >= 1``: a derived dim?"""
    try:
        links = parse_comparison_in_scope(text, SymbolicScope())
    except SymshapeError:
        return False
    if len(links) != 1 or links[0][0] != "==":
        return False
    d = links[0][1] - links[0][2]
    if not isinstance(d, DimExpr) or not d.is_linear() or len(d.free_vars) != 2:
        return False
    coeffs = [k for m, k in d.terms.items() if m]
    return len(coeffs) == 2 and 1 in map(abs, coeffs) and coeffs[0] * coeffs[1] < 0


def _suggest(claims: Sequence[str], verdicts: Sequence[Verdict], scope: SymbolicScope,
             specs: ExportSpecs | None, limit: int = 3) -> tuple[Suggestion, ...]:
    open_ = [(c, v) for c, v in zip(claims, verdicts, strict=True) if not v.proved]
    if not open_ or any(v.refuted for _, v in open_) and len(open_) > 1:
        return ()
    pools = [_candidates(c, v, scope) for c, v in open_]
    if len(open_) > 1:
        # Two bounds that meet (``5 <= b``, ``b <= 5``) are one equality.
        eqs = []
        for c, _ in open_:
            sides = _sides(c, scope)
            if sides is not None and sides[0] in (">=", "<="):
                eqs.append((_moved(sides[1] - sides[2], "=="),))
        pools = [[*eqs, *p] for p in pools]
    combos: list[tuple[str, ...]] = []
    if len(pools) == 1:
        combos = list(pools[0])
    else:
        # The i-th candidate of every open claim together.
        for i in range(max(len(p) for p in pools)):
            joined: list[str] = []
            for p in pools:
                joined.extend(c for c in p[min(i, len(p) - 1)] if c not in joined)
            combos.append(tuple(joined))
    example = specs.example if specs is not None else {}
    about = [c for c, _ in open_]
    found: list[tuple[bool, tuple[str, ...]]] = []
    seen: set[tuple[str, ...]] = set()
    for combo in combos:
        if combo in seen:
            continue
        seen.add(combo)
        try:
            sc = _sub_scope(scope, combo, about)
            if not all(prove(c, scope=sc).proved for c, _ in open_):
                continue
        except SymshapeError:
            continue
        if not _holds_at(combo, example):
            continue
        if specs is not None and example:
            # The example arguments must pass the new specs, assumptions included
            # (``mod(b, 3) == 2`` makes ``b = 3*_b + 2`` with ``_b >= 2``).
            try:
                new = specs.with_constraints(combo)
            except SymshapeError:
                continue
            if not _holds_at(new.assumptions, example):
                continue
        found.append((_pinned(sc, combo), combo))
        if len(found) >= 2 * limit:
            break
    # Constraints that pin a variable to one value settle anything and are seldom
    # what the model needs: offered only when nothing else works.
    kept = [c for p, c in found if not p] or [c for _, c in found]
    out = [Suggestion(c, _dim_changes(specs, scope, c)) for c in kept]
    return tuple(_not_implying_others(out, scope))[:limit]


def _pinned(scope: SymbolicScope, extra: Sequence[str]) -> bool:
    """Does ``scope`` (which has ``extra``) fix a variable of ``extra`` to one value?"""
    for v in sorted(set().union(*(_names(c) for c in extra))):
        e = scope.var(v)
        if isinstance(e, int):
            return True
        lo, hi = scope.bounds(e)
        if lo == hi:
            return True
    return False


def _implies(premise: Sequence[str], conclusion: Sequence[str], scope: SymbolicScope) -> bool:
    try:
        sc = _sub_scope(scope, premise, conclusion)
        return all(prove(c, scope=sc).proved for c in conclusion)
    except SymshapeError:
        return False


def _not_implying_others(suggestions: Sequence[Suggestion],
                         scope: SymbolicScope) -> list[Suggestion]:
    """The suggestions without those that imply another one (a weaker one
    settles the guard too), unless the stronger one is expressible by ``Dim``s
    and the weaker one is not (``mod(b, 3) == 1`` is the derived dim
    ``3*_b + 1``; ``mod(b, 3) >= 1`` needs run-time checks); of equivalent
    ones, the first."""
    def by_dims(s: Suggestion) -> bool:
        return NOT_BY_DIMS not in s.dims

    out: list[Suggestion] = []
    for i, y in enumerate(suggestions):
        redundant = False
        for j, x in enumerate(suggestions):
            if i == j or (by_dims(y) and not by_dims(x)):
                continue
            if _implies(y.constraints, x.constraints, scope) and (
                    j < i or not _implies(x.constraints, y.constraints, scope)):
                redundant = True
                break
        if not redundant:
            out.append(y)
    return out


def _report(kind: str, text: str, claims_fn: Any, ctx: _Context) -> GuardReport:
    try:
        claims = tuple(claims_fn())
        verdicts = _decide(claims, ctx.scope)
    except SymshapeError as err:
        return GuardReport(kind, text, error=str(err))
    sugg = () if all(v.proved for v in verdicts) else \
        _suggest(claims, verdicts, ctx.scope, ctx.specs)
    return GuardReport(kind, text, claims, verdicts, sugg)


def _violation_report(v: Violation, ctx: _Context) -> GuardReport:
    reader = ctx.reader()
    if v.kind == "guard":
        src = v.names[0][1]
        return _report("guard", v.guard, lambda: reader.claims(v.guard), ctx) \
            if src else GuardReport("guard", v.text, error="no source")
    if v.kind == "inferred":
        def inferred() -> list[str]:
            return [f"{reader.expr(v.names[0][1])} == {reader.expr(v.guard)}"]
        return _report("inferred", v.text, inferred, ctx)
    if v.kind == "specialized":
        return _report("specialized", v.text,
                       lambda: [f"{reader.expr(v.names[0][0])} == {v.guard}"], ctx)
    if v.kind == "equal":
        return _report("equal", v.text, lambda: [
            f"{reader.expr(v.names[0][1])} == {reader.expr(v.names[1][1])}"], ctx)
    if v.kind == "related":
        n2, s2 = v.names[1]

        def related() -> list[str]:
            other = reader.expr(s2)
            extra = {n2: other} if _IDENT.match(n2.lstrip("_")) else {}
            rhs = ctx.reader(extra).expr(v.guard)
            return [f"{reader.expr(v.names[0][1])} == {rhs}"]
        return _report("related", v.text, related, ctx)
    return GuardReport("unknown", v.text, error="symshape does not know this kind of message")


def _explain_message(message: str, specs: ExportSpecs | None) -> Explanation:
    violations = parse_violations(message)
    if specs is not None:
        ctx = _spec_context(specs)
        # Sources named after the model's parameters, when the specs were built
        # without the model: the message pairs each Dim name with its source.
        for v in violations:
            for name, src in v.names:
                key = source_key(ctx.reader().parse(src)) if src else None
                if key is not None and key not in ctx.sources:
                    with contextlib.suppress(SymshapeError):
                        ctx.sources[key] = ctx.reader().expr(name)
    else:
        ctx = _message_context(violations)
    reports = tuple(_violation_report(v, ctx) for v in violations)
    return Explanation(reports, tuple(ctx.scope.constraint_texts),
                       tuple(suggested_fixes(message)),
                       _cover([r for r in reports if not r.implied], ctx.scope))


def _explain_program(ep: Any, specs: ExportSpecs | None) -> Explanation:
    from symshape.sympy import from_sympy
    from symshape.torch.convert import range_texts, symbol_map, tensor_placeholders
    if specs is not None:
        ctx = _spec_context(specs)
        symbols: dict[str, Dim] | None = symbol_map(ep, specs)
    else:
        texts = [claim for _, claim in range_texts(ep)]
        scope = SymbolicScope(texts)
        ctx = _Context(scope, None, {}, {})
        symbols = None
    placeholders = {n: i for i, n in enumerate(tensor_placeholders(ep))}

    def dim_of(node: Any, axis: int) -> Dim:
        leaf = placeholders.get(node)
        if leaf is None:
            raise GuardParseError(f"{node} is not a tensor input of the program")
        if specs is not None:
            for d in specs.inputs:
                if d.leaf == leaf and d.axis == axis:
                    return d.expr
        return from_sympy(ti.sym_expr(node.meta["val"].shape[axis]), ctx.scope,
                          symbols=symbols)

    reports: list[GuardReport] = []
    by_key: dict[str, list[str]] = {}
    for torch_text, claim_text in _ranges(ep, symbols, ctx.scope):
        by_key.setdefault(torch_text, []).append(claim_text)
    for torch_text, claims in by_key.items():
        reports.append(_report("range", torch_text, lambda c=claims: c, ctx))
    for node in ep.graph.nodes:
        if node.op == "call_function" and ti.is_assert_scalar(node.target):
            cond = node.args[0]
            text = str(node.args[1]) if len(node.args) > 1 else str(cond)
            reports.append(_report("runtime assertion", text,
                                   lambda c=cond, t=text: assertion_claims(c, dim_of, t), ctx))
    if specs is not None:
        reader = ctx.reader()
        for g in ti.guards_code(ep):
            reports.append(_report("guard", g, lambda g=g: reader.claims(g), ctx))
    return Explanation(tuple(reports), tuple(ctx.scope.constraint_texts), (),
                       _cover([r for r in reports if not r.implied], ctx.scope))


def _ranges(ep: Any, symbols: dict[str, Dim] | None,
            scope: SymbolicScope) -> list[tuple[str, str]]:
    from symshape.sympy import from_sympy
    from symshape.torch.convert import finite_bound
    out = []
    for key, vr in ep.range_constraints.items():
        e = from_sympy(key, scope, symbols=symbols)
        torch_text = f"{key} in [{vr.lower}, {vr.upper}]"
        lo, hi = finite_bound(vr.lower), finite_bound(vr.upper)
        if lo is not None:
            out.append((torch_text, f"{e} >= {lo}"))
        if hi is not None:
            out.append((torch_text, f"{e} <= {hi}"))
    return out


def explain(obj: Any, specs: ExportSpecs | None = None) -> Explanation:
    """symshape's account of torch.export's guards.

    Args:
      obj: an ``ExportedProgram`` (its range constraints, run-time assertions
        and guards are explained), or the exception ``torch.export.export``
        raised (``UserError`` / ``ConstraintViolationError``, or its message).
      specs: the :class:`ExportSpecs` of the export (from :func:`export_specs`);
        the guards are then decided over the specs' variables under the specs'
        constraints, and suggestions come as ``Dim`` changes too.  Without it,
        an error's ``Dim`` names are the variables and their specified ranges the
        constraints; a program's variables are torch's symbols under
        ``ep.range_constraints``.

    Returns:
      An :class:`Explanation`; ``str()`` of it reads well, and
      ``suggested_constraints`` lists constraints that, added, settle every guard
      not implied.
    """
    if isinstance(obj, str):
        return _explain_message(obj, specs)
    if isinstance(obj, BaseException):
        return _explain_message(ti.error_message(obj), specs)
    if hasattr(obj, "range_constraints") and hasattr(obj, "graph"):
        return _explain_program(obj, specs)
    raise SymshapeError(f"explain() takes an ExportedProgram or the error torch.export "
                        f"raised, got {type(obj).__name__}")


def explain_constraints(specs: ExportSpecs, extra: Iterable[str]) -> tuple[str, ...]:
    """The ``Dim`` changes that adding the constraints ``extra`` amounts to."""
    return _dim_changes(specs, specs.scope, tuple(extra))


__all__ = ["Explanation", "GuardReport", "Suggestion", "explain", "explain_constraints"]
