"""Every decision of an archive in one pass, a page at a time, for the readers that cover the
whole archive (`bounded export`): what they hold is a page, not the archive.

`every_decision` reads the decisions of every run in `Archive.runs` order (a run's by index;
the runs themselves: `queries.stream_runs`) through one query that walks the runs' order
index and each run's decisions by their `(run, idx)` key, so nothing is sorted and no run is
listed first. A decision's prompt comes as its (label id, text id) pairs, decoded from the prompt
before it as the rows go by (`bounded.archive.prompts`): no `Segment` is built per decision,
and `PromptTexts` reads the texts and labels a page of decisions names, once per page.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from itertools import islice
from typing import NamedTuple

from bounded.archive.prompts import IDS_PER_QUERY, BrokenPrompt, Ids, decode
from bounded.archive.queries import _stream
from bounded.archive.rows import decision_from_row
from bounded.archive.sqlite import Archive
from bounded.core import DecisionRecord


class StoredDecision(NamedTuple):
    """A decision as `every_decision` reads it: the record without its segments, and its
    prompt as (label id, text id) per segment (`PromptTexts` names them)."""

    record: DecisionRecord
    prompt: Ids


EVERY_DECISION = (
    "SELECT r.run_id, d.* FROM runs r CROSS JOIN decisions d ON d.run = r.id "
    "ORDER BY r.started_at, r.run_id, r.id, d.idx"
)
"""The runs as `Archive.runs` orders them, then each one's decisions by index: `r.id` (the
order index's last column) tells SQLite that the runs' order is strict, so that it reads the
rows in order rather than sorting each run's decisions; CROSS JOIN keeps the runs outside."""


def every_decision(archive: Archive, *, prompts: bool = True) -> Iterator[StoredDecision]:
    """Every decision of every run, in `Archive.runs` order and then by index, streamed;
    each prompt's ids only when `prompts` (else empty)."""
    previous: tuple[int, int, Ids] | None = None  # (run key, index, ids) of the last row
    for row in _stream(archive, EVERY_DECISION):
        ids: Ids = []
        if prompts:
            keep, ids = decode(row["prompt"])
            if keep:
                if previous is None or previous[:2] != (row["run"], row["idx"] - 1):
                    raise BrokenPrompt(_broken(row["idx"], row["run_id"]))
                if len(previous[2]) < keep:
                    raise BrokenPrompt(_broken(row["idx"], row["run_id"]))
                ids = previous[2][:keep] + ids
            previous = (row["run"], row["idx"], ids)
        with archive._guard("cannot read archive"):
            record = decision_from_row(archive._db, archive._shared, row["run_id"], row, [])
        yield StoredDecision(record, ids)


def _broken(index: int, run_id: str) -> str:
    return f"the prompt of decision {index} of run {run_id[:12]} builds on a missing one"


class PromptTexts:
    """The labels and texts that stored prompts name (by id), read from one archive."""

    def __init__(self, archive: Archive) -> None:
        self._archive = archive
        self._labels: dict[int, tuple[str, str]] = {}

    def label(self, label_id: int) -> tuple[str, str]:
        """`(layer, role)` of a label (the labels are few: all are read, again when one
        written since is named)."""
        if label_id not in self._labels:
            rows = self._archive._query("SELECT id, layer, role FROM labels")
            self._labels = {int(row[0]): (str(row[1]), str(row[2])) for row in rows}
        return self._labels[label_id]

    def texts(self, text_ids: Collection[int]) -> dict[int, str]:
        """Text id -> its text, for each of `text_ids` (read `IDS_PER_QUERY` at a time)."""
        found: dict[int, str] = {}
        chunks = iter(sorted(text_ids))
        while chunk := list(islice(chunks, IDS_PER_QUERY)):
            marks = ", ".join("?" for _ in chunk)
            rows = self._archive._query(f"SELECT id, text FROM texts WHERE id IN ({marks})", chunk)
            found.update((int(row[0]), str(row[1])) for row in rows)
        if missing := set(text_ids) - set(found):
            raise BrokenPrompt(f"a stored prompt names text {min(missing)}, which is not stored")
        return found


__all__ = ["PromptTexts", "StoredDecision", "every_decision"]
