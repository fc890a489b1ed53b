"""The framework versions the adapters are tested with are declared once
(``symshape/_versions.py``), and everything that states them says the same: the extras
of ``pyproject.toml``, the docs, the adapters' ``TESTED_*`` constants and gates, and
what ``.ci/run`` installs for its version legs.

The adapters' version gates are exercised as a user with another release meets them:
in a fresh process whose framework reports another version, or lacks an internal.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from support.paths import ROOT

from symshape import _versions
from symshape._versions import JAX, JAX_COMPANIONS, TORCH, FrameworkRange, pins, position

RANGES = {"jax": JAX, "torch": TORCH}


def _extra(name: str) -> dict[str, Requirement]:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    reqs = [Requirement(r) for r in meta["project"]["optional-dependencies"][name]]
    return {r.name: r for r in reqs}


def test_the_extras_admit_exactly_the_tested_ranges() -> None:
    jax_extra = _extra("jax")
    for name in ("jax", *JAX_COMPANIONS):
        assert jax_extra[name].specifier == SpecifierSet(JAX.specifier()), jax_extra[name]
    assert _extra("torch")["torch"].specifier == SpecifierSet(TORCH.specifier())
    for r in (JAX, TORCH):
        spec = SpecifierSet(r.specifier())
        assert spec.contains(r.oldest) and spec.contains(r.newest)
        assert not spec.contains(r.below)


@pytest.mark.parametrize("r", [JAX, TORCH], ids=lambda r: r.package)
def test_each_range_is_tested_at_both_ends_and_stops_at_the_next_minor(r: FrameworkRange) -> None:
    oldest, newest = _versions.version_tuple(r.oldest), _versions.version_tuple(r.newest)
    assert len(oldest) == len(newest) == 3  # exact releases: what CI installs
    assert oldest <= newest
    assert _versions.version_tuple(r.below) == (newest[0], newest[1] + 1)


def test_version_tuple_and_position() -> None:
    vt = _versions.version_tuple
    assert vt("2.13.0+cpu") == (2, 13, 0)
    assert vt("0.11") == (0, 11)
    assert vt("0.5.0rc1") == (0, 5, 0)
    assert vt("2.15.0.dev20260101+cu130") == (2, 15, 0)
    r = FrameworkRange("x", oldest="0.6.2", newest="0.10.2", below="0.11")
    assert [position(r, v) for v in ("0.4.36", "0.6.1", "0.6.2", "0.8.0", "0.10.2",
                                     "0.10.9", "0.11.0", "0.11.2", "1.0")] == \
        ["older", "older", "tested", "tested", "tested", "tested", "newer", "newer", "newer"]
    assert r.requirement() == "x>=0.6.2,<0.11" and r.requirement("y") == "y>=0.6.2,<0.11"


def test_pins_are_what_ci_installs() -> None:
    assert pins("oldest") == [f"jax=={JAX.oldest}", f"jaxlib=={JAX.oldest}",
                              f"torch=={TORCH.oldest}"]
    assert pins("newest") == [f"jax=={JAX.newest}", f"jaxlib=={JAX.newest}",
                              f"torch=={TORCH.newest}"]
    with pytest.raises(ValueError, match="pins"):
        pins("latest")
    # .ci/run reads them by running the module as a script, before anything is installed.
    out = subprocess.run([sys.executable, str(ROOT / "symshape" / "_versions.py"), "oldest"],
                         capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.split() == pins("oldest")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "symshape/_versions.py oldest" in ci


# A version range written in prose or in a command: `jax>=0.6.2,<0.11`, "jax 0.6.2".
_STATED = re.compile(r"\b(jax|jaxlib|torch)\s*(>=|==|<=|<|>)\s*[\d.]+(?:\s*,\s*<\s*[\d.]+)?")


def test_the_docs_state_the_declared_ranges() -> None:
    page = (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")
    for r in (JAX, TORCH):
        assert f"`{r.requirement()}`" in page, r
        assert f"{r.package} {r.oldest} and {r.newest}" in page, r
    declared = {r.requirement(name).replace(" ", "")
                for r, names in ((JAX, ("jax", *JAX_COMPANIONS)), (TORCH, ("torch",)))
                for name in names}
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for m in _STATED.finditer(path.read_text(encoding="utf-8")):
            stated = m.group().replace(" ", "")
            if "," in stated:  # a full range must be the declared one
                assert stated in declared, (path.name, stated)
            else:  # a bare bound must be one end of it
                r = RANGES[m.group(1) if m.group(1) in RANGES else "jax"]
                assert stated.split(m.group(2))[1] in (r.oldest, r.below), (path.name, stated)


# ---------------------------------------------------------------------------------------
# The adapters read the declaration, and their gates report what moved.

def _python(code: str) -> str:
    """Run ``code`` in a fresh interpreter (with this checkout on its path); its output."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, check=False, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


