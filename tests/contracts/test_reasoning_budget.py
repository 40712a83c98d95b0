"""The reasoning budget is the model's: the embedded model keeps its 120 characters (its
prompts, schemas and parsed decisions byte-identical to before), other models reason
uncapped by default, a configured cap is a contract option, and what is resent follows it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from bounded.contracts import make_contract
from bounded.contracts.replies.policy import reasoning_chars_in_force
from bounded.contracts.replies.reading import REASONING_MAX_CHARS
from bounded.core import Action, Completion, ConfigError, Observation, StepResult
from bounded.protocols import EMBEDDED_REASONING_CHARS
from bounded.testing import episode

sys.path.insert(0, str(Path(__file__).parent))
import embedded_views

REASONING_CONTRACTS = ("transcript", "state", "typed", "episodic", "rag", "reflexion", "paged")
LEGAL = [Action(id="go_north", label="go north"), Action(id="go_south", label="go south")]
OBS = Observation(kind="choice", text="Where now?", legal=LEGAL)


def test_the_embedded_models_prompts_schemas_and_decisions_are_byte_identical_to_before():
    golden = json.loads(embedded_views.GOLDEN.read_text())
    now = embedded_views.views(embedded_views.stand_in(EMBEDDED_REASONING_CHARS))
    assert now.keys() == golden.keys()
    for key, hashes in golden.items():
        assert now[key] == hashes, key


def test_the_embedded_budget_is_todays_limit():
    assert EMBEDDED_REASONING_CHARS == REASONING_MAX_CHARS == 120


def reasoning_field(schema):
    return schema["properties"]["reasoning"]


@pytest.mark.parametrize("name", REASONING_CONTRACTS)
def test_the_default_follows_the_model(name):
    contract = make_contract(name)
    contract.reset(episode(model=embedded_views.stand_in(EMBEDDED_REASONING_CHARS)))
    assert reasoning_field(contract.reply_schema(OBS)) == {"type": "string", "maxLength": 120}
    contract.reset(episode(model=embedded_views.stand_in(None)))  # an endpoint's model
    assert reasoning_field(contract.reply_schema(OBS)) == {"type": "string"}


@pytest.mark.parametrize("name", REASONING_CONTRACTS)
def test_a_configured_cap_wins_over_the_models(name):
    capped = make_contract(name, {"reasoning_chars": 40})
    capped.reset(episode(model=embedded_views.stand_in(None)))
    assert reasoning_field(capped.reply_schema(OBS))["maxLength"] == 40
    free = make_contract(name, {"reasoning_chars": None})
    free.reset(episode(model=embedded_views.stand_in(EMBEDDED_REASONING_CHARS)))
    assert "maxLength" not in reasoning_field(free.reply_schema(OBS))


@pytest.mark.parametrize("bad", [0, -3, "lots", 1.5])
def test_a_bad_cap_is_one_line_naming_the_field(bad):
    with pytest.raises(ConfigError, match="reasoning_chars"):
        make_contract("state", {"reasoning_chars": bad})


def test_the_rule_in_one_place():
    assert reasoning_chars_in_force(55, embedded_views.stand_in(120)) == 55
    assert reasoning_chars_in_force(None, embedded_views.stand_in(120)) is None
    assert reasoning_chars_in_force("model", embedded_views.stand_in(120)) == 120
    assert reasoning_chars_in_force("model", object()) is None  # a model declaring nothing
    assert reasoning_chars_in_force("model") is None


def typed_l1(reasoning_chars):
    contract = make_contract("typed")
    contract.reset(episode(model=embedded_views.stand_in(reasoning_chars)))
    return contract.assemble(OBS).messages()[0]["content"]


def test_the_first_message_asks_for_a_short_reasoning_only_where_capped():
    assert 'a short "reasoning" first' in typed_l1(120)
    uncapped = typed_l1(None)
    assert "short" not in uncapped and 'your "reasoning" first' in uncapped


LONG = "because " * 250  # 2,000 characters


def reply(reasoning=LONG):
    return json.dumps({"reasoning": reasoning, "action": {"id": "go_north"}})


@pytest.mark.parametrize("name", REASONING_CONTRACTS)
def test_a_long_reasoning_is_archived_whole_under_a_cap(name):
    contract = make_contract(name, {"reasoning_chars": 120})
    contract.reset(episode(model=embedded_views.stand_in(None)))
    contract.assemble(OBS)
    decision = contract.parse(Completion(text=reply()), OBS)
    assert decision.reasoning == LONG
    assert [a.id for a in decision.actions] == ["go_north"]


def test_the_transcript_resends_a_reasoning_cut_to_its_cap_and_records_the_cut():
    contract = make_contract("transcript", {"reasoning_chars": 120})
    contract.reset(episode(model=embedded_views.stand_in(None)))
    contract.assemble(OBS)
    decision = contract.parse(Completion(text=reply()), OBS)
    contract.commit(OBS, decision, StepResult())
    resent = json.loads(contract.history[0][1])
    assert resent == {"reasoning": LONG[:120], "action": {"id": "go_north"}}
    assert decision.extra["cut"] == {"reasoning": len(LONG)}
    assert decision.reasoning == LONG


def test_the_transcript_resends_a_reply_within_its_cap_as_written():
    for cap, text in ((None, reply()), (120, reply("short and sweet"))):
        contract = make_contract("transcript", {"reasoning_chars": cap})
        contract.reset(episode(model=embedded_views.stand_in(None)))
        contract.assemble(OBS)
        decision = contract.parse(Completion(text=text), OBS)
        contract.commit(OBS, decision, StepResult())
        assert contract.history[0][1] == text and "cut" not in decision.extra


def test_the_episodic_short_exploration_reply_follows_the_model_too():
    legal = [*LEGAL, Action(id="EMPTY ACTION", label="wait")]
    obs = Observation(kind="macro", text="t=0", legal=legal)
    settings = {"prompt": "short", "gating_start": "immediate"}
    for declared, expected in (
        (120, {"type": "string", "maxLength": 120}),
        (None, {"type": "string"}),
    ):
        contract = make_contract("episodic", dict(settings))
        contract.reset(episode(model=embedded_views.stand_in(declared)))
        schema = contract.reply_schema(obs)
        assert "actions" in schema["properties"]  # the exploration reply
        assert reasoning_field(schema) == expected
