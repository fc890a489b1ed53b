"""The valuation pool: valid points found without a search where a repair
does, and the same points whatever the variables are called."""

from __future__ import annotations

import re

import pytest

from symshape.scope import SymbolicScope

# A chain of offsets with divisibility: all ones, all twos, the propagated
# lower bounds and those rounded to the divisors all violate it.
CHAIN = ["x0 >= x1 + 8", "x1 >= x2 + 2", "x2 >= x3 + 1", "x3 >= x4", "x4 >= x5 + 1",
         "x5 >= x6 + 1", "x6 >= x7", "x7 >= x8 + 1", "x8 >= x9 + 2", "x9 >= x10 + 1",
         "x10 >= x11 + 8", "x11 >= 16", "x0 <= 8192", "2*x4 >= x10 + x11",
         "mod(x3, 2) == 0", "mod(x1, 8) == 0", "x6 + x9 <= 16384"]


def _pool_without_search(constraints: list[str]) -> list[dict[str, int]]:
    decider = SymbolicScope(constraints).decider()
    assert decider is not None
    sp = decider.pool

    def no_search(hyps: object) -> None:
        raise AssertionError("the pool ran a search for its first valuation")
    sp.find_model = no_search
    points = sp.initial_pool()
    assert points and all(sp.valid(pt) for pt in points)
    return [dict(pt.env) for pt in points]


def test_chain_with_divisibility_needs_no_search() -> None:
    envs = _pool_without_search(CHAIN)
    for env in envs:
        assert env["x1"] % 8 == 0 and env["x3"] % 2 == 0
        assert env["x0"] <= 8192


@pytest.mark.parametrize("style", ["reversed", "long"])
def test_repaired_pool_does_not_depend_on_names(style: str) -> None:
    """The same points, renamed, under names that sort in another order."""
    def new_name(old: str) -> str:
        i = int(old[1:])
        return f"v{11 - i:02d}" if style == "reversed" else f"dim_{chr(ord('z') - i)}"
    renamed = [re.sub(r"x\d+", lambda m: new_name(m.group(0)), c) for c in CHAIN]
    base = _pool_without_search(CHAIN)
    other = _pool_without_search(renamed)
    assert [{new_name(k): v for k, v in env.items()} for env in base] == other
