"""`--concurrency N`: several games at once in each sweep worker, against a real
OpenAI-compatible endpoint on 127.0.0.1 that answers after a fixed delay."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from bounded.archive import Archive
from bounded.core import ConfigError
from bounded.sweeps.experiment import load_experiment
from bounded.sweeps.sweep import duplicate_games, run_sweep
from bounded.testing.endpoint import Endpoint

ARGS = {"occupied": 0, "shipped": 0}
REPLY = json.dumps({"reasoning": "", "state_patch": {}, "action": {"id": "report", "args": ARGS}})


@pytest.fixture
def endpoint():
    """Answers every chat call with the same reply after 0.05 s; counts the calls and the
    most it had in flight at once."""
    with Endpoint(content=REPLY, latency_s=0.05) as server:
        yield server


def write_experiment(tmp_path, url, *, games=3, horizon=6, name="conc", model="openai:slow"):
    path = tmp_path / f"{name}.toml"
    path.write_text(
        textwrap.dedent(
            f"""
            [experiment]
            name = "{name}"
            archive = "{tmp_path / f"{name}.sqlite"}"

            [defaults]
            env = "warehouse"
            model = "{model}"
            base_url = "{url}"
            model_options = {{ retry = {{ attempts = 2, backoff_s = 0.01 }} }}
            games = {games}
            env_options = {{ horizon = {horizon} }}

            [[cells]]
            tag = "state"
            contract = "state"

            [[cells]]
            tag = "summary"
            contract = "summary"
            """
        )
    )
    return load_experiment(path)


def played(archive_path):
    """Each game's decisions as the archive keeps them (what a game shows and does)."""
    with Archive(archive_path) as archive:
        games = {}
        for run in archive.runs(status="completed"):
            records = archive.decisions(run.run_id)
            games[(run.cell, run.seed)] = [
                (
                    [(s.layer, s.text) for s in r.segments],
                    [a.model_dump() for a in r.actions],
                    r.completion.text if r.completion else None,
                    r.reward,
                )
                for r in records
            ]
        return games


def test_concurrent_games_are_the_games_played_one_at_a_time(tmp_path, endpoint):
    (tmp_path / "one").mkdir()
    one = write_experiment(tmp_path / "one", endpoint.url)
    assert run_sweep(one).played == 6
    assert endpoint.most_in_flight == 1
    expected = played(one.archive)

    (tmp_path / "threads").mkdir()
    threads = write_experiment(tmp_path / "threads", endpoint.url)
    endpoint.most_in_flight = 0
    summary = run_sweep(threads, concurrency=3)
    assert (summary.played, summary.failed) == (6, [])
    assert endpoint.most_in_flight == 3  # three games waited on the endpoint at once
    assert played(threads.archive) == expected

    (tmp_path / "processes").mkdir()
    processes = write_experiment(tmp_path / "processes", endpoint.url)
    endpoint.most_in_flight = 0
    summary = run_sweep(processes, workers=2, concurrency=2)
    assert (summary.played, summary.failed) == (6, [])
    assert endpoint.most_in_flight >= 3  # two processes of two threads
    assert played(processes.archive) == expected
    with Archive(processes.archive) as archive:
        assert duplicate_games(archive, "conc") == {}


def test_the_experiment_file_sets_the_concurrency_and_the_option_overrides_it(tmp_path, endpoint):
    experiment = write_experiment(tmp_path, endpoint.url, games=2)
    text = experiment.source.read_text().replace('name = "conc"', 'name = "conc"\nconcurrency = 4')
    experiment.source.write_text(text)
    summary = run_sweep(load_experiment(experiment.source))
    assert summary.played == 4 and endpoint.most_in_flight == 4
    experiment.source.write_text(text.replace("concurrency = 4", "concurrency = 0"))
    with pytest.raises(ConfigError, match="concurrency"):
        load_experiment(experiment.source)


def test_concurrency_refuses_the_embedded_model_and_ray_in_one_line(tmp_path, capsys):
    from bounded.cli import main

    experiment = write_experiment(tmp_path, "http://127.0.0.1:9/v1", model="local")
    with pytest.raises(SystemExit) as exit_info:
        main(["sweep", str(experiment.source), "--concurrency", "4"])
    assert exit_info.value.code == 2
    error = capsys.readouterr().err.strip()
    assert error.count("\n") == 0 and "--concurrency 4 needs a remote model: local" in error
    assert not experiment.archive.exists()
    scripted = write_experiment(tmp_path, "http://127.0.0.1:9/v1", model="scripted:minimal")
    with pytest.raises(ConfigError, match="for the local executor"):
        run_sweep(scripted, executor="ray", concurrency=2)
    with pytest.raises(ConfigError, match="at least 1"):
        run_sweep(scripted, concurrency=-1)


SWEEP = [sys.executable, "-c", "from bounded.cli import main; main()", "sweep"]


def sweep_process(path, *options):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.Popen(
        [*SWEEP, str(path), *options],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
        env=env,
    )


def decisions_stored(archive_path):
    if not archive_path.exists():
        return 0
    try:
        with Archive(archive_path, read_only=True) as archive:
            return sum(run.decisions for run in archive.runs())
    except Exception:  # not created yet
        return 0


@pytest.mark.parametrize(
    ("options", "stop", "left"),
    [
        (["--concurrency", "4"], signal.SIGTERM, "failed"),  # threads in the driver
        (["--workers", "2", "--concurrency", "2"], signal.SIGKILL, "running"),  # processes
    ],
)
def test_a_stopped_concurrent_sweep_resumes_every_game_in_flight(
    tmp_path, endpoint, options, stop, left
):
    (tmp_path / "ref").mkdir()
    reference = write_experiment(tmp_path / "ref", endpoint.url, games=2, horizon=30)
    run_sweep(reference, concurrency=4)
    experiment = write_experiment(tmp_path, endpoint.url, games=2, horizon=30)
    process = sweep_process(experiment.source, *options)
    deadline = time.monotonic() + 60
    while decisions_stored(experiment.archive) < 20 and process.poll() is None:
        assert time.monotonic() < deadline, "sweep made no progress"
        time.sleep(0.02)
    os.kill(process.pid, stop)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode != 0, stderr.decode()
    time.sleep(0.5)
    with Archive(experiment.archive) as archive:
        runs = archive.runs()
        stopped = [run for run in runs if run.status != "completed"]
        assert stopped and all(run.status == left for run in stopped)
        if left == "failed":
            assert all(run.error == "KeyboardInterrupt: interrupted by SIGTERM" for run in stopped)
        for run in runs:
            assert len(archive.decisions(run.run_id, with_segments=False)) == run.decisions
    settled = decisions_stored(experiment.archive)
    time.sleep(0.5)
    assert decisions_stored(experiment.archive) == settled, "a game kept playing"
    again = sweep_process(experiment.source, *options)
    _, stderr = again.communicate(timeout=120)
    assert again.returncode == 0, stderr.decode()[-2000:]
    assert played(experiment.archive) == played(reference.archive)
    with Archive(experiment.archive) as archive:
        assert duplicate_games(archive, "conc") == {}
        assert len(archive.runs()) == 4
