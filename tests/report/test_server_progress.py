"""`bounded view` of an archive a sweep is writing: the page shows each cell's progress
and its JSON follows the archive from one request to the next, behind the same Host and
token checks as the rest of the page."""

from __future__ import annotations

import http.client
import json
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

import pytest

from bounded.analysis.cost import Prices
from bounded.archive import Archive
from bounded.core import RunRecord
from bounded.report import make_server
from bounded.report.server import ReportServer
from bounded.runner import GameSpec
from bounded.sweeps.board import SweepBoard, store_plan
from bounded.sweeps.estimate import SweepPrices


def game(run_id: str, seed: int, status: str, prompt: int = 0) -> RunRecord:
    return RunRecord(
        run_id=run_id, env_id="bounded/Warehouse-v0", contract="state", model="openai:m",
        seed=seed, experiment="live", cell="state.warehouse", status=status,
        prompt_tokens=prompt, usage={"openai:m": {"prompt_tokens": prompt}},
    )  # fmt: skip


@pytest.fixture
def written(tmp_path) -> Path:
    """An archive as a sweep of three games leaves it after its first game."""
    path = tmp_path / "live.sqlite"
    games = [GameSpec(env="warehouse", contract="state", seed=s, cell="state.warehouse",
                      experiment="live") for s in (1, 2, 3)]  # fmt: skip
    prices = SweepPrices({"openai:m": Prices(input=2.0, cached_input=1.0, output=4.0)})
    with Archive(path) as archive:
        store_plan(archive, SweepBoard.planned(games, prices))
        archive.save_run(game("g1", 1, "completed", 500_000))
        archive.save_run(game("g2", 2, "running", 100))
    return path


@pytest.fixture
def server(written) -> Iterator[ReportServer]:
    served = make_server(written, port=0)
    thread = threading.Thread(target=served.serve_forever, daemon=True)
    thread.start()
    try:
        yield served
    finally:
        served.shutdown()
        served.server_close()


def get(server: ReportServer, path: str, host: str | None = None) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        connection.putrequest("GET", path, skip_host=True)
        connection.putheader("Host", host or f"127.0.0.1:{server.port}")
        connection.endheaders()
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def progress(server: ReportServer) -> dict:
    status, body = get(server, urlparse(server.url).path + "api/progress")
    assert status == 200
    (board,) = json.loads(body)["experiments"]
    return board["cells"][0]


def test_the_progress_follows_the_archive_between_two_requests(server, written):
    before = progress(server)
    assert (before["completed"], before["total"], before["running"]) == (1, 3, 1)
    assert before["cost"] == pytest.approx(1.0002)  # 500,100 prompt tokens so far, at 2
    with Archive(written) as archive:
        archive.save_run(game("g2", 2, "completed", 250_000))
        archive.save_run(game("g3", 3, "failed", 0))
    after = progress(server)
    assert (after["completed"], after["failed"], after["running"]) == (2, 1, 0)
    assert after["prompt_tokens"] == 750_000 and after["cost"] == pytest.approx(1.5)


def test_the_page_polls_the_cells_at_once(server, written):
    """The page is the frame (its first page answers whatever the archive's size); the
    cells come from `api/progress`, which the page asks for as it opens."""
    status, body = get(server, urlparse(server.url).path)
    page = body.decode()
    assert status == 200 and 'id="sweep-progress"' in page and 'fetch("api/progress"' in page
    assert "  poll();\n" in page  # at once, then every few seconds
    cell = progress(server)
    assert (cell["cell"], cell["env"], cell["completed"], cell["total"]) == (
        "state.warehouse", "warehouse", 1, 3,
    )  # fmt: skip
    assert cell["prompt_tokens"] == 500_100


def test_the_progress_keeps_the_pages_checks(server):
    path = urlparse(server.url).path + "api/progress"
    assert get(server, path, host=f"evil.example:{server.port}")[0] == 403
    assert get(server, "/not-the-token/api/progress")[0] == 403


def test_the_page_in_headless_chromium_follows_the_archive(browser_page, server, written):
    page = browser_page
    page.goto(server.url)
    games = "#sweep-progress tbody tr:first-child td:nth-child(3)"
    assert page.locator(games).inner_text() == "1/3"
    with Archive(written) as archive:
        archive.save_run(game("g2", 2, "completed", 250_000))
    page.wait_for_function(
        f"document.querySelector({json.dumps(games)}).textContent === '2/3'", timeout=15_000
    )
    assert page.locator("#sweep-progress tbody tr:first-child td").all_inner_texts()[3:5] == [
        "0", "0",
    ]  # fmt: skip
    assert page.errors == []


def test_the_page_shows_each_cells_decisions_and_the_time_left(tmp_path):
    """Three games of at most 60 decisions: one completed in 30, one at 20 after 10 s, one
    waiting: 30 + (30 - 20) = 40 decisions left at 2 a second (a little less as the
    seconds pass), about 20 s."""
    path = tmp_path / "paced.sqlite"
    games = [GameSpec(env="warehouse", contract="state", seed=s, cell="state.warehouse",
                      experiment="live", max_decisions=60) for s in (1, 2, 3)]  # fmt: skip
    with Archive(path) as archive:
        store_plan(archive, SweepBoard.planned(games, SweepPrices()))
        archive.save_run(game("g1", 1, "completed").model_copy(update={"decisions": 30}))
        archive.save_run(game("g2", 2, "running").model_copy(
            update={"decisions": 20, "started_at": time.time() - 10}))  # fmt: skip
    served = make_server(path, port=0)
    thread = threading.Thread(target=served.serve_forever, daemon=True)
    thread.start()
    try:
        page = get(served, urlparse(served.url).path)[1].decode()
        _, body = get(served, urlparse(served.url).path + "api/progress")
        (board,) = json.loads(body)["experiments"]
        cell = board["cells"][0]
    finally:
        served.shutdown()
        served.server_close()
    assert '"decisions", "prompt tokens"' in page  # the column the page draws
    shown = re.search(r"about (\d+) s left \(40 decisions at ([\d.]+)/s\)", board["pace"]["text"])
    assert shown is not None  # 20 decisions over the 10 s (and the few more a loaded machine
    seconds, rate = int(shown[1]), float(shown[2])  # takes to answer) since g2 started
    assert 1.0 < rate <= 2.0 and seconds == pytest.approx(40 / rate, abs=1)
    assert (cell["decisions"], cell["playing_decisions"], cell["limit"]) == (50, [20], 60)
