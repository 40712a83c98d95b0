"""`bounded view`: the report served on 127.0.0.1, with decisions fetched run by run,
so that an archive too large for one HTML file can still be browsed. The first page is the
frame alone, read by index (the runs' counts and the first runs with decisions): the
analysis sections come from `/TOKEN/api/sections`, further runs from
`/TOKEN/api/runs?after=RUN_ID` (keyset paging by the index `runs_in_order`; `?offset=N`
is also answered), so the page answers at once whatever the archive's size.
The page's sweep progress (per cell: games completed of those planned, failures, games in
flight, tokens, cost) polls `/TOKEN/api/progress` from the moment the page opens, reading
the archive anew each time, so the view of an archive a sweep is writing follows it
(`bounded.sweeps.board`).

The page shows prompts and replies, so the server answers only its own user: a request
must name the server's own address in its `Host` header (a page on another site that
points a name of its own at 127.0.0.1, DNS rebinding, is refused, as local notebook
servers refuse it) and carry the secret token of the URL the server prints (its first path
segment), so another user of the machine, or a page that guesses the port, reads nothing.
"""

from __future__ import annotations

import hmac
import json
import secrets
import socket
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TypeVar
from urllib.parse import parse_qs, unquote, urlparse

from bounded.archive import Archive
from bounded.report.build import (
    ReportOptions,
    progress_payload,
    render_page,
    served_decisions,
    served_runs,
    served_sections,
)

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
READERS = 4
"""Threads that read the archive for the server's requests, each with its connection."""
T = TypeVar("T")


class ReportServer(ThreadingHTTPServer):
    """Serves `/TOKEN/` (the report page), `/TOKEN/api/runs/<run_id>/decisions` and
    `/TOKEN/api/progress` (JSON) to requests whose `Host` is one of `allowed_hosts` at
    the server's port."""

    daemon_threads = True

    def __init__(
        self,
        archive_path: Path,
        options: ReportOptions,
        host: str,
        port: int,
        allowed_hosts: tuple[str, ...] = (),
    ) -> None:
        self.archive_path = archive_path
        self.options = options
        self.token = secrets.token_urlsafe(18)
        self._local = threading.local()
        self._readers = ThreadPoolExecutor(READERS, thread_name_prefix="bounded-view")
        super().__init__((host, port), ReportHandler)
        self.hosts = own_names(host, allowed_hosts)
        try:  # opened before the URL is given, so that the first page answers at once
            self.read(lambda archive: None)  # (opening checks the runs' totals: 0.5 s at 1M)
        except BaseException:
            self.server_close()
            raise

    def read(self, work: Callable[[Archive], T]) -> T:
        """`work` done on the archive by one of the server's `READERS` threads, each with
        its connection opened once (SQLite connections stay in their thread, and
        ThreadingHTTPServer answers each request on a thread of its own)."""
        return self._readers.submit(lambda: work(self.archive())).result()

    def server_close(self) -> None:
        super().server_close()
        self._readers.shutdown(wait=False)

    def archive(self) -> Archive:
        """This reader thread's connection to the archive (opened at its first use)."""
        if getattr(self._local, "archive", None) is None:
            self._local.archive = Archive(self.archive_path, read_only=True)
        archive: Archive = self._local.archive
        return archive

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    @property
    def url(self) -> str:
        host = self.server_address[0]
        return f"http://{host!s}:{self.port}/{self.token}/"

    def allows_host(self, header: str | None) -> bool:
        """Whether a `Host` header names this server: one of its names, at its port."""
        if not header:
            return False
        name, _, port = header.strip().lower().rpartition(":")
        return port == str(self.port) and name in self.hosts

    def allows_token(self, given: str) -> bool:
        return hmac.compare_digest(given.encode(), self.token.encode())


def decision_span(query: str) -> tuple[int, int | None] | None:
    """`start` and `end` of a decisions request (default: the whole run); None when either
    is not a count."""
    asked = parse_qs(query)
    start, end = asked.get("start", ["0"])[0], asked.get("end", [None])[0]
    if not start.isdigit() or (end is not None and not end.isdigit()):
        return None
    return int(start), None if end is None else int(end)


