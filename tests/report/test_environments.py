"""The report's plots per environment: never two environments on one axis, BALROG's
progression (mean, standard error) where games record progress, a win rate only where
the environment's games are won in practice, and no crash where runs stored no prompts."""

from __future__ import annotations

import re

import pytest

from bounded.analysis.games import completed_games
from bounded.analysis.options import TableOptions
from bounded.archive import Archive
from bounded.report import ReportOptions, build_report
from bounded.report.environments import env_plots


def sets_of(path):
    with Archive(path, read_only=True) as archive:
        runs = archive.runs()
    return env_plots(TableOptions().compute(runs, title="Cells"), completed_games(runs))


def test_each_environment_gets_its_own_plots(two_env_archive):
    crafter, warehouse = sets_of(two_env_archive)
    assert (crafter.env, warehouse.env) == ("crafter", "warehouse")
    assert crafter.rows == ["balrog-robust-naive.crafter[max_steps=200]",
                            "typed.crafter[max_steps=200]"]  # fmt: skip
    assert warehouse.rows == ["typed.warehouse[horizon=30]"]
    assert set(crafter.figures) == {"progression", "scores", "tokens"}  # no win rate
    assert not crafter.wins
    assert set(warehouse.figures) == {"progression", "winrate", "scores", "tokens"}


def test_progression_is_balrogs_mean_and_standard_error(two_env_archive):
    crafter, _ = sets_of(two_env_archive)
    svg = crafter.figures["progression"]
    # progress 10% and 20%: mean 15, population deviation 5 over sqrt(2)
    assert "15.0 ± 3.5" in svg and "progression (%), mean ± standard error" in svg


def test_a_report_of_runs_without_stored_prompts(two_env_archive, tmp_path):
    page = build_report(two_env_archive, tmp_path / "r.html", ReportOptions()).read_text()
    ids = re.findall(r'<figure class="plot" id="([^"]+)"', page)
    assert ids == [
        "plot-progression-crafter", "plot-scores-crafter", "plot-tokens-crafter",
        "plot-progression-warehouse", "plot-winrate-warehouse", "plot-scores-warehouse",
        "plot-tokens-warehouse", "plot-context",
    ]  # fmt: skip
    assert 'id="no-layers"' in page
    assert "No win rate: crafter's games are not won in practice" in page


def test_a_pooled_row_over_two_environments_is_drawn_apart(two_env_archive):
    with Archive(two_env_archive, read_only=True) as archive:
        runs = archive.runs()
    table = TableOptions(pool_all=True).compute(runs, title="Cells")
    sets = env_plots(table, completed_games(runs))
    assert [s.env for s in sets] == ["crafter", "warehouse", "crafter, warehouse"]
    assert sets[-1].rows == [table.pooled.label] if table.pooled else pytest.fail("no pool")
