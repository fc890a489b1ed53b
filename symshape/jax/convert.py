"""Translate dimensions, shapes and scopes between symshape and JAX.

Each symshape scope is paired with exactly one JAX scope (and back) by a
:class:`Bridge`, stored as an attribute on both scope objects: the pair is a
plain reference cycle, so it is collected with the scopes, and the same
symshape scope always maps to the same JAX scope.  The bridge also holds the
conversion caches and the caches of the decisions made for JAX's tracer.

symshape -> JAX goes through symshape's canonical text, which recovers the
``mod``/``max``/``min`` spellings, parsed by JAX's public parser in the paired
scope (so JAX applies its own normalization rules).  JAX -> symshape walks
JAX's expression structure and rebuilds it with symshape's constructors, which
renormalize to symshape's canonical form.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from symshape import parsing
from symshape.algebra.atoms import ONE, Mono, Var
from symshape.algebra.dimexpr import DimExpr, as_int
from symshape.algebra.floordiv import floordiv, mod
from symshape.algebra.maxmin import max_expr, min_expr
from symshape.algebra.poly import Terms
from symshape.errors import ParseError, SymshapeError, UnsatisfiableConstraintsError
from symshape.jax import _internals as jx
from symshape.operators import FUNCTIONS, Op, kind_table
from symshape.scope import Constraint, SymbolicScope

Dim = DimExpr | int

BRIDGE_ATTR = "_symshape_jax_bridge"  # the attribute holding a scope's Bridge
_lock = threading.RLock()


class JaxConversionError(SymshapeError):
    """A dimension, shape or scope cannot be translated between symshape and JAX."""


class Bridge:
    """The pairing of one symshape scope with one JAX scope, plus caches."""

    def __init__(self, sym: SymbolicScope, jax_scope: Any) -> None:
        self.sym = sym
        self.jax = jax_scope
        # JAX expression (its jx.expr_key) -> symshape expression, or the
        # JaxConversionError it raised.
        self.from_cache: dict[Any, Dim | JaxConversionError] = {}
        # (x, y) -> whether symshape proves x == y (keys: jx.expr_key or int).
        self.eq_cache: dict[tuple[Any, Any], bool] = {}
        self.to_cache: dict[DimExpr, Any] = {}
        # Caches of decisions for JAX's tracer (see symshape.jax.plugin).
        self.ge0_cache: dict[Any, bool | None] = {}


def _attach(sym: SymbolicScope, jax_scope: Any) -> Bridge:
    bridge = Bridge(sym, jax_scope)
    setattr(sym, BRIDGE_ATTR, bridge)
    setattr(jax_scope, BRIDGE_ATTR, bridge)
    return bridge


# ---------------------------------------------------------------------------
# symshape -> JAX


def _sym_text(e: Dim) -> str:
    return str(e)


def _mono_text(m: Mono, scope: SymbolicScope) -> str:
    # The raw constructor skips the scope's rewrite rules: we want the term itself.
    return str(DimExpr({m: 1}, scope))


def _scaled(k: int, text: str) -> str:
    return text if k == 1 else f"{k}*{text}"


def _raw(terms: Terms, scope: SymbolicScope) -> Dim:
    if not terms:
        return 0
    if len(terms) == 1 and ONE in terms:
        return terms[ONE]
    return DimExpr(terms, scope)


def _top_atoms(e: Dim) -> set[Any]:
    return set() if isinstance(e, int) else e.atoms(recursive=False)


def _self_referential(lhs: Dim, rhs: Dim) -> bool:
    """Could JAX's rule ``lhs -> rhs`` rewrite its own result (``a == a*b`` makes
    JAX recurse forever)?  JAX rewrites a term by the rule of the whole term,
    or, in a product, by the rule of a single ``factor^k``; so the right side
    must not contain the left term, nor (for a one-factor left side) that
    factor with that exponent.  A left side of several symshape terms (a
    ``mod`` or ``max`` spelled out) is checked conservatively: no shared atom."""
    if isinstance(lhs, int) or isinstance(rhs, int):
        return False
    monos = [m for m in lhs.terms if m]
    if len(monos) != 1 or ONE in lhs.terms:
        return bool(_top_atoms(lhs) & _top_atoms(rhs))
    m = monos[0]
    return any(mm == m or (len(m) == 1 and m[0] in mm) for mm in rhs.terms)


def _equality_candidates(scope: SymbolicScope, c: Constraint) -> list[tuple[str, str]]:
    """``(JAX text, reason to skip or "")`` for the equality ``c``, best first.

    JAX accepts an equality only with a single term ``k*t`` on the left, and
    only one equality per term; it then rewrites ``k*t`` like symshape's
    rules do.  The user's orientation comes first (JAX derives more from some
    forms, e.g. from 'mod(a, 128) == 0' also '128*floordiv(a, 128) == a'),
    then the orientation of symshape's own rule, so that both libraries
    normalize to the same form, then every term of the difference isolated.
    """
    d = c.diff
    assert isinstance(d, DimExpr)
    out: list[tuple[str, Dim, Dim]] = [(f"{_sym_text(c.lhs)} == {_sym_text(c.rhs)}",
                                        c.lhs, c.rhs)]
    dterms = d.terms
    neg = {m: -k for m, k in dterms.items()}
    for m, (k, rhs) in scope.rewrite_rules.items():
        expected: Terms = {}
        if isinstance(rhs, DimExpr):
            expected = {mm: -cc for mm, cc in rhs.terms.items()}
        elif rhs:
            expected = {ONE: -rhs}
        expected[m] = expected.get(m, 0) + k
        expected = {mm: cc for mm, cc in expected.items() if cc}
        if expected in (dterms, neg):
            out.append((f"{_scaled(k, _mono_text(m, scope))} == {_sym_text(rhs)}",
                        DimExpr({m: 1}, scope), rhs))
    out.append((f"{_sym_text(c.rhs)} == {_sym_text(c.lhs)}", c.rhs, c.lhs))

    def pref(item: tuple[Mono, int]) -> tuple[int, int]:
        m, k = item
        is_var = len(m) == 1 and m[0][1] == 1 and type(m[0][0]) is Var
        return (0 if is_var and abs(k) == 1 else 1 if is_var else 2, abs(k))

    for m, k in sorted(((m, k) for m, k in dterms.items() if m), key=pref):
        rest = {mm: cc for mm, cc in dterms.items() if mm != m}
        # k*m + rest == 0  <=>  |k|*m == -sign(k)*rest
        rhs_e = _raw({mm: (-cc if k > 0 else cc) for mm, cc in rest.items()}, scope)
        out.append((f"{_scaled(abs(k), _mono_text(m, scope))} == {_sym_text(rhs_e)}",
                    DimExpr({m: 1}, scope), rhs_e))
    seen: set[str] = set()
    result: list[tuple[str, str]] = []
    for text, lhs, rhs in out:
        if text in seen:
            continue
        seen.add(text)
        skip = "both sides share a factor, JAX would rewrite it forever" \
            if _self_referential(lhs, rhs) else ""
        result.append((text, skip))
    return result


def _try_jax_scope(constraints: list[str]) -> str:
    """'' if JAX accepts ``constraints``, else JAX's reason."""
    try:
        jx.make_jax_scope(constraints)
    except Exception as err:  # noqa: BLE001 -- any failure of JAX's parser means "no"
        text = str(err).splitlines()[0] if str(err) else ""
        return f"{type(err).__name__}: {text}" if text else type(err).__name__
    return ""


