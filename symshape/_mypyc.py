"""The one name of ``mypy_extensions`` the core uses, without importing it.

``mypyc_attr`` tells mypyc, when it compiles a module (see ``hatch_build.py``),
which classes to leave as ordinary Python classes.  mypy and mypyc resolve it
to ``mypy_extensions.mypyc_attr``; at run time it is a decorator that changes
nothing, so neither the pure-Python package nor the compiled one needs
``mypy_extensions`` installed.  (This module is never compiled.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mypy_extensions import mypyc_attr as mypyc_attr
else:
    def mypyc_attr(*attrs: str, **kwattrs: object) -> object:
        """Return a class decorator that returns the class unchanged."""
        return lambda cls: cls
