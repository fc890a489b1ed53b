"""The one module of symshape that touches JAX internals.

Everything symshape.jax needs from ``jax._src`` is looked up here, once, and
checked: the attribute must exist and, for the functions symshape replaces
while deciding inside JAX's tracer, JAX's own callers must still reach them
through the module attribute (so that replacing it has an effect).  A check
that fails does not break ``import symshape.jax``; the feature that needs the
internal raises :class:`JaxInternalsError` naming the internal, the installed
JAX version and the range of versions symshape was tested with (declared once, in
``symshape._versions.JAX``).  A jax older than that range is refused at import; an
internal module that cannot be imported is named at import.

Internals used (jax 0.10.2; all of them are there since jax 0.6.2):

* ``jax._src.export.shape_poly``: ``_DimExpr`` (``_sorted_terms``, ``scope``,
  ``_divmod``), ``_DimTerm._factors``, ``_DimFactor`` (``var``, ``operation``,
  ``operands``), ``SymbolicScope`` (``_explicit_constraints``,
  ``_initialized``), ``_SymbolicConstraint`` (``cmp``, ``e1``, ``e2``),
  ``Comparator``, ``BoundsPrecision``, the module attribute
  ``_bounds_decision`` (set by ``shape_poly_decision``), ``solve_dim_vars``,
  ``ShapeEvaluator``, ``dimension_size_p``,
  ``pretty_print_dimension_descriptor``, ``all_dim_vars``.
* ``jax._src.core``: ``definitely_equal``, ``max_dim``, ``min_dim``,
  ``dimension_as_value``, ``dim_constant``, ``Tracer``.
* ``jax._src.export._export._call_exported_abstract_eval`` (only checked: it
  must call ``shape_poly.solve_dim_vars``).
* For symshape's run-time check primitive (:func:`shape_assertion`):
  ``jax._src.core.Primitive``, ``jax._src.interpreters.mlir`` (``custom_call``,
  ``register_lowering``), ``jax.interpreters.partial_eval.dce_rules``,
  ``jax.interpreters.ad.primitive_jvps``,
  ``jax.interpreters.batching.primitive_batchers``.
"""

from __future__ import annotations

import importlib
import os
import types
from collections.abc import Iterator
from typing import Any

import jax

from symshape import _versions

TESTED_JAX_VERSION = _versions.JAX.newest
"""The newest jax release symshape.jax is tested with; the whole tested range is
declared once in ``symshape._versions.JAX`` (and is what the ``jax`` extra admits)."""
MIN_JAX_VERSION = _versions.version_tuple(_versions.JAX.oldest)
JAX_VERSION: str = jax.__version__


class JaxInternalsError(RuntimeError):
    """A JAX internal that symshape.jax relies on is missing or has changed."""


def _tested_range() -> str:
    """What was tested, against what is installed: the tail of every version message."""
    return _versions.tested_range(_versions.JAX, JAX_VERSION)


if _versions.position(_versions.JAX, JAX_VERSION) == "older":
    raise JaxInternalsError(
        f"symshape.jax needs jax >= {_versions.JAX.oldest}: {_tested_range()}. "
        f"Install a tested release: pip install '{_versions.JAX.requirement()}'")


def _import_internal(name: str) -> types.ModuleType:
    """Import the JAX internal module ``name``; if it moved, say which, with what."""
    try:
        return importlib.import_module(name)
    except ImportError as err:
        raise JaxInternalsError(
            f"symshape.jax cannot import the JAX internal module {name} ({err}): "
            f"{_tested_range()}") from err


_core = _import_internal("jax._src.core")
_export_mod = _import_internal("jax._src.export._export")
_sp = _import_internal("jax._src.export.shape_poly")
_import_internal("jax._src.export.shape_poly_decision")  # installs JAX's decision
_import_internal("jax.export")  # public, but jax 0.6 and 0.7 do not import it with jax

try:
    # Report the user's frame, not ours, as the source location of what we create
    # (JAX scopes, shape assertions).  Cosmetic: skipped if the internal moved.
    from jax._src import source_info_util as _siu
    _siu.register_exclusion(os.path.dirname(os.path.abspath(__file__)))
except (ImportError, AttributeError):  # pragma: no cover - depends on the JAX version
    pass


# ---------------------------------------------------------------------------
# Checks

