"""From the arrays of one call to a :class:`symshape.ShapeCheck`, and running it.

The arrays' ranks (and which broadcastable dimensions are a concrete 1) fix
how the runs of dimensions (``...``, ``*batch``) expand; for each such pattern
one ShapeCheck is built and kept (:class:`Plans`), and the shapes are solved
by it: concretely for sizes that are ints, or, for the symbolic sizes of a
trace (``jax.export``, ``torch.export``), through the adapters' emission of
run-time checks (:func:`symshape.jax.assert_shapes`,
:func:`symshape.torch.checks.emit_checks`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from symshape.errors import ShapeMismatchError, UnsolvableSpecsError
from symshape.shapecheck import ShapeCheck
from symshape.typing.dims import ArraySpec, constraint_names, expand, run_variable

# The return value's name in the ShapeCheck: after every identifier, so that the
# variables are solved from the arguments first (ShapeCheck orders names).
RETURN = "~return"

# Plans kept per checked function (one per pattern of ranks; each a few KB).
_MAX_PLANS = 256


@dataclass
class Plan:
    """The check of one pattern of ranks.

    Attributes:
      specs: the ShapeCheck spec string of every array, by name.
      constraints: the constraints that apply: those whose variables all occur
        (not only where a broadcastable 1 stands, nor only in the return value).
      check: the ShapeCheck of the specs in the order of the arrays (messages
        name them ``args[i]``; variables are solved from the first arrays
        first), or ``None`` when the arrays alone cannot be solved (before a
        call, a variable that only the return value determines).
      order: the names of the arrays, in order.
    """

    specs: dict[str, str]
    constraints: tuple[str, ...]
    check: ShapeCheck | None
    order: tuple[str, ...] = ()


def _is_int(d: Any) -> bool:
    return type(d) is int or (isinstance(d, int) and not isinstance(d, bool))


def ranks_and_runs(found: Sequence[tuple[str, ArraySpec, tuple[Any, ...]]]
                   ) -> tuple[tuple[int, ...], dict[str, int]]:
    """The rank of every array and the length of every named run.

    Raises:
      ShapeMismatchError: for a rank that its spec does not allow, or a named
        run covering different numbers of dimensions in two arrays.
    """
    runs: dict[str, tuple[int, str, tuple[Any, ...]]] = {}
    ranks = []
    for name, spec, shape in found:
        rank = len(shape)
        ranks.append(rank)
        least = spec.fixed_rank
        ri = spec.run_index
        if rank < least or (ri is None and rank != least):
            need = f"rank >= {least}" if ri is not None else f"rank {least}"
            raise ShapeMismatchError(f"{name} has the shape {_show(shape)} of rank {rank}, but "
                                     f"its spec {spec.shown} needs {need}")
        if ri is not None and spec.items[ri].kind == "run":
            run = spec.items[ri].text
            length = rank - least
            got = runs.get(run)
            if got is None:
                runs[run] = (length, name, shape)
            elif got[0] != length:
                raise ShapeMismatchError(
                    f"the run '*{run}' covers {length} dimension(s) of {name} (shape "
                    f"{_show(shape)}, spec {spec.shown}), but {got[0]} of {got[1]} (shape "
                    f"{_show(got[2])}): it must be the same dimensions in every array")
    return tuple(ranks), {k: v[0] for k, v in runs.items()}


def _show(shape: Sequence[Any]) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def pattern(found: Sequence[tuple[str, ArraySpec, tuple[Any, ...]]]) -> tuple[Any, ...]:
    """What the plan of a call depends on: names, specs, ranks, and the concrete 1s of
    the arrays whose spec has a broadcastable dimension."""
    return tuple((name, id(spec), len(shape),
                  tuple(_is_int(d) and d == 1 for d in shape) if spec.has_broadcast else None)
                 for name, spec, shape in found)


def build_plan(found: Sequence[tuple[str, ArraySpec, tuple[Any, ...]]],
               constraints: Sequence[str], *, before_call: bool) -> Plan:
    """The :class:`Plan` for arrays with these shapes (their ranks and 1s).

    Raises:
      ShapeMismatchError: for wrong ranks or runs.
      UnsolvableSpecsError, UnsatisfiableConstraintsError: for bad specs.
    """
    ranks, runs = ranks_and_runs(found)
    specs: dict[str, str] = {}
    names: set[str] = set()
    for (name, spec, shape), rank in zip(found, ranks, strict=True):
        ones = tuple(_is_int(d) and d == 1 for d in shape) if spec.has_broadcast else None
        specs[name] = expand(spec, rank, runs, ones)
        pos = 0
        for it in spec.items:
            width = runs.get(it.text, 0) if it.kind == "run" else \
                rank - spec.fixed_rank if it.kind == "anyrun" else 1
            if it.kind == "dim" and not (it.broadcast and ones and ones[pos]):
                names |= it.names
            elif it.kind == "run":
                names |= {run_variable(it.text, i) for i in range(width)
                          if not (it.broadcast and ones and ones[pos + i])}
            pos += width
    kept = tuple(c for c in constraints if constraint_names(c) <= names)
    try:
        check: ShapeCheck | None = ShapeCheck(list(specs.values()), constraints=kept)
    except UnsolvableSpecsError:
        if not before_call:
            raise
        check = None  # the return value settles it: checked after the call
    return Plan(specs, kept, check, tuple(specs))


class Plans:
    """The plans of one function, by :func:`pattern` (bounded)."""

    def __init__(self, constraints: Sequence[str], before_call: bool) -> None:
        self.constraints = tuple(constraints)
        self.before_call = before_call
        self._plans: dict[tuple[Any, ...], Plan] = {}

    def get(self, found: Sequence[tuple[str, ArraySpec, tuple[Any, ...]]],
            skip: Callable[[], tuple[str, ...]] | None = None) -> Plan:
        """The plan for these arrays (built on first use), without the constraints
        that ``skip()`` gives (already checked: a function of the pattern, like the
        plan, so it is asked only when the plan is built)."""
        key = pattern(found)
        plan = self._plans.get(key)
        if plan is None:
            skipped = skip() if skip is not None else ()
            constraints = tuple(c for c in self.constraints if c not in skipped)
            plan = build_plan(found, constraints, before_call=self.before_call)
            if len(self._plans) >= _MAX_PLANS:
                self._plans.clear()
            self._plans[key] = plan
        return plan


class UnsettledShapeWarning(UserWarning):
    """A constraint of shape annotations that the shapes of an export do not imply:
    it is checked when the exported function is called."""


def run_plan(plan: Plan, shapes: dict[str, tuple[Any, ...]], where: str = "") -> list[str]:
    """Check ``shapes`` (by array name) with ``plan``: concretely when every size is
    an int, else as run-time checks of the framework that traces them.

    Returns:
      Notes on the constraints that the symbolic shapes of a JAX export leave to
      run time (see :mod:`symshape.typing.settle`).

    Raises:
      ShapeMismatchError: with ShapeCheck's message, for a failing check.
    """
    if plan.check is None:
        return []
    symbolic = [d for s in shapes.values() for d in s if not _is_int(d)]
    if not symbolic:
        plan.check.solve([shapes[n] for n in plan.order])
        return []
    module = type(symbolic[0]).__module__
    if module.startswith("jax"):
        from symshape.jax import assert_shapes
        from symshape.typing.settle import unsettled
        # By name: the messages in the exported artifact say args['x'].
        assert_shapes(shapes, plan.specs, constraints=plan.constraints)
        return unsettled(where, plan.specs, plan.constraints, shapes)
    if module.startswith("torch"):
        from symshape.torch.checks import emit_checks
        emit_checks(plan.check.program, [shapes[n] for n in plan.order])
        return []
    raise ShapeMismatchError(
        f"the sizes {symbolic[:3]} of type {type(symbolic[0]).__qualname__} are neither "
        "ints nor the symbolic sizes of JAX or PyTorch")


def readable(message: str, names: Sequence[str]) -> str:
    """ShapeCheck names the arrays ``args[i]`` (or ``args['x']``); here they are ``x``."""
    names = ["return" if n == RETURN else n for n in names]

    def name(m: re.Match[str]) -> str:
        key = m.group(1)
        if key.isdigit():
            return names[int(key)] if int(key) < len(names) else m.group(0)
        return "return" if key[1:-1] == RETURN else key[1:-1]

    return re.sub(r"args\[(\d+|'[^']*')\]", name, message)


__all__ = ["RETURN", "Plan", "Plans", "UnsettledShapeWarning", "build_plan", "pattern",
           "ranks_and_runs", "readable", "run_plan"]
