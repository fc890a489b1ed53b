"""The optional compiled core (mypyc, see hatch_build.py) and the pure-Python one.

Where a C compiler was found at install time, the core modules
(``hatch_build.COMPILED``: the parser, the algebra, the scope, the decision
procedure's inner loops) run compiled and
the rest of the suite tests that build; the tests here run the core's own tests again on
the pure-Python source (``SYMSHAPE_PURE_PYTHON=1``), check that a compiled module is
used only when it was built from the source beside it, and that a build with no
compiler is pure Python and complete.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from support import fresh_venv
from support.paths import ROOT

import symshape
from symshape import _accel

# The build hook imports hatchling, which the test extra installs; without it (a
# GPU machine running only ``-m device``, say) this module has nothing to test.
pytest.importorskip("hatchling", reason="the build backend (pip install -e '.[test]')")
sys.path.insert(0, str(ROOT))
import hatch_build  # noqa: E402  (the build hook, a file at the project root)

# The tests of the modules that are compiled, and of the layers that use them most.
CORE_TESTS = ["tests/facts", "tests/algebra/test_dimexpr.py", "tests/algebra/test_canon.py",
              "tests/syntax/test_parsing.py", "tests/syntax/test_parse_frontend.py",
              "tests/decision/test_determinism.py", "tests/decision/test_bound_certificates.py",
              "tests/decision/test_pool.py", "tests/decision/test_fact_kinds.py",
              "tests/decision/test_probe.py", "tests/decision/test_tactics.py",
              "tests/api/test_collector.py"]
#: the modules a compiled install runs compiled
COMPILED = tuple(sorted(p[:-3].replace("/", ".") for p in hatch_build.COMPILED))


def _python(code: str, *, pure: bool, path: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != _accel.PURE_ENV}
    if pure:
        env[_accel.PURE_ENV] = "1"
    if path is not None:
        env["PYTHONPATH"] = str(path)
    # (-c puts the working directory first on sys.path: run from the copy, if any)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, cwd=path or ROOT, timeout=600, check=False)


_REPORT = ("import symshape, symshape.algebra.dimexpr as e; "
           "a, b = symshape.symbolic_shape('a, b'); "
           "print(symshape.compiled_modules(), e.__file__.endswith('.py'), "
           "2*a + b // 2, symshape.max_dim(a, b) >= a)")


def test_the_installed_build_is_compiled_exactly_where_a_compiler_was_found() -> None:
    wanted, why = hatch_build.compile_wanted()
    stamp = Path(symshape.__file__).parent / "_compiled.json"
    if os.environ.get(_accel.PURE_ENV):
        assert symshape.compiled_modules() == ()
    elif stamp.exists():
        # The install compiled the core, from this very source (an edit since then
        # loads the source instead: install again to test the compiled build).
        assert symshape.compiled_modules() == COMPILED, \
            "a compiled module's source changed since it was compiled: run the README's " \
            "test command"
        assert not symshape.algebra.dimexpr.__file__.endswith(".py")
    else:
        assert not wanted, "a C compiler is found, but the install left no compiled core"
        assert symshape.compiled_modules() == (), why


def test_pure_python_is_loaded_when_asked() -> None:
    out = _python(_REPORT, pure=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["()", "True", "2*a", "+", "floordiv(b,", "2)", "True"]


def test_a_compiled_module_is_used_only_when_built_from_the_source_beside_it(
        tmp_path: Path) -> None:
    if not (ROOT / hatch_build.STAMP).exists():
        pytest.skip("no compiled core in this checkout (no C compiler at install time)")
    copy = tmp_path / "symshape"
    shutil.copytree(ROOT / "symshape", copy, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "grammar", tmp_path / "grammar")  # as in a checkout
    current = _python(_REPORT + "; print(symshape.__file__)", pure=False, path=tmp_path)
    assert current.returncode == 0, current.stderr
    assert current.stdout.split()[-1] == str(copy / "__init__.py")
    assert current.stdout.startswith(f"{COMPILED} False 2*a + floordiv(b, 2)")
    # An edit of any one compiled module's source: all of them run from source
    # (compiled modules call each other's compiled code), never a stale build.
    for edited_module in ("repair.py", "algebra/floordiv.py"):
        source = copy / edited_module
        original = source.read_text()
        source.write_text(original + "\n# edited\n")
        edited = _python(_REPORT, pure=False, path=tmp_path)
        assert edited.returncode == 0, edited.stderr
        assert edited.stdout.startswith("() True 2*a + floordiv(b, 2)"), edited_module
        source.write_text(original)
    # A stamp that cannot be read counts as no stamp: nothing is compiled.
    (copy / "_compiled.json").write_text("{not json")
    unreadable = _python(_REPORT, pure=False, path=tmp_path)
    assert unreadable.returncode == 0, unreadable.stderr
    assert unreadable.stdout.startswith("() True")


def _wheel(tmp_path: Path, **env: str) -> tuple[list[str], str, str]:
    """Build this checkout's wheel with ``env`` added: the wheel's name, its
    extension modules, and pip's output."""
    out = fresh_venv.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-index",
                     "--no-build-isolation", "-v", "-w", tmp_path, ROOT], cwd=tmp_path,
                    env=dict(fresh_venv.clean_env(), **env))
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    (wheel,) = tmp_path.glob("symshape-*.whl")
    exts = [n for n in zipfile.ZipFile(wheel).namelist() if n.endswith((".so", ".pyd"))]
    return exts, wheel.name, out.stdout + out.stderr


