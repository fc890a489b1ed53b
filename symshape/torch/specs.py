"""symshape specs as the ``dynamic_shapes`` of ``torch.export.export``.

One :class:`torch.export.Dim` per *root*: a dimension variable ``v``, or, for a
variable with a fixed residue (``mod(v, 128) == 0``), the hidden quotient
``_v = (v - r) // m``, so that ``v`` is the derived dim ``m*_v + r``.  Each
root's ``min``/``max`` are symshape's tight bounds under the constraints.  A
spec dimension ``c*v + d`` with ``c >= 1`` is the derived dim ``c*Dim + d``;
any other symbolic dimension (``a + b``, ``a*b``, ``floordiv(n, 2)``) is
``Dim.AUTO`` and its relation is left to run-time checks.

torch.export traces every dynamic dimension as if it were at least 2 (it
specializes the sizes 0 and 1, and keeps the symbols of derived dims' roots
>= 2), so by default every root gets ``root >= 2`` added to the constraints
(``var_min=2``); the specs' scope has them, and ``ExportSpecs.assumptions``
lists them.  Pass ``var_min=1`` to keep 1 (torch then accepts size-1 inputs at
run time for plain dims, but may refuse relations it derives assuming >= 2).

(Over 600 lines for a reason: one translation, specs to ``torch.export.Dim``
arguments and back, whose steps -- roots, derived dims, residues, ranges --
each depend on the ones before; apart, they would pass the same half-built
tables between modules.)
"""

from __future__ import annotations

import contextlib
import inspect
import math
import re
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import torch

from symshape.algebra.atoms import FloorDiv, Var
from symshape.algebra.dimexpr import DimExpr
from symshape.algebra.floordiv import floordiv, mod
from symshape.decision import prove
from symshape.errors import (
    ParseError,
    ShapeMismatchError,
    SymshapeError,
    UnsatisfiableConstraintsError,
)
from symshape.operators import FUNCTIONS
from symshape.scope import SymbolicScope
from symshape.shapecheck import ShapeCheck
from symshape.shapes import Dim, parse_comparison_in_scope, resolve_scope, symbolic_shape

Key = int | str
Path = tuple[Key, ...]


class UnexpressedConstraintsWarning(UserWarning):
    """Constraints or relations that ``torch.export``'s ``Dim``s cannot express.

    :func:`symshape.torch.export` enforces them with run-time checks; a
    ``dynamic_shapes`` passed to ``torch.export.export`` directly does not.
    """


@dataclass(frozen=True)
class Root:
    """One ``torch.export.Dim``: its name, the symshape expression of its value
    in the spec's variables, and its range."""

    name: str
    expr: DimExpr
    min: int
    max: int | None
    var: str
    modulus: int = 1
    residue: int = 0

    def dim_text(self) -> str:
        """``Dim('b', min=2, max=100)``, as the ``Dim`` is written."""
        args = [repr(self.name), f"min={self.min}"]
        if self.max is not None:
            args.append(f"max={self.max}")
        return f"Dim({', '.join(args)})"


@dataclass(frozen=True)
class InputDim:
    """One dimension of one tensor input."""

    leaf: int
    """Index of the tensor among the flat tensor inputs."""
    path: Path
    """Keys from the top-level argument list down to the tensor."""
    axis: int
    expr: Dim
    """The dimension in the spec's scope."""
    torch_dim: Any
    """What ``dynamic_shapes`` holds for it: ``None`` (static), a ``Dim``, a
    derived ``Dim`` or ``Dim.AUTO``."""
    root: Root | None = None
    coeff: int = 1
    offset: int = 0
    """``expr == coeff*root + offset`` when ``root`` is set."""


def tensor_shapes(args: Any) -> list[tuple[int, ...]]:
    """The shapes of the tensors among ``args`` (a tuple; nested tuples, lists
    and dicts are walked), in the order of ``ExportSpecs.tensor_paths``."""
    leaves: list[tuple[Path, Any]] = []
    flatten_tree(tuple(args), (), leaves)
    return [tuple(x.shape) for _, x in leaves if isinstance(x, torch.Tensor)]


