"""``symshape repl``: driven as a user would, through a pipe and through a terminal."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import ROOT
from support.terminal import Terminal

from symshape.repl import PROMPT, Session, run

ENV = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def session_transcript(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``python -m symshape repl`` with ``script`` on a pipe."""
    return subprocess.run([sys.executable, "-m", "symshape", "repl", *args], input=script,
                          capture_output=True, text=True, env=ENV, cwd=ROOT, timeout=120)


# -- piped sessions -------------------------------------------------------------------


def test_piped_session_transcript() -> None:
    script = """\
# a comment, then a blank line

given a >= b + 8
a >= 9
bounds a - b
simplify mod(a + 4, 4)
given b >= 2
given a >= 3
constraints
forget 1
a >= 9
forget b >= 2
constraints
"""
    p = session_transcript(script)
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    # An inconclusive answer is followed by a hint when a constraint would settle it.
    from symshape.decision import prove
    suggested = prove("a >= 9", constraints=["b >= 2", "a >= 3"]).suggestions
    hint = [line for line in p.stdout.splitlines() if line.startswith("hint: ")]
    assert hint == ([f"hint: add '{suggested[0]}' to settle it "
                     + ("(why for more)" if len(suggested) == 1 else
                        f"(or {len(suggested) - 1} other{'s' * (len(suggested) > 2)}: why)")]
                    if suggested else [])
    lines = [line for line in p.stdout.splitlines() if not line.startswith("hint: ")]
    assert lines == [
        "[1] a >= b + 8",
        "proved",
        "a - b >= 8",
        "mod(a, 4)",
        "[2] b >= 2",
        "[3] a >= 3  (already implied by the others)",
        "[1] a >= b + 8",
        "[2] b >= 2",
        "[3] a >= 3",
        "forgot a >= b + 8",
        lines[10],  # inconclusive, with example valuations (checked below)
        "forgot b >= 2",
        "[1] a >= 3",
    ]
    line = lines[10]
    m = re.fullmatch(r"inconclusive: holds for a = (\d+), b = (\d+); "
                     r"fails for a = (\d+), b = (\d+)", line)
    assert m, line
    ha, hb, fa, fb = map(int, m.groups())
    assert ha >= 9 and hb >= 2 and ha >= 3  # the witness satisfies the claim and constraints
    assert fa < 9 and fb >= 2 and fa >= 3   # the counterexample violates only the claim
    assert PROMPT not in p.stdout  # no prompt noise when piped


def test_why_explains_the_last_answer() -> None:
    p = session_transcript("given a >= b + 8\na >= 9\nwhy\n1 >= 2\nwhy\n")
    assert p.returncode == 0, p.stderr
    out = p.stdout
    first, second = out.split("refuted", 1)
    assert "Status: proved." in first and "[constraint 'a >= b + 8']" in first
    assert "Status: refuted" in second and "Claim: 1 >= 2" in second


def test_errors_go_to_stderr_and_the_session_goes_on() -> None:
    script = "given a >= a + 1\nfoo +\na + b\nforget 7\nwhy\ngiven\na >= 1\n"
    p = session_transcript(script)
    assert p.returncode == 3  # a script with bad input fails
    assert p.stdout == "proved\n"  # the last line is still answered
    err = p.stderr
    assert "unsatisfiable" in err
    assert "foo +\n" in err and "     ^" in err  # caret-marked position from the parser
    assert "is an expression, not a claim" in err
    assert "there are no constraints to forget" in err  # the failed 'given' added none
    assert "no claim asked yet" in err
    assert "'given' needs an argument" in err
    assert "Traceback" not in err


def test_quit_ends_the_session_and_echo_prints_inputs() -> None:
    p = session_transcript("a >= 1\nquit\na >= 2\n", "--echo")
    assert p.returncode == 0
    assert p.stdout == "> a >= 1\nproved\n> quit\n"


def test_starting_constraints_and_bad_ones() -> None:
    p = session_transcript("constraints\na >= 17\n", "--given", "a >= 16 + b")
    assert p.stdout == "[1] a >= 16 + b\nproved\n"
    p = session_transcript("a >= 1\n", "--given", "a >=")
    assert p.returncode == 3 and "symshape: error:" in p.stderr and p.stdout == ""


