"""Placeholders in shape checks: ``_`` and ``...`` take their sizes from the shapes checked.

Issue 11: ``symshape check "b, ..." --shape 2,3,4`` and
``symshape.jax.assert_shapes([x], ["b, ..."])`` under ``jax.jit`` failed with "there is
no concrete shape to fill it", though the shape is right there.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from support.paths import ROOT

from symshape import ShapeMismatchError, SymshapeError
from symshape.shapecheck import ShapeCheck

ENV = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def symshape_cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "symshape", *argv], capture_output=True,
                          text=True, env=ENV, cwd=ROOT, timeout=120)


# -- the command line, as a user runs it ---------------------------------------------


def test_cli_check_fills_the_placeholders_from_the_shape() -> None:
    p = symshape_cli("check", "b, ...", "--shape", "2,3,4")
    assert (p.returncode, p.stdout, p.stderr) == (0, "b = 2\n", "")
    p = symshape_cli("check", "b, _, 2*b", "--shape", "2,7,4")
    assert (p.returncode, p.stdout, p.stderr) == (0, "b = 2\n", "")
    p = symshape_cli("check", "...", "--shape", "5,6", "--json")
    assert p.returncode == 0 and '"ok": true' in p.stdout


def test_cli_check_with_placeholders_still_checks_the_rest() -> None:
    p = symshape_cli("check", "b, _, 2*b", "--shape", "2,7,5")
    assert p.returncode == 1
    assert "args[0].shape[2] == 5" in p.stdout and "'2*b'" in p.stdout
    p = symshape_cli("check", "b, c, ...", "--shape", "2")
    assert p.returncode == 1
    assert p.stdout.strip() == ("Rank mismatch for args[0]: its spec (b, c, ...) needs "
                                "rank >= 2, but its shape (2,) has rank 1")
    p = symshape_cli("check", "b, _", "--shape", "2,3,4")
    assert p.returncode == 1 and "Rank mismatch" in p.stdout and "Traceback" not in p.stderr


def test_cli_stablehlo_with_placeholders() -> None:
    p = symshape_cli("stablehlo", "b, _, 2*b")
    assert p.returncode == 0, p.stderr
    assert "tensor<?x?x?xf32>" in p.stdout
    p = symshape_cli("stablehlo", "b, ...")
    assert p.returncode == 3
    assert "ends with '...'" in p.stderr and "Traceback" not in p.stderr


# -- the Python API ----------------------------------------------------------------------


def test_underscore_is_one_dimension_of_any_size() -> None:
    check = ShapeCheck(["b, _, 2*b", "_"])
    assert check.specs == ((check.scope.var("b"), None, 2 * check.scope.var("b")), (None,))
    for size in (0, 1, 7, 1 << 40):
        assert check.solve([(3, size, 6), (size,)]) == {"b": 3}
    with pytest.raises(ShapeMismatchError, match="Rank mismatch for args\\[1\\]"):
        check.solve([(3, 1, 6), ()])
    with pytest.raises(ShapeMismatchError, match="args\\[0\\].shape\\[2\\] == 7"):
        check.solve([(3, 1, 7), (1,)])


def test_ellipsis_covers_any_number_of_dimensions() -> None:
    check = ShapeCheck(["b, ...", "b, h, ...", "2*h"])
    for r0, r1 in itertools.product(range(1, 5), range(2, 5)):
        s0 = (4, *range(5, 5 + r0 - 1))
        s1 = (4, 3, *[0] * (r1 - 2))
        assert check.solve([s0, s1, (6,)]) == {"b": 4, "h": 3}
        with pytest.raises(ShapeMismatchError, match="do not match the specs"):
            check.solve([s0, s1, (7,)])
    with pytest.raises(ShapeMismatchError, match=r"needs rank >= 1, but its shape \(\) "):
        check.solve([(), (4, 3), (6,)])
    with pytest.raises(ShapeMismatchError, match="needs rank >= 2"):
        check.solve([(4,), (4,), (6,)])
    with pytest.raises(ShapeMismatchError, match="needs rank 1"):
        check.solve([(4,), (4, 3), (6, 1)])


def test_placeholders_keep_the_dict_and_nested_forms() -> None:
    check = ShapeCheck({"x": "n, ...", "y": ("n, _", "...")})
    shapes = {"x": (5, 1, 2), "y": ((5, 9), (1, 2, 3, 4))}
    assert check.solve(shapes) == {"n": 5}
    with pytest.raises(ShapeMismatchError, match="args\\['y'\\]\\[0\\].shape\\[0\\] == 6"):
        check.solve({"x": (5,), "y": ((6, 9), ())})


def test_program_for_each_rank() -> None:
    check = ShapeCheck(["b, ..."])
    assert check.program.arg_ranks == (1,)  # '...' covering no dimension
    prog = check.program_for([3])
    assert prog.arg_ranks == (3,) and prog.arg_shapes == ((None, None, None),)
    prog.validate()
    assert check.program_for([3]) is prog  # built once per ranks
    with pytest.raises(ShapeMismatchError):
        check.program_for([0])
    module = check.to_stablehlo(ranks=[3])
    assert "tensor<?x?x?xf32>" in module
    with pytest.raises(SymshapeError, match="pass ranks="):
        check.to_stablehlo()


def test_placeholders_agree_with_a_direct_check() -> None:
    """For random shapes, the check passes exactly when the non-placeholder dimensions
    satisfy the specs (b and h solved from their own dimensions)."""
    rng = np.random.default_rng(11)
    check = ShapeCheck(["b, _, h, ...", "h, b + h"], constraints=["h >= 2"])
    for _ in range(300):
        rank = int(rng.integers(3, 6))
        s0 = tuple(int(v) for v in rng.integers(0, 5, size=rank))
        s1 = tuple(int(v) for v in rng.integers(0, 9, size=2))
        b, h = s0[0], s0[2]
        ok = b >= 1 and h >= 2 and s1 == (h, b + h)
        try:
            got = check.solve([s0, s1])
        except ShapeMismatchError:
            assert not ok, (s0, s1)
        else:
            assert ok and got == {"b": b, "h": h}, (s0, s1, got)


def test_bad_placeholder_use_is_still_a_parse_error() -> None:
    with pytest.raises(SymshapeError, match="'...' may only appear at the end"):
        ShapeCheck(["..., b"])


# -- JAX ---------------------------------------------------------------------------------


def _jax() -> Any:
    return pytest.importorskip("jax")


def test_assert_shapes_under_jit_fills_the_placeholders() -> None:
    jax = _jax()
    import jax.numpy as jnp

    import symshape.jax as sj

    @jax.jit
    def f(x: Any, y: Any) -> Any:
        sj.assert_shapes([x, y], ["b, ...", "b, _, 2*b"])
        return x.sum() + y.sum()

    assert float(f(jnp.ones((2, 3, 4)), jnp.ones((2, 5, 4)))) == 24.0 + 40.0
    assert float(f(jnp.ones((2,)), jnp.ones((2, 1, 4)))) == 2.0 + 8.0
    with pytest.raises(ShapeMismatchError, match="args\\[1\\].shape\\[2\\] == 5"):
        f(jnp.ones((2, 3)), jnp.ones((2, 3, 5)))
    with pytest.raises(ShapeMismatchError, match="needs rank >= 1"):
        f(jnp.ones(()), jnp.ones((2, 3, 4)))


def test_assert_shapes_in_an_export_with_symbolic_placeholder_dimensions() -> None:
    jax = _jax()
    import jax.numpy as jnp
    from jax import export

    import symshape.jax as sj

    def f(x: Any) -> Any:
        sj.assert_shapes([x], ["n, _, ..."])
        return x.sum(axis=0)

    a, m = export.symbolic_shape("a, m")
    spec = jax.ShapeDtypeStruct((a, m, 4), jnp.float32)
    exp = export.export(jax.jit(f))(spec)
    out = exp.call(jnp.ones((3, 5, 4), jnp.float32))
    assert out.shape == (5, 4)
