"""A rerun of a changed file is refused: a game's identity is its whole spec."""

import hashlib
import json
import textwrap

import pytest

from bounded.archive import Archive
from bounded.cli import main
from bounded.runner.identity import differences, identity_fields, identity_hash
from bounded.runner.spec import GameSpec
from bounded.sweeps.experiment import load_experiment

REPLY = {"reasoning": "", "action": {"id": "report", "args": {"occupied": 0, "shipped": 0}}}

BASE = {
    "contract": "state",
    "model": "scripted:replies.jsonl",
    "horizon": 4,
    "seeds": "games = 2",
    "extra": "",
}


def write(tmp_path, **changes):
    settings = {**BASE, **changes}
    for name in ("replies.jsonl", "other.jsonl"):
        (tmp_path / name).write_text(json.dumps(REPLY) + "\n")
    path = tmp_path / "exp.toml"
    path.write_text(
        textwrap.dedent(
            f"""
            [experiment]
            name = "ident"
            archive = "{tmp_path / "a.sqlite"}"

            [defaults]
            env = "warehouse"
            env_options = {{ horizon = 4 }}

            [[cells]]
            tag = "main"
            env_options = {{ horizon = {settings["horizon"]} }}
            contract = "{settings["contract"]}"
            model = "{settings["model"]}"
            {settings["seeds"]}
            {settings["extra"]}

            [[cells]]
            tag = "other"
            contract = "transcript"
            model = "scripted:replies.jsonl"
            games = 1
            """
        )
    )
    return path


def sweep(capsys, *args):
    """The `bounded sweep` command's exit status and output (rich's wrapping undone)."""
    try:
        main(["sweep", *map(str, args)])
        status = 0
    except SystemExit as exit_info:
        status = exit_info.code
    captured = capsys.readouterr()
    err = captured.err.splitlines()
    return status, "\n".join([" ".join(captured.out.split()), *err])


def archive_bytes(tmp_path):
    """The archive's files (main file, lock, a write-ahead log with content), hashed: a
    read-only open may leave SQLite's empty `-wal` and its `-shm` index, which hold nothing."""
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(tmp_path.iterdir())
        if p.name.startswith("a.sqlite")
        and not p.name.endswith("-shm")
        and not (p.name.endswith("-wal") and p.stat().st_size == 0)
    }


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"contract": "transcript"}, "contract ('state' -> 'transcript')"),
        ({"horizon": 5}, "env_options.horizon (4 -> 5)"),
        ({"model": "scripted:other.jsonl"}, "model ("),
        ({"seeds": "games = 2\nfirst_seed = 5"}, "seeds (archived 1, 2 not planned"),
        (
            {"extra": "contract_config = { max_state_chars = 900 }"},
            "contract_config.max_state_chars",
        ),
    ],
)
def test_a_rerun_of_a_changed_cell_is_refused_naming_the_field(tmp_path, capsys, change, field):
    path = write(tmp_path)
    status, _ = sweep(capsys, path)
    assert status == 0
    before = archive_bytes(tmp_path)
    write(tmp_path, **change)
    status, output = sweep(capsys, path)
    assert status == 2, output
    lines = [line for line in output.splitlines() if line.startswith("bounded: error:")]
    assert len(lines) == 1, output  # one line for the changed cell, none for the other
    assert lines[0].startswith("bounded: error: cells.main: ") and field in lines[0], lines
    assert "new tag" in lines[0] and "new archive" in lines[0]
    assert archive_bytes(tmp_path) == before
    status, output = sweep(capsys, path, "--dry-run")
    assert status == 1 and field in output
    assert archive_bytes(tmp_path) == before


def test_growing_a_seed_range_plays_the_new_seeds_only(tmp_path, capsys):
    path = write(tmp_path)
    sweep(capsys, path)
    write(tmp_path, seeds="games = 3")
    status, output = sweep(capsys, path)
    assert status == 0, output
    assert "4/4 games completed (3 already done, 1 played now" in output


