import json
from dataclasses import replace

import pytest

from bounded.archive import Archive
from bounded.archive.progress import (
    Checkpoint,
    checkpoints,
    write_checkpoint,
)
from bounded.archive.sink import ArchiveSink
from bounded.archive.sqlite import ArchiveError
from bounded.core import DecisionRecord, RunRecord
from bounded.runner.build import build_game, runner_for
from bounded.runner.spec import GameSpec


def game(run_id, *, status="completed", seed=1):
    run = RunRecord(
        run_id=run_id, env_id="e", contract="state", model="m", seed=seed, experiment="x",
        cell="c", status=status, decisions=2,
    )  # fmt: skip
    decisions = [
        DecisionRecord(
            run_id=run_id,
            index=i,
            t=i,
            kind="k",
            segments=[],
            tokens_by_layer={},
            prompt_tokens=0,
            completion=None,
            actions=[],
        )
        for i in range(2)
    ]
    return run, decisions


def write(archive, point):
    with archive.transaction() as db:
        write_checkpoint(db, point)


def log_rows(archive, run_id):
    return archive.execute("SELECT pos FROM checkpoint_logs WHERE run_id = ?", (run_id,))


def test_a_memory_log_is_stored_item_by_item_once_and_read_back_whole(tmp_path):
    with Archive(tmp_path / "a.sqlite") as archive:
        run, _ = game("a", status="running")
        archive.save_run(run)
        journal = [{"n": 0}]
        for n in range(1, 5):  # each checkpoint adds one item (a re-stored one would collide)
            journal.append({"n": n})
            memory = {"state": {"n": n}, "journal": journal}
            write(archive, Checkpoint("a", "me", n, memory, logs=("journal",)))
        assert len(log_rows(archive, "a")) == 5
        stored = archive.execute("SELECT memory, logs FROM checkpoints")[0]
        assert "journal" not in stored["memory"] and stored["logs"] == '{"journal": 5}'
        point = checkpoints(archive)["a"]
        assert point.memory == {"state": {"n": 4}, "journal": journal}
        assert point.logs == ("journal",)
        write(archive, replace(point, owner="another"))  # a claim rewrites it: nothing added
        assert len(log_rows(archive, "a")) == 5

        restarted = {"state": {}, "journal": [{"again": True}]}
        write(archive, Checkpoint("a", "me", 1, restarted, logs=("journal",)))
        assert checkpoints(archive)["a"].memory == restarted

        ArchiveSink(archive).end(run.model_copy(update={"status": "completed"}))
        assert checkpoints(archive) == {} and log_rows(archive, "a") == []


def test_a_checkpoint_whose_log_lost_items_is_refused_in_one_line(tmp_path):
    with Archive(tmp_path / "a.sqlite") as archive:
        archive.save_run(game("a", status="running")[0])
        memory = {"journal": [1, 2, 3]}
        write(archive, Checkpoint("a", "me", 3, memory, logs=("journal",)))
        with archive.transaction() as db:
            db.execute("DELETE FROM checkpoint_logs WHERE pos = 1")
        with pytest.raises(
            ArchiveError, match="log 'journal' holds 2 items, the checkpoint counts 3"
        ):
            checkpoints(archive)


def window_rows(archive, run_id):
    rows = archive.execute(
        "SELECT pos, item FROM checkpoint_logs WHERE run_id = ? ORDER BY pos", (run_id,)
    )
    return [(row["pos"], json.loads(row["item"])) for row in rows]


def test_a_memory_window_is_stored_one_item_per_checkpoint_and_read_back_as_given(tmp_path):
    with Archive(tmp_path / "a.sqlite") as archive:
        run, _ = game("a", status="running")
        archive.save_run(run)
        for n in range(1, 10):  # a window of the latest 3 steps, sliding from step 3 on
            start = max(0, n - 3)
            window = {"start": start, "items": [{"n": i} for i in range(start, n)]}
            write(archive, Checkpoint("a", "me", n, {"window": window, "n": n}, logs=("window",)))
            assert window_rows(archive, "a") == [(i, {"n": i}) for i in range(start, n)]
        stored = archive.execute("SELECT memory, logs FROM checkpoints")[0]
        assert json.loads(stored["memory"]) == {"n": 9}
        assert json.loads(stored["logs"]) == {"window": [6, 9]}
        point = checkpoints(archive)["a"]
        assert point.memory == {"window": window, "n": 9} and point.logs == ("window",)
        write(archive, replace(point, owner="another"))  # a claim rewrites it: nothing added
        assert len(window_rows(archive, "a")) == 3

        for restarted in ({"start": 0, "items": [{"again": 0}]}, {"start": 20, "items": []}):
            write(archive, Checkpoint("a", "me", 1, {"window": restarted}, logs=("window",)))
            assert checkpoints(archive)["a"].memory == {"window": restarted}
        past_the_end = {"start": 30, "items": [{"n": 30}, {"n": 31}]}  # items never stored
        write(archive, Checkpoint("a", "me", 2, {"window": past_the_end}, logs=("window",)))
        assert window_rows(archive, "a") == [(30, {"n": 30}), (31, {"n": 31})]

        ArchiveSink(archive).end(run.model_copy(update={"status": "completed"}))
        assert checkpoints(archive) == {} and log_rows(archive, "a") == []


def test_a_checkpoint_whose_window_lost_items_is_refused_in_one_line(tmp_path):
    with Archive(tmp_path / "a.sqlite") as archive:
        archive.save_run(game("a", status="running")[0])
        memory = {"window": {"start": 5, "items": [5, 6, 7]}}
        write(archive, Checkpoint("a", "me", 8, memory, logs=("window",)))
        with archive.transaction() as db:
            db.execute("DELETE FROM checkpoint_logs WHERE pos = 6")
        with pytest.raises(
            ArchiveError, match="log 'window' holds 2 items, the checkpoint counts 3"
        ):
            checkpoints(archive)


def test_a_state_game_checkpoints_its_journal_as_its_contract_holds_it(tmp_path):
    """The checkpoint after a decision holds the contract's whole snapshot, the journal
    read back from its log."""
    spec = GameSpec(env="warehouse", env_options={"horizon": 30}, contract="state",
                    model="scripted:minimal")  # fmt: skip
    game_ = build_game(spec)
    seen = []

    def stop_at_twenty(record, obs):
        if record.index == 19:
            seen.append(json.loads(json.dumps(game_.contract.memory_snapshot())))
            raise KeyboardInterrupt

    with Archive(tmp_path / "a.sqlite") as archive:
        with pytest.raises(KeyboardInterrupt):
            runner_for(game_, archive=archive, observer=stop_at_twenty).execute()
        (point,) = checkpoints(archive).values()
    assert point.decisions == 20 and len(point.memory["journal"]["items"]) == 20
    assert point.memory == seen[0]
