"""Exported artifacts that ship: export with symshape, serialize, load and call
in a process that never imports symshape.

Each artifact is exported with symshape's specs, constraints, run-time checks
(``assert_shapes``) or decisions, serialized, and handed to a fresh Python
process that imports only JAX and NumPy.  That process calls it with good
shapes (the results must match the function run here) and bad ones (the
failure must carry the user's spec in symshape's words, and be the first error
a traceback prints), and reports whether symshape was ever imported.

The round trips are marked ``device``: on a GPU machine,
``SYMSHAPE_TEST_BACKEND=cuda python -m pytest -m device tests/jax_export/test_jax_artifacts.py``
calls the artifacts on the GPU (the default is the CPU; see ``tests/support/device.py``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

jax = pytest.importorskip("jax")
pytest.importorskip("flatbuffers")  # what jax.export.serialize needs (the jax extra has it)
import jax.numpy as jnp  # noqa: E402
from jax import export  # noqa: E402
from support.device import backend_name  # noqa: E402

import symshape.jax as sj  # noqa: E402

#: where the loading process runs the artifacts ("cpu" here; "cuda" on a GPU machine)
PLATFORM = backend_name()
pytestmark = pytest.mark.device
ALL_PLATFORMS = ("cpu", "cuda", "tpu")

# The loading process: JAX and NumPy only.  It reads a JSON list of calls, runs
# each and prints one JSON line per call.  A call with "uncaught" lets its error
# propagate, so the test sees the traceback exactly as a user would.
LOADER = textwrap.dedent('''
    import json, sys
    import numpy as np
    import jax
    from jax import export

    def chain(err):
        out = []
        while err is not None:
            out.append(f"{type(err).__name__}: {err}")
            err = err.__cause__ or err.__context__
        return out

    calls = json.load(open(sys.argv[1]))
    loaded = {}
    device = jax.devices(sys.argv[2])[0]
    for call in calls:
        path = call["artifact"]
        if path not in loaded:
            loaded[path] = export.deserialize(bytearray(open(path, "rb").read()))
        exp = loaded[path]
        args = [jax.device_put(np.arange(int(np.prod(s)), dtype=np.float32).reshape(s)
                               % 7, device) for s in call["shapes"]]
        if call.get("uncaught"):
            exp.call(*args)
        try:
            out = exp.call(*args)
            print(json.dumps({"ok": np.asarray(out).tolist(),
                              "on_device": out.devices() == {device}}))
        except Exception as err:
            print(json.dumps({"error": chain(err)}))
    print(json.dumps({"symshape_imported": "symshape" in sys.modules}))
''')


def inputs(shapes: Sequence[Sequence[int]]) -> list[np.ndarray]:
    """The arrays the loader builds for ``shapes`` (the same values here)."""
    return [np.arange(int(np.prod(s)), dtype=np.float32).reshape(s) % 7 for s in shapes]


def run_loader(tmp_path: Path, calls: list[dict[str, Any]]) -> tuple[list[Any], str]:
    """Run the calls in a fresh process; the results per call and its stderr."""
    (tmp_path / "loader.py").write_text(LOADER)
    (tmp_path / "calls.json").write_text(json.dumps(calls))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, str(tmp_path / "loader.py"),
                           str(tmp_path / "calls.json"), PLATFORM],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    lines = [json.loads(x) for x in proc.stdout.splitlines() if x.startswith("{")]
    return lines, proc.stderr


def save(tmp_path: Path, name: str, exp: Any) -> str:
    path = tmp_path / f"{name}.bin"
    path.write_bytes(exp.serialize())
    return str(path)


# ---------------------------------------------------------------------------
# The functions exported


def row_sums(x: Any) -> Any:
    """Rows of 128*k entries, checked at run time."""
    sj.assert_shapes(x, "b, 128*k")
    return x.sum(axis=1)


def pairs(x: Any, y: Any) -> Any:
    """Checks with constraints of their own: y has n rows, x twice as many columns."""
    sj.assert_shapes([x, y], ["n, 2*n", "n"], constraints=["n <= 64"])
    return x.sum(axis=1) * 2.0 + y.sum()


def first_rows(x: Any, y: Any) -> Any:
    """The first a of the a*b entries of x: exportable only with symshape's decisions."""
    return jax.lax.slice_in_dim(x.reshape(-1), 0, y.shape[0])


