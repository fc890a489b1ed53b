"""symshape: symbolic tensor shapes.

Parse shape specs and constraints, normalize dimension expressions to a
canonical form, and decide comparisons between them, soundly.

>>> import symshape
>>> a, b = symshape.symbolic_shape("a, b")
>>> a * b >= a
True
"""

# _accel picks the compiled or the pure-Python core, so it comes before every
# import of the core; printing installs the expression printer, the decision
# package the decision procedure: the layers below them never import them.
from symshape import _accel, printing  # noqa: F401
from symshape._accel import compiled_modules
from symshape.algebra.dimexpr import DimExpr, is_symbolic_dim
from symshape.decision import Certificate, Status, Verdict, prove
from symshape.errors import (
    ArgumentError,
    DivisionByZeroRiskError,
    ExpressionTooLargeError,
    InconclusiveDimensionOperation,
    ParseError,
    ScopeMismatchError,
    ShapeMismatchError,
    SymshapeError,
    UnknownDimensionError,
    UnsatisfiableConstraintsError,
    UnsolvableSpecsError,
)
from symshape.ops import bounds, max_dim, min_dim
from symshape.scope import SymbolicScope
from symshape.shapecheck import ShapeCheck
from symshape.shapes import symbolic_shape

__version__ = "0.1.0"

__all__ = [
    "ArgumentError",
    "Certificate",
    "DimExpr",
    "DivisionByZeroRiskError",
    "ExpressionTooLargeError",
    "InconclusiveDimensionOperation",
    "ParseError",
    "ScopeMismatchError",
    "ShapeCheck",
    "ShapeMismatchError",
    "Status",
    "SymbolicScope",
    "SymshapeError",
    "UnknownDimensionError",
    "UnsatisfiableConstraintsError",
    "UnsolvableSpecsError",
    "Verdict",
    "bounds",
    "compiled_modules",
    "is_symbolic_dim",
    "max_dim",
    "min_dim",
    "prove",
    "symbolic_shape",
]
