"""`bounded models probe URL` against a real server that refuses some formats."""

from bounded.cli import main
from bounded.models.openai_compat import OpenAICompatModel
from bounded.models.probe import playable_modes, probe
from bounded.testing.endpoint import Endpoint

FAST = {"backoff_s": 0.01, "jitter_s": 0.0, "attempts": 2}


def test_a_server_without_strict_schemas_plays_constrained_in_llama_cpps_form():
    with Endpoint(refuses=frozenset({"json_schema"}), content='{"ok": true}') as server:
        results = probe(OpenAICompatModel("m", base_url=server.url, retry=FAST))
        forms = server.forms()
    assert forms == ["json_schema", "json_object", "json_object", None]
    assert [(r.format, r.verdict) for r in results] == [
        ("json_schema", "refused"), ("json_object+schema", "accepted"),
        ("json_object", "accepted"), ("none", "accepted"),
    ]  # fmt: skip
    assert results[1].kept is True and results[3].kept is None
    assert playable_modes(results) == {
        "constrained": "json_object+schema", "json": "json_object", "text": "none",
    }  # fmt: skip


def test_a_server_that_ignores_the_format_is_named():
    with Endpoint(content="sure, ok") as server:
        results = probe(OpenAICompatModel("m", base_url=server.url, retry=FAST))
    assert [r.kept for r in results] == [False, False, False, None]


def test_the_cli_prints_a_line_per_format_and_the_playable_modes(capsys):
    refusing = Endpoint(refuses=frozenset({"json_schema", "json_object"}), content="{}")
    with refusing as server:
        main(["models", "probe", server.url])
    out = capsys.readouterr().out
    assert "json_schema: refused" in out and "json_object: refused" in out
    assert "reply = 'constrained': refused" in out and "reply = 'text': plays with none" in out
