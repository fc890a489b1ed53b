"""The ``symshape`` command line: answers, exit statuses, JSON, and bad input."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tomllib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import exprgen, fresh_venv
from support.paths import ROOT

import symshape
from symshape import cli
from symshape.decision import prove
from symshape.shapecheck import ShapeCheck


def run(*argv: str) -> tuple[int, str, str]:
    """Run the command in-process: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def run_process(*argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """Run ``python -m symshape`` as a separate process, as a user would."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "symshape", *argv], input=stdin,
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)


# -- prove --------------------------------------------------------------------------


def test_prove_proved_prints_certificate_steps() -> None:
    code, out, err = run("prove", "a >= 9", "--given", "a >= b + 8")
    assert code == cli.EXIT_OK, err
    assert "Status: proved" in out
    assert "a >= b + 8" in out  # the constraint the proof uses is shown
    assert err == ""


def test_prove_refuted_exit_1_with_counterexample() -> None:
    code, out, _ = run("prove", "a < b", "--given", "a >= b + 8")
    assert code == cli.EXIT_REFUTED
    assert "refuted" in out
    verdict = prove("a < b", constraints=["a >= b + 8"])
    assert verdict.counterexample is not None
    assert cli.format_valuation(verdict.counterexample) in out


def test_prove_inconclusive_exit_2_with_witness_and_counterexample() -> None:
    code, out, _ = run("prove", "a >= b")
    assert code == cli.EXIT_INCONCLUSIVE
    assert "inconclusive" in out
    verdict = prove("a >= b")
    assert verdict.witness is not None and verdict.counterexample is not None
    assert cli.format_valuation(verdict.witness) in out
    assert cli.format_valuation(verdict.counterexample) in out


def test_prove_chain_and_multiple_givens() -> None:
    code, _, err = run("prove", "16 <= a + b <= 2*c", "-g", "8 <= a <= c", "-g", "8 <= b <= c")
    assert code == cli.EXIT_OK, err


def test_prove_json_is_machine_readable_and_consistent() -> None:
    code, out, _ = run("prove", "a >= b", "--json")
    data = json.loads(out)
    assert code == cli.EXIT_INCONCLUSIVE
    assert data["status"] == "inconclusive"
    assert data["claim"] == "a >= b"
    assert data["constraints"] == []
    w, c = data["witness"], data["counterexample"]
    assert w["a"] >= w["b"] and c["a"] < c["b"]
    assert min(w.values()) >= 1 and min(c.values()) >= 1

    code, out, _ = run("prove", "mod(a, 4) <= 3", "--json")
    data = json.loads(out)
    assert code == cli.EXIT_OK and data["status"] == "proved"
    assert data["certificate"]["checked"] is True
    assert data["counterexample"] is None and data["witness"] is None
    assert "Status: proved" in data["explanation"]

    code, out, _ = run("prove", "a + 1 <= a", "--json", "-g", "a >= 2")
    data = json.loads(out)
    assert code == cli.EXIT_REFUTED and data["status"] == "refuted"
    assert data["constraints"] == ["a >= 2"]
    assert data["counterexample"]["a"] >= 2


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=exprgen.trees(("a", "b"), max_leaves=5, symbolic_divisors=False),
       op=st.sampled_from([">=", "<=", "==", ">", "<"]), k=st.integers(-3, 3))
def test_prove_exit_status_matches_the_api(tree: exprgen.Tree, op: str, k: int) -> None:
    claim = f"{exprgen.render(tree)} {op} {k}"
    code, out, err = run("prove", claim, "--json")
    verdict = prove(claim)
    assert code == cli.status_exit_code(verdict.status), err
    data = json.loads(out)
    assert data["status"] == str(verdict.status)
    # The valuations printed are real evidence: check them by direct evaluation.
    holds = {"==": lambda v: v == k, ">=": lambda v: v >= k, "<=": lambda v: v <= k,
             ">": lambda v: v > k, "<": lambda v: v < k}[op]
    for key, expected in (("counterexample", False), ("witness", True)):
        env = data[key]
        if env is not None:
            env = {"a": 1, "b": 1, **env}
            assert holds(exprgen.evaluate(tree, env)) is expected, (claim, key, env)


# -- simplify and bounds --------------------------------------------------------------


def test_simplify_prints_canonical_form() -> None:
    assert run("simplify", "floordiv(c, 2) * 2 + mod(c, 2)") == (0, "c\n", "")
    assert run("simplify", "(a + 1)^2 - a*a")[1] == "2*a + 1\n"
    assert run("simplify", "a // 2", "--given", "a == 2*b")[1] == "b\n"
    code, out, _ = run("simplify", "max(a, b) + min(a, b)", "--json")
    assert code == 0
    assert json.loads(out) == {"expression": "max(a, b) + min(a, b)", "canonical": "a + b",
                               "constraints": [], "constant": False, "variables": ["a", "b"]}


def test_bounds() -> None:
    assert run("bounds", "mod(a, 4)")[1] == "0 <= mod(a, 4) <= 3\n"
    assert run("bounds", "a - b", "--given", "a >= b + 8")[1] == "a - b >= 8\n"
    assert run("bounds", "b - a", "--given", "a >= b + 8")[1] == "-a + b <= -8\n"
    assert run("bounds", "a - b")[1] == "a - b is unbounded in both directions\n"
    assert run("bounds", "3")[1] == "3\n"  # a constant is shown as itself
    code, out, _ = run("bounds", "a - b", "--given", "a >= b + 8", "--json")
    assert code == 0
    data = json.loads(out)
    assert (data["lower"], data["upper"], data["canonical"]) == (8, None, "a - b")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=exprgen.trees(("a", "b"), max_leaves=6), env=exprgen.valuations(("a", "b")))
def test_simplify_and_bounds_agree_with_direct_evaluation(tree: exprgen.Tree,
                                                          env: dict[str, int]) -> None:
    text = exprgen.render(tree)
    code, out, err = run("simplify", text, "--json")
    assert code == 0, err
    canonical = json.loads(out)["canonical"]
    scope = symshape.SymbolicScope()
    from symshape.shapes import parse_expr_in_scope
    reparsed = parse_expr_in_scope(canonical, scope)
    value = exprgen.evaluate(tree, env)
    assert (reparsed if isinstance(reparsed, int) else reparsed.evaluate(env)) == value
    code, out, err = run("bounds", text, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["lower"] is None or data["lower"] <= value
    assert data["upper"] is None or value <= data["upper"]


# -- check and stablehlo ------------------------------------------------------------


def test_check_solves_variables() -> None:
    code, out, _ = run("check", "b, 2*h + 1", "h", "--shape", "3,9", "--shape", "4")
    assert (code, out) == (0, "b = 3\nh = 4\n")
    code, out, _ = run("check", "b, n", "--shape", "(2, 5)", "--json")
    assert code == 0
    assert json.loads(out)["values"] == {"b": 2, "n": 5}


def test_check_mismatch_prints_the_assertion_message() -> None:
    code, out, err = run("check", "b, n", "n, n", "--shape", "3,8", "--shape", "8,7")
    assert code == cli.EXIT_REFUTED
    assert out.startswith("Input shapes do not match the specs")
    assert "'n' = 8" in out and err == ""
    code, out, _ = run("check", "b, 2*h + 1", "--shape", "3,8", "--json")
    data = json.loads(out)
    assert code == 1 and data["ok"] is False and "odd" in data["error"]


def test_check_constraint_violation() -> None:
    code, out, _ = run("check", "b, n", "--shape", "3,8", "--given", "n >= 16")
    assert code == cli.EXIT_REFUTED and "n >= 16" in out


def test_stablehlo_module() -> None:
    code, out, err = run("stablehlo", "b, 2*h + 1", "h", "--dtype", "f32", "--dtype", "i32")
    assert code == 0, err
    assert out.startswith("module")
    assert "tensor<?x?xf32>" in out and "tensor<?xi32>" in out
    assert out.count("@shape_assertion") >= 2
    assert ShapeCheck(["b, 2*h + 1", "h"]).to_stablehlo(dtypes=["f32", "i32"]) \
        in out


# -- bad input ----------------------------------------------------------------------


@pytest.mark.parametrize("argv", [
    ("simplify", "a + * b"),
    ("bounds", "2*h + 1.5"),
    ("prove", "a >= "),
    ("prove", "a >= 1", "--given", "b = 3"),
    ("check", "b, n", "--shape", "3,x"),
    ("check", "b, n", "m", "--shape", "3,4"),
    ("stablehlo", "b, n", "--dtype", "f33"),
])
def test_bad_input_exit_3_with_message(argv: tuple[str, ...]) -> None:
    code, out, err = run(*argv)
    assert code == cli.EXIT_BAD_INPUT
    assert out == ""
    assert err.startswith("symshape: error: ")
    assert "Traceback" not in err


def test_parse_error_has_caret_under_the_column() -> None:
    _, _, err = run("simplify", "a + * b")
    lines = err.splitlines()
    text_line = next(i for i, s in enumerate(lines) if s.strip() == "a + * b")
    caret = lines[text_line + 1]
    assert caret.strip() == "^"
    assert lines[text_line][caret.index("^")] == "*"


def test_unsatisfiable_constraints_are_bad_input() -> None:
    code, _, err = run("prove", "a >= 1", "--given", "a >= b + 1", "--given", "b >= a")
    assert code == cli.EXIT_BAD_INPUT
    assert "unsatisfiable" in err


@pytest.mark.parametrize("argv", [(), ("frobnicate",), ("prove",), ("prove", "a >= 1", "--nope"),
                                  ("check", "a"), ("bounds", "a", "b")])
def test_usage_errors_exit_3_not_2(argv: tuple[str, ...]) -> None:
    code, out, err = run(*argv)
    assert code == cli.EXIT_BAD_INPUT
    assert "usage: symshape" in err and "error:" in err


# -- the real program -----------------------------------------------------------------


def test_python_m_symshape_end_to_end() -> None:
    p = run_process("prove", "a >= 9", "--given", "a >= b + 8")
    assert p.returncode == 0 and "Status: proved" in p.stdout
    p = run_process("prove", "a >= b")
    assert p.returncode == 2
    p = run_process("bounds", "a +")
    assert p.returncode == 3 and "Traceback" not in p.stderr and "^" in p.stderr
    p = run_process("nope")
    assert p.returncode == 3 and "Traceback" not in p.stderr
    p = run_process("--help")
    assert p.returncode == 0 and "prove" in p.stdout
    p = run_process("--version")
    assert p.returncode == 0 and p.stdout.strip() == f"symshape {symshape.__version__}"


def test_console_script_is_declared() -> None:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert data["project"]["scripts"]["symshape"] == "symshape.cli:main"
    assert callable(cli.main)


def test_installed_console_script() -> None:
    """Build the wheel, install it in a fresh venv, and run the ``symshape`` command."""
    bindir = fresh_venv.installed()
    env = fresh_venv.clean_env()
    script = bindir / "symshape"
    p = subprocess.run([str(script), "prove", "a >= 9", "--given", "a >= b + 8"],
                       capture_output=True, text=True, cwd=bindir.parent, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "Status: proved." in p.stdout
    p = subprocess.run([str(script), "simplify", "a +"], capture_output=True, text=True,
                       cwd=bindir.parent, env=env, timeout=120)
    assert p.returncode == 3 and "^" in p.stderr and "Traceback" not in p.stderr


def test_parse_shape() -> None:
    assert cli.parse_shape("3,8") == (3, 8)
    assert cli.parse_shape(" (3, 8) ") == (3, 8)
    assert cli.parse_shape("5,") == (5,)
    assert cli.parse_shape("") == () == cli.parse_shape("()")
    with pytest.raises(symshape.SymshapeError):
        cli.parse_shape("3,-1")
