import json

import pytest

from bounded.archive import Archive
from bounded.contracts import make_contract
from bounded.core import Action, Completion, ConfigError, Observation, Outcome, StepResult
from bounded.jobs.ladder import run_ladder
from bounded.models.scripted import ScriptedModel, minimal_instance
from bounded.runner import GameSpec, play
from bounded.stores.snapshot import directory_hash, freeze_to
from bounded.testing import episode

LOST = Outcome(victory=False, ended_by="defeat", score=3, progress=0.2)
WON = Outcome(victory=True, ended_by="victory", score=16, progress=1.0)


def reflecting_model():
    """Answers decisions minimally and each reflection call with a numbered lesson."""
    lessons = iter(range(1, 100))

    def reply(messages, constraint):
        if "reflection" in (constraint or {}).get("properties", {}):
            return {"reflection": f"lesson {next(lessons)}: report exact counts"}
        return minimal_instance(constraint)

    return ScriptedModel(reply)


def observation(t):
    return Observation(kind="test", text=f"room {t}", legal=[Action(id="go")], t=t)


def play_game(contract, model, outcome, turns=5, seed=0):
    contract.reset(episode(model=model, seed=seed, instructions="Walk."))
    for t in range(turns):
        obs = observation(t)
        prompt = contract.assemble(obs)
        reply = '{"reasoning": "", "action": {"id": "go"}}'
        decision = contract.parse(Completion(text=reply), obs)
        contract.commit(obs, decision, StepResult())
    contract.postrun([], outcome)
    return prompt


def layers(prompt):
    return [s.layer for s in prompt.segments]


def test_a_lost_game_is_reflected_on_and_the_next_games_carry_the_last_three():
    contract, model = make_contract("reflexion"), reflecting_model()
    first = play_game(contract, model, LOST)
    assert "reflections" not in layers(first)
    assert contract.postrun_record["reflection"] == "lesson 1: report exact counts"
    reflect_call = model.calls[-1]["messages"][1]["content"]
    assert "t=4 test: room 4 -> go" in reflect_call and "defeat" in reflect_call
    for _ in range(4):
        prompt = play_game(contract, model, LOST)
    shown = next(s.text for s in prompt.segments if s.layer == "reflections")
    assert "lesson 2" in shown and "lesson 4" in shown and "lesson 5" not in shown
    assert "lesson 1" not in shown  # only the last three
    assert len(contract.book.reflections) == 5


def test_a_won_game_writes_no_reflection_and_the_window_stays_short():
    contract, model = make_contract("reflexion", {"window": 2}), reflecting_model()
    prompt = play_game(contract, model, WON, turns=10)
    assert contract.book.reflections == [] and not model.calls
    assert contract.postrun_record["note"] == "won: no reflection"
    assert layers(prompt) == ["instructions", *["window"] * 4, "observation"]
    assert prompt.segments[1].text.startswith("room 7")


def test_window_only_and_frozen_never_reflect():
    for preset in ("reflexion-window-only", "reflexion-frozen"):
        contract, model = make_contract(preset), reflecting_model()
        play_game(contract, model, LOST)
        assert not model.calls and contract.book.reflections == []


def test_the_store_directory_is_written_hashed_frozen_and_read(tmp_path):
    store = tmp_path / "store"
    writer, model = make_contract("reflexion", {"store_dir": str(store)}), reflecting_model()
    play_game(writer, model, LOST)
    assert json.loads((store / "reflections.json").read_text())["reflections"][0]["id"] == "r1"
    assert writer.store_hashes()["dir"] == directory_hash(store)
    frozen = tmp_path / "frozen"
    freeze_to(store, frozen)
    reader = make_contract("reflexion-frozen", {"store_dir": str(frozen)})
    prompt = play_game(reader, model, LOST)
    assert "lesson 1" in next(s.text for s in prompt.segments if s.layer == "reflections")
    with pytest.raises(ConfigError, match="is a frozen snapshot"):
        make_contract("reflexion", {"store_dir": str(frozen)}).reset(episode())
    with pytest.raises(ConfigError, match="does not exist"):
        make_contract("reflexion-frozen", {"store_dir": str(tmp_path / "no")}).reset(episode())


