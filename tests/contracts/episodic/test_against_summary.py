"""EpicStar against its baseline as the paper runs them: the full episodic contract and
Chain of Summarization with the same scripted explorer, on the same level-5 craft games,
both acting once per step."""

from __future__ import annotations

from bounded.apps.craft_bank import bootstrap_craft_bank
from bounded.envs.craft.explorer import ExpertExplorer
from bounded.runner import GameSpec, play

STYLES = ("timing", "rush", "power", "macro", "air")
MAPS = ("crossroads", "longbridge")


def play_level_5(contract, config, seeds=1):
    wins = 0
    for seed in range(seeds):
        for map_name in MAPS:
            for style in STYLES:
                explorer = ExpertExplorer()
                spec = GameSpec(
                    env="craft", env_options={"level": 5, "style": style, "map": map_name},
                    contract=contract, contract_config=config, model="scripted", seed=seed,
                )  # fmt: skip
                run = play(spec, model=explorer.model, observer=explorer.see)
                assert run.status == "completed", run.error
                assert run.outcome["actions_per_step"] == 1.0  # once per step, both
                assert run.spec["env_options"]["decision_interval"] == 3.0
                assert run.model_calls > 0  # the explorer was asked
                wins += bool(run.outcome["victory"])
    return wins


def test_episodic_wins_more_level_5_games_than_summary_with_the_same_explorer(tmp_path) -> None:
    bank, report = bootstrap_craft_bank(seed=0)  # the paper's: five wins of levels 6-7
    assert report.kept == 5
    path = tmp_path / "craft.npz"
    bank.save(path)
    episodic = play_level_5("episodic", {"bank": str(path)})
    summary = play_level_5("summary", {})
    assert episodic > summary, (episodic, summary)
