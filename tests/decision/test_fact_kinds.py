"""One record per kind of fact (``symshape.decision.fact_kinds``): each
makes its facts, re-derives them in a certificate's check, and words them."""

from __future__ import annotations

import pytest

import symshape
from symshape.decision import fact_kinds as K
from symshape.decision import poly as P
from symshape.decision.certificate import CertificateError, _Checker
from symshape.decision.facts import Fact, Leaf, Refutation


def test_every_record_is_registered_under_its_name() -> None:
    assert all(name == record.name for name, record in K.KINDS.items())
    assert len(K.KINDS) == 20 and set(K.AXIOM_KINDS) <= set(K.KINDS)
    assert K.kind_of(Fact({}, "no such kind")) is K.UNKNOWN


@pytest.mark.parametrize(("claim", "constraints"), [
    ("a >= 9", ["a >= b + 8"]),
    ("floordiv(n + t - 1, t) * t >= n", []),
    ("a^2 + b^2 >= 2*a*b", []),
    ("floordiv(a, b) <= floordiv(a + c, b)", []),
    ("max(a, b) >= a", []),
    ("s*s*h <= 2^31", ["s <= 4096", "h <= 64"]),
])
def test_the_facts_of_real_certificates_have_records(claim: str,
                                                     constraints: list[str]) -> None:
    v = symshape.prove(claim, constraints=constraints)
    assert v.certificate is not None and v.certificate.check()
    for f in v.certificate.facts_used():
        assert f.kind in K.KINDS, f.kind
        assert repr(f).startswith("Fact(")


