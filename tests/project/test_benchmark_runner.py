"""The default benchmark run (``benchmarks/run.py``) runs benchmarks and sums them up."""

from __future__ import annotations

import re
import subprocess
import sys

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
