"""A sweep joining a Ray cluster started apart from it (`ray start`, token authentication
on), and the one-line refusals of a wrong address, a wrong token and none."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from bounded.archive import Archive
from bounded.sweeps.ray_join import ClusterUnavailable, refusal, resolve_address
from bounded.sweeps.sweep import duplicate_games
from bounded.testing.ray_nodes import LocalCluster, free_port, new_token

REPLY = {"reasoning": "", "action": {"id": "report", "args": {"occupied": 0, "shipped": 0}}}

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


@pytest.fixture(scope="module")
def cluster():
    with LocalCluster(token=new_token()) as started:
        started.start_head(num_cpus=2)
        yield started


def experiment(directory: Path) -> Path:
    (directory / "replies.jsonl").write_text(json.dumps(REPLY) + "\n")
    path = directory / "exp.toml"
    path.write_text(
        textwrap.dedent(
            f"""
            [experiment]
            name = "joined"
            archive = "{directory / "a.sqlite"}"
            [defaults]
            env = "warehouse"
            model = "scripted:replies.jsonl"
            seeds = [4, 5]
            env_options = {{ horizon = 4 }}
            [[cells]]
            tag = "state"
            contract = "state"
            """
        )
    )
    return path


def sweep(path: Path, address: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "bounded.cli", "sweep", str(path), "--executor", "ray"]
    return subprocess.run(
        [*command, "--workers", "2", "--address", address],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,  # a bound for a hang: Ray is slow on a loaded machine
    )


def errors(result: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("bounded: error")]


def without_mode(cluster: LocalCluster, home: Path, **variables: str) -> dict[str, str]:
    """A user's environment: no RAY_AUTH_MODE, HOME (and so ~/.ray/auth_token) `home`."""
    env = {k: v for k, v in cluster.environment().items() if not k.startswith("RAY_AUTH")}
    return {**env, "HOME": str(home), **variables}


def test_a_sweep_joins_a_cluster_started_apart_by_address_with_its_token(cluster, tmp_path):
    """The issue's case: the mode left unset, the token where Ray keeps it (~/.ray)."""
    (tmp_path / ".ray").mkdir()
    (tmp_path / ".ray" / "auth_token").write_text(cluster.token or "")
    path = experiment(tmp_path)
    done = sweep(path, cluster.address, without_mode(cluster, tmp_path))
    assert done.returncode == 0, done.stderr[-3000:]
    assert "InvalidAuthToken" not in done.stderr
    with Archive(tmp_path / "a.sqlite", read_only=True) as archive:
        runs = archive.runs(experiment="joined")
        assert sorted(r.seed for r in runs) == [4, 5]
        assert all(r.status == "completed" and r.decisions == 4 for r in runs)
        assert [d.index for d in archive.decisions(runs[0].run_id)] == [0, 1, 2, 3]
        assert duplicate_games(archive, "joined") == {}
    again = sweep(path, "auto", without_mode(cluster, tmp_path, RAY_ADDRESS=cluster.address))
    assert again.returncode == 0, again.stderr[-3000:]
    assert " 0 played now" in again.stderr + again.stdout


def test_a_wrong_token_is_one_line_naming_the_address_and_nothing_is_written(cluster, tmp_path):
    path = experiment(tmp_path)
    refused = sweep(path, cluster.address, cluster.environment(token="not-the-token"))
    assert refused.returncode == 2
    (line,) = errors(refused)
    assert cluster.address in line and "RAY_AUTH_TOKEN" in line and "refused the token" in line
    assert "Traceback" not in refused.stderr and "InvalidAuthToken" not in refused.stderr
    assert not (tmp_path / "a.sqlite").exists()


def test_no_token_at_all_says_where_to_put_one(cluster, tmp_path):
    refused = sweep(experiment(tmp_path), cluster.address, without_mode(cluster, tmp_path))
    assert refused.returncode == 2
    (line,) = errors(refused)
    assert "no token was found" in line and "ray get-auth-token" in line
    assert not (tmp_path / "a.sqlite").exists()


def test_a_wrong_address_is_one_line_and_nothing_is_written(cluster, tmp_path):
    wrong = f"{cluster.host}:{free_port(cluster.host)}"  # nothing listens there
    refused = sweep(experiment(tmp_path), wrong, cluster.environment())
    assert refused.returncode == 2
    (line,) = errors(refused)
    assert f"cannot reach a Ray cluster at {wrong}" in line and "ray start --head" in line
    assert "Traceback" not in refused.stderr
    assert not (tmp_path / "a.sqlite").exists()


def test_auto_is_ray_address_and_ray_client_is_refused_in_one_line(monkeypatch):
    monkeypatch.setenv("RAY_ADDRESS", "127.0.0.2:7001")
    assert resolve_address("auto") == "127.0.0.2:7001"
    assert resolve_address("10.1.2.3:6379") == "10.1.2.3:6379"
    with pytest.raises(ClusterUnavailable, match=r"Ray Client \(ray://\)"):
        resolve_address("ray://10.1.2.3:10001")
    with pytest.raises(ClusterUnavailable, match="expected HOST:PORT"):
        resolve_address("10.1.2.3")


def test_a_refusal_names_where_the_token_came_from_or_why_none_was_sent(monkeypatch, tmp_path):
    for variable in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert "no token was found" in refusal("h:1")
    monkeypatch.setenv("RAY_AUTH_TOKEN_PATH", str(tmp_path / "token"))
    assert "refused the token from RAY_AUTH_TOKEN_PATH (" in refusal("h:1")
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    line = refusal("h:1")
    assert "RAY_AUTH_MODE=disabled sends no token" in line and "refused" not in line
