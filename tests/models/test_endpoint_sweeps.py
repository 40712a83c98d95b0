"""Sweeps against the fault-injecting server of `conftest.py`, priced: the dry run's
estimate, the spend on display, `--budget` stopping and a rerun continuing."""

import json
import textwrap

import pytest

from bounded.archive import Archive
from bounded.cli import main
from bounded.models.probe import FORMATS

PROBES = len(FORMATS)
"""The calls a dry run's preflight makes: one in each response format."""

ARGS = {"occupied": 0, "shipped": 0}
STATE_REPLY = json.dumps(
    {"reasoning": "", "state_patch": {}, "action": {"id": "report", "args": ARGS}}
)
PER_CALL = (4 * 1000 + 7 * 100 + 5 * 2000) / 1e6
"""What one call costs at the file's prices: the server reports 11 prompt tokens, 7 of
them cached, and 5 completion tokens."""


def write(tmp_path, server, *, games, model="openai:fake", prices=True):
    path = tmp_path / "exp.toml"
    table = (
        '[prices]\n"openai:fake" = { input = 1000, cached_input = 100, output = 2000 }\n'
        if prices
        else ""
    )
    path.write_text(
        textwrap.dedent(
            f"""
            [experiment]
            name = "paid"
            archive = "{tmp_path / "a.sqlite"}"

            [defaults]
            env = "warehouse"
            env_options = {{ horizon = 3 }}
            model = "{model}"
            base_url = "{server.url}"
            model_options = {{ retry = {{ attempts = 1, backoff_s = 0.01 }} }}

            [[cells]]
            tag = "state"
            contract = "state"
            games = {games}
            """
        )
        + table
    )
    return path


def sweep(capsys, *args):
    try:
        main(["sweep", *map(str, args)])
        status = 0
    except SystemExit as exit_info:
        status = exit_info.code
    captured = capsys.readouterr()
    return status, " ".join(captured.out.split()), captured.err


def runs(tmp_path):
    with Archive(tmp_path / "a.sqlite", read_only=True) as archive:
        return archive.runs(experiment="paid")


def test_a_budget_stops_starting_games_and_a_rerun_continues(fault_server, tmp_path, capsys):
    s = fault_server
    s.play(then=s.ok(content=STATE_REPLY))
    path = write(tmp_path, s, games=1)
    status, out, err = sweep(capsys, path)
    assert status == 0 and s.attempts == 3, out + err
    assert f"spent {3 * PER_CALL:.4f} USD at the experiment file's [prices]" in out
    assert "spent 0.0441" in " ".join(err.split())  # on the progress display
    write(tmp_path, s, games=5)
    status, out, _ = sweep(capsys, path, "--dry-run")
    assert status == 0
    assert (
        f"4 games, 12 model calls, 132 prompt tokens, cost {12 * PER_CALL:.4f} USD "
        "(from the mean of 1 archived games)"
    ) in out
    # 0.1 lets two more games start (0.0441 spent + 0.0441 estimated each), not a third.
    status, out, _ = sweep(capsys, path, "--budget", "0.1")
    assert status == 3, out
    assert "budget reached: spent 0.0882 of 0.1; 2 games not started" in out
    assert f"continue with: bounded sweep {path} --budget MORE" in out
    assert s.attempts == 9 + PROBES and len(runs(tmp_path)) == 3
    status, out, _ = sweep(capsys, path)
    assert status == 0 and "5/5 games completed (3 already done, 2 played now" in out
    assert s.attempts == 15 + PROBES  # nothing asked twice
    done = runs(tmp_path)
    assert sorted(r.seed for r in done) == [1, 2, 3, 4, 5]
    assert all(r.status == "completed" and r.model_calls == 3 for r in done)


def test_a_budget_needs_every_model_priced(fault_server, tmp_path, capsys):
    path = write(tmp_path, fault_server, games=1, prices=False)
    status, out, _ = sweep(capsys, path, "--dry-run")
    assert status == 0 and "cost unpriced (openai:fake)" in out
    with pytest.raises(SystemExit) as exit_info:
        main(["sweep", str(path), "--budget", "1"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "--budget: no price set for model 'openai:fake'" in err
    assert not (tmp_path / "a.sqlite").exists()
    assert fault_server.attempts == PROBES  # the dry run's; the refused sweep asked nothing


def test_scripted_players_cost_nothing(tmp_path, capsys):
    path = tmp_path / "exp.toml"
    path.write_text(
        '[experiment]\nname = "free"\n'
        f'archive = "{tmp_path / "a.sqlite"}"\n'
        '[defaults]\nenv = "warehouse"\nenv_options = { horizon = 3 }\n'
        'model = "scripted:minimal"\n[[cells]]\ntag = "state"\ncontract = "state"\ngames = 2\n'
    )
    status, out, _ = sweep(capsys, path, "--dry-run")
    assert status == 0 and "2 games, 6 model calls" in out and "cost 0.0000" in out
    status, out, _ = sweep(capsys, path, "--budget", "0")
    assert status == 0 and "2/2 games completed" in out and "spent 0.0000" in out
