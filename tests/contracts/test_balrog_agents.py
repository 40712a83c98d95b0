"""BALROG's four agents fed BALROG's replies send what BALROG's code sends and execute what
it executes, on every reply of a 20-reply BabyAI game.

The expected requests and actions are recorded from BALROG's own agents, prompt builder,
OpenAI client wrapper and evaluator loop (`tests/data/balrog_golden/agents/`, whose README
says how): BALROG's code on the observations of a BabyAI episode recorded from BALROG's own
BabyAI wrapper, which bounded's BabyAI plays alike under BALROG's presentation
(`tests/envs/babyai/test_balrog_presentation.py`). The replies include what separates
BALROG's reading from a looser one: trailing line breaks and spaces (BALROG's client strips
every reply), an action's description instead of its name (BALROG accepts only its
vocabulary), replies that name nothing (no action in the history, so the deque holds more
than 16 observations and the oldest are shown without their text)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import bounded
from bounded.archive import Archive
from bounded.cli import app
from bounded.runner import GameSpec
from bounded.testing.endpoint import Endpoint

FIXTURE = Path(__file__).parents[1] / "data" / "balrog_golden" / "agents" / "agents.json.gz"
RECORDED: dict[str, Any] = json.loads(gzip.decompress(FIXTURE.read_bytes()))
PRESETS = {
    "naive": "balrog-naive",
    "cot": "balrog-cot",
    "robust_naive": "balrog-robust-naive",
    "robust_cot": "balrog-robust-cot",
}
"""BALROG's `agent.type` -> bounded's preset."""


def played(agent: str, tmp_path: Path) -> tuple[list[list[dict[str, str]]], list[Any], Any]:
    """The chat requests, decisions and run of a bounded game of `agent` on BALROG's replies
    (archived in `tmp_path / "a.sqlite"`)."""
    record = RECORDED["agents"][agent]
    task = RECORDED["task"].split("/")[1]
    with Endpoint() as endpoint, Archive(tmp_path / "a.sqlite") as archive:
        endpoint.play(*(endpoint.ok(content=reply) for reply in record["replies"]))
        spec = GameSpec(env="babyai", env_options={"level": task}, contract=PRESETS[agent],
                        model="openai:m", base_url=endpoint.url, seed=RECORDED["seed"],
                        max_decisions=RECORDED["steps"])  # fmt: skip
        run = bounded.play(spec, archive=archive)
        decisions = archive.decisions(run.run_id, with_segments=False)
        bodies = [request.body for request in endpoint.requests]
    return bodies, decisions, run


@pytest.fixture(scope="module", params=list(PRESETS))
def game(request, tmp_path_factory):
    agent = request.param
    folder = tmp_path_factory.mktemp(agent)
    bodies, decisions, run = played(agent, folder)
    return RECORDED["agents"][agent], bodies, decisions, run, folder / "a.sqlite"


def test_every_request_holds_the_messages_balrog_sends(game) -> None:
    record, bodies, *_ = game
    sent = [[{"role": m["role"], "content": m["content"]} for m in b["messages"]] for b in bodies]
    assert len(sent) == len(record["requests"]) == RECORDED["steps"]
    for step, (ours, balrogs) in enumerate(zip(sent, record["requests"], strict=True)):
        assert ours == balrogs, f"request {step} differs"


def test_every_reply_executes_the_action_balrog_executes(game) -> None:
    record, _, decisions, *_ = game
    assert [d.actions[0].id for d in decisions] == record["played"]
    failed = [c for d in decisions for c in d.info.get("invalid_actions", [])]
    assert failed == record["episode_file"]["failed_candidates"]


def test_no_request_carries_a_sampling_seed_as_balrogs_client_sends_none(game) -> None:
    _, bodies, _, run, _ = game
    assert not any("seed" in body for body in bodies)
    assert run.model_params["sampling_seed"] is None
    client = RECORDED["agents"]["naive"]["episode_file"]["client"]["generate_kwargs"]
    assert {(b["temperature"], b["max_tokens"]) for b in bodies} == {
        (client["temperature"], client["max_tokens"])
    }


def test_the_exported_episode_file_is_where_and_what_balrog_writes(game, tmp_path) -> None:
    """`bounded export --format balrog` writes the game's file at the path BALROG's
    evaluator wrote it (so BALROG's resume finds it), with BALROG's fields: its agent type,
    its client's keys, the executed actions' counts, the failed candidates, and no `done`
    for a game cut by the step budget."""
    record, _, _, run, archive = game
    out = tmp_path / "results"
    written = CliRunner().invoke(app, ["export", str(archive), "--format", "balrog", "-o",
                                       str(out)])  # fmt: skip
    assert written.exit_code == 0, written.output
    folder = out / run.tag / "openai_m"
    path = folder / record["episode_path"]
    assert path.exists(), sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))
    ours, balrogs = json.loads(path.read_text()), record["episode_file"]
    assert set(balrogs) <= set(ours) and "done" not in ours
    same = ("task", "action_frequency", "failed_candidates", "num_steps", "seed", "mission",
            "episode_return", "progression")  # fmt: skip
    assert {k: ours[k] for k in same} == {k: balrogs[k] for k in same}
    assert ours["agent"]["type"] == balrogs["agent"]["type"]
    assert ours["agent"]["max_text_history"] == balrogs["agent"]["max_text_history"]
    assert set(balrogs["client"]) - set(ours["client"]) <= {
        "timeout",
        "max_retries",
        "delay",
        "alternate_roles",
    }
    assert (ours["client"]["client_name"], ours["client"]["model_id"]) == ("openai", "m")
    assert ours["client"]["generate_kwargs"] == {
        k: v for k, v in balrogs["client"]["generate_kwargs"].items() if v is not None
    }
