"""symshape.typing with NumPy: the decorator, the annotations, both shape syntaxes,
containers and dataclasses, the caches, and agreement with ShapeCheck."""
# Linters read the strings in Shaped[T, "b, d"] as forward references (as with
# jaxtyping's annotations); they are shape specs.
# ruff: noqa: F722, F821, UP037

from __future__ import annotations

import dataclasses
import subprocess
import sys
from typing import Annotated, Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symshape import ParseError, ShapeCheck, ShapeMismatchError, SymshapeError
from symshape.errors import UnsolvableSpecsError
from symshape.typing import Shape, Shaped, read_spec, shapecheck

Arr = np.ndarray


def z(*shape: int) -> np.ndarray:
    return np.zeros(shape, dtype=np.float32)


# -- a small real model: an MLP and an attention block ------------------------------------

@shapecheck
def mlp(x: Shaped[Arr, "b, d"], w1: Shaped[Arr, "d, 4*d"], w2: Shaped[Arr, "4*d, d"]
        ) -> Shaped[Arr, "b, d"]:
    return np.maximum(x @ w1, 0) @ w2


@shapecheck(constraints=["mod(s, 128) == 0"])
def attention(x: Shaped[Arr, "b, s, d"], wq: Shaped[Arr, "d, d"], wk: Shaped[Arr, "d, d"],
              mask: Shaped[Arr, "s, s"]) -> Shaped[Arr, "b, s, d"]:
    q, k = x @ wq, x @ wk
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(x.shape[-1]) + mask
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    return (weights / weights.sum(-1, keepdims=True)) @ x


def test_the_mlp_accepts_right_shapes_and_names_the_wrong_one() -> None:
    assert mlp(z(3, 8), z(8, 32), z(32, 8)).shape == (3, 8)
    with pytest.raises(ShapeMismatchError) as err:
        mlp(z(3, 8), z(8, 32), z(31, 8))
    msg = str(err.value)
    assert "in the call of mlp" in msg
    assert "w2.shape[0] == 31" in msg and "'4*d'" in msg
    assert "'d' = 8 (from x.shape[1])" in msg


def test_the_attention_block_checks_its_constraint() -> None:
    assert attention(z(2, 128, 8), z(8, 8), z(8, 8), z(128, 128)).shape == (2, 128, 8)
    with pytest.raises(ShapeMismatchError, match=r"mod\(s, 128\) == 0.*== 64"):
        attention(z(2, 64, 8), z(8, 8), z(8, 8), z(64, 64))
    with pytest.raises(ShapeMismatchError, match=r"mask.shape\[1\] == 127"):
        attention(z(2, 128, 8), z(8, 8), z(8, 8), z(128, 127))
    with pytest.raises(ShapeMismatchError, match=r"x has the shape \(128, 8\) of rank 2, but "
                                                 r"its spec \(b, s, d\) needs rank 3"):
        attention(z(128, 8), z(8, 8), z(8, 8), z(128, 128))


def test_the_return_value_is_checked_with_the_arguments_variables() -> None:
    @shapecheck
    def bad(x: Shaped[Arr, "b, d"]) -> Shaped[Arr, "b, 2*d"]:
        return np.zeros((x.shape[0], 2 * x.shape[1] + 1))

    with pytest.raises(ShapeMismatchError) as err:
        bad(z(2, 3))
    msg = str(err.value)
    assert msg.startswith("the value returned by")
    assert "return.shape[1] == 7" in msg and "'d' = 3 (from x.shape[1])" in msg


