"""BALROG's agents as transcript presets: free-text replies read by each agent's rule, 16
turns of history, the previous turn's reasoning only, the game's default action on an
unusable reply with feedback naming it, and the robust agents' strict wording."""

from __future__ import annotations

import json

from bounded.archive import Archive
from bounded.contracts import PRESETS, make_contract
from bounded.contracts.balrog_presets import BALROG_PRESETS, STRICT_NOTE
from bounded.contracts.replies import BALROG_ROBUST_NOTE
from bounded.contracts.transcript import INVALID_FEEDBACK
from bounded.core import Action, Completion, Decision, Observation, StepResult
from bounded.envs import make
from bounded.models.scripted import ScriptedModel
from bounded.runner import run_episode
from bounded.testing import episode


def observation(i: int) -> Observation:
    return Observation(kind="test", text=f"Room {i}.", legal=[Action(id="go"), Action(id="stay")])


def reply(i: int) -> str:
    """A cot agent's reply (the naive rule reads the same letters as `thought  ACTION: go`:
    not an action)."""
    return f"thought {i}\nACTION: go"


def naive_reply(i: int) -> str:
    return "go"


def play(name: str, turns: int, replies=reply):
    contract = make_contract(name)
    contract.reset(episode(instructions="Walk."))
    for i in range(turns):
        obs = observation(i)
        contract.assemble(obs)
        decision = contract.parse(Completion(text=replies(i)), obs)
        contract.commit(obs, decision, StepResult())
    return contract


def test_the_four_agents_are_registered_transcript_presets() -> None:
    assert set(BALROG_PRESETS) == {"balrog-naive", "balrog-cot", "balrog-robust-naive",
                                   "balrog-robust-cot"}  # fmt: skip
    assert {PRESETS[name].contract for name in BALROG_PRESETS} == {"transcript"}
    naive = make_contract("balrog-naive").reply_schema(observation(0))
    cot = make_contract("balrog-cot").reply_schema(observation(0))
    assert "reasoning" not in naive["properties"]
    assert next(iter(cot["properties"])) == "reasoning"


def test_only_the_newest_sixteen_turns_are_resent() -> None:
    prompt = play("balrog-naive", 20, replies=naive_reply).assemble(observation(20))
    users = [m["content"] for m in prompt.messages() if m["role"] == "user"]
    assert len(users) == 17 and users[0].startswith("Room 4.") and users[-1].startswith("Room 20.")


def test_cot_keeps_the_reasoning_of_the_previous_turn_only() -> None:
    prompt = play("balrog-cot", 3).assemble(observation(3))
    replies = [m["content"] for m in prompt.messages() if m["role"] == "assistant"]
    assert replies[-1] == reply(2)
    assert replies[:-1] == ["go", "go"]  # older replies: the action BALROG's rule read


def test_the_four_agents_reply_in_text_by_default_and_in_json_when_asked() -> None:
    assert {make_contract(name).reply_mode for name in BALROG_PRESETS} == {"text"}
    contract = make_contract("balrog-cot", {"reply": "json"})
    contract.reset(episode(instructions="Walk."))
    contract.assemble(observation(0))
    text = json.dumps({"reasoning": "r", "action": {"id": "go"}})
    assert contract.parse(Completion(text=text), observation(0)).actions[0].id == "go"


def test_an_unusable_reply_runs_the_games_default_and_the_next_turn_says_so() -> None:
    contract = play("balrog-naive", 1, replies=lambda i: "I would go, maybe")
    assert contract.fallback_policy() == "game-default"
    text = contract.assemble(observation(1)).messages()[-1]["content"]
    assert text.startswith(INVALID_FEEDBACK.split("{")[0])
    contract.commit(observation(1), Decision(actions=[Action(id="go")]), StepResult())
    assert not contract.assemble(observation(2)).messages()[-1]["content"].startswith("Your")


def test_the_runner_executes_the_games_default_action_for_an_unusable_reply(tmp_path) -> None:
    env = make("babyai", max_steps=3)
    model = ScriptedModel(["not an action"] * 3)
    with Archive(tmp_path / "a.sqlite") as archive:
        run = run_episode(env, make_contract("balrog-naive"), model, seed=1, archive=archive)
        decisions = archive.decisions(run.run_id)
    assert [d.actions[0].id for d in decisions] == ["go forward"] * 3
    assert all(d.fallback for d in decisions)


def test_the_robust_agents_add_the_strict_wording() -> None:
    for name in ("balrog-robust-naive", "balrog-robust-cot"):
        contract = make_contract(name)
        contract.reset(episode(instructions="Walk."))
        text = contract.assemble(observation(0)).messages()[-1]["content"]
        assert text.endswith(BALROG_ROBUST_NOTE)
        as_json = make_contract(name, {"reply": "json"})
        as_json.reset(episode(instructions="Walk."))
        assert as_json.assemble(observation(0)).messages()[-1]["content"].endswith(STRICT_NOTE)
    plain = make_contract("balrog-naive")
    plain.reset(episode(instructions="Walk."))
    assert STRICT_NOTE not in plain.assemble(observation(0)).messages()[-1]["content"]
