"""Shape annotations and where they sit in the arguments of a function.

An annotation ``Annotated[T, Shape("b, d")]`` (or its spelling ``Shaped[T,
"b, d"]``) marks an array.  A function's annotations are read once into a tree
of :class:`Node` per parameter (containers, dataclass fields, optional
values); each call then walks the values along that tree and collects the
shape of every marked array with a name that says where it is (``x``,
``batch[0]``, ``params.w``).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Union, get_args, get_origin

from symshape.errors import ShapeMismatchError, SymshapeError
from symshape.typing.dims import ArraySpec, Syntax, read_spec
from symshape.typing.dtypes import FAMILIES, Dtypes, dtype_name, dtypes_of


@dataclass(frozen=True)
class Shape:
    """The shape of an array, as the metadata of ``typing.Annotated``.

    ``Annotated[np.ndarray, Shape("b, 2*h + 1")]`` is an ``np.ndarray`` to
    static type checkers and, to :func:`~symshape.typing.shapecheck`, an array
    whose shape must match the spec.

    Args:
      spec: a shape string in symshape's syntax (``"b, 2*h + 1"``) or
        jaxtyping's (``"batch channels"``); see :mod:`symshape.typing.dims`.
      syntax: ``"auto"`` (default), ``"symshape"`` or ``"jaxtyping"``.
      dtype: the dtypes allowed, if not all: a family (``Float``, ``"Float"``),
        a dtype name (``"float32"``) or a list of names.

    Raises:
      ParseError: for a malformed spec (when the annotation is made).
      SymshapeError: for a ``dtype`` that is none of these.
    """

    spec: str
    syntax: Syntax = "auto"
    dtype: Any = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "parsed", read_spec(self.spec, self.syntax))
        if isinstance(self.dtype, list | set | frozenset):  # hashable, as metadata must be
            object.__setattr__(self, "dtype", tuple(self.dtype))
        object.__setattr__(self, "allowed",
                           None if self.dtype is None else dtypes_of(self.dtype))

    @property
    def array_spec(self) -> ArraySpec:
        """The parsed spec."""
        parsed: ArraySpec = self.__dict__["parsed"]
        return parsed

    @property
    def dtypes(self) -> Dtypes | None:
        """The dtypes allowed (``None``: any)."""
        allowed: Dtypes | None = self.__dict__["allowed"]
        return allowed


def _annotation(family: str, dtypes: Dtypes | None, item: Any) -> Any:
    """``Family[T, "spec"]`` as ``Annotated[T, Shape("spec", dtype=...)]``."""
    if isinstance(item, str):
        return Annotated[Any, Shape(item, dtype=dtypes)]
    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], str):
        return Annotated[item[0], Shape(item[1], dtype=dtypes)]
    raise SymshapeError(f"write {family}[ArrayType, 'spec'] or {family}['spec'], got "
                        f"{family}[{item!r}]")


class _Family:
    """The annotations ``Shaped``, ``Float``, ...: ``Family[T, "spec"]`` is
    ``Annotated[T, Shape("spec", dtype=...)]``."""

    dtypes: Dtypes | None = None

    def __class_getitem__(cls, item: Any) -> Any:
        return _annotation(cls.__name__, cls.dtypes, item)

    def __init__(self) -> None:
        name = type(self).__name__
        raise SymshapeError(f"{name} is used in annotations, {name}[ArrayType, 'spec']")


def _family(name: str) -> Any:
    """The annotation class of the dtype family ``name``."""
    dtypes = FAMILIES[name]
    doc = (f"``{name}[T, \"b, d\"]``: an array of that shape whose dtype is one of "
           f"{dtypes.shown} (``Annotated[T, Shape(\"b, d\", dtype=\"{name}\")]``).")
    return type(name, (_Family,), {"dtypes": dtypes, "__doc__": doc,
                                   "__module__": __name__, "__qualname__": name})


if TYPE_CHECKING:
    # To static type checkers, Float[T, "b, d"] is the type T: each name is Annotated
    # itself (imported under the name: mypy takes an assignment for a variable, and
    # accepts the string metadata only this way).
    from typing import Annotated as BFloat16
    from typing import Annotated as Bool
    from typing import Annotated as Complex
    from typing import Annotated as Complex64
    from typing import Annotated as Complex128
    from typing import Annotated as Float
    from typing import Annotated as Float16
    from typing import Annotated as Float32
    from typing import Annotated as Float64
    from typing import Annotated as Inexact
    from typing import Annotated as Int
    from typing import Annotated as Int8
    from typing import Annotated as Int16
    from typing import Annotated as Int32
    from typing import Annotated as Int64
    from typing import Annotated as Integer
    from typing import Annotated as Num
    from typing import Annotated as Real
    from typing import Annotated as Shaped
    from typing import Annotated as UInt
    from typing import Annotated as UInt8
    from typing import Annotated as UInt16
    from typing import Annotated as UInt32
    from typing import Annotated as UInt64
else:
    class Shaped(_Family):
        """``Shaped[T, "b, d"]`` is ``Annotated[T, Shape("b, d")]``: an array of that
        shape, of any dtype.

        ``Shaped["b, d"]`` is ``Annotated[Any, Shape("b, d")]`` (for readers; static
        type checkers understand the first form only).  The annotations of a dtype
        family, with jaxtyping's names and dtypes (``Float``, ``Int``, ``Bool``,
        ``Float32``, ...), are written the same way and check the dtype too:
        ``Float[T, "b, d"]`` is ``Annotated[T, Shape("b, d", dtype="Float")]``.
        """

    Bool, UInt, Int, Integer = (_family(n) for n in ("Bool", "UInt", "Int", "Integer"))
    Float, Complex, Inexact, Real, Num = (
        _family(n) for n in ("Float", "Complex", "Inexact", "Real", "Num"))
    UInt8, UInt16, UInt32, UInt64 = (_family(f"UInt{n}") for n in (8, 16, 32, 64))
    Int8, Int16, Int32, Int64 = (_family(f"Int{n}") for n in (8, 16, 32, 64))
    BFloat16, Float16, Float32, Float64 = (
        _family(n) for n in ("BFloat16", "Float16", "Float32", "Float64"))
    Complex64, Complex128 = _family("Complex64"), _family("Complex128")

DTYPE_ANNOTATIONS = ("Bool", "UInt", "Int", "Integer", "Float", "Complex", "Inexact", "Real",
                     "Num", "UInt8", "UInt16", "UInt32", "UInt64", "Int8", "Int16", "Int32",
                     "Int64", "BFloat16", "Float16", "Float32", "Float64", "Complex64",
                     "Complex128")
"""The names of the annotations that check a dtype family (besides the shape)."""


# -- trees of annotations --------------------------------------------------------------

@dataclass(frozen=True)
class Leaf:
    """An array with this spec (and, unless ``None``, one of these dtypes)."""

    spec: ArraySpec
    dtypes: Dtypes | None = None


@dataclass(frozen=True)
class Optional_:
    """``None``, or a value of the inner tree."""

    inner: Node


@dataclass(frozen=True)
class Items:
    """A fixed tuple: one tree per position (a ``dict`` in decorator arguments:
    one tree per key)."""

    keys: tuple[Any, ...]
    trees: tuple[Node, ...]
    mapping: bool


@dataclass(frozen=True)
class Each:
    """Every element of a list or tuple (``mapping``: every value of a dict)."""

    inner: Node
    mapping: bool


@dataclass(frozen=True)
class Fields:
    """The fields of a dataclass (or attributes of an object)."""

    names: tuple[str, ...]
    trees: tuple[Node, ...]


Node = Leaf | Optional_ | Items | Each | Fields


def _shape_meta(args: Sequence[Any]) -> Shape | None:
    metas = [m for m in args if isinstance(m, Shape)]
    if len(metas) > 1:
        raise SymshapeError(f"one Shape per annotation, got {metas}")
    return metas[0] if metas else None


def tree_of_annotation(ann: Any, where: str, seen: frozenset[type] = frozenset()
                       ) -> Node | None:
    """The tree of shape specs in a type annotation, or ``None`` if it has none."""
    origin = get_origin(ann)
    if origin is Annotated:
        base, *meta = get_args(ann)
        shape = _shape_meta(meta)
        return Leaf(shape.array_spec, shape.dtypes) if shape is not None else \
            tree_of_annotation(base, where, seen)
    if origin in (Union, types.UnionType):
        members = [a for a in get_args(ann) if a is not type(None)]
        inner = [t for t in (tree_of_annotation(m, where, seen) for m in members)
                 if t is not None]
        if not inner:
            return None
        if len(members) > 1:
            raise SymshapeError(
                f"{where}: a union of several types with shape annotations ({ann}) is not "
                "supported; annotate one type, or write X | None for an optional array")
        return Optional_(inner[0])
    if origin is tuple:
        args = get_args(ann)
        if len(args) == 2 and args[1] is Ellipsis:
            t = tree_of_annotation(args[0], where, seen)
            return None if t is None else Each(t, False)
        trees = [tree_of_annotation(a, where, seen) for a in args]
        if all(t is None for t in trees):
            return None
        return Items(tuple(range(len(trees))), tuple(_none_ok(t) for t in trees), False)
    if origin in (list, Sequence, typing.Sequence, set, frozenset):
        args = get_args(ann)
        t = tree_of_annotation(args[0], where, seen) if args else None
        return None if t is None else Each(t, False)
    if origin in (dict, Mapping, typing.Mapping):
        args = get_args(ann)
        t = tree_of_annotation(args[1], where, seen) if len(args) == 2 else None
        return None if t is None else Each(t, True)
    if isinstance(ann, type) and dataclasses.is_dataclass(ann) and ann not in seen:
        return _dataclass_tree(ann, where, seen | {ann})
    return None


_ANY_TREE = Items((), (), False)  # marks a position without specs


def _none_ok(t: Node | None) -> Node:
    return _ANY_TREE if t is None else t


def _dataclass_tree(cls: type, where: str, seen: frozenset[type]) -> Node | None:
    try:
        hints = typing.get_type_hints(cls, include_extras=True)
    except Exception as err:  # an unresolvable forward reference
        raise SymshapeError(f"{where}: cannot read the annotations of {cls.__qualname__} "
                            f"({err})") from None
    names, trees = [], []
    for f in dataclasses.fields(cls):
        t = tree_of_annotation(hints.get(f.name), f"{where}.{f.name}", seen)
        if t is not None:
            names.append(f.name)
            trees.append(t)
    return Fields(tuple(names), tuple(trees)) if names else None


def tree_of_spec(spec: Any, where: str) -> Node:
    """The tree of a spec given as a decorator argument: a string, a ``Shape``,
    or a tuple, list or dict of them (with ``None`` for an unchecked position)."""
    if isinstance(spec, str):
        return Leaf(read_spec(spec))
    if isinstance(spec, Shape):
        return Leaf(spec.array_spec, spec.dtypes)
    if spec is None:
        return _ANY_TREE
    if isinstance(spec, tuple | list):
        return Items(tuple(range(len(spec))),
                     tuple(tree_of_spec(s, f"{where}[{i}]") for i, s in enumerate(spec)),
                     False)
    if isinstance(spec, Mapping):
        keys = tuple(spec)
        return Items(keys, tuple(tree_of_spec(spec[k], f"{where}[{k!r}]") for k in keys),
                     True)
    raise SymshapeError(f"{where}: a shape spec is a string such as 'b, d', or a tuple, list "
                        f"or dict of them, got {spec!r}")


# -- collecting the arrays of a value ----------------------------------------------------

Found = list[tuple[str, ArraySpec, Any]]
"""``(name, spec, array)`` per marked array, in the order of the tree."""


def collect(tree: Node, value: Any, name: str, out: Found, lengths: list[int]) -> None:
    """Append the marked arrays of ``value`` to ``out``; the length of every
    variable-length container goes to ``lengths`` (it is part of the call's key).

    Raises:
      ShapeMismatchError: when ``value`` does not have the structure of ``tree``.
    """
    if type(tree) is Leaf:
        if getattr(value, "shape", None) is None:
            raise ShapeMismatchError(f"{name} is annotated with the shape {tree.spec.shown}, "
                                     f"but it has no .shape: {_short(value)}")
        out.append((name, tree.spec, value))
    elif type(tree) is Optional_:
        if value is None:
            lengths.append(-1)
        else:
            lengths.append(-2)
            collect(tree.inner, value, name, out, lengths)
    elif type(tree) is Items:
        if not tree.trees:
            return
        if tree.mapping:
            if not isinstance(value, Mapping):
                raise ShapeMismatchError(f"{name} should be a dict, got {_short(value)}")
            for k, t in zip(tree.keys, tree.trees, strict=True):
                if k not in value:
                    raise ShapeMismatchError(f"{name} has no key {k!r}")
                collect(t, value[k], f"{name}[{k!r}]", out, lengths)
            return
        if not isinstance(value, tuple | list) or len(value) != len(tree.trees):
            raise ShapeMismatchError(f"{name} should be a sequence of {len(tree.trees)} "
                                     f"item(s), got {_short(value)}")
        for i, t in enumerate(tree.trees):
            collect(t, value[i], f"{name}[{i}]", out, lengths)
    elif type(tree) is Each:
        if tree.mapping:
            if not isinstance(value, Mapping):
                raise ShapeMismatchError(f"{name} should be a dict, got {_short(value)}")
            lengths.append(len(value))
            for k, v in value.items():
                collect(tree.inner, v, f"{name}[{k!r}]", out, lengths)
            return
        if not isinstance(value, Sequence | set | frozenset):
            raise ShapeMismatchError(f"{name} should be a sequence, got {_short(value)}")
        lengths.append(len(value))
        for i, v in enumerate(value):
            collect(tree.inner, v, f"{name}[{i}]", out, lengths)
    else:
        assert type(tree) is Fields
        for fname, t in zip(tree.names, tree.trees, strict=True):
            if not hasattr(value, fname):
                raise ShapeMismatchError(f"{name} has no field {fname!r}: {_short(value)}")
            collect(t, getattr(value, fname), f"{name}.{fname}", out, lengths)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def dtype_error(name: str, dtypes: Dtypes, array: Any) -> str | None:
    """Why the dtype of ``array`` (the array ``name``) is not one of ``dtypes``, or
    ``None`` when it is."""
    dtype = getattr(array, "dtype", None)
    if dtype is None:
        return (f"{name} is annotated with the dtype {dtypes.label} ({dtypes.shown}), but it "
                f"has no .dtype: {_short(array)}")
    found = dtype_name(dtype)
    if found is None:
        return (f"{name} is annotated with the dtype {dtypes.label} ({dtypes.shown}), but "
                f"the name of its dtype {dtype!r} cannot be read")
    if dtypes.allows(found):
        return None
    return (f"{name} has the dtype {found}, but its annotation {dtypes.label} allows only "
            f"{dtypes.shown}")


__all__ = ["DTYPE_ANNOTATIONS", "Each", "Fields", "Found", "Items", "Leaf", "Node", "Optional_",
           "Shape", "Shaped", "collect", "dtype_error", "tree_of_annotation", "tree_of_spec"]
