"""Wrong-typed and impossible arguments: one clear symshape error naming the
argument, never an error from deep inside; and a larger budget never weakens
an answer."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import symshape
from symshape import ArgumentError, ShapeCheck, SymbolicScope, SymshapeError
from symshape.arguments import MAX_BUDGET

JUNK = [None, 0, -1, 3, 2 ** 2000, -(2 ** 70), 1.5, math.nan, math.inf, -math.inf, True, "2",
        "", b"a >= 1", ["a >= 1", 5], [None], {"a": 1}, object(), np.uint64(2 ** 63),
        np.int32(-4), np.float32(math.nan), (1, -2), (-1, -2), ("x",), 5j]


def call_of(name: str, value: Any) -> Callable[[], Any]:
    """One public call with ``value`` in the argument ``name``."""
    a = symshape.symbolic_shape("a")[0]
    calls: dict[str, Callable[[], Any]] = {
        "prove.claim": lambda: symshape.prove(value),
        "prove.constraints": lambda: symshape.prove("a >= 1", constraints=value),
        "prove.budget": lambda: symshape.prove("a*b >= a", budget=value),
        "prove.time_limit": lambda: symshape.prove("a >= 1", time_limit=value),
        "prove.progress": lambda: symshape.prove("a >= 1", progress=value),
        "prove.scope": lambda: symshape.prove("a >= 1", scope=value),
        "symbolic_shape.spec": lambda: symshape.symbolic_shape(value),
        "symbolic_shape.constraints": lambda: symshape.symbolic_shape("a", constraints=value),
        "symbolic_shape.like": lambda: symshape.symbolic_shape("a, _", like=value),
        "symbolic_shape.scope": lambda: symshape.symbolic_shape("a", scope=value),
        "SymbolicScope": lambda: SymbolicScope(value),
        "bounds.e": lambda: symshape.bounds(value),
        "bounds.budget": lambda: symshape.bounds(a, budget=value),
        "bounds.time_limit": lambda: symshape.bounds(a, time_limit=value),
        "max_dim": lambda: symshape.max_dim(a, value),
        "min_dim": lambda: symshape.min_dim(value, a),
        "ShapeCheck.specs": lambda: ShapeCheck(value),
        "ShapeCheck.constraints": lambda: ShapeCheck(["a"], constraints=value),
        "ShapeCheck.solve": lambda: ShapeCheck(["a, 2*b"]).solve(value),
        "ShapeCheck.solve.shape": lambda: ShapeCheck(["a, 2*b"]).solve([value]),
        "to_stablehlo.ranks": lambda: ShapeCheck(["a, ..."]).to_stablehlo(ranks=value),
        "to_stablehlo.dtypes": lambda: ShapeCheck(["a"]).to_stablehlo(dtypes=value),
        "to_stablehlo.func_name": lambda: ShapeCheck(["a"]).to_stablehlo(func_name=value),
    }
    return calls[name]


NAMES = ["prove.claim", "prove.constraints", "prove.budget", "prove.time_limit",
         "prove.progress", "prove.scope", "symbolic_shape.spec", "symbolic_shape.constraints",
         "symbolic_shape.like", "symbolic_shape.scope", "SymbolicScope", "bounds.e",
         "bounds.budget", "bounds.time_limit", "max_dim", "min_dim", "ShapeCheck.specs",
         "ShapeCheck.constraints", "ShapeCheck.solve", "ShapeCheck.solve.shape",
         "to_stablehlo.ranks", "to_stablehlo.dtypes", "to_stablehlo.func_name"]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(NAMES), st.sampled_from(JUNK))
def test_wrong_arguments_raise_symshape_errors(name: str, value: Any) -> None:
    # Either it works, or it raises a documented error (ArgumentError, ParseError, ...).
    with contextlib.suppress(SymshapeError):
        call_of(name, value)()


@pytest.mark.parametrize("name, value, words", [
    ("prove.budget", "2", "budget="),
    ("prove.budget", 0, "budget="),
    ("prove.time_limit", -1, "time_limit="),
    ("prove.progress", 3, "progress="),
    ("symbolic_shape.constraints", None, "constraints="),
    ("symbolic_shape.like", 5, "like="),
    ("symbolic_shape.like", (-1, -2), "like[0]"),
    ("SymbolicScope", [5], "item 0"),
    ("ShapeCheck.constraints", None, "constraints="),
    ("to_stablehlo.ranks", 3, "ranks="),
    ("max_dim", "a", "max_dim"),
])
def test_the_error_names_the_argument(name: str, value: Any, words: str) -> None:
    with pytest.raises(ArgumentError, match=words.replace("[", r"\[")):
        call_of(name, value)()


@pytest.mark.parametrize("budget", [2 ** 2000, np.uint64(2 ** 63), 1e300, math.inf, MAX_BUDGET])
def test_a_larger_budget_never_weakens_an_answer(budget: Any) -> None:
    assert symshape.prove("a*b >= a", budget=1).status is symshape.Status.PROVED
    assert symshape.prove("a*b >= a", budget=budget).status is symshape.Status.PROVED


def test_argument_errors_are_type_errors_too() -> None:
    with pytest.raises(TypeError):
        symshape.symbolic_shape("a", constraints=None)
