"""Collecting an expert's games into an episodic bank, through the one episode loop."""

from __future__ import annotations

import itertools

from bounded.archive import Archive
from bounded.cli import main
from bounded.contracts.episodic.bank import EpisodicBank, GameInfo, describe_bank
from bounded.core import victory_of
from bounded.envs import make
from bounded.envs.warehouse.expert import WarehouseExpert
from bounded.jobs.craft_bank import bootstrap_craft_bank, record_game


def test_record_game_keeps_one_entry_per_decision() -> None:
    env = make("warehouse", horizon=9)
    info, entries = record_game(env, WarehouseExpert(), seed=3, strategy="exact counts")
    assert len(entries) == 9
    assert [e.t for e in entries] == list(range(9))
    assert info.outcome["victory"] is True
    assert all(e.actions[0].id == "report" for e in entries)


def test_from_games_numbers_games_and_sorts_by_time() -> None:
    games = []
    for seed in (1, 2):
        env = make("warehouse", horizon=4)
        games.append(record_game(env, WarehouseExpert(), seed=seed, strategy=f"s{seed}"))
    bank = EpisodicBank.from_games(games, meta={"env": "warehouse"})
    assert len(bank) == 8
    assert bank.times.tolist() == sorted(bank.times.tolist())
    assert [g.game for g in bank.game_info] == [0, 1]
    assert [g.entries for g in bank.game_info] == [4, 4]
    assert bank.strategy_of(1) == "s2"
    pairs = list(itertools.pairwise(zip(bank.times.tolist(), bank.games.tolist(), strict=True)))
    assert all(a <= b for a, b in pairs)
    assert isinstance(bank.game_info[0], GameInfo)


def test_bootstrap_plays_the_rounds_and_keeps_only_wins(tmp_path, capsys) -> None:
    bank, report = bootstrap_craft_bank(levels=(3, 4), rounds=2, seed=7)
    assert [g.options["level"] for g in report.games] == [3, 4]
    assert [g.options["map"] for g in report.games] == ["highlands", "highlands"]
    wins = [g for g in report.games if victory_of(g.outcome)]
    assert report.kept == len(wins) == len(bank.game_info)
    assert report.entries == len(bank) == sum(g.entries for g in wins)
    assert report.content_hash == bank.content_hash
    assert bank.meta["levels"] == [3, 4]

    out = tmp_path / "craft.npz"
    args = ["--levels", "3", "--rounds", "1", "--seed", "7", "--keep", "1", "--out", str(out)]
    main(["bank", "craft", *args])
    text = capsys.readouterr().out
    assert out.is_file()
    assert "kept" in text and str(out) in text
    assert EpisodicBank.load(out).content_hash in describe_bank(out)


def test_an_expert_game_is_archived_like_any_other(tmp_path) -> None:
    with Archive(tmp_path / "a.sqlite") as archive:
        info, entries = record_game(
            make("warehouse", horizon=5), WarehouseExpert(), seed=2, archive=archive
        )
        [run] = archive.runs()
        decisions = archive.decisions(run.run_id)
    assert run.status == "completed" and run.contract == "expert" and run.model == "none"
    assert run.env_id == "bounded/Warehouse-v0" and run.model_calls == 0
    assert [d.actions for d in decisions] == [e.actions for e in entries]
    assert info.outcome == run.outcome
