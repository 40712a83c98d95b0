"""Reproduces the AgenticSTS paper's tables from the release's real run archive, with the
generic `bounded analyze` options (the presets are shorthand for them)."""

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from bounded.analysis.published import AGENTICSTS_A0, AGENTICSTS_BACKBONES
from bounded.analysis.stats import clopper_pearson_interval, fisher_exact_p
from bounded.archive import Archive
from bounded.cli.analyze import analyze
from bounded.cli.importing import import_runs
from bounded.importers import import_agenticsts

HISTORY = Path(__file__).resolve().parents[2].parent / "shared/reference/agenticsts/history.jsonl"
GEMINI = "gemini-pilot-2026-05"
PAPER_CELLS = [
    f"baseline-strict={GEMINI}-08-A0-baseline",
    f"prompt-only={GEMINI}-09-A0-prompt-only",
    f"mode-a={GEMINI}-09-A0-mode-a-makeup",
    f"mode-b-frozen={GEMINI}-12-A0-mode-b-frozen",
    f"full-frozen={GEMINI}-08-A0-full-frozen",
]
SCAFFOLDED = "mode-a,mode-b-frozen,full-frozen"
# Published (AgenticSTS, Sections 6.4 and 6.6): score-difference 95% intervals.
PUBLISHED_MODE_B = (-18.6, 24.8)
PUBLISHED_FULL_FROZEN = (-21.7, 14.9)


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    if not HISTORY.is_file():
        pytest.fail(f"the AgenticSTS reference data is missing: {HISTORY}")
    path = tmp_path_factory.mktemp("agenticsts") / "a.sqlite"
    with Archive(path) as store:
        import_agenticsts(HISTORY, store)
    return path


