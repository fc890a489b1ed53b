"""REPL sessions driven over a pipe and in a pseudo-terminal: forgetting a
constraint however it is written, helpful errors, the order of a transcript, the
undecided answer, and the hint of a suggested constraint."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import ROOT
from support.slow_prover import SLOW_PROVER_SCRIPT
from support.terminal import Terminal

from symshape.decision import prove
from symshape.repl import PROMPT, Session

ENV = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
HARD_TRUE_CLAIMS = ("a^3 + b^3 + c^3 >= 3*a*b*c", "a*b*c*d >= a + b + c + d - 3",
                    "a^2 + b^2 >= 2*a*b", "(a + b + c + d + e + f)^6 >= 1")
STARVED = "0.001"


def repl(script: str, *args: str, merged: bool = False) -> subprocess.CompletedProcess[str]:
    """``python -m symshape repl`` with ``script`` on a pipe (stderr into stdout when
    ``merged``, as a terminal or ``2>&1`` shows them)."""
    # Python's stdout on a pipe is block-buffered, as for a user, unless this is set.
    env = {k: v for k, v in ENV.items() if k != "PYTHONUNBUFFERED"}
    return subprocess.run([sys.executable, "-m", "symshape", "repl", *args], input=script,
                          stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT if merged else subprocess.PIPE,
                          text=True, env=env, cwd=ROOT, timeout=120)


def test_forget_recognizes_a_constraint_however_it_is_written() -> None:
    p = repl("given mod(s, 128) == 0\ngiven a >= b + 8\ngiven 16 <= c <= d\n"
             "forget s % 128==0\nforget b + 8 <= a\nforget c>=16\nforget 16<=c<=d\n"
             "constraints\n")
    assert p.stdout.splitlines() == [
        "[1] mod(s, 128) == 0", "[2] a >= b + 8", "[3] 16 <= c <= d",
        "forgot mod(s, 128) == 0", "forgot a >= b + 8", "forgot 16 <= c <= d",
        "no constraints (every variable is >= 1)"]
    # 'c >= 16' is only part of the chain: not the constraint
    assert "no constraint 'c>=16' among the constraints" in p.stderr
    assert p.returncode == 3


def test_forget_an_equality_either_way_round_and_bad_input() -> None:
    s = Session(["n == 2*k", "a > b"])
    assert s.execute("forget 2*k == n").output == "forgot n == 2*k"
    assert s.execute("forget a >= b + 1").output == "forgot a > b"
    s = Session(["a >= b"])
    reply = s.execute("forget a +")
    assert "unexpected end of input" in reply.error and "^" in reply.error
    assert s.constraints == ("a >= b",)


def test_no_constraints_to_forget() -> None:
    p = repl("forget 0\nforget 1\nforget a >= 1\nforget all\n")
    assert p.stderr.splitlines() == ["error: there are no constraints to forget"] * 3
    assert "numbers: none" not in p.stderr
    assert p.stdout == "forgot all constraints\n"
    p = repl("given a >= 2\nforget 0\nforget 2\n")
    assert p.stderr.splitlines() == [
        "error: no constraint number 0 (the constraints are numbered 1 to 1; 'constraints' "
        "lists them)",
        "error: no constraint number 2 (the constraints are numbered 1 to 1; 'constraints' "
        "lists them)"]


def test_a_command_word_with_a_stray_argument() -> None:
    p = repl("a >= 1\nwhy >= 1\nprove why >= 1\nconstraints please\n")
    err = p.stderr.splitlines()
    assert err[0] == ("error: 'why' takes no argument ('>= 1' is left over); to decide a "
                      "claim about a variable named 'why', write: prove why >= 1")
    assert err[1].startswith("error: 'constraints' takes no argument")
    assert "needs an argument" not in p.stderr
    assert p.stdout == "proved\nproved\n"  # 'prove why >= 1' asks about a variable 'why'


def test_echo_transcript_keeps_errors_after_their_line() -> None:
    p = repl("a >= 1\nfoo +\nforget 3\nb >= 1\n", "--echo", merged=True)
    lines = p.stdout.splitlines()
    assert lines[:3] == ["> a >= 1", "proved", "> foo +"]
    assert lines[3].startswith("error: ")
    i = lines.index("> forget 3")
    assert lines[i + 1] == "error: there are no constraints to forget"
    assert lines[i + 2:] == ["> b >= 1", "proved"]
    assert p.returncode == 3


def test_undecided_is_never_shown_as_inconclusive() -> None:
    script = "".join(f"{c}\n" for c in HARD_TRUE_CLAIMS)
    p = repl(script, "--budget", STARVED)
    answers = [line for line in p.stdout.splitlines() if not line.startswith("hint:")]
    assert len(answers) == len(HARD_TRUE_CLAIMS), p.stdout
    statuses = [str(prove(c, budget=float(STARVED)).status) for c in HARD_TRUE_CLAIMS]
    assert "undecided" in statuses, "add a harder claim to HARD_TRUE_CLAIMS"
    for claim, status, answer in zip(HARD_TRUE_CLAIMS, statuses, answers, strict=True):
        if status == "undecided":
            assert answer == "undecided (the work budget ran out)", claim
        else:
            assert answer.startswith(status), (claim, answer)
        assert not answer.startswith("inconclusive"), (claim, answer)  # all are true


def test_hint_after_an_inconclusive_answer_and_why_lists_the_suggestions() -> None:
    claim = "floordiv(h - 3, 2) + 1 >= 1"
    suggestions = prove(claim).suggestions
    assert suggestions and suggestions[0] == "h >= 3"
    p = repl(f"{claim}\nwhy\ngiven {suggestions[0]}\n{claim}\n")
    lines = p.stdout.splitlines()
    assert lines[0].startswith("inconclusive: holds for h = ")
    more = len(suggestions) - 1
    tail = "(why for more)" if not more else f"(or {more} other{'s' * (more > 1)}: why)"
    assert lines[1] == f"hint: add 'h >= 3' to settle it {tail}"
    why = p.stdout[p.stdout.index("Claim:"):p.stdout.index("[1] h >= 3")]
    assert "Suggested constraints (each one, added with given," in why
    assert [s.strip() for s in why.splitlines() if s.startswith("  ")] == list(suggestions)
    assert lines[-1] == "proved"  # the suggestion settles it
    assert p.stderr == ""


def test_no_hint_for_proved_or_refuted_answers() -> None:
    p = repl("a >= 1\na < 1\n")
    assert "hint" not in p.stdout and p.stdout.count("\n") == 2


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_issue_items_in_a_pseudo_terminal(tmp_path: Path) -> None:
    env = dict(ENV, TERM="dumb", HOME=str(tmp_path), SYMSHAPE_HISTORY=str(tmp_path / "h"))
    term = Terminal([sys.executable, "-m", "symshape", "repl", "--budget", STARVED], env)
    try:
        term.read_until(PROMPT)
        term.send("forget 0")
        assert "there are no constraints to forget" in term.read_until(PROMPT)
        term.send("given mod(s, 128) == 0")
        term.read_until(PROMPT)
        term.send("forget s % 128==0")
        assert "forgot mod(s, 128) == 0" in term.read_until(PROMPT)
        term.send("why >= 1")
        assert "write: prove why >= 1" in term.read_until(PROMPT)
        term.send("floordiv(h - 3, 2) + 1 >= 1")
        shown = term.read_until(PROMPT)
        assert "inconclusive: holds for" in shown and "hint: add 'h >= 3'" in shown
        undecided = next(c for c in HARD_TRUE_CLAIMS
                         if str(prove(c, budget=float(STARVED)).status) == "undecided")
        term.send(undecided)
        shown = term.read_until(PROMPT)
        assert "undecided (the work budget ran out)" in shown and "inconclusive" not in shown
        term.send("quit")
    finally:
        code = term.close()
    assert code == 0




@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_progress_line_in_the_terminal_repl(tmp_path: Path) -> None:
    script = tmp_path / "slow_symshape.py"
    script.write_text(SLOW_PROVER_SCRIPT)
    env = dict(ENV, TERM="dumb", HOME=str(tmp_path), SYMSHAPE_HISTORY=str(tmp_path / "h"))
    term = Terminal([sys.executable, str(script), "repl"], env)
    try:
        term.read_until(PROMPT)
        term.send("a >= b")
        shown = term.read_until(PROMPT)
        term.send("quit")
    finally:
        code = term.close()
    assert code == 0
    assert "\rproving a >= b: 1." in shown and "(trying the case b >= 2; Ctrl-C" in shown
    assert shown.index("Ctrl-C to stop)") < shown.index("inconclusive: holds for")
    # piped: no progress line at all
    p = subprocess.run([sys.executable, str(script), "repl"], input="a >= b\n",
                       capture_output=True, text=True, env=ENV, cwd=ROOT, timeout=120)
    assert p.stderr == "" and p.stdout.startswith("inconclusive: holds for")


def test_constant_bounds_in_the_repl() -> None:
    p = repl("given mod(s, 128) == 0\nbounds s % 128\nbounds 7\nbounds mod(a, 4)\n")
    assert p.stdout.splitlines() == ["[1] mod(s, 128) == 0", "s % 128 is always 0", "7",
                                     "0 <= mod(a, 4) <= 3"]
