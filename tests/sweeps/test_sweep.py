import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest

from bounded.archive import Archive
from bounded.archive.progress import current_lease, lease_scope, owner_alive
from bounded.core import ConfigError
from bounded.sweeps.experiment import load_experiment
from bounded.sweeps.sweep import duplicate_games, experiment_lock, pending_games, run_sweep
from bounded.version import code_revision

REPLY = {"reasoning": "", "action": {"id": "report", "args": {"occupied": 0, "shipped": 0}}}


def write_experiment(tmp_path, *, games=3, horizon=6, name="sw", extra=""):
    (tmp_path / "replies.jsonl").write_text(json.dumps(REPLY) + "\n")
    path = tmp_path / "exp.toml"
    path.write_text(
        textwrap.dedent(
            f"""
            [experiment]
            name = "{name}"
            archive = "{tmp_path / "a.sqlite"}"

            [defaults]
            env = "warehouse"
            model = "scripted:replies.jsonl"
            games = {games}
            env_options = {{ horizon = {horizon} }}

            [[cells]]
            tag = "state"
            contract = "state"

            [[cells]]
            tag = "transcript"
            contract = "transcript"
            {extra}
            """
        )
    )
    return load_experiment(path)


def completed_keys(archive_path, experiment):
    with Archive(archive_path) as archive:
        return sorted(
            (r.cell, r.seed) for r in archive.runs(experiment=experiment, status="completed")
        )


def test_sweep_plays_every_game_once_and_resume_skips_them(tmp_path):
    experiment = write_experiment(tmp_path)
    first = run_sweep(experiment)
    assert (first.planned, first.played, first.skipped, first.failed) == (6, 6, 0, [])
    with Archive(experiment.archive) as archive:
        runs = archive.runs(experiment="sw")
        assert {r.tag for r in runs} == {"state", "transcript"}
        assert all(r.status == "completed" and r.decisions == 6 for r in runs)
        assert all(r.env_id == "bounded/Warehouse-v0" and r.package_version for r in runs)
        assert {r.code_revision for r in runs} == {code_revision()}
        assert all(
            r.contract_config_hash
            and r.spec["model"].startswith("scripted:")
            and r.spec["experiment"] == "sw"
            and r.spec["seed"] == r.seed
            for r in runs
        )
        assert len(archive.decisions(runs[0].run_id)) == 6
    second = run_sweep(experiment)
    assert (second.played, second.skipped) == (0, 6)
    assert completed_keys(experiment.archive, "sw") == sorted(
        (cell, seed) for cell in ("state", "transcript") for seed in range(1, 4)
    )


def test_incomplete_games_are_replaced_not_duplicated(tmp_path):
    experiment = write_experiment(tmp_path, games=2)
    run_sweep(experiment)
    with Archive(experiment.archive) as archive:
        victim = archive.runs(experiment="sw")[0]
        archive.save_run(victim.model_copy(update={"status": "running"}))
        pending, stale = pending_games(archive, experiment.plan())
    assert [spec.key for spec in pending] == [(victim.experiment, victim.cell, victim.seed)]
    assert [r.run_id for r in stale] == [victim.run_id]
    summary = run_sweep(experiment)
    assert (summary.played, summary.removed) == (1, 1)
    with Archive(experiment.archive) as archive:
        assert archive.run(victim.run_id) is None
        assert duplicate_games(archive, "sw") == {}
        assert len(archive.runs(experiment="sw")) == 4


def test_failed_games_are_reported_and_rerun(tmp_path):
    experiment = write_experiment(tmp_path, games=1)
    (tmp_path / "replies.jsonl").write_text("")  # no replies: every model call fails
    summary = run_sweep(experiment)
    assert summary.played == 2 and len(summary.failed) == 2
    assert "ModelUnavailableError" in summary.failed[0]
    (tmp_path / "replies.jsonl").write_text(json.dumps(REPLY) + "\n")
    again = run_sweep(experiment)
    assert (again.played, again.removed, again.failed) == (2, 2, [])


