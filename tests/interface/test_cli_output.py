"""What the command line prints and returns: constant results, JSON errors, ``stablehlo --json``,
the undecided exit status, suggested constraints, ``--budget``/``--time-limit`` and the
progress line on a terminal.  Driven as a user would: the program as a subprocess, and
in a pseudo-terminal where the terminal matters."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from support.paths import ROOT
from support.slow_prover import SLOW_PROVER_SCRIPT

import symshape
from symshape import cli
from symshape.decision import prove

ENV = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))

# True claims that the prover cannot settle with a starved budget: their answer must be
# "undecided", never "inconclusive" (nothing shows them false anywhere).
HARD_TRUE_CLAIMS = ("a^3 + b^3 + c^3 >= 3*a*b*c", "a*b*c*d >= a + b + c + d - 3",
                    "a^2 + b^2 >= 2*a*b", "(a + b + c + d + e + f)^6 >= 1")
STARVED = 0.001


def symshape_cli(*argv: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "symshape", *argv], capture_output=True,
                          text=True, env=ENV, cwd=ROOT, timeout=timeout)


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def undecided_claim() -> str:
    """A claim the prover leaves undecided with the starved budget."""
    for claim in HARD_TRUE_CLAIMS:
        if str(prove(claim, budget=STARVED).status) == "undecided":
            return claim
    raise AssertionError(f"every one of {HARD_TRUE_CLAIMS} was decided with budget "
                         f"{STARVED}: add a harder claim to HARD_TRUE_CLAIMS")


# -- constants -----------------------------------------------------------------------


def test_constant_bounds_print_sensibly() -> None:
    p = symshape_cli("bounds", "s % 128", "--given", "mod(s, 128) == 0")
    assert (p.returncode, p.stdout, p.stderr) == (0, "s % 128 is always 0\n", "")
    p = symshape_cli("bounds", "7")
    assert (p.returncode, p.stdout) == (0, "7\n")
    p = symshape_cli("bounds", "a - a + 3")
    assert p.stdout == "a - a + 3 is always 3\n"
    p = symshape_cli("bounds", "s % 128", "--given", "mod(s, 128) == 0", "--json")
    data = json.loads(p.stdout)
    assert (data["lower"], data["upper"], data["constant"], data["value"]) == (0, 0, True, 0)
    data = json.loads(symshape_cli("bounds", "mod(a, 4)", "--json").stdout)
    assert (data["lower"], data["upper"], data["constant"], data["value"]) == (0, 3, False,
                                                                               None)
    assert "==" not in symshape_cli("bounds", "-2").stdout


# -- --json errors and stablehlo --json ------------------------------------------------------


@pytest.mark.parametrize(("argv", "kind", "column"), [
    (("prove", "a >= "), "ParseError", 5),
    (("bounds", "2*h + 1.5"), "ParseError", 8),
    (("simplify", "a + * b"), "ParseError", 5),
    (("prove", "a >= 1", "--given", "a >= b + 1", "--given", "b >= a"),
     "UnsatisfiableConstraintsError", None),
    (("check", "b, n", "--shape", "3,x"), "SymshapeError", None),
    (("stablehlo", "b, n", "--dtype", "f33"), None, None),
    (("prove",), "UsageError", None),
    (("bounds", "a", "--budget", "0"), "UsageError", None),
])
def test_json_errors_are_json_on_stdout(argv: tuple[str, ...], kind: str | None,
                                        column: int | None) -> None:
    plain = symshape_cli(*argv)
    p = symshape_cli(*argv, "--json")
    assert p.returncode == plain.returncode == cli.EXIT_BAD_INPUT
    assert p.stderr == ""
    data = json.loads(p.stdout)
    err = data["error"]
    assert data["exit_status"] == cli.EXIT_BAD_INPUT
    assert data["command"] == argv[0]
    if kind is not None:
        assert err["kind"] == kind
    assert err["column"] == column
    assert err["message"] and "\n  " not in err["message"]  # no caret drawing
    # details is what the plain command prints
    assert err["details"] in plain.stderr
    if column is not None:
        assert err["text"] == argv[1] and err["expected"]


def test_json_error_for_an_inconclusive_operation_keeps_status_2(monkeypatch: Any) -> None:
    def boom(*args: Any, **kwargs: Any) -> Any:
        raise symshape.InconclusiveDimensionOperation("cannot decide 'a >= b'")
    monkeypatch.setattr("symshape.ops.bounds", boom)
    code, out, err = run("bounds", "a", "--json")
    assert code == cli.EXIT_INCONCLUSIVE and err == ""
    data = json.loads(out)
    assert data["error"]["kind"] == "InconclusiveDimensionOperation"
    assert data["exit_status"] == cli.EXIT_INCONCLUSIVE


def test_stablehlo_json() -> None:
    text = symshape_cli("stablehlo", "b, 2*h", "h", "--dtype", "bf16")
    p = symshape_cli("stablehlo", "b, 2*h", "h", "--dtype", "bf16", "--json")
    assert p.returncode == 0, p.stderr
    data = json.loads(p.stdout)
    assert data["module"] == text.stdout
    assert data["variables"] == ["b", "h"]
    assert data["dtypes"] == ["bf16", "bf16"] and data["specs"] == ["b, 2*h", "h"]


# -- undecided ------------------------------------------------------------------------


def test_undecided_has_its_own_exit_status() -> None:
    claim = undecided_claim()
    p = symshape_cli("prove", claim, "--budget", str(STARVED))
    assert p.returncode == cli.EXIT_UNDECIDED == 4, p.stdout + p.stderr
    assert "Status: undecided" in p.stdout and "inconclusive" not in p.stdout
    assert "--budget" in p.stdout  # says how to try harder
    p = symshape_cli("prove", claim, "--budget", str(STARVED), "--json")
    assert p.returncode == 4 and json.loads(p.stdout)["status"] == "undecided"


def test_every_status_has_its_exit_status() -> None:
    cases = [("a >= 9", ["a >= b + 8"], 1.0), ("a < b", ["a >= b + 8"], 1.0),
             ("a >= b", [], 1.0)]
    cases += [(c, [], STARVED) for c in HARD_TRUE_CLAIMS]
    seen = set()
    for claim, given, budget in cases:
        verdict = prove(claim, constraints=given, budget=budget)
        argv = ["prove", claim, "--budget", str(budget)]
        for g in given:
            argv += ["--given", g]
        code, out, _ = run(*argv)
        expected = {"proved": 0, "refuted": 1, "inconclusive": 2, "undecided": 4}
        assert code == expected[str(verdict.status)], (claim, out)
        seen.add(str(verdict.status))
    assert seen == {"proved", "refuted", "inconclusive", "undecided"}


def test_exit_statuses_are_documented() -> None:
    assert "4 -- undecided" in (cli.__doc__ or "")
    assert "| 4 | undecided" in (ROOT / "docs" / "cli.md").read_text()
    p = symshape_cli("--help")
    assert "4 undecided" in " ".join(p.stdout.split())


# -- suggestions ----------------------------------------------------------------------


class _WithSuggestions:
    """A verdict whose suggestions are fixed (whatever the engine computes)."""

    def __init__(self, verdict: Any, suggestions: tuple[str, ...]) -> None:
        self._verdict = verdict
        self.suggestions = suggestions

    def __getattr__(self, name: str) -> Any:
        return getattr(self._verdict, name)


def test_suggestions_are_shown_in_text_and_json(monkeypatch: Any) -> None:
    real = symshape.decision.prove
    monkeypatch.setattr("symshape.decision.prove", lambda claim, **kw: _WithSuggestions(
        real(claim, **kw), ("h >= 3", "mod(h, 2) == 1")))
    code, out, _ = run("prove", "floordiv(h - 3, 2) + 1 >= 1")
    assert code == cli.EXIT_INCONCLUSIVE
    block = out[out.index("Suggested constraints"):].splitlines()
    assert block[1:] == ["  h >= 3", "  mod(h, 2) == 1"]
    code, out, _ = run("prove", "floordiv(h - 3, 2) + 1 >= 1", "--json")
    assert json.loads(out)["suggestions"] == ["h >= 3", "mod(h, 2) == 1"]
    # a proved claim needs none (and its suggestions are not even looked at)
    code, out, _ = run("prove", "a >= 1", "--json")
    assert code == 0 and json.loads(out)["suggestions"] == []
    assert "Suggested" not in run("prove", "a >= 1")[1]


def test_suggestions_from_the_engine_settle_the_claim() -> None:
    claim = "floordiv(h - 3, 2) + 1 >= 1"
    p = symshape_cli("prove", claim, "--json")
    assert p.returncode == cli.EXIT_INCONCLUSIVE
    suggestions = json.loads(p.stdout)["suggestions"]
    assert suggestions[0] == "h >= 3", suggestions
    for s in suggestions:
        assert symshape_cli("prove", claim, "--given", s).returncode == 0, s
    text = symshape_cli("prove", claim).stdout
    assert "Suggested constraints" in text and "\n  h >= 3" in text


# -- --budget, --time-limit -------------------------------------------------------------


def test_budget_and_time_limit_reach_the_prover(monkeypatch: Any) -> None:
    calls: list[dict[str, Any]] = []
    real_prove, real_bounds = symshape.decision.prove, symshape.ops.bounds

    def spy_prove(claim: str, **kw: Any) -> Any:
        calls.append(kw)
        return real_prove(claim, **kw)

    def spy_bounds(e: Any, **kw: Any) -> Any:
        calls.append(kw)
        return real_bounds(e, **kw)

    monkeypatch.setattr("symshape.decision.prove", spy_prove)
    monkeypatch.setattr("symshape.ops.bounds", spy_bounds)
    assert run("prove", "a >= 1", "--budget", "4", "--time-limit", "2.5")[0] == 0
    assert run("bounds", "mod(a, 4)", "--budget", "0.5", "--time-limit", "9")[1] == \
        "0 <= mod(a, 4) <= 3\n"
    assert run("prove", "a >= 1")[0] == 0
    # stderr is not a terminal here: no progress line
    assert calls == [{"constraints": [], "budget": 4.0, "time_limit": 2.5, "progress": None},
                     {"budget": 0.5, "time_limit": 9.0, "progress": None},
                     {"constraints": [], "budget": 1.0, "time_limit": None, "progress": None}]


@pytest.mark.parametrize("argv", [("prove", "a >= 1", "--budget", "0"),
                                  ("prove", "a >= 1", "--budget", "nan"),
                                  ("prove", "a >= 1", "--budget", "x"),
                                  ("bounds", "a", "--time-limit", "-1"),
                                  ("bounds", "a", "--time-limit", "inf")])
def test_bad_budget_or_time_limit_is_a_usage_error(argv: tuple[str, ...]) -> None:
    p = symshape_cli(*argv)
    assert p.returncode == cli.EXIT_BAD_INPUT
    assert "expected a positive number" in p.stderr and "Traceback" not in p.stderr


def test_a_larger_budget_changes_nothing_for_easy_claims() -> None:
    p = symshape_cli("prove", "a >= 9", "--given", "a >= b + 8", "--budget", "3",
                     "--time-limit", "60")
    assert p.returncode == 0 and "Status: proved." in p.stdout


SLOW_CLAIM = ("(a+b+c+d)^8 >= a*b", "1000")  # about 15 s of search with --budget 1000


def test_time_limit_stops_a_long_proof() -> None:
    """Depends on the engine honouring ``time_limit`` (the lead's change)."""
    claim, budget = SLOW_CLAIM
    start = time.monotonic()
    try:
        p = symshape_cli("prove", claim, "--budget", budget, "--time-limit", "1", timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("--time-limit 1 did not stop the proof within 60 s")
    elapsed = time.monotonic() - start
    assert p.returncode in (cli.EXIT_OK, cli.EXIT_UNDECIDED), p.stdout + p.stderr
    if p.returncode == cli.EXIT_UNDECIDED:
        assert "Status: undecided" in p.stdout and "--time-limit" in p.stdout
    assert elapsed < 10, f"--time-limit 1 took {elapsed:.1f} s"


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_progress_line_of_a_real_slow_proof_on_a_terminal() -> None:
    """The engine's own progress reports, shown while a long search runs."""
    from support.terminal import Terminal
    claim, budget = SLOW_CLAIM
    start = time.monotonic()
    term = Terminal([sys.executable, "-m", "symshape", "prove", claim, "--budget", budget,
                     "--time-limit", "3"], dict(ENV, TERM="dumb"))
    try:
        raw = term.read_until("Status: ")
    finally:
        code = term.close()
    if time.monotonic() - start < cli.PROGRESS_DELAY + 0.5:
        pytest.skip("the engine now decides this claim at once: no progress to show")
    assert code in (cli.EXIT_OK, cli.EXIT_UNDECIDED)
    claim_shown = " ".join(claim.split())
    assert re.search(rf"\rproving {re.escape(claim_shown)}: \d+\.\d s \(", raw), raw
    assert raw.rstrip().endswith("Status:")
    # erased before the answer: the last thing before "Claim:" is the blanking
    before = raw[:raw.index("Claim: ")]
    assert re.search(r"\r +\r$", before), repr(before[-200:])


# -- the progress line ------------------------------------------------------------------



def _slow_script(tmp_path: Path) -> Path:
    script = tmp_path / "slow_symshape.py"
    script.write_text(SLOW_PROVER_SCRIPT)
    return script


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_progress_line_on_a_terminal(tmp_path: Path) -> None:
    from support.terminal import Terminal
    term = Terminal([sys.executable, str(_slow_script(tmp_path)), "prove", "a >= b"],
                    dict(ENV, TERM="dumb"))
    try:
        raw = term.read_until("Status: inconclusive")
    finally:
        code = term.close()
    assert code == cli.EXIT_INCONCLUSIVE
    # "\r" + the line, rewritten in place, then erased with blanks before the answer
    lines = re.findall(r"\rproving a >= b: (\d+\.\d) s \(trying the case b >= 2; Ctrl-C to "
                       r"stop\)", raw)
    assert lines, raw
    assert all(float(s) >= cli.PROGRESS_DELAY for s in lines)  # none in the first second
    last = raw.rindex("Ctrl-C to stop)")
    erased = raw[last:].index("\r" + " " * len("proving a >= b: 1.0 s (trying the case b >= "
                                               "2; Ctrl-C to stop)") + "\r")
    assert erased < raw[last:].index("Claim: a >= b")


def test_no_progress_line_when_stderr_is_not_a_terminal(tmp_path: Path) -> None:
    p = subprocess.run([sys.executable, str(_slow_script(tmp_path)), "prove", "a >= b"],
                       capture_output=True, text=True, env=ENV, cwd=ROOT, timeout=120)
    assert p.returncode == cli.EXIT_INCONCLUSIVE
    assert p.stderr == "" and "\r" not in p.stdout


CHAIN = ["x >= h + 2", "h >= k + 1", "k >= y + 2", "y >= b + 2", "b >= t + 2", "t >= z",
         "z >= 16", "x <= 4096", "b + t <= 8192", "x + h <= 8192", "y <= 4096", "t <= 4096",
         "mod(x, 8) == 0", "h + k <= 16384", "y + b <= 8192", "mod(b, 2) == 0", "z <= 2048",
         "2*x >= k + z", "t + z <= 8192", "x + b <= 8192"]


@pytest.mark.parametrize("argv, reason, advice", [
    (["prove", "x >= b + 8", "--budget", "0.01", *(a for c in CHAIN for a in ("--given", c))],
     "the work budget ran out", "A larger --budget (e.g. --budget 4) or a constraint"),
    (["prove", "floordiv(-5, c) * mod(2, a) == -1", "--budget", "8"],
     "the case analysis went deeper than the search goes",
     "(which also lets the case analysis go deeper)"),
])
def test_the_undecided_advice_matches_why_the_search_stopped(argv: list[str], reason: str,
                                                              advice: str) -> None:
    p = symshape_cli(*argv)
    assert p.returncode == 4, p.stdout + p.stderr
    assert f"Status: undecided ({reason})." in p.stdout
    assert p.stdout.count("undecided") == 1, p.stdout  # said once, with its reason
    assert advice in p.stdout