def test_a_ladder_carries_reflections_from_run_to_run_and_archives_the_call(tmp_path):
    spec = GameSpec(env="warehouse", env_options={"horizon": 4}, contract="reflexion",
                    model="scripted:minimal", seed=1)  # fmt: skip
    with Archive(tmp_path / "a.sqlite") as archive:
        result = run_ladder(spec, runs=3, level_options=lambda level: {}, archive=archive,
                            model=reflecting_model())  # fmt: skip
        runs = {run.run_id: run for run in archive.runs()}
        last = archive.decisions(result.steps[-1].run_id)[-1]
    played = [runs[step.run_id] for step in result.steps]
    assert [run.postrun["reflection"][:8] for run in played] == ["lesson 1"] * 1 + [
        "lesson 2", "lesson 3"
    ]  # fmt: skip
    assert all(run.model_calls == run.decisions + 1 for run in played)  # the call is metered
    assert last.info["reflections_shown"] == ["r1", "r2"]
    assert played[1].store_hashes["reflections.read"] != played[0].store_hashes["reflections.read"]


def test_a_run_with_the_schema_filler_completes_and_keeps_a_reflection(tmp_path):
    spec = GameSpec(env="warehouse", env_options={"horizon": 4}, contract="reflexion",
                    contract_config={"store_dir": str(tmp_path / "s")}, seed=1)  # fmt: skip
    from bounded.models.scripted import schema_filler

    run = play(spec, model=schema_filler())
    assert run.status == "completed" and run.postrun["reflection"] == "x"
    assert run.store_hashes["dir"] == directory_hash(tmp_path / "s")


PHASED = """
[experiment]
name = "reflexion-phase"
archive = "{archive}"
stores = "{stores}"

[defaults]
env = "warehouse"
env_options = {{horizon = 4}}
model = "scripted:minimal"

[[phases]]
name = "learn-reflexion"
contract = "reflexion"
games = 2
first_seed = 100

[[cells]]
tag = "reflexion-frozen"
contract = "reflexion-frozen"
store_from = "learn-reflexion"
games = 2
"""


def test_a_learning_phase_writes_reflections_that_frozen_cells_read_from_its_snapshot(tmp_path):
    from bounded.sweeps.experiment import load_experiment
    from bounded.sweeps.sweep import phase_record, run_sweep

    path = tmp_path / "r.toml"
    path.write_text(PHASED.format(archive=tmp_path / "a.sqlite", stores=tmp_path / "stores"))
    experiment = load_experiment(path)
    summary = run_sweep(experiment)
    assert (summary.played, summary.failed) == (4, [])
    with Archive(experiment.archive) as archive:
        record = phase_record(archive, "reflexion-phase", "learn-reflexion")
        runs = {run.cell: run for run in archive.runs() if run.cell == "reflexion-frozen"}
        cell = runs["reflexion-frozen"]
        shown = archive.decisions(cell.run_id)[0].info["reflections_shown"]
    assert record is not None
    written = json.loads(record.files["reflections.json"])["reflections"]
    assert [r["seed"] for r in written] == [100, 101]
    assert shown == ["r1", "r2"] and cell.store_hashes["dir"] == record.hash


def test_a_phase_of_the_window_only_preset_is_refused_before_any_game(tmp_path):
    from bounded.sweeps.experiment import load_experiment

    path = tmp_path / "r.toml"
    text = PHASED.format(archive=tmp_path / "a.sqlite", stores=tmp_path / "stores")
    path.write_text(
        text.replace('contract = "reflexion"\n', 'contract = "reflexion-window-only"\n')
    )
    problems = load_experiment(path).problems()
    assert any("writes no layer" in p.line for p in problems)
