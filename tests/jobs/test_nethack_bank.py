"""The NetHack bank (the scripted player's best games) and every contract playing a short
NetHack game with the scripted schema-filling model; one with the embedded model."""

from __future__ import annotations

import pytest

from bounded.archive import Archive
from bounded.contracts.episodic.bank import EpisodicBank
from bounded.envs import make
from bounded.envs.nethack import NetHackExpert
from bounded.jobs.nethack_bank import nethack_bank
from bounded.models.scripted import schema_filler
from bounded.runner import GameSpec, play

CONTRACTS = ["state", "transcript", "summary", "episodic", "typed"]


@pytest.fixture(scope="module")
def bank_file(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("bank") / "nethack.npz"
    nethack_bank(games=3, keep=2, max_steps=150, seed=0)[0].save(path)
    return str(path)


def test_the_bank_keeps_the_best_games_by_progression() -> None:
    bank, played = nethack_bank(games=3, keep=2, max_steps=150, seed=0)
    ranks = [(g.outcome["progression"], g.outcome["max_depth"]) for g in played]
    assert ranks == sorted(ranks, reverse=True)
    assert len(bank) == sum(g.entries for g in played[:2]) == 300
    again, _ = nethack_bank(games=3, keep=2, max_steps=150, seed=0)
    assert again.content_hash == bank.content_hash  # seeded: the same bank every time


def test_the_scripted_player_descends() -> None:
    """Calibration: explore and descend reaches level 2 of seed 0 within 300 decisions."""
    env = make("nethack", max_steps=300)
    obs, _ = env.reset(seed=0)
    expert = NetHackExpert(0)
    done = False
    while not done:
        obs, _, terminated, truncated, _ = env.step(expert.act(obs))
        done = terminated or truncated
    assert env.metrics()["max_depth"] >= 2
    assert env.outcome().progress > 0


@pytest.mark.parametrize("contract", CONTRACTS)
def test_every_contract_plays_a_short_nethack_game(tmp_path, bank_file, contract) -> None:
    config = {"bank": bank_file} if contract == "episodic" else {}
    spec = GameSpec(
        env="nethack", env_options={"max_steps": 12}, contract=contract,
        contract_config=config, seed=0, max_decisions=12, model="scripted:unused",
    )  # fmt: skip
    with Archive(tmp_path / "a.sqlite") as archive:
        run = play(spec, archive=archive, model=schema_filler())
        decisions = archive.decisions(run.run_id)
    assert run.status == "completed" and run.decisions == 12 == len(decisions)
    assert run.outcome["ended_by"] == "step-limit"
    assert run.env_id == "bounded/NetHack-v0"
    if contract == "typed":  # NetHack's rules and skills, supplied by the environment
        layers = {s.layer: s.text for s in decisions[0].segments}
        assert "Find the stairs and descend" in layers["L5"]
        assert "staircase down" in layers["L3"]
    if contract == "episodic":
        assert EpisodicBank.load(bank_file).content_hash in str(run.store_hashes)


@pytest.mark.model
def test_the_embedded_model_plays_a_few_nethack_decisions(tmp_path) -> None:
    spec = GameSpec(
        env="nethack", env_options={"max_steps": 3}, contract="typed", seed=0,
        max_decisions=3, model="local",
    )  # fmt: skip
    with Archive(tmp_path / "a.sqlite") as archive:
        run = play(spec, archive=archive)
        decisions = archive.decisions(run.run_id)
    assert run.status == "completed" and len(decisions) == 3
    assert all(d.completion is not None and d.prompt_tokens > 0 for d in decisions)
    assert run.outcome["steps"] == 3


def test_bank_nethack_command_writes_the_bank(tmp_path, capsys) -> None:
    from bounded.cli import main

    out = tmp_path / "nethack.npz"
    main(["bank", "nethack", "--games", "2", "--keep", "1", "--max-steps", "30", "--out", str(out)])
    printed = capsys.readouterr().out
    assert "kept the best 1 of 2 games, 30 entries" in printed
    assert len(EpisodicBank.load(out)) == 30
