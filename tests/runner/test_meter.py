import logging

import bounded
from bounded.archive import Archive
from bounded.archive.totals import token_mismatch
from bounded.core import Prompt, approx_tokens
from bounded.models.scripted import ScriptedModel
from bounded.runner.episode import TOKEN_CHECK_CALLS
from bounded.runner.meter import PromptCounter
from bounded.testing.endpoint import Endpoint


def test_a_resent_text_is_counted_once_and_the_counts_are_the_prompts():
    counted = []

    def count(text):
        counted.append(text)
        return approx_tokens(text)

    counter = PromptCounter(count)
    turns = []
    for n in range(6):
        prompt = Prompt().add("instructions", "system", "play well")
        for turn in turns:
            prompt.add("history", "user", turn)
        prompt.add("observation", "user", f"event {n}: nothing")
        assert counter.by_layer(prompt) == prompt.tokens_by_layer(approx_tokens)
        turns.append(f"event {n}: nothing")
    assert sorted(counted) == sorted({"play well", *turns})  # each text once
    assert counter.by_layer(Prompt()) == {}  # a decision without a prompt
    counter.by_layer(Prompt().add("instructions", "system", "play well"))
    assert counted.count("play well") == 2  # kept only from the latest prompt


def test_every_call_is_counted_beside_what_the_server_reported():
    from bounded.runner.meter import MeteredModel

    model = ScriptedModel(['{"a": 1}'], cycle=True)
    meter = MeteredModel(model)
    messages = [{"role": "system", "content": "play well"}, {"role": "user", "content": "go, now"}]
    meter.complete(messages)
    [call] = meter.drain()
    assert call.counted_prompt_tokens == approx_tokens("play well") + approx_tokens("go, now")
    assert call.counted_completion_tokens == approx_tokens('{"a": 1}')


def play_against(endpoint, tmp_path):
    spec = bounded.GameSpec(
        env="warehouse", env_options={"horizon": 4}, contract="state", model="openai:m",
        base_url=endpoint.url, seed=1,
    )  # fmt: skip
    with Archive(tmp_path / "a.sqlite") as archive:
        return bounded.play(spec, archive=archive)


def test_a_server_that_misreports_usage_is_warned_about_once(tmp_path, caplog, monkeypatch):
    for name in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    # the endpoint reports 10 prompt tokens a call
    with caplog.at_level(logging.WARNING, logger="bounded"), Endpoint(plays="first") as endpoint:
        run = play_against(endpoint, tmp_path)
    warned = [r.getMessage() for r in caplog.records if "bounded counted" in r.getMessage()]
    reported_then = 10 * TOKEN_CHECK_CALLS  # the warning comes once that many calls are in
    assert len(warned) == 1 and f"openai:m reported {reported_then} prompt" in warned[0]
    usage = run.usage["openai:m"]
    assert usage["prompt_tokens"] == 40 and usage["counted_prompt_tokens"] > 4 * 40
    assert token_mismatch(run) is not None


def test_a_server_whose_usage_agrees_is_not_flagged(tmp_path, caplog, monkeypatch):
    for name in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    honest = Endpoint(plays="first", counts_usage=True)
    with caplog.at_level(logging.WARNING, logger="bounded"), honest as endpoint:
        run = play_against(endpoint, tmp_path)
    assert not [r for r in caplog.records if "bounded counted" in r.getMessage()]
    usage = run.usage["openai:m"]
    assert usage["prompt_tokens"] == usage["counted_prompt_tokens"] > 0
    assert token_mismatch(run) is None