_problems: dict[str, str] = {}


def _code_mentions(fn: Any, name: str) -> bool:
    """Does the code of ``fn`` (or a nested code object) load the global or
    attribute ``name``?  Used to check that JAX still calls what we replace."""
    fn = getattr(fn, "__wrapped__", fn)
    code = getattr(fn, "__code__", None)
    if code is None:
        return False
    stack: list[types.CodeType] = [code]
    while stack:
        c = stack.pop()
        if name in c.co_names:
            return True
        stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    return False


def _get(owner: Any, path: str, attr: str) -> Any:
    """``getattr(owner, attr)``, recording a problem (and returning None) if missing."""
    try:
        return getattr(owner, attr)
    except AttributeError:
        _problems[f"{path}.{attr}"] = "missing"
        return None


def _expect_call(caller: Any, caller_path: str, name: str) -> None:
    if caller is None or not _code_mentions(caller, name):
        _problems[f"{caller_path} -> {name}"] = (
            f"{caller_path} no longer calls '{name}' through its module")


_SP = "jax._src.export.shape_poly"
_CORE = "jax._src.core"

DimExpr: Any = _get(_sp, _SP, "_DimExpr")
DimTerm: Any = _get(_sp, _SP, "_DimTerm")
DimFactor: Any = _get(_sp, _SP, "_DimFactor")
JaxScope: Any = _get(_sp, _SP, "SymbolicScope")
Comparator: Any = _get(_sp, _SP, "Comparator")
BoundsPrecision: Any = _get(_sp, _SP, "BoundsPrecision")
ShapeEvaluator: Any = _get(_sp, _SP, "ShapeEvaluator")
InconclusiveDimensionOperation: Any = _get(_core, _CORE, "InconclusiveDimensionOperation")
Tracer: Any = _get(_core, _CORE, "Tracer")

_dimension_size_p = _get(_sp, _SP, "dimension_size_p")
_pretty_dim = _get(_sp, _SP, "pretty_print_dimension_descriptor")
_all_dim_vars = _get(_sp, _SP, "all_dim_vars")
_max_dim = _get(_core, _CORE, "max_dim")
_min_dim = _get(_core, _CORE, "min_dim")
_dimension_as_value = _get(_core, _CORE, "dimension_as_value")
_dim_constant = _get(_core, _CORE, "dim_constant")

for _attr in ("_sorted_terms", "_divmod", "scope"):
    if DimExpr is not None and not hasattr(DimExpr, _attr):
        _problems[f"{_SP}._DimExpr.{_attr}"] = "missing"
for _cls, _name, _attrs in ((DimTerm, "_DimTerm", ("_factors",)),
                            (DimFactor, "_DimFactor", ("var", "operation", "operands"))):
    if _cls is not None:
        slots = set(getattr(_cls, "__slots__", ())) | set(dir(_cls))
        for _attr in _attrs:
            if _attr not in slots:
                _problems[f"{_SP}.{_name}.{_attr}"] = "missing"
if BoundsPrecision is not None:
    for _attr in ("FOR_GEQ0_OR_LEQ0", "FOR_GEQ0_OR_LT0", "BEST"):
        if not hasattr(BoundsPrecision, _attr):
            _problems[f"{_SP}.BoundsPrecision.{_attr}"] = "missing"

# Patch points: the attribute must exist and JAX's callers must look it up at call time.
_get(_sp, _SP, "_bounds_decision")
_expect_call(getattr(_sp, "_geq_decision", None), f"{_SP}._geq_decision", "_bounds_decision")
_expect_call(getattr(DimExpr, "max", None), f"{_SP}._DimExpr.max", "_bounds_decision")
_get(_core, _CORE, "definitely_equal")
_expect_call(getattr(_core, "divide_shape_sizes", None), f"{_CORE}.divide_shape_sizes",
             "definitely_equal")
_get(_sp, _SP, "solve_dim_vars")
_expect_call(getattr(_sp, "compute_dim_vars_from_arg_shapes", None),
             f"{_SP}.compute_dim_vars_from_arg_shapes", "solve_dim_vars")
_expect_call(getattr(_export_mod, "_call_exported_abstract_eval", None),
             "jax._src.export._export._call_exported_abstract_eval", "solve_dim_vars")


