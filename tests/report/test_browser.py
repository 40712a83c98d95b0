"""The report in a real headless Chromium: tables and plots render, a run's decisions
can be stepped through, each prompt segment coloured by its layer, a reasoning channel
shown beside the completion."""

import threading

import pytest

from bounded.archive import Archive
from bounded.contracts import make_contract
from bounded.envs import make
from bounded.models.scripted import ScriptedModel
from bounded.report import ReportOptions, build_report, make_server
from bounded.report.build import LAYER_COLOURS
from bounded.runner import run_episode


def check_plots_render(page):
    kinds = ("progression", "winrate", "scores", "tokens")
    for plot in (*(f"{kind}-warehouse" for kind in kinds), "context", "layers"):
        box = page.locator(f"#plot-{plot} svg").bounding_box()
        assert box is not None and box["width"] > 200 and box["height"] > 100, plot


def check_comparisons_render(page):
    headers = page.locator("#cell-table-0 thead th").all_inner_texts()
    assert "fresh tokens/point" in headers and "min/floor" in headers
    assert "over: state, transcript" in page.locator(".pooled-cells").first.inner_text()
    diff = page.locator("#diff-table-0 tbody tr td").all_inner_texts()
    assert diff[:3] == ["state", "transcript", "2/2"]
    assert page.locator("#diff-table-0").is_visible()
    change = page.locator("#change-table-0 tbody tr td").all_inner_texts()
    assert change[:2] == ["all", "state → transcript"]


def step_through_decisions(page):
    assert page.locator("#decision-count").inner_text() == "of 8"
    assert page.locator("#decision-header").inner_text().startswith("decision 0 ")
    page.click("#next-decision")
    page.click("#next-decision")
    assert page.locator("#decision-header").inner_text().startswith("decision 2 ")
    page.click("#prev-decision")
    assert page.locator("#decision-header").inner_text().startswith("decision 1 ")
    page.fill("#decision-index", "7")
    page.dispatch_event("#decision-index", "change")
    assert page.locator("#decision-header").inner_text().startswith("decision 7 ")
    page.click("#next-decision")  # past the end stays on the last decision
    assert page.locator("#decision-header").inner_text().startswith("decision 7 ")
    assert "report" in page.locator("#action").inner_text()
    assert '"occupied": 0' in page.locator("#completion").inner_text()


def segment_colours(page):
    return page.eval_on_selector_all(
        "#prompt .segment",
        "els => els.map(e => [e.dataset.layer, getComputedStyle(e).backgroundColor])",
    )


def test_report_in_headless_chromium(browser_page, report_archive, tmp_path, artifact_dir):
    options = ReportOptions(
        pool_all=True, diffs=[("state", "transcript")], changes=[("state", "transcript")]
    )
    path = build_report(report_archive, tmp_path / "report.html", options)
    page = browser_page
    page.goto(path.as_uri())
    rows = page.locator("#cell-table-0 tbody tr")
    assert rows.count() == 3  # state, transcript, pooled
    assert rows.nth(0).locator("td").first.inner_text() == "state"
    check_comparisons_render(page)
    check_plots_render(page)
    runs = page.locator("#run-select option")
    assert runs.count() == 4
    state_run = next(
        runs.nth(i).get_attribute("value")
        for i in range(4)
        if "· state ·" in runs.nth(i).inner_text()
    )
    page.select_option("#run-select", state_run)
    page.wait_for_selector(f'#decision[data-run="{state_run}"] #decision-header')
    step_through_decisions(page)
    assert page.locator("#prompt .segment pre").first.inner_text().startswith("You run a warehouse")
    colours = segment_colours(page)
    assert [layer for layer, _ in colours] == ["spec", "state", "observation"]
    assert len({colour for _, colour in colours}) == 3
    assert all(colour not in ("rgba(0, 0, 0, 0)", "rgb(255, 255, 255)") for _, colour in colours)
    page.locator("#browser").screenshot(path=str(artifact_dir / "report-run-browser.png"))
    page.screenshot(path=str(artifact_dir / "report-top.png"))
    assert (artifact_dir / "report-run-browser.png").stat().st_size > 5_000
    assert page.errors == []


