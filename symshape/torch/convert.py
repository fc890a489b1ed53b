"""The shapes of an ``ExportedProgram`` as symshape shapes (``from_torch``)."""

from __future__ import annotations

from typing import Any, NamedTuple

import sympy
import torch

from symshape.algebra.dimexpr import DimExpr
from symshape.algebra.floordiv import floordiv
from symshape.scope import SymbolicScope
from symshape.shapes import Dim
from symshape.sympy import from_sympy
from symshape.torch._internals import sym_expr
from symshape.torch.specs import ExportSpecs


class TorchShapes(NamedTuple):
    """The flat input (tensor) and output shapes of an ``ExportedProgram``."""

    in_shapes: tuple[tuple[Dim, ...], ...]
    out_shapes: tuple[tuple[Dim, ...], ...]
    scope: SymbolicScope


_UNBOUNDED = 2 ** 62
"""A bound at least this large is read as no bound: torch < 2.4 wrote an absent
``max`` as ``sys.maxsize - 1``, later versions as ``int_oo``."""


def finite_bound(x: Any) -> int | None:
    """An int for a finite bound of a torch value range, else None.

    torch writes an absent bound as ``int_oo``/``-int_oo`` (its own sympy
    numbers, which claim to be finite and crash ``int()``) or ``oo``; only a
    true integer is read, so any infinity is "no bound"."""
    if isinstance(x, bool):
        return None
    if isinstance(x, int):
        v = x
    elif isinstance(x, sympy.Integer):
        v = int(x)
    else:
        return None
    return v if abs(v) < _UNBOUNDED else None


def range_texts(ep: Any, symbols: dict[str, Dim] | None = None) -> list[tuple[str, str]]:
    """``(torch text, symshape claim)`` of each bound in ``ep.range_constraints``."""
    out: list[tuple[str, str]] = []
    for key, vr in ep.range_constraints.items():
        e = from_sympy(key, _scratch(symbols), symbols=symbols)
        lo, hi = finite_bound(vr.lower), finite_bound(vr.upper)
        torch_text = f"{key}: [{vr.lower}, {vr.upper}]"
        if lo is not None:
            out.append((torch_text, f"{e} >= {lo}"))
        if hi is not None:
            out.append((torch_text, f"{e} <= {hi}"))
    return out


_SCRATCH: list[SymbolicScope] = []


def _scratch(symbols: dict[str, Dim] | None) -> SymbolicScope | None:
    if symbols:
        for v in symbols.values():
            if isinstance(v, DimExpr):
                return v.scope
    if not _SCRATCH:
        _SCRATCH.append(SymbolicScope())
    return _SCRATCH[0]


def _user_input_nodes(ep: Any) -> list[Any]:
    names = list(ep.graph_signature.user_inputs)
    by_name = {n.name: n for n in ep.graph.nodes if n.op == "placeholder"}
    return [by_name[n] for n in names if n in by_name]


def tensor_placeholders(ep: Any) -> list[Any]:
    """The placeholder nodes of the user's tensor inputs, in order."""
    return [n for n in _user_input_nodes(ep) if isinstance(n.meta.get("val"), torch.Tensor)]


def _tensor_shapes(nodes: list[Any]) -> list[tuple[Any, ...]]:
    out = []
    for n in nodes:
        val = n.meta.get("val")
        if isinstance(val, torch.Tensor):
            out.append(tuple(sym_expr(d) for d in val.shape))
    return out


def symbol_map(ep: Any, specs: ExportSpecs) -> dict[str, Dim]:
    """torch's symbols (``s77``) as symshape expressions of the specs' variables,
    read off the input shapes (``s`` for a size ``c*s + d`` is ``(size - d) // c``)."""
    shapes = _tensor_shapes(_user_input_nodes(ep))
    out: dict[str, Dim] = {}
    for leaf, shape in enumerate(shapes):
        for axis, te in enumerate(shape):
            if isinstance(te, int) or not isinstance(te, sympy.Expr) or te.is_Integer:
                continue
            free = list(te.free_symbols)
            if len(free) != 1 or free[0].name in out:
                continue
            s = free[0]
            poly = sympy.Poly(te, s) if te.is_polynomial(s) else None
            if poly is None or poly.degree() != 1:
                continue
            c, d = (int(x) for x in poly.all_coeffs())
            mine = [x.expr for x in specs.inputs if x.leaf == leaf and x.axis == axis]
            if not mine:
                continue
            out[s.name] = floordiv(mine[0] - d, c)
    return out


def from_torch(ep: Any, specs: ExportSpecs | None = None) -> TorchShapes:
    """The input and output shapes of an ``ExportedProgram`` as symshape shapes.

    Without ``specs`` the dimension variables are torch's symbols (``s77``) in
    one scope whose constraints are ``ep.range_constraints``.  With the
    :class:`ExportSpecs` the program was exported from, they are the specs'
    variables, in the specs' scope.
    """
    if specs is not None:
        symbols: dict[str, Dim] | None = symbol_map(ep, specs)
        scope = specs.scope
    else:
        symbols = None
        texts = [claim for _, claim in range_texts(ep)]
        scope = SymbolicScope(texts)
    ins = tuple(tuple(from_sympy(d, scope, symbols=symbols) for d in shape)
                for shape in _tensor_shapes(_user_input_nodes(ep)))
    outs: list[tuple[Dim, ...]] = []
    out_node = next(n for n in ep.graph.nodes if n.op == "output")
    vals = out_node.meta.get("val")
    if vals is None:
        vals = [a.meta.get("val") for a in out_node.args[0] if hasattr(a, "meta")]
    user_outputs = set(ep.graph_signature.user_outputs)
    nodes = list(out_node.args[0])
    for node, v in zip(nodes, vals, strict=False):
        if hasattr(node, "name") and node.name not in user_outputs:
            continue
        if isinstance(v, torch.Tensor):
            outs.append(tuple(from_sympy(sym_expr(d), scope, symbols=symbols)
                              for d in v.shape))
    return TorchShapes(ins, tuple(outs), scope)


__all__ = ["TorchShapes", "finite_bound", "from_torch", "range_texts", "symbol_map",
           "tensor_placeholders"]
