"""The framework versions the adapters are tested with: declared here, once.

Everything else that states a version range reads it from here or is checked
against it by a test (``tests/project/test_versions.py``):

* ``pyproject.toml``'s extras ``jax`` and ``torch`` (TOML cannot import Python, so
  the test asserts that they say exactly :meth:`FrameworkRange.requirement`);
* ``symshape.jax.TESTED_JAX_VERSION`` / ``symshape.torch.TESTED_TORCH_VERSION``, the
  version gates and the messages of the adapters' internals checks;
* ``docs/getting-started.md`` (its stated ranges are checked by the test);
* ``.ci/run``, which runs the adapter tests on the oldest release (``oldest``) and
  on the newest release the extra admits on CI's Python (``newest`` there).

``oldest`` and ``newest`` are releases that CI installs and tests; ``below`` is the
first release not admitted (the next minor release after ``newest``: the adapters
read framework internals that move between minor releases).  jax 0.11 and newer
need Python >= 3.12, which CI lacks, so they stay outside the declared range until
they are tested.

This module is data only: it imports nothing, so that the core, the build and the
tests can read it without importing a framework.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FrameworkRange:
    """The releases of one framework that symshape's adapter is tested with."""

    package: str
    """The distribution's name on PyPI."""
    oldest: str
    """The oldest release tested (the floor of the extra)."""
    newest: str
    """The newest release tested."""
    below: str
    """The first release not admitted (the extra's ceiling, exclusive)."""

    def specifier(self) -> str:
        """The version specifier of the extra, e.g. ``>=0.6.2,<0.11``."""
        return f">={self.oldest},<{self.below}"

    def requirement(self, package: str | None = None) -> str:
        """The requirement the extra declares, e.g. ``jax>=0.6.2,<0.11`` (``package``
        names a companion distribution released in step, such as ``jaxlib``)."""
        return f"{package or self.package}{self.specifier()}"

    def describe(self) -> str:
        """``jax 0.6.2 to 0.10.2`` (the releases tested, for messages and docs)."""
        return f"{self.package} {self.oldest} to {self.newest}"


JAX = FrameworkRange(package="jax", oldest="0.6.2", newest="0.10.2", below="0.11")
"""jax (and jaxlib, released in step): 0.6.2 is the oldest release whose adapter tests
pass (0.6.1 lacks ``jax.tree.broadcast`` and needs absl-py it does not declare;
0.4.36 also lacks ``jax._src.lib._jax``); 0.10.2 is the newest for Python 3.11."""

JAX_COMPANIONS = ("jaxlib",)
"""Distributions the ``jax`` extra pins to the same range as jax."""

TORCH = FrameworkRange(package="torch", oldest="2.9.1", newest="2.14.1", below="2.15")
"""torch: 2.9.1 is the oldest release whose adapter tests pass (on 2.6.0 most of
symshape.torch's export tests fail); 2.14.1 is the newest that pip installs here (the
machines' pip configuration caps torch there; 2.15 converts ``TruncToInt``, which
``test_unrepresentable_torch_functions_are_named`` expects to be refused, and is not
tested by CI).  Neither is on PyPI as a CPU-only build: CI installs the CUDA builds,
which run on the CPU."""


def version_tuple(version: str) -> tuple[int, ...]:
    """The numeric release of a version string: ``(2, 13, 0)`` for ``2.13.0+cpu``,
    ``(0, 11)`` for ``0.11``, ``(0, 5, 0)`` for ``0.5.0rc1``."""
    out: list[int] = []
    for part in version.split("+")[0].split("."):
        digits = ""
        for ch in part:
            if not ch.isdigit():
                break
            digits += ch
        if not digits:
            break
        out.append(int(digits))
        if len(digits) < len(part):
            break
    return tuple(out)


def position(r: FrameworkRange, installed: str) -> str:
    """Where ``installed`` lies against ``r``: ``"older"`` (below the floor),
    ``"tested"`` (within the declared range) or ``"newer"`` (at or past the ceiling)."""
    v = version_tuple(installed)
    if v < version_tuple(r.oldest):
        return "older"
    if v >= version_tuple(r.below):
        return "newer"
    return "tested"


def tested_range(r: FrameworkRange, installed: str) -> str:
    """What was tested, against what is installed: the tail of every message of an
    adapter's version gate (``symshape.jax was tested with jax 0.10.2 and older ...``)."""
    where = {"older": "older than", "newer": "newer than",
             "tested": "within"}[position(r, installed)]
    return (f"symshape.{r.package} was tested with {r.package} {r.newest} and older releases "
            f"down to {r.oldest}; {r.package} {installed} is installed, {where} the tested "
            f"range {r.requirement()}")


def pins(which: str) -> list[str]:
    """The requirements that install exactly the ``oldest`` (or ``newest``) tested
    release of every framework, companions included: what CI's version legs install."""
    if which not in ("oldest", "newest"):
        raise ValueError(f"pins('oldest') or pins('newest'), not pins({which!r})")
    out = []
    for r, companions in ((JAX, JAX_COMPANIONS), (TORCH, ())):
        version = getattr(r, which)
        out += [f"{name}=={version}" for name in (r.package, *companions)]
    return out


__all__ = ["JAX", "JAX_COMPANIONS", "TORCH", "FrameworkRange", "pins", "position",
           "version_tuple"]

if __name__ == "__main__":  # ``python symshape/_versions.py oldest``: read by .ci/run
    import sys

    print(" ".join(pins(sys.argv[1] if len(sys.argv) > 1 else "")))
