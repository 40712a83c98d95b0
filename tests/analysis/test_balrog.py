"""BALROG's table and results folder from an archive: the mean and standard error as
BALROG computes them, worked by hand, and `bounded analyze --table balrog` / `bounded
export --format balrog` on real played games: one row per tag, model and experiment,
duplicates refused, and the exported folders read back as BALROG's summariser reads them
give the table's numbers."""

from __future__ import annotations

import json
import math
from collections import defaultdict
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bounded.analysis.balrog import (
    ENV_STATS,
    AgentKey,
    agent_summary,
    balrog_summary,
    balrog_table_rows,
    episode_log,
    mean_and_error,
    summarised,
    write_results,
)
from bounded.archive import Archive
from bounded.cli import app
from bounded.contracts import make_contract
from bounded.contracts.expert import ExpertContract
from bounded.core import JSON, RunRecord
from bounded.envs import make
from bounded.envs.babyai import BabyAIExpert
from bounded.envs.crafter import CrafterExpert
from bounded.models.scripted import ScriptedModel, schema_filler
from bounded.runner import GameSpec, play, run_episode


def run(env_id: str, progress: float, task: str | None = None, tag: str = "a") -> RunRecord:
    outcome = {"progress": progress, **({"task": task} if task else {})}
    return RunRecord(run_id=f"{env_id}{progress}{task}{tag}", env_id=env_id, contract="state",
                     model="m", seed=0, tag=tag, status="completed", outcome=outcome)  # fmt: skip


def test_mean_and_error_are_balrogs_population_deviation_over_root_n() -> None:
    # 0, 0.5, 1: mean 0.5, population deviation sqrt(((0.25 + 0 + 0.25) / 3)), over sqrt(3)
    mean, error = mean_and_error([0.0, 0.5, 1.0])
    assert mean == 0.5 and error == pytest.approx(math.sqrt(0.5 / 3) / math.sqrt(3))
    assert mean_and_error([0.7]) == (0.7, 0.0)


def test_the_average_is_over_environments_and_its_error_combines_theirs() -> None:
    runs = [
        run("bounded/Crafter-v0", 0.5), run("bounded/Crafter-v0", 0.25),
        run("bounded/MiniHack-v0", 1.0, "MiniHack-MazeWalk-9x9-v0"),
        run("bounded/MiniHack-v0", 0.0, "MiniHack-Quest-Easy-v0"),
    ]  # fmt: skip
    summary = agent_summary(runs)
    crafter, minihack = summary["environments"]["crafter"], summary["environments"]["minihack"]
    assert crafter["progression_percentage"] == pytest.approx(37.5)
    assert crafter["standard_error"] == pytest.approx(100 * 0.125 / math.sqrt(2))
    assert minihack["progression_percentage"] == pytest.approx(50.0)
    assert summary["average_progress"] == pytest.approx((37.5 + 50.0) / 2)
    errors = [crafter["standard_error"], minihack["standard_error"]]
    assert summary["standard_error"] == pytest.approx(math.sqrt(sum(e**2 for e in errors)) / 2)
    tasks = summary["environment_details"]["minihack"]["tasks"]
    assert tasks["MiniHack-Quest-Easy-v0"]["episodes_played"] == 1


def test_agents_are_tags_and_other_environments_are_left_out() -> None:
    runs = [run("bounded/Crafter-v0", 0.5, tag="x"), run("bounded/Crafter-v0", 0.1, tag="y"),
            run("bounded/Spire-v0", 1.0, tag="x")]  # fmt: skip
    summaries = balrog_summary(runs)
    assert {agent.tag for agent in summaries} == {"x", "y"}
    assert set(summaries[AgentKey("x", "m", "")]["environments"]) == {"crafter"}


