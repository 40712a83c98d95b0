"""Every oracle is proven both ways, through the whole loop with the scripted model: the
known-good solution passes, the known-bad one fails, and the untouched directory fails too."""

from __future__ import annotations

import pytest

from bounded.core import Action
from bounded.envs.workbench import (
    WorkbenchEnv,
    load_task,
    sandbox_available,
    task_names,
)
from bounded.jobs.scripted_players import expert_model
from bounded.jobs.workbench import run_task_episode

pytestmark = pytest.mark.skipif(not sandbox_available(), reason="bubblewrap cannot run here")

REQUIRED_SKILLS = {
    "report_date",
    "count_files",
    "csv_aggregate",
    "fix_buggy_script",
    "git_log",
    "sqlite_query",
    "write_tests",
    "many_docs",
    "inversion_count",
    "binary_format",
    "pipeline_recovery",
    "dead_code",
    "hidden_tests",
    "long_file",
    "probe_tool",
}


def play(task: str, calls: list[Action]) -> WorkbenchEnv:
    env = WorkbenchEnv(task, max_turns=len(calls) + 1)
    env.reset(seed=0)
    for call in calls:
        _, _, terminated, truncated, _ = env.step(call)
        if terminated or truncated:
            break
    else:
        env.step(Action(id="finish"))
    return env


def test_the_suite_covers_the_issue_list() -> None:
    assert len(task_names()) >= 15
    assert set(task_names()) >= REQUIRED_SKILLS


@pytest.mark.parametrize("task", task_names())
def test_each_task_is_complete(task: str) -> None:
    definition = load_task(task)
    assert definition.statement.strip()
    assert (definition.root / "oracle.py.txt").is_file()
    assert (definition.root / "files").is_dir()
    good, bad = definition.solution("good"), definition.solution("bad")
    assert good and bad and good != bad


@pytest.mark.parametrize("task", task_names())
def test_the_scripted_good_solution_passes(task: str) -> None:
    row = run_task_episode(task, expert_model(task, "good"), contract="state", multi_action=True)
    assert (row.outcome, row.stop_reason) == ("pass", "finish"), row.verdict


@pytest.mark.parametrize("task", task_names())
def test_the_scripted_bad_solution_fails(task: str) -> None:
    row = run_task_episode(
        task, expert_model(task, "bad"), contract="transcript", multi_action=False
    )
    assert (row.outcome, row.stop_reason) == ("fail", "finish")
    assert row.turns == len(load_task(task).solution("bad"))
    assert row.verdict


@pytest.mark.parametrize("task", task_names())
def test_doing_nothing_fails(task: str) -> None:
    env = play(task, [Action(id="finish")])
    try:
        assert env.verdict is not None and not env.verdict.passed
    finally:
        env.close()