def own_names(host: str, allowed: tuple[str, ...]) -> frozenset[str]:
    """The names a request may give the server by: the address it listens on, the loopback
    names when that is a loopback address, the machine's names when it listens on every
    address, and any allowed explicitly."""
    names = {host.lower(), *(name.lower() for name in allowed)}
    if host in LOOPBACK_NAMES or host.startswith("127."):
        names.update(LOOPBACK_NAMES)
    if host in ("0.0.0.0", "::", ""):
        names.update({*LOOPBACK_NAMES, socket.gethostname().lower(), socket.getfqdn().lower()})
    return frozenset(names)


class ReportHandler(BaseHTTPRequestHandler):
    server: ReportServer

    def do_GET(self) -> None:
        if not self.server.allows_host(self.headers.get("Host")):
            self._send(HTTPStatus.FORBIDDEN, "text/plain", b"refused: not this server's address")
            return
        path = urlparse(self.path).path
        parts = [unquote(p) for p in path.strip("/").split("/") if p]
        if not parts or not self.server.allows_token(parts[0]):
            self._send(HTTPStatus.FORBIDDEN, "text/plain", b"refused: open the URL bounded printed")
            return
        if not path.startswith(f"/{parts[0]}/"):  # the page's links are relative to /TOKEN/
            self.send_response(HTTPStatus.MOVED_PERMANENTLY)
            self.send_header("Location", f"/{parts[0]}/")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        parts = parts[1:]
        if not parts:
            page = self.server.read(lambda a: render_page(a, self.server.options, served=True))
            self._send(HTTPStatus.OK, "text/html; charset=utf-8", page.encode())
        elif parts == ["api", "sections"]:
            fragment = self.server.read(lambda a: served_sections(a, self.server.options))
            self._send(HTTPStatus.OK, "text/html; charset=utf-8", fragment.encode())
        elif parts == ["api", "runs"]:
            query = parse_qs(urlparse(self.path).query)
            offset = query.get("offset", ["0"])[0]
            after = query.get("after", [None])[0]
            if not offset.isdigit():
                self._send(HTTPStatus.BAD_REQUEST, "application/json", b'{"error": "bad offset"}')
                return
            runs = self.server.read(
                lambda a: served_runs(a, self.server.options, int(offset), after=after)
            )
            self._send(HTTPStatus.OK, "application/json", json.dumps(runs).encode())
        elif parts == ["api", "progress"]:
            payload = {"experiments": self.server.read(progress_payload)}
            self._send(HTTPStatus.OK, "application/json", json.dumps(payload).encode())
        elif len(parts) == 4 and parts[:2] == ["api", "runs"] and parts[3] == "decisions":
            span = decision_span(urlparse(self.path).query)
            if span is None:
                self._send(HTTPStatus.BAD_REQUEST, "application/json", b'{"error": "bad range"}')
                return
            run_id = parts[2]
            found = self.server.read(
                lambda a: served_decisions(a, run_id, *span) if a.run(run_id) else None
            )
            if found is None:
                self._send(HTTPStatus.NOT_FOUND, "application/json", b'{"error": "no such run"}')
                return
            self._send(HTTPStatus.OK, "application/json", json.dumps(found).encode())
        else:
            self._send(HTTPStatus.NOT_FOUND, "text/plain", b"not found")

    def _send(self, status: HTTPStatus, content_type: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: a local viewer needs no access log."""


def make_server(
    archive_path: str | Path,
    options: ReportOptions | None = None,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    allowed_hosts: tuple[str, ...] = (),
) -> ReportServer:
    """A server bound to host:port (port 0 picks a free one), answering at its `url` (with
    its token) requests whose `Host` names it (`own_names`); call `serve_forever()`."""
    return ReportServer(Path(archive_path), options or ReportOptions(), host, port, allowed_hosts)


__all__ = ["ReportServer", "make_server"]
