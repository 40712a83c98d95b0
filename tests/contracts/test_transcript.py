from bounded.contracts import make_contract
from bounded.core import Action, Completion, Observation, StepResult, approx_tokens
from bounded.envs import make
from bounded.models.scripted import ScriptedModel
from bounded.runner import run_episode
from bounded.testing import episode

REPLY = '{"reasoning": "", "action": {"id": "go"}}'


def observation(i):
    return Observation(kind="test", text=f"Room {i}: a long corridor " * 5, legal=[Action(id="go")])


def play(contract, turns):
    for i in range(turns):
        obs = observation(i)
        contract.assemble(obs)
        decision = contract.parse(Completion(text=REPLY), obs)
        contract.commit(obs, decision, StepResult())
    return contract


def test_every_observation_and_reply_is_resent_in_order():
    contract = make_contract("transcript")
    contract.reset(episode(instructions="Walk."))
    prompt = play(contract, 3).assemble(observation(3))
    messages = prompt.messages()
    assert [m["role"] for m in messages] == ["system", *["user", "assistant"] * 3, "user"]
    assert messages[1]["content"].startswith("Room 0")
    assert messages[-1]["content"].startswith("Room 3")
    assert all(m["content"] == REPLY for m in messages[2:-1:2])


def test_a_full_window_drops_the_oldest_turns_and_records_it():
    contract = make_contract("transcript", {"max_prompt_tokens": 400})
    contract.reset(episode(instructions="Walk."))
    play(contract, 30)
    prompt = contract.assemble(observation(30))
    assert sum(prompt.tokens_by_layer().values()) <= 400
    decision = contract.parse(Completion(text=REPLY), observation(30))
    dropped = decision.extra["history_dropped"]
    assert 0 < dropped < 30
    kept_rooms = [s.text.split(":")[0] for s in prompt.segments if s.role == "user"]
    assert kept_rooms[0] == f"Room {dropped}" and kept_rooms[-1] == "Room 30"


class TemplatedModel(ScriptedModel):
    """Counts its prompt as a chat template would: 30 tokens around every message, far
    more than the transcript's per-message estimate."""

    def prompt_tokens(self, messages):
        count = sum(approx_tokens(m["content"]) + 30 for m in messages)
        return list(range(count)), []


def test_the_window_is_checked_on_the_prompt_as_the_model_will_read_it():
    model = TemplatedModel([REPLY])
    model.context_window = 900  # type: ignore[attr-defined]
    contract = make_contract("transcript", {"reply_tokens": 100})
    contract.reset(episode(instructions="Walk.", model=model))
    play(contract, 30)
    prompt = contract.assemble(observation(30))
    exact = len(model.prompt_tokens(prompt.messages())[0])
    assert exact <= 800 < exact + len(model.prompt_tokens(prompt.messages()[1:3])[0])
    estimate_only = make_contract("transcript", {"max_prompt_tokens": 800})
    estimate_only.reset(episode(instructions="Walk.", model=ScriptedModel([REPLY])))
    kept_by_estimate = len(play(estimate_only, 30).assemble(observation(30)).messages())
    assert len(prompt.messages()) < kept_by_estimate


def test_the_budget_defaults_to_the_model_context_window():
    model = ScriptedModel([REPLY.replace('"go"', '"report"')], cycle=True)
    model.context_window = 700  # type: ignore[attr-defined]
    contract = make_contract("transcript", {"reply_tokens": 100})
    run = run_episode(make("warehouse", horizon=40), contract, model, seed=1)
    assert run.status == "completed" and run.decisions == 40
    assert run.last_prompt_tokens <= 600 + 16  # scripted usage counts words, not template tokens
    assert approx_tokens("x") == 1


def test_each_prompt_starts_with_the_whole_previous_one():
    """A prefix cache serves a transcript's previous prompt: each turn is resent exactly as
    it was sent, reply format included, whatever that format was."""
    contract = make_contract("transcript")
    contract.reset(episode(instructions="Walk."))
    previous = None
    for i in range(4):
        obs = observation(i)
        if i % 2:  # a decision that allows several actions changes the reply format
            obs = obs.model_copy(update={"max_actions": 3})
        messages = contract.assemble(obs).messages()
        assert "Answer with one JSON object" in messages[-1]["content"]
        assert messages[0]["content"] == "Walk."
        if previous is not None:
            assert messages[: len(previous)] == previous
        decision = contract.parse(Completion(text=REPLY), obs)
        contract.commit(obs, decision, StepResult())
        previous = messages


def test_the_fallback_is_the_first_legal_action_unless_no_op_is_asked() -> None:
    from bounded.contracts.replies.policy import fallback_actions
    from bounded.contracts.transcript import TranscriptContract
    from bounded.core import Action, Observation

    obs = Observation(kind="stream", state={}, legal=[Action(id="report"), Action(id="x")])
    default = TranscriptContract().fallback_policy()
    assert [a.id for a in fallback_actions(obs, default, Action(id="x"))] == ["report"]
    no_op = fallback_actions(obs, TranscriptContract(fallback="no-op").fallback_policy())
    assert [a.id for a in no_op] == ["noop"]
