"""``symshape.torch.export``: ``torch.export.export`` from symshape specs, with
the constraints that ``Dim``s cannot express enforced by run-time checks."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import torch

from symshape.scope import SymbolicScope
from symshape.torch.checks import emit_checks
from symshape.torch.specs import ExportSpecs, export_specs, flatten_tree


class _FunctionModule(torch.nn.Module):
    """A module whose ``forward`` is a plain function (torch.export takes modules)."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *args: Any) -> Any:
        return self.fn(*args)


@contextlib.contextmanager
def _checked_forward(model: torch.nn.Module, es: ExportSpecs) -> Iterator[None]:
    """Run the specs' checks at the top of ``model.forward`` while exporting.

    The instance's ``forward`` is replaced (and restored), so the exported
    program keeps the model's parameter names; ``functools.wraps`` keeps the
    signature that torch.export binds the arguments with.
    """
    program = es.check.program
    original = model.forward

    @functools.wraps(original)
    def forward(*args: Any, **kwargs: Any) -> Any:
        leaves: list[tuple[Any, Any]] = []
        flatten_tree(tuple(args), (), leaves)
        sizes = [tuple(x.shape) for _, x in leaves if isinstance(x, torch.Tensor)]
        emit_checks(program, sizes)
        return original(*args, **kwargs)

    model.forward = forward
    try:
        yield
    finally:
        del model.forward


def export(model: Any, args: Any, shapes_specs: Any = None, *,
           constraints: Iterable[str] = (), scope: SymbolicScope | None = None,
           var_min: int = 2, strict: bool = False, specs: ExportSpecs | None = None,
           **export_kwargs: Any) -> Any:
    """``torch.export.export`` with symshape shape specs and constraints.

    The specs become ``dynamic_shapes`` (see :func:`export_specs`).  The example
    ``args`` are checked against the specs first (a clear
    :class:`~symshape.ShapeMismatchError` instead of a tracing error).  When some
    constraint or relation cannot be expressed by ``Dim``s (``a >= b + 8``,
    ``mod(b, 3) >= 1``, a dimension ``a + b``), the specs' shape check runs at the
    top of the traced ``forward`` as ``torch._check`` calls: torch uses them while
    tracing and keeps them as run-time assertions of the exported program, which
    then rejects inputs that violate them.

    Args:
      model: a ``torch.nn.Module`` (or a function, wrapped in one).
      args: the example positional arguments (a tuple).
      shapes_specs: as for :func:`export_specs`.
      constraints, scope, var_min: as for :func:`export_specs`.
      strict: passed to ``torch.export.export``.
      specs: ready :class:`ExportSpecs` (instead of ``shapes_specs``/``constraints``).
      export_kwargs: other keyword arguments of ``torch.export.export``.

    Returns:
      The ``torch.export.ExportedProgram``.

    Raises:
      ShapeMismatchError: when ``args`` do not match the specs.
      torch._dynamo.exc.UserError: torch's own error when the model needs more
        constraints; :func:`symshape.torch.explain` explains it.
    """
    module = model if isinstance(model, torch.nn.Module) else _FunctionModule(model)
    args_t = tuple(args) if isinstance(args, list | tuple) else (args,)
    es = specs if specs is not None else export_specs(
        args_t, shapes_specs, constraints=constraints, scope=scope, var_min=var_min,
        model=module)
    es.example = es.check_args(args_t)
    export_kwargs.setdefault("prefer_deferred_runtime_asserts_over_guards", True)
    call = functools.partial(torch.export.export, module, args_t,
                             dynamic_shapes=es.dynamic_shapes, strict=strict, **export_kwargs)
    if not es.unexpressed:
        return call()
    with _checked_forward(module, es):
        return call()


__all__ = ["export"]
