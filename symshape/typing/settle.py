"""The constraints of a shape annotation that an export's symbolic shapes leave open.

Under ``jax.export`` each constraint of the specs is given to
:func:`symshape.jax.assert_shapes`, which drops it when JAX proves it and
otherwise emits it as a run-time check.  Here each constraint is also stated in
the export's own dimension variables (each spec variable replaced by the
symbolic size it names) and decided by symshape under the export's
constraints:

* proved: nothing to say;
* refuted (false for every shape the export allows): a ShapeMismatchError at
  once, with a counterexample -- every call of the artifact would fail;
* otherwise: a note for a warning, with a counterexample and the constraints of
  the export that would settle it (symshape's suggestions).
"""

from __future__ import annotations

import re
from typing import Any

from symshape.errors import ShapeMismatchError, SymshapeError
from symshape.typing.dims import constraint_names, split_top_level

# The work budget of each decision (a fraction of prove's default: a hint, not a check).
_BUDGET = 0.25


def _variable_sizes(specs: dict[str, str], shapes: dict[str, tuple[Any, ...]]
                    ) -> dict[str, Any]:
    """The symbolic size of each spec variable that is a whole dimension somewhere."""
    out: dict[str, Any] = {}
    for name, text in specs.items():
        for axis, piece in enumerate(p.strip() for p in split_top_level(text) if p.strip()):
            if re.fullmatch(r"[^\W\d]\w*", piece) and piece != "_" and piece not in out:
                out[piece] = shapes[name][axis]
    return out


def _substitute(text: str, texts: dict[str, str]) -> str:
    """``text`` with each variable in ``texts`` replaced by its text."""
    def sub(m: re.Match[str]) -> str:
        return texts.get(m.group(0), m.group(0))
    return re.sub(r"[^\W\d]\w*", sub, text)


def unsettled(where: str, specs: dict[str, str], constraints: tuple[str, ...],
              shapes: dict[str, tuple[Any, ...]]) -> list[str]:
    """Notes on the constraints that the export's shapes neither imply nor refute.

    Raises:
      ShapeMismatchError: for a constraint that no shape of the export satisfies.
    """
    if not constraints:
        return []
    from symshape import prove
    from symshape.jax import from_jax
    sizes = _variable_sizes(specs, shapes)
    notes = []
    for c in constraints:
        names = constraint_names(c)
        if not names <= sizes.keys():
            continue
        scope = None
        texts = {}
        try:
            for v in names:
                d = sizes[v] if isinstance(sizes[v], int) else from_jax(sizes[v])
                text = str(d)
                texts[v] = text if re.fullmatch(r"\w+", text) else f"({text})"
                scope = getattr(d, "scope", scope)
        except (SymshapeError, ValueError, TypeError):
            continue  # a size symshape cannot read: JAX's checks alone
        if scope is None:
            continue  # concrete sizes: decided by assert_shapes
        claim = _substitute(c, texts)
        verdict = prove(claim, scope=scope, budget=_BUDGET)
        if verdict.proved:
            continue
        cex = verdict.counterexample
        what = f"the constraint '{c}'" + ("" if claim == c else
                                           f", which is '{claim}' for the export's shapes,")
        if verdict.refuted:
            raise ShapeMismatchError(
                f"{where}: {what} fails for every shape the export allows (e.g. {cex})")
        settle = verdict.suggestions
        notes.append(
            f"{what} is not implied by the export's shapes"
            + (f" (it fails e.g. for {cex})" if cex else "")
            + ": it is checked when the exported function is called"
            + ("; constraints of the export that would settle it: "
               + " or ".join(f"'{x}'" for x in settle[:3]) if settle else ""))
    return notes


__all__ = ["unsettled"]
