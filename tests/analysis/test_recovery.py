"""The state-recovery table, from a real archive of perturbed and unperturbed runs."""

from __future__ import annotations

from bounded.analysis.recovery import (
    accuracy_after,
    decisions_to_recover,
    recovery_rows,
    render_recovery,
)
from bounded.archive import Archive
from bounded.contracts import make_contract
from bounded.envs import make
from bounded.jobs.scripted_players import counting_model
from bounded.runner import EpisodeRunner


def test_the_table_lists_perturbed_runs_only(tmp_path) -> None:
    path = tmp_path / "runs.sqlite"
    with Archive(path) as archive:
        for tag, settings in (("plain", {}), ("wiped", {"perturb_at": 3})):
            EpisodeRunner(
                make("warehouse", horizon=6, state_hint="schema"),
                make_contract("state", settings),
                counting_model(),
                seed=2,
                env_id="bounded/Warehouse-v0",
                tag=tag,
                archive=archive,
            ).execute()
    rows = recovery_rows(path)
    assert [row.tag for row in rows] == ["wiped"]
    row = rows[0]
    assert (row.at, row.perturb, row.decisions) == (3, "wipe", 6)
    assert row.accuracy_before == 1.0
    table = render_recovery(rows)
    assert "| Warehouse-v0 | state | wiped |" in table and "wipe at 3" in table


def test_the_command_prints_the_table_and_refuses_a_missing_archive(tmp_path) -> None:
    import os
    import subprocess
    import sys

    path = tmp_path / "runs.sqlite"
    with Archive(path) as archive:
        EpisodeRunner(
            make("warehouse", horizon=4, state_hint="schema"),
            make_contract("transcript", {"perturb_at": 2, "perturb": "corrupt"}),
            counting_model(),
            seed=3,
            env_id="bounded/Warehouse-v0",
            tag="corrupted",
            archive=archive,
        ).execute()
    command = [sys.executable, "-m", "bounded.cli", "recovery-table"]
    env = {**os.environ, "COLUMNS": "200"}
    shown = subprocess.run([*command, str(path)], capture_output=True, text=True, env=env)
    assert shown.returncode == 0, shown.stderr
    assert "| Warehouse-v0 | transcript | corrupted |" in shown.stdout
    assert "| corrupt at 2 | 1 |" in shown.stdout  # the events are intact: recounted at once
    missing = subprocess.run(
        [*command, str(tmp_path / "absent.sqlite")], capture_output=True, text=True, env=env
    )
    assert missing.returncode != 0 and "no archive at" in missing.stderr + missing.stdout


def test_decisions_to_recover_counts_from_the_perturbed_decision() -> None:
    rewards = [1, 1, 0, 0, 1, 1]
    assert decisions_to_recover(rewards, 2) == 3  # decisions 2, 3 wrong, 4 right: 3rd from 2
    assert decisions_to_recover(rewards, 4) == 1
    assert decisions_to_recover([1, 0, 0], 1) is None
    assert accuracy_after(rewards, 2) == 2 / 4
    assert accuracy_after(rewards, 6) is None
