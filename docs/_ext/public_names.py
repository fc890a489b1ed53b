"""A griffe extension for the API reference: a re-exported name means what Python binds.

``symshape/decision/__init__.py`` does ``from symshape.decision.prove import prove``: at
runtime that rebinds the attribute ``symshape.decision.prove`` from the submodule to the
function, so ``symshape.prove`` is the function.  griffe, reading the source, keeps the
submodule under that name, so ``::: symshape.prove`` would render the module (with its
internal helpers).  This points each alias of a package's public names whose target is
such a shadowed submodule at the import that shadows it, so the reference renders
``symshape.prove`` as users import and call it.
"""

from __future__ import annotations

from typing import Any

import griffe


def _runtime_target(alias: griffe.Alias, pkg: griffe.Module) -> str | None:
    """The path the alias refers to at runtime, when griffe's target is a submodule that an
    import of the same name in its parent package shadows; else None."""
    parent_path, _, name = alias.target_path.rpartition(".")
    try:
        parent = pkg.modules_collection[parent_path]
    except KeyError:
        return None
    member = parent.members.get(name)
    if not (isinstance(parent, griffe.Module) and isinstance(member, griffe.Module)):
        return None
    target = parent.imports.get(name)
    if target is None or target == alias.target_path:
        return None
    return target


class PublicNames(griffe.Extension):
    """Retarget a package's aliases of shadowed submodules at the shadowing import."""

    def on_package(self, *, pkg: griffe.Module, loader: Any, **kwargs: Any) -> None:
        for member in pkg.members.values():
            if isinstance(member, griffe.Alias):
                target = _runtime_target(member, pkg)
                if target is not None:
                    member.target_path = target
                    member._target = None  # resolved again, lazily, from the new path
