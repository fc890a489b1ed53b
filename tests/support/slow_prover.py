"""A stand-in for the ``symshape`` program whose prover is slow (1.6 s) and
reports progress as the engine does: what the progress-line tests of the CLI
and the REPL run in a terminal (shared by both)."""

SLOW_PROVER_SCRIPT = """\
import sys, time
import symshape.decision
real = symshape.decision.prove
def slow(claim, *, progress=None, **kw):
    start = time.monotonic()
    while time.monotonic() - start < 1.6:
        if progress is not None:
            progress(time.monotonic() - start, "trying the case b >= 2")
        time.sleep(0.1)
    return real(claim, progress=progress, **kw)
symshape.decision.prove = slow
from symshape.cli import main
sys.exit(main(sys.argv[1:]))
"""
