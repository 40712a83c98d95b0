"""Named queries over an archive, for the code outside `bounded.archive`: every SQL
statement of the project stands in this package, so that a change of the storage format
changes these functions and not their callers (`tests/archive/test_queries.py` fails on
an SQL statement anywhere else in `src`).

The readers that may cover a whole archive (`decision_counts`, `infos_naming`,
`snapshots_of_kind`, `progress_runs`) hand rows over a page at a time (`ROWS_PER_PAGE`,
`fetchmany`): a caller that folds them holds one page, not the archive.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from bounded.archive.prompts import read_prompts
from bounded.archive.sqlite import Archive
from bounded.core import RunRecord, Segment

ROWS_PER_PAGE = 512
"""Rows a streaming query fetches at a time."""


def _stream(archive: Archive, sql: str, params: tuple[Any, ...] = ()) -> Iterator[sqlite3.Row]:
    """The rows of a read query, fetched `ROWS_PER_PAGE` at a time (SQLite failures as
    `ArchiveError`)."""
    with archive._guard("cannot read archive"):
        cursor = archive._db.execute(sql, params)
        try:
            while page := cursor.fetchmany(ROWS_PER_PAGE):
                yield from page
        finally:
            cursor.close()


# -- meta -------------------------------------------------------------------------------


def store_meta(archive: Archive, key: str, value: str) -> None:
    """Set one `meta` entry (replacing what the key held)."""
    with archive.transaction() as db:
        db.execute(
            "INSERT INTO meta VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )


def meta_with_prefix(archive: Archive, prefix: str) -> dict[str, str]:
    """The `meta` entries whose key starts with `prefix`: key -> value."""
    rows = archive._query(
        "SELECT key, value FROM meta WHERE substr(key, 1, ?) = ?",
        (len(prefix), prefix),
    )
    return {str(row["key"]): str(row["value"]) for row in rows}


# -- runs -------------------------------------------------------------------------------


class RunOverview(NamedTuple):
    """What a page says of an archive's runs before it reads them."""

    runs: int
    completed: int
    code_revisions: list[str]
    """The code revisions that played them, in order of first use (runs that recorded
    none: `unrecorded`)."""


def _experiment_clause(experiment: str | None) -> tuple[str, tuple[Any, ...]]:
    return ("experiment = ?", (experiment,)) if experiment is not None else ("1", ())


def run_overview(archive: Archive, experiment: str | None = None) -> RunOverview:
    """The runs' count, completed count and code revisions (of `experiment`'s runs, or of
    every run), by one aggregate query: no run row is read into memory."""
    where, params = _experiment_clause(experiment)
    rows = archive._query(
        "SELECT CASE WHEN code_revision = '' THEN 'unrecorded' ELSE code_revision END AS rev, "
        "COUNT(*) AS runs, COALESCE(SUM(status = 'completed'), 0) AS completed, "
        f"MIN(started_at) AS first, MIN(run_id) AS first_id FROM runs WHERE {where} GROUP BY rev",
        params,
    )
    ordered = sorted(rows, key=lambda row: (row["first"], row["first_id"]))
    return RunOverview(
        sum(int(row["runs"]) for row in rows),
        sum(int(row["completed"]) for row in rows),
        [str(row["rev"]) for row in ordered],
    )


def runs_with_decisions_page(
    archive: Archive,
    experiment: str | None = None,
    *,
    offset: int = 0,
    limit: int = 500,
    after: str | None = None,
) -> list[RunRecord]:
    """The runs with stored decisions (of `experiment`, or every run) in the order
    `Archive.runs` gives, `limit` of them: one page, from `offset`, or (`after`, a run id:
    keyset paging) from the run after that one. The runs' ids are read in order from the
    index `runs_in_order` (from `after`'s place in it, not from the first run) and each is
    looked up in the decisions' index only until the page is full."""
    where, params = _experiment_clause(experiment)
    if after is not None:
        where += (
            " AND (started_at, run_id) > (SELECT started_at, run_id FROM runs WHERE run_id = ?)"
        )
        params = (*params, after)
    ids = _stream(
        archive, f"SELECT id, run_id FROM runs WHERE {where} ORDER BY started_at, run_id", params
    )
    page: list[str] = []
    seen = 0
    for row in ids:
        if len(page) == limit:
            break
        if not archive._query("SELECT 1 FROM decisions WHERE run = ? LIMIT 1", (row["id"],)):
            continue
        if seen >= offset:
            page.append(str(row["run_id"]))
        seen += 1
    if not page:
        return []
    marks = ", ".join("?" for _ in page)
    rows = archive._query(f"SELECT * FROM runs WHERE run_id IN ({marks})", tuple(page))
    by_id = {str(row["run_id"]): row for row in rows}
    return [archive._stored_run(by_id[run_id]) for run_id in page]