def _jax_scope_for(sym: SymbolicScope) -> Any:
    accepted: list[str] = []
    for c in sym.constraints:
        if c.op == ">=":
            accepted.append(f"{_sym_text(c.lhs)} >= {_sym_text(c.rhs)}")
            continue
        tried: list[str] = []
        for cand, skip in _equality_candidates(sym, c):
            reason = skip or _try_jax_scope(accepted + [cand])
            if not reason:
                accepted.append(cand)
                break
            tried.append(f"{cand!r} ({reason})")
        else:
            raise JaxConversionError(
                f"the equality constraint {c.text!r} of {sym} cannot be written as a JAX "
                "constraint: JAX needs an equality with a single term `k*t` on the left "
                "that no earlier equality constrains and that does not occur on the "
                "right. Tried " + "; ".join(tried))
    for fact, _reason in sym.implicit_facts:
        # e.g. 'b - c >= 1' after 'a == b - c' rewrote the variable a away: JAX
        # would lose the fact that a >= 1.
        if isinstance(fact, DimExpr):
            accepted.append(f"{_sym_text(fact)} >= 0")
    reason = _try_jax_scope(accepted)
    if reason:
        raise JaxConversionError(
            f"JAX rejects the translated constraints {accepted} of {sym}: {reason}")
    return jx.make_jax_scope(accepted)


