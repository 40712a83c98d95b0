"""A run row counts what the archive stores: recounts, repairs on open, closed runs."""

import hashlib
import logging
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from bounded.archive import Archive
from bounded.archive.progress import Checkpoint
from bounded.archive.sink import ArchiveSink
from bounded.archive.totals import recounted, stored_decision
from bounded.core import Completion, DecisionRecord, RunRecord

NONE_CACHED = {
    "cached_tokens": 0, "reasoning_tokens": 0, "counted_prompt_tokens": 0,
    "counted_completion_tokens": 0,
}  # fmt: skip


def run_record(run_id: str = "r1", **fields) -> RunRecord:
    return RunRecord(
        run_id=run_id, env_id="bounded/Warehouse-v0", contract="state", model="m", seed=1,
        **fields,
    )  # fmt: skip


def decision(index: int, *, run_id: str = "r1", prompt: int = 10, extra: int = 0):
    own = Completion(text="{}", prompt_tokens=prompt, completion_tokens=3, model="m")
    extras = [Completion(text="s", prompt_tokens=extra, completion_tokens=1, model="s")]
    return DecisionRecord(
        run_id=run_id, index=index, t=index, kind="stream", segments=[],
        tokens_by_layer={}, prompt_tokens=prompt, completion=own, actions=[],
        extra_completions=extras if extra else [],
    )  # fmt: skip


def started(archive: Archive) -> None:
    start = Checkpoint(run_id="r1", owner="", decisions=0, memory=None)
    ArchiveSink(archive).start(run_record(), start)


def sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_recount_sums_each_decisions_own_and_extra_calls_and_the_postrun():
    decisions = [decision(0, prompt=10), decision(1, prompt=20, extra=7)]
    postrun = {"note": "learned", "metered": [{"model": "m", "prompt_tokens": 100}]}
    run = recounted(
        run_record(decisions=9, prompt_tokens=999, postrun=postrun),
        map(stored_decision, decisions),
    )
    assert (run.decisions, run.model_calls, run.last_prompt_tokens) == (2, 4, 20)
    assert run.prompt_tokens == 10 + 20 + 7 + 100
    assert run.completion_tokens == 3 + 3 + 1
    assert run.usage == {
        "m": {"calls": 3, "prompt_tokens": 130, "completion_tokens": 6, **NONE_CACHED},
        "s": {"calls": 1, "prompt_tokens": 7, "completion_tokens": 1, **NONE_CACHED},
    }


def test_a_recount_of_an_older_postrun_record_skips_failed_call_placeholders():
    calls = [Completion(text="note", prompt_tokens=50, model="m"), Completion(text="", model="m")]
    postrun = {"calls": [call.model_dump() for call in calls]}
    run = recounted(run_record(postrun=postrun), [])
    assert (run.model_calls, run.prompt_tokens) == (1, 50)


def broken_archive(path):
    """A row that counts a decision its rolled-back transaction never stored (39 counted,
    38 stored), as bounded before this rule could leave, beside an imported run (a row,
    no decisions, no checkpoint) that must stay as it is."""
    with Archive(path) as archive:
        started(archive)
        for index in range(38):
            archive.add_decision(decision(index))
        archive.save_run(run_record(status="failed", decisions=39, model_calls=39))
        archive.save_run(run_record("imported", status="completed", decisions=120, model_calls=80))
    return path


def test_opening_an_archive_repairs_rows_that_disagree_with_their_decisions_once(tmp_path, caplog):
    path = broken_archive(tmp_path / "a.sqlite")
    caplog.set_level(logging.WARNING, logger="bounded.archive")
    with Archive(path) as archive:
        assert archive.repaired == ["r1"]
        run = archive.run("r1")
        assert (run.decisions, run.model_calls, run.prompt_tokens) == (38, 38, 380)
        assert run.status == "failed"
        assert archive.run("imported").decisions == 120
    [said] = caplog.messages
    assert "1 run row counted decisions it does not store" in said
    caplog.clear()
    with Archive(path) as archive:
        assert archive.repaired == []
    assert caplog.messages == []


def test_with_no_logging_set_up_the_repair_is_one_line_on_stderr(tmp_path):
    """As under the command line: the archive logs, Python writes the warning."""
    path = broken_archive(tmp_path / "a.sqlite")
    code = "import sys; from bounded.archive import Archive; Archive(sys.argv[1]).close()"
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith("bounded: archive ") and "repaired them" in done.stderr


def test_a_read_only_open_reads_the_rows_recounted_and_writes_nothing(tmp_path, caplog):
    path = broken_archive(tmp_path / "a.sqlite")
    caplog.set_level(logging.WARNING, logger="bounded.archive")
    before = sha256(path)
    with Archive(path, read_only=True) as archive:
        assert archive.run("r1").decisions == 38
        assert sorted(r.decisions for r in archive.runs()) == [38, 120]
    assert sha256(path) == before
    assert "read them recounted" in caplog.text


def test_a_run_closed_outside_the_normal_path_counts_what_is_stored(tmp_path):
    with Archive(tmp_path / "a.sqlite") as archive:
        started(archive)
        archive.add_decision(decision(0))
        closed = ArchiveSink(archive).end(run_record(status="failed", decisions=2, model_calls=2))
        assert (closed.decisions, closed.model_calls) == (1, 1)
        assert archive.run("r1") == closed


def unchecked(path) -> list[str]:
    db = sqlite3.connect(path)
    try:
        rows = db.execute("SELECT r.run_id FROM runs_unchecked u JOIN runs r ON r.id = u.run")
        return sorted(row[0] for row in rows)
    finally:
        db.close()


