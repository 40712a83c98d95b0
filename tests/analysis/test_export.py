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
