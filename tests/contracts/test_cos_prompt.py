"""Appendix B's prompts in our words: the CoS prompt, EpicStar's backbone, their replies."""

from __future__ import annotations

import json

import jsonschema
import pytest

from bounded.contracts import cos_prompt, make_contract
from bounded.contracts.episodic import EpisodicContract
from bounded.contracts.episodic.bank import BankEntry, EpisodicBank, GameInfo
from bounded.contracts.summary import SummaryContract
from bounded.core import Action, Completion, Observation
from bounded.models.scripted import ScriptedModel, minimal_instance
from bounded.testing import episode

EMPTY = "EMPTY ACTION"
LEGAL = [Action(id=a) for a in ("BUILD PYLON", "TRAIN PROBE", EMPTY)]


def observation(t: float = 0) -> Observation:
    return Observation(kind="macro", state={"x": 1}, t=t, legal=LEGAL, text="minerals 50")


def test_the_cos_prompt_has_the_six_parts_the_five_areas_and_three_decisions() -> None:
    contract = SummaryContract()
    contract.reset(episode(empty_action=EMPTY, instructions="Play the game."))
    system = contract.assemble(observation()).messages()[0]["content"]
    for heading in ("1. Game overview", "2. Current game stage", "3.1 Units and buildings",
                    "3.2 Economy", "3.3 Technology", "4. Our strategy", "5. Enemy's strategy",
                    "6. Key information", "5. Feasibility", "make 3 actionable"):  # fmt: skip
        assert heading in system, heading
    assert "<ACTION NAME>" in system
    schema = contract.reply_schema(observation())
    assert list(schema["properties"]["analysis"]["properties"]) == list(cos_prompt.ANALYSIS_PARTS)
    assert list(schema["properties"]["suggestions"]["properties"]) == list(
        cos_prompt.SUGGESTION_AREAS
    )
    assert schema["properties"]["decisions"]["maxItems"] == 3


def test_a_structured_reply_fits_the_schema_and_fills_the_queue() -> None:
    contract = SummaryContract(reply="constrained")  # the structured (JSON) reply
    contract.reset(episode(empty_action=EMPTY, instructions="Play."))
    obs = observation()
    schema = contract.reply_schema(obs)
    reply = minimal_instance(schema)
    reply["analysis"]["game_overview"] = "early game, one base"
    reply["decisions"] = ["<TRAIN PROBE>", "<BUILD PYLON>"]
    jsonschema.validate(reply, schema)
    decision = contract.parse(Completion(text=json.dumps(reply)), obs)
    assert [a.id for a in decision.actions] == ["TRAIN PROBE"]
    assert [a.id for a in contract.queue] == ["BUILD PYLON"]
    assert "game_overview: early game, one base" in decision.reasoning


def test_the_length_limits_follow_the_models_context_not_a_fixed_cap() -> None:
    # 1,024 reply tokens x 4 characters / 13 fields = 315 characters a field.
    assert cos_prompt.field_chars(1024, None) == 1024 * 4 // 13 == 315
    # A 2,048-token window leaves a quarter, 512 tokens: 512 x 4 / 13 = 157.
    assert cos_prompt.field_chars(1024, 2048) == 512 * 4 // 13 == 157
    model = ScriptedModel([])
    model.context_window = 2048
    contract = SummaryContract()
    contract.reset(episode(empty_action=EMPTY, instructions="Play.", model=model))
    text = contract.reply_schema(observation())["properties"]["suggestions"]["properties"]
    assert text["economy"]["maxLength"] == 157


def test_the_short_prompt_stays_as_an_option() -> None:
    contract = make_contract("summary", {"prompt": "short"})
    assert isinstance(contract, SummaryContract)
    contract.reset(episode(empty_action=EMPTY, instructions="Play."))
    schema = contract.reply_schema(observation())
    assert schema["properties"]["analysis"] == {"type": "string", "maxLength": 160}
    assert "Game overview" not in contract.assemble(observation()).messages()[0]["content"]


def described_contract(**settings) -> tuple[EpisodicContract, ScriptedModel]:
    def reply(messages, constraint):
        if "strategy" in constraint["properties"]:
            return {"strategy": "a gateway army with early pressure"}
        return {**minimal_instance(constraint), "decisions": ["<TRAIN PROBE>"]}

    model = ScriptedModel(reply)
    bank = EpisodicBank.from_games(
        [(GameInfo(game=0, strategy="gw"), [BankEntry(t=0, features={"x": 1},
                                                      actions=[Action(id="BUILD PYLON")])])]
    )  # fmt: skip
    contract = EpisodicContract(explore_every=1, gating_start="immediate", **settings)
    contract.use_bank(bank)
    contract.reset(episode(empty_action=EMPTY, instructions="Play the game.", model=model))
    return contract, model


def test_epicstar_puts_the_strategy_description_where_prompt_1_does() -> None:
    contract, _ = described_contract()
    obs = observation()
    assert contract.propose(obs) is None
    system = contract.assemble(obs).messages()[0]["content"]
    role = system.index("You are an AI trained in analysing")
    strategy = system.index("Specifically, you are playing this strategy: a gateway army")
    analysis = system.index("1. Game overview")
    assert role < strategy < analysis
    assert "in line with the game stage and the strategy above" in system
    schema = contract.reply_schema(obs)
    assert set(schema["properties"]) == {"analysis", "suggestions", "decisions"}


@pytest.mark.parametrize("fusion", [True, False])
def test_the_no_fusion_ablation_removes_contextual_fusion_and_nothing_else(fusion: bool) -> None:
    contract, _ = described_contract(fusion=fusion)
    obs = observation()
    contract.propose(obs)
    system = contract.assemble(obs).messages()[0]["content"]
    assert ("Specifically, you are playing" in system) is fusion
    assert ("executable now" in system) is fusion  # the description and the instruction
    assert "1. Game overview" in system
