"""Do answers depend on the variables' names?  Prove generated one-off queries
and the same queries with every variable renamed in reverse alphabetical order,
and count the statuses that differ (docs/decision.md quotes the figure).

Run: ``python benchmarks/bench_renaming.py [--n 600] [--seed 7]``.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bench_coldpath as bc  # noqa: E402

import symshape  # noqa: E402


def _status(claim: str, constraints: list[str]) -> str:
    try:
        return str(symshape.prove(claim, constraints=constraints).status)
    except symshape.SymshapeError as err:
        return type(err).__name__


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=600)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    differ = []
    for _ in range(args.n):
        q = bc.random_query(rng)
        names = sorted(q.names)
        new = {n: "v" + chr(ord("z") - i) for i, n in enumerate(names)}
        pattern = re.compile(r"\b(" + "|".join(names) + r")\b")

        def rename(text: str, new: dict[str, str] = new,
                   pattern: re.Pattern[str] = pattern) -> str:
            return pattern.sub(lambda m: new[m.group(1)], text)
        before = _status(q.claim, list(q.constraints))
        after = _status(rename(q.claim), [rename(c) for c in q.constraints])
        if before != after:
            differ.append((before, after, q.claim, q.constraints))
    print(f"{len(differ)} of {args.n} statuses change under the renaming")
    for before, after, claim, cons in differ:
        print(f"  {before} -> {after}: {claim}  given {list(cons)}")
    decided = {"proved", "refuted", "inconclusive"}
    clash = [d for d in differ if d[0] in decided and d[1] in decided]
    print(f"  of which decided both ways: {len(clash)} (must be 0)")
    return 1 if clash else 0


if __name__ == "__main__":
    raise SystemExit(main())