def _keystr(path: Path) -> str:
    return "".join(f"[{k!r}]" for k in path)


def flatten_tree(x: Any, path: Path, out: list[tuple[Path, Any]]) -> Any:
    """Flat leaves of the pytree ``x`` (tuple, list, dict) with their paths;
    returns the tree structure as nested containers of leaf indices."""
    if isinstance(x, tuple | list) and not hasattr(x, "_fields"):
        return type(x)(flatten_tree(v, (*path, i), out) for i, v in enumerate(x))
    if isinstance(x, dict):
        return {k: flatten_tree(v, (*path, k), out) for k, v in x.items()}
    out.append((path, x))
    return len(out) - 1


def _broadcast(specs: Any, tree: Any, path: Path, out: dict[int, Any], name: str) -> None:
    """Assign a spec (str or None) to each leaf of ``tree`` from the prefix ``specs``."""
    if specs is None or isinstance(specs, str):
        stack = [tree]
        while stack:
            t = stack.pop()
            if isinstance(t, int):
                out[t] = specs
            elif isinstance(t, dict):
                stack.extend(t.values())
            else:
                stack.extend(t)
        return
    if isinstance(tree, tuple | list) and isinstance(specs, tuple | list):
        if len(specs) != len(tree):
            raise SymshapeError(f"the shape specs for {name}{_keystr(path)} have "
                                f"{len(specs)} entries but the arguments have {len(tree)}")
        for i, (s, t) in enumerate(zip(specs, tree, strict=True)):
            _broadcast(s, t, (*path, i), out, name)
        return
    if isinstance(tree, dict) and isinstance(specs, dict):
        if set(specs) != set(tree):
            raise SymshapeError(f"the shape specs for {name}{_keystr(path)} have keys "
                                f"{sorted(map(str, specs))} but the arguments have "
                                f"{sorted(map(str, tree))}")
        for k, t in tree.items():
            _broadcast(specs[k], t, (*path, k), out, name)
        return
    raise SymshapeError(
        f"the shape spec for {name}{_keystr(path)} must be None, a spec string or a "
        f"container matching the arguments, got {specs!r}")


def _unflatten(tree: Any, leaves: Sequence[Any]) -> Any:
    if isinstance(tree, int):
        return leaves[tree]
    if isinstance(tree, dict):
        return {k: _unflatten(v, leaves) for k, v in tree.items()}
    return type(tree)(_unflatten(v, leaves) for v in tree)


def linear_in_one(e: Dim) -> tuple[str, int, int] | None:
    """``(v, c, d)`` with ``e == c*v + d``, if ``e`` is such."""
    if not isinstance(e, DimExpr) or not e.is_linear():
        return None
    var: str | None = None
    c = d = 0
    for m, k in e.terms.items():
        if not m:
            d = k
            continue
        (atom, _), = m
        if not isinstance(atom, Var) or var is not None:
            return None
        var, c = atom.name, k
    if var is None:
        return None
    return var, c, d


def _constant_denominators(scope: SymbolicScope) -> set[int]:
    """The constant divisors of the floordivs/mods in the scope's constraints."""
    out: set[int] = set()
    for c in scope.constraints:
        if isinstance(c.diff, DimExpr):
            for a in c.diff.atoms(recursive=True):
                if isinstance(a, FloorDiv) and isinstance(a.den, int) and a.den >= 2:
                    out.add(a.den)
    return out


def _residue(v: DimExpr, scope: SymbolicScope) -> tuple[int, int]:
    """``(m, r)``: the largest found modulus with ``v % m == r`` for every valuation."""
    found: list[tuple[int, int]] = []
    for m in sorted(_constant_denominators(scope)):
        lo, hi = scope.bounds(mod(v, m))
        if lo == hi:
            found.append((m, int(lo)))
    if not found:
        return 1, 0
    best = max(found)
    lcm = math.lcm(*(m for m, _ in found))
    if lcm != best[0]:
        lo, hi = scope.bounds(mod(v, lcm))
        if lo == hi:
            return lcm, int(lo)
    return best


