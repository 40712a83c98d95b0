"""BALROG's agents as BALROG runs them: the instruction as the first user message, the
32-event history, invalid-action feedback naming the default action, each agent's
reasoning history and BALROG's client settings, checked on the requests a real
OpenAI-compatible endpoint received."""

from __future__ import annotations

import pytest

import bounded
from bounded.archive import Archive
from bounded.contracts import PRESETS, make_contract
from bounded.contracts.balrog import INVALID_FEEDBACK
from bounded.contracts.replies.rules import BALROG_NAIVE_NOTE, ROBUST_COT_MISSING
from bounded.core import Action, Completion, Observation, RunRecord, StepResult
from bounded.models.scripted import ScriptedModel, schema_filler
from bounded.runner import GameSpec
from bounded.testing import episode
from bounded.testing.endpoint import Endpoint

STEPS = 20
ILLEGAL_AT = 17
"""The decision whose reply names no legal action, once the deque is full."""


def observation(i: int) -> Observation:
    return Observation(kind="test", text=f"Room {i}.", legal=[Action(id="go"), Action(id="stay")])


def play(name: str, replies: list[str], **settings: object):
    """The contract after one decision per reply; each observation is `Room i.`."""
    contract = make_contract(name, dict(settings))
    contract.reset(episode(instructions="Walk."))
    for i, text in enumerate(replies):
        obs = observation(i)
        contract.assemble(obs)
        decision = contract.parse(Completion(text=text), obs)
        if not decision.actions:
            decision.extra["fallback_action"] = "stay"
        contract.commit(obs, decision, StepResult())
    return contract


def babyai_game(endpoint: Endpoint, archive: Archive) -> RunRecord:
    spec = GameSpec(env="babyai", env_options={"level": "goto", "max_steps": STEPS},
                    contract="balrog-naive", model="openai:m", base_url=endpoint.url, seed=3,
                    max_decisions=STEPS)  # fmt: skip
    return bounded.play(spec, archive=archive)


@pytest.fixture(scope="module")
def received(tmp_path_factory):
    """The run, its decisions and the chat requests of a `balrog-naive` BabyAI game whose
    replies turn left, except one that names no legal action."""
    path = tmp_path_factory.mktemp("balrog") / "a.sqlite"
    with Endpoint() as endpoint, Archive(path) as archive:
        replies = [endpoint.ok(content="turn left") for _ in range(ILLEGAL_AT)]
        endpoint.play(*replies, endpoint.ok(content="fly away"),
                      then=endpoint.ok(content="turn left"))  # fmt: skip
        run = babyai_game(endpoint, archive)
        decisions = archive.decisions(run.run_id, with_segments=False)
        bodies = [request.body for request in endpoint.requests]
    return run, decisions, bodies


def test_the_instruction_is_the_first_user_message_of_every_request(received) -> None:
    run, _, bodies = received
    assert run.decisions == STEPS == len(bodies)
    firsts = {(body["messages"][0]["role"], body["messages"][0]["content"]) for body in bodies}
    assert len(firsts) == 1
    role, text = firsts.pop()
    assert role == "user" and not text.startswith(("Observation", "Current Observation"))
    assert all(m["role"] != "system" for body in bodies for m in body["messages"])
    opening = bodies[0]["messages"]
    assert len(opening) == 2 and opening[1]["content"].startswith("Current Observation:\n")
    assert opening[1]["content"].endswith("\n\n" + BALROG_NAIVE_NOTE)


def test_balrogs_agents_play_babyai_as_balrog_shows_it(received) -> None:
    """BALROG's BabyAI text, its instruction prompt (which lists the actions) and no legal
    list after the current observation."""
    from bounded.envs.babyai import balrog as shown

    run, _, bodies = received
    assert run.spec["env_options"]["presentation"] == "balrog"
    instruction, current = bodies[0]["messages"]
    assert instruction["content"].startswith(shown.INSTRUCTION_PROMPT.split("{", 1)[0])
    assert "- go forward" not in current["content"].splitlines()


