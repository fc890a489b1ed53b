"""The message of an inconclusive comparison is made when it is read.

It shows a valuation where the comparison holds and one where it fails,
which takes searches (and a minimization) to find; tracing code catches the
error and goes on, so the work is done only for a message somebody reads.
"""

from __future__ import annotations

import pickle

import pytest

import symshape
from symshape import InconclusiveDimensionOperation
from symshape.decision.engine import Decider
from symshape.errors import LazyText


def test_catching_the_error_makes_no_message(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    explain = Decider.explain_inconclusive

    def counting(self: Decider, *args: object) -> str:
        calls.append(args)
        return explain(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(Decider, "explain_inconclusive", counting)
    x, y = symshape.symbolic_shape("2*d*d + 3, s", constraints=["h <= 1024"])
    for _ in range(3):
        with pytest.raises(InconclusiveDimensionOperation):
            _ = x >= y
    assert calls == []
    with pytest.raises(InconclusiveDimensionOperation) as info:
        _ = x >= y
    text = str(info.value)
    assert len(calls) == 1
    assert text.startswith("Symbolic dimension comparison '2*d^2 + 3' >= 's' is inconclusive.")
    assert "Scope constraints: h <= 1024" in text
    assert "It holds for d = 1" in text and "fails for" in text
    assert str(info.value) == text and len(calls) == 1  # made once
    # the cached answer of the same comparison shares the message already made
    with pytest.raises(InconclusiveDimensionOperation, match="fails for"):
        _ = x >= y
    assert len(calls) == 1


def test_the_message_reads_the_same_everywhere() -> None:
    x, y = symshape.symbolic_shape("a, b")
    with pytest.raises(InconclusiveDimensionOperation) as info:
        _ = x >= y
    err = info.value
    assert isinstance(err.args[0], LazyText)
    copy = pickle.loads(pickle.dumps(err))  # before the message is made
    assert type(copy) is InconclusiveDimensionOperation
    assert str(copy) == str(err) and isinstance(err.args[0], str)
    assert repr(err) == f"InconclusiveDimensionOperation({str(err)!r})"
