"""The summary contract (Chain of Summarization): L1 summaries, the K-step call, queues."""

from __future__ import annotations

import json

import pytest

from bounded.contracts import make_contract
from bounded.contracts.summary import (
    SummaryContract,
    decisions_from_text,
    l1_summary,
    outcomes,
    resolve_decision,
)
from bounded.core import JSON, Action, Completion, Observation, StepResult
from bounded.envs import make
from bounded.models.scripted import ScriptedModel
from bounded.runner import run_episode
from bounded.testing import episode

EMPTY = "EMPTY ACTION"
LEGAL = ["BUILD PYLON", "TRAIN PROBE", "TRAIN ZEALOT", EMPTY]


def observation(step: int, legal: list[str] = LEGAL, text: str | None = None) -> Observation:
    return Observation(
        kind="macro",
        state={"minerals": 50 * step, "where": "base"},
        text=f"Resources: minerals {50 * step}" if text is None else text,
        t=5.0 * step,
        legal=[Action(id=a) for a in legal],
    )


def reply(*decisions: object) -> str:
    """A reply in the default `text` mode, as CoS's prompt asks for it: the analysis, the
    suggestions, then the decisions numbered after `Decisions:`."""
    numbered = "\n".join(f"{n}: {item}" for n, item in enumerate(decisions))
    return f"Analysis: a\nSuggestions: s\nDecisions:\n{numbered}"


def json_reply(*decisions: object) -> str:
    return json.dumps({"analysis": "a", "suggestions": "s", "decisions": list(decisions)})


def play(contract: SummaryContract, model: ScriptedModel, steps: int, legal=LEGAL) -> list[str]:
    """Drive the contract like the runner does; the env accepts everything."""
    executed = []
    for step in range(steps):
        obs = observation(step, legal)
        decision = contract.propose(obs)
        if decision is None:
            prompt = contract.assemble(obs)
            completion = model.complete(prompt.messages(), constraint=contract.reply_schema(obs))
            decision = contract.parse(completion, obs)
        executed.append(decision.actions[0].id if decision.actions else "-")
        contract.commit(obs, decision, StepResult())
    return executed


# -- L1 summaries ----------------------------------------------------------------


def test_l1_summary_is_the_observation_text_stamped_with_time() -> None:
    assert l1_summary(observation(2), 200) == "[t=10] Resources: minerals 100"


def test_l1_summary_falls_back_to_the_numeric_state_and_is_cut() -> None:
    assert l1_summary(observation(3, text=""), 200) == "[t=15] minerals=150"
    long = l1_summary(observation(1, text="x" * 500), 100)
    assert long.endswith("...") and len(long) <= len("[t=5] ") + 100


# -- the K-step call ---------------------------------------------------------------


def test_one_call_every_k_steps_and_the_decisions_become_the_queue() -> None:
    model = ScriptedModel(
        [reply("<TRAIN PROBE>", "<BUILD PYLON>", "<TRAIN ZEALOT>"), reply("<TRAIN PROBE>")]
    )
    contract = SummaryContract(interval=5)
    contract.reset(episode(empty_action=EMPTY, instructions="Win."))
    executed = play(contract, model, 10)
    assert len(model.calls) == 2
    first, second = executed[:5], executed[5:]
    assert first == ["TRAIN PROBE", "BUILD PYLON", "TRAIN ZEALOT", EMPTY, EMPTY]
    assert second == ["TRAIN PROBE", EMPTY, EMPTY, EMPTY, EMPTY]


def test_the_call_sees_the_last_k_summaries_and_the_action_queues() -> None:
    model = ScriptedModel([reply("<TRAIN PROBE>", "<TRAIN ZEALOT>")], cycle=True)
    contract = SummaryContract(interval=3)
    contract.reset(episode(empty_action=EMPTY))
    play(contract, model, 6)
    second = model.calls[1]["messages"][1]["content"]
    assert "[t=5]" in second and "[t=15]" in second  # the second call is at step 3
    assert "[t=0]" not in second
    assert "Executed actions: <TRAIN PROBE> <TRAIN ZEALOT>" in second
    assert "<TRAIN ZEALOT>" in model.calls[0]["messages"][1]["content"]  # the dictionary


def test_reply_schema_names_actions_in_angle_brackets() -> None:
    contract = SummaryContract(decisions=3)
    schema = contract.reply_schema(observation(0))
    items = schema["properties"]["decisions"]
    assert items["maxItems"] == 3
    assert items["items"]["enum"] == [f"<{a}>" for a in LEGAL]
    assert schema["required"] == ["analysis", "suggestions", "decisions"]


