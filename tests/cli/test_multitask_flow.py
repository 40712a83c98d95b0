"""A multi-task experiment from plan to paired test: three players of known skill (the
BabyAI bot slipping to a random action 0%, 40% and 80% of the time, 12 steps a game)
crossed with two BabyAI levels on 12 seeds, in one file with a `[matrix]`. `plan` takes
the treatment names and plans seeds per level; `analyze --compare` pairs on (level, seed)
and shows each level and the two pooled, its pooled row checked against statsmodels on
the archive's own pairs; `sweep --until-decided` looks at the seeds of both levels."""

import json
import os
import subprocess
import sys
import textwrap

import pytest
from statsmodels.stats.contingency_tables import mcnemar

from bounded.archive import Archive

BOUNDED = [sys.executable, "-m", "bounded.cli"]
LEVELS = ("goto", "pickup")
SLIPS = {"expert": 0.0, "slip4": 0.4, "slip8": 0.8}


def bounded(*args):
    env = {**os.environ, "COLUMNS": "400"}
    return subprocess.run([*BOUNDED, *args], capture_output=True, text=True, env=env)


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    root = tmp_path_factory.mktemp("multitask")
    cells = "\n".join(
        f'[[cells]]\ntag = "{tag}"\ncontract_config = {{ slip = {slip} }}\n'
        for tag, slip in SLIPS.items()
    )
    path = root / "multitask.toml"
    path.write_text(
        textwrap.dedent(
            f"""
            [experiment]
            name = "multitask"
            archive = "{root / "m.sqlite"}"

            [defaults]
            env = "babyai"
            model = "none"
            contract = "bounded.contracts.expert:PlayerContract"
            env_options = {{ max_steps = 12 }}
            seeds = [{", ".join(str(s) for s in range(12))}]

            [matrix]
            level = ["goto", "pickup"]
            """
        )
        + cells
    )
    played = bounded("sweep", str(path))
    assert played.returncode == 0, played.stderr
    return path, root / "m.sqlite"


def test_the_sweep_plays_three_players_on_two_levels_and_twelve_seeds(swept):
    _, archive = swept
    with Archive(archive, read_only=True) as store:
        runs = store.runs()
    assert len(runs) == 3 * 2 * 12 and all(run.status == "completed" for run in runs)
    assert {run.tag for run in runs} == set(SLIPS)
    assert {run.cell for run in runs} == {f"{t}[level={lv}]" for t in SLIPS for lv in LEVELS}


def test_plan_takes_treatment_names_and_plans_seeds_per_level(swept):
    path, _ = swept
    shown = bounded("plan", str(path), "--compare", "expert", "slip8", "--json")
    assert shown.returncode == 0, shown.stderr
    found = json.loads(shown.stdout)
    assert sorted(found["blocks"]) == ["babyai level=goto", "babyai level=pickup"]
    assert found["asked"]["planned"] == 12
    assert found["games_per_cell"] == 2 * found["seeds_per_block"]
    assert found["pairs"] == 24
    words = bounded("plan", str(path), "--compare", "expert", "slip8", "--effect", "0.3")
    assert words.returncode == 0, words.stderr
    assert "paired on (block, seed) in 2 blocks" in words.stdout
    assert "the file plans 12 common seeds in each of 2 blocks" in words.stdout
    progress = bounded("plan", str(path), "--compare", "slip4", "slip8", "--metric", "progress")
    assert progress.returncode == 0, progress.stderr
    assert "the stratified paired t test" in progress.stdout
    assert "observed (within blocks on the archive's 24 pairs)" in progress.stdout


def test_analyze_compares_each_level_and_the_levels_pooled(swept):
    _, archive = swept
    shown = bounded("analyze", str(archive), "--compare", "expert,slip8", "--json")
    assert shown.returncode == 0, shown.stderr
    table = json.loads(shown.stdout)
    (comparison,) = table["paired"]
    assert comparison["pairs"] == 24 and not comparison["unpaired_a"]
    assert sorted(comparison["blocks"]) == ["babyai level=goto", "babyai level=pickup"]
    assert [w["block"] for w in comparison["block_wins"]] == sorted(comparison["blocks"])
    with Archive(archive, read_only=True) as store:
        runs = store.runs()
    won = {
        (run.tag, run.spec["env_options"]["level"], run.seed): run.outcome["victory"]
        for run in runs
    }
    only_a = sum(won[("expert", lv, s)] and not won[("slip8", lv, s)]
                 for lv in LEVELS for s in range(12))  # fmt: skip
    only_b = sum(won[("slip8", lv, s)] and not won[("expert", lv, s)]
                 for lv in LEVELS for s in range(12))  # fmt: skip
    pooled = comparison["wins"]
    assert (pooled["only_a"], pooled["only_b"]) == (only_a, only_b)
    if abs(only_a - only_b) > 1:
        expected = mcnemar([[0, only_a], [only_b, 0]], exact=False, correction=True).pvalue
        assert pooled["p_value"] == pytest.approx(expected)
    metrics = {(m["metric"], m["block"]) for m in comparison["block_means"]}
    assert ("progress", "babyai level=goto") in metrics
    words = bounded("analyze", str(archive), "--compare", "expert,slip8")
    assert words.returncode == 0, words.stderr
    assert "all blocks" in words.stdout and "babyai level=pickup" in words.stdout


def test_until_decided_looks_at_the_seeds_of_every_level(swept):
    path, archive = swept
    shown = bounded("sweep", str(path), "--until-decided", "expert", "slip8", "--block", "4")
    assert shown.returncode in (0, 1), shown.stderr
    assert "look 1: 8 pairs in 2 blocks" in shown.stdout
    with Archive(archive, read_only=True) as store:
        assert len(store.runs()) == 72  # every game was played already: none again
    compared = bounded("analyze", str(archive), "--compare", "expert,slip8")
    assert "was played until decided" in compared.stdout