def export_with(f: Callable[..., Any], specs: Sequence[str], shapes: Sequence[tuple[int, ...]],
                *, constraints: Sequence[str] = (), platforms: Sequence[str] | None = None,
                decisions: bool = False) -> Any:
    avals = sj.args_specs(tuple(np.zeros(s, np.float32) for s in shapes), tuple(specs),
                          constraints=constraints)
    exporter = export.export(jax.jit(f), platforms=platforms)
    if decisions:
        with sj.decisions():
            return exporter(*avals)
    return exporter(*avals)


PLATFORM_CHOICES = [pytest.param(None, id="one-platform"),
                    pytest.param(ALL_PLATFORMS, id="cpu-cuda-tpu")]


@pytest.mark.parametrize("platforms", PLATFORM_CHOICES)
def test_checked_artifact_ships(tmp_path: Path, platforms: Sequence[str] | None) -> None:
    exp = export_with(row_sums, ["b, s"], [(2, 256)], platforms=platforms)
    assert not exp.ordered_effects and not exp.unordered_effects
    art = save(tmp_path, "row_sums", exp)
    good = [(2, 256), (3, 128), (1, 384)]
    bad = [(2, 300), (1, 1)]
    results, _ = run_loader(tmp_path, [{"artifact": art, "shapes": [s]} for s in good + bad])
    for s, r in zip(good, results, strict=False):
        np.testing.assert_allclose(r["ok"], np.asarray(row_sums(*inputs([s]))), rtol=1e-6)
        assert r["on_device"], PLATFORM  # the call ran where its arguments were
    for s, r in zip(bad, results[len(good):], strict=False):
        text = "\n".join(r["error"])
        assert "the spec '128*k' needs a multiple of 128" in text, text
        assert f"args[0].shape[1] == {s[1]}" in text, text
    assert results[-1] == {"symshape_imported": False}


def test_the_first_error_printed_is_the_specs_message(tmp_path: Path) -> None:
    art = save(tmp_path, "row_sums", export_with(row_sums, ["b, s"], [(2, 256)]))
    _, stderr = run_loader(tmp_path, [{"artifact": art, "shapes": [(2, 300)], "uncaught": True}])
    ours = stderr.find("the spec '128*k' needs a multiple of 128")
    assert ours >= 0, stderr
    # Python prints the cause first: symshape's message comes before JAX's wrapper.
    errors = [i for i, line in enumerate(stderr.splitlines()) if "Error" in line.split(":")[0]]
    first_error = stderr.splitlines()[errors[0]]
    assert "the spec '128*k' needs a multiple of 128" in first_error, stderr


def test_constraints_and_checks_ship(tmp_path: Path) -> None:
    # Export constraints are JAX's own checks; assert_shapes adds symshape's.
    exp = export_with(pairs, ["r, c", "m"], [(3, 6), (3,)], constraints=["mod(c, 2) == 0"],
                      platforms=ALL_PLATFORMS)
    assert not exp.ordered_effects and not exp.unordered_effects
    art = save(tmp_path, "pairs", exp)
    cases = [((3, 6), (3,)), ((64, 128), (64,)), ((3, 6), (4,)), ((3, 8), (3,)),
             ((65, 130), (65,)), ((3, 7), (3,))]
    results, _ = run_loader(tmp_path, [{"artifact": art, "shapes": list(c)} for c in cases])
    for c in cases[:2]:
        np.testing.assert_allclose(results[cases.index(c)]["ok"],
                                   np.asarray(pairs(*inputs(c))), rtol=1e-6)
    texts = ["\n".join(r["error"]) for r in results[2:6]]
    assert "args[1].shape[0] == 4" in texts[0] and "'n' has the value 3" in texts[0], texts[0]
    assert "args[0].shape[1] == 8" in texts[1] and "'2*n' has the value 6" in texts[1], texts[1]
    assert "n <= 64" in texts[2], texts[2]
    assert "mod(c, 2) == 0" in texts[3] or "floordiv(c, 2)" in texts[3], texts[3]
    assert results[-1] == {"symshape_imported": False}


