"""The one-action step EpicStar and CoS play at: filled into a game's options, recorded by
a bank, and a game at another step than its bank's refused before anything is written."""

from __future__ import annotations

import pytest

from bounded.archive import Archive
from bounded.contracts import make_contract
from bounded.contracts.step_protocol import check_step, describe_step, one_action_step, with_step
from bounded.core import ConfigError
from bounded.jobs.craft_bank import bootstrap_craft_bank
from bounded.models.scripted import schema_filler
from bounded.runner import GameSpec, play
from bounded.runner.build import contract_spec

CRAFT = "bounded/Craft-v0"
STEP = {"decision_interval": 2.0, "max_actions": 1}


def test_the_one_action_step_fills_only_what_a_game_leaves_unset() -> None:
    assert one_action_step(CRAFT) == STEP
    assert with_step(CRAFT, {"level": 5}) == {**STEP, "level": 5}
    assert with_step(CRAFT, {"max_actions": 5})["max_actions"] == 5
    assert with_step("bounded/Spire-v0", {"acts": 1}) == {"acts": 1}
    assert describe_step(STEP) == "decision_interval=2, max_actions=1"
    check_step({"decision_interval": 2}, STEP, bank_name="b")  # agreeing steps pass
    with pytest.raises(ConfigError, match="recorded at decision_interval=2, max_actions=1"):
        check_step({"decision_interval": 10.0, "max_actions": 5}, STEP, bank_name="b")


def test_a_bootstrapped_bank_is_played_and_records_the_one_action_step() -> None:
    bank, report = bootstrap_craft_bank(levels=(3,), rounds=1, seed=7)
    assert report.games[0].options["decision_interval"] == 2.0
    assert report.games[0].options["max_actions"] == 1
    assert bank.meta["protocol"] == STEP
    assert bank.game_info[0].outcome["actions_given_per_step"] == 1.0


def test_both_contracts_play_craft_at_the_one_action_step_unless_told(tmp_path) -> None:
    for contract in ("summary", "episodic"):
        spec = GameSpec(env="craft", contract=contract, contract_config={}, model="none")
        built = contract_spec(spec, make_contract(contract, {}))
        assert built.env_options == STEP
    told = GameSpec(env="craft", env_options={"max_actions": 5}, contract="summary")
    assert contract_spec(told, make_contract("summary", {})).env_options["max_actions"] == 5
    other = GameSpec(env="warehouse", contract="summary")
    assert contract_spec(other, make_contract("summary", {})).env_options == {}


def test_a_game_at_another_step_than_its_bank_is_refused_before_any_write(tmp_path) -> None:
    bank, _ = bootstrap_craft_bank(levels=(3,), rounds=1, seed=7)
    path = tmp_path / "craft.npz"
    bank.save(path)
    config = {"bank": str(path), "exploration": False}
    wrong = GameSpec(
        env="craft", env_options={"level": 3, "decision_interval": 10.0, "max_actions": 5},
        contract="episodic", contract_config=config, model="none", max_decisions=3,
    )  # fmt: skip
    with Archive(tmp_path / "a.sqlite") as archive:
        with pytest.raises(ConfigError) as refused:
            play(wrong, archive=archive)
        assert archive.runs() == []
    line = str(refused.value)
    assert "\n" not in line and str(path) in line
    assert "decision_interval=2, max_actions=1" in line
    assert "decision_interval=10, max_actions=5" in line
    # the same game with the step unset plays at the bank's step, and the run's spec says so
    right = wrong.model_copy(update={"env_options": {"level": 3}})
    run = play(right)
    assert run.status == "completed"
    assert run.spec["env_options"] == {"level": 3, **STEP}
    assert run.outcome["actions_given_per_step"] == 1.0


def test_both_contracts_run_at_the_paper_temperature_unless_the_spec_sets_one() -> None:
    for contract in ("summary", "episodic", "episodic-no-fusion"):
        spec = GameSpec(env="craft", contract=contract, model="none")
        assert contract_spec(spec, make_contract(contract, {})).temperature == 0.1
        told = GameSpec(env="craft", contract=contract, model="none", temperature=0.0)
        assert contract_spec(told, make_contract(contract, {})).temperature == 0.0
    state = GameSpec(env="warehouse", contract="state", model="none")
    assert contract_spec(state, make_contract("state", {})).temperature is None  # runs at 0


def test_a_run_records_the_temperature_it_ran_at(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("BOUNDED_BANK_DIR", str(tmp_path))
    spec = GameSpec(env="craft", contract="summary", model="none", max_decisions=2)
    run = play(spec, model=schema_filler())
    assert run.model_params["temperature"] == 0.1


def test_the_bank_command_keeps_five_wins_by_default_and_stops_there(tmp_path) -> None:
    bank, report = bootstrap_craft_bank(levels=(1,), rounds=9, seed=0)
    assert report.kept == 5 == len(report.games)  # level 1: every game a win
    assert len(bank.game_info) == 5