def test_the_command_line_prints_the_table_and_writes_the_results_folder(tmp_path) -> None:
    archive_path = tmp_path / "a.sqlite"
    with Archive(archive_path) as archive:
        for seed in (1, 2):
            spec = GameSpec(env="minihack", env_options={"task": "mazewalk-9x9"},
                            contract="balrog-naive", seed=seed, max_decisions=3)  # fmt: skip
            play(spec, archive=archive, model=schema_filler())
    cli = CliRunner()
    shown = cli.invoke(app, ["analyze", str(archive_path), "--table", "balrog"])
    assert shown.exit_code == 0, shown.output
    assert "minihack" in shown.output and "balrog-naive" in shown.output
    out = tmp_path / "results"
    written = cli.invoke(app, ["export", str(archive_path), "--format", "balrog", "-o", str(out)])
    assert written.exit_code == 0, written.output
    agent_dir = out / "balrog-naive" / "scripted_minimal"
    task_dir = agent_dir / "minihack" / "MiniHack-MazeWalk-9x9-v0"
    episodes = sorted(task_dir.glob("*_run_*.json"))
    assert [p.name for p in episodes] == [
        "MiniHack-MazeWalk-9x9-v0_run_00.json", "MiniHack-MazeWalk-9x9-v0_run_01.json",
    ]  # fmt: skip
    episode = json.loads(episodes[0].read_text())
    assert {"task", "progression", "num_steps", "seed", "agent", "client"} <= set(episode)
    summary = json.loads((agent_dir / "summary.json").read_text())
    assert summary["environments"]["minihack"]["episodes_played"] == 2
    assert (agent_dir / "minihack" / "minihack_summary.json").exists()


def test_an_archive_without_balrog_runs_is_a_one_line_error(tmp_path) -> None:
    archive_path = tmp_path / "a.sqlite"
    with Archive(archive_path) as archive:
        play(GameSpec(env="warehouse", env_options={"horizon": 2}, contract="state", seed=1),
             archive=archive, model=schema_filler())  # fmt: skip
    shown = CliRunner().invoke(app, ["analyze", str(archive_path), "--table", "balrog"])
    assert shown.exit_code != 0 and "no completed runs of BALROG" in str(shown.exception)


def test_write_results_on_no_runs_writes_nothing(tmp_path) -> None:
    assert write_results([], tmp_path) == []


# -- two models under one tag, read back as BALROG reads its results folder ---------------


def read_as_balrog(folder: Path) -> JSON:
    """What BALROG's `collect_and_summarize_results` (balrog/utils.py, commit af7d1f1)
    computes from a results folder, restated: every episode file under each environment's
    folder (not the `*_summary.json` nor `summary.json`), grouped by its folder and then by
    its `task`; each group's mean `progression` and population deviation over sqrt(n), in
    percent; the average over environments and sqrt(sum se^2) / n_envs. BALROG itself is
    not on PyPI, so this reader follows its rule in our words."""
    episodes: dict[str, list[JSON]] = defaultdict(list)
    for env_dir in sorted(p for p in folder.iterdir() if p.is_dir()):
        for path in sorted(env_dir.rglob("*.json")):
            if not path.name.endswith("_summary.json") and path.name != "summary.json":
                episodes[env_dir.name].append(json.loads(path.read_text()))
    envs: JSON = {}
    for env, logs in episodes.items():
        tasks: dict[str, list[float]] = defaultdict(list)
        for log in logs:
            tasks[log["task"]].append(log.get("progression", 0.0))
        mean, error = mean_and_error([log.get("progression", 0.0) for log in logs])
        envs[env] = {
            "progression_percentage": 100 * mean, "standard_error": 100 * error,
            "episodes_played": len(logs),
            "tasks": {task: [100 * x for x in mean_and_error(values)] + [len(values)]
                      for task, values in tasks.items()},
        }  # fmt: skip
    means = [e["progression_percentage"] for e in envs.values()]
    errors = [e["standard_error"] for e in envs.values()]
    return {
        "average_progress": sum(means) / len(means),
        "standard_error": math.sqrt(sum(x**2 for x in errors)) / len(errors),
        "environments": envs,
    }


def expert_game(archive: Archive, env_name: str, seed: int, model: str, **options) -> None:
    env = make(env_name, **options)
    expert = BabyAIExpert(env) if env_name == "babyai" else CrafterExpert(env, seed)
    run_episode(env, ExpertContract(expert), ScriptedModel([], id=model), seed=seed,
                archive=archive, tag="x")  # fmt: skip
    env.close()


def naive_game(archive: Archive, env_name: str, seed: int, replies: list[str], **options):
    env = make(env_name, **options)
    model = ScriptedModel(replies, id="model-b")
    run = run_episode(env, make_contract("balrog-naive"), model, seed=seed, archive=archive,
                      tag="x")  # fmt: skip
    env.close()
    return run


