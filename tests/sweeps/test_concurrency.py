"""`--concurrency N`: several games at once in each sweep worker, against a real
OpenAI-compatible endpoint on 127.0.0.1 that answers after a fixed delay."""

import io
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from rich.console import Console

from bounded.archive import Archive
from bounded.core import ConfigError
from bounded.sweeps.experiment import load_experiment
from bounded.sweeps.sweep import duplicate_games, run_sweep

ARGS = {"occupied": 0, "shipped": 0}
REPLY = json.dumps({"reasoning": "", "state_patch": {}, "action": {"id": "report", "args": ARGS}})


class SlowEndpoint:
    """Answers every chat call with the same reply after `delay_s`; counts the calls and
    the most it had in flight at once."""

    def __init__(self, delay_s: float) -> None:
        endpoint = self
        self.calls = self.in_flight = self.most_in_flight = 0
        self.lock = threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with endpoint.lock:
                    endpoint.calls += 1
                    endpoint.in_flight += 1
                    endpoint.most_in_flight = max(endpoint.most_in_flight, endpoint.in_flight)
                time.sleep(delay_s)
                with endpoint.lock:
                    endpoint.in_flight -= 1
                reply = {
                    "id": "c", "object": "chat.completion", "created": 0, "model": body["model"],
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": REPLY}}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                }  # fmt: skip
                raw = json.dumps(reply).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, format: str, *args: object) -> None:
                pass

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request: object, client_address: object) -> None:
                pass  # a client killed mid-call resets its connection: expected here

        self.server = Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def quiet():
    return Console(file=io.StringIO(), width=100)


@pytest.fixture
def endpoint():
    server = SlowEndpoint(0.05)
    yield server
    server.close()


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
    assert run_sweep(one, console=quiet()).played == 6
    assert endpoint.most_in_flight == 1
    expected = played(one.archive)

    (tmp_path / "threads").mkdir()
    threads = write_experiment(tmp_path / "threads", endpoint.url)
    endpoint.most_in_flight = 0
    summary = run_sweep(threads, console=quiet(), concurrency=3)
    assert (summary.played, summary.failed) == (6, [])
    assert endpoint.most_in_flight == 3  # three games waited on the endpoint at once
    assert played(threads.archive) == expected

    (tmp_path / "processes").mkdir()
    processes = write_experiment(tmp_path / "processes", endpoint.url)
    endpoint.most_in_flight = 0
    summary = run_sweep(processes, console=quiet(), workers=2, concurrency=2)
    assert (summary.played, summary.failed) == (6, [])
    assert endpoint.most_in_flight >= 3  # two processes of two threads
    assert played(processes.archive) == expected
    with Archive(processes.archive) as archive:
        assert duplicate_games(archive, "conc") == {}


def test_the_experiment_file_sets_the_concurrency_and_the_option_overrides_it(tmp_path, endpoint):
    experiment = write_experiment(tmp_path, endpoint.url, games=2)
    text = experiment.source.read_text().replace('name = "conc"', 'name = "conc"\nconcurrency = 4')
    experiment.source.write_text(text)
    summary = run_sweep(load_experiment(experiment.source), console=quiet())
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
        run_sweep(scripted, console=quiet(), executor="ray", concurrency=2)
    with pytest.raises(ConfigError, match="at least 1"):
        run_sweep(scripted, console=quiet(), concurrency=-1)


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
    run_sweep(reference, console=quiet(), concurrency=4)
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
