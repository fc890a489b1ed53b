"""symshape decides inside JAX's tracer.

While installed, four narrow points of JAX are routed through symshape:

* ``shape_poly._bounds_decision`` -- what JAX's comparisons (``>=``, ``<``,
  ...), ``core.max_dim``/``core.min_dim`` and bounds funnel through.  JAX's
  own procedure answers first; only when its bounds are not precise enough
  for the question, the expression is translated (cached per scope) and
  symshape's decision procedure tightens them.  Both answers are sound, so
  their intersection is.
* ``_DimExpr._divmod`` -- when JAX cannot divide evenly and falls back to
  ``floordiv``/``mod`` factors, symshape tries to prove the remainder
  constant (e.g. ``mod(a, 128) == 0`` under a constraint).
* ``core.definitely_equal`` -- when JAX's structural equality says "not
  known equal", symshape tries to prove the two dimensions equal.
* ``shape_poly.solve_dim_vars`` -- when JAX's solver cannot solve the
  dimension variables of exported arguments, symshape's shape-check plan
  does (see :mod:`symshape.jax.solve`).

When neither procedure decides a comparison, JAX's
``InconclusiveDimensionOperation`` is raised as before, with the same text,
plus the constraints that would settle it (symshape's suggestions, in JAX's
constraint syntax, computed only when the message is read).

Each patched function calls JAX's original first, so everything JAX decides
on its own gives exactly the same result; symshape only turns "inconclusive"
into an answer.  A thread-local guard keeps symshape's own calls into JAX
(parsing a quotient in JAX's grammar) on JAX's original procedures.
"""

from __future__ import annotations

import contextlib
import operator
import re
import sys
import threading
import weakref
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

from symshape.algebra.atoms import FloorDiv
from symshape.algebra.dimexpr import DimExpr
from symshape.algebra.floordiv import floordiv, mod
from symshape.errors import InconclusiveDimensionOperation, SymshapeError
from symshape.jax import _internals as jx
from symshape.jax.convert import (
    BRIDGE_ATTR,
    Bridge,
    JaxConversionError,
    bridge_for_jax,
    expr_from_jax,
    to_jax,
)

Dim = DimExpr | int

_state_lock = threading.RLock()
_depth = 0
_global = False
_installed = False
_guard = threading.local()
_FAILED_ATTR = "_symshape_jax_bridge_failed"
# What symshape's decision procedure may raise besides a clean answer: fall back
# to JAX's answer rather than break the user's tracing.
_DECISION_ERRORS = (SymshapeError, InconclusiveDimensionOperation, RecursionError)


class _NoReentry:
    """``with _no_reentry:`` -- symshape is deciding in this thread (a plain class:
    cheaper than a generator-based context manager on JAX's hot paths)."""

    __slots__ = ()

    def __enter__(self) -> None:
        _guard.depth = getattr(_guard, "depth", 0) + 1

    def __exit__(self, *exc: object) -> None:
        _guard.depth -= 1


_no_reentry = _NoReentry()


def _reentered() -> bool:
    return bool(getattr(_guard, "depth", 0))


# ---------------------------------------------------------------------------
# Translating the questions


def _bridge(jax_scope: Any) -> Bridge | None:
    b = getattr(jax_scope, BRIDGE_ATTR, None)
    if b is not None:
        return b
    if getattr(jax_scope, _FAILED_ATTR, False) or not jx.scope_ready(jax_scope):
        return None
    try:
        return bridge_for_jax(jax_scope)
    except JaxConversionError:
        setattr(jax_scope, _FAILED_ATTR, True)
        return None


def _sym(e: Any, bridge: Bridge) -> Dim | None:
    if not jx.is_jax_dim_expr(e):
        try:
            return operator.index(e)
        except TypeError:
            return None
    if jx.expr_scope(e) is not bridge.jax:
        return None
    try:
        return expr_from_jax(e, bridge)
    except JaxConversionError:
        return None


def _ge0(bridge: Bridge, e: Dim) -> bool | None:
    """symshape's three-valued decision of ``e >= 0`` (cached per bridge)."""
    if isinstance(e, int):
        return e >= 0
    cache = bridge.ge0_cache
    if e in cache:
        return cache[e]
    try:
        r = bridge.sym.known_ge0(e)
    except _DECISION_ERRORS:
        r = None
    cache[e] = r
    return r


