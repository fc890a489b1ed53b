"""Shape checks: solve dimension variables from concrete shapes and emit runtime checks.

* :class:`ShapeCheck` -- build once from specs, then :meth:`ShapeCheck.solve` concrete
  shapes (Python) or :meth:`ShapeCheck.to_stablehlo` (MLIR with ``@shape_assertion``).
* :class:`Program`, :class:`Step`, :class:`Assertion` -- the backend-neutral program a
  check compiles to; see :mod:`symshape.shapecheck.program` for the op set.
"""

from symshape.errors import UnsolvableSpecsError
from symshape.shapecheck.plan import ShapeCheck
from symshape.shapecheck.program import ALL_OPS, BOOL_OPS, Assertion, Program, Step, introot

__all__ = ["ALL_OPS", "BOOL_OPS", "Assertion", "Program", "ShapeCheck", "Step",
           "UnsolvableSpecsError", "introot"]