def _satisfiable_scope(texts: Sequence[str], why: str) -> SymbolicScope:
    try:
        return SymbolicScope(list(texts))
    except UnsatisfiableConstraintsError as err:
        raise UnsatisfiableConstraintsError(f"{why}: {err}") from None


@dataclass
class ExportSpecs:
    """symshape shape specs translated for ``torch.export``.

    Build it with :func:`export_specs`.  ``dynamic_shapes`` is what
    ``torch.export.export(model, args, dynamic_shapes=...)`` takes.
    """

    scope: SymbolicScope
    """The scope of the shapes: the constraints plus ``assumptions``."""
    shapes: Any
    """``args`` with each tensor replaced by its symbolic shape (a tuple)."""
    dynamic_shapes: Any
    """The ``dynamic_shapes`` argument of ``torch.export.export`` (a tuple with
    one entry per argument)."""
    roots: dict[str, Root]
    """The ``Dim`` roots by name."""
    dims: dict[str, Any]
    """The ``torch.export.Dim`` objects of the roots, by name."""
    inputs: tuple[InputDim, ...]
    """Every dimension of every tensor input."""
    unexpressed: tuple[str, ...]
    """Constraints and relations the ``Dim``s do not express (symshape syntax)."""
    assumptions: tuple[str, ...]
    """Constraints added for torch (``v >= 2``, see ``var_min``)."""
    user_constraints: tuple[str, ...]
    """The constraints as given."""
    arg_names: tuple[str, ...]
    """Names of the top-level arguments (the model's parameter names when known)."""
    tensor_paths: tuple[Path, ...]
    """Path of each flat tensor input."""
    example: dict[str, int] = field(default_factory=dict)
    """The variables' values at the example arguments (empty if they do not
    match the specs)."""
    _specs: Any = None
    _args_shapes: Any = None
    _var_min: int = 2
    _residue_dims: bool = True
    _derived: dict[tuple[str, ...], ExportSpecs] = field(default_factory=dict)

    @cached_property
    def check(self) -> ShapeCheck:
        """The symshape shape check of the tensor inputs (every constraint)."""
        flat = [tuple(d.expr for d in self.inputs if d.leaf == i)
                for i in range(len(self.tensor_paths))]
        return ShapeCheck(flat, scope=self.scope)

    @property
    def dim_facts(self) -> tuple[str, ...]:
        """What the ``Dim``s alone say, as symshape constraints (torch checks
        them itself on every call of the exported program)."""
        return tuple(_dim_facts(self.roots.values(), self.assumptions))

    def source(self, leaf: int, axis: int) -> str:
        """How torch names a size in guards: ``L['x'].size()[0]``."""
        path = self.tensor_paths[leaf]
        head = f"L[{self.arg_names[path[0]]!r}]" if isinstance(path[0], int) \
            and path[0] < len(self.arg_names) else f"L[{path[0]!r}]"
        return head + _keystr(path[1:]) + f".size()[{axis}]"

    def input_name(self, leaf: int) -> str:
        """``x`` or ``x[0]['k']``: the tensor as the user calls it."""
        path = self.tensor_paths[leaf]
        head = self.arg_names[path[0]] if isinstance(path[0], int) else str(path[0])
        return head + _keystr(path[1:])

    def check_args(self, args: Any) -> dict[str, int]:
        """Check concrete arguments against the specs (constraints included).

        Returns the variables' values; raises ``ShapeMismatchError`` naming the
        first failing check.
        """
        shapes = tensor_shapes(args)
        try:
            return self.check.solve(shapes)
        except ShapeMismatchError as err:
            raise ShapeMismatchError(f"the arguments do not match the shape specs: {err}") \
                from None

    def with_constraints(self, extra: Iterable[str]) -> ExportSpecs:
        """The same specs with more constraints (the example values are kept)."""
        if self._args_shapes is None:
            raise SymshapeError("these ExportSpecs were not built by export_specs")
        key = tuple(extra)
        got = self._derived.get(key)
        if got is None:
            got = export_specs(self._args_shapes, self._specs,
                               constraints=[*self.user_constraints, *key],
                               var_min=self._var_min, arg_names=self.arg_names,
                               residue_dims=self._residue_dims)
            got.example = dict(self.example)
            if len(self._derived) < 256:  # explain() asks for the same ones repeatedly
                self._derived[key] = got
        return got

    def with_residue_checks(self) -> ExportSpecs:
        """The same specs where a variable with a fixed residue (``mod(s, 128)
        == 0``) is a ``Dim`` of its own and the residue a constraint that
        ``Dim``s do not express (checked at run time by :func:`export`).

        torch's ``ExportedProgram.module()`` does not check that a size is of
        the form ``128*_s`` of a derived dim unless the model itself needs it
        (torch 2.13), so :func:`symshape.torch.export` exports these."""
        if not self._residue_dims or all(r.modulus == 1 for r in self.roots.values()):
            return self
        if self._args_shapes is None:
            raise SymshapeError("these ExportSpecs were not built by export_specs")
        got = export_specs(self._args_shapes, self._specs, constraints=self.user_constraints,
                           var_min=self._var_min, arg_names=self.arg_names,
                           residue_dims=False)
        got.example = dict(self.example)
        return got

    def describe(self) -> str:
        """The ``Dim``s and derived dims, as Python source."""
        lines = [f"{r.name} = {r.dim_text()}" for r in self.roots.values()]
        for d in self.inputs:
            if d.torch_dim is None:
                continue
            what = "Dim.AUTO" if d.root is None else str(d.torch_dim)
            lines.append(f"{self.input_name(d.leaf)}.shape[{d.axis}]: {what}  # {d.expr}")
        return "\n".join(lines)


