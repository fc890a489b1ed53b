"""The valuation pool: valid points found without a search where a repair
does, and the same points whatever the variables are called."""

from __future__ import annotations

import re

import pytest

from symshape.scope import SymbolicScope

# A chain of offsets with divisibility: all ones, all twos, the propagated
# lower bounds and those rounded to the divisors all violate it.
CHAIN = ["x0 >= x1 + 8", "x1 >= x2 + 2", "x2 >= x3 + 1", "x3 >= x4", "x4 >= x5 + 1",
         "x5 >= x6 + 1", "x6 >= x7", "x7 >= x8 + 1", "x8 >= x9 + 2", "x9 >= x10 + 1",
         "x10 >= x11 + 8", "x11 >= 16", "x0 <= 8192", "2*x4 >= x10 + x11",
         "mod(x3, 2) == 0", "mod(x1, 8) == 0", "x6 + x9 <= 16384"]


def _pool_without_search(constraints: list[str]) -> list[dict[str, int]]:
    decider = SymbolicScope(constraints).decider()
    assert decider is not None
    sp = decider.pool

    def no_search(hyps: object) -> None:
        raise AssertionError("the pool ran a search for its first valuation")
    sp.find_model = no_search
    points = sp.initial_pool()
    assert points and all(sp.valid(pt) for pt in points)
    return [dict(pt.env) for pt in points]


def test_chain_with_divisibility_needs_no_search() -> None:
    envs = _pool_without_search(CHAIN)
    for env in envs:
        assert env["x1"] % 8 == 0 and env["x3"] % 2 == 0
        assert env["x0"] <= 8192


@pytest.mark.parametrize("style", ["reversed", "long"])
def test_repaired_pool_does_not_depend_on_names(style: str) -> None:
    """The same points, renamed, under names that sort in another order."""
    def new_name(old: str) -> str:
        i = int(old[1:])
        return f"v{11 - i:02d}" if style == "reversed" else f"dim_{chr(ord('z') - i)}"
    renamed = [re.sub(r"x\d+", lambda m: new_name(m.group(0)), c) for c in CHAIN]
    base = _pool_without_search(CHAIN)
    other = _pool_without_search(renamed)
    assert [{new_name(k): v for k, v in env.items()} for env in base] == other


# (constraints, claim): claims over a scope with constraints, of every outcome
PREFIX_CASES = [
    (["a >= b + 8", "mod(a, 4) == 0"], "a >= 2*b + 11"),  # inconclusive at the first points
    (["a >= b + 8", "mod(a, 4) == 0"], "a <= 8"),  # refuted by the intervals
    (["a >= b + 8", "mod(a, 4) == 0"], "b >= a"),  # refuted by a search
    (["a >= b + 8", "mod(a, 4) == 0"], "a + b >= 13"),  # proved
    (["a >= b + 8", "b <= 3"], "a == b + 11"),  # inconclusive past the first points
    (["n >= 2", "mod(s, n) == 0"], "floordiv(s, n)*n == s"),  # proved by a search
    (["k >= 2", "c >= k"], "c*k >= c + k + 1"),
]


@pytest.mark.parametrize(("constraints", "claim"), PREFIX_CASES)
def test_first_points_show_what_the_pool_shows(constraints: list[str], claim: str) -> None:
    """The pool's first points are its first points, and where a claim holds at
    one and fails at another, the whole pool shows those two first."""
    from symshape.decision.prove import claim_links

    scope = SymbolicScope(constraints)
    decider = scope.decider()
    assert decider is not None
    sp = decider.pool
    polys = [(op, d) for op, d, _ in claim_links(claim, scope)[0]]
    prefix_split = sp.split(polys, "prefix")
    full = sp.get_pool()
    prefix = sp.prefix
    assert prefix is not None and prefix is not full
    assert [(p.env, p.seed) for p in full.points[:len(prefix.points)]] == \
        [(p.env, p.seed) for p in prefix.points]
    whole = sp.split(polys)
    rest = sp.split(polys, "rest")

    def env(pt: object) -> object:
        return None if pt is None else (pt.env, pt.seed)  # type: ignore[attr-defined]
    for i in range(2):
        expected = prefix_split[i] if prefix_split[i] is not None else rest[i]
        assert env(whole[i]) == env(expected)


def test_a_claim_the_first_points_settle_never_builds_the_pool() -> None:
    """An inconclusive claim shown so by the pool's first points costs no
    colours and no nudged valuations; one the sign witnesses show open
    builds no valuation of the pool until its evidence is read."""
    import symshape

    scope = SymbolicScope(["a >= b + 8", "mod(a, 4) == 0"])
    verdict = symshape.prove("a >= 2*b + 11", scope=scope)
    assert str(verdict.status) == "inconclusive"
    decider = scope.decider()
    assert decider is not None
    assert decider.pool.pool is None and decider.pool.prefix is None
    assert verdict.counterexample == {"a": 12, "b": 1}
    assert decider.pool.pool is None and decider.pool.prefix is not None


@pytest.mark.parametrize(("claim", "constraints"), [
    ("a <= 8", ["a >= b + 8", "mod(a, 4) == 0"]),
    ("3*h + 3*s + 15 <= 3*h + 3*s", ["h >= 8", "s <= 4096"]),
    ("floordiv(a, 4) >= a", ["a >= 5"]),
])
def test_a_claim_the_intervals_refute_builds_no_valuation_until_its_evidence_is_read(
        claim: str, constraints: list[str]) -> None:
    """The interval bounds refute without a valuation: the pool's first points
    are built only when the counterexample is read, and the counterexample
    starts from the pool's first point, as when they were built first."""
    import symshape

    scope = SymbolicScope(constraints)
    verdict = symshape.prove(claim, scope=scope)
    assert str(verdict.status) == "refuted"
    assert verdict.reason == "" and verdict.certificate is not None
    decider = scope.decider()
    assert decider is not None
    assert decider.pool.prefix is None  # no valuation yet
    cex = verdict.counterexample
    assert decider.pool.prefix is not None and cex is not None
    # The same counterexample as a decider that built its first points first.
    other = SymbolicScope(constraints)
    decider2 = other.decider()
    assert decider2 is not None
    decider2.pool.get_prefix()
    assert symshape.prove(claim, scope=other).counterexample == cex



def test_a_lemma_false_at_the_first_points_is_not_searched_for(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``fails_at_first_points`` reads the pool's first points only once they
    are built (building them may take a search whose facts ask for lemmas);
    then a lemma they show false is answered without a search, with the
    answer the search would give (none)."""
    import symshape
    from symshape.decision import lemmas
    from symshape.decision import poly as P

    scope = SymbolicScope(["a >= b + 8", "mod(a, 4) == 0"])
    decider = scope.decider()
    assert decider is not None
    sp = decider.pool
    a, b = symshape.symbolic_shape("a, b", scope=scope)
    b_minus_a = P.from_expr(b - a)  # -11 at the first valuation (a = 12, b = 1)
    assert sp.fails_at_first_points(b_minus_a) is False  # not built: not shown
    sp.get_prefix()
    assert sp.fails_at_first_points(b_minus_a) is True
    searches: list[object] = []
    real = lemmas.Search

    def counting(*args: object, **kw: object) -> object:
        searches.append(args)
        return real(*args, **kw)  # type: ignore[arg-type]
    monkeypatch.setattr(lemmas, "Search", counting)
    assert decider.lemmas.prove(b_minus_a, 1) is None
    assert searches == []
    # one that holds there is searched for, and proved
    assert decider.lemmas.prove(P.from_expr(a - b - 8), 1) is not None
    assert len(searches) == 1
