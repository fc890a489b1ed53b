"""symshape.typing with PyTorch: a small model checked eagerly, under torch.export
(the checks become torch._check calls: guards, or run-time assertions of the
exported program) and under torch.compile."""
# Linters read the strings in Shaped[T, "b, d"] as forward references (as with
# jaxtyping's annotations); they are shape specs.
# ruff: noqa: F722, F821, UP037

from __future__ import annotations

from typing import Any

import pytest

from symshape import ShapeMismatchError
from symshape.typing import Shaped, shapecheck

torch = pytest.importorskip("torch")
Dim = torch.export.Dim
T = torch.Tensor


class MLP(torch.nn.Module):
    def __init__(self, d: int) -> None:
        super().__init__()
        self.w1 = torch.nn.Parameter(torch.randn(d, 4 * d))
        self.w2 = torch.nn.Parameter(torch.randn(4 * d, d))

    def forward(self, x: Any) -> Any:
        return mlp(x, self.w1, self.w2)


@shapecheck
def mlp(x: Shaped[T, "b, d"], w1: Shaped[T, "d, 4*d"], w2: Shaped[T, "4*d, d"]
        ) -> Shaped[T, "b, d"]:
    return torch.relu(x @ w1) @ w2


@shapecheck(constraints=["mod(s, 128) == 0"])
def attention(x: Shaped[T, "b, s, d"], w: Shaped[T, "d, 4*d"], mask: Shaped[T, "s, s"]
              ) -> Shaped[T, "b, s, d"]:
    # Slices by the symbolic size (torch.chunk or a scale of 1/sqrt(d) would make
    # torch.export specialize d).
    h, d = x @ w, x.shape[-1]
    q, k, v = h[..., :d], h[..., d:2 * d], h[..., 2 * d:3 * d]
    return torch.softmax(q @ k.transpose(1, 2) + mask, dim=-1) @ v


class Attention(torch.nn.Module):
    def forward(self, x: Any, w: Any, mask: Any) -> Any:
        return attention(x, w, mask)


def r(*shape: int) -> Any:
    return torch.randn(*shape)


def test_eager_calls() -> None:
    assert MLP(8)(r(3, 8)).shape == (3, 8)
    with pytest.raises(ShapeMismatchError, match=r"w1.shape\[0\] == 8.*'d' = 7 \(from x"):
        MLP(8)(r(3, 7))
    assert attention(r(2, 128, 8), r(8, 32), r(128, 128)).shape == (2, 128, 8)
    with pytest.raises(ShapeMismatchError, match=r"mod\(s, 128\) == 0"):
        attention(r(2, 64, 8), r(8, 32), r(64, 64))


def test_export_with_static_shapes_checks_while_tracing() -> None:
    ep = torch.export.export(MLP(8), (r(3, 8),))
    assert ep.module()(r(3, 8)).shape == (3, 8)
    with pytest.raises(ShapeMismatchError, match=r"mod\(s, 128\) == 0"):
        torch.export.export(Attention(), (r(2, 64, 8), r(8, 32), r(64, 64)))


def test_export_with_dynamic_shapes_keeps_the_checks_in_the_graph(tmp_path: Any) -> None:
    b, s, d = Dim("b"), Dim("s"), Dim("d")
    ep = torch.export.export(
        Attention(), (r(2, 128, 8), r(8, 32), r(128, 128)),
        dynamic_shapes=({0: b, 1: s, 2: d}, {0: d, 1: 4 * d}, {0: s, 1: s}),
        prefer_deferred_runtime_asserts_over_guards=True)
    path = tmp_path / "attention.pt2"
    torch.export.save(ep, path)
    loaded = torch.export.load(path).module()
    assert loaded(r(3, 256, 4), r(4, 16), r(256, 256)).shape == (3, 256, 4)
    # Only the constraint mod(s, 128) == 0 fails: the assertion is the decorator's.
    with pytest.raises(RuntimeError, match="128"):
        loaded(r(3, 100, 4), r(4, 16), r(100, 100))


def test_export_where_a_check_is_a_guard() -> None:
    # Without deferred assertions, torch turns the check into a guard on 's' and
    # asks for a Dim that implies it; with one, the export needs no run-time check.
    b, d = Dim("b"), Dim("d")
    with pytest.raises(torch._dynamo.exc.UserError, match="128"):
        torch.export.export(Attention(), (r(2, 128, 8), r(8, 32), r(128, 128)),
                            dynamic_shapes=({0: b, 1: Dim("s"), 2: d}, {0: d, 1: 4 * d},
                                            {0: Dim("s"), 1: Dim("s")}))
    s = 128 * Dim("k")
    ep = torch.export.export(Attention(), (r(2, 256, 8), r(8, 32), r(256, 256)),
                             dynamic_shapes=({0: b, 1: s, 2: d}, {0: d, 1: 4 * d},
                                             {0: s, 1: s}))
    assert ep.module()(r(3, 384, 8), r(8, 32), r(384, 384)).shape == (3, 384, 8)


def test_mlp_export_with_dynamic_shapes() -> None:
    ep = torch.export.export(MLP(8), (r(3, 8),), dynamic_shapes=({0: Dim("b")},))
    assert ep.module()(r(5, 8)).shape == (5, 8)
    with pytest.raises(Exception):  # noqa: B017 (torch's own input check)
        ep.module()(r(5, 9))


@pytest.mark.parametrize("dynamic", [False, True])
def test_torch_compile(dynamic: bool) -> None:
    f = torch.compile(attention, dynamic=dynamic, backend="eager")
    assert f(r(2, 128, 8), r(8, 32), r(128, 128)).shape == (2, 128, 8)
    assert f(r(3, 256, 8), r(8, 32), r(256, 256)).shape == (3, 256, 8)
    with pytest.raises(Exception, match=r"mod\(s, 128\) == 0"):
        f(r(2, 100, 8), r(8, 32), r(100, 100))


@pytest.mark.parametrize("dynamic", [False, True])
def test_torch_compile_fullgraph(dynamic: bool) -> None:
    # The whole call is one graph: the plan is a constant of the trace and its
    # assertions are torch._check calls with symshape's words.
    f = torch.compile(attention, dynamic=dynamic, backend="eager", fullgraph=True)
    assert f(r(2, 128, 8), r(8, 32), r(128, 128)).shape == (2, 128, 8)
    assert f(r(3, 256, 8), r(8, 32), r(256, 256)).shape == (3, 256, 8)
    with pytest.raises(Exception, match=r"the constraint 'mod\(s, 128\) == 0' of the scope "
                                        r"does not hold"):
        f(r(2, 100, 8), r(8, 32), r(100, 100))


def test_strict_export() -> None:
    b, s, d = Dim("b"), Dim("s"), Dim("d")
    ep = torch.export.export(
        Attention(), (r(2, 128, 8), r(8, 32), r(128, 128)),
        dynamic_shapes=({0: b, 1: s, 2: d}, {0: d, 1: 4 * d}, {0: s, 1: s}), strict=True,
        prefer_deferred_runtime_asserts_over_guards=True)
    assert ep.module()(r(3, 256, 4), r(4, 16), r(256, 256)).shape == (3, 256, 4)
    with pytest.raises(RuntimeError, match="128"):
        ep.module()(r(3, 100, 4), r(4, 16), r(100, 100))
    with pytest.raises(Exception, match=r"mask.shape\[0\]"):
        torch.export.export(Attention(), (r(2, 128, 8), r(8, 32), r(64, 128)), strict=True)
