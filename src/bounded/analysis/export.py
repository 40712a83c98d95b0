"""Archive export: pandas DataFrames of runs and decisions, written as JSONL or Parquet."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bounded.archive import Archive
from bounded.core import ConfigError
from bounded.registry import did_you_mean

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

FORMATS = ("jsonl", "parquet")
"""The formats of runs and decisions as tables (`export_archive`)."""

EXPORT_FORMATS = ("jsonl", "parquet", "balrog", "summary")
"""Every format of `bounded export` (balrog: BALROG's results folder; summary: a small
JSON of the runs)."""


def unknown_format(fmt: str) -> ConfigError:
    """The error of a format `bounded export` does not write: every one it does."""
    hint = did_you_mean(fmt, EXPORT_FORMATS)
    return ConfigError(f"unknown export format {fmt!r}{hint} (use {', '.join(EXPORT_FORMATS)})")


def runs_frame(archive: Archive) -> pd.DataFrame:
    """One row per run; JSON fields (outcome, configs, hashes) stay as dicts."""
    import pandas as pd

    return pd.DataFrame([run.model_dump() for run in archive.runs()])


def _decision_row(record: Any) -> dict[str, Any]:
    completion = record.completion
    return {
        "run_id": record.run_id,
        "index": record.index,
        "t": record.t,
        "kind": record.kind,
        "prompt_tokens": record.prompt_tokens,
        "tokens_by_layer": dict(record.tokens_by_layer),
        "completion_text": completion.text if completion else None,
        "completion_tokens": completion.completion_tokens if completion else 0,
        "actions": [a.model_dump(by_alias=True) for a in record.actions],
        "reasoning": record.reasoning,
        "parse_error": record.parse_error,
        "fallback": record.fallback,
        "reward": record.reward,
        "latency_s": record.latency_s,
        "segments": [s.model_dump() for s in record.segments],
    }


def decision_rows(archive: Archive, *, with_segments: bool = False) -> Iterator[dict[str, Any]]:
    """One row per decision of every run, read a chunk at a time; `segments` (the prompt)
    only when asked."""
    for run in archive.runs():
        for record in archive.iter_decisions(run.run_id, with_segments=with_segments):
            row = _decision_row(record)
            if not with_segments:
                row.pop("segments")
            yield row


def decisions_frame(archive: Archive, *, with_segments: bool = False) -> pd.DataFrame:
    """One row per decision of every run in one DataFrame (for an archive that fits in
    memory; `export_archive` streams)."""
    import pandas as pd

    return pd.DataFrame(list(decision_rows(archive, with_segments=with_segments)))


def load_frames(path: str | Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(runs, decisions) DataFrames of an archive file."""
    with Archive(path, read_only=True) as archive:
        return runs_frame(archive), decisions_frame(archive)


def _for_parquet(frame: pd.DataFrame) -> pd.DataFrame:
    """Nested values (dicts, lists) as JSON text: their keys vary from row to row."""
    out = frame.copy()
    for column in out.columns:
        if out[column].map(lambda v: isinstance(v, dict | list)).any():
            out[column] = out[column].map(lambda v: json.dumps(v, sort_keys=True, default=str))
    return out


NESTED_DECISION_COLUMNS = ("tokens_by_layer", "actions", "segments")
"""A decision row's nested columns, JSON text in Parquet."""


def _decision_schema(with_segments: bool) -> pa.Schema:
    import pyarrow as pa

    fields = [
        ("run_id", pa.string()),
        ("index", pa.int64()),
        ("t", pa.float64()),
        ("kind", pa.string()),
        ("prompt_tokens", pa.int64()),
        ("tokens_by_layer", pa.string()),
        ("completion_text", pa.string()),
        ("completion_tokens", pa.int64()),
        ("actions", pa.string()),
        ("reasoning", pa.string()),
        ("parse_error", pa.string()),
        ("fallback", pa.bool_()),
        ("reward", pa.float64()),
        ("latency_s", pa.float64()),
    ]
    if with_segments:
        fields.append(("segments", pa.string()))
    return pa.schema(fields)


def _write_decisions(
    rows: Iterable[dict[str, Any]], target: Path, fmt: str, *, with_segments: bool
) -> None:
    """Decision rows written `ROWS_PER_WRITE` at a time (as pandas writes each chunk)."""
    import pandas as pd

    chunks = _chunks(rows, ROWS_PER_WRITE)
    if fmt == "jsonl":  # each chunk's lines end with a newline (an empty frame: one "\n")
        with target.open("w") as out:
            wrote = False
            for chunk in chunks:
                frame = pd.DataFrame(chunk)
                out.write(frame.to_json(orient="records", lines=True, default_handler=str))
                wrote = True
            if not wrote:
                out.write(pd.DataFrame([]).to_json(orient="records", lines=True))
        return
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = _decision_schema(with_segments)
    with pq.ParquetWriter(target, schema) as writer:
        for chunk in chunks:
            for row in chunk:
                for column in NESTED_DECISION_COLUMNS:
                    if column in row:
                        row[column] = json.dumps(row[column], sort_keys=True, default=str)
            writer.write_table(pa.Table.from_pylist(chunk, schema=schema))


def _chunks(rows: Iterable[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    it = iter(rows)
    while chunk := list(islice(it, size)):
        yield chunk


ROWS_PER_WRITE = 500
"""Decision rows an export holds before writing them (each a transcript's whole prompt at
most: 500 rows peak at 293 MB RSS exporting 10,000 decisions to Parquet, 2,000 at 485 MB)."""


def export_archive(
    path: str | Path, out_dir: str | Path, fmt: str = "jsonl", *, with_segments: bool = True
) -> list[Path]:
    """Write `runs.<fmt>` and `decisions.<fmt>` into `out_dir`, the decisions streamed from
    the archive a chunk at a time; returns the paths."""
    if fmt not in FORMATS:
        raise unknown_format(fmt)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    runs, decisions = out / f"runs.{fmt}", out / f"decisions.{fmt}"
    with Archive(path, read_only=True) as archive:
        frame = runs_frame(archive)
        if fmt == "jsonl":
            frame.to_json(runs, orient="records", lines=True, default_handler=str)
        else:
            _for_parquet(frame).to_parquet(runs, index=False)
        rows = decision_rows(archive, with_segments=with_segments)
        _write_decisions(rows, decisions, fmt, with_segments=with_segments)
    return [runs, decisions]


__all__ = [
    "FORMATS",
    "decision_rows",
    "decisions_frame",
    "export_archive",
    "load_frames",
    "runs_frame",
]