FEATURES: dict[str, tuple[str, ...]] = {
    "convert": (f"{_SP}._DimExpr", f"{_SP}._DimTerm", f"{_SP}._DimFactor",
                f"{_SP}.SymbolicScope", f"{_SP}._DimExpr._sorted_terms",
                f"{_SP}._DimTerm._factors", f"{_SP}._DimFactor.var",
                f"{_SP}._DimFactor.operation", f"{_SP}._DimFactor.operands",
                f"{_SP}.Comparator"),
    "decisions": (f"{_SP}._bounds_decision", f"{_SP}.BoundsPrecision",
                  f"{_SP}._geq_decision -> _bounds_decision",
                  f"{_SP}._DimExpr.max -> _bounds_decision",
                  f"{_SP}._DimExpr._divmod", f"{_CORE}.definitely_equal",
                  f"{_CORE}.divide_shape_sizes -> definitely_equal",
                  f"{_SP}.BoundsPrecision.FOR_GEQ0_OR_LEQ0",
                  f"{_SP}.BoundsPrecision.FOR_GEQ0_OR_LT0", f"{_SP}.BoundsPrecision.BEST"),
    "solve": (f"{_SP}.solve_dim_vars", f"{_SP}.ShapeEvaluator",
              f"{_SP}.compute_dim_vars_from_arg_shapes -> solve_dim_vars",
              "jax._src.export._export._call_exported_abstract_eval -> solve_dim_vars",
              f"{_SP}.pretty_print_dimension_descriptor", f"{_SP}.all_dim_vars"),
    "assertions": (f"{_CORE}.Primitive", "jax._src.interpreters.mlir.custom_call",
                   "jax._src.interpreters.mlir.register_lowering",
                   "jax.interpreters.partial_eval.dce_rules",
                   "jax.interpreters.ad.primitive_jvps",
                   "jax.interpreters.batching.primitive_batchers",
                   f"{_CORE}.dimension_as_value",
                   f"{_CORE}.dim_constant", f"{_CORE}.max_dim", f"{_CORE}.min_dim",
                   f"{_CORE}.Tracer"),
}


def problems() -> dict[str, str]:
    """The internals that failed their check (empty when all is well)."""
    return dict(_problems)


def require(feature: str) -> None:
    """Raise :class:`JaxInternalsError` if an internal that ``feature`` needs moved."""
    bad = [(k, v) for k, v in _problems.items()
           if any(k == need or k.startswith(need + ".") for need in FEATURES[feature])]
    if bad:
        details = "; ".join(f"{k}: {v}" for k, v in bad)
        raise JaxInternalsError(
            f"symshape.jax cannot provide '{feature}' with jax {JAX_VERSION}: the JAX "
            f"internals it relies on have moved ({details}). {_tested_range()}; install a "
            f"tested release (pip install '{_versions.JAX.requirement()}') or upgrade "
            f"symshape.")


# ---------------------------------------------------------------------------
# Reading JAX expressions


def is_jax_dim_expr(x: Any) -> bool:
    """True for a JAX symbolic dimension expression."""
    return DimExpr is not None and isinstance(x, DimExpr)


def is_jax_scope(x: Any) -> bool:
    """True for a ``jax.export.SymbolicScope``."""
    return JaxScope is not None and isinstance(x, JaxScope)


def is_tracer(x: Any) -> bool:
    """True for a JAX tracer."""
    return isinstance(x, Tracer)


def expr_terms(e: Any) -> Iterator[tuple[list[tuple[Any, int]], int]]:
    """The terms of a JAX expression as ``(factors, coefficient)``, where
    ``factors`` is a list of ``(factor, exponent)`` (empty for the constant)."""
    for term, coeff in e._sorted_terms:
        yield list(term._factors), int(coeff)


def expr_key(e: Any) -> Any:
    """A hashable key identifying a JAX expression within its scope, compared
    syntactically (JAX's own ``==`` normalizes a difference: too slow for a key)."""
    return e._sorted_terms


def factor_parts(f: Any) -> tuple[str, Any]:
    """``("var", name)`` or ``(operation, operands)`` with operation one of
    ``"floordiv"``, ``"mod"``, ``"max"``, ``"min"``."""
    if f.var is not None:
        return "var", f.var
    return str(f.operation), tuple(f.operands)