def test_the_history_is_balrogs_32_event_deque(received) -> None:
    _, _, bodies = received
    for step, body in enumerate(bodies):
        history = body["messages"][1:-1]
        assert len(history) == min(2 * step, 31)
        roles = [m["role"] for m in history]
        first = "user" if step < 16 else "assistant"  # a full deque starts with an action
        other = "assistant" if first == "user" else "user"
        assert roles == [first if i % 2 == 0 else other for i in range(len(history))]
    full = bodies[-1]["messages"]
    seen = [m["content"] for m in full if m["role"] == "user"][1:]
    assert len(seen) == 16 and seen[-1].startswith("Current Observation:\n")
    past = seen[:-1]
    assert all(text.startswith("Observation:\n") for text in past)
    assert not any("Legal actions:" in text or BALROG_NAIVE_NOTE in text for text in past)
    assert {m["content"] for m in full if m["role"] == "assistant"} <= {"turn left", "fly away"}


def test_an_illegal_reply_runs_the_default_and_the_next_prompts_say_so(received) -> None:
    _, decisions, bodies = received
    illegal = decisions[ILLEGAL_AT]
    assert illegal.fallback and [a.id for a in illegal.actions] == ["go forward"]
    assert illegal.info["invalid_actions"] == ["fly away"]
    assert not any(d.fallback for i, d in enumerate(decisions) if i != ILLEGAL_AT)
    feedback = INVALID_FEEDBACK.format(action="go forward")
    after = bodies[ILLEGAL_AT + 1]["messages"]
    assert after[-1]["content"].startswith("Current Observation:\n" + feedback)
    assert after[-2] == {"role": "assistant", "content": "fly away"}  # the reply's, as BALROG
    later = bodies[ILLEGAL_AT + 2]["messages"]
    assert later[-3]["content"].startswith("Observation:\n" + feedback)  # kept in the history
    assert not later[-1]["content"].startswith("Current Observation:\n\n\nYour previous")


def test_balrogs_client_settings_are_the_defaults(received) -> None:
    run, _, bodies = received
    assert {(body["temperature"], body["max_tokens"]) for body in bodies} == {(1.0, 8192)}
    assert run.spec["temperature"] == 1.0 and run.spec["max_tokens"] == 8192
    assert "max_tokens_cap" not in run.model_params  # the endpoint declares no window


def test_a_spec_that_sets_the_client_settings_keeps_them() -> None:
    model = ScriptedModel(["turn left"] * 2)
    spec = GameSpec(env="babyai", env_options={"max_steps": 2}, contract="balrog-naive",
                    temperature=0.0, max_tokens=64, seed=1)  # fmt: skip
    run = bounded.play(spec, model=model)
    assert (run.spec["temperature"], run.spec["max_tokens"]) == (0.0, 64)
    assert run.model_params["max_tokens"] == 64


def test_a_model_with_a_context_window_caps_the_reply_and_the_cap_is_recorded() -> None:
    model = ScriptedModel(["turn left"] * 2)
    model.context_window = 4096
    spec = GameSpec(env="babyai", env_options={"max_steps": 2}, contract="balrog-naive", seed=1)
    run = bounded.play(spec, model=model)
    assert run.spec["max_tokens"] == 8192  # the game asked for BALROG's limit
    assert run.model_params["max_tokens"] == 256
    assert run.model_params["max_tokens_cap"] == {
        "asked": 8192, "capped_to": 256, "context_window": 4096,
    }  # fmt: skip


def test_the_presets_are_the_balrog_contract() -> None:
    assert {PRESETS[name].contract for name in
            ("balrog-naive", "balrog-cot", "balrog-robust-naive", "balrog-robust-cot")} == {
        "balrog"}  # fmt: skip


def test_cot_resends_its_newest_reply_whole_as_the_previous_plan() -> None:
    replies = [f"thought {i}\nACTION: go" for i in range(3)]
    messages = play("balrog-cot", replies).assemble(observation(3)).messages()
    assistant = [m["content"] for m in messages if m["role"] == "assistant"]
    assert assistant == ["go", "go", "Previous plan:\n" + replies[2]]


