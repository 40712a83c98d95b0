import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from bounded.archive import Archive, ArchiveError
from bounded.core import FORMAT_VERSION, Action, Completion, DecisionRecord, RunRecord, Segment

FORMAT2 = Path(__file__).parents[1] / "data" / "archive_format2.sqlite"


def copy_of_format2(tmp_path: Path) -> Path:
    """An archive of format 2, written by the code of that format."""
    path = tmp_path / "old.sqlite"
    shutil.copyfile(FORMAT2, path)
    return path


def run_record(**kw):
    fields = {"env_id": "bounded/Warehouse-v0"} | kw
    return RunRecord(run_id="r1", contract="state", model="m", seed=1, **fields)


def decision(index):
    return DecisionRecord(
        run_id="r1",
        index=index,
        t=index,
        kind="stream",
        segments=[Segment(layer="spec", role="system", text="same spec"),
                  Segment(layer="observation", role="user", text=f"event {index}")],
        tokens_by_layer={"spec": 2, "observation": 2},
        prompt_tokens=4,
        completion=Completion(text="{}", prompt_tokens=4, completion_tokens=1, cached_tokens=2),
        actions=[Action(id="report", args={"n": index}, schema={"type": "object"})],
        state_patch={"n": index},
        parse_error=None if index else "bad",
        fallback=not index,
        info={"correct": True},
        extra_completions=[Completion(text="summary", prompt_tokens=9)],
    )  # fmt: skip


def test_round_trip_of_runs_decisions_and_segments(tmp_path):
    with Archive(tmp_path / "a.sqlite") as archive:
        archive.save_run(run_record())
        for i in range(3):
            archive.add_decision(decision(i))
        archive.save_run(run_record(status="completed", outcome={"accuracy": 0.5}, decisions=3))
    with Archive(tmp_path / "a.sqlite") as archive:
        [run] = archive.runs()
        stored = archive.decisions("r1")
        texts = archive.execute("SELECT COUNT(*) FROM texts")[0][0]
    assert run == run_record(status="completed", outcome={"accuracy": 0.5}, decisions=3)
    assert stored == [decision(i) for i in range(3)]
    assert stored[0].format_version == FORMAT_VERSION
    assert texts == 4  # the repeated spec is stored once


def test_updating_a_run_keeps_its_decisions(tmp_path):
    with Archive(tmp_path / "a.sqlite") as archive:
        archive.save_run(run_record())
        archive.add_decision(decision(0))
        archive.save_run(run_record(decisions=1))
        assert len(archive.decisions("r1")) == 1


def test_filters_and_delete(tmp_path):
    with Archive(tmp_path / "a.sqlite") as archive:
        archive.save_run(run_record(tag="a"))
        archive.save_run(run_record(tag="b").model_copy(update={"run_id": "r2"}))
        assert [r.run_id for r in archive.runs(tag="b")] == ["r2"]
        archive.delete_run("r2")
        assert [r.run_id for r in archive.runs()] == ["r1"]


def test_snapshots_are_content_addressed(tmp_path):
    with Archive(tmp_path / "a.sqlite") as archive:
        h1 = archive.put_snapshot("skills", {"b": 1, "a": [1, 2]})
        h2 = archive.put_snapshot("skills", {"a": [1, 2], "b": 1})
        assert h1 == h2
        assert archive.snapshot(h1) == {"a": [1, 2], "b": 1}
        with pytest.raises(ArchiveError):
            archive.snapshot("0" * 64)


def test_a_file_that_is_not_an_archive_is_a_clear_error_and_untouched(tmp_path):
    path = tmp_path / "notes.sqlite"
    path.write_text("these are my notes, not a database\n" * 50)
    before = path.read_bytes()
    with pytest.raises(ArchiveError, match="cannot open archive"):
        Archive(path)
    assert path.read_bytes() == before


@pytest.mark.parametrize("column", ["postrun", "spec", "code_revision"])
def test_an_older_archive_without_a_later_column_gains_it_and_keeps_its_runs(tmp_path, column):
    path = copy_of_format2(tmp_path)
    with sqlite3.connect(path) as db:
        kept = {
            row[0]: json.loads(row[1]) for row in db.execute("SELECT run_id, outcome FROM runs")
        }
        db.execute(f"ALTER TABLE runs DROP COLUMN {column}")
    with Archive(path) as archive:
        runs = archive.runs()
        assert {run.run_id: run.outcome for run in runs} == kept
        default = RunRecord.model_fields[column].get_default(call_default_factory=True)
        assert all(getattr(run, column) == default for run in runs)
        value = {"note": "learned"} if isinstance(default, dict) else "v1.0-3-gabc1234-dirty"
        archive.save_run(runs[0].model_copy(update={column: value}))
        assert getattr(archive.run(runs[0].run_id), column) == value


def test_a_newer_format_is_refused(tmp_path):
    path = tmp_path / "a.sqlite"
    Archive(path).close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value = '999' WHERE key = 'format_version'")
    with pytest.raises(ArchiveError, match="newer"):
        Archive(path)


def test_wal_mode(tmp_path):
    with Archive(tmp_path / "a.sqlite") as archive:
        assert archive.execute("PRAGMA journal_mode")[0][0] == "wal"


def test_short_environment_names_of_older_archives_become_canonical_ids(tmp_path):
    path = copy_of_format2(tmp_path)
    with sqlite3.connect(path) as db:
        first, second = [row[0] for row in db.execute("SELECT run_id FROM runs LIMIT 2")]
        db.execute("UPDATE runs SET env_id = 'craft' WHERE run_id = ?", (first,))
        db.execute("UPDATE runs SET env_id = 'mine/Echo-v0' WHERE run_id = ?", (second,))
    with Archive(path) as archive:
        env_ids = {r.run_id: r.env_id for r in archive.runs()}
    assert (env_ids[first], env_ids[second]) == ("bounded/Craft-v0", "mine/Echo-v0")


@pytest.mark.parametrize(("setting", "level"), [("", 1), ("normal", 1), ("FULL", 2)])
def test_commits_wait_for_the_disk_only_when_bounded_sync_says_full(
    tmp_path, monkeypatch, setting, level
):
    monkeypatch.setenv("BOUNDED_SYNC", setting)
    with Archive(tmp_path / "a.sqlite") as archive:
        assert archive._db.execute("PRAGMA synchronous").fetchone()[0] == level


def test_a_bad_bounded_sync_is_refused_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("BOUNDED_SYNC", "sometimes")
    with pytest.raises(ArchiveError, match="BOUNDED_SYNC must be one of normal, full"):
        Archive(tmp_path / "a.sqlite")


def test_a_run_is_found_by_the_short_id_the_command_line_prints(tmp_path):
    ids = ("eadc6923ae37" + "0" * 20, "eadc6923ae99" + "1" * 20)
    with Archive(tmp_path / "a.sqlite") as archive:
        for run_id in ids:
            archive.save_run(run_record().model_copy(update={"run_id": run_id}))
            archive.add_decision(decision(0).model_copy(update={"run_id": run_id}))
        assert archive.run("eadc6923ae37").run_id == ids[0]
        assert [d.run_id for d in archive.decisions("eadc6923ae37")] == [ids[0]]
        assert archive.decisions("ffffffffffff") == [] and archive.run("ffffffffffff") is None
        assert archive.run("eadc") is None  # too short to be taken for an id
        with pytest.raises(ArchiveError, match=r"several runs .* starting 'eadc6923ae'"):
            archive.decisions("eadc6923ae")
