"""No silent empty bank: a configured bank that is missing or unreadable stops a run and a
dry run with one line and a non-zero exit before anything is played; an episodic run with
no bank at all says so when it starts and in its record."""

from __future__ import annotations

import logging

import pytest

from bounded.archive import Archive
from bounded.cli import main
from bounded.contracts import make_contract
from bounded.core import ConfigError
from bounded.runner import GameSpec, play


def call(capsys, *argv):
    with pytest.raises(SystemExit) as exit_info:
        main(list(argv))
        raise SystemExit(0)
    out, err = capsys.readouterr()
    return exit_info.value.code, out, err


def test_a_missing_configured_bank_fails_the_run_with_one_line_and_nothing_written(
    capsys, tmp_path
) -> None:
    archive = tmp_path / "runs.sqlite"
    missing = tmp_path / "nowhere.npz"
    code, _, err = call(
        capsys, "run", "craft", "--contract", "episodic", "--model", "none",
        "--copt", f"bank={missing}", str(archive),
    )  # fmt: skip
    assert code != 0
    assert err.strip().count("\n") == 0
    assert f"episodic bank not found: {missing}" in err
    assert not archive.exists()


def test_an_unreadable_bank_is_refused_when_the_contract_is_built(tmp_path) -> None:
    broken = tmp_path / "broken.npz"
    broken.write_bytes(b"not a bank")
    with pytest.raises(ConfigError, match="unreadable episodic bank"):
        make_contract("episodic", {"bank": str(broken)})


def test_the_dry_run_checks_every_bank_an_experiment_names(capsys, tmp_path) -> None:
    missing = tmp_path / "banks" / "craft.npz"
    archive = tmp_path / "exp.sqlite"
    (tmp_path / "exp.toml").write_text(
        f'[experiment]\nname = "banked"\narchive = "{archive}"\n'
        '[defaults]\nenv = "craft"\nmodel = "none"\n'
        "[matrix]\nlevel = [5, 6]\n"
        f'[defaults.contract_config]\nbank = "{missing}"\n'
        '[[cells]]\ntag = "episodic"\ncontract = "episodic-no-exploration"\n'
        '[[cells]]\ntag = "summary"\ncontract = "summary"\ncontract_config = {}\n'
    )
    code, out, _ = call(capsys, "sweep", str(tmp_path / "exp.toml"), "--dry-run")
    assert code == 1
    problems = [line for line in out.splitlines() if line.startswith("problem:")]
    assert problems == [f"problem: cells.episodic: episodic bank not found: {missing}"]
    with Archive(archive) as store:
        assert store.runs() == []


def test_a_run_without_any_bank_says_so_at_start_and_in_its_record(
    tmp_path, monkeypatch, caplog
) -> None:
    monkeypatch.setenv("BOUNDED_BANK_DIR", str(tmp_path / "no-banks"))
    spec = GameSpec(env="craft", contract="episodic-no-exploration", model="none", max_decisions=4)
    with caplog.at_level(logging.WARNING, logger="bounded.contracts.episodic"):
        run = play(spec)
    assert run.status == "completed"
    [warning] = [r.getMessage() for r in caplog.records]
    assert "no episodic bank" in warning and str(tmp_path / "no-banks") in warning
    assert "no episodic bank" in run.postrun["note"]
