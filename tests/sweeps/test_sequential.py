"""`bounded sweep --until-decided`: real scripted spire games in blocks, stopped when the
anytime-valid sequence excludes 0 (the expert against a player of no skill), or run to
the end of its seeds when there is nothing to find (two contracts given the same
replies); the rule and the stop recorded in the archive and printed by `analyze`; a
rerun reaches the same decision without playing; mistakes refused in one line."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from bounded.analysis.anytime import sequential_records
from bounded.archive import Archive
from bounded.core import ConfigError
from bounded.sweeps.experiment import load_experiment
from bounded.sweeps.sequential import Stopping, run_until_decided

BOUNDED = [sys.executable, "-m", "bounded.cli"]


def player_file(tmp_path, *, games=40, slip=1.0, extra=""):
    """The spire expert against the same seat playing uniformly at random (`slip`)."""
    path = tmp_path / "players.toml"
    path.write_text(
        textwrap.dedent(
            f"""
            [experiment]
            name = "players"
            archive = "{tmp_path / "p.sqlite"}"

            [defaults]
            env = "spire"
            model = "none"
            contract = "bounded.contracts.expert:PlayerContract"
            games = {games}

            [[cells]]
            tag = "expert"
            contract_config = {{ expert = "bounded.envs.spire:SpireExpert", slip = 0.0 }}

            [[cells]]
            tag = "random"
            contract_config = {{ expert = "bounded.envs.spire:SpireExpert", slip = {slip} }}
            {extra}
            """
        )
    )
    return path


def completed(path):
    with Archive(path, read_only=True) as archive:
        return sorted((r.cell, r.seed) for r in archive.runs() if r.status == "completed")


def test_the_expert_against_no_skill_is_decided_early_and_recorded(tmp_path):
    experiment = load_experiment(player_file(tmp_path))
    stopping = Stopping(a="expert", b="random", block=5)
    summary = run_until_decided(experiment, stopping)
    record = summary.record
    assert record.reason == "decided" and record.stopped_at < 40
    assert record.stopped_at % 5 == 0 and len(record.looks) == record.stopped_at // 5
    assert [look.decided for look in record.looks] == [False] * (len(record.looks) - 1) + [True]
    assert record.looks[-1].low > 0
    played = completed(experiment.archive)
    assert len(played) == 2 * record.stopped_at  # only the blocks played, both cells
    assert {seed for _, seed in played} == set(range(1, record.stopped_at + 1))
    with Archive(experiment.archive, read_only=True) as archive:
        (stored,) = sequential_records(archive)
    assert stored.reason == "decided" and stored.stopped_at == record.stopped_at
    assert stored.level == 0.05 and stored.block == 5 and stored.rule == record.rule
    again = run_until_decided(experiment, stopping)
    assert again.played == 0 and again.record.stopped_at == record.stopped_at
    assert completed(experiment.archive) == played


def test_analyze_prints_the_anytime_interval_of_a_sweep_stopped_when_decided(tmp_path):
    path = player_file(tmp_path)
    swept = subprocess.run(
        [*BOUNDED, "sweep", str(path), "--until-decided", "expert", "random", "--block", "5"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert swept.returncode == 0, swept.stderr
    assert "excludes 0: decided" in swept.stdout
    assert "stopped after" in swept.stdout and "(decided;" in swept.stdout
    shown = subprocess.run(
        [*BOUNDED, "analyze", str(tmp_path / "p.sqlite"), "--compare", "expert,random"],
        capture_output=True, text=True, env={**os.environ, "COLUMNS": "240"},
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    line = next(x for x in shown.stdout.splitlines() if "was played until decided" in x)
    assert "anytime-valid 95% interval of A - B" in line and "(excludes 0)" in line
    assert "use it, not the fixed-size intervals above" in line
    as_json = subprocess.run(
        [*BOUNDED, "analyze", str(tmp_path / "p.sqlite"), "--compare", "expert,random", "--json"],
        capture_output=True, text=True,
    )  # fmt: skip
    (paired,) = json.loads(as_json.stdout)["paired"]
    assert paired["anytime"]["decided"] and paired["anytime"]["low"] > 0


def test_nothing_to_find_plays_every_seed_and_says_so(tmp_path):
    # Same replies, same warehouse streams: every pair is a tie, the sequence never
    # excludes 0, and the sweep ends when the seeds do.
    reply = {"reasoning": "", "action": {"id": "report", "args": {"occupied": 0, "shipped": 0}}}
    (tmp_path / "replies.jsonl").write_text(json.dumps(reply) + "\n")
    path = tmp_path / "same.toml"
    path.write_text(
        textwrap.dedent(
            f"""
            [experiment]
            name = "same"
            archive = "{tmp_path / "s.sqlite"}"

            [defaults]
            env = "warehouse"
            model = "scripted:replies.jsonl"
            games = 6
            env_options = {{ horizon = 4 }}

            [[cells]]
            tag = "state"
            contract = "state"

            [[cells]]
            tag = "transcript"
            contract = "transcript"

            [[cells]]
            tag = "summary"
            contract = "summary"
            """
        )
    )
    experiment = load_experiment(path)
    stopping = Stopping(a="state", b="transcript", metric="score", block=4)
    summary = run_until_decided(experiment, stopping)
    assert summary.record.reason == "seeds exhausted" and summary.record.stopped_at == 6
    assert [look.pairs for look in summary.record.looks] == [4, 6]
    assert not any(look.decided for look in summary.record.looks)
    assert {cell for cell, _ in completed(tmp_path / "s.sqlite")} == {"state", "transcript"}
    capped = run_until_decided(
        experiment, Stopping(a="state", b="transcript", block=2, max_games=2)
    )
    assert capped.record.reason == "game budget" and capped.record.stopped_at == 2


def test_mistakes_are_refused_in_one_line_and_leave_the_archive_as_it_was(tmp_path):
    path = player_file(tmp_path, games=2)
    experiment = load_experiment(path)
    with pytest.raises(ConfigError, match="no cell or treatment 'nobody'"):
        run_until_decided(experiment, Stopping(a="expert", b="nobody"))
    with pytest.raises(ConfigError, match="--block must be at least 1"):
        run_until_decided(experiment, Stopping(a="expert", b="random", block=0))
    assert not (tmp_path / "p.sqlite").exists()
    bad = subprocess.run(
        [*BOUNDED, "sweep", str(path), "--until-decided", "expert", "random", "--level", "2"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert "--level must lie strictly between 0 and 1" in bad.stderr
    assert not (tmp_path / "p.sqlite").exists()


def test_every_look_plays_from_the_plan_built_once(tmp_path, monkeypatch):
    from bounded.sweeps.stages import Stages

    built = []
    expand = Stages.stages

    def counted(self, archive_path=None):
        built.append(archive_path)
        return expand(self, archive_path)

    monkeypatch.setattr(Stages, "stages", counted)
    experiment = load_experiment(player_file(tmp_path, games=4, slip=0.0))
    summary = run_until_decided(experiment, Stopping(a="expert", b="random", block=2))
    assert len(summary.record.looks) == 2 and len(summary.sweeps) == 2
    assert built == [experiment.archive]
