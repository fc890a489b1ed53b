"""The package installs from a wheel with its grammar, and stays lint/type clean."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(cmd: list[str], cwd: Path, **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600,
                          check=False, **kw)  # type: ignore[call-overload]


def test_wheel_contains_grammar_and_installed_package_parses(tmp_path: Path) -> None:
    wheel_dir = tmp_path / "wheel"
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                  "-w", str(wheel_dir), str(ROOT)], cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    (wheel,) = wheel_dir.glob("symshape-*.whl")
    import zipfile
    names = zipfile.ZipFile(wheel).namelist()
    assert "symshape/grammar/symshape.lark" in names
    assert "symshape/py.typed" in names
    # A fresh venv that sees lark/numpy from this interpreter but not the repo.
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(env_dir)
    py = env_dir / ("Scripts" if os.name == "nt" else "bin") / "python"
    inst = _run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps",
                 str(wheel)], cwd=tmp_path)
    assert inst.returncode == 0, inst.stderr
    code = ("import symshape, pathlib; "
            f"assert pathlib.Path(symshape.__file__).is_relative_to(pathlib.Path(r'{env_dir}')), "
            "symshape.__file__; "
            "print(symshape.symbolic_shape('b, 2*h + 1, mod(b, 4)'))")
    clean_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = _run([str(py), "-c", code], cwd=tmp_path, env=clean_env)
    assert out.returncode == 0, out.stderr
    assert "2*h + 1" in out.stdout


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