# ---------------------------------------------------------------------------
# The replacements


_JaxDim = jx.DimExpr
# JAX's functions while installed (module globals: these run on JAX's hot paths).
_orig_bounds: Any = None
_orig_divmod: Any = None
_orig_definitely_equal: Any = None
_orig_solve: Any = None


def _bridge_of(scope: Any) -> Bridge | None:
    b = getattr(scope, BRIDGE_ATTR, None)
    return b if b is not None else _bridge(scope)


# Answers keyed by the identity of JAX's arguments.  Tracing asks the same
# questions about the same objects again and again (the dimensions of one shape
# are shared by the avals of many operations), and answering from here is much
# cheaper than JAX's normalizing arithmetic, which is what makes the plug-in
# no slower than JAX alone.  Entries keep their arguments alive, so an id cannot
# be reused while cached.  The caches live on the JAX scope of the arguments,
# so they die with it (module-level caches kept every scope, its bridge and its
# symshape scope alive); they are bounded and dropped on uninstall.
# Only answers that cannot change are kept: JAX's equality and division are
# functions of their arguments, and bounds only once they decide the question.
_CACHE_LIMIT = 10_000
_ID_CACHES_ATTR = "_symshape_id_caches"
# The JAX scopes that hold caches (weakly: a dropped scope is no longer listed).
_cached_scopes: weakref.WeakSet[Any] = weakref.WeakSet()


def _id_cache(scope: Any, kind: str) -> dict[Any, Any]:
    """The ``kind`` ("eq", "divmod" or "bounds") answer cache of a JAX scope."""
    caches = getattr(scope, _ID_CACHES_ATTR, None)
    if caches is None:
        caches = {"eq": {}, "divmod": {}, "bounds": {}}
        setattr(scope, _ID_CACHES_ATTR, caches)
        _cached_scopes.add(scope)
    return caches[kind]


def _clear_caches() -> None:
    for scope in list(_cached_scopes):
        with contextlib.suppress(AttributeError):
            delattr(scope, _ID_CACHES_ATTR)
    _cached_scopes.clear()


def _remember(cache: dict[Any, Any], key: Any, value: Any) -> None:
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()
    cache[key] = value


def _bounds_decision(e: Any, prec: Any) -> tuple[float, float]:
    if type(e) is not _JaxDim:
        return _orig_bounds(e, prec)
    key = (id(e), id(prec))  # precisions are enum members: singletons
    cache = _id_cache(e.scope, "bounds")
    hit = cache.get(key)
    if hit is not None and hit[0] is e:
        return hit[1]
    lb, ub = _orig_bounds(e, prec)
    if not jx.bounds_sufficient(prec, lb, ub) and not _reentered():
        with _no_reentry:
            lb, ub = _symshape_bounds(e, prec, lb, ub)
        if not jx.bounds_sufficient(prec, lb, ub) and jx.prec_kind(prec) == "lt0":
            _raise_inconclusive(e, sys._getframe(1))
    if jx.bounds_sufficient(prec, lb, ub) and jx.scope_ready(e.scope):
        _remember(cache, key, (e, (lb, ub)))
    return lb, ub


def _symshape_bounds(e: Any, prec: Any, lb: float, ub: float) -> tuple[float, float]:
    """JAX's bounds ``(lb, ub)`` of ``e`` tightened by symshape's decisions."""
    bridge = _bridge_of(e.scope)
    if bridge is None:
        return lb, ub
    se = _sym(e, bridge)
    if se is None:
        return lb, ub
    if isinstance(se, int):
        return max(lb, se), min(ub, se)
    kind = jx.prec_kind(prec)
    if kind == "best":
        try:
            slb, sub = bridge.sym.bounds(se)
        except _DECISION_ERRORS:
            return lb, ub
        return max(lb, slb), min(ub, sub)
    if _ge0(bridge, se) is True:
        return max(lb, 0), ub
    if kind == "lt0":
        if _ge0(bridge, -se - 1) is True:
            return lb, min(ub, -1)
    elif _ge0(bridge, -se) is True:
        return lb, min(ub, 0)
    return lb, ub


