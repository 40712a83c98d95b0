import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import ClassVar

import pytest

from bounded.contracts import make_contract
from bounded.contracts._reply import parse_decision
from bounded.core import Action, ConfigError, Observation
from bounded.models import make_model
from bounded.models.openai_compat import OpenAICompatModel
from bounded.testing import episode

REPLY = '{"action": {"id": "go_north"}}'
CHOICES = [Action(id=f"go_{d}", label=f"go {d}") for d in ("north", "south")]


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


class FlakyHandler(BaseHTTPRequestHandler):
    """Answers 503 `failures` times, then a valid chat completion; counts requests."""

    failures = 0
    status = 503
    requests: ClassVar[list[dict]] = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append(body)
        if type(self).failures > 0:
            type(self).failures -= 1
            self._send(type(self).status, {"error": {"message": "busy"}})
            return
        reply = {
            "id": "c1", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": REPLY}}],
            "usage": {"prompt_tokens": 11, "completion_tokens": 5, "total_tokens": 16,
                      "prompt_tokens_details": {"cached_tokens": 7}},
        }  # fmt: skip
        self._send(200, reply)

    def _send(self, status, payload):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def flaky_server():
    FlakyHandler.requests = []
    server = HTTPServer(("127.0.0.1", 0), FlakyHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/v1"
    server.shutdown()


def test_retries_on_server_errors_then_records_usage(flaky_server):
    FlakyHandler.failures, FlakyHandler.status = 2, 503
    model = OpenAICompatModel("m", base_url=flaky_server, schema_mode="none", max_wait_s=0.05)
    completion = model.complete([{"role": "user", "content": "hi"}])
    assert len(FlakyHandler.requests) == 3
    assert (completion.prompt_tokens, completion.completion_tokens, completion.cached_tokens) == (
        11,
        5,
        7,
    )


def test_retries_on_rate_limits(flaky_server):
    FlakyHandler.failures, FlakyHandler.status = 1, 429
    model = OpenAICompatModel("m", base_url=flaky_server, schema_mode="none", max_wait_s=0.05)
    model.complete([{"role": "user", "content": "hi"}])
    assert len(FlakyHandler.requests) == 2


def test_gives_up_after_the_configured_attempts(flaky_server):
    import openai

    FlakyHandler.failures, FlakyHandler.status = 10, 500
    model = OpenAICompatModel(
        "m", base_url=flaky_server, schema_mode="none", attempts=3, max_wait_s=0.01
    )
    with pytest.raises(openai.InternalServerError):
        model.complete([{"role": "user", "content": "hi"}])
    assert len(FlakyHandler.requests) == 3


def test_a_bad_request_is_not_retried(flaky_server):
    import openai

    FlakyHandler.failures, FlakyHandler.status = 5, 400
    model = OpenAICompatModel("m", base_url=flaky_server, schema_mode="none", max_wait_s=0.01)
    with pytest.raises(openai.BadRequestError):
        model.complete([{"role": "user", "content": "hi"}])
    assert len(FlakyHandler.requests) == 1


def test_auto_mode_falls_back_to_the_json_object_form(flaky_server):
    FlakyHandler.failures, FlakyHandler.status = 1, 500
    model = OpenAICompatModel("m", base_url=flaky_server, max_wait_s=0.01)
    schema = {"type": "object"}
    model.complete([{"role": "user", "content": "hi"}], constraint=schema)
    model.complete([{"role": "user", "content": "hi"}], constraint=schema)
    forms = [r["response_format"]["type"] for r in FlakyHandler.requests]
    assert forms == ["json_schema", "json_object", "json_object"]
    assert FlakyHandler.requests[1]["response_format"]["schema"] == schema


def test_standard_server_keeps_the_json_schema_form(flaky_server):
    FlakyHandler.failures = 0
    model = OpenAICompatModel("m", base_url=flaky_server)
    for _ in range(2):
        model.complete([{"role": "user", "content": "hi"}], constraint={"type": "object"})
    assert [r["response_format"]["type"] for r in FlakyHandler.requests] == ["json_schema"] * 2


def test_missing_key_without_base_url_is_a_config_error(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        make_model("openai:some-model")
    with pytest.raises(ConfigError, match="unknown model"):
        make_model("anthropic:x")
