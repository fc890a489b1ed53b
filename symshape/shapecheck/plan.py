"""``ShapeCheck``: match concrete shapes against symbolic specs."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from types import EllipsisType
from typing import Any

from symshape import arguments, parsing
from symshape.algebra.dimexpr import DimExpr, as_int
from symshape.errors import (
    ArgumentError,
    ParseError,
    ScopeMismatchError,
    ShapeMismatchError,
    SymshapeError,
)
from symshape.scope import SymbolicScope
from symshape.shapecheck.program import Program
from symshape.shapecheck.pycompile import CheckFn, compile_program
from symshape.shapecheck.solve import Solver
from symshape.shapecheck.tree import flatten_shapes, flatten_specs
from symshape.shapes import build, resolve_scope

Dim = DimExpr | int
SpecDim = DimExpr | int | None | EllipsisType
"""A dimension of a spec: an int, a symbolic dimension, ``None`` for the
placeholder ``_`` (any size) or ``...`` (any number of dimensions, last only)."""

# Programs kept per combination of ranks of specs with '...' (each a few KB).
_MAX_RANK_PROGRAMS = 64


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

    Placeholders take their sizes from the shapes being checked: ``_`` is one
    dimension of any size, and a final ``...`` any number (zero or more) of
    dimensions of any size, so ``"b, ..."`` matches every shape of rank >= 1.
    The specs with ``...`` get one program per combination of actual ranks,
    built on first use (see :meth:`program_for`).

    Raises:
      ParseError: for malformed specs.
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
        parsed: list[tuple[SpecDim, ...]] = []
        texts: list[str] = []
        for name, leaf in leaves:
            dims, text = _parse_leaf(name, leaf, self._scope)
            parsed.append(dims)
            texts.append(text)
        self._specs = tuple(parsed)
        self._spec_texts = tuple(texts)
        self._names = tuple(names)
        # The rank each spec needs ('...' covering no dimension), and whether it
        # may be larger.
        self._min_ranks = tuple(len(s) - (bool(s) and s[-1] is Ellipsis) for s in parsed)
        self._variadic = tuple(bool(s) and s[-1] is Ellipsis for s in parsed)
        # Building the smallest-rank program checks the specs at once (extra
        # dimensions under '...' add no variables and no equations).
        self._program = self._solve_for(self._min_ranks)
        self._check = compile_program(self._program)
        self._by_ranks: dict[tuple[int, ...], tuple[Program, CheckFn]] = {
            self._min_ranks: (self._program, self._check)}
        self._flat = tree[0] == "seq" and all(k[0] == "leaf" for k in tree[1])

    def _solve_for(self, ranks: tuple[int, ...]) -> Program:
        """The program for arguments of these ranks (each allowed by its spec)."""
        specs: list[tuple[Dim | None, ...]] = []
        for spec, rank in zip(self._specs, ranks, strict=True):
            if spec and spec[-1] is Ellipsis:
                fixed = [d for d in spec[:-1] if d is not Ellipsis]
                specs.append((*fixed, *[None] * (rank - len(fixed))))
            else:
                specs.append(tuple(d for d in spec if d is not Ellipsis))
        return Solver(self._scope, self._names, specs, self._spec_texts).run()

    # -- properties --------------------------------------------------------------
    @property
    def scope(self) -> SymbolicScope:
        """The scope of the specs."""
        return self._scope

    @property
    def program(self) -> Program:
        """The backend-neutral program (steps, assertions, outputs).  For specs
        ending with ``...``, the program where ``...`` covers no dimension
        (:meth:`program_for` gives the others)."""
        return self._program

    def program_for(self, ranks: Sequence[int]) -> Program:
        """The program for flat arguments of these ranks (``...`` and ``_`` filled
        with dimensions of any size).

        Raises:
          ShapeMismatchError: when a rank does not fit its spec.
        """
        return self._for_ranks(tuple(ranks))[0]

    def _for_ranks(self, ranks: tuple[int, ...],
                   shapes: Sequence[tuple[Any, ...]] | None = None
                   ) -> tuple[Program, CheckFn]:
        got = self._by_ranks.get(ranks)
        if got is not None:
            return got
        if len(ranks) != len(self._specs):
            raise ShapeMismatchError(
                f"{len(ranks)} rank(s) for {len(self._specs)} argument(s) "
                f"({', '.join(self.arg_names) or 'none'})")
        for i, (name, text, rank, least, variadic) in enumerate(zip(
                self.arg_names, self._spec_texts, ranks, self._min_ranks, self._variadic,
                strict=True)):
            if rank < least or (rank != least and not variadic):
                need = f"rank >= {least}" if variadic else f"rank {least}"
                shape = "" if shapes is None else f" {tuple(shapes[i])}"
                raise ShapeMismatchError(
                    f"Rank mismatch for {name}: its spec {text} needs {need}, but its "
                    f"shape{shape} has rank {rank}")
        program = self._solve_for(ranks)
        if len(self._by_ranks) >= _MAX_RANK_PROGRAMS:
            self._by_ranks.clear()  # rare: a bounded cache, never unbounded growth
        got = self._by_ranks[ranks] = (program, compile_program(program))
        return got

    @property
    def arg_names(self) -> tuple[str, ...]:
        """Display names of the flat arguments (``args[0]``, ``args[1]['x']``, ...)."""
        return self._program.arg_names

    @property
    def specs(self) -> tuple[tuple[SpecDim, ...], ...]:
        """The parsed spec of each flat argument (``None`` for a placeholder ``_``,
        ``Ellipsis`` for a final ``...``)."""
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
        if any(self._variadic):
            return self._for_ranks(tuple(len(s) for s in flat), flat)[1](flat)
        return self._check(flat)

    def to_stablehlo(self, dtypes: Any = None, *, func_name: str = "main",
                     public: bool = True, ranks: Sequence[int] | None = None) -> str:
        """The check as an MLIR module in the StableHLO dialect.

        The function takes one tensor per flat argument (constant sizes static,
        symbolic ones ``?``), calls ``@shape_assertion`` for every assertion and returns
        the dimension variables (``tensor<i64>``) in sorted name order.

        Args:
          dtypes: the element type of every argument (``"f32"``, ``"bf16"``, a numpy
            dtype, ...), or a sequence with one per flat argument.  Default ``f32``.
          func_name: the name of the function.
          public: whether the function is public (else private).
          ranks: the rank of every flat argument; needed when a spec ends with
            ``...`` (a StableHLO function has one rank per argument).

        Raises:
          SymshapeError: for a spec with ``...`` and no ``ranks``.
          ShapeMismatchError: when ``ranks`` do not fit the specs.
        """
        from symshape.shapecheck.stablehlo import emit_module
        if not isinstance(func_name, str) or not func_name:
            raise ArgumentError(f"func_name= must be a non-empty string, got {func_name!r:.80}")
        if ranks is not None:
            ranks = arguments.sizes(ranks, "ranks")
        if ranks is None:
            open_ended = [n for n, v in zip(self.arg_names, self._variadic, strict=True) if v]
            if open_ended:
                raise SymshapeError(
                    f"the spec of {open_ended[0]} ends with '...', so its rank is not fixed, "
                    "but a StableHLO function needs one rank per argument: pass ranks= (one "
                    "per argument), or write the dimensions out (_ for any size)")
            program = self._program
        else:
            program = self.program_for(ranks)
        return emit_module(program, dtypes, func_name=func_name, public=public)


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
    constraints = arguments.texts(constraints)
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


def _parse_leaf(name: str, leaf: Any, scope: SymbolicScope
                ) -> tuple[tuple[SpecDim, ...], str]:
    if isinstance(leaf, str):
        try:
            nodes = parsing.parse_spec(leaf)
        except ParseError as err:
            raise ParseError(f"in the spec of {name}: {err.reason}", text=err.text,
                             column=err.column, expected=err.expected) from None
        # The placeholders are filled from the shapes being checked, when they are.
        parsed: list[SpecDim] = []
        memo: dict[int, Dim] = {}  # parse_spec shares repeated subtrees
        try:
            for node in nodes:
                if node[0] == "_":
                    parsed.append(None)
                elif node[0] == "...":
                    parsed.append(Ellipsis)
                else:
                    parsed.append(build(node, scope, leaf, memo))
        except SymshapeError as err:
            raise type(err)(f"in the spec of {name}: {err}") from None
        dims = tuple(parsed)
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
        v = None if isinstance(d, bool) else as_int(d)
        if v is None:
            raise SymshapeError(f"{name}: dimension {j} of the spec is {d!r}, not an int or a "
                                "symbolic dimension")
        dims_l.append(v)
    dims = tuple(dims_l)
    text = "(" + ", ".join(str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"
    return dims, text


__all__ = ["ShapeCheck"]
