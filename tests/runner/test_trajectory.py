"""A run's trajectory in bounded memory: the latest records held, the older read back from
the archive, and a game's memory that does not grow with its length."""

from __future__ import annotations

import gc
import tracemalloc

import pytest

from bounded.archive import Archive
from bounded.contracts import make_contract
from bounded.contracts.base import ContractWrapper
from bounded.core import DecisionRecord
from bounded.envs import make
from bounded.models import make_model
from bounded.runner.episode import EpisodeRunner
from bounded.runner.trajectory import KEPT_DECISIONS, Trajectory, TrajectoryTrimmed


def record(index: int) -> DecisionRecord:
    return DecisionRecord(
        run_id="r", index=index, t=index, kind="stream", segments=[], tokens_by_layer={},
        prompt_tokens=0, completion=None, actions=[],
    )  # fmt: skip


def test_a_trajectory_holds_its_latest_records_and_reads_older_ones_back():
    archived = [record(i) for i in range(10)]
    reads = []

    def reader(start, end):
        reads.append((start, end))
        return archived[start:end]

    trajectory = Trajectory(kept=3, reader=reader)
    for item in archived:
        trajectory.append(item)
    assert len(trajectory) == 10 and trajectory.first_kept == 7
    assert trajectory[-1] is archived[9] and trajectory[7] is archived[7] and not reads
    assert trajectory[2].index == 2 and reads == [(2, 3)]
    assert [r.index for r in trajectory] == list(range(10))
    assert [r.index for r in trajectory[5:8]] == [5, 6, 7]
    with pytest.raises(IndexError):
        trajectory[10]


def test_without_an_archive_an_older_record_is_a_one_line_error():
    trajectory = Trajectory(kept=2)
    for i in range(5):
        trajectory.append(record(i))
    assert trajectory[-2].index == 3
    with pytest.raises(TrajectoryTrimmed, match=r"decision 0 is no longer in memory.*keep more"):
        trajectory[0]
    with pytest.raises(ValueError, match="at least one"):
        Trajectory(kept=0)


def test_postrun_reads_a_long_game_back_from_the_archive(tmp_path):
    seen = []

    class Reader(ContractWrapper):
        def postrun(self, trajectory, outcome):
            seen.extend(r.index for r in trajectory)

    env = make("warehouse", horizon=30)
    with Archive(tmp_path / "a.sqlite") as archive:
        runner = EpisodeRunner(
            env, Reader(make_contract("state")), make_model("scripted:minimal"), seed=1,
            env_id="warehouse", archive=archive, keep_decisions=4,
        )  # fmt: skip
        run = runner.execute()
    assert run.status == "completed" and seen == list(range(30))
    assert runner.trajectory.first_kept == 26


def test_a_runner_without_an_archive_keeps_every_record_unless_told(tmp_path):
    def played(**options):
        runner = EpisodeRunner(
            make("warehouse", horizon=KEPT_DECISIONS + 20), make_contract("state"),
            make_model("scripted:minimal"), seed=1, env_id="warehouse", **options,
        )  # fmt: skip
        assert runner.execute().status == "completed"
        return runner.trajectory

    assert [r.index for r in played()] == list(range(KEPT_DECISIONS + 20))
    with pytest.raises(TrajectoryTrimmed):
        played(keep_decisions=KEPT_DECISIONS)[0]
    with Archive(tmp_path / "a.sqlite") as archive:
        kept = played(archive=archive)
        assert kept.first_kept == 20 and kept[0].index == 0  # read back


@pytest.mark.parametrize("contract", ["state", "typed", "summary", "episodic"])
def test_a_bounded_contracts_game_holds_no_more_at_its_end_than_early_on(contract, tmp_path):
    """Python memory held at decision 1,200 and at decision 2,400 of one warehouse game played
    into an archive: past the windows' fill (the runner's 100 records, the scripted model's
    1,000 calls, the state journal's 1,000 entries), it does not grow with the decision
    index (it grew by 12-14 KB a decision: some 16 MB here)."""
    marks = {1_200: 0, 2_400: 0}

    def mark(record, obs):
        if record.index in marks:
            gc.collect()
            marks[record.index] = tracemalloc.get_traced_memory()[0]

    env = make("warehouse", horizon=2_401)
    tracemalloc.start()
    try:
        with Archive(tmp_path / "a.sqlite") as archive:
            runner = EpisodeRunner(
                env, make_contract(contract), make_model("scripted:minimal"), seed=1,
                env_id="warehouse", archive=archive, observer=mark,
            )  # fmt: skip
            assert runner.execute().status == "completed"
    finally:
        tracemalloc.stop()
    growth = marks[2_400] - marks[1_200]
    assert growth < 1_500_000, f"{contract}: {growth / 1e6:.1f} MB more at decision 2,400"