# ---------------------------------------------------------------------------
# An inconclusive comparison: JAX's error, with what would settle it


_COMPARISON = re.compile(r"^'[^']*' (>=|<=|>|<) '[^']*'$")
_SUGGESTIONS_PER_SIDE = 4


class _SuggestingInconclusive(Exception):
    """Mixed into JAX's ``InconclusiveDimensionOperation``: the message gains
    the constraints that settle the comparison, computed when first read (JAX
    catches some of these errors and goes on, so nothing is computed before)."""

    _symshape_base: str = ""
    _symshape_suggest: Callable[[], str] | None = None
    _symshape_text: str | None = None

    def __str__(self) -> str:
        text = self._symshape_text
        if text is None:
            text = super().__str__()
            suggest, self._symshape_suggest = self._symshape_suggest, None
            try:
                block = suggest() if suggest is not None else ""
            except Exception:  # noqa: BLE001 - a message must not fail to render
                block = ""
            base = self._symshape_base
            if block and text.startswith(base):
                text = base + block + text[len(base):]
            self._symshape_text = text
        return text

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        # The class is made at run time: a copy is JAX's base class, same text.
        return jx.InconclusiveDimensionOperation, (str(self),)


_error_classes: dict[type, type] = {}


def _error_class(jax_cls: type) -> type:
    cls = _error_classes.get(jax_cls)
    if cls is None:
        cls = _error_classes[jax_cls] = type(
            jax_cls.__name__, (_SuggestingInconclusive, jax_cls),
            {"__module__": __name__, "__qualname__": jax_cls.__qualname__})
    return cls


def _raise_inconclusive(e: Any, frame: FrameType) -> None:
    """Raise the error JAX's ``_geq_decision`` (the ``frame`` calling
    ``_bounds_decision``) is about to raise for ``e = e1 - e2``, with the same
    class and text, plus symshape's suggestions.  Returns (and JAX raises its
    own) for any other caller, or when symshape cannot translate the question."""
    if frame.f_code.co_name != "_geq_decision":
        return
    loc = frame.f_locals
    e1, e2, cmp_str = loc.get("e1"), loc.get("e2"), loc.get("cmp_str")
    jax_cls = frame.f_globals.get("InconclusiveDimensionOperation")
    if not (callable(cmp_str) and isinstance(jax_cls, type)
            and issubclass(jax_cls, jx.InconclusiveDimensionOperation)):
        return
    scope = jx.expr_scope(e)
    bridge = _bridge_of(scope)
    if bridge is None:
        return
    se1, se2 = _sym(e1, bridge), _sym(e2, bridge)
    if se1 is None or se2 is None:
        return
    shown = str(cmp_str())
    m = _COMPARISON.match(shown)
    # JAX asks e1 >= e2; for a written 'x < y' or 'x > y' the answer is negated.
    holds = (f"{se1} >= {se2}", f"{se1 + 1} <= {se2}")
    if m is not None and m.group(1) in ("<", ">"):
        holds = holds[::-1]
    describe = f"\nUsing symbolic scope {scope}" if jx.scope_constraints(scope) else ""
    base = f"Symbolic dimension comparison {shown} is inconclusive.{describe}"
    err = _error_class(jax_cls)(base)
    err._symshape_base = base
    err._symshape_suggest = lambda: _suggestions_block(
        bridge.sym.constraint_texts, holds[0], holds[1])
    raise err


def _suggestions_block(constraints: tuple[str, ...], true_claim: str, false_claim: str
                       ) -> str:
    """The lines listing the constraints (JAX syntax) that make the comparison
    hold, and those that make it fail; empty if there are none."""
    from symshape.decision.prove import prove
    lines = []
    for claim, effect in ((true_claim, "hold"), (false_claim, "fail")):
        v = prove(claim, constraints=constraints)
        found = [s for s in v.suggestions if _jax_accepts(s)][:_SUGGESTIONS_PER_SIDE]
        if found:
            lines.append(f"  to make it {effect}: " + ", ".join(repr(s) for s in found))
    if not lines:
        return ""
    return ("\nsymshape: each of these constraints settles it (proved by symshape; add it to "
            "the constraints=[...] of jax.export.symbolic_shape and export with "
            "symshape.jax.decisions()):\n" + "\n".join(lines))


