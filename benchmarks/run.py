"""The default benchmark run: every side-by-side benchmark, then their summaries.

Run: ``python benchmarks/run.py [--quick] [--only NAME,NAME]``.

Each benchmark runs in a process of its own (one library's caches or imports
never reach another benchmark), its output streams as it runs, and the lines
that state ratios against JAX or PyTorch, or the targets of the issues, are
repeated at the end.  The cold path (first-sight queries whose texts the
process has never seen, in symshape and JAX, with the cached figures beside;
scope creation from fresh strings) is part of the default run.  ``--quick``
passes ``--quick`` to the benchmarks that have it (about 5 minutes in all on a
2-core machine instead of about 25).  The exit status is the first non-zero
one of a benchmark (``bench_renaming`` exits 1 when two decided answers
disagree).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

# (name, arguments, arguments with --quick): the order is the order of the run.
BENCHMARKS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("bench_jax_micro", (), ("--quick",)),
    ("bench_coldpath", (), ("--quick",)),
    ("bench_decision", (), ("--quick",)),
    ("bench_parse", (), ()),
    ("bench_renaming", (), ("--n", "200")),
    ("bench_shapecheck", (), ("--quick",)),
    ("bench_jax_trace", (), ("--quick",)),
    ("bench_torch", (), ("--quick",)),
    ("bench_artifacts", (), ("--quick",)),
    ("bench_typing", (), ("--quick",)),
    ("bench_memory", (), ("--exports", "500", "--scopes", "1000")),
)

# Lines worth repeating in the summary: ratios, targets, disagreements.
_SUMMARY = re.compile(r"JAX / symshape|torch.* / symshape|target|[0-9.]+x\b|contradiction|"
                      r"disagree|superlinear|statuses change|decided both ways", re.IGNORECASE)


def run_one(name: str, args: tuple[str, ...]) -> tuple[int, list[str], float]:
    """Run one benchmark, echoing its output; its exit status, the lines to
    repeat in the summary, and its wall time."""
    cmd = [sys.executable, str(HERE / f"{name}.py"), *args]
    print(f"\n######## {name} {' '.join(args)}", flush=True)
    start = time.perf_counter()
    keep: list[str] = []
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, bufsize=1) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            print(line, end="", flush=True)
            if _SUMMARY.search(line):
                keep.append(line.rstrip())
    return proc.returncode, keep, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="the quick variant of each benchmark")
    ap.add_argument("--only", default="", help="comma-separated benchmark names (bench_ optional)")
    args = ap.parse_args(argv)
    wanted = {w if w.startswith("bench_") else f"bench_{w}"
              for w in args.only.split(",") if w}
    unknown = wanted - {name for name, _, _ in BENCHMARKS}
    if unknown:
        ap.error(f"unknown benchmark(s): {', '.join(sorted(unknown))}")
    status = 0
    summaries: list[tuple[str, int, list[str], float]] = []
    for name, full, quick in BENCHMARKS:
        if wanted and name not in wanted:
            continue
        rc, keep, wall = run_one(name, quick if args.quick else full)
        summaries.append((name, rc, keep, wall))
        if rc and not status:
            status = rc
    print("\n######## summary")
    for name, rc, keep, wall in summaries:
        print(f"{name} ({wall:.0f} s{'' if rc == 0 else f', exit status {rc}'})")
        for line in keep[-12:]:
            print(f"  {line.strip()}")
    return status


if __name__ == "__main__":
    sys.exit(main())
