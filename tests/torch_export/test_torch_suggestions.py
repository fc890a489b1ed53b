"""explain()'s suggestions are exact and non-trivial, and every one is verified
by exporting again: with symshape.torch.export always, and with torch's own
torch.export.export when its torch translation says the Dims express it."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")
import symshape.torch as st  # noqa: E402
from symshape import prove  # noqa: E402
from symshape.scope import SymbolicScope  # noqa: E402
from symshape.torch.explain import NOT_BY_DIMS  # noqa: E402


def z(*shape: int) -> Any:
    return torch.ones(*shape)


class Mod3(torch.nn.Module):
    def forward(self, x: Any, y: Any) -> Any:
        return torch.cat([x, y])[: x.shape[0] % 3 + 1]


class Positions(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.pos = torch.nn.Parameter(torch.randn(512, 8))

    def forward(self, x: Any) -> Any:
        return x + self.pos[: x.shape[1]]


class AddConstant(torch.nn.Module):
    def forward(self, x: Any) -> Any:
        return x + torch.ones(5, 3)


class DropFirst(torch.nn.Module):
    def forward(self, x: Any, y: Any) -> Any:
        return x[1:] * y


class Add(torch.nn.Module):
    def forward(self, x: Any, y: Any) -> Any:
        return x + y


class Halves(torch.nn.Module):
    """Needs an even size and a window: two guards at once."""

    def forward(self, x: Any, y: Any) -> Any:
        return x.reshape(2, -1)[:, : y.shape[0]]


CASES: dict[str, tuple[Any, tuple[Any, ...], list[str], list[str]]] = {
    "mod 3, b = 4": (Mod3(), (z(4, 4), z(4, 4)), ["b, 4", "b, 4"], ["b <= 1024"]),
    "mod 3, b = 7": (Mod3(), (z(7, 4), z(7, 4)), ["b, 4", "b, 4"], ["b <= 1024"]),
    "mod 3, b = 8": (Mod3(), (z(8, 4), z(8, 4)), ["b, 4", "b, 4"], ["b <= 1024"]),
    "max bound": (Positions(), (z(2, 100, 8),), ["b, s, 8"], []),
    "max bound under a larger one": (Positions(), (z(2, 100, 8),), ["b, s, 8"],
                                     ["s <= 4096"]),
    "specialized": (AddConstant(), (z(5, 3),), ["b, 3"], []),
    "off by one": (DropFirst(), (z(6, 3), z(5, 3)), ["n, 3", "m, 3"], []),
    "tied equal": (Add(), (z(4, 3), z(4, 3)), ["a, 3", "b, 3"], []),
    "two guards": (Halves(), (z(40), z(6)), ["n", "k"], ["n <= 4096"]),
}


def _explained(case: str) -> tuple[Any, st.ExportSpecs]:
    model, args, specs, cons = CASES[case]
    es = st.export_specs(args, specs, constraints=cons, model=model)
    es.example = es.check_args(args)
    with pytest.raises(Exception, match="Constraints violated") as info:
        torch.export.export(model, args, dynamic_shapes=es.dynamic_shapes)
    return st.explain(info.value, es), es


def _implies(premise: tuple[str, ...], conclusion: tuple[str, ...],
             constraints: tuple[str, ...]) -> bool:
    sc = SymbolicScope([*constraints, *premise])
    return all(prove(c, scope=sc).proved for c in conclusion)


@pytest.mark.parametrize("case", list(CASES))
def test_every_suggestion_exports(case: str) -> None:
    model, args, specs, cons = CASES[case]
    ex, es = _explained(case)
    assert all(r.suggestions for r in ex.not_implied), str(ex)
    expected = model(*args)
    for r in ex.not_implied:
        # each suggestion with the first suggestion for every other guard
        others = [c for r2 in ex.not_implied if r2 is not r
                  for c in r2.suggestions[0].constraints]
        for s in r.suggestions:
            _exports(model, args, specs, cons, s, others, es, expected)
    ep = st.export(model, args, specs, constraints=[*cons, *ex.suggested_constraints])
    assert torch.equal(ep.module()(*args), expected)


def _exports(model: Any, args: tuple[Any, ...], specs: list[str], cons: list[str],
             s: st.Suggestion, others: list[str], es: st.ExportSpecs, expected: Any) -> None:
    ep = st.export(model, args, specs, constraints=[*cons, *others, *s.constraints])
    assert torch.equal(ep.module()(*args), expected), s
    if NOT_BY_DIMS in s.dims:
        assert s.dims == (NOT_BY_DIMS,), s  # no partial Dim changes beside it
        return
    # The translation is exact: the new Dims say what the suggestion says,
    # and torch's own export takes them (when the others are Dims too).
    new = es.with_constraints([*others, *s.constraints])
    assert not any(c in new.unexpressed for c in s.constraints), s
    if new.unexpressed:
        return
    bare = torch.export.export(model, args, dynamic_shapes=new.dynamic_shapes)
    assert torch.equal(bare.module()(*args), expected), s


@pytest.mark.parametrize("case", list(CASES))
def test_no_suggestion_pins_or_implies_another(case: str) -> None:
    ex, es = _explained(case)
    cons = tuple(es.scope.constraint_texts)
    for r in ex.not_implied:
        sugg = r.suggestions
        for i, y in enumerate(sugg):
            for j, x in enumerate(sugg):
                if i == j or (NOT_BY_DIMS not in y.dims and NOT_BY_DIMS in x.dims):
                    continue  # a stronger one that Dims express is worth offering
                assert not _implies(y.constraints, x.constraints, cons), (y, x, str(ex))
        # A suggestion that pins a variable comes only when nothing else works.
        if len(sugg) > 1:
            for s in sugg:
                sc = SymbolicScope([*cons, *s.constraints])
                for v in {"b", "s", "n", "m", "a", "k"} & set(" ".join(s.constraints).split()):
                    e = sc.var(v)
                    assert not isinstance(e, int) and len(set(sc.bounds(e))) == 2, s
    # The summary restates nothing another of its constraints implies.
    summary = ex.suggested_constraints
    for c in summary:
        rest = tuple(x for x in summary if x != c)
        assert not rest or not _implies(rest, (c,), cons), summary


def test_mod3_translations() -> None:
    ex, _ = _explained("mod 3, b = 7")
    (report,) = ex.not_implied
    texts = {s.constraints: s.dims for s in report.suggestions}
    assert texts[("mod(b, 3) >= 1",)] == (NOT_BY_DIMS,)
    assert texts[("mod(b, 3) == 1",)] == ("_b = Dim('_b', min=2, max=341)", "b = 3*_b + 1")
    assert ex.suggested_constraints == ("mod(b, 3) >= 1",)


def test_bound_that_would_pin_is_not_offered() -> None:
    """Under s <= 4096 the prover's first suggestion for mod(s, 64) == 0 is
    s >= 4096, which pins s: it is offered only when nothing else works."""
    from symshape.torch.explain import _decide, _suggest
    sc = SymbolicScope(["s <= 4096", "s >= 2"])
    claims = ["mod(s, 64) == 0"]
    verdicts = _decide(claims, sc)
    assert "s >= 4096" in verdicts[0].suggestions
    (only,) = _suggest(claims, verdicts, sc, None)
    assert only.constraints == ("mod(s, 64) == 0",)
    assert only.dims == ("_s = Dim('_s', min=1, max=64)", "s = 64*_s")
    ex, _ = _explained("max bound under a larger one")
    (report,) = ex.not_implied
    assert [s.constraints for s in report.suggestions] == [("s <= 512",)]
    assert report.suggestions[0].dims == ("s = Dim('s', min=2, max=512)",)


def test_without_specs_translations_are_exact() -> None:
    """The torch translation of a suggestion read off a message alone is
    Python that builds the Dims: torch's export takes them."""
    b = torch.export.Dim("b", min=2, max=1024)
    args = (z(7, 4), z(7, 4))
    with pytest.raises(Exception) as info:
        torch.export.export(Mod3(), args, dynamic_shapes=({0: b}, {0: b}))
    (report,) = st.explain(info.value).reports
    assert report.suggestions
    exact = 0
    for s in report.suggestions:
        if s.dims == (NOT_BY_DIMS,):
            continue
        names: dict[str, Any] = {"Dim": torch.export.Dim}
        for line in s.dims:
            exec(line, names)  # "b = Dim('b', ...)", "_b = Dim(...)", "b = 3*_b + 1"
        (m, r), = [tuple(map(int, c[len("mod(b, "):].split(") == "))) for c in s.constraints]
        if r != 7 % m:
            continue  # the example (b = 7) is not of this form
        ep = torch.export.export(Mod3(), args, dynamic_shapes=({0: names["b"]}, {0: names["b"]}))
        assert torch.equal(ep.module()(*args), Mod3()(*args))
        exact += 1
    assert exact or all(s.dims == (NOT_BY_DIMS,) for s in report.suggestions)
