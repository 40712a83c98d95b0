"""A server process for tests (`tests/conftest.py`'s `llama_server`), ended however the
process that started it ends.

`serving(command, url, log)` starts the command with its output in a log file (a pipe
nobody reads would fill and block it), waits until `GET url/models` answers, and ends it
when the block ends. It also ends when the test run is ended from outside: SIGTERM (a
scheduler's kill, `timeout`) is taken as Ctrl-C is, so pytest tears its fixtures down
(the previous handler is restored after), and on Linux the server is asked to stop when
its parent dies (`PR_SET_PDEATHSIG`), so even SIGKILL of the test run leaves no server
behind."""

from __future__ import annotations

import ctypes
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

PR_SET_PDEATHSIG = 1
"""prctl(2): the signal this process gets when its parent thread dies."""
STOP_WAIT_S = 30.0


@dataclass(frozen=True)
class Served:
    url: str
    process: subprocess.Popen[bytes]


def die_with_parent() -> None:
    """In the child, before it runs the command: SIGTERM when the parent dies (Linux)."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def interrupted(signum: int, _frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"interrupted by {signal.Signals(signum).name}")


def wait_until_serving(
    url: str, server: subprocess.Popen[bytes], log_path: Path, timeout_s: float = 120
) -> None:
    """Until `GET url/models` answers; a RuntimeError with the log's end if the server
    exits or does not answer in `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"server exited: {log_path.read_text()[-2000:]}")
        try:
            opener.open(f"{url}/models", timeout=2).close()
            return
        except OSError:
            time.sleep(0.5)
    raise RuntimeError(f"server did not start in {timeout_s:.0f} s: {log_path.read_text()[-2000:]}")


def stop(server: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL if it has not ended in `STOP_WAIT_S`."""
    server.terminate()
    try:
        server.wait(timeout=STOP_WAIT_S)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


@contextmanager
def serving(
    command: Sequence[str], url: str, log_path: Path, timeout_s: float = 120
) -> Iterator[Served]:
    """The server of `command`, answering at `url`, until the block ends (see the module)."""
    main = threading.current_thread() is threading.main_thread()  # handlers live there only
    previous = signal.getsignal(signal.SIGTERM)
    if main:
        signal.signal(signal.SIGTERM, interrupted)
    try:
        with log_path.open("wb") as log:
            server = subprocess.Popen(
                list(command), stdout=log, stderr=subprocess.STDOUT, preexec_fn=die_with_parent
            )
        try:
            wait_until_serving(url, server, log_path, timeout_s)
            yield Served(url, server)
        finally:
            stop(server)
    finally:
        if main:
            signal.signal(signal.SIGTERM, previous)


__all__ = ["Served", "serving", "stop", "wait_until_serving"]
