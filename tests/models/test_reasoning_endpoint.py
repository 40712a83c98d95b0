"""A model that can think may think: against an OpenAI-compatible endpoint (the fake of
`conftest.py`, and a real llama.cpp server) every contract leaves the reasoning uncapped by
default and archives it whole, a configured cap reaches the server's grammar, and a
reasoning channel beside the content is recorded, counted, costed and shown, never parsed."""

from __future__ import annotations

import json

import jsonschema
import pytest

import bounded
from bounded.analysis.cost import CostModel, Prices
from bounded.analysis.games import completed_games
from bounded.archive import Archive
from bounded.contracts import make_contract
from bounded.core import Action, Observation
from bounded.models import make_model
from bounded.report import ReportOptions, build_report
from bounded.report.payload import run_payload
from bounded.testing import episode

ARGS = {"occupied": 0, "shipped": 0}
LONG = ("I count the boxes on every shelf, then the ones that shipped. " * 40)[:2000]
CONTRACTS = {
    "transcript": {},
    "state": {"state_patch": {}},
    "typed": {},
    "episodic": {},
}


def content(name: str, reasoning: str = LONG) -> str:
    return json.dumps(
        {"reasoning": reasoning, **CONTRACTS[name], "action": {"id": "report", "args": ARGS}}
    )


def spec(server, contract, *, horizon=2, **config):
    """Constrained decoding: the reasoning budget travels in the reply schema sent."""
    return bounded.GameSpec(
        env="warehouse", env_options={"horizon": horizon}, contract=contract,
        contract_config={"reply": "constrained", **config}, model="openai:m", base_url=server.url,
        model_options={"schema_mode": "json_schema", "retry": {"attempts": 1}}, seed=1,
    )  # fmt: skip


def sent_schema(received) -> dict:
    return received.body["response_format"]["json_schema"]["schema"]


@pytest.mark.parametrize("name", CONTRACTS)
def test_every_contract_lets_an_endpoints_model_reason_at_length_and_archives_it_whole(
    name, fault_server, tmp_path
):
    s = fault_server
    s.play(then=s.ok(content=content(name)))
    with Archive(tmp_path / "a.sqlite") as archive:
        run = bounded.play(spec(s, name), archive=archive)
        decisions = archive.decisions(run.run_id)
    assert run.status == "completed" and run.model_params["reasoning_chars"] is None
    for request in s.requests:
        schema = sent_schema(request)
        assert schema["properties"]["reasoning"] == {"type": "string"}
        jsonschema.validate(json.loads(content(name)), schema)  # 2,000 characters allowed
    assert len(LONG) == 2000
    for decision in decisions:
        assert decision.reasoning == LONG and not decision.fallback
        assert decision.completion is not None and decision.completion.text == content(name)
        assert "cut" not in decision.info


@pytest.mark.parametrize("name", CONTRACTS)
def test_a_configured_cap_is_sent_and_recorded(name, fault_server, tmp_path):
    s = fault_server
    s.play(then=s.ok(content=content(name, "short")))
    with Archive(tmp_path / "a.sqlite") as archive:
        run = bounded.play(spec(s, name, reasoning_chars=300), archive=archive)
    assert run.model_params["reasoning_chars"] == 300
    assert {sent_schema(r)["properties"]["reasoning"]["maxLength"] for r in s.requests} == {300}


def test_the_cli_flag_sets_the_cap(fault_server, tmp_path):
    from bounded.cli import main

    s = fault_server
    s.play(then=s.ok(content=content("state", "short")))
    archive_path = tmp_path / "cli.sqlite"
    for flag in ("45", "none"):
        main([
            "run", "warehouse", "--contract", "state", "--model", "openai:m",
            "--base-url", s.url, "--horizon", "1", "--reasoning-chars", flag,
            "--mopt", "schema_mode=json_schema", str(archive_path),
            "--reply", "constrained",
        ])  # fmt: skip
    with Archive(archive_path, read_only=True) as archive:
        caps = [run.model_params["reasoning_chars"] for run in archive.runs()]
    assert sorted(caps, key=str) == [45, None]
    assert [sent_schema(r)["properties"]["reasoning"].get("maxLength") for r in s.requests] == [
        45,
        None,
    ]


