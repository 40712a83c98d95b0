import json

import pandas as pd
import pytest

from bounded.analysis.export import export_archive, load_frames
from bounded.core import ConfigError


def test_frames_hold_every_run_and_decision(warehouse_archive):
    runs, decisions = load_frames(warehouse_archive)
    assert len(runs) == 4 and set(runs["tag"]) == {"state", "transcript"}
    assert len(decisions) == 80
    assert decisions.groupby("run_id")["index"].max().tolist() == [19] * 4
    assert "segments" not in decisions.columns


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_export_round_trips(warehouse_archive, tmp_path, fmt):
    runs_path, decisions_path = export_archive(warehouse_archive, tmp_path, fmt)
    if fmt == "jsonl":
        runs = pd.read_json(runs_path, lines=True)
        first = json.loads(decisions_path.read_text().splitlines()[0])
        assert [s["layer"] for s in first["segments"]] == ["spec", "state", "observation"]
    else:
        runs = pd.read_parquet(runs_path)
        decisions = pd.read_parquet(decisions_path)
        assert len(decisions) == 80
        assert json.loads(decisions["segments"][0])[0]["text"]
    assert sorted(runs["run_id"]) == sorted(load_frames(warehouse_archive)[0]["run_id"])


def test_unknown_format_is_refused_naming_every_format(warehouse_archive, tmp_path):
    with pytest.raises(ConfigError) as refused:
        export_archive(warehouse_archive, tmp_path, "csv")
    assert str(refused.value) == (
        "unknown export format 'csv' (use jsonl, parquet, balrog, summary)"
    )
    with pytest.raises(ConfigError, match=r"'balrg' \(did you mean 'balrog'\?\)"):
        export_archive(warehouse_archive, tmp_path, "balrg")


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_decisions_written_a_chunk_at_a_time_are_every_decision_in_order(
    warehouse_archive, tmp_path, monkeypatch, fmt
):
    whole = export_archive(warehouse_archive, tmp_path / "whole", fmt)[1]
    monkeypatch.setattr("bounded.analysis.export.ROWS_PER_WRITE", 7)
    monkeypatch.setattr("bounded.archive.sqlite.DECISIONS_PER_READ", 3)
    chunked = export_archive(warehouse_archive, tmp_path / "chunked", fmt)[1]
    read = pd.read_json if fmt == "jsonl" else pd.read_parquet
    options = {"lines": True} if fmt == "jsonl" else {}
    expected, got = read(whole, **options), read(chunked, **options)
    assert len(got) == 80 and got["index"].tolist() == expected["index"].tolist()
    pd.testing.assert_frame_equal(got, expected)
