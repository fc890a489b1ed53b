"""The decision tactics, one per module, behind one interface
(:class:`~symshape.decision.tactics.base.Tactic`).

In the order :class:`symshape.decision.engine.Decider` runs them:

* :mod:`~symshape.decision.tactics.intervals`: a proof from interval bounds,
  before the pool is built (``prove`` only);
* :mod:`~symshape.decision.tactics.intervals`: interval bounds, refuting (``prove`` only);
* :mod:`~symshape.decision.tactics.witnessed`: sign witnesses show the claim
  open (``prove`` only);
* :mod:`~symshape.decision.tactics.split`: the pool of valid valuations;
* :mod:`~symshape.decision.tactics.directed`: directed valuations;
* :mod:`~symshape.decision.tactics.refutation`: proof, then refutation, by search;
* :mod:`~symshape.decision.tactics.small`: small valuations (``prove`` only).
"""

from symshape.decision.tactics.base import (
    BY_INTERVALS,
    DEPENDS,
    OPEN,
    Outcome,
    Query,
    Tactic,
    run_tactics,
)
from symshape.decision.tactics.directed import Directed
from symshape.decision.tactics.intervals import IntervalProof, Intervals, IntervalsFirst
from symshape.decision.tactics.refutation import Attempts, Prove, Refute
from symshape.decision.tactics.small import SmallValuations, small_points
from symshape.decision.tactics.split import PoolSplit
from symshape.decision.tactics.witnessed import Witnessed

__all__ = ["BY_INTERVALS", "DEPENDS", "OPEN", "Attempts", "Directed", "IntervalProof",
           "Intervals", "IntervalsFirst", "Outcome", "PoolSplit", "Prove", "Query", "Refute",
           "SmallValuations", "Tactic", "Witnessed", "run_tactics", "small_points"]
