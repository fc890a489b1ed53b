"""Deep alternating ``max``/``min`` nests (issue 31: their pool work must grow
linearly with the depth), shared by the tests that build them."""

from __future__ import annotations


def alternating_nest(depth: int, swapped: bool) -> str:
    """``min(max(... max(a0, a1) ..., a{depth-2}), a{depth-1})``, the operators
    alternating; ``swapped`` writes every pair the other way round (an equal
    expression)."""
    e = "a0"
    for i in range(1, depth):
        op = "max" if i % 2 else "min"
        e = f"{op}(a{i}, {e})" if swapped else f"{op}({e}, a{i})"
    return e
