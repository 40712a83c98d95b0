"""The paper table on a multi-task design (two BabyAI levels x three treatments x 12 seeds):
rows are the blocks, BALROG's averages, paired differences on (block, seed) against a
baseline, each statistic checked against statsmodels or scipy on the same pairs."""

import math

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests

from bounded.analysis.fallbacks import DecisionTally
from bounded.analysis.paper import paper_table
from bounded.analysis.paper_render import render
from bounded.core import ConfigError, RunRecord

LEVELS = ("goto", "pickup")
SEEDS = range(12)


def progress(treatment: str, level: str, seed: int) -> float:
    """Fixed, uneven values: the pickup level is harder, `state` gains more on goto."""
    base = {"goto": 0.5, "pickup": 0.1}[level]
    gain = {"naive": 0.0, "state": 0.3 if level == "goto" else 0.05, "typed": 0.1}[treatment]
    wobble = ((seed * 7 + sum(map(ord, treatment)) + len(level)) % 5) / 20
    return min(1.0, base + gain + wobble - 0.1)


def run(treatment: str, level: str, seed: int, env: str = "babyai") -> RunRecord:
    value = progress(treatment, level, seed)
    return RunRecord(
        run_id=f"{treatment}-{env}-{level}-{seed}", env_id=f"bounded/{env.capitalize()}-v0",
        contract=treatment, model="m", seed=seed, tag=treatment, experiment="multi",
        cell=f"{treatment}[level={level}]", status="completed",
        spec={"env": env, "env_options": {"level": level}, "max_decisions": 100},
        outcome={"progress": value, "victory": value >= 0.6},
    )  # fmt: skip


RUNS = [run(t, level, s) for t in ("naive", "state", "typed") for level in LEVELS for s in SEEDS]


def values(treatment: str, level: str) -> np.ndarray:
    return np.array([100 * progress(treatment, level, s) for s in SEEDS])


def test_rows_are_blocks_with_the_environments_average():
    table = paper_table(RUNS, baseline="naive")
    assert table.rows == ["babyai level=goto", "babyai level=pickup"]
    assert table.cols == ["naive", "state", "typed"]
    assert table.entry("babyai level=goto", "state").mean == pytest.approx(
        values("state", "goto").mean()
    )
    # BALROG: the environment's mean over its games, population deviation / sqrt(n)
    both = np.concatenate([values("state", level) for level in LEVELS])
    average = table.average("babyai", "state")
    assert average.mean == pytest.approx(both.mean())
    assert average.standard_error == pytest.approx(both.std(ddof=0) / math.sqrt(both.size))
    assert table.average("average", "state") is None  # one environment: no overall average


def test_paired_differences_against_the_baseline_match_scipy_and_statsmodels():
    table = paper_table(RUNS, baseline="naive")
    found = {(d.row, d.a): d for d in table.differences}
    assert {a for _, a in found} == {"state", "typed"}  # every column but the baseline
    goto = found[("babyai level=goto", "state")]
    diffs = values("state", "goto") - values("naive", "goto")
    paired = stats.ttest_rel(values("state", "goto"), values("naive", "goto"))
    interval = paired.confidence_interval()
    assert goto.mean == pytest.approx(diffs.mean())
    assert goto.p_value == pytest.approx(paired.pvalue)
    assert (goto.low, goto.high) == pytest.approx((interval.low, interval.high))
    # pooled over the environment's blocks: OLS of the differences on the blocks
    pooled = found[("babyai", "state")]
    by_block = [values("state", lv) - values("naive", lv) for lv in LEVELS]
    y = np.concatenate(by_block)
    x = np.kron(np.eye(2), np.ones((12, 1)))
    fit = sm.OLS(y, x).fit()
    weighted = fit.t_test(np.array([[0.5, 0.5]]))
    assert (pooled.pairs, pooled.blocks) == (24, 2)
    assert pooled.mean == pytest.approx(y.mean())
    assert pooled.p_value == pytest.approx(float(weighted.pvalue))
    assert (pooled.low, pooled.high) == pytest.approx(tuple(weighted.conf_int()[0]))
    # Holm over every difference of the table
    tested = [d for d in table.differences if d.p_value is not None]
    holm = multipletests([d.p_value for d in tested], method="holm")[1]
    assert [d.p_holm for d in tested] == pytest.approx(list(holm))
    assert table.holm_tests == len(tested) == 6


