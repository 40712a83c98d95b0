"""Names of environments, contracts and models: short names, import paths, registrations
made at run time (handed to sweep workers), and one-line errors."""

from __future__ import annotations

import textwrap

import gymnasium
import pytest

import bounded
from bounded.contracts import CONTRACTS, PRESETS, make_contract, register_contract
from bounded.core import ConfigError
from bounded.envs import ENV_RECORDS, canonical_env_id, make, register_env, resolve_env_id
from bounded.models import MODELS, make_model, register_model
from bounded.registry import Registry, load_target
from bounded.runner.plugins import registrations, restore_registrations
from bounded.sweeps.experiment import parse_experiment
from bounded.sweeps.sweep import run_sweep

MODULE = """
import gymnasium
from bounded.contracts.state import StateContract
from bounded.models.scripted import ScriptedModel

REPLY = {"reasoning": "", "action": {"id": "report", "args": {"occupied": 0, "shipped": 0}}}


class Mine(StateContract):
    name = "mine"


def constant(rest="", **options):
    return ScriptedModel([REPLY], cycle=True, id=f"constant:{rest}")


gymnasium.register(id="Stream-v7", entry_point="bounded.envs.warehouse:WarehouseEnv")
"""


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    (tmp_path / "user_plugins.py").write_text(textwrap.dedent(MODULE))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))  # spawned workers import it too
    return "user_plugins"


def test_import_bounded_registers_the_environments_with_gymnasium():
    env = gymnasium.make("bounded/Warehouse-v0", horizon=3)
    assert isinstance(env.unwrapped, bounded.TextEnv)


def test_names_resolve_to_one_canonical_id():
    assert resolve_env_id("spire") == resolve_env_id("bounded/Spire-v0") == "bounded/Spire-v0"
    assert canonical_env_id("craft") == "bounded/Craft-v0"
    assert canonical_env_id("mine/Other-v0") == "mine/Other-v0"


def test_import_paths_work_wherever_a_name_goes(user_module):
    assert type(make_contract(f"{user_module}:Mine")).__name__ == "Mine"
    assert make_model(f"{user_module}:constant:x").id == "constant:x"
    assert make_model(f"{user_module}:constant").id == "constant:"
    assert resolve_env_id(f"{user_module}:Stream-v7") == "Stream-v7"
    assert make(f"{user_module}:Stream-v7", horizon=2).metrics()["horizon"] == 2


def test_errors_name_what_is_wrong_in_one_line():
    cases = [
        (lambda: make_contract("nope"), "unknown contract 'nope'"),
        (lambda: make_contract("no_such_module:X"), "cannot import 'no_such_module'"),
        (lambda: make_contract("bounded.core:Nothing"), "has no attribute 'Nothing'"),
        (lambda: make_contract("bounded.core:JSON"), "is not a class or a Preset"),
        (lambda: make_model("gpt"), "unknown model 'gpt'"),
        (lambda: make_model("bounded.core:approx_tokens:x"), "does not implement"),
        (lambda: make("moon"), "unknown environment 'moon'"),
        (lambda: make("no_such_module:Env-v0"), "cannot import 'no_such_module'"),
        (lambda: make("craftr"), r"unknown environment 'craftr' \(did you mean 'crafter'\?\)"),
        (lambda: make_contract("typd"), r"unknown contract 'typd' \(did you mean 'typed'\?\)"),
        (lambda: make_model("opnai:m"), r"did you mean openai:m\?"),
    ]
    for build, message in cases:
        with pytest.raises(ConfigError, match=message) as caught:
            build()
        assert "\n" not in str(caught.value)


def test_a_registry_reads_entry_points_lazily_and_snapshots_runtime_names():
    registry = Registry("thing", "bounded.test-nothing", {"ours": "bounded.core:Outcome"})
    registry.register("theirs", "bounded.core:Observation")
    registry.register("object", object)
    assert registry.names() == ["object", "ours", "theirs"]
    assert registry.snapshot() == {"theirs": "bounded.core:Observation"}
    assert registry.load("theirs") is load_target("bounded.core:Observation")
    assert "missing" not in registry


def test_runtime_registrations_reach_sweep_workers(user_module, tmp_path):
    register_contract("mine", f"{user_module}:Mine")
    register_model("constant", f"{user_module}:constant")
    register_env("user/Stream-v0", "bounded.envs.warehouse:WarehouseEnv")
    try:
        snapshot = registrations()
        assert snapshot["contracts"]["mine"] == f"{user_module}:Mine"
        experiment = parse_experiment(
            {
                "experiment": {"name": "reg", "archive": str(tmp_path / "a.sqlite")},
                "defaults": {"env": "user/Stream-v0", "model": "constant:w", "games": 2},
                "cells": [{"tag": "mine", "contract": "mine", "env_options": {"horizon": 3}}],
            }
        )
        summary = run_sweep(experiment, workers=2)
        assert summary.completed == 2 and summary.failed == []
    finally:
        for registry, name in ((CONTRACTS, "mine"), (MODELS, "constant")):
            registry._targets.pop(name, None)
        ENV_RECORDS._records.pop("user/Stream-v0", None)


def test_restoring_registrations_is_idempotent_and_keeps_presets():
    restore_registrations({"presets": {"quiet-state": ["state", {"reasoning": False}]}})
    restore_registrations({"presets": {"quiet-state": ["state", {"reasoning": False}]}})
    try:
        assert make_contract("quiet-state").config.reasoning is False
    finally:
        PRESETS.pop("quiet-state")
