"""The statistics of pairs within blocks, each checked against statsmodels or scipy
computed here on the same pairs, against a published value, and by simulation: on blocks
with different base rates the stratified interval covers the known difference and the
stratified test keeps its level (400 simulated sweeps each, never which cell wins)."""

import math

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import optimize, stats
from statsmodels.stats.contingency_tables import StratifiedTable, mcnemar

from bounded.analysis.stratified import (
    DiscordantCounts,
    by_block,
    mcnemar_exact_p,
    mcnemar_p,
    stratified_bootstrap_interval,
    stratified_t,
    tango_interval,
    tango_score,
)

SWEEPS = 400
MONTE_CARLO = 2 * math.sqrt(0.05 * 0.95 / SWEEPS)
"""Two Monte Carlo standard errors of a rejection rate of 5% over SWEEPS sweeps."""


def test_tango_interval_is_the_published_one():
    # Fagerland, Lydersen and Laake (2014), "Recommended tests and confidence intervals for
    # paired binomial proportions", Statistics in Medicine 33:2850, the airway
    # hyper-responsiveness example (b = 1, c = 7, n = 21): Tango's score interval
    # -0.517 to -0.026.
    low, high = tango_interval(1, 7, 21, correction=0.0)
    assert (low, high) == pytest.approx((-0.517, -0.026), abs=5e-4)


def restricted_score(b, c, n, d0, correction=1.0):
    """Tango's score statistic (its numerator moved `correction` towards 0) from the
    restricted maximum-likelihood estimate found by scipy's optimiser on the multinomial
    likelihood (no closed form)."""
    rest = n - b - c

    def minus_log_likelihood(q):
        return -(b * np.log(q + d0) + c * np.log(q) + rest * np.log(1 - 2 * q - d0))

    low, high = max(0.0, -d0) + 1e-12, (1 - d0) / 2 - 1e-12
    q = optimize.minimize_scalar(minus_log_likelihood, bounds=(low, high), method="bounded",
                                 options={"xatol": 1e-13}).x  # fmt: skip
    gap = b - c - n * d0
    return math.copysign(abs(gap) - correction, gap) / math.sqrt(n * (2 * q + d0 * (1 - d0)))


@pytest.mark.parametrize(("b", "c", "n"), [(9, 2, 40), (0, 5, 12), (3, 5, 24), (12, 1, 40)])
def test_tango_interval_inverts_mcnemars_test(b, c, n):
    low, high = tango_interval(b, c, n)
    for end, z in ((low, 1.959964), (high, -1.959964)):
        if abs(end) < 1:
            assert restricted_score(b, c, n, end) == pytest.approx(z, abs=1e-4)
    # at 0 the score statistic is McNemar's; corrected, with Edwards' correction
    statsmodels_p = mcnemar([[0, b], [c, 0]], exact=False, correction=True).pvalue
    assert tango_score(b, c, n, 0.0) ** 2 == pytest.approx((b - c) ** 2 / (b + c))
    assert tango_score(b, c, n, 0.0, 1.0) ** 2 == pytest.approx((abs(b - c) - 1) ** 2 / (b + c))
    assert mcnemar_p(b, c) == pytest.approx(statsmodels_p)
    assert (low > 0 or high < 0) == (mcnemar_p(b, c) < 0.05)


def test_the_exact_mcnemar_test_is_the_binomial_test_of_the_discordant_pairs():
    for b, c in ((9, 2), (0, 5), (7, 7), (30, 12)):
        assert mcnemar_exact_p(b, c) == pytest.approx(stats.binomtest(b, b + c, 0.5).pvalue)
    assert mcnemar_exact_p(0, 0) == mcnemar_p(0, 0) == 1.0


def blocked_wins(rng, seeds, rates_b, effect, share):
    """Pairs of wins keyed by (block, seed): in each block B wins at its rate and A at
    that rate plus `effect`; with chance `share` a seed's deal decides both."""
    pairs = {}
    for index, rate in enumerate(rates_b):
        common, together = rng.random(seeds), rng.random(seeds) < share
        a = np.where(together, common, rng.random(seeds)) < rate + effect
        b = np.where(together, common, rng.random(seeds)) < rate
        for seed in range(seeds):
            pairs[(f"level{index}", seed)] = (float(a[seed]), float(b[seed]))
    return pairs


def test_mcnemar_over_blocks_is_the_cmh_test_of_the_matched_pairs():
    pairs = blocked_wins(np.random.default_rng(1), 12, (0.2, 0.5, 0.8), 0.15, 0.4)
    counts = DiscordantCounts.of(list(pairs.values()))
    # each pair a stratum: the 2x2 table of treatment (A, B) x outcome (won, lost)
    tables = [np.array([[a, 1 - a], [b, 1 - b]]) for a, b in pairs.values()]
    cmh = StratifiedTable(tables).test_null_odds(correction=True)
    assert mcnemar_p(counts.only_a, counts.only_b) == pytest.approx(cmh.pvalue)


def test_one_block_stratified_t_is_scipys_paired_t_test():
    rng = np.random.default_rng(2)
    a, b = rng.normal(60, 15, 20), rng.normal(55, 15, 20)
    found = stratified_t([a - b])
    expected = stats.ttest_rel(a, b)
    interval = expected.confidence_interval(0.95)
    assert found.p_value == pytest.approx(expected.pvalue)
    assert (found.low, found.high) == pytest.approx((interval.low, interval.high))
    assert found.df == 19


