"""Whole runs against the fault-injecting server of `conftest.py`: a run whose endpoint
never answers fails, occasional failures are fallbacks, a run past its model-time deadline
fails, and the policy reaches the model from a game, an experiment file and the CLI."""

import json
import time

import pytest

import bounded
from bounded.archive import Archive
from bounded.cli import main
from bounded.runner import ModelUnavailableError
from bounded.runner.build import build_game, build_model
from bounded.runner.meter import ModelDeadlineError
from bounded.sweeps.experiment import parse_experiment

ARGS = {"occupied": 0, "shipped": 0}
STATE_REPLY = json.dumps(
    {"reasoning": "", "state_patch": {}, "action": {"id": "report", "args": ARGS}}
)
MARGIN_S = 3.0
"""Slack on the wall-clock bounds for a loaded machine: each bound separates a run that its
timeouts cut from one that hangs or waits out every late reply (10 x 0.5 s)."""


def spec(server, horizon, **retry):
    policy = {"backoff_s": 0.01, "backoff_max_s": 0.05, "jitter_s": 0.0, **retry}
    return bounded.GameSpec(
        env="warehouse", env_options={"horizon": horizon}, contract="state", model="openai:m",
        base_url=server.url, model_options={"retry": policy}, seed=1,
    )  # fmt: skip


def test_a_run_that_never_reaches_its_endpoint_fails(fault_server, tmp_path):
    s = fault_server
    s.play(then=s.status(500))
    started = time.monotonic()
    with Archive(tmp_path / "a.sqlite") as archive:
        with pytest.raises(ModelUnavailableError, match="never answered: 2 calls failed"):
            bounded.play(spec(s, 2, attempts=2), archive=archive)
        [run] = archive.runs()
        decisions = archive.decisions(run.run_id)
    assert run.status == "failed" and "no reply after 2 attempts" in run.error
    assert [d.fallback for d in decisions] == [True, True] and s.attempts == 4
    assert time.monotonic() - started < MARGIN_S


def test_occasional_failures_are_fallback_decisions(fault_server, tmp_path):
    s = fault_server
    s.play(s.hang(), then=s.ok(content=STATE_REPLY))
    with Archive(tmp_path / "a.sqlite") as archive:
        run = bounded.play(spec(s, 3, attempts=1, timeout_s=0.5), archive=archive)
        decisions = archive.decisions(run.run_id)
    assert run.status == "completed" and run.model_calls == 2
    assert decisions[0].fallback and "EndpointError" in decisions[0].parse_error
    assert "APITimeoutError" in decisions[0].parse_error
    assert not decisions[1].fallback and not decisions[2].fallback


def test_a_run_past_its_model_time_deadline_fails(fault_server, tmp_path):
    s = fault_server
    s.play(then=s.late(0.5, content=STATE_REPLY))
    with Archive(tmp_path / "a.sqlite") as archive:
        with pytest.raises(ModelDeadlineError, match=r"passed the run's deadline of 1\.25 s"):
            bounded.play(spec(s, 10, run_deadline_s=1.25), archive=archive)
        [run] = archive.runs()
    assert run.status == "failed" and run.decisions == 2 and s.attempts == 3
    assert run.wall_s < 1.5 + MARGIN_S


def test_a_missing_usage_is_estimated_flagged_and_archived(fault_server, tmp_path):
    s = fault_server
    s.play(then=s.ok(usage=False, content=STATE_REPLY))
    with Archive(tmp_path / "a.sqlite") as archive:
        run = bounded.play(spec(s, 2), archive=archive)
        completions = [d.completion for d in archive.decisions(run.run_id)]
    assert run.status == "completed" and all(c.usage_estimated for c in completions)
    assert run.prompt_tokens == sum(c.prompt_tokens for c in completions) > 0
    assert run.completion_tokens == sum(c.completion_tokens for c in completions) > 0


def test_the_cli_timeout_bounds_a_hanging_endpoint(fault_server, tmp_path, capsys):
    s = fault_server
    s.play(then=s.hang())
    archive = tmp_path / "runs.sqlite"
    started = time.monotonic()
    with pytest.raises(SystemExit) as exit_info:
        main([
            "run", "warehouse", "--horizon", "2", "--model", "openai:m", "--base-url", s.url,
            "--timeout", "0.5", "--retry", "jitter_s=0", str(archive),
        ])  # fmt: skip
    elapsed = time.monotonic() - started
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and "never answered" in err and len(err.splitlines()) == 1
    assert elapsed < 2 * 0.5 + MARGIN_S
    with Archive(archive) as store:
        [run] = store.runs()
    assert run.status == "failed"
    assert run.spec["model_options"] == {"retry": {"jitter_s": 0, "timeout_s": 0.5}}


def test_a_bad_cli_policy_is_one_line(fault_server, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "warehouse", "--model", "openai:m", "--base-url", fault_server.url,
              "--retry", "attempts=0"])  # fmt: skip
    err = capsys.readouterr().err
    assert exit_info.value.code == 2
    assert err.startswith("bounded: error: bad retry policy: attempts:")
    assert len(err.splitlines()) == 1


def test_experiment_cells_pass_model_options_to_their_models(fault_server):
    experiment = parse_experiment({
        "experiment": {"name": "e"},
        "defaults": {"env": "warehouse", "model": "openai:m", "base_url": fault_server.url,
                     "model_options": {"retry": {"timeout_s": 7}}, "games": 1},
        "cells": [{"tag": "state", "contract": "state"},
                  {"tag": "quick", "contract": "state",
                   "model_options": {"retry": {"timeout_s": 2, "attempts": 1}}}],
    })  # fmt: skip
    default, quick = experiment.plan()
    assert default.model_options == {"retry": {"timeout_s": 7}}
    assert build_model(default).retry.timeout_s == 7
    assert (build_model(quick).retry.timeout_s, build_model(quick).retry.attempts) == (2, 1)


def test_tiers_get_the_options_and_in_process_tiers_ignore_the_policy(fault_server):
    game = spec(fault_server, 2, timeout_s=9).model_copy(
        update={"models": {"stream": "scripted:minimal", "combat": "openai:fast"}}
    )
    built = build_game(game)
    assert built.model.retry.timeout_s == built.models["combat"].retry.timeout_s == 9
    assert built.models["stream"].id.startswith("scripted")
