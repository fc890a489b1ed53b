"""``Certificate.facts_used()`` reads as expressions with their reasons, not internals."""

from __future__ import annotations

import re

import pytest

import symshape
from symshape.decision import certificate as C
from symshape.decision import poly as P

# The old repr printed the polynomial's term map: ``{((a, 1), (b, 1)): 1, (): -1}``.
_INTERNALS = re.compile(r"\{\(|\(\): |\(\w+, \d+\)\)")


def _reprs(claim: str, *constraints: str) -> list[str]:
    verdict = symshape.prove(claim, constraints=list(constraints))
    assert verdict.certificate is not None, verdict.status
    return [repr(f) for f in verdict.certificate.facts_used()]


def test_a_proof_shows_the_constraint_it_used() -> None:
    """What a user sees: the proof needs the constraint, and its fact names it."""
    shown = _reprs("a >= 9", "a >= b + 8")
    assert "Fact(a - b - 8 >= 0, from constraint 'a >= b + 8')" in shown, shown


@pytest.mark.parametrize(("claim", "constraints"), [
    ("a*b >= 2", ("a*b >= 1", "a >= 2")),
    ("floordiv(a + 3, 2) >= 2", ()),
    ("max(a, b) + min(a, b) == a + b", ()),
    ("max(a, b) >= a", ()),
    ("floordiv(a, b) >= 0", ()),
    ("floordiv(s, 64) * 64 == s", ("s == 64*k",)),
    ("mod(a, 128) == 0", ("a == 256*c",)),
    ("b < mod(b, 3)", ()),
])
def test_no_fact_shows_internals(claim: str, constraints: tuple[str, ...]) -> None:
    shown = _reprs(claim, *constraints)
    assert shown
    for text in shown:
        assert text.startswith("Fact(") and " >= 0, " in text, text
        assert not _INTERNALS.search(text), text


# -- each kind of fact, built directly (independent of which proof the engine finds) ---


def _atom(e: symshape.DimExpr | int) -> object:
    (atom,) = P.atoms_of(P.from_expr(e))
    return atom


def test_each_kind_of_fact_reads_as_text() -> None:
    scope = symshape.SymbolicScope(["a >= 2"])
    a, b = symshape.symbolic_shape("a, b", scope=scope)
    q = _atom(a // 2)
    m = _atom(symshape.max_dim(a, b) - b)  # max(a - b, 0)
    var_a = C.make_axiom("var", _atom(a))
    var_b = C.make_axiom("var", _atom(b))
    constraint = C.Fact(P.add(P.from_expr(a), P.const(-2)), "constraint", note="a >= 2")
    cases = {
        var_a: "Fact(a - 1 >= 0, a is a dimension variable)",
        C.make_axiom("fd_lo", q): "Fact(mod(a, 2) >= 0, definition of floordiv(a, 2): "
                                  "divisor * quotient <= numerator)",
        C.make_axiom("max_ge_arg", m): "Fact(-a + max(a, b) >= 0, max(a - b, 0) >= a - b)",
        constraint: "Fact(a - 2 >= 0, from constraint 'a >= 2')",
        C.make_product(var_a, var_b): "Fact(a*b - a - b + 1 >= 0, product of 2 facts)",
        C.make_combo([var_a, var_b], [2, 2], 2): "Fact(a + b - 2 >= 0, sum of 2 facts, "
                                                 "divided by 2 and rounded down)",
        C.make_fd_bound("fd_lb", q, [constraint]):
            "Fact(floordiv(a, 2) >= 0, lower bound of floordiv(a, 2))",
        C.Fact(P.const(-1), "hyp", note="negated claim"): "Fact(-1 >= 0, negated claim)",
        C.split_cases(P.from_expr(b), 3)[1]: "Fact(b - 4 >= 0, case assumption)",
    }
    for fact, expected in cases.items():
        assert repr(fact) == expected
