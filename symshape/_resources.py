"""Locate the lark grammar shipped with symshape.

The grammar has exactly one copy, in the repository's top-level ``grammar/``
folder. A wheel maps that folder to ``symshape/grammar`` (see pyproject.toml),
and a source checkout or editable install reads it from the repository.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def grammar_path(name: str) -> Path:
    """Return the path of the grammar file ``name`` (for example ``"symshape.lark"``)."""
    for folder in (_PACKAGE_DIR / "grammar", _PACKAGE_DIR.parent / "grammar"):
        candidate = folder / name
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(
        f"symshape grammar {name!r} not found next to the package ({_PACKAGE_DIR}); "
        "the installation is incomplete")


@cache
def grammar_text(name: str) -> str:
    """Return the text of the grammar file ``name``."""
    return grammar_path(name).read_text(encoding="utf-8")
