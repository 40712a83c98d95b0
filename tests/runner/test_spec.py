"""One settings model: experiment cells, `bounded run` and inspect's tasks take `GameSpec`'s
fields and defaults, and one rule gives the seeds of a lone game and of N games."""

from __future__ import annotations

import inspect as introspect
import re
from pathlib import Path

import pytest

from bounded.cli.demo import demo
from bounded.cli.run import run
from bounded.core import DEFAULT_MAX_TOKENS
from bounded.inspect_tasks.tasks import seed_list, spire, warehouse
from bounded.runner.spec import DEFAULT_SEED, GameSpec, seed_range
from bounded.sweeps.experiment import parse_experiment
from bounded.sweeps.experiment_file import SPEC_SETTINGS, CellSettings

SOURCE = Path(__file__).parents[2] / "src" / "bounded"


def test_a_cell_that_sets_nothing_plays_the_specs_defaults():
    data = {
        "experiment": {"name": "e"},
        "defaults": {"env": "warehouse", "contract": "state", "model": "local"},
        "cells": [{"tag": "t"}],
    }
    [spec] = parse_experiment(data).plan()
    default = GameSpec(env="warehouse", model="local", experiment="e", cell="t", tag="t")
    assert spec == default
    assert (spec.seed, spec.max_tokens, spec.temperature) == (
        DEFAULT_SEED,
        DEFAULT_MAX_TOKENS,
        None,
    )


def test_a_cells_settings_are_the_specs_fields_with_the_specs_constraints():
    assert set(SPEC_SETTINGS) <= set(CellSettings.model_fields) and set(SPEC_SETTINGS) <= set(
        GameSpec.model_fields
    )
    for name in SPEC_SETTINGS:
        assert (
            CellSettings.model_fields[name].description == GameSpec.model_fields[name].description
        )
    with pytest.raises(ValueError, match="max_tokens"):
        CellSettings(max_tokens=0)
    with pytest.raises(ValueError, match="temperature"):
        CellSettings(temperature=-1)


def test_bounded_runs_options_default_to_the_specs():
    options = introspect.signature(run).parameters
    for name in ("contract", "model", "seed"):
        assert options[name].default == GameSpec.model_fields[name].default, name
    for name in ("max_tokens", "temperature", "max_decisions"):
        assert options[name].default is None, name  # None: the spec's default


def test_inspects_tasks_leave_unset_options_to_the_environment_and_the_spec():
    """The warehouse's shelves and spire's acts are the environments' own (12 and 3)."""
    [sample] = warehouse().dataset
    assert sample.metadata["env_options"] == {} and sample.metadata["seed"] == DEFAULT_SEED
    [sample] = spire(ascension=2).dataset
    assert sample.metadata["env_options"] == {"ascension": 2}


def test_one_seed_rule_for_a_lone_game_and_for_n_games():
    assert GameSpec(env="warehouse").seed == DEFAULT_SEED == seed_range(1)[0]
    games = {
        "experiment": {"name": "e"},
        "defaults": {"env": "warehouse", "contract": "state", "model": "local", "games": 2},
        "cells": [{"tag": "t"}],
    }
    swept = [spec.seed for spec in parse_experiment(games).plan()]
    assert swept == seed_list(2) == seed_range(2) == [DEFAULT_SEED, DEFAULT_SEED + 1]


def test_the_reply_token_default_is_written_once():
    pattern = re.compile(r"max_tokens\s*(?::\s*int\s*)?=\s*(?:Field\(default=)?256\b")
    found = [
        f"{path.relative_to(SOURCE)}:{number}"
        for path in SOURCE.rglob("*.py")
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == []


def test_the_demos_game_stays_seed_one_act_one_at_spires_reply_limit():
    """The demo's game is the lone game's seed; its own act count and reply limit."""
    from bounded.envs.spire import REPLY_TOKENS
    from bounded.jobs.demo import SPIRE_REPLY_TOKENS, run_spire_demo

    defaults = introspect.signature(run_spire_demo).parameters
    assert (defaults["seed"].default, defaults["acts"].default) == (DEFAULT_SEED, 1) == (1, 1)
    assert SPIRE_REPLY_TOKENS == REPLY_TOKENS == 640
    assert introspect.signature(demo).parameters["seed"].default == DEFAULT_SEED
