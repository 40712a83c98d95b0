"""`bounded resume`: a run killed with SIGKILL and resumed equals one never killed."""

import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from bounded.archive import Archive
from bounded.archive.progress import checkpoints
from bounded.cli import main
from bounded.contracts.base import ContractBase
from bounded.core import Decision, Prompt
from bounded.runner.build import play
from bounded.runner.resume import close_stale, health, resume_run
from bounded.runner.resumption import ResumeError
from bounded.runner.spec import GameSpec

CONTRACTS = ("state", "transcript", "summary", "episodic", "typed", "rag", "reflexion", "paged")
ENVS = {"spire": {"acts": 1}, "warehouse": {"horizon": 12}}

PLAYER = textwrap.dedent(
    """
    import os, signal, sys
    from bounded.archive import Archive
    from bounded.models.scripted import schema_filler
    from bounded.runner.build import build_game, runner_for
    from bounded.runner.spec import GameSpec

    spec = GameSpec.model_validate_json(sys.argv[1])
    archive, kill_at, where = sys.argv[2], int(sys.argv[3]), sys.argv[4]
    model = schema_filler()
    answer = model.complete

    def complete(*args, **kwargs):
        if where == "mid-decision" and len(model.calls) + 1 >= kill_at:
            os.kill(os.getpid(), signal.SIGKILL)  # inside the model call, nothing committed
        return answer(*args, **kwargs)

    def observer(record, obs):
        if where == "boundary" and record.index + 1 >= kill_at:
            os.kill(os.getpid(), signal.SIGKILL)  # just after a decision was committed

    model.complete = complete
    game = build_game(spec, model=model)
    with Archive(archive) as store:
        runner_for(game, archive=store, observer=observer).execute()
    """
)


def spec_for(env, contract):
    return GameSpec(env=env, env_options=ENVS[env], contract=contract, model="scripted:minimal")


def killed_run(tmp_path, spec, kill_at, where):
    """Play `spec` in a subprocess SIGKILLed at decision (or model call) `kill_at`."""
    archive = tmp_path / "killed.sqlite"
    script = tmp_path / "player.py"
    script.write_text(PLAYER)
    process = subprocess.run(
        [sys.executable, str(script), spec.model_dump_json(), str(archive), str(kill_at), where],
        capture_output=True,
        timeout=120,
    )
    assert process.returncode == -signal.SIGKILL, process.stderr.decode()[-2000:]
    return archive


TIMINGS = ("retrieval_s",)
"""Wall-clock timings a contract records on its decisions (`rag`'s retrieval time)."""


def comparable(record):
    """A decision without its timings (the only thing a resume may change)."""
    data = record.model_dump(exclude={"latency_s"})
    if data["completion"]:
        data["completion"].pop("latency_s")
    for call in data["extra_completions"]:
        call.pop("latency_s")
    for timing in TIMINGS:
        data["info"].pop(timing, None)
    return data


def kill_point(decisions):
    """A decision a third of the way in or later that asks the model, in the middle of a
    fight when there is one (where the most memory is in play: the combat container)."""
    start = len(decisions) // 3
    asking = [r.index for r in decisions[start:] if r.completion is not None]
    in_fight = [i for i in asking if decisions[i - 1].kind == decisions[i].kind == "combat"]
    return (in_fight or asking)[0]


RUN_FIELDS = (
    "status", "outcome", "decisions", "model_calls", "prompt_tokens", "completion_tokens",
    "last_prompt_tokens", "store_hashes", "postrun", "usage", "spec", "contract_config",
)  # fmt: skip


@pytest.mark.parametrize("env", sorted(ENVS))
@pytest.mark.parametrize("contract", CONTRACTS)
def test_a_killed_run_resumed_is_identical_to_one_never_killed(
    tmp_path, monkeypatch, env, contract
):
    monkeypatch.setenv("BOUNDED_BANK_DIR", str(tmp_path / "banks"))
    where = "boundary" if CONTRACTS.index(contract) % 2 else "mid-decision"
    assert_resumed_identical(tmp_path, spec_for(env, contract), where)


