import json

import pytest

from bounded.analysis.games import completed_games
from bounded.archive import Archive
from bounded.core import ConfigError
from bounded.importers import import_agenticsts

ROW = {
    "run_id": "r1", "started_at": 100.0, "outcome": "defeat", "victory": False,
    "final_floor": 20, "experiment_tag": "t", "duration_seconds": 60.5, "llm_calls": 7,
    "steps": 30, "game_version": "v9", "actual_ascension": 0,
    "model_profile": {"strategic_model": "big", "memory_enabled": True, "skills_enabled": False},
}  # fmt: skip


def write(tmp_path, rows):
    path = tmp_path / "history.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


def test_rows_become_runs_and_harness_rows_never_count(tmp_path):
    rows = [
        ROW,
        ROW | {"run_id": "r2", "outcome": "agent_abort"},
        ROW | {"run_id": "r3", "outcome": "victory", "victory": True},
    ]
    with Archive(tmp_path / "a.sqlite") as archive:
        summary = import_agenticsts(write(tmp_path, rows), archive)
        runs = {r.run_id: r for r in archive.runs()}
    assert (summary.imported, summary.completed, summary.tags) == (3, 2, 1)
    first = runs["agenticsts:r1"]
    assert (first.tag, first.model, first.seed, first.env_version) == ("t", "big", 1, "v9")
    assert (first.decisions, first.model_calls, first.wall_s) == (30, 7, 60.5)
    assert first.contract_config == {
        "memory_enabled": True,
        "skills_enabled": False,
        "evolution_enabled": None,
    }
    assert runs["agenticsts:r2"].status == "failed"
    assert "agent_abort" in runs["agenticsts:r2"].error
    games = completed_games(runs.values())
    assert sorted((g.run_id, g.victory, round(g.score, 2)) for g in games) == [
        ("agenticsts:r1", False, round(20 + 52 / 3, 2)),
        ("agenticsts:r3", True, 100.0),
    ]


def test_importing_twice_updates_instead_of_duplicating(tmp_path):
    path = write(tmp_path, [ROW])
    with Archive(tmp_path / "a.sqlite") as archive:
        import_agenticsts(path, archive)
        import_agenticsts(path, archive)
        assert len(archive.runs()) == 1


def test_bad_files_are_config_errors(tmp_path):
    with Archive(tmp_path / "a.sqlite") as archive:
        with pytest.raises(ConfigError, match="no AgenticSTS history"):
            import_agenticsts(tmp_path / "missing.jsonl", archive)
        bad = tmp_path / "bad.jsonl"
        bad.write_text('{"run_id": "x"}\n')
        with pytest.raises(ConfigError, match=r"bad.jsonl:1: missing started_at, outcome"):
            import_agenticsts(bad, archive)
        bad.write_text("{nope\n")
        with pytest.raises(ConfigError, match="not JSON"):
            import_agenticsts(bad, archive)
