"""The ``@shapecheck`` decorator: a function's arrays checked against their specs.

Each call collects the shapes of the annotated arrays.  A call whose shapes
were accepted before costs one dictionary lookup (the key is the tuple of the
arrays' ``.shape``, and the ``.dtype`` of those whose annotation names a dtype
family, ``Float[T, "b d"]``); any other call checks the dtypes, then finds the
plan of its ranks (:mod:`symshape.typing.plan`), builds it on first use, and
solves the shapes with it.  Inside ``jax.jit`` or ``torch.export`` the check runs while tracing,
once per trace, and costs nothing in the compiled function.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import inspect
import typing
import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar, overload

from symshape.errors import ShapeMismatchError, SymshapeError, UnsolvableSpecsError
from symshape.typing import dynamo
from symshape.typing.annotations import (
    Each,
    Fields,
    Found,
    Items,
    Leaf,
    Node,
    Optional_,
    collect,
    dtype_error,
    tree_of_annotation,
    tree_of_spec,
)
from symshape.typing.dims import ArraySpec, constraint_names
from symshape.typing.dtypes import Dtypes
from symshape.typing.plan import RETURN, Plans, UnsettledShapeWarning, readable, run_plan

F = TypeVar("F", bound=Callable[..., Any])

# Accepted shape keys kept per function before the set is cleared (bounded memory).
_MAX_ACCEPTED = 4096

Triple = tuple[str, ArraySpec, tuple[Any, ...]]
"""``(name, spec, shape)`` of one array."""


class UnresolvedAnnotationsError(SymshapeError):
    """An annotation names something not defined (yet)."""


class Checker:
    """The checks of one function: its trees of specs, plans and accepted keys."""

    def __init__(self, fn: Callable[..., Any], specs: dict[str, Any], returns: Any,
                 constraints: Iterable[str]) -> None:
        self.name = getattr(fn, "__qualname__", repr(fn))
        if isinstance(constraints, str):
            raise SymshapeError(f"constraints= is a list of constraints, got the string "
                                f"{constraints!r}; write [{constraints!r}]")
        self.constraints = tuple(constraints)
        for c in self.constraints:
            constraint_names(c)  # a malformed constraint fails at decoration
        self.sig = inspect.signature(fn)
        try:
            hints = typing.get_type_hints(fn, include_extras=True)
        except NameError as err:  # perhaps a name defined after the function
            raise UnresolvedAnnotationsError(
                f"{self.name}: cannot read the annotations ({err})") from None
        except Exception as err:
            raise SymshapeError(f"{self.name}: cannot read the annotations ({err})") from None
        params = list(self.sig.parameters.values())
        unknown = set(specs) - {p.name for p in params}
        if unknown:
            raise SymshapeError(f"{self.name} has no parameter(s) {sorted(unknown)} (given "
                                f"shape specs)")
        # (parameter, tree) for every parameter with specs, in order.
        self.trees: list[tuple[inspect.Parameter, Node]] = []
        for p in params:
            if p.name in specs:
                tree: Node | None = tree_of_spec(specs[p.name], p.name)
            else:
                tree = tree_of_annotation(hints.get(p.name), p.name)
            if tree is not None:
                self.trees.append((p, tree))
        self.ret: Node | None = tree_of_spec(returns, RETURN) if returns is not None else \
            tree_of_annotation(hints.get("return"), RETURN)
        self.spec_by_id: dict[int, ArraySpec] = {}
        # The dtypes of the specs that allow only some (a spec object is one Shape's).
        self.dtypes_by_spec: dict[int, Dtypes] = {}
        for tree in [*(t for _, t in self.trees), self.ret]:
            _tree_specs(tree, self.spec_by_id, self.dtypes_by_spec)
        if not self.trees and self.ret is None:
            raise SymshapeError(f"{self.name} has no shape annotations: annotate its arrays "
                                "with Shaped[T, 'spec'] or pass specs to the decorator")
        _check_constraint_names(self.name, self.constraints,
                                [*(t for _, t in self.trees), self.ret])
        self.positional = _simple_positions(self.sig, self.trees)
        # Arguments that only the return value solves are checked after the call.
        self.arg_plans = Plans(self.constraints, before_call=self.ret is not None)
        self.all_plans = Plans(self.constraints, before_call=False)
        self.accepted: set[Any] = set()
        self.accepted_return: set[Any] = set()

    # -- collecting --------------------------------------------------------------
    def arg_found(self, args: tuple[Any, ...], kwargs: dict[str, Any]
                  ) -> tuple[Found, list[int]]:
        """The annotated arrays of a call, and the lengths of its containers."""
        found: Found = []
        lengths: list[int] = []
        try:
            bound = self.sig.bind(*args, **kwargs)
        except TypeError:
            return found, lengths  # the call itself reports the wrong arguments
        values = bound.arguments
        for p, tree in self.trees:
            if p.name in values:
                value = values[p.name]
            elif p.default is not inspect.Parameter.empty:
                value = p.default
            else:
                continue
            if p.kind is inspect.Parameter.VAR_POSITIONAL:
                for i, v in enumerate(value):
                    collect(tree, v, f"{p.name}[{i}]", found, lengths)
                lengths.append(len(value))
            elif p.kind is inspect.Parameter.VAR_KEYWORD:
                for k in sorted(value):
                    collect(tree, value[k], k, found, lengths)
                lengths.append(len(value))
            elif value is None and type(tree) is Leaf and p.default is None:
                lengths.append(-1)  # an optional array left out
            else:
                collect(tree, value, p.name, found, lengths)
        return found, lengths

    # -- checking ----------------------------------------------------------------
    def dtype_problem(self, found: Found, when: str) -> str | None:
        """Why the dtype of an array is not one its annotation allows (the first such
        array), or ``None``."""
        if not self.dtypes_by_spec:
            return None
        for name, spec, x in found:
            dtypes = self.dtypes_by_spec.get(id(spec))
            if dtypes is not None:
                why = dtype_error(name, dtypes, x)
                if why is not None:
                    return f"{when} {self.name}: {why.replace(RETURN, 'return')}"
        return None

    def check_dtypes(self, found: Found, when: str) -> None:
        """Check the dtype of every array whose annotation allows only some.

        Raises:
          ShapeMismatchError: naming the array, its dtype and the dtypes allowed.
        """
        why = self.dtype_problem(found, when)
        if why is not None:
            raise ShapeMismatchError(why)

    def check(self, found: Found, plans: Plans, when: str,
              skip: Callable[[], tuple[str, ...]] | None = None) -> bool:
        """Check the arrays' dtypes and shapes; True when every size was an int (the key
        may be kept)."""
        self.check_dtypes(found, when)
        return self.check_shapes([(n, s, tuple(x.shape)) for n, s, x in found], plans, when,
                                 skip)

    def check_shapes(self, triples: list[Triple], plans: Plans, when: str,
                     skip: Callable[[], tuple[str, ...]] | None = None) -> bool:
        """Check ``(name, spec, shape)`` triples; True when every size was an int."""
        try:
            plan = plans.get(triples, skip)
            notes = run_plan(plan, {n: sh for n, _, sh in triples}, f"{when} {self.name}")
        except ShapeMismatchError as err:
            names = [n for n, _, _ in triples]
            raise ShapeMismatchError(f"{when} {self.name}: {readable(str(err), names)}"
                                     ) from None
        for note in notes:
            warnings.warn(f"{when} {self.name}: {readable(note, [n for n, _, _ in triples])}",
                          UnsettledShapeWarning, stacklevel=4)
        return all(type(d) is int for _, _, sh in triples for d in sh)

    def checked_before(self, arg_triples: list[Triple]) -> Callable[[], tuple[str, ...]]:
        """The constraints that the check of the arguments asserted (the check of the
        return value does not assert them again: in an export, that would emit their
        run-time checks twice)."""
        def skip() -> tuple[str, ...]:
            if not arg_triples:
                return ()
            before = self.arg_plans.get(arg_triples)
            return before.constraints if before.check is not None else ()
        return skip

    def check_return(self, out: Any, found: Found) -> bool:
        """Check the return value with the arrays of the call (True: all sizes ints)."""
        assert self.ret is not None
        ret_found: Found = []
        collect(self.ret, out, RETURN, ret_found, [])
        arg_triples = [(n, s, tuple(x.shape)) for n, s, x in found]
        return self.check(found + ret_found, self.all_plans, "the value returned by",
                          self.checked_before(arg_triples))


def _tree_specs(tree: Node | None, out: dict[int, ArraySpec], dtypes: dict[int, Dtypes]
                ) -> None:
    if type(tree) is Leaf:
        out[id(tree.spec)] = tree.spec
        if tree.dtypes is not None:
            dtypes[id(tree.spec)] = tree.dtypes
    elif isinstance(tree, Optional_ | Each):
        _tree_specs(tree.inner, out, dtypes)
    elif isinstance(tree, Items | Fields):
        for t in tree.trees:
            _tree_specs(t, out, dtypes)


def _tree_names(tree: Node | None, out: set[str]) -> None:
    if type(tree) is Leaf:
        for it in tree.spec.items:
            out |= it.names
    elif isinstance(tree, Optional_ | Each):
        _tree_names(tree.inner, out)
    elif isinstance(tree, Items | Fields):
        for t in tree.trees:
            _tree_names(t, out)


def _check_constraint_names(where: str, constraints: tuple[str, ...],
                            trees: Sequence[Node | None]) -> None:
    """A constraint on a variable of no spec cannot be checked (as in ShapeCheck)."""
    declared: set[str] = set()
    for t in trees:
        _tree_names(t, declared)
    for c in constraints:
        missing = constraint_names(c) - declared
        if missing:
            raise UnsolvableSpecsError(
                f"{where}: the constraint {c!r} mentions the dimension variable(s) "
                f"{', '.join(repr(v) for v in sorted(missing))}, which occur in no spec: "
                "their values cannot be computed from the shapes, so the constraint cannot "
                "be checked")


def _simple_positions(sig: inspect.Signature, trees: list[tuple[inspect.Parameter, Node]]
                      ) -> tuple[int, ...] | None:
    """The positions of the annotated parameters when each is one array that may be
    passed by position (the fast path of a positional call), else ``None``."""
    order = list(sig.parameters)
    out = []
    for p, tree in trees:
        if type(tree) is not Leaf or p.kind not in (inspect.Parameter.POSITIONAL_ONLY,
                                                    inspect.Parameter.POSITIONAL_OR_KEYWORD):
            return None
        out.append(order.index(p.name))
    return tuple(out)


def _dtype_key(x: Any) -> tuple[type, Any]:
    """The dtype of ``x`` in a cache key: with its type, so that no two dtypes of
    different libraries that compare equal share an entry."""
    dtype = getattr(x, "dtype", None)
    return type(dtype), dtype


def _remember(accepted: set[Any], key: Any) -> None:
    """Keep an accepted key (bounded; a ``.shape`` that is not hashable is not kept)."""
    if len(accepted) >= _MAX_ACCEPTED:
        accepted.clear()
    with contextlib.suppress(TypeError):
        accepted.add(key)


def _wrap_function(fn: Callable[..., Any], checker: Checker) -> Callable[..., Any]:
    positions = checker.positional
    needed = max(positions) + 1 if positions else 0
    accepted = checker.accepted
    accepted_return = checker.accepted_return
    ret_leaf = type(checker.ret) is Leaf
    ret_dtyped = type(checker.ret) is Leaf and checker.ret.dtypes is not None
    # (position, name, spec) of each array on the positional path.
    fast = [] if positions is None else [
        (i, p.name, tree.spec) for i, (p, tree) in zip(positions, checker.trees, strict=True)
        if type(tree) is Leaf]
    # The positions whose dtype is checked: their dtypes are part of the key too.
    dtyped = tuple(i for i, _, spec in fast if id(spec) in checker.dtypes_by_spec)
    dtypes_by_spec = checker.dtypes_by_spec

    def found_of(key_args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Found]:
        found, lengths = checker.arg_found(key_args, kwargs)
        # Tagged: never equal to the key of the positional path (a tuple of shapes).
        return ("by name", tuple(lengths), tuple(x.shape for _, _, x in found),
                tuple(_dtype_key(x) for _, s, x in found if id(s) in dtypes_by_spec)), found

    number = dynamo.register(checker)

    def traced(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """The call while TorchDynamo traces it (see :mod:`symshape.typing.dynamo`)."""
        if positions is not None and not kwargs and len(args) >= needed:
            found: Found = [(name, spec, args[i]) for i, name, spec in fast]
        else:
            found = checker.arg_found(args, kwargs)[0]
        dynamo.check_dtypes(checker, found, "in the call of")
        triples = [(n, s, tuple(x.shape)) for n, s, x in found]
        dynamo.check(number, triples, len(triples), False)
        out = fn(*args, **kwargs)
        if checker.ret is not None:
            ret_found: Found = []
            collect(checker.ret, out, RETURN, ret_found, [])
            dynamo.check_dtypes(checker, ret_found, "the value returned by")
            dynamo.check(number, triples + [(n, s, tuple(x.shape)) for n, s, x in ret_found],
                         len(triples), True)
        return out

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if dynamo.tracing():
            return traced(args, kwargs)
        key: Any = None
        found: Found | None = None
        if positions is not None and not kwargs and len(args) >= needed:
            try:
                key = tuple([args[i].shape for i in positions]) if not dtyped else \
                    tuple([args[i].shape for i in positions]
                          + [_dtype_key(args[i]) for i in dtyped])
                hit = key in accepted
            except (AttributeError, TypeError):
                key, hit = None, False
        else:
            hit = False
        if not hit:
            if key is None:
                key, found = found_of(args, kwargs)
                try:
                    hit = key in accepted
                except TypeError:  # unhashable symbolic sizes
                    hit = False
            if not hit:
                if found is None:
                    found = [(name, spec, args[i]) for i, name, spec in fast]
                if checker.check(found, checker.arg_plans, "in the call of"):
                    _remember(accepted, key)
        out = fn(*args, **kwargs)
        if checker.ret is None:
            return out
        rkey = None
        if ret_leaf:
            try:
                rkey = (key, out.shape, _dtype_key(out)) if ret_dtyped else (key, out.shape)
                if rkey in accepted_return:
                    return out
            except (AttributeError, TypeError):
                rkey = None
        if found is None:
            found = [(name, spec, args[i]) for i, name, spec in fast] if positions is not None \
                and not kwargs and len(args) >= needed else checker.arg_found(args, kwargs)[0]
        if checker.check_return(out, found) and rkey is not None:
            _remember(accepted_return, rkey)
        return out

    wrapper.__symshape_checker__ = checker  # type: ignore[attr-defined]
    return wrapper


@overload
def shapecheck(fn: F, /) -> F: ...


@overload
def shapecheck(*, constraints: Iterable[str] = (), returns: Any = None,
               **specs: Any) -> Callable[[F], F]: ...


def shapecheck(fn: Any = None, /, *, constraints: Iterable[str] = (), returns: Any = None,
               **specs: Any) -> Any:
    """Check the shapes of a function's arrays on every call.

    The specs come from the annotations (``x: Shaped[np.ndarray, "b, d"]``,
    ``Float[np.ndarray, "b d"]`` and jaxtyping's other dtype families, which check
    the dtype too, or ``Annotated[T, Shape("b, d")]``; in containers, dataclass
    fields and optional values too) or from the decorator's keyword arguments, which take
    precedence: ``@shapecheck(x="b, d", returns="b, 4*d")``.  One set of
    dimension variables is solved from all the arrays of a call and its return
    value, under the ``constraints``.

    Args:
      fn: the function (``@shapecheck`` without parentheses).
      constraints: constraints on the dimension variables (``"mod(s, 128) == 0"``).
      returns: the spec of the return value (instead of its annotation).
      specs: the spec of a parameter, by its name: a string, or a tuple, list or
        dict of strings for a container.

    Returns:
      The function, wrapped.

    Raises:
      SymshapeError, ParseError: for bad specs (when decorating).
      ShapeMismatchError: from a call whose shapes do not match (naming the
        argument, the axis, the spec and the variables solved so far), or whose
        dtypes do not (naming the argument, its dtype and the dtypes allowed).
    """
    def decorate(f: Any) -> Any:
        if isinstance(f, type):
            return _wrap_class(f, constraints)
        try:
            checker = Checker(f, specs, returns, constraints)
        except UnresolvedAnnotationsError:
            return _wrap_later(f, specs, returns, constraints)
        return _wrap_function(f, checker)

    return decorate if fn is None else decorate(fn)


def _wrap_later(fn: Callable[..., Any], specs: dict[str, Any], returns: Any,
                constraints: Iterable[str]) -> Callable[..., Any]:
    """``fn`` checked from its first call on: its annotations name something defined
    after it (``from __future__ import annotations`` and a class defined below)."""
    constraints = tuple(constraints)
    wrapped: list[Callable[..., Any]] = []

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not wrapped:
            wrapped.append(_wrap_function(fn, Checker(fn, specs, returns, constraints)))
        return wrapped[0](*args, **kwargs)

    return wrapper


def _wrap_class(cls: type, constraints: Iterable[str]) -> type:
    """A dataclass whose annotated fields are checked after ``__init__``."""
    if not dataclasses.is_dataclass(cls):
        raise SymshapeError(f"@shapecheck on a class needs a dataclass, got {cls.__qualname__}")
    tree = tree_of_annotation(cls, cls.__name__)
    if tree is None:
        raise SymshapeError(f"{cls.__qualname__} has no fields with shape annotations")
    plans = Plans(tuple(constraints), before_call=False)
    dtypes: dict[int, Dtypes] = {}
    _tree_specs(tree, {}, dtypes)
    original = cls.__init__

    @functools.wraps(original)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        found: Found = []
        collect(tree, self, "self", found, [])
        shapes = {n: tuple(x.shape) for n, _, x in found}
        triples = [(n, s, shapes[n]) for n, s, _ in found]
        for n, s, x in found:
            why = dtype_error(n, dtypes[id(s)], x) if id(s) in dtypes else None
            if why is not None:
                raise ShapeMismatchError(f"in the fields of {cls.__qualname__}: {why}")
        try:
            run_plan(plans.get(triples), shapes)
        except ShapeMismatchError as err:
            names = [n for n, _, _ in found]
            raise ShapeMismatchError(
                f"in the fields of {cls.__qualname__}: {readable(str(err), names)}") from None

    cls.__init__ = __init__  # type: ignore[method-assign]
    return cls


__all__ = ["shapecheck"]
