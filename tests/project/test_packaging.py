"""The package installs from a wheel with its grammar, and stays lint/type clean."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

from support import fresh_venv
from support.paths import ROOT


def _run(cmd: list[str | Path], cwd: Path, **kw: object) -> subprocess.CompletedProcess[str]:
    return fresh_venv.run(cmd, cwd=cwd, **kw)


def test_wheel_contains_grammar_and_installed_package_parses() -> None:
    wheel = fresh_venv.built_wheel()
    names = zipfile.ZipFile(wheel).namelist()
    assert "symshape/grammar/symshape.lark" in names
    assert "symshape/py.typed" in names
    # A fresh venv holding the wheel and its declared dependencies, nothing else.
    bindir = fresh_venv.installed()
    env_dir = bindir.parent
    code = ("import symshape, pathlib; "
            f"assert pathlib.Path(symshape.__file__).is_relative_to(pathlib.Path(r'{env_dir}')), "
            "symshape.__file__; "
            "print(symshape.symbolic_shape('b, 2*h + 1, mod(b, 4)'))")
    out = _run([bindir / "python", "-c", code], cwd=env_dir, env=fresh_venv.clean_env())
    assert out.returncode == 0, out.stderr
    assert "2*h + 1" in out.stdout


def test_the_fresh_venv_holds_only_the_declared_dependencies() -> None:
    """The nested venv sees neither the running environment nor the base interpreter:
    what it holds is the wheel's dependency closure (so a missing one would fail)."""
    bindir = fresh_venv.installed()
    code = ("import importlib.metadata as md, sys; "
            "print(sorted(d.metadata['Name'].lower() for d in md.distributions())); "
            "print(sys.flags.no_site, [p for p in sys.path if 'site-packages' in p])")
    out = _run([bindir / "python", "-c", code], cwd=bindir.parent, env=fresh_venv.clean_env())
    assert out.returncode == 0, out.stderr
    names, paths = out.stdout.splitlines()
    deps = fresh_venv.dependency_closure(fresh_venv.wheel_requirements(fresh_venv.built_wheel()))
    expected = sorted([d.metadata["Name"].lower() for d in deps] + ["symshape"])
    assert {"lark", "numpy"} <= set(expected)
    assert names == str(expected), names
    assert str(bindir.parent) in paths and sys.prefix not in paths, paths


def test_ruff_clean() -> None:
    res = _run([sys.executable, "-m", "ruff", "check", "symshape", "tests", "benchmarks"],
               cwd=ROOT)
    assert res.returncode == 0, res.stdout + res.stderr


def test_mypy_clean() -> None:
    res = _run([sys.executable, "-m", "mypy", "symshape"], cwd=ROOT)
    assert res.returncode == 0, res.stdout + res.stderr


def test_core_does_not_import_optional_packages() -> None:
    code = ("import sys, symshape; symshape.symbolic_shape('a, b'); "
            "bad = [m for m in ('jax', 'sympy', 'torch', 'z3') if m in sys.modules]; "
            "assert not bad, bad")
    res = _run([sys.executable, "-c", code], cwd=ROOT)
    assert res.returncode == 0, res.stderr


def test_ci_runs_the_readme_command_in_a_fresh_venv(tmp_path: Path) -> None:
    """``.ci/run`` makes its own virtual environment and runs the README's command in it:
    the ``python`` already on the PATH (here a stub that fails loudly) is never used, and
    nothing is preinstalled, so with no package index reachable the install step itself
    fails (and so does CI).  The environment is removed afterwards."""
    stub_dir = tmp_path / "stub"
    stub_dir.mkdir()
    stub = stub_dir / "python"
    stub.write_text("#!/bin/sh\necho 'the ambient python was used' >&2\nexit 97\n")
    stub.chmod(0o755)
    work = tmp_path / "tmp"
    work.mkdir()
    env = dict(fresh_venv.clean_env(), PATH=f"{stub_dir}{os.pathsep}{os.environ['PATH']}",
               CI_PYTHON=sys.executable, TMPDIR=str(work), PIP_NO_INDEX="1")
    res = _run(["bash", ROOT / ".ci" / "run"], cwd=tmp_path, env=env)
    out = res.stdout + res.stderr
    assert "the ambient python was used" not in out, out
    assert f"CI: fresh virtual environment {work}" in out, out
    assert res.returncode not in (0, 97), out
    assert "hatchling" in out, out  # pip, in the new environment, found no build backend
    assert list(work.iterdir()) == [], "the environment was not removed"


def test_ci_status_is_the_readme_commands() -> None:
    """``.ci/run`` runs the README's command verbatim and exits with its status when it
    fails (pytest's 5, no tests collected, fails CI like any failure); what runs after
    it (the oldest-releases leg) can only fail CI further, never mask a failure."""
    lines = [s for s in (ROOT / ".ci" / "run").read_text().splitlines()
             if s.strip() and not s.lstrip().startswith("#")]
    command = 'python -m pip install -q -e ".[all]" && python -m pytest'
    assert command in lines
    after = lines[lines.index(command) + 1:]
    assert after[:3] == ["  status=$?", "  set -e", '  [ "$status" -eq 0 ] || exit "$status"']
    assert "set -euo pipefail" in lines
    assert not any(s.rstrip().endswith(("|| true", "; true", "|| :")) for s in lines)
