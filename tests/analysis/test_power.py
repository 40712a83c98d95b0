"""Power before paying: Connor's formula against a hand calculation, and with a true
difference the planner's predicted power within a few points of the power simulated here
for the test the analysis runs (statsmodels' McNemar on simulated blocks x seeds; scipy's
t tests on simulated differences), with one block and with several."""

import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.power import TTestPower

from bounded.analysis.plan import PlanAsked, plan_comparison
from bounded.analysis.power import (
    block_cells,
    connor_games,
    connor_power,
    detectable_score_difference,
    detectable_win_difference,
    joint,
    mcnemar_power,
    mcnemar_seeds,
    stratified_t_power,
    stratified_t_seeds,
)
from bounded.core import ConfigError

Z_975, Z_80 = 1.959964, 0.841621
"""Standard normal quantiles from the table: z(0.975) and z(0.80)."""


def test_connor_games_is_the_textbook_formula():
    # 0.45 vs 0.25 with no correlation: p10 = 0.45 * 0.75, p01 = 0.55 * 0.25.
    p10, p01 = 0.45 * 0.75, 0.55 * 0.25
    psi, delta = p10 + p01, p10 - p01
    by_hand = (Z_975 * math.sqrt(psi) + Z_80 * math.sqrt(psi - delta**2)) ** 2 / delta**2
    assert connor_games(joint(0.45, 0.25)) == math.ceil(by_hand) == 91
    # a correlation leaves fewer discordant pairs, and so needs fewer games
    assert connor_games(joint(0.45, 0.25, 0.5)) < 91


def simulated_mcnemar_power(rng, blocks, seeds, sims=4_000, alpha=0.05):
    """statsmodels' McNemar test with continuity correction, run on the discordant pairs
    of simulated sweeps pooled over the blocks: the share that reject."""
    only_a = np.zeros(sims, dtype=int)
    only_b = np.zeros(sims, dtype=int)
    for cells in blocks:
        tables = rng.multinomial(seeds, [cells.both, cells.only_a, cells.only_b, cells.neither],
                                 size=sims)  # fmt: skip
        only_a += tables[:, 1]
        only_b += tables[:, 2]
    rejected = 0
    for b, c in zip(only_a, only_b, strict=True):
        if b + c and abs(b - c) > 1:
            rejected += mcnemar([[0, b], [c, 0]], exact=False, correction=True).pvalue <= alpha
    return rejected / sims


@pytest.mark.parametrize(
    ("rates_b", "effect", "rho"),
    [((0.18,), 0.2, 0.2), ((0.3,), 0.3, 0.0), ((0.2, 0.5, 0.7), 0.15, 0.3)],
)
def test_predicted_power_is_within_a_few_points_of_the_simulated_power(rates_b, effect, rho):
    games = plan_comparison(
        PlanAsked(a="A", b="B", effect=effect, rate=rates_b[0], correlation=rho), [], [],
        planned_blocks=[str(i) for i in range(len(rates_b))],
    )  # fmt: skip
    cells = block_cells(rates_b, effect, rho)
    seeds = mcnemar_seeds(cells) if len(rates_b) > 1 else games.seeds_per_block
    simulated = simulated_mcnemar_power(np.random.default_rng(4), cells, seeds)
    predicted = mcnemar_power(seeds, cells)
    assert abs(predicted - simulated) <= 4 * math.sqrt(simulated * (1 - simulated) / 4_000) + 0.005
    assert abs(connor_power(seeds, cells) - simulated) <= 0.05
    assert simulated >= 0.75


def test_one_block_stratified_t_power_is_statsmodels_ttestpower():
    delta, sd = 5.0, 18.0
    n = stratified_t_seeds(delta, sd)
    assert n == math.ceil(TTestPower().solve_power(effect_size=delta / sd, power=0.8, alpha=0.05))
    assert stratified_t_power(n, 1, delta, sd) == pytest.approx(
        TTestPower().power(effect_size=delta / sd, nobs=n, alpha=0.05)
    )


def test_stratified_t_power_is_the_simulated_power_over_blocks():
    delta, sd, blocks = 4.0, 12.0, 3
    seeds = stratified_t_seeds(delta, sd, blocks)
    rng = np.random.default_rng(6)
    sims = 4_000
    means = (10.0, 40.0, 70.0)  # blocks differ in level; the differences do not see it
    rejected = 0
    for _ in range(sims):
        diffs = [delta + rng.normal(0, sd, seeds) for _ in means]
        centred = np.concatenate([d - d.mean() for d in diffs])
        se = math.sqrt(np.sum(centred**2) / (blocks * seeds - blocks) / (blocks * seeds))
        t = np.mean(np.concatenate(diffs)) / se
        rejected += 2 * stats.t.sf(abs(t), blocks * seeds - blocks) <= 0.05
    predicted = stratified_t_power(seeds, blocks, delta, sd)
    assert abs(predicted - rejected / sims) <= 4 * math.sqrt(0.2 * 0.8 / sims)
    assert detectable_score_difference(seeds, sd, blocks) <= delta


def test_the_smallest_detectable_difference_is_the_planned_one_back():
    cells = joint(0.5, 0.3, 0.1)
    n = mcnemar_seeds([cells])
    found = detectable_win_difference(n, 0.3, 0.1)
    assert found == pytest.approx(0.2, abs=0.01)
    assert detectable_win_difference(3, 0.3) is None  # 3 games detect nothing at 80%
    # over blocks: the seeds per block planned for +15 points back
    blocks = block_cells((0.2, 0.5, 0.7), 0.15, 0.3)
    seeds = mcnemar_seeds(blocks)
    assert detectable_win_difference(seeds, (0.2, 0.5, 0.7), 0.3) == pytest.approx(0.15, abs=0.01)


def test_impossible_plans_are_refused_with_the_reason():
    with pytest.raises(ConfigError, match="impossible"):
        joint(0.9, 0.1, 0.9)
    with pytest.raises(ConfigError, match="leaves"):
        plan_comparison(PlanAsked(a="A", b="B", effect=0.5, rate=0.7), [], [])
    with pytest.raises(ConfigError, match="give --effect"):
        plan_comparison(PlanAsked(a="A", b="B"), [], [])
    with pytest.raises(ConfigError, match="--metric"):
        plan_comparison(PlanAsked(a="A", b="B", metric="elo", effect=0.1), [], [])
