"""The experiment's design: each game's treatment, block and unit, pairs and mixed settings."""

from __future__ import annotations

from typing import Any

from bounded.analysis.design import (
    GameDesign,
    MixedSetting,
    design_of_plan,
    design_of_run,
    design_of_runs,
    design_of_spec,
    matrix_keys,
)
from bounded.core import RunRecord
from bounded.runner.spec import DEFAULT_SEED
from bounded.sweeps.experiment import parse_experiment

MULTI_TASK = {
    "experiment": {"name": "multi-task"},
    "defaults": {"env": "babyai", "model": "openai:fake", "games": 3, "first_seed": 0},
    "cells": [
        {"tag": "balrog-naive", "contract": "balrog-naive"},
        {"tag": "transcript", "contract": "transcript"},
        {"tag": "state", "contract": "state"},
    ],
    "matrix": {"level": ["goto", "pickup"]},
}


def planned(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [spec.model_dump() for spec in parse_experiment(data).plan()]


def run(tag: str, seed: int, *, contract: str | None = None, cell: str = "",
        env: str = "babyai", options: dict[str, Any] | None = None,
        params: dict[str, Any] | None = None, **spec: Any) -> RunRecord:  # fmt: skip
    options = {"level": "goto"} if options is None else options
    return RunRecord(
        run_id=f"{tag}-{cell}-{seed}-{sorted(options.items())}-{sorted(spec.items())}",
        env_id=f"bounded/{env}",
        contract=contract or tag,
        model="openai:fake",
        model_params={"temperature": 0.0, "max_tokens": 256, **(params or {})},
        seed=seed,
        tag=tag,
        cell=cell,
        status="completed",
        spec={"env": env, "env_options": options, "contract": contract or tag, **spec},
        decisions=10,
        model_calls=10,
    )


def test_a_matrix_file_blocks_on_its_points_and_pairs_on_block_and_seed() -> None:
    design = design_of_plan(planned(MULTI_TASK))
    goto, pickup = (("env", "babyai"), ("level", "goto")), (("env", "babyai"), ("level", "pickup"))
    assert design.blocks == [goto, pickup]
    assert design.treatments == ["balrog-naive", "state", "transcript"]
    assert design.units == [0, 1, 2]
    assert [design.block_label(block) for block in design.blocks] == [
        "babyai level=goto", "babyai level=pickup",
    ]  # fmt: skip
    assert design.block_options == ["level"]
    pairs = design.pairs("balrog-naive", "state")
    assert [(pair.block, pair.unit) for pair in pairs] == [
        (goto, 0), (goto, 1), (goto, 2), (pickup, 0), (pickup, 1), (pickup, 2),
    ]  # fmt: skip
    for pair in pairs:
        first, second = design.games[pair.first], design.games[pair.second]
        assert (first.treatment, second.treatment) == ("balrog-naive", "state")
        assert first.key == second.key == (pair.block, pair.unit)
    assert design.mixed == []
    assert design.duplicates() == {}


def test_one_planned_game_carries_its_matrix_point() -> None:
    spec = planned(MULTI_TASK)[3]
    assert spec["cell"] == "balrog-naive[level=pickup]"
    assert design_of_spec(spec) == GameDesign(
        treatment="balrog-naive", block=(("env", "babyai"), ("level", "pickup")), unit=0
    )


def test_the_archived_games_of_a_plan_have_the_plans_design() -> None:
    specs = planned(MULTI_TASK)
    runs = [
        run(spec["tag"], spec["seed"], cell=spec["cell"], options=spec["env_options"])
        for spec in specs
    ]
    assert design_of_runs(runs).games == design_of_plan(specs).games


def test_a_cell_name_gives_its_matrix_point() -> None:
    assert matrix_keys("balrog-naive[level=goto]") == ["level"]
    assert matrix_keys("cos[level=5,style=a,b,map=ancient]") == ["level", "style", "map"]
    assert matrix_keys("plain") == []
    assert matrix_keys("odd[name]") == []


def test_a_lone_game_without_a_matrix_is_blocked_on_its_environment() -> None:
    game = design_of_run(run("state", 4))
    assert game.block == (("env", "babyai"),)
    assert game.block_label == "babyai"
    assert game.unit == 4
    on_point = design_of_run(run("state", 4, cell="state[level=goto]"))
    assert on_point.block_label == "babyai level=goto"


def test_the_treatment_is_the_tag_else_the_contract() -> None:
    untagged = run("", 1, contract="summary")
    assert design_of_run(untagged).treatment == "summary"
    assert design_of_spec({"env": "craft", "contract": "episodic", "seed": 2}).treatment == (
        "episodic"
    )
    unseeded = design_of_spec({"env": "craft", "contract": "episodic", "tag": "ep"})
    assert unseeded.unit == DEFAULT_SEED


def test_without_a_matrix_an_option_varying_within_a_treatment_is_a_block() -> None:
    runs = [
        run(tag, seed, options={"level": level, "max_steps": steps})
        for tag, steps in (("a", 64), ("b", 128))
        for level in ("goto", "pickup")
        for seed in (0, 1)
    ]
    design = design_of_runs(runs)
    # level varies within each treatment: a task; max_steps is constant within each but
    # differs between them: a confound for the parity report, not a block
    assert design.block_options == ["level"]
    assert [design.block_label(b) for b in design.blocks] == [
        "babyai level=goto", "babyai level=pickup",
    ]  # fmt: skip
    assert len(design.pairs("a", "b")) == 4
    assert design.mixed == []


def test_blocks_are_per_environment() -> None:
    runs = [
        *(run(t, 0, options={"level": lv}) for t in ("a", "b") for lv in ("goto", "pickup")),
        *(run(t, 0, env="crafter", options={"area": 64}) for t in ("a", "b")),
    ]
    design = design_of_runs(runs)
    assert [design.block_label(b) for b in design.blocks] == [
        "babyai level=goto", "babyai level=pickup", "crafter",
    ]  # fmt: skip
    assert len(design.pairs("a", "b")) == 3


def test_a_treatment_mixing_settings_says_so() -> None:
    runs = [
        run("state", 0, params={"reply": {"mode": "text", "response_format": "none", "replies": 9}},
            max_decisions=5),
        run("state", 1, params={"reply": {"mode": "constrained", "response_format": "grammar",
                                          "replies": 9}}, max_decisions=15),
        run("state", 2, params={"temperature": 0.7}, max_decisions=5),
        run("transcript", 0, max_decisions=5),
        run("transcript", 1, max_decisions=5),
    ]  # fmt: skip
    design = design_of_runs(runs)
    assert design.mixed == [
        MixedSetting(treatment="state", setting="max_decisions", values=("5", "15")),
        MixedSetting(
            treatment="state", setting="reply",
            values=("constrained", "constrained (grammar)", "text (none)"),
        ),
        MixedSetting(treatment="state", setting="temperature", values=("0", "0.7")),
    ]  # fmt: skip
    assert design.mixed_in("transcript") == []
    assert design.mixed[0].line() == "state mixes max_decisions: 5 / 15"


def test_an_option_off_the_matrix_varying_within_a_treatment_is_mixed() -> None:
    runs = [
        run("a", 0, cell="a[level=goto]", options={"level": "goto", "max_steps": 64}),
        run("a", 1, cell="a[level=goto]", options={"level": "goto", "max_steps": 128}),
        run("b", 0, cell="b[level=goto]", options={"level": "goto", "max_steps": 64}),
    ]
    design = design_of_runs(runs)
    assert design.block_options == ["level"]
    assert design.mixed == [
        MixedSetting(treatment="a", setting="environment option max_steps", values=("64", "128"))
    ]


def test_one_option_on_two_environments_mixes_nothing_and_a_mix_names_its_environment():
    # BALROG's files set `task` on TextWorld and on MiniHack: one value on each
    runs = [
        run("naive", 0, env="textworld", options={"task": "coin_collector"}),
        run("naive", 0, env="minihack", options={"task": "mazewalk-9x9"}),
        run("naive", 0, cell="naive[level=goto]", options={"level": "goto", "max_steps": 30}),
        run("naive", 1, cell="naive[level=goto]", options={"level": "goto", "max_steps": 60}),
        run("state", 0, env="textworld", options={"task": "coin_collector"}),
    ]
    design = design_of_runs(runs)
    assert design.mixed == [
        MixedSetting(
            treatment="naive", setting="environment option max_steps on babyai",
            values=("30", "60"),
        )
    ]  # fmt: skip


def test_a_contract_mixed_under_one_tag_is_named() -> None:
    design = design_of_runs([run("mine", 0, contract="state"), run("mine", 1, contract="summary")])
    assert [entry.setting for entry in design.mixed] == ["contract"]


def test_a_game_held_twice_pairs_nothing_and_is_named() -> None:
    runs = [run("a", 0), run("a", 0, max_decisions=5), run("a", 1), run("b", 0), run("b", 1)]
    design = design_of_runs(runs)
    block = (("env", "babyai"),)
    assert design.duplicates() == {("a", block, 0): 2}
    assert [(pair.unit, pair.first, pair.second) for pair in design.pairs("a", "b")] == [(1, 2, 4)]
