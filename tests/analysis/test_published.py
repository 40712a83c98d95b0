"""Reproduces the AgenticSTS paper's tables from the release's real run archive."""

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from bounded.analysis.published import AGENTICSTS_A0, AGENTICSTS_BACKBONES
from bounded.archive import Archive
from bounded.commands.research import analyze, import_runs
from bounded.importers import import_agenticsts

HISTORY = Path(__file__).resolve().parents[2].parent / "shared/reference/agenticsts/history.jsonl"


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    if not HISTORY.is_file():
        pytest.fail(f"the AgenticSTS reference data is missing: {HISTORY}")
    path = tmp_path_factory.mktemp("agenticsts") / "a.sqlite"
    with Archive(path) as store:
        import_agenticsts(HISTORY, store)
    return path


def test_fixed_a0_table_matches_the_paper(archive):
    with Archive(archive) as store:
        table = AGENTICSTS_A0.compute(store.runs())
    baseline = table.row("baseline-strict")
    assert (baseline.wins, baseline.games) == (3, 10)
    assert (round(100 * baseline.win_low, 1), round(100 * baseline.win_high, 1)) == (10.8, 60.3)
    assert round(baseline.mean_score, 1) == 70.4
    for label in ("mode-a", "full-frozen"):
        assert (table.row(label).wins, table.row(label).games) == (6, 10)
    assert round(table.row("full-frozen").mean_score, 1) == 82.1
    assert [row.games for row in table.rows] == [10] * 5
    p_values = {(t.a, t.b): t.p_value for t in table.fisher}
    assert p_values[("baseline-strict", "mode-a")] == pytest.approx(0.37, abs=0.005)
    assert table.pooled is not None and table.pooled.interval == "clopper-pearson"
    assert table.pooled.games == 50
    assert baseline.score_low < baseline.mean_score < baseline.score_high


def test_first_ten_by_start_time_drops_later_games(archive):
    with Archive(archive) as store:
        runs = store.runs(tag="gemini-pilot-2026-05-12-A0-mode-b-frozen", status="completed")
        table = AGENTICSTS_A0.compute(store.runs())
    assert len(runs) == 11
    counted = table.row("mode-b-frozen").run_ids
    assert counted == [r.run_id for r in sorted(runs, key=lambda r: r.started_at)[:10]]


def test_cross_backbone_table(archive):
    with Archive(archive) as store:
        table = AGENTICSTS_BACKBONES.compute(store.runs())
    assert [(r.label, r.wins, r.games) for r in table.rows] == [
        ("gemini baseline", 3, 10),
        ("gemini full-frozen", 6, 10),
        ("qwen baseline", 0, 5),
        ("qwen full-frozen", 0, 5),
        ("deepseek baseline", 0, 5),
        ("deepseek full-frozen", 0, 5),
    ]
    assert all(row.mean_score < 50 for row in table.rows[2:])


def test_the_cli_imports_and_recomputes_the_table(tmp_path):
    app = typer.Typer()
    app.command("import")(import_runs)
    app.command("analyze")(analyze)
    runner = CliRunner()
    target = tmp_path / "cli.sqlite"
    result = runner.invoke(app, ["import", "agenticsts", str(HISTORY), "--archive", str(target)])
    assert result.exit_code == 0, result.output
    assert "385 runs (298 completed" in result.output.replace("\n", " ")
    result = runner.invoke(app, ["analyze", str(target), "--table", "agenticsts-a0", "--json"])
    assert result.exit_code == 0, result.output
    table = json.loads(result.output)
    assert [(r["label"], r["wins"]) for r in table["rows"]][:3] == [
        ("baseline-strict", 3),
        ("prompt-only", 4),
        ("mode-a", 6),
    ]


def test_extra_fisher_pairs_join_the_papers_own(archive):
    with Archive(archive) as store:
        table = AGENTICSTS_A0.compute(store.runs(), fisher=[("prompt-only", "mode-a")])
    assert [(t.a, t.b) for t in table.fisher][-1] == ("prompt-only", "mode-a")
    assert len(table.fisher) == 3
