"""The suite runner end to end: runner, contracts, scripted reference solutions, table, journal."""

from __future__ import annotations

from pathlib import Path

import pytest

from bounded.agent import replay_patches
from bounded.core import ConfigError
from bounded.envs.workbench import sandbox_available, select_tasks, task_names
from bounded.jobs.scripted_players import expert_model
from bounded.jobs.workbench import SuiteRow, format_table, run_suite
from bounded.models.scripted import ScriptedModel

pytestmark = pytest.mark.skipif(not sandbox_available(), reason="bubblewrap cannot run here")

TASKS = "many_docs,dead_code"


@pytest.mark.parametrize("contract", ["state", "transcript"])
@pytest.mark.parametrize("multi_action", [True, False])
def test_reference_solutions_pass_through_the_full_loop(contract: str, multi_action: bool) -> None:
    rows = run_suite(
        lambda task: expert_model(task, "good"),
        tasks=TASKS,
        contract=contract,
        multi_action=multi_action,
    )
    assert [r.task for r in rows] == TASKS.split(",")
    assert all(r.outcome == "pass" and r.stop_reason == "finish" for r in rows), rows
    for row in rows:
        if multi_action:
            assert row.turns == 1
        else:
            assert row.turns == row.tool_calls
        assert row.prompt_tokens > 0 and row.completion_tokens > 0


def test_wrong_solutions_fail_through_the_full_loop() -> None:
    rows = run_suite(lambda task: expert_model(task, "bad"), tasks=TASKS, contract="state")
    assert [r.outcome for r in rows] == ["fail"] * 2
    assert all(r.verdict for r in rows)


def test_a_model_that_never_finishes_runs_out_of_turns() -> None:
    looping = ScriptedModel(
        [
            {
                "reasoning": "",
                "state_patch": {},
                "actions": [{"id": "exec_shell", "args": {"command": "ls"}}],
            }
        ],
        cycle=True,
    )
    rows = run_suite(looping, tasks="count_files", contract="state", max_turns=3)
    assert rows[0].outcome == "fail" and rows[0].stop_reason == "max_turns" and rows[0].turns == 3


def test_a_crashing_model_gives_an_error_row_and_the_suite_goes_on() -> None:
    def broken(messages: list[dict[str, str]], constraint: object) -> str:
        raise RuntimeError("model down")

    rows = run_suite(lambda task: ScriptedModel(broken), tasks="count_files,many_docs")
    assert [r.outcome for r in rows] == ["error", "error"]
    assert rows[0].stop_reason == "ModelUnavailableError"


def test_the_state_journal_replays_each_episode(tmp_path: Path) -> None:
    run_suite(
        lambda task: expert_model(task, "good"),
        tasks="dead_code",
        multi_action=False,
        journal_dir=tmp_path,
    )
    states = replay_patches(tmp_path / "dead_code.patches.jsonl")
    assert states[0] == {}
    assert [s["next"] for s in states[1:]] == [f"reference turn {n}" for n in range(1, 8)]


def test_the_table_lists_every_row_and_the_totals() -> None:
    rows = [
        SuiteRow(
            task="a",
            outcome="pass",
            turns=2,
            tool_calls=5,
            seconds=1.5,
            prompt_tokens=100,
            completion_tokens=10,
            stop_reason="finish",
        ),
        SuiteRow(
            task="b",
            outcome="fail",
            turns=25,
            tool_calls=25,
            seconds=3.0,
            prompt_tokens=900,
            completion_tokens=90,
            stop_reason="max_turns",
        ),
    ]
    lines = format_table(rows).splitlines()
    assert lines[0].split() == [
        "task",
        "outcome",
        "turns",
        "calls",
        "seconds",
        "prompt",
        "tok",
        "compl",
        "tok",
        "stop",
    ]
    assert lines[2].split() == ["a", "pass", "2", "5", "1.5", "100", "10", "finish"]
    assert lines[-1].split() == ["total", "1/2", "27", "30", "4.5", "1000", "100"]


def test_task_selection_accepts_all_one_or_a_list() -> None:
    assert select_tasks("all") == list(task_names())
    assert select_tasks("git_log, long_file") == ["git_log", "long_file"]
    with pytest.raises(ConfigError, match="unknown workbench task"):
        select_tasks("count_files,nope")
