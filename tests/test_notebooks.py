"""The notebooks run from a clean kernel without errors, and are stored executed."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("jax")

ROOT = Path(__file__).resolve().parent.parent
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


def test_there_are_the_three_stories() -> None:
    names = [p.name for p in NOTEBOOKS]
    assert names == ["01_tour.ipynb", "02_layer_shapes.ipynb", "03_jax_export.ipynb"]


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
def test_executes_from_a_clean_kernel(path: Path) -> None:
    """Any error in any cell fails (nbclient raises CellExecutionError)."""
    nb = _runner().execute(path)
    cells = _code_cells(nb)
    assert all(c.execution_count is not None for c in cells)
    for cell in cells:
        for out in cell.outputs:
            assert out.output_type != "error", cell.source
