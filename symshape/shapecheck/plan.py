"""``ShapeCheck``: match concrete shapes against symbolic specs."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from symshape import parsing
from symshape.errors import ParseError, ScopeMismatchError, SymshapeError
from symshape.expr import DimExpr, _as_int
from symshape.scope import SymbolicScope
from symshape.shapecheck.program import Program
from symshape.shapecheck.pycompile import compile_program
from symshape.shapecheck.solve import Solver
from symshape.shapecheck.tree import flatten_shapes, flatten_specs
from symshape.shapes import resolve_scope

Dim = DimExpr | int


class ShapeCheck:
    """A compiled check of concrete shapes against symbolic shape specs.

    Building it solves, once, every dimension variable as a program over the actual
    dimension sizes (see :mod:`symshape.shapecheck.solve`); :meth:`solve` then runs that
    program on concrete shapes, and :meth:`to_stablehlo` emits it as StableHLO with
    ``@shape_assertion`` custom calls.

    Args:
      specs: one spec per argument: a sequence or a dict, possibly nested through
        tuples, lists and dicts (a pytree; dict keys in sorted order).  A spec is a
        string such as ``"b, 2*h + 1, 8"`` or a tuple of ints and symbolic dimensions.
      constraints: constraints of a new scope for the string specs (exclusive with
        ``scope``).
      scope: the scope to parse the string specs in; tuple specs must belong to it.

    Raises:
      ParseError: for malformed specs; placeholders ``_``/``...`` are not allowed.
      ScopeMismatchError: when tuple specs belong to different scopes.
      UnsolvableSpecsError: when a dimension variable cannot be computed from the
        shapes (it occurs only under floordiv/mod/max/min, or only in equations that
        are not solvable), or a constraint mentions a variable of no spec.
      UnsatisfiableConstraintsError: when no shape can match the specs.

    >>> check = ShapeCheck(["b, 2*h + 1", "h"])
    >>> check.solve([(3, 9), (4,)])
    {'b': 3, 'h': 4}
    """

    def __init__(self, specs: Any, *, constraints: Iterable[str] = (),
                 scope: SymbolicScope | None = None) -> None:
        tree, leaves = flatten_specs(specs)
        self._tree = tree
        self._scope = _choose_scope(leaves, constraints, scope)
        names = [name for name, _ in leaves]
        parsed: list[tuple[Dim, ...]] = []
        texts: list[str] = []
        for name, leaf in leaves:
            dims, text = _parse_leaf(name, leaf, self._scope)
            parsed.append(dims)
            texts.append(text)
        self._specs = tuple(parsed)
        self._spec_texts = tuple(texts)
        self._program = Solver(self._scope, names, parsed, texts).run()
        self._check = compile_program(self._program)
        self._flat = tree[0] == "seq" and all(k[0] == "leaf" for k in tree[1])

    # -- properties --------------------------------------------------------------
    @property
    def scope(self) -> SymbolicScope:
        """The scope of the specs."""
        return self._scope

    @property
    def program(self) -> Program:
        """The backend-neutral program (steps, assertions, outputs)."""
        return self._program

    @property
    def arg_names(self) -> tuple[str, ...]:
        """Display names of the flat arguments (``args[0]``, ``args[1]['x']``, ...)."""
        return self._program.arg_names

    @property
    def specs(self) -> tuple[tuple[Dim, ...], ...]:
        """The parsed spec of each flat argument."""
        return self._specs

    @property
    def variables(self) -> tuple[str, ...]:
        """The dimension variables :meth:`solve` returns, in sorted order."""
        return tuple(name for name, _ in self._program.outputs)

    @property
    def solutions(self) -> dict[str, str]:
        """Each variable as an expression over the input sizes, for reading."""
        return {name: self._program.expression(i) for name, i in self._program.outputs}

    def __repr__(self) -> str:
        specs = ", ".join(f"{n}: {t}" for n, t in zip(self.arg_names, self._spec_texts,
                                                       strict=True)) or "no arguments"
        return f"ShapeCheck({specs}; {len(self._program.assertions)} assertions)"

    # -- backends ----------------------------------------------------------------
    def solve(self, shapes: Any) -> dict[str, int]:
        """The dimension variables for concrete ``shapes``.

        Args:
          shapes: the shapes with the structure of the specs (a leaf is a tuple of ints
            or an array with ``.shape``), or a flat sequence with one per argument.

        Returns:
          ``{name: value}`` for every dimension variable, in sorted name order.

        Raises:
          ShapeMismatchError: with the message of the first failing check (rank,
            non-integer or negative size, or an assertion of the program).
        """
        if self._flat and type(shapes) in (list, tuple) and len(shapes) == len(self._specs):
            flat = [s if type(s) is tuple else _leaf_shape(s, i, self.arg_names)
                    for i, s in enumerate(shapes)]
        else:
            flat = flatten_shapes(self._tree, self.arg_names, shapes)
        return self._check(flat)

    def to_stablehlo(self, dtypes: Any = None, *, func_name: str = "main",
                     public: bool = True) -> str:
        """The check as an MLIR module in the StableHLO dialect.

        The function takes one tensor per flat argument (constant sizes static,
        symbolic ones ``?``), calls ``@shape_assertion`` for every assertion and returns
        the dimension variables (``tensor<i64>``) in sorted name order.

        Args:
          dtypes: the element type of every argument (``"f32"``, ``"bf16"``, a numpy
            dtype, ...), or a sequence with one per flat argument.  Default ``f32``.
          func_name: the name of the function.
          public: whether the function is public (else private).
        """
        from symshape.shapecheck.stablehlo import emit_module
        return emit_module(self._program, dtypes, func_name=func_name, public=public)


def _leaf_shape(x: Any, i: int, names: Sequence[str]) -> tuple[Any, ...]:
    shape = getattr(x, "shape", None)
    if shape is not None:
        return tuple(shape)
    if isinstance(x, list | tuple):
        return tuple(x)
    from symshape.errors import ShapeMismatchError
    raise ShapeMismatchError(
        f"{names[i]}: expected a shape (a tuple of ints) or an array with .shape, got {x!r}")


def _choose_scope(leaves: Sequence[tuple[str, Any]], constraints: Iterable[str],
                  scope: SymbolicScope | None) -> SymbolicScope:
    """The one scope of every spec (see the class docs)."""
    owner: tuple[str, SymbolicScope] | None = None
    for name, leaf in leaves:
        if isinstance(leaf, str):
            continue
        for d in leaf:
            if isinstance(d, DimExpr):
                if owner is None:
                    owner = (name, d.scope)
                elif d.scope is not owner[1]:
                    raise ScopeMismatchError(
                        f"the specs of {owner[0]} and {name} belong to different scopes "
                        f"({owner[1]} and {d.scope}); build every dimension in one scope")
    if isinstance(constraints, str):
        return resolve_scope(constraints, scope)  # raises its clear error
    constraints = tuple(constraints)
    if owner is None:
        return resolve_scope(constraints, scope)
    if scope is not None and scope is not owner[1]:
        raise ScopeMismatchError(
            f"the spec of {owner[0]} belongs to {owner[1]}, not to scope={scope}")
    if constraints:
        raise SymshapeError(
            f"constraints= cannot be added to the scope of the tuple spec of {owner[0]} "
            f"({owner[1]}); create that scope with the constraints instead")
    return owner[1]


def _parse_leaf(name: str, leaf: Any, scope: SymbolicScope) -> tuple[tuple[Dim, ...], str]:
    if isinstance(leaf, str):
        try:
            nodes = parsing.parse_spec(leaf)
        except ParseError as err:
            raise ParseError(f"in the spec of {name}: {err.reason}", text=err.text,
                             column=err.column, expected=err.expected) from None
        for node in nodes:
            if node[0] in ("_", "..."):
                raise ParseError(
                    f"in the spec of {name}: the placeholder '{node[0]}' cannot be used in a "
                    "ShapeCheck (there is no concrete shape to fill it); write a constant or "
                    "a dimension variable", text=leaf, column=node[1])
        try:
            dims = scope.symbolic_shape(leaf)
        except SymshapeError as err:
            raise type(err)(f"in the spec of {name}: {err}") from None
        body = leaf.strip()
        if body.startswith("(") and body.endswith(")"):
            text = body
        else:
            text = f"({body}{',' if len(dims) == 1 else ''})"
        return dims, text
    dims_l: list[Dim] = []
    for j, d in enumerate(leaf):
        if isinstance(d, DimExpr):
            dims_l.append(d)
            continue
        v = None if isinstance(d, bool) else _as_int(d)
        if v is None:
            raise SymshapeError(f"{name}: dimension {j} of the spec is {d!r}, not an int or a "
                                "symbolic dimension")
        dims_l.append(v)
    dims = tuple(dims_l)
    text = "(" + ", ".join(str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"
    return dims, text


__all__ = ["ShapeCheck"]
