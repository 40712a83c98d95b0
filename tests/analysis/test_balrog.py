"""BALROG's table and results folder from an archive: the mean and standard error as
BALROG computes them, worked by hand, and `bounded analyze --table balrog` / `bounded
export --format balrog` on real played games."""

from __future__ import annotations

import json
import math

import pytest
from typer.testing import CliRunner

from bounded.analysis.balrog import agent_summary, balrog_summary, mean_and_error, write_results
from bounded.archive import Archive
from bounded.cli import app
from bounded.core import RunRecord
from bounded.models.scripted import schema_filler
from bounded.runner import GameSpec, play


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
    assert set(summaries) == {"x", "y"} and set(summaries["x"]["environments"]) == {"crafter"}


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
    task_dir = out / "balrog-naive" / "minihack" / "MiniHack-MazeWalk-9x9-v0"
    episodes = sorted(task_dir.glob("*_run_*.json"))
    assert [p.name for p in episodes] == [
        "MiniHack-MazeWalk-9x9-v0_run_00.json", "MiniHack-MazeWalk-9x9-v0_run_01.json",
    ]  # fmt: skip
    episode = json.loads(episodes[0].read_text())
    assert {"task", "progression", "num_steps", "seed", "agent", "client"} <= set(episode)
    summary = json.loads((out / "balrog-naive" / "summary.json").read_text())
    assert summary["environments"]["minihack"]["episodes_played"] == 2
    assert (out / "balrog-naive" / "minihack" / "minihack_summary.json").exists()


def test_an_archive_without_balrog_runs_is_a_one_line_error(tmp_path) -> None:
    archive_path = tmp_path / "a.sqlite"
    with Archive(archive_path) as archive:
        play(GameSpec(env="warehouse", env_options={"horizon": 2}, contract="state", seed=1),
             archive=archive, model=schema_filler())  # fmt: skip
    shown = CliRunner().invoke(app, ["analyze", str(archive_path), "--table", "balrog"])
    assert shown.exit_code != 0 and "no completed runs of BALROG" in str(shown.exception)


def test_write_results_on_no_runs_writes_nothing(tmp_path) -> None:
    assert write_results([], tmp_path) == []
