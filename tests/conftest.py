"""Shared test settings and fixtures. Hypothesis deadlines are off: this machine is shared
and noisy, and speed is measured in bench/, not asserted in tests. `local_model` is the
embedded model; `llama_server` a real OpenAI-compatible server (llama-cpp-python's) on
127.0.0.1 serving its weights."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "bounded", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile("bounded")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def local_model():
    from bounded.models import make_model

    return make_model("local")


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory):
    """Base URL of `python -m llama_cpp.server` on the embedded weights."""
    from bounded.models.local import EMBEDDED

    port = free_port()
    weights = EMBEDDED["smollm2"].path()
    command = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(weights), "--host", "127.0.0.1",
        "--port", str(port), "--n_ctx", "4096", "--n_threads", "2", "--model_alias", "smollm2",
    ]  # fmt: skip
    # The server logs a lot while loading: a file, not a pipe nobody reads, which would fill
    # and block the server before it ever answers.
    log_path = tmp_path_factory.mktemp("llama-server") / "server.log"
    with log_path.open("wb") as log:
        server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        wait_until_serving(url, server, log_path)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


def wait_until_serving(
    url: str, server: subprocess.Popen, log_path, timeout_s: float = 120
) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"llama server exited: {log_path.read_text()[-2000:]}")
        try:
            urllib.request.urlopen(f"{url}/models", timeout=2)
            return
        except OSError:
            time.sleep(0.5)
    raise RuntimeError(
        f"llama server did not start in {timeout_s:.0f} s: {log_path.read_text()[-2000:]}"
    )
