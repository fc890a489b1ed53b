"""symshape.torch: real torch.export exports from symshape specs, run-time checks of the
constraints Dims cannot express, and explanations of torch's guards."""

from __future__ import annotations

import math
import warnings
from typing import Any

import pytest

import symshape
from symshape import ShapeMismatchError, SymshapeError

torch = pytest.importorskip("torch")
import symshape.torch as st  # noqa: E402
from symshape.sympy import from_sympy  # noqa: E402
from symshape.torch.convert import symbol_map  # noqa: E402

Dim = torch.export.Dim


def randn(*shape: int) -> Any:
    return torch.randn(*shape)


# -- models ------------------------------------------------------------------------------


class Interleave(torch.nn.Module):
    """x: (b, 2*h + 1), y: (h,), z: (s,) with s a multiple of 128."""

    def forward(self, x: Any, y: Any, z: Any) -> Any:
        odd = x[:, 1::2] + y  # (b, h)
        tiles = z.reshape(-1, 128).sum(1)  # (s // 128,)
        return odd.sum(1), tiles


class Slice(torch.nn.Module):
    def forward(self, x: Any, y: Any) -> Any:
        return x.sum(1)[: y.shape[0]]


class Concat(torch.nn.Module):
    def forward(self, x: Any, y: Any, z: Any) -> Any:
        return torch.cat([x, y]) * z


class Mod3(torch.nn.Module):
    def forward(self, x: Any, y: Any) -> Any:
        return torch.cat([x, y])[: x.shape[0] % 3 + 1]


class AddConstant(torch.nn.Module):
    def forward(self, x: Any) -> Any:
        return x + torch.ones(5, 3)


