"""The discordant pairs behind EpicStar's differences, from a small file of games; the
reduced BALROG run's table from a summary's runs."""

from __future__ import annotations

from bounded.docgen.comparisons import balrog_small_table_of_progression, epicstar_discordant_pairs


def test_discordant_pairs_and_both_mcnemar_tests():
    rows = [
        {"treatment": treatment, "block": "level=6 style=rush map=a", "seed": seed,
         "status": "completed", "victory": treatment == "summary"}
        for seed in (1, 2, 3)
        for treatment in ("summary", "episodic")
    ]  # fmt: skip
    # 3 pairs only `summary` won, none only `episodic`: corrected chi-square (3 - 1)^2 / 3 =
    # 4/3 on 1 degree of freedom gives p 0.248; the exact test 2 * 0.5^3 = 0.250
    assert epicstar_discordant_pairs({"game_rows": rows}) == (
        "| A - B | level | pairs | both/A only/B only/neither | McNemar p (corrected) "
        "| exact McNemar p |\n"
        "|---|---:|---:|---:|---:|---:|\n"
        "| `summary` - `episodic` | 6 | 3 | 0/3/0/0 | 0.248 | 0.250 |\n"
        "| `summary` - `episodic` | both | 3 | 0/3/0/0 | 0.248 | 0.250 |\n"
    )


def summary_run(tag: str, env: str, seed: int, progress: float, options: dict) -> dict:
    return {
        "run_id": f"{tag}-{env}-{seed}", "env_id": f"bounded/{env.capitalize()}-v0",
        "contract": tag, "model": "local", "seed": seed, "tag": tag, "experiment": "b",
        "cell": f"{tag}.{env}", "status": "completed", "outcome": {"progress": progress},
        "spec": {"env": env, "env_options": options},
    }  # fmt: skip


def test_the_balrog_table_pairs_each_agent_with_balrogs_own_on_each_task():
    # TextWorld's and MiniHack's `task` options are each one environment's: no mix, no note
    tasks = {"textworld": {"task": "coin_collector"}, "minihack": {"task": "mazewalk-9x9"}}
    runs = [
        summary_run(tag, env, seed, progress, options)
        for env, options in tasks.items()
        for seed in (0, 1)
        for tag, progress in (("balrog-naive", 0.1 * seed), ("typed", 0.5 + 0.2 * seed))
    ]  # fmt: skip
    text = balrog_small_table_of_progression({"runs": runs})
    assert "| block | balrog-naive | typed |" in text
    # each task's differences are +50 and +60 points; the t on 1 degree of freedom:
    # 55 -/+ 12.706 * 5 = [-8.5, +118.5] (scipy.stats.t.ppf(0.975, 1) = 12.706)
    assert "| textworld | +55.0 [-8.5, +118.5] p " in text
    assert "against the baseline balrog-naive" in text and "note:" not in text
