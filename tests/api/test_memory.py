"""Retained memory: scopes are freed, caches are bounded and released with them.

With the JAX plug-in installed for the whole of JAX's shape_poly test suite the
process reached 3.9 GB resident.  These tests run a long session of fresh
scopes (what real tracing makes: one per export) and check, after a full
collection, that what a scope built is gone once the scope is dropped:

* fresh symshape scopes with queries leave nothing behind (weak references to
  them are dead; tracemalloc sees no growth beyond a small bounded cache);
* with ``symshape.jax.decisions()`` active, the plug-in's caches stay within
  their bound, and everything is released when the plug-in is uninstalled;
* what symshape keeps per export (while JAX's own caches keep the export's
  avals, and so its scope, alive) is small.

``benchmarks/bench_memory.py`` runs a larger version and prints the numbers.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import os
import tracemalloc
import weakref
from collections.abc import Callable
from typing import Any

import pytest
from support.threads import run_in_threads

import symshape
from symshape import InconclusiveDimensionOperation, SymbolicScope
from symshape.algebra.atoms import make_var

SYMSHAPE_DIR = os.path.dirname(os.path.abspath(symshape.__file__))

CONSTRAINTS: tuple[list[str], ...] = (
    ["a >= b + 2", "mod(a, 4) == 0"], ["b <= 64", "c == 2*d"], ["a*b <= 400"], [],
    ["max(a, b) <= 9", "c >= 3"])


def scope_session_step(i: int) -> SymbolicScope:
    """A fresh scope with a few expressions and queries, all dropped on return."""
    scope = SymbolicScope(CONSTRAINTS[i % len(CONSTRAINTS)])
    a, b, c, d = symshape.symbolic_shape("a, b, c, d", scope=scope)
    e = symshape.max_dim(a, b + i % 7) + symshape.min_dim(c, 2 * d)
    q = (a + i) // (b + 1)
    for claim in (lambda: e >= a, lambda: q * (b + 1) <= a + i):
        with contextlib.suppress(InconclusiveDimensionOperation):
            bool(claim())
    symshape.bounds(q)
    symshape.prove(f"max(a, b) >= b + {i % 3}", scope=scope)
    return scope


def _collect() -> None:
    for _ in range(3):  # a collection can make more garbage collectable
        gc.collect()


def _alive(refs: list[weakref.ref[Any]]) -> int:
    return sum(r() is not None for r in refs)


def test_fresh_scopes_are_freed_and_memory_stays_flat() -> None:
    warmup, n, traced = 200, 700, 150
    refs = [weakref.ref(scope_session_step(i)) for i in range(warmup)]
    _collect()
    assert _alive(refs) == 0
    objects_before = len(gc.get_objects())
    refs = [weakref.ref(scope_session_step(i)) for i in range(warmup, n - traced)]
    tracemalloc.start()  # only for the last steps: it slows every allocation
    try:
        refs += [weakref.ref(scope_session_step(i)) for i in range(n - traced, n)]
        _collect()
        retained, _peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    objects_after = len(gc.get_objects())
    # every scope is gone with its expressions, rules, intervals and caches
    assert len(refs) == n - warmup and _alive(refs) == 0
    # measured: under 10 KB per 100 traced scopes, and a few hundred gc objects
    # per 1000 scopes (bounded caches filling up); one scope kept alive by a
    # cache costs well over 10 KB and 100 gc objects
    assert retained < 100 * 1024, retained
    assert (objects_after - objects_before) * 1000 / (n - warmup) < 5_000, (objects_before,
                                                                           objects_after)


def test_fresh_names_are_not_kept() -> None:
    # A tracer may name its symbols anew for every export: variables are
    # interned only while something holds them, so a long session of new
    # names keeps neither the variables nor their monomials and sort keys.
    from symshape.algebra import atoms

    def session(start: int, n: int) -> None:
        for i in range(start, start + n):
            names = [f"v{i}_{j}" for j in range(4)]
            scope = SymbolicScope([f"{names[0]} >= {names[1]} + 8", f"mod({names[2]}, 8) == 0"])
            x = symshape.symbolic_shape(", ".join(names), scope=scope)
            assert (x[0] * x[1] + x[3] >= x[1]) is True

    session(0, 50)
    _collect()
    objects_before = len(gc.get_objects())
    interned_before = atoms.live_variable_count()
    held = make_var("v0_0_kept")
    session(50, 1000)
    _collect()
    # 4,000 new names left nothing behind (one kept variable, a few cache entries)
    assert atoms.live_variable_count() <= interned_before + 1
    # the entries of the variables that died went with them
    assert len(atoms._VARS) == atoms.live_variable_count()
    assert len(gc.get_objects()) - objects_before < 500
    # a variable that is held keeps its identity
    assert make_var("v0_0_kept") is held


def test_a_variable_held_by_an_expression_keeps_its_identity() -> None:
    scope = SymbolicScope()
    (x,) = symshape.symbolic_shape("only_here_7", scope=scope)
    _collect()
    (y,) = symshape.symbolic_shape("only_here_7", scope=SymbolicScope())
    assert next(iter(x.atoms())) is next(iter(y.atoms()))
    assert str(x - x) == "0" and str(x + 1) == "only_here_7 + 1"


# ---------------------------------------------------------------------------
# One-off prove: its private scope is freed by reference counting

ONE_OFF = (  # proved, refuted, inconclusive and with floordiv/max atoms
    ("a >= b + 3", ["a >= b + 8"]),
    ("mod(a, 128) < 0", ["mod(a, 128) == 0", "a <= 4096"]),
    ("floordiv(a, 4) + max(a, b) >= 3*b", ["b >= 2"]),
    ("max(a, floordiv(b, c)) * min(a, c) >= a", []),
)


_FRESH = itertools.count()


@contextlib.contextmanager
def _collector_off() -> Any:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@pytest.mark.parametrize("claim,constraints", ONE_OFF)
def test_one_off_prove_leaves_no_reference_cycles(claim: str, constraints: list[str]) -> None:
    # A scope is a reference cycle (its expressions refer to it); a scope that
    # prove() made for itself is released when its last verdict is freed, so
    # nothing is left for the cycle collector, which would otherwise walk it
    # again and again.
    symshape.prove(claim, constraints=constraints)  # (module-level caches warm up)
    # Texts never seen before: the second sight of a list of texts keeps a
    # template scope, which may push an older one (a cycle) out of the table.
    name = f"fresh_{next(_FRESH)}"
    fresh = [*constraints, f"{name} >= 1"]
    # (a variable no expression holds any more dies with the collector: it
    # and its monomials refer to each other; held here, it is not garbage)
    variable = make_var(name)
    with _collector_off():
        v = symshape.prove(claim, constraints=fresh)
        _ = (v.status, v.reason, v.counterexample, v.witness, str(v))
        del v
        assert gc.collect() == 0
    del variable


def test_one_off_scope_lives_while_a_verdict_holds_it() -> None:
    # prove() returns a copy of the engine's verdict (with its suggestions):
    # the first one is freed at once, and must not release the scope.
    with _collector_off():
        v = symshape.prove("a >= 2*b", constraints=["a >= b + 1"])
        gc.collect()
        assert v.status is symshape.Status.INCONCLUSIVE
        assert v.counterexample is not None and v.witness is not None
        assert v.suggestions  # further proofs, in the same private scope
        assert "holds for" in v.explain()
        del v
        gc.collect()


def test_a_certificate_read_keeps_its_scope() -> None:
    # A certificate's facts are built in the private scope and may outlive the
    # verdict: the scope is then left to the cycle collector, never released.
    v = symshape.prove("2*a >= b + 10", constraints=["a >= b + 8"])
    cert = v.certificate
    del v
    _collect()
    assert cert is not None and cert.check()
    assert "a >= b + 8" in cert.explain()  # the proof cites the constraint


def test_a_scope_passed_in_is_never_released() -> None:
    scope = SymbolicScope(["a >= b + 8"])
    v = symshape.prove("a >= b", scope=scope)
    assert v.proved
    del v
    _collect()
    a, b = symshape.symbolic_shape("a, b", scope=scope)
    assert a >= b + 8
    assert symshape.prove("a >= b + 9", scope=scope).status is symshape.Status.INCONCLUSIVE


# ---------------------------------------------------------------------------
# The JAX plug-in

jax = pytest.importorskip("jax")
from jax import export  # noqa: E402
from jax._src import core as jax_core  # noqa: E402  (test-only: JAX's max_dim etc.)

import symshape.jax as sj  # noqa: E402
from symshape.jax import plugin as sj_plugin  # noqa: E402
from symshape.jax.convert import BRIDGE_ATTR  # noqa: E402

PLUGIN_CACHES = ("eq", "divmod", "bounds")


def _cache_sizes(js: Any) -> dict[str, int]:
    """Entries in the plug-in's answer caches kept on the JAX scope ``js``."""
    caches = getattr(js, sj_plugin._ID_CACHES_ATTR, None) or {}
    return {c: len(caches.get(c, ())) for c in PLUGIN_CACHES}


