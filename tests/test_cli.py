import json
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest

from bounded.archive import Archive
from bounded.cli import main


def call(capsys, *argv):
    with pytest.raises(SystemExit) as exit_info:
        main(list(argv))
        raise SystemExit(0)
    out, err = capsys.readouterr()
    return exit_info.value.code, out, err


@pytest.fixture
def replies(tmp_path):
    path = tmp_path / "replies.jsonl"
    reply = {
        "reasoning": "",
        "state_patch": {},
        "action": {"id": "report", "args": {"occupied": 0, "shipped": 0}},
    }
    path.write_text(json.dumps(reply) + "\n")
    return path


def test_run_prints_a_summary_and_archives_the_run(capsys, tmp_path, replies):
    archive = tmp_path / "runs.sqlite"
    code, out, _ = call(
        capsys, "run", "warehouse", "--contract", "state", "--model", f"scripted:{replies}",
        "--horizon", "4", "--seed", "2", str(archive),
    )  # fmt: skip
    assert code == 0
    for label in ("accuracy", "total prompt tokens", "last-step prompt tokens", "wall time"):
        assert label in out
    with Archive(archive) as store:
        [run] = store.runs()
    assert run.decisions == 4 and run.tag == "state" and run.seed == 2
    code, out, _ = call(capsys, "runs", str(archive))
    assert code == 0 and run.run_id[:12] in out


def test_runs_and_resume_take_the_archive_as_an_argument_like_the_other_commands(capsys, tmp_path):
    archive = tmp_path / "runs.sqlite"
    code, _, _ = call(
        capsys, "run", "warehouse", "--model", "scripted:minimal", "--horizon", "3",
        str(archive),
    )  # fmt: skip
    with Archive(archive) as store:
        [run] = store.runs()
    code, out, _ = call(capsys, "runs", str(archive))
    assert code == 0 and run.run_id[:12] in out
    code, _, err = call(capsys, "runs", str(archive), "--archive", str(tmp_path / "other.sqlite"))
    assert code == 2 and "two archives given" in err
    code, _, err = call(capsys, "resume", run.run_id[:8], str(archive))
    assert code == 2 and "cannot be resumed: it is completed" in err


def test_run_takes_the_temperature_and_a_decision_limit(capsys, tmp_path):
    archive = tmp_path / "runs.sqlite"
    code, _, _ = call(
        capsys, "run", "warehouse", "--model", "scripted:minimal", "--horizon", "20",
        "--temperature", "0.7", "--max-decisions", "5", str(archive),
    )  # fmt: skip
    assert code == 0
    with Archive(archive) as store:
        [run] = store.runs()
    assert run.decisions == 5 and run.model_params["temperature"] == 0.7
    assert run.spec["max_decisions"] == 5


def test_a_run_summary_names_the_preset_and_sets_the_game_beside_a_transcript(capsys, tmp_path):
    archive = tmp_path / "runs.sqlite"
    code, out, _ = call(
        capsys, "run", "spire", "--contract", "mode-a", "--model", "scripted:minimal",
        "--opt", "acts=1", "--seed", "3", str(archive),
    )  # fmt: skip
    assert code == 0
    with Archive(archive) as store:
        [run] = store.runs()
        decisions = store.decisions(run.run_id)
    text = " ".join(out.replace("│", " ").split())
    assert "mode-a (typed)" in text
    assert f"fallback actions {sum(d.fallback for d in decisions)}" in text
    assert "parse errors" in text and "L1" in text and "L2" in text
    assert "a transcript would have sent" in text and "served from the cache" in text
    assert "its cost under prefix caching" in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "moon"], "unknown environment 'moon'"),
        (["run", "warehouse", "--contract", "vibes"], "unknown contract 'vibes'"),
        (["run", "warehouse", "--model", "gpt"], "unknown model 'gpt'"),
        (["run", "warehouse", "--horizon", "0"], "bad options for warehouse"),
        (["run", "warehouse", "--opt", "nonsense"], "is not key=value"),
        (["run", "warehouse", "--seed", "many"], "Invalid value for '--seed'"),
        (["demo", "warehouse", "--horizons", "5,ten"], "--horizons must be integers"),
        (["launch"], "No such command 'launch'"),
    ],
)
def test_bad_arguments_get_one_line_and_a_nonzero_exit(capsys, tmp_path, argv, message):
    code, _, err = call(capsys, *argv, *([str(tmp_path / "a.sqlite")] if argv[0] == "run" else []))
    assert code != 0
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "a.sqlite").exists() or argv[1] == "warehouse"


def test_a_broken_archive_is_reported_and_left_intact(capsys, tmp_path, replies):
    archive = tmp_path / "broken.sqlite"
    archive.write_bytes(b"not sqlite at all" * 100)
    code, _, err = call(capsys, "runs", str(archive))
    assert code == 2 and "cannot open archive" in err
    code, _, err = call(capsys, "run", "warehouse", "--model", f"scripted:{replies}", str(archive))
    assert code == 2 and "cannot open archive" in err
    assert archive.read_bytes() == b"not sqlite at all" * 100


def test_listing_a_missing_archive_is_an_error(capsys, tmp_path):
    code, _, err = call(capsys, "runs", str(tmp_path / "none.sqlite"))
    assert code == 2 and "no archive" in err


