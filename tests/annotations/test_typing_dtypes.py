"""The dtype annotations of symshape.typing (``Float``, ``Int``, ``Bool``, ``Float32``, ...):
what each allows, the messages, the cache, and -- the point of them -- the same
verdicts as jaxtyping with beartype on the same code, where only the import lines
differ."""
# Linters read the strings in Float[T, "b c"] as forward references; they are shape specs.
# ruff: noqa: F722, F821, UP037

from __future__ import annotations

import importlib.util
import itertools
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType
from typing import Annotated, Any

import numpy as np
import pytest
from support.paths import ROOT

from symshape import ShapeMismatchError, SymshapeError
from symshape.typing import (
    Bool,
    Dtypes,
    Float,
    Float32,
    Int,
    Int64,
    Real,
    Shape,
    Shaped,
    UInt8,
    shapecheck,
)
from symshape.typing.dtypes import FAMILIES, dtype_name

Arr = np.ndarray

# The comparison with jaxtyping casts complex values to reals, as asked.
pytestmark = pytest.mark.filterwarnings("ignore:Casting complex values",
                                        "ignore:ComplexHalf support is experimental")

# Every family of jaxtyping that symshape.typing has, and Shaped (any dtype).
FAMILY_NAMES = ["Shaped", *FAMILIES]


# -- what each family allows -------------------------------------------------------------

NUMPY_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                "uint64", "float16", "float32", "float64", "longdouble", "complex64",
                "complex128", "clongdouble"]


def _numpy_dtypes() -> list[Any]:
    out = [np.dtype(n) for n in NUMPY_DTYPES]
    try:
        import ml_dtypes  # JAX's extra NumPy dtypes
    except ImportError:  # pragma: no cover
        return out
    return out + [np.dtype(ml_dtypes.bfloat16), np.dtype(ml_dtypes.float8_e4m3fn)]


def test_the_families_are_jaxtypings_sets_of_dtypes() -> None:
    assert FAMILIES["Float"].allows("bfloat16") and FAMILIES["Float"].allows("float64")
    assert not FAMILIES["Float"].allows("int32") and not FAMILIES["Float"].allows("complex64")
    assert FAMILIES["Real"].allows("uint8") and not FAMILIES["Real"].allows("bool")
    assert not FAMILIES["Num"].allows("bool") and FAMILIES["Num"].allows("complex128")
    assert FAMILIES["Integer"].allows("uint64") and FAMILIES["Integer"].allows("int8")
    assert not FAMILIES["Int"].allows("uint8") and not FAMILIES["UInt"].allows("int8")
    assert FAMILIES["Inexact"].allows("complex64") and not FAMILIES["Inexact"].allows("int8")
    assert FAMILIES["Float32"].names == ("float32",)
    assert FAMILIES["BFloat16"].names == ("bfloat16",)
    for name in ("Float16", "Float64", "Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16",
                 "UInt32", "UInt64", "Complex64", "Complex128", "Bool", "Complex"):
        assert name in FAMILIES


def test_dtype_names_of_numpy_torch_and_strings() -> None:
    assert dtype_name(np.dtype("float32")) == "float32"
    assert dtype_name(np.dtype(bool)) == "bool"
    assert dtype_name("int8") == "int8"
    torch = pytest.importorskip("torch")
    assert dtype_name(torch.float32) == "float32"
    assert dtype_name(torch.bfloat16) == "bfloat16"
    assert dtype_name(torch.bool) == "bool"


def test_a_dtype_is_known_by_its_name_not_its_numpy_type() -> None:
    """NumPy's ``longlong`` is ``int64`` on Linux (named so by ``dtype.name``): an Int.
    (jaxtyping reads the type's name, ``longlong``, and rejects it: a documented
    difference, left out of the comparison below.)"""
    @shapecheck
    def f(x: Int64[Arr, "n"]) -> None:
        return None

    q = np.dtype("q")
    if q.itemsize == 8:
        f(np.ones(3, q))
    assert dtype_name(np.dtype("l")) == f"int{8 * np.dtype('l').itemsize}"


