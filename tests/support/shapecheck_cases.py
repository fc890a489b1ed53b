"""Random shape checks and shapes for them, with a brute-force oracle of which
valuations give those shapes (shared by the shape-check tests and the
StableHLO ones)."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from symshape.algebra.dimexpr import DimExpr
from symshape.algebra.substitute import substitute
from symshape.shapecheck import ShapeCheck

_TEMPLATES: list[tuple[int, str]] = [
    (6, "{v}"), (3, "{c}*{v} + {k}"), (3, "{v} + {w}"), (2, "{v} + 2*{w}"),
    (2, "2*{v} + 3*{w}"), (2, "{v}*{w}"), (1, "{v}*{v}"), (1, "{v}*({v} + 1)"),
    (2, "{k1}"), (1, "floordiv({v}, 2)"), (1, "mod({v}, 3)"), (1, "max({v}, {w})"),
    (1, "min({v}, {w}) + 1"), (1, "{v}^3 + {v}"), (1, "{w}*{v}^2"),
    (1, "mod({v}, floordiv({w}, 2))"),
]
_LINEAR = ["{v} + {w}", "{v} + 2*{w}", "2*{v} + 3*{w}", "a + b + c", "a + 2*b + 3*c", "3"]
_CONSTRAINTS = ["a >= b", "a + b <= 9", "mod(a, 2) == 0", "b >= 2", "a == b + 1"]


def random_case(rng: random.Random) -> tuple[list[str], list[str]]:
    """Random specs over a, b, c built from positive templates, and constraints."""
    nvars = rng.randint(1, 3)
    names = "abc"[:nvars]
    linear = nvars > 1 and rng.random() < 0.25  # only sums: jointly linear systems
    weights = [w for w, _ in _TEMPLATES]
    specs = []
    for _ in range(rng.randint(1, 3)):
        dims = []
        for _ in range(rng.randint(0, 3)):
            if linear:
                t = rng.choice(_LINEAR[:-2] if nvars < 3 else _LINEAR)
            else:
                t = rng.choices([t for _, t in _TEMPLATES], weights)[0]
            dims.append(t.format(v=rng.choice(names), w=rng.choice(names),
                                 c=rng.randint(1, 3), k=rng.randint(0, 3),
                                 k1=rng.randint(1, 4)))
        specs.append(", ".join(dims))
    constraints = [c for c in _CONSTRAINTS if rng.random() < 0.15
                   and all(v in names for v in re.findall(r"[a-c]", c))]
    return specs, constraints


def _semantics(check: ShapeCheck) -> tuple[list[str], Any]:
    """The variables of the specs, and ``holds(env)``: whether a valuation of them
    matches the specs' definitions: every explicit constraint as written, and the
    implicit facts of the scope, with the variables an equality rewrote away defined by
    that equality."""
    scope = check.scope
    dims = [d for spec in check.specs for d in spec]
    names = sorted(set().union(*(d.free_vars for d in dims if isinstance(d, DimExpr))))

    def value(e: DimExpr | int, env: dict[str, Any]) -> Any:
        return e.evaluate(env) if isinstance(e, DimExpr) else e

    def holds(env: dict[str, Any]) -> Any:
        env = dict(env)
        for name, rule in scope._var_rules.items():
            r = substitute(rule, {})
            if isinstance(r, int) or r.free_vars <= set(names):
                env[name] = value(r, env)
        ok: Any = True
        with np.errstate(divide="ignore"):
            for f, _ in scope._implicit:
                if not isinstance(f, DimExpr) or f.free_vars <= env.keys():
                    ok = ok & (value(f, env) >= 0)
            for c in scope.constraints:
                d = value(c.lhs, env) - value(c.rhs, env)
                ok = ok & ((d == 0) if c.op == "==" else (d >= 0))
        return ok

    return names, holds


def brute_force(check: ShapeCheck, shapes: Sequence[Sequence[int]]) -> list[dict[str, int]]:
    """Every valuation in a box that yields ``shapes`` (the box holds all of them: each
    variable occurs with positive coefficients in a dimension it is solved from)."""
    names, holds = _semantics(check)
    dims = [d for spec in check.specs for d in spec]
    flat = [d for s in shapes for d in s]
    top = max(flat, default=0) + 2
    grid = np.meshgrid(*[np.arange(1, top + 1, dtype=np.int64) for _ in names], indexing="ij")
    env = {n: g.ravel() for n, g in zip(names, grid, strict=True)}
    size = next(iter(env.values())).size if env else 1
    ok = np.broadcast_to(np.asarray(holds(env)), (size,)).copy()
    with np.errstate(divide="ignore"):
        for d, actual in zip(dims, flat, strict=True):
            ok &= (np.asarray(d.evaluate(env)) if isinstance(d, DimExpr) else d) == actual
    idx = np.nonzero(ok)[0]
    return [{n: int(env[n][i]) for n in names} for i in idx]


def shapes_for(check: ShapeCheck, rng: random.Random) -> list[tuple[int, ...]]:
    """Valid shapes from a random valuation, or a perturbation of them."""
    names, holds = _semantics(check)
    env: dict[str, int] = {}
    for _ in range(200):
        env = {n: rng.randint(1, 4) for n in names}
        if holds(env):
            break
    else:
        env = {n: 2 for n in names}  # then the specs may not evaluate: use made-up sizes
    try:
        shapes = [[int(d.evaluate(env)) if isinstance(d, DimExpr) else d for d in spec]
                  for spec in check.specs]
    except ZeroDivisionError:
        shapes = [[rng.randint(0, 5) for _ in spec] for spec in check.specs]
    flat = [(i, j) for i, s in enumerate(shapes) for j in range(len(s))]
    if flat and rng.random() < 0.6:
        for _ in range(rng.randint(1, 2)):
            i, j = rng.choice(flat)
            shapes[i][j] = max(0, shapes[i][j] + rng.choice([-2, -1, 1, 2, 3]))
            if rng.random() < 0.2:
                shapes[i][j] = 0
    return [tuple(s) for s in shapes]


__all__ = ["brute_force", "random_case", "shapes_for"]