@pytest.mark.parametrize("contract", ["state", "transcript"])
def test_a_perturbation_after_the_kill_comes_at_the_same_decision_when_resumed(tmp_path, contract):
    """State recovery's schedule (`perturb_at`) counts decisions across a resume."""
    spec = spec_for("warehouse", contract).model_copy(
        update={"contract_config": {"perturb_at": 9, "perturb": "corrupt"}}
    )
    assert_resumed_identical(tmp_path, spec, "boundary")


def assert_resumed_identical(tmp_path, spec, where, after_kill=None):
    """`after_kill(archive, run_id)` looks at (or rewrites) the killed run's archive."""
    with Archive(tmp_path / "whole.sqlite") as archive:
        whole = play(spec, archive=archive)
        expected = archive.decisions(whole.run_id)
    assert whole.status == "completed" and whole.decisions > 6
    target = kill_point(expected)
    calls_before = sum(r.completion is not None for r in expected[:target])
    kill_at = target if where == "boundary" else calls_before + 1
    archive_path = killed_run(tmp_path, spec, kill_at, where)
    with Archive(archive_path) as archive:
        (killed,) = archive.runs()
        point = checkpoints(archive)[killed.run_id]
        assert killed.status == "running" and 0 < killed.decisions < whole.decisions
        assert point.decisions == killed.decisions == len(archive.decisions(killed.run_id))
        (found,) = health(archive, [killed])
        assert found.stale and found.resumable
        if after_kill is not None:
            after_kill(archive, killed.run_id)
    resumed = resume_run(archive_path, killed.run_id[:10])
    assert resumed.run_id == killed.run_id
    for field in RUN_FIELDS:
        assert getattr(resumed, field) == getattr(whole, field), field
    with Archive(archive_path) as archive:
        got = archive.decisions(killed.run_id)
        assert checkpoints(archive) == {}  # a completed run keeps no checkpoint
    assert [comparable(r) for r in got] == [
        comparable(r.model_copy(update={"run_id": killed.run_id})) for r in expected
    ]


SLIDING = {"memory_interval": 2, "memory_depth": 3}
"""EpicStar's working memory over the latest 6 decisions: it slides within a short game."""


def episodic_sliding():
    return GameSpec(
        env="warehouse", env_options={"horizon": 30}, contract="episodic",
        contract_config=SLIDING, model="scripted:minimal",
    )  # fmt: skip


def check_slid(archive, run_id):
    """The killed run's history is a window that has slid, stored as its 6 rows."""
    point = checkpoints(archive)[run_id]
    window = point.memory["history"]
    assert window["start"] == point.decisions - 6 > 0 and len(window["items"]) == 6
    rows = archive.execute("SELECT pos FROM checkpoint_logs WHERE run_id = ?", (run_id,))
    assert sorted(row["pos"] for row in rows) == list(range(window["start"], point.decisions))


def whole_history_checkpoint(archive, run_id):
    """Rewrite the killed run's checkpoint as a bounded without history windows wrote it:
    the history a list inside the memory, no logs."""
    check_slid(archive, run_id)
    memory = checkpoints(archive)[run_id].memory
    memory["history"] = memory["history"]["items"]
    with archive.transaction() as db:
        db.execute("DELETE FROM checkpoint_logs WHERE run_id = ?", (run_id,))
        db.execute(
            "UPDATE checkpoints SET memory = ?, logs = '{}' WHERE run_id = ?",
            (json.dumps(memory, sort_keys=True), run_id),
        )
    assert checkpoints(archive)[run_id].memory == memory


