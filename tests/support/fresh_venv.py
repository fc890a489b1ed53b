"""A fresh virtual environment with symshape installed from its wheel, as a user gets it.

The environment sees neither this checkout nor any interpreter's site-packages: pip
installs the wheel into it and resolves the wheel's declared dependencies, offline
(``--no-index``), from a wheelhouse repacked from the distributions installed in the
environment running the tests.  So a dependency the wheel forgets to declare, or one the
running environment lacks, fails the install, whatever the base interpreter holds; and
nothing is downloaded.

Building the wheel, the wheelhouse and the environment takes a few seconds; each is
made once per test process and shared by the tests that use it.
"""

from __future__ import annotations

import atexit
import base64
import functools
import hashlib
import importlib.metadata as md
import os
import re
import shutil
import subprocess
import sys
import tempfile
import venv
import zipfile
from email.parser import Parser
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from support.paths import ROOT

BIN = "Scripts" if os.name == "nt" else "bin"

# Files of an installed distribution that describe the installation, not the package.
_INSTALL_RECORDS = {"RECORD", "INSTALLER", "REQUESTED", "direct_url.json"}


def run(cmd: list[str | Path], **kw: object) -> subprocess.CompletedProcess[str]:
    """Run ``cmd`` and capture its output as text (the caller checks the status)."""
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True,
                          timeout=600, check=False, **kw)  # type: ignore[call-overload]


def clean_env() -> dict[str, str]:
    """This process's environment without what would leak the checkout or the running
    environment into a child: ``PYTHONPATH``, ``VIRTUAL_ENV`` and pip's settings
    (configuration files included, so that no configured index or folder of wheels is
    consulted)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV") and not k.startswith("PIP_")}
    env["PIP_CONFIG_FILE"] = os.devnull
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


@functools.cache
def _workdir() -> Path:
    path = Path(tempfile.mkdtemp(prefix="symshape-venv-"))
    atexit.register(shutil.rmtree, path, True)
    return path


@functools.cache
def built_wheel() -> Path:
    """The wheel of this checkout, built without network access or build isolation."""
    out = _workdir() / "wheel"
    built = run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-index",
                 "--no-build-isolation", "-q", "-w", out, ROOT], cwd=_workdir(), env=clean_env())
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = out.glob("symshape-*.whl")
    return wheel


def wheel_requirements(wheel: Path) -> list[Requirement]:
    """The ``Requires-Dist`` entries of ``wheel`` that apply to a plain install (no
    extras) on this interpreter."""
    with zipfile.ZipFile(wheel) as z:
        (name,) = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
        meta = Parser().parsestr(z.read(name).decode("utf-8"))
    reqs = [Requirement(r) for r in meta.get_all("Requires-Dist") or []]
    return [r for r in reqs if r.marker is None or r.marker.evaluate({"extra": ""})]


def dependency_closure(reqs: list[Requirement]) -> list[md.Distribution]:
    """The installed distributions of the running environment that ``reqs`` need,
    transitively (extras of requirements included)."""
    found: dict[str, md.Distribution] = {}
    todo = [(r, "") for r in reqs]
    while todo:
        req, extra = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": extra}):
            continue
        key = canonicalize_name(req.name)
        if key not in found:
            try:
                found[key] = md.distribution(req.name)
            except md.PackageNotFoundError:
                raise AssertionError(f"{req.name}, a dependency of the wheel, is not installed "
                                     f"in the environment running the tests ({sys.prefix})") \
                    from None
        dist = found[key]
        assert req.specifier.contains(dist.version, prereleases=True), \
            f"the running environment has {req.name} {dist.version}, the wheel needs {req}"
        for extra_name in [""] + sorted(req.extras):
            todo.extend((Requirement(r), extra_name) for r in dist.requires or [])
    return list(found.values())


def _record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode("ascii")


def repack(dist: md.Distribution, dest: Path) -> Path:
    """A wheel of the installed distribution ``dist`` in the folder ``dest``: the files its
    ``RECORD`` lists under site-packages (scripts and compiled bytecode left out)."""
    wheel_meta = Parser().parsestr(dist.read_text("WHEEL") or "")
    tags = [t.split("-") for t in wheel_meta.get_all("Tag") or []]
    assert tags, f"{dist.metadata['Name']} has no wheel tags"
    # A compressed tag set (PEP 425): each part lists its values, in order of appearance.
    tag = "-".join(".".join(dict.fromkeys(t[i] for t in tags)) for i in range(3))
    name = re.sub(r"[-_.]+", "_", dist.metadata["Name"])
    wheel = dest / f"{name}-{dist.version}-{tag}.whl"
    site = Path(str(dist.locate_file("")))
    record = []
    dist_info = ""
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_STORED) as z:
        for f in dist.files or []:
            parts = Path(str(f)).parts
            if parts[0] == ".." or "__pycache__" in parts or f.name in _INSTALL_RECORDS:
                continue
            if parts[0].endswith(".dist-info"):
                dist_info = parts[0]
            data = (site / f).read_bytes()
            z.writestr(f.as_posix(), data)
            record.append(f"{f.as_posix()},{_record_hash(data)},{len(data)}")
        assert dist_info, f"{dist.metadata['Name']} has no .dist-info in its RECORD"
        record.append(f"{dist_info}/RECORD,,")
        z.writestr(f"{dist_info}/RECORD", "\n".join(record) + "\n")
    return wheel


@functools.cache
def wheelhouse() -> Path:
    """A folder of wheels: the running environment's installed dependencies of the wheel."""
    dest = _workdir() / "wheelhouse"
    dest.mkdir()
    for dist in dependency_closure(wheel_requirements(built_wheel())):
        repack(dist, dest)
    return dest


@functools.cache
def installed() -> Path:
    """The scripts folder of a fresh virtual environment (no system site-packages) into
    which pip installed the wheel, its dependencies resolved from :func:`wheelhouse`."""
    env_dir = _workdir() / "venv"
    venv.EnvBuilder(system_site_packages=False, with_pip=False).create(env_dir)
    bindir = env_dir / BIN
    inst = run([sys.executable, "-m", "pip", "--python", bindir / "python", "install", "-q",
                "--no-index", "--find-links", wheelhouse(), built_wheel()],
               cwd=_workdir(), env=clean_env())
    assert inst.returncode == 0, inst.stdout + inst.stderr
    return bindir
