"""The fault-injecting OpenAI-compatible server of the endpoint tests.

`fault_server` is `bounded.testing.endpoint.Endpoint` (a real HTTP/1.1 server on
127.0.0.1, in a thread) with usage numbers that include a cache hit: a test scripts its
replies (`server.play(server.status(429, retry_after="1"), server.ok())`) and reads the
requests it got (`attempts`, `gaps()`, `forms()`).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bounded.testing.endpoint import Endpoint

USAGE = {
    "prompt_tokens": 11,
    "completion_tokens": 5,
    "total_tokens": 16,
    "prompt_tokens_details": {"cached_tokens": 7},
}

PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy")


@pytest.fixture
def fault_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[Endpoint]:
    for name in PROXY_VARIABLES:  # loopback, straight: not through a proxy of the machine's
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    with Endpoint(usage=USAGE) as server:
        yield server