def _jax_accepts(constraint: str) -> bool:
    """Does JAX's parser accept ``constraint`` (so that it can be pasted)?"""
    try:
        jx.make_jax_scope([constraint])
    except Exception:  # noqa: BLE001 - whatever JAX rejects is not paste-ready
        return False
    return True


def _definitely_equal(x: Any, y: Any) -> bool:
    tx, ty = type(x), type(y)
    # Only pairs of dimensions: a JAX expression and an int or another expression.
    if not ((tx is _JaxDim and (ty is _JaxDim or ty is int)) or (ty is _JaxDim and tx is int)):
        return bool(_orig_definitely_equal(x, y))
    ids = (id(x), id(y))
    cache = _id_cache(x.scope if tx is _JaxDim else y.scope, "eq")
    hit = cache.get(ids)
    if hit is not None and hit[0] is x and hit[1] is y:
        return hit[2]
    res = bool(_orig_definitely_equal(x, y))
    if not res:
        if _reentered():
            return False
        with _no_reentry:
            decided = _decide_equal(x, y)
        if decided is None:
            return False  # symshape could not be asked (yet): do not remember
        res = decided
    _remember(cache, ids, (x, y, res))
    return res


def _decide_equal(x: Any, y: Any) -> bool | None:
    """symshape's proof that ``x == y`` (dimensions, at least one symbolic);
    None when symshape cannot be asked about this scope (yet)."""
    scope = x.scope if type(x) is _JaxDim else y.scope
    if type(y) is _JaxDim and y.scope is not scope:
        return False
    bridge = _bridge_of(scope)
    if bridge is None:
        return None if not jx.scope_ready(scope) else False
    key = (jx.expr_key(x) if type(x) is _JaxDim else x,
           jx.expr_key(y) if type(y) is _JaxDim else y)
    known = bridge.eq_cache.get(key)
    if known is None:
        known = bridge.eq_cache[key] = _prove_equal(x, y, bridge)
    return known


def _prove_equal(x: Any, y: Any, bridge: Bridge) -> bool:
    sx, sy = _sym(x, bridge), _sym(y, bridge)
    if sx is None or sy is None:
        return False
    d = sx - sy
    if isinstance(d, int):
        return d == 0
    return _ge0(bridge, d) is True and _ge0(bridge, -d) is True


def _divmod(self: Any, divisor: Any) -> tuple[Any, Any]:
    # An int divisor is part of the key by value, anything else by identity.
    int_divisor = type(divisor) is int
    key = (id(self), divisor, True) if int_divisor else (id(self), id(divisor), False)
    cache = _id_cache(self.scope, "divmod")
    hit = cache.get(key)
    if hit is not None and hit[0] is self and (int_divisor or hit[1] is divisor):
        return hit[2]
    q, r = _orig_divmod(self, divisor)
    final = type(r) is not _JaxDim  # JAX divided exactly: nothing to add
    if not final and not _reentered() and \
            (type(divisor) is not _JaxDim or divisor.scope is self.scope):
        bridge = _bridge_of(self.scope)
        if bridge is not None:
            final = True  # symshape was asked: its answer (or none) is final
            with _no_reentry:
                try:
                    better = _better_divmod(self, divisor, q, bridge)
                except _DECISION_ERRORS + (JaxConversionError, ZeroDivisionError):
                    better = None
            if better is not None:
                q, r = better
    if final and (int_divisor or type(divisor) is _JaxDim):
        _remember(cache, key, (self, divisor, (q, r)))
    return q, r


def _constant_value(bridge: Bridge, e: Dim) -> int | None:
    if isinstance(e, int):
        return e
    lo, hi = bridge.sym.bounds(e)
    if lo == hi:
        return int(lo)
    # bounds() may be looser than a decision: try to pin e to either end.
    if isinstance(lo, int) and _ge0(bridge, lo - e) is True:
        return lo
    if isinstance(hi, int) and _ge0(bridge, e - hi) is True:
        return hi
    return None


