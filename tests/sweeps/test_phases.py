"""Learning phases: learn into a store, freeze it, evaluate frozen cells on the snapshot.

The experiment is the shipped `experiments/spire_a0.toml` made small: spire with one
act, two games per phase and cell, a few decisions each, the scripted schema-filling model
(`scripted:minimal`) for the cells and a scripted learner whose notes and skills pass the
write gate for the phases.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

import bounded.archive.sink as sink_module
import bounded.sweeps.phases as phases_module
import bounded.sweeps.sweep as sweep_module
from bounded.archive import Archive
from bounded.core import ConfigError
from bounded.stores.snapshot import directory_hash
from bounded.sweeps.experiment import load_experiment
from bounded.sweeps.sweep import duplicate_games, phase_record, run_sweep

SHIPPED = Path(__file__).parents[2] / "experiments" / "spire_a0.toml"

LEARNER = {
    "reasoning": "learning",
    "action": {"id": "not-a-legal-id"},  # every decision falls back to the first legal action
    "note": "Block the first hits, then attack the weakest enemy.",
    "text": "Spend potions on elites before HP drops under half.",
    "skills": [
        {
            "title": "Open with block",
            "text": "Play Defend first when the enemy attacks on turn one.",
            "kinds": ["combat"],
            "enemies": [],
            "hp_max": 1,
            "priority": 60,
        }
    ],
}

PHASES = {"learn-mode-b": "mode-b-frozen", "learn-self-evolve": "full-frozen"}
"""Phase -> the cell that reads its frozen store."""


def small_a0(tmp_path: Path, *, games=2, phase_games=2, phase_decisions=20, extra="") -> Path:
    """The shipped spire_a0.toml, made small, written beside a scripted learner."""
    (tmp_path / "learner.jsonl").write_text(json.dumps(LEARNER) + "\n")
    text = SHIPPED.read_text()
    for old, new in [
        ('archive = "runs/spire-a0.sqlite"', f'archive = "{tmp_path / "a.sqlite"}"'),
        ('model = "local"', 'model = "scripted:minimal"\nmax_decisions = 20'),
        ("games = 10", f"games = {games}"),
        ("env_options = { ascension = 0 }", "env_options = { ascension = 0, acts = 1 }"),
        (
            "[[phases]]\n",
            "[[phases]]\n"
            f'model = "scripted:learner.jsonl"\ngames = {phase_games}\n'
            f"max_decisions = {phase_decisions}\n",
        ),
    ]:
        assert old in text, old
        text = text.replace(old, new)
    path = tmp_path / "spire_a0.toml"
    path.write_text(text + extra)
    return path


def runs_by_cell(archive_path: Path) -> dict[str, list]:
    with Archive(archive_path) as archive:
        runs = archive.runs(experiment="spire-a0")
    cells: dict[str, list] = {}
    for run in sorted(runs, key=lambda r: (r.cell, r.seed)):
        cells.setdefault(run.cell, []).append(run)
    return cells


def assert_learning_chain(runs) -> None:
    """Each learning game read exactly what the one before it wrote."""
    for before, after in itertools.pairwise(runs):
        for layer in ("L4", "L5"):
            if f"{layer}.written" in before.store_hashes:
                assert (
                    after.store_hashes[f"{layer}.read"] == before.store_hashes[f"{layer}.written"]
                )


def assert_frozen_cells_read_their_phase(archive_path: Path, experiment) -> None:
    plan = experiment.stages(archive_path)
    cells = runs_by_cell(archive_path)
    with Archive(archive_path) as archive:
        for phase, cell in PHASES.items():
            record = phase_record(archive, "spire-a0", phase)
            assert record is not None
            frozen = plan.phase(phase).frozen
            assert record.hash == directory_hash(frozen) == cells[phase][-1].store_hashes["dir"]
            assert record.seeds == [run.seed for run in cells[phase]]
            assert record.runs == [run.run_id for run in cells[phase]]
            for run in cells[cell]:
                assert run.store_hashes["dir"] == record.hash
                assert run.spec["contract_config"]["store_dir"] == str(frozen)


def test_the_a0_protocol_learns_freezes_and_evaluates_end_to_end(tmp_path):
    experiment = load_experiment(small_a0(tmp_path))
    summary = run_sweep(experiment, workers=2)
    assert (summary.planned, summary.played, summary.failed) == (14, 14, [])
    assert set(summary.frozen) == set(PHASES) and summary.waiting == []
    cells = runs_by_cell(experiment.archive)
    assert sorted(cells) == sorted(
        ["baseline-strict", "prompt-only", "mode-a", *PHASES, *PHASES.values()]
    )
    assert all(
        len(runs) == 2 and {r.status for r in runs} == {"completed"} for runs in cells.values()
    )
    assert [r.seed for r in cells["learn-mode-b"]] == [1001, 1002]
    assert_frozen_cells_read_their_phase(experiment.archive, experiment)
    for phase in PHASES:
        assert_learning_chain(cells[phase])
    with Archive(experiment.archive) as archive:
        learned = phase_record(archive, "spire-a0", "learn-self-evolve")
        filled = phase_record(archive, "spire-a0", "learn-mode-b")
    assert learned is not None and filled is not None
    notes = json.loads(learned.files["summaries.json"])["summaries"]
    assert notes and notes[0]["text"] == LEARNER["note"]
    # self-evolve learned from the hand seed: full-frozen = mode-a's skills + learned ones.
    assert (
        cells["learn-self-evolve"][0].store_hashes["L5.read"]
        == (cells["mode-a"][0].store_hashes["L5.read"])
    )
    skills = {s["id"]: s for s in json.loads(learned.files["skills.json"])["skills"]}
    assert skills["learned-open-with-block"]["source_runs"] == [
        cells["learn-self-evolve"][0].run_id
    ]
    templates = json.loads(filled.files["skills.json"])["skills"]
    assert any(s["text"] == LEARNER["text"] for s in templates)  # a template mode-b filled
    again = run_sweep(experiment)
    assert (again.played, again.skipped) == (0, 14)
    assert again.frozen == summary.frozen


def test_a_phase_stopped_half_way_is_continued_on_its_store(tmp_path, monkeypatch):
    path = small_a0(tmp_path, phase_games=4)
    experiment = load_experiment(path)
    real_play = sweep_module.play_in_archive
    played = []

    def dies_after_five(spec, archive_path, *args):
        if len(played) == 5:  # the driver dies before the second phase's second game
            raise KeyboardInterrupt
        played.append(spec.key)
        return real_play(spec, archive_path, *args)

    monkeypatch.setattr(sweep_module, "play_in_archive", dies_after_five)
    with pytest.raises(KeyboardInterrupt):
        run_sweep(experiment)
    monkeypatch.setattr(sweep_module, "play_in_archive", real_play)
    with Archive(experiment.archive) as archive:
        assert phase_record(archive, "spire-a0", "learn-mode-b") is not None
        assert phase_record(archive, "spire-a0", "learn-self-evolve") is None
    preview = dry_run(path, "--list-games").output
    assert "  phase learn-self-evolve: 3/4 games to play (continued on its store)" in preview
    assert "  phase learn-mode-b: frozen " in preview
    assert "(written by phase learn-self-evolve)" in preview and "(frozen " in preview
    summary = run_sweep(experiment)
    assert summary.restarted == [] and summary.skipped == 5 and summary.played == 18 - 5
    cells = runs_by_cell(experiment.archive)
    assert [r.seed for r in cells["learn-self-evolve"]] == [1001, 1002, 1003, 1004]
    assert_learning_chain(cells["learn-self-evolve"])
    assert_frozen_cells_read_their_phase(experiment.archive, experiment)


@pytest.fixture(scope="module")
def mode_b_reference(tmp_path_factory) -> list[list]:
    """The actions of each game of phase learn-mode-b in a sweep never interrupted."""
    experiment = load_experiment(small_a0(tmp_path_factory.mktemp("whole"), phase_games=3))
    run_sweep(experiment)
    with Archive(experiment.archive) as archive:
        return [
            [d.actions for d in archive.decisions(run.run_id)]
            for run in runs_by_cell(experiment.archive)["learn-mode-b"]
        ]


@pytest.mark.parametrize("game", [0, 1])
def test_a_phase_game_killed_mid_game_continues_from_its_checkpoint(
    tmp_path, monkeypatch, mode_b_reference, game
):
    path = small_a0(tmp_path, phase_games=3)
    experiment = load_experiment(path)
    real_decision = sink_module.ArchiveSink.decision
    seen: list[str] = []

    def dies_mid_game(self, record, run, point):
        real_decision(self, record, run, point)  # committed, then the driver stops
        if run.seed == 1001 + game and record.index == 9 and not seen:
            seen.append(run.run_id)
            raise KeyboardInterrupt

    monkeypatch.setattr(sink_module.ArchiveSink, "decision", dies_mid_game)
    with pytest.raises(KeyboardInterrupt):
        run_sweep(experiment)
    monkeypatch.setattr(sink_module.ArchiveSink, "decision", real_decision)
    preview = dry_run(path).output
    assert f"continued on its store, game {1001 + game} from its checkpoint" in preview
    summary = run_sweep(experiment)
    assert summary.resumed == 1 and summary.restarted == [] and summary.failed == []
    phase = runs_by_cell(experiment.archive)["learn-mode-b"]
    assert phase[game].run_id == seen[0]  # the same run went on: nothing replayed
    with Archive(experiment.archive) as archive:
        played = [[d.actions for d in archive.decisions(run.run_id)] for run in phase]
    assert played == mode_b_reference  # the game killed plays as the game never killed
    assert_learning_chain(phase)
    assert_frozen_cells_read_their_phase(experiment.archive, experiment)


def test_a_phase_whose_store_moved_on_is_replayed_from_a_clean_store(tmp_path, monkeypatch):
    experiment = load_experiment(small_a0(tmp_path, phase_games=3))
    real_play = sweep_module.play_in_archive
    calls = []

    def dies_after_two(spec, archive_path, *args):
        if len(calls) == 2:
            raise KeyboardInterrupt
        calls.append(spec.key)
        return real_play(spec, archive_path, *args)

    monkeypatch.setattr(sweep_module, "play_in_archive", dies_after_two)
    with pytest.raises(KeyboardInterrupt):
        run_sweep(experiment)
    monkeypatch.setattr(sweep_module, "play_in_archive", real_play)
    first = {run.run_id for run in runs_by_cell(experiment.archive)["learn-mode-b"]}
    assert len(first) == 2
    # A postrun wrote the store, and the driver died before the run was marked completed.
    store = experiment.stages().phase("learn-mode-b").store
    (store / "summaries.json").write_text('{"game": "spire", "summaries": []}\n')
    preview = dry_run(experiment.source).output
    assert "  phase learn-mode-b: 3/3 games to play (replayed from a clean store" in preview
    summary = run_sweep(experiment)
    assert summary.restarted == ["learn-mode-b"] and summary.removed == 2
    cells = runs_by_cell(experiment.archive)
    assert [r.seed for r in cells["learn-mode-b"]] == [1001, 1002, 1003]
    assert not first & {r.run_id for r in cells["learn-mode-b"]}  # replayed, not kept
    assert_learning_chain(cells["learn-mode-b"])
    assert_frozen_cells_read_their_phase(experiment.archive, experiment)


SWEEP = "import typer; from bounded.cli.sweep import sweep; typer.run(sweep)"


def completed_in(archive_path: Path, cell: str) -> int:
    if not archive_path.exists():
        return 0
    try:
        with sqlite3.connect(archive_path, timeout=5) as db:
            query = "SELECT COUNT(*) FROM runs WHERE status = 'completed' AND cell = ?"
            return db.execute(query, (cell,)).fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def test_a_sweep_killed_mid_phase_with_sigkill_resumes_without_loss_or_duplicates(tmp_path):
    path = small_a0(tmp_path, phase_games=5, phase_decisions=150)
    experiment = load_experiment(path)
    process = subprocess.Popen(
        [sys.executable, "-c", SWEEP, str(path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + 120
    while completed_in(experiment.archive, "learn-mode-b") < 2 and process.poll() is None:
        assert time.monotonic() < deadline, "the sweep made no progress"
        time.sleep(0.005)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    done_before = completed_in(experiment.archive, "learn-mode-b")
    assert 2 <= done_before < 5, "the kill did not land inside the phase"
    with Archive(experiment.archive) as archive:
        assert phase_record(archive, "spire-a0", "learn-mode-b") is None
    final = subprocess.run(
        [sys.executable, "-c", SWEEP, str(path)], capture_output=True, timeout=300
    )
    assert final.returncode == 0, final.stderr.decode()[-2000:]
    output = final.stdout.decode()
    assert "frozen" in output and "20/20 games completed" in output
    assert "replayed from a clean store" not in output  # continued on its store
    cells = runs_by_cell(experiment.archive)
    with Archive(experiment.archive) as archive:
        assert duplicate_games(archive, "spire-a0") == {}
    assert sum(len(runs) for runs in cells.values()) == 20
    assert all(r.status == "completed" for runs in cells.values() for r in runs)
    for phase in PHASES:
        assert [r.seed for r in cells[phase]] == [1001, 1002, 1003, 1004, 1005]
        assert_learning_chain(cells[phase])
    assert_frozen_cells_read_their_phase(experiment.archive, experiment)


def test_a_phase_killed_while_freezing_is_frozen_again_not_replayed(tmp_path, monkeypatch):
    experiment = load_experiment(small_a0(tmp_path))
    real_freeze = phases_module.freeze_to

    def dies_after_copying(store, target):
        real_freeze(store, target)
        raise KeyboardInterrupt  # the copy exists, the archive has no record of it

    monkeypatch.setattr(phases_module, "freeze_to", dies_after_copying)
    with pytest.raises(KeyboardInterrupt):
        run_sweep(experiment)
    monkeypatch.setattr(phases_module, "freeze_to", real_freeze)
    assert experiment.stages().phase("learn-mode-b").frozen.is_dir()
    summary = run_sweep(experiment)
    assert summary.restarted == [] and summary.skipped == 2 and summary.played == 12
    assert_frozen_cells_read_their_phase(experiment.archive, experiment)


def tamper(snapshot: Path) -> None:
    file = snapshot / "summaries.json"
    file.chmod(0o644)
    file.write_text(file.read_text().replace("Block the first hits", "Never block"))


def test_a_tampered_snapshot_makes_the_frozen_cell_refuse(tmp_path):
    experiment = load_experiment(small_a0(tmp_path))
    run_sweep(experiment)
    snapshot = experiment.stages().phase("learn-self-evolve").frozen
    recorded = directory_hash(snapshot)
    tamper(snapshot)
    with Archive(experiment.archive) as archive:
        victim = next(r for r in archive.runs(experiment="spire-a0") if r.cell == "full-frozen")
        archive.delete_run(victim.run_id)
        before = len(archive.runs())
    with pytest.raises(ConfigError) as info:
        run_sweep(experiment)
    message = str(info.value)
    assert "\n" not in message and message.startswith("cells.full-frozen:")
    assert recorded in message and directory_hash(snapshot) in message
    with Archive(experiment.archive) as archive:
        assert len(archive.runs()) == before  # refused before any game


def dry_run(path: Path, *options: str):
    from bounded.cli.sweep import sweep

    app = typer.Typer()
    app.command()(sweep)
    return CliRunner().invoke(app, [str(path), "--dry-run", *options], terminal_width=80)


def test_dry_run_lists_phases_and_the_stores_they_will_write(tmp_path):
    path = small_a0(tmp_path)
    result = dry_run(path, "--list-games")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "spire-a0: 14 planned, 14 to play"
    assert lines[1].startswith("  phase learn-mode-b: 2/2 games to play (starts from a clean")
    frozen_lines = [line for line in lines if "full-frozen seed" in line]
    assert len(frozen_lines) == 2
    assert all("(written by phase learn-self-evolve)" in line for line in frozen_lines)
    assert not any(line.startswith("problem:") for line in lines)
    with Archive(tmp_path / "a.sqlite") as archive:
        assert archive.runs() == []  # nothing played


def test_dry_run_says_what_is_missing_one_line_per_problem(tmp_path):
    extra = (
        '\n[[cells]]\ntag = "own-store"\ncontract = "full-frozen"\n'
        f'contract_config = {{ store_dir = "{tmp_path / "nowhere"}" }}\n'
        '\n[[cells]]\ntag = "typo"\ncontract = "mode-c"\n'
    )
    path = small_a0(tmp_path, extra=extra)
    result = dry_run(path)
    assert result.exit_code == 1
    problems = [line for line in result.output.splitlines() if line.startswith("problem:")]
    assert len(problems) == 2, result.output
    [own] = [line for line in problems if "cells.own-store" in line]
    assert own.startswith("problem: cells.own-store.contract_config.store_dir:")
    assert own.endswith("nowhere' does not exist")
    assert any(
        line.startswith("problem: cells.typo: unknown contract 'mode-c'") for line in problems
    )
    # Once a phase is frozen, its snapshot must be there and hash as recorded.
    path = small_a0(tmp_path)
    run_sweep(load_experiment(path))
    snapshot = load_experiment(path).stages().phase("learn-mode-b").frozen
    for file in snapshot.iterdir():
        file.chmod(0o644)
    (snapshot / "skills.json").unlink()
    result = dry_run(path)
    assert result.exit_code == 1
    [problem] = [line for line in result.output.splitlines() if line.startswith("problem:")]
    assert problem.startswith("problem: cells.mode-b-frozen: the snapshot")
    assert "of phase 'learn-mode-b' hashes to" in problem and "but the phase recorded" in problem
    assert "  phase learn-self-evolve: frozen " in result.output


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ('store_from = "learn-mode-b"', 'store_from = "lern"', "cells.mode-b-frozen.store_from"),
        ('store_from = "learn-self-evolve"\n', "", "cells.full-frozen.store_from"),
        ('contract = "mode-b"\n', 'contract = "mode-a"\n', "phases.learn-mode-b.contract"),
        ('contract = "mode-b"\n', 'contract = "state"\n', "phases.learn-mode-b.contract"),
        (
            'contract = "full-frozen"',
            'contract = "self-evolve"',
            "cells.full-frozen.store_from",
        ),
        (
            'store_from = "learn-self-evolve"',
            'store_from = "learn-mode-b"',
            "cells.full-frozen.store_from",
        ),
        ('name = "learn-mode-b"', 'name = "mode-a"', "cell and phase names must be unique"),
        ("games = 2\nmax_decisions = 20\n", "seeds = []\n", "phases.learn-mode-b.seeds"),
        (
            'contract = "mode-b"\n',
            'contract = "mode-b"\ncontract_config = { store_dir = "x" }\n',
            "phases.learn-mode-b.contract_config.store_dir",
        ),
    ],
)
def test_bad_phase_or_cell_settings_are_refused_before_any_game(tmp_path, old, new, field):
    path = small_a0(tmp_path)
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    with pytest.raises(ConfigError) as info:
        run_sweep(load_experiment(path))
    message = str(info.value)
    assert field in message and "\n" not in message, message
    assert not (tmp_path / "a.sqlite").exists() or not runs_by_cell(tmp_path / "a.sqlite")


def test_a_phase_store_holding_foreign_stores_is_not_cleared(tmp_path):
    experiment = load_experiment(small_a0(tmp_path))
    store = experiment.stages().phase("learn-mode-b").store
    store.mkdir(parents=True)
    (store / "skills.json").write_text('{"game": "spire", "skills": []}\n')
    with pytest.raises(ConfigError, match="already holds stores that no game of this phase"):
        run_sweep(experiment)
    assert (store / "skills.json").exists()


def test_the_shipped_a0_file_plans_phases_then_five_cells():
    experiment = load_experiment(SHIPPED)
    assert experiment.problems() == []
    plan = experiment.stages(Path("/tmp/spire-a0.sqlite"))
    assert [phase.name for phase in plan.phases] == list(PHASES)
    assert [len(phase.games) for phase in plan.phases] == [10, 10]
    assert {spec.contract for spec in plan.phases[1].games} == {"self-evolve"}
    tags = sorted({spec.tag for spec in plan.cells})
    assert tags == sorted(["baseline-strict", "prompt-only", "mode-a", *PHASES.values()])
    assert len(plan.cells) == 50 and len(plan.games) == 70
    assert plan.reads == {cell: phase for phase, cell in PHASES.items()}
    learning = {spec.seed for phase in plan.phases for spec in phase.games}
    assert not learning & {spec.seed for spec in plan.cells}  # never learn on test seeds
