"""The public API from text to shapes: ``symbolic_shape`` and ``resolve_scope``.

Building expressions from syntax trees is :mod:`symshape.build` (the algebra
layer, which scopes use for their constraints); its functions are re-exported
here for the adapters and interfaces that read specs.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from symshape import arguments
from symshape.build import (
    Dim,
    build,
    parse_comparison_in_scope,
    parse_expr_in_scope,
    shape_in_scope,
)
from symshape.collector import collector_paused
from symshape.errors import ArgumentError
from symshape.scope import SymbolicScope, resolve_scope


def symbolic_shape(spec: str | None, *, constraints: Iterable[str] = (),
                   scope: SymbolicScope | None = None,
                   like: Sequence[int | None] | None = None) -> tuple[Dim, ...]:
    """Parse a shape spec such as ``"b, 2*h + 1, ..."`` into a tuple of dimensions.

    Args:
      spec: comma-separated dimension expressions, optionally in parentheses,
        with placeholders ``_`` (one dimension taken from ``like``) and a final
        ``...`` (the remaining dimensions of ``like``).  ``None`` means ``"..."``.
      constraints: constraints for a new scope (exclusive with ``scope``).
      scope: an existing :class:`SymbolicScope` to build the dimensions in.
      like: a concrete shape (entries may be ``None`` for unknown) that fills
        the placeholders and must agree with the constant dimensions.

    Returns:
      A tuple of ``int`` (constant dimensions) and :class:`DimExpr`.
    """
    if spec is not None and not isinstance(spec, str):
        raise ArgumentError(f"symbolic_shape() expects the spec as a string (or None), got "
                            f"{type(spec).__name__} {spec!r:.80}")
    if like is not None:
        like = arguments.shape(like, "like")
    with collector_paused():  # (short-lived objects only: see symshape.collector)
        return shape_in_scope(spec, resolve_scope(constraints, scope), like)


__all__ = ["Dim", "build", "parse_comparison_in_scope", "parse_expr_in_scope", "resolve_scope",
           "symbolic_shape"]
