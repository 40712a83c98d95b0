"""Bad input never reaches a user as a traceback: each case below runs through
`bounded.cli.main` in-process and must end with one line on stderr, a non-zero exit, and
every archive it names byte-identical (SHA-256 before and after)."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import tempfile
from pathlib import Path

import pytest

from bounded.archive import Archive
from bounded.cli import main
from bounded.contracts import register_contract
from bounded.contracts.state import StateContract
from bounded.core import RunRecord
from bounded.models import register_model
from bounded.models.scripted import ScriptedModel

FOREIGN_COMMANDS = [
    ["runs", "{foreign}"],
    ["analyze", "{foreign}"],
    ["audit", "{foreign}"],
    ["export", "{foreign}", "-o", "{tmp}/out"],
    ["report", "{foreign}", "-o", "{tmp}/r.html"],
    ["view", "{foreign}", "--port", "0"],
    ["craft-table", "{foreign}"],
    ["attribute", "{foreign}", "--layer", "L3"],
    ["run", "warehouse", "--model", "scripted:minimal", "{foreign}"],
    ["demo", "warehouse", "--model", "scripted:minimal", "--horizons", "2", "{foreign}"],
]  # fmt: skip
"""Every command that opens an archive, pointed at another application's database."""

CASES: list[tuple[list[str], str, int]] = [
    (["run", "warehouse", "--model", "scripted:minimal", "--seed", "99999999999999999999",
      "{archive}"], "Invalid value for '--seed'", 2),
    (["run", "warehouse", "--model", "scripted:minimal", "--seed", "-1", "--copt",
      'state_schema={"type": 5}', "{archive}"], "Invalid value for '--seed'", 2),
    (["run", "warehouse", "--model", "scripted:minimal", "--copt", 'state_schema={"type": 5}',
      "{archive}"], "state_schema: not a valid JSON schema", 2),
    (["run", "warehouse", "--model", "scripted:{tmp}/bad.jsonl", "{archive}"],
     "bad.jsonl:2: not a JSON reply", 2),
    (["run", "warehouse", "--model", "scripted:minimal", "--opt", "shelves=-1",
      "{archive}"], "bad options for warehouse: shelves: Input should be greater than", 2),
    (["run", "warehouse", "--model", "scripted:minimal", "--opt", "shelfs=9",
      "{archive}"], "bad options for warehouse: unknown option 'shelfs'", 2),
    (["run", "nethack", "--model", "scripted:minimal", "--opt", "max_steps=0",
      "{archive}"], "max_steps: Input should be greater than or equal to 1", 2),
    (["run", "warehouse", "--mopt", "n_thread=1", "{archive}"],
     "bad options for model 'local'", 2),
    (["run", "warehouse", "--mopt", "n_threads", "{archive}"],
     "option 'n_threads' is not key=value", 2),
    (["run", "workbench", "--model", "scripted:minimal", "--max-turns", "-1",
      "{archive}"], "Invalid value for '--max-turns'", 2),
    (["run", "warehouse", "--model", "scripted:minimal", "--max-tokens", "-1",
      "{archive}"], "Invalid value for '--max-tokens'", 2),
    (["run", "workbench", "--model", "scripted:minimal", "--max-tokens", "0",
      "{archive}"], "Invalid value for '--max-tokens'", 2),
    (["demo", "warehouse", "--model", "scripted:minimal", "--seed", "-5",
      "{archive}"], "Invalid value for '--seed'", 2),
    (["runs", "{archive}", "--limit", "0"], "Invalid value for '--limit'", 2),
    (["runs", "{notes}"], "not an SQLite file; refused, left untouched", 2),
    (["run", "warehouse", "--model", "scripted:minimal", "{notes}"],
     "not an SQLite file; refused, left untouched", 2),
    (["runs", "{tmp}/missing.sqlite"], "no archive at", 2),
    (["sweep", "{tmp}/tiny.toml", "{notes}/x.sqlite"],
     "notes.txt is not a directory", 2),
    (["sweep", "{tmp}/tiny.toml", "{archive}", "--concurrency", "0"],
     "--concurrency must be at least 1, got 0", 2),
    (["sweep", "{tmp}/tiny.toml", "{archive}", "--concurrency", "2",
      "--executor", "ray"], "--concurrency 2 is for the local executor", 2),
    *[(argv, "not a bounded archive (tables: contacts); refused, left untouched", 2)
      for argv in FOREIGN_COMMANDS],
]  # fmt: skip
"""(argv, what stderr's one line holds, exit status). `{archive}` is a bounded archive,
`{foreign}` another application's SQLite database, `{notes}` a text file, `{tmp}` the
test's directory (holding `bad.jsonl`, invalid on line 2, and `tiny.toml`, an experiment)."""

