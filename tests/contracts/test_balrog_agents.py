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

import bounded
from bounded.archive import Archive
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
    """The chat requests, decisions and run of a bounded game of `agent` on BALROG's replies."""
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
    bodies, decisions, run = played(agent, tmp_path_factory.mktemp(agent))
    return RECORDED["agents"][agent], bodies, decisions, run


def test_every_request_holds_the_messages_balrog_sends(game) -> None:
    record, bodies, _, _ = game
    sent = [[{"role": m["role"], "content": m["content"]} for m in b["messages"]] for b in bodies]
    assert len(sent) == len(record["requests"]) == RECORDED["steps"]
    for step, (ours, balrogs) in enumerate(zip(sent, record["requests"], strict=True)):
        assert ours == balrogs, f"request {step} differs"


def test_every_reply_executes_the_action_balrog_executes(game) -> None:
    record, _, decisions, _ = game
    assert [d.actions[0].id for d in decisions] == record["played"]
    failed = [c for d in decisions for c in d.info.get("invalid_actions", [])]
    assert failed == record["episode_file"]["failed_candidates"]


def test_no_request_carries_a_sampling_seed_as_balrogs_client_sends_none(game) -> None:
    _, bodies, _, run = game
    assert not any("seed" in body for body in bodies)
    assert run.model_params["sampling_seed"] is None
    client = RECORDED["agents"]["naive"]["episode_file"]["client"]["generate_kwargs"]
    assert {(b["temperature"], b["max_tokens"]) for b in bodies} == {
        (client["temperature"], client["max_tokens"])
    }
