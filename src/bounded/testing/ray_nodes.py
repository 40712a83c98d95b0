"""Ray clusters of `ray start` processes on this machine, for tests and benchmarks.

`LocalCluster` starts a head node and worker nodes as `ray start` would on machines of
their own: each node is a process group of its own (the daemons `ray start` leaves
behind keep its group) with its own temporary directory, every port it opens chosen
free, and, with `token`, token authentication as Ray documents it (`RAY_AUTH_MODE=token`
and `RAY_AUTH_TOKEN` on every node). `kill(node)` SIGKILLs one node's processes at once
(its raylet, the workers the raylet started, its agents): the node is lost with the
objects it held. `stop()` ends every process the cluster started and no other (never
`ray stop`, which ends every Ray process of the machine, other users' included).

The nodes advertise `HOST`, a loopback address: Ray 2.60 replaces `127.0.0.1` and
`localhost` by the machine's interface address (`resolve_ip_for_localhost`) but keeps any
other address of 127.0.0.0/8, so the cluster's traffic stays on the loopback interface.
Ray's servers still listen on every interface; Ray has no option to bind them to one.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

HOST = "127.0.0.2"
"""The loopback address every node advertises (one Ray keeps as given)."""

START_TIMEOUT_S = 180.0
"""A bound for `ray start` on a loaded machine (it takes 15-25 s on two busy cores)."""

KILL_WAIT_S = 10.0
"""A bound for the kernel to end a SIGKILLed node's processes."""

PORT_OPTIONS = (
    "--node-manager-port",
    "--object-manager-port",
    "--dashboard-agent-listen-port",
    "--dashboard-agent-grpc-port",
    "--runtime-env-agent-port",
    "--metrics-export-port",
)
"""Ports each node opens that default to fixed numbers (two nodes on one machine, or
another user's cluster, would collide on them)."""


def free_port(host: str = HOST) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def new_token() -> str:
    """A token as `ray get-auth-token --generate` makes (32 hex digits)."""
    return secrets.token_hex(16)


@dataclass
class RayNode:
    """One `ray start` of the cluster."""

    name: str
    group: int
    """The process group of its `ray start` (its daemons keep it)."""
    temp_dir: Path
    alive: bool = True

    def processes(self) -> list[int]:
        """Its live processes: those of its group and their descendants (Ray workers
        start a group of their own under the raylet)."""
        parents = process_parents()
        found = {pid for pid in parents if process_group(pid) == self.group}
        grew = True
        while grew:
            children = {pid for pid, parent in parents.items() if parent in found}
            grew = not children <= found
            found |= children
        return sorted(found)


@dataclass
class LocalCluster:
    """A head node and worker nodes of `ray start` on this machine (a context manager:
    leaving it stops them all)."""

    token: str | None = None
    """With a token, the cluster authenticates every call (`RAY_AUTH_MODE=token`)."""
    host: str = HOST
    nodes: list[RayNode] = field(default_factory=list)
    port: int = 0
    root: Path | None = None
    """Holds each node's temporary directory (made by `start_head`; a short path: Ray's
    socket paths live in it)."""

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    def environment(self, token: str | None = None) -> dict[str, str]:
        """The environment of a process joining the cluster: Ray's authentication
        settings for `token` (default: the cluster's own), nothing read from elsewhere."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
        token = token if token is not None else self.token
        if token is None:
            return {**env, "RAY_AUTH_MODE": "disabled"}
        return {**env, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": token}

    def start_head(self, num_cpus: int = 1) -> RayNode:
        self.root = self.root or Path(tempfile.mkdtemp(prefix="bray-"))
        self.port = free_port(self.host)
        options = ["--head", "--port", str(self.port), "--include-dashboard=false"]
        options += ["--dashboard-port", str(free_port(self.host))]
        return self._start("head", options, num_cpus)

    def add_node(self, num_cpus: int = 1) -> RayNode:
        """A worker node joined to the head."""
        if not self.port:
            raise RuntimeError("start the head node first")
        return self._start(f"node{len(self.nodes)}", ["--address", self.address], num_cpus)

    def _start(self, name: str, options: list[str], num_cpus: int) -> RayNode:
        assert self.root is not None  # made by start_head
        temp_dir = self.root / name
        ports = [arg for option in PORT_OPTIONS for arg in (option, str(free_port(self.host)))]
        command = [
            ray_command(), "start", *options, "--node-ip-address", self.host,
            "--num-cpus", str(num_cpus), "--temp-dir", str(temp_dir), "--disable-usage-stats",
            "--object-store-memory", str(80 * 1024 * 1024), *ports,
        ]  # fmt: skip
        starter = subprocess.Popen(
            command,
            env=self.environment(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        node = RayNode(name=name, group=starter.pid, temp_dir=temp_dir)
        self.nodes.append(node)
        try:
            output, _ = starter.communicate(timeout=START_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.kill(node)
            raise RuntimeError(
                f"ray start ({name}) did not finish in {START_TIMEOUT_S:g} s"
            ) from None
        if starter.returncode != 0:
            self.kill(node)
            raise RuntimeError(f"ray start ({name}) failed: {output.strip()[-1500:]}")
        return node

    def kill(self, node: RayNode) -> None:
        """SIGKILL every process of the node at once (the node is lost), and wait (10 s
        at most) until the kernel has ended them all."""
        pids = node.processes()
        for pid in pids:
            with suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        node.alive = False
        deadline = time.monotonic() + KILL_WAIT_S
        while set(pids) & set(process_parents()) and time.monotonic() < deadline:
            time.sleep(0.02)

    def stop(self) -> None:
        """End every node's processes (the workers first), then remove their files."""
        for node in reversed(self.nodes):
            if node.alive:
                self.kill(node)
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> LocalCluster:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


def ray_command() -> str:
    """The `ray` script of this Python's environment."""
    beside = Path(sys.executable).parent / "ray"
    return str(beside) if beside.exists() else "ray"


def process_parents() -> dict[int, int]:
    """Every live process (not a zombie) -> its parent."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z":
            found[int(entry.name)] = int(fields[1])
    return found


def process_group(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except ProcessLookupError:
        return None


__all__ = ["HOST", "LocalCluster", "RayNode", "free_port", "new_token", "process_parents"]
