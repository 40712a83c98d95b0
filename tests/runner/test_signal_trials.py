"""SIGTERM and SIGINT at every point of a decision: the run row counts exactly what the
archive stores, and the resumed run equals one never interrupted.

The signals are real (`os.kill` of this process, taken by the CLI's SIGTERM handler and
Python's SIGINT handler), sent from inside the runner at four points of a chosen
decision: before the model call, during it, inside the decision's transaction (its
decision and run row written, the checkpoint not yet, the commit not yet), and after the
commit."""

import os
import signal
import tempfile
from pathlib import Path

import pytest

from bounded.archive import Archive, sink
from bounded.cli import STOP_SIGNALS, _interrupt
from bounded.models.scripted import schema_filler
from bounded.runner.build import build_game, play, runner_for
from bounded.runner.resume import resume_run
from bounded.runner.spec import GameSpec

HORIZON = 16
POINTS = ("before-model", "in-model", "in-transaction", "after-commit")
SIGNALS = (signal.SIGTERM, signal.SIGINT)
CONTRACTS = ("state", "summary")  # summary adds the contract's own calls to decisions

RUN_FIELDS = (
    "status", "outcome", "decisions", "model_calls", "prompt_tokens", "completion_tokens",
    "cached_tokens", "last_prompt_tokens", "usage", "postrun", "store_hashes",
)  # fmt: skip


def spec_for(contract: str) -> GameSpec:
    return GameSpec(
        env="warehouse",
        env_options={"horizon": HORIZON},
        contract=contract,
        model="scripted:minimal",
    )


def comparable(record):
    data = record.model_dump(exclude={"latency_s", "run_id"})
    for call in [data["completion"], *data["extra_completions"]]:
        if call:
            call.pop("latency_s")
    return data


def totals_of(decisions) -> dict:
    """A run's totals counted from its stored decisions, independently of the archive."""
    calls = [c for r in decisions for c in [r.completion, *r.extra_completions] if c]
    asked = [r for r in decisions if r.completion is not None]
    return {
        "decisions": len(decisions),
        "model_calls": len(calls),
        "prompt_tokens": sum(c.prompt_tokens for c in calls),
        "completion_tokens": sum(c.completion_tokens for c in calls),
        "last_prompt_tokens": asked[-1].prompt_tokens if asked else 0,
    }


@pytest.fixture
def scratch(tmp_path):
    """A directory in memory where there is one: hundreds of archives, each committing every
    decision, wait on the disk's flushes, not on the code under test."""
    memory = Path("/dev/shm")
    if not memory.is_dir():
        yield tmp_path
        return
    with tempfile.TemporaryDirectory(dir=memory, prefix="bounded-trials-") as folder:
        yield Path(folder)


@pytest.fixture(scope="module")
def references(tmp_path_factory):
    """Each contract's game played through, never interrupted."""
    found = {}
    for contract in CONTRACTS:
        with Archive(tmp_path_factory.mktemp(contract) / "whole.sqlite") as archive:
            run = play(spec_for(contract), archive=archive)
            found[contract] = (run, archive.decisions(run.run_id))
        assert run.status == "completed" and run.decisions == HORIZON
    return found


@pytest.fixture
def signals_taken_as_the_cli_takes_them():
    previous = {signum: signal.signal(signum, _interrupt) for signum in STOP_SIGNALS}
    yield
    for signum, handler in previous.items():
        signal.signal(signum, handler)


class Trigger:
    """Sends `signum` to this process the `at`-th time (from 0) `fire(point)` is called at
    `point`."""

    def __init__(self, point: str, at: int, signum: int) -> None:
        self.point, self.at, self.signum = point, at, signum
        self.seen = 0

    def fire(self, point: str) -> None:
        if point != self.point:
            return
        self.seen += 1
        if self.seen - 1 == self.at:
            os.kill(os.getpid(), self.signum)


def interrupted_run(path, spec, trigger: Trigger, monkeypatch):
    """Play `spec` into a new archive at `path` until the trigger's signal stops it."""
    model = schema_filler()
    answer = model.complete

    def complete(*args, **kwargs):
        trigger.fire("before-model")
        completion = answer(*args, **kwargs)
        trigger.fire("in-model")
        return completion

    write_checkpoint = sink.write_checkpoint

    def checkpoint_then_commit(db, point):
        if point.decisions:  # the start's checkpoint is not a decision's
            trigger.fire("in-transaction")
        write_checkpoint(db, point)

    model.complete = complete
    monkeypatch.setattr(sink, "write_checkpoint", checkpoint_then_commit)
    game = build_game(spec, model=model)
    with Archive(path) as archive:
        runner = runner_for(game, archive=archive, observer=lambda *_: trigger.fire("after-commit"))
        with pytest.raises(KeyboardInterrupt):
            runner.execute()
    monkeypatch.setattr(sink, "write_checkpoint", write_checkpoint)


@pytest.mark.parametrize("contract", CONTRACTS)
def test_a_signal_anywhere_in_a_decision_leaves_the_row_true_and_the_resume_identical(
    scratch, monkeypatch, references, signals_taken_as_the_cli_takes_them, contract
):
    whole, expected = references[contract]
    spec = spec_for(contract)
    trials = 0
    for signum in SIGNALS:
        for point in POINTS:
            for at in range(HORIZON):
                path = scratch / f"{signum.name}-{point}-{at}.sqlite"
                interrupted_run(path, spec, Trigger(point, at, signum), monkeypatch)
                with Archive(path) as archive:
                    (run,) = archive.runs()
                    stored = archive.decisions(run.run_id, with_segments=False)
                    assert run.status == "failed" and signum.name in run.error
                    counted = {key: getattr(run, key) for key in totals_of(stored)}
                    assert counted == totals_of(stored), (signum.name, point, at)
                    committed = at + 1 if point == "after-commit" else at
                    assert len(stored) == committed, (signum.name, point, at)
                resumed = resume_run(path, run.run_id)
                for field in RUN_FIELDS:
                    assert getattr(resumed, field) == getattr(whole, field), (point, at, field)
                with Archive(path) as archive:
                    got = archive.decisions(run.run_id)
                assert [comparable(r) for r in got] == [comparable(r) for r in expected]
                trials += 1
    assert trials == len(SIGNALS) * len(POINTS) * HORIZON