def test_workbench_runs_each_task_and_prints_the_suite_table(capsys, tmp_path):
    replies = tmp_path / "finish.jsonl"
    replies.write_text(json.dumps({"actions": [{"id": "finish", "args": {"answer": "0"}}]}))
    archive = tmp_path / "runs.sqlite"
    code, out, _ = call(
        capsys, "run", "workbench", "--task", "count_files,report_date", "--model",
        f"scripted:{replies}", str(archive),
    )  # fmt: skip
    assert code == 0
    assert "count_files" in out and "report_date" in out and "0/2" in out
    with Archive(archive) as store:
        assert sorted(r.status for r in store.runs()) == ["completed", "completed"]


def test_workbench_runs_unchanged_against_an_openai_compatible_server(
    capsys, tmp_path, llama_server
):
    archive = tmp_path / "runs.sqlite"
    code, out, err = call(
        capsys, "run", "workbench", "--task", "report_date", "--model", "openai:smollm2",
        "--base-url", llama_server, "--max-turns", "1", "--max-tokens", "96",
        "--tag", "served", "--seed", "3", str(archive),
    )  # fmt: skip
    assert code == 0, err
    assert "report_date" in out and "/1" in out
    with Archive(archive) as store:
        [run] = store.runs()
        [decision] = store.decisions(run.run_id)
    assert (run.model, run.tag, run.seed) == ("openai:smollm2", "served", 3)
    assert run.status == "completed"
    assert run.model_params["max_tokens"] == 96
    assert decision.completion is not None and decision.completion.prompt_tokens > 0


def test_workbench_options_are_refused_elsewhere_and_tasks_checked(capsys, tmp_path):
    code, _, err = call(capsys, "run", "warehouse", "--task", "x")
    assert code == 2 and "workbench options" in err
    code, _, err = call(capsys, "run", "workbench", "--task", "nope", "--model", "scripted:x")
    assert code == 2 and "unknown workbench task 'nope'" in err
    code, _, err = call(
        capsys, "run", "workbench", "--task", "report_date", "--copt", "nope=1", "--model", "x"
    )
    assert code == 2 and "nope: Extra inputs are not permitted" in err


def test_a_terminated_run_is_closed_as_failed_with_the_signal_named(tmp_path, replies):
    archive = tmp_path / "runs.sqlite"
    argv = [
        sys.executable, "-m", "bounded.cli", "run", "warehouse", "--contract", "state",
        "--model", f"scripted:{replies}", "--horizon", "100000", str(archive),
    ]  # fmt: skip
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_decisions(archive, process)
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 130 and "bounded: interrupted" in err
    with Archive(archive) as store:
        [run] = store.runs()
    assert run.status == "failed" and "SIGTERM" in (run.error or "")
    assert 0 < run.decisions < 100_000


def wait_for_decisions(archive, process, timeout_s=60.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and process.poll() is None:
        if archive.exists():
            with Archive(archive) as store:
                if any(run.decisions for run in store.runs()):
                    return
        time.sleep(0.05)
    raise AssertionError(f"no decision archived (exit {process.poll()})")


def test_one_environment_is_one_id_whichever_command_made_the_run(capsys, tmp_path, replies):
    archive = tmp_path / "mixed.sqlite"
    for name in ("warehouse", "bounded/Warehouse-v0"):
        code, _, err = call(
            capsys, "run", name, "--contract", "state", "--model", f"scripted:{replies}",
            "--horizon", "3", str(archive), "--tag", "state",
        )  # fmt: skip
        assert code == 0, err
    (tmp_path / "exp.toml").write_text(
        f'[experiment]\nname = "mixed"\narchive = "{archive}"\n'
        f'[defaults]\nenv = "warehouse"\nmodel = "scripted:{replies}"\n'
        'env_options = { horizon = 3 }\n[[cells]]\ntag = "state"\ncontract = "state"\n'
    )
    code, _, err = call(capsys, "sweep", str(tmp_path / "exp.toml"))
    assert code == 0, err
    code, out, _ = call(capsys, "analyze", str(archive), "--by", "env_id", "--json")
    assert code == 0
    [row] = json.loads(out)["rows"]
    assert (row["label"], row["games"]) == ("state / bounded/Warehouse-v0", 3)


def test_craft_table_counts_runs_of_older_short_ids_with_the_sweeps(capsys, tmp_path):
    """An archive of format 2 whose `bounded run` row names the environment `craft`: converted
    when opened, that run counts with the sweep's `bounded/Craft-v0` one."""
    archive = tmp_path / "craft.sqlite"
    shutil.copyfile(Path(__file__).parent / "data" / "archive_format2.sqlite", archive)
    outcome = {"victory": True, "level": 5, "pbr": 0.5, "rur": 1.0, "apu": 0.5, "tr": 1}
    with closing(sqlite3.connect(archive)) as db, db:
        columns = [row[1] for row in db.execute("PRAGMA table_info(runs)")]
        template = dict(
            zip(columns, db.execute("SELECT * FROM runs LIMIT 1").fetchone(), strict=True)
        )
        for run_id, env_id in (("old", "craft"), ("new", "bounded/Craft-v0")):
            row = {
                **template, "run_id": run_id, "env_id": env_id, "contract": "summary",
                "tag": "summary", "cell": "", "status": "completed",
                "outcome": json.dumps(outcome), "decisions": 0,
            }  # fmt: skip
            db.execute(
                f"INSERT INTO runs ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
                list(row.values()),
            )
    code, out, _ = call(capsys, "craft-table", str(archive))
    assert code == 0
    [row] = [line for line in out.splitlines() if line.startswith("| summary")]
    assert row.split("|")[3].strip() == "2"  # games: the old `bounded run` row included
