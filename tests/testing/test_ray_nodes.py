"""A cluster of `ray start` nodes: a node killed loses every process of its own and no
other, and stopping the cluster leaves none of its processes or files."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bounded.testing.ray_nodes import HOST, LocalCluster


def names(pids: list[int]) -> set[str]:
    """The processes' command names (a worker Ray started may end on its own meanwhile)."""
    found = set()
    for pid in pids:
        try:
            found.add(Path(f"/proc/{pid}/comm").read_text().strip())
        except OSError:
            continue
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads processes in /proc")
def test_killing_a_node_ends_all_its_processes_and_stop_ends_the_rest():
    cluster = LocalCluster()
    try:
        head = cluster.start_head()
        node = cluster.add_node()
        assert cluster.address == f"{HOST}:{cluster.port}"
        on_node, on_head = node.processes(), head.processes()
        assert "raylet" in names(on_node) and {"gcs_server", "raylet"} <= names(on_head)
        assert not set(on_node) & set(on_head)
        cluster.kill(node)
        assert not node.alive and node.processes() == []
        assert {"gcs_server", "raylet"} <= names(head.processes())  # the head lives on
    finally:
        cluster.stop()
    assert head.processes() == [] and cluster.root is not None and not cluster.root.exists()


def test_a_joining_process_gets_the_clusters_authentication_and_no_other(monkeypatch):
    monkeypatch.setenv("RAY_ADDRESS", "10.0.0.9:6379")  # a user's, not the cluster's
    with_token = LocalCluster(token="abc")
    assert with_token.environment()["RAY_AUTH_MODE"] == "token"
    assert with_token.environment()["RAY_AUTH_TOKEN"] == "abc"
    assert with_token.environment(token="other")["RAY_AUTH_TOKEN"] == "other"
    assert "RAY_ADDRESS" not in with_token.environment()
    without = LocalCluster().environment()
    assert without["RAY_AUTH_MODE"] == "disabled" and "RAY_AUTH_TOKEN" not in without