@pytest.fixture(scope="module")
def two_models(tmp_path_factory) -> Path:
    """An archive with two models under the tag `x`: model-a's games are the scripted
    experts' (BabyAI wins, a short Crafter game's few achievements), model-b's the
    `balrog-naive` agent's with one illegal reply each."""
    path = tmp_path_factory.mktemp("two") / "a.sqlite"
    with Archive(path) as archive:
        for seed in (1, 2):
            expert_game(archive, "babyai", seed, "model-a", level="goto")
            expert_game(archive, "crafter", seed, "model-a", max_steps=25)
            naive_game(archive, "babyai", seed, ["fly", "turn left", "turn left"],
                       level="goto", max_steps=3)  # fmt: skip
        naive_game(archive, "crafter", 1, ["Noop", "jump"], max_steps=2)
    return path


def table_json(path: Path, *extra: str) -> JSON:
    shown = CliRunner().invoke(app, ["analyze", str(path), "--table", "balrog", "--json", *extra])
    assert shown.exit_code == 0, shown.output
    return json.loads(shown.output)["summary"]


def test_two_models_under_one_tag_are_two_rows(two_models) -> None:
    shown = CliRunner().invoke(app, ["analyze", str(two_models), "--table", "balrog"])
    assert shown.exit_code == 0, shown.output
    rows = [line for line in shown.output.splitlines() if line.startswith("│ x ") and "±" in line]
    assert len(rows) == 2 and "model-a" in rows[0] and "model-b" in rows[1]
    summary = table_json(two_models)
    assert set(summary) == {"x · model-a", "x · model-b"}
    assert summary["x · model-a"]["environments"]["babyai"]["episodes_played"] == 2


def test_the_export_read_as_balrog_reads_it_gives_the_tables_numbers(two_models, tmp_path):
    out = tmp_path / "results"
    written = CliRunner().invoke(app, ["export", str(two_models), "--format", "balrog", "-o",
                                       str(out)])  # fmt: skip
    assert written.exit_code == 0, written.output
    table = table_json(two_models)
    for model in ("model-a", "model-b"):
        read, shown = read_as_balrog(out / "x" / model), table[f"x · {model}"]
        assert read["average_progress"] == pytest.approx(shown["average_progress"], abs=1e-6)
        assert read["standard_error"] == pytest.approx(shown["standard_error"], abs=1e-6)
        for env, numbers in read["environments"].items():
            ours = shown["environment_details"][env]
            for key in ("progression_percentage", "standard_error", "episodes_played"):
                assert numbers[key] == pytest.approx(ours[key], abs=1e-6)
            for task, (mean, error, count) in numbers["tasks"].items():
                theirs = ours["tasks"][task]
                assert (mean, error, count) == pytest.approx(
                    (theirs["progression_percentage"], theirs["standard_error"],
                     theirs["episodes_played"]), abs=1e-6)  # fmt: skip
    crafter = table["x · model-a"]["environments"]["crafter"]
    assert 0 < crafter["progression_percentage"] < 100  # a number the check can get wrong


def test_the_files_from_summarised_runs_reread_are_those_of_the_whole_runs(two_models, tmp_path):
    """What the export holds of each run (`summarised`) orders and sums the episodes as the
    whole runs do, and each episode's file is its whole run's."""
    with Archive(two_models, read_only=True) as store:
        runs = store.runs()
        whole = write_results(runs, tmp_path / "whole", store.decisions)
        slim = write_results(
            [summarised(run) for run in runs],
            tmp_path / "slim",
            lambda run_id: store.iter_decisions(run_id, with_segments=False),
            reread=store.run,
        )
    assert [p.relative_to(tmp_path / "slim") for p in slim] == [
        p.relative_to(tmp_path / "whole") for p in whole
    ]
    assert [p.read_text() for p in slim] == [p.read_text() for p in whole]
    assert any(run.usage or run.spec.keys() - {"seed_draw", "base_url"} for run in runs)