def test_worker_processes_write_the_same_archive(tmp_path):
    experiment = write_experiment(tmp_path, games=2)
    summary = run_sweep(experiment, workers=2)
    assert (summary.played, summary.failed) == (4, [])
    assert len(completed_keys(experiment.archive, "sw")) == 4


def test_a_second_driver_of_the_same_experiment_is_refused(tmp_path):
    with experiment_lock(tmp_path / "a.sqlite", "sw"):
        with (
            pytest.raises(ConfigError, match="another sweep"),
            experiment_lock(tmp_path / "a.sqlite", "sw"),
        ):
            pass
        with experiment_lock(tmp_path / "a.sqlite", "other"):
            pass


def test_sweep_command_dry_run_and_exit_status(tmp_path):
    import typer
    from typer.testing import CliRunner

    from bounded.cli.sweep import sweep

    experiment = write_experiment(tmp_path, games=1)
    app = typer.Typer()
    app.command()(sweep)
    result = CliRunner().invoke(app, [str(experiment.source), "--dry-run"], terminal_width=200)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].endswith("2 planned, 2 to play") and "transcript seed 1" not in result.output
    assert lines[1].startswith("  estimate ")
    assert lines[-1] == "(2 games to play: --list-games lists them)"
    listed = CliRunner().invoke(
        app, [str(experiment.source), "--dry-run", "--list-games"], terminal_width=200
    )
    assert listed.output.startswith(result.output.rsplit("(2 games", 1)[0])  # the summary first
    assert "  transcript seed 1  (warehouse, transcript, " in listed.output
    result = CliRunner().invoke(app, [str(experiment.source)], terminal_width=200)
    assert result.exit_code == 0, result.output
    assert "2/2 games completed" in result.output
    (tmp_path / "replies.jsonl").write_text("")
    other = tmp_path / "other.sqlite"
    result = CliRunner().invoke(app, [str(experiment.source), str(other)])
    assert result.exit_code == 1
    assert "failed" in result.output


def test_config_mistakes_stop_the_sweep_with_the_reason(tmp_path):
    experiment = write_experiment(tmp_path, extra='[[cells]]\ntag = "bad"\ncontract = "nope"\n')
    with pytest.raises(ConfigError, match="unknown contract 'nope'"):
        run_sweep(experiment)
    with Archive(experiment.archive) as archive:
        assert archive.runs() == []  # stopped before the first game
    bad_option = write_experiment(tmp_path, extra="[matrix]\nshelves_typo = [1]\n")
    with pytest.raises(ConfigError, match="bad options for warehouse"):
        run_sweep(bad_option)


SWEEP_SCRIPT = "import typer; from bounded.cli.sweep import sweep; typer.run(sweep)"


def count_runs(archive_path, status):
    if not archive_path.exists():
        return 0
    try:
        with sqlite3.connect(archive_path, timeout=5) as db:
            query = "SELECT COUNT(*) FROM runs WHERE status = ?"
            return db.execute(query, (status,)).fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def count_completed(archive_path):
    return count_runs(archive_path, "completed")


