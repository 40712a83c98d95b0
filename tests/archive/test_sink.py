"""The one path a game's rows take into an archive: leased, never twice, all or nothing."""

import pytest

from bounded.archive import Archive
from bounded.archive.progress import (
    Checkpoint,
    DuplicateGame,
    LeaseLost,
    checkpoints,
    current_lease,
    lease_scope,
    owner_alive,
    release_lease,
    take_lease,
)
from bounded.archive.sink import ArchiveSink, sink_for
from bounded.core import DecisionRecord, RunRecord


def run_row(run_id, *, status="running", seed=1, decisions=0):
    return RunRecord(
        run_id=run_id, env_id="e", contract="state", model="m", seed=seed, experiment="x",
        cell="c", status=status, decisions=decisions,
    )  # fmt: skip


def decision(run_id, index):
    return DecisionRecord(
        run_id=run_id, index=index, t=index, kind="k", segments=[], tokens_by_layer={},
        prompt_tokens=0, completion=None, actions=[],
    )  # fmt: skip


def point(run_id, decisions):
    return Checkpoint(run_id=run_id, owner="me", decisions=decisions, memory={"n": decisions})


def play(sink, run_id, *, seed=1, status="completed", decisions=2):
    sink.start(run_row(run_id, seed=seed), point(run_id, 0))
    for i in range(decisions):
        sink.decision(
            decision(run_id, i), run_row(run_id, seed=seed, decisions=i + 1), point(run_id, i + 1)
        )
    return sink.end(run_row(run_id, seed=seed, status=status, decisions=decisions))


def test_each_decision_lands_with_its_run_row_and_checkpoint(tmp_path):
    with Archive(tmp_path / "a.sqlite") as archive:
        sink = ArchiveSink(archive)
        sink.start(run_row("a"), point("a", 0))
        sink.decision(decision("a", 0), run_row("a", decisions=1), point("a", 1))
        assert archive.run("a").decisions == 1 and len(archive.decisions("a")) == 1
        assert checkpoints(archive)["a"].memory == {"n": 1}
        ended = sink.end(run_row("a", status="completed", decisions=1))
        assert ended.status == "completed" and checkpoints(archive) == {}


def test_a_lease_is_visible_taken_over_and_an_old_holder_can_write_nothing(tmp_path):
    with Archive(tmp_path / "a.sqlite") as archive:
        first, stale = take_lease(archive, lease_scope("x"))
        assert stale is None and current_lease(archive, lease_scope("x")) == first
        assert owner_alive(first.holder) is True
        play(ArchiveSink(archive, first), "a")
        second, stale = take_lease(archive, lease_scope("x"))  # the first holder died
        assert stale == first and second.token != first.token
        with pytest.raises(LeaseLost, match="taken over"):
            play(ArchiveSink(archive, first), "b", seed=2)
        assert archive.run("b") is None and archive.decisions("b") == []
        play(ArchiveSink(archive, second), "b", seed=2)
        release_lease(archive, first)  # not ours any more: nothing happens
        assert current_lease(archive, lease_scope("x")) == second
        release_lease(archive, second)
        assert current_lease(archive, lease_scope("x")) is None


def test_a_game_is_never_completed_twice(tmp_path):
    with Archive(tmp_path / "a.sqlite") as archive:
        sink = ArchiveSink(archive)
        play(sink, "a")
        assert len(archive.decisions("a")) == 2 and archive.run("a").status == "completed"
        with pytest.raises(DuplicateGame, match="x c seed 1 is already completed"):
            play(sink, "b")
        assert archive.run("b").status == "running"  # its rows stay, never completed
        play(sink, "c", status="failed")  # a failed twin is no game
        assert [r.run_id for r in archive.runs(status="completed")] == ["a"]


def test_an_archive_is_written_through_its_sink_and_a_sink_as_it_is(tmp_path):
    with Archive(tmp_path / "a.sqlite") as archive:
        made = sink_for(archive)
        assert isinstance(made, ArchiveSink) and made.archive is archive and made.lease is None
        assert sink_for(made) is made and sink_for(None) is None
