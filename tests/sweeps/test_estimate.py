"""Sweep prices, dry-game estimates and the budget gate."""

import pytest

from bounded.analysis.cost import Prices
from bounded.core import ConfigError, RunRecord
from bounded.runner.spec import GameSpec
from bounded.sweeps.estimate import Budget, SweepPrices, check_budget, dry_game

ONE = Prices(input=1e6, cached_input=0, output=0)  # 1 per prompt token


def test_prices_by_id_then_kind_then_free_then_default():
    prices = SweepPrices({"openai:a": ONE, "local": ONE})
    assert prices.prices("openai:a") == ONE and prices.prices("local:x.gguf") == ONE
    assert prices.prices("scripted:minimal").input == 0 and prices.prices("none").output == 0
    assert prices.prices("openai:b") is None
    cost, unpriced = prices.cost({"openai:a": {"prompt_tokens": 3}, "openai:b": {"calls": 1}})
    assert (cost, unpriced) == (3.0, ["openai:b"])
    with pytest.raises(ConfigError, match="no price set for model 'openai:b'"):
        check_budget(1.0, prices, ["openai:a", "openai:b"])
    check_budget(None, prices, ["openai:b"])  # no budget: nothing to check
    assert SweepPrices({"default": ONE}).prices("openai:b") == ONE


def spec(cell, seed=0):
    return GameSpec(env="warehouse", env_options={"horizon": 3}, cell=cell, seed=seed)


def test_the_budget_counts_what_was_spent_and_what_is_in_flight():
    per_game = {"a": {"openai:a": {"prompt_tokens": 2}}}
    budget = Budget(5.0, SweepPrices({"openai:a": ONE}), per_game)
    assert budget.may_start(spec("a")) and budget.estimate(spec("b")) == 2.0  # the dearest
    budget.started(0, spec("a"))
    budget.started(1, spec("a", 1))
    assert not budget.may_start(spec("a", 2)) and budget.refused == 1  # 2 + 2 + 2 > 5
    run = RunRecord(run_id="r", env_id="e", contract="state", model="openai:a", seed=0)
    run.usage = {"openai:a": {"prompt_tokens": 1}}
    budget.finished(0, run)
    assert budget.spent == 1.0 and budget.may_start(spec("a", 2))  # 1 + 2 + 2 <= 5
    assert budget.line() == "spent 1.0000 USD of 5"
    assert Budget(None, SweepPrices(), {}).may_start(spec("a"))


def test_a_budget_stop_says_when_the_games_in_flight_made_it():
    per_game = {"a": {"openai:a": {"prompt_tokens": 2}}}
    budget = Budget(5.0, SweepPrices({"openai:a": ONE}), per_game)
    budget.started(0, spec("a"))
    budget.started(1, spec("a", 1))
    assert not budget.may_start(spec("a", 2))  # spent 0: the estimates in flight stop it
    assert budget.stop_reason == (
        "the estimate of the 2 games in flight (4.0000) plus the next game's (2.0000) would pass it"
    )
    spent = Budget(1.0, SweepPrices({"openai:a": ONE}), per_game)
    assert not spent.may_start(spec("a")) and spent.stop_reason == ""  # the next game alone


def test_a_dry_game_counts_every_call_and_writes_no_store(tmp_path):
    store = tmp_path / "store"
    store.mkdir()
    (store / "keep.txt").write_text("x")
    usage, label = dry_game(
        GameSpec(
            env="warehouse", env_options={"horizon": 4}, contract="state", model="openai:m",
            max_tokens=100,
        )
    )  # fmt: skip
    assert usage["openai:m"]["calls"] == 4 and usage["openai:m"]["prompt_tokens"] > 0
    assert usage["openai:m"]["completion_tokens"] == 400  # replies priced at max_tokens
    assert label == "dry game of seed 1, 4 decisions"
    typed = GameSpec(
        env="spire", env_options={"acts": 1}, contract="self-evolve", model="scripted:minimal",
        contract_config={"store_dir": str(store)}, max_decisions=30,
    )  # fmt: skip
    usage, label = dry_game(typed)
    assert "30 decisions" in label
    assert sorted(p.name for p in store.iterdir()) == ["keep.txt"]  # the real store untouched
