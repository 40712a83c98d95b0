"""Paired comparisons: the intervals cover at their nominal rate (seeded simulations), the
tests agree with independent computations, pairing narrows the interval where the
pairs are correlated, and a comparison of cells with different seed sets lists the
games left unpaired (on a real archive of scripted games)."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.proportion import confint_proportions_2indep

from bounded.analysis.games import CompletedGame
from bounded.analysis.paired import (
    adjust_holm,
    compare_paired,
    mcnemar_exact_p,
    newcombe_paired_interval,
    pair_games,
    paired_bootstrap_interval,
)
from bounded.archive import Archive
from bounded.core import ConfigError

SIMULATIONS = 2_000
TOLERANCE = 3 * np.sqrt(0.95 * 0.05 / SIMULATIONS)
"""Three Monte-Carlo standard errors of a 95% coverage estimated from SIMULATIONS runs."""


def game(cell, seed, victory, score=None):
    return CompletedGame(
        run_id=f"{cell}-{seed}", tag=cell, experiment="x", cell=cell, env_id="e", contract="c",
        model="m", seed=seed, started_at=float(seed), victory=victory, score=score,
        prompt_tokens=0, completion_tokens=0, decisions=1, model_calls=0, wall_s=0.0,
    )  # fmt: skip


def correlated_wins(rng, n, rate_a, rate_b, share):
    """Win indicators of A and B on n seeds: with chance `share` a seed's deal decides
    both (one uniform draw), else each side draws its own."""
    common = rng.random(n)
    together = rng.random(n) < share
    a = np.where(together, common, rng.random(n)) < rate_a
    b = np.where(together, common, rng.random(n)) < rate_b
    return a, b


@pytest.mark.parametrize(
    ("rate_a", "rate_b", "share", "n"),
    [(0.38, 0.18, 0.5, 60), (0.3, 0.6, 0.0, 40), (0.5, 0.5, 0.8, 80)],
)
def test_newcombe_paired_interval_covers_the_true_difference_at_its_nominal_rate(
    rate_a, rate_b, share, n
):
    rng = np.random.default_rng(42)
    covered = 0
    for _ in range(SIMULATIONS):
        a, b = correlated_wins(rng, n, rate_a, rate_b, share)
        both, only_a = int(np.sum(a & b)), int(np.sum(a & ~b))
        only_b, neither = int(np.sum(~a & b)), int(np.sum(~a & ~b))
        low, high = newcombe_paired_interval(both, only_a, only_b, neither)
        covered += low <= rate_a - rate_b <= high
    assert abs(covered / SIMULATIONS - 0.95) <= TOLERANCE


def test_paired_bootstrap_interval_covers_the_true_mean_difference_at_its_nominal_rate():
    rng = np.random.default_rng(7)
    n, true_difference, covered = 50, 8.0, 0
    for index in range(SIMULATIONS // 2):
        deal = rng.normal(60, 15, n)  # what the seed gives both players
        a = deal + true_difference + rng.normal(0, 10, n)
        b = deal + rng.normal(0, 10, n)
        low, high = paired_bootstrap_interval(a - b, resamples=999, seed=index)
        covered += low <= true_difference <= high
    simulations = SIMULATIONS // 2
    assert abs(covered / simulations - 0.95) <= 3 * np.sqrt(0.95 * 0.05 / simulations)


def test_newcombe_paired_interval_without_correlation_is_newcombes_unpaired_interval():
    # ad = bc, so phi = 0 and method 10 reduces to the square-and-add interval of two
    # independent samples of the same size (statsmodels' "newcomb").
    low, high = newcombe_paired_interval(both=2, only_a=4, only_b=1, neither=2)
    expected = confint_proportions_2indep(6, 9, 3, 9, method="newcomb")
    assert (low, high) == pytest.approx(tuple(float(v) for v in expected), abs=1e-12)


def test_exact_mcnemar_is_the_binomial_test_of_the_discordant_pairs():
    for only_a, only_b in ((9, 2), (0, 5), (7, 7), (30, 12)):
        expected = stats.binomtest(only_a, only_a + only_b, 0.5).pvalue
        assert mcnemar_exact_p(only_a, only_b) == pytest.approx(expected)
    assert mcnemar_exact_p(0, 0) == 1.0


def test_pairing_narrows_the_interval_when_the_deal_decides_most_of_the_outcome():
    rng = np.random.default_rng(3)
    a_wins, b_wins = correlated_wins(rng, 200, 0.45, 0.3, 0.8)
    deal = rng.normal(50, 20, 200)
    games_a = [
        game("A", s, bool(w), float(d + 5))
        for s, (w, d) in enumerate(zip(a_wins, deal, strict=True))
    ]
    games_b = [
        game("B", s, bool(w), float(d + rng.normal(0, 3)))
        for s, (w, d) in enumerate(zip(b_wins, deal, strict=True))
    ]
    found = compare_paired("A", games_a, "B", games_b)
    assert found.wins is not None and found.wins.narrowing is not None
    assert found.wins.narrowing > 0.2
    score = next(m for m in found.means if m.metric == "score")
    assert score.narrowing is not None and score.narrowing > 0.5
    assert score.low <= 5 <= score.high


def test_independent_outcomes_gain_nothing_from_pairing():
    rng = np.random.default_rng(5)
    games_a = [game("A", s, bool(rng.random() < 0.4)) for s in range(300)]
    games_b = [game("B", s, bool(rng.random() < 0.4)) for s in range(300)]
    found = compare_paired("A", games_a, "B", games_b)
    assert found.wins is not None and abs(found.wins.narrowing or 0) < 0.1


def test_games_without_a_partner_are_listed_and_a_repeated_seed_refused():
    games_a = [game("A", s, s % 2 == 0) for s in (1, 2, 3, 4)]
    games_b = [game("B", s, s % 3 == 0) for s in (3, 4, 5)]
    pairs, only_a, only_b = pair_games("A", games_a, "B", games_b)
    assert [(a.seed, b.seed) for a, b in pairs] == [(3, 3), (4, 4)]
    assert [g.seed for g in only_a] == [1, 2] and [g.seed for g in only_b] == [5]
    found = compare_paired("A", games_a, "B", games_b)
    assert found.pairs == 2
    assert [g.seed for g in found.unpaired_a] == [1, 2]
    assert [g.run_id for g in found.unpaired_b] == ["B-5"]
    with pytest.raises(ConfigError, match="holds seed 3 2 times"):
        pair_games("A", [*games_a, game("A", 3, True)], "B", games_b)


def test_holm_adjusts_every_test_of_the_call_together():
    rng = np.random.default_rng(11)
    games = {
        cell: [
            game(cell, s, bool(rng.random() < rate), float(rng.normal(mu, 10))) for s in range(40)
        ]
        for cell, rate, mu in (("A", 0.6, 60), ("B", 0.3, 50), ("C", 0.3, 50))
    }
    comparisons = [
        compare_paired("A", games["A"], "B", games["B"]),
        compare_paired("B", games["B"], "C", games["C"]),
    ]
    assert adjust_holm(comparisons) == 4
    raw = [p for c in comparisons for p in (c.wins.p_value, c.means[0].p_value)]
    adjusted = [p for c in comparisons for p in (c.wins.p_holm, c.means[0].p_holm)]
    order = np.argsort(raw)
    running = 0.0
    for rank, index in enumerate(order):  # Holm by hand: step down, monotone, capped at 1
        running = max(running, min(1.0, (len(raw) - rank) * raw[index]))
        assert adjusted[index] == pytest.approx(running)


REPLY = '{"reasoning": "", "action": {"id": "report", "args": {"occupied": 0, "shipped": 0}}}'


def test_analyze_compare_on_cells_with_different_seed_sets_lists_the_unpaired_games(tmp_path):
    (tmp_path / "replies.jsonl").write_text(REPLY + "\n")
    path = tmp_path / "exp.toml"
    path.write_text(
        textwrap.dedent(
            f"""
            [experiment]
            name = "unpaired"
            archive = "{tmp_path / "a.sqlite"}"

            [defaults]
            env = "warehouse"
            model = "scripted:replies.jsonl"
            env_options = {{ horizon = 4 }}

            [[cells]]
            tag = "state"
            contract = "state"
            seeds = [1, 2, 3, 4]

            [[cells]]
            tag = "transcript"
            contract = "transcript"
            seeds = [3, 4, 5]
            """
        )
    )
    bounded = [sys.executable, "-m", "bounded.cli"]
    swept = subprocess.run([*bounded, "sweep", str(path)], capture_output=True, text=True)
    assert swept.returncode == 0, swept.stderr
    archive = tmp_path / "a.sqlite"
    shown = subprocess.run(
        [*bounded, "analyze", str(archive), "--compare", "state,transcript"],
        capture_output=True, text=True, env={"COLUMNS": "200", **dict(__import__("os").environ)},
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    state_line = next(line for line in lines if line.startswith("unpaired: 2 games of state"))
    assert "seed 1 (" in state_line and "seed 2 (" in state_line
    assert any(
        line.startswith("unpaired: 1 games of transcript") and "seed 5 (" in line for line in lines
    )
    with Archive(archive, read_only=True) as store:
        assert len(store.runs()) == 7
    bad = subprocess.run(
        [*bounded, "analyze", str(archive), "--compare", "state"], capture_output=True, text=True
    )
    assert bad.returncode == 2
    assert bad.stderr.strip().count("\n") == 0 and "--compare takes two cell labels" in bad.stderr
