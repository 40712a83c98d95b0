"""Fixtures for model tests: the embedded weights, and a real OpenAI-compatible server
(llama-cpp-python's) serving them on 127.0.0.1."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request

import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def local_model():
    from bounded.models import make_model

    return make_model("local")


@pytest.fixture(scope="session")
def llama_server():
    """Base URL of `python -m llama_cpp.server` on the embedded weights."""
    from bounded.models.local import EMBEDDED

    port = free_port()
    weights = EMBEDDED["smollm2"].path()
    command = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(weights), "--host", "127.0.0.1",
        "--port", str(port), "--n_ctx", "4096", "--n_threads", "2", "--model_alias", "smollm2",
    ]  # fmt: skip
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if server.poll() is not None:
                raise RuntimeError(f"llama server exited: {server.stderr.read().decode()[-2000:]}")
            try:
                urllib.request.urlopen(f"{url}/models", timeout=2)
                break
            except OSError:
                time.sleep(0.5)
        else:
            raise RuntimeError("llama server did not start within 120 s")
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)
