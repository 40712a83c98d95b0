"""The ascension ladder: up after a victory, same level after a defeat."""

import pytest

from bounded.contracts.transcript import TranscriptContract
from bounded.core import Outcome
from bounded.envs.warehouse import WarehouseEnv
from bounded.jobs.ladder import WithoutPostrun, next_level, run_ladder, won
from bounded.models.scripted import ScriptedModel
from bounded.protocols import EpisodeContext
from bounded.runner import GameSpec

SPEC = GameSpec(env="warehouse", contract="transcript", model="scripted", seed=0)


@pytest.mark.parametrize(
    ("level", "victory", "top", "expected"),
    [(0, True, 10, 1), (0, False, 10, 0), (9, True, 10, 10), (10, True, 10, 10), (4, False, 10, 4)],
)
def test_next_level(level, victory, top, expected):
    assert next_level(level, victory, top) == expected


def test_won_reads_the_environments_verdict():
    assert won({"victory": True})
    assert not won({"victory": False}) and not won({}) and not won({"outcome": "victory"})


class StreamPlayer:
    """Reports the true warehouse counts for the first `correct_until` events, then zeros.

    Level L is a stream of 3 + L events, so the player wins every level whose stream is
    no longer than `correct_until`; it reads the true counts from a twin of the game.
    """

    def __init__(self, correct_until: int) -> None:
        self.correct_until = correct_until
        self.env: WarehouseEnv | None = None
        self.levels: list[int] = []
        self.model = ScriptedModel(self.reply)

    def level_options(self, level: int) -> dict:
        self.env = WarehouseEnv(horizon=3 + level, shelves=4)
        self.env.reset(seed=SPEC.seed + len(self.levels))
        self.levels.append(level)
        return {"horizon": 3 + level, "shelves": 4}

    def reply(self, messages, constraint):
        text = messages[-1]["content"]
        index = int(text.split("Event ")[1].split(" ")[0])
        args = {"occupied": 0, "shipped": 0}
        if index <= self.correct_until and self.env is not None:
            occupied, shipped = self.env.counts_after(index)
            args = {"occupied": occupied, "shipped": shipped}
        return {"reasoning": "", "action": {"id": "report", "args": args}}


def test_ladder_climbs_on_wins_and_retries_on_losses():
    player = StreamPlayer(correct_until=4)  # wins A0 (3 events) and A1 (4), loses A2 (5)
    result = run_ladder(SPEC, runs=4, top=5, level_options=player.level_options, model=player.model)
    assert [s.ascension for s in result.steps] == [0, 1, 2, 2]
    assert [s.victory for s in result.steps] == [True, True, False, False]
    assert result.endpoint == 2 and result.highest_won == 1 and not result.completed
    assert [s.seed for s in result.steps] == [0, 1, 2, 3]


def test_ladder_stops_once_the_top_is_won():
    player = StreamPlayer(correct_until=99)
    result = run_ladder(
        SPEC, runs=10, top=2, level_options=player.level_options, model=player.model
    )
    assert player.levels == [0, 1, 2]
    assert result.completed and result.endpoint == 2 and result.victories == 3


def test_ladder_refuses_a_start_above_the_top():
    with pytest.raises(ValueError, match="outside"):
        run_ladder(SPEC, runs=1, start=3, top=2, model=ScriptedModel())


def test_without_postrun_delegates_everything_but_postrun():
    class Recorder(TranscriptContract):
        def __init__(self):
            super().__init__()
            self.postruns = 0

        def postrun(self, trajectory, outcome):
            self.postruns += 1

        def propose(self, obs):
            return "proposed"

    inner = Recorder()
    wrapped = WithoutPostrun(inner)
    wrapped.reset(EpisodeContext(env_id="x", seed=0, instructions="x"))
    wrapped.postrun([], Outcome())
    assert inner.postruns == 0 and inner.instructions == "x"
    assert wrapped.config_dict()["postrun_enabled"] is False
    assert wrapped.propose(None) == "proposed"  # the replay and queue path stays on
    assert wrapped.history == inner.history  # attributes it does not define are the inner's


def test_ladder_learns_between_runs_unless_postrun_is_off(tmp_path):
    from bounded.contracts import make_contract

    lessons = iter(
        ["Count every STORE event.", "Ships lower the occupied count.", "A WAIT changes nothing."]
    )

    def note_or_report(messages, constraint):
        if "note" in constraint["properties"]:
            return {"note": next(lessons, "Nothing new.")}
        if "skills" in constraint["properties"]:
            return {"skills": []}
        return {"reasoning": "", "action": {"id": "report", "args": {"occupied": 0, "shipped": 0}}}

    def horizon(level):
        return {"horizon": 4}

    learning = make_contract("self-evolve", {"store_dir": str(tmp_path / "on")})
    run_ladder(
        SPEC, runs=3, top=3, level_options=horizon, model=ScriptedModel(note_or_report),
        contract=learning,
    )  # fmt: skip
    assert [n.text for n in learning.stores.summaries.summaries] == [
        "Count every STORE event.",
        "Ships lower the occupied count.",
        "A WAIT changes nothing.",
    ]

    frozen = make_contract("self-evolve", {"store_dir": str(tmp_path / "off")})
    result = run_ladder(
        SPEC, runs=2, top=3, postrun=False, level_options=horizon,
        model=ScriptedModel(note_or_report), contract=frozen,
    )  # fmt: skip
    assert frozen.stores.summaries.summaries == [] and result.endpoint == 0