def jax_dims_step(i: int) -> tuple[Any, ...]:
    """A fresh JAX scope and the questions tracing asks of its dimensions (max,
    min, comparisons, equality, division: all answered by the plug-in when it
    is installed).  Returns the JAX scope and, if the plug-in paired one with
    it, its symshape scope."""
    js = export.SymbolicScope([f"b >= {1 + i % 5}", "mod(h, 2) == 0"])
    b, h = export.symbolic_shape("b, h", scope=js)
    jax_core.max_dim(b, 3)
    jax_core.min_dim(h, b + 1)
    assert b + 1 >= 2
    assert jax_core.definitely_equal(h // 2 * 2, h)
    divmod(2 * b + h, 2)
    bridge = getattr(js, BRIDGE_ATTR, None)
    return (js,) if bridge is None else (js, bridge.sym)


def _run(step: Callable[[int], tuple[Any, ...]], n: int) -> list[weakref.ref[Any]]:
    refs: list[weakref.ref[Any]] = []
    for i in range(n):
        refs.extend(weakref.ref(s) for s in step(i))
    return refs


def test_jax_alone_frees_these_scopes() -> None:
    """The baseline for the tests below: without the plug-in, JAX keeps none
    of the scopes of ``jax_dims_step``."""
    assert not sj.is_installed()
    refs = _run(jax_dims_step, 100)
    _collect()
    assert len(refs) == 100 and _alive(refs) == 0


def test_plugin_releases_everything_when_uninstalled() -> None:
    with sj.decisions():
        refs = _run(jax_dims_step, 300)
        # the plug-in answered: each JAX scope got its symshape scope
        assert len(refs) == 600
        assert len(sj_plugin._cached_scopes) > 0
    _collect()
    assert len(sj_plugin._cached_scopes) == 0
    assert _alive(refs) == 0


def test_plugin_caches_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """The id-keyed caches of a scope are cleared when full (here with a small
    limit), however many questions are asked about it."""
    limit = 3
    monkeypatch.setattr(sj_plugin, "_CACHE_LIMIT", limit)
    with sj.decisions():
        js = export.SymbolicScope(["b >= 2"])
        b, h = export.symbolic_shape("b, h", scope=js)
        for i in range(50):
            assert b + i >= 2 + i
            assert jax_core.definitely_equal(h + i, i + h)
            divmod(2 * b + i, 2)
        sizes = _cache_sizes(js)
    assert all(0 < s <= limit for s in sizes.values()), sizes


def test_plugin_caches_do_not_keep_dropped_scopes_alive() -> None:
    """During a session, a scope JAX no longer uses is not kept alive by the
    plug-in (a few recent ones may be)."""
    with sj.decisions():
        refs = _run(jax_dims_step, 300)
        _collect()
        alive = _alive(refs) // 2
    assert alive <= 16, alive


def test_long_tracing_session_symshape_memory_per_export() -> None:
    """Exports with a fresh JAX scope each: JAX's own caches (2048 entries by
    default) keep recent avals, and so their scopes, alive; what symshape adds
    to each retained scope (bridge, symshape scope, caches) stays small."""
    import jax.numpy as jnp
    import numpy as np

    def f(x: Any, y: Any) -> Any:
        z = jnp.concatenate([x, x], axis=0)[: x.shape[0] + 1]
        return z.sum() + y[: y.shape[0] // 2].sum()

    jf = jax.jit(f)

    def export_step(i: int) -> tuple[Any, ...]:
        js = export.SymbolicScope([f"b >= {1 + i % 5}", "mod(h, 2) == 0"])
        b, h = export.symbolic_shape("b, h", scope=js)
        exp = export.export(jf)(jax.ShapeDtypeStruct((b, 4), np.float32),
                                jax.ShapeDtypeStruct((h,), np.float32))
        assert exp.out_avals[0].shape == ()
        bridge = getattr(js, BRIDGE_ATTR)  # the plug-in decided for this export
        return js, bridge.sym

    warmup, n = 5, 15
    with sj.decisions():
        _run(export_step, warmup)
        _collect()
        tracemalloc.start(4)  # a few frames: what symshape code made via a helper counts
        try:
            refs = _run(export_step, n)
            _collect()
            snap = tracemalloc.take_snapshot()
        finally:
            tracemalloc.stop()
    everything = sum(s.size for s in snap.statistics("filename"))
    mine = snap.filter_traces([tracemalloc.Filter(True, os.path.join(SYMSHAPE_DIR, "*"),
                                                  all_frames=True)])
    ours = sum(s.size for s in mine.statistics("filename"))
    assert len(refs) == 2 * n
    # measured: about 38 KB per export retained by what symshape's code
    # allocated, of about 180 KB retained in all (JAX's share included)
    assert 0 < ours < 96 * 1024 * n, (ours, everything)
    assert ours < everything / 2, (ours, everything)


def test_threads_get_one_variable_per_name() -> None:
    # Absent names are inserted without a lock: every thread must still get
    # the same object, also for a name whose variable died in between.
    import threading

    names = [f"threaded_{i}" for i in range(300)]
    results: list[list[Any]] = []
    start = threading.Barrier(4)

    def work(_: int) -> None:
        start.wait()
        results.append([make_var(n) for n in names])

    for _round in range(2):  # the second round replaces dead entries
        results.clear()
        run_in_threads(work, 4)
        assert all(len(r) == len(names) for r in results) and len(results) == 4
        for i in range(len(names)):
            assert len({id(r[i]) for r in results}) == 1
        results.clear()
        _collect()