class _ShapeOnly:
    """Stands for a tensor argument when only its shape is known."""

    def __init__(self, shape: Sequence[int]) -> None:
        self.shape = tuple(shape)


def export_specs(args: Any, shapes_specs: Any, *, constraints: Iterable[str] = (),
                 scope: SymbolicScope | None = None, var_min: int = 2,
                 arg_names: Sequence[str] | None = None, model: Any = None,
                 residue_dims: bool = True) -> ExportSpecs:
    """Translate symshape shape specs into ``torch.export`` dynamic shapes.

    Args:
      args: the example arguments (a tuple; tensors may sit in nested tuples,
        lists and dicts).  They give the ranks and fill the placeholders.
      shapes_specs: ``None`` (static shapes), one spec string for every tensor,
        or a container matching ``args`` whose leaves are spec strings
        (``"b, 2*h + 1, ..."``) or ``None``.
      constraints: constraints of a new scope (exclusive with ``scope``), such as
        ``"16 <= b <= 512"`` or ``"mod(s, 128) == 0"``.
      scope: a :class:`~symshape.SymbolicScope` whose constraints to use.
      var_min: the least value of every ``Dim`` root (see the module docs).
      arg_names: names of the top-level arguments, as torch's guards name them
        (default: from ``model``'s ``forward`` signature, else ``args[i]``).
      model: the module to export (only its signature is read).
      residue_dims: make a variable with a fixed residue the derived dim
        ``m*_v + r`` (else a ``Dim`` of its own, the residue unexpressed).

    Raises:
      ParseError, SymshapeError: for a malformed spec, a spec that does not fit
        its argument, or specs that do not match ``args``.
      UnsatisfiableConstraintsError: when the constraints (with ``var_min``)
        admit no shape.
    """
    user = resolve_scope(constraints, scope)
    user_texts = tuple(user.constraint_texts)
    args_t = tuple(args) if isinstance(args, list | tuple) else (args,)
    leaves: list[tuple[Path, Any]] = []
    tree = flatten_tree(args_t, (), leaves)
    names = _arg_names(args_t, arg_names, model)
    spec_of: dict[int, Any] = {}
    if isinstance(shapes_specs, list) and not isinstance(args, list):
        shapes_specs = tuple(shapes_specs)
    _broadcast(shapes_specs, tree, (), spec_of, "args")
    tensors = [(i, p, x) for i, (p, x) in enumerate(leaves)
               if isinstance(x, torch.Tensor | _ShapeOnly)]
    for i, (p, x) in enumerate(leaves):
        if not isinstance(x, torch.Tensor | _ShapeOnly) and spec_of.get(i) is not None:
            raise SymshapeError(f"args{_keystr(p)} is not a tensor ({type(x).__name__}) "
                                f"but has the shape spec {spec_of[i]!r}")

    def parse_all(sc: SymbolicScope) -> list[tuple[Dim, ...]]:
        out: list[tuple[Dim, ...]] = []
        for i, p, x in tensors:
            spec = spec_of.get(i)
            shape = tuple(int(d) for d in x.shape)
            if spec is None:
                out.append(shape)
                continue
            if not isinstance(spec, str):
                raise SymshapeError(f"the shape spec for args{_keystr(p)} must be a string "
                                    f"or None, got {spec!r}")
            try:
                out.append(symbolic_shape(spec, scope=sc, like=shape))
            except SymshapeError as err:
                where = f"shape spec {spec!r} for args{_keystr(p)} of shape {shape}"
                if isinstance(err, ParseError):
                    raise ParseError(f"{where}: {err.reason}", text=err.text,
                                     column=err.column, expected=err.expected) from None
                raise type(err)(f"{where}: {err}") from None
        return out

    # 1. every variable of the specs >= var_min, and variables with one value fixed
    parsed = parse_all(user)
    names_used = sorted({v for shape in parsed for d in shape if isinstance(d, DimExpr)
                         for v in d.free_vars})
    assumptions: list[str] = []
    for v in names_used:
        ve = user.var(v)
        lo, _ = user.bounds(ve)
        if isinstance(ve, DimExpr) and lo < var_min:
            assumptions.append(f"{v} >= {var_min}")
    why = (f"the constraints {list(user_texts)} with every dimension variable >= {var_min} "
           "(torch.export specializes sizes 0 and 1; pass var_min=1 to allow 1)")
    sc = _satisfiable_scope([*user_texts, *assumptions], why)
    # 2. the roots of divisible variables >= var_min too
    residues: dict[str, tuple[int, int]] = {}
    for v in names_used:
        ve = sc.var(v)
        if not isinstance(ve, DimExpr) or ve.free_vars != {v}:
            continue
        m, r = _residue(ve, sc)
        if m > 1:
            residues[v] = (m, r)
            if sc.bounds(floordiv(ve - r, m))[0] < var_min:
                assumptions.append(f"{v} >= {m * var_min + r}")
    # 3. variables with a single value become constants
    sc = _satisfiable_scope([*user_texts, *assumptions], why)
    for v in names_used:
        ve = sc.var(v)
        if isinstance(ve, DimExpr):
            lo, hi = sc.bounds(ve)
            if lo == hi:
                assumptions.append(f"{v} == {int(lo)}")
    sc = _satisfiable_scope([*user_texts, *assumptions], why)
    parsed = parse_all(sc)

    roots: dict[str, Root] = {}
    torch_dims: dict[str, Any] = {}
    inputs: list[InputDim] = []
    auto: list[str] = []
    per_leaf: list[Any] = []
    tensor_paths = tuple(p for _, p, _ in tensors)

    def root_of(v: str) -> Root:
        m, r = residues.get(v, (1, 0)) if residue_dims else (1, 0)
        name = v if m == 1 else f"_{v}"
        got = roots.get(name)
        if got is None:
            ve = sc.var(v)
            assert isinstance(ve, DimExpr)
            rexpr = ve if m == 1 else floordiv(ve - r, m)
            assert isinstance(rexpr, DimExpr)
            lo, hi = sc.bounds(rexpr)
            got = roots[name] = Root(name, rexpr, int(lo),
                                     None if math.isinf(hi) else int(hi), v, m, r)
            torch_dims[name] = torch.export.Dim(name, min=got.min, max=got.max)
        return got

    for leaf, ((_, p, _), shape) in enumerate(zip(tensors, parsed, strict=True)):
        entries: list[Any] = []
        for axis, d in enumerate(shape):
            lin = linear_in_one(d)
            if isinstance(d, int):
                entries.append(torch.export.Dim.STATIC)
                inputs.append(InputDim(leaf, p, axis, d, None))
                continue
            if lin is not None and lin[1] > 0:
                v, c, off = lin
                root = root_of(v)
                coeff, offset = c * root.modulus, c * root.residue + off
                td: Any = torch_dims[root.name]
                if coeff != 1:
                    td = coeff * td
                if offset:
                    td = td + offset
                entries.append(td)
                inputs.append(InputDim(leaf, p, axis, d, td, root, coeff, offset))
                continue
            entries.append(torch.export.Dim.AUTO)
            inputs.append(InputDim(leaf, p, axis, d, torch.export.Dim.AUTO))
            auto.append(f"{_display(names, p)}.shape[{axis}] == {d}")
        per_leaf.append(None if all(e is torch.export.Dim.STATIC for e in entries)
                        else tuple(entries))

    # 4. which constraints the Dims express: those proved from the Dims alone
    # (ranges, residues, and the variables the Dims share: ``b == a`` makes
    # every ``b`` an ``a``, ``n == 2*m + 1`` a derived dim).  A constraint is
    # read in that scope, never in the final one, where it holds by itself.
    dim_facts = _dim_facts(roots.values(), assumptions)
    mentioned = {w for t in user_texts for w in re.findall(r"[^\W\d]\w*", t)} - \
        {op.function for op in FUNCTIONS}
    for v in sorted(set(names_used) | mentioned):
        ve = sc.var(v)
        lin = None if isinstance(ve, int) or ve.free_vars == {v} else linear_in_one(ve)
        if isinstance(ve, int) or lin is not None and lin[1] >= 1:
            dim_facts.append(f"{v} == {ve}")
    try:
        dim_scope = SymbolicScope(dim_facts)
    except SymshapeError:  # cannot happen (the specs' scope has all of these)
        dim_scope = SymbolicScope(_dim_facts(roots.values(), assumptions))
    unexpressed: list[str] = []
    for text in user_texts:
        try:
            ok = all(prove(f"{lhs} {op} {rhs}", scope=dim_scope).proved
                     for op, lhs, rhs in parse_comparison_in_scope(text, dim_scope))
        except SymshapeError:
            ok = False
        if not ok:
            unexpressed.append(text)
    if not residue_dims:  # the residues the derived dims would have said
        unexpressed.extend(t for v, (m, r) in sorted(residues.items())
                           if (t := f"mod({v}, {m}) == {r}") not in unexpressed)
    unexpressed.extend(auto)

    leaf_values: list[Any] = [None] * len(leaves)
    shape_values: list[Any] = [None] * len(leaves)
    for (i, _, _), entry, shape in zip(tensors, per_leaf, parsed, strict=True):
        leaf_values[i] = entry
        shape_values[i] = shape
    dynamic_shapes = _unflatten(tree, leaf_values)
    out = ExportSpecs(
        scope=sc, shapes=_unflatten(tree, shape_values), dynamic_shapes=dynamic_shapes,
        roots=roots, dims=torch_dims, inputs=tuple(inputs), unexpressed=tuple(unexpressed),
        assumptions=tuple(assumptions), user_constraints=user_texts, arg_names=names,
        tensor_paths=tensor_paths,
        _specs=shapes_specs,
        _args_shapes=_unflatten(tree, [_ShapeOnly(x.shape) if isinstance(
            x, torch.Tensor | _ShapeOnly) else x for _, x in leaves]),
        _var_min=var_min, _residue_dims=residue_dims)
    # The example's values (suggestions must keep the example valid); arguments
    # that do not match are reported by check_args, when exporting.
    with contextlib.suppress(SymshapeError):
        out.example = out.check.solve([tuple(int(d) for d in x.shape) for _, _, x in tensors])
    return out


