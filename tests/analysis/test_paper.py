"""A paper's table from run records: entries with their intervals, paired differences by
seed, the three formats, and the mistakes refused."""

import csv
import io

import pytest

from bounded.analysis.paper import paper_table
from bounded.analysis.paper_render import latex_escape, render
from bounded.core import ConfigError, RunRecord


def run(tag, env, seed, progress, victory=False, status="completed"):
    return RunRecord(
        run_id=f"{tag}-{env}-{seed}", env_id=env, contract=tag, model="m", seed=seed, tag=tag,
        status=status, outcome={"progress": progress, "victory": victory},
    )  # fmt: skip


CRAFTER, NETHACK = "bounded/Crafter-v0", "bounded/NetHack-v0"
RUNS = [
    *(run("typed", CRAFTER, s, p) for s, p in ((1, 0.2), (2, 0.4), (3, 0.3))),
    *(run("state", CRAFTER, s, p) for s, p in ((1, 0.1), (2, 0.1), (3, 0.4))),
    *(run("typed", NETHACK, s, 0.05) for s in (1, 2)),
    run("state", NETHACK, 1, 0.0),
    run("state", NETHACK, 9, 0.9, status="failed"),  # never counted
]


def test_entries_are_means_with_intervals_by_environment_and_tag():
    table = paper_table(RUNS, rows="env", cols="tag", metric="progression")
    assert table.rows == ["crafter", "nle"] and table.cols == ["state", "typed"]
    typed = table.entry("crafter", "typed")
    assert typed is not None and typed.games == 3 and typed.mean == pytest.approx(30.0)
    assert typed.low <= typed.mean <= typed.high and typed.low >= 20.0
    assert table.entry("nle", "state").games == 1  # the failed game is not counted


def test_win_rates_take_wilsons_interval():
    runs = [run("a", CRAFTER, s, 0.0, victory=s < 3) for s in range(1, 5)]
    [entry] = paper_table(runs, cols="tag", metric="wins").entries
    assert entry.mean == 50.0 and 0 < entry.low < 50 < entry.high < 100


def test_paired_differences_pair_games_by_seed_and_count_the_unpaired():
    table = paper_table(RUNS, metric="progression", paired=[("typed", "state")])
    crafter, nle, average = table.differences
    assert (crafter.row, crafter.pairs, crafter.unpaired) == ("crafter", 3, 0)
    assert crafter.mean == pytest.approx((10 + 30 - 10) / 3)
    assert (nle.pairs, nle.unpaired) == (1, 1)  # typed seed 2 has no state game
    assert (average.row, average.pairs, average.blocks) == ("average", 4, 2)
    with pytest.raises(ConfigError, match="no column 'nope'"):
        paper_table(RUNS, paired=[("typed", "nope")])
    with pytest.raises(ConfigError, match="one game per block and seed"):
        paper_table([*RUNS, run("typed", CRAFTER, 1, 0.5)], paired=[("typed", "state")])


def test_latex_markdown_and_csv_say_the_same_numbers():
    table = paper_table(RUNS, paired=[("typed", "state")])
    latex = render(table, "latex")
    assert r"\begin{tabular}{lrr}" in latex and r"\begin{tabular}{lr}" in latex  # + differences
    assert r"\toprule" in latex
    assert "nle & +5.0 (no interval: one pair per block) (1 pair, 1 unpaired)" in latex
    assert r"crafter & 20.0 [" in latex and r"progression (\%)" in latex
    markdown = render(table, "markdown")
    assert "| block | state | typed |" in markdown and "| crafter | 20.0 [" in markdown
    rows = list(csv.DictReader(io.StringIO(render(table, "csv"))))
    entry = next(r for r in rows if r["kind"] == "entry" and r["treatment"] == "typed")
    assert entry["block"] == "crafter" and float(entry["mean"]) == pytest.approx(30.0)
    assert sum(r["kind"] == "paired difference" for r in rows) == 3


def test_mistakes_are_refused_in_one_line():
    for asked, message in (
        ({"metric": "speed"}, "--metric must be one of progression, wins, score, tokens"),
        ({"rows": "colour"}, "--rows must be one of"),
        ({"metric": "win"}, r"got 'win' \(did you mean 'wins'\?\)"),
    ):
        with pytest.raises(ConfigError, match=message):
            paper_table(RUNS, **asked)
    with pytest.raises(ConfigError, match="--format must be one of latex, markdown, csv"):
        render(paper_table(RUNS), "html")
    with pytest.raises(ConfigError, match="no completed games"):
        render(paper_table([]), "latex")


def test_latex_specials_are_escaped():
    assert latex_escape("balrog_naive & 50%") == r"balrog\_naive \& 50\%"
