"""One record per environment: what the rest of bounded reads about an environment comes
from its record. A toy environment, installed as a plugin whose entry point names its
record and nothing else, is found in the CLI's help, as an inspect task, in the
conformance suite, by attribution's replay and in the BALROG table; our own records
agree with the engines they describe."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bounded.analysis.balrog import balrog_tasks
from bounded.attribution.replay import ReplayError, expert_for
from bounded.contracts.step_protocol import one_action_step
from bounded.core import ConfigError, RunRecord
from bounded.env_records import (
    BUILTIN_RECORDS,
    ENV_RECORDS,
    EnvCatalog,
    EnvRecord,
    TaskOption,
)
from bounded.envs import ENV_IDS, canonical_env_id, env_names, make

ROOT = Path(__file__).parents[1]

TOY_MODULE = '''
"""Even or odd: each round shows a number; naming its parity scores a point."""

from typing import Any

from bounded import Action, Observation, Outcome, TextEnv
from bounded.env_records import BalrogTasks, EnvRecord, TaskOption
from bounded.envs.base import Choices, with_action_mask


class ToyEnv(TextEnv):
    instructions = "Say whether the number is even or odd."
    version = "1"

    def __init__(self, rounds: int = 4) -> None:
        self.rounds, self.seed, self.turn, self.points = rounds, 0, 0, 0
        self.init_spaces(self.choices, kinds=("guess", "over"))

    def choices(self) -> Choices:
        return Choices(legal=self.observe().legal)

    def number(self) -> int:
        return (self.seed * 7 + self.turn * 3) % 10

    def observe(self) -> Observation:
        if self.turn >= self.rounds:
            return Observation(kind="over", t=self.turn, text="The game is over.")
        number = self.number()
        return Observation(
            kind="guess",
            t=self.turn,
            state={"turn": self.turn, "number": number, "points": self.points},
            text=f"The number is {number}.",
            legal=[Action(id="even"), Action(id="odd")],
        )

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        self.seed, self.turn, self.points = seed or 0, 0, 0
        obs = self.observe()
        return obs, with_action_mask({}, obs)

    def step(self, action):
        action = self.resolve_action(action)
        chosen = action[0] if isinstance(action, list | tuple) else action
        right = "even" if self.number() % 2 == 0 else "odd"
        self.points += chosen.id == right
        self.turn += 1
        obs = self.observe()
        reward = float(chosen.id == right)
        return obs, reward, self.turn >= self.rounds, False, with_action_mask({}, obs)

    def metrics(self) -> dict[str, Any]:
        return {"points": self.points}

    def outcome(self) -> Outcome:
        return Outcome(
            victory=self.points == self.rounds,
            score=float(self.points),
            progress=self.turn / self.rounds,
            ended_by="over" if self.turn >= self.rounds else "running",
        )

    def save(self) -> dict[str, Any]:
        return {"seed": self.seed, "turn": self.turn, "points": self.points}

    def load(self, data: dict[str, Any]) -> None:
        self.seed, self.turn, self.points = data["seed"], data["turn"], data["points"]


class ToyExpert:
    def act(self, obs: Observation) -> Action:
        return obs.legal[obs.state["number"] % 2]


TOY = EnvRecord(
    name="toy",
    env_id="toy/Toy-v0",
    entry_point="toy_env:ToyEnv",
    summary="Even or odd (score: numbers named right).",
    expert="toy_env:ToyExpert",
    balrog=BalrogTasks("toy", ("default",)),
    task_options=(TaskOption("rounds"),),
    test_options={"rounds": 3},
    test_steps=5,
)
'''

PLAYS = """
import json, sys
from bounded import GameSpec, play
from bounded.analysis.balrog import balrog_summary
from bounded.archive import Archive
from bounded.attribution.replay import replay
from bounded.models.scripted import ScriptedModel, minimal_instance

model = ScriptedModel(lambda messages, constraint: minimal_instance(constraint))
spec = GameSpec(env="toy", contract="transcript", seed=4, tag="toy-agent",
                env_options={"rounds": 3})
with Archive(sys.argv[1]) as stored:
    run = play(spec, model=model, archive=stored)
    runs, records = stored.runs(), stored.decisions(run.run_id)
replayed = replay(run, records, [0, 1, 2])
print(json.dumps({
    "env_id": run.env_id,
    "expert": {i: [a.id for a in d.expert_actions] for i, d in replayed.items()},
    "numbers": {i: d.obs.state["number"] for i, d in replayed.items()},
    "balrog": sorted(
        env for agent, found in balrog_summary(runs).items() if agent.tag == "toy-agent"
        for env in found["environments"]
    ),
}))
"""


@pytest.fixture(scope="module")
def toy_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The toy installed as a plugin: its module and an entry point naming its record."""
    site = tmp_path_factory.mktemp("toy-site")
    (site / "toy_env.py").write_text(TOY_MODULE)
    dist = site / "toy_env-0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-env\nVersion: 0\n")
    (dist / "entry_points.txt").write_text("[bounded.envs]\ntoy/Toy-v0 = toy_env:TOY\n")
    return site


def with_toy(site: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path, "COLUMNS": "300", "TERM": "dumb"}
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=600
    )


