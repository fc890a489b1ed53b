"""The notebooks run from a clean kernel without errors, are stored executed, and their
stored outputs are what a fresh run prints (volatile parts aside), so they cannot drift
from the code."""

from __future__ import annotations

import copy
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from support.paths import ROOT

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("jax")

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def _runner() -> ModuleType:
    """notebooks/run_notebooks.py, the script maintainers use to refresh the outputs."""
    spec = importlib.util.spec_from_file_location("run_notebooks",
                                                  ROOT / "notebooks" / "run_notebooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _code_cells(nb: Any) -> list[Any]:
    return [c for c in nb.cells if c.cell_type == "code"]


THE_STORIES = ["01_tour.ipynb", "02_layer_shapes.ipynb", "03_jax_export.ipynb"]
# Notebooks that may follow the three stories (each is run like them when present).
OPTIONAL = {"04_torch_and_jax.ipynb", "05_annotations.ipynb"}


def test_there_are_the_three_stories() -> None:
    names = [p.name for p in NOTEBOOKS]
    assert names[:3] == THE_STORIES
    assert set(names[3:]) <= OPTIONAL, names[3:]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_stored_with_outputs_in_order(path: Path) -> None:
    """Readers on GitHub see results: every code cell was run, top to bottom, in one
    clean kernel, and none of the stored outputs is an error."""
    nb = nbformat.read(path, as_version=4)
    cells = _code_cells(nb)
    assert [c.execution_count for c in cells] == list(range(1, len(cells) + 1))
    with_output = [c for c in cells if c.outputs]
    assert len(with_output) >= len(cells) - 2
    for cell in cells:
        for out in cell.outputs:
            assert out.output_type != "error", cell.source
            assert out.get("name") != "stderr", (cell.source, out.get("text"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_a_fresh_run_prints_the_stored_outputs(path: Path) -> None:
    """Any error in any cell fails (nbclient raises CellExecutionError), and so does any
    output that differs from the stored one: refresh with notebooks/run_notebooks.py."""
    runner = _runner()
    nb = runner.execute(path)
    cells = _code_cells(nb)
    assert all(c.execution_count is not None for c in cells)
    for cell in cells:
        for out in cell.outputs:
            assert out.output_type != "error", cell.source
    problems = runner.drift(nbformat.read(path, as_version=4), nb, path.name)
    assert not problems, "\n\n".join(problems)


# -- the drift check itself ----------------------------------------------------------


def _stream_cell(nb: Any) -> Any:
    """The first code cell of ``nb`` that printed to stdout."""
    cells = [c for c in _code_cells(nb) if any(o.get("name") == "stdout" for o in c.outputs)]
    if not cells:
        pytest.skip("no cell of this notebook prints")
    return cells[0]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_drift_finds_a_changed_output(path: Path) -> None:
    runner = _runner()
    stored = nbformat.read(path, as_version=4)
    assert runner.drift(stored, copy.deepcopy(stored)) == []
    changed = copy.deepcopy(stored)
    out = next(o for o in _stream_cell(changed).outputs if o.get("name") == "stdout")
    out.text = out.text.replace("\n", " (changed)\n", 1)
    (problem,) = runner.drift(stored, changed, path.name)
    assert "stale" in problem and "(changed)" in problem, problem


def test_drift_ignores_volatile_parts_only() -> None:
    runner = _runner()
    stored = nbformat.read(NOTEBOOKS[0], as_version=4)

    def with_stdout(text: str, *, split: bool = False) -> Any:
        nb = copy.deepcopy(stored)
        cell = _stream_cell(nb)
        texts = [text[:5], text[5:]] if split else [text]
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=t) for t in texts]
        return nb

    base = with_stdout("<function f at 0x7f3a2c1d5e40> took 1.25 s (310 ms) in /tmp/tmpab12cd\n"
                       "jax 0.10.2 | symshape.jax tested with jax 0.10.2\n")
    same = [with_stdout("<function f at 0x7ffe00112233> took 0.5 s (12 ms) in /tmp/tmpzz99\n"
                        "jax 0.11.0 | symshape.jax tested with jax 0.11.0\n"),
            with_stdout("<function f at 0x7f3a2c1d5e40> took 1.25 s (310 ms) in /tmp/tmpab12cd\n"
                        "jax 0.10.2 | symshape.jax tested with jax 0.10.2\n", split=True)]
    for other in same:
        assert runner.drift(base, other) == []
    # Everything else counts, even one digit of a counterexample.
    assert runner.drift(with_stdout("fails for {'h': 64, 's': 8192}\n"),
                        with_stdout("fails for {'h': 64, 's': 5793}\n"))
    # Warnings on stderr depend on the machine, not on the notebook.
    warned = copy.deepcopy(base)
    _stream_cell(warned).outputs.append(
        nbformat.v4.new_output("stream", name="stderr", text="WARNING: no GPU found\n"))
    assert runner.drift(base, warned) == []


def test_check_mode_fails_on_a_stale_notebook(tmp_path: Path) -> None:
    """``run_notebooks.py --check``, as a maintainer runs it, reports the stale cell."""
    path = tmp_path / THE_STORIES[0]
    shutil.copy(NOTEBOOKS[0], path)
    nb = nbformat.read(path, as_version=4)
    out = next(o for o in _stream_cell(nb).outputs if o.get("name") == "stdout")
    out.text = "a stale line\n" + out.text
    nbformat.write(nb, path)
    script = str(ROOT / "notebooks" / "run_notebooks.py")
    p = subprocess.run([sys.executable, script, "--check", str(path)], capture_output=True,
                       text=True, cwd=ROOT, timeout=600)
    assert p.returncode == 1, p.stdout + p.stderr
    assert "code cell 2" in p.stderr and "-a stale line" in p.stderr, p.stderr
    assert nbformat.read(path, as_version=4) == nb  # --check writes nothing
