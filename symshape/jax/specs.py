"""Argument specs for ``jax.export`` written in symshape's grammar, and the
shapes of an ``Exported`` read back as symshape shapes."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

import jax

from symshape.errors import ParseError, SymshapeError
from symshape.jax import _internals as jx
from symshape.jax.convert import from_jax, to_jax
from symshape.scope import SymbolicScope
from symshape.shapes import Dim, resolve_scope, symbolic_shape


def _with_context(err: SymshapeError, where: str) -> SymshapeError:
    if isinstance(err, ParseError):
        return ParseError(f"{where}: {err.reason}", text=err.text, column=err.column,
                          expected=err.expected)
    return type(err)(f"{where}: {err}")


def _shape_and_dtype(x: Any, where: str) -> tuple[tuple[int, ...], Any]:
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        shape, dtype = x.shape, x.dtype
    else:
        try:
            aval = jax.typeof(x)
        except TypeError:
            raise SymshapeError(f"{where}: expected an array or jax.ShapeDtypeStruct, "
                                f"got {x!r}") from None
        shape, dtype = aval.shape, aval.dtype
    if any(jx.is_jax_dim_expr(d) for d in shape):
        raise SymshapeError(f"{where}: the argument already has a symbolic shape {shape}; "
                            "args_specs fills placeholders from concrete shapes")
    return tuple(int(d) for d in shape), dtype


def args_specs(args: Any, shapes_specs: Any, *, constraints: Iterable[str] = (),
               scope: SymbolicScope | None = None) -> Any:
    """A pytree of ``jax.ShapeDtypeStruct`` for ``jax.export.export(jax.jit(f))``.

    Like ``jax.export.symbolic_args_specs`` but with symshape's grammar, errors
    and scope.

    Args:
      args: a pytree of arrays or ``jax.ShapeDtypeStruct``; gives the pytree
        structure, the dtypes and the dimensions that fill placeholders.
      shapes_specs: ``None`` (static shapes), one spec string for every
        argument, or a pytree prefix of ``args`` whose leaves are spec strings
        (``"b, 2*h + 1, ..."``) or ``None``.  ``_`` takes one dimension from
        the argument, a final ``...`` the rest.
      constraints: constraints of a new symshape scope (exclusive with ``scope``).
      scope: a :class:`symshape.SymbolicScope` to build the dimensions in.

    Returns:
      ``args`` with every leaf replaced by a ``jax.ShapeDtypeStruct`` whose
      symbolic dimensions live in the JAX scope paired with the symshape scope
      (see :func:`symshape.jax.to_jax`).

    Raises:
      ParseError, SymshapeError: for a malformed spec, a spec that does not fit
        its argument, or ``shapes_specs`` that is not a prefix of ``args``; the
        message names the argument (``args[1]['w']``).
    """
    sc = resolve_scope(constraints, scope)
    leaves_with_path, tree = jax.tree_util.tree_flatten_with_path(args)
    if isinstance(args, tuple) and isinstance(shapes_specs, list):
        shapes_specs = tuple(shapes_specs)  # as jax.export.symbolic_args_specs accepts
    if shapes_specs is None or isinstance(shapes_specs, str):
        specs_flat: list[Any] = [shapes_specs] * len(leaves_with_path)
    else:
        try:
            full = jax.tree.broadcast(shapes_specs, args, is_leaf=lambda x: x is None)
        except ValueError as err:
            raise SymshapeError(
                "shapes_specs must be None, a spec string or a pytree prefix of args "
                f"whose leaves are spec strings or None; {err}") from None
        specs_flat = jax.tree.leaves(full, is_leaf=lambda x: x is None)
        if len(specs_flat) != len(leaves_with_path):
            raise SymshapeError(
                f"shapes_specs {shapes_specs!r} does not match the structure of args "
                f"({len(specs_flat)} specs for {len(leaves_with_path)} arguments)")
    out = []
    for (path, leaf), spec in zip(leaves_with_path, specs_flat, strict=True):
        where = f"args{jax.tree_util.keystr(path)}"
        shape, dtype = _shape_and_dtype(leaf, where)
        if spec is None:
            dims: tuple[Dim, ...] = shape
        elif isinstance(spec, str):
            try:
                dims = symbolic_shape(spec, scope=sc, like=shape)
            except SymshapeError as err:
                raise _with_context(err, f"shape spec {spec!r} for {where} of shape "
                                    f"{shape}") from None
        else:
            raise SymshapeError(f"the shape spec for {where} must be a string or None, "
                                f"got {spec!r}")
        out.append(jax.ShapeDtypeStruct(to_jax(dims), dtype))
    to_jax(sc)  # pair the scope even when every shape is static
    return jax.tree_util.tree_unflatten(tree, out)


class ExportedShapes(NamedTuple):
    """The flat input and output shapes of an ``Exported``, as symshape shapes."""

    in_shapes: tuple[tuple[Dim, ...], ...]
    out_shapes: tuple[tuple[Dim, ...], ...]


def shapes(exported: Any) -> ExportedShapes:
    """The shapes of ``exported.in_avals`` and ``exported.out_avals`` as symshape
    shapes, all in the symshape scope paired with the exported scope."""
    ins = tuple(from_jax(tuple(a.shape)) for a in exported.in_avals)
    outs = tuple(from_jax(tuple(a.shape)) for a in exported.out_avals)
    return ExportedShapes(ins, outs)


__all__ = ["ExportedShapes", "args_specs", "shapes"]
