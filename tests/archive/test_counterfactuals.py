"""The counterfactuals table: created with the archive's schema (an older archive gains it
as it is converted), rows round-trip, and deleting a run deletes its rows."""

import shutil
import sqlite3
from pathlib import Path

from bounded.archive import Archive
from bounded.archive.counterfactuals import Counterfactual, add_counterfactual, counterfactuals
from bounded.core import Action, Completion, DecisionRecord, RunRecord

FORMAT2 = Path(__file__).parents[1] / "data" / "archive_format2.sqlite"


def archive_with_a_decision(path):
    archive = Archive(path)
    archive.save_run(RunRecord(run_id="r1", env_id="bounded/Warehouse-v0", contract="state",
                               model="m", seed=1))  # fmt: skip
    archive.add_decision(DecisionRecord(
        run_id="r1", index=0, t=0, kind="stream", segments=[], tokens_by_layer={},
        prompt_tokens=0, completion=None, actions=[Action(id="report", args={"occupied": 1})],
    ))  # fmt: skip
    return archive


def a_row(**changes):
    row = Counterfactual(
        run_id="r1", index=0, layer="spec", model="scripted", settings_hash="h",
        settings={"max_tokens": 8}, kind="stream",
        original_actions=[Action(id="report", args={"occupied": 1})],
        actions=[Action(id="report", args={"occupied": 2})],
        completion=Completion(text="{}", prompt_tokens=3), expert_actions=[Action(id="report")],
        changed=True, original_agrees=False, counterfactual_agrees=False,
    )  # fmt: skip
    return row.model_copy(update=changes)


def test_rows_round_trip_and_replace_by_key(tmp_path):
    with archive_with_a_decision(tmp_path / "a.sqlite") as archive:
        add_counterfactual(archive, a_row())
        add_counterfactual(archive, a_row(changed=False))  # same key: replaced
        add_counterfactual(archive, a_row(layer="state"))
        rows = counterfactuals(archive)
    assert [(r.layer, r.changed) for r in rows] == [("spec", False), ("state", True)]
    assert rows[1] == a_row(layer="state", created_at=rows[1].created_at)


def test_deleting_a_run_deletes_its_counterfactuals(tmp_path):
    with archive_with_a_decision(tmp_path / "a.sqlite") as archive:
        add_counterfactual(archive, a_row())
        archive.delete_run("r1")
        assert counterfactuals(archive) == []


def test_an_older_archive_from_before_the_table_reads_none_and_gains_it(tmp_path):
    path = tmp_path / "old.sqlite"
    shutil.copyfile(FORMAT2, path)
    db = sqlite3.connect(path)
    db.execute("DROP TABLE counterfactuals")
    db.commit()
    db.close()
    with Archive(path, read_only=True) as archive:
        assert counterfactuals(archive) == []
        run_id = archive.runs()[0].run_id
    with Archive(path) as archive:
        add_counterfactual(archive, a_row().model_copy(update={"run_id": run_id}))
        assert len(counterfactuals(archive)) == 1
