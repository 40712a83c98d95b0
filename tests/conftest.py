"""Shared test settings and fixtures. Hypothesis deadlines are off: this machine is shared
and noisy, and speed is measured in bench/, not asserted in tests. `local_model` is the
embedded model; `llama_server` a real OpenAI-compatible server (llama-cpp-python's) on
127.0.0.1 serving its weights."""

from __future__ import annotations

import socket
import sys

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
    """Base URL of `python -m llama_cpp.server` on the embedded weights, ended with the test
    run however it ends (SIGTERM and SIGKILL included: `bounded.testing.serving`)."""
    from bounded.models.local import EMBEDDED
    from bounded.testing.serving import serving

    port = free_port()
    weights = EMBEDDED["smollm2"].path()
    command = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(weights), "--host", "127.0.0.1",
        "--port", str(port), "--n_ctx", "4096", "--n_threads", "2", "--model_alias", "smollm2",
    ]  # fmt: skip
    log_path = tmp_path_factory.mktemp("llama-server") / "server.log"
    with serving(command, f"http://127.0.0.1:{port}/v1", log_path) as served:
        yield served.url
