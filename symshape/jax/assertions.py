"""Runtime shape assertions in traced JAX code, from symshape's shape-check plan."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

from symshape.errors import ShapeMismatchError
from symshape.jax import _internals as jx
from symshape.jax.ir import Runner
from symshape.scope import SymbolicScope
from symshape.shapecheck import ShapeCheck
from symshape.shapecheck.tree import flatten_shapes, flatten_specs


def _freeze(x: Any) -> Any:
    """A hashable key for specs made of strings, sequences and dicts (else None)."""
    if isinstance(x, str):
        return x
    if isinstance(x, tuple | list):
        parts = [_freeze(v) for v in x]
        return None if any(p is None for p in parts) else (type(x).__name__, tuple(parts))
    if isinstance(x, dict):
        try:
            keys = sorted(x)
        except TypeError:
            return None
        parts = [_freeze(x[k]) for k in keys]
        return None if any(p is None for p in parts) else ("dict", tuple(keys), tuple(parts))
    return None


class _Unhashed:
    """Carries the specs through the lru_cache without taking part in the key."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __hash__(self) -> int:
        return 0

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Unhashed)


@functools.lru_cache(maxsize=512)
def _cached_check(key: Any, constraints: tuple[str, ...], holder: _Unhashed) -> ShapeCheck:
    del key  # only the cache key: holder carries the (equal) specs themselves
    return ShapeCheck(holder.value, constraints=constraints)


def _shape_check(specs: Any, constraints: Iterable[str], scope: SymbolicScope | None
                 ) -> ShapeCheck:
    """The ShapeCheck of ``specs``, cached for specs made of strings (a traced
    function is traced again for every new shape)."""
    if scope is None and not isinstance(constraints, str):
        constraints = tuple(constraints)
        key = _freeze(specs)
        if key is not None and all(isinstance(c, str) for c in constraints):
            return _cached_check(key, constraints, _Unhashed(specs))
    return ShapeCheck(specs, constraints=constraints, scope=scope)


def assert_shapes(arrays: Any, specs: Any, *, constraints: Iterable[str] = (),
                  scope: SymbolicScope | None = None) -> None:
    """Check the shapes of ``arrays`` against symshape ``specs`` inside traced JAX code.

    The dimension variables of the specs are solved from the arrays' sizes by
    symshape's shape-check plan (they are local to this check, unrelated to
    the variables of ``jax.export``).  Each assertion of the plan is

    * dropped when it holds for every shape allowed by the trace (decided
      with JAX's procedure, or symshape's inside :func:`symshape.jax.decisions`),
    * raised at once as :class:`~symshape.ShapeMismatchError` when it fails for
      the traced shapes, and
    * otherwise emitted as a JAX ``shape_assertion`` operation, which lowers to
      ``stablehlo.custom_call @shape_assertion`` with symshape's message and is
      checked when the exported function is called with concrete shapes.

    Args:
      arrays: the arrays (or anything with ``.shape``), with the structure of
        ``specs`` or as a flat sequence with one array per spec; or one array
        when ``specs`` is one spec string.
      specs: as for :class:`symshape.ShapeCheck`: one spec per array, in a
        sequence or dict, e.g. ``["b, 2*h", "h"]``, or one spec string for one
        array (``assert_shapes(x, "b, 128*k")``); placeholders (``"b, _, ..."``)
        take the traced sizes and are not checked.
      constraints: constraints of a new scope for the specs (exclusive with ``scope``).
      scope: the :class:`symshape.SymbolicScope` of the specs.

    Raises:
      ShapeMismatchError: for a wrong rank, or an assertion that fails statically.
      ParseError, UnsolvableSpecsError: for bad specs.
    """
    jx.require("assertions")
    if isinstance(specs, str):  # one array, one spec
        arrays, specs = [arrays], [specs]
    check = _shape_check(specs, constraints, scope)
    tree, _leaves = flatten_specs(specs)
    shapes = flatten_shapes(tree, check.arg_names, arrays)
    try:
        # Placeholders ('_', '...') are filled from the traced shapes.
        program = check.program_for([len(s) for s in shapes])
    except ShapeMismatchError as err:
        listed = ", ".join(f"{n}: {tuple(s)}" for n, s in zip(check.arg_names, shapes,
                                                               strict=True))
        raise ShapeMismatchError(f"{err} (the shapes: {listed})") from None

    def dim_value(arg: int, axis: int) -> Any:
        return shapes[arg][axis]

    Runner(program, dim_value, allow_runtime=True).emit_assertions()


__all__ = ["assert_shapes"]
