"""BALROG's four agents as presets of the `balrog` contract: each agent's closing
instruction and reply rule, free text by default and a JSON reply when asked, and the
game's default action for an unusable reply."""

from __future__ import annotations

import json

import pytest

from bounded.archive import Archive
from bounded.contracts import make_contract
from bounded.contracts.balrog_presets import BALROG_PRESETS, STRICT_NOTE
from bounded.contracts.replies.rules import (
    BALROG_COT_NOTE,
    BALROG_NAIVE_NOTE,
    BALROG_ROBUST_COT_NOTE,
    BALROG_ROBUST_NOTE,
)
from bounded.core import Action, Completion, Observation
from bounded.envs import make
from bounded.models.scripted import ScriptedModel
from bounded.runner import run_episode
from bounded.testing import episode

OBS = Observation(kind="test", text="Room.", legal=[Action(id="go"), Action(id="stay")])


def closing(name: str, **settings: object) -> str:
    contract = make_contract(name, dict(settings))
    contract.reset(episode(instructions="Walk."))
    return contract.assemble(OBS).messages()[-1]["content"]


def test_the_four_agents_are_registered() -> None:
    assert set(BALROG_PRESETS) == {"balrog-naive", "balrog-cot", "balrog-robust-naive",
                                   "balrog-robust-cot"}  # fmt: skip


@pytest.mark.parametrize(
    ("name", "note"),
    [
        ("balrog-naive", BALROG_NAIVE_NOTE),
        ("balrog-cot", BALROG_COT_NOTE),
        ("balrog-robust-naive", BALROG_ROBUST_NOTE),
        ("balrog-robust-cot", BALROG_ROBUST_COT_NOTE),
    ],
)
def test_each_agent_closes_the_current_observation_with_its_instruction(name, note) -> None:
    text = closing(name)
    assert text.endswith("\n\n" + note) and STRICT_NOTE not in text


def test_the_agents_reply_in_text_by_default_and_in_json_when_asked() -> None:
    assert {make_contract(name).reply_mode for name in BALROG_PRESETS} == {"text"}
    contract = make_contract("balrog-cot", {"reply": "json"})
    contract.reset(episode(instructions="Walk."))
    contract.assemble(OBS)
    assert next(iter(contract.reply_schema(OBS)["properties"])) == "reasoning"
    text = json.dumps({"reasoning": "r", "action": {"id": "go"}})
    assert contract.parse(Completion(text=text), OBS).actions[0].id == "go"
    assert "reasoning" not in make_contract("balrog-naive").reply_schema(OBS)["properties"]


def test_the_robust_agents_add_the_strict_note_to_a_json_reply() -> None:
    for name in ("balrog-robust-naive", "balrog-robust-cot"):
        assert closing(name, reply="json").endswith(STRICT_NOTE)
    assert STRICT_NOTE not in closing("balrog-naive", reply="json")


def test_the_runner_executes_the_games_default_action_for_an_unusable_reply(tmp_path) -> None:
    env = make("babyai", max_steps=3)
    model = ScriptedModel(["not an action"] * 3)
    with Archive(tmp_path / "a.sqlite") as archive:
        run = run_episode(env, make_contract("balrog-naive"), model, seed=1, archive=archive)
        decisions = archive.decisions(run.run_id)
    assert [d.actions[0].id for d in decisions] == ["go forward"] * 3
    assert all(d.fallback for d in decisions)
    assert [d.info["invalid_actions"] for d in decisions] == [["not an action"]] * 3