def test_win_differences_take_mcnemar_pooled_over_the_blocks():
    table = paper_table(RUNS, metric="wins", baseline="naive")
    pooled = next(d for d in table.differences if (d.row, d.a) == ("babyai", "state"))
    won = {(t, lv, s): progress(t, lv, s) >= 0.6 for t in ("state", "naive") for lv in LEVELS
           for s in SEEDS}  # fmt: skip
    pairs = [(won[("state", lv, s)], won[("naive", lv, s)]) for lv in LEVELS for s in SEEDS]
    b = sum(a and not n for a, n in pairs)
    c = sum(n and not a for a, n in pairs)
    both = sum(a and n for a, n in pairs)
    expected = mcnemar([[both, b], [c, len(pairs) - both - b - c]], exact=False, correction=True)
    assert pooled.p_value == pytest.approx(expected.pvalue)
    assert pooled.mean == pytest.approx(100 * (b - c) / len(pairs))
    assert pooled.low <= pooled.mean <= pooled.high


def test_rows_by_a_block_option_and_refusals():
    table = paper_table(RUNS, rows="level")
    assert table.rows == ["babyai level=goto", "babyai level=pickup"]
    with pytest.raises(ConfigError, match=r"or a block option \(level\)"):
        paper_table(RUNS, rows="style")
    with pytest.raises(ConfigError, match="no column 'nave' \\(did you mean 'naive'\\?\\)"):
        paper_table(RUNS, baseline="nave")


def test_the_three_formats_and_the_rates_of_what_the_agents_did():
    tallies = {
        r.run_id: DecisionTally(
            decisions=10,
            fallbacks=10 if r.tag == "naive" else 0,
            parse_errors=5 if r.tag == "naive" else 0,
            invalid_actions=2,
        )
        for r in RUNS
    }
    table = paper_table(RUNS, baseline="naive", tallies=tallies)
    naive = table.entry("babyai level=goto", "naive")
    assert (naive.fallback_rate, naive.parse_error_rate, naive.invalid_action_rate) == (
        1.0, 0.5, 0.2,
    )  # fmt: skip
    assert naive.fallback_wins == sum(progress("naive", "goto", s) >= 0.6 for s in SEEDS)
    markdown = render(table, "markdown")
    assert "| block | naive | state | typed |" in markdown
    assert "| babyai (average) |" in markdown and "against the baseline naive" in markdown
    assert "| babyai level=goto | 100% / 50% / 0.20" in markdown
    latex = render(table, "latex")
    assert r"babyai level=goto & " in latex and r"\begin{tabular}{lrr}" in latex
    lines = render(table, "csv").splitlines()
    assert lines[0].startswith("kind,metric,block,treatment,games,mean,low,high")
    assert sum(line.startswith("paired difference,") for line in lines) == 6


def test_a_setting_mixed_within_a_treatment_is_named():
    mixed = [r.model_copy(update={"spec": {**r.spec, "max_decisions": 50}}) for r in RUNS[:3]]
    table = paper_table([*mixed, *RUNS[3:]])
    assert any("naive mixes" in line for line in table.mixed)
    assert "note: naive mixes max_decisions: 50 / 100" in render(table, "markdown")


def test_rows_that_fix_the_column_say_why_the_table_is_a_diagonal():
    # a cell holds one tag: `--rows cell --cols tag` compares nothing within a row
    diagonal = render(paper_table(RUNS, rows="cell", cols="tag"), "markdown")
    assert "| naive[level=goto] | " in diagonal and "| -- | -- |" in diagonal
    assert "note: each cell holds one tag, so the table is a diagonal; " in diagonal
    assert "--rows block (or a block option such as level)" in diagonal
    assert "diagonal" not in render(paper_table(RUNS, rows="level"), "markdown")
