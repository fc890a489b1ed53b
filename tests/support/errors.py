"""Reading the messages of an exception chain."""

from __future__ import annotations


def chain_text(err: BaseException) -> str:
    """The messages of an exception and its causes, one per line (JAX reports a failed
    run-time shape assertion as 'Error refining shapes', caused by the assertion's
    error)."""
    parts = []
    e: BaseException | None = err
    while e is not None:
        parts.append(str(e))
        e = e.__cause__ or e.__context__
    return "\n".join(parts)
