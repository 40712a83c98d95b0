"""The reply mode is part of a game's identity, and a run's ledger of its replies."""

import json

import bounded
from bounded.core import Completion, Decision
from bounded.models.scripted import ScriptedModel
from bounded.runner.build import check_spec
from bounded.runner.identity import identity_hash
from bounded.runner.replies import ReplyLedger, keeps_format

ARGS = {"occupied": 0, "shipped": 0}
SCHEMA = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}


def test_the_spec_hash_differs_between_modes():
    hashes = set()
    for mode in ("constrained", "json", "text"):
        spec = bounded.GameSpec(env="warehouse", contract="state", contract_config={"reply": mode})
        inputs = check_spec(spec)
        hashes.add((identity_hash(spec, inputs), inputs["contract_config_hash"]))
    assert len({h for h, _ in hashes}) == 3 and len({c for _, c in hashes}) == 3


def test_a_presets_mode_is_in_its_identity_without_being_named_in_the_spec():
    text = bounded.GameSpec(env="babyai", contract="balrog-naive")
    schema = bounded.GameSpec(
        env="babyai", contract="balrog-naive", contract_config={"reply": "constrained"}
    )
    assert check_spec(text)["contract_config_hash"] != check_spec(schema)["contract_config_hash"]


def test_the_run_records_its_mode_and_what_was_sent():
    reply = json.dumps({"state_patch": {}, "action": {"id": "report", "args": ARGS}})
    spec = bounded.GameSpec(env="warehouse", env_options={"horizon": 2}, contract="state",
                            contract_config={"reply": "json"})  # fmt: skip
    run = bounded.play(spec, model=ScriptedModel([reply] * 2))
    assert run.model_params["reply"] == {
        "mode": "json", "asked": "json", "response_format": "constraint", "honoured": True,
        "refused": [], "replies": 2, "off_format": 0, "cut": 0,
    }  # fmt: skip
    assert run.contract_config["reply"] == "json"


def test_the_ledger_reads_each_mode_by_its_format():
    assert keeps_format("constrained", '{"a": 1}', SCHEMA)
    assert not keeps_format("constrained", '{"a": "x"}', SCHEMA)
    assert keeps_format("json", 'here: {"b": 1}', None) and not keeps_format("json", "b", None)
    assert keeps_format("text", "anything at all", None)
    ledger = ReplyLedger(asked="json", mode="json")
    ledger.read(Completion(text="no", finish_reason="stop"), {"type": "object"}, "json_object")
    ledger.read(Completion(text='{"a', finish_reason="length"), {"type": "object"}, None)
    assert ledger.record()["off_format"] == 1 and ledger.record()["cut"] == 1
    assert ledger.record()["response_format"] == "json_object"
    assert ledger.record()["honoured"] is False


def test_a_constrained_game_without_a_fallback_records_its_config_as_before():
    from bounded.contracts import make_contract

    for name in ("typed", "transcript"):  # constrained by default
        assert not {"reply", "reply_fallback", "text_rule"} & set(make_contract(name).config_dict())
    asked = make_contract("state", {"reply": "constrained"}).config_dict()
    assert not {"reply", "reply_fallback", "text_rule"} & set(asked)  # today's text default
    assert make_contract("state").config_dict()["reply"] == "text"
    allowed = make_contract("transcript", {"reply_fallback": ["text"]}).config_dict()
    assert allowed["reply"] == "constrained" and allowed["reply_fallback"] == ["text"]
    assert make_contract("balrog-naive").config_dict()["text_rule"] == "balrog-naive"


def test_the_ledger_takes_what_the_parse_decoded_and_decodes_only_where_it_is_not_said(
    monkeypatch,
):
    decoded = []

    def counting(text):
        decoded.append(text)
        return {"a": 1}, 0

    monkeypatch.setattr("bounded.runner.replies.decode_reply", counting)
    ledger = ReplyLedger(asked="constrained", mode="constrained")
    said = Completion(text='{"a": 1}', finish_reason="stop")
    ledger.read(said, SCHEMA, None, Decision(reply_object={"a": 1}))
    ledger.read(said, SCHEMA, None, Decision(reply_object=None))  # the parse found none
    assert decoded == [] and ledger.record()["off_format"] == 1
    ledger.read(said, SCHEMA, None, Decision())  # a contract that does not say
    assert decoded == ['{"a": 1}'] and ledger.record()["off_format"] == 1


def test_a_play_decodes_each_reply_once(monkeypatch):
    import bounded.contracts.replies.reading as reply_module

    calls = []
    original = reply_module.decode_reply

    def counting(text, **kwargs):
        calls.append(text)
        return original(text, **kwargs)

    monkeypatch.setattr(reply_module, "decode_reply", counting)
    monkeypatch.setattr("bounded.runner.replies.decode_reply", counting)
    reply = json.dumps({"action": {"id": "report", "args": ARGS}})
    spec = bounded.GameSpec(env="warehouse", env_options={"horizon": 3}, contract="transcript",
                            contract_config={"reply": "json"})  # fmt: skip
    run = bounded.play(spec, model=ScriptedModel([reply] * 3))
    assert run.model_params["reply"]["replies"] == 3 and len(calls) == 3