def _better_divmod(x: Any, y: Any, jax_q: Any, bridge: Bridge) -> tuple[Any, Any] | None:
    """``(quotient, remainder)`` in JAX terms when symshape proves the remainder
    of ``x // y`` constant, else None.  ``jax_q`` is JAX's ``floordiv(x, y)``."""
    sx, sy = _sym(x, bridge), _sym(y, bridge)
    if sx is None or sy is None or sy == 0:
        return None
    if isinstance(sy, int) and sy < 0:
        # divmod(x, -k) == (-(x // k), 0) when k divides x, else (x // -k, mod(x, k) - k).
        c = _constant_value(bridge, mod(sx, -sy))
        if c is None:
            return None
        if c == 0:
            pos = _better_divmod(x, -sy, _orig_divmod(x, -sy)[0], bridge)
            return None if pos is None else (-pos[0], 0)
        return jax_q, c + sy
    c = _constant_value(bridge, mod(sx, sy))
    if c is None:
        return None
    sq = floordiv(sx, sy)
    if isinstance(sq, int):
        return sq, c
    if not any(isinstance(a, FloorDiv) for a in sq.atoms(recursive=True)):
        # An exact polynomial quotient reads better than JAX's floordiv factor.
        return to_jax(sq), c
    # symshape's canonical quotient where it is the shorter (floordiv(s, 128)
    # for JAX's -floordiv(b*s, -128*b), common factors cancelled), else JAX's.
    mine = to_jax(sq)
    return (mine if len(str(mine)) < len(str(jax_q)) else jax_q), c


def _solve_dim_vars(args_avals: Any, args_kwargs_tree: Any) -> Any:
    try:
        return _orig_solve(args_avals, args_kwargs_tree=args_kwargs_tree)
    except ValueError as jax_err:
        from symshape.jax.solve import solve_with_plan
        return solve_with_plan(tuple(args_avals), args_kwargs_tree, jax_err)


# ---------------------------------------------------------------------------
# Installing


_PATCHES = (
    (jx.BOUNDS_DECISION, _bounds_decision),
    (jx.DIVMOD, _divmod),
    (jx.DEFINITELY_EQUAL, _definitely_equal),
    (jx.SOLVE_DIM_VARS, _solve_dim_vars),
)


def _sync() -> None:
    global _installed, _orig_bounds, _orig_divmod, _orig_definitely_equal, _orig_solve
    want = _global or _depth > 0
    if want and not _installed:
        jx.require("decisions")
        jx.require("solve")
        _orig_bounds = jx.BOUNDS_DECISION.current()
        _orig_divmod = jx.DIVMOD.current()
        _orig_definitely_equal = jx.DEFINITELY_EQUAL.current()
        _orig_solve = jx.SOLVE_DIM_VARS.current()
        for point, fn in _PATCHES:
            point.replace(fn)
        _installed = True
    elif not want and _installed:
        for point, _fn in reversed(_PATCHES):
            point.restore()
        _clear_caches()
        _installed = False


def install() -> None:
    """Route JAX's symbolic-shape decisions through symshape until :func:`uninstall`.

    Affects every thread.  Idempotent; ``with decisions():`` blocks nest
    inside and do not uninstall what ``install()`` installed.
    """
    global _global
    with _state_lock:
        prev, _global = _global, True
        try:
            _sync()
        except BaseException:
            _global = prev
            raise


def uninstall() -> None:
    """Undo :func:`install` (JAX's own procedures are back unless a
    ``with decisions():`` block is still active)."""
    global _global
    with _state_lock:
        _global = False
        _sync()


def is_installed() -> bool:
    """Whether JAX's decisions are currently routed through symshape."""
    return _installed


@contextlib.contextmanager
def decisions() -> Iterator[None]:
    """Context manager: symshape decides inside JAX's tracer within the block.

    JAX's own procedures are restored on exit, also when the block raises;
    blocks nest.

    >>> with symshape.jax.decisions():                      # doctest: +SKIP
    ...     exp = jax.export.export(jax.jit(f))(*specs)
    """
    global _depth
    with _state_lock:
        _depth += 1
        try:
            _sync()
        except BaseException:
            _depth -= 1
            raise
    try:
        yield
    finally:
        with _state_lock:
            _depth -= 1
            _sync()


__all__ = ["decisions", "install", "is_installed", "uninstall"]