_JAX_AS = """
import sys
import jax
jax.__version__ = {version!r}  # as a user with that release has it
{setup}
try:
    import symshape.jax as sj
    {action}
    print("no error")
except Exception as err:
    print(type(err).__name__ + ": " + str(err))
"""


def _jax_as(version: str, setup: str = "", action: str = "pass") -> str:
    return _python(_JAX_AS.format(version=version, setup=setup, action=action))


def test_the_jax_adapter_reads_the_declaration() -> None:
    pytest.importorskip("jax")
    import symshape.jax as sj
    from symshape.jax import _internals as jx
    assert JAX.newest == sj.TESTED_JAX_VERSION
    assert _versions.version_tuple(JAX.oldest) == jx.MIN_JAX_VERSION


def test_a_jax_older_than_the_range_is_refused_at_import() -> None:
    pytest.importorskip("jax")
    out = _jax_as("0.4.36")
    assert out.startswith("JaxInternalsError: symshape.jax needs jax >= 0.6.2"), out
    assert "jax 0.4.36 is installed, older than the tested range jax>=0.6.2,<0.11" in out
    assert f"tested with jax {JAX.newest} and older releases down to {JAX.oldest}" in out
    assert "pip install 'jax>=0.6.2,<0.11'" in out


def test_a_moved_jax_internal_is_named_with_the_version_and_the_tested_range() -> None:
    """On a jax newer than the range (as 0.11 is: it needs Python >= 3.12), an internal
    that moved is named, with the installed version and the range tested."""
    pytest.importorskip("jax")
    # (shape_poly_decision sets _bounds_decision when imported: import it first, as a jax
    # that imports it at start-up does.)
    out = _jax_as("0.11.2", setup="from jax._src.export import shape_poly, shape_poly_decision\n"
                                   "del shape_poly._bounds_decision",
                  action="sj.install()")
    assert out.startswith("JaxInternalsError: symshape.jax cannot provide 'decisions' "
                          "with jax 0.11.2"), out
    assert "(jax._src.export.shape_poly._bounds_decision: missing)" in out
    assert "jax 0.11.2 is installed, newer than the tested range jax>=0.6.2,<0.11" in out
    # What did not move keeps working on that version.
    convert = "import symshape; assert sj.to_jax(symshape.symbolic_shape('a, a + 1'))"
    assert _jax_as("0.11.2", action=convert) == "no error\n"


def test_a_moved_jax_internal_module_is_named_at_import() -> None:
    pytest.importorskip("jax")
    out = _jax_as("0.11.2", setup="sys.modules['jax._src.export.shape_poly_decision'] = None")
    assert out.startswith("JaxInternalsError: symshape.jax cannot import the JAX internal "
                          "module jax._src.export.shape_poly_decision"), out
    assert "jax 0.11.2 is installed, newer than the tested range jax>=0.6.2,<0.11" in out


_TORCH_AS = """
import torch
torch.__version__ = {version!r}
try:
    import symshape.torch as st
    from symshape.torch import _internals
    {action}
    print("no error")
except Exception as err:
    print(type(err).__name__ + ": " + str(err))
"""


def test_the_torch_adapter_reads_the_declaration_and_gates_on_it() -> None:
    pytest.importorskip("torch")
    import symshape.torch as st
    assert TORCH.newest == st.TESTED_TORCH_VERSION
    older = _python(_TORCH_AS.format(version="2.5.1", action="pass"))
    assert older.startswith("TorchInternalsError: symshape.torch needs torch >= "
                            f"{TORCH.oldest}"), older
    assert f"torch 2.5.1 is installed, older than the tested range {TORCH.requirement()}" \
        in older
    newer = _python(_TORCH_AS.format(version="2.16.0", action="_internals.sym_expr(object())"))
    assert newer.startswith("TorchInternalsError: cannot read the sympy expression of "), newer
    assert "the torch internal SymInt.node.expr is missing" in newer
    assert f"torch 2.16.0 is installed, newer than the tested range {TORCH.requirement()}" \
        in newer