def test_free_text_decisions_are_read_by_cos_rule_and_a_near_miss_is_recorded() -> None:
    contract = SummaryContract()
    contract.reset(episode(empty_action=EMPTY))
    obs = observation(0)
    assert contract.propose(obs) is None
    text = (
        "Analysis: low on supply, so <BUILD PYLON> first.\nDecisions:\n"
        "0: <BUILD PYLON>\n1: <train probes>\n2: <TRAIN PROBE>"
    )
    decision = contract.parse(Completion(text=text), obs)
    assert [a.id for a in decision.actions] == ["BUILD PYLON"]
    assert [a.id for a in contract.queue] == ["TRAIN PROBE", "TRAIN PROBE"]
    assert decision.extra["near_misses"] == [{"written": "train probes", "read_as": "TRAIN PROBE"}]
    assert decision.reasoning == "Analysis: low on supply, so <BUILD PYLON> first."
    assert decisions_from_text("none") == []


def test_decisions_beyond_the_asked_count_are_dropped_and_counted() -> None:
    contract = SummaryContract(decisions=2)
    contract.reset(episode(empty_action=EMPTY))
    obs = observation(0)
    contract.propose(obs)
    decision = contract.parse(Completion(text=reply(*(f"<{a}>" for a in LEGAL[:3]))), obs)
    assert decision.extra["decisions"] == ["BUILD PYLON", "TRAIN PROBE"]
    assert decision.extra["decisions_dropped"] == 1


def test_unusable_reply_is_a_parse_error_with_the_empty_action() -> None:
    contract = SummaryContract()
    contract.reset(episode(empty_action=EMPTY))
    obs = observation(0)
    contract.propose(obs)
    decision = contract.parse(Completion(text="I am not sure."), obs)
    assert decision.parse_error
    assert [a.id for a in decision.actions] == [EMPTY]


def test_resolve_decision_accepts_tags_names_and_objects() -> None:
    obs = observation(0)
    assert resolve_decision("<TRAIN PROBE>", obs).id == "TRAIN PROBE"
    assert resolve_decision("TRAIN PROBE", obs).id == "TRAIN PROBE"
    assert resolve_decision({"id": "TRAIN PROBE"}, obs).id == "TRAIN PROBE"
    with pytest.raises(ValueError):
        resolve_decision("<CARRIER RUSH>", obs)


# -- executed and failed queues ---------------------------------------------------------


def test_failed_actions_come_from_the_env_report_and_from_stale_queue_entries() -> None:
    model = ScriptedModel([reply("<TRAIN ZEALOT>", "<BUILD PYLON>", "<TRAIN PROBE>")])
    contract = SummaryContract(interval=5)
    contract.reset(episode(empty_action=EMPTY))
    obs = observation(0)
    contract.propose(obs)
    decision = contract.parse(model.complete([]), obs)
    failed = {"actions": [{"id": "TRAIN ZEALOT", "ok": False, "reason": "needs a gateway"}]}
    contract.commit(obs, decision, StepResult(info=failed))
    later = observation(1, legal=["TRAIN PROBE", EMPTY])  # BUILD PYLON no longer possible
    decision = contract.propose(later)
    assert decision is not None and decision.actions[0].id == "TRAIN PROBE"
    contract.commit(later, decision, StepResult())
    queues = contract.render_action_queues()
    assert "<TRAIN ZEALOT>: needs a gateway" in queues
    assert "<BUILD PYLON>: action 'BUILD PYLON' is not legal now" in queues
    assert "Executed actions: <TRAIN PROBE>" in queues


def test_outcomes_fall_back_to_the_decision_when_the_env_reports_nothing() -> None:
    actions = [Action(id="A")]
    assert outcomes(actions, StepResult()) == [("A", True, "")]
    report = {"actions": [{"id": "A", "ok": False, "reason": "r"}]}
    assert outcomes(actions, StepResult(info=report)) == [("A", False, "r")]


def test_without_an_empty_action_the_model_is_asked_when_the_queue_runs_out() -> None:
    model = ScriptedModel([reply("<TRAIN PROBE>")], cycle=True)
    contract = SummaryContract(interval=5)
    contract.reset(episode(empty_action=EMPTY))
    play(contract, model, 4, legal=["TRAIN PROBE"])
    assert len(model.calls) == 4


# -- whole episodes --------------------------------------------------------------------


def test_summary_plays_the_warehouse_stream() -> None:
    def answer(messages, constraint: JSON | None):
        assert constraint is not None
        return json_reply({"id": "report", "args": {"occupied": 0, "shipped": 0}})

    contract = make_contract("summary", {"reply": "json"})  # a CoS name cannot carry args
    run = run_episode(make("warehouse", horizon=8), contract, ScriptedModel(answer), seed=1)
    assert run.status == "completed"
    assert run.decisions == 8
    assert run.model_calls == 8  # no empty action: one call per queue of one decision
    assert 0.0 <= run.outcome["accuracy"] <= 1.0