def test_the_toy_is_in_the_cli_help_and_answers_to_its_short_name(toy_site: Path) -> None:
    done = with_toy(toy_site, "-m", "bounded.cli", "run", "--help")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "toy/Toy-v0" in " ".join(done.stdout.split())
    code = (
        "from bounded.envs import make, resolve_env_id; print(resolve_env_id('toy'), make('toy'))"
    )
    named = with_toy(toy_site, "-c", code)  # its short name, once its record is read
    assert named.returncode == 0, named.stderr[-2000:]
    assert named.stdout.split()[0] == "toy/Toy-v0"


def test_the_toy_has_an_inspect_task_with_its_options(toy_site: Path) -> None:
    code = (
        "import json, bounded.inspect_tasks.tasks as tasks\n"
        "from inspect_ai._eval.loader import create_tasks\n"
        "[task] = create_tasks([tasks.__file__ + '@toy'], {'rounds': 2, 'seeds': [3]})\n"
        "[sample] = task.dataset\n"
        "print(json.dumps([task.name, sample.metadata, tasks.ENVIRONMENT_TASKS['toy'].__doc__]))"
    )
    done = with_toy(toy_site, "-c", code)
    assert done.returncode == 0, done.stderr[-2000:]
    name, metadata, doc = json.loads(done.stdout.strip().splitlines()[-1])
    assert name == "toy" and doc == "Even or odd (score: numbers named right)."
    assert metadata == {"env": "toy", "env_id": "toy/Toy-v0", "seed": 3,
                        "env_options": {"rounds": 2}}  # fmt: skip


def test_the_conformance_suite_checks_the_toy(toy_site: Path) -> None:
    suite = ROOT / "tests" / "envs" / "test_conformance.py"
    done = with_toy(
        toy_site, "-m", "pytest", str(suite), "-k", "toy", "-q", "-p", "no:cacheprovider",
        cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:]
    assert "4 passed" in done.stdout


def test_attribution_replays_the_toy_and_balrog_tables_it(toy_site: Path, tmp_path: Path) -> None:
    done = with_toy(toy_site, "-c", PLAYS, str(tmp_path / "runs.sqlite"))
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["env_id"] == "toy/Toy-v0"
    parity = {i: ["even", "odd"][number % 2] for i, number in found["numbers"].items()}
    assert found["expert"] == {i: [action] for i, action in parity.items()}
    assert found["balrog"] == ["toy"]


# -- our records --------------------------------------------------------------------------


def test_each_record_is_the_one_place_its_facts_are_read() -> None:
    assert {record.name: record.env_id for record in BUILTIN_RECORDS} == ENV_IDS
    assert [canonical_env_id(record.name) for record in BUILTIN_RECORDS] == list(ENV_IDS.values())
    assert set(ENV_IDS) <= set(env_names())
    assert one_action_step("bounded/Craft-v0") == {"decision_interval": 2.0, "max_actions": 1}
    assert one_action_step("bounded/Spire-v0") == {}
    balrog = {record.env_id: balrog_tasks(record.env_id) for record in BUILTIN_RECORDS}
    assert {env_id: found.env for env_id, found in balrog.items() if found} == {
        "bounded/NetHack-v0": "nle",
        "bounded/BabyAI-v0": "babyai",
        "bounded/Crafter-v0": "crafter",
        "bounded/TextWorld-v0": "textworld",
        "bounded/MiniHack-v0": "minihack",
    }


def test_the_records_agree_with_the_engines() -> None:
    from bounded.envs.babyai import TASKS as BABYAI_TASKS
    from bounded.envs.minihack import TASKS as MINIHACK_TASKS
    from bounded.envs.spire import REPLY_TOKENS as SPIRE_TOKENS
    from bounded.envs.textworld.games import CHALLENGES as TEXTWORLD_GAMES
    from bounded.envs.workbench import REPLY_TOKENS as WORKBENCH_TOKENS

    record = {r.name: r for r in BUILTIN_RECORDS}
    assert record["babyai"].balrog.tasks == tuple(BABYAI_TASKS)
    assert record["minihack"].balrog.tasks == tuple(MINIHACK_TASKS)
    assert record["textworld"].balrog.tasks == tuple(TEXTWORLD_GAMES)
    assert (record["spire"].reply_tokens, record["workbench"].reply_tokens) == (
        SPIRE_TOKENS,
        WORKBENCH_TOKENS,
    )


def test_every_expert_named_by_a_record_is_found_for_attribution() -> None:
    for record in BUILTIN_RECORDS:
        run = RunRecord(run_id="r" * 12, env_id=record.env_id, contract="state", model="m", seed=1)
        if record.replay == "refused":
            with pytest.raises(ReplayError, match="cannot promise to reproduce"):
                expert_for(run)
        elif not record.expert_reads_env:
            assert callable(expert_for(run).act), record.name
        elif record.test_options is not None:
            with pytest.raises(ReplayError, match="without its environment"):
                expert_for(run)
            env = make(record.env_id, **record.test_options)
            try:
                assert callable(expert_for(run, env).act), record.name
            finally:
                env.close()


def test_a_record_is_refused_when_it_breaks_the_table() -> None:
    with pytest.raises(ConfigError, match="refused replay needs its reason"):
        EnvRecord(name="x", env_id="x/X-v0", entry_point="x:X", replay="refused")
    catalog = EnvCatalog(BUILTIN_RECORDS)
    with pytest.raises(ConfigError, match="'spire' is taken by bounded/Spire-v0"):
        catalog.register(EnvRecord(name="spire", env_id="mine/Spire-v0", entry_point="x:X"))
    assert TaskOption("game", str, option="task").key == "task"
    assert ENV_RECORDS.get("nowhere/Nothing-v0") is None