def test_episode_files_carry_balrogs_per_action_fields_and_the_envs_stats(two_models, tmp_path):
    out = tmp_path / "results"
    CliRunner().invoke(app, ["export", str(two_models), "--format", "balrog", "-o", str(out),
                             "--model", "model-b"])  # fmt: skip
    assert not (out / "x" / "model-a").exists()
    babyai = out / "x" / "model-b" / "babyai"
    episode = json.loads(sorted(babyai.rglob("*_run_00.json"))[0].read_text())
    frequency = episode["action_frequency"]
    assert sum(frequency.values()) == episode["num_steps"] and frequency["go forward"] >= 1
    assert episode["failed_candidates"] == ["fly"]
    assert set(ENV_STATS["babyai"]) <= set(episode) and episode["mission"]
    assert episode["client"]["model_id"] == "model-b"
    crafter = out / "x" / "model-b" / "crafter" / "default" / "default_run_00.json"
    stats = json.loads(crafter.read_text())
    assert {"score", "progression", "achievements"} <= set(stats)
    assert stats["failed_candidates"] == ["jump"]


def test_export_filters_an_experiment_and_refuses_an_unknown_model(two_models, tmp_path):
    cli = CliRunner()
    missing = cli.invoke(app, ["export", str(two_models), "--format", "balrog", "-o",
                               str(tmp_path / "o"), "--model", "nobody"])  # fmt: skip
    assert missing.exit_code != 0 and "no completed runs" in str(missing.exception)
    other = cli.invoke(app, ["export", str(two_models), "--format", "jsonl", "-o",
                             str(tmp_path / "j"), "--model", "model-a"])  # fmt: skip
    assert other.exit_code != 0 and "balrog format only" in str(other.exception)


def test_an_archive_holding_a_game_twice_is_refused(tmp_path) -> None:
    path = tmp_path / "a.sqlite"
    spec = GameSpec(env="babyai", env_options={"max_steps": 2}, contract="balrog-naive",
                    experiment="e", cell="c", seed=1)  # fmt: skip
    with Archive(path) as archive:
        twin = play(spec, archive=archive, model=ScriptedModel(["turn left"] * 2))
        archive.save_run(twin.model_copy(update={"run_id": "d" * 32}))  # as older bugs left
    for command in (
        ["analyze", str(path), "--table", "balrog"],
        ["export", str(path), "--format", "balrog", "-o", str(tmp_path / "o")],
    ):
        shown = CliRunner().invoke(app, command)
        assert shown.exit_code != 0 and "duplicate games" in str(shown.exception)


def test_the_table_and_the_episode_files_name_the_seed_draw() -> None:
    paired = run("bounded/Crafter-v0", 0.5, tag="p")
    drawn = run("bounded/Crafter-v0", 0.5, tag="d").model_copy(
        update={"spec": {"seed_draw": "balrog"}}
    )
    header, *rows = balrog_table_rows(balrog_summary([paired, drawn]))
    assert header[:4] == ["agent", "model", "experiment", "seeds"]
    assert {row[0]: row[3] for row in rows} == {"p": "paired", "d": "balrog"}
    assert episode_log(drawn, 0, [])["seed_draw"] == "balrog"


def test_an_episode_file_is_done_only_where_the_environment_ended_the_game() -> None:
    """BALROG's evaluator sets `done` when the environment terminates or truncates the
    game, and writes no `done` for a game its step budget cut."""
    ended = run("bounded/Crafter-v0", 0.5, tag="e")
    ended = ended.model_copy(update={"outcome": {**ended.outcome, "ended_by": "death"}})
    cut = ended.model_copy(update={"outcome": {**ended.outcome, "ended_by": "decision-limit"}})
    assert episode_log(ended, 0, [])["done"] is True
    assert "done" not in episode_log(cut, 0, [])


def test_the_episode_return_sums_the_steps_rewards_as_balrogs_loop_does() -> None:
    """BALROG's evaluator adds every step's reward (`episode_return += reward`); its
    TextWorld rewards each step with the running score, so a game scoring 1 at its second
    of three steps returns 2."""
    from bounded.core import Action, DecisionRecord

    game = run("bounded/TextWorld-v0", 1.0, "coin_collector")

    def step(index: int, reward: float, text: str) -> DecisionRecord:
        typed = Action(id="free text", args={"text": text})
        return DecisionRecord(run_id=game.run_id, index=index, t=index, kind="play", segments=[],
                              tokens_by_layer={}, prompt_tokens=0, completion=None,
                              actions=[typed], reward=reward)  # fmt: skip

    steps = [step(0, 0.0, "go north"), step(1, 1.0, "take coin"), step(2, 1.0, "")]
    log = episode_log(game, 0, steps)
    assert log["episode_return"] == 2.0
    assert log["action_frequency"] == {"go north": 1, "take coin": 1, "": 1}
