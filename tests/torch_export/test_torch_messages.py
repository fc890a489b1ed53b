"""Failed run-time checks of symshape.torch.export speak the user's words: in the
exporting process (with the sizes of the call) and after torch.export.save /
torch.export.load in a fresh process that never imports symshape.

The calls are marked ``device``: they place their tensors on the backend that
``SYMSHAPE_TEST_BACKEND`` names (the CPU by default, ``cuda`` on a GPU machine;
see ``tests/support/device.py``), in this process and in the loading one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.device import torch_device

from symshape import ShapeMismatchError

torch = pytest.importorskip("torch")
import symshape.torch as st  # noqa: E402


class Slice(torch.nn.Module):
    def forward(self, x: Any, y: Any) -> Any:
        return x.sum(1)[: y.shape[0]]


class Double(torch.nn.Module):
    def forward(self, x: Any) -> Any:
        return x * 2


class Tiles(torch.nn.Module):
    """Needs mod(s, 16) == 0 itself (the reshape)."""

    def forward(self, x: Any) -> Any:
        return x.reshape(-1, 16).sum(1)


class Concat(torch.nn.Module):
    def forward(self, x: Any, y: Any, z: Any) -> Any:
        return torch.cat([x, y]) * z


class Odd(torch.nn.Module):
    def forward(self, x: Any, y: Any) -> Any:
        return x[:, 1::2] + y


def z(*shape: int) -> Any:
    return torch.ones(*shape)


def on_device(*shape: int) -> Any:
    """Ones of this shape on the device the device tests run on."""
    return torch.ones(*shape, device=torch_device())


# name: (model, example args, specs, constraints,
#        [(bad args, message in the exporting process, message after loading)])
CASES: dict[str, tuple[Any, tuple[Any, ...], list[str], list[str],
                       list[tuple[tuple[tuple[int, ...], ...], str, str]]]] = {
    "relation": (Slice(), (z(21, 60), z(5, 3)), ["a, _", "b, 3"],
                 ["a >= b + 8", "a <= 100", "mod(a, 4) >= 1"], [
        (((13, 60), (6, 3)), "shape constraint a >= b + 8 fails: a = 13 (x.shape[0]), "
         "b = 6 (y.shape[0])",
         "shape constraint a >= b + 8 fails for a = x.shape[0], b = y.shape[0]"),
        (((12, 60), (3, 3)), "shape constraint mod(a, 4) >= 1 fails: a = 12 (x.shape[0])",
         "shape constraint mod(a, 4) >= 1 fails for a = x.shape[0]"),
    ]),
    "divisible": (Double(), (z(32, 3),), ["s, 3"], ["mod(s, 16) == 0"], [
        (((120, 3),), "shape constraint mod(s, 16) == 0 fails: s = 120 (x.shape[0])",
         "shape constraint mod(s, 16) == 0 fails for s = x.shape[0]"),
    ]),
    "divisible, needed by the model": (Tiles(), (z(64),), ["s"], ["mod(s, 16) == 0"], [
        (((120,),), "shape constraint mod(s, 16) == 0 fails: s = 120 (x.shape[0])",
         "shape constraint mod(s, 16) == 0 fails for s = x.shape[0]"),
    ]),
    "sum of sizes": (Concat(), (z(4, 3), z(3, 3), z(7, 3)), ["a, 3", "b, 3", "a + b, 3"], [], [
        (((4, 3), (3, 3), (9, 3)), "shape constraint z.shape[0] == a + b fails: "
         "z.shape[0] = 9, a = 4 (x.shape[0]), b = 3 (y.shape[0])",
         "shape constraint z.shape[0] == a + b fails for a = x.shape[0], b = y.shape[0]"),
    ]),
    "derived": (Odd(), (z(4, 9), z(4)), ["b, 2*h + 1", "h"], ["mod(h, 3) >= 1"], [
        (((4, 13), (6,)), "shape constraint mod(h, 3) >= 1 fails: h = 6 ((x.shape[1] - 1) // 2)",
         "shape constraint mod(h, 3) >= 1 fails for h = (x.shape[1] - 1) // 2"),
    ]),
}


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Any, Path]]:
    out: dict[str, tuple[Any, Path]] = {}
    folder = tmp_path_factory.mktemp("programs")
    for i, (name, (model, args, specs, cons, _)) in enumerate(CASES.items()):
        ep = st.export(model, args, specs, constraints=cons)
        path = folder / f"case{i}.pt2"
        torch.export.save(ep, str(path))
        out[name] = (ep, path)
    return out


@pytest.mark.device
@pytest.mark.parametrize("case", list(CASES))
def test_in_process_messages_have_the_sizes(case: str,
                                            exported: dict[str, tuple[Any, Path]]) -> None:
    model, args, _, _, bad = CASES[case]
    ep, _ = exported[case]
    run = ep.module()
    args = tuple(a.to(torch_device()) for a in args)
    got = run(*args)
    assert got.device.type == torch_device().type
    assert torch.equal(got, model(*args))
    for shapes, message, _ in bad:
        with pytest.raises(RuntimeError) as info:
            run(*(on_device(*s) for s in shapes))
        assert str(info.value) == message
        # torch's own error is kept as the cause
        assert isinstance(info.value.__cause__, RuntimeError)


def test_messages_are_in_the_graph(exported: dict[str, tuple[Any, Path]]) -> None:
    ep, _ = exported["relation"]
    texts = [n.args[1] for n in ep.graph.nodes if "_assert_scalar" in str(n.target)]
    assert texts and all(t.startswith("shape constraint ") for t in texts), texts
    assert not any("Runtime assertion failed" in t for t in texts)
    # the checks come before the model's tensor work
    ops = [n for n in ep.graph.nodes if n.op == "call_function"]
    first_tensor_op = next(i for i, n in enumerate(ops) if "aten.sum" in str(n.target))
    assert all(i < first_tensor_op for i, n in enumerate(ops)
               if "_assert_scalar" in str(n.target))


_LOADER = r"""
import json, sys
import torch
out = {}
device = torch.device(sys.argv[2])
for path, calls in json.loads(sys.argv[1]):
    run = torch.export.load(path).module()
    got = []
    for shapes in calls:
        args = [torch.ones(*s, device=device) for s in shapes]
        try:
            result = run(*args)
            assert result.device.type == device.type, result.device
            got.append(["ok", list(result.shape)])
        except Exception as err:
            got.append([type(err).__name__, str(err)])
    out[path] = got
