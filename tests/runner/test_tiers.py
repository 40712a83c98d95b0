"""Model tiers: a model per decision kind (AgenticSTS: a fast model for combat, a strategic
model elsewhere), recorded per decision and counted per model."""

from __future__ import annotations

import pytest

from bounded.archive import Archive
from bounded.cli import main
from bounded.models.scripted import schema_filler
from bounded.runner import GameSpec, play

SPIRE = GameSpec(
    env="spire", env_options={"acts": 1}, contract="mode-a", seed=1, max_decisions=12,
    models={"combat": "scripted:unused"},
)  # fmt: skip


def test_each_decision_kind_goes_to_its_model_and_usage_is_split(tmp_path):
    fast, strategic = schema_filler(id="fast"), schema_filler(id="strategic")
    with Archive(tmp_path / "a.sqlite") as archive:
        run = play(SPIRE, archive=archive, model=strategic, models={"combat": fast})
        decisions = archive.decisions(run.run_id)
        stored = archive.run(run.run_id)
    kinds = {d.kind for d in decisions}
    assert "combat" in kinds and len(kinds) > 1
    for decision in decisions:
        expected = "fast" if decision.kind == "combat" else "strategic"
        assert decision.model == expected
        assert decision.completion is not None and decision.completion.model == expected
    combat = sum(d.kind == "combat" for d in decisions)
    assert stored.usage["fast"]["calls"] == combat == len(fast.calls)
    assert stored.usage["strategic"]["calls"] == len(decisions) - combat == len(strategic.calls)
    assert sum(u["prompt_tokens"] for u in stored.usage.values()) == stored.prompt_tokens
    assert stored.model == "strategic" and stored.model_params["models"] == {"combat": "fast"}
    assert stored.spec["models"] == {"combat": "scripted:unused"}


def test_a_spec_names_its_tiers_and_the_builder_builds_each_model_once(tmp_path):
    reply = tmp_path / "r.jsonl"
    reply.write_text('"not json"\n')
    spec = SPIRE.model_copy(
        update={"model": f"scripted:{reply}", "models": {"combat": f"scripted:{reply}"}}
    )
    from bounded.runner import build_game

    game = build_game(spec)
    assert game.models["combat"] is game.model  # one spec, one model


@pytest.mark.parametrize("bad", ["combat", "=local", "combat="])
def test_a_bad_tier_is_one_line(capsys, tmp_path, bad):
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "warehouse", "--model-for", bad, str(tmp_path / "a.sqlite")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "is not KIND=MODEL" in err and len(err.strip().splitlines()) == 1


def embedded_weights() -> str:
    from bounded.models.local import EMBEDDED

    return str(EMBEDDED["smollm2"].path())


@pytest.mark.model
def test_the_embedded_model_under_two_ids_records_which_made_each_decision(tmp_path):
    spec = SPIRE.model_copy(
        update={
            "model": "local",
            "models": {"neow": f"local:{embedded_weights()}"},  # every game opens with one
            "max_decisions": 2,
            "max_tokens": 640,
        }
    )
    with Archive(tmp_path / "a.sqlite") as archive:
        run = play(spec, archive=archive)
        decisions = archive.decisions(run.run_id)
    assert decisions[0].kind == "neow" and decisions[1].kind != "neow"
    strategic, fast = "local:smollm2", f"local:{embedded_weights().rsplit('/', 1)[-1]}"
    assert [d.model for d in decisions] == [fast, strategic]
    assert run.usage[strategic]["calls"] == 1 and run.usage[fast]["calls"] == 1


@pytest.mark.model
def test_a_real_llama_server_plays_one_tier(tmp_path, llama_server):
    spec = SPIRE.model_copy(
        update={
            "model": "local",
            "models": {"neow": "openai:smollm2"},
            "base_url": llama_server,
            "max_decisions": 2,
            "max_tokens": 640,
        }
    )
    with Archive(tmp_path / "a.sqlite") as archive:
        run = play(spec, archive=archive)
        decisions = archive.decisions(run.run_id)
    assert [d.model for d in decisions] == ["openai:smollm2", "local:smollm2"]
    assert decisions[0].completion.prompt_tokens > 0  # usage reported by the server
    assert set(run.usage) == {"local:smollm2", "openai:smollm2"}


def test_an_experiment_cell_names_its_tiers(tmp_path):
    from bounded.sweeps.experiment import parse_experiment

    (tmp_path / "fast.jsonl").write_text('"x"\n')
    experiment = parse_experiment(
        {
            "experiment": {"name": "tiers"},
            "defaults": {"env": "spire", "model": "local", "games": 1},
            "cells": [
                {"tag": "t", "contract": "mode-a", "models": {"combat": "scripted:fast.jsonl"}}
            ],
        },
        source=tmp_path / "e.toml",
    )
    [game] = experiment.plan()
    assert game.models == {"combat": f"scripted:{tmp_path / 'fast.jsonl'}"}