def expr_scope(e: Any) -> Any:
    """The JAX scope of a JAX expression."""
    return e.scope


def scope_ready(scope: Any) -> bool:
    """False while a JAX scope is still parsing its own constraints."""
    return bool(getattr(scope, "_initialized", True))


def scope_constraints(scope: Any) -> list[tuple[str, Any, Any, str]]:
    """The explicit constraints of a JAX scope as ``(op, e1, e2, text)`` with
    op ``"=="`` or ``">="`` (meaning ``e1 op e2``), in JAX's order."""
    out = []
    for c in scope._explicit_constraints:
        op = "==" if c.cmp == Comparator.EQ else ">="
        out.append((op, c.e1, c.e2, str(getattr(c, "debug_str", ""))))
    return out


def make_jax_scope(constraints: list[str]) -> Any:
    """A new ``jax.export.SymbolicScope`` (public API)."""
    return jax.export.SymbolicScope(constraints)


def parse_jax_dim(text: str, scope: Any) -> Any:
    """Parse one dimension expression with JAX's (public) parser in ``scope``."""
    dims = jax.export.symbolic_shape(text, scope=scope)
    if len(dims) != 1:
        raise ValueError(f"expected one dimension in {text!r}")
    return dims[0]


# ---------------------------------------------------------------------------
# Patch points


class PatchPoint:
    """A module or class attribute that symshape replaces while installed."""

    def __init__(self, owner: Any, attr: str) -> None:
        self.owner = owner
        self.attr = attr
        self.original: Any = None

    def current(self) -> Any:
        return getattr(self.owner, self.attr)

    def replace(self, value: Any) -> None:
        self.original = getattr(self.owner, self.attr)
        setattr(self.owner, self.attr, value)

    def restore(self) -> None:
        setattr(self.owner, self.attr, self.original)


BOUNDS_DECISION = PatchPoint(_sp, "_bounds_decision")
DIVMOD = PatchPoint(DimExpr, "_divmod")
DEFINITELY_EQUAL = PatchPoint(_core, "definitely_equal")
SOLVE_DIM_VARS = PatchPoint(_sp, "solve_dim_vars")


def bounds_sufficient(prec: Any, lb: float, ub: float) -> bool:
    """Whether JAX considers ``(lb, ub)`` precise enough for ``prec``."""
    if prec == BoundsPrecision.FOR_GEQ0_OR_LEQ0:
        return lb >= 0 or ub <= 0
    if prec == BoundsPrecision.FOR_GEQ0_OR_LT0:
        return lb >= 0 or ub < 0
    return False


def prec_kind(prec: Any) -> str:
    """``"leq0"`` (max/min), ``"lt0"`` (comparisons) or ``"best"``."""
    if prec == BoundsPrecision.FOR_GEQ0_OR_LEQ0:
        return "leq0"
    if prec == BoundsPrecision.FOR_GEQ0_OR_LT0:
        return "lt0"
    return "best"


# ---------------------------------------------------------------------------
# Building values inside traced code


def shape_assertion(pred: Any, *inputs: Any, error_message: str) -> None:
    """Emit a run-time shape check: ``stablehlo.custom_call @shape_assertion``.

    The check lowers to the custom call that JAX's own calling convention uses
    for its shape assertions (``pred``: a boolean computed from dimension
    sizes; ``error_message`` with ``{0}``, ``{1}``, ... filled from ``inputs``),
    which XLA evaluates, and removes, when it refines the shapes of a call.

    It is symshape's own primitive, not JAX's ``shape_assertion``, because that
    one carries a JAX effect: an effect cannot be serialized with an export,
    and it sends every call of the export through JAX's slow dispatch path.
    This one has no effect; it is kept alive by its dead-code rule instead (it
    has no outputs, and nothing else would keep it), and by ``has_side_effect``
    in the lowered module.  So an export that uses it serializes, loads in a
    process that has never imported symshape, and costs nothing per call once
    its shapes are refined.
    """
    _check_p.bind(pred, *inputs, error_message=error_message)