def test_solving_what_jaxtyping_cannot() -> None:
    @shapecheck(constraints=["b <= 64"])
    def f(x: Shaped[Arr, "b, 2*h + 1"], y: Shaped[Arr, "128*k"], p: Shaped[Arr, "m*n"],
          q: Shaped[Arr, "m, n"]) -> Shaped[Arr, "h, k"]:
        return np.zeros((x.shape[1] // 2, y.shape[0] // 128))

    assert f(z(4, 9), z(256), z(6), z(2, 3)).shape == (4, 2)
    with pytest.raises(ShapeMismatchError, match="an odd value"):
        f(z(4, 8), z(256), z(6), z(2, 3))
    with pytest.raises(ShapeMismatchError, match="a multiple of 128"):
        f(z(4, 9), z(200), z(6), z(2, 3))
    with pytest.raises(ShapeMismatchError, match=r"p.shape\[0\] == 7"):
        f(z(4, 9), z(256), z(7), z(2, 3))
    with pytest.raises(ShapeMismatchError, match="b <= 64"):
        f(z(65, 9), z(256), z(6), z(2, 3))


def test_a_variable_only_the_return_value_solves() -> None:
    @shapecheck
    def f(x: Shaped[Arr, "a*b"]) -> Shaped[Arr, "a, b"]:
        return np.zeros((2, x.shape[0] // 2))

    assert f(z(6)).shape == (2, 3)
    with pytest.raises(ShapeMismatchError, match="the value returned by .*f: "):
        f(z(7))


def test_without_a_return_spec_an_unsolvable_spec_is_an_error() -> None:
    @shapecheck
    def f(x: Shaped[Arr, "a*b"]) -> None:
        return None

    with pytest.raises(UnsolvableSpecsError, match="'a'"):
        f(z(6))


# -- annotations and decorator arguments ------------------------------------------------

def test_annotated_with_shape_is_the_same_as_shaped() -> None:
    @shapecheck
    def f(x: Annotated[np.ndarray, Shape("b, 3")]) -> Annotated[Any, Shape("b")]:
        return x.sum(1)

    assert f(z(5, 3)).shape == (5,)
    with pytest.raises(ShapeMismatchError, match="constant 3"):
        f(z(5, 4))
    assert Shaped[np.ndarray, "b"] == Annotated[np.ndarray, Shape("b")]
    assert Shaped["b"] == Annotated[Any, Shape("b")]


def test_decorator_arguments_take_precedence() -> None:
    @shapecheck(x="n, 2", returns="n", constraints=["n >= 2"])
    def f(x: Shaped[Arr, "n, 3"]) -> Any:
        return x[:, 0]

    assert f(z(4, 2)).shape == (4,)
    with pytest.raises(ShapeMismatchError, match="n >= 2"):
        f(z(1, 2))


def test_bad_specs_fail_when_decorating() -> None:
    with pytest.raises(ParseError):
        shapecheck(x="b, +")(lambda x: x)
    with pytest.raises(ParseError):
        shapecheck(x="b", constraints=["b >"])(lambda x: x)
    with pytest.raises(SymshapeError, match="no parameter"):
        shapecheck(y="b")(lambda x: x)
    with pytest.raises(SymshapeError, match="no shape annotations"):
        shapecheck(lambda x: x)
    with pytest.raises(SymshapeError, match="list of constraints"):
        shapecheck(x="b", constraints="b >= 2")(lambda x: x)


def test_keyword_calls_defaults_and_optional_arrays() -> None:
    @shapecheck
    def f(x: Shaped[Arr, "b, d"], bias: Shaped[Arr, "d"] | None = None, *,
          scale: float = 1.0) -> Shaped[Arr, "b, d"]:
        return x * scale if bias is None else x * scale + bias

    assert f(z(2, 3)).shape == (2, 3)
    assert f(x=z(2, 3), bias=z(3), scale=2.0).shape == (2, 3)
    with pytest.raises(ShapeMismatchError, match=r"bias.shape\[0\] == 4"):
        f(z(2, 3), bias=z(4))
    with pytest.raises(ShapeMismatchError, match=r"bias.shape\[0\] == 4"):
        f(z(2, 3), z(4))


def test_containers_bind_one_set_of_variables() -> None:
    @shapecheck
    def f(pair: tuple[Shaped[Arr, "b, d"], Shaped[Arr, "d"]],
          layers: list[Shaped[Arr, "d, d"]],
          named: dict[str, Shaped[Arr, "b"]]) -> Shaped[Arr, "b"]:
        return pair[0].sum(1)

    assert f((z(2, 3), z(3)), [z(3, 3), z(3, 3)], {"u": z(2)}).shape == (2,)
    assert f((z(2, 3), z(3)), [], {}).shape == (2,)
    with pytest.raises(ShapeMismatchError, match=r"layers\[1\].shape\[0\] == 4"):
        f((z(2, 3), z(3)), [z(3, 3), z(4, 3)], {})
    with pytest.raises(ShapeMismatchError, match=r"named\['v'\].shape\[0\] == 5"):
        f((z(2, 3), z(3)), [], {"u": z(2), "v": z(5)})
    with pytest.raises(ShapeMismatchError, match="should be a sequence of 2"):
        f((z(2, 3),), [], {})


@dataclasses.dataclass
class Params:
    w: Shaped[Arr, "d, h"]
    b: Shaped[Arr, "h"]
    name: str = "layer"


def test_dataclass_fields_as_arguments() -> None:
    @shapecheck
    def apply(p: Params, x: Shaped[Arr, "n, d"]) -> Shaped[Arr, "n, h"]:
        return x @ p.w + p.b

    assert apply(Params(z(3, 4), z(4)), z(2, 3)).shape == (2, 4)
    with pytest.raises(ShapeMismatchError, match=r"p.b.shape\[0\] == 5"):
        apply(Params(z(3, 4), z(5)), z(2, 3))


def test_a_checked_dataclass() -> None:
    @shapecheck(constraints=["h >= 2"])
    @dataclasses.dataclass
    class Layer:
        w: Shaped[Arr, "d, h"]
        b: Shaped[Arr, "h"]

    Layer(z(3, 4), z(4))
    with pytest.raises(ShapeMismatchError, match=r"in the fields of .*Layer.*b.shape\[0\] == 5"):
        Layer(z(3, 4), z(5))
    with pytest.raises(ShapeMismatchError, match="h >= 2"):
        Layer(z(3, 1), z(1))


def test_anything_with_a_shape() -> None:
    class Fake:
        def __init__(self, *shape: int) -> None:
            self.shape = shape

    @shapecheck
    def f(x: Shaped[Any, "b, b"]) -> None:
        return None

    f(Fake(3, 3))
    with pytest.raises(ShapeMismatchError):
        f(Fake(3, 4))
    listed = Fake()
    listed.shape = [3, 3]  # type: ignore[assignment]  # unhashable: checked, never cached
    f(listed)
    f(x=listed)
    listed.shape = [3, 2]  # type: ignore[assignment]
    with pytest.raises(ShapeMismatchError):
        f(listed)
    with pytest.raises(ShapeMismatchError, match="has no .shape"):
        f([1, 2])


# -- jaxtyping's shape strings (the examples of its documentation, in our words) --------------

def test_reading_which_syntax() -> None:
    assert read_spec("b, 2*h + 1").syntax == "symshape"
    assert read_spec("2*h + 1").syntax == "symshape"
    assert read_spec("batch channels").syntax == "jaxtyping"
    assert read_spec("*batch #c").syntax == "jaxtyping"
    assert read_spec("_n").syntax == "jaxtyping"
    assert read_spec("b", "jaxtyping").items == read_spec("b").items
    with pytest.raises(ParseError, match="unexpected name 'c'"):
        read_spec("a,b c")  # a comma: symshape's syntax
    with pytest.raises(ParseError, match="not both"):
        read_spec("a,b c", "jaxtyping")
    with pytest.raises(ParseError, match=r"'\?'"):
        read_spec("?a b")
    with pytest.raises(ParseError, match="more than one run"):
        read_spec("*a *b")


def test_jaxtyping_named_and_fixed_dimensions() -> None:
    # A matrix-vector product: names bind across the arguments and the result.
    @shapecheck
    def matvec(m: Shaped[Arr, "rows cols"], v: Shaped[Arr, "cols"]) -> Shaped[Arr, "rows"]:
        return m @ v

    assert matvec(z(2, 3), z(3)).shape == (2,)
    with pytest.raises(ShapeMismatchError, match=r"v.shape\[0\] == 4"):
        matvec(z(2, 3), z(4))

    # Fixed sizes, and a size with a name for readers ("channels=3" is just 3).
    @shapecheck
    def rgb(img: Shaped[Arr, "h w channels=3"], k: Shaped[Arr, "3 3"]) -> None:
        return None

    rgb(z(5, 6, 3), z(3, 3))
    with pytest.raises(ShapeMismatchError, match="constant 3"):
        rgb(z(5, 6, 4), z(3, 3))


def test_jaxtyping_runs_of_dimensions() -> None:
    # '*batch' is the same dimensions wherever it occurs; '...' any dimensions.
    @shapecheck
    def add(x: Shaped[Arr, "*batch c"], y: Shaped[Arr, "*batch c"], t: Shaped[Arr, "... c"]
            ) -> Shaped[Arr, "*batch c"]:
        return x + y

    assert add(z(2, 3, 4), z(2, 3, 4), z(7, 7, 7, 4)).shape == (2, 3, 4)
    assert add(z(4), z(4), z(4)).shape == (4,)  # a run may be empty
    with pytest.raises(ShapeMismatchError, match=r"'\*batch' covers 1 dimension"):
        add(z(2, 3, 4), z(3, 4), z(4))
    with pytest.raises(ShapeMismatchError, match=r"y.shape\[1\] == 5"):
        add(z(2, 3, 4), z(2, 5, 4), z(4))
    with pytest.raises(ShapeMismatchError, match=r"rank >= 1"):
        add(z(2, 3, 4), z(2, 3, 4), z())


def test_jaxtyping_anonymous_and_broadcastable_dimensions() -> None:
    @shapecheck
    def f(x: Shaped[Arr, "b _ _n"], y: Shaped[Arr, "#b 4"], s: Shaped[Arr, "*#batch"],
          u: Shaped[Arr, "*batch"]) -> None:
        return None

    f(z(2, 9, 9), z(2, 4), z(3, 1), z(3, 5))
    f(z(2, 9, 9), z(1, 4), z(1, 5), z(3, 5))  # a broadcastable 1 binds nothing
    with pytest.raises(ShapeMismatchError, match=r"y.shape\[0\] == 3"):
        f(z(2, 9, 9), z(3, 4), z(3, 5), z(3, 5))
    with pytest.raises(ShapeMismatchError, match=r"u.shape\[1\] == 5.*batch__1"):
        f(z(2, 9, 9), z(2, 4), z(3, 2), z(3, 5))


def test_jaxtyping_symbolic_dimensions() -> None:
    # jaxtyping evaluates 'dim-1' once 'dim' is bound; symshape solves it wherever it is.
    @shapecheck
    def drop_last(x: Shaped[Arr, "dim"]) -> Shaped[Arr, "dim-1"]:
        return x[:-1]

    assert drop_last(z(5)).shape == (4,)

    @shapecheck
    def grow(x: Shaped[Arr, "dim-1"]) -> Shaped[Arr, "dim"]:
        return np.zeros(x.shape[0] + 1)

    assert grow(z(3)).shape == (4,)

    @shapecheck
    def pairs(x: Shaped[Arr, "2*n n"]) -> None:
        return None

    pairs(z(6, 3))
    with pytest.raises(ShapeMismatchError):
        pairs(z(6, 4))


# -- the caches ------------------------------------------------------------------------

def test_a_second_call_with_the_same_shapes_is_a_lookup() -> None:
    @shapecheck
    def f(x: Shaped[Arr, "b, d"], w: Shaped[Arr, "d, e"]) -> Shaped[Arr, "b, e"]:
        return x @ w

    checker = f.__symshape_checker__  # type: ignore[attr-defined]
    f(z(2, 3), z(3, 4))
    assert checker.accepted == {((2, 3), (3, 4))}
    assert len(checker.accepted_return) == 1
    f(z(5, 3), z(3, 4))  # new shapes, same ranks: the same plan
    assert len(checker.arg_plans._plans) == 1
    with pytest.raises(ShapeMismatchError):
        f(z(2, 3), z(4, 4))
    assert len(checker.accepted) == 2  # a failure is never kept


def test_importing_symshape_typing_loads_neither_jax_nor_torch() -> None:
    code = ("import sys, numpy as np\n"
            "from symshape.typing import Shaped, shapecheck\n"
            "f = shapecheck(lambda x: x, x='b, 2')\n"
            "f(np.zeros((3, 2)))\n"
            "print(sorted(m for m in ('jax', 'torch') if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120)
    assert out.stdout.strip() == "[]"


# -- the decorator accepts exactly what ShapeCheck accepts -------------------------------------

_DIMS = ["a", "b", "c", "2*a + 1", "a*b", "a + b", "3", "_", "c - 1", "4*c"]
_CONSTRAINTS = ["a <= 4", "mod(b, 2) == 0", "c >= 2"]


@st.composite
def _cases(draw: Any) -> tuple[list[str], list[str], list[tuple[int, ...]]]:
    n = draw(st.integers(1, 3))
    dims = [draw(st.lists(st.sampled_from(_DIMS), min_size=0, max_size=3)) for _ in range(n)]
    specs = [", ".join(d) for d in dims]
    constraints = draw(st.lists(st.sampled_from(_CONSTRAINTS), unique=True, max_size=2))
    # Shapes from a valuation (often right), then perhaps one size or one rank changed.
    env = {v: draw(st.integers(1, 6)) for v in "abc"}
    shapes = [[draw(st.integers(0, 9)) if d == "_" else eval(d, {}, env)  # noqa: S307
               for d in ds] for ds in dims]
    change = draw(st.sampled_from(["none", "size", "rank"]))
    i = draw(st.integers(0, n - 1))
    if change == "size" and shapes[i]:
        j = draw(st.integers(0, len(shapes[i]) - 1))
        shapes[i][j] = max(0, shapes[i][j] + draw(st.sampled_from([-1, 1, 2])))
    elif change == "rank":
        shapes[i] = shapes[i][:-1] if shapes[i] and draw(st.booleans()) else shapes[i] + [2]
    return specs, constraints, [tuple(s) for s in shapes]


def _outcome(fn: Any) -> str:
    try:
        fn()
    except ShapeMismatchError:
        return "mismatch"
    except SymshapeError as err:
        return type(err).__name__
    return "ok"


_SEEN: dict[str, int] = {}
_FUNCTIONS = {1: lambda x0: None, 2: lambda x0, x1: None, 3: lambda x0, x1, x2: None}


@settings(max_examples=300, deadline=None)
@given(_cases())
def test_the_decorator_accepts_exactly_when_shapecheck_solve_accepts(
        case: tuple[list[str], list[str], list[tuple[int, ...]]]) -> None:
    specs, constraints, shapes = case
    names = [f"x{i}" for i in range(len(specs))]

    def check_direct() -> None:
        ShapeCheck(specs, constraints=constraints).solve(shapes)

    def check_decorated() -> None:
        fn = shapecheck(constraints=constraints, **dict(zip(names, specs, strict=True)))(
            _FUNCTIONS[len(specs)])
        fn(*[z(*s) for s in shapes])

    direct = _outcome(check_direct)
    decorated = _outcome(check_decorated)
    _SEEN[direct] = _SEEN.get(direct, 0) + 1
    # The same acceptance, and the same verdict on shapes; for specs that ShapeCheck
    # rejects whatever the shapes, a wrong rank may be reported first.
    assert (decorated == "ok") == (direct == "ok"), (specs, constraints, shapes)
    if direct == "mismatch":
        assert decorated == "mismatch", (specs, constraints, shapes)


def test_the_property_saw_both_verdicts() -> None:
    """The random cases are not all rejected (runs after the property test)."""
    if not _SEEN:
        pytest.skip("run with the property test")
    assert _SEEN.get("ok", 0) >= 20 and _SEEN.get("mismatch", 0) >= 20, _SEEN


def test_annotations_naming_what_is_defined_later(tmp_path: Any, monkeypatch: Any) -> None:
    # With postponed annotations, a type defined after the function is read at its
    # first call.
    (tmp_path / "later_module.py").write_text(
        "from __future__ import annotations\n"
        "import dataclasses\n"
        "import numpy as np\n"
        "from symshape.typing import Shaped, shapecheck\n"
        "@shapecheck\n"
        "def apply(p: Later, x: Shaped[np.ndarray, 'n, d']) -> Shaped[np.ndarray, 'n, h']:\n"
        "    return x @ p.w\n"
        "@shapecheck\n"
        "def broken(x: Missing) -> None:\n"
        "    return None\n"
        "@dataclasses.dataclass\n"
        "class Later:\n"
        "    w: Shaped[np.ndarray, 'd, h']\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import later_module  # type: ignore[import-not-found]

    assert later_module.apply(later_module.Later(z(3, 4)), z(2, 3)).shape == (2, 4)
    with pytest.raises(ShapeMismatchError, match=r"x.shape\[1\] == 3.*from p.w.shape\[0\]"):
        later_module.apply(later_module.Later(z(5, 4)), z(2, 3))
    with pytest.raises(SymshapeError, match="cannot read the annotations.*Missing"):
        later_module.broken(1)