def test_robust_cot_keeps_no_reasoning_and_an_untagged_reply_names_balrogs_placeholder() -> None:
    contract = play("balrog-robust-cot", ["I think so.\n<|ACTION|>go<|END|>", "I go."])
    messages = contract.assemble(observation(2)).messages()
    assistant = [m["content"] for m in messages if m["role"] == "assistant"]
    assert assistant == ["go", ROBUST_COT_MISSING]
    assert messages[-1]["content"].startswith(
        "Current Observation:\n" + INVALID_FEEDBACK.format(action="stay")
    )


def test_naive_reads_the_reply_stripped_as_balrogs_client_then_filters_it() -> None:
    """BALROG's clients strip the completion (`.strip()` in `OpenAIWrapper.generate`), then
    the naive agent drops all but letters, whitespace and colons, and trims nothing more."""
    obs = Observation(kind="test", text="Room.", legal=[Action(id="go", label="walk on")])
    contract = make_contract("balrog-naive")
    contract.reset(episode(instructions="Walk."))
    contract.assemble(obs)
    for reply in ("go", "go\n", "  go \n\n", "go."):
        assert [a.id for a in contract.parse(Completion(text=reply), obs).actions] == ["go"]
    late = contract.parse(Completion(text="go\n."), obs)
    assert late.actions == [] and late.extra["invalid_actions"] == ["go\n"]
    label = contract.parse(Completion(text="walk on"), obs)  # BALROG's vocabulary alone
    assert label.actions == [] and label.extra["invalid_actions"] == ["walk on"]


def test_only_the_newest_16_observations_show_their_text() -> None:
    """BALROG's `get_prompt` shows the text of the newest `max_text_history` observations,
    the current one among them; with no action between them (replies that name nothing)
    the 32-event deque holds more, the older shown as `Observation:` alone."""
    contract = play("balrog-naive", ["..."] * 40)
    users = [m["content"] for m in contract.assemble(observation(40)).messages()[1:]]
    assert len(users) == 32  # 31 past observations and the current one, no action
    assert users[:16] == ["Observation:"] * 16
    assert [u.rsplit("Room ", 1)[1][:-1] for u in users[16:31]] == [str(i) for i in range(25, 40)]
    assert users[31].startswith("Current Observation:\n")


def test_the_game_seed_is_sent_only_where_asked() -> None:
    assert make_contract("balrog-naive").sends_game_seed is False
    assert make_contract("balrog-naive", {"sampling_seed": "game"}).sends_game_seed is True
    model = ScriptedModel(["turn left"] * 2)
    spec = GameSpec(env="babyai", env_options={"max_steps": 2}, contract="balrog-naive",
                    contract_config={"sampling_seed": "game"}, seed=5)  # fmt: skip
    run = bounded.play(spec, model=model)
    assert run.model_params["sampling_seed"] == 5
    assert run.contract_config["sampling_seed"] == "game"
    other = GameSpec(env="babyai", env_options={"max_steps": 2}, contract="transcript", seed=5)
    assert bounded.play(other, model=schema_filler()).model_params["sampling_seed"] == 5


def test_the_history_is_cut_to_the_prompt_budget_and_the_cut_recorded() -> None:
    contract = play("balrog-naive", ["go"] * 10, max_prompt_tokens=64)
    prompt = contract.assemble(observation(10))
    decision = contract.parse(Completion(text="go"), observation(10))
    assert decision.extra["history_dropped"] > 0
    assert prompt.messages()[0] == {"role": "user", "content": "Walk."}


def test_a_resumed_contract_builds_the_same_prompt() -> None:
    contract = play("balrog-cot", ["a\nACTION: go", "b\nACTION: fly"])
    again = make_contract("balrog-cot")
    again.reset(episode(instructions="Walk."))
    again.restore_memory(contract.memory_snapshot())
    assert again.assemble(observation(2)) == contract.assemble(observation(2))


def test_a_reply_that_names_nothing_leaves_no_action_in_the_history() -> None:
    messages = play("balrog-naive", ["go", "42!", "go"]).assemble(observation(3)).messages()
    assert [m["role"] for m in messages] == [
        "user", "user", "assistant", "user", "user", "assistant", "user",
    ]  # fmt: skip
    assert messages[4]["content"].startswith("Observation:\n" + INVALID_FEEDBACK.format(
        action="stay"))  # fmt: skip


