import json
import re
import threading
import urllib.request
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from bounded.archive import Archive
from bounded.cli.report import report
from bounded.core import ConfigError
from bounded.importers import import_agenticsts
from bounded.report import ReportOptions, build_report, make_server

HISTORY = Path(__file__).resolve().parents[2].parent / "shared/reference/agenticsts/history.jsonl"


def test_report_is_one_self_contained_file(report_archive, tmp_path):
    path = build_report(report_archive, tmp_path / "r.html", ReportOptions(pool_all=True))
    page = path.read_text()
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    assert page.count("<svg") == 6  # the warehouse's four, context growth and layers
    assert 'id="cell-table-0"' in page and "pooled (descriptive)" in page
    runs = json.loads(re.search(r'id="runs-data">(.*?)</script>', page).group(1))
    decisions = json.loads(re.search(r'id="decisions-data">(.*?)</script>', page).group(1))
    assert len(runs) == 4 and set(decisions) == {r["run_id"] for r in runs}
    first = decisions[runs[0]["run_id"]]
    assert len(first["decisions"]) == 8
    spec = first["decisions"][0]["segments"][0]
    assert first["texts"][spec["text"]].startswith("You run a warehouse")
    assert all(d["segments"][0]["text"] == spec["text"] for d in first["decisions"])


def test_max_runs_limits_what_is_embedded(report_archive, tmp_path):
    page = build_report(report_archive, tmp_path / "r.html", ReportOptions(max_runs=1)).read_text()
    decisions = json.loads(re.search(r'id="decisions-data">(.*?)</script>', page).group(1))
    assert len(decisions) == 1


def test_max_decisions_bounds_the_embedded_decisions_and_says_which(report_archive, tmp_path):
    options = ReportOptions(max_runs=2, max_decisions=6)
    page = build_report(report_archive, tmp_path / "r.html", options).read_text()
    decisions = json.loads(re.search(r'id="decisions-data">(.*?)</script>', page).group(1))
    assert len(decisions) == 2
    assert [[d["index"] for d in run["decisions"]] for run in decisions.values()] == [[0, 1, 2]] * 2
    assert "the first 3 decisions of each of the newest 2 runs" in page


def test_report_command(report_archive, tmp_path):
    app = typer.Typer()
    app.command()(report)
    result = CliRunner().invoke(app, [str(report_archive), "-o", str(tmp_path / "x.html")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "x.html").stat().st_size > 10_000
    result = CliRunner().invoke(app, [str(tmp_path / "missing.sqlite")])
    assert isinstance(result.exception, ConfigError)
    args = ["--pool", "state", "--diff", "state,transcript", "--change", "state,transcript"]
    result = CliRunner().invoke(app, [str(report_archive), "-o", str(tmp_path / "y.html"), *args])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "y.html").read_text()
    assert 'id="diff-table-0"' in page and 'id="change-table-0"' in page
    result = CliRunner().invoke(app, [str(report_archive), "--pool", "nope"])
    assert isinstance(result.exception, ConfigError)


