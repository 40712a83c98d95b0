"""The archive's named queries, and the rule that keeps SQL inside `bounded.archive`."""

from __future__ import annotations

import ast
import re
import sqlite3
from pathlib import Path

import pytest

from bounded.archive import Archive, queries
from bounded.archive.queries import (
    LEAN_LEFT_OUT,
    PROGRESS_COLUMNS,
    decision_counts,
    holds_runs_table,
    infos_naming,
    lean_runs,
    meta_with_prefix,
    progress_runs,
    prompt_segments,
    run_overview,
    run_values,
    runs_with_decisions_page,
    snapshots_of_kind,
    store_meta,
    stream_runs,
)
from bounded.core import INVALID_KEY, Action, Completion, DecisionRecord, RunRecord, Segment

PACKAGE = Path(__file__).parents[2] / "src" / "bounded"
ARCHIVE_PACKAGE = PACKAGE / "archive"
SQL = re.compile(
    r"^\s*(SELECT|INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER|PRAGMA|BEGIN|WITH)\s"
    r"|\bSELECT\b.*\bFROM\b|\bINSERT\s+(OR\s+\w+\s+)?INTO\b|\bDELETE\s+FROM\b"
)
"""An SQL statement in a string literal (keywords as SQL is written in this project)."""


def sql_in(source: str) -> list[str]:
    """The string literals of a module's source that hold SQL, and a bare `sqlite3` import."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if SQL.search(node.value):
                found.append(node.value.strip().splitlines()[0])
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
            if "sqlite3" in names:
                found.append("import sqlite3")
    return found


def test_no_sql_stands_outside_the_archive():
    outside = {
        str(path.relative_to(PACKAGE)): found
        for path in sorted(PACKAGE.rglob("*.py"))
        if ARCHIVE_PACKAGE not in path.parents and (found := sql_in(path.read_text()))
    }
    assert outside == {}


@pytest.mark.parametrize(
    "source",
    [
        'rows = archive.execute("SELECT key FROM meta WHERE key = ?", (k,))',
        'q = f"INSERT OR IGNORE INTO snapshots VALUES ({marks})"',
        'db.execute("DELETE FROM runs")',
        'db.execute("PRAGMA journal_mode")',
        "import sqlite3",
    ],
)
def test_the_rule_finds_sql(source):
    assert sql_in(source)


@pytest.mark.parametrize(
    "source",
    ['text = "Select the key you want from the menu"', "run = runner.execute()"],
)
def test_the_rule_leaves_prose_alone(source):
    assert not sql_in(source)


def test_meta_entries_are_stored_and_read_by_prefix(tmp_path):
    with Archive(tmp_path / "a.sqlite") as archive:
        store_meta(archive, "sweep_plan:one", "1")
        store_meta(archive, "sweep_plan:two", "2")
        store_meta(archive, "sweep_plan:one", "3")  # replaces
        store_meta(archive, "sweepXplan:three", "4")  # `_` is no wildcard here
        assert meta_with_prefix(archive, "sweep_plan:") == {
            "sweep_plan:one": "3",
            "sweep_plan:two": "2",
        }


def test_snapshots_of_a_kind_oldest_first_across_pages(tmp_path, monkeypatch):
    monkeypatch.setattr(queries, "ROWS_PER_PAGE", 2)
    with Archive(tmp_path / "a.sqlite") as archive:
        for n in range(5):
            archive.put_snapshot("phase", {"n": n})
            archive.put_snapshot("other", {"m": n})
        assert list(snapshots_of_kind(archive, "phase")) == [{"n": n} for n in range(5)]


def decision(run_id, index, *, fallback=False, parse_error=None, info=None):
    return DecisionRecord(
        run_id=run_id,
        index=index,
        t=index,
        kind="step",
        segments=[Segment(layer="observation", role="user", text=f"o{index}")],
        tokens_by_layer={"observation": 1},
        prompt_tokens=1,
        completion=Completion(text="{}"),
        actions=[Action(id="wait")],
        fallback=fallback,
        parse_error=parse_error,
        info=info or {},
    )


def test_decision_counts_and_the_infos_that_name_a_key(tmp_path, monkeypatch):
    monkeypatch.setattr(queries, "ROWS_PER_PAGE", 1)
    with Archive(tmp_path / "a.sqlite") as archive:
        for run_id in ("ra", "rb"):
            archive.save_run(RunRecord(run_id=run_id, env_id="e", contract="c", model="m", seed=1))
        archive.add_decision(decision("ra", 0, fallback=True))
        archive.add_decision(decision("ra", 1, parse_error="bad", info={INVALID_KEY: ["x", "y"]}))
        archive.add_decision(decision("rb", 0))
        counts = {c.run_id: c for c in decision_counts(archive)}
        assert counts["ra"] == ("ra", 2, 1, 1)
        assert counts["rb"] == ("rb", 1, 0, 0)
        assert list(infos_naming(archive, INVALID_KEY)) == [("ra", {INVALID_KEY: ["x", "y"]})]


def test_a_runs_table_is_recognised_without_writing(tmp_path):
    assert not holds_runs_table(tmp_path / "none.sqlite")
    Archive(tmp_path / "a.sqlite").close()
    assert holds_runs_table(tmp_path / "a.sqlite")
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    before = other.read_bytes()
    assert not holds_runs_table(other)
    assert other.read_bytes() == before
    (tmp_path / "text.sqlite").write_text("not sqlite at all")
    assert holds_runs_table(tmp_path / "text.sqlite")  # opening it says what it is


def test_run_overview_and_pages_of_runs_with_decisions(tmp_path):
    with Archive(tmp_path / "a.sqlite") as archive:
        for n, (status, revision) in enumerate(
            [("completed", "r2"), ("failed", ""), ("completed", "r1"), ("completed", "r2")]
        ):
            archive.save_run(
                RunRecord(
                    run_id=f"run{n}", env_id="e", contract="c", model="m", seed=n,
                    status=status, code_revision=revision, started_at=100.0 + n,
                    experiment="x" if n < 3 else "y",
                )
            )  # fmt: skip
            if n != 1:
                archive.add_decision(decision(f"run{n}", 0))
        assert run_overview(archive) == (4, 3, ["r2", "unrecorded", "r1"])
        assert run_overview(archive, "y") == (1, 1, ["r2"])
        assert run_overview(archive, "none") == (0, 0, [])
        pages = [runs_with_decisions_page(archive, offset=o, limit=2) for o in (0, 2)]
        assert [[r.run_id for r in page] for page in pages] == [["run0", "run2"], ["run3"]]
        assert [r.run_id for r in runs_with_decisions_page(archive, "x")] == ["run0", "run2"]
        after = [runs_with_decisions_page(archive, after=a, limit=2) for a in ("run0", "run2")]
        assert [[r.run_id for r in page] for page in after] == [["run2", "run3"], ["run3"]]
        assert runs_with_decisions_page(archive, "x", after="run2") == []


def test_runs_are_paged_by_an_index_an_older_format_3_archive_gains_when_opened(tmp_path):
    path = tmp_path / "a.sqlite"
    Archive(path).close()
    db = sqlite3.connect(path)
    db.execute("DROP INDEX runs_in_order")
    db.close()
    with Archive(path) as archive:
        plan = archive._query(
            "EXPLAIN QUERY PLAN SELECT id, run_id FROM runs WHERE 1 "
            "AND (started_at, run_id) > (?, ?) ORDER BY started_at, run_id",
            (0.0, ""),
        )
    assert any("runs_in_order" in row["detail"] for row in plan)


def test_progress_runs_read_what_a_sweeps_progress_counts(tmp_path):
    with Archive(tmp_path / "a.sqlite") as archive:
        for n in (2, 1):
            archive.save_run(
                RunRecord(
                    run_id=f"run{n}", env_id="warehouse", contract="c", model="m", seed=n,
                    experiment="x", cell="c.w", status="running", decisions=n,
                    prompt_tokens=10 * n, usage={"m": {"prompt_tokens": 10 * n}},
                    started_at=float(n), model_params={"big": "x" * 1000},
                )
            )  # fmt: skip
        read = list(progress_runs(archive))
        full = archive.runs()
    assert [r.run_id for r in read] == [r.run_id for r in full] == ["run1", "run2"]
    for slim, whole in zip(read, full, strict=True):
        for column in PROGRESS_COLUMNS:
            assert getattr(slim, column) == getattr(whole, column)
        assert slim.model_params == {}  # not read


def test_lean_runs_read_every_field_a_report_reads_and_share_a_cells_settings(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(queries, "ROWS_PER_PAGE", 2)  # three pages
    config = {"window": 3, "prompts": ["a", "b"]}
    with Archive(tmp_path / "a.sqlite") as archive:
        for n in range(5):
            archive.save_run(
                RunRecord(
                    run_id=f"run{n}", env_id="warehouse", contract="c", model="m", seed=n,
                    experiment="x" if n < 4 else "y", cell="c.w", status="completed",
                    contract_config=config, model_params={"temperature": 0.5},
                    spec={"env": "warehouse", "seed": n, "env_options": {"horizon": 10}},
                    outcome={"won": n % 2 == 0, "score": float(n)}, usage={"m": {"calls": n}},
                    postrun={"calls": ["x" * 100]}, inputs={"env_version": "1"},
                    store_hashes={"s": "h"}, error="none", started_at=float(n),
                )
            )  # fmt: skip
        lean = list(lean_runs(archive))
        full = archive.runs()
        of_x = list(lean_runs(archive, "x"))
    left_out = dict.fromkeys(LEAN_LEFT_OUT)
    defaults = {name: RunRecord.model_fields[name].get_default(call_default_factory=True)
                for name in left_out}  # fmt: skip
    assert [r.model_dump() for r in lean] == [
        r.model_copy(update=defaults).model_dump() for r in full
    ]
    assert [r.run_id for r in of_x] == ["run0", "run1", "run2", "run3"]
    assert lean[0].contract_config is lean[4].contract_config  # one value, read once
    assert lean[0].spec["env_options"] is lean[3].spec["env_options"]
    assert lean[0].outcome is not lean[2].outcome  # a run's own values stay its own


def test_runs_streamed_by_filter_and_id_prefix_in_the_order_runs_gives(tmp_path, monkeypatch):
    monkeypatch.setattr(queries, "ROWS_PER_PAGE", 1)
    with Archive(tmp_path / "a.sqlite") as archive:
        for n, (tag, contract) in enumerate([("a", "c1"), ("b", "c1"), ("a", "c2"), ("", "c1")]):
            archive.save_run(
                RunRecord(
                    run_id=f"run{n}x", env_id="e", contract=contract, model="m", seed=n,
                    tag=tag, started_at=10.0 - n,
                )
            )  # fmt: skip
        every = [r.run_id for r in archive.runs()]
        assert [r.run_id for r in stream_runs(archive)] == every == [
            "run3x", "run2x", "run1x", "run0x",
        ]  # fmt: skip
        assert [r.run_id for r in stream_runs(archive, tag="a")] == ["run2x", "run0x"]
        assert [r.run_id for r in stream_runs(archive, tag="a", contract="c1")] == ["run0x"]
        assert [r.run_id for r in stream_runs(archive, id_prefix="run1")] == ["run1x"]
        assert list(stream_runs(archive, tag="none")) == []
        assert [r.model_dump() for r in stream_runs(archive, experiment=None)] == [
            r.model_dump() for r in archive.runs()
        ]
        with pytest.raises(ValueError, match="not filtered on status"):
            list(stream_runs(archive, status="completed"))
        assert run_values(archive, "tag") == ["", "a", "b"]
        assert run_values(archive, "contract") == ["c1", "c2"]


def test_a_range_of_prompt_segments_as_a_decision_holds_them(tmp_path):
    with Archive(tmp_path / "a.sqlite") as archive:
        archive.save_run(RunRecord(run_id="ra", env_id="e", contract="c", model="m", seed=1))
        for index in range(4):
            archive.add_decision(decision("ra", index))
        segments = prompt_segments(archive, "ra", 1, 3)
        held = {d.index: d.segments for d in archive.decisions("ra")}
        assert prompt_segments(archive, "unknown", 0, 4) == {}
    assert segments == {1: held[1], 2: held[2]}
    assert segments[2] == [Segment(layer="observation", role="user", text="o2")]