def start_sweep(path, *options):
    return subprocess.Popen(
        [sys.executable, "-c", SWEEP_SCRIPT, str(path), *options],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def test_sweep_killed_with_sigkill_at_random_points_resumes_exactly(tmp_path):
    experiment = write_experiment(tmp_path, games=6, horizon=24)
    planned = len(experiment.plan())
    archive_path = experiment.archive
    rng = random.Random(8)
    kills = 0
    for attempt in range(3):
        target = count_completed(archive_path) + rng.randint(1, 3)
        # The second attempt uses worker processes and kills the driver alone: its workers
        # must die with it rather than finish games the rerun replays.
        with_workers = attempt == 1
        process = start_sweep(experiment.source, *(["--workers", "2"] if with_workers else []))
        deadline = time.monotonic() + 60
        while count_completed(archive_path) < target and process.poll() is None:
            assert time.monotonic() < deadline, "sweep made no progress"
            time.sleep(0.005)
        time.sleep(rng.uniform(0, 0.05))  # land somewhere inside the next game
        if process.poll() is None:
            if with_workers:
                os.kill(process.pid, signal.SIGKILL)
            else:
                os.killpg(process.pid, signal.SIGKILL)
            kills += 1
        process.wait()
        if with_workers:
            settled = count_completed(archive_path)
            time.sleep(1.0)
            assert count_completed(archive_path) == settled, "an orphaned worker kept playing"
        assert count_completed(archive_path) < planned
        # Every decision is durable: a kill leaves at most the games in flight, each with
        # its row counting exactly its stored decisions, for the rerun to continue.
        assert count_runs(archive_path, "running") <= (2 if with_workers else 1)
        with Archive(archive_path) as archive:
            lease = current_lease(archive, lease_scope("sw"))
            for run in archive.runs(status="running"):
                assert len(archive.decisions(run.run_id, with_segments=False)) == run.decisions
        assert lease is not None and owner_alive(lease.holder) is False
    assert kills == 3
    final = start_sweep(experiment.source)
    _, stderr = final.communicate(timeout=120)
    assert final.returncode == 0, stderr.decode()[-2000:]
    with Archive(archive_path) as archive:
        runs = archive.runs(experiment="sw")
        assert duplicate_games(archive, "sw") == {}
        for run in runs:
            assert len(archive.decisions(run.run_id, with_segments=False)) == run.decisions == 24
    assert len(runs) == planned
    assert all(r.status == "completed" for r in runs)
    assert sorted((r.cell, r.seed) for r in runs) == sorted(
        (s.cell, s.seed) for s in experiment.plan()
    )


def test_the_bounded_command_exits_with_the_status_of_a_failed_sweep(tmp_path, capsys):
    from bounded.cli import main

    experiment = write_experiment(tmp_path, games=1)
    (tmp_path / "replies.jsonl").write_text("")
    with pytest.raises(SystemExit) as exit_info:
        main(["sweep", str(experiment.source)])
    assert exit_info.value.code == 1
    assert "failed" in capsys.readouterr().out


def test_analyze_refuses_an_archive_holding_a_game_twice_in_one_line(tmp_path, capsys):
    from bounded.cli import main

    experiment = write_experiment(tmp_path, games=1)
    run_sweep(experiment)
    with Archive(experiment.archive) as archive:
        twin = archive.runs(experiment="sw")[0]
        archive.save_run(twin.model_copy(update={"run_id": "d" * 32}))  # as older bugs left
    with pytest.raises(SystemExit) as exit_info:
        main(["analyze", str(experiment.archive)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f"bounded: error: duplicate games: cell {twin.cell!r} of experiment 'sw' holds seed "
        f"{twin.seed} 2 times"
    )


@pytest.mark.parametrize("inputs_changed", [False, True])
def test_an_interrupted_game_resumes_only_under_the_inputs_it_was_played_with(
    tmp_path, inputs_changed
):
    from bounded.archive.progress import Checkpoint, write_checkpoint
    from bounded.sweeps.survey import dry_run

    experiment = write_experiment(tmp_path, games=1, horizon=6)
    run_sweep(experiment)
    with Archive(experiment.archive) as archive:
        run = archive.runs(experiment="sw", status="completed")[0]
        inputs = dict(run.inputs)
        if inputs_changed:
            inputs["contract_config_hash"] = "an older configuration"
        interrupted = run.model_copy(
            update={"status": "failed", "error": "KeyboardInterrupt: SIGTERM", "inputs": inputs}
        )
        archive.save_run(interrupted)
        with archive.transaction() as db:
            owner = "elsewhere:1:0"
            write_checkpoint(db, Checkpoint(run.run_id, owner, run.decisions, memory={}))
    state = dry_run(experiment)
    resumed = [r.run_id for r in state.resumable]
    replayed = [r.run_id for r in state.stale]
    assert (resumed, replayed) == (([], [run.run_id]) if inputs_changed else ([run.run_id], []))


def test_the_lock_file_is_removed_when_the_sweep_lets_go(tmp_path):
    with experiment_lock(tmp_path / "a.sqlite", "sw"):
        assert (tmp_path / "a.sqlite.sw.lock").is_file()
    assert not list(tmp_path.glob("*.lock"))
    experiment = write_experiment(tmp_path, games=1)
    run_sweep(experiment)
    assert not list(experiment.archive.parent.glob("*.lock"))