def decisions_end(archive: Archive, run_id: str) -> int:
    """One past the run's last stored decision index (0: none), by its index."""
    rows = archive._query(
        "SELECT MAX(d.idx) FROM decisions d JOIN runs r ON r.id = d.run WHERE r.run_id = ?",
        (run_id,),
    )
    last = rows[0][0]
    return 0 if last is None else int(last) + 1


PROGRESS_COLUMNS = (
    "run_id", "env_id", "contract", "model", "seed", "experiment", "cell", "status",
    "decisions", "prompt_tokens", "completion_tokens", "usage", "started_at",
)  # fmt: skip
"""What a sweep's progress reads of a run (`bounded.sweeps.board`)."""
RUN_COLUMNS = tuple(name for name in RunRecord.model_fields)
"""The `runs` columns a run record reads (every field of `RunRecord`)."""


def progress_runs(archive: Archive) -> Iterator[RunRecord]:
    """Every run in `Archive.runs` order with only `PROGRESS_COLUMNS` read (the others at
    their defaults), streamed: what a sweep's progress counts, without the runs' settings."""
    rows = _stream(
        archive, f"SELECT {', '.join(PROGRESS_COLUMNS)} FROM runs ORDER BY started_at, run_id"
    )
    for row in rows:
        recounted = archive.recounted.get(row["run_id"])
        if recounted is not None:
            yield recounted
            continue
        data = dict(row)
        data["usage"] = json.loads(data["usage"])
        yield RunRecord.model_validate(data)


LEAN_LEFT_OUT = ("postrun", "inputs", "store_hashes", "error")
"""What a lean run (`lean_runs`) leaves at its default: what no table, plot or summary of
the report reads (a postrun's calls, the hashes of a run's inputs and stores, a failed
run's traceback)."""
SHARED_JSON = ("contract_config", "model_params")
"""JSON columns a sweep repeats in every game of a cell: a lean run reads each distinct
text once and shares the value."""