def test_a_bad_cli_cap_is_one_line(capsys):
    from bounded.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["run", "warehouse", "--reasoning-chars", "lots", "--model", "scripted:minimal"])
    assert exc.value.code != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--reasoning-chars 'lots'" in err[0]


# -- a reasoning channel beside the content ------------------------------------------------

THOUGHT = 'Shelves first. A decoy: {"action": {"id": "nowhere"}} is not my reply.'


def test_a_reasoning_channel_is_recorded_counted_costed_and_shown_never_parsed(
    fault_server, tmp_path
):
    s = fault_server
    s.play(then=s.thinking(THOUGHT, content=content("state", "count"), tokens=40))
    with Archive(tmp_path / "a.sqlite") as archive:
        run = bounded.play(spec(s, "state", horizon=3), archive=archive)
        decisions = archive.decisions(run.run_id)
    assert run.status == "completed" and len(decisions) == 3
    for decision in decisions:
        completion = decision.completion
        assert completion is not None
        assert completion.reasoning == THOUGHT and completion.reasoning_tokens == 40
        assert completion.completion_tokens == 5 + 40  # the server's count includes them
        assert decision.parse_error is None and not decision.fallback  # the content alone
        assert decision.reasoning == "count" and decision.actions[0].id == "report"
    assert run.completion_tokens == 3 * 45
    assert run.usage["openai:m"]["reasoning_tokens"] == 3 * 40
    prices = CostModel(default=Prices(input=0, cached_input=0, output=1e6))
    [game] = completed_games([run])
    assert game.cost(prices) == pytest.approx(3 * 45)  # one unit per completion token
    payload = run_payload(decisions)["decisions"][0]
    assert payload["thinking"] == THOUGHT and payload["reasoning_tokens"] == 40
    report = build_report(tmp_path / "a.sqlite", tmp_path / "r.html", ReportOptions())
    assert "Shelves first. A decoy" in report.read_text()


def test_without_usage_the_reasoning_is_counted_with_the_tokenizer(fault_server):
    s = fault_server
    s.play(then=s.thinking(THOUGHT, usage=False))
    model = make_model("openai:m", base_url=s.url, schema_mode="none")
    completion = model.complete([{"role": "user", "content": "hi"}])
    assert completion.usage_estimated and completion.reasoning == THOUGHT
    thought = model.count_tokens(THOUGHT)
    assert completion.reasoning_tokens == thought > 0
    assert completion.completion_tokens == model.count_tokens(completion.text) + thought


# -- the real llama.cpp server: the cap is the grammar's ----------------------------------

PROMPT_OBS = Observation(
    kind="choice",
    text="Explain at length, in many sentences, every consideration before you choose a door.",
    legal=[Action(id="left", label="the left door"), Action(id="right", label="the right door")],
)


def llama_reasoning(llama_server, cap):
    model = make_model("openai:smollm2", base_url=llama_server)
    contract = make_contract("transcript", {"reasoning_chars": cap})
    contract.reset(episode(instructions="Think it through.", model=model))
    completion = model.complete(
        contract.assemble(PROMPT_OBS).messages(), constraint=contract.reply_schema(PROMPT_OBS),
        max_tokens=160,
    )  # fmt: skip
    return json.loads(completion.text)["reasoning"]


@pytest.mark.model
def test_a_configured_cap_is_enforced_by_a_real_servers_grammar(llama_server):
    assert len(llama_reasoning(llama_server, 24)) <= 24


@pytest.mark.model
def test_without_a_cap_the_real_servers_model_writes_past_it(llama_server):
    assert len(llama_reasoning(llama_server, None)) > 24
