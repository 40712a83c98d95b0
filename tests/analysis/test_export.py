import json

import pandas as pd
import pyarrow.parquet as pq
import pytest

from bounded.analysis.export import export_archive, load_frames
from bounded.archive import Archive
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


def _json_text(value):
    return json.dumps(value, sort_keys=True, default=str)


def whole_table_rows(path):
    """The runs and decisions as the export wrote them before it streamed: every run and
    every decision of `Archive.runs` and `Archive.decisions` as records, their nested
    values (dicts, lists) as JSON text."""
    with Archive(path, read_only=True) as archive:
        runs = archive.runs()
        decisions = [d for run in runs for d in archive.decisions(run.run_id)]
    run_rows = [
        {k: _json_text(v) if isinstance(v, dict | list) else v for k, v in r.model_dump().items()}
        for r in runs
    ]
    decision_rows = [
        {
            "run_id": d.run_id,
            "index": d.index,
            "t": d.t,
            "kind": d.kind,
            "prompt_tokens": d.prompt_tokens,
            "tokens_by_layer": _json_text(d.tokens_by_layer),
            "completion_text": d.completion.text if d.completion else None,
            "completion_tokens": d.completion.completion_tokens if d.completion else 0,
            "actions": _json_text([a.model_dump(by_alias=True) for a in d.actions]),
            "reasoning": d.reasoning,
            "parse_error": d.parse_error,
            "fallback": d.fallback,
            "reward": d.reward,
            "latency_s": d.latency_s,
            "segments": _json_text([s.model_dump() for s in d.segments]),
        }
        for d in decisions
    ]
    return run_rows, decision_rows


def pages(prompt_lengths, rows, segments):
    """How many pages hold these prompts: a page ends at `rows` rows or once it holds
    `segments` segments."""
    count, held, in_page = 0, 0, 0
    for length in prompt_lengths:
        in_page, held = in_page + 1, held + length
        if in_page >= rows or held >= segments:
            count, held, in_page = count + 1, 0, 0
    return count + (in_page > 0)


@pytest.mark.parametrize(("rows", "segments"), [(7, 10**6), (500, 40)])
def test_parquet_written_in_row_groups_holds_what_the_whole_tables_held(
    warehouse_archive, tmp_path, monkeypatch, rows, segments
):
    monkeypatch.setattr("bounded.analysis.export.ROWS_PER_WRITE", rows)
    monkeypatch.setattr("bounded.analysis.export.SEGMENTS_PER_WRITE", segments)
    runs_path, decisions_path = export_archive(warehouse_archive, tmp_path, "parquet")
    expected_runs, expected_decisions = whole_table_rows(warehouse_archive)
    assert pq.read_table(runs_path).to_pylist() == expected_runs
    assert pq.read_table(decisions_path).to_pylist() == expected_decisions
    lengths = [len(json.loads(row["segments"])) for row in expected_decisions]
    groups = pq.ParquetFile(decisions_path).metadata.num_row_groups
    assert groups == pages(lengths, rows, segments) > 1
    first = pq.ParquetFile(decisions_path).metadata.row_group(0)
    with_statistics = {
        first.column(i).path_in_schema
        for i in range(first.num_columns)
        if first.column(i).is_stats_set and first.column(i).statistics.has_min_max
    }
    assert {"run_id", "index", "reward"} <= with_statistics
    assert not with_statistics & {"segments", "actions", "completion_text", "tokens_by_layer"}


def test_jsonl_holds_every_decision_with_its_prompt(warehouse_archive, tmp_path):
    decisions_path = export_archive(warehouse_archive, tmp_path, "jsonl")[1]
    lines = [json.loads(line) for line in decisions_path.read_text().splitlines()]
    expected = whole_table_rows(warehouse_archive)[1]
    assert [_json_text(line["segments"]) for line in lines] == [r["segments"] for r in expected]
    assert [(line["run_id"], line["index"]) for line in lines] == [
        (r["run_id"], r["index"]) for r in expected
    ]


def test_export_reads_no_list_of_every_run(warehouse_archive, tmp_path, monkeypatch):
    def every_run_at_once(*args, **kwargs):
        raise AssertionError("the export read every run into a list")

    monkeypatch.setattr(Archive, "runs", every_run_at_once)
    monkeypatch.setattr(Archive, "decisions", every_run_at_once)
    for fmt in ("jsonl", "parquet"):
        decisions_path = export_archive(warehouse_archive, tmp_path / fmt, fmt)[1]
        assert decisions_path.stat().st_size > 0
