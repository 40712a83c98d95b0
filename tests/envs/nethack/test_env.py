"""`bounded/NetHack-v0`: seeded play across processes, replayed saves, the prompt modes
and their answers, the step limit, and NLE's failures ending the run with a recorded
reason (its conformance checks: `tests/envs/test_conformance.py`, from its record)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bounded.core import Action, ConfigError, IllegalActionError
from bounded.envs import make
from bounded.envs.checker import play, trajectory_digest
from bounded.envs.nethack import NetHackEnv

OPTIONS = {"max_steps": 60}


def nethack(**options) -> NetHackEnv:
    env = make("nethack", **(OPTIONS | options))
    assert isinstance(env, NetHackEnv)
    return env


def step(env: NetHackEnv, action_id: str):
    return env.step(Action(id=action_id))


def test_same_seed_same_game_in_another_process() -> None:
    code = (
        "import sys; from bounded.envs import make;"
        "from bounded.envs.checker import trajectory_digest;"
        "print(trajectory_digest(lambda: make('nethack', max_steps=60), int(sys.argv[1]), 60))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, "5"], capture_output=True, text=True, check=True
    )
    here = trajectory_digest(lambda: nethack(), 5, 60)
    assert out.stdout.strip() == here
    assert trajectory_digest(lambda: nethack(), 6, 60) != here


def test_the_observation_shows_message_map_status_inventory_and_the_commands() -> None:
    env = nethack()
    obs, info = env.reset(seed=0)
    assert obs.kind == "command"
    for part in ("Message:", "Map:", "Status:", "Dlvl:1", "Inventory:", "@"):
        assert part in obs.text
    ids = [a.id for a in obs.legal]
    assert {"north", "far east", "down", "search", "eat", "travel"} <= set(ids)
    assert list(info["action_mask"]) == [1] * len(ids)
    assert obs.state["depth"] == 1 and obs.state["hp"] > 0 and len(obs.state["map"]) == 21
    assert json.loads(json.dumps(obs.state)) == obs.state
    core = make("nethack", vocabulary="core").reset(seed=0)[0]
    assert len(core.legal) < len(ids)


def test_a_command_is_followed_by_its_question_and_the_answers_are_legal() -> None:
    env = nethack()
    env.reset(seed=0)
    obs = step(env, "open")[0]
    assert obs.kind == "direction" and "direction" in obs.state["message"].lower()
    assert {"north", "here", "esc"} <= {a.id for a in obs.legal}
    obs = step(env, "esc")[0]
    assert obs.kind == "command"
    obs = step(env, "eat")[0]
    assert obs.kind == "choice" and "answer *" in {a.id for a in obs.legal}
    step(env, "esc")
    obs = step(env, "travel")[0]
    assert obs.kind == "position" and "pick staircase down" in {a.id for a in obs.legal}
    assert step(env, "esc")[0].kind == "command"
    obs = step(env, "inventory")[0]
    assert obs.kind in ("more", "menu") and "Screen:" in obs.text
    assert step(env, "esc")[0].kind == "command"


def test_an_action_that_is_not_legal_now_is_refused() -> None:
    env = nethack()
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="not legal now"):
        step(env, "answer y")
    with pytest.raises(IllegalActionError, match="one action per decision"):
        env.step([Action(id="north"), Action(id="south")])


def test_the_default_action_is_esc_and_is_accepted_in_every_mode() -> None:
    env = nethack()
    obs = env.reset(seed=0)[0]
    assert env.default_action() == Action(id="esc", label="escape: cancel this prompt or menu")
    assert "esc" not in {a.id for a in obs.legal}
    before = env.metrics()["turns"]
    obs = env.step(env.default_action())[0]
    assert obs.kind == "command" and env.metrics()["turns"] == before
    step(env, "eat")
    assert step(env, "answer *")[0].kind in ("menu", "more")
    assert env.step(env.default_action())[0].kind in ("choice", "command")


def test_a_save_replays_to_the_same_game() -> None:
    env = nethack()
    env.reset(seed=3)
    for action_id in ["east", "east", "search", "south", "eat", "esc", "west"]:
        step(env, action_id)
    saved = json.loads(json.dumps(env.save()))
    copy = nethack()
    copy.load(saved)
    assert copy.save() == saved
    assert copy.metrics() == env.metrics()
    assert step(copy, "north")[0] == step(env, "north")[0]
    with pytest.raises(ConfigError, match="does not replay"):
        nethack().load(saved | {"actions": ["answer q"]})


def test_the_step_limit_truncates_the_episode() -> None:
    env = nethack(max_steps=3)
    env.reset(seed=0)
    results = [step(env, "search") for _ in range(3)]
    assert [r[3] for r in results] == [False, False, True] and not results[-1][2]
    assert env.outcome().ended_by == "step-limit" and env.metrics()["steps"] == 3
    with pytest.raises(IllegalActionError, match="game is over"):
        step(env, "search")


def test_a_game_stuck_in_prompts_ends_with_a_reason() -> None:
    env = nethack(prompt_limit=2)
    env.reset(seed=0)
    step(env, "eat")
    obs, _, terminated, truncated, info = step(env, "answer *")
    assert truncated and not terminated and obs.legal == []
    assert info["ended_by"] == env.outcome().ended_by == "stuck in a prompt"


def test_an_exception_inside_nle_ends_the_game_with_its_reason() -> None:
    env = nethack()
    env.reset(seed=0)

    def broken(_index):
        raise RuntimeError("the terminal went away")

    env.game.env.step = broken
    obs, _, terminated, truncated, _ = step(env, "north")
    assert terminated and not truncated and obs.legal == []
    assert env.outcome().ended_by == "nle-error: RuntimeError: the terminal went away"
    assert json.dumps(env.metrics())


def test_a_game_nle_ends_abruptly_is_recorded() -> None:
    env = nethack()
    env.reset(seed=0)
    nle_env = env.game.env
    real_step = nle_env.step

    def aborting(index):
        obs, reward, _, _, info = real_step(index)
        return obs, reward, True, False, info | {"end_status": nle_env.StepStatus.ABORTED}

    nle_env.step = aborting
    _, _, terminated, _, _ = step(env, "search")
    assert terminated
    assert env.outcome().ended_by.startswith("aborted")
    assert env.metrics()["depth"] == 1  # the last live statistics, not NLE's zeros


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_random_legal_play_never_crashes_and_reports_how_it_ended(seed) -> None:
    """Random legal actions meet every prompt kind; a game that ends says how."""
    env = nethack(max_steps=300)
    trajectory = play(env, seed, 300)  # checks legality and reports at every decision
    outcome = env.outcome()
    assert trajectory.ended and outcome.ended_by != "running"
    if outcome.ended_by != "step-limit":
        assert env.metrics()["cause"] and env.metrics()["depth"] >= 1


def test_a_death_is_recorded_with_its_cause() -> None:
    env = nethack(max_steps=400)
    play(env, 3, 400)  # this seed's random play dies to a water moccasin
    metrics = env.metrics()
    assert metrics["ended_by"] == "death"
    assert "water moccasin" in metrics["cause"]
    assert metrics["depth"] == 1 and metrics["turns"] > 0  # the last live statistics