EXPERIMENT = """\
[experiment]
name = "tiny"
archive = "runs/tiny.sqlite"

[defaults]
env = "warehouse"
model = "scripted:minimal"
games = 1

[[cells]]
tag = "state"
contract = "state"
"""


@pytest.fixture(autouse=True)
def error_logs_in_the_test_directory(tmp_path, monkeypatch):
    """Tracebacks of unexpected errors go to the temporary directory: the test's."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fill(part: str, names: dict[str, str]) -> str:
    """`{key}` placeholders filled in (JSON braces in a part are left alone)."""
    for key, value in names.items():
        part = part.replace("{" + key + "}", value)
    return part


def call(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
        raise SystemExit(0)
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    """A bounded archive with a run, another application's database, a text file, an
    invalid replies file and a tiny experiment."""
    archive = tmp_path / "bounded.sqlite"
    run = RunRecord(
        run_id="r1", env_id="bounded/Warehouse-v0", contract="state", model="m", seed=1,
        status="completed",
    )  # fmt: skip
    with Archive(archive) as store:
        store.save_run(run)
    foreign = tmp_path / "contacts.sqlite"
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE contacts (name TEXT)")
        db.execute("INSERT INTO contacts VALUES ('Ada')")
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n" * 40)
    (tmp_path / "bad.jsonl").write_text('{"action": "report"}\nnot json\n')
    (tmp_path / "tiny.toml").write_text(EXPERIMENT)
    return {"archive": archive, "foreign": foreign, "notes": notes, "tmp": tmp_path}


@pytest.mark.parametrize(("argv", "message", "status"), CASES)
def test_bad_input_is_one_line_a_nonzero_exit_and_archives_untouched(
    capsys, files, argv, message, status
):
    names = {key: str(path) for key, path in files.items()}
    before = {key: sha256(files[key]) for key in ("archive", "foreign", "notes")}
    code, _, err = call(capsys, [fill(part, names) for part in argv])
    assert code == status
    assert err.startswith("bounded: error: ") and err.endswith("\n")
    assert len(err.splitlines()) == 1, err
    assert message in err
    assert "Traceback" not in err
    assert {key: sha256(files[key]) for key in before} == before


class Unreachable(ScriptedModel):
    """A model whose every call fails (an endpoint that is down)."""

    def __init__(self, rest: str = "", **options: object) -> None:
        super().__init__(id="unreachable")

    def complete(self, messages, **options):  # type: ignore[override]
        raise ConnectionError("connection refused")


class BrokenMemory(StateContract):
    """A contract with a bug: its third commit raises."""

    def commit(self, obs, decision, result):  # type: ignore[override]
        if obs.t >= 2:
            raise KeyError("lost the state")
        super().commit(obs, decision, result)


def test_a_run_whose_model_is_down_is_one_line_and_closed_as_failed(capsys, tmp_path):
    register_model("test-unreachable", Unreachable)
    archive = tmp_path / "a.sqlite"
    argv = ["run", "warehouse", "--model", "test-unreachable", str(archive)]
    code, _, err = call(capsys, argv)
    assert code != 0 and len(err.splitlines()) == 1
    assert "model failed 3x" in err and "connection refused" in err
    with Archive(archive, read_only=True) as store:
        [run] = store.runs()
    assert run.status == "failed" and run.decisions == 2


def test_model_options_reach_the_models_constructor_and_the_archived_spec(capsys, tmp_path):
    built: list[dict[str, object]] = []

    def remembering(rest: str = "", **options: object) -> ScriptedModel:
        built.append(options)
        return ScriptedModel([{"reasoning": "", "action": {"id": "report"}}], cycle=True)

    register_model("test-remembering", remembering)
    archive = tmp_path / "a.sqlite"
    argv = ["run", "warehouse", "--horizon", "2", "--model", "test-remembering", "--mopt",
            "n_threads=1", "--mopt", "flavour=plain", str(archive)]  # fmt: skip
    code, _, err = call(capsys, argv)
    assert code == 0, err
    assert built and all(options == {"n_threads": 1, "flavour": "plain"} for options in built)
    with Archive(archive, read_only=True) as store:
        [run] = store.runs()
    assert run.spec["model_options"] == {"n_threads": 1, "flavour": "plain"}


def test_a_run_that_fails_on_a_bug_is_one_line_with_its_traceback_in_a_file(capsys, tmp_path):
    register_contract("test-broken-memory", BrokenMemory)
    archive = tmp_path / "a.sqlite"
    argv = ["run", "warehouse", "--contract", "test-broken-memory", "--model",
            "scripted:minimal", str(archive)]  # fmt: skip
    code, _, err = call(capsys, argv)
    assert code == 1 and len(err.splitlines()) == 1
    assert err.startswith("bounded: error: KeyError: 'lost the state' (traceback in ")
    log = Path(err.rsplit("(traceback in ", 1)[1].rstrip(")\n"))
    assert log.parent == tmp_path and "in commit" in log.read_text()
    with Archive(archive, read_only=True) as store:
        [run] = store.runs()
    assert run.status == "failed" and run.decisions == 2
    assert run.error == "KeyError: 'lost the state'"


def test_a_lock_held_by_another_process_is_one_line(capsys, files, monkeypatch):
    monkeypatch.setenv("BOUNDED_LOCK_TIMEOUT", "0.2")
    archive = files["archive"]
    before = sha256(archive)
    holder = sqlite3.connect(archive)
    holder.execute("BEGIN EXCLUSIVE")
    argv = ["run", "warehouse", "--model", "scripted:minimal", "--horizon", "2"]
    try:
        code, _, err = call(capsys, [*argv, str(archive)])
    finally:
        holder.rollback()
        holder.close()
    assert code == 2 and len(err.splitlines()) == 1
    assert "is locked by another process (waited 0.2 s; set BOUNDED_LOCK_TIMEOUT" in err
    assert sha256(archive) == before


def test_a_bad_lock_timeout_is_one_line(capsys, files, monkeypatch):
    monkeypatch.setenv("BOUNDED_LOCK_TIMEOUT", "soon")
    code, _, err = call(capsys, ["runs", str(files["archive"])])
    assert code == 2 and "BOUNDED_LOCK_TIMEOUT must be a number of seconds" in err


def test_read_commands_read_an_archive_without_writing_it(capsys, files):
    archive = files["archive"]
    before = sha256(archive)
    code, out, _ = call(capsys, ["runs", str(archive)])
    assert code == 0 and "r1" in out
    code, out, _ = call(capsys, ["analyze", str(archive), "--json"])
    assert code == 0 and json.loads(out)
    code, _, _ = call(capsys, ["export", str(archive), "-o", str(files["tmp"] / "out")])
    assert code == 0 and (files["tmp"] / "out" / "runs.jsonl").read_text().count("r1") == 1
    assert sha256(archive) == before


def test_runs_lists_an_archive_whose_log_cannot_be_created(capsys, files):
    """A read-only directory, as far as SQLite can tell (a directory where `-wal` goes)."""
    archive = files["archive"]
    Path(f"{archive}-wal").mkdir()
    before = sha256(archive)
    code, out, _ = call(capsys, ["runs", str(archive)])
    assert code == 0 and "r1" in out
    assert sha256(archive) == before