def _make_check_primitive() -> Any:
    """symshape's effect-free shape-check primitive (see :func:`shape_assertion`)."""
    from jax._src.interpreters import mlir
    from jax.interpreters import ad, batching
    from jax.interpreters import partial_eval as pe

    for owner, name, attr in ((_core, _CORE, "Primitive"),
                              (mlir, "jax._src.interpreters.mlir", "custom_call"),
                              (mlir, "jax._src.interpreters.mlir", "register_lowering"),
                              (pe, "jax.interpreters.partial_eval", "dce_rules"),
                              (ad, "jax.interpreters.ad", "primitive_jvps"),
                              (batching, "jax.interpreters.batching", "primitive_batchers")):
        if _get(owner, name, attr) is None:
            return None
    prim = _core.Primitive("symshape_shape_check")
    prim.multiple_results = True

    def impl(pred: Any, *inputs: Any, error_message: str) -> list[Any]:
        # Only reached with concrete values (eager code): check right away.
        if not bool(pred):
            raise ValueError(error_message.format(*(int(v) for v in inputs)))
        return []

    def abstract_eval(*_args: Any, **_params: Any) -> list[Any]:
        return []

    def lowering(ctx: Any, pred: Any, *inputs: Any, error_message: str) -> list[Any]:
        mlir.custom_call("shape_assertion", result_types=[], operands=[pred, *inputs],
                         has_side_effect=True,
                         extra_attributes={"error_message": mlir.ir.StringAttr.get(error_message)})
        return []

    def keep(used_outputs: list[bool], eqn: Any) -> tuple[list[bool], Any]:
        # A check has no outputs: without this rule JAX would drop it as dead code.
        return [True] * len(eqn.invars), eqn

    def jvp(primals: Any, tangents: Any, **params: Any) -> tuple[list[Any], list[Any]]:
        del tangents  # dimension sizes have no tangents
        return prim.bind(*primals, **params), []

    def batch(args: Any, dims: Any, *, error_message: str) -> tuple[list[Any], list[Any]]:
        # Dimension sizes are the same for every member of a batch, so only a
        # predicate from user code can be batched: it must hold for all members,
        # and the message shows the values of the first one.
        import jax.numpy as jnp

        def first(a: Any, d: Any) -> Any:
            return a if d is None else jnp.moveaxis(a, d, 0)[0]

        (pred, pred_dim), *rest = zip(args, dims, strict=True)
        if pred_dim is not None:
            pred = jnp.all(pred)
        prim.bind(pred, *(first(a, d) for a, d in rest), error_message=error_message)
        return [], []

    prim.def_impl(impl)
    prim.def_abstract_eval(abstract_eval)
    mlir.register_lowering(prim, lowering)
    pe.dce_rules[prim] = keep
    ad.primitive_jvps[prim] = jvp
    batching.primitive_batchers[prim] = batch
    return prim


_check_p = _make_check_primitive()


def dimension_size(x: Any, axis: int) -> Any:
    """The runtime size of ``x.shape[axis]`` (JAX's ``dimension_size`` primitive)."""
    return _dimension_size_p.bind(x, dimension=axis)


def dimension_as_value(d: Any) -> Any:
    """A JAX value for a (possibly symbolic) dimension."""
    return _dimension_as_value(d)


def dim_constant(c: int) -> Any:
    """A constant of JAX's dimension-value dtype."""
    return _dim_constant(c)


def max_dim(x: Any, y: Any) -> Any:
    """JAX's ``core.max_dim``."""
    return _max_dim(x, y)


def min_dim(x: Any, y: Any) -> Any:
    """JAX's ``core.min_dim``."""
    return _min_dim(x, y)


def definitely_equal(x: Any, y: Any) -> bool:
    """``core.definitely_equal`` as currently bound (symshape's while installed)."""
    return bool(_core.definitely_equal(x, y))


def all_dim_vars(avals: Any) -> list[str]:
    """Sorted names of the dimension variables in the shapes of ``avals``."""
    return list(_all_dim_vars(avals))


def describe_dim(tree: Any, arg_idx: int, dim_idx: int | None) -> str:
    """JAX's name of an argument dimension, e.g. ``args[0].shape[1]``."""
    return str(_pretty_dim(tree, arg_idx, dim_idx))


__all__ = [
    "BOUNDS_DECISION", "DEFINITELY_EQUAL", "DIVMOD", "JAX_VERSION", "SOLVE_DIM_VARS",
    "TESTED_JAX_VERSION", "JaxInternalsError", "PatchPoint", "problems", "require",
]