@pytest.mark.parametrize("where", ["boundary", "mid-decision"])
def test_an_episodic_run_killed_after_its_working_memory_slid_resumes_identically(
    tmp_path, monkeypatch, where
):
    monkeypatch.setenv("BOUNDED_BANK_DIR", str(tmp_path / "banks"))
    assert_resumed_identical(tmp_path, episodic_sliding(), where, after_kill=check_slid)


def test_an_episodic_checkpoint_holding_its_whole_history_still_resumes(tmp_path, monkeypatch):
    monkeypatch.setenv("BOUNDED_BANK_DIR", str(tmp_path / "banks"))
    spec = episodic_sliding()
    assert_resumed_identical(tmp_path, spec, "boundary", after_kill=whole_history_checkpoint)


class Forgetful(ContractBase):
    """A contract without the snapshot hook."""

    name = "forgetful"

    def reset(self, episode):
        pass

    def assemble(self, obs):
        return Prompt().add("spec", "user", obs.text)

    def reply_schema(self, obs):
        return {"type": "object"}

    def parse(self, completion, obs):
        return Decision(actions=obs.legal[:1])

    def commit(self, obs, decision, result):
        pass

    def config_dict(self):
        return {}


def test_a_run_of_a_contract_without_the_hook_is_refused_in_one_line(tmp_path, capsys):
    archive_path = tmp_path / "a.sqlite"
    spec = GameSpec(env="warehouse", env_options={"horizon": 4}, contract="state")
    with Archive(archive_path) as archive:
        run = play(spec, archive=archive, contract=Forgetful(), model=_filler())
        archive.save_run(run.model_copy(update={"status": "running"}))
        _fake_checkpoint(archive, run.run_id, memory=None, decisions=run.decisions)
        (found,) = health(archive, archive.runs())
        assert found.stale and found.blocker == "contract 'forgetful' saves no memory snapshot"
    with pytest.raises(ResumeError, match="saves no memory snapshot"):
        resume_run(archive_path, run.run_id)
    with pytest.raises(SystemExit) as exit_info:
        main(["resume", run.run_id[:8], str(archive_path)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("bounded: error: run ") and "\n" not in err


def test_a_run_whose_owner_lives_is_not_stale_and_not_resumed(tmp_path):
    archive_path = tmp_path / "a.sqlite"
    with Archive(archive_path) as archive:
        run = play(spec_for("warehouse", "state"), archive=archive)
        archive.save_run(run.model_copy(update={"status": "running"}))
        _fake_checkpoint(archive, run.run_id, memory={}, decisions=run.decisions, alive=True)
        (found,) = health(archive, archive.runs())
        assert not found.stale
        assert close_stale(archive, resumable_too=True) == []
    with pytest.raises(ResumeError, match="still being played"):
        resume_run(archive_path, run.run_id)


def test_runs_shows_stale_runs_and_close_stale_closes_only_the_unresumable(tmp_path, capsys):
    archive_path = tmp_path / "a.sqlite"
    spec = spec_for("warehouse", "state")
    with Archive(archive_path) as archive:
        done = play(spec, archive=archive)
    resumable = killed_run(tmp_path, spec, 3, "boundary")  # a separate archive: merge below
    with Archive(resumable) as source, Archive(archive_path) as archive:
        (killed,) = source.runs()
        archive.save_run(killed)
        for record in source.decisions(killed.run_id):
            archive.add_decision(record)
        with archive.transaction() as db:
            from bounded.archive.progress import write_checkpoint

            write_checkpoint(db, checkpoints(source)[killed.run_id])
        orphan = done.model_copy(update={"run_id": "f" * 32, "status": "running"})
        archive.save_run(orphan)  # no checkpoint: an older bounded's killed run
    main(["runs", str(archive_path)])
    out = " ".join(capsys.readouterr().out.split())
    assert "2 stale runs (1 resumable)" in out and out.count("stale") >= 3
    main(["runs", str(archive_path), "--close-stale"])
    with Archive(archive_path) as archive:
        assert archive.run(killed.run_id).status == "running"
        closed = archive.run(orphan.run_id)
        assert closed.status == "failed" and closed.error.startswith("stale: no owner")
    resumed = resume_run(archive_path, killed.run_id)
    assert resumed.status == "completed" and resumed.decisions == done.decisions


def _filler():
    from bounded.models.scripted import schema_filler

    return schema_filler()


def _fake_checkpoint(archive, run_id, *, memory, decisions, alive=False):
    """A checkpoint owned by this process, or (`alive=False`) by a process that is gone (this
    pid with another start time)."""
    from bounded.archive.progress import Checkpoint, this_owner, write_checkpoint

    owner = this_owner() if alive else this_owner().rsplit(":", 1)[0] + ":0"
    with archive.transaction() as db:
        write_checkpoint(db, Checkpoint(run_id, owner, decisions, memory))


def test_killed_process_owner_is_seen_dead(tmp_path):
    from bounded.archive.progress import owner_alive, this_owner

    child = subprocess.Popen(
        [sys.executable, "-c", "from bounded.archive.progress import this_owner; "
         "print(this_owner(), flush=True); import time; time.sleep(60)"],
        stdout=subprocess.PIPE, text=True, env={**os.environ},
    )  # fmt: skip
    owner = child.stdout.readline().strip()
    assert owner_alive(owner) is True and owner_alive(this_owner()) is True
    child.kill()
    child.wait()
    assert owner_alive(owner) is False
    assert owner_alive("elsewhere:1:2") is None


def decisions_in(archive_path):
    import sqlite3

    if not archive_path.exists():
        return 0
    db = sqlite3.connect(archive_path)
    try:
        return db.execute("SELECT count(*) FROM decisions").fetchone()[0]
    except sqlite3.OperationalError:
        return 0
    finally:
        db.close()


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGTERM])
def test_a_killed_bounded_run_is_seen_stale_and_resumed_by_the_cli(tmp_path, capsys, stop):
    import time

    archive_path = tmp_path / "a.sqlite"
    command = [
        sys.executable, "-m", "bounded.cli", "run", "warehouse", "--model", "scripted:minimal",
        "--horizon", "400", str(archive_path),
    ]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while decisions_in(archive_path) < 20:
        assert process.poll() is None and time.monotonic() < deadline
        time.sleep(0.02)
    process.send_signal(stop)
    process.wait(timeout=30)
    with Archive(archive_path) as archive:
        (run,) = archive.runs()
    assert run.decisions < 400
    main(["runs", str(archive_path)])
    listed = " ".join(capsys.readouterr().out.split())
    if stop == signal.SIGKILL:
        assert run.status == "running" and "1 stale runs (1 resumable)" in listed
    else:  # closed by the CLI's signal handler, resumable all the same
        assert run.status == "failed" and "SIGTERM" in run.error and "stale" not in listed
    main(["resume", run.run_id[:12], str(archive_path)])
    with Archive(archive_path) as archive:
        resumed = archive.run(run.run_id)
        assert resumed.status == "completed" and resumed.decisions == 400
        assert [r.index for r in archive.decisions(run.run_id, with_segments=False)] == list(
            range(400)
        )


def test_a_run_played_under_other_inputs_is_not_resumed_under_todays(tmp_path):
    """A contract configured otherwise now (a new option, a changed default) than when the
    run was killed would make its first decisions and the rest two different games."""
    spec = spec_for("warehouse", "state")
    archive_path = killed_run(tmp_path, spec, 5, "boundary")
    with Archive(archive_path) as archive:
        (killed,) = archive.runs()
        inputs = {**killed.inputs, "contract_config_hash": "an older configuration"}
        archive.save_run(killed.model_copy(update={"inputs": inputs}))
    with pytest.raises(ResumeError, match=r"other inputs \(contract_config_hash changed"):
        resume_run(archive_path, killed.run_id)
    with Archive(archive_path) as archive:
        assert len(archive.decisions(killed.run_id)) == killed.decisions  # nothing written
