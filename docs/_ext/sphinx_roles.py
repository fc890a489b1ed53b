"""A griffe extension for the API reference: render Sphinx roles in docstrings.

symshape's docstrings use reStructuredText roles such as ``:class:`~symshape.SymbolicScope```
(readable in ``help()``); mkdocstrings would print them literally.  This turns each into a
Markdown code span with the name as written (``~`` keeps only the last component).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|data|attr|exc|obj):`(~?)([^`]+)`")


def _code(m: re.Match[str]) -> str:
    name = m.group(2)
    if m.group(1):
        name = name.rsplit(".", 1)[-1]
    return f"`{name}`"


class SphinxRoles(griffe.Extension):
    """Rewrite Sphinx roles in every docstring as Markdown code spans."""

    def on_instance(self, *, node: Any, obj: griffe.Object, agent: Any, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = _ROLE.sub(_code, obj.docstring.value)