def test_view_server_in_headless_chromium(browser_page, report_archive):
    server = make_server(report_archive, port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        page = browser_page
        page.goto(server.url)
        page.wait_for_selector('#report-sections[data-loaded="true"]')  # fetched after the page
        assert page.locator("#cell-table-0 tbody tr").count() == 2
        second = page.locator("#run-select option").nth(1).get_attribute("value")
        page.select_option("#run-select", second)
        page.wait_for_selector(f'#decision[data-run="{second}"] #decision-header')
        step_through_decisions(page)
        assert page.errors == []
    finally:
        server.shutdown()
        server.server_close()


MARKUP_REPLIES = [
    "</script><script>window.injected = 1</script><!--",
    '<!DOCTYPE html><html><body><h1 id="decision-header">a page</h1></body></html>',
    '{"reasoning": "</pre><b>bold</b><!-- <script>", "action": {"id": "report", '
    '"args": {"occupied": 0, "shipped": 0}}}',
    "<textarea><style>*{display:none}</style>]]>&amp;&lt;\u2028\u2029",
    '<img src=x onerror="window.injected = 2"><svg><script>window.injected = 3</script></svg>',
]
"""Replies full of markup: they end script elements, open comments, write a whole web
page, hide everything, run handlers."""


@pytest.fixture(scope="module")
def markup_archive(tmp_path_factory):
    """A transcript game whose replies are markup (and are resent in later prompts)."""
    path = tmp_path_factory.mktemp("markup") / "m.sqlite"
    with Archive(path) as archive:
        run_episode(
            make("warehouse", horizon=len(MARKUP_REPLIES) * 2), make_contract("transcript"),
            ScriptedModel(MARKUP_REPLIES, cycle=True), seed=1,
            env_id="bounded/Warehouse-v0", tag="markup", archive=archive,
        )  # fmt: skip
    return path


def test_replies_full_of_markup_leave_every_decision_readable(
    browser_page, markup_archive, tmp_path
):
    path = build_report(markup_archive, tmp_path / "report.html")
    with Archive(markup_archive, read_only=True) as archive:
        (run,) = archive.runs()
        decisions = archive.decisions(run.run_id)
    page = browser_page
    page.goto(path.as_uri())
    page.wait_for_selector(f'#decision[data-run="{run.run_id}"] #decision-header')
    assert page.locator("#decision-count").inner_text() == f"of {len(decisions)}"
    for record in decisions:
        page.fill("#decision-index", str(record.index))
        page.dispatch_event("#decision-index", "change")
        header = page.locator("#decision-header")
        assert header.count() == 1 and header.inner_text().startswith(f"decision {record.index} ")
        shown = page.locator("#completion pre").evaluate("e => e.textContent")
        assert shown == record.completion.text
        texts = page.locator("#prompt .segment pre").evaluate_all(
            "es => es.map(e => e.textContent)"
        )
        assert texts == [segment.text for segment in record.segments]
    assert page.evaluate("window.injected") is None
    assert page.locator("#decision script, #decision img, #decision b").count() == 0
    assert page.errors == []


def png_size(path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(header[16:20], "big"), int.from_bytes(header[20:24], "big")


def test_the_report_fits_a_1400_pixel_window(browser_page, report_archive, tmp_path, artifact_dir):
    options = ReportOptions(pool_all=True, diffs=[("state", "transcript")])
    path = build_report(report_archive, tmp_path / "report.html", options)
    page = browser_page
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(path.as_uri())
    assert page.evaluate("document.documentElement.scrollWidth") <= 1400
    for table in ("#cell-table-0", "#audit-table"):
        box = page.locator(table).bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 1400, table
    with Archive(report_archive, read_only=True) as archive:
        present = archive.layers()
    legend = page.locator("#legend span").all_inner_texts()
    assert sorted(legend) == sorted(present) and len(legend) < len(LAYER_COLOURS)
    shot = artifact_dir / "report-1400.png"
    page.screenshot(path=str(shot), full_page=True)
    width, height = png_size(shot)
    assert width == 1400 and height > 900


REPLY = '{"reasoning": "count", "action": {"id": "report", "args": {"occupied": 0, "shipped": 0}}}'
THOUGHT = "Shelves first, then what shipped; this channel is never parsed."


class ThinkingModel(ScriptedModel):
    """A scripted reasoning model: each reply comes with a reasoning channel."""

    def complete(self, *args, **kwargs):
        completion = super().complete(*args, **kwargs)
        return completion.model_copy(update={"reasoning": THOUGHT, "reasoning_tokens": 40})


def test_the_prompt_viewer_shows_a_reasoning_channel(browser_page, tmp_path):
    path = tmp_path / "thinking.sqlite"
    with Archive(path) as archive:
        run_episode(
            make("warehouse", horizon=2), make_contract("state"),
            ThinkingModel([REPLY], cycle=True), seed=1, archive=archive,
        )  # fmt: skip
    page = browser_page
    page.goto(build_report(path, tmp_path / "thinking.html").as_uri())
    page.wait_for_selector("#thinking")
    assert THOUGHT in page.locator("#thinking").inner_text()
    assert "40 tokens" in page.locator("#thinking .badge").inner_text()
    assert "(40 reasoning)" in page.locator("#decision-header").inner_text()
    assert page.errors == []


def test_long_cell_names_take_at_most_two_lines(browser_page, two_env_archive, tmp_path):
    path = build_report(two_env_archive, tmp_path / "envs.html", ReportOptions(pool_all=True))
    page = browser_page
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(path.as_uri())
    lines = page.eval_on_selector_all(
        "#cell-table-0 tbody td:first-child",
        """cells => cells.map(td => {
            const range = document.createRange();
            range.selectNodeContents(td);
            const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
            return [td.textContent, tops.size];
        })""",
    )
    assert len(lines) == 4 and all(count <= 2 for _, count in lines), lines
    assert page.evaluate("document.documentElement.scrollWidth") <= 1400
    sections = page.locator("section.env-plots h3").all_inner_texts()
    assert sections == ["crafter", "warehouse", "crafter, warehouse"]
    assert page.locator("#plot-winrate-crafter").count() == 0
    box = page.locator("#plot-progression-crafter svg").bounding_box()
    assert box is not None and box["width"] > 200
    assert page.errors == []


def test_the_view_lists_more_runs_when_asked(browser_page, report_archive, monkeypatch):
    from bounded.report import build

    monkeypatch.setattr(build, "VIEW_RUNS_PAGE", 2)
    server = make_server(report_archive, port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        page = browser_page
        page.goto(server.url)
        assert page.locator("#run-select option").count() == 2
        page.click("#more-runs")
        page.wait_for_function("document.querySelectorAll('#run-select option').length === 4")
        assert page.locator("#more-runs").is_hidden()  # every run is listed
        last = page.locator("#run-select option").nth(3).get_attribute("value")
        page.select_option("#run-select", last)
        page.wait_for_selector(f'#decision[data-run="{last}"] #decision-header')
        assert page.errors == []
    finally:
        server.shutdown()
        server.server_close()
