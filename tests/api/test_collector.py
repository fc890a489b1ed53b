"""The cyclic garbage collector stays off inside a public call, and its state
is given back as it was (symshape.collector)."""

from __future__ import annotations

import gc
import importlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

import pytest
from support.threads import run_in_threads

import symshape
from symshape.collector import collector_paused


@contextmanager
def collections_counted(threshold: int = 1) -> Iterator[list[int]]:
    """Count the collections that start while entered, with the collector
    made to run at nearly every allocation (``threshold``)."""
    started: list[int] = []

    def callback(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started.append(info["generation"])

    old = gc.get_threshold()
    gc.callbacks.append(callback)
    gc.set_threshold(threshold)
    try:
        yield started
    finally:
        gc.set_threshold(*old)
        gc.callbacks.remove(callback)


def _prove(i: int) -> Callable[[], object]:
    return lambda: symshape.prove(f"p{i}*q{i} + 3*p{i} >= q{i} + floordiv(p{i}, 4)",
                                  constraints=[f"q{i} <= 2*p{i}"])


def _symbolic_shape(i: int) -> Callable[[], object]:
    spec = f"b{i}, 2*h{i} + 1, floordiv(t{i}, 128)"
    constraints = [f"b{i} >= 8", f"mod(h{i}, 4) == 0", f"t{i} >= 2*h{i} + b{i}",
                   f"max(t{i}, h{i}) <= 8192"]
    return lambda: symshape.symbolic_shape(spec, constraints=constraints)


def _comparison(i: int) -> Callable[[], object]:
    a, b = symshape.symbolic_shape(f"a{i}, b{i}", constraints=[f"a{i} >= b{i} + 3"])
    x, y = a * b, b * b + 3 * b
    return lambda: x >= y


def _scope(i: int) -> Callable[[], object]:
    constraints = [f"n{i} >= 2*m{i} + 1", f"mod(n{i}, 8) == 0", f"max(m{i}, k{i}) <= 512"]
    return lambda: symshape.SymbolicScope(constraints)


#: each makes a public call on names of its own (``i``), without calling it
PUBLIC_CALLS: dict[str, Callable[[int], Callable[[], object]]] = {
    "prove": _prove, "symbolic_shape": _symbolic_shape, "comparison": _comparison,
    "SymbolicScope": _scope}


#: the modules whose public calls pause the collector
PAUSING_MODULES = ("symshape.decision.prove", "symshape.shapes", "symshape.decision.engine",
                   "symshape.scope")


def _collections_inside(call: Callable[[int], Callable[[], object]], i: int) -> int:
    run = call(i)
    with collections_counted() as started:
        run()
    assert gc.isenabled()
    return len(started)


@pytest.mark.parametrize("name", sorted(PUBLIC_CALLS))
def test_no_collection_runs_inside_a_public_call(name: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """With the collector's threshold at 1, a collection starts at nearly
    every allocation of a container: only the few outside the pause (the
    arguments, the result) start one, where the same call without the pause
    starts dozens to hundreds."""
    call = PUBLIC_CALLS[name]
    call(0)()  # (imports and first-use set-up out of the way)
    paused = _collections_inside(call, 1)
    assert paused <= 10
    if "symshape.scope" in symshape.compiled_modules():
        # (compiled modules call the pause directly: the calls without it are
        # made on the pure source, which test_compiled_core runs this on)
        return
    for module in PAUSING_MODULES:
        # (import_module: the package symshape.decision names its function prove)
        monkeypatch.setattr(importlib.import_module(module), "collector_paused", nullcontext)
    unpaused = _collections_inside(call, 2)
    assert unpaused >= 50, (paused, unpaused)


def test_the_collectors_state_is_given_back_after_errors_and_when_it_was_off() -> None:
    with pytest.raises(symshape.ParseError):
        symshape.prove("a >= ")
    assert gc.isenabled()
    gc.disable()
    try:
        symshape.prove("a + 1 >= a")
        assert not gc.isenabled()  # off before: still off, not turned on by the call
    finally:
        gc.enable()


def test_nested_and_concurrent_pauses_end_with_the_last() -> None:
    pause = collector_paused()
    with pause:
        with pause:
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()

    def work(k: int) -> None:
        for i in range(20):
            symshape.prove(f"t{k}_{i} + 1 > t{k}_{i}", constraints=[f"t{k}_{i} >= 2"])

    run_in_threads(work, 4)
    assert gc.isenabled()