def _dim_facts(roots: Iterable[Root], assumptions: Iterable[str]) -> list[str]:
    """What the ``Dim``s say, as symshape constraints: each root's range, the
    residue of a variable with a derived dim, and the variables made constants."""
    out: list[str] = []
    for root in roots:
        upper = "" if root.max is None else f" <= {root.max}"
        out.append(f"{root.min} <= {root.expr}{upper}")
        if root.modulus > 1:
            out.append(f"mod({root.var}, {root.modulus}) == {root.residue}")
    out.extend(a for a in assumptions if "==" in a)
    return out


def _display(names: Sequence[str], path: Path) -> str:
    head = names[path[0]] if isinstance(path[0], int) and path[0] < len(names) \
        else str(path[0])
    return head + _keystr(path[1:])


def _arg_names(args: tuple[Any, ...], arg_names: Sequence[str] | None,
               model: Any) -> tuple[str, ...]:
    if arg_names is not None:
        names = tuple(arg_names)
        if len(names) != len(args):
            raise SymshapeError(f"arg_names has {len(names)} names for {len(args)} arguments")
        return names
    if model is not None:
        try:
            sig = inspect.signature(model.forward if isinstance(model, torch.nn.Module)
                                    else model)
        except (TypeError, ValueError):
            sig = None
        if sig is not None:
            out: list[str] = []
            for p in sig.parameters.values():
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                    out.append(p.name)
                elif p.kind is p.VAR_POSITIONAL:
                    out.extend(f"{p.name}[{i}]" for i in range(len(args) - len(out)))
                    break
            if len(out) >= len(args):
                return tuple(out[:len(args)])
    return tuple(f"args[{i}]" for i in range(len(args)))


