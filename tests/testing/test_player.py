"""The fake endpoint playing: every reply names a legal action of its request, in the format
the request asks for, so real games on real environments play without a fallback."""

import pytest

import bounded
from bounded.archive import Archive
from bounded.contracts.replies.rules import parse_reply
from bounded.core import Action, Observation
from bounded.testing.endpoint import Endpoint
from bounded.testing.player import Chooser, instance, listed_actions, play

FAST = {"retry": {"backoff_s": 0.01, "backoff_max_s": 0.05, "jitter_s": 0.0, "attempts": 2}}


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)


def played(endpoint: Endpoint, tmp_path, env: str, contract: str, config: dict, **options):
    spec = bounded.GameSpec(
        env=env, env_options=options, contract=contract, contract_config=config,
        model="openai:m", base_url=endpoint.url, model_options=FAST, seed=3, max_decisions=4,
    )  # fmt: skip
    with Archive(tmp_path / "a.sqlite") as archive:
        run = bounded.play(spec, archive=archive)
        return run, archive.decisions(run.run_id)


@pytest.mark.parametrize(
    ("env", "contract", "config"),
    [
        ("crafter", "typed", {}),
        ("crafter", "typed", {"reply": "json"}),
        ("crafter", "state", {"reply": "text"}),
        ("crafter", "transcript", {}),
        ("crafter", "balrog-naive", {}),
        ("crafter", "balrog-cot", {}),
        ("crafter", "balrog-robust-naive", {}),
        ("crafter", "balrog-robust-cot", {}),
        # an action with arguments: filled from the request's schema, or in a text reply
        # from the types its prompt lists (the warehouse's `report` alone is legal)
        ("warehouse", "state", {"reply": "constrained"}),
        ("warehouse", "state", {"reply": "text"}),
        ("warehouse", "typed", {"reply": "text"}),
        ("warehouse", "transcript", {"reply": "text"}),
        ("warehouse", "summary", {"reply": "text"}),
        ("warehouse", "summary", {"reply": "json"}),
        ("babyai", "typed", {"reply": "text", "text_rule": "decision-tag"}),
        # Chain of Summarization's prompt lists its actions as an action dictionary
        ("craft", "summary", {"reply": "text"}),
    ],
)
def test_every_reply_names_a_legal_action(tmp_path, env, contract, config):
    with Endpoint(plays="first") as endpoint:
        run, decisions = played(endpoint, tmp_path, env, contract, config)
    assert run.status == "completed" and decisions
    assert not [d.parse_error for d in decisions if d.parse_error]
    assert not any(d.fallback for d in decisions)


def test_random_play_is_the_same_game_for_the_same_seed(tmp_path):
    games = []
    for seed, folder in ((5, "a"), (5, "b"), (6, "c")):
        (tmp_path / folder).mkdir()
        with Endpoint(plays="random", seed=seed) as endpoint:
            _, decisions = played(endpoint, tmp_path / folder, "crafter", "typed", {})
        games.append([d.actions[0].id for d in decisions])
    assert games[0] == games[1]
    assert games[0] != games[2] or len(set(games[0])) == 1


def test_the_first_legal_action_is_chosen_from_a_schema_with_arguments():
    schema = {
        "type": "object",
        "properties": {
            "reasoning": {"type": "string", "maxLength": 9},
            "action": {
                "anyOf": [
                    {"type": "object", "properties": {"id": {"enum": ["wait", "go"]}},
                     "required": ["id"]},
                ]
            },
            "plan": {"type": "array", "items": {"type": "integer", "minimum": 2}, "minItems": 2},
        },
        "required": ["reasoning", "action", "plan"],
    }  # fmt: skip
    value = instance(schema, Chooser("first", 0, {}))
    assert value == {"reasoning": "", "action": {"id": "wait"}, "plan": [2, 2]}


def test_a_prompt_without_a_schema_is_answered_in_the_format_it_asks_for():
    obs = Observation(
        kind="step", text="a room",
        legal=[Action(id="Move West", label="move west"), Action(id="noop", label="Noop")],
    )  # fmt: skip
    listing = "a room\n\nLegal actions:\n- Move West: move west\n- noop: Noop"
    robust = f"{listing}\n\nOutput it as <|ACTION|>YOUR_CHOSEN_ACTION<|END|>."
    body = {"model": "m", "messages": [{"role": "user", "content": robust}]}
    reply = play(body, "first")
    assert reply == "<|ACTION|>Move West<|END|>"
    decision, _ = parse_reply(reply, obs, "text", "balrog-robust")
    assert [a.id for a in decision.actions] == ["Move West"]
    assert [a.id for a in listed_actions([listing])] == ["Move West", "noop"]


def test_a_prompt_that_lists_no_action_gets_the_endpoints_content():
    with Endpoint(plays="first", content="fixed") as endpoint:
        body = {"model": "m", "messages": [{"role": "user", "content": "hello"}]}
        reply = endpoint.completion_body(body, endpoint.then)
    assert reply["choices"][0]["message"]["content"] == "fixed"


def test_counted_usage_counts_the_request_as_bounded_does():
    with Endpoint(counts_usage=True) as endpoint:
        body = {"model": "m", "messages": [{"role": "user", "content": "one two, three"}]}
        usage = endpoint.completion_body(body, endpoint.ok(content='{"a": 1}'))["usage"]
    assert usage["prompt_tokens"] == 4  # words and punctuation marks each count one
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
