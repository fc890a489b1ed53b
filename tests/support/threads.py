"""Run one function in several threads at once, and report what they raised."""

from __future__ import annotations

import threading
from collections.abc import Callable


def run_in_threads(work: Callable[[int], object], n: int) -> None:
    """Call ``work(k)`` for ``k`` in ``range(n)``, each in a thread of its own,
    all started before any is joined; re-raise the first exception a thread
    raised (a thread's own exception would only be printed)."""
    errors: list[BaseException] = []

    def run(k: int) -> None:
        try:
            work(k)
        except BaseException as err:  # noqa: BLE001 - re-raised below
            errors.append(err)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
