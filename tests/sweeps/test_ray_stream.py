"""The driver-side writer of Ray games: rows in order, and only from the game's worker."""

import pytest

from bounded.archive import Archive
from bounded.archive.progress import Checkpoint, LeaseLost, checkpoints, lease_scope, take_lease
from bounded.core import DecisionRecord, RunRecord
from bounded.sweeps.ray_stream import ArchiveWriter


def run_row(decisions=0, status="running"):
    return RunRecord(
        run_id="r", env_id="e", contract="state", model="m", seed=1, experiment="x", cell="c",
        status=status, decisions=decisions, spec={"env": "warehouse"},
    )  # fmt: skip


def decision(index):
    return DecisionRecord(
        run_id="r", index=index, t=index, kind="k", segments=[], tokens_by_layer={},
        prompt_tokens=0, completion=None, actions=[],
    )  # fmt: skip


def point(owner, decisions):
    return Checkpoint(run_id="r", owner=owner, decisions=decisions, memory={"n": decisions})


def test_a_lost_workers_rows_are_refused_and_its_game_is_claimed_by_the_next(tmp_path):
    path = tmp_path / "a.sqlite"
    with Archive(path) as archive:
        lease, _ = take_lease(archive, lease_scope("x"))
    writer = ArchiveWriter(str(path), lease)
    writer.start(run_row(), point("host:1:1", 0))
    writer.decision(decision(0), run_row(1), point("host:1:1", 1))
    assert writer.lost(("x", "c", 1)) == ("r", None)
    with pytest.raises(LeaseLost, match="no longer played by this worker"):
        writer.decision(decision(1), run_row(2), point("host:1:1", 2))
    resumed = writer.claim("r")  # its player is gone: Ray said so
    assert [d.index for d in resumed.decisions] == [0] and resumed.checkpoint.decisions == 1
    writer.start(resumed.run, point("host:2:2", 1))
    writer.decision(decision(1), run_row(2), point("host:2:2", 2))
    with pytest.raises(LeaseLost):  # the first worker, had it lived on, writes nothing
        writer.end(run_row(2, "completed"), "host:1:1")
    ended = writer.end(run_row(2, "completed"), "host:2:2")
    assert ended.status == "completed"
    assert writer.lost(("x", "c", 1)) == ("r", ended)  # died after its end: that is its row
    assert writer.lost(("x", "c", 2)) == (None, None)  # a game it never saw started
    with Archive(path) as archive:
        assert [d.index for d in archive.decisions("r")] == [0, 1]
        assert archive.run("r").status == "completed" and checkpoints(archive) == {}