# -- the session object -----------------------------------------------------------------


def test_session_commands() -> None:
    s = Session()
    assert s.execute("given 16 <= a <= b").output == "[1] 16 <= a <= b"
    assert s.execute("given 16<=a<=b").output == "already given: 16<=a<=b"
    assert s.execute("b >= 16").output == "proved"
    assert s.execute("prove a > b").output.startswith("refuted: false for every valuation")
    assert s.execute("b >= a + 1").output.startswith("inconclusive: holds for")
    assert s.execute("forget 16 <= a <= b").output == "forgot 16 <= a <= b"
    assert s.constraints == ()
    assert s.execute("constraints").output == "no constraints (every variable is >= 1)"
    assert s.execute("forget all").output == "forgot all constraints"
    assert s.execute("help").output.startswith("Commands:")
    assert s.execute("quit").done and s.execute("exit").done
    assert not s.execute("   ").output


def test_failed_given_leaves_the_constraints_unchanged() -> None:
    s = Session(["a >= 4"])
    reply = s.execute("given a <= 3")
    assert "unsatisfiable" in reply.error
    assert s.constraints == ("a >= 4",)
    assert s.execute("a >= 4").output == "proved"


def test_run_in_process() -> None:
    out, err = io.StringIO(), io.StringIO()
    code = run(stdin=io.StringIO("given b == 2*a\nmod(b, 2) == 0\n"), stdout=out, stderr=err,
               interactive=False)
    assert code == 0
    assert out.getvalue() == "[1] b == 2*a\nproved\n"


def test_interactive_mode_on_streams_prints_prompts() -> None:
    out = io.StringIO()
    run(stdin=io.StringIO("a >= 1\n"), stdout=out, stderr=io.StringIO(), interactive=True)
    text = out.getvalue()
    assert text.startswith("symshape ")  # banner
    assert f"{PROMPT}proved\n" in text


# -- a real terminal --------------------------------------------------------------------


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_repl_in_a_pseudo_terminal(tmp_path: Path) -> None:
    history = tmp_path / "history"
    env = dict(ENV, TERM="dumb", HOME=str(tmp_path), SYMSHAPE_HISTORY=str(history))
    term = Terminal([sys.executable, "-m", "symshape", "repl"], env)
    try:
        banner = term.read_until(PROMPT)
        assert "Type help for the commands" in banner
        term.send("given a >= b + 8")
        assert "[1] a >= b + 8" in term.read_until(PROMPT)
        term.send("a >= 9")
        assert "proved" in term.read_until(PROMPT)
        term.send("a + * b")
        shown = term.read_until(PROMPT)
        assert "unexpected '*' at column 5" in shown and "      ^" in shown
        term.send("quit")
    finally:
        code = term.close()
    assert code == 0
    try:
        import readline  # noqa: F401
    except ImportError:  # no line editing on this platform: no history either
        return
    assert "a >= 9" in history.read_text().splitlines()


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_repl_terminal_interrupt_and_end_of_input(tmp_path: Path) -> None:
    env = dict(ENV, TERM="dumb", HOME=str(tmp_path), SYMSHAPE_HISTORY=str(tmp_path / "h"))
    term = Terminal([sys.executable, "-m", "symshape", "repl", "--given", "n >= 128"], env)
    try:
        assert "[1] n >= 128" in term.read_until(PROMPT)
        term.send("floordiv(n, 128) >= 1")
        assert "proved" in term.read_until(PROMPT)
        os.write(term.fd, b"n >= 1000\x03")  # Ctrl-C drops the line being typed
        term.read_until("KeyboardInterrupt", resend=b"\x03")
        term.send("n >= 100")
        assert "n >= 1000" not in term.read_until("proved")
        term.read_until(PROMPT)
        os.write(term.fd, b"\x04")  # Ctrl-D at an empty line ends the session
    finally:
        code = term.close(resend=b"\x04")
    assert code == 0
