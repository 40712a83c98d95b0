"""`bounded view`'s guards: a request must name the server's own address in `Host` (DNS
rebinding is refused) and carry the token of the URL the server prints."""

import http.client
import threading
from collections.abc import Iterator
from urllib.parse import urlparse

import pytest

from bounded.report import make_server
from bounded.report.server import ReportServer


@pytest.fixture
def server(report_archive) -> Iterator[ReportServer]:
    served = make_server(report_archive, port=0)
    thread = threading.Thread(target=served.serve_forever, daemon=True)
    thread.start()
    try:
        yield served
    finally:
        served.shutdown()
        served.server_close()


def get(server: ReportServer, path: str, host: str | None = None) -> tuple[int, bytes, str]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        connection.putrequest("GET", path, skip_host=True)
        connection.putheader("Host", f"127.0.0.1:{server.port}" if host is None else host)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, response.read(), response.getheader("Location") or ""
    finally:
        connection.close()


def test_the_printed_url_carries_a_token_and_serves_the_page(server):
    path = urlparse(server.url).path
    assert path == f"/{server.token}/" and len(server.token) >= 20
    status, body, _ = get(server, path)
    assert status == 200 and b"const SERVED = true" in body
    assert get(server, path, host=f"localhost:{server.port}")[0] == 200


def test_a_request_without_the_token_or_with_another_is_refused(server):
    for path in ("/", "/api/runs/x/decisions", "/not-the-token/", f"/{server.token[:-1]}/"):
        status, body, _ = get(server, path)
        assert status == 403 and b"open the URL bounded printed" in body


def test_a_request_naming_another_host_is_refused_even_with_the_token(server):
    path = urlparse(server.url).path
    for host in (
        f"evil.example:{server.port}",
        "127.0.0.1:1",
        "",
        f"127.0.0.1.nip.io:{server.port}",
    ):
        status, body, _ = get(server, path, host=host)
        assert status == 403 and b"not this server's address" in body


def test_the_token_without_its_slash_is_redirected_to_the_page(server):
    status, _, location = get(server, f"/{server.token}")
    assert status == 301 and location == f"/{server.token}/"


def test_every_server_has_its_own_token(report_archive):
    first, second = make_server(report_archive, port=0), make_server(report_archive, port=0)
    try:
        assert first.token != second.token
    finally:
        first.server_close()
        second.server_close()


def test_an_allowed_name_is_served(report_archive):
    served = make_server(report_archive, port=0, allowed_hosts=("box.lan",))
    try:
        assert served.allows_host(f"box.lan:{served.port}")
        assert not served.allows_host(f"box.lan:{served.port + 1}")
    finally:
        served.server_close()