def test_static_type_checkers_read_the_annotations_as_their_array_types(tmp_path: Path
                                                                       ) -> None:
    """To mypy, ``Float[np.ndarray, "b c"]`` is ``np.ndarray``: the strings raise nothing."""
    pytest.importorskip("mypy")
    user = tmp_path / "user.py"
    user.write_text(textwrap.dedent('''
        import numpy as np

        from symshape.typing import Float, Int, Shaped, shapecheck


        @shapecheck
        def f(x: Float[np.ndarray, "b c"], i: Int[np.ndarray, "k"]) -> Shaped[np.ndarray, "b"]:
            return x.sum(axis=1)


        y: np.ndarray = f(np.zeros((2, 3)), np.zeros(2, np.int64))
        z: int = f(np.zeros((2, 3)), np.zeros(2, np.int64))  # the one error
    '''), encoding="utf-8")
    root = ROOT
    p = subprocess.run([sys.executable, "-m", "mypy", "--ignore-missing-imports",
                        "--follow-imports=silent", "--cache-dir", str(tmp_path / "cache"),
                        str(user)], capture_output=True, text=True, timeout=600,
                       cwd=tmp_path, env={**os.environ, "MYPYPATH": str(root)})
    errors = [line for line in p.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1 and "user.py:13:" in errors[0], p.stdout
    assert 'has type "ndarray' in errors[0], errors


# -- eager checks and their messages ------------------------------------------------------

@shapecheck
def rowsum(x: Float[Arr, "batch channels"]) -> Float[Arr, "batch"]:
    return x.sum(axis=1)


def test_the_jaxtyping_example_checks_dtype_and_shape() -> None:
    assert rowsum(np.ones((2, 3), np.float32)).shape == (2,)
    assert rowsum(np.ones((2, 3), np.float64)).shape == (2,)
    with pytest.raises(ShapeMismatchError) as err:
        rowsum(np.ones((2, 3), np.int64))
    msg = str(err.value)
    assert msg.startswith("in the call of rowsum: x has the dtype int64, but its annotation "
                          "Float allows only ")
    assert "float32" in msg and "bfloat16" in msg
    with pytest.raises(ShapeMismatchError, match="rank"):
        rowsum(np.ones(3, np.float32))


def test_a_wrong_return_dtype_names_the_return_value() -> None:
    @shapecheck
    def count(x: Bool[Arr, "n"]) -> Int64[Arr, ""]:
        return np.asarray(x.sum(), dtype=np.float64)

    with pytest.raises(ShapeMismatchError) as err:
        count(np.ones(4, bool))
    assert str(err.value).endswith(".count: return has the dtype float64, but its annotation "
                                   "Int64 allows only int64")
    assert str(err.value).startswith("the value returned by ")


def test_a_dtype_seen_with_shapes_seen_is_still_checked() -> None:
    """The cache of accepted calls keys on the dtypes too."""
    @shapecheck
    def f(x: Float32[Arr, "b, d"], y: Shaped[Arr, "d"]) -> Shaped[Arr, "b, d"]:
        return x + y

    x32, x64 = np.ones((2, 3), np.float32), np.ones((2, 3), np.float64)
    for _ in range(2):
        assert f(x32, np.ones(3, np.int8)).shape == (2, 3)
        with pytest.raises(ShapeMismatchError, match="x has the dtype float64"):
            f(x64, np.ones(3, np.int8))
        with pytest.raises(ShapeMismatchError, match="x has the dtype float64"):
            f(x=x64, y=np.ones(3, np.int8))  # the path by name
    assert f(x32, np.ones(3, np.complex64)).dtype == np.complex64  # Shaped: any dtype


def test_an_array_without_a_dtype_is_named() -> None:
    class OnlyShape:
        shape = (2, 3)

    @shapecheck
    def f(x: Float[Any, "b c"], y: Shaped[Any, "b c"]) -> None:
        return None

    with pytest.raises(ShapeMismatchError, match=r"x is annotated with the dtype Float .* but "
                                                 r"it has no \.dtype"):
        f(OnlyShape(), OnlyShape())
    f(np.ones((2, 3)), OnlyShape())  # Shaped asks for no dtype


def test_containers_dataclasses_and_decorator_specs() -> None:
    import dataclasses

    @shapecheck
    @dataclasses.dataclass
    class Batch:
        tokens: Int[Arr, "b s"]
        mask: Bool[Arr, "b s"]

    Batch(np.ones((2, 4), np.int32), np.ones((2, 4), bool))
    with pytest.raises(ShapeMismatchError, match=r"in the fields of .*Batch: self\.mask has "
                                                 r"the dtype uint8, but its annotation Bool"):
        Batch(np.ones((2, 4), np.int32), np.ones((2, 4), np.uint8))

    @shapecheck
    def f(pairs: list[tuple[Real[Arr, "n"], UInt8[Arr, "n"]]]) -> None:
        return None

    f([(np.ones(3, np.int16), np.ones(3, np.uint8))])
    with pytest.raises(ShapeMismatchError, match=r"pairs\[1\]\[1\] has the dtype int8"):
        f([(np.ones(3), np.ones(3, np.uint8)), (np.ones(3), np.ones(3, np.int8))])

    @shapecheck(x=Shape("b, d", dtype="Float"), returns=Shape("b", dtype=["int32", "int64"]))
    def g(x: Arr) -> Arr:
        return x.argmax(axis=1).astype(np.int64)

    assert g(np.ones((2, 3))).shape == (2,)
    with pytest.raises(ShapeMismatchError, match="x has the dtype bool"):
        g(np.ones((2, 3), bool))
    assert Shape("b", dtype=Float).dtypes == FAMILIES["Float"]
    assert isinstance(Shape("b", dtype="float32").dtypes, Dtypes)
    listed = Shape("b", dtype=["int32", "int64"])
    assert hash(listed) == hash(Shape("b", dtype=("int32", "int64")))
    assert listed.dtypes is not None and listed.dtypes.names == ("int32", "int64")


def test_spelling_errors() -> None:
    with pytest.raises(SymshapeError, match=r"Float\[ArrayType, 'spec'\]"):
        Float[Arr, 3]
    with pytest.raises(SymshapeError, match="dtype"):
        Shape("b", dtype=3)
    with pytest.raises(SymshapeError, match="used in annotations"):
        Float()
    assert Float["b c"] == Annotated[Any, Shape("b c", dtype=FAMILIES["Float"])]


# -- the same verdicts as jaxtyping + beartype --------------------------------------------

# One source; only the import lines differ.  Each family annotates a function whose
# body keeps the dtype, and two functions check a return dtype.
_JAXTYPING_IMPORTS = """
from beartype import beartype
from jaxtyping import {names}, jaxtyped
check = jaxtyped(typechecker=beartype)
"""
_SYMSHAPE_IMPORTS = """
from symshape.typing import {names}, shapecheck as check
"""
_BODY = """
@check
def same_{family}(x: {family}[Arr, "batch channels"], y: {family}[Arr, "channels"]
                  ) -> {family}[Arr, "batch channels"]:
    return x
"""
_RETURNS = """
@check
def to_int(x: Float[Arr, "n"], name: str) -> Int[Arr, "n"]:
    return convert(x, name)

@check
def to_float32(x: Num[Arr, "n"], name: str) -> Float32[Arr, "n"]:
    return convert(x, name)
"""


def _module(tmp_path: Path, flavour: str, arr: str, convert: str) -> ModuleType:
    names = ", ".join(sorted(set(FAMILY_NAMES) | {"Float", "Int", "Num", "Float32"}))
    imports = (_JAXTYPING_IMPORTS if flavour == "jaxtyping" else _SYMSHAPE_IMPORTS).format(
        names=names)
    body = "".join(_BODY.format(family=f) for f in FAMILY_NAMES) + _RETURNS
    source = textwrap.dedent(imports) + f"\n{convert}\nArr = {arr}\n" + body
    path = tmp_path / f"typed_{flavour}.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(f"typed_{flavour}_{id(path)}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _verdicts(module: ModuleType, calls: list[tuple[str, tuple[Any, ...]]],
              errors: tuple[type[BaseException], ...]) -> list[bool]:
    out = []
    for fn, args in calls:
        try:
            getattr(module, fn)(*args)
            out.append(True)
        except errors:
            out.append(False)
    return out


# Shapes for (x, y) of "batch channels", "channels": right, y too long, y of the
# wrong rank, a batch of one, x of the wrong rank.
SHAPES = [((2, 3), (3,)), ((2, 3), (4,)), ((2, 3), (2, 3)), ((1, 3), (3,)), ((3,), (3,))]


def _compare(tmp_path: Path, arr: str, convert: str, make: Any, dtypes: list[Any],
             return_dtypes: list[str]) -> None:
    jaxtyping = pytest.importorskip("jaxtyping")
    roar = pytest.importorskip("beartype.roar")
    ours = _module(tmp_path, "symshape", arr, convert)
    theirs = _module(tmp_path, "jaxtyping", arr, convert)
    calls: list[tuple[str, tuple[Any, ...]]] = []
    for family, (sx, sy), dx, dy in itertools.product(FAMILY_NAMES, SHAPES, dtypes,
                                                        dtypes[:3]):
        calls.append((f"same_{family}", (make(sx, dx), make(sy, dx))))  # one dtype
        calls.append((f"same_{family}", (make(sx, dx), make(sy, dy))))  # two dtypes
    for name in return_dtypes:
        for d in dtypes:
            calls.append(("to_int", (make((4,), d), name)))
            calls.append(("to_float32", (make((4,), d), name)))
    got = _verdicts(ours, calls, (ShapeMismatchError,))
    want = _verdicts(theirs, calls, (jaxtyping.TypeCheckError, roar.BeartypeException))
    differ = [(fn, [(tuple(a.shape), str(a.dtype)) if hasattr(a, "dtype") else a
                    for a in args], w)
              for (fn, args), g, w in zip(calls, got, want, strict=True) if g != w]
    assert not differ, (len(differ), differ[:10])
    assert any(got) and not all(got)
    # Every family accepts some of these calls and rejects others.
    for family in FAMILY_NAMES:
        mine = [g for (fn, _), g in zip(calls, got, strict=True) if fn == f"same_{family}"]
        assert any(mine) and not all(mine), family


def test_same_verdicts_as_jaxtyping_with_numpy(tmp_path: Path) -> None:
    _compare(tmp_path, "np.ndarray", "import numpy as np\n"
             "def convert(x, name):\n    return x.astype(name)\n",
             lambda shape, dtype: np.ones(shape, dtype), _numpy_dtypes(),
             ["int32", "int64", "uint8", "float32", "float64", "bool"])


def test_same_verdicts_as_jaxtyping_with_torch(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    dtypes = [torch.bool, torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8,
              torch.uint16, torch.uint32, torch.uint64, torch.float16, torch.bfloat16,
              torch.float32, torch.float64, torch.complex32, torch.complex64,
              torch.complex128, torch.float8_e4m3fn, torch.float8_e5m2]
    _compare(tmp_path, "torch.Tensor", "import torch\n"
             "def convert(x, name):\n    return x.to(getattr(torch, name))\n",
             lambda shape, dtype: torch.zeros(shape, dtype=dtype), dtypes,
             ["int32", "int64", "uint8", "float32", "float64", "bool"])


# -- under jit, export and dynamo: the dtype is static, checked while tracing --------------

def test_jax_jit_and_export_check_the_dtype_while_tracing() -> None:
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    traces = []

    @jax.jit
    @shapecheck
    def f(x: Float[Any, "b c"]) -> Float[Any, "b"]:  # (postponed: a global name)
        traces.append(x.dtype)
        return x.sum(axis=1)

    assert f(jnp.ones((2, 3))).shape == (2,)
    f(jnp.ones((2, 3)))
    assert len(traces) == 1  # compiled once: nothing left at run time
    with pytest.raises(ShapeMismatchError, match="x has the dtype int32, but its annotation "
                                                 "Float allows only"):
        f(jnp.ones((2, 3), jnp.int32))
    assert f(jnp.ones((2, 3), jnp.bfloat16)).dtype == jnp.bfloat16
    b, c = jax.export.symbolic_shape("b, c")
    exp = jax.export.export(f)(jax.ShapeDtypeStruct((b, c), jnp.float32))
    assert exp.call(jnp.ones((4, 5))).shape == (4,)
    with pytest.raises(ShapeMismatchError, match="x has the dtype int8"):
        jax.export.export(f)(jax.ShapeDtypeStruct((b, c), jnp.int8))


def test_torch_export_and_compile_check_the_dtype_while_tracing() -> None:
    torch = pytest.importorskip("torch")

    @shapecheck
    def f(x: Float[Any, "b c"], i: Int[Any, "b"]) -> Float[Any, "b"]:
        return x.sum(dim=1) + i

    class M(torch.nn.Module):
        def forward(self, x: Any, i: Any) -> Any:
            return f(x, i)

    good = (torch.ones(2, 3), torch.ones(2, dtype=torch.int64))
    bad = (torch.ones(2, 3), torch.ones(2))
    b = torch.export.Dim("b")
    for strict in (False, True):
        ep = torch.export.export(M(), good, dynamic_shapes=({0: b}, {0: b}), strict=strict)
        assert ep.module()(torch.ones(5, 3), torch.ones(5, dtype=torch.int32)).shape == (5,)
        with pytest.raises(Exception, match="i has the dtype float32, but its annotation Int"):
            torch.export.export(M(), bad, strict=strict)
    compiled = torch.compile(f, backend="eager", fullgraph=True)
    assert compiled(*good).shape == (2,)
    with pytest.raises(Exception, match="i has the dtype float32, but its annotation Int"):
        compiled(*bad)
