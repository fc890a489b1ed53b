"""Which build of the core modules is imported: compiled or pure Python.

Where a C compiler was found at install time, modules of the core are also
compiled with mypyc (see ``hatch_build.py``): the same source, faster.  The
interpreter prefers an extension module to the ``.py`` beside it, so this
module (imported first by the package) decides instead, before anything
imports the core.  The pure source is loaded when

* ``SYMSHAPE_PURE_PYTHON=1`` is set (how the tests run both builds), or
* the compiled module was built from other source than the ``.py`` beside it
  (the stamp written at build time records its digest): an edited checkout
  installed in editable mode then runs what it reads, never a stale build.

Standard library only; it runs at every ``import symshape``.
"""

from __future__ import annotations

import hashlib
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


def _extension_stems() -> set[str]:
    """Module names (within the package) of the extension modules beside their source."""
    stems = set()
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        for p in _PKG.glob("*" + suffix):
            stem = p.name[: -len(suffix)]
            if (_PKG / (stem + ".py")).exists():
                stems.add(stem)
    return stems


def _load_source(name: str, path: Path) -> None:
    """Import ``name`` from its ``.py`` file, ahead of the compiled module."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise


def select_builds() -> None:
    """Make the compiled modules that are current the ones imported, and the
    pure source of every other (see the module's docstring).  A compiled
    module that the stamp does not vouch for (no stamp, an unreadable one, or
    another digest) is never imported."""
    try:
        stamp = json.loads(_STAMP.read_text())
    except (OSError, ValueError):
        stamp = {}
    if not isinstance(stamp, dict):
        stamp = {}
    pure = os.environ.get(PURE_ENV, "") not in ("", "0")
    _candidates[:] = sorted(f"{__package__}.{stem}" for stem in _extension_stems())
    for name in _candidates:
        if name in sys.modules:
            continue
        source = _PKG / (name.rpartition(".")[2] + ".py")
        if pure or stamp.get(name) != hashlib.sha256(source.read_bytes()).hexdigest():
            _load_source(name, source)


def compiled_modules() -> tuple[str, ...]:
    """The modules of the package running compiled (empty: pure Python
    throughout)."""
    return tuple(n for n in _candidates
                 if not str(getattr(sys.modules.get(n), "__file__", ".py")).endswith(".py"))


select_builds()  # before anything imports the core (the package imports this first)
