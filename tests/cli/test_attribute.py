"""`bounded attribute` through `bounded.cli.main`: the cost first, the table, resumption,
and one line for a run that cannot be replayed."""

import sqlite3

import pytest

from bounded.archive import Archive
from bounded.cli import main
from bounded.envs.warehouse import state_keeping_reply
from bounded.models import register_model
from bounded.models.scripted import ScriptedModel
from bounded.runner import GameSpec, play

HORIZON = 6


def layered_reply(messages, constraint=None):
    reply = state_keeping_reply(messages)
    if not messages[0]["content"].startswith("You run a warehouse"):
        reply["action"]["args"]["shipped"] += 1
    return reply


register_model("layered", lambda rest, **options: ScriptedModel(layered_reply, id="layered"))


@pytest.fixture(autouse=True)
def wide_console(monkeypatch):
    from rich.console import Console

    from bounded.cli import attribute

    monkeypatch.setattr(attribute, "console", Console(width=240))


@pytest.fixture
def archive_path(tmp_path):
    path = tmp_path / "a.sqlite"
    spec = GameSpec(env="warehouse", env_options={"horizon": HORIZON}, contract="state",
                    model="layered", seed=2)  # fmt: skip
    with Archive(path) as archive:
        play(spec, archive=archive)
    return path


def run_cli(args, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    out, err = capsys.readouterr()
    return exit_info.value.code, out, err


def test_cost_first_then_the_table_and_a_resumed_session(archive_path, capsys):
    base = ["attribute", str(archive_path), "--layer", "spec"]
    main([*base, "--dry-run"])
    out = capsys.readouterr().out
    assert f"{HORIZON} decisions in 1 runs x layers spec: {HORIZON} model calls" in out
    main([*base, "--max-calls", "2"])
    out = capsys.readouterr().out
    assert "made 2 model calls" in out and f"{HORIZON - 2} left" in out
    assert "run the same command again to continue" in out
    main(base)
    out = capsys.readouterr().out
    assert f"{HORIZON - 2} still to make" in out and "0 left" in out
    assert "layer attribution" in out and "100.0" in out
    with Archive(archive_path, read_only=True) as archive:
        rows = archive.execute("SELECT changed, original_agrees FROM counterfactuals")
    assert len(rows) == HORIZON and all(tuple(row) == (1, 1) for row in rows)


def test_a_run_that_cannot_be_replayed_is_refused_with_one_line(archive_path, capsys):
    db = sqlite3.connect(archive_path)
    with db:
        db.execute("UPDATE decisions SET kind = 'combat' WHERE idx = 1")
    db.close()
    code, _, err = run_cli(["attribute", str(archive_path), "--layer", "spec"], capsys)
    assert code == 2
    assert err.count("\n") == 1
    assert err.startswith("bounded: error: run ") and "divergence at decision 1" in err


def test_bad_options_are_one_line(archive_path, capsys):
    cases = [
        (["--layer", "spec", "--sample", "0"], "sample"),
        (["--layer", "spec", "--replace", "nolayer"], "LAYER=TEXT"),
        (["--layer", "spec", "--run", "zzz"], "no run"),
        (["--layer", "spec", "--max-calls", "-1"], "--max-calls"),
        ([], "name a layer"),
    ]
    for extra, expected in cases:
        code, _, err = run_cli(["attribute", str(archive_path), *extra], capsys)
        assert code == 2 and err.count("\n") == 1 and expected in err, (extra, err)
