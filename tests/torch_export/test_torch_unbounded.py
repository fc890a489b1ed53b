"""symshape.torch reads exports whose Dims lack a min or a max (torch writes the
missing bound as ``int_oo``): ``from_torch`` and ``explain`` never crash, and a
missing bound is no bound, never a number."""

from __future__ import annotations

from typing import Any

import pytest

import symshape

torch = pytest.importorskip("torch")
import symshape.torch as st  # noqa: E402

Dim = torch.export.Dim
INF = float("inf")


class Pair(torch.nn.Module):
    """x: (n + 1, 3), y: (n, 3)."""

    def forward(self, x: Any, y: Any) -> Any:
        return x[1:] * y


class Odd(torch.nn.Module):
    """x: (b, 2*h + 1), y: (h,)."""

    def forward(self, x: Any, y: Any) -> Any:
        return x[:, 1::2] + y


class Mod3(torch.nn.Module):
    def forward(self, x: Any, y: Any) -> Any:
        return torch.cat([x, y])[: x.shape[0] % 3 + 1]


def _pair(n: Any) -> Any:
    return torch.export.export(Pair(), (torch.zeros(5, 3), torch.zeros(4, 3)),
                               dynamic_shapes=({0: n + 1}, {0: n}))


# (the Dim, its bounds as symshape reads them back from the program)
DIMS = {
    "unbounded": (lambda: Dim("n"), (0, INF)),
    "only min": (lambda: Dim("n", min=3), (3, INF)),
    "only max": (lambda: Dim("n", max=100), (0, 100)),
    "both": (lambda: Dim("n", min=2, max=100), (2, 100)),
}


@pytest.mark.parametrize("case", list(DIMS))
def test_from_torch_and_explain_on_derived_dims(case: str) -> None:
    make, (lo, hi) = DIMS[case]
    ep = _pair(make())
    shapes = st.from_torch(ep)
    (x0, x1), (y0, y1) = shapes.in_shapes
    assert (x1, y1) == (3, 3) and x0 == y0 + 1
    assert shapes.out_shapes == ((y0, 3),)
    # a size is at least 1 to symshape; the range's own lower bound otherwise
    assert symshape.bounds(y0) == (max(lo, 1), hi)
    ex = st.explain(ep)
    assert ex.reports and not ex.not_implied, str(ex)
    claims = [v.claim for r in ex.reports for v in r.verdicts]
    assert all("oo" not in c for c in claims), claims
    if hi == INF:
        assert not any("<=" in c for c in claims), claims
    else:
        assert any(c.endswith(f"<= {hi}") for c in claims), claims
    assert "int_oo" in str(ex) or hi != INF  # torch's text is shown as torch wrote it


def test_unbounded_plain_and_derived_dims_in_one_program() -> None:
    b, h = Dim("b"), Dim("h", min=2)
    ep = torch.export.export(Odd(), (torch.zeros(4, 9), torch.zeros(4)),
                             dynamic_shapes=({0: b, 1: 2 * h + 1}, {0: h}))
    shapes = st.from_torch(ep)
    (b0, w), (h0,) = shapes.in_shapes
    assert w == 2 * h0 + 1
    # b's range is torch's default [0, int_oo] (a size is >= 1 to symshape)
    assert symshape.bounds(b0) == (1, INF) and symshape.bounds(h0) == (2, INF)
    assert not st.explain(ep).not_implied


def test_symshape_export_without_upper_bounds_reads_back() -> None:
    args = (torch.zeros(5, 3), torch.zeros(4, 3))
    es = st.export_specs(args, ["n + 1, 3", "n, 3"], model=Pair())
    assert es.roots["n"].max is None
    ep = st.export(Pair(), args, specs=es)
    assert st.from_torch(ep, es).in_shapes == ((es.scope.var("n") + 1, 3),
                                               (es.scope.var("n"), 3))
    ex = st.explain(ep, es)
    assert ex.reports and not ex.not_implied, str(ex)
    bare = st.from_torch(ep)
    assert symshape.bounds(bare.in_shapes[1][0])[1] == INF


def test_explain_failed_export_with_unbounded_dim() -> None:
    """A failed export with the default Dim: the message has no range at all."""
    b = Dim("b")
    with pytest.raises(Exception) as info:
        torch.export.export(Mod3(), (torch.zeros(5, 4), torch.zeros(5, 4)),
                            dynamic_shapes=({0: b}, {0: b}))
    ex = st.explain(info.value)
    assert ex.constraints == ("b >= 2",)
    (report,) = ex.reports
    assert [v.claim for v in report.verdicts] == ["mod(b, 3) + 1 != 1"]
    assert report.suggestions


@pytest.mark.parametrize("kw", [{"min": 3}, {"max": 100}])
def test_explain_failed_export_with_half_bounded_dim(kw: dict[str, int]) -> None:
    b = Dim("b", **kw)
    with pytest.raises(Exception) as info:
        torch.export.export(Mod3(), (torch.zeros(5, 4), torch.zeros(5, 4)),
                            dynamic_shapes=({0: b}, {0: b}))
    ex = st.explain(info.value)
    expected = {"min": ("3 <= b",), "max": ("b <= 100", "b >= 2")}[next(iter(kw))]
    assert ex.constraints == expected
    assert ex.reports[0].verdicts[0].claim == "mod(b, 3) + 1 != 1"


def test_finite_bound_reads_only_integers() -> None:
    import sympy
    from torch.utils._sympy.numbers import int_oo

    from symshape.torch.convert import finite_bound
    assert finite_bound(int_oo) is None and finite_bound(-int_oo) is None
    assert finite_bound(sympy.oo) is None and finite_bound(-sympy.oo) is None
    assert finite_bound(sympy.Integer(7)) == 7 and finite_bound(-3) == -3
    assert finite_bound(2**63 - 2) is None  # sys.maxsize - 1: torch < 2.4's "no max"
    assert finite_bound(True) is None
