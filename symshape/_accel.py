"""Which build of the core modules is imported: compiled or pure Python.

Where a C compiler was found at install time, modules of the core are also
compiled with mypyc (see ``hatch_build.py``): the same source, faster.  The
interpreter prefers an extension module to the ``.py`` beside it, so this
module (imported first by the package) decides instead, before anything
imports the core.  The pure source is loaded when

* ``SYMSHAPE_PURE_PYTHON=1`` is set (how the tests run both builds), or
* a compiled module was built from other source than the ``.py`` beside it
  (the stamp written at build time records its digest): an edited checkout
  installed in editable mode then runs what it reads, never a stale build.
  The compiled modules are one unit: when one is stale, all load from source.

Standard library only; it runs at every ``import symshape``.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from pathlib import Path

PURE_ENV = "SYMSHAPE_PURE_PYTHON"
_PKG = Path(__file__).resolve().parent
_STAMP = _PKG / "_compiled.json"
_candidates: list[str] = []  # modules with both an extension module and a .py here


def _extension_sources() -> dict[str, Path]:
    """The modules (dotted names) with an extension module beside their source
    in the package or its subpackages, and that source."""
    found = {}
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        for p in _PKG.rglob("*" + suffix):
            source = p.with_name(p.name[: -len(suffix)] + ".py")
            if source.exists():
                parts = source.relative_to(_PKG).with_suffix("").parts
                found[".".join((__package__, *parts))] = source
    return found


class _SourceFirst(importlib.abc.MetaPathFinder):
    """Finds the listed modules' ``.py`` files ahead of their extension
    modules (the interpreter's own finder prefers the extension), wherever
    they are imported from: a module loaded from source that imports another
    listed one must get that one's source too."""

    def __init__(self, sources: dict[str, Path]) -> None:
        self.sources = sources

    def find_spec(self, name: str, path: object = None, target: object = None
                  ) -> importlib.machinery.ModuleSpec | None:
        source = self.sources.get(name)
        return None if source is None else importlib.util.spec_from_file_location(name, source)


def select_builds() -> None:
    """Make the compiled modules the ones imported when every one of them is
    current, else the pure source of all (see the module's docstring).  A
    compiled module that the stamp does not vouch for (no stamp, an
    unreadable one, or another digest) is never imported."""
    try:
        stamp = json.loads(_STAMP.read_text())
    except (OSError, ValueError):
        stamp = {}
    if not isinstance(stamp, dict):
        stamp = {}
    sources = _extension_sources()
    _candidates[:] = sorted(sources)
    # All or nothing: the compiled modules call each other's compiled code
    # directly, so one of them running from source would meet objects of
    # classes it does not know.
    pure = os.environ.get(PURE_ENV, "") not in ("", "0") or any(
        stamp.get(name) != hashlib.sha256(path.read_bytes()).hexdigest()
        for name, path in sources.items())
    if pure and sources:
        sys.meta_path.insert(0, _SourceFirst(sources))


def compiled_modules() -> tuple[str, ...]:
    """The modules of the package running compiled (empty: pure Python
    throughout)."""
    return tuple(n for n in _candidates
                 if not str(getattr(sys.modules.get(n), "__file__", ".py")).endswith(".py"))


select_builds()  # before anything imports the core (the package imports this first)
