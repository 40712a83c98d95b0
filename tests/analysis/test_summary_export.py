import json

import pytest

from bounded.analysis.parity import parity_of_runs
from bounded.analysis.summary_export import (
    SUMMARY_FORMAT,
    archive_summary,
    runs_of_summary,
    write_summary,
)
from bounded.archive import Archive
from bounded.cli import main


def test_a_summary_holds_every_run_with_its_totals_and_layers(warehouse_archive):
    summary = archive_summary(warehouse_archive)
    assert summary["format_version"] == SUMMARY_FORMAT
    assert summary["provenance"]["cpus"] >= 1 and "load_end" in summary["provenance"]
    with Archive(warehouse_archive, read_only=True) as archive:
        runs = {run.run_id: run for run in archive.runs()}
        for row in summary["runs"]:
            run, decisions = runs[row["run_id"]], archive.decisions(row["run_id"])
            assert (row["contract"], row["seed"], row["decisions"]) == (
                run.contract, run.seed, len(decisions),
            )  # fmt: skip
            assert sum(row["tokens_by_layer"].values()) == run.prompt_tokens
            layers = {layer for d in decisions for layer in d.tokens_by_layer}
            assert set(row["tokens_by_layer"]) == layers
            if run.contract == "state":
                assert layers == {"spec", "state", "observation"}
            assert row["fallbacks"] == sum(d.fallback for d in decisions)
            assert row["rewards"] == [d.reward for d in decisions]
            assert row["outcome"] == run.outcome and row["spec"] == run.spec
            assert row["code_revision"] == run.code_revision
    assert sorted(runs) == sorted(row["run_id"] for row in summary["runs"])


def test_a_summary_gives_back_its_runs_and_their_parity_report(warehouse_archive):
    summary = json.loads(json.dumps(archive_summary(warehouse_archive)))  # as committed
    with Archive(warehouse_archive, read_only=True) as archive:
        archived = archive.runs()
    runs = runs_of_summary(summary)
    keys = ("run_id", "contract", "seed", "spec", "model_params", "outcome", "prompt_tokens")
    assert [[getattr(r, key) for key in keys] for r in runs] == [
        [getattr(r, key) for key in keys] for r in archived
    ]
    assert parity_of_each(runs) == parity_of_each(archived)


def parity_of_each(runs):
    """The parity report of runs, each its own cell."""
    return parity_of_runs((run.run_id, {}, [run]) for run in runs)


def test_a_summary_is_small_beside_its_archive(warehouse_archive, tmp_path):
    target = write_summary(warehouse_archive, tmp_path / "summary.json")
    assert json.loads(target.read_text())["runs"]
    assert target.stat().st_size < warehouse_archive.stat().st_size / 4
    assert write_summary(warehouse_archive, tmp_path / "folder").name == "summary.json"


def test_export_format_summary_writes_the_file(warehouse_archive, tmp_path, capsys):
    out = tmp_path / "s.json"
    with pytest.raises(SystemExit) as done:
        main(["export", str(warehouse_archive), "--format", "summary", "-o", str(out)])
        raise SystemExit(0)
    assert done.value.code in (0, None), capsys.readouterr()
    assert len(json.loads(out.read_text())["runs"]) == 4
    with pytest.raises(SystemExit) as refused:
        main(["export", str(tmp_path / "none.sqlite"), "--format", "summary", "-o", str(out)])
    assert refused.value.code != 0
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


@pytest.mark.parametrize("spool_bytes", [8 * 2**20, 10])
def test_a_summary_written_run_by_run_is_the_json_of_the_whole(
    warehouse_archive, tmp_path, monkeypatch, spool_bytes
):
    monkeypatch.setattr("bounded.analysis.summary_export.SPOOL_BYTES", spool_bytes)
    text = write_summary(warehouse_archive, tmp_path / "summary.json").read_text()
    written = json.loads(text)
    assert text == json.dumps(written, indent=2) + "\n"
    whole = archive_summary(warehouse_archive)
    assert written["runs"] == json.loads(json.dumps(whole["runs"]))
    assert list(written) == list(whole)


def test_the_summary_of_an_archive_without_runs_is_the_json_of_the_whole(tmp_path):
    Archive(tmp_path / "empty.sqlite").close()
    text = write_summary(tmp_path / "empty.sqlite", tmp_path / "summary.json").read_text()
    assert json.loads(text)["runs"] == []
    assert text == json.dumps(json.loads(text), indent=2) + "\n"
