"""`bounded sweep`'s last lines: what the games cost, at the prices they were priced at."""

from __future__ import annotations

from pathlib import Path

import pytest

from bounded.cli import main

PLAYER = "bounded.jobs.scripted_players:counting_model"


def experiment_file(tmp_path: Path, prices: str = "") -> Path:
    tmp_path.mkdir(exist_ok=True)
    path = tmp_path / "exp.toml"
    path.write_text(
        f'[experiment]\nname = "exp"\narchive = "{tmp_path / "a.sqlite"}"\n'
        f'[defaults]\nenv = "warehouse"\nenv_options = {{horizon = 3}}\ngames = 1\n'
        f'max_decisions = 3\nmodel = "{PLAYER}"\n'
        f'[[cells]]\ntag = "state"\ncontract = "state"\n{prices}'
    )
    return path


def spend(capsys: pytest.CaptureFixture[str], *args: str | Path) -> str:
    main(["sweep", *(str(arg) for arg in args)])
    (line,) = [line for line in capsys.readouterr().out.splitlines() if "spent " in line]
    return line


def test_the_spend_line_names_the_prices_it_used_or_that_there_were_none(tmp_path, capsys):
    line = spend(capsys, experiment_file(tmp_path))
    assert "experiment file's" not in line
    assert line.endswith(
        "(no prices given: the file has no [prices] table and no --price was given)"
    )
    table = "[prices.default]\ninput = 1.0\ncached_input = 0.1\noutput = 2.0\n"
    priced = experiment_file(tmp_path / "p", table)
    assert spend(capsys, priced).endswith(" USD at the experiment file's [prices]")
    given = experiment_file(tmp_path / "g")
    assert spend(capsys, given, "--price", "default=1,0.1,2").endswith(" USD at --price")