out["symshape imported"] = "symshape" in sys.modules
print(json.dumps(out))
"""


def _load_elsewhere(calls: list[tuple[str, list[Any]]]) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "-c", _LOADER, json.dumps(calls), str(torch_device())],
                          capture_output=True, text=True, env=env, timeout=300, check=False,
                          cwd=os.path.dirname(sys.executable))
    assert proc.returncode == 0, proc.stderr[-3000:]
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.device
def test_loaded_elsewhere_messages_name_the_constraints(
        exported: dict[str, tuple[Any, Path]]) -> None:
    calls: list[tuple[str, list[Any]]] = []
    for name, (_, args, _, _, bad) in CASES.items():
        good = [list(a.shape) for a in args]
        calls.append((str(exported[name][1]), [good, *[list(map(list, s)) for s, _, _ in bad]]))
    got = _load_elsewhere(calls)
    assert got.pop("symshape imported") is False
    for name, (model, args, _, _, bad) in CASES.items():
        first, *rest = got[str(exported[name][1])]
        assert first == ["ok", list(model(*args).shape)], (name, first)
        assert rest == [["RuntimeError", loaded] for _, _, loaded in bad], (name, rest)


@pytest.mark.device
def test_dim_ranges_speak_torch_words_after_loading(
        exported: dict[str, tuple[Any, Path]]) -> None:
    """A size outside a Dim's range is refused by torch's own guards: symshape's
    message in the exporting process, torch's ("Guard failed") after loading."""
    ep, path = exported["relation"]
    with pytest.raises(AssertionError) as info:
        ep.module()(on_device(101, 60), on_device(3, 3))
    assert "'a' == 101" in str(info.value) and "a <= 100" in str(info.value)
    got = _load_elsewhere([(str(path), [[[101, 60], [3, 3]]])])
    ((kind, text),) = got[str(path)]
    assert kind == "AssertionError" and "x.size()[0] <= 99" in text, text


def test_unchecked_residue_of_a_derived_dim_is_checked() -> None:
    """torch does not check a derived dim's form 16*_s unless the model needs it;
    symshape.torch.export does (the variable is a Dim of its own)."""
    es = st.export_specs((z(32, 3),), ["s, 3"], constraints=["mod(s, 16) == 0"])
    assert str(es.dynamic_shapes[0][0]) == "16*_s"  # for torch.export.export itself
    ep = st.export(Double(), (z(32, 3),), specs=es)
    assert {str(v) for v in ep.range_constraints.values()} == {"VR[32, int_oo]"}
    with pytest.raises(RuntimeError, match="mod\\(s, 16\\) == 0"):
        ep.module()(z(120, 3))
    assert ep.module()(z(48, 3)).shape == (48, 3)


def test_bad_example_is_still_refused_before_tracing() -> None:
    with pytest.raises(ShapeMismatchError, match="mod\\(s, 16\\) == 0"):
        st.export(Double(), (z(40, 3),), ["s, 3"], constraints=["mod(s, 16) == 0"])


def test_a_constraint_is_expressed_only_when_the_dims_say_it() -> None:
    """A constraint that holds in the specs' own scope (it is one of its facts)
    is not thereby said by the Dims: it must be checked at run time."""
    cons = ["s <= 4096", "mod(s, floordiv(s, 128)) == 0"]
    es = st.export_specs((z(256, 3),), ["s, 3"], constraints=cons, model=Double())
    assert es.unexpressed == ("mod(s, floordiv(s, 128)) == 0",)
    ep = st.export(Double(), (z(256, 3),), specs=es)
    with pytest.raises(RuntimeError, match="mod\\(s, floordiv\\(s, 128\\)\\) == 0 fails: s = 257"):
        ep.module()(z(257, 3))  # 257 // 128 = 2 does not divide 257
    assert ep.module()(z(258, 3)).shape == (258, 3)
    # variables the Dims share are said by them: b == a is one Dim
    es = st.export_specs((z(4, 3), z(4, 3)), ["a, 3", "b, 3"], constraints=["a == b"])
    assert es.unexpressed == () and len(es.roots) == 1