def test_retry_settings_are_not_part_of_a_game(tmp_path, capsys):
    path = write(tmp_path)
    sweep(capsys, path)
    write(tmp_path, extra="model_options = { retry = { attempts = 5 } }")
    status, output = sweep(capsys, path)
    assert status == 0, output
    assert "(3 already done, 0 played now" in output


def test_a_bad_setting_in_a_completed_cell_is_refused_and_writes_nothing(tmp_path, capsys):
    path = write(tmp_path)
    sweep(capsys, path)
    before = archive_bytes(tmp_path)
    bad = ({"contract": "stat"}, {"horizon": "'x'"}, {"extra": "contract_config = { nope = 1 }"})
    for change in bad:
        write(tmp_path, **change)
        status, output = sweep(capsys, path)
        assert status == 2, output
        assert "cells.main" in output
        status, output = sweep(capsys, path, "--dry-run")
        assert status == 1 and "problem: cells.main" in output
        assert archive_bytes(tmp_path) == before


def test_a_refused_file_and_a_dry_run_leave_no_archive_and_no_lock(tmp_path, capsys):
    path = write(tmp_path, contract="stat")
    assert sweep(capsys, path)[0] == 2
    assert sweep(capsys, path, "--dry-run")[0] == 1
    path = write(tmp_path)
    status, output = sweep(capsys, path, "--dry-run")
    assert status == 0 and "3 planned, 3 to play" in output, output
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith("a.sqlite")]


def test_every_archived_game_carries_its_identity(tmp_path, capsys):
    path = write(tmp_path)
    sweep(capsys, path)
    plan = {spec.key: spec for spec in load_experiment(path).plan()}
    with Archive(tmp_path / "a.sqlite", read_only=True) as archive:
        runs = archive.runs(experiment="ident")
    assert len(runs) == 3
    for run in runs:
        spec = plan[(run.experiment, run.cell, run.seed)]
        assert set(run.inputs) >= {"env_version", "contract_config_hash"}
        assert run.identity == identity_hash(spec, run.inputs)
        assert differences(spec, run.inputs, run) == {}


def test_identity_fields_flatten_options_and_leave_retry_out():
    spec = GameSpec(
        env="warehouse",
        env_options={"horizon": 3},
        model_options={"retry": {"attempts": 2}, "n_ctx": 512},
    )
    fields = identity_fields(spec)
    assert fields["env_options.horizon"] == 3 and fields["model_options.n_ctx"] == 512
    assert not any(name.startswith("model_options.retry") for name in fields)
    again = spec.model_copy(update={"model_options": {"n_ctx": 512}})
    assert identity_hash(spec, {}) == identity_hash(again, {})
    assert identity_hash(spec, {}) != identity_hash(spec, {"store:dir": "x"})


@pytest.mark.parametrize("contract", ["summary", "episodic"])
def test_a_rerun_of_a_cell_whose_contract_fills_in_settings_skips_its_games(
    tmp_path, capsys, monkeypatch, contract
):
    """EpicStar's and CoS's games run at the paper's temperature when their cell sets none,
    and their archived spec says so: the planned game is compared as it is played."""
    monkeypatch.setenv("BOUNDED_BANK_DIR", str(tmp_path / "banks"))
    path = write(tmp_path, contract=contract, model="scripted:minimal")
    assert sweep(capsys, path)[0] == 0
    with Archive(tmp_path / "a.sqlite") as archive:
        (played,) = {r.spec["temperature"] for r in archive.runs() if r.cell == "main"}
    assert played == 0.1  # the paper's, filled in
    before = archive_bytes(tmp_path)
    status, output = sweep(capsys, path)
    assert status == 0, output
    assert "3/3 games completed (3 already done, 0 played now" in output, output
    assert archive_bytes(tmp_path) == before
