"""The dtypes that an annotation allows: the families ``Float``, ``Int``, ...

A dtype is known by its name (``float32``, ``int64``, ``bool``, ``bfloat16``),
whichever library made it: a NumPy or JAX ``np.dtype`` gives its ``.name``, a
``torch.dtype`` the last part of its text (``torch.float32`` is ``float32``),
a string is its own name.  The families are sets of names with the meaning
jaxtyping gives the annotations of the same names (``Float`` is every floating
point dtype, including ``bfloat16`` and the 8-bit floats; ``Real`` is every
number that is not complex, without ``bool``; ...).

Reading a name is done once per dtype object (:func:`dtype_name` keeps them), so
that a call with new shapes but known dtypes pays a dictionary lookup.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from symshape.errors import SymshapeError


@dataclass(frozen=True)
class Dtypes:
    """A set of dtypes, by name.

    Attributes:
      label: how messages call it (``Float``, ``Int32``, or the names).
      names: the names of the dtypes allowed.
    """

    label: str
    names: tuple[str, ...]
    members: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "members", frozenset(self.names))

    def allows(self, name: str) -> bool:
        """Whether the dtype of this name is in the set."""
        return name in self.members

    @property
    def shown(self) -> str:
        """The names, for messages: ``float16, float32, float64``."""
        return ", ".join(self.names)


def _named(label: str, *names: str) -> Dtypes:
    return Dtypes(label, names)


BOOL = ("bool", "bool_")  # bool_: how NumPy 1 named its type
UINTS = ("uint2", "uint4", "uint8", "uint16", "uint32", "uint64")
INTS = ("int2", "int4", "int8", "int16", "int32", "int64")
FLOATS = ("float4_e2m1fn", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
          "float8_e5m2", "float8_e5m2fnuz", "bfloat16", "float16", "float32", "float64")
COMPLEXES = ("complex64", "complex128")

# The families, by the name of their annotation.
FAMILIES: dict[str, Dtypes] = {
    "Bool": _named("Bool", *BOOL),
    "UInt": _named("UInt", *UINTS),
    "Int": _named("Int", *INTS),
    "Integer": _named("Integer", *UINTS, *INTS),
    "Float": _named("Float", *FLOATS),
    "Complex": _named("Complex", *COMPLEXES),
    "Inexact": _named("Inexact", *FLOATS, *COMPLEXES),
    "Real": _named("Real", *FLOATS, *UINTS, *INTS),
    "Num": _named("Num", *UINTS, *INTS, *FLOATS, *COMPLEXES),
    **{label: _named(label, name) for label, name in (
        ("UInt8", "uint8"), ("UInt16", "uint16"), ("UInt32", "uint32"), ("UInt64", "uint64"),
        ("Int8", "int8"), ("Int16", "int16"), ("Int32", "int32"), ("Int64", "int64"),
        ("BFloat16", "bfloat16"), ("Float16", "float16"), ("Float32", "float32"),
        ("Float64", "float64"), ("Complex64", "complex64"), ("Complex128", "complex128"))},
}


def dtypes_of(spec: Any) -> Dtypes:
    """The :class:`Dtypes` of ``spec``: a family's name (``"Float"``), a dtype name
    (``"float32"``), an iterable of dtype names, a :class:`Dtypes`, or an annotation
    class with one (``Float``).

    Raises:
      SymshapeError: for anything else.
    """
    if isinstance(spec, Dtypes):
        return spec
    got = getattr(spec, "dtypes", None)
    if isinstance(got, Dtypes):
        return got
    if isinstance(spec, str):
        return FAMILIES.get(spec) or _named(spec, spec)
    if isinstance(spec, Iterable):
        names = tuple(spec)
        if names and all(isinstance(n, str) for n in names):
            return Dtypes(", ".join(names), names)
    raise SymshapeError(f"a dtype is given as a family (Float, 'Float'), a dtype name "
                        f"('float32') or a list of names, got {spec!r}")


# The name of every dtype object met (a handful per program).
_NAMES: dict[Any, str] = {}
_MAX_NAMES = 1024


def dtype_name(dtype: Any) -> str | None:
    """The name of a dtype object (``None`` when it cannot be read)."""
    try:
        return _NAMES[(type(dtype), dtype)]
    except KeyError:
        pass
    except TypeError:  # not hashable: read it each time
        return _read_name(dtype)
    name = _read_name(dtype)
    if name is not None:
        if len(_NAMES) >= _MAX_NAMES:
            _NAMES.clear()
        _NAMES[(type(dtype), dtype)] = name
    return name


def _read_name(dtype: Any) -> str | None:
    if isinstance(dtype, str):
        return dtype
    name = getattr(dtype, "name", None)  # NumPy and JAX
    if isinstance(name, str):
        return name
    text = str(dtype)  # torch.float32, and others written alike
    return text.rsplit(".", 1)[-1] if text and "<" not in text else None


__all__ = ["FAMILIES", "Dtypes", "dtype_name", "dtypes_of"]
