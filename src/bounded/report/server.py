"""`bounded view`: the report served on 127.0.0.1, with decisions fetched run by run,
so that an archive too large for one HTML file can still be browsed."""

from __future__ import annotations

import json
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlparse

from bounded.archive import Archive
from bounded.report.build import ReportOptions, render_page, run_payload


class ReportServer(ThreadingHTTPServer):
    """Serves `/` (the report page) and `/api/runs/<run_id>/decisions` (JSON)."""

    daemon_threads = True

    def __init__(self, archive_path: Path, options: ReportOptions, host: str, port: int) -> None:
        self.archive_path = archive_path
        self.options = options
        self._local = threading.local()
        super().__init__((host, port), ReportHandler)

    def archive(self) -> Archive:
        """One connection per handler thread: SQLite connections stay in their thread."""
        if getattr(self._local, "archive", None) is None:
            self._local.archive = Archive(self.archive_path, read_only=True)
        archive: Archive = self._local.archive
        return archive

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}/"


class ReportHandler(BaseHTTPRequestHandler):
    server: ReportServer

    def do_GET(self) -> None:
        path = urlparse(self.path).path
        parts = [unquote(p) for p in path.strip("/").split("/") if p]
        if not parts:
            page = render_page(self.server.archive(), self.server.options, served=True)
            self._send(HTTPStatus.OK, "text/html; charset=utf-8", page.encode())
        elif len(parts) == 4 and parts[:2] == ["api", "runs"] and parts[3] == "decisions":
            archive = self.server.archive()
            if archive.run(parts[2]) is None:
                self._send(HTTPStatus.NOT_FOUND, "application/json", b'{"error": "no such run"}')
                return
            payload = run_payload(archive.decisions(parts[2]))
            self._send(HTTPStatus.OK, "application/json", json.dumps(payload).encode())
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
) -> ReportServer:
    """A server bound to host:port (port 0 picks a free one); call `serve_forever()`."""
    return ReportServer(Path(archive_path), options or ReportOptions(), host, port)


__all__ = ["ReportServer", "make_server"]
