"""Execute the notebooks from a clean kernel, as CI does, and store their outputs.

    python notebooks/run_notebooks.py                 # re-execute all, write outputs in place
    python notebooks/run_notebooks.py --check         # execute only; fail on any error
    python notebooks/run_notebooks.py 01_tour.ipynb   # just these

Each notebook runs in a fresh ``python3`` kernel whose working directory is the
repository root and whose ``PYTHONPATH`` starts with it, so the notebooks import
this checkout of symshape even when it is not installed.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parent
ROOT = NOTEBOOKS.parent


def notebook_paths() -> list[Path]:
    """The notebooks of the repository, in reading order."""
    return sorted(NOTEBOOKS.glob("*.ipynb"))


def execute(path: Path, *, timeout: int = 600) -> object:
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
    return nb


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    import nbformat

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", help="notebook files (default: all)")
    parser.add_argument("--check", action="store_true",
                        help="execute without writing the outputs back")
    args = parser.parse_args(argv)
    paths = [Path(p) if Path(p).exists() else NOTEBOOKS / p for p in args.notebooks] \
        or notebook_paths()
    for path in paths:
        print(f"executing {path.name} ...", flush=True)
        nb = execute(path)
        if not args.check:
            nbformat.write(nb, path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
