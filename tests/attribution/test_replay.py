"""Replaying archived runs: the state at each decision is rebuilt from the seed and the
recorded actions, and a run that cannot be replayed is refused with one line."""

import sqlite3

import pytest

from bounded.archive import Archive
from bounded.attribution import ReplayError, register_expert, replay
from bounded.contracts import make_contract
from bounded.core import Action, ConfigError, DecisionRecord, RunRecord
from bounded.envs import make
from bounded.envs.warehouse import WarehouseExpert
from bounded.runner import run_episode

from .conftest import HORIZON, layered_model


def replay_of(path, run_id, wanted=None):
    with Archive(path, read_only=True) as archive:
        run, records = archive.run(run_id), archive.decisions(run_id)
    return replay(run, records, range(len(records)) if wanted is None else wanted)


def one_line_refusal(path, run_id, match):
    with pytest.raises(ReplayError, match=match) as caught:
        replay_of(path, run_id)
    assert "\n" not in str(caught.value)
    return str(caught.value)


def test_replay_rebuilds_every_decision_and_asks_the_expert(warehouse_archive):
    path, run_id = warehouse_archive
    states = replay_of(path, run_id)
    assert sorted(states) == list(range(HORIZON))
    expert, env = WarehouseExpert(), make("warehouse", horizon=HORIZON)
    obs, _ = env.reset(seed=3)
    for index in range(HORIZON):
        state = states[index]
        assert state.obs == obs
        assert state.expert_actions == [expert.act(obs)]
        assert state.record.actions == state.expert_actions  # the model played perfectly
        obs, *_ = env.step(state.record.actions)


def test_a_subset_replays_only_as_far_as_needed(warehouse_archive):
    path, run_id = warehouse_archive
    assert sorted(replay_of(path, run_id, {2, 5})) == [2, 5]


def tamper(path, sql, params=()):
    db = sqlite3.connect(path)
    with db:
        db.execute(sql, params)
    db.close()


def test_a_divergent_time_is_refused(warehouse_archive):
    path, run_id = warehouse_archive
    tamper(path, "UPDATE decisions SET t = 99 WHERE idx = 4")
    message = one_line_refusal(path, run_id, "divergence at decision 4")
    assert "archived stream at t=99" in message


def test_a_recorded_action_the_replay_does_not_allow_is_refused(warehouse_archive):
    path, run_id = warehouse_archive
    tamper(path, "INSERT INTO shared (hash, json) VALUES (x'00', ?)", ('{"id":"wait"}',))
    wait = "(SELECT id FROM shared WHERE hash = x'00')"  # the stored action `wait`
    tamper(path, f"UPDATE decisions SET actions = json_array(json_array({wait})) WHERE idx = 6")
    one_line_refusal(path, run_id, "divergence at decision 6: recorded action 'wait' is not legal")


def test_a_gap_in_the_decisions_is_refused(warehouse_archive):
    path, run_id = warehouse_archive
    tamper(path, "DELETE FROM decisions WHERE idx = 3")
    one_line_refusal(path, run_id, "decision 3 is missing")


def test_a_run_without_its_spec_is_refused(tmp_path):
    path = tmp_path / "old.sqlite"
    with Archive(path) as archive:
        run = run_episode(
            make("warehouse", horizon=3), make_contract("state"), layered_model(), seed=1,
            env_id="bounded/Warehouse-v0", archive=archive,
        )  # fmt: skip
    one_line_refusal(path, run.run_id, "archived without its game spec")


def fake_run(path, env_id):
    run = RunRecord(run_id=f"run-{env_id[-12:]}", env_id=env_id, contract="state", model="m",
                    seed=1, spec={"env": env_id}, decisions=1)  # fmt: skip
    record = DecisionRecord(
        run_id=run.run_id, index=0, t=0, kind="tool", segments=[], tokens_by_layer={},
        prompt_tokens=0, completion=None, actions=[Action(id="finish")],
    )  # fmt: skip
    with Archive(path) as archive:
        archive.save_run(run)
        archive.add_decision(record)
    return run.run_id


def test_an_environment_without_replay_is_refused(tmp_path):
    path = tmp_path / "w.sqlite"
    run_id = fake_run(path, "bounded/Workbench-v0")
    one_line_refusal(path, run_id, "Workbench-v0: its tools run real processes")


def test_an_environment_without_an_expert_is_refused_until_one_is_registered(tmp_path):
    path = tmp_path / "w.sqlite"
    run_id = fake_run(path, "tests/NoExpert-v0")
    one_line_refusal(path, run_id, "tests/NoExpert-v0 has no expert")
    register_expert("tests/NoExpert-v0", WarehouseExpert)
    with pytest.raises(ConfigError, match="unknown environment 'tests/NoExpert-v0'"):
        replay_of(path, run_id)  # past the expert check: the environment is built