def analyze_json(archive, *args):
    app = typer.Typer()
    app.command()(analyze)
    result = CliRunner().invoke(app, [str(archive), *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


@pytest.fixture(scope="module")
def generic(archive):
    """The paper's protocol from generic options: its cells, the first 10 completed games
    per cell, the pooled row over the scaffolded cells, the two score differences."""
    cells = [f"--cell={cell}" for cell in PAPER_CELLS]
    return analyze_json(
        archive, *cells, "--first", "10", "--pool", SCAFFOLDED,
        "--diff", "mode-b-frozen,mode-a", "--diff", "full-frozen,mode-a",
    )  # fmt: skip


def within(interval, published, points=2.0):
    return all(abs(a - b) <= points for a, b in zip(interval, published, strict=True))


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
    assert table.pooled_cells == ["mode-a", "mode-b-frozen", "full-frozen"]
    assert baseline.score_low < baseline.mean_score < baseline.score_high


def test_the_pooled_row_is_over_the_scaffolded_cells(generic):
    pooled = generic["pooled"]
    # The paper: 6/10 in each scaffolded cell, so the descriptive pooled row is 18/30.
    assert (pooled["wins"], pooled["games"], pooled["win_rate"]) == (18, 30, 0.6)
    assert pooled["interval"] == "clopper-pearson"
    assert (pooled["win_low"], pooled["win_high"]) == pytest.approx(
        clopper_pearson_interval(18, 30)
    )
    assert (round(100 * pooled["win_low"], 1), round(100 * pooled["win_high"], 1)) == (40.6, 77.3)
    scaffolded = {r["label"]: r for r in generic["rows"] if r["label"] in SCAFFOLDED.split(",")}
    assert sorted(pooled["run_ids"]) == sorted(i for r in scaffolded.values() for i in r["run_ids"])


def test_pooled_scaffolded_vs_not_gives_the_published_fisher_p(archive, generic):
    # The release's README: "pooled scaffolded-vs-not p = 0.148".
    cells = [f"--cell={cell}" for cell in PAPER_CELLS]
    rest = analyze_json(archive, *cells, "--first", "10", "--pool", "baseline-strict,prompt-only")
    a, b = generic["pooled"], rest["pooled"]
    assert (b["wins"], b["games"]) == (7, 20)
    assert round(fisher_exact_p(a["wins"], a["games"], b["wins"], b["games"]), 3) == 0.148


def test_mode_b_frozen_difference_reproduces_the_published_interval(generic):
    mode_b = generic["diffs"][0]
    assert (mode_b["a"], mode_b["b"]) == ("mode-b-frozen", "mode-a")
    assert mode_b["difference"] == pytest.approx(83.2667 - 85.5, abs=1e-3)
    assert mode_b["low"] < mode_b["difference"] < mode_b["high"]
    # The paper prints this interval as mode-a minus mode-b-frozen: the mirror image.
    assert within((-mode_b["high"], -mode_b["low"]), PUBLISHED_MODE_B)
    assert not within((mode_b["low"], mode_b["high"]), PUBLISHED_MODE_B)


def test_the_papers_orientation_is_a_diff_option_too(archive):
    cells = [f"--cell={cell}" for cell in PAPER_CELLS]
    [paper] = analyze_json(archive, *cells, "--first", "10", "--diff", "mode-a,mode-b-frozen")[
        "diffs"
    ]
    assert within((paper["low"], paper["high"]), PUBLISHED_MODE_B)


def test_full_frozen_difference_has_the_published_centre(generic):
    full = generic["diffs"][1]
    assert (full["a"], full["b"]) == ("full-frozen", "mode-a")
    assert full["difference"] == pytest.approx(82.0667 - 85.5, abs=1e-3)
    # Same cells and means as the paper: its interval is centred on this difference ...
    assert full["difference"] == pytest.approx(sum(PUBLISHED_FULL_FROZEN) / 2, abs=0.1)
    # ... but a percentile bootstrap of these 20 games is wider (measured: [-25.5, +17.5]).
    assert (full["low"], full["high"]) == pytest.approx((-25.5, 17.5), abs=1.5)
    published_width = PUBLISHED_FULL_FROZEN[1] - PUBLISHED_FULL_FROZEN[0]
    assert full["high"] - full["low"] > published_width + 4


@pytest.mark.xfail(
    strict=True,
    reason="the published [-21.7, +14.9] is narrower than any percentile bootstrap of the "
    "first ten full-frozen and mode-a games (see docs/analysis.md)",
)
def test_full_frozen_difference_within_two_points_of_the_published_interval(generic):
    full = generic["diffs"][1]
    assert within((full["low"], full["high"]), PUBLISHED_FULL_FROZEN)


def test_the_preset_is_shorthand_for_the_generic_options(archive):
    by_preset = analyze_json(archive, "--table", "agenticsts-a0")
    by_options = analyze_json(archive, *AGENTICSTS_A0.arguments())
    for key in ("rows", "pooled", "pooled_cells", "fisher", "diffs"):
        assert by_preset[key] == by_options[key], key


def test_first_ten_by_start_time_drops_later_games(archive):
    with Archive(archive) as store:
        runs = store.runs(tag=f"{GEMINI}-12-A0-mode-b-frozen", status="completed")
        table = AGENTICSTS_A0.compute(store.runs())
    assert len(runs) == 11
    counted = table.row("mode-b-frozen").run_ids
    assert counted == [r.run_id for r in sorted(runs, key=lambda r: r.started_at)[:10]]


def test_cross_backbone_change_table(archive):
    with Archive(archive) as store:
        table = AGENTICSTS_BACKBONES.compute(store.runs())
    assert [(r.cell, r.group["model"], r.wins, r.games) for r in table.rows] == [
        ("baseline-strict", "deepseek-v4-pro", 0, 5),
        ("baseline-strict", "gemini-3.1-pro-preview", 3, 10),
        ("baseline-strict", "qwen3.6-27b", 0, 5),
        ("full-frozen", "deepseek-v4-pro", 0, 5),
        ("full-frozen", "gemini-3.1-pro-preview", 6, 10),
        ("full-frozen", "qwen3.6-27b", 0, 5),
    ]
    changes = {c.label: round(c.change_pct, 1) for c in table.changes}
    # Published (Table 3): +84.5% Qwen, -18.1% DeepSeek, +16.6% Gemini.
    assert changes == {
        "qwen3.6-27b": 84.5,
        "deepseek-v4-pro": -18.1,
        "gemini-3.1-pro-preview": 16.6,
    }


def test_change_from_generic_options(archive):
    tags = {
        cond: ",".join(
            f"{prefix}-A0-{cond}"
            for prefix in (f"{GEMINI}-08", "qwen-pilot-2026-05-07", "deepseek-pilot-2026-05-07")
        )
        for cond in ("baseline", "full-frozen")
    }
    result = analyze_json(
        archive, f"--cell=before={tags['baseline']}", f"--cell=after={tags['full-frozen']}",
        "--by", "model", "--first", "10", "--change", "before,after",
    )  # fmt: skip
    changes = {c["group"]["model"]: c for c in result["changes"]}
    assert round(changes["qwen3.6-27b"]["change_pct"], 1) == 84.5
    assert round(changes["deepseek-v4-pro"]["change_pct"], 1) == -18.1
    assert (changes["gemini-3.1-pro-preview"]["games_a"], changes["qwen3.6-27b"]["games_a"]) == (
        10,
        5,
    )


def test_minutes_per_floor_of_the_full_frozen_cell(generic):
    full = next(r for r in generic["rows"] if r["label"] == "full-frozen")
    # Published (Section 7): 2.3 minutes per floor reached for the full-frozen cell.
    assert round(full["minutes_per_floor"], 1) == 2.3
    assert full["fresh_tokens_per_point"] is None  # the release records no token counts


def test_the_cli_imports_and_recomputes_the_table(tmp_path):
    app = typer.Typer()
    app.command("import")(import_runs)
    app.command("analyze")(analyze)
    runner = CliRunner()
    target = tmp_path / "cli.sqlite"
    result = runner.invoke(app, ["import", "agenticsts", str(HISTORY), str(target)])
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
