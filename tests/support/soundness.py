"""One claim checked against brute force and z3, counted for the soundness
ratchet (shared by the decision soundness tests and the huge-number ones)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from support.oracle import Claim, Z3Oracle, brute_force, check_valuation, links_of
from symshape import SymbolicScope, UnsatisfiableConstraintsError
from symshape.decision import Status, prove
from symshape.shapes import parse_comparison_in_scope

# The statuses a claim can get (UNDECIDED: the work budget ran out).
STATUSES = tuple(st_.value for st_ in Status)


def new_stats() -> Counter[str]:
    """Counts of one run: claims, statuses, and the ratchet's labels."""
    return Counter({k: 0 for k in ("claims", "unsat scopes", "valid", "valid_proved",
                                   "unsat", "unsat_refuted", *STATUSES)})


def _z3_scope_satisfiable(constraints: tuple[str, ...]) -> bool | None:
    """Satisfiability of constraints checked without symshape's decision
    procedure: the constraints are parsed in an unconstrained scope."""
    free = SymbolicScope()
    links: list[tuple[str, Any]] = []
    for text in constraints:
        for op, lhs, rhs in parse_comparison_in_scope(text, free):
            if op in (">=", ">", "<=", "<"):
                d = (lhs - rhs) if op in (">=", ">") else (rhs - lhs)
                links.append((">=", d - 1 if op in (">", "<") else d))
            else:
                links.append((op, lhs - rhs))
    return Z3Oracle(free, timeout_ms=5000).satisfiable(links)


def check_claim(c: Claim, stats: Counter[str], exact: bool = False) -> None:
    """Check symshape's answer on claim ``c`` against brute force and z3, and
    count it in ``stats``.  ``exact``: brute force in Python ints (constants
    beyond int64)."""
    try:
        scope = SymbolicScope(c.constraints)
    except UnsatisfiableConstraintsError:
        assert _z3_scope_satisfiable(c.constraints) is not True, c.constraints
        stats["unsat scopes"] += 1
        return
    links = links_of(c.text, scope)
    v = prove(c.text, scope=scope)
    stats["claims"] += 1
    stats[v.status.value] += 1
    wit, cex = brute_force(scope, links, 5, exact=exact)
    z3 = Z3Oracle(scope, timeout_ms=3000)
    what = (c.text, c.constraints)
    if v.status is Status.PROVED:
        assert cex is None, ("proved but fails at", cex, what)
        assert z3.valid(links) is not False, ("proved but z3 disagrees", what)
        assert v.certificate is not None and v.certificate.check(), what
    elif v.status is Status.REFUTED:
        assert wit is None, ("refuted but holds at", wit, what)
        assert z3.satisfiable(links) is not True, ("refuted but z3 disagrees", what)
        assert v.counterexample is not None
        assert check_valuation(scope, links, v.counterexample, False), what
        assert v.certificate is not None and v.certificate.check(), what
    else:
        if v.counterexample is not None:
            assert check_valuation(scope, links, v.counterexample, False), what
        if v.witness is not None:
            assert check_valuation(scope, links, v.witness, True), what
    # labels for the ratchet
    if cex is None and z3.valid(links):
        stats["valid"] += 1
        stats["valid_proved"] += v.status is Status.PROVED
    if wit is None and z3.satisfiable(links) is False:
        stats["unsat"] += 1
        stats["unsat_refuted"] += v.status is Status.REFUTED


__all__ = ["STATUSES", "check_claim", "new_stats"]