def bridge_for_symshape(sym: SymbolicScope) -> Bridge:
    """The bridge of a symshape scope (created, with its JAX scope, on first use)."""
    b = getattr(sym, BRIDGE_ATTR, None)
    if b is not None:
        return b
    with _lock:
        b = getattr(sym, BRIDGE_ATTR, None)
        if b is None:
            b = _attach(sym, _jax_scope_for(sym))
    return b


def _expr_to_jax(e: DimExpr) -> Any:
    bridge = bridge_for_symshape(e.scope)
    r = bridge.to_cache.get(e)
    if r is not None:
        return r
    text = _sym_text(e)
    try:
        r = jx.parse_jax_dim(text, bridge.jax)
    except Exception as err:  # JAX's parser raises ValueError or TypeError
        raise JaxConversionError(
            f"JAX cannot represent the dimension '{text}': {err}") from None
    bridge.to_cache[e] = r
    return r


# ---------------------------------------------------------------------------
# JAX -> symshape


def _jax_text(e: Any) -> str:
    """Text of a JAX expression in symshape's grammar."""
    if not jx.is_jax_dim_expr(e):
        return str(int(e))
    pieces: list[str] = []
    for factors, coeff in jx.expr_terms(e):
        body = "*".join(_jax_factor_text(f) + (f"^{k}" if k != 1 else "") for f, k in factors)
        mag = abs(coeff)
        term = str(mag) if not body else (body if mag == 1 else f"{mag}*{body}")
        if not pieces:
            pieces.append(f"-{term}" if coeff < 0 else term)
        else:
            pieces.append(f" - {term}" if coeff < 0 else f" + {term}")
    return "".join(pieces) if pieces else "0"


def _check_name(name: str) -> str:
    if not parsing.is_name(name):
        raise JaxConversionError(
            f"the JAX dimension variable {name!r} is not a valid symshape name "
            "(a letter or '_' followed by letters, digits or '_', not floordiv/mod/max/min)")
    return name


def _jax_factor_text(f: Any) -> str:
    kind, payload = jx.factor_parts(f)
    if kind == "var":
        return _check_name(payload)
    return f"{kind}({', '.join(_jax_text(o) for o in payload)})"


def _symshape_scope_for(jax_scope: Any) -> SymbolicScope:
    texts = [f"{_jax_text(e1)} {op} {_jax_text(e2)}"
             for op, e1, e2, _ in jx.scope_constraints(jax_scope)]
    try:
        return SymbolicScope(texts)
    except (ParseError, UnsatisfiableConstraintsError, SymshapeError) as err:
        raise JaxConversionError(
            f"cannot translate the constraints {texts} of JAX scope {jax_scope}: {err}") from None


def bridge_for_jax(jax_scope: Any) -> Bridge:
    """The bridge of a JAX scope (created, with its symshape scope, on first use)."""
    b = getattr(jax_scope, BRIDGE_ATTR, None)
    if b is not None:
        return b
    with _lock:
        b = getattr(jax_scope, BRIDGE_ATTR, None)
        if b is None:
            b = _attach(_symshape_scope_for(jax_scope), jax_scope)
    return b


# JAX's dimension operations, named as the functions of the syntax trees
_BUILD = kind_table({Op.FLOORDIV: floordiv, Op.MOD: mod, Op.MAX: max_expr, Op.MIN: min_expr},
                    required=FUNCTIONS)


def expr_from_jax(e: Any, bridge: Bridge) -> Dim:
    """symshape expression for the JAX expression ``e`` of ``bridge.jax`` (cached)."""
    key = jx.expr_key(e) if jx.is_jax_dim_expr(e) else e
    r = bridge.from_cache.get(key)
    if r is None:
        try:
            r = _convert_jax(e, bridge)
        except JaxConversionError as err:
            r = err
        bridge.from_cache[key] = r
    if isinstance(r, JaxConversionError):
        raise r
    return r


