"""Every part of PyTorch that symshape.torch uses beyond ``torch.export``'s
documented API, in one place.

* ``torch.export.ExportedProgram._guards_code`` (the Python guards that
  ``ep.module()`` checks), read by :func:`guards_code`; absent -> no guards.
* ``node.meta["val"]`` of placeholders, outputs and ``_assert_scalar``
  conditions (fake tensors, ``SymInt``/``SymBool``), and ``SymInt.node.expr``
  (the sympy expression behind a symbolic size), read by :func:`sym_expr`.
* ``torch.ops.aten._assert_scalar.default``, the target of run-time assertions,
  and the fx nodes of their conditions (``aten.sym_size.int``, ``operator.*``,
  ``torch.sym_max``/``sym_min``/``sym_not``), named by :func:`target_name`
  through ``OpOverload._schema``.
* The text of ``torch._dynamo.exc.UserError`` /
  ``torch.fx.experimental.symbolic_shapes.ConstraintViolationError`` messages
  ("Not all values of ... satisfy the generated guard ..."), parsed by
  :mod:`symshape.torch.guards`.

A feature whose internals moved raises :class:`TorchInternalsError` naming them, the
installed torch and the tested range (declared once, in ``symshape._versions.TORCH``);
a torch older than that range is refused at import.
"""

from __future__ import annotations

from typing import Any

import torch

from symshape import _versions
from symshape.errors import SymshapeError

TORCH_VERSION: str = torch.__version__
"""The version of the installed torch."""

TESTED_TORCH_VERSION = _versions.TORCH.newest
"""The newest torch release symshape.torch is tested with; the whole tested range is
declared once in ``symshape._versions.TORCH`` (and is what the ``torch`` extra admits)."""


class TorchInternalsError(SymshapeError):
    """A PyTorch internal that symshape.torch relies on is missing or changed."""


def tested_range() -> str:
    """What was tested, against what is installed (the tail of the version messages)."""
    return _versions.tested_range(_versions.TORCH, TORCH_VERSION)


if _versions.position(_versions.TORCH, TORCH_VERSION) == "older":
    raise TorchInternalsError(
        f"symshape.torch needs torch >= {_versions.TORCH.oldest}: {tested_range()}. "
        f"Install a tested release: pip install '{_versions.TORCH.requirement()}'")


def sym_expr(x: Any) -> Any:
    """The sympy expression of a ``SymInt``/``SymBool`` (an int/bool is returned as is)."""
    if isinstance(x, bool | int):
        return x
    node = getattr(x, "node", None)
    expr = getattr(node, "expr", None)
    if expr is None:
        raise TorchInternalsError(
            f"cannot read the sympy expression of {x!r} (the torch internal "
            f"SymInt.node.expr is missing): {tested_range()}")
    return expr


def guards_code(ep: Any) -> list[str]:
    """The Python guards of an ``ExportedProgram`` (``ep._guards_code``), or []."""
    code = getattr(ep, "_guards_code", None)
    return list(code) if isinstance(code, list | tuple) else []


def is_assert_scalar(target: Any) -> bool:
    """Is an fx node target ``aten._assert_scalar``?"""
    return target is torch.ops.aten._assert_scalar.default


FxNode = torch.fx.Node
"""An fx graph node (``torch.fx.Node``)."""


def target_name(node: Any) -> str:
    """A short name of an fx node's target: ``add`` for ``operator.add``,
    ``sym_size`` for ``aten.sym_size.int``, ``sym_max`` for ``torch.sym_max``."""
    t = node.target
    if isinstance(t, torch._ops.OpOverload):
        return str(t._schema.name).split("::")[-1]
    name = getattr(t, "__name__", str(t))
    return str(name)


def error_message(err: BaseException) -> str:
    """The message of an export error, without torch's trailing advice."""
    text = str(err)
    cut = text.find("The error above occurred when calling torch.export.export")
    return text[:cut] if cut >= 0 else text


__all__ = ["TESTED_TORCH_VERSION", "TORCH_VERSION", "FxNode", "TorchInternalsError",
           "error_message", "guards_code", "is_assert_scalar", "sym_expr", "target_name",
           "tested_range"]