def made_facts() -> tuple[symshape.SymbolicScope, dict[str, Fact]]:
    """A fact of each kind, made by its record, valid in its scope."""
    scope = symshape.SymbolicScope(["a >= 2", "d == 2*e"])  # d >= 1: an implicit fact
    ((implied, why),) = scope.implicit_facts
    a, b, c = symshape.symbolic_shape("a, b, c", scope=scope)
    (q,) = P.atoms_of(P.from_expr(a // 2))
    (q2b,) = P.atoms_of(P.from_expr(a // (2 * b)))  # floordiv(a, 2*b): q divided by b
    (qb,) = P.atoms_of(P.from_expr(a // b))
    (qc,) = P.atoms_of(P.from_expr((a + c) // b))
    (m,) = P.atoms_of(P.from_expr(symshape.max_dim(a, b) - b))
    va, vb = P.atoms_of(P.from_expr(a)).pop(), P.atoms_of(P.from_expr(b)).pop()
    var_a, var_b = K.VAR.make(va), K.VAR.make(vb)
    constraint = K.CONSTRAINT.make(P.add(P.from_expr(a), P.const(-2)), "a >= 2")
    hyp = K.HYP.make(P.const(-1), "negated claim")
    lemma_hyp = K.HYP.make(P.add(P.scale(var_a.poly, -1), P.const(-1)), "negated lemma")
    # c >= 0 (what orders the numerators of qb and qc), as a lemma from c - 1 >= 0
    var_c = K.VAR.make(P.atoms_of(P.from_expr(c)).pop())
    c_hyp = K.HYP.make(P.add(P.scale(P.from_expr(c), -1), P.const(-1)), "negated lemma")
    c_ge0 = K.LEMMA.make(P.from_expr(c), Refutation([c_hyp], Leaf([(1, var_c), (1, c_hyp)])))
    facts = {
        "var": var_a, "fd_lo": K.FD_LO.make(q), "fd_hi": K.FD_HI.make(q),
        "fd_den": K.FD_DEN.make(qb), "max_ge0": K.MAX_GE0.make(m),
        "max_ge_arg": K.MAX_GE_ARG.make(m), "constraint": constraint,
        "implicit": K.IMPLICIT.make(P.from_expr(implied), why),
        "hyp": hyp, "case": K.split_cases(P.from_expr(b), 3)[1],
        "fd_lb": K.FD_LB.make(q, [constraint]),
        "fd_ub": K.FD_UB.make(q, [K.HYP.make(P.add(P.const(10), P.from_expr(a), -1))]),
        "product": K.PRODUCT.make(var_a, var_b), "combo": K.COMBO.make([var_a, var_b], [2, 2], 2),
        "lemma": K.LEMMA.make(var_a.poly, Refutation([lemma_hyp], Leaf([(1, var_a),
                                                                          (1, lemma_hyp)]))),
        "square": K.SQUARE.make(P.add(P.from_expr(a), P.from_expr(b), -1)),
        "fd_mono": K.FD_MONO.make(qb, qc, c_ge0),
        # a + c - 3 >= 0: the numerator of qc is >= 0, so qc <= a + c
        "fd_num": K.FD_NUM.make(qc, K.COMBO.make([constraint, var_c], [1, 1])),
        # the constraint times b^2 >= 0, a*b^2 - 2*b^2 >= 0, divided by b^2
        "factor_quotient": _made_factor_quotient(
            K.PRODUCT.make(constraint, K.SQUARE.make(P.from_expr(b)))),
        "fd_nested": K.FD_NESTED.make(q, q2b, P.from_expr(b), 1),
    }
    return scope, facts


def _made_factor_quotient(product: Fact) -> Fact:
    f = K.FACTOR_QUOTIENT.make(product)
    assert f is not None
    return f


def test_each_record_checks_the_facts_it_makes() -> None:
    scope, facts = made_facts()
    assert set(facts) == set(K.KINDS)
    for kind, f in facts.items():
        assert f.kind == kind
        ctx = frozenset(id(g) for g in (f, *f.premises) if g.kind in ("hyp", "case"))
        _Checker(scope).fact(f, ctx)  # raises on an invalid derivation


def test_each_record_rejects_a_fact_its_derivation_does_not_give() -> None:
    scope, facts = made_facts()
    for kind, f in facts.items():
        if kind in ("hyp", "case"):
            with pytest.raises(CertificateError, match="outside its scope"):
                _Checker(scope).fact(f, frozenset())
            continue
        wrong = Fact(P.add(f.poly, P.const(1)), f.kind, atom=f.atom, premises=f.premises,
                     mults=f.mults, divisor=f.divisor, note=f.note, proof=f.proof)
        with pytest.raises(CertificateError):
            _Checker(scope).fact(wrong, frozenset(id(p) for p in f.premises))
    with pytest.raises(CertificateError, match="unknown fact kind 'guess'"):
        _Checker(scope).fact(Fact({}, "guess"), frozenset())


def test_each_record_words_its_facts() -> None:
    _, facts = made_facts()
    for kind, f in facts.items():
        text = repr(f)
        assert text.startswith("Fact(") and " >= 0, " in text, (kind, text)
        assert "see L" not in text, (kind, text)  # a label means nothing outside a proof


def test_a_quotient_is_bounded_by_its_numerator_only_where_its_sign_is_shown() -> None:
    scope = symshape.SymbolicScope()
    a, b = symshape.symbolic_shape("a, b", scope=scope)
    (q,) = P.atoms_of(P.from_expr((a - 3) // b))
    num = P.from_expr(a - 3)
    below = K.FD_NUM.make(q, K.HYP.make(P.add(num, P.const(1)), "num >= -1"))
    assert below.poly == P.add(num, {P.atom_mono(q): 1}, -1)  # q <= num
    above = K.FD_NUM.make(q, K.HYP.make(P.scale(num, -1), "num <= 0"))
    assert above.poly == P.add({P.atom_mono(q): 1}, num, -1)  # q >= num
    with pytest.raises(CertificateError):  # num >= -2 does not bound q by num
        K.FD_NUM.make(q, K.HYP.make(P.add(num, P.const(2)), "num >= -2"))
    with pytest.raises(CertificateError):  # num <= 1 neither
        K.FD_NUM.make(q, K.HYP.make(P.add(P.const(1), num, -1), "num <= 1"))


def test_a_fact_is_divided_only_by_a_product_of_variables_dividing_its_terms() -> None:
    scope = symshape.SymbolicScope()
    b, h, s, n = symshape.symbolic_shape("b, h, s, n", scope=scope)
    # b*h*floordiv(s, n) - b*h*s - 1 >= 0  gives  floordiv(s, n) - s - 1 >= 0
    hyp = K.HYP.make(P.add(P.from_expr(b * h * (s // n) - b * h * s), P.const(-1)), "h")
    got = K.FACTOR_QUOTIENT.make(hyp)
    assert got is not None and got.poly == P.add(P.from_expr(s // n - s), P.const(-1))
    # with a zero constant the quotient keeps its sign, not one more
    zero = K.FACTOR_QUOTIENT.make(K.HYP.make(P.from_expr(b * s - 2 * b), "h"))
    assert zero is not None and zero.poly == P.from_expr(s - 2)
    # a positive constant, or no common variable, gives nothing
    assert K.FACTOR_QUOTIENT.make(K.HYP.make(P.from_expr(b * s - b + 1), "h")) is None
    assert K.FACTOR_QUOTIENT.make(K.HYP.make(P.from_expr(b * s - h - 1), "h")) is None
    # a quotient whose premise does not give it is rejected by the checker
    forged = Fact(P.from_expr(s - 1), "factor_quotient",
                  premises=(K.HYP.make(P.from_expr(b * s - b * h + 1), "h"),))
    with pytest.raises(CertificateError):
        _Checker(scope).fact(forged, frozenset(id(p) for p in forged.premises))


def test_a_quotient_by_a_multiple_of_a_divisor_is_the_quotient_of_the_quotient() -> None:
    """``floordiv(c, (a + 1)*d) == floordiv(floordiv(c, d), a + 1)``: both
    sides of the fact hold wherever the divisors are >= 1 (every sign of the
    numerator), the checker takes the factor only where it multiplies the
    inner divisor into the outer one, and the fact proves what the algebra's
    merged form of ``mod(floordiv(c, d), a + 1)`` needs."""
    from symshape.algebra.poly import value_at

    scope = symshape.SymbolicScope()
    a, c, d = symshape.symbolic_shape("a, c, d", scope=scope)
    (inner,) = P.atoms_of(P.from_expr(c // d))
    (outer,) = P.atoms_of(P.from_expr(c // ((a + 1) * d)))
    k = P.from_expr(a + 1)
    sides = [K.FD_NESTED.make(inner, outer, k, side) for side in (0, 1)]
    for f in sides:
        _Checker(scope).fact(f, frozenset())
    for av in range(1, 5):
        for dv in range(1, 5):
            for cv in range(-30, 31):
                env = {"a": av, "c": cv, "d": dv}  # c < 1 too: the identity needs no sign
                for f in sides:
                    value = value_at(f.poly, env, {}, 1, None)
                    assert value is not None and value >= 0, (f, env)
    wrong_k = K.FD_NESTED.make(inner, outer, P.from_expr(a + 2), 0)
    with pytest.raises(CertificateError, match="not the factor times"):
        _Checker(scope).fact(wrong_k, frozenset())
    (other,) = P.atoms_of(P.from_expr((c + 1) // ((a + 1) * d)))
    with pytest.raises(CertificateError, match="numerators differ"):
        _Checker(scope).fact(K.FD_NESTED.make(inner, other, k, 0), frozenset())
    for claim, status in [("mod(floordiv(c, d), a + 1) >= 0", "proved"),
                          ("mod(floordiv(c, d), a + 1) <= a", "proved"),
                          ("mod(floordiv(c, d), a + 1) <= a - 1", "inconclusive")]:
        v = symshape.prove(claim)
        assert str(v.status) == status, (claim, v)
        if v.certificate is not None:
            assert v.certificate.check()
            assert "floor division identity" in v.explain()
