"""One short digest of what symshape answers, to guard a refactoring.

Run: ``python benchmarks/oracle_digest.py [--n N] [--seed S] [--dump FILE]``.

Draws ``N`` claims (default 300) with the generator of the soundness tests
(``tests/support/oracle.py``, a seeded ``random.Random``), and for each runs the
one-off queries a user would, in fresh scopes, recording every answer as a
line of text:

* the canonical strings of both sides, of their difference, and of the
  ``floordiv``/``mod``/``max``/``min`` of the two sides, built with the
  operator API;
* the comparison ``lhs >= rhs`` through the operators (``True``, ``False`` or
  the error's type);
* ``bounds(lhs - rhs)``;
* ``symshape.prove(claim, constraints=...)``: status, counterexample, witness,
  whether the certificate checks, its facts and its explanation.

That is four to eight queries per claim (about 1,200 for the default). The
digest is the first 12 hex digits of the SHA-256 of all lines; it must not
change under a refactoring that is meant to move code only, under either build
(compiled, or ``SYMSHAPE_PURE_PYTHON=1``).  ``--dump`` writes the lines, to
find what changed when it does.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from support.exprgen import build, render  # noqa: E402  (tests/support/exprgen.py)
from support.oracle import random_claim  # noqa: E402  (tests/support/oracle.py)

import symshape  # noqa: E402
from symshape.algebra.floordiv import floordiv, mod  # noqa: E402
from symshape.algebra.maxmin import max_expr, min_expr  # noqa: E402


def _outcome(f: Callable[[], Any]) -> str:
    """``repr`` of what ``f()`` returns, or the symshape error it raises (type
    and message: the wording is part of the answer)."""
    try:
        return repr(f())
    except (symshape.SymshapeError, symshape.InconclusiveDimensionOperation,
            ZeroDivisionError) as e:
        return f"!{type(e).__name__}: " + str(e).replace("\n", " | ")


def _prove_lines(text: str, constraints: tuple[str, ...]) -> list[str]:
    try:
        v = symshape.prove(text, constraints=constraints)
    except symshape.SymshapeError as e:
        return [f"prove !{type(e).__name__}: {e}"]
    out = [f"prove {v.status} cex={v.counterexample} wit={v.witness}"]
    cert = v.certificate
    if cert is not None:
        out.append(f"cert check={cert.check()} used={cert.constraints_used()} "
                   f"facts={len(cert.facts_used())}")
    out.append("explain " + v.explain().replace("\n", " | "))
    return out


def claim_lines(rng: random.Random) -> list[str]:
    """Every answer for one generated claim."""
    claim = random_claim(rng)
    out = [f"claim {claim.text} under {list(claim.constraints)}"]
    try:
        scope = symshape.SymbolicScope(claim.constraints)
    except symshape.SymshapeError as e:
        return [*out, f"scope !{type(e).__name__}", *_prove_lines(claim.text, claim.constraints)]
    sides = []
    for tree in (claim.lhs, claim.rhs):
        try:
            sides.append(build(tree, scope))
        except symshape.SymshapeError as e:
            out.append(f"build {render(tree)} !{type(e).__name__}")
    if len(sides) == 2:
        x, y = sides
        out.append(f"forms {x} ; {y} ; {_outcome(lambda: x - y)}")
        out.append(f"ops {_outcome(lambda: floordiv(x, y))} ; {_outcome(lambda: mod(x, y))} ; "
                   f"{_outcome(lambda: max_expr(x, y))} ; {_outcome(lambda: min_expr(x, y))}")
        out.append(f"ge {_outcome(lambda: x >= y)}")
        out.append(f"bounds {_outcome(lambda: symshape.bounds(x - y))}")
    out.extend(_prove_lines(claim.text, claim.constraints))
    return out


def digest(n: int, seed: int, dump: Path | None = None) -> str:
    """The digest of the answers to ``n`` claims drawn with ``seed``."""
    rng = random.Random(seed)
    h = hashlib.sha256()
    lines: list[str] = []
    for i in range(n):
        for line in claim_lines(rng):
            text = f"{i} {line}"
            h.update(text.encode() + b"\n")
            if dump is not None:
                lines.append(text)
    if dump is not None:
        dump.write_text("\n".join(lines) + "\n")
    return h.hexdigest()[:12]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--seed", type=int, default=28)
    ap.add_argument("--dump", type=Path, default=None)
    args = ap.parse_args()
    d = digest(args.n, args.seed, args.dump)
    build_name = "compiled" if symshape.compiled_modules() else "pure"
    print(f"oracle digest {d} (n={args.n}, seed={args.seed}, {build_name})")


if __name__ == "__main__":
    main()
