"""Execute the notebooks from a clean kernel, as CI does, and store their outputs.

    python notebooks/run_notebooks.py                 # re-execute all, write outputs in place
    python notebooks/run_notebooks.py --check         # execute only; fail on any error, or
                                                      # on any output that differs from the
                                                      # stored one (the notebook drifted)
    python notebooks/run_notebooks.py 01_tour.ipynb   # just these

Each notebook runs in a fresh ``python3`` kernel whose working directory is the
repository root and whose ``PYTHONPATH`` starts with it, so the notebooks import
this checkout of symshape even when it is not installed.

Outputs are compared after :func:`normalized_outputs`: the parts of an output that
change between runs or machines without the code changing (listed in ``VOLATILE``)
are replaced by fixed placeholders; everything else must match exactly.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import sys
from pathlib import Path
from typing import Any

NOTEBOOKS = Path(__file__).resolve().parent
ROOT = NOTEBOOKS.parent

# The parts of an output that vary without the code varying: (pattern, placeholder).
VOLATILE: tuple[tuple[re.Pattern[str], str], ...] = (
    # object addresses in default reprs: <function f at 0x7f3a2c1d5e40>
    (re.compile(r"\b0x[0-9a-fA-F]{6,16}\b"), "0x<address>"),
    # durations printed by timing code: 1.25 s, 310 ms, 12.5us
    (re.compile(r"\b\d+(?:\.\d+)?\s?(?:ns|us|\u00b5s|ms)\b|\b\d+\.\d+\s?s\b"), "<duration>"),
    # the installed JAX (and the version symshape.jax was tested with, which follows it)
    (re.compile(r"\bjax \d+\.\d+(?:\.\d+)?\S*"), "jax <version>"),
    # temporary files and folders, whose names are random
    (re.compile(r"(?:/tmp|/var/folders)/[^\s'\"]+"), "<temporary path>"),
)

# Output kinds that are not compared: standard error carries warnings that depend on the
# machine (JAX's notice about a GPU it cannot use), not on the notebook.  Stored
# notebooks hold none (tests/interface/test_notebooks.py checks).
IGNORED_STREAMS = ("stderr",)


def notebook_paths() -> list[Path]:
    """The notebooks of the repository, in reading order."""
    return sorted(NOTEBOOKS.glob("*.ipynb"))


def execute(path: Path, *, timeout: int = 600) -> Any:
    """Execute the notebook at ``path`` in a new kernel and return it with outputs.

    Raises ``nbclient.exceptions.CellExecutionError`` when a cell fails.
    """
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    # The kernel is a child process: it inherits this environment.
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(ROOT) + (os.pathsep + old if old else "")
    try:
        client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                                record_timing=False,
                                resources={"metadata": {"path": str(ROOT)}})
        client.execute()
    finally:
        if old is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = old
    _coalesce_streams(nb)
    return nb


def _coalesce_streams(nb: Any) -> None:
    """Join consecutive writes to one stream in each cell: how the kernel splits them into
    messages depends on timing, and stored notebooks should not."""
    for cell in nb.cells:
        merged: list[Any] = []
        for o in cell.get("outputs", []):
            if (o["output_type"] == "stream" and merged
                    and merged[-1]["output_type"] == "stream"
                    and merged[-1]["name"] == o["name"]):
                merged[-1]["text"] = _text(merged[-1]["text"]) + _text(o["text"])
            else:
                merged.append(o)
        if "outputs" in cell:
            cell.outputs = merged


def normalize(text: str) -> str:
    """``text`` with every volatile part (see ``VOLATILE``) replaced by its placeholder."""
    for pattern, placeholder in VOLATILE:
        text = pattern.sub(placeholder, text)
    return text


def _text(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def normalized_outputs(cell: Any) -> list[str]:
    """The outputs of a code cell as comparable text, one string per output.

    Consecutive writes to one stream are joined (how the kernel splits them into
    messages depends on timing); rich outputs are compared by their text
    representations, binary ones (images) by their type only; errors by their
    name and message (the traceback holds terminal colours and file paths).
    """
    out: list[str] = []
    stream: str | None = None
    for o in cell.get("outputs", []):
        kind = o["output_type"]
        if kind == "stream":
            if o["name"] in IGNORED_STREAMS:
                continue
            text = normalize(_text(o["text"]))
            if stream == o["name"]:
                out[-1] += text
            else:
                out.append(f"[{o['name']}]\n" + text)
            stream = o["name"]
            continue
        stream = None
        if kind in ("execute_result", "display_data"):
            parts = []
            for mime, value in sorted(o.get("data", {}).items()):
                if mime.startswith("text/") or mime.endswith(("json", "+xml")):
                    parts.append(f"[{mime}]\n" + normalize(_text(value)))
                else:
                    parts.append(f"[{mime}]")
            out.append("\n".join(parts))
        elif kind == "error":
            out.append(f"[error] {o['ename']}: {normalize(o['evalue'])}")
        else:
            out.append(f"[{kind}]")
    return out


def drift(stored: Any, fresh: Any, name: str = "notebook") -> list[str]:
    """How the outputs of a fresh run differ from the stored ones: one readable
    message per differing code cell (empty when they agree)."""
    problems: list[str] = []
    old_cells = [c for c in stored.cells if c.cell_type == "code"]
    new_cells = [c for c in fresh.cells if c.cell_type == "code"]
    if [c.source for c in old_cells] != [c.source for c in new_cells]:
        return [f"{name}: the code cells differ (not the same notebook)"]
    for i, (old, new) in enumerate(zip(old_cells, new_cells, strict=True), 1):
        a, b = normalized_outputs(old), normalized_outputs(new)
        if a == b:
            continue
        first = old.source.strip().splitlines()[0] if old.source.strip() else ""
        diff = difflib.unified_diff("\n".join(a).splitlines(), "\n".join(b).splitlines(),
                                    "stored", "fresh run", lineterm="", n=1)
        problems.append(f"{name}, code cell {i} ({first!r}): the stored output is stale\n"
                        + "\n".join(diff))
    return problems


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    import nbformat

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", help="notebook files (default: all)")
    parser.add_argument("--check", action="store_true",
                        help="execute without writing the outputs back; fail if any output "
                             "differs from the stored one")
    args = parser.parse_args(argv)
    paths = [Path(p) if Path(p).exists() else NOTEBOOKS / p for p in args.notebooks] \
        or notebook_paths()
    status = 0
    for path in paths:
        print(f"executing {path.name} ...", flush=True)
        nb = execute(path)
        if args.check:
            problems = drift(nbformat.read(path, as_version=4), nb, path.name)
            for p in problems:
                print(p, file=sys.stderr)
            if problems:
                status = 1
        else:
            nbformat.write(nb, path)
    if status:
        print("stale outputs: run 'python notebooks/run_notebooks.py' to refresh them",
              file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
