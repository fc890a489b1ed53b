"""The default benchmark run (``benchmarks/run.py``) runs benchmarks and sums them up."""

from __future__ import annotations

import gc
import importlib.util
import re
import subprocess
import sys
from typing import Any

from support.paths import ROOT

RUN = ROOT / "benchmarks" / "run.py"


def test_the_default_run_lists_every_benchmark_script() -> None:
    scripts = {p.stem for p in RUN.parent.glob("bench_*.py")}
    text = RUN.read_text(encoding="utf-8")
    assert scripts and all(f'"{name}"' in text for name in scripts), scripts


def test_one_benchmark_runs_and_is_summed_up() -> None:
    out = subprocess.run([sys.executable, str(RUN), "--quick", "--only", "parse"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    summary = out.stdout.split("######## summary", 1)[1]
    assert "bench_parse" in summary
    assert re.search(r"\d+\.\dx", summary), summary  # the ratio lines are repeated
    assert "bench_jax_micro" not in out.stdout  # only what was asked for


def test_an_unknown_benchmark_is_an_error() -> None:
    out = subprocess.run([sys.executable, str(RUN), "--only", "no_such_thing"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "unknown benchmark" in out.stderr


def _bench_coldpath() -> Any:
    spec = importlib.util.spec_from_file_location("bench_coldpath_under_test",
                                                  RUN.parent / "bench_coldpath.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (its dataclasses look their module up)
    spec.loader.exec_module(module)
    return module


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_the_cold_benchmark_books_collections_to_the_call_that_ran_them() -> None:
    """bench_coldpath reports the collector's work per library: a collection
    goes to the call it ran in, and a call that ran none records the young
    objects it left (here 50 reference cycles, found by no refcount)."""
    ledger = _bench_coldpath().CollectorLedger()

    def leaves_cycles() -> str:
        kept.extend(_Cycle() for _ in range(50))
        return "T"

    def collects() -> str:
        gc.collect(0)
        return "T"

    kept: list[_Cycle] = []
    threshold = gc.get_threshold()
    gc.collect()
    gc.set_threshold(100_000, *threshold[1:])  # (no collection by chance in between)
    try:
        with ledger:
            assert ledger.call("quiet", leaves_cycles, 5.0)[1] == "T"
            assert ledger.call("busy", collects, 5.0)[1] == "T"
    finally:
        gc.set_threshold(*threshold)
    assert "quiet" not in ledger.collections and ledger.collections["busy"][0] == 1
    assert ledger.left["quiet"][0] >= 50 and "busy" not in ledger.left
    assert ledger.seconds["busy"] > 0
    assert ledger._callback not in gc.callbacks  # removed on exit
