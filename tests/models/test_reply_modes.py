"""Reply modes against a real OpenAI-compatible server (`bounded.testing.endpoint`): each
mode sends the response format it says (read on the requests the server received), and an
endpoint that refuses a format is named in one line, then either the next mode the contract
allows is played or the run stops before playing."""

import json
import logging

import pytest

import bounded
from bounded.archive import Archive
from bounded.cli import main
from bounded.runner.replies import ReplyFormatError
from bounded.testing.endpoint import Endpoint

ARGS = {"occupied": 0, "shipped": 0}
STATE_REPLY = json.dumps({"state_patch": {}, "action": {"id": "report", "args": ARGS}})
SCHEMA_REPLY = json.dumps(
    {"reasoning": "", "state_patch": {}, "action": {"id": "report", "args": ARGS}}
)
"""What the strict schema asks for: every key, reasoning first."""
PROSE_REPLY = "I store nothing yet, so I report zeros.\n```json\n" + STATE_REPLY + "\n```"
FAST = {"retry": {"backoff_s": 0.01, "backoff_max_s": 0.05, "jitter_s": 0.0, "attempts": 2}}


def spec(
    server: Endpoint, reply: str, fallback: list[str] | None = None, **more
) -> bounded.GameSpec:
    config = {"reply": reply, **({"reply_fallback": fallback} if fallback is not None else {})}
    return bounded.GameSpec(
        env="warehouse", env_options={"horizon": 2}, contract="state", contract_config=config,
        model="openai:m", base_url=server.url, model_options=FAST, seed=1, **more,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("mode", "form", "content"),
    [("constrained", "json_schema", SCHEMA_REPLY), ("json", "json_object", STATE_REPLY),
     ("text", None, PROSE_REPLY)],
)  # fmt: skip
def test_each_mode_sends_its_response_format(fault_server, tmp_path, mode, form, content):
    fault_server.play(then=fault_server.ok(content=content))
    with Archive(tmp_path / "a.sqlite") as archive:
        run = bounded.play(spec(fault_server, mode), archive=archive)
        decisions = archive.decisions(run.run_id)
    assert fault_server.forms() == [form, form]
    bodies = [r.body["response_format"] for r in fault_server.requests if form]
    if mode == "constrained":  # strict, under the schema of the legal actions
        assert all(b["json_schema"]["strict"] is True for b in bodies)
        assert all("action" in b["json_schema"]["schema"]["properties"] for b in bodies)
    if mode == "json":  # any object: no schema sent
        assert bodies == [{"type": "json_object"}] * 2
    assert [d.actions[0].id for d in decisions] == ["report", "report"]
    assert not any(d.fallback for d in decisions)
    reply = run.model_params["reply"]
    assert reply["mode"] == reply["asked"] == mode
    assert reply["response_format"] == (form or "none")
    assert reply["honoured"] is (None if mode == "text" else True)


def test_a_text_reply_keeps_its_reasoning(fault_server, tmp_path):
    fault_server.play(then=fault_server.ok(content=PROSE_REPLY))
    with Archive(tmp_path / "a.sqlite") as archive:
        run = bounded.play(spec(fault_server, "text"), archive=archive)
        first = archive.decisions(run.run_id)[0]
    assert first.reasoning == "I store nothing yet, so I report zeros."
    assert first.state_patch == {}


def test_replies_that_break_the_asked_format_are_counted_as_not_honoured(fault_server, tmp_path):
    fault_server.play(then=fault_server.ok(content="report, I think"))  # the server ignored it
    with Archive(tmp_path / "a.sqlite") as archive:
        run = bounded.play(spec(fault_server, "json"), archive=archive)
    reply = run.model_params["reply"]
    assert reply["honoured"] is False and reply["off_format"] == 2 and reply["replies"] == 2


