"""A mistake on the command line is one line naming the bad value, exit 2, nothing lost:
an export onto a file, a directory given as an archive, a typo in a sweep's matrix."""

from __future__ import annotations

import textwrap

import pytest

from bounded.archive import Archive
from bounded.cli import main
from bounded.core import RunRecord


def call(capsys, *argv):
    with pytest.raises(SystemExit) as exit_info:
        main([str(arg) for arg in argv])
        raise SystemExit(0)
    out, err = capsys.readouterr()
    return exit_info.value.code, out, err


@pytest.fixture
def archive(tmp_path):
    path = tmp_path / "a.sqlite"
    with Archive(path) as store:
        store.save_run(
            RunRecord(run_id="r" * 32, env_id="bounded/Warehouse-v0", contract="state",
                      model="m", seed=1, status="completed")
        )  # fmt: skip
    return path


@pytest.mark.parametrize("format", ["jsonl", "parquet", "balrog", "summary"])
def test_an_export_onto_a_file_is_one_line_and_the_file_is_kept(capsys, tmp_path, archive, format):
    target = tmp_path / "out.jsonl"
    target.write_text("mine\n")
    code, _, err = call(capsys, "export", archive, "--format", format, "-o", target)
    assert code == 2
    assert err.strip() == (
        f"bounded: error: -o {target}: it is a file; the {format} export writes files into a "
        "directory (give a new or existing directory)"
    )
    assert target.read_text() == "mine\n"


def test_a_summary_export_onto_a_directory_named_json_is_one_line(capsys, tmp_path, archive):
    target = tmp_path / "summary.json"
    target.mkdir()
    code, _, err = call(capsys, "export", archive, "--format", "summary", "-o", target)
    assert code == 2 and "it is a directory" in err and len(err.strip().splitlines()) == 1


def test_an_export_into_a_directory_still_writes(capsys, tmp_path, archive):
    code, _, _ = call(capsys, "export", archive, "-o", tmp_path / "out")
    assert code == 0 and (tmp_path / "out" / "runs.jsonl").is_file()


@pytest.mark.parametrize("command", ["report", "view", "runs", "resume", "analyze", "audit"])
def test_a_directory_given_as_the_archive_is_named_so(capsys, tmp_path, command):
    folder = tmp_path / "adir"
    folder.mkdir()
    argv = [command, "abc123456789", folder] if command == "resume" else [command, folder]
    code, _, err = call(capsys, *argv)
    assert code == 2
    assert err.strip() == f"bounded: error: cannot open archive {folder}: it is a directory"


def matrix_file(tmp_path, presentation):
    path = tmp_path / "m.toml"
    path.write_text(
        textwrap.dedent(
            f"""
            [experiment]
            name = "m"
            archive = "{tmp_path / "m.sqlite"}"

            [defaults]
            env = "babyai"
            env_options = {{ presentation = "{presentation}" }}
            model = "scripted:minimal"
            games = 1

            [matrix]
            level = ["goto", "pickpu"]

            [[cells]]
            tag = "state"
            contract = "state"
            """
        )
    )
    return path


@pytest.mark.parametrize("presentation", ["balrog", "bounded"])
def test_a_matrix_typo_names_the_bad_value_and_its_cell(capsys, tmp_path, presentation):
    code, _, err = call(capsys, "sweep", matrix_file(tmp_path, presentation))
    assert code == 2
    [line] = err.strip().splitlines()
    assert line.startswith("bounded: error: cells.state[level=pickpu]: ")
    assert "'pickpu'" in line and "goto, pickup" in line
    assert not (tmp_path / "m.sqlite").exists()
