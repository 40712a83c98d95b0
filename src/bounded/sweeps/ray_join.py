"""Joining a Ray cluster started apart from the sweep (`bounded sweep --executor ray
--address ...`).

`--address` takes `HOST:PORT` (the head's GCS port, `ray start --head --port`), `auto`
(Ray's own lookup: `RAY_ADDRESS`, else the cluster `ray start` last started on this
machine) or `ray://...`, which is refused: Ray Client runs the driver's calls on the
cluster, and the sweep's archive writer must sit on a node beside the archive
(`bounded.sweeps.ray_stream`).

Before Ray connects, `check_cluster` makes sure the address answers and accepts this
process, so a wrong address or token is one line naming the address and what to check,
before the sweep writes anything (Ray itself would retry for 20 s, then fail with a
traceback). Token authentication follows Ray's rules: `RAY_AUTH_MODE` as the user set
it; the token from `RAY_AUTH_TOKEN`, else the file `RAY_AUTH_TOKEN_PATH` names, else
`~/.ray/auth_token`. Ray 2.60 sends a token to an explicit address only when
`RAY_AUTH_MODE=token` is set (`auto` enables it when a token exists, as `ray start`
does); when a cluster refuses a call without one and the user left the mode unset, the
token found where Ray keeps it is sent, as `auto` would.
"""

from __future__ import annotations

import os
import socket
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bounded.core import BoundedError

REACH_TIMEOUT_S = 5.0
"""How long the head's port may take to accept a connection."""

MODE_VARIABLE = "RAY_AUTH_MODE"


class ClusterUnavailable(BoundedError):
    """The cluster at `--address` cannot be joined (unreachable, refused, not found)."""


def resolve_address(address: str) -> str:
    """The `HOST:PORT` to join for `--address`; `ray://` and malformed ones refused."""
    if address.startswith("ray://"):
        raise ClusterUnavailable(
            f"--address {address}: Ray Client (ray://) runs the sweep's calls on the cluster, "
            "away from the archive its writer must sit beside; run `bounded sweep` on a node "
            "of the cluster with --address HOST:PORT (the head's `ray start --port`) or auto"
        )
    if address == "auto":
        return auto_address()
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ClusterUnavailable(
            f"--address {address}: expected HOST:PORT (the head node's GCS port), auto or ray://"
        )
    return address


def auto_address() -> str:
    """Ray's `auto`: `RAY_ADDRESS`, else the cluster `ray start` last started here."""
    from ray._private.services import find_bootstrap_address

    found = os.environ.get("RAY_ADDRESS") or find_bootstrap_address(None)
    if not found or found == "auto":
        raise ClusterUnavailable(
            "--address auto: no running Ray cluster found (RAY_ADDRESS is unset and `ray "
            "start` started none on this machine); start one with `ray start --head`, or "
            "give its HOST:PORT"
        )
    return resolve_address(found)


def check_cluster(address: str) -> str:
    """Check that the cluster at `address` answers and accepts this process (its token
    set as Ray will send it); returns the `HOST:PORT` to join."""
    try:
        import ray  # noqa: F401  # the checks below use Ray's own client
    except ImportError:
        raise ClusterUnavailable("the ray executor needs Ray: pip install 'bounded[ray]'") from None
    target = resolve_address(address)
    named = address if target == address else f"{address} ({target})"
    host, _, port = target.rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=REACH_TIMEOUT_S).close()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise ClusterUnavailable(
            f"cannot reach a Ray cluster at {named}: {reason}; check that `ray start --head "
            f"--port {port}` runs there and that this machine can reach it"
        ) from None
    authenticate(target, named)
    return target


def join(target: str) -> None:
    """Connect this process to the cluster at `target` (checked by `check_cluster`) as a
    driver; it must run on one of the cluster's nodes."""
    import logging

    import ray

    try:  # Ray's own notes would name the node's interface address, not the one given
        ray.init(address=target, log_to_driver=False, logging_level=logging.WARNING)
    except (ConnectionError, RuntimeError) as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ClusterUnavailable(
            f"could not join the Ray cluster at {target}: {reason}; the sweep must run on a "
            f"node of the cluster (`ray start --address {target}` on this machine first)"
        ) from None


def authenticate(target: str, named: str) -> None:
    """One call to the cluster's GCS, as Ray makes it; a missing or wrong token refused."""
    from ray.exceptions import AuthenticationError

    try:
        ask_cluster_id(target)
        return
    except AuthenticationError:
        if os.environ.get(MODE_VARIABLE) is not None or not token_source():
            raise ClusterUnavailable(refusal(named)) from None
    enable_token_mode()
    try:
        ask_cluster_id(target)
    except AuthenticationError:
        raise ClusterUnavailable(refusal(named)) from None


def ask_cluster_id(target: str) -> None:
    """The first call Ray makes to a cluster (it carries the token); Ray's own warning
    on a refusal is kept off the terminal, the refusal is ours to report."""
    from ray._raylet import GcsClient  # type: ignore[attr-defined]  # not in Ray's stub

    with quiet_stderr():
        GcsClient(address=target)


def token_source() -> str | None:
    """Where Ray would take the token from, as a user would name it (None: nowhere)."""
    if os.environ.get("RAY_AUTH_TOKEN"):
        return "RAY_AUTH_TOKEN"
    path = os.environ.get("RAY_AUTH_TOKEN_PATH")
    if path:
        return f"RAY_AUTH_TOKEN_PATH ({path})"
    default = Path.home() / ".ray" / "auth_token"
    return str(default) if default.is_file() and default.read_text().strip() else None


def refusal(named: str) -> str:
    """The one line for a cluster that refused this process's token (or its lack)."""
    source = token_source()
    mode = os.environ.get(MODE_VARIABLE)
    if mode is not None and mode.lower() != "token":
        given = f"{MODE_VARIABLE}={mode} sends no token"
    elif source is None:
        given = "no token was found"
    else:
        given = f"it refused the token from {source}"
    return (
        f"the Ray cluster at {named} requires token authentication and {given}; set "
        "RAY_AUTH_TOKEN (or RAY_AUTH_TOKEN_PATH) to the cluster's token, which `ray "
        "get-auth-token` prints on its head node"
    )


def enable_token_mode() -> None:
    """Send the token from now on, in this process and the processes it starts (what
    Ray does for `auto` when a token exists)."""
    from ray._raylet import (  # type: ignore[attr-defined]  # not in Ray's stub
        AuthenticationTokenLoader,
        Config,
    )

    os.environ[MODE_VARIABLE] = "token"
    Config.initialize("")
    AuthenticationTokenLoader.instance().reset_cache()


@contextmanager
def quiet_stderr() -> Iterator[None]:
    """File descriptor 2 into a discarded file for the block (Ray's C++ logs there)."""
    with tempfile.TemporaryFile() as sink:
        saved = os.dup(2)
        try:
            os.dup2(sink.fileno(), 2)
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)


__all__ = ["ClusterUnavailable", "check_cluster", "join", "resolve_address"]
