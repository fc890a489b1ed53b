"""Shape annotations checked with symshape's algebra: a jaxtyping-class checker.

>>> import numpy as np
>>> from symshape.typing import Shaped, shapecheck
>>> @shapecheck(constraints=["h <= 64"])
... def stack(x: Shaped[np.ndarray, "b, 2*h + 1"], y: Shaped[np.ndarray, "h"]
...           ) -> Shaped[np.ndarray, "b + 1, 2*h + 1"]:
...     return np.concatenate([x, np.zeros((1, x.shape[1]))])
>>> stack(np.zeros((3, 9)), np.zeros(4)).shape
(4, 9)

``Float``, ``Int``, ``Bool``, ``Float32``, ... (jaxtyping's names, with its
meaning) check the dtype too; ``Shaped`` allows any dtype.

Specs are symshape's (``"b, 2*h + 1"``) or jaxtyping's (``"batch *rest #c"``);
see :mod:`symshape.typing.dims` and the page ``docs/typing.md``.  Arrays are
anything with ``.shape``: NumPy eagerly, JAX eagerly, under ``jax.jit`` (once
per trace) and ``jax.export`` (symbolic shapes: proved, refuted, or checked at
run time in the artifact through :func:`symshape.jax.assert_shapes`), PyTorch
eagerly and under ``torch.export`` (``torch._check`` in the graph).
``import symshape.typing`` imports neither JAX nor PyTorch.
"""

from symshape.typing.annotations import (
    BFloat16,
    Bool,
    Complex,
    Complex64,
    Complex128,
    Float,
    Float16,
    Float32,
    Float64,
    Inexact,
    Int,
    Int8,
    Int16,
    Int32,
    Int64,
    Integer,
    Num,
    Real,
    Shape,
    Shaped,
    UInt,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
)
from symshape.typing.decorator import shapecheck
from symshape.typing.dims import read_spec
from symshape.typing.dtypes import Dtypes
from symshape.typing.plan import UnsettledShapeWarning

__all__ = ["BFloat16", "Bool", "Complex", "Complex64", "Complex128", "Dtypes", "Float",
           "Float16", "Float32", "Float64", "Inexact", "Int", "Int8", "Int16", "Int32", "Int64",
           "Integer", "Num", "Real", "Shape", "Shaped", "UInt", "UInt8", "UInt16", "UInt32",
           "UInt64", "UnsettledShapeWarning", "read_spec", "shapecheck"]