def test_a_constrained_reply_outside_the_schema_is_not_honoured(fault_server, tmp_path):
    fault_server.play(then=fault_server.ok(content=STATE_REPLY))  # no "reasoning": not strict
    run = bounded.play(spec(fault_server, "constrained"))
    assert run.model_params["reply"]["honoured"] is False
    assert run.model_params["reply"]["off_format"] == 2


def test_a_refused_schema_falls_back_to_the_next_allowed_mode(tmp_path, caplog):
    with Endpoint(refuses=frozenset({"json_schema", "json_object"})) as server:
        server.play(then=server.ok(content=PROSE_REPLY))
        logged = caplog.at_level(logging.WARNING, logger="bounded")
        with logged, Archive(tmp_path / "a.sqlite") as archive:
            run = bounded.play(spec(server, "constrained", ["json", "text"]), archive=archive)
            decisions = archive.decisions(run.run_id)
        forms = server.forms()
    # json_schema, llama.cpp's json_object form, json_object: each refused once, then text
    assert forms == ["json_schema", "json_object", "json_object", None, None]
    assert run.status == "completed" and len(decisions) == 2
    assert not any(d.fallback for d in decisions)
    reply = run.model_params["reply"]
    assert (reply["asked"], reply["mode"], reply["response_format"]) == (
        "constrained",
        "text",
        "none",
    )
    assert len(reply["refused"]) == 2 and "refuses the json_object+schema" in reply["refused"][0]
    assert "refuses the json_object response format" in reply["refused"][1]
    assert run.contract_config["reply"] == "text"  # what was played, in the identity
    assert "playing in 'json' mode" in caplog.text and "playing in 'text' mode" in caplog.text


def test_the_identity_of_a_game_that_fell_back_is_not_the_planned_ones(tmp_path):
    from bounded.runner.build import check_spec
    from bounded.runner.identity import identity_hash

    with Endpoint(refuses=frozenset({"json_schema", "json_object"})) as server:
        server.play(then=server.ok(content=PROSE_REPLY))
        planned = spec(server, "constrained", ["text"])
        run = bounded.play(planned)
    assert run.identity and run.identity != identity_hash(planned, check_spec(planned))
    assert run.inputs["contract_config_hash"] != check_spec(planned)["contract_config_hash"]


def test_a_refused_format_without_a_fallback_stops_before_playing(tmp_path):
    refusing = Endpoint(refuses=frozenset({"json_object"}))
    with refusing as server, Archive(tmp_path / "a.sqlite") as archive:
        with pytest.raises(ReplyFormatError, match="refuses the json_object response format"):
            bounded.play(spec(server, "json"), archive=archive)
        [run] = archive.runs()
        decisions = archive.decisions(run.run_id)
    assert run.status == "failed" and decisions == [] and server.calls == 1
    assert "reply_fallback" in run.error and "\n" not in run.error


def test_the_cli_names_a_refused_format_in_one_line(tmp_path, capsys):
    with (
        Endpoint(refuses=frozenset({"json_schema", "json_object"})) as server,
        pytest.raises(SystemExit) as stopped,
    ):
        main([
            "run", "warehouse", "--horizon", "2", "--contract", "state", "--reply", "json",
            "--model", "openai:m", "--base-url", server.url,
            str(tmp_path / "a.sqlite"),
        ])  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert stopped.value.code == 2
    assert err[-1].startswith("bounded: error: ") and "refuses the json_object" in err[-1]


def test_llama_cpps_form_is_named_when_json_schema_is_refused(tmp_path, caplog):
    with Endpoint(refuses=frozenset({"json_schema"})) as server:
        server.play(then=server.ok(content=STATE_REPLY))
        with caplog.at_level(logging.WARNING, logger="bounded"):
            run = bounded.play(spec(server, "constrained"))
        forms = server.forms()
    assert forms == ["json_schema", "json_object", "json_object"]
    assert run.model_params["reply"]["response_format"] == "json_object+schema"
    assert run.model_params["reply"]["mode"] == "constrained"
    assert "refuses the json_schema response format" in caplog.text