def test_stratified_t_is_least_squares_on_the_blocks():
    rng = np.random.default_rng(3)
    blocks = [rng.normal(mu, sd, n) for mu, sd, n in ((10, 5, 12), (-4, 9, 12), (2, 2, 8))]
    found = stratified_t(blocks)
    y = np.concatenate(blocks)
    dummies = np.zeros((y.size, len(blocks)))
    start = 0
    for index, block in enumerate(blocks):
        dummies[start : start + block.size, index] = 1
        start += block.size
    fit = sm.OLS(y, dummies).fit()
    weights = np.array([block.size for block in blocks]) / y.size
    tested = fit.t_test(weights)
    assert found.estimate == pytest.approx(float(tested.effect[0]))
    assert found.p_value == pytest.approx(float(tested.pvalue))
    assert (found.low, found.high) == pytest.approx(tuple(tested.conf_int(alpha=0.05)[0]))
    assert found.df == int(fit.df_resid) == y.size - 3


def test_the_bootstrap_resamples_seeds_within_blocks():
    # blocks far apart, each nearly constant: a bootstrap within blocks barely moves,
    # one that resampled across blocks would spread over the gap between them
    blocks = [[10.0, 10.0, 10.1, 9.9], [-10.0, -10.1, -9.9, -10.0]]
    low, high = stratified_bootstrap_interval(blocks, resamples=2_000)
    assert high - low < 0.2 and low <= 0.0 <= high
    rng = np.random.default_rng(4)
    wide = [rng.normal(mu, 10, 60) for mu in (5, -5, 0)]
    low, high = stratified_bootstrap_interval(wide, resamples=4_000)
    plug_in = math.sqrt(sum(np.var(b) * b.size for b in wide)) / sum(b.size for b in wide)
    estimate = float(np.mean(np.concatenate(wide)))
    assert (high - low) / 2 == pytest.approx(1.959964 * plug_in, rel=0.1)
    assert (low + high) / 2 == pytest.approx(estimate, abs=0.3 * plug_in)


RATES_B = (0.15, 0.5, 0.8)
"""Three blocks (levels) with different base rates."""


@pytest.mark.parametrize(("effect", "share"), [(0.0, 0.5), (0.15, 0.5), (0.15, 0.0)])
def test_stratified_wins_cover_the_known_difference_and_keep_the_level(effect, share):
    rng = np.random.default_rng(5)
    covered = rejected = 0
    for _ in range(SWEEPS):
        pairs = blocked_wins(rng, 12, RATES_B, effect, share)
        counts = DiscordantCounts.of(list(pairs.values()))
        low, high = tango_interval(counts.only_a, counts.only_b, counts.pairs)
        covered += low <= effect <= high
        rejected += mcnemar_p(counts.only_a, counts.only_b) <= 0.05
    assert covered / SWEEPS >= 0.93
    if effect == 0.0:
        assert rejected / SWEEPS <= 0.05 + MONTE_CARLO


def test_stratified_wins_differ_from_the_pooled_unpaired_comparison():
    # the deal of a seed decides much of both games, and the blocks' base rates differ:
    # the pooled games analysed as independent samples ignore both
    from statsmodels.stats.proportion import confint_proportions_2indep

    from bounded.analysis.stats import fisher_exact_p

    rng = np.random.default_rng(6)
    ratios, paired, unpaired = [], 0, 0
    for _ in range(SWEEPS // 2):
        counts = DiscordantCounts.of(list(blocked_wins(rng, 12, RATES_B, 0.15, 0.7).values()))
        n, wins_a = counts.pairs, counts.both + counts.only_a
        wins_b = counts.both + counts.only_b
        low, high = tango_interval(counts.only_a, counts.only_b, n)
        u_low, u_high = confint_proportions_2indep(wins_a, n, wins_b, n, method="newcomb")
        ratios.append((high - low) / (u_high - u_low))
        paired += mcnemar_p(counts.only_a, counts.only_b) <= 0.05
        unpaired += fisher_exact_p(wins_a, n, wins_b, n) <= 0.05
    assert np.mean(ratios) < 0.92
    assert paired > 2 * unpaired


def blocked_progress(rng, seeds, means, effect, spread):
    """Progress of A and B per (block, seed): a deal per seed shared by both."""
    pairs = {}
    for index, mean in enumerate(means):
        deal = rng.normal(mean, spread, seeds)
        a = deal + effect + rng.normal(0, 8, seeds)
        b = deal + rng.normal(0, 8, seeds)
        for seed in range(seeds):
            pairs[(f"level{index}", seed)] = (float(a[seed]), float(b[seed]))
    return pairs


@pytest.mark.parametrize("effect", [0.0, 6.0])
def test_stratified_t_covers_the_known_difference_and_keeps_the_level(effect):
    rng = np.random.default_rng(7)
    covered = rejected = 0
    for _ in range(SWEEPS):
        pairs = blocked_progress(rng, 12, (20, 50, 75), effect, 10)
        found = stratified_t([[a - b for a, b in v] for v in by_block(pairs).values()])
        covered += found.low <= effect <= found.high
        rejected += found.p_value <= 0.05
    assert covered / SWEEPS >= 0.93
    if effect == 0.0:
        assert rejected / SWEEPS <= 0.05 + MONTE_CARLO
