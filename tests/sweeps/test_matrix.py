"""Every contract and preset plays every environment: a short game through the one builder
with the scripted schema-filling model, completed, archived, with the environment's outcome."""

from __future__ import annotations

import pytest

from bounded.archive import Archive
from bounded.contracts import contract_names
from bounded.envs import ENV_IDS
from bounded.envs.workbench import sandbox_available
from bounded.models.scripted import schema_filler
from bounded.runner import GameSpec, play

ENVIRONMENTS = {
    "warehouse": {"horizon": 6},
    "spire": {"acts": 1},
    "craft": {"level": 1},
    "workbench": {"task": "count_files", "max_turns": 2},
    "crafter": {"max_steps": 20},
    "textworld": {"task": "coin_collector", "settings": {"level": 3}},
    "minihack": {"task": "mazewalk-15x15"},
}
STORE_READERS = {"full-frozen", "mode-b-frozen"}
"""Presets that read a store directory of earlier runs: played on a fresh, empty one."""


@pytest.mark.parametrize("env", sorted(ENVIRONMENTS))
def test_every_contract_plays_every_environment(env, tmp_path):
    if env == "workbench" and not sandbox_available():
        pytest.skip("bubblewrap cannot run here")
    model = schema_filler()
    with Archive(tmp_path / "a.sqlite") as archive:
        for contract in contract_names():
            config = {}
            if contract in STORE_READERS:
                (tmp_path / contract).mkdir()
                config["store_dir"] = str(tmp_path / contract)
            spec = GameSpec(
                env=env, env_options=ENVIRONMENTS[env], contract=contract,
                contract_config=config, seed=1, max_decisions=8,
            )  # fmt: skip
            run = play(spec, archive=archive, model=model)
            assert run.status == "completed", (contract, run.error)
            assert 1 <= run.decisions <= 8
            assert {"victory", "score", "progress"} <= set(run.outcome)
            assert 0.0 <= run.outcome["progress"] <= 1.0
            assert len(archive.decisions(run.run_id)) == run.decisions
        runs = archive.runs()
    assert sorted(r.tag for r in runs) == sorted(contract_names())
    assert {r.env_id for r in runs} == {ENV_IDS[env]}
