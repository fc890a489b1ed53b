"""Orders and colours that ignore the variables' names (symshape.decision.canon)."""

from __future__ import annotations

from hypothesis import given, settings
from support.exprgen import REVERSING_RENAME, Tree, polynomial_trees, renamed_tree, render

from symshape import SymbolicScope
from symshape.decision import canon
from symshape.decision.prove import claim_links

NAMES = ("a", "b", "c", "d")
RENAME = REVERSING_RENAME


# Polynomials only: canonical forms of floordiv, mod, max and min pick roles
# by the order of the variables (max(x, y) is y + max(x - y, 0)), so a renamed
# claim with them may be another polynomial, and nothing is to compare.
polynomials = polynomial_trees(NAMES)


def _polys(claim: str) -> list:
    links, _ = claim_links(claim, SymbolicScope())
    return [d for _, d, _ in links]


@settings(max_examples=300, deadline=None, derandomize=True)
@given(polynomials, polynomials)
def test_colours_and_column_order_follow_a_renaming(lhs: Tree, rhs: Tree) -> None:
    polys = _polys(f"{render(lhs)} >= {render(rhs)}")
    renamed = _polys(f"{render(renamed_tree(lhs))} >= {render(renamed_tree(rhs))}")
    for colours in (canon.variable_colors, canon.place_colors):
        colors, colors2 = colours(polys), colours(renamed)
        assert {RENAME[n]: c for n, c in colors.items()} == colors2
    # Monomials told apart by the colours come in the same order.
    key, key2 = canon.column_order(polys), canon.column_order(renamed)
    order = [key(m)[:3] for m in sorted({m for p in polys for m in p if m}, key=key)]
    order2 = [key2(m)[:3] for m in sorted({m for p in renamed for m in p if m}, key=key2)]
    assert order == order2


def test_colours_follow_a_renaming_through_atoms() -> None:
    for claim, renamed in [("floordiv(a, b) - 1 < mod(floordiv(a, b), b + 2)",
                            "floordiv(q, p) - 1 < mod(floordiv(q, p), p + 2)"),
                           ("-1 >= mod(floordiv(a, b), a)", "-1 >= mod(floordiv(q, p), q)")]:
        colors = canon.variable_colors(_polys(claim))
        colors2 = canon.variable_colors(_polys(renamed))
        assert {RENAME[n]: c for n, c in colors.items()} == colors2


def test_colours_tell_apart_variables_in_different_places() -> None:
    colors = canon.variable_colors(_polys("a - 2*floordiv(a, b) >= c"))
    assert len(set(colors.values())) == 3
    # Variables in symmetric places share a colour (any order of them is a symmetry).
    colors = canon.variable_colors(_polys("a*b >= a + b + c"))
    assert colors["a"] == colors["b"] != colors["c"]


def test_colours_need_no_recursion_for_deep_nests() -> None:
    text = "a"
    for k in range(300):
        text = f"max({text}, b + {k})"
    colors = canon.variable_colors(_polys(f"{text} >= a"))
    assert set(colors) == {"a", "b"}


@settings(max_examples=300, deadline=None, derandomize=True)
@given(polynomials, polynomials)
def test_sort_columns_is_the_column_order(lhs: Tree, rhs: Tree) -> None:
    # sort_columns computes colours only for ties of degree and depth: the
    # order must be exactly the one of the full key.
    polys = _polys(f"{render(lhs)} >= {render(rhs)}")
    monos = {m for p in polys for m in p if m}
    assert canon.sort_columns(monos, polys) == sorted(monos, key=canon.column_order(polys))


def test_atom_depth_counts_the_nesting() -> None:
    (d,) = _polys("floordiv(max(a, b) + mod(c, 4), d) >= 0")
    depths = sorted(canon.atom_depth(a) for m in d for a, _ in m)
    assert depths == [2]  # max(a, b) and mod(c, 4) are made of atoms of depth 1
    (d,) = _polys("a + max(a, b) >= 0")
    assert sorted(canon.atom_depth(a) for m in d for a, _ in m) == [0, 0, 1]  # a, b, max


def test_place_colour_order_is_place_colours_computed_when_first_asked() -> None:
    polys = _polys("2*a + floordiv(b, c) >= mod(c, 4)")
    colors = canon.place_colors(polys)
    order = canon.PlaceColorOrder(polys)
    assert not order.computed  # a probe that never has to choose never pays for them
    assert [order(x) for x in ("a", "b", "c", "z")] == [colors["a"], colors["b"],
                                                        colors["c"], 0]
    assert order.computed


def test_place_colours_tell_places_apart() -> None:
    colors = canon.place_colors(_polys("2*a + floordiv(b, c) >= mod(c, 4)"))
    assert len({colors["a"], colors["b"], colors["c"]}) == 3
    colors = canon.place_colors(_polys("a + b >= c*c"))
    assert colors["a"] == colors["b"] != colors["c"]
