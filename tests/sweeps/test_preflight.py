"""Preflight: a sweep's fatal settings found before any game. A dry run that finds one exits
non-zero and writes nothing; a sweep refuses to start; a sweep whose games keep failing
stops starting more, with one line saying why."""

import re
import textwrap

import pytest

from bounded.cli import main
from bounded.sweeps.experiment import load_experiment
from bounded.sweeps.preflight import model_uses, preflight
from bounded.sweeps.sweep import SweepRefused, run_sweep
from bounded.testing.endpoint import Endpoint

FAST = "{ retry = { attempts = 1, backoff_s = 0.01, timeout_s = 5 } }"


@pytest.fixture(autouse=True)
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)


def experiment_file(tmp_path, model, base_url=None, games=2):
    url = f'base_url = "{base_url}"' if base_url else ""
    path = tmp_path / "e.toml"
    path.write_text(
        textwrap.dedent(
            f"""
            [experiment]
            name = "pre"
            archive = "{tmp_path / "pre.sqlite"}"

            [defaults]
            env = "warehouse"
            model = "{model}"
            {url}
            model_options = {FAST}
            games = {games}
            env_options = {{ horizon = 2 }}

            [[cells]]
            tag = "state"
            contract = "state"
            """
        )
    )
    return path


def dry_run(capsys, path):
    with pytest.raises(SystemExit) as exit_info:
        main(["sweep", str(path), "--dry-run"])
        raise SystemExit(0)
    out, err = capsys.readouterr()
    return exit_info.value.code, out + err


def test_a_misspelt_model_kind_fails_the_dry_run_and_writes_nothing(tmp_path, capsys):
    code, text = dry_run(capsys, experiment_file(tmp_path, "opnai:my-vllm"))
    assert code != 0 and "unknown model 'opnai:my-vllm'" in text
    assert "did you mean openai:my-vllm?" in text
    assert list(tmp_path.iterdir()) == [tmp_path / "e.toml"]


def test_a_missing_key_names_the_files_setting(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    code, text = dry_run(capsys, experiment_file(tmp_path, "openai:gpt"))
    assert code != 0 and "needs an API key in $OPENAI_API_KEY" in text
    assert "base_url in an experiment file" in text
    assert list(tmp_path.iterdir()) == [tmp_path / "e.toml"]


def test_a_dead_endpoint_fails_the_dry_run_and_writes_nothing(tmp_path, capsys):
    code, text = dry_run(capsys, experiment_file(tmp_path, "openai:m", "http://127.0.0.1:9/v1"))
    assert code != 0 and "no response format answered" in text and "127.0.0.1:9" in text
    assert list(tmp_path.iterdir()) == [tmp_path / "e.toml"]


def test_a_live_endpoint_is_reported_with_its_usage_and_formats(tmp_path, capsys):
    with Endpoint(plays="first", refuses=frozenset({"json_schema"})) as endpoint:
        code, text = dry_run(capsys, experiment_file(tmp_path, "openai:m", endpoint.url))
        calls = endpoint.calls
    assert code == 0, text
    assert "returns usage; accepts json_object+schema, json_object, none" in text
    assert "refuses json_schema" in text and calls == 4  # one request per format
    assert list(tmp_path.iterdir()) == [tmp_path / "e.toml"]


def test_a_sweep_refuses_to_start_against_a_dead_endpoint(tmp_path):
    experiment = load_experiment(experiment_file(tmp_path, "openai:m", "http://127.0.0.1:9/v1"))
    with pytest.raises(SweepRefused, match=re.escape("cannot reach http://127.0.0.1:9/v1")):
        run_sweep(experiment)
    assert list(tmp_path.iterdir()) == [tmp_path / "e.toml"]


def test_the_sweeps_own_check_asks_nothing_of_the_chat_endpoint(tmp_path):
    experiment = load_experiment(experiment_file(tmp_path, "openai:m", "URL"))
    with Endpoint(plays="first") as endpoint:
        games = [spec.model_copy(update={"base_url": endpoint.url}) for spec in experiment.plan()]
        assert preflight(games).problems == [] and endpoint.calls == 0
    [use] = model_uses(games)
    assert use.cells == ("state",)


def test_a_sweep_stops_after_games_fail_in_a_row(tmp_path, capsys):
    with Endpoint(plays="first") as endpoint:
        endpoint.play(then=endpoint.status(500, "broken"))
        path = experiment_file(tmp_path, "openai:m", endpoint.url, games=5)
        with pytest.raises(SystemExit) as exit_info:
            main(["sweep", str(path), "--max-failures", "2"])
    out, err = capsys.readouterr()
    assert exit_info.value.code == 1
    line = next(line for line in (out + err).splitlines() if "in a row" in line)
    assert line.startswith("stopped after 2 failed games in a row (the last, state seed")
    assert "3 games not started" in line and "continue with: bounded sweep" in line


def two_mode_file(tmp_path, url):
    """A constrained cell, one that may fall back to text, and one in text mode."""
    path = experiment_file(tmp_path, "openai:m", url)
    constrained = 'contract = "state"\ncontract_config = { reply = "constrained" }\n'
    path.write_text(
        path.read_text().replace('contract = "state"\n', constrained)
        + textwrap.dedent(
            """
            [[cells]]
            tag = "falls-back"
            contract = "state"
            contract_config = { reply = "constrained", reply_fallback = ["json", "text"] }

            [[cells]]
            tag = "texts"
            contract = "state"
            contract_config = { reply = "text" }
            """
        )
    )
    return path


def test_the_dry_run_fails_each_cell_whose_reply_modes_the_endpoint_cannot_play(tmp_path, capsys):
    refused = frozenset({"json_schema", "json_object"})
    with Endpoint(plays="first", refuses=refused) as endpoint:
        code, text = dry_run(capsys, two_mode_file(tmp_path, endpoint.url))
    assert code == 1, text
    problems = [line for line in text.splitlines() if line.startswith("problem:")]
    assert problems == [
        f"problem: cells.state: cannot play against model 'openai:m' at {endpoint.url}: it "
        "replies in constrained, which needs json_schema or json_object+schema, and the "
        'endpoint takes none of them; it plays text: set reply_fallback = ["text"] or reply '
        "to one of them"
    ]
    assert "accepts none; refuses json_schema, json_object+schema, json_object" in text
    assert list(tmp_path.iterdir()) == [tmp_path / "e.toml"]


def test_the_dry_run_passes_where_the_endpoint_plays_every_cell(tmp_path, capsys):
    with Endpoint(plays="first", refuses=frozenset({"json_schema"})) as endpoint:
        code, text = dry_run(capsys, two_mode_file(tmp_path, endpoint.url))
    assert code == 0, text  # llama.cpp's json_object form plays constrained


def test_an_unknown_model_reads_the_same_on_an_archive_that_holds_games(tmp_path, capsys):
    path = experiment_file(tmp_path, "scripted:minimal")
    assert main_status(["sweep", str(path)]) == 0
    capsys.readouterr()
    path.write_text(path.read_text().replace("scripted:minimal", "opnai:fake"))
    code, text = dry_run(capsys, path)
    problems = [line for line in text.splitlines() if line.startswith("problem:")]
    assert code == 1 and len(problems) == 1, text  # no line about the archived games
    assert "unknown model 'opnai:fake'" in problems[0]
    assert "did you mean openai:fake?" in problems[0]
    assert main_status(["sweep", str(path)]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "unknown model 'opnai:fake'" in line and "did you mean openai:fake?" in line


def main_status(argv):
    try:
        main(argv)
    except SystemExit as exit_info:
        return exit_info.code
    return 0
