"""`bounded run` checks its endpoint before it plays, as `bounded sweep` does: a dead server
or a refused key is one line and exit 2, and nothing is written to the archive."""

from pathlib import Path

import pytest

from bounded.cli import main
from bounded.testing.endpoint import Endpoint


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)


def run(capsys, archive, url, *more):
    argv = ["run", "warehouse", "--opt", "horizon=2", "--model", "openai:fake",
            "--base-url", url, *more, str(archive)]  # fmt: skip
    try:
        main(argv)
        code = 0
    except SystemExit as exit_info:
        code = exit_info.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_a_dead_endpoint_is_one_line_before_any_row(tmp_path, capsys):
    archive = tmp_path / "a.sqlite"
    code, _, err = run(capsys, archive, "http://127.0.0.1:9/v1")
    assert code == 2
    [line] = err.strip().splitlines()
    assert line.startswith("bounded: error: model 'openai:fake' at http://127.0.0.1:9/v1: ")
    assert "cannot reach http://127.0.0.1:9/v1" in line
    assert not archive.exists()


def test_a_refused_key_reads_as_the_sweep_says_it(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "wrong")
    archive = tmp_path / "a.sqlite"
    with Endpoint(plays="first", api_key="right") as endpoint:
        code, _, err = run(capsys, archive, endpoint.url)
    assert code == 2 and not archive.exists()
    assert err.strip() == (
        f"bounded: error: model 'openai:fake' at {endpoint.url}: the server refused the API "
        "key (HTTP 401)"
    )


def test_a_live_endpoint_plays(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "right")
    archive = tmp_path / "a.sqlite"
    with Endpoint(plays="first", api_key="right") as endpoint:
        code, out, err = run(capsys, archive, endpoint.url, "--reply", "json")
    assert code == 0, err
    assert "archive" in out and archive.exists()


def test_the_summary_names_an_archive_in_a_bracketed_folder_as_written(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    Path("[x]").mkdir()
    main(["run", "warehouse", "--opt", "horizon=2", "--model", "scripted:minimal", "[x]/a.sqlite"])
    out = capsys.readouterr().out
    assert " [x]/a.sqlite (run " in out
