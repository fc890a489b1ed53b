"""From text to canonical expressions: ``symbolic_shape`` and friends."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from symshape import parsing
from symshape.errors import ParseError, SymshapeError
from symshape.expr import DimExpr, _as_int, floordiv, max_expr, min_expr, mod
from symshape.scope import SymbolicScope

Dim = DimExpr | int

_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "add": lambda x, y: x + y,
    "sub": lambda x, y: x - y,
    "mul": lambda x, y: x * y,
    "floordiv": floordiv,
    "mod": mod,
    "max": max_expr,
    "min": min_expr,
}


def build(node: tuple[Any, ...], scope: SymbolicScope, text: str = "",
          memo: dict[int, Dim] | None = None) -> Dim:
    """Build the canonical expression of a parsed AST ``node`` in ``scope``.

    ``memo`` (node id -> expression) reuses what was built for a node object
    met before: parsed specs share repeated subtrees (see
    :func:`symshape.parsing.share_subtrees`)."""
    if memo is not None:
        got = memo.get(id(node))
        if got is None:
            got = memo[id(node)] = _build(node, scope, text, memo)
        return got
    return _build(node, scope, text, None)


def _build(node: tuple[Any, ...], scope: SymbolicScope, text: str,
           memo: dict[int, Dim] | None) -> Dim:
    kind = node[0]
    if kind == "int":
        return int(node[2])
    if kind == "var":
        return scope._var(node[2])
    if kind == "neg":
        return -build(node[2], scope, text, memo)
    if kind == "pow":
        base = build(node[2], scope, text, memo)
        return base ** node[3]
    fn = _BINARY.get(kind)
    if fn is None:
        raise ParseError(f"'{kind}' is not allowed here", text=text, column=node[1])
    x = build(node[2], scope, text, memo)
    y = build(node[3], scope, text, memo)
    try:
        return fn(x, y)
    except ZeroDivisionError as err:
        raise ParseError(f"division by zero in {kind}", text=text, column=node[1]) from err
    except SymshapeError as err:
        if isinstance(err, ParseError):
            raise
        raise type(err)(f"{err}\n  in {text!r} at column {node[1]}") from None


def parse_expr_in_scope(text: str, scope: SymbolicScope) -> Dim:
    """Parse one dimension expression in ``scope``."""
    return build(parsing.parse_expr(text), scope, text)


def parse_comparison_in_scope(text: str, scope: SymbolicScope
                              ) -> list[tuple[str, Dim, Dim]]:
    """Parse a comparison or chain (``16 <= a <= b``) into ``(op, lhs, rhs)`` links."""
    links = parsing.parse_comparison(text)
    return [(op, build(lhs, scope, text), build(rhs, scope, text)) for op, lhs, rhs in links]


def resolve_scope(constraints: Iterable[str], scope: SymbolicScope | None) -> SymbolicScope:
    """The scope to use given ``constraints=`` and ``scope=`` arguments."""
    if isinstance(constraints, str):
        raise SymshapeError(
            f"constraints must be a sequence of strings, got the string {constraints!r}; "
            f"write [{constraints!r}]")
    constraints = tuple(constraints)
    if scope is not None:
        if constraints:
            raise SymshapeError(
                "pass either scope= or constraints=, not both: the constraints of a scope "
                f"are fixed when it is created (scope: {scope})")
        if not isinstance(scope, SymbolicScope):
            raise SymshapeError(f"scope= must be a symshape.SymbolicScope, got {scope!r}")
        return scope
    return SymbolicScope(constraints)


def symbolic_shape(spec: str | None, *, constraints: Iterable[str] = (),
                   scope: SymbolicScope | None = None,
                   like: Sequence[int | None] | None = None) -> tuple[Dim, ...]:
    """Parse a shape spec such as ``"b, 2*h + 1, ..."`` into a tuple of dimensions.

    Args:
      spec: comma-separated dimension expressions, optionally in parentheses,
        with placeholders ``_`` (one dimension taken from ``like``) and a final
        ``...`` (the remaining dimensions of ``like``).  ``None`` means ``"..."``.
      constraints: constraints for a new scope (exclusive with ``scope``).
      scope: an existing :class:`SymbolicScope` to build the dimensions in.
      like: a concrete shape (entries may be ``None`` for unknown) that fills
        the placeholders and must agree with the constant dimensions.

    Returns:
      A tuple of ``int`` (constant dimensions) and :class:`DimExpr`.
    """
    sc = resolve_scope(constraints, scope)
    if spec is None:
        spec = "..."
    if not isinstance(spec, str):
        raise SymshapeError(f"a shape spec must be a string or None, got {spec!r}")
    nodes = parsing.parse_spec(spec)
    like_t: tuple[int | None, ...] | None = None
    if like is not None:
        like_t = tuple(None if d is None else _like_dim(d, spec) for d in like)
    out: list[Dim] = []
    memo: dict[int, Dim] = {}  # parse_spec shares repeated subtrees
    for i, node in enumerate(nodes):
        kind = node[0]
        if kind == "...":
            if like_t is None:
                raise ParseError("'...' needs a concrete shape to fill it; pass like=",
                                 text=spec, column=node[1])
            rest = like_t[i:]
            for j, d in enumerate(rest, start=i):
                if d is None:
                    raise ParseError(f"'...' covers dimension {j}, which is unknown in "
                                     f"like={like_t}", text=spec, column=node[1])
                out.append(d)
            return tuple(out)
        if like_t is not None and i >= len(like_t):
            raise ParseError(f"spec has more dimensions than like={like_t} "
                             f"(rank {len(like_t)})", text=spec, column=node[1])
        if kind == "_":
            if like_t is None:
                raise ParseError("placeholder '_' needs a concrete shape to fill it; "
                                 "pass like=", text=spec, column=node[1])
            d = like_t[i]
            if d is None:
                raise ParseError(f"placeholder '_' for dimension {i} which is unknown in "
                                 f"like={like_t}", text=spec, column=node[1])
            out.append(d)
            continue
        e = build(node, sc, spec, memo)
        if like_t is not None and isinstance(e, int) and like_t[i] is not None \
                and like_t[i] != e:
            raise ParseError(f"dimension {i} is the constant {e} in the spec but "
                             f"{like_t[i]} in like={like_t}", text=spec, column=node[1])
        out.append(e)
    if like_t is not None and len(out) != len(like_t):
        raise ParseError(f"spec has rank {len(out)} but like={like_t} has rank "
                         f"{len(like_t)}", text=spec, column=max(len(spec), 1))
    return tuple(out)


def _like_dim(d: Any, spec: str) -> int:
    v = _as_int(d)
    if v is None:
        raise SymshapeError(f"like= must hold ints or None, got {d!r} (spec {spec!r})")
    return v
