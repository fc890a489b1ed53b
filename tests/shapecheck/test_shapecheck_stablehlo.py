"""ShapeCheck.to_stablehlo: the MLIR parses and verifies with jaxlib's bindings, and, run
through JAX's shape refinement (which evaluates @shape_assertion) and XLA, it agrees with
the Python backend.

The tests that compile and run a module are marked ``device``: they run on the backend
``SYMSHAPE_TEST_BACKEND`` names (default ``cpu``; see ``tests/support/device.py``), so that
``SYMSHAPE_TEST_BACKEND=cuda python -m pytest -m device`` runs them on a GPU."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from support.paths import ROOT

pytest.importorskip("jax")

from jax._src.interpreters import mlir  # noqa: E402
from jax._src.lib.mlir import ir  # noqa: E402
from support.device import jax_backend  # noqa: E402
from support.shapecheck_cases import random_case, shapes_for  # noqa: E402

from symshape import ShapeMismatchError, UnsatisfiableConstraintsError  # noqa: E402
from symshape.errors import SymshapeError  # noqa: E402
from symshape.shapecheck import Program, ShapeCheck, Step, UnsolvableSpecsError  # noqa: E402
from symshape.shapecheck.program import Assertion  # noqa: E402
from symshape.shapecheck.stablehlo import element_type, emit_module, mlir_string  # noqa: E402


def parse(text: str) -> ir.Module:
    ctx = mlir.make_ir_context()
    module = ir.Module.parse(text, context=ctx)
    assert module.operation.verify()
    return module


def with_static_main(text: str, prog: Program, shapes: Sequence[Sequence[int]],
                     elem: str = "f32") -> str:
    """Append a public @main with static argument types that converts the arguments to
    the dynamic types of the private check function and calls it (as JAX does when it
    calls an exported function)."""
    dyn = [f"tensor<{''.join(('?' if d is None else str(d)) + 'x' for d in s)}{elem}>"
           for s in prog.arg_shapes]
    static = [f"tensor<{''.join(f'{d}x' for d in s)}{elem}>" for s in shapes]
    res = ", ".join("tensor<i64>" for _ in prog.outputs)
    params = ", ".join(f"%arg{i}: {t}" for i, t in enumerate(static))
    lines = [f"  func.func public @main({params}) -> ({res}) {{"]
    for i, (s, d) in enumerate(zip(static, dyn, strict=True)):
        lines.append(f"    %c{i} = stablehlo.convert %arg{i} : ({s}) -> {d}")
    args = ", ".join(f"%c{i}" for i in range(len(static)))
    call = f"func.call @shape_check({args}) : ({', '.join(dyn)}) -> ({res})"
    if prog.outputs:
        lines.append(f"    %r:{len(prog.outputs)} = {call}")
        lines.append(f"    return {', '.join(f'%r#{k}' for k in range(len(prog.outputs)))}"
                     f" : {res}")
    else:
        lines += [f"    {call}", "    return"]
    lines.append("  }")
    body = text.rstrip()
    assert body.endswith("}")
    return body[:-1] + "\n".join(lines) + "\n}\n"


def run_stablehlo(check: ShapeCheck, shapes: Sequence[Sequence[int]]) -> tuple[str, Any]:
    """Refine the module for ``shapes`` (evaluating every @shape_assertion), compile it
    for the backend of the device tests (XLA:CPU unless ``SYMSHAPE_TEST_BACKEND`` names
    another) and run it on that backend's first device: ``("ok", values)`` or
    ``("error", refinement message)``."""
    import jax
    from jax._src import compiler
    from jax._src.lib import _jax

    text = check.to_stablehlo(func_name="shape_check", public=False)
    module = parse(with_static_main(text, check.program, shapes))
    try:
        refined = _jax.mlir.refine_polymorphic_shapes(
            mlir.module_to_bytecode(module), enable_shape_assertions=True,
            validate_static_shapes=True, enable_shardy=False)
    except Exception as err:  # jaxlib raises JaxRuntimeError
        return "error", str(err)
    backend = jax_backend()
    device = backend.devices()[0]
    options = compiler.get_compile_options(num_replicas=1, num_partitions=1)
    exe = backend.compile_and_load(refined, executable_devices=_jax.DeviceList((device,)),
                                   compile_options=options)
    # The buffers go to the device the executable was compiled for, not to JAX's default
    # device (on a machine with a GPU that is cuda:0, and XLA:CPU's executable refuses it).
    args = [jax.device_put(np.zeros(s, np.float32), device) for s in shapes]
    outs = exe.execute_sharded(args).disassemble_into_single_device_arrays()
    return "ok", {name: int(np.asarray(o[0]))
                  for (name, _), o in zip(check.program.outputs, outs, strict=True)}


def assert_agree(check: ShapeCheck, shapes: Sequence[Sequence[int]]) -> str:
    got = run_stablehlo(check, shapes)
    try:
        expected: tuple[str, Any] = ("ok", check.solve(shapes))
    except ShapeMismatchError as err:
        expected = ("error", str(err))
    assert got[0] == expected[0], (shapes, got, expected)
    if got[0] == "ok":
        assert got[1] == expected[1]
    else:
        # refinement reports "<loc>: error: <the formatted message>"
        assert f"error: {expected[1]}" in got[1], (got[1], expected[1])
    return got[0]


# ---------------------------------------------------------------------------------------


def test_module_form() -> None:
    check = ShapeCheck(["b, 2*h + 1, 8", "h*b"])
    text = check.to_stablehlo()
    parse(text)
    assert text.startswith("module @shape_check {")
    assert ("func.func public @main(%arg0: tensor<?x?x8xf32>, %arg1: tensor<?xf32>) -> "
            "(tensor<i64>, tensor<i64>)") in text
    assert "stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<?x?x8xf32>) -> tensor<i32>" \
        in text
    n = len(check.program.assertions)
    assert text.count("stablehlo.custom_call @shape_assertion(") == n
    assert text.count("has_side_effect = true") == n
    assert re.search(r"return %v\d+, %v\d+ : tensor<i64>, tensor<i64>", text)
    private = check.to_stablehlo(dtypes=["bf16", "int32"], func_name="check", public=False)
    parse(private)
    assert "func.func private @check(%arg0: tensor<?x?x8xbf16>, %arg1: tensor<?xi32>)" \
        in private


def test_dtypes_and_names() -> None:
    assert element_type("float32") == element_type(np.float32) == "f32"
    assert element_type(np.dtype("bool")) == "i1"
    assert element_type("bf16") == "bf16"
    check = ShapeCheck(["a", "a"])
    with pytest.raises(SymshapeError, match="dtypes has 1 entries"):
        check.to_stablehlo(dtypes=["f32"])
    with pytest.raises(SymshapeError, match="unsupported dtype"):
        check.to_stablehlo(dtypes="float7")
    with pytest.raises(SymshapeError, match="func_name"):
        check.to_stablehlo(func_name="a b")
    assert mlir_string('a"b\\c\n\u00e9') == '"a\\"b\\\\c\\0A\\C3\\A9"'
    with pytest.raises(SymshapeError, match="does not fit in int64"):
        ShapeCheck(["a + 2^70"]).to_stablehlo()


@pytest.mark.device
def test_scalars_and_no_outputs_verify() -> None:
    parse(ShapeCheck([]).to_stablehlo())
    check = ShapeCheck(["", "3, 4"])
    text = check.to_stablehlo(dtypes=np.int8)
    parse(text)
    assert "%arg0: tensor<i8>, %arg1: tensor<3x4xi8>) -> ()" in text
    assert assert_agree(check, [(), (3, 4)]) == "ok"


@pytest.mark.device
@pytest.mark.parametrize(("specs", "constraints", "shape_sets"), [
    (["b, 2*h + 1, 8", "h*b"], [], [[(3, 9, 8), (12,)], [(3, 8, 8), (12,)],
                                    [(3, 9, 8), (13,)], [(0, 9, 8), (0,)]]),
    (["a + b", "a + 2*b", "mod(a - 2*b, 3)"], [], [[(5,), (7,), (2,)], [(7,), (13,), (1,)],
                                                   [(7,), (13,), (0,)], [(5,), (4,), (0,)]]),
    (["2*a + b, a + 3*b"], [], [[(7, 11)], [(8, 11)]]),
    (["a*(a + 1)", "n*b", "n"], [], [[(12,), (6,), (2,)], [(13,), (6,), (2,)],
                                     [(12,), (7,), (2,)], [(0,), (6,), (2,)]]),
    (["a^3 + 2*a + 7"], [], [[(1007 + 20,)], [(100 ** 3 + 207,)], [(1006,)]]),
    (["a, b"], ["a >= b + 1", "mod(a, 2) == 0"], [[(6, 3)], [(6, 6)], [(5, 3)]]),
    (["a, mod(b, floordiv(a, 2))", "b"], [], [[(5, 1), (3,)], [(1, 0), (3,)]]),
    (["b"], ["a == b - 5"], [[(6,)], [(5,)]]),
    ([{"{x}": "a, a", 'y"}': "b"}], [], [[(4,), (2, 2)], [(4,), (2, 3)]]),
])
def test_stablehlo_executes_like_python(specs: Any, constraints: list[str],
                                        shape_sets: list[list[tuple[int, ...]]]) -> None:
    check = ShapeCheck(specs, constraints=constraints)
    outcomes = {assert_agree(check, shapes) for shapes in shape_sets}
    assert outcomes == {"ok", "error"}


@pytest.mark.device
def test_floor_division_of_negative_operands() -> None:
    """floordiv/mod keep Python semantics, also for negative operands and divisors."""
    steps = [Step(0, "dim", (), (0, 0)), Step(1, "const", (), (10,)),
             Step(2, "sub", (0, 1))]  # dim - 10, negative for small dims
    outputs = []
    for k, den in enumerate((3, -3, 1, 7, -1)):
        c = Step(len(steps), "const", (), (den,))
        steps.append(c)
        for op in ("floordiv", "mod"):
            steps.append(Step(len(steps), op, (2, c.result)))
            outputs.append((f"{op}{k}", len(steps) - 1))
    prog = Program(tuple(steps), (), tuple(outputs), ("args[0]",), ((None,),))
    prog.validate()
    check = _FakeCheck(prog)
    for d in (0, 1, 2, 5, 9, 10, 11, 13, 25):
        got = run_stablehlo(check, [(d,)])  # type: ignore[arg-type]
        x = d - 10
        want = {f"{op}{k}": (x // den if op == "floordiv" else x % den)
                for k, den in enumerate((3, -3, 1, 7, -1)) for op in ("floordiv", "mod")}
        assert got == ("ok", want), d


@pytest.mark.device
def test_logical_ops_fold_under_refinement() -> None:
    """and/or/not (not has no foldable stablehlo op: it is emitted as a select)."""
    steps = [Step(0, "dim", (), (0, 0)), Step(1, "const", (), (3,)),
             Step(2, "ge", (0, 1)), Step(3, "not", (2,)), Step(4, "gt", (1, 0)),
             Step(5, "or", (3, 4)), Step(6, "and", (5, 3)), Step(7, "not", (6,)),
             Step(8, "max", (0, 1)), Step(9, "min", (0, 1))]
    asserts = (Assertion(7, "dim {0} is < 3", (0,)),)
    prog = Program(tuple(steps), asserts, (("max", 8), ("min", 9)), ("args[0]",), ((None,),))
    prog.validate()
    check = _FakeCheck(prog)
    assert run_stablehlo(check, [(5,)]) == ("ok", {"max": 5, "min": 3})  # type: ignore
    status, message = run_stablehlo(check, [(2,)])  # type: ignore[arg-type]
    assert status == "error" and "error: dim 2 is < 3" in message


class _FakeCheck:
    """Just enough of ShapeCheck to run a hand-written program."""

    def __init__(self, prog: Program) -> None:
        self.program = prog

    def to_stablehlo(self, *, func_name: str, public: bool) -> str:
        return emit_module(self.program, None, func_name=func_name, public=public)


@pytest.mark.device
def test_random_checks_agree_with_python() -> None:
    """A sample of the random checks of the property test, executed for real."""
    rng = random.Random(1234)
    seen: set[str] = set()
    runs = 0
    seed = 0
    while runs < 60:
        seed += 1
        specs, constraints = random_case(random.Random(seed))
        try:
            check = ShapeCheck(specs, constraints=constraints)
        except (UnsolvableSpecsError, UnsatisfiableConstraintsError):
            continue
        parse(check.to_stablehlo())
        for _ in range(2):
            shapes = shapes_for(check, rng)
            if any(d is not None and d != s for spec, shape in
                   zip(check.program.arg_shapes, shapes, strict=True)
                   for d, s in zip(spec, shape, strict=True)):
                continue  # a wrong constant size is a type error in StableHLO
            seen.add(assert_agree(check, shapes))
            runs += 1
    assert seen == {"ok", "error"}


# ---------------------------------------------------------------------------------------
# Where the buffers go: the device of the backend that compiled, whatever JAX's default.

_PLACEMENT = """
import sys
sys.path[:0] = [{tests!r}, {here!r}]
import jax
cpus = jax.devices("cpu")
assert len(cpus) == 2, cpus
jax.config.update("jax_default_device", cpus[1])  # as cuda:0 is on a machine with a GPU
from symshape import ShapeCheck
from test_shapecheck_stablehlo import run_stablehlo
print(run_stablehlo(ShapeCheck(["a, 2*a"]), [(3, 6)]))
print(run_stablehlo(ShapeCheck(["a, 2*a"]), [(3, 7)])[0])
"""


def _run_placement(backend: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    env.update(XLA_FLAGS="--xla_force_host_platform_device_count=2",
               SYMSHAPE_TEST_BACKEND=backend, JAX_PLATFORMS="cpu",
               PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]))
    code = _PLACEMENT.format(tests=str(ROOT / "tests"), here=str(ROOT / "tests" / "shapecheck"))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=300, check=False)


def test_buffers_go_to_the_compiling_backends_device_not_the_default() -> None:
    """JAX's default device is not the one the executable was compiled for (cpu:1 here,
    cuda:0 on a machine with a GPU and the CPU backend chosen): the run still works."""
    out = _run_placement("cpu")
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.split("\n")[:2] == ["('ok', {'a': 3})", "error"], out.stdout


def test_a_named_backend_that_is_absent_fails_instead_of_falling_back() -> None:
    out = _run_placement("no_such_platform")
    assert out.returncode != 0
    assert "SYMSHAPE_TEST_BACKEND=no_such_platform: JAX has no such backend" in out.stderr, \
        out.stderr
