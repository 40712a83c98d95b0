"""The anytime-valid confidence sequence, by seeded simulation: under no true difference,
monitoring after every block rejects at most at its level (plus Monte-Carlo error) over
thousands of simulated sweeps, where a fixed-size test looked at after every block does
not; it covers a non-zero true difference at every time at once; and it decides when
there is a difference to find."""

import numpy as np
import pytest
from scipy import stats

from bounded.analysis.anytime import confidence_sequence, log_capital, look, rejects

SWEEPS = 4_000
PAIRS = 300
BLOCK = 10
LEVEL = 0.05
ALLOWED = LEVEL + 3 * np.sqrt(LEVEL * (1 - LEVEL) / SWEEPS)
"""The level plus three Monte-Carlo standard errors."""


def win_differences(rng, rate_a, rate_b, share, sweeps=SWEEPS, pairs=PAIRS):
    """A - B per pair (1, 0, -1), rescaled to [0, 1]: with chance `share` one draw decides
    both sides of a pair (the same deal), else each draws its own."""
    common = rng.random((sweeps, pairs))
    together = rng.random((sweeps, pairs)) < share
    a = np.where(together, common, rng.random((sweeps, pairs))) < rate_a
    b = np.where(together, common, rng.random((sweeps, pairs))) < rate_b
    return (a.astype(float) - b.astype(float) + 1) / 2


def rejected_at_a_look(x, m):
    """Whether the sweep is stopped at some look (after every BLOCK pairs)."""
    decided = rejects(x, m, LEVEL)
    return decided[:, BLOCK - 1 :: BLOCK].any(axis=1)


@pytest.mark.parametrize(("rate", "share"), [(0.4, 0.5), (0.1, 0.0), (0.5, 0.9)])
def test_no_true_difference_monitored_after_every_block_rejects_at_most_at_its_level(rate, share):
    x = win_differences(np.random.default_rng(2026), rate, rate, share)
    assert rejected_at_a_look(x, 0.5).mean() <= ALLOWED


def test_bounded_scores_without_a_true_difference_reject_at_most_at_the_level():
    rng = np.random.default_rng(99)
    deal = rng.beta(2, 3, (SWEEPS, PAIRS))  # a score in [0, 1] per deal, shared
    a = np.clip(deal + rng.normal(0, 0.1, deal.shape), 0, 1)
    b = np.clip(deal + rng.normal(0, 0.1, deal.shape), 0, 1)
    x = (a - b + 1) / 2
    assert rejected_at_a_look(x, 0.5).mean() <= ALLOWED


def test_a_fixed_size_test_looked_at_after_every_block_exceeds_its_level():
    # The simulation can tell an invalid rule: the exact McNemar test at level 0.05,
    # applied after every block as if each look were the last, rejects far more often.
    x = win_differences(np.random.default_rng(2026), 0.4, 0.4, 0.5, sweeps=1_000)
    only_a, only_b = np.cumsum(x == 1, axis=1), np.cumsum(x == 0, axis=1)
    looks = slice(BLOCK - 1, None, BLOCK)
    low, total = np.minimum(only_a, only_b)[:, looks], (only_a + only_b)[:, looks]
    p = np.minimum(1.0, 2 * stats.binom.cdf(low, total, 0.5))
    assert (p <= LEVEL).any(axis=1).mean() > 2 * LEVEL


def test_the_sequence_covers_a_true_difference_at_every_time_at_once():
    rate_a, rate_b = 0.45, 0.25
    x = win_differences(np.random.default_rng(5), rate_a, rate_b, 0.5)
    truth = (rate_a - rate_b + 1) / 2
    ever_excluded = rejects(x, truth, LEVEL)[:, -1]
    assert ever_excluded.mean() <= ALLOWED


def test_a_true_difference_is_decided_and_a_larger_one_sooner():
    rng = np.random.default_rng(8)
    stops = []
    for rate_a in (0.45, 0.6):
        decided = rejects(win_differences(rng, rate_a, 0.2, 0.3, sweeps=500), 0.5, LEVEL)
        assert decided[:, -1].mean() >= 0.9
        stops.append(np.where(decided.any(axis=1), decided.argmax(axis=1), PAIRS).mean())
    assert stops[1] < stops[0]


def test_look_and_interval_agree_and_shrink_with_more_pairs():
    rng = np.random.default_rng(1)
    diffs = (rng.random(400) < 0.4).astype(float) - (rng.random(400) < 0.15)
    first, last = look(diffs[:40], -1, 1, LEVEL), look(diffs, -1, 1, LEVEL)
    assert first.high - first.low > last.high - last.low
    assert last.decided and last.low > 0
    assert last.low <= diffs.mean() <= last.high
    assert not look([1.0, -1.0, 0.0], -1, 1, LEVEL).decided
    assert confidence_sequence([], -1, 1, LEVEL) == (-1, 1)
    with pytest.raises(ValueError, match="outside"):
        confidence_sequence([2.0], -1, 1, LEVEL)


def test_capital_is_a_martingale_at_the_true_mean():
    # E[K_t(m)] = 1 under a true mean m, whatever t: checked at a few times.
    x = win_differences(np.random.default_rng(12), 0.3, 0.3, 0.4, sweeps=20_000, pairs=60)
    capital = np.exp(log_capital(x, np.array([0.5]), LEVEL)[..., 0])
    for t in (9, 29, 59):
        mean, error = capital[:, t].mean(), capital[:, t].std() / np.sqrt(len(capital))
        assert abs(mean - 1) <= 4 * error + 1e-9
