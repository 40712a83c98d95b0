import pytest

from bounded.archive import Archive
from bounded.archive.progress import (
    DuplicateGame,
    LeaseLost,
    commit_game,
    current_lease,
    lease_scope,
    owner_alive,
    release_lease,
    take_lease,
)
from bounded.core import DecisionRecord, RunRecord


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


def test_a_lease_is_visible_taken_over_and_an_old_holder_can_write_nothing(tmp_path):
    with Archive(tmp_path / "a.sqlite") as archive:
        first, stale = take_lease(archive, lease_scope("x"))
        assert stale is None and current_lease(archive, lease_scope("x")) == first
        assert owner_alive(first.holder) is True
        commit_game(archive, *game("a"), first)
        second, stale = take_lease(archive, lease_scope("x"))  # the first holder died
        assert stale == first and second.token != first.token
        with pytest.raises(LeaseLost, match="taken over"):
            commit_game(archive, *game("b", seed=2), first)
        assert archive.run("b") is None and archive.decisions("b") == []
        commit_game(archive, *game("b", seed=2), second)
        release_lease(archive, first)  # not ours any more: nothing happens
        assert current_lease(archive, lease_scope("x")) == second
        release_lease(archive, second)
        assert current_lease(archive, lease_scope("x")) is None


def test_a_game_is_written_whole_and_never_twice(tmp_path):
    with Archive(tmp_path / "a.sqlite") as archive:
        commit_game(archive, *game("a"))
        assert len(archive.decisions("a")) == 2 and archive.run("a").status == "completed"
        with pytest.raises(DuplicateGame, match="x c seed 1 is already completed"):
            commit_game(archive, *game("b"))
        assert archive.run("b") is None
        commit_game(archive, *game("c", status="failed"))  # a failed twin is no game
        assert [r.run_id for r in archive.runs(status="completed")] == ["a"]
