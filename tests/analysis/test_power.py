"""Power before paying: Connor's formula against a hand calculation, and with a true
difference the planner's predicted power within 5 points of the power simulated for the
test the analysis runs (seeded simulations)."""

import math

import numpy as np
import pytest
from scipy import stats

from bounded.analysis.plan import PlanAsked, plan_comparison
from bounded.analysis.power import (
    connor_games,
    connor_power,
    detectable_score_difference,
    detectable_win_difference,
    exact_mcnemar_power,
    joint,
    paired_t_games,
    paired_t_power,
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


def simulated_mcnemar_power(rng, cells, n, sims=6_000, alpha=0.05):
    """The exact McNemar test run on simulated pairs: the share of sweeps that reject."""
    probabilities = [cells.both, cells.only_a, cells.only_b, cells.neither]
    tables = rng.multinomial(n, probabilities, size=sims)
    only_a, only_b = tables[:, 1], tables[:, 2]
    p = np.minimum(1.0, 2 * stats.binom.cdf(np.minimum(only_a, only_b), only_a + only_b, 0.5))
    return float(np.mean(p <= alpha))


@pytest.mark.parametrize(("rate_a", "rate_b", "rho"), [(0.38, 0.18, 0.2), (0.6, 0.3, 0.0)])
def test_predicted_power_is_within_five_points_of_the_simulated_power(rate_a, rate_b, rho):
    found = plan_comparison(
        PlanAsked(a="A", b="B", effect=rate_a - rate_b, rate=rate_b, correlation=rho), [], []
    )
    cells = joint(rate_a, rate_b, rho)
    simulated = simulated_mcnemar_power(np.random.default_rng(4), cells, found.games_per_cell)
    assert abs(found.predicted_power - simulated) <= 0.05
    assert abs(found.predicted_power - simulated) <= 4 * math.sqrt(
        simulated * (1 - simulated) / 6_000
    )
    # Connor's normal approximation is what the games per cell come from; the exact test
    # it plans for is a little weaker, which is why the plan prints the exact power.
    assert connor_power(found.games_per_cell, cells) >= 0.8 > found.predicted_power
    at_exact = found.exact_games_per_cell
    assert at_exact is not None and exact_mcnemar_power(at_exact, cells) >= 0.8


def test_paired_t_plan_is_within_five_points_of_the_simulated_power():
    delta, sd = 5.0, 18.0
    n = paired_t_games(delta, sd)
    rng = np.random.default_rng(6)
    differences = rng.normal(delta, sd, (6_000, n))
    p = stats.ttest_1samp(differences, 0.0, axis=1).pvalue
    assert abs(paired_t_power(n, delta, sd) - float(np.mean(p <= 0.05))) <= 0.05
    assert detectable_score_difference(n, sd) == pytest.approx(delta, rel=0.05)


def test_the_smallest_detectable_difference_is_the_planned_one_back():
    cells = joint(0.5, 0.3, 0.1)
    n = connor_games(cells)
    found = detectable_win_difference(n, 0.3, 0.1)
    assert found == pytest.approx(0.2, abs=0.01)
    assert detectable_win_difference(3, 0.3) is None  # 3 games detect nothing at 80%


def test_impossible_plans_are_refused_with_the_reason():
    with pytest.raises(ConfigError, match="impossible"):
        joint(0.9, 0.1, 0.9)
    with pytest.raises(ConfigError, match="leaves"):
        plan_comparison(PlanAsked(a="A", b="B", effect=0.5, rate=0.7), [], [])
    with pytest.raises(ConfigError, match="give --effect"):
        plan_comparison(PlanAsked(a="A", b="B"), [], [])
    with pytest.raises(ConfigError, match="--metric"):
        plan_comparison(PlanAsked(a="A", b="B", metric="elo", effect=0.1), [], [])