def dynamic_shapes(args: Any, shapes_specs: Any, *, constraints: Iterable[str] = (),
                   scope: SymbolicScope | None = None, var_min: int = 2,
                   model: Any = None) -> Any:
    """The ``dynamic_shapes`` argument of ``torch.export.export`` for symshape specs.

    See :func:`export_specs` for the arguments.  Constraints and relations the
    ``Dim``s cannot express (``a >= b + 8``, a dimension ``a + b``) are named in
    an :class:`UnexpressedConstraintsWarning`: use :func:`symshape.torch.export`
    to have them enforced.

    >>> import torch, symshape.torch as st                          # doctest: +SKIP
    >>> ds = st.dynamic_shapes((torch.zeros(8, 3),), "b, 3", constraints=["b <= 64"])
    >>> torch.export.export(model, (torch.zeros(8, 3),), dynamic_shapes=ds)
    """
    es = export_specs(args, shapes_specs, constraints=constraints, scope=scope,
                      var_min=var_min, model=model)
    if es.unexpressed:
        warnings.warn(UnexpressedConstraintsWarning(
            "torch.export's Dims cannot express " + "; ".join(repr(u) for u in es.unexpressed)
            + ": torch.export.export with these dynamic_shapes does not enforce them "
            "(symshape.torch.export does, with run-time checks)"), stacklevel=2)
    return es.dynamic_shapes


__all__ = ["ExportSpecs", "InputDim", "Root", "UnexpressedConstraintsWarning",
           "dynamic_shapes", "export_specs", "linear_in_one", "tensor_shapes"]
