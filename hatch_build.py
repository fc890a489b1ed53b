"""Build hook: the optional compiled core.

Where a C compiler is found, the wheel (and an editable install) also gets the
modules in ``COMPILED`` compiled with mypyc: the same source, about twice as
fast for expression arithmetic.  They are compiled together, into one library
(``<hash>__mypyc``, at the top of the wheel) and a small module per source.
The pure-Python modules are always shipped beside them, and ``symshape._accel``
loads the pure source of all of them instead whenever one compiled module was
not built from the source next to it (an edited checkout), or
``SYMSHAPE_PURE_PYTHON=1`` is set.

Nothing here is required: without a compiler, with ``SYMSHAPE_PURE_PYTHON=1``
at build time, or when the compilation fails for any reason, the build goes on
and the package is pure Python (a warning says why).  mypy (which provides
mypyc) and setuptools are build dependencies only when a compiler is found.

Run as a script (``python hatch_build.py OUT_DIR``) it compiles into
``OUT_DIR``; the hook runs it that way, in a process of its own, so that the
compiler's output and failures stay out of the build.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

# (The build backend imports this file; hatchling is always there.)
from hatchling.builders.hooks.plugin.interface import BuildHookInterface

#: the modules compiled, as paths from the project root
COMPILED = ("symshape/util.py", "symshape/collector.py", "symshape/_fastparse.py",
            "symshape/_simplescan.py", "symshape/parsing.py",
            "symshape/algebra/atoms.py", "symshape/algebra/poly.py", "symshape/algebra/bounds.py",
            "symshape/algebra/dimexpr.py",
            "symshape/algebra/factor.py", "symshape/algebra/floordiv.py",
            "symshape/algebra/maxmin.py",
            "symshape/algebra/substitute.py", "symshape/build.py", "symshape/repair.py",
            "symshape/rules.py", "symshape/intervals.py", "symshape/witness.py",
            "symshape/scope.py",
            # the decision procedure's inner loops: its facts, valuations and search
            "symshape/decision/poly.py", "symshape/decision/canon.py",
            "symshape/decision/facts.py", "symshape/decision/derivations.py",
            "symshape/decision/fact_kinds.py", "symshape/decision/replay.py",
            "symshape/decision/products.py", "symshape/decision/linearize.py",
            "symshape/decision/simplex.py", "symshape/decision/search.py",
            "symshape/decision/valuations.py", "symshape/decision/probe.py",
            "symshape/decision/pool.py", "symshape/decision/tactics/intervals.py",
            "symshape/decision/tactics/directed.py",
            "symshape/decision/engine.py", "symshape/decision/tactics/base.py", "symshape/decision/tactics/witnessed.py",
            "symshape/decision/tactics/split.py", "symshape/decision/tactics/refutation.py",
            "symshape/decision/tactics/small.py", "symshape/decision/certificate.py",
            "symshape/arguments.py")
#: written next to the compiled modules: the source digest each was built from
STAMP = "symshape/_compiled.json"
PURE_ENV = "SYMSHAPE_PURE_PYTHON"
ROOT = Path(__file__).resolve().parent
# mypy options for the compilation alone: the project's [tool.mypy] table is
# for linting, and the build environment lacks the stubs of the dependencies.
_MYPY_CONFIG = "[mypy]\nignore_missing_imports = True\nfollow_imports = silent\n"


def source_digest(path: Path) -> str:
    """The digest of a module's source that the stamp records."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def compile_wanted() -> tuple[bool, str]:
    """Whether to compile, and why not when not."""
    if os.environ.get(PURE_ENV, "") not in ("", "0"):
        return False, f"{PURE_ENV} is set"
    if sys.implementation.name != "cpython":
        return False, f"mypyc needs CPython, not {sys.implementation.name}"
    cc = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()
    if not cc or shutil.which(cc[0]) is None:
        return False, "no C compiler found"
    return True, ""


