"""`bounded analyze` options: parsing, and bad values as one-line configuration errors."""

import json

import pytest
import typer
from typer.testing import CliRunner

from bounded.cli.analyze import analyze, parse_cells, parse_names, parse_pairs
from bounded.core import ConfigError


def invoke(*args):
    app = typer.Typer()
    app.command()(analyze)
    return CliRunner().invoke(app, [str(arg) for arg in args])


def test_parsers():
    assert parse_pairs(["a,b", " c , d "], "--diff") == [("a", "b"), ("c", "d")]
    for bad in ("a", "a,", ",b", "a,b,c"):
        with pytest.raises(ConfigError, match="--diff takes two cell labels"):
            parse_pairs([bad], "--diff")
    assert parse_names(["a,b", "c", "a"], "--pool") == ["a", "b", "c"]
    with pytest.raises(ConfigError, match="--pool takes cell labels"):
        parse_names(["a,,b"], "--pool")
    assert parse_cells(["x=t1,t2", "y = t3"]) == [("x", ["t1", "t2"]), ("y", ["t3"])]
    for bad in ("x", "=t", "x="):
        with pytest.raises(ConfigError):
            parse_cells([bad])


def test_analyze_pools_named_cells_and_diffs(warehouse_archive):
    result = invoke(warehouse_archive, "--pool", "state", "--diff", "state,transcript", "--json")
    assert result.exit_code == 0, result.output
    table = json.loads(result.output)
    state = next(row for row in table["rows"] if row["label"] == "state")
    assert table["pooled_cells"] == ["state"]
    assert table["pooled"]["run_ids"] == state["run_ids"]
    [diff] = table["diffs"]
    assert (diff["a"], diff["b"], diff["games_a"]) == ("state", "transcript", 2)
    printed = invoke(warehouse_archive, "--pool-all", "--diff", "state,transcript")
    assert printed.exit_code == 0, printed.output
    text = " ".join(printed.output.split())
    assert "descriptive) over: state, transcript" in text
    assert f"{diff['difference']:+.1f}" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--pool", "nope"], "no cell 'nope'"),
        (["--diff", "state"], "--diff takes two cell labels"),
        (["--diff", "state,nope"], "no cell 'nope'"),
        (["--diff", "state,transcrpt"], "no cell 'transcrpt' (did you mean 'transcript'?)"),
        (["--table", "agenticsts-a1"], "(did you mean 'agenticsts-a0'?)"),
        (["--change", "state,transcript,x"], "--change takes two cell labels"),
        (["--cell", "x"], "--cell takes LABEL=TAG"),
        (["--pool", "state", "--pool-all"], "give one"),
        (["--table", "agenticsts-a0", "--pool", "state"], "drop --pool"),
        (["--first", "0"], "--first must be at least 1"),
    ],
)
def test_bad_values_are_config_errors(warehouse_archive, args, message):
    result = invoke(warehouse_archive, *args)
    assert isinstance(result.exception, ConfigError)
    assert message in str(result.exception) and "\n" not in str(result.exception)


def test_analyze_prices_models_and_refuses_bad_prices(warehouse_archive, tmp_path):
    table = json.loads(invoke(warehouse_archive, "--price", "scripted=2,0.2,10", "--json").output)
    row = table["rows"][0]
    assert row["cost_per_game"] > 0 and row["fresh_tokens_per_game"] > 0
    prices = tmp_path / "prices.toml"
    prices.write_text("[prices.default]\ninput = 0\ncached_input = 0\noutput = 0\n")
    free = json.loads(invoke(warehouse_archive, "--prices", prices, "--json").output)
    assert all(r["cost_per_game"] == 0 for r in free["rows"])
    for args, message in (
        (["--price", "scripted=-2,0.2,10"], "greater than or equal to 0"),
        (["--price", "scripted=2,0.2"], "MODEL=INPUT,CACHED,OUTPUT"),
        (["--prices", tmp_path / "nope.toml"], "prices file not found"),
    ):
        result = invoke(warehouse_archive, *args)
        assert isinstance(result.exception, ConfigError), result.output
        assert message in str(result.exception) and "\n" not in str(result.exception)


@pytest.fixture(scope="module")
def matrix_archive(tmp_path_factory):
    """Two cells crossed with two warehouse horizons, two seeds each, by a scripted player."""
    from bounded.sweeps.experiment import parse_experiment
    from bounded.sweeps.sweep import run_sweep

    path = tmp_path_factory.mktemp("matrix") / "a.sqlite"
    experiment = parse_experiment(
        {
            "experiment": {"name": "m", "archive": str(path)},
            "defaults": {"env": "warehouse", "games": 2, "max_decisions": 12,
                         "model": "bounded.jobs.scripted_players:counting_model"},
            "matrix": {"horizon": [5, 10]},
            "cells": [{"tag": "state", "contract": "state"},
                      {"tag": "transcript", "contract": "transcript"}],
        }
    )  # fmt: skip
    run_sweep(experiment)
    return path


@pytest.mark.parametrize(
    ("a", "b", "pairs"),
    [
        ("state / state[horizon=10]", "transcript / transcript[horizon=10]", 2),  # as printed
        ("state[horizon=10]", "transcript[horizon=10]", 2),  # the sweep's cell names
        ("state", "transcript", 4),  # the experiment file's cells: both horizons
    ],
)
def test_compare_takes_the_names_by_cell_prints_and_the_files_cells(matrix_archive, a, b, pairs):
    result = invoke(matrix_archive, "--by", "cell", "--compare", f"{a},{b}", "--json")
    assert result.exit_code == 0, result.output
    (paired,) = json.loads(result.output)["paired"]
    assert (paired["a"], paired["b"], paired["pairs"]) == (a, b, pairs)


def test_compare_of_an_unknown_name_lists_the_names_in_one_line(matrix_archive):
    result = invoke(matrix_archive, "--by", "cell", "--compare", "state[horizon=1],transcript")
    message = str(result.exception)
    assert isinstance(result.exception, ConfigError) and "\n" not in message
    assert message.startswith("no row, cell or treatment 'state[horizon=1]'")
    for name in ("state / state[horizon=10]", "state[horizon=5]", "transcript"):
        assert name in message
