"""Argument trees: naming the leaves of nested spec containers and matching shapes to them.

Specs may be a sequence (one spec per argument) or a dict, nested through tuples, lists
and dicts like a JAX pytree (dict keys in sorted order).  A leaf is a spec string or a
tuple/list of ``int | DimExpr``; its display name is the path from ``args``, e.g.
``args[0]['x']``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from symshape.algebra.dimexpr import DimExpr, as_int
from symshape.echo import clip
from symshape.errors import ShapeMismatchError, SymshapeError

# A tree node: ("leaf", index) | ("seq", [children]) | ("dict", [keys], [children])
Node = tuple[Any, ...]


def _is_dim(x: Any) -> bool:
    return isinstance(x, DimExpr) or (not isinstance(x, bool) and as_int(x) is not None)


def _is_spec_leaf(x: Any) -> bool:
    if isinstance(x, str):
        return True
    # A tuple with any dimension in it is meant as a spec (bad entries are reported
    # by the parser of tuple specs); () is the spec of a scalar.
    return isinstance(x, tuple | list) and (not x or any(_is_dim(d) for d in x))


def flatten_specs(specs: Any) -> tuple[Node, list[tuple[str, Any]]]:
    """The tree of ``specs`` and its leaves as ``(display name, spec)`` in flat order.

    Raises:
      SymshapeError: for a spec container of the wrong kind or a bad leaf.
    """
    if isinstance(specs, str):
        raise SymshapeError(
            f"ShapeCheck takes one spec per argument (a sequence or a dict), got the "
            f"string {specs!r}; for one argument write [{specs!r}]")
    if not isinstance(specs, Sequence | Mapping):
        raise SymshapeError(
            f"ShapeCheck takes one spec per argument (a sequence or a dict), got {specs!r}")
    if isinstance(specs, tuple | list) and specs and all(_is_dim(d) for d in specs):
        raise SymshapeError(
            f"ShapeCheck takes one spec per argument, but {tuple(specs)!r} looks like a "
            f"single shape; for one argument write [{tuple(specs)!r}]")
    leaves: list[tuple[str, Any]] = []

    def rec(x: Any, name: str, top: bool) -> Node:
        if not top and _is_spec_leaf(x):
            leaves.append((name, x))
            return ("leaf", len(leaves) - 1)
        if isinstance(x, Mapping):
            keys = _sorted_keys(x, name)
            return ("dict", keys, [rec(x[k], f"{name}[{k!r}]", False) for k in keys])
        if isinstance(x, tuple | list):
            return ("seq", [rec(v, f"{name}[{i}]", False) for i, v in enumerate(x)])
        if x is None:
            raise SymshapeError(
                f"{name}: the spec None (any shape) cannot be used in a ShapeCheck: "
                "every dimension needs a spec")
        raise SymshapeError(
            f"{name}: a spec must be a string or a tuple of ints and symbolic dimensions, "
            f"got {x!r}")

    tree = rec(specs, "args", True)
    return tree, leaves


def _sorted_keys(d: Mapping[Any, Any], name: str) -> list[Any]:
    try:
        return sorted(d)
    except TypeError:
        raise SymshapeError(f"{name}: dict keys must be sortable (as in a JAX pytree), got "
                            f"{list(d)!r}") from None


def _as_shape(x: Any, name: str) -> tuple[Any, ...]:
    if isinstance(x, tuple):
        return x
    shape = getattr(x, "shape", None)
    if shape is not None:
        return tuple(shape)
    if isinstance(x, list):
        return tuple(x)
    raise ShapeMismatchError(
        f"{name}: expected a shape (a tuple of ints) or an array with .shape, got {x!r}")


def flatten_shapes(tree: Node, names: Sequence[str], shapes: Any) -> list[tuple[Any, ...]]:
    """The shapes of the leaves of ``tree``, read from ``shapes``.

    ``shapes`` has the structure of the specs (a leaf is a tuple of sizes or an object
    with ``.shape``), or is a flat sequence with one shape per leaf.

    Raises:
      ShapeMismatchError: when the structure does not match.
    """
    n = len(names)
    out: list[tuple[Any, ...]] = []

    def rec(node: Node, x: Any, name: str) -> None:
        kind = node[0]
        if kind == "leaf":
            out.append(_as_shape(x, name))
            return
        if kind == "seq":
            kids = node[1]
            if not isinstance(x, tuple | list) or len(x) != len(kids):
                raise _StructureError(
                    f"{name}: expected a sequence of {len(kids)} item(s), got {clip(repr(x))}")
            for i, (k, v) in enumerate(zip(kids, x, strict=True)):
                rec(k, v, f"{name}[{i}]")
            return
        keys, kids = node[1], node[2]
        if not isinstance(x, Mapping) or set(x) != set(keys):
            raise _StructureError(
                f"{name}: expected a dict with keys {keys!r}, got {clip(repr(x))}")
        for key, k in zip(keys, kids, strict=True):
            rec(k, x[key], f"{name}[{key!r}]")

    try:
        rec(tree, shapes, "args")
        return out
    except _StructureError as err:
        if isinstance(shapes, tuple | list) and len(shapes) == n and tree[0] != "leaf":
            # A flat sequence with one shape per argument.
            return [_as_shape(x, nm) for x, nm in zip(shapes, names, strict=True)]
        raise ShapeMismatchError(
            f"the shapes do not have the structure of the specs ({err}); pass shapes with "
            f"the same nesting as the specs, or a flat sequence of {n} shape(s) for "
            f"{', '.join(names) if names else 'no arguments'}") from None


class _StructureError(Exception):
    pass


__all__ = ["flatten_shapes", "flatten_specs"]
