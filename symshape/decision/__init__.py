"""The decision procedure of symshape.

* :func:`prove` decides a claim and returns a :class:`Verdict` with evidence:
  a checkable :class:`Certificate` for a proof, valuations otherwise.
* :class:`~symshape.decision.engine.Decider` is what a scope uses for its
  comparisons and bounds.
"""

# Imported for what they install: the certificate renderers, and the decision
# procedure of every scope.
from symshape.decision import engine, explain  # noqa: F401
from symshape.decision.certificate import Certificate, CertificateError
from symshape.decision.prove import prove
from symshape.decision.verdict import Status, Verdict

__all__ = ["Certificate", "CertificateError", "Status", "Verdict", "prove"]
