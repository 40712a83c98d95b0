"""The state runtime as a library: user tools, the bounded loop, the patch journal."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bounded.agent import (
    PatchJournal,
    StateAgent,
    Tool,
    ToolEnv,
    ToolError,
    replay_patches,
    run_task,
    schema_from_signature,
    tool,
)
from bounded.core import FORMAT_VERSION, Action, ConfigError
from bounded.models.scripted import ScriptedModel


@tool
def add(a: int, b: int = 0) -> int:
    """Add two integers.

    More text that is not shown."""
    return a + b


def lookup(city: str) -> str:
    if city == "Atlantis":
        raise ToolError("no such city")
    return {"Lyon": "14C"}.get(city, "unknown")


WEATHER = Tool(
    name="weather",
    description="today's temperature in a city",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    fn=lookup,
)


def reply(patch: dict[str, Any], *calls: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {
        "reasoning": "",
        "state_patch": patch,
        "actions": [{"id": name, "args": args} for name, args in calls],
    }


def test_tool_schemas_come_from_signatures_and_docstrings() -> None:
    assert add.name == "add" and add.description == "Add two integers."
    assert add.parameters["properties"] == {"a": {"type": "integer"}, "b": {"type": "integer"}}
    assert add.parameters["required"] == ["a"]
    assert add(a=2, b=3) == 5

    def bad(x: object) -> None: ...

    with pytest.raises(ConfigError, match="schema"):
        schema_from_signature(bad)


def test_a_tool_named_finish_is_refused() -> None:
    with pytest.raises(ConfigError, match="finish"):
        ToolEnv("task", [tool(lambda: 1, name="finish")])


def test_the_agent_calls_tools_patches_its_state_and_finishes(tmp_path: Path) -> None:
    model = ScriptedModel(
        [
            reply(
                {"goal": "sum", "seen": {"$append": ["start"]}},
                ("add", {"a": 2, "b": 40}),
                ("weather", {"city": "Lyon"}),
            ),
            reply({"sum": 42, "seen": {"$append": ["added"]}}, ("finish", {"answer": "42"})),
        ]
    )
    journal = tmp_path / "run" / "patches.jsonl"
    result = StateAgent(model, [add, WEATHER]).run("Add 2 and 40.", journal=journal)
    assert (result.answer, result.stop_reason, result.turns) == ("42", "finish", 2)
    assert result.state == {"goal": "sum", "seen": ["start", "added"], "sum": 42}
    assert result.run.model_calls == 2 and result.run.status == "completed"
    second_prompt = model.calls[1]["messages"]
    assert "[1] add" in second_prompt[-1]["content"] and "42" in second_prompt[-1]["content"]
    assert "14C" in second_prompt[-1]["content"]
    assert '"seen":["start"]' in second_prompt[-1]["content"]
    assert replay_patches(journal) == [
        {},
        {"goal": "sum", "seen": ["start"]},
        {"goal": "sum", "seen": ["start", "added"], "sum": 42},
    ]


def test_the_prompt_holds_only_spec_state_and_the_latest_observation() -> None:
    calls = [reply({"n": i}, ("add", {"a": i})) for i in range(5)] + [reply({}, ("finish", {}))]
    model = ScriptedModel(calls)
    run_task("Count.", [add], model)
    sizes = [len(call["messages"]) for call in model.calls]
    assert set(sizes) == {2}
    last = model.calls[-1]["messages"]
    assert '[1] add {"a": 4}' in last[1]["content"]
    assert '{"a": 3}' not in last[1]["content"]


def test_tool_errors_are_shown_not_raised() -> None:
    model = ScriptedModel(
        [
            reply({}, ("weather", {"city": "Atlantis"}), ("weather", {"city": "Lyon"})),
            reply({}, ("finish", {"answer": "done"})),
        ]
    )
    result = run_task("Check the weather.", [add, WEATHER], model)
    observation = model.calls[1]["messages"][-1]["content"]
    assert "-> error\n<<<output\nno such city" in observation
    assert "14C" in observation
    assert result.run.outcome["tool_errors"] == 1


def test_arguments_are_checked_against_the_schema_before_a_call() -> None:
    env = ToolEnv("Add.", [add])
    env.reset(seed=0)
    obs, *_ = env.step([Action(id="add", args={"a": "two"}), Action(id="nope")])
    first, second = obs.state["results"]
    assert not first["ok"] and first["output"].startswith("bad args")
    assert not second["ok"] and second["output"] == "no such tool"


def test_single_call_mode_asks_for_one_action() -> None:
    model = ScriptedModel(
        [{"reasoning": "", "state_patch": {}, "action": {"id": "finish", "args": {}}}]
    )
    result = run_task("Stop at once.", [add], model, multi_action=False)
    assert result.stop_reason == "finish"
    assert "action" in model.calls[0]["constraint"]["properties"]
    assert "actions" not in model.calls[0]["constraint"]["properties"]


def test_the_turn_budget_stops_the_agent() -> None:
    model = ScriptedModel([reply({}, ("add", {"a": 1}))], cycle=True)
    result = run_task("Never ends.", [add], model, max_turns=3)
    assert (result.answer, result.stop_reason, result.turns) == (None, "max_turns", 3)


def test_rejected_patches_are_journaled_and_skipped_on_replay(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"count": {"type": "integer"}}}
    model = ScriptedModel(
        [
            reply({"count": 1}, ("add", {"a": 1})),
            reply({"count": "many"}, ("add", {"a": 1})),
            reply({"count": 3}, ("finish", {})),
        ]
    )
    journal = tmp_path / "patches.jsonl"
    result = run_task("Count.", [add], model, state_schema=schema, journal=journal)
    lines = [json.loads(line) for line in journal.read_text().splitlines()]
    assert lines[0]["initial_state"] == {} and lines[0]["format_version"] == FORMAT_VERSION
    assert [line["accepted"] for line in lines[1:]] == [True, False, True]
    assert "schema" in lines[2]["reason"]
    assert replay_patches(journal) == [{}, {"count": 1}, {"count": 3}]
    assert result.state == {"count": 3}


def test_an_empty_journal_is_an_error(tmp_path: Path) -> None:
    empty = tmp_path / "patches.jsonl"
    empty.write_text("")
    with pytest.raises(ConfigError, match="empty"):
        PatchJournal(empty).replay()


def test_the_tool_env_saves_and_loads() -> None:
    env = ToolEnv("Add.", [add], max_turns=4)
    env.reset(seed=0)
    env.step([Action(id="add", args={"a": 1, "b": 2})])
    copy = ToolEnv("other", [add])
    copy.load(env.save())
    assert (copy.turn, copy.calls, copy.task) == (1, 1, "Add.")
    assert copy.last_results[0].output == "3"
    _, _, terminated, _, _ = copy.step(Action(id="finish", args={"answer": "3"}))
    assert terminated and copy.metrics()["answer"] == "3"
