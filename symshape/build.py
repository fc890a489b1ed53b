"""From syntax trees to canonical expressions, in a given scope.

The algebra layer's reader: :mod:`symshape.parsing` gives the trees, this
module builds them with the expression operations of the scope's variables.
Scopes use it for their constraint texts, so it never imports the scope
(:mod:`symshape.shapes` is the public API on top: ``symbolic_shape``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final

from symshape import parsing
from symshape.algebra.atoms import ONE
from symshape.algebra.dimexpr import DimExpr, add_expr_into, as_int, dim_power
from symshape.algebra.floordiv import floordiv, mod
from symshape.algebra.maxmin import max_expr, min_expr
from symshape.echo import echo
from symshape.errors import ParseError, SymshapeError
from symshape.operators import BINARY, ONE_SUBTREE, Op, kind_table, kinds

if TYPE_CHECKING:
    from symshape.scope import SymbolicScope

Dim = DimExpr | int

_BINARY: dict[str, Callable[[Any, Any], Any]] = kind_table({
    Op.ADD: lambda x, y: x + y,
    Op.SUB: lambda x, y: x - y,
    Op.MUL: lambda x, y: x * y,
    Op.FLOORDIV: floordiv,
    Op.MOD: mod,
    Op.MAX: max_expr,
    Op.MIN: min_expr,
}, required=BINARY)
"""The expression operation of each binary operator of the syntax trees."""
_NEG: Final[str] = Op.NEG.value
_POW: Final[str] = Op.POW.value
_MUL: Final[str] = Op.MUL.value
_ONE_SUBTREE: Final = kinds(ONE_SUBTREE)
_ADD: Final[str] = Op.ADD.value


def build(node: tuple[Any, ...], scope: SymbolicScope, text: str = "",
          memo: dict[int, Dim] | None = None) -> Dim:
    """Build the canonical expression of a parsed AST ``node`` in ``scope``.

    Works bottom-up with an explicit stack, so a deeply nested expression
    costs no Python recursion; the tree of a short ``text`` (as many levels
    as characters at most) is built by recursion, which is faster. ``memo``
    (node id -> expression) reuses what was built for a node object met
    before: parsed specs share repeated subtrees (see
    :func:`symshape.parsing.share_subtrees`), and the links of a comparison
    chain share their middle operands."""
    kind: str = node[0]  # (typed: the compiled comparisons are string ones)
    if kind == "var":  # (a leaf: no memo, no walk)
        return scope.var(node[2])
    if kind == "int":
        return int(node[2])
    if memo is None:
        memo = {}
    got = memo.get(id(node))
    if got is not None:
        return got
    if text and len(text) <= _SHALLOW_TEXT:
        # A short text is shallow (each level of nesting takes a character),
        # so the recursive walk, about twice as fast, stays far from the
        # recursion limit; a caller already near that limit gets the
        # iterative walk below (the memo keeps what was built).
        try:
            return _build_shallow(node, scope, text, memo)
        except RecursionError:
            pass
    names: dict[str, Dim] = {}
    stack = [node]
    while stack:
        current = stack[-1]
        key = id(current)
        if key in memo:
            stack.pop()
            continue
        kind = current[0]
        if kind == "int":
            memo[key] = int(current[2])
            stack.pop()
            continue
        if kind == "var":
            memo[key] = scope.var(current[2])
            stack.pop()
            continue
        long_sum = False
        if kind in _ONE_SUBTREE:
            children: tuple[Any, ...] | list[Any] = (current[2],)
        elif kind in _BINARY:
            children = (current[2], current[3])
            if kind in _SUMS:
                spine = _sum_spine(current, memo)
                if len(spine) >= _LONG_SUM:
                    # (its linear terms are read off at the sum: see _sum_operands)
                    children = [operand for _, operand in spine if not _is_linear_term(operand)]
                    long_sum = True
        else:
            raise ParseError(f"'{kind}' is not allowed here", text=text, column=current[1])
        missing = [child for child in children if id(child) not in memo]
        if missing:
            stack.extend(reversed(missing))
            continue
        stack.pop()
        if long_sum:
            memo[key] = _sum(_sum_operands(spine, scope, memo, names), scope)
        else:
            memo[key] = _combine(current, [memo[id(child)] for child in children], text)
    return memo[id(node)]


_SUMS = kinds((Op.ADD, Op.SUB))
_LONG_SUM = 8  # operands from which a written sum is added up in one pass
_SHALLOW_TEXT = 120  # characters up to which build() may recurse


def _build_shallow(node: tuple[Any, ...], scope: SymbolicScope, text: str,
                   memo: dict[int, Dim]) -> Dim:
    """:func:`build` by recursion, for a node of a short text: the same
    operations in the same order (operands left to right, a long sum in one
    pass), and the same memo."""
    kind: str = node[0]  # (typed: the compiled comparisons are string ones)
    if kind == "var":
        return scope.var(node[2])
    if kind == "int":
        return int(node[2])
    key = id(node)
    got = memo.get(key)
    if got is not None:
        return got
    if kind in _ONE_SUBTREE:
        out = _combine(node, [_build_shallow(node[2], scope, text, memo)], text)
    elif kind in _BINARY:
        if kind in _SUMS and _long_spine(node, memo):
            spine = _sum_spine(node, memo)
            for _, x in spine:  # (its linear terms are read off at the sum)
                if not _is_linear_term(x):
                    _build_shallow(x, scope, text, memo)
            out = _sum(_sum_operands(spine, scope, memo, {}), scope)
        else:
            left = _build_shallow(node[2], scope, text, memo)
            out = _combine(node, [left, _build_shallow(node[3], scope, text, memo)], text)
    else:
        raise ParseError(f"'{kind}' is not allowed here", text=text, column=node[1])
    memo[key] = out
    return out


def _long_spine(node: tuple[Any, ...], memo: dict[int, Dim]) -> bool:
    """Does the sum that ``node`` ends have at least _LONG_SUM operands (see
    :func:`_sum_spine`)?  Counts no further than that."""
    n = 1
    while node[0] in _SUMS and id(node) not in memo:
        n += 1
        if n >= _LONG_SUM:
            return True
        node = node[2]
    return False


def _sum_spine(node: tuple[Any, ...], memo: dict[int, Dim]) -> list[tuple[int, Any]]:
    """The operands of the sum ``x0 ± x1 ± ... ± xn`` that ``node`` ends, with their
    signs: the left-leaning chain of ``add``/``sub`` nodes a written sum parses
    into (stopping at a partial sum already built)."""
    spine: list[tuple[int, Any]] = []
    while node[0] in _SUMS and id(node) not in memo:
        spine.append((1 if node[0] == _ADD else -1, node[3]))
        node = node[2]
    spine.append((1, node))
    spine.reverse()
    return spine


def _is_linear_term(node: tuple[Any, ...]) -> bool:
    """Is ``node`` a variable, an integer, or an integer times a variable
    (either way round)?  A sum reads these off without building them."""
    kind: str = node[0]
    if kind == "var" or kind == "int":
        return True
    if kind != _MUL:
        return False
    left: str = node[2][0]
    right: str = node[3][0]
    return (left == "int" and right == "var") or (left == "var" and right == "int")


def _sum_operands(spine: list[tuple[int, Any]], scope: SymbolicScope, memo: dict[int, Dim],
                  names: dict[str, Dim]) -> list[tuple[int, int, Dim]]:
    """The operands of a sum's ``spine`` as ``(sign, k, x)``: the operand is
    ``k*x``.  A linear term (see :func:`_is_linear_term`) is read off its
    node, every other operand is built already (in ``memo``).  ``names``:
    the variables read so far (a written sum names few variables, often)."""
    out: list[tuple[int, int, Dim]] = []
    for sign, node in spine:
        kind: str = node[0]
        if kind == "int":
            out.append((sign, 1, int(node[2])))
        elif kind == "var":
            out.append((sign, 1, _named(node[2], scope, names)))
        elif kind == _MUL and _is_linear_term(node):
            left: tuple[Any, ...] = node[2]
            right: tuple[Any, ...] = node[3]
            if left[0] == "int":
                out.append((sign, int(left[2]), _named(right[2], scope, names)))
            else:
                out.append((sign, int(right[2]), _named(left[2], scope, names)))
        else:
            out.append((sign, 1, memo[id(node)]))
    return out


def _named(name: str, scope: SymbolicScope, names: dict[str, Dim]) -> Dim:
    """``scope.var(name)``, remembered in ``names`` (a method call on the scope
    is a generic one from compiled code, and a written sum names few variables,
    many times)."""
    v = names.get(name)
    if v is None:
        v = names[name] = scope.var(name)
    return v


def _sum(operands: list[tuple[int, int, Dim]], scope: SymbolicScope) -> Dim:
    """``k0*x0 ± k1*x1 ± ... ± kn*xn`` (``operands``: ``(sign, k, x)``), left to
    right, in time linear in the number of terms.

    Adding one operand at a time copies the growing term map each time, which
    is quadratic for a written sum of thousands of terms. Without the scope's
    rewrite rules, one term map updated in place gives exactly what the
    repeated ``+`` and ``-`` of the products give (the same terms, in the same
    order; a product ``k*x`` is not built where its terms can be added
    scaled); with rewrite rules (applied after every step), the operands are
    multiplied and added one at a time.
    """
    _, k0, acc = operands[0]
    if k0 != 1:
        acc = k0 * acc
    if scope.rewrites_terms:
        for sign, k, x in operands[1:]:
            if k != 1:
                x = k * x
            acc = acc + x if sign > 0 else acc - x
        return acc
    out: dict[Any, int] | None = None  # the terms of acc, while it is not a constant
    for sign, k, x in operands[1:]:
        if out is not None:
            if k:  # k*x's terms, in x's order, each times k (k*x is 0 for k == 0)
                add_expr_into(out, x, sign * k)
        else:
            if k != 1:
                x = k * x
            if type(acc) is int and type(x) is int:
                acc = acc + sign * x
                continue
            if type(acc) is int:  # int ± expr: the expression's terms come first
                assert isinstance(x, DimExpr)
                out = dict(x.terms) if sign > 0 else {m: -c for m, c in x.terms.items()}
                add_expr_into(out, acc, 1)
            else:
                assert isinstance(acc, DimExpr)
                out = dict(acc.terms)
                add_expr_into(out, x, sign)
        if not out:
            acc, out = 0, None
        elif len(out) == 1 and ONE in out:
            acc = out[ONE]
            out = None
    return acc if out is None else DimExpr.make(out, scope)


def _combine(node: tuple[Any, ...], args: list[Dim], text: str) -> Dim:
    """The expression of ``node`` from the expressions of its operands."""
    kind: str = node[0]
    if kind == _NEG:
        return -args[0]
    try:
        if kind == _POW:
            return dim_power(args[0], node[3])
        return _BINARY[kind](args[0], args[1])
    except ZeroDivisionError as err:
        raise ParseError(f"division by zero in {kind}", text=text, column=node[1]) from err
    except SymshapeError as err:
        if isinstance(err, ParseError):
            raise
        raise type(err)(f"{err}\n  at column {node[1]} of\n{echo(text, node[1])}") from None


def parse_expr_in_scope(text: str, scope: SymbolicScope) -> Dim:
    """Parse one dimension expression in ``scope``."""
    return build(parsing.parse_expr(text), scope, text)


def parse_comparison_in_scope(text: str, scope: SymbolicScope
                              ) -> list[tuple[str, Dim, Dim]]:
    """Parse a comparison or chain (``16 <= a <= b``) into ``(op, lhs, rhs)`` links."""
    links = parsing.parse_comparison(text)
    memo: dict[int, Dim] = {}  # the links of a chain share their middle operands
    return [(op, build(lhs, scope, text, memo), build(rhs, scope, text, memo))
            for op, lhs, rhs in links]


def shape_in_scope(spec: str | None, scope: SymbolicScope,
                   like: Sequence[int | None] | None = None) -> tuple[Dim, ...]:
    """Parse a shape spec in ``scope`` (see :func:`symshape.symbolic_shape`)."""
    sc = scope
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
    v = as_int(d)
    if v is None:
        raise SymshapeError(f"like= must hold ints or None, got {d!r} (spec {spec!r})")
    return v