class Positions(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.pos = torch.nn.Parameter(torch.randn(512, 8))

    def forward(self, x: Any) -> Any:
        return x + self.pos[: x.shape[1]]


class Add(torch.nn.Module):
    def forward(self, x: Any, y: Any) -> Any:
        return x + y


class DropFirst(torch.nn.Module):
    def forward(self, x: Any, y: Any) -> Any:
        return x[1:] * y


INTERLEAVE_ARGS = (randn(4, 9), randn(4), randn(512))
INTERLEAVE_SPECS = ["b, 2*h + 1", "h", "s"]
INTERLEAVE_CONSTRAINTS = ["16 <= 4*b <= 512", "mod(s, 128) == 0", "s <= 4096", "h <= 100"]


@pytest.fixture(scope="module")
def interleave() -> tuple[Any, st.ExportSpecs]:
    es = st.export_specs(INTERLEAVE_ARGS, INTERLEAVE_SPECS, constraints=INTERLEAVE_CONSTRAINTS,
                         model=Interleave())
    return st.export(Interleave(), INTERLEAVE_ARGS, specs=es), es


# -- specs to dynamic_shapes ----------------------------------------------------------------


def test_dims_from_specs() -> None:
    es = st.export_specs(INTERLEAVE_ARGS, INTERLEAVE_SPECS, constraints=INTERLEAVE_CONSTRAINTS)
    assert {n: (r.min, r.max) for n, r in es.roots.items()} == \
        {"b": (4, 128), "h": (2, 100), "_s": (2, 32)}
    x, y, z = es.dynamic_shapes
    assert str(x[1]) == "2*h + 1" and x[1].root is es.dims["h"]
    assert y[0] is es.dims["h"] and str(z[0]) == "128*_s"
    assert es.unexpressed == ()  # the Dims say it all
    assert es.assumptions == ("h >= 2", "s >= 256")
    assert es.check_args(INTERLEAVE_ARGS) == {"b": 4, "h": 4, "s": 512}


def test_same_program_as_handwritten_dims(interleave: tuple[Any, st.ExportSpecs]) -> None:
    ep, es = interleave
    b, h, k = Dim("b", min=4, max=128), Dim("h", min=2, max=100), Dim("_s", min=2, max=32)
    hand = torch.export.export(Interleave(), INTERLEAVE_ARGS,
                               dynamic_shapes=({0: b, 1: 2 * h + 1}, {0: h}, {0: 128 * k}))
    mine = torch.export.export(Interleave(), INTERLEAVE_ARGS, dynamic_shapes=es.dynamic_shapes)
    assert sorted(map(str, mine.range_constraints.values())) == \
        sorted(map(str, hand.range_constraints.values()))
    # symshape.torch.export makes s a Dim of its own and checks its residue at
    # run time (torch does not check the form 128*_s of a derived dim).
    assert {str(v) for v in ep.range_constraints.values()} == \
        {"VR[4, 128]", "VR[2, 100]", "VR[5, 201]", "VR[256, 4096]"}
    asserts = [n.args[1] for n in ep.graph.nodes if "_assert_scalar" in str(n.target)]
    assert "shape constraint mod(s, 128) == 0 fails for s = z.shape[0]" in asserts


def test_range_constraints_match_bounds(interleave: tuple[Any, st.ExportSpecs]) -> None:
    ep, es = interleave
    symbols = symbol_map(ep, es)
    assert set(symbols.values()) >= {es.scope.var("b"), es.scope.var("h")}
    for key, vr in ep.range_constraints.items():
        e = from_sympy(key, es.scope, symbols=symbols)
        lo, hi = symshape.bounds(e)
        assert (lo, hi) == (int(vr.lower), int(vr.upper) if math.isfinite(hi) else hi), key


def test_exported_program_runs_and_rejects(interleave: tuple[Any, st.ExportSpecs]) -> None:
    ep, _ = interleave
    run = ep.module()
    for b, h, s in ((4, 2, 256), (128, 100, 4096), (17, 7, 384)):
        odd, tiles = run(randn(b, 2 * h + 1), randn(h), randn(s))
        assert odd.shape == (b,) and tiles.shape == (s // 128,)
    for b, h, s in ((3, 4, 512),        # b below 4
                    (4, 4, 4224),       # s above 4096
                    (4, 4, 500),        # s not a multiple of 128
                    (4, 101, 512)):     # h above 100
        with pytest.raises((RuntimeError, AssertionError)):
            run(randn(b, 2 * h + 1), randn(h), randn(s))
    with pytest.raises((RuntimeError, AssertionError)):
        run(randn(4, 10), randn(4), randn(512))  # 10 is not 2*h + 1 for h = 4


def test_spec_errors_are_clear() -> None:
    with pytest.raises(symshape.ParseError, match=r"args\[1\]"):
        st.export_specs((randn(4, 3), randn(5)), ["b, 3", "b +"])
    with pytest.raises(SymshapeError, match="rank"):
        st.export_specs((randn(4, 3),), ["b"])
    with pytest.raises(SymshapeError, match="not a tensor"):
        st.export_specs((randn(4), 3), ["b", "c"])
    with pytest.raises(symshape.UnsatisfiableConstraintsError, match="var_min=1"):
        st.export_specs((randn(1),), ["b"], constraints=["b <= 1 + 0*b", "b + 0 <= 1"])
    es = st.export_specs((randn(4, 9), randn(4)), ["b, 2*h + 1", "h"])
    with pytest.raises(ShapeMismatchError, match="do not match"):
        es.check_args((randn(4, 10), randn(4)))


def test_pytrees_placeholders_and_constants() -> None:
    args = ({"img": randn(2, 3, 8, 8), "mask": randn(2, 8)}, [randn(2, 5)])
    es = st.export_specs(args, ({"img": "b, _, h, h", "mask": "b, h"}, ["b, ..."]),
                         constraints=["h <= 64"])
    assert es.shapes[0]["img"][1] == 3 and es.shapes[1][0][1] == 5
    ds = es.dynamic_shapes
    assert ds[0]["img"][0] is es.dims["b"] and ds[0]["img"][1] is Dim.STATIC
    assert ds[1][0][1] is Dim.STATIC

    class Pooled(torch.nn.Module):
        def forward(self, d: Any, xs: Any) -> Any:
            return d["img"].mean((1, 2)) * d["mask"] + xs[0].sum(1, keepdim=True)

    ep = st.export(Pooled(), args, specs=es)
    out = ep.module()({"img": randn(3, 3, 16, 16), "mask": randn(3, 16)}, [randn(3, 5)])
    assert out.shape == (3, 16)
    assert st.from_torch(ep, es).in_shapes == (es.shapes[0]["img"], es.shapes[0]["mask"],
                                               es.shapes[1][0])


# -- constraints Dims cannot express -----------------------------------------------------


def test_unexpressed_constraint_is_enforced() -> None:
    args = (randn(20, 60), randn(5, 3))
    specs, cons = ["a, _", "b, 3"], ["a >= b + 8", "a <= 100"]
    with pytest.warns(st.UnexpressedConstraintsWarning, match="a >= b \\+ 8"):
        st.dynamic_shapes(args, specs, constraints=cons)
    ep = st.export(Slice(), args, specs, constraints=cons)
    assert {str(v) for v in ep.range_constraints.values()} == {"VR[10, 100]", "VR[2, 92]"}
    run = ep.module()
    assert run(randn(12, 60), randn(4, 3)).shape == (4,)
    assert run(randn(100, 60), randn(60, 3)).shape == (60,)
    with pytest.raises(RuntimeError, match="^shape constraint a >= b \\+ 8 fails: "
                       "a = 12 \\(x.shape\\[0\\]\\), b = 5 \\(y.shape\\[0\\]\\)$"):
        run(randn(12, 60), randn(5, 3))  # a = 12 < b + 8 = 13
    with pytest.raises(ShapeMismatchError, match="a >= b \\+ 8"):
        st.export(Slice(), (randn(12, 60), randn(5, 3)), specs, constraints=cons)
    # The Dims alone do not enforce it: torch's own export accepts a = 12, b = 5.
    bare = torch.export.export(Slice(), args, dynamic_shapes=st.export_specs(
        args, specs, constraints=cons).dynamic_shapes)
    assert bare.module()(randn(12, 60), randn(5, 3)).shape == (5,)


def test_relations_of_auto_dims_are_enforced() -> None:
    args = (randn(5, 3), randn(6, 3), randn(11, 3))
    es = st.export_specs(args, ["a, 3", "b, 3", "a + b, 3"], constraints=["a <= 64", "b <= 64"])
    assert es.dynamic_shapes[2][0] is Dim.AUTO
    assert es.unexpressed == ("args[2].shape[0] == a + b",)
    ep = st.export(Concat(), args, specs=es)
    assert ep.module()(randn(2, 3), randn(3, 3), randn(5, 3)).shape == (5, 3)
    with pytest.raises(RuntimeError, match=r"^shape constraint args\[2\].shape\[0\] == a \+ b "
                       r"fails: args\[2\].shape\[0\] = 6, a = 2 \(args\[0\].shape\[0\]\), "
                       r"b = 3 \(args\[1\].shape\[0\]\)$"):
        ep.module()(randn(2, 3), randn(3, 3), randn(6, 3))


def test_unexpressed_modular_constraint_with_runtime_check() -> None:
    args = (randn(5, 4), randn(5, 4))
    ep = st.export(Mod3(), args, ["b, 4", "b, 4"], constraints=["b <= 1024", "mod(b, 3) >= 1"])
    run = ep.module()
    assert run(randn(7, 4), randn(7, 4)).shape == (2, 4)
    with pytest.raises(RuntimeError, match=r"^shape constraint mod\(b, 3\) >= 1 fails: "
                       r"b = 6 \(x.shape\[0\]\)$"):
        run(randn(6, 4), randn(6, 4))


# -- explaining torch's guards ------------------------------------------------------------


def _failing(model: Any, args: tuple[Any, ...], specs: list[str],
             constraints: list[str]) -> tuple[BaseException, st.ExportSpecs]:
    """torch.export.export with the specs' dynamic_shapes, which must fail."""
    es = st.export_specs(args, specs, constraints=constraints, model=model)
    es.example = es.check_args(args)
    with pytest.raises(Exception, match="Constraints violated") as info:
        torch.export.export(model, args, dynamic_shapes=es.dynamic_shapes)
    return info.value, es


CASES = {
    # name: (model, args, specs, constraints, a claim of the explanation, its suggestion)
    "specialized": (AddConstant(), (randn(5, 3),), ["b, 3"], [], "b", "b == 5"),
    "off by one": (DropFirst(), (randn(6, 3), randn(5, 3)), ["n, 3", "m, 3"], [],
                   "n == m + 1", "n == m + 1"),
    "mod 3": (Mod3(), (randn(5, 4), randn(5, 4)), ["b, 4", "b, 4"], ["b <= 1024"],
              "mod(b, 3) + 1 != 1", "mod(b, 3) >= 1"),
    "max bound": (Positions(), (randn(2, 100, 8),), ["b, s, 8"], [], "s <= 512", "s <= 512"),
    "tied equal": (Add(), (randn(4, 3), randn(4, 3)), ["a, 3", "b, 3"], [], "b == a",
                   "b == a"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_explain_failure_and_reexport(case: str) -> None:
    model, args, specs, cons, claim, suggestion = CASES[case]
    err, es = _failing(model, args, specs, cons)
    ex = st.explain(err, es)
    (report,) = ex.not_implied
    assert report.torch_text and not report.error
    assert any(claim in v.claim for v in report.verdicts), str(ex)
    assert not report.implied and any(not v.proved for v in report.verdicts)
    assert report.suggestions[0].constraints[0] == suggestion, str(ex)
    assert ex.suggested_constraints[0] == suggestion
    assert suggestion in str(ex)
    # Applied, the suggestion makes the export succeed, with the same example arguments.
    ep = st.export(model, args, specs, constraints=[*cons, *ex.suggested_constraints])
    assert ep.module()(*args).shape == model(*args).shape


def test_explain_suggests_dims() -> None:
    err, es = _failing(*CASES["max bound"][:4])
    (report,) = st.explain(err, es).not_implied
    assert "s = Dim('s', min=2, max=512)" in report.suggestions[0].dims
    args = (randn(8, 4), randn(8, 4))  # b = 8 = 3*2 + 2: _b = 2 is a valid Dim value
    err, es = _failing(Mod3(), args, ["b, 4", "b, 4"], ["b <= 1024"])
    sugg = st.explain(err, es).not_implied[0].suggestions
    assert "not expressible by Dims" in " ".join(sugg[0].dims)
    div = [s for s in sugg if s.constraints == ("mod(b, 3) == 2",)]
    assert div and "b = 3*_b + 2" in div[0].dims, sugg
    # The Dim form works with torch.export.export itself, without run-time checks.
    es2 = es.with_constraints(["mod(b, 3) == 2"])
    torch.export.export(Mod3(), args, dynamic_shapes=es2.dynamic_shapes)


def test_explain_without_specs_reads_the_message() -> None:
    b = Dim("b", min=2, max=1024)
    with pytest.raises(Exception) as info:
        torch.export.export(Mod3(), (randn(5, 4), randn(5, 4)),
                            dynamic_shapes=({0: b}, {0: b}))
    ex = st.explain(info.value)
    assert ex.constraints == ("b <= 1024", "b >= 2")
    (report,) = ex.reports
    assert report.torch_text == "(1 + (L['x'].size()[0] % 3)) != 1"
    (v,) = report.verdicts
    assert v.claim == "mod(b, 3) + 1 != 1" and v.status.value == "inconclusive"
    assert v.counterexample is not None and v.counterexample["b"] % 3 == 0
    assert report.suggestions[0].constraints == ("mod(b, 3) >= 1",)
    # the message text works as well
    assert str(st.explain(str(info.value))) == str(ex)


def test_explain_exported_program(interleave: tuple[Any, st.ExportSpecs]) -> None:
    ep, es = interleave
    ex = st.explain(ep, es)
    assert ex.reports and not ex.not_implied, str(ex)
    assert {r.kind for r in ex.reports} >= {"range", "runtime assertion"}
    ep2 = st.export(Slice(), (randn(20, 60), randn(5, 3)), ["a, _", "b, 3"],
                    constraints=["a >= b + 8", "a <= 100"])
    es2 = st.export_specs((randn(20, 60), randn(5, 3)), ["a, _", "b, 3"],
                          constraints=["a >= b + 8", "a <= 100"], model=Slice())
    ex2 = st.explain(ep2, es2)
    asserts = [r for r in ex2.reports if r.kind == "runtime assertion"]
    assert asserts and all(r.implied for r in asserts), str(ex2)
    assert any(v.claim == "b + 8 <= a" for r in asserts for v in r.verdicts)
    # Without the specs, under ep.range_constraints alone, a >= b + 8 is not implied.
    bare = st.explain(ep2)
    assert any(r.kind == "runtime assertion" and not r.implied for r in bare.reports)


def test_from_torch(interleave: tuple[Any, st.ExportSpecs]) -> None:
    ep, es = interleave
    shapes = st.from_torch(ep, es)
    b, h, s = (es.scope.var(n) for n in "bhs")
    assert shapes.in_shapes == ((b, 2 * h + 1), (h,), (s,))
    assert shapes.out_shapes == ((b,), (s // 128,))
    bare = st.from_torch(ep)
    (b2, w), (h2,), (s2,) = bare.in_shapes
    assert w == 2 * h2 + 1
    assert symshape.bounds(s2) == (256, 4096) and symshape.bounds(b2) == (4, 128)
    assert bare.out_shapes[1] == (s2 // 128,)


def test_no_warning_without_unexpressed() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        st.dynamic_shapes(INTERLEAVE_ARGS, INTERLEAVE_SPECS, constraints=INTERLEAVE_CONSTRAINTS)


def test_var_min_one_keeps_size_one() -> None:
    es = st.export_specs((randn(3, 4),), ["b, 4"], var_min=1)
    assert es.roots["b"].min == 1 and es.assumptions == ()
    ep = st.export(Add(), (randn(3, 4), randn(3, 4)), ["b, 4", "b, 4"], var_min=1)
    assert ep.module()(randn(1, 4), randn(1, 4)).shape == (1, 4)


def test_what_dims_express_is_decided() -> None:
    """A constraint is expressed when the Dims' ranges imply it (decided by symshape)."""
    args = (randn(20, 3), randn(5, 3))
    es = st.export_specs(args, ["a, 3", "b, 3"],
                         constraints=["max(a, b) <= 4096", "a >= b + 8", "b >= 2*a - 100"])
    # tight bounds: a <= 92 and b <= 84 (from the two relations), which imply the max
    assert (es.roots["a"].min, es.roots["a"].max, es.roots["b"].max) == (10, 92, 84)
    assert "max(a, b) <= 4096" not in es.unexpressed
    assert es.unexpressed == ("a >= b + 8", "b >= 2*a - 100")