class LeanReader:
    """Builds lean runs from `runs` rows: short strings interned, each distinct text of the
    `SHARED_JSON` columns (and of the spec's nested values) parsed once and shared, every
    other value read per run. Shared values are read-only: no reader of a report changes
    a run."""

    def __init__(self) -> None:
        self.parsed: dict[str, Any] = {}
        self.fields_set = set(RunRecord.model_fields)  # shared: holding every field, never grows

    def shared(self, text: str) -> Any:
        found = self.parsed.get(text)
        if found is None:
            found = self.parsed[text] = self.interned(json.loads(text))
        return found

    def interned(self, value: Any) -> Any:
        """`value` with its dicts' keys and its short strings interned."""
        if isinstance(value, dict):
            return {sys.intern(k): self.interned(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.interned(v) for v in value]
        if isinstance(value, str) and len(value) <= 64:
            return sys.intern(value)
        return value

    def spec(self, text: str) -> Any:
        """The spec parsed, its nested values shared by their text (a cell's options and
        contract configuration repeat in each of its games)."""
        spec = json.loads(text)
        if not isinstance(spec, dict):
            return spec
        return {
            sys.intern(key): self.shared(json.dumps(value, sort_keys=True))
            if isinstance(value, dict | list)
            else self.interned(value)
            for key, value in spec.items()
        }

    def run(self, row: sqlite3.Row) -> RunRecord:
        data: dict[str, Any] = {}
        for key, value in zip(row.keys(), row, strict=True):
            if key in SHARED_JSON:
                data[key] = self.shared(value)
            elif key == "spec":
                data[key] = self.spec(value)
            elif key in ("outcome", "usage"):
                data[key] = self.interned(json.loads(value))
            elif isinstance(value, str) and key != "run_id":
                data[key] = sys.intern(value)
            elif key != "id":
                data[key] = value
        return RunRecord.model_construct(self.fields_set, **data)


def lean_runs(archive: Archive, experiment: str | None = None) -> Iterator[RunRecord]:
    """Every run (of `experiment`, or every run) in `Archive.runs` order, streamed a page at
    a time, each read lean (`LeanReader`): the `LEAN_LEFT_OUT` fields at their defaults,
    what a sweep repeats shared. A report holds these, a third of a run's memory."""
    where, params = _experiment_clause(experiment)
    kept = [column for column in RUN_COLUMNS if column not in LEAN_LEFT_OUT]
    rows = _stream(
        archive,
        f"SELECT {', '.join(kept)} FROM runs WHERE {where} ORDER BY started_at, run_id",
        params,
    )
    reader = LeanReader()
    for row in rows:
        recounted = archive.recounted.get(row["run_id"])
        yield recounted if recounted is not None else reader.run(row)


RUN_FILTERS = ("experiment", "tag", "contract")
"""The run columns `stream_runs` filters on (`run_values` lists what they hold)."""


def stream_runs(
    archive: Archive, *, id_prefix: str = "", **equal: str | None
) -> Iterator[RunRecord]:
    """The runs whose `RUN_FILTERS` columns equal the values given (None: any) and whose id
    starts with `id_prefix`, in `Archive.runs` order, read a page at a time: a caller that
    folds them holds one page."""
    wanted = {column: value for column, value in equal.items() if value is not None}
    unknown = set(wanted) - set(RUN_FILTERS)
    if unknown:
        raise ValueError(f"runs are not filtered on {', '.join(sorted(unknown))}")
    clauses = [f"{column} = ?" for column in wanted] + ["substr(run_id, 1, ?) = ?"]
    rows = _stream(
        archive,
        f"SELECT * FROM runs WHERE {' AND '.join(clauses)} ORDER BY started_at, run_id",
        (*wanted.values(), len(id_prefix), id_prefix),
    )
    for row in rows:
        yield archive._stored_run(row)


def run_values(archive: Archive, column: str) -> list[str]:
    """The distinct values of one of the `RUN_FILTERS` columns, sorted."""
    if column not in RUN_FILTERS:
        raise ValueError(f"runs are not filtered on {column}")
    rows = archive._query(f"SELECT DISTINCT {column} FROM runs")
    return sorted(str(row[0]) for row in rows)


# -- snapshots --------------------------------------------------------------------------


def snapshots_of_kind(archive: Archive, kind: str) -> Iterator[Any]:
    """The content of every snapshot of `kind`, oldest first, read a page at a time."""
    rows = _stream(
        archive, "SELECT content FROM snapshots WHERE kind = ? ORDER BY created_at", (kind,)
    )
    for row in rows:
        yield json.loads(row["content"])


# -- decisions --------------------------------------------------------------------------


class DecisionCounts(NamedTuple):
    """One run's stored decisions and how many fell back or failed to parse."""

    run_id: str
    decisions: int
    fallbacks: int
    parse_errors: int


def decision_counts(archive: Archive) -> Iterator[DecisionCounts]:
    """Per run with stored decisions, its counts (one aggregate query, streamed)."""
    rows = _stream(
        archive,
        "SELECT r.run_id, COUNT(*) AS decisions, SUM(d.fallback) AS fallbacks, "
        "SUM(d.parse_error IS NOT NULL) AS parse_errors "
        "FROM decisions d JOIN runs r ON r.id = d.run GROUP BY d.run",
    )
    for row in rows:
        yield DecisionCounts(
            str(row["run_id"]),
            int(row["decisions"]),
            int(row["fallbacks"] or 0),
            int(row["parse_errors"] or 0),
        )


def infos_naming(archive: Archive, key: str) -> Iterator[tuple[str, Any]]:
    """(run id, info) of the decisions whose `info` holds the key `key`, streamed."""
    rows = _stream(
        archive,
        "SELECT r.run_id, d.info FROM decisions d JOIN runs r ON r.id = d.run WHERE d.info LIKE ?",
        (f'%"{key}"%',),
    )
    for row in rows:
        yield str(row["run_id"]), json.loads(row["info"])


def prompt_segments(
    archive: Archive, run_id: str, start: int, end: int
) -> dict[int, list[Segment]]:
    """The prompt segments of a run's decisions with indices in [start, end): index ->
    segments (a reader that loads decisions without them, `Archive.iter_decisions`,
    fetches those it needs)."""
    with archive._guard("cannot read archive"):
        run = archive._run_key(archive.full_id(run_id))
        return {} if run is None else read_prompts(archive._db, run, start, end)


# -- files ------------------------------------------------------------------------------


def holds_runs_table(path: Path) -> bool:
    """Whether `path` is an SQLite file holding a `runs` table (read without writing; a
    file that is not SQLite answers True, so that opening it says what it is)."""
    if not path.is_file() or path.stat().st_size == 0:
        return False
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            query = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'runs'"
            return db.execute(query).fetchone() is not None
        finally:
            db.close()
    except sqlite3.DatabaseError:
        return True


__all__ = [
    "ROWS_PER_PAGE",
    "RUN_FILTERS",
    "DecisionCounts",
    "RunOverview",
    "decision_counts",
    "decisions_end",
    "holds_runs_table",
    "infos_naming",
    "lean_runs",
    "meta_with_prefix",
    "progress_runs",
    "prompt_segments",
    "run_overview",
    "run_values",
    "runs_with_decisions_page",
    "snapshots_of_kind",
    "store_meta",
    "stream_runs",
]
