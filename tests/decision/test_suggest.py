"""Suggested constraints for claims that are not proved (``Verdict.suggestions``).

Every suggestion must make the claim proved when added to the scope (checked
again here, in a fresh scope) and must not contradict the scope (a valuation
satisfying both is found here by brute force, with an evaluator independent of
symshape).
"""

from __future__ import annotations

import functools
import importlib
import itertools
import random
import re
import time
from collections.abc import Iterator
from types import CodeType
from typing import Any

import pytest
from support.exprgen import Tree, evaluate, render

import symshape
from symshape.decision import suggest as suggest_mod

# -- an evaluator independent of symshape --------------------------------------

_IDENT = re.compile(r"[^\W\d]\w*")
_FUNCS = {"floordiv": lambda x, y: x // y, "mod": lambda x, y: x % y, "max": max, "min": min}


def variables(text: str) -> set[str]:
    return {m.group() for m in _IDENT.finditer(text) if m.group() not in _FUNCS}


@functools.cache
def _compiled(text: str) -> CodeType:
    return compile(text.replace("^", "**"), "<constraint>", "eval")


def holds(text: str, env: dict[str, int]) -> bool:
    """``text`` (a comparison or chain in symshape's syntax) at ``env``, by
    Python's own arithmetic (floor division and modulo, as symshape's)."""
    return bool(eval(_compiled(text), {"__builtins__": {}, **_FUNCS}, env))  # noqa: S307


def small_valuations(names: list[str], values: list[int]) -> Iterator[dict[str, int]]:
    """Valuations over ``values`` (ascending), smallest largest value first."""
    for top in range(len(values)):
        for idx in itertools.product(range(top + 1), repeat=len(names)):
            if max(idx, default=top) == top:
                yield {n: values[i] for n, i in zip(names, idx, strict=True)}


def find_model(texts: list[str], limit: int = 24) -> dict[str, int] | None:
    """A valuation (every variable >= 1) satisfying ``texts``, by brute force over
    1..limit and the constants of the texts with their neighbours and doubles."""
    names = sorted(set().union(*(variables(t) for t in texts)))
    consts = {int(c) for t in texts for c in re.findall(r"\d+", t)}
    products = {x * y * z for x in consts | {1} for y in consts | {1} for z in consts | {1}}
    values = set(range(1, limit + 1)) | {c + d for c in products for d in (-2, -1, 0, 1, 2)}
    for env in small_valuations(names, sorted(v for v in values if v >= 1)):
        if all(holds(t, env) for t in texts):
            return env
    return None


def check_suggestions(claim: str, constraints: list[str], found: tuple[str, ...]) -> None:
    for s in found:
        again = symshape.prove(claim, constraints=[*constraints, s])
        assert again.proved, (claim, constraints, s, again.status)
        assert find_model([*constraints, s]) is not None, \
            f"{s!r} contradicts the scope {constraints} (no valuation found)"


# -- the examples of the issue --------------------------------------------------


@pytest.mark.parametrize("claim, first", [
    ("floordiv(h - 3, 2) + 1 >= 1", "h >= 3"),
    ("b >= 16", "b >= 16"),
    ("128*floordiv(n + 127, 128) == n", "mod(n, 128) == 0"),
    ("b < 2147483647", "b <= 2147483646"),
])
def test_issue_examples(claim: str, first: str) -> None:
    v = symshape.prove(claim)
    assert v.status is symshape.Status.INCONCLUSIVE
    assert v.suggestions[0] == first
    check_suggestions(claim, [], v.suggestions)


def test_weakest_only_and_no_duplicates() -> None:
    # h >= 3 works, so no stronger bound on h; the claim b >= 16 is itself the bound.
    assert symshape.prove("floordiv(h - 3, 2) + 1 >= 1").suggestions == ("h >= 3",)
    assert symshape.prove("b >= 16").suggestions == ("b >= 16",)
    assert symshape.prove("b < 2147483647").suggestions == ("b <= 2147483646",)


def test_claim_itself_after_the_one_variable_bounds() -> None:
    v = symshape.prove("a + 1 >= b")
    assert v.suggestions == ("b <= 2", "a + 1 >= b")
    # written the other way round, the claim comes last in the user's words
    assert symshape.prove("b <= a + 1").suggestions[-1] in ("b <= a + 1", "a + 1 >= b")


def test_relations_and_divisors() -> None:
    assert "a >= b + 1" in symshape.prove("a != b").suggestions
    assert symshape.prove("floordiv(a, 4) * 4 == a").suggestions == ("mod(a, 4) == 0",)
    # the smallest divisor that works: mod(n, 2) suffices for the 8 of the claim
    assert symshape.prove("floordiv(n, 8) * 8 + mod(n, 8) - mod(n, 2) == n").suggestions[0] \
        == "mod(n, 2) == 0"


def test_suggestions_respect_the_constraints() -> None:
    cons = ["x <= 64"]
    v = symshape.prove("x + y <= 100", constraints=cons)
    assert "y <= 36" in v.suggestions
    assert not any(s.startswith("x ") for s in v.suggestions if "y" not in s)
    check_suggestions("x + y <= 100", cons, v.suggestions)
    # a bound that would contradict the scope is never suggested
    v = symshape.prove("a + b >= 25", constraints=["a <= 10"])
    assert v.suggestions[0] == "b >= 24"  # a may be 1
    assert all("b" in s for s in v.suggestions)
    check_suggestions("a + b >= 25", ["a <= 10"], v.suggestions)


def test_large_thresholds_and_open_claims() -> None:
    # the counterexample is far away (h = 2**32 + 1, s = 1); the bound is small
    v = symshape.prove("s*s*h <= 4294967296", constraints=["s <= 8192"])
    assert v.suggestions[0] == "h <= 64"
    check_suggestions("s*s*h <= 4294967296", ["s <= 8192"], v.suggestions[:1])
    # an undecided (or inconclusive) claim gets suggestions too
    v = symshape.prove("s*s*h <= 2^32", constraints=["h <= 64"])
    assert v.status in (symshape.Status.UNDECIDED, symshape.Status.INCONCLUSIVE)
    assert v.suggestions[0] == "s <= 8192"
    assert symshape.prove("s*s*h <= 2^32", constraints=["h <= 64", "s <= 8192"]).proved


def test_no_suggestions_for_decided_claims() -> None:
    assert symshape.prove("a + 1 >= a").suggestions == ()
    assert symshape.prove("a + 1 <= a").suggestions == ()


def test_lazy_and_cached(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = suggest_mod.suggestions_for_verdict

    def counting(v: symshape.Verdict, **kw: float) -> tuple[str, ...]:
        calls.append(v.claim)
        return real(v, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(suggest_mod, "suggestions_for_verdict", counting)
    v = symshape.prove("b >= 16")
    assert v.status is symshape.Status.INCONCLUSIVE and calls == []
    assert v.suggestions == ("b >= 16",) and calls == ["b >= 16"]
    assert v.suggestions == ("b >= 16",) and calls == ["b >= 16"]


def test_bounded_work(monkeypatch: pytest.MonkeyPatch) -> None:
    prove_mod = importlib.import_module("symshape.decision.prove")
    calls = 0
    real = prove_mod.prove

    def counting(*args: Any, **kw: Any) -> symshape.Verdict:
        nonlocal calls
        calls += 1
        return real(*args, **kw)

    v = symshape.prove("a*b + c >= d + 7", constraints=["d <= 40"])
    monkeypatch.setattr(prove_mod, "prove", counting)
    found = v.suggestions
    limit = suggest_mod.MAX_PROOFS + 2 * suggest_mod.MAX_SUGGESTIONS
    assert 0 < calls <= limit
    assert len(found) <= suggest_mod.MAX_SUGGESTIONS
    # with no candidate proofs allowed there is nothing to suggest
    assert suggest_mod.suggestions_for_verdict(v, max_proofs=0, prove=real) == ()


def test_deterministic_and_independent_of_names_and_history() -> None:
    claim, cons = "a*b >= a + 3", ["a <= 50"]
    first = symshape.prove(claim, constraints=cons).suggestions
    assert first
    for other in ("b >= 16", "x + y <= 100", "a + 1 >= b"):  # other queries in between
        _ = symshape.prove(other).suggestions
    assert symshape.prove(claim, constraints=cons).suggestions == first
    for names in (("z", "y"), ("b", "a"), ("β", "α")):
        ren = dict(zip(("a", "b"), names, strict=True))

        def rename(text: str, ren: dict[str, str] = ren) -> str:
            return _IDENT.sub(lambda m: ren.get(m.group(), m.group()), text)

        got = symshape.prove(rename(claim), constraints=[rename(c) for c in cons]).suggestions
        assert got == tuple(rename(s) for s in first), names


# -- many generated claims ----------------------------------------------------

NAMES = ("a", "b", "c")


def _expr(rng: random.Random, depth: int) -> Tree:
    if depth == 0 or rng.random() < 0.3:
        if rng.random() < 0.7:
            return ("var", rng.choice(NAMES))
        return ("int", rng.randint(-6, 12))
    op = rng.choice(("add", "add", "sub", "mul", "floordiv", "mod", "max", "min"))
    if op in ("floordiv", "mod"):
        return (op, _expr(rng, depth - 1), ("int", rng.choice((2, 3, 4, 8))))
    return (op, _expr(rng, depth - 1), _expr(rng, depth - 1))


def _claim(rng: random.Random) -> tuple[str, list[str], Tree, Tree, str]:
    lhs, rhs = _expr(rng, 2), _expr(rng, 2)
    op = rng.choice((">=", ">=", "<=", "<", "==", "!="))
    pool = ["a <= 20", "b >= 2", "mod(c, 2) == 0", "a >= b", "c <= 12"]
    cons = rng.sample(pool, rng.choice((0, 0, 1, 2)))
    return f"{render(lhs)} {op} {render(rhs)}", cons, lhs, rhs, op


def generated_claims(count: int, seed: int = 11
                     ) -> Iterator[tuple[str, list[str], symshape.Verdict]]:
    """``count`` generated claims that are inconclusive (each checked to hold at
    its witness and fail at its counterexample, independently)."""
    rng = random.Random(seed)
    seen: set[str] = set()
    made = 0
    while made < count:
        claim, cons, lhs, rhs, op = _claim(rng)
        if claim in seen:
            continue
        seen.add(claim)
        v = symshape.prove(claim, constraints=cons)
        if v.status is not symshape.Status.INCONCLUSIVE:
            continue
        assert v.witness is not None and v.counterexample is not None
        env = {**dict.fromkeys(NAMES, 1), **v.witness}
        py_op = {">=": "__ge__", "<=": "__le__", "<": "__lt__", "==": "__eq__", "!=": "__ne__"}
        assert getattr(evaluate(lhs, env), py_op[op])(evaluate(rhs, env))
        made += 1
        yield claim, cons, v


def test_generated_claims_suggestions_are_proved_and_satisfiable() -> None:
    start = time.perf_counter()
    total = with_some = count = 0
    for claim, cons, v in generated_claims(200):
        count += 1
        found = v.suggestions
        assert len(set(found)) == len(found)
        with_some += bool(found)
        total += len(found)
        check_suggestions(claim, cons, found)
        # no suggestion is a needlessly strong bound: one below it fails
        for s in found:
            m = re.fullmatch(r"(\w+) >= (\d+)", s)
            if m and int(m.group(2)) > 1 and s != claim:
                weaker = f"{m.group(1)} >= {int(m.group(2)) - 1}"
                assert not symshape.prove(claim, constraints=[*cons, weaker]).proved, (claim, s)
    assert count == 200
    # the feature does something: most claims get a suggestion
    assert with_some >= 150, (with_some, total)
    assert time.perf_counter() - start < 120


def test_has_model_rejects_a_contradiction() -> None:
    v = symshape.prove("a + b >= 25", constraints=["a <= 10"])
    s = suggest_mod._Suggester(v, 1.0, suggest_mod.MAX_PROOFS, symshape.prove)
    ok = suggest_mod._Found("b >= 24", suggest_mod._LOWER, (), ("b",), 24)
    bad = suggest_mod._Found("a >= 11", suggest_mod._LOWER, (), ("a",), 11)
    assert s.has_model(ok)
    assert not s.has_model(bad)


# -- inside JAX's tracer --------------------------------------------------------

_HOLD = re.compile(r"to make it hold: (.*)")


def _jax_suggestions(message: str) -> list[str]:
    m = _HOLD.search(message)
    assert m is not None, message
    return re.findall(r"'([^']*)'", m.group(1))


def test_jax_inconclusive_message_has_paste_ready_suggestions() -> None:
    jax = pytest.importorskip("jax")
    import numpy as np
    from jax import export, lax

    import symshape.jax as sj

    def f(x: Any) -> Any:
        return lax.slice(x, [0], [16])

    def export_with(constraints: list[str]) -> Any:
        b, = export.symbolic_shape("b", constraints=constraints)
        return export.export(jax.jit(f))(jax.ShapeDtypeStruct((b,), np.float32))

    with sj.decisions(), pytest.raises(jax.errors.InconclusiveDimensionOperation) as info:
        export_with(["b <= 4096"])
    msg = str(info.value)
    # JAX's own text is kept, with the suggestions before its help
    assert msg.startswith("Symbolic dimension comparison 'b' >= '16' is inconclusive.\n"
                          "Using symbolic scope")
    assert "Please see https://docs.jax.dev" in msg
    found = _jax_suggestions(msg)
    assert found[0] == "b >= 16"
    assert "to make it fail: 'b <= 15'" in msg
    for s in found:  # pasted into the constraints, the export succeeds
        with sj.decisions():
            exp = export_with(["b <= 4096", s])
        assert "16" in str(exp.out_avals)
    # JAX alone still raises its own error
    with pytest.raises(jax.errors.InconclusiveDimensionOperation) as info:
        export_with([])
    assert "symshape" not in str(info.value)


def test_jax_suggestions_need_symshape_and_are_lazy(monkeypatch: pytest.MonkeyPatch) -> None:
    jax = pytest.importorskip("jax")
    import numpy as np
    from jax import export

    import symshape.jax as sj
    from symshape.jax import plugin

    calls: list[str] = []
    real = plugin._suggestions_block

    def counting(constraints: tuple[str, ...], true_claim: str, false_claim: str) -> str:
        calls.append(true_claim)
        return real(constraints, true_claim, false_claim)

    monkeypatch.setattr(plugin, "_suggestions_block", counting)

    # 'n' >= '128*floordiv(n + 127, 128)' holds exactly for multiples of 128
    def f(x: Any) -> Any:
        n = x.shape[0]
        if n >= (n + 127) // 128 * 128:
            return x
        return x[:1]

    n, = export.symbolic_shape("n")
    spec = jax.ShapeDtypeStruct((n,), np.float32)
    with sj.decisions(), pytest.raises(jax.errors.InconclusiveDimensionOperation) as info:
        export.export(jax.jit(f))(spec)
    assert calls == []  # nothing computed before the message is read
    msg = str(info.value)
    assert len(calls) == 1 and str(info.value) == msg  # computed once
    found = _jax_suggestions(msg)
    assert found[0] == "mod(n, 128) == 0"
    n, = export.symbolic_shape("n", constraints=[found[0]])
    with sj.decisions():
        exp = export.export(jax.jit(f))(jax.ShapeDtypeStruct((n,), np.float32))
    assert str(exp.out_avals[0].shape) == "(n,)"


def test_jax_strict_comparison_keeps_its_direction() -> None:
    pytest.importorskip("jax")
    from jax import export

    import symshape.jax as sj

    b, = export.symbolic_shape("b")
    with sj.decisions():
        with pytest.raises(Exception) as info:
            _ = b < 16
        msg = str(info.value)
    assert "'b' < '16' is inconclusive" in msg
    assert "to make it hold: 'b <= 15'" in msg
    assert "to make it fail: 'b >= 16'" in msg


def test_jax_error_pickles_with_its_message() -> None:
    jax = pytest.importorskip("jax")
    import pickle

    from jax import export

    import symshape.jax as sj

    b, = export.symbolic_shape("b")
    with sj.decisions(), pytest.raises(jax.errors.InconclusiveDimensionOperation) as info:
        _ = b >= 16
    copy = pickle.loads(pickle.dumps(info.value))
    assert isinstance(copy, jax.errors.InconclusiveDimensionOperation)
    assert str(copy) == str(info.value) and "to make it hold: 'b >= 16'" in str(copy)


def test_suggestions_keep_to_the_time_limit_of_the_proof() -> None:
    # The claim is undecided in about a second at this budget, and each
    # candidate proof of a suggestion takes about as long: without the time
    # limit, the 64 candidate proofs would take about a minute.
    start = time.monotonic()
    v = symshape.prove("(a+b+c+d)^8 >= a*b", budget=50, time_limit=2.5)
    assert v.status is symshape.Status.UNDECIDED
    v.suggestions  # noqa: B018 - computed on first access
    assert time.monotonic() - start < 2.5 + 4.0  # one node past the deadline at most


def test_chain_suggests_only_its_open_links() -> None:
    # a <= b is given: the claim as a constraint is its open link, b <= c, which
    # the relation c >= b already says (equivalent, so offered once).
    v = symshape.prove("a <= b <= c", constraints=["a <= b"])
    assert v.suggestions == ("b <= 1", "c >= b")
    assert symshape.prove("a == b == c", constraints=["a == b"]).suggestions == ("b == c",)
    # every link open: nothing weaker than the claim settles it
    assert symshape.prove("a == b == c").suggestions == ("a == b == c",)
    # open links that are not consecutive cannot be one chain
    assert symshape.prove("a <= b <= c <= d",
                          constraints=["b <= c"]).suggestions[-1] == "a <= b <= c <= d"


def test_no_suggestion_implies_another() -> None:
    """Every suggestion implies the claim itself (and what is equivalent to it,
    offered last); no other suggestion implies another."""
    for claim, cons in [("a <= b <= c", ["a <= b"]), ("a + 1 >= b", []), ("a != b", []),
                        ("x + y <= 100", ["x <= 64"]), ("a + b >= 25", ["a <= 10"]),
                        ("s*s*h <= 4294967296", ["s <= 8192"])]:
        sugg = symshape.prove(claim, constraints=cons).suggestions
        for i, y in enumerate(sugg):
            for j, x in enumerate(sugg):
                if i == j or x == claim or "!=" not in claim and \
                        symshape.prove(x, constraints=[*cons, claim]).proved:
                    continue
                assert not symshape.prove(x, constraints=[*cons, y]).proved, (claim, y, x)