def test_a_closed_archive_lists_no_run_to_check_and_a_write_by_any_code_lists_one(tmp_path):
    """Opening costs what changed: closing checks the runs written (those that disagree stay
    listed), and a row or decision written outside bounded is listed by its triggers."""
    path = tmp_path / "a.sqlite"
    with Archive(path) as archive:
        started(archive)
        for index in range(3):
            archive.add_decision(decision(index))
        archive.save_run(run_record(status="completed", decisions=3, model_calls=3))
        archive.save_run(run_record("r2", status="completed"))
    assert unchecked(path) == []
    db = sqlite3.connect(path)
    with db:
        db.execute("UPDATE runs SET decisions = 7 WHERE run_id = 'r1'")
    db.close()
    assert unchecked(path) == ["r1"]
    with Archive(path, read_only=True) as archive:
        assert archive.run("r1").decisions == 3
    with Archive(path) as archive:
        assert archive.repaired == ["r1"]
    assert unchecked(path) == []


def test_a_writer_that_never_closed_leaves_its_runs_for_the_next_open(tmp_path):
    path = broken_archive(tmp_path / "a.sqlite")
    with Archive(path) as archive:
        assert archive.repaired == ["r1"]
    archive = Archive(path)
    archive.add_decision(decision(38))  # counted nowhere: the row says 38
    archive._db.close()  # as a SIGKILL: no close, nothing checked
    assert unchecked(path) == ["r1"]
    with Archive(path, read_only=True) as archive:
        assert archive.run("r1").decisions == 39


def test_an_archive_without_the_list_is_checked_whole_and_listed_when_opened_to_write(tmp_path):
    path = broken_archive(tmp_path / "a.sqlite")
    db = sqlite3.connect(path)
    listed = db.execute("SELECT name, type FROM sqlite_master WHERE name LIKE '%unchecked%'")
    for name, kind in listed.fetchall():
        db.execute(f"DROP {kind.upper()} IF EXISTS {name}")
    db.close()
    with Archive(path, read_only=True) as archive:
        assert archive.run("r1").decisions == 38
    with Archive(path) as archive:
        assert archive.repaired == ["r1"]
    assert unchecked(path) == []


KILLED_WRITER = """
import os, signal, sys
from bounded.archive import Archive
from bounded.archive.progress import Checkpoint
from bounded.archive.sink import ArchiveSink
sys.path.insert(0, sys.argv[2])
from test_totals import decision, run_record, started

path = sys.argv[1]
archive = Archive(path)
started(archive)
sink = ArchiveSink(archive)
for index in range(3):
    point = Checkpoint(run_id="r1", owner="", decisions=index + 1, memory=None)
    sink.decision(decision(index), run_record(decisions=index + 1, model_calls=index + 1), point)
Archive(path).close()  # another command checks the archive while the game runs
with sink.transaction() as db:
    archive.write_decision(db, decision(3))  # a decision its run's row does not count
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_decision_a_killed_writer_left_uncounted_is_caught_at_the_next_open(tmp_path):
    """A running game's own writes fire no trigger: its run stays listed from its start
    until it is checked after it stops running, even when other commands check the archive
    meanwhile, so whatever its writer left when killed is checked at the next open."""
    path = tmp_path / "a.sqlite"
    here = str(Path(__file__).parent)
    done = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(path), here], check=False)
    assert done.returncode == -signal.SIGKILL
    assert unchecked(path) == ["r1"]
    with Archive(path) as archive:
        assert archive.repaired == ["r1"]
        assert (archive.run("r1").decisions, archive.run("r1").status) == (4, "running")
    assert unchecked(path) == ["r1"]  # still running: listed until it stops
    with Archive(path) as archive:
        ArchiveSink(archive).end(run_record(status="failed", decisions=4, model_calls=4))
    assert unchecked(path) == []


PER_DECISION_TRIGGER = (
    "CREATE TRIGGER {name} AFTER {event} BEGIN INSERT INTO runs_unchecked SELECT {run} "
    "WHERE {run} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM runs_unchecked WHERE run = {run}); "
    "END"
)


def test_an_archive_whose_triggers_fired_per_decision_gets_them_replaced_once(tmp_path):
    """An archive of format 3 written before kept its list by triggers on every decision,
    count and checkpoint: opening it to write replaces them and lists its running runs."""
    path = tmp_path / "a.sqlite"
    with Archive(path) as archive:
        started(archive)
        archive.add_decision(decision(0))
        archive.save_run(run_record(decisions=1, model_calls=1))
        archive.save_run(run_record("done", status="completed"))
    db = sqlite3.connect(path)
    with db:
        db.execute("DROP TRIGGER unchecked_row")
        for name, event, run in (
            ("unchecked_count", "UPDATE OF decisions ON runs", "NEW.id"),
            ("unchecked_decision", "INSERT ON decisions", "NEW.run"),
            (
                "unchecked_checkpoint",
                "INSERT ON checkpoints",
                "(SELECT id FROM runs WHERE run_id = NEW.run_id)",
            ),
        ):
            db.execute(PER_DECISION_TRIGGER.format(name=name, event=event, run=run))
        db.execute("DELETE FROM runs_unchecked")
    db.close()
    with Archive(path, read_only=True):
        pass
    assert unchecked(path) == []  # a reader changes nothing
    with Archive(path):
        assert unchecked(path) == ["r1"]
    db = sqlite3.connect(path)
    names = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='trigger'")}
    db.close()
    assert {"unchecked_run", "unchecked_row", "unchecked_gone"} <= names
    assert not names & {"unchecked_count", "unchecked_decision", "unchecked_checkpoint"}
    assert unchecked(path) == ["r1"]