# -- craft and spire -------------------------------------------------------------------


def first_decision_model() -> ScriptedModel:
    """Always the first `<NAME>` of the constrained decisions (or the first legal id)."""

    def answer(messages, constraint: JSON | None):
        assert constraint is not None
        properties = constraint["properties"]
        if "decisions" in properties:
            items = properties["decisions"]["items"]
            choice = items["enum"][0] if "enum" in items else items["anyOf"][0]["enum"][0]
            return {"analysis": "", "suggestions": "", "decisions": [choice]}
        if "strategy" in properties:
            return {"strategy": "macro"}
        key = "actions" if "actions" in properties else "action"
        schema = properties[key]["items"] if key == "actions" else properties[key]
        action_id = (schema.get("anyOf") or [schema])[0]["properties"]["id"]
        action = {"id": action_id.get("const") or action_id["enum"][0]}
        return {"reasoning": "", key: [action] if key == "actions" else action}

    return ScriptedModel(answer)


CRAFT = {"level": 5, "style": "macro", "map": "crossroads", "time_limit": 300}


def test_summary_plays_craft_with_one_call_every_k_decisions() -> None:
    contract = make_contract("summary")
    assert isinstance(contract, SummaryContract)
    run = run_episode(make("craft", **CRAFT), contract, first_decision_model(), seed=5)
    assert run.status == "completed"
    assert run.model_calls == -(-run.decisions // 5)
    assert contract.executed or contract.failed


def test_summary_plays_spire() -> None:
    run = run_episode(
        make("spire"), make_contract("summary"), first_decision_model(), seed=3, max_decisions=40
    )
    assert run.status == "completed"
    assert run.decisions == 40


@pytest.mark.parametrize("seed", [0, 1])
def test_episodic_spends_fewer_tokens_per_game_than_summary_on_the_same_seed(seed: int) -> None:
    tokens = {}
    for tag in ("summary", "episodic"):
        contract = make_contract(tag)
        run = run_episode(make("craft", **CRAFT), contract, first_decision_model(), seed=seed)
        assert run.status == "completed"
        tokens[tag] = run.prompt_tokens + run.completion_tokens
    assert tokens["episodic"] < 0.5 * tokens["summary"]


@pytest.mark.model
@pytest.mark.slow  # minutes on a shared 2-core machine; the scripted craft runs above are fast
def test_summary_plays_craft_with_the_embedded_model() -> None:
    from bounded.models import make_model
    from bounded.runner import EpisodeRunner

    settings = {**CRAFT, "time_limit": 30}
    contract = make_contract("summary", {"reply_tokens": 256, "reply": "constrained"})
    runner = EpisodeRunner(
        make("craft", **settings), contract, make_model("local"), seed=0,
        env_id="bounded/Craft-v0", max_tokens=640,
    )  # fmt: skip
    run = runner.execute()
    assert run.status == "completed"
    assert run.decisions == 3 and run.model_calls == 1
    first = runner.trajectory[0]
    assert first.parse_error is None, first.completion
    assert first.info["decisions"]


# -- issue 51's replies, read as CoS's extractor reads them (tests/contracts/replies/test_cos.py) --

ISSUE_REPLIES = [
    "Analysis: last step we did <BUILD PYLON>.\nSuggestions: keep producing with <TRAIN PROBE> "
    "and consider <BUILD GATEWAY> later.\nDecisions:\n1. <CHRONOBOOST NEXUS>\n"
    "2. <BUILD ASSIMILATOR>\n3. <TRAIN PROBE>",
    "Decisions:\n1. <train probe>\n2. <build pylon>\n3. <train zealot>",
    "I will outline each action with <ACTION NAME>.\n"
    "Decisions: <TRAIN PROBE> <BUILD PYLON> <TRAIN ZEALOT>",
    "Our supply is <5 of 15>. Decisions: <TRAIN PROBE>",
]


@pytest.mark.parametrize("text", ISSUE_REPLIES)
def test_issue_51s_replies_queue_nothing_and_play_the_empty_action(text: str) -> None:
    """None of the four has an item CoS's rule reads (`N: <NAME>`), so the reference queues
    its empty action: no prose tag is queued and nothing is an invalid action."""
    contract = SummaryContract(interval=2, decisions=3)
    contract.reset(episode(empty_action=EMPTY))
    obs = observation(0)
    contract.propose(obs)
    decision = contract.parse(Completion(text=text), obs)
    assert [a.id for a in decision.actions] == [EMPTY] and list(contract.queue) == []
    assert decision.parse_error == (
        "the Decisions: section holds no numbered decision (0: <ACTION NAME>)"
    )
    assert "invalid_actions" not in decision.extra
