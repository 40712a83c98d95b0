import json
import re
import threading
import urllib.request

import pytest
import typer
from typer.testing import CliRunner

from bounded.commands.research import report
from bounded.core import ConfigError
from bounded.report import ReportOptions, build_report, make_server
from bounded.report.build import json_for_script


def test_report_is_one_self_contained_file(report_archive, tmp_path):
    path = build_report(report_archive, tmp_path / "r.html", ReportOptions(pool=True))
    page = path.read_text()
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    assert page.count("<svg") == 5
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


def test_script_json_cannot_close_the_script_element():
    text = json_for_script({"t": "</script><b>"})
    assert "</script>" not in text and json.loads(text) == {"t": "</script><b>"}


def test_report_command(report_archive, tmp_path):
    app = typer.Typer()
    app.command()(report)
    result = CliRunner().invoke(app, [str(report_archive), "-o", str(tmp_path / "x.html")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "x.html").stat().st_size > 10_000
    result = CliRunner().invoke(app, [str(tmp_path / "missing.sqlite")])
    assert isinstance(result.exception, ConfigError)


def test_view_server_serves_the_page_and_decisions(report_archive):
    server = make_server(report_archive, port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        page = urllib.request.urlopen(server.url).read().decode()
        assert 'id="cell-table-0"' in page and "const SERVED = true" in page
        runs = json.loads(re.search(r'id="runs-data">(.*?)</script>', page).group(1))
        url = f"{server.url}api/runs/{runs[0]['run_id']}/decisions"
        payload = json.loads(urllib.request.urlopen(url).read())
        assert [d["index"] for d in payload["decisions"]] == list(range(8))
        with pytest.raises(urllib.error.HTTPError, match="404"):
            urllib.request.urlopen(f"{server.url}api/runs/nope/decisions")
    finally:
        server.shutdown()
        server.server_close()