def _convert_jax(e: Any, bridge: Bridge) -> Dim:
    if not jx.is_jax_dim_expr(e):
        return int(e)
    total: Dim = 0
    for factors, coeff in jx.expr_terms(e):
        v: Dim = coeff
        for f, k in factors:
            fv = _convert_factor(f, bridge)
            v = v * (fv if k == 1 else fv ** k)
        total = total + v
    return total


def _convert_factor(f: Any, bridge: Bridge) -> Dim:
    kind, payload = jx.factor_parts(f)
    if kind == "var":
        return bridge.sym.var(_check_name(payload))
    build = _BUILD.get(kind)
    if build is None:
        raise JaxConversionError(f"unknown JAX dimension operation '{kind}' in '{f}'")
    args = [expr_from_jax(o, bridge) for o in payload]
    try:
        return build(*args)
    except (SymshapeError, ZeroDivisionError) as err:
        raise JaxConversionError(
            f"symshape cannot represent the part '{f}' of a JAX dimension: {err}") from None


# ---------------------------------------------------------------------------
# Public API


def _is_shape(x: Any) -> bool:
    return isinstance(x, tuple | list)


def _common_scope(dims: Sequence[Any], pred: Any, scope_of: Any, what: str) -> Any:
    scope = None
    for d in dims:
        if pred(d):
            s = scope_of(d)
            if scope is None:
                scope = s
            elif s is not scope:
                raise JaxConversionError(
                    f"the dimensions of the {what} shape {tuple(dims)} come from different scopes")
    return scope


def to_jax(x: Any) -> Any:
    """The JAX equivalent of a symshape dimension, shape or scope.

    * a :class:`symshape.DimExpr` -> a JAX symbolic dimension in the JAX scope
      paired with the expression's scope;
    * an ``int`` -> the same ``int``;
    * a shape (tuple or list of the above) -> a tuple;
    * a :class:`symshape.SymbolicScope` -> a ``jax.export.SymbolicScope`` with
      the constraints translated (always the same JAX scope for one symshape
      scope).

    Raises:
      JaxConversionError: (a ``ValueError``) for what JAX cannot represent,
        e.g. an equality constraint that cannot be put in JAX's ``k*t == e``
        form; the message names the offending part.
    """
    jx.require("convert")
    if isinstance(x, SymbolicScope):
        return bridge_for_symshape(x).jax
    if isinstance(x, DimExpr):
        return _expr_to_jax(x)
    if _is_shape(x):
        _common_scope(x, lambda d: isinstance(d, DimExpr), lambda d: d.scope, "symshape")
        return tuple(to_jax(d) for d in x)
    v = as_int(x)
    if v is not None:
        return v
    raise TypeError(f"to_jax: expected a symshape dimension, shape or scope, got {x!r}")


def from_jax(x: Any) -> Any:
    """The symshape equivalent of a JAX symbolic dimension, shape or scope.

    The inverse of :func:`to_jax`: ``from_jax(to_jax(e)) == e``.  A JAX scope
    that did not come from :func:`to_jax` gets a new symshape scope with its
    constraints translated (always the same one for one JAX scope).

    Raises:
      JaxConversionError: (a ``ValueError``) for what symshape cannot
        represent, e.g. a variable name outside symshape's grammar or a
        division by a divisor that may be zero; the message names the part.
    """
    jx.require("convert")
    if jx.is_jax_scope(x):
        return bridge_for_jax(x).sym
    if jx.is_jax_dim_expr(x):
        return expr_from_jax(x, bridge_for_jax(jx.expr_scope(x)))
    if _is_shape(x):
        _common_scope(x, jx.is_jax_dim_expr, jx.expr_scope, "JAX")
        return tuple(from_jax(d) for d in x)
    v = as_int(x)
    if v is not None:
        return v
    raise TypeError(f"from_jax: expected a JAX symbolic dimension, shape or scope, got {x!r}")


__all__ = ["BRIDGE_ATTR", "Bridge", "JaxConversionError", "bridge_for_jax",
           "bridge_for_symshape", "expr_from_jax", "from_jax", "to_jax"]
