"""The archive is given the same way to every command: its last argument, ARCHIVE,
`runs/bounded.sqlite` where left out (a sweep's: its file's); the `--archive` of the
commands that took it so still works, with a one-line note."""

from __future__ import annotations

import pytest
import typer

from bounded.archive import Archive
from bounded.cli import app, main

ARCHIVE_COMMANDS = (
    "run", "runs", "resume", "demo", "sweep", "plan", "analyze", "craft-table",
    "recovery-table", "table", "import", "audit", "report", "view", "export", "ladder",
    "attribute",
)  # fmt: skip
"""Every command that reads or writes an archive."""

DEPRECATED = ("run", "runs", "resume", "demo", "sweep", "plan", "import", "ladder")
"""The commands that took `--archive` before the argument."""


def usage(name: str) -> str:
    command = typer.main.get_command(app).commands[name]  # type: ignore[attr-defined]
    ctx = command.make_context(name, ["--help"], resilient_parsing=True)
    return str(command.get_usage(ctx))


@pytest.mark.parametrize("name", ARCHIVE_COMMANDS)
def test_each_command_takes_the_archive_as_its_last_argument(name):
    assert usage(name).rstrip().endswith("[ARCHIVE]"), usage(name)


@pytest.mark.parametrize("name", DEPRECATED)
def test_the_old_option_is_still_taken(name):
    command = typer.main.get_command(app).commands[name]  # type: ignore[attr-defined]
    assert any("--archive" in param.opts for param in command.params)


def call(capsys, *argv):
    with pytest.raises(SystemExit) as exit_info:
        main(list(argv))
        raise SystemExit(0)
    out, err = capsys.readouterr()
    return exit_info.value.code, out, err


def test_the_archive_defaults_to_runs_bounded_sqlite(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, _ = call(capsys, "run", "warehouse", "--model", "scripted:minimal", "--horizon", "2")
    assert code == 0
    with Archive(tmp_path / "runs" / "bounded.sqlite", read_only=True) as archive:
        assert len(archive.runs()) == 1
    code, out, _ = call(capsys, "analyze")
    assert code == 0 and "state" in out


def test_the_deprecated_option_works_and_says_so_once(capsys, tmp_path):
    archive = tmp_path / "a.sqlite"
    code, _, err = call(
        capsys, "run", "warehouse", "--model", "scripted:minimal", "--horizon", "2",
        "--archive", str(archive),
    )  # fmt: skip
    assert code == 0 and archive.is_file()
    notes = [line for line in err.splitlines() if "--archive" in line]
    assert notes == [
        "bounded: note: --archive is deprecated; give the archive as the command's ARCHIVE argument"
    ]
    code, _, err = call(capsys, "runs", str(archive))
    assert code == 0 and "--archive" not in err


def test_a_sweep_continues_with_the_archive_as_its_argument(tmp_path):
    from bounded.cli.sweep import sweep_command

    line = sweep_command(tmp_path / "e.toml", archive=tmp_path / "a b.sqlite", workers=2,
                         executor="local")  # fmt: skip
    assert line == f"bounded sweep {tmp_path}/e.toml '{tmp_path}/a b.sqlite' --workers 2"