def test_an_export_only_symshape_decides_ships(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="a\\*b"):  # JAX alone cannot prove a*b >= a
        export_with(first_rows, ["a, b", "a"], [(3, 4), (3,)])
    exp = export_with(first_rows, ["a, b", "a"], [(3, 4), (3,)], decisions=True,
                      platforms=ALL_PLATFORMS)
    art = save(tmp_path, "first_rows", exp)
    cases = [((3, 4), (3,)), ((5, 1), (5,)), ((3, 4), (2,))]
    results, _ = run_loader(tmp_path, [{"artifact": art, "shapes": list(c)} for c in cases])
    for c, r in zip(cases[:2], results, strict=False):
        np.testing.assert_allclose(r["ok"], np.asarray(first_rows(*inputs(c))))
    assert "args[1].shape[0]" in "\n".join(results[2]["error"])
    assert results[-1] == {"symshape_imported": False}


def test_in_process_calls_match_the_loaded_ones() -> None:
    exp = export_with(row_sums, ["b, s"], [(2, 256)])
    again = export.deserialize(exp.serialize())
    for e in (exp, again):
        np.testing.assert_allclose(e.call(*inputs([(2, 128)])), row_sums(*inputs([(2, 128)])))
        with pytest.raises(ValueError) as err:
            e.call(*inputs([(2, 300)]))
        assert "the spec '128*k' needs a multiple of 128" in str(err.value.__cause__)


def test_checks_survive_transformations() -> None:
    """grad, vmap, checkpoint and control flow keep the checks of the function."""
    def loss(x: Any) -> Any:
        return jnp.sum(row_sums(x) ** 2)

    def under_cond(x: Any) -> Any:
        return jax.lax.cond(True, row_sums, lambda v: v.sum(axis=1), x)

    for name, f in [("grad", jax.grad(loss)), ("checkpoint", jax.checkpoint(row_sums)),
                    ("vmap", jax.vmap(row_sums, in_axes=1, out_axes=1)),
                    ("cond", under_cond)]:
        shape = (2, 256) if name != "vmap" else (2, 3, 256)
        bad = (2, 300) if name != "vmap" else (2, 3, 300)
        spec = "b, s" if name != "vmap" else "b, c, s"
        exp = export_with(f, [spec], [shape])
        again = export.deserialize(exp.serialize())
        np.testing.assert_allclose(again.call(*inputs([shape])), f(*inputs([shape])),
                                   rtol=1e-5, err_msg=name)
        with pytest.raises(ValueError) as err:
            again.call(*inputs([bad]))
        assert "needs a multiple of 128" in str(err.value.__cause__), name


def test_exports_only_symshape_can_call_warn_at_export_time(tmp_path: Path) -> None:
    def head(x: Any, y: Any) -> Any:
        return jax.lax.slice_in_dim(x, 0, y.shape[0])

    with pytest.warns(sj.ArtifactPortabilityWarning) as record:
        exp = export_with(head, ["a*b", "a"], [(6,), (2,)], decisions=True)
    text = str(record[0].message)
    assert "{'b'}" in text and "args[0].shape[0] = a*b" in text, text
    assert "symshape.jax.decisions()" in text
    assert record[0].filename == __file__  # the user's line, not JAX's
    art = save(tmp_path, "head", exp)
    results, _ = run_loader(tmp_path, [{"artifact": art, "shapes": [(6,), (2,)]}])
    assert "Cannot solve for values of dimension variables" in results[0]["error"][0]
    # Where symshape decides, the same artifact is callable.
    loaded = export.deserialize(bytearray(Path(art).read_bytes()))
    with sj.decisions():
        np.testing.assert_allclose(loaded.call(*inputs([(6,), (2,)])),
                                   head(*inputs([(6,), (2,)])))
    # Exports JAX can solve by itself do not warn.
    with warnings.catch_warnings():
        warnings.simplefilter("error", sj.ArtifactPortabilityWarning)
        export_with(first_rows, ["a, b", "a"], [(3, 4), (3,)], decisions=True)
