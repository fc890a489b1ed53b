"""symshape for JAX: export shape-polymorphic functions with symshape's shapes,
decisions and shape checks.

Install with the optional extra ``symshape[jax]``.  ``import symshape`` never
imports JAX; this subpackage does.

Conversions:
  :func:`to_jax`, :func:`from_jax` -- dimensions, shapes and scopes between
  symshape and ``jax.export``; :func:`args_specs` -- ``jax.ShapeDtypeStruct``
  argument specs from symshape spec strings; :func:`shapes` -- the shapes of a
  ``jax.export.Exported``.

Deciding inside JAX's tracer:
  ``with decisions():`` (or :func:`install`/:func:`uninstall`) -- JAX's
  symbolic comparisons, ``max``/``min`` simplifications, divisibility,
  equality of dimensions and the solving of exported arguments' dimension
  variables fall back to symshape when JAX's own procedure is inconclusive.

Runtime checks:
  :func:`assert_shapes` -- symshape's shape checks as JAX ``shape_assertion``
  operations in traced (and exported) code.

>>> import jax, numpy as np, symshape.jax as sj                 # doctest: +SKIP
>>> specs = sj.args_specs(np.zeros((4, 6)), "a, b")             # doctest: +SKIP
>>> with sj.decisions():                                        # doctest: +SKIP
...     exp = jax.export.export(jax.jit(f))(specs)
"""

from symshape.jax._internals import JAX_VERSION, TESTED_JAX_VERSION, JaxInternalsError
from symshape.jax.assertions import assert_shapes
from symshape.jax.convert import JaxConversionError, from_jax, to_jax
from symshape.jax.plugin import decisions, install, is_installed, uninstall
from symshape.jax.solve import ArtifactPortabilityWarning
from symshape.jax.specs import ExportedShapes, args_specs, shapes

__all__ = [
    "JAX_VERSION",
    "ArtifactPortabilityWarning",
    "TESTED_JAX_VERSION",
    "ExportedShapes",
    "JaxConversionError",
    "JaxInternalsError",
    "args_specs",
    "assert_shapes",
    "decisions",
    "from_jax",
    "install",
    "is_installed",
    "shapes",
    "to_jax",
    "uninstall",
]
