"""One reply-settings model: every contract config shares the reply mode, the reasoning and
its budget and the fallback as `bounded.contracts.replies.settings` defines them once, and
`ConfiguredContract` reads them (the fallback policy, the reply schema, the budget in
force). The papers' contracts and presets reply in their paper's mode by default; a game
asked for `constrained` keeps the identity it had before reply modes existed."""

from __future__ import annotations

import pytest

from bounded.contracts import PRESETS, make_contract
from bounded.contracts._configured import ConfiguredContract
from bounded.contracts.balrog_presets import BALROG_PRESETS
from bounded.contracts.episodic.presets import EPISODIC_PRESETS
from bounded.contracts.replies.settings import FallbackSettings, ReasoningSettings, ReplySettings
from bounded.contracts.typed.presets import TYPED_PRESETS
from bounded.core import Action, Observation, stable_hash
from bounded.testing import episode

REASONING = ["typed", "state", "transcript", "rag", "reflexion", "paged", "episodic"]
OBS = Observation(kind="test", text="t", legal=[Action(id="a"), Action(id="b")])


def built(name: str, config: dict | None = None):
    """A contract or preset (the frozen typed presets read a store: one is named)."""
    store = {"store_dir": "unread"} if name in TYPED_PRESETS else {}
    return make_contract(name, {**store, **(config or {})})


class Budgeted:
    """A model that declares a reasoning budget, as the embedded one does."""

    id = "budgeted"
    context_window = None
    reasoning_chars = 55

    def count_tokens(self, text: str) -> int:
        return len(text.split())


@pytest.mark.parametrize("name", REASONING)
def test_every_reasoning_contract_reads_the_one_settings_model(name):
    contract = make_contract(name)
    assert isinstance(contract, ConfiguredContract)
    assert isinstance(contract.config, ReasoningSettings)
    fields = type(contract.config).model_fields
    assert (
        fields["reasoning_chars"].description
        == ReasoningSettings.model_fields["reasoning_chars"].description
    )  # documented once
    assert contract.reasoning_chars is None  # before a reset: no model, no budget
    contract.reset(episode(model=Budgeted()))
    assert contract.reasoning_chars == 55
    schema = contract.decision_reply_schema(OBS)
    assert schema["properties"]["reasoning"] == {"type": "string", "maxLength": 55}
    capped = make_contract(name, {"reasoning_chars": 30})
    capped.reset(episode(model=Budgeted()))
    assert capped.reasoning_chars == 30


@pytest.mark.parametrize(
    ("name", "policy"),
    [("state", "no-op"), ("transcript", "first-legal"), ("rag", "first-legal"),
     ("reflexion", "first-legal"), ("paged", "first-legal"), ("balrog-naive", "game-default"),
     ("typed", "game-default"), ("episodic", "game-default"), ("summary", "game-default")],
)  # fmt: skip
def test_the_fallback_policy_is_the_configs_else_the_games_default(name, policy):
    contract = make_contract(name)
    assert contract.fallback_policy() == policy
    if isinstance(contract.config, FallbackSettings):
        assert make_contract(name, {"fallback": "no-op"}).fallback_policy() == "no-op"


def test_the_papers_contracts_and_presets_reply_in_their_papers_mode():
    papers = {"state", "summary", *EPISODIC_PRESETS, *TYPED_PRESETS, *BALROG_PRESETS}
    for name in papers:
        assert built(name).reply_mode == "text", name
    rules = {"state": "json-block", "summary": "action-tags", "mode-a": "decision-tag"}
    for name, rule in rules.items():
        assert make_contract(name).text_rule_for(OBS) == rule
    for name in ("typed", "transcript", "rag", "reflexion", "paged"):
        assert make_contract(name).reply_mode == "constrained", name
    assert all(isinstance(built(p).config, ReplySettings) for p in PRESETS)


@pytest.mark.parametrize("name", ["state", "summary", "episodic", "mode-a", "self-evolve"])
def test_a_papers_default_is_another_identity_and_constrained_keeps_the_old_one(name):
    default = built(name).config_dict()
    constrained = built(name, {"reply": "constrained"}).config_dict()
    assert default["reply"] == "text"
    assert not {"reply", "reply_fallback", "text_rule"} & set(constrained)
    assert stable_hash(default) != stable_hash(constrained)
    reply_keys = {"reply", "reply_fallback", "text_rule"}
    assert {k: v for k, v in default.items() if k not in reply_keys} == constrained
