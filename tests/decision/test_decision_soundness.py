"""Zero wrong answers on generated claims, checked against brute force and z3.

Claims over up to four variables with ``+ - *``, ``floordiv``/``mod`` by
constants and by variables, ``max``/``min``, under random constraints (see
``oracle.random_claim``).  A wrong answer is:

* proved, but brute force or z3 finds a valid valuation falsifying the claim
  (or the certificate does not check);
* refuted, but a valid valuation satisfies it (or the counterexample or the
  certificate is bad);
* inconclusive with a counterexample or witness that is not what it claims;
* a scope rejected as unsatisfiable while z3 finds a valuation.

The ratchet: among the claims z3 proves valid, the share that symshape proves
must not fall below the measured floor (likewise for claims false everywhere).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.oracle import random_claim
from support.property_run import Run, run_property
from support.soundness import check_claim, new_stats

N_EXAMPLES = 2150  # about 4% draw unsatisfiable constraints: >= 2000 claims remain
N_CLAIMS = 2000
N_SEEDED = 200
# Measured: 1058 of 1061 valid claims proved (the misses are non-linear), 340 of
# 340 claims false everywhere refuted.  A change that loses strength fails here.
# The claims hypothesis draws differ between the compiled build and the pure
# one (each is the same from run to run): 1162 of 1169 proved compiled, 1225
# of 1229 pure, and the source before the compiled scope proves exactly the
# same 1162 of the compiled build's claims.
VALID_PROVED_FLOOR = 0.993
UNSAT_REFUTED_FLOOR = 0.99



@pytest.fixture(scope="module")
def property_run() -> Run:
    """Run the property over N_EXAMPLES drawn claims once per module, whichever
    test asks first: the ratchet computes its own numbers, whatever the order
    or selection of tests."""
    stats = new_stats()

    @settings(max_examples=N_EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.randoms(use_true_random=False))
    def no_wrong_answers(rng: random.Random) -> None:
        check_claim(random_claim(rng), stats)

    return run_property(no_wrong_answers, stats)


def test_no_wrong_answers(property_run: Run) -> None:
    property_run.raise_failure()
    assert property_run.counts["claims"] >= N_CLAIMS, property_run.counts


def test_ratchet_on_strength(property_run: Run) -> None:
    stats = property_run.require_success("test_no_wrong_answers")
    assert stats["claims"] >= N_CLAIMS, stats
    assert stats["valid"] > N_CLAIMS // 4, stats
    assert stats["valid_proved"] >= VALID_PROVED_FLOOR * stats["valid"], stats
    assert stats["unsat"] > N_CLAIMS // 20, stats
    assert stats["unsat_refuted"] >= UNSAT_REFUTED_FLOOR * stats["unsat"], stats


def test_seeded_batch_matches_oracle() -> None:
    """The same checks on a fixed seeded batch (independent of hypothesis),
    with the same ratchet on its strength."""
    rng = random.Random(12345)
    stats = new_stats()
    for _ in range(N_SEEDED):
        check_claim(random_claim(rng), stats)
    assert stats["claims"] + stats["unsat scopes"] == N_SEEDED, stats
    assert stats["claims"] >= 0.85 * N_SEEDED, stats  # measured: 186 of 200
    # every kind of answer was met and checked against the oracles (measured:
    # 108 proved, 25 refuted, 53 inconclusive; 108 of 108 valid claims proved,
    # 25 of 25 claims false everywhere refuted)
    assert stats["proved"] > 0 and stats["refuted"] > 0 and stats["inconclusive"] > 0, stats
    assert stats["valid"] > N_SEEDED // 4, stats
    assert stats["valid_proved"] >= VALID_PROVED_FLOOR * stats["valid"], stats
    assert stats["unsat"] > N_SEEDED // 20, stats
    assert stats["unsat_refuted"] >= UNSAT_REFUTED_FLOOR * stats["unsat"], stats
