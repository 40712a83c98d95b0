"""The BabyAI bank (the bot's wins) and every contract playing a BabyAI mission with the
scripted schema-filling model."""

from __future__ import annotations

import pytest

from bounded.archive import Archive
from bounded.jobs.babyai_bank import babyai_bank
from bounded.models.scripted import schema_filler
from bounded.runner import GameSpec, play

CONTRACTS = ["state", "transcript", "summary", "episodic", "typed"]


def test_the_bank_holds_the_bots_wins_on_every_task() -> None:
    bank, played = babyai_bank(rounds=5, seed=0)
    assert [g.options["level"] for g in played] == [
        "goto", "pickup", "open", "putnext", "pick_up_seq_go_to",
    ]  # fmt: skip
    assert all(g.outcome["victory"] for g in played)
    assert len(bank) == sum(g.entries for g in played)


@pytest.mark.parametrize("contract", CONTRACTS)
def test_every_contract_plays_a_babyai_mission(tmp_path, contract) -> None:
    config = {}
    if contract == "episodic":
        babyai_bank(rounds=5, seed=0)[0].save(tmp_path / "b.npz")
        config = {"bank": str(tmp_path / "b.npz")}
    spec = GameSpec(
        env="babyai", env_options={"max_steps": 8}, contract=contract, contract_config=config,
        seed=0, max_decisions=8, model="scripted:unused",
    )  # fmt: skip
    with Archive(tmp_path / "a.sqlite") as archive:
        run = play(spec, archive=archive, model=schema_filler())
    assert run.status == "completed" and run.env_id == "bounded/BabyAI-v0"
    assert run.outcome["ended_by"] in ("victory", "step-limit")
    assert run.outcome["progress"] == (1.0 if run.outcome["victory"] else 0.0)


def test_bank_babyai_command_writes_the_bank(tmp_path, capsys) -> None:
    from bounded.cli import main
    from bounded.contracts.episodic.bank import EpisodicBank

    out = tmp_path / "babyai.npz"
    main(["bank", "babyai", "--rounds", "2", "--seed", "0", "--out", str(out)])
    assert "kept 2 winning games of 2" in capsys.readouterr().out
    assert len(EpisodicBank.load(out)) > 0