def test_view_server_serves_the_page_and_decisions(report_archive):
    server = make_server(report_archive, port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        page = urllib.request.urlopen(server.url).read().decode()
        assert 'fetch("api/sections"' in page and "const SERVED = true" in page
        sections = urllib.request.urlopen(f"{server.url}api/sections").read().decode()
        assert 'id="cell-table-0"' in sections and "<html" not in sections
        runs = json.loads(re.search(r'id="runs-data">(.*?)</script>', page).group(1))
        url = f"{server.url}api/runs/{runs[0]['run_id']}/decisions"
        payload = json.loads(urllib.request.urlopen(url).read())
        assert [d["index"] for d in payload["decisions"]] == list(range(8))
        page = json.loads(urllib.request.urlopen(f"{url}?start=2&end=5").read())
        assert [d["index"] for d in page["decisions"]] == [2, 3, 4] and page["end"] == 8
        for bad in ("start=-1", "start=0&end=x"):
            with pytest.raises(urllib.error.HTTPError, match="400"):
                urllib.request.urlopen(f"{url}?{bad}")
        with pytest.raises(urllib.error.HTTPError, match="404"):
            urllib.request.urlopen(f"{server.url}api/runs/nope/decisions")
    finally:
        server.shutdown()
        server.server_close()


def cells_of(page, table_id):
    body = re.search(rf'id="{table_id}">.*?<tbody>(.*?)</tbody>', page, re.S).group(1)
    return [re.findall(r"<td>(.*?)</td>", row, re.S) for row in body.split("</tr>")[:-1]]


def test_report_pools_named_cells_and_shows_diffs_and_changes(report_archive, tmp_path):
    options = ReportOptions(
        pool=["state"], diffs=[("state", "transcript")], changes=[("state", "transcript")]
    )
    page = build_report(report_archive, tmp_path / "r.html", options).read_text()
    page = page.replace("<wbr>", "")  # break opportunities in headers, not text
    rows = cells_of(page, "cell-table-0")
    assert [row[0] for row in rows] == ["state", "transcript", "pooled (descriptive)"]
    assert rows[2][1] == rows[0][1]  # pooled over state alone: state's wins/n
    assert "fresh tokens/point" in page and "min/floor" in page
    assert "Clopper-Pearson interval) over: state." in page
    [diff] = cells_of(page, "diff-table-0")
    assert diff[:3] == ["state", "transcript", "2/2"]
    [change] = cells_of(page, "change-table-0")
    assert change[0] == "all" and change[1] == "state → transcript"


def test_report_reproduces_the_papers_comparisons(tmp_path):
    archive = tmp_path / "a.sqlite"
    with Archive(archive) as store:
        import_agenticsts(HISTORY, store)
    options = ReportOptions(tables=["agenticsts-a0", "agenticsts-backbones"])
    page = build_report(archive, tmp_path / "r.html", options).read_text()
    a0 = cells_of(page, "cell-table-1")
    assert a0[-1][:2] == ["pooled (descriptive)", "18/30"]
    assert [row[9] for row in a0 if row[0] == "full-frozen"] == ["2.27"]  # minutes per floor
    diffs = {(d[0], d[1]): d[6] for d in cells_of(page, "diff-table-1")}
    assert diffs == {
        ("mode-a", "mode-b-frozen"): "[-18.9, +24.0]",
        ("full-frozen", "mode-a"): "[-25.5, +17.5]",
    }
    changes = {c[0]: c[6] for c in cells_of(page, "change-table-2")}
    assert changes == {
        "deepseek-v4-pro": "-18.1",
        "gemini-3.1-pro-preview": "+16.6",
        "qwen3.6-27b": "+84.5",
    }


def test_the_report_shows_fresh_tokens_and_cost_at_the_given_prices(report_archive, tmp_path):
    app = typer.Typer()
    app.command()(report)
    out = tmp_path / "priced.html"
    args = [str(report_archive), "-o", str(out), "--price", "default=1,0.1,4"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    page = out.read_text().replace("<wbr>", "")
    assert "<th>fresh tokens/game</th><th>cost/game</th><th>cost/point</th>" in page
    assert "transcript cost (prefix-cached)" in page and "cost ratio" in page
    assert "the transcript counterfactual's are computed" in page
    bad = CliRunner().invoke(app, [str(report_archive), "--price", "default=1,0.1,-4"])
    assert isinstance(bad.exception, ConfigError) and "output" in str(bad.exception)


def test_the_report_flags_runs_whose_server_reported_other_tokens(tmp_path, monkeypatch):
    import bounded
    from bounded.testing.endpoint import Endpoint

    for name in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    path = tmp_path / "a.sqlite"
    with Archive(path) as archive, Endpoint(plays="first") as endpoint:  # reports 10 a call
        spec = bounded.GameSpec(
            env="warehouse", env_options={"horizon": 3}, contract="state", model="openai:m",
            base_url=endpoint.url, seed=1,
        )  # fmt: skip
        run = bounded.play(spec, archive=archive)
    page = build_report(path, tmp_path / "r.html", ReportOptions()).read_text()
    flags = re.search(r'<div id="token-flags">(.*?)</div>', page, re.S)
    assert flags is not None and f"run {run.run_id[:12]} (state)" in flags.group(1)
    assert "bounded counted" in flags.group(1)


def test_report_takes_an_experiment_pooled_tags_and_prints_json(two_env_archive, tmp_path):
    app = typer.Typer()
    app.command()(report)
    out = tmp_path / "e.html"
    args = [str(two_env_archive), "-o", str(out), "--experiment", "envs", "--pool-tags", "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    printed = json.loads(result.output)
    assert printed["report"] == str(out) and printed["bytes"] == out.stat().st_size
    (cells,) = printed["tables"]
    assert [row["label"] for row in cells["rows"]] == [
        "balrog-robust-naive.crafter[max_steps=200]", "typed.crafter[max_steps=200]",
        "typed.warehouse[horizon=30]",
    ]  # fmt: skip
    result = CliRunner().invoke(app, [str(two_env_archive), "--experiment", "env"])
    assert isinstance(result.exception, ConfigError)
    assert "no runs of experiment 'env'" in str(result.exception)
    assert "(did you mean 'envs'?)" in str(result.exception)


def test_a_report_of_one_experiment_holds_only_its_runs(report_archive, tmp_path):
    with Archive(report_archive, read_only=True) as archive:
        runs = archive.runs()
    assert {run.experiment for run in runs} == {""}
    page = build_report(report_archive, tmp_path / "r.html", ReportOptions(experiment="none"))
    shown = json.loads(re.search(r'id="runs-data">(.*?)</script>', page.read_text()).group(1))
    assert shown == []


def test_the_view_lists_its_runs_a_page_at_a_time(report_archive, monkeypatch):
    """The first page lists the first runs with decisions; the others come from
    `api/runs?offset=N`, in the order the written report lists them."""
    from bounded.report import build

    monkeypatch.setattr(build, "VIEW_RUNS_PAGE", 3)
    with Archive(report_archive, read_only=True) as archive:
        every = [r.run_id for r in archive.runs()]
    server = make_server(report_archive, port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        page = urllib.request.urlopen(server.url).read().decode()
        first = json.loads(re.search(r'id="runs-data">(.*?)</script>', page).group(1))
        assert [r["run_id"] for r in first] == every[:3]
        assert 'id="more-runs" type="button">' in page  # shown: there are more
        rest = json.loads(urllib.request.urlopen(f"{server.url}api/runs?offset=3").read())
        assert [r["run_id"] for r in rest["runs"]] == every[3:] and rest["more"] is False
        after = json.loads(urllib.request.urlopen(f"{server.url}api/runs?after={every[2]}").read())
        assert after == rest  # keyset paging: the runs after the last one listed
        with pytest.raises(urllib.error.HTTPError, match="400"):
            urllib.request.urlopen(f"{server.url}api/runs?offset=-1")
    finally:
        server.shutdown()
        server.server_close()


def test_the_view_s_first_page_reads_no_run_list_and_no_decision(report_archive, monkeypatch):
    """What makes the first page answer at once on any archive: it reads counts and one page
    of runs by query, never every run, a decision, or the analysis."""
    from bounded.report import build

    def refused(*args, **kwargs):
        raise AssertionError("the first page read what grows with the archive")

    with Archive(report_archive, read_only=True) as archive:
        for name in ("runs", "decisions", "iter_decisions", "runs_with_decisions"):
            monkeypatch.setattr(archive, name, refused)
        for name in ("analysis_context", "read_runs", "sections_context", "lean_runs"):
            monkeypatch.setattr(build, name, refused)
        monkeypatch.setattr(build, "progress_payload", refused)
        page = build.render_page(archive, ReportOptions(), served=True)
    assert "const SERVED = true" in page and 'id="report-sections"' in page


def test_the_report_audits_the_newest_runs_within_its_decision_budget(report_archive, tmp_path):
    """Eight decisions a run: a budget of 20 reads the newest two runs with decisions, whole,
    and the page says so."""
    with Archive(report_archive, read_only=True) as archive:
        newest = [r.run_id for r in archive.runs() if r.decisions][-2:]
    options = ReportOptions(audit_decisions=20)
    page = build_report(report_archive, tmp_path / "r.html", options).read_text()
    sample = re.search(r'id="audit-sample">(.*?)</p>', page).group(1)
    assert sample.startswith("Audited: the newest 2 runs with decisions (16 decisions; at most")
    from bounded.report.build import within_budget

    with Archive(report_archive, read_only=True) as archive:
        runs = [r for r in archive.runs() if r.decisions]
    assert [r.run_id for r in within_budget(runs, options)] == newest
    assert [r.run_id for r in within_budget(runs, ReportOptions(audit_decisions=1))] == newest[1:]