def test_under_balrogs_presentation_the_current_observation_lists_no_actions() -> None:
    obs = observation(0)
    own, balrogs = make_contract("balrog-naive"), make_contract("balrog-naive")
    own.reset(episode(instructions="Walk."))
    balrogs.reset(episode(instructions="Walk.", presentation="balrog"))
    listed = own.assemble(obs).messages()[-1]["content"]
    unlisted = balrogs.assemble(obs).messages()[-1]["content"]
    assert "stay" in listed
    assert unlisted == f"Current Observation:\nRoom 0.\n\n{BALROG_NAIVE_NOTE}"


@pytest.fixture
def presented_env(monkeypatch):
    """An environment whose record offers BALROG's presentation as `{"view": "balrog"}`."""
    from bounded.env_records import BUILTIN_RECORDS, BalrogTasks, EnvCatalog, EnvRecord

    record = EnvRecord(name="shown", env_id="test/Shown-v0", entry_point="x:Y",
                       balrog=BalrogTasks("shown", presentation={"view": "balrog"}))  # fmt: skip
    catalog = EnvCatalog((*BUILTIN_RECORDS, record))
    monkeypatch.setattr("bounded.contracts.balrog.env_record", catalog.get)
    return record.env_id


def test_balrogs_agents_play_an_environment_at_its_balrog_presentation(presented_env) -> None:
    contract = make_contract("balrog-naive")
    assert contract.env_options(presented_env, {"size": 3}) == {"size": 3, "view": "balrog"}
    assert contract.env_options(presented_env, {"view": "own"}) == {"view": "own"}
    assert contract.env_options("bounded/Warehouse-v0", {"size": 3}) == {"size": 3}
    kept = make_contract("balrog-naive", {"balrog_presentation": False})
    assert kept.env_options(presented_env, {}) == {}


def test_what_only_the_current_observation_shows_is_not_resent() -> None:
    def shown(i: int) -> Observation:
        return Observation(kind="test", text=f"Map {i}\nRoom {i}.", history_text=f"Room {i}.",
                           legal=[Action(id="go")])  # fmt: skip

    contract = make_contract("balrog-naive")
    contract.reset(episode(instructions="Walk.", presentation="balrog"))
    for i in range(2):
        contract.assemble(shown(i))
        decision = contract.parse(Completion(text="fly" if i else "go"), shown(i))
        decision.extra["fallback_action"] = "go"
        contract.commit(shown(i), decision, StepResult())
    messages = contract.assemble(shown(2)).messages()
    assert [m["content"] for m in messages[1:-1]] == [
        "Observation:\nRoom 0.", "go", "Observation:\nRoom 1.", "fly",
    ]  # fmt: skip
    feedback = INVALID_FEEDBACK.format(action="go")
    assert messages[-1]["content"] == (
        f"Current Observation:\nMap 2\n{feedback}Room 2.\n\n{BALROG_NAIVE_NOTE}"
    )


def test_an_empty_textworld_command_is_typed_as_balrog_types_it(tmp_path) -> None:
    """BALROG's TextWorld takes any string (`AlwaysTrue`), the empty one too: a reply that
    names nothing is typed as an empty line, with no default action and no feedback, and
    leaves no action in the history (`if prev_action:`)."""
    from bounded.archive import Archive

    model = ScriptedModel(["...", "go north"])
    spec = GameSpec(env="textworld", env_options={"task": "coin_collector"},
                    contract="balrog-naive", seed=3, max_decisions=2)  # fmt: skip
    with Archive(tmp_path / "a.sqlite") as archive:
        run = bounded.play(spec, model=model, archive=archive)
        first, _ = archive.decisions(run.run_id, with_segments=False)
    assert [(a.id, a.args) for a in first.actions] == [("free text", {"text": ""})]
    assert not first.fallback and first.parse_error is None
    second = model.calls[1]["messages"]
    assert second[-1]["content"].startswith("Current Observation:\nI beg your pardon?")
    assert [m["role"] for m in second] == ["user", "user", "user"]  # no action between