def test_without_a_compiler_the_wheel_is_pure_python_and_says_why(tmp_path: Path) -> None:
    exts, name, log = _wheel(tmp_path, CC="no-such-c-compiler")
    assert exts == [] and name.endswith("-py3-none-any.whl"), (exts, name)
    assert "pure-Python build (no C compiler found)" in log


def test_a_failed_compilation_still_builds_a_pure_python_wheel(tmp_path: Path) -> None:
    # A "compiler" that exists but fails every compilation (/bin/false or the like).
    false = shutil.which("false")
    if false is None:
        pytest.skip("no 'false' command to stand in for a broken compiler")
    exts, name, log = _wheel(tmp_path, CC=false)
    assert exts == [] and name.endswith("-py3-none-any.whl"), (exts, name)
    assert "the optional compiled core failed to build" in log


def test_build_time_opt_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(_accel.PURE_ENV, "1")
    assert hatch_build.compile_wanted() == (False, f"{_accel.PURE_ENV} is set")


def _nested_functions(path: Path) -> list[str]:
    """``file:line name`` of every ``def`` inside a function of a module."""
    found: list[str] = []

    def walk(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            is_function = isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if is_function and in_function:
                found.append(f"{path.relative_to(ROOT)}:{child.lineno} {child.name}")
            # a class body starts afresh: its methods are not nested functions
            walk(child, is_function or (in_function and not isinstance(child, ast.ClassDef)))

    walk(ast.parse(path.read_text(encoding="utf-8")), False)
    return found


def test_compiled_modules_define_no_nested_functions() -> None:
    """In the compiled build a nested function and the frame it closes over
    refer to each other (mypyc keeps the function in the frame's object), a
    reference cycle that only the collector frees, on every call: the core's
    helpers are module-level functions, small classes or lambdas instead
    (``tests/api/test_memory.py`` checks that a one-off ``prove`` leaves no
    cycle, on a few claims; this checks every compiled module)."""
    nested = [n for p in hatch_build.COMPILED for n in _nested_functions(ROOT / p)]
    assert not nested, nested


def test_the_core_tests_pass_on_the_pure_python_source() -> None:
    if not symshape.compiled_modules():
        pytest.skip("this run of the suite already tests the pure-Python source")
    env = dict(os.environ, **{_accel.PURE_ENV: "1"})
    out = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                          *CORE_TESTS], capture_output=True, text=True, env=env, cwd=ROOT,
                         timeout=1200, check=False)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert " passed" in out.stdout and " failed" not in out.stdout


def test_an_install_never_rewrites_a_module_in_place(tmp_path: Path) -> None:
    """A rebuild renames a new file over the old one: a process that mapped the old
    module (a test run during a second editable install) keeps intact pages."""
    old = tmp_path / "module.so"
    old.write_bytes(b"old" * 1000)
    with old.open("rb") as mapped:  # stands for the interpreter's mapping
        new = tmp_path / "built.so"
        new.write_bytes(b"new" * 2000)
        hatch_build.install_atomically(new, old)
        assert mapped.read() == b"old" * 1000  # the open file was not rewritten
    assert old.read_bytes() == b"new" * 2000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["built.so", "module.so"]


_INTERRUPTED = """
import signal, symshape
from symshape import ShapeCheck, SymbolicScope

class Tick(Exception):
    pass

def tick(signum, frame):
    raise Tick

signal.signal(signal.SIGALRM, tick)
scope = SymbolicScope(["mod(t, 128) == 0", "b <= 64"])
b, t = symshape.symbolic_shape("b, t", scope=scope)
interrupted = 0
for k in range(40):
    # Long work, interrupted at a different moment each time.
    signal.setitimer(signal.ITIMER_REAL, 0.0005 * (k + 1))
    try:
        for n in range(200):
            e = (b + n) * (t // 128 + n) - symshape.max_dim(b, t - n)
            symshape.prove(f"b*t + {n} >= b + t", scope=scope, budget=0.5)
            ShapeCheck([f"b, t + {n}", "b"], scope=scope)
    except Tick:
        interrupted += 1
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    # The same scope, its caches and interned atoms still give right answers.
    assert t >= 128 and b <= 64 and symshape.bounds(t % 128) == (0, 0)
    assert 2 * (t // 256) + (t // 128) % 2 == t // 128
    assert symshape.prove("b*t >= t", scope=scope).status.name == "PROVED"
    assert ShapeCheck(["b, t"], scope=scope).solve([(2, 256)]) == {"b": 2, "t": 256}
print("ok", interrupted, symshape.compiled_modules() != ())
"""


def test_work_interrupted_by_a_signal_leaves_scopes_usable() -> None:
    """A signal handler that raises in the middle of building, deciding or checking
    (in whichever build is installed) leaves every scope consistent."""
    proc = _python(_INTERRUPTED, pure=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.startswith("ok"), proc.stdout
    assert int(proc.stdout.split()[1]) >= 20, proc.stdout  # most rounds were interrupted
