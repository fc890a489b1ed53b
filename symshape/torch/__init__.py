"""symshape for PyTorch: one spec language for ``torch.export``.

Install with the optional extra ``symshape[torch]``.  ``import symshape``
never imports torch or sympy; this subpackage does.

Specs to torch.export:
  :func:`export_specs` -- symshape spec strings and constraints as
  ``torch.export.Dim``s (an :class:`ExportSpecs`); :func:`dynamic_shapes` --
  just the ``dynamic_shapes`` argument, warning about what ``Dim``s cannot
  express; :func:`export` -- ``torch.export.export`` with every constraint
  enforced (run-time checks for what ``Dim``s cannot express).

Reading exports back:
  :func:`from_torch` -- an ``ExportedProgram``'s shapes as symshape shapes;
  :func:`explain` -- its guards (or a failed export's complaints) decided by
  symshape, with proofs, counterexamples and suggested constraints.

>>> import torch, symshape.torch as st                              # doctest: +SKIP
>>> ep = st.export(model, (torch.zeros(8, 3),), ["b, 3"], constraints=["b <= 64"])
"""

from symshape.torch._internals import TESTED_TORCH_VERSION, TORCH_VERSION, TorchInternalsError
from symshape.torch.convert import TorchShapes, from_torch
from symshape.torch.explain import Explanation, GuardReport, Suggestion, explain
from symshape.torch.export import export
from symshape.torch.guards import GuardParseError
from symshape.torch.specs import (
    ExportSpecs,
    InputDim,
    Root,
    UnexpressedConstraintsWarning,
    dynamic_shapes,
    export_specs,
)

__all__ = [
    "TESTED_TORCH_VERSION",
    "TORCH_VERSION",
    "Explanation",
    "ExportSpecs",
    "GuardParseError",
    "GuardReport",
    "InputDim",
    "Root",
    "Suggestion",
    "TorchInternalsError",
    "TorchShapes",
    "UnexpressedConstraintsWarning",
    "dynamic_shapes",
    "explain",
    "export",
    "export_specs",
    "from_torch",
]