def _jobs() -> int:
    """The C compiler processes to run at once: one per usable core."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # (not on every platform)
        return max(1, os.cpu_count() or 1)


def _parallel_build_ext() -> type:
    """setuptools' ``build_ext``, compiling the C files of one extension module
    in parallel (mypyc's library of all the modules is one extension with a
    file per module; setuptools compiles one extension's files one by one)."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from setuptools.command.build_ext import build_ext

    # Extensions are built in parallel too (build_ext.parallel): one bound on
    # the compiler processes of all of them, one per core.
    running = threading.BoundedSemaphore(_jobs())

    class ParallelBuildExt(build_ext):
        def build_extensions(self) -> None:
            compile_files = self.compiler.compile

            def compile_one(source: str, *args: Any, **kwargs: Any) -> list[str]:
                with running:
                    return list(compile_files([source], *args, **kwargs))

            def compile_all(sources: list[str], *args: Any, **kwargs: Any) -> list[str]:
                # each file on its own: the compiler runs as a subprocess, so
                # threads are enough to keep every core busy
                with ThreadPoolExecutor(_jobs()) as pool:
                    objects = pool.map(lambda s: compile_one(s, *args, **kwargs), sources)
                    return [o for group in objects for o in group]

            self.compiler.compile = compile_all
            super().build_extensions()

    return ParallelBuildExt


def compile_into(out: Path) -> list[Path]:
    """Compile ``COMPILED`` with mypyc, leaving the extension modules and the
    stamp under ``out`` (laid out as in the package).  Raises on failure."""
    from mypyc.build import mypycify  # build dependencies (see the hook)
    from setuptools import Distribution

    work = Path(tempfile.mkdtemp(prefix="symshape-mypyc-"))
    cwd = os.getcwd()
    try:
        os.chdir(ROOT)  # mypy resolves the modules from the project root
        config = work / "mypy.ini"
        config.write_text(_MYPY_CONFIG)
        # One C file per module (multi_file): smaller units compile faster in
        # all, and on several cores at once (see _parallel_build_ext).
        exts = mypycify(["--config-file", str(config), "--cache-dir", str(work / "cache"),
                         *COMPILED], only_compile_paths=COMPILED, opt_level="3",
                        target_dir=str(work / "c"), multi_file=True)
        dist = Distribution({"name": "symshape-compiled", "ext_modules": exts})
        dist.cmdclass["build_ext"] = _parallel_build_ext()
        build_ext: Any = dist.get_command_obj("build_ext")
        build_ext.parallel = _jobs()
        build_ext.build_lib = str(out)
        build_ext.build_temp = str(work / "obj")
        dist.run_command("build_ext")
    finally:
        os.chdir(cwd)
        shutil.rmtree(work, ignore_errors=True)
    built = sorted(p for p in out.rglob("*") if p.suffix in (".so", ".pyd"))
    if not built:
        raise RuntimeError("mypyc produced no extension module")
    stamp = {path[:-3].replace("/", "."): source_digest(ROOT / path) for path in COMPILED}
    (out / STAMP).write_text(json.dumps(stamp, indent=1, sort_keys=True) + "\n")
    return [*built, out / STAMP]


def in_tree_artifacts() -> list[Path]:
    """Compiled modules (in the package and its subpackages), mypyc's library of
    them (at the top of the tree) and the stamp left in the source tree by an
    editable build."""
    pkg = ROOT / "symshape"
    found = [p for p in pkg.rglob("*") if p.suffix in (".so", ".pyd")]
    found += [p for p in ROOT.glob("*") if p.suffix in (".so", ".pyd") and "__mypyc" in p.name]
    stamp = ROOT / STAMP
    return [*found, stamp] if stamp.exists() else found


def install_atomically(src: Path, dst: Path) -> None:
    """Copy ``src`` to ``dst`` so that no process ever sees a partial file.

    A running interpreter maps the compiled modules it imported; writing over
    such a file in place (a second editable install while tests run) changes
    the pages under it and kills it with SIGBUS.  A new file renamed over the
    old name leaves the mapped one intact until its last user closes it.
    """
    tmp = dst.with_name(f".{dst.name}.{os.getpid()}.tmp")
    try:
        shutil.copy2(src, tmp)
        os.replace(tmp, dst)
    finally:
        tmp.unlink(missing_ok=True)


class CompiledCoreHook(BuildHookInterface):
    """Adds the compiled core to wheels and editable installs (see the module)."""

    def dependencies(self) -> list[str]:
        wanted, _ = compile_wanted()
        return ["mypy>=1.10", "setuptools>=64"] if wanted else []

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        editable = version == "editable"
        if editable:
            # An editable install imports from the tree: drop what an earlier
            # build left there, so a failed or pure build is pure.
            for p in in_tree_artifacts():
                p.unlink()
        wanted, why = compile_wanted()
        if not wanted:
            self.app.display_info(f"symshape: pure-Python build ({why})")
            return
        out = Path(self.directory) / "symshape-compiled"
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)
        proc = subprocess.run([sys.executable, str(ROOT / "hatch_build.py"), str(out)],
                              capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
            self.app.display_warning(
                "symshape: the optional compiled core failed to build; the package is pure "
                f"Python (complete, only slower):\n{tail}")
            shutil.rmtree(out, ignore_errors=True)
            return
        files = [p for p in out.rglob("*") if p.is_file()]
        for f in files:
            rel = f.relative_to(out).as_posix()
            if editable:
                install_atomically(f, ROOT / rel)
            else:
                build_data["force_include"][str(f)] = rel
        if not editable:
            build_data["pure_python"] = False
            build_data["infer_tag"] = True
        self.app.display_info(f"symshape: compiled {', '.join(COMPILED)} with mypyc")


if __name__ == "__main__":
    compile_into(Path(sys.argv[1]))
