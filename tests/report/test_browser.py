"""The report in a real headless Chromium: tables and plots render, a run's decisions
can be stepped through, each prompt segment coloured by its layer, a reasoning channel
shown beside the completion."""

import threading

from bounded.archive import Archive
from bounded.contracts import make_contract
from bounded.envs import make
from bounded.models.scripted import ScriptedModel
from bounded.report import ReportOptions, build_report, make_server
from bounded.runner import run_episode


def check_plots_render(page):
    for plot in ("winrate", "scores", "tokens", "context", "layers"):
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
        assert page.locator("#cell-table-0 tbody tr").count() == 2
        second = page.locator("#run-select option").nth(1).get_attribute("value")
        page.select_option("#run-select", second)
        page.wait_for_selector(f'#decision[data-run="{second}"] #decision-header')
        step_through_decisions(page)
        assert page.errors == []
    finally:
        server.shutdown()
        server.server_close()


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
